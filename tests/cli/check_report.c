/* pbdiff tests — the reporters (cli/report.c) and the well-known types of
 * lib/format/format.c: the text report exactly (grouping headers, every kind of
 * edit, colour on and off, --max-diffs, --stat, input names, cut values),
 * the JSON report checked against docs/json-format.md by a strict JSON
 * parser written here, the colour decision, and Timestamp / Duration /
 * wrappers / Struct / FieldMask in text and JSON values. */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "core/arena.h"
#include "diff/diff.h"
#include "format/format.h"
#include "report.h" /* linked from build/cli/report.o (see Makefile) */
#include "testutil.h"
#include "tree/tree.h"

/* ---- a strict JSON parser (RFC 8259) ---------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct JVal JVal;
struct JVal {
  JType t;
  bool b;
  double num;
  bool integral;  /* a number written without fraction or exponent */
  char *s;        /* J_STR: the decoded string; J_NUM: the number as written */
  size_t n;       /* J_ARR, J_OBJ: element count */
  JVal *items;    /* elements / member values */
  char **keys;    /* J_OBJ: member names, in order */
};

typedef struct {
  const char *p, *end;
  const char *err;
  int depth;
} JParser;

static void j_free(JVal *v) {
  if (!v) return;
  free(v->s);
  for (size_t i = 0; i < v->n; i++) {
    j_free(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

static void j_ws(JParser *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool j_fail(JParser *j, const char *why) {
  if (!j->err) j->err = why;
  return false;
}

static void j_put_utf8(char **buf, size_t *len, unsigned cp) {
  char *b = *buf;
  if (cp < 0x80) {
    b[(*len)++] = (char)cp;
  } else if (cp < 0x800) {
    b[(*len)++] = (char)(0xc0 | cp >> 6);
    b[(*len)++] = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    b[(*len)++] = (char)(0xe0 | cp >> 12);
    b[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3f));
    b[(*len)++] = (char)(0x80 | (cp & 0x3f));
  } else {
    b[(*len)++] = (char)(0xf0 | cp >> 18);
    b[(*len)++] = (char)(0x80 | (cp >> 12 & 0x3f));
    b[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3f));
    b[(*len)++] = (char)(0x80 | (cp & 0x3f));
  }
}

static bool j_hex4(JParser *j, unsigned *out) {
  if (j->end - j->p < 4) return j_fail(j, "short \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *j->p++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return j_fail(j, "bad hex digit in \\u escape");
  }
  *out = v;
  return true;
}

/* A string; the opening quote is at j->p. */
static bool j_string(JParser *j, char **out) {
  j->p++;
  size_t cap = (size_t)(j->end - j->p) + 1, len = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  for (;;) {
    if (j->p >= j->end) {
      free(buf);
      return j_fail(j, "unterminated string");
    }
    unsigned char c = (unsigned char)*j->p;
    if (c == '"') {
      j->p++;
      break;
    }
    if (c < 0x20) {
      free(buf);
      return j_fail(j, "raw control character in string");
    }
    if (c == '\\') {
      j->p++;
      if (j->p >= j->end) {
        free(buf);
        return j_fail(j, "unterminated escape");
      }
      char e = *j->p++;
      unsigned cp;
      switch (e) {
        case '"': buf[len++] = '"'; break;
        case '\\': buf[len++] = '\\'; break;
        case '/': buf[len++] = '/'; break;
        case 'b': buf[len++] = '\b'; break;
        case 'f': buf[len++] = '\f'; break;
        case 'n': buf[len++] = '\n'; break;
        case 'r': buf[len++] = '\r'; break;
        case 't': buf[len++] = '\t'; break;
        case 'u':
          if (!j_hex4(j, &cp)) {
            free(buf);
            return false;
          }
          if (cp >= 0xdc00 && cp <= 0xdfff) {
            free(buf);
            return j_fail(j, "lone low surrogate");
          }
          if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned lo;
            if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
              free(buf);
              return j_fail(j, "lone high surrogate");
            }
            j->p += 2;
            if (!j_hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff) {
              free(buf);
              return j_fail(j, "bad surrogate pair");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          j_put_utf8(&buf, &len, cp);
          break;
        default:
          free(buf);
          return j_fail(j, "bad escape");
      }
      continue;
    }
    if (c >= 0x80) {
      size_t n = pbd_Utf8_SequenceLength((const unsigned char *)j->p, (size_t)(j->end - j->p));
      if (n == 0) {
        free(buf);
        return j_fail(j, "invalid UTF-8 in string");
      }
      memcpy(buf + len, j->p, n);
      len += n;
      j->p += n;
      continue;
    }
    buf[len++] = (char)c;
    j->p++;
  }
  buf[len] = '\0';
  *out = buf;
  return true;
}

static bool j_digits(JParser *j) {
  const char *s = j->p;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
  return j->p > s;
}

static bool j_number(JParser *j, JVal *v) {
  const char *s = j->p;
  v->t = J_NUM;
  v->integral = true;
  if (*j->p == '-') j->p++;
  if (j->p < j->end && *j->p == '0') {
    j->p++;
  } else if (!j_digits(j)) {
    return j_fail(j, "bad number");
  }
  if (j->p < j->end && *j->p == '.') {
    j->p++;
    v->integral = false;
    if (!j_digits(j)) return j_fail(j, "no digits after '.'");
  }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    v->integral = false;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
    if (!j_digits(j)) return j_fail(j, "no digits in exponent");
  }
  v->s = strndup(s, (size_t)(j->p - s));
  v->num = strtod(v->s, NULL);
  return true;
}

static bool j_value(JParser *j, JVal *v);

static bool j_array(JParser *j, JVal *v) {
  v->t = J_ARR;
  j->p++;
  j_ws(j);
  if (j->p < j->end && *j->p == ']') {
    j->p++;
    return true;
  }
  for (;;) {
    v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
    memset(&v->items[v->n], 0, sizeof *v->items);
    v->n++;
    if (!j_value(j, &v->items[v->n - 1])) return false;
    j_ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == ']') {
      j->p++;
      return true;
    }
    return j_fail(j, "expected ',' or ']'");
  }
}

static bool j_object(JParser *j, JVal *v) {
  v->t = J_OBJ;
  j->p++;
  j_ws(j);
  if (j->p < j->end && *j->p == '}') {
    j->p++;
    return true;
  }
  for (;;) {
    j_ws(j);
    if (j->p >= j->end || *j->p != '"') return j_fail(j, "expected a member name");
    char *key;
    if (!j_string(j, &key)) return false;
    for (size_t i = 0; i < v->n; i++) {
      if (strcmp(v->keys[i], key) == 0) {
        free(key);
        return j_fail(j, "duplicate member name");
      }
    }
    v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
    v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
    v->keys[v->n] = key;
    memset(&v->items[v->n], 0, sizeof *v->items);
    v->n++;
    j_ws(j);
    if (j->p >= j->end || *j->p != ':') return j_fail(j, "expected ':'");
    j->p++;
    if (!j_value(j, &v->items[v->n - 1])) return false;
    j_ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == '}') {
      j->p++;
      return true;
    }
    return j_fail(j, "expected ',' or '}'");
  }
}

static bool j_literal(JParser *j, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0) return j_fail(j, "bad literal");
  j->p += n;
  return true;
}

