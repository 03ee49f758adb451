/* pbdiff tests — a strict JSON parser (RFC 8259) and the check of a JSON
 * report against the shape docs/json-format.md documents (tu_json.h). */
#include "tu_json.h"

#include "pbdiff/core/base.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static const char *const kTopKeys[] = {"equal",          "left_name",
                                       "right_name",     "differences",
                                       "omitted",        "summaries",
                                       "schema_changes", "schema_changes_omitted",
                                       "encoding"};
static const char *const kChangeKeys[] = {"from", "to", "records", "record"};
static const char *const kSideKeys[] = {"schema_id", "indexes", "value", "key"};
static const char *const kSummaryKeys[] = {"path", "differing", "first_indices",
                                           "max_abs_difference", "max_abs_index",
                                           "max_rel_difference", "max_rel_index"};

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

/* One summary of a long run of changed numbers; NULL when it fits. */
static const char *check_summary(const JVal *d) {
  if (d->t != J_OBJ) return "summary is not an object";
  const char *why = check_keys(d, kSummaryKeys, sizeof kSummaryKeys / sizeof *kSummaryKeys);
  if (why) return why;
  if (d->n != sizeof kSummaryKeys / sizeof *kSummaryKeys) return "summary lacks a key";
  const JVal *path = j_get(d, "path"), *n = j_get(d, "differing"), *first = j_get(d, "first_indices");
  if (!path || path->t != J_STR) return "summary path is not a string";
  if (!is_index(n) || n->num < 6) return "differing is not an integer above 5";
  if (!first || first->t != J_ARR || first->n != 5) return "first_indices is not 5 indices";
  for (size_t i = 0; i < first->n; i++)
    if (!is_index(&first->items[i])) return "first_indices holds no index";
  if (!is_index(j_get(d, "max_abs_index")) || !is_index(j_get(d, "max_rel_index")))
    return "max_abs_index or max_rel_index is no index";
  const JVal *a = j_get(d, "max_abs_difference"), *r = j_get(d, "max_rel_difference");
  if ((a->t != J_NUM && a->t != J_NULL) || (r->t != J_NUM && r->t != J_NULL))
    return "a max difference is neither a number nor null";
  return NULL;
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

/* One side of a schema change: what changed, nothing else. */
static const char *check_change_side(const JVal *v) {
  if (!v || v->t != J_OBJ || v->n == 0) return "from/to missing, not an object or empty";
  const char *why = check_keys(v, kSideKeys, sizeof kSideKeys / sizeof *kSideKeys);
  if (why) return why;
  const JVal *id = j_get(v, "schema_id"), *ix = j_get(v, "indexes"), *val = j_get(v, "value"),
             *key = j_get(v, "key");
  if (id && !is_index(id)) return "schema_id is not a non-negative integer";
  if (ix && ix->t != J_ARR) return "indexes is not an array";
  for (size_t i = 0; ix && i < ix->n; i++)
    if (!is_index(&ix->items[i])) return "an index is not a non-negative integer";
  if (val && (val->t != J_STR || (strcmp(val->s, "tombstone") && strcmp(val->s, "empty"))))
    return "value is not \"tombstone\" or \"empty\"";
  if (val && (id || ix)) return "a side without a value has no schema id or indexes";
  if (key && (key->t != J_STR && key->t != J_NULL)) return "key is not a string or null";
  if (key && v->n != 1) return "a key change stands alone";
  return NULL;
}

/* The schema_changes array (docs/json-format.md). */
static const char *check_schema_changes(const JVal *a) {
  if (a->t != J_ARR || a->n == 0) return "schema_changes is not a non-empty array";
  for (size_t i = 0; i < a->n; i++) {
    const JVal *c = &a->items[i];
    if (c->t != J_OBJ) return "a schema change is not an object";
    const char *why = check_keys(c, kChangeKeys, sizeof kChangeKeys / sizeof *kChangeKeys);
    if (!why) why = check_change_side(j_get(c, "from"));
    if (!why) why = check_change_side(j_get(c, "to"));
    if (why) return why;
    const JVal *n = j_get(c, "records"), *r = j_get(c, "record");
    if (!is_index(n) || n->num < 1) return "records is not a positive integer";
    if ((n->num == 1) != (r != NULL)) return "record is there exactly when records is 1";
    if (r && r->t != J_STR) return "record is not a string";
    if (i && j_get(&a->items[i - 1], "records")->num < n->num) return "not most frequent first";
  }
  return NULL;
}

/* A whole report; NULL when it fits, else why not.  *ndiff gets the number
 * of differences listed. */
const char *tu_json_check_report(const char *text, size_t *ndiff) {
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
  const JVal *sc = j_get(v, "schema_changes"), *sco = j_get(v, "schema_changes_omitted");
  if (sc && (res = check_schema_changes(sc))) goto out;
  if (sco && (!sc || !is_index(sco) || sco->num < 1)) {
    res = "schema_changes_omitted is not a positive integer after schema_changes";
    goto out;
  }
  for (size_t i = 0; i < diffs->n; i++) {
    const char *w = check_difference(&diffs->items[i]);
    if (w) {
      snprintf(why, sizeof why, "difference %zu: %s", i, w);
      res = why;
      goto out;
    }
  }
  const JVal *sums = j_get(v, "summaries");
  if (sums && (sums->t != J_ARR || sums->n == 0)) {
    res = "summaries is not a non-empty array";
    goto out;
  }
  for (size_t i = 0; sums && i < sums->n; i++) {
    const char *w = check_summary(&sums->items[i]);
    if (w) {
      snprintf(why, sizeof why, "summary %zu: %s", i, w);
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
