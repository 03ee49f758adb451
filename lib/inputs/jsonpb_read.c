/* pbdiff — the JSON text read into a tree of values (jsonpb_internal.h):
 * strict RFC 8259, every literal kept as written with its byte offset, and
 * the messages that name a line and column. */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "inputs/jsonpb_internal.h"
#include "pbdiff/wire/wire.h"

/* Sets the status: "line L, column C: WHAT" at byte offset `off`.  Always
 * returns false. */
bool jp_fail(Ctx *c, pbd_StatusCode code, size_t off, const char *fmt, ...) {
  char what[420];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (off > c->n) off = c->n;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < off; i++) {
    unsigned char ch = (unsigned char)c->base[i];
    if (ch == '\n') {
      line++;
      col = 1;
    } else if ((ch & 0xC0) != 0x80) { /* count characters, not UTF-8 continuation bytes */
      col++;
    }
  }
  pbd_Status_SetErrorAt(c->s, code, off, "line %zu, column %zu: %s", line, col, what);
  return false;
}

bool jp_oom(Ctx *c) {
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

/* s[0..n) quoted for a message: printable text as is, the rest escaped, cut
 * after about 60 bytes.  Two such strings can be used in one message. */
const char *jp_quote(Ctx *c, const char *s, size_t n) {
  char *o = c->qbuf[c->qnext];
  c->qnext ^= 1;
  size_t k = 0, cap = sizeof c->qbuf[0];
  o[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    if (k + 12 >= cap) {
      memcpy(o + k, "...", 3);
      k += 3;
      break;
    }
    unsigned char ch = (unsigned char)s[i];
    size_t ul = ch >= 0x80 ? pbd_Utf8_SequenceLength((const unsigned char *)s + i, n - i) : 0;
    if (ch == '"' || ch == '\\') {
      o[k++] = '\\';
      o[k++] = (char)ch;
    } else if (ch >= 0x20 && ch < 0x7f) {
      o[k++] = (char)ch;
    } else if (ul > 0) {
      memcpy(o + k, s + i, ul);
      k += ul;
      i += ul - 1;
    } else if (ch == '\n') {
      o[k++] = '\\';
      o[k++] = 'n';
    } else {
      k += (size_t)snprintf(o + k, cap - k, ch < 0x80 ? "\\u%04x" : "\\x%02x", ch);
    }
  }
  o[k++] = '"';
  o[k] = '\0';
  return o;
}

const char *jp_kind_name(JKind k) {
  switch (k) {
    case J_Null: return "null";
    case J_False:
    case J_True: return "a bool";
    case J_Number: return "a number";
    case J_String: return "a string";
    case J_Array: return "an array";
    case J_Object: return "an object";
  }
  return "?";
}

/* ------------------------------------------------------------------ */
/* The JSON reader (RFC 8259, strict) */

bool jp_is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Length of the JSON number at s[0..n), or 0 when none starts there. */
size_t jp_number_len(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  if (i >= n) return 0;
  if (s[i] == '0') {
    i++;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && jp_is_digit(s[i])) i++;
  } else {
    return 0;
  }
  if (i < n && s[i] == '.') {
    if (i + 1 >= n || !jp_is_digit(s[i + 1])) return 0;
    i++;
    while (i < n && jp_is_digit(s[i])) i++;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (j >= n || !jp_is_digit(s[j])) return 0;
    i = j;
    while (i < n && jp_is_digit(s[i])) i++;
  }
  return i;
}