static bool j_value(JParser *j, JVal *v) {
  if (++j->depth > 200) return j_fail(j, "nested too deep");
  j_ws(j);
  bool ok;
  if (j->p >= j->end) {
    ok = j_fail(j, "unexpected end");
  } else if (*j->p == '{') {
    ok = j_object(j, v);
  } else if (*j->p == '[') {
    ok = j_array(j, v);
  } else if (*j->p == '"') {
    v->t = J_STR;
    ok = j_string(j, &v->s);
  } else if (*j->p == 't') {
    v->t = J_BOOL;
    v->b = true;
    ok = j_literal(j, "true");
  } else if (*j->p == 'f') {
    v->t = J_BOOL;
    ok = j_literal(j, "false");
  } else if (*j->p == 'n') {
    v->t = J_NULL;
    ok = j_literal(j, "null");
  } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
    ok = j_number(j, v);
  } else {
    ok = j_fail(j, "unexpected character");
  }
  j->depth--;
  return ok;
}

/* Parses a whole JSON text; NULL (and *err) when it is not valid JSON. */
static JVal *j_parse(const char *text, const char **err) {
  JParser j = {text, text + strlen(text), NULL, 0};
  JVal *v = calloc(1, sizeof *v);
  bool ok = j_value(&j, v);
  j_ws(&j);
  if (ok && j.p != j.end) ok = j_fail(&j, "trailing characters");
  if (!ok) {
    *err = j.err;
    j_free(v);
    free(v);
    return NULL;
  }
  return v;
}

static const JVal *j_get(const JVal *obj, const char *key) {
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
  return NULL;
}

/* ---- the documented report shape (docs/json-format.md) ------------------------ */

static const char *const kDiffKeys[] = {"path",       "kind",        "left",   "right",
                                        "left_index", "right_index", "parent", "type"};
static const char *const kTopKeys[] = {"equal", "left_name", "right_name", "differences",
                                       "omitted"};

/* Keys must be known and come in the documented order. */
static const char *check_keys(const JVal *o, const char *const *order, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < o->n; i++) {
    while (at < n && strcmp(order[at], o->keys[i]) != 0) at++;
    if (at == n) return "unknown or misplaced key";
    at++;
  }
  return NULL;
}

static bool is_index(const JVal *v) {
  return v && v->t == J_NUM && v->integral && v->s[0] != '-';
}

/* One difference object; NULL when it fits the schema, else why not. */
static const char *check_difference(const JVal *d) {
  if (d->t != J_OBJ) return "difference is not an object";
  const char *why = check_keys(d, kDiffKeys, sizeof kDiffKeys / sizeof *kDiffKeys);
  if (why) return why;
  const JVal *path = j_get(d, "path"), *kind = j_get(d, "kind"), *parent = j_get(d, "parent"),
             *type = j_get(d, "type"), *left = j_get(d, "left"), *right = j_get(d, "right"),
             *li = j_get(d, "left_index"), *ri = j_get(d, "right_index");
  if (!path || path->t != J_STR) return "path missing or not a string";
  if (!kind || kind->t != J_STR) return "kind missing or not a string";
  if (!parent || parent->t != J_STR) return "parent missing or not a string";
  if (!type || (type->t != J_STR && type->t != J_NULL)) return "type missing or not string/null";
  if (type->t == J_STR && type->s[0] == '\0') return "type is an empty string";
  size_t pl = strlen(parent->s);
  if (strncmp(path->s, parent->s, pl) != 0) return "parent is not a prefix of path";
  if (pl > 0 && path->s[pl] != '\0' && path->s[pl] != '.' && path->s[pl] != '[')
    return "parent does not end at a segment boundary";
  if (li && !is_index(li)) return "left_index is not a non-negative integer";
  if (ri && !is_index(ri)) return "right_index is not a non-negative integer";
  const char *k = kind->s;
  if (strcmp(k, "changed") == 0) {
    if (!left || !right) return "changed needs left and right";
  } else if (strcmp(k, "added") == 0) {
    if (left || !right) return "added has right only";
    if (li) return "added has no left_index";
  } else if (strcmp(k, "removed") == 0) {
    if (!left || right) return "removed has left only";
    if (ri) return "removed has no right_index";
  } else if (strcmp(k, "presence") == 0) {
    if (!left == !right) return "presence has exactly one of left and right";
  } else if (strcmp(k, "moved") == 0) {
    if (!left || !right || !li || !ri) return "moved needs left, right and both indices";
  } else {
    return "unknown kind";
  }
  return NULL;
}

/* A whole report; NULL when it fits, else why not.  *ndiff gets the number
 * of differences listed. */
static const char *check_report_json(const char *text, size_t *ndiff) {
  static char why[256];
  const char *err = NULL;
  size_t tl = strlen(text);
  if (tl == 0 || text[tl - 1] != '\n') return "report does not end with a newline";
  JVal *v = j_parse(text, &err);
  if (!v) {
    snprintf(why, sizeof why, "not JSON: %s", err);
    return why;
  }
  const char *res = NULL;
  const JVal *eq = NULL, *diffs = NULL, *om = NULL, *ln = NULL, *rn = NULL;
  if (v->t != J_OBJ) {
    res = "top level is not an object";
    goto out;
  }
  if ((res = check_keys(v, kTopKeys, sizeof kTopKeys / sizeof *kTopKeys))) goto out;
  eq = j_get(v, "equal");
  diffs = j_get(v, "differences");
  om = j_get(v, "omitted");
  ln = j_get(v, "left_name");
  rn = j_get(v, "right_name");
  if (!eq || eq->t != J_BOOL) res = "equal missing or not a bool";
  else if (!diffs || diffs->t != J_ARR) res = "differences missing or not an array";
  else if (om && (!is_index(om) || om->num < 1)) res = "omitted is not a positive integer";
  else if (!ln != !rn) res = "left_name and right_name come together";
  else if (ln && (ln->t != J_STR || rn->t != J_STR)) res = "names are not strings";
  else if (eq->b && (diffs->n > 0 || om)) res = "equal with differences";
  if (res) goto out;
  for (size_t i = 0; i < diffs->n; i++) {
    const char *w = check_difference(&diffs->items[i]);
    if (w) {
      snprintf(why, sizeof why, "difference %zu: %s", i, w);
      res = why;
      goto out;
    }
  }
  if (ndiff) *ndiff = diffs->n;
out:
  j_free(v);
  free(v);
  return res;
}

#define CHECK_JSON_SHAPE(text, n_expected)                                              \
  do {                                                                                  \
    size_t n_ = (size_t)-1;                                                             \
    const char *w_ = check_report_json(text, &n_);                                      \
    ck_assert_msg(w_ == NULL, "%s in:\n%s", w_, text);                                  \
    ck_assert_msg(n_ == (size_t)(n_expected), "%zu differences, want %zu", n_,          \
                  (size_t)(n_expected));                                                \
  } while (0)

/* ---- fixtures ------------------------------------------------------------------ */

static pbd_MessageDef md_model = {.full_name = "t.Model", .name = "Model"};
static pbd_MessageDef md_graph = {.full_name = "t.Graph", .name = "Graph"};
static pbd_MessageDef md_node = {.full_name = "t.Node", .name = "Node"};
static pbd_MessageDef md_rec = {.full_name = "t.Rec", .name = "Rec"};

static pbd_FieldDef fd_i32 = {.name = "i32", .json_name = "i32", .number = 1,
                              .type = kPbd_Type_Int32};
static pbd_FieldDef fd_a = {.name = "a", .json_name = "a", .number = 1, .type = kPbd_Type_Int32};
static uint64_t sub_a_vals[] = {1};
static pbd_Field sub_fields[] = {
    {.number = 1, .kind = kPbd_Value_Int, .def = &fd_a, .count = 1, .v.scalars = sub_a_vals}};
static pbd_Message sub_msg = {.fields_ = sub_fields, .field_count_ = 1};

static pbd_Value mk_u(pbd_ValueKind k, uint64_t u, const pbd_FieldDef *f) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.kind = k;
  v.field = f;
  v.u = u;
  return v;
}
static pbd_Value I(int64_t i) {
  pbd_Value v = mk_u(kPbd_Value_Int, 0, &fd_i32);
  v.i = i;
  return v;
}
static pbd_Value Str(const char *s) {
  pbd_Value v = mk_u(kPbd_Value_String, 0, NULL);
  v.s.data = s;
  v.s.size = strlen(s);
  return v;
}
static pbd_Value Msg(const pbd_Message *m) {
  pbd_Value v = mk_u(kPbd_Value_Message, 0, NULL);
  v.m = m;
  return v;
}
static pbd_Value None(void) { return mk_u(kPbd_Value_None, 0, NULL); }

static pbd_Edit E(pbd_EditKind k, const char *path, size_t plen, const pbd_MessageDef *parent,
                  pbd_Value l, pbd_Value r) {
  pbd_Edit e = {k, path, plen, parent, l, r, -1, -1};
  return e;
}
static pbd_Edit Moved(const char *path, size_t plen, const pbd_MessageDef *parent, int64_t li,
                      int64_t ri) {
  pbd_Edit e = {kPbd_Edit_Moved, path, plen, parent, I(7), I(7), li, ri};
  return e;
}

/* Feeds edits to a new reporter and returns what it wrote (malloc'd). */
static char *report(pbd_ReportFormat fmt, const pbd_ReportOptions *o, const pbd_Edit *edits,
                    size_t n, bool equal) {
  return tu_report(fmt, o, edits, n, equal);
}

#define N(a) (sizeof(a) / sizeof *(a))

#define CHECK_REPORT(fmt, opts, edits, n, equal, expected) \
  do {                                                     \
    char *t_ = report(fmt, opts, edits, n, equal);         \
    ck_assert_str_eq(t_, expected);                        \
    free(t_);                                              \
  } while (0)

/* ---- text: grouping ------------------------------------------------------------ */

START_TEST(text_grouping) {
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "ir_version", 0, &md_model, I(7), I(3)),
      E(kPbd_Edit_Changed, "graph.node[3].op_type", 13, &md_node, Str("Conv"), Str("Relu")),
      E(kPbd_Edit_Added, "graph.node[3].attribute[1]", 13, &md_node, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Changed, "graph.name", 5, &md_graph, Str("a"), Str("b")),
      /* the same parent again after another: a new header */
      E(kPbd_Edit_Changed, "graph.node[3].input[0]", 13, &md_node, Str("x"), Str("y")),
      /* schemaless: a header without a type */
      E(kPbd_Edit_Changed, "7[0].1[0].4[0]", 9, NULL, I(1), I(2)),
      /* back at the root: no header, no indent */
      E(kPbd_Edit_Changed, "opset", 0, &md_model, I(1), I(2)),
      /* a stream message's fields: the index is the parent */
      E(kPbd_Edit_Changed, "[1].name", 3, &md_rec, Str("bc"), Str("bd")),
      E(kPbd_Edit_Changed, "[1].n", 3, &md_rec, I(1), I(2)),
      /* an Any payload and an extension as parents */
      E(kPbd_Edit_Changed, "any.[type.googleapis.com/t.Node].a", 32, &md_node, I(5), I(6)),
      E(kPbd_Edit_Changed, "in.[t.ext].a", 10, &md_node, I(5), I(6)),
      /* a whole stream message: the root, named by its index */
      E(kPbd_Edit_Removed, "[2]", 0, NULL, Msg(&sub_msg), None()),
  };
  CHECK_REPORT(kPbd_Report_Text, NULL, e, N(e), false,
               "ir_version: 7 -> 3\n"
               "graph.node[3] (t.Node):\n"
               "  op_type: \"Conv\" -> \"Relu\"\n"
               "  attribute[1]: added { a: 1 }\n"
               "graph (t.Graph):\n"
               "  name: \"a\" -> \"b\"\n"
               "graph.node[3] (t.Node):\n"
               "  input[0]: \"x\" -> \"y\"\n"
               "7[0].1[0]:\n"
               "  4[0]: 1 -> 2\n"
               "opset: 1 -> 2\n"
               "[1] (t.Rec):\n"
               "  name: \"bc\" -> \"bd\"\n"
               "  n: 1 -> 2\n"
               "any.[type.googleapis.com/t.Node] (t.Node):\n"
               "  a: 5 -> 6\n"
               "in.[t.ext] (t.Node):\n"
               "  a: 5 -> 6\n"
               "[2]: removed { a: 1 }\n");
  /* the same parent path with another type (another stream message of a
   * schemaless side cannot, but a reporter must not merge them) */
  pbd_Edit f[] = {
      E(kPbd_Edit_Changed, "x.a", 1, &md_node, I(1), I(2)),
      E(kPbd_Edit_Changed, "x.b", 1, &md_graph, I(1), I(2)),
      /* an edit naming its own parent (no field part) */
      E(kPbd_Edit_Changed, "", 0, NULL, Msg(&sub_msg), Msg(NULL)),
      E(kPbd_Edit_Changed, "x", 1, &md_node, I(1), I(2)),
  };
  CHECK_REPORT(kPbd_Report_Text, NULL, f, N(f), false,
               "x (t.Node):\n"
               "  a: 1 -> 2\n"
               "x (t.Graph):\n"
               "  b: 1 -> 2\n"
               ".: { a: 1 } -> { }\n"
               "x (t.Node):\n"
               "  .: 1 -> 2\n");
  /* nothing at all when equal */
  CHECK_REPORT(kPbd_Report_Text, NULL, NULL, 0, true, "");
}
END_TEST

/* Every kind, under a header and at the root. */
static pbd_Edit g_kinds[8];
static size_t kinds_edits(void) {
  size_t n = 0;
  g_kinds[n++] = E(kPbd_Edit_Changed, "g.a", 1, &md_node, I(1), I(2));
  g_kinds[n++] = E(kPbd_Edit_Added, "g.b[0]", 1, &md_node, None(), I(3));
  g_kinds[n++] = E(kPbd_Edit_Removed, "g.c[1]", 1, &md_node, Str("x"), None());
  g_kinds[n++] = E(kPbd_Edit_Presence, "g.d", 1, &md_node, None(), I(0));
  g_kinds[n++] = E(kPbd_Edit_Presence, "g.e", 1, &md_node, mk_u(kPbd_Value_Bool, 0, NULL), None());
  g_kinds[n++] = Moved("g.attribute[\"x\"]", 1, &md_node, 2, 0);
  g_kinds[n++] = Moved("rm[5]", 0, &md_model, 5, 1);
  g_kinds[n++] = E(kPbd_Edit_Added, "ms[\"k\"]", 0, &md_model, None(), Msg(&sub_msg));
  g_kinds[2].left_index = 1;
  g_kinds[1].right_index = 0;
  return n;
}

START_TEST(text_kinds) {
  size_t n = kinds_edits();
  CHECK_REPORT(kPbd_Report_Text, NULL, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "  c[1]: removed \"x\"\n"
               "  d: unset -> set to 0\n"
               "  e: set to false -> unset\n"
               "  attribute[\"x\"]: moved [2] -> [0]\n"
               "rm[5]: moved [5] -> [1]\n"
               "ms[\"k\"]: added { a: 1 }\n");
}
END_TEST