static void skip_ws(Ctx *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static size_t pos(const Ctx *c) { return (size_t)(c->p - c->base); }

static bool unexpected(Ctx *c, const char *expected) {
  if (c->p >= c->end)
    return jp_fail(c, kPbd_Status_Malformed, pos(c), "unexpected end of input, expected %s", expected);
  unsigned char ch = (unsigned char)*c->p;
  if (ch >= 0x20 && ch < 0x7f)
    return jp_fail(c, kPbd_Status_Malformed, pos(c), "unexpected character '%c', expected %s", ch,
                expected);
  return jp_fail(c, kPbd_Status_Malformed, pos(c), "unexpected byte 0x%02x, expected %s", ch,
              expected);
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char ch = p[i];
    int d = ch >= '0' && ch <= '9'   ? ch - '0'
            : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                     : -1;
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

static size_t put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18);
  o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Reads a string at c->p (on its opening quote) into out and outn: a view of
 * the input when it has no escapes, else decoded into the arena. */
static bool parse_string(Ctx *c, const char **out, size_t *outn) {
  const char *start = c->p++;
  const char *q = c->p;
  bool escaped = false;
  /* First pass: find the closing quote, checking every character. */
  for (;;) {
    if (q >= c->end)
      return jp_fail(c, kPbd_Status_Malformed, (size_t)(start - c->base), "unterminated string");
    unsigned char ch = (unsigned char)*q;
    if (ch == '"') break;
    if (ch == '\\') {
      escaped = true;
      if (q + 1 >= c->end)
        return jp_fail(c, kPbd_Status_Malformed, (size_t)(start - c->base), "unterminated string");
      char e = q[1];
      if (e == 'u') {
        if (c->end - q < 6 || hex4(q + 2) < 0) {
          c->p = q;
          return jp_fail(c, kPbd_Status_Malformed, (size_t)(q - c->base),
                      "invalid \\u escape (four hex digits expected)");
        }
        int u = hex4(q + 2);
        if (u >= 0xD800 && u <= 0xDBFF) {
          int lo = c->end - q >= 12 && q[6] == '\\' && q[7] == 'u' ? hex4(q + 8) : -1;
          if (lo < 0xDC00 || lo > 0xDFFF)
            return jp_fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base),
                        "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)u);
          q += 12;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
          return jp_fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base),
                      "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)u);
        } else {
          q += 6;
        }
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                 e == 'r' || e == 't') {
        q += 2;
      } else {
        return jp_fail(c, kPbd_Status_Malformed, (size_t)(q - c->base), "invalid escape %s in string",
                    jp_quote(c, q, 2));
      }
    } else if (ch < 0x20) {
      return jp_fail(c, kPbd_Status_Malformed, (size_t)(q - c->base),
                  "control character U+%04X in string (write it escaped)", ch);
    } else if (ch < 0x80) {
      q++;
    } else {
      size_t l = pbd_Utf8_SequenceLength((const unsigned char *)q, (size_t)(c->end - q));
      if (l == 0)
        return jp_fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base), "invalid UTF-8 in string");
      q += l;
    }
  }
  c->p = q + 1;
  if (!escaped) {
    *out = start + 1;
    *outn = (size_t)(q - start - 1);
    return true;
  }
  /* Second pass: decode (escapes never take more bytes than they decode to). */
  char *o = pbd_Arena_Malloc(c->arena, (size_t)(q - start));
  if (!o) return jp_oom(c);
  size_t k = 0;
  for (const char *r = start + 1; r < q;) {
    if (*r != '\\') {
      o[k++] = *r++;
      continue;
    }
    char e = r[1];
    r += 2;
    switch (e) {
      case 'b': o[k++] = '\b'; break;
      case 'f': o[k++] = '\f'; break;
      case 'n': o[k++] = '\n'; break;
      case 'r': o[k++] = '\r'; break;
      case 't': o[k++] = '\t'; break;
      case 'u': {
        uint32_t u = (uint32_t)hex4(r);
        r += 4;
        if (u >= 0xD800 && u <= 0xDBFF) {
          uint32_t lo = (uint32_t)hex4(r + 2);
          r += 6;
          u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        }
        k += put_utf8(o + k, u);
        break;
      }
      default: o[k++] = e; break; /* " \ / */
    }
  }
  *out = o;
  *outn = k;
  return true;
}

static JVal *new_val(Ctx *c, JKind kind, size_t off) {
  JVal *v = pbd_Arena_Calloc(c->arena, sizeof *v);
  if (!v) {
    jp_oom(c);
    return NULL;
  }
  v->kind = kind;
  v->off = off;
  return v;
}

static int cmp_members(const void *a, const void *b) {
  const JVal *x = *(const JVal *const *)a, *y = *(const JVal *const *)b;
  size_t n = x->key_n < y->key_n ? x->key_n : y->key_n;
  int r = n ? memcmp(x->key, y->key, n) : 0;
  if (r) return r;
  if (x->key_n != y->key_n) return x->key_n < y->key_n ? -1 : 1;
  return (x->key_off > y->key_off) - (x->key_off < y->key_off);
}

static bool same_key(const JVal *a, const JVal *b) {
  return a->key_n == b->key_n && (a->key_n == 0 || memcmp(a->key, b->key, a->key_n) == 0);
}

/* RFC 8259 leaves duplicate names to the reader; the mapping has no meaning
 * for them, so they are refused (the first repeated key in text order). */
static bool check_duplicates(Ctx *c, const JVal *obj) {
  const JVal *dup = NULL;
  if (obj->count <= 16) {
    for (const JVal *a = obj->first; a && !dup; a = a->next)
      for (const JVal *b = obj->first; b != a; b = b->next)
        if (same_key(a, b)) {
          dup = a;
          break;
        }
  } else {
    const JVal **v = malloc(obj->count * sizeof *v);
    if (!v) return jp_oom(c);
    size_t k = 0;
    for (const JVal *a = obj->first; a; a = a->next) v[k++] = a;
    qsort(v, k, sizeof *v, cmp_members);
    for (size_t i = 1; i < k; i++)
      if (same_key(v[i - 1], v[i]) && (!dup || v[i]->key_off < dup->key_off)) dup = v[i];
    free(v);
  }
  if (dup)
    return jp_fail(c, kPbd_Status_Malformed, dup->key_off, "duplicate key %s",
                jp_quote(c, dup->key, dup->key_n));
  return true;
}