START_TEST(text_color) {
  size_t n = kinds_edits();
  pbd_ReportOptions o = {.color = true};
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "\033[1mg (t.Node):\033[m\n"
               "  a: \033[31m1\033[m -> \033[32m2\033[m\n"
               "  b[0]: \033[32madded 3\033[m\n"
               "  c[1]: \033[31mremoved \"x\"\033[m\n"
               "  d: unset -> \033[32mset to 0\033[m\n"
               "  e: \033[31mset to false\033[m -> unset\n"
               "  attribute[\"x\"]: \033[36mmoved [2] -> [0]\033[m\n"
               "rm[5]: \033[36mmoved [5] -> [1]\033[m\n"
               "ms[\"k\"]: \033[32madded { a: 1 }\033[m\n");
  /* off: not one escape byte, whatever the options */
  pbd_ReportOptions off = {.color = false, .left_name = "a", .right_name = "b", .max_diffs = 3};
  char *t = report(kPbd_Report_Text, &off, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  free(t);
  off.stat = true;
  t = report(kPbd_Report_Text, &off, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  free(t);
  /* JSON is never coloured */
  t = report(kPbd_Report_Json, &o, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  CHECK_JSON_SHAPE(t, n);
  free(t);
}
END_TEST

/* Long strings and bytes: cut at 64 bytes with their size and a hash. */
START_TEST(text_cut_values) {
  static char big[1000];
  memset(big, 'a', sizeof big);
  memcpy(big + 990, "0123456789", 10);
  pbd_Value l = mk_u(kPbd_Value_String, 0, NULL);
  l.s.data = big;
  l.s.size = sizeof big;
  pbd_Value r = l;
  r.kind = kPbd_Value_Bytes;
  r.s.size = 65;
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "blob", 0, NULL, l, r),
                  E(kPbd_Edit_Changed, "ok", 0, NULL, Str("short"), r)};
  e[1].right.s.size = 64; /* exactly 64: whole */
  char a64[65];
  memset(a64, 'a', 64);
  a64[64] = '\0';
  char want[1024];
  snprintf(want, sizeof want,
           "blob: \"%s...\" (1000 bytes, xxh3:%08x) -> \"%s...\" (65 bytes, xxh3:%08x)\n"
           "ok: \"short\" -> \"%s\"\n",
           a64, (unsigned)(XXH3_64bits(big, 1000) >> 32), a64,
           (unsigned)(XXH3_64bits(big, 65) >> 32), a64);
  CHECK_REPORT(kPbd_Report_Text, NULL, e, N(e), false, want);
  /* a long message value: one line, cut after 120 bytes with "..." */
  static pbd_StrView names[] = {{"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 52}};
  static pbd_FieldDef fd_name = {.name = "name", .json_name = "name", .number = 1,
                                 .type = kPbd_Type_String};
  static pbd_Field nf = {.number = 1, .kind = kPbd_Value_String, .def = &fd_name, .count = 1,
                         .v.strs = names};
  static pbd_Message named = {.fields_ = &nf, .field_count_ = 1};
  static pbd_Message *three[] = {&named, &named, &named};
  static pbd_FieldDef fd_sub = {.name = "sub", .json_name = "sub", .number = 2,
                                .type = kPbd_Type_Message, .is_repeated = true};
  static pbd_Field sf = {.number = 2, .kind = kPbd_Value_Message, .def = &fd_sub, .count = 3,
                         .v.msgs = three};
  static pbd_Message outer = {.fields_ = &sf, .field_count_ = 1};
  pbd_Edit m[] = {E(kPbd_Edit_Added, "x", 0, NULL, None(), Msg(&outer))};
  CHECK_REPORT(kPbd_Report_Text, NULL, m, N(m), false,
               "x: added { sub { name: \"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\" } "
               "sub { name: \"abcdefghijklmnopqrstuvwxyzabcdefghij...\n");
}
END_TEST

/* ---- text: --max-diffs ------------------------------------------------------------ */

START_TEST(text_max_diffs) {
  size_t n = kinds_edits(); /* 8 */
  pbd_ReportOptions o = {.max_diffs = 2};
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "... and 6 more differences\n");
  o.max_diffs = 7;
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "  c[1]: removed \"x\"\n"
               "  d: unset -> set to 0\n"
               "  e: set to false -> unset\n"
               "  attribute[\"x\"]: moved [2] -> [0]\n"
               "rm[5]: moved [5] -> [1]\n"
               "... and 1 more difference\n");
  o.max_diffs = 8; /* exactly all: no tail */
  char *all = report(kPbd_Report_Text, NULL, g_kinds, n, false);
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false, all);
  o.max_diffs = 0; /* unlimited */
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false, all);
  free(all);
  /* a header only for what is shown */
  o.max_diffs = 1;
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "a", 0, NULL, I(1), I(2)),
                  E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2))};
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, "a: 1 -> 2\n... and 1 more difference\n");
  /* JSON: the first N, and how many were left out */
  o.max_diffs = 1;
  CHECK_REPORT(kPbd_Report_Json, &o, e, N(e), false,
               "{\"equal\": false, \"differences\": [\n"
               "  {\"path\": \"a\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, "
               "\"parent\": \"\", \"type\": null}\n"
               "], \"omitted\": 1}\n");
  char *t = report(kPbd_Report_Json, &o, g_kinds, n, false);
  CHECK_JSON_SHAPE(t, 1);
  ck_assert_ptr_nonnull(strstr(t, "], \"omitted\": 7}\n"));
  free(t);
}
END_TEST

/* ---- text: --stat ------------------------------------------------------------------ */

START_TEST(text_stat) {
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "graph.node[3].op_type", 13, &md_node, Str("a"), Str("b")),
      E(kPbd_Edit_Added, "graph.node[3].attribute[1]", 13, &md_node, None(), I(1)),
      E(kPbd_Edit_Changed, "ir_version", 0, &md_model, I(1), I(2)),
      E(kPbd_Edit_Changed, "graph.name", 5, &md_graph, Str("a"), Str("b")),
      E(kPbd_Edit_Removed, "labels[\"env\"]", 0, &md_model, Str("a"), None()),
      E(kPbd_Edit_Presence, "[t.ext].a", 7, &md_node, None(), I(0)),
      Moved("graph.input[0]", 5, &md_graph, 0, 1),
      E(kPbd_Edit_Changed, "5[0].1[0]", 4, NULL, I(1), I(2)),
  };
  pbd_ReportOptions o = {.stat = true};
  const char *want =
      "  graph: 2 changed, 1 added, 1 moved\n"
      "  ir_version: 1 changed\n"
      "  labels: 1 removed\n"
      "  [t.ext]: 1 presence\n"
      "  5: 1 changed\n"
      "8 differences: 4 changed, 1 added, 1 removed, 1 presence, 1 moved\n";
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, want);
  /* --max-diffs does not limit the counts */
  o.max_diffs = 1;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, want);
  /* colour: removed red, added green, moved cyan */
  o.color = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false,
               "  graph: 2 changed, \033[32m1 added\033[m, \033[36m1 moved\033[m\n"
               "  ir_version: 1 changed\n"
               "  labels: \033[31m1 removed\033[m\n"
               "  [t.ext]: 1 presence\n"
               "  5: 1 changed\n"
               "8 differences: 4 changed, \033[32m1 added\033[m, \033[31m1 removed\033[m, "
               "1 presence, \033[36m1 moved\033[m\n");
  /* one difference; none */
  o = (pbd_ReportOptions){.stat = true};
  CHECK_REPORT(kPbd_Report_Text, &o, e + 2, 1, false,
               "  ir_version: 1 changed\n1 difference: 1 changed\n");
  CHECK_REPORT(kPbd_Report_Text, &o, NULL, 0, true, "");
  /* streams: the message index is skipped; whole messages together */
  pbd_Edit s[] = {
      E(kPbd_Edit_Changed, "[0].name", 3, &md_rec, Str("a"), Str("b")),
      E(kPbd_Edit_Changed, "[1].name", 3, &md_rec, Str("a"), Str("b")),
      E(kPbd_Edit_Changed, "[1].n", 3, &md_rec, I(1), I(2)),
      E(kPbd_Edit_Added, "[2]", 0, NULL, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Added, "[3]", 0, NULL, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Changed, "[4].tags[0]", 3, &md_rec, I(1), I(2)),
      E(kPbd_Edit_Changed, "", 0, NULL, I(1), I(2)),
  };
  CHECK_REPORT(kPbd_Report_Text, &o, s, N(s), false,
               "  name: 2 changed\n"
               "  n: 1 changed\n"
               "  (messages): 2 added\n"
               "  tags: 1 changed\n"
               "  .: 1 changed\n"
               "7 differences: 5 changed, 2 added\n");
  /* many distinct fields (the lookup table grows) */
  enum { kMany = 3000 };
  pbd_Edit *many = calloc(kMany * 2, sizeof *many);
  char(*paths)[16] = calloc(kMany, sizeof *paths);
  for (int i = 0; i < kMany; i++) {
    snprintf(paths[i], sizeof paths[i], "%d[0]", i + 1);
    many[i] = E(kPbd_Edit_Changed, paths[i], 0, NULL, I(1), I(2));
    many[kMany + i] = E(kPbd_Edit_Added, paths[kMany - 1 - i], 0, NULL, None(), I(2));
  }
  char *t = report(kPbd_Report_Text, &o, many, kMany * 2, false);
  size_t lines = 0;
  for (char *p = t; *p; p++) lines += *p == '\n';
  ck_assert_uint_eq(lines, kMany + 1);
  ck_assert(strncmp(t, "  1: 1 changed, 1 added\n  2: 1 changed, 1 added\n", 48) == 0);
  ck_assert_ptr_nonnull(strstr(t, "\n  3000: 1 changed, 1 added\n6000 differences: 3000 changed, "
                                  "3000 added\n"));
  free(t);
  free(many);
  free(paths);
  /* JSON ignores stat */
  o.stat = true;
  char *j1 = report(kPbd_Report_Json, &o, e, N(e), false);
  char *j2 = report(kPbd_Report_Json, NULL, e, N(e), false);
  ck_assert_str_eq(j1, j2);
  CHECK_JSON_SHAPE(j1, N(e));
  free(j1);
  free(j2);
}
END_TEST

/* ---- input names ---------------------------------------------------------------------- */

START_TEST(report_names) {
  char l[] = "old/model.onnx", r[] = "new/model.onnx";
  pbd_ReportOptions o = {.left_name = l, .right_name = r};
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "a", 0, NULL, I(1), I(2)),
                  E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2))};
  /* the names are copied: scribble over them after New */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *rep = pbd_Reporter_New(kPbd_Report_Text, out, &o);
  strcpy(l, "gone");
  strcpy(r, "gone");
  for (size_t i = 0; i < N(e); i++) ck_assert_int_eq(pbd_Reporter_Edit(rep, &e[i]), 0);
  ck_assert(pbd_Reporter_Finish(rep, false));
  pbd_Reporter_Free(rep);
  fclose(out);
  ck_assert_str_eq(text,
                   "--- old/model.onnx\n"
                   "+++ new/model.onnx\n"
                   "a: 1 -> 2\n"
                   "b (t.Node):\n"
                   "  c: 1 -> 2\n");
  free(text);
  o.left_name = "x.pb";
  o.right_name = "y.pb";
  /* nothing when equal */
  CHECK_REPORT(kPbd_Report_Text, &o, NULL, 0, true, "");
  /* bold when coloured */
  o.color = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, 1, false,
               "\033[1m--- x.pb\033[m\n\033[1m+++ y.pb\033[m\na: \033[31m1\033[m -> \033[32m2\033[m\n");
  /* with --stat */
  o.color = false;
  o.stat = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false,
               "--- x.pb\n+++ y.pb\n  a: 1 changed\n  b: 1 changed\n2 differences: 2 changed\n");
  /* one name alone: no lines */
  o = (pbd_ReportOptions){.left_name = "x.pb"};
  CHECK_REPORT(kPbd_Report_Text, &o, e, 1, false, "a: 1 -> 2\n");
  /* JSON: top-level keys, also when equal */
  o = (pbd_ReportOptions){.left_name = "x\".pb", .right_name = "y.pb"};
  CHECK_REPORT(kPbd_Report_Json, &o, NULL, 0, true,
               "{\"equal\": true, \"left_name\": \"x\\\".pb\", \"right_name\": \"y.pb\", "
               "\"differences\": []}\n");
  char *t = report(kPbd_Report_Json, &o, e, N(e), false);
  CHECK_JSON_SHAPE(t, 2);
  free(t);
}
END_TEST

/* ---- JSON ------------------------------------------------------------------------------ */

START_TEST(json_kinds) {
  size_t n = kinds_edits();
  char *t = report(kPbd_Report_Json, NULL, g_kinds, n, false);
  ck_assert_str_eq(
      t,
      "{\"equal\": false, \"differences\": [\n"
      "  {\"path\": \"g.a\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.b[0]\", \"kind\": \"added\", \"right\": 3, \"right_index\": 0, "
      "\"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.c[1]\", \"kind\": \"removed\", \"left\": \"x\", \"left_index\": 1, "
      "\"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.d\", \"kind\": \"presence\", \"right\": 0, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.e\", \"kind\": \"presence\", \"left\": false, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.attribute[\\\"x\\\"]\", \"kind\": \"moved\", \"left\": 7, \"right\": 7, "
      "\"left_index\": 2, \"right_index\": 0, \"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"rm[5]\", \"kind\": \"moved\", \"left\": 7, \"right\": 7, \"left_index\": 5, "
      "\"right_index\": 1, \"parent\": \"\", \"type\": \"t.Model\"},\n"
      "  {\"path\": \"ms[\\\"k\\\"]\", \"kind\": \"added\", \"right\": {\"a\": 1}, "
      "\"parent\": \"\", \"type\": \"t.Model\"}\n"
      "]}\n");
  CHECK_JSON_SHAPE(t, n);
  free(t);
  /* no schema: type null; an Any payload's parent */
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "7[0].1[0].4[0]", 9, NULL, mk_u(kPbd_Value_Varint, 1, NULL),
        mk_u(kPbd_Value_Varint, 2, NULL)),
      E(kPbd_Edit_Changed, "any.[type.googleapis.com/t.Node].a", 32, &md_node, I(5), I(6)),
  };
  t = report(kPbd_Report_Json, NULL, e, N(e), false);
  ck_assert_str_eq(t,
                   "{\"equal\": false, \"differences\": [\n"
                   "  {\"path\": \"7[0].1[0].4[0]\", \"kind\": \"changed\", \"left\": \"1\", "
                   "\"right\": \"2\", \"parent\": \"7[0].1[0]\", \"type\": null},\n"
                   "  {\"path\": \"any.[type.googleapis.com/t.Node].a\", \"kind\": \"changed\", "
                   "\"left\": 5, \"right\": 6, \"parent\": \"any.[type.googleapis.com/t.Node]\", "
                   "\"type\": \"t.Node\"}\n"
                   "]}\n");
  CHECK_JSON_SHAPE(t, 2);
  free(t);
  CHECK_REPORT(kPbd_Report_Json, NULL, NULL, 0, true, "{\"equal\": true, \"differences\": []}\n");
}
END_TEST