static JVal *parse_value(Ctx *c, int depth);

static JVal *parse_container(Ctx *c, int depth, bool is_object) {
  size_t off = pos(c);
  /* A message level takes at most two JSON levels (a repeated field's
   * array or a map's object, then the message's object), so a text nested
   * deeper can hold no message within the limit; the walk checks the
   * message levels themselves (jsonpb.c). */
  if (depth + 1 > 2 * c->max_depth + 1) {
    jp_fail(c, kPbd_Status_MaxDepthExceeded, off,
            "JSON nesting deeper than %d levels, more than --max-depth %d message levels can "
            "take", 2 * c->max_depth + 1, c->max_depth);
    return NULL;
  }
  JVal *v = new_val(c, is_object ? J_Object : J_Array, off);
  if (!v) return NULL;
  c->p++;
  skip_ws(c);
  char close = is_object ? '}' : ']';
  if (c->p < c->end && *c->p == close) {
    c->p++;
    return v;
  }
  JVal **tail = &v->first;
  for (;;) {
    skip_ws(c);
    const char *key = NULL;
    size_t key_n = 0, key_off = pos(c);
    if (is_object) {
      if (c->p >= c->end || *c->p != '"') {
        unexpected(c, "a string key");
        return NULL;
      }
      if (!parse_string(c, &key, &key_n)) return NULL;
      skip_ws(c);
      if (c->p >= c->end || *c->p != ':') {
        unexpected(c, "':' after the key");
        return NULL;
      }
      c->p++;
      skip_ws(c);
    }
    JVal *e = parse_value(c, depth + 1);
    if (!e) return NULL;
    e->key = key;
    e->key_n = key_n;
    e->key_off = key_off;
    *tail = e;
    tail = &e->next;
    if (v->count == UINT32_MAX) {
      jp_fail(c, kPbd_Status_Malformed, off, "too many elements");
      return NULL;
    }
    v->count++;
    skip_ws(c);
    if (c->p < c->end && *c->p == ',') {
      c->p++;
      continue;
    }
    if (c->p < c->end && *c->p == close) {
      c->p++;
      break;
    }
    unexpected(c, is_object ? "',' or '}'" : "',' or ']'");
    return NULL;
  }
  if (is_object && !check_duplicates(c, v)) return NULL;
  return v;
}

static bool is_word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || jp_is_digit(ch) || ch == '_' ||
         ch == '.' || ch == '+' || ch == '-';
}

/* A value at c->p (whitespace skipped). */
static JVal *parse_value(Ctx *c, int depth) {
  if (c->p >= c->end) {
    unexpected(c, "a value");
    return NULL;
  }
  size_t off = pos(c);
  char ch = *c->p;
  if (ch == '{' || ch == '[') return parse_container(c, depth, ch == '{');
  if (ch == '"') {
    JVal *v = new_val(c, J_String, off);
    if (!v || !parse_string(c, &v->s, &v->n)) return NULL;
    return v;
  }
  /* Numbers and literals: take the whole word so that "12x" or "nulls" is
   * reported as one bad token. */
  const char *w = c->p;
  while (w < c->end && is_word_char(*w)) w++;
  size_t wn = (size_t)(w - c->p);
  if (wn == 0) {
    unexpected(c, "a value");
    return NULL;
  }
  if (ch == '-' || ch == '+' || ch == '.' || jp_is_digit(ch)) {
    if (jp_number_len(c->p, wn) != wn) {
      jp_fail(c, kPbd_Status_Malformed, off, "invalid number %s", jp_quote(c, c->p, wn));
      return NULL;
    }
    JVal *v = new_val(c, J_Number, off);
    if (!v) return NULL;
    v->s = c->p;
    v->n = wn;
    c->p = w;
    return v;
  }
  static const struct {
    const char *word;
    JKind kind;
  } lits[] = {{"null", J_Null}, {"true", J_True}, {"false", J_False}};
  for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
    if (strlen(lits[i].word) == wn && memcmp(c->p, lits[i].word, wn) == 0) {
      c->p = w;
      return new_val(c, lits[i].kind, off);
    }
  }
  jp_fail(c, kPbd_Status_Malformed, off, "invalid literal %s (strings need quotes)",
       jp_quote(c, c->p, wn));
  return NULL;
}

JVal *jp_parse_document(Ctx *c) {
  skip_ws(c);
  if (c->p >= c->end) {
    jp_fail(c, kPbd_Status_Malformed, pos(c), "no JSON value (empty input)");
    return NULL;
  }
  JVal *root = parse_value(c, 0);
  if (!root) return NULL;
  skip_ws(c);
  if (c->p < c->end) {
    jp_fail(c, kPbd_Status_Malformed, pos(c), "unexpected text after the JSON value");
    return NULL;
  }
  return root;
}