/* The validator itself: it must refuse what the documented schema does not
 * allow, or its passes mean nothing. */
START_TEST(json_validator_is_strict) {
  static const char *const bad[] = {
      "",
      "{\"equal\": true, \"differences\": []}",          /* no newline */
      "{\"equal\": true, \"differences\": [],}\n",       /* trailing comma */
      "{\"equal\": true, \"differences\": []} x\n",      /* trailing text */
      "{\"equal\": 1, \"differences\": []}\n",
      "{\"equal\": true}\n",
      "{\"differences\": [], \"equal\": true}\n",        /* order */
      "{\"equal\": true, \"equal\": true, \"differences\": []}\n",
      "{\"equal\": true, \"differences\": [], \"extra\": 1}\n",
      "{\"equal\": true, \"differences\": [], \"omitted\": 2}\n",
      "{\"equal\": false, \"differences\": [], \"omitted\": 0}\n",
      "{\"equal\": false, \"left_name\": \"a\", \"differences\": []}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"added\", \"left\": 1, "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"removed\", "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"presence\", "
      "\"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"moved\", \"left\": 1, "
      "\"right\": 1, \"left_index\": 1, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"moved\", \"left\": 1, "
      "\"right\": 1, \"left_index\": -1, \"right_index\": 0, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"renamed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"b\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"ab\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"a\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": 5}]}\n",
      "{\"equal\": false, \"differences\": [{\"kind\": \"changed\", \"path\": \"a\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 01, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\\x\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\\ud800\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\t\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\xff\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": NaN, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
  };
  for (size_t i = 0; i < N(bad); i++)
    ck_assert_msg(check_report_json(bad[i], NULL) != NULL, "accepted bad report %zu: %s", i,
                  bad[i]);
  static const char *const good[] = {
      "{\"equal\": true, \"differences\": []}\n",
      " { \"equal\" : false , \"differences\" : [ ] , \"omitted\" : 3 } \n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a.b\", \"kind\": \"changed\", "
      "\"left\": {\"x\": [1, 2.5e-3, \"\\u00e9\\ud83d\\ude00\", null, true]}, \"right\": -0, "
      "\"parent\": \"a\", \"type\": \"p.T\"}]}\n",
  };
  for (size_t i = 0; i < N(good); i++) {
    const char *w = check_report_json(good[i], NULL);
    ck_assert_msg(w == NULL, "refused good report %zu (%s): %s", i, w, good[i]);
  }
}
END_TEST

/* The CLI's JSON output on real inputs fits the documented shape. */
START_TEST(json_cli_outputs) {
  static const char *const cmds[] = {
      "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx",
      "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx",
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_gru_defaults/model.onnx",
      "--proto /usr/include/onnx/onnx.proto -t onnx.TensorProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/input_0.pb "
      "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/output_0.pb",
  };
  for (size_t i = 0; i < N(cmds); i++) {
    char cmd[2048], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "'%s' --format json %s", tu_pbdiff(), cmds[i]);
    int rc = tu_run(cmd, &out, &err);
    ck_assert_msg(rc == 0 || rc == 1, "%s: status %d: %s", cmd, rc, err);
    size_t n = 0;
    const char *w = check_report_json(out, &n);
    ck_assert_msg(w == NULL, "%s: %s in\n%.2000s", cmd, w, out);
    ck_assert_msg((rc == 0) == (n == 0), "%s: status %d with %zu differences", cmd, rc, n);
    free(out);
    free(err);
  }
}
END_TEST

/* ---- colour decision ------------------------------------------------------------------ */

START_TEST(color_decision) {
  ck_assert(pbd_Report_ColorModeValid("auto"));
  ck_assert(pbd_Report_ColorModeValid("always"));
  ck_assert(pbd_Report_ColorModeValid("never"));
  ck_assert(!pbd_Report_ColorModeValid("yes"));
  ck_assert(!pbd_Report_ColorModeValid(""));
  ck_assert(!pbd_Report_ColorModeValid(NULL));
  ck_assert(!pbd_Report_ColorModeValid("Always"));

  int pipefd[2];
  ck_assert_int_eq(pipe(pipefd), 0);
  unsetenv("NO_COLOR");
  setenv("TERM", "xterm", 1);
  ck_assert(pbd_Report_ShouldColor("always", pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("never", pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("auto", pipefd[1])); /* not a terminal */
  ck_assert(!pbd_Report_ShouldColor(NULL, pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("bogus", pipefd[1]));
  setenv("NO_COLOR", "1", 1);
  ck_assert(pbd_Report_ShouldColor("always", pipefd[1])); /* the option wins */
  close(pipefd[0]);
  close(pipefd[1]);

  /* a terminal: a pseudo-terminal's slave side */
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    if (master >= 0) close(master);
    return; /* no pseudo-terminals here */
  }
  int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ck_assert_int_ge(tty, 0);
  unsetenv("NO_COLOR");
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor(NULL, tty));
  ck_assert(!pbd_Report_ShouldColor("never", tty));
  setenv("NO_COLOR", "", 1); /* empty: as if unset */
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  setenv("NO_COLOR", "1", 1);
  ck_assert(!pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor("always", tty));
  unsetenv("NO_COLOR");
  setenv("TERM", "dumb", 1);
  ck_assert(!pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor("always", tty));
  unsetenv("TERM");
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  close(tty);
  close(master);
}
END_TEST

/* The two-argument form still compiles and means the defaults. */
START_TEST(reporter_new_two_args) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Text, out, NULL);
  ck_assert_ptr_nonnull(r);
  pbd_Edit e = E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2));
  ck_assert_int_eq(pbd_Reporter_Edit(r, &e), 0);
  ck_assert(pbd_Reporter_Finish(r, false));
  pbd_Reporter_Free(r);
  fclose(out);
  ck_assert_str_eq(text, "b (t.Node):\n  c: 1 -> 2\n");
  free(text);
}
END_TEST

/* ---- well-known types ----------------------------------------------------------------- */

static pbd_DefPool *g_pool;
static pbd_Arena *g_arena;

static void wkt_setup(void) {
  g_pool = tu_load_pool("schema/wkt.proto");
  g_arena = pbd_Arena_New();
}

static void wkt_teardown(void) {
  pbd_Arena_Free(g_arena);
  pbd_DefPool_Free(g_pool);
}

static const pbd_MessageDef *wtype(const char *name) {
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(g_pool, name);
  ck_assert_msg(m != NULL, "no %s", name);
  return m;
}

static void put_varint(uint8_t *b, size_t *n, uint64_t v) {
  while (v >= 0x80) {
    b[(*n)++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[(*n)++] = (uint8_t)v;
}

static const pbd_Message *parse(const pbd_MessageDef *t, const uint8_t *b, size_t n) {
  uint8_t *copy = pbd_Arena_Malloc(g_arena, n ? n : 1); /* outlives the tree */
  memcpy(copy, b, n);
  pbd_TreeOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 1;
  o.pool = g_pool;
  pbd_Status s;
  pbd_Status_Clear(&s);
  const pbd_Message *m = pbd_Tree_Parse(t, copy, 0, n, &o, g_arena, &s);
  ck_assert_msg(m != NULL, "parse: %s", s.msg);
  return m;
}

/* A Timestamp or Duration message { seconds nanos } (zero fields left out). */
static pbd_Value secs_nanos(const char *type, int64_t secs, int32_t nanos) {
  uint8_t b[32];
  size_t n = 0;
  if (secs) {
    b[n++] = 0x08;
    put_varint(b, &n, (uint64_t)secs);
  }
  if (nanos) {
    b[n++] = 0x10;
    put_varint(b, &n, (uint64_t)(int64_t)nanos);
  }
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.kind = kPbd_Value_Message;
  v.m = parse(wtype(type), b, n);
  return v;
}

static char *wkt_text(const pbd_Value *v, bool *ok) {
  pbd_Buf b = {0};
  *ok = pbd_Format_WellKnownText(&b, v);
  char *s = strdup(b.data ? b.data : "");
  pbd_Buf_Free(&b);
  return s;
}

#define CHECK_WKT(type, secs, nanos, expected)                                          \
  do {                                                                                  \
    pbd_Value v_ = secs_nanos(type, secs, nanos);                                       \
    bool ok_;                                                                           \
    char *s_ = wkt_text(&v_, &ok_);                                                     \
    ck_assert_msg(ok_ && strcmp(s_, expected) == 0, "%s %lld %d: [%s] want [%s]", type, \
                  (long long)(secs), (int)(nanos), s_, expected);                       \
    free(s_);                                                                           \
  } while (0)
#define CHECK_NOT_WKT(type, secs, nanos)                                                  \
  do {                                                                                    \
    pbd_Value v_ = secs_nanos(type, secs, nanos);                                         \
    bool ok_;                                                                             \
    char *s_ = wkt_text(&v_, &ok_);                                                       \
    ck_assert_msg(!ok_ && s_[0] == '\0', "%s %lld %d: [%s] accepted", type,               \
                  (long long)(secs), (int)(nanos), s_);                                   \
    free(s_);                                                                             \
  } while (0)

#define TS "google.protobuf.Timestamp"
#define DU "google.protobuf.Duration"

START_TEST(wkt_timestamp) {
  CHECK_WKT(TS, 0, 0, "1970-01-01T00:00:00Z");
  CHECK_WKT(TS, 1714564800, 0, "2024-05-01T12:00:00Z");
  CHECK_WKT(TS, 1714564800, 500000000, "2024-05-01T12:00:00.500Z");
  CHECK_WKT(TS, 1714564800, 120000, "2024-05-01T12:00:00.000120Z");
  CHECK_WKT(TS, 1714564800, 1, "2024-05-01T12:00:00.000000001Z");
  CHECK_WKT(TS, 1714564800, 999999999, "2024-05-01T12:00:00.999999999Z");
  CHECK_WKT(TS, 951868799, 0, "2000-02-29T23:59:59Z");
  CHECK_WKT(TS, -1, 0, "1969-12-31T23:59:59Z");
  CHECK_WKT(TS, -14182940, 0, "1969-07-20T20:17:40Z");
  CHECK_WKT(TS, -62135596800LL, 0, "0001-01-01T00:00:00Z");
  CHECK_WKT(TS, 253402300799LL, 999999999, "9999-12-31T23:59:59.999999999Z");
  /* out of range: not written */
  CHECK_NOT_WKT(TS, -62135596801LL, 0);
  CHECK_NOT_WKT(TS, 253402300800LL, 0);
  CHECK_NOT_WKT(TS, 0, -1);
  CHECK_NOT_WKT(TS, 0, 1000000000);
  CHECK_NOT_WKT(TS, INT64_MIN, 0);
  /* an absent value of a Timestamp field is the epoch */
  const pbd_FieldDef *fts = pbd_MessageDef_FindFieldByName(wtype("wkt.All"), "ts");
  pbd_Value none = pbd_FieldDef_DefaultValue(fts);
  bool ok;
  char *s = wkt_text(&none, &ok);
  ck_assert(ok);
  ck_assert_str_eq(s, "1970-01-01T00:00:00Z");
  free(s);
  /* an unknown field inside: not written */
  static const uint8_t unk[] = {0x08, 0x01, 0x18, 0x01};
  pbd_Value u = {.kind = kPbd_Value_Message, .m = parse(wtype(TS), unk, sizeof unk)};
  s = wkt_text(&u, &ok);
  ck_assert(!ok);
  free(s);
  /* other types, other values */
  pbd_Value i = I(5);
  s = wkt_text(&i, &ok);
  ck_assert(!ok);
  free(s);
  pbd_Value other = secs_nanos("google.protobuf.Int64Value", 5, 0);
  s = wkt_text(&other, &ok);
  ck_assert(!ok);
  free(s);
}
END_TEST

START_TEST(wkt_duration) {
  CHECK_WKT(DU, 0, 0, "0s");
  CHECK_WKT(DU, 3, 0, "3s");
  CHECK_WKT(DU, 1, 500000000, "1.5s");
  CHECK_WKT(DU, 0, -250000000, "-0.25s");
  CHECK_WKT(DU, 0, 120000000, "0.12s");
  CHECK_WKT(DU, -3, 0, "-3s");
  CHECK_WKT(DU, -1, -1, "-1.000000001s");
  CHECK_WKT(DU, 0, 1000, "0.000001s");
  CHECK_WKT(DU, 315576000000LL, 999999999, "315576000000.999999999s");
  CHECK_WKT(DU, -315576000000LL, -999999999, "-315576000000.999999999s");
  CHECK_NOT_WKT(DU, 315576000001LL, 0);
  CHECK_NOT_WKT(DU, -315576000001LL, 0);
  CHECK_NOT_WKT(DU, 1, -1);  /* signs differ */
  CHECK_NOT_WKT(DU, -1, 1);
  CHECK_NOT_WKT(DU, 0, 1000000000);
  CHECK_NOT_WKT(DU, 0, -1000000000);
}
END_TEST

/* wkt.All payloads, encoded by protoc from text format. */
static const pbd_Message *encode_all(const char *txt) {
  char *in = tu_write_temp(txt, strlen(txt), ".txt");
  char *out = tu_write_temp("", 0, ".pb");
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "protoc --encode=wkt.All -I%s/testdata/schema -I/usr/include %s/testdata/schema/wkt.proto "
           "< %s > %s",
           tu_root(), tu_root(), in, out);
  char *err = NULL;
  int rc = tu_run(cmd, NULL, &err);
  ck_assert_msg(rc == 0, "protoc --encode: %s", err);
  free(err);
  size_t n;
  uint8_t *b = tu_read_file(out, &n);
  ck_assert_ptr_nonnull(b);
  const pbd_Message *m = parse(wtype("wkt.All"), b, n);
  free(b);
  unlink(in);
  unlink(out);
  free(in);
  free(out);
  return m;
}

static char *value_text(const pbd_Message *m, bool well_known) {
  pbd_Buf b = {0};
  pbd_TextOptions o = {.well_known = well_known};
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  pbd_Format_TextValue(&b, &v, &o);
  char *s = strdup(b.data);
  pbd_Buf_Free(&b);
  return s;
}

static char *value_json(const pbd_Message *m) {
  pbd_Buf b = {0};
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  pbd_Format_JsonValue(&b, &v);
  char *s = strdup(b.data);
  pbd_Buf_Free(&b);
  return s;
}

#define CHECK_STR(expr, expected) \
  do {                            \
    char *s_ = (expr);            \
    ck_assert_str_eq(s_, expected); \
    free(s_);                     \
  } while (0)

START_TEST(wkt_in_text_values) {
  const pbd_Message *m = encode_all(
      "duration { seconds: 1 nanos: 500000000 } ts { seconds: 1714564800 nanos: 500000000 }");
  CHECK_STR(value_text(m, true), "{ duration: 1.5s ts: 2024-05-01T12:00:00.500Z }");
  /* plain text format without the option */
  CHECK_STR(value_text(m, false),
            "{ duration { seconds: 1 nanos: 500000000 } ts { seconds: 1714564800 nanos: 500000000 } }");
  /* multiline */
  pbd_Buf b = {0};
  pbd_TextOptions ml = {.multiline = true, .well_known = true};
  pbd_Format_TextMessage(&b, m, &ml);
  ck_assert_str_eq(b.data, "duration: 1.5s\nts: 2024-05-01T12:00:00.500Z\n");
  pbd_Buf_Free(&b);
  /* out of range: the message form */
  m = encode_all("ts { seconds: 1 nanos: -5 } duration { seconds: -1 nanos: 5 }");
  CHECK_STR(value_text(m, true), "{ duration { seconds: -1 nanos: 5 } ts { seconds: 1 nanos: -5 } }");
  /* an empty Timestamp set: the epoch */
  m = encode_all("ts { }");
  CHECK_STR(value_text(m, true), "{ ts: 1970-01-01T00:00:00Z }");
  /* inside an Any */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Duration] { seconds: 3 } }");
  CHECK_STR(value_text(m, true), "{ any { [type.googleapis.com/google.protobuf.Duration] 3s } }");
}
END_TEST

START_TEST(wkt_in_json_values) {
  const pbd_Message *m = encode_all(
      "duration { seconds: -1 nanos: -500000000 } ts { seconds: 1714564800 nanos: 120000 } "
      "i64 { value: 5 }");
  CHECK_STR(value_json(m), "{\"duration\": \"-1.500s\", \"ts\": \"2024-05-01T12:00:00.000120Z\", "
                           "\"i64\": \"5\"}");
  /* an empty wrapper is its default value */
  m = encode_all("i64 { } ts { }");
  CHECK_STR(value_json(m), "{\"ts\": \"1970-01-01T00:00:00Z\", \"i64\": \"0\"}");
  /* out of range: the message form */
  m = encode_all("ts { seconds: 253402300800 }");
  CHECK_STR(value_json(m), "{\"ts\": {\"seconds\": \"253402300800\"}}");
  /* Struct, Value, ListValue */
  m = encode_all(
      "struct { fields { key: \"n\" value { number_value: 1.5 } } "
      "fields { key: \"s\" value { string_value: \"x\" } } "
      "fields { key: \"b\" value { bool_value: true } } "
      "fields { key: \"z\" value { null_value: NULL_VALUE } } "
      "fields { key: \"l\" value { list_value { values { number_value: 1 } values { "
      "struct_value { } } } } } }");
  CHECK_STR(value_json(m),
            "{\"struct\": {\"b\": true, \"l\": [1, {}], \"n\": 1.5, \"s\": \"x\", \"z\": null}}");
  /* a Value with nothing set: the message form */
  m = encode_all("struct { fields { key: \"e\" value { } } }");
  CHECK_STR(value_json(m), "{\"struct\": {\"fields\": {\"e\": {}}}}");
  /* FieldMask */
  m = encode_all("mask { paths: \"foo_bar\" paths: \"a.b_c_d\" }");
  CHECK_STR(value_json(m), "{\"mask\": \"fooBar,a.bCD\"}");
  m = encode_all("mask { }");
  CHECK_STR(value_json(m), "{\"mask\": \"\"}");
  /* an Any holding one: "value" */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Timestamp] { seconds: 1 } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Timestamp\", "
                           "\"value\": \"1970-01-01T00:00:01Z\"}}");
  m = encode_all("any { [type.googleapis.com/google.protobuf.Int64Value] { value: 7 } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Int64Value\", "
                           "\"value\": \"7\"}}");
  /* an Any holding an Any */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Any] { "
                 "[type.googleapis.com/google.protobuf.Duration] { seconds: 3 } } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Any\", "
                           "\"value\": {\"@type\": \"type.googleapis.com/google.protobuf.Duration\", "
                           "\"value\": \"3s\"}}}");
  /* an Any holding an ordinary message: its fields */
  m = encode_all("any { [type.googleapis.com/google.protobuf.SourceContext] { file_name: \"f\" } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.SourceContext\", "
                           "\"fileName\": \"f\"}}");
}
END_TEST

/* Diffs two wkt.All payloads into a report. */
static char *diff_report(const char *ltxt, const char *rtxt, pbd_ReportFormat fmt) {
  const pbd_Message *l = encode_all(ltxt), *r = encode_all(rtxt);
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *rep = pbd_Reporter_New(fmt, out, NULL);
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 0;
  ck_assert_int_eq(pbd_Diff_Run(l, r, NULL, pbd_Reporter_Edit, rep, &n, &s), 0);
  ck_assert(pbd_Reporter_Finish(rep, n == 0));
  pbd_Reporter_Free(rep);
  fclose(out);
  return text;
}

START_TEST(wkt_in_reports) {
  CHECK_STR(diff_report("", "ts { seconds: 1714564800 }", kPbd_Report_Text),
            "ts: added 2024-05-01T12:00:00Z\n");
  CHECK_STR(diff_report("duration { seconds: 1 nanos: 500000000 }", "", kPbd_Report_Text),
            "duration: removed 1.5s\n");
  CHECK_STR(diff_report("", "ts { }", kPbd_Report_Text),
            "ts: unset -> set to 1970-01-01T00:00:00Z\n");
  char *t = diff_report("", "ts { seconds: 1714564800 nanos: 500000000 } i64 { value: 9 }",
                        kPbd_Report_Json);
  ck_assert_str_eq(t,
                   "{\"equal\": false, \"differences\": [\n"
                   "  {\"path\": \"ts\", \"kind\": \"added\", \"right\": "
                   "\"2024-05-01T12:00:00.500Z\", \"parent\": \"\", \"type\": \"wkt.All\"},\n"
                   "  {\"path\": \"i64\", \"kind\": \"added\", \"right\": \"9\", \"parent\": \"\", "
                   "\"type\": \"wkt.All\"}\n"
                   "]}\n");
  CHECK_JSON_SHAPE(t, 2);
  free(t);
  /* both set: the diff engine descends into the fields (a Timestamp
   * compared as one value needs the engine to stop there) */
  t = diff_report("ts { seconds: 1 }", "ts { seconds: 2 }", kPbd_Report_Text);
  /* a Timestamp or Duration change is one change of the whole value */
  ck_assert_str_eq(t, "ts: 1970-01-01T00:00:01Z -> 1970-01-01T00:00:02Z\n");
  free(t);
  t = diff_report("duration { seconds: 1 }", "duration { seconds: 1 nanos: 500000000 }",
                  kPbd_Report_Text);
  ck_assert_str_eq(t, "duration: 1s -> 1.5s\n");
  free(t);
}
END_TEST

static Suite *report_suite(void) {
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("text");
  tcase_add_test(tc, text_grouping);
  tcase_add_test(tc, text_kinds);
  tcase_add_test(tc, text_color);
  tcase_add_test(tc, text_cut_values);
  tcase_add_test(tc, text_max_diffs);
  tcase_add_test(tc, text_stat);
  tcase_add_test(tc, report_names);
  tcase_add_test(tc, color_decision);
  tcase_add_test(tc, reporter_new_two_args);
  suite_add_tcase(s, tc);
  tc = tcase_create("json");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, json_kinds);
  tcase_add_test(tc, json_validator_is_strict);
  tcase_add_test(tc, json_cli_outputs);
  suite_add_tcase(s, tc);
  tc = tcase_create("wkt");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, wkt_setup, wkt_teardown);
  tcase_add_test(tc, wkt_timestamp);
  tcase_add_test(tc, wkt_duration);
  tcase_add_test(tc, wkt_in_text_values);
  tcase_add_test(tc, wkt_in_json_values);
  tcase_add_test(tc, wkt_in_reports);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_main(report_suite());
}
