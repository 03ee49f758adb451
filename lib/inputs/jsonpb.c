/* pbdiff — protobuf JSON to the binary encoding (see jsonpb.h).
 *
 * Why a parser of our own rather than a library: Debian 12 has json-c
 * (libjson-c-dev), jansson (libjansson-dev) and yajl (libyajl-dev), and none
 * gives what the JSON mapping and our error messages need together:
 *  - exact 64-bit integers: json-c and jansson turn numbers into int64 or
 *    double, so a uint64 above 2^63-1 or an integer written `1e2` is lost or
 *    rounded before we see it; we need the literal's digits;
 *  - positions of values: every error (an unknown key, a bad enum name, an
 *    out-of-range int64, found long after parsing) must say "line L,
 *    column C"; json-c reports only a character offset for syntax errors and
 *    jansson keeps no positions in its values; yajl keeps none at all;
 *  - duplicate keys: json-c keeps the last silently, yajl does not look;
 *    only jansson can refuse them (JSON_REJECT_DUPLICATES).
 * A strict RFC 8259 reader is about 300 lines; it keeps every literal as
 * written (numbers as text, strings decoded once) with its byte offset, so
 * it gives all three and takes no dependency.
 *
 * The work is done in two steps: the text is parsed into a small tree of
 * JSON values (in an arena, each with its offset), which is then walked
 * along the message's schema, writing fields in the order the JSON gives
 * them.  The tree lets an Any's "@type" come after the payload's fields, as
 * the mapping allows.  A nested message is written in place and its length
 * prefix inserted in front when it is complete. */
#include "inputs/jsonpb.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "wire/wire.h"

/* ------------------------------------------------------------------ */
/* JSON values */

typedef enum { J_Null, J_False, J_True, J_Number, J_String, J_Array, J_Object } JKind;

typedef struct JVal JVal;
struct JVal {
  JKind kind;
  uint32_t count; /* Array/Object: elements or members */
  size_t off;     /* byte offset of the value's first character */
  const char *s;  /* String: the decoded bytes; Number: the literal */
  size_t n;
  JVal *first;     /* Array/Object: the first element or member */
  JVal *next;      /* the next element or member of the parent */
  const char *key; /* object member: its decoded key */
  size_t key_n;
  size_t key_off; /* offset of the key's opening quote */
};

typedef struct {
  const char *base; /* the whole text, for offsets, lines and columns */
  size_t n;
  const char *p, *end; /* the parser's position */
  pbd_Arena *arena;
  pbd_Status *s;
  const pbd_DefPool *pool;
  pbd_Buf *out;
  char qbuf[2][96]; /* quoted excerpts for messages */
  int qnext;
} Ctx;

/* Sets the status: "line L, column C: WHAT" at byte offset `off`.  Always
 * returns false. */
static bool fail(Ctx *c, pbd_StatusCode code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail(Ctx *c, pbd_StatusCode code, size_t off, const char *fmt, ...) {
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

static bool oom(Ctx *c) {
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

/* s[0..n) quoted for a message: printable text as is, the rest escaped, cut
 * after about 60 bytes.  Two such strings can be used in one message. */
static const char *quote(Ctx *c, const char *s, size_t n) {
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

static const char *kind_name(JKind k) {
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

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Length of the JSON number at s[0..n), or 0 when none starts there. */
static size_t number_len(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  if (i >= n) return 0;
  if (s[i] == '0') {
    i++;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && is_digit(s[i])) i++;
  } else {
    return 0;
  }
  if (i < n && s[i] == '.') {
    if (i + 1 >= n || !is_digit(s[i + 1])) return 0;
    i++;
    while (i < n && is_digit(s[i])) i++;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (j >= n || !is_digit(s[j])) return 0;
    i = j;
    while (i < n && is_digit(s[i])) i++;
  }
  return i;
}

static void skip_ws(Ctx *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static size_t pos(const Ctx *c) { return (size_t)(c->p - c->base); }

static bool unexpected(Ctx *c, const char *expected) {
  if (c->p >= c->end)
    return fail(c, kPbd_Status_Malformed, pos(c), "unexpected end of input, expected %s", expected);
  unsigned char ch = (unsigned char)*c->p;
  if (ch >= 0x20 && ch < 0x7f)
    return fail(c, kPbd_Status_Malformed, pos(c), "unexpected character '%c', expected %s", ch,
                expected);
  return fail(c, kPbd_Status_Malformed, pos(c), "unexpected byte 0x%02x, expected %s", ch,
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
      return fail(c, kPbd_Status_Malformed, (size_t)(start - c->base), "unterminated string");
    unsigned char ch = (unsigned char)*q;
    if (ch == '"') break;
    if (ch == '\\') {
      escaped = true;
      if (q + 1 >= c->end)
        return fail(c, kPbd_Status_Malformed, (size_t)(start - c->base), "unterminated string");
      char e = q[1];
      if (e == 'u') {
        if (c->end - q < 6 || hex4(q + 2) < 0) {
          c->p = q;
          return fail(c, kPbd_Status_Malformed, (size_t)(q - c->base),
                      "invalid \\u escape (four hex digits expected)");
        }
        int u = hex4(q + 2);
        if (u >= 0xD800 && u <= 0xDBFF) {
          int lo = c->end - q >= 12 && q[6] == '\\' && q[7] == 'u' ? hex4(q + 8) : -1;
          if (lo < 0xDC00 || lo > 0xDFFF)
            return fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base),
                        "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)u);
          q += 12;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
          return fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base),
                      "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)u);
        } else {
          q += 6;
        }
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                 e == 'r' || e == 't') {
        q += 2;
      } else {
        return fail(c, kPbd_Status_Malformed, (size_t)(q - c->base), "invalid escape %s in string",
                    quote(c, q, 2));
      }
    } else if (ch < 0x20) {
      return fail(c, kPbd_Status_Malformed, (size_t)(q - c->base),
                  "control character U+%04X in string (write it escaped)", ch);
    } else if (ch < 0x80) {
      q++;
    } else {
      size_t l = pbd_Utf8_SequenceLength((const unsigned char *)q, (size_t)(c->end - q));
      if (l == 0)
        return fail(c, kPbd_Status_BadUtf8, (size_t)(q - c->base), "invalid UTF-8 in string");
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
  if (!o) return oom(c);
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
    oom(c);
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
    if (!v) return oom(c);
    size_t k = 0;
    for (const JVal *a = obj->first; a; a = a->next) v[k++] = a;
    qsort(v, k, sizeof *v, cmp_members);
    for (size_t i = 1; i < k; i++)
      if (same_key(v[i - 1], v[i]) && (!dup || v[i]->key_off < dup->key_off)) dup = v[i];
    free(v);
  }
  if (dup)
    return fail(c, kPbd_Status_Malformed, dup->key_off, "duplicate key %s",
                quote(c, dup->key, dup->key_n));
  return true;
}

static JVal *parse_value(Ctx *c, int depth);

static JVal *parse_container(Ctx *c, int depth, bool is_object) {
  size_t off = pos(c);
  if (depth + 1 > kPbd_JsonPb_MaxDepth) {
    fail(c, kPbd_Status_MaxDepthExceeded, off, "nesting deeper than %d", kPbd_JsonPb_MaxDepth);
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
      fail(c, kPbd_Status_Malformed, off, "too many elements");
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
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '_' ||
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
  if (ch == '-' || ch == '+' || ch == '.' || is_digit(ch)) {
    if (number_len(c->p, wn) != wn) {
      fail(c, kPbd_Status_Malformed, off, "invalid number %s", quote(c, c->p, wn));
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
  fail(c, kPbd_Status_Malformed, off, "invalid literal %s (strings need quotes)",
       quote(c, c->p, wn));
  return NULL;
}

static JVal *parse_document(Ctx *c) {
  skip_ws(c);
  if (c->p >= c->end) {
    fail(c, kPbd_Status_Malformed, pos(c), "no JSON value (empty input)");
    return NULL;
  }
  JVal *root = parse_value(c, 0);
  if (!root) return NULL;
  skip_ws(c);
  if (c->p < c->end) {
    fail(c, kPbd_Status_Malformed, pos(c), "unexpected text after the JSON value");
    return NULL;
  }
  return root;
}

/* ------------------------------------------------------------------ */
/* Wire output */

static void put_varint(pbd_Buf *b, uint64_t v) {
  char tmp[10];
  size_t k = 0;
  do {
    tmp[k++] = (char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
    v >>= 7;
  } while (v);
  pbd_Buf_Append(b, tmp, k);
}

static void put_tag(pbd_Buf *b, uint32_t number, int wt) {
  put_varint(b, (uint64_t)number << 3 | (uint64_t)wt);
}

static void put_fixed(pbd_Buf *b, uint64_t v, int width) {
  char tmp[8];
  for (int i = 0; i < width; i++) tmp[i] = (char)(v >> (8 * i));
  pbd_Buf_Append(b, tmp, (size_t)width);
}

static void put_bytes(pbd_Buf *b, uint32_t number, const char *s, size_t n) {
  put_tag(b, number, kPbd_WireType_Delimited);
  put_varint(b, n);
  pbd_Buf_Append(b, s, n);
}

/* Inserts the length of b[mark..] as a varint at mark. */
static void end_len(pbd_Buf *b, size_t mark) {
  if (b->oom) return;
  size_t len = b->len - mark;
  char tmp[10];
  size_t k = 0;
  uint64_t v = len;
  do {
    tmp[k++] = (char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
    v >>= 7;
  } while (v);
  pbd_Buf_Append(b, tmp, k); /* grow by k */
  if (b->oom) return;
  memmove(b->data + mark + k, b->data + mark, len);
  memcpy(b->data + mark, tmp, k);
}

/* ------------------------------------------------------------------ */
/* Numbers */

typedef enum { N_Ok, N_NotNumber, N_NotInteger, N_Range } NumResult;

/* The integer written as the JSON number s[0..n) (in full: a fraction or an
 * exponent is fine when the value is integral): its sign and magnitude. */
static NumResult int_of(const char *s, size_t n, bool *neg, uint64_t *mag) {
  if (n == 0 || number_len(s, n) != n) return N_NotNumber;
  size_t i = 0;
  *neg = s[0] == '-';
  if (*neg) i++;
  size_t ia = i;
  while (i < n && is_digit(s[i])) i++;
  size_t ib = i, fa = i, fb = i;
  if (i < n && s[i] == '.') {
    fa = ++i;
    while (i < n && is_digit(s[i])) i++;
    fb = i;
  }
  int64_t exp = 0;
  if (i < n) { /* e or E */
    i++;
    bool eneg = s[i] == '-';
    if (s[i] == '+' || s[i] == '-') i++;
    for (; i < n; i++)
      if (exp < 1000000) exp = exp * 10 + (s[i] - '0');
    if (eneg) exp = -exp;
  }
  /* The digits, integer part then fraction, as one sequence. */
  size_t ni = ib - ia, nf = fb - fa, total = ni + nf;
#define DIGIT(k) ((k) < ni ? s[ia + (k)] : s[fa + (k)-ni])
  size_t lead = 0;
  while (lead < total && DIGIT(lead) == '0') lead++;
  *mag = 0;
  if (lead == total) return N_Ok; /* zero */
  size_t last = total - 1;
  while (DIGIT(last) == '0') last--;
  int64_t e10 = exp - (int64_t)nf + (int64_t)(total - 1 - last);
  if (e10 < 0) return N_NotInteger;
  if ((int64_t)(last - lead + 1) + e10 > 20) return N_Range;
  uint64_t m = 0;
  for (size_t k = lead; k <= last; k++) {
    unsigned d = (unsigned)(DIGIT(k) - '0');
    if (m > (UINT64_MAX - d) / 10) return N_Range;
    m = m * 10 + d;
  }
#undef DIGIT
  for (int64_t k = 0; k < e10; k++) {
    if (m > UINT64_MAX / 10) return N_Range;
    m *= 10;
  }
  *mag = m;
  return N_Ok;
}

/* Ranges of the integer types. */
typedef struct {
  bool is_signed;
  uint64_t max; /* largest positive value */
} IntRange;

static const IntRange kInt32 = {true, INT32_MAX};
static const IntRange kInt64 = {true, INT64_MAX};
static const IntRange kUInt32 = {false, UINT32_MAX};
static const IntRange kUInt64 = {false, UINT64_MAX};

/* An integer from text s[0..n) (a JSON number, or the contents of a string
 * or a map key) at offset off, in range r: the value as a two's-complement
 * uint64 in *out. */
static bool int_text(Ctx *c, const char *s, size_t n, size_t off, const IntRange *r,
                     const char *type_name, uint64_t *out) {
  bool neg = false;
  uint64_t mag = 0;
  switch (int_of(s, n, &neg, &mag)) {
    case N_NotNumber:
      return fail(c, kPbd_Status_Malformed, off, "invalid %s value %s", type_name, quote(c, s, n));
    case N_NotInteger:
      return fail(c, kPbd_Status_Malformed, off, "%s value %s is not an integer", type_name,
                  quote(c, s, n));
    case N_Range: goto range;
    case N_Ok: break;
  }
  if (neg && mag > 0) {
    if (!r->is_signed || mag > r->max + 1) goto range;
    *out = (uint64_t)0 - mag;
  } else {
    if (mag > r->max) goto range;
    *out = mag;
  }
  return true;
range:
  return fail(c, kPbd_Status_Malformed, off, "%s value %s is out of range", type_name,
              quote(c, s, n));
}

/* An integer value: a JSON number or a string holding one. */
static bool int_value(Ctx *c, const JVal *v, const IntRange *r, const char *type_name,
                      uint64_t *out) {
  if (v->kind != J_Number && v->kind != J_String)
    return fail(c, kPbd_Status_Malformed, v->off,
                "%s value expected (a number or a string), got %s", type_name, kind_name(v->kind));
  return int_text(c, v->s, v->n, v->off, r, type_name, out);
}

/* A double: a JSON number, a string holding one, or "NaN", "Infinity",
 * "-Infinity". */
static bool double_value(Ctx *c, const JVal *v, const char *type_name, double *out) {
  if (v->kind == J_String) {
    if (v->n == 3 && memcmp(v->s, "NaN", 3) == 0) {
      *out = NAN;
      return true;
    }
    if (v->n == 8 && memcmp(v->s, "Infinity", 8) == 0) {
      *out = INFINITY;
      return true;
    }
    if (v->n == 9 && memcmp(v->s, "-Infinity", 9) == 0) {
      *out = -INFINITY;
      return true;
    }
  } else if (v->kind != J_Number) {
    return fail(c, kPbd_Status_Malformed, v->off,
                "%s value expected (a number or a string), got %s", type_name, kind_name(v->kind));
  }
  if (v->n == 0 || number_len(v->s, v->n) != v->n)
    return fail(c, kPbd_Status_Malformed, v->off, "invalid %s value %s", type_name,
                quote(c, v->s, v->n));
  char small[64];
  char *t = v->n < sizeof small ? small : malloc(v->n + 1);
  if (!t) return oom(c);
  memcpy(t, v->s, v->n);
  t[v->n] = '\0';
  /* The grammar was checked, so strtod reads it all, unless the program
   * set a locale whose decimal point is not '.': then write it that way. */
  char *e = NULL;
  double d = strtod(t, &e);
  if (*e != '\0') {
    const char *dp = localeconv()->decimal_point;
    char *dot = strchr(t, '.');
    if (dot && dp && strlen(dp) == 1) {
      *dot = dp[0];
      d = strtod(t, &e);
    }
  }
  if (t != small) free(t);
  if (isinf(d))
    return fail(c, kPbd_Status_Malformed, v->off, "%s value %s is out of range", type_name,
                quote(c, v->s, v->n));
  *out = d;
  return true;
}

static uint64_t double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static uint64_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* ------------------------------------------------------------------ */
/* Well-known types */

typedef enum {
  W_None,
  W_Any,
  W_Timestamp,
  W_Duration,
  W_FieldMask,
  W_Struct,
  W_Value,
  W_ListValue,
  W_Wrapper,
} Wkt;

static Wkt wkt_of(const pbd_MessageDef *m) {
  static const char kPrefix[] = "google.protobuf.";
  if (!m || strncmp(m->full_name, kPrefix, sizeof kPrefix - 1) != 0) return W_None;
  const char *n = m->full_name + sizeof kPrefix - 1;
  static const struct {
    const char *name;
    Wkt w;
  } kinds[] = {
      {"Any", W_Any},
      {"Timestamp", W_Timestamp},
      {"Duration", W_Duration},
      {"FieldMask", W_FieldMask},
      {"Struct", W_Struct},
      {"Value", W_Value},
      {"ListValue", W_ListValue},
      {"DoubleValue", W_Wrapper},
      {"FloatValue", W_Wrapper},
      {"Int64Value", W_Wrapper},
      {"UInt64Value", W_Wrapper},
      {"Int32Value", W_Wrapper},
      {"UInt32Value", W_Wrapper},
      {"BoolValue", W_Wrapper},
      {"StringValue", W_Wrapper},
      {"BytesValue", W_Wrapper},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(n, kinds[i].name) == 0) {
      /* A wrapper must have its `value` field for us to write it. */
      if (kinds[i].w == W_Wrapper && !pbd_MessageDef_FindFieldByNumber(m, 1)) return W_None;
      return kinds[i].w;
    }
  return W_None;
}

static bool is_null_value_enum(const pbd_FieldDef *fd) {
  return fd->type == kPbd_Type_Enum && fd->enum_type &&
         strcmp(fd->enum_type->full_name, "google.protobuf.NullValue") == 0;
}

/* Whether JSON null is a value of this field (rather than "not set"). */
static bool null_is_value(const pbd_FieldDef *fd) {
  if (is_null_value_enum(fd)) return true;
  return (fd->type == kPbd_Type_Message) && wkt_of(fd->message_type) == W_Value;
}

static bool expect_string(Ctx *c, const JVal *v, const char *what) {
  if (v->kind == J_String) return true;
  return fail(c, kPbd_Status_Malformed, v->off, "%s expects a string, got %s", what,
              kind_name(v->kind));
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  /* Howard Hinnant's algorithm: days since 1970-01-01 of a proleptic
   * Gregorian date. */
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = (unsigned)(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s as a number, or -1 when one is not a digit. */
static int64_t digits(const char *s, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit(s[i])) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* Fraction digits s[0..n) (1 to 9) as nanoseconds. */
static int32_t nanos_of(const char *s, size_t n) {
  int32_t v = 0;
  for (size_t i = 0; i < 9; i++) v = v * 10 + (i < n ? s[i] - '0' : 0);
  return v;
}

static const int64_t kTimestampMin = -62135596800; /* 0001-01-01T00:00:00Z */
static const int64_t kTimestampMax = 253402300799; /* 9999-12-31T23:59:59Z */
static const int64_t kDurationMax = 315576000000;  /* 10000 years */

/* Timestamp and Duration: seconds (1) and nanos (2), zeros left out as
 * proto3 leaves them out. */
static void put_seconds_nanos(Ctx *c, int64_t secs, int32_t nanos) {
  if (secs) {
    put_tag(c->out, 1, kPbd_WireType_Varint);
    put_varint(c->out, (uint64_t)secs);
  }
  if (nanos) {
    put_tag(c->out, 2, kPbd_WireType_Varint);
    put_varint(c->out, (uint64_t)(int64_t)nanos);
  }
}

/* RFC 3339: 1972-01-01T10:00:20.021Z or ...+01:00; 0 to 9 fraction digits. */
static bool timestamp_value(Ctx *c, const JVal *v) {
  if (!expect_string(c, v, "google.protobuf.Timestamp")) return false;
  const char *s = v->s;
  size_t n = v->n, i = 0;
  int64_t year = -1, mon = -1, day = -1, hh = -1, mm = -1, ss = -1;
  int32_t nanos = 0;
  int64_t offset = 0;
  if (n < 20) goto bad;
  year = digits(s, 4);
  mon = digits(s + 5, 2);
  day = digits(s + 8, 2);
  hh = digits(s + 11, 2);
  mm = digits(s + 14, 2);
  ss = digits(s + 17, 2);
  if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') goto bad;
  if (year < 1 || mon < 1 || mon > 12 || day < 1 || hh < 0 || hh > 23 || mm < 0 || mm > 59 ||
      ss < 0 || ss > 59)
    goto bad;
  {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    int dim = kDays[mon - 1] + (mon == 2 && leap);
    if (day > dim) goto bad;
  }
  i = 19;
  if (i < n && s[i] == '.') {
    size_t fa = ++i;
    while (i < n && is_digit(s[i])) i++;
    if (i == fa || i - fa > 9) goto bad;
    nanos = nanos_of(s + fa, i - fa);
  }
  if (i < n && s[i] == 'Z') {
    i++;
  } else if (i < n && (s[i] == '+' || s[i] == '-')) {
    if (n - i < 6 || s[i + 3] != ':') goto bad;
    int64_t oh = digits(s + i + 1, 2), om = digits(s + i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) goto bad;
    offset = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    goto bad;
  }
  if (i != n) goto bad;
  {
    int64_t secs = days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 + hh * 3600 +
                   mm * 60 + ss - offset;
    if (secs < kTimestampMin || secs > kTimestampMax)
      return fail(c, kPbd_Status_Malformed, v->off,
                  "timestamp %s is out of range (0001-01-01T00:00:00Z to "
                  "9999-12-31T23:59:59.999999999Z)",
                  quote(c, s, n));
    put_seconds_nanos(c, secs, nanos);
    return true;
  }
bad:
  return fail(c, kPbd_Status_Malformed, v->off,
              "invalid timestamp %s (RFC 3339 expected, as \"1972-01-01T10:00:20.021Z\")",
              quote(c, s, n));
}

/* "1.5s", "-0.000000001s": seconds with 0 to 9 fraction digits. */
static bool duration_value(Ctx *c, const JVal *v) {
  if (!expect_string(c, v, "google.protobuf.Duration")) return false;
  const char *s = v->s;
  size_t n = v->n, i = 0;
  bool neg = false;
  int64_t secs = 0;
  int32_t nanos = 0;
  if (i < n && s[i] == '-') {
    neg = true;
    i++;
  }
  size_t ia = i;
  while (i < n && is_digit(s[i])) {
    if (secs <= kDurationMax) secs = secs * 10 + (s[i] - '0');
    i++;
  }
  if (i == ia) goto bad;
  if (i < n && s[i] == '.') {
    size_t fa = ++i;
    while (i < n && is_digit(s[i])) i++;
    if (i == fa || i - fa > 9) goto bad;
    nanos = nanos_of(s + fa, i - fa);
  }
  if (i + 1 != n || s[i] != 's') goto bad;
  if (secs > kDurationMax)
    return fail(c, kPbd_Status_Malformed, v->off,
                "duration %s is out of range (at most 315576000000s either way)", quote(c, s, n));
  if (neg) {
    secs = -secs;
    nanos = -nanos;
  }
  put_seconds_nanos(c, secs, nanos);
  return true;
bad:
  return fail(c, kPbd_Status_Malformed, v->off,
              "invalid duration %s (seconds with the suffix s expected, as \"1.5s\")",
              quote(c, s, n));
}

/* "a.fooBar,c": paths joined by ',', lowerCamelCase turned to snake_case. */
static bool field_mask_value(Ctx *c, const JVal *v) {
  if (!expect_string(c, v, "google.protobuf.FieldMask")) return false;
  if (v->n == 0) return true;
  char *t = pbd_Arena_Malloc(c->arena, v->n * 2);
  if (!t) return oom(c);
  size_t a = 0;
  while (a <= v->n) {
    size_t b = a;
    while (b < v->n && v->s[b] != ',') b++;
    if (b == a)
      return fail(c, kPbd_Status_Malformed, v->off, "empty path in field mask %s",
                  quote(c, v->s, v->n));
    size_t k = 0;
    for (size_t i = a; i < b; i++) {
      char ch = v->s[i];
      if (ch >= 'A' && ch <= 'Z') {
        t[k++] = '_';
        t[k++] = (char)(ch - 'A' + 'a');
      } else if (ch == '_') {
        return fail(c, kPbd_Status_Malformed, v->off,
                    "field mask path %s contains '_' (JSON paths are lowerCamelCase)",
                    quote(c, v->s + a, b - a));
      } else {
        t[k++] = ch;
      }
    }
    put_bytes(c->out, 1, t, k);
    a = b + 1;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Fields and messages */

static bool message_value(Ctx *c, const pbd_MessageDef *m, const JVal *v);
static bool value_value(Ctx *c, const JVal *v);

static void prepend_index(Ctx *c, uint32_t i) {
  char seg[24];
  snprintf(seg, sizeof seg, "[%u]", i);
  pbd_Status_PrependPath(c->s, seg);
}

static void prepend_field(Ctx *c, const pbd_FieldDef *fd) {
  if (fd->is_extension) {
    char seg[512];
    snprintf(seg, sizeof seg, "[%s]", fd->full_name);
    pbd_Status_PrependPath(c->s, seg);
  } else {
    pbd_Status_PrependPath(c->s, fd->name);
  }
}

/* A map key as a path segment: ["k"] for strings, [5] or [true] else. */
static void prepend_key(Ctx *c, const pbd_FieldDef *keyfd, const JVal *member) {
  pbd_Buf seg = {0};
  pbd_Buf_AppendChar(&seg, '[');
  if (keyfd->type == kPbd_Type_String) {
    pbd_Buf_AppendChar(&seg, '"');
    for (size_t i = 0; i < member->key_n && i < 200; i++) {
      char ch = member->key[i];
      if (ch == '"' || ch == '\\') {
        pbd_Buf_AppendChar(&seg, '\\');
        pbd_Buf_AppendChar(&seg, ch);
      } else if ((unsigned char)ch < 0x20) {
        pbd_Buf_Printf(&seg, "\\u%04x", (unsigned char)ch);
      } else {
        pbd_Buf_AppendChar(&seg, ch);
      }
    }
    pbd_Buf_AppendChar(&seg, '"');
  } else {
    pbd_Buf_Append(&seg, member->key, member->key_n < 40 ? member->key_n : 40);
  }
  pbd_Buf_AppendChar(&seg, ']');
  if (!seg.oom) pbd_Status_PrependPath(c->s, seg.data);
  pbd_Buf_Free(&seg);
}

static const pbd_EnumValueDef *enum_by_name(const pbd_EnumDef *e, const char *s, size_t n) {
  for (uint32_t i = 0; i < e->value_count; i++) {
    const char *name = e->values[i].name;
    if (strlen(name) == n && memcmp(name, s, n) == 0) return &e->values[i];
  }
  return NULL;
}

/* The wire value (varint, fixed32 or fixed64 bits) of a numeric, bool or
 * enum field's JSON value. */
static bool scalar_raw(Ctx *c, const pbd_FieldDef *fd, const JVal *v, uint64_t *raw) {
  uint64_t u = 0;
  const char *tn = pbd_FieldType_Name(fd->type);
  switch (fd->type) {
    case kPbd_Type_Int32:
    case kPbd_Type_SFixed32:
    case kPbd_Type_SInt32:
      if (!int_value(c, v, &kInt32, tn, &u)) return false;
      if (fd->type == kPbd_Type_SInt32) {
        int32_t x = (int32_t)(uint32_t)u;
        u = (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
      } else if (fd->type == kPbd_Type_SFixed32) {
        u = (uint32_t)u;
      }
      break;
    case kPbd_Type_Int64:
    case kPbd_Type_SFixed64:
    case kPbd_Type_SInt64:
      if (!int_value(c, v, &kInt64, tn, &u)) return false;
      if (fd->type == kPbd_Type_SInt64) {
        int64_t x = (int64_t)u;
        u = (u << 1) ^ (uint64_t)(x >> 63);
      }
      break;
    case kPbd_Type_UInt32:
    case kPbd_Type_Fixed32:
      if (!int_value(c, v, &kUInt32, tn, &u)) return false;
      break;
    case kPbd_Type_UInt64:
    case kPbd_Type_Fixed64:
      if (!int_value(c, v, &kUInt64, tn, &u)) return false;
      break;
    case kPbd_Type_Bool:
      if (v->kind != J_True && v->kind != J_False)
        return fail(c, kPbd_Status_Malformed, v->off, "bool value expected (true or false), got %s",
                    kind_name(v->kind));
      u = v->kind == J_True;
      break;
    case kPbd_Type_Double: {
      double d = 0;
      if (!double_value(c, v, "double", &d)) return false;
      u = double_bits(d);
      break;
    }
    case kPbd_Type_Float: {
      double d = 0;
      if (!double_value(c, v, "float", &d)) return false;
      /* Values that round to a finite float are in range: below the
       * midpoint between FLT_MAX and 2^128. */
      if (!isnan(d) && !isinf(d) && fabs(d) >= 0x1.ffffffp+127)
        return fail(c, kPbd_Status_Malformed, v->off, "float value %s is out of range",
                    quote(c, v->s, v->n));
      u = float_bits((float)d);
      break;
    }
    case kPbd_Type_Enum: {
      const pbd_EnumDef *e = fd->enum_type;
      if (v->kind == J_Null && is_null_value_enum(fd)) {
        u = 0;
        break;
      }
      if (v->kind == J_String) {
        const pbd_EnumValueDef *ev = e ? enum_by_name(e, v->s, v->n) : NULL;
        if (!ev)
          return fail(c, kPbd_Status_Malformed, v->off, "unknown value %s of enum %s",
                      quote(c, v->s, v->n), e ? e->full_name : "?");
        u = (uint64_t)(int64_t)ev->number;
        break;
      }
      if (v->kind != J_Number)
        return fail(c, kPbd_Status_Malformed, v->off,
                    "enum value expected (a name or a number), got %s", kind_name(v->kind));
      if (!int_value(c, v, &kInt32, "enum", &u)) return false;
      int32_t num = (int32_t)(uint32_t)u;
      if (e && e->is_closed && !pbd_EnumDef_FindValueByNumber(e, num))
        return fail(c, kPbd_Status_Malformed, v->off, "%d is not a value of closed enum %s", num,
                    e->full_name);
      u = (uint64_t)(int64_t)num;
      break;
    }
    default: return fail(c, kPbd_Status_Malformed, v->off, "field of type %s is not a scalar", tn);
  }
  *raw = u;
  return true;
}

static void put_raw(pbd_Buf *b, int wt, uint64_t raw) {
  if (wt == kPbd_WireType_Fixed32)
    put_fixed(b, raw, 4);
  else if (wt == kPbd_WireType_Fixed64)
    put_fixed(b, raw, 8);
  else
    put_varint(b, raw);
}

static int b64val(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+' || ch == '-') return 62;
  if (ch == '/' || ch == '_') return 63;
  return -1;
}

/* Standard or URL-safe base64 (RFC 4648 sections 4 and 5), with or without
 * padding, written as a LEN field. */
static bool bytes_field(Ctx *c, uint32_t number, const JVal *v) {
  if (v->kind != J_String)
    return fail(c, kPbd_Status_Malformed, v->off, "bytes value expected (a base64 string), got %s",
                kind_name(v->kind));
  size_t n = v->n, pad = 0;
  while (pad < 2 && n > 0 && v->s[n - 1] == '=') {
    n--;
    pad++;
  }
  if ((pad && (n + pad) % 4 != 0) || n % 4 == 1)
    return fail(c, kPbd_Status_Malformed, v->off, "invalid base64 %s (bad length or padding)",
                quote(c, v->s, v->n));
  size_t outn = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
  char *o = pbd_Arena_Malloc(c->arena, outn + 1);
  if (!o) return oom(c);
  size_t k = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int d = b64val((unsigned char)v->s[i]);
    if (d < 0)
      return fail(c, kPbd_Status_Malformed, v->off,
                  "invalid base64 %s (character %s at position %zu)", quote(c, v->s, v->n),
                  quote(c, v->s + i, 1), i);
    acc = acc << 6 | (uint32_t)d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      o[k++] = (char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  put_bytes(c->out, number, o, k);
  return true;
}

/* One value of field fd (tag included): a singular field's value, a
 * repeated field's element, a map entry's key or value. */
static bool field_value(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  switch (fd->type) {
    case kPbd_Type_Message: {
      put_tag(c->out, fd->number, kPbd_WireType_Delimited);
      size_t mark = c->out->len;
      if (!message_value(c, fd->message_type, v)) return false;
      end_len(c->out, mark);
      return true;
    }
    case kPbd_Type_Group:
      put_tag(c->out, fd->number, kPbd_WireType_StartGroup);
      if (!message_value(c, fd->message_type, v)) return false;
      put_tag(c->out, fd->number, kPbd_WireType_EndGroup);
      return true;
    case kPbd_Type_String:
      if (v->kind != J_String)
        return fail(c, kPbd_Status_Malformed, v->off, "string value expected, got %s",
                    kind_name(v->kind));
      put_bytes(c->out, fd->number, v->s, v->n);
      return true;
    case kPbd_Type_Bytes: return bytes_field(c, fd->number, v);
    default: {
      uint64_t raw = 0;
      if (!scalar_raw(c, fd, v, &raw)) return false;
      int wt = pbd_FieldType_WireType(fd->type);
      put_tag(c->out, fd->number, wt);
      put_raw(c->out, wt, raw);
      return true;
    }
  }
}

static bool repeated_field(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  if (v->kind != J_Array)
    return fail(c, kPbd_Status_Malformed, v->off, "repeated field expects an array, got %s",
                kind_name(v->kind));
  if (v->count == 0) return true;
  bool nullable = null_is_value(fd);
  uint32_t i = 0;
  if (fd->is_packable) {
    int wt = pbd_FieldType_WireType(fd->type);
    put_tag(c->out, fd->number, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    for (const JVal *e = v->first; e; e = e->next, i++) {
      uint64_t raw = 0;
      if (e->kind == J_Null && !nullable) {
        fail(c, kPbd_Status_Malformed, e->off, "null is not allowed in a repeated field");
        goto elem_fail;
      }
      if (!scalar_raw(c, fd, e, &raw)) goto elem_fail;
      put_raw(c->out, wt, raw);
    }
    end_len(c->out, mark);
    return true;
  }
  for (const JVal *e = v->first; e; e = e->next, i++) {
    if (e->kind == J_Null && !nullable) {
      fail(c, kPbd_Status_Malformed, e->off, "null is not allowed in a repeated field");
      goto elem_fail;
    }
    if (!field_value(c, fd, e)) goto elem_fail;
  }
  return true;
elem_fail:
  prepend_index(c, i);
  return false;
}

typedef struct {
  uint64_t key;
  const JVal *member;
} IntKey;

static int cmp_int_keys(const void *a, const void *b) {
  const IntKey *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->member->key_off > y->member->key_off) - (x->member->key_off < y->member->key_off);
}

/* Integer keys can spell one number in several ways ("1", "1.0", "1e0"),
 * which the JSON's duplicate check does not see: refuse them here too. */
static bool check_int_keys(Ctx *c, const pbd_FieldDef *kf, IntKey *keys, size_t n) {
  qsort(keys, n, sizeof *keys, cmp_int_keys);
  const IntKey *dup = NULL, *first = NULL;
  for (size_t i = 1; i < n; i++) {
    if (keys[i].key != keys[i - 1].key) continue;
    if (!dup || keys[i].member->key_off < dup->member->key_off) {
      dup = &keys[i];
      size_t j = i;
      while (j > 0 && keys[j - 1].key == keys[i].key) j--;
      first = &keys[j];
    }
  }
  if (!dup) return true;
  fail(c, kPbd_Status_Malformed, dup->member->key_off, "map key %s repeats key %s",
       quote(c, dup->member->key, dup->member->key_n),
       quote(c, first->member->key, first->member->key_n));
  prepend_key(c, kf, dup->member);
  return false;
}

static bool map_field(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  if (v->kind != J_Object)
    return fail(c, kPbd_Status_Malformed, v->off, "map field expects an object, got %s",
                kind_name(v->kind));
  const pbd_MessageDef *entry = fd->message_type;
  const pbd_FieldDef *kf = pbd_MessageDef_FindFieldByNumber(entry, 1);
  const pbd_FieldDef *vf = pbd_MessageDef_FindFieldByNumber(entry, 2);
  if (!kf || !vf)
    return fail(c, kPbd_Status_Malformed, v->off, "map entry %s lacks its key or value field",
                entry->full_name);
  IntKey *keys = NULL;
  size_t nkeys = 0;
  if (kf->type != kPbd_Type_String && kf->type != kPbd_Type_Bool && v->count > 1) {
    keys = pbd_Arena_Malloc(c->arena, v->count * sizeof *keys);
    if (!keys) return oom(c);
  }
  for (const JVal *m = v->first; m; m = m->next) {
    put_tag(c->out, fd->number, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    /* The key, from the member's name. */
    uint64_t raw = 0;
    const IntRange *r = NULL;
    const char *tn = pbd_FieldType_Name(kf->type);
    switch (kf->type) {
      case kPbd_Type_String: put_bytes(c->out, 1, m->key, m->key_n); break;
      case kPbd_Type_Bool:
        if (m->key_n == 4 && memcmp(m->key, "true", 4) == 0) {
          raw = 1;
        } else if (!(m->key_n == 5 && memcmp(m->key, "false", 5) == 0)) {
          fail(c, kPbd_Status_Malformed, m->key_off,
               "map key %s is not a bool (\"true\" or \"false\")", quote(c, m->key, m->key_n));
          goto key_fail;
        }
        put_tag(c->out, 1, kPbd_WireType_Varint);
        put_varint(c->out, raw);
        break;
      case kPbd_Type_Int32:
      case kPbd_Type_SInt32:
      case kPbd_Type_SFixed32: r = &kInt32; break;
      case kPbd_Type_Int64:
      case kPbd_Type_SInt64:
      case kPbd_Type_SFixed64: r = &kInt64; break;
      case kPbd_Type_UInt32:
      case kPbd_Type_Fixed32: r = &kUInt32; break;
      case kPbd_Type_UInt64:
      case kPbd_Type_Fixed64: r = &kUInt64; break;
      default:
        fail(c, kPbd_Status_Malformed, m->key_off, "map key of type %s is not supported", tn);
        goto key_fail;
    }
    if (r) {
      /* Integer keys are decimal strings; read them as the value would be,
       * then encode through scalar_raw's rules by a number literal. */
      if (!int_text(c, m->key, m->key_n, m->key_off, r, tn, &raw)) goto key_fail;
      if (keys) keys[nkeys++] = (IntKey){raw, m};
      JVal num = {.kind = J_Number, .off = m->key_off};
      char lit[24];
      if (r->is_signed)
        snprintf(lit, sizeof lit, "%lld", (long long)(int64_t)raw);
      else
        snprintf(lit, sizeof lit, "%llu", (unsigned long long)raw);
      num.s = lit;
      num.n = strlen(lit);
      if (!field_value(c, kf, &num)) goto key_fail;
    }
    /* The value. */
    if (m->kind == J_Null && !null_is_value(vf)) {
      fail(c, kPbd_Status_Malformed, m->off, "null is not allowed as a map value");
      goto key_fail;
    }
    if (!field_value(c, vf, m)) goto key_fail;
    end_len(c->out, mark);
    continue;
  key_fail:
    prepend_key(c, kf, m);
    return false;
  }
  return !keys || check_int_keys(c, kf, keys, nkeys);
}

/* Everything a field's JSON value can be: null, an array, a map object, a
 * single value. */
static bool field(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  if (v->kind == J_Null && (fd->is_repeated || !null_is_value(fd))) return true; /* not set */
  if (fd->is_map) return map_field(c, fd, v);
  if (fd->is_repeated) return repeated_field(c, fd, v);
  return field_value(c, fd, v);
}

static bool key_is(const JVal *m, const char *name) {
  size_t n = strlen(name);
  return m->key_n == n && memcmp(m->key, name, n) == 0;
}

/* The field an object key names: json_name or proto name, "[full.name]" for
 * an extension. */
static const pbd_FieldDef *find_field(Ctx *c, const pbd_MessageDef *m, const JVal *member) {
  const char *k = member->key;
  size_t n = member->key_n;
  if (n >= 2 && k[0] == '[' && k[n - 1] == ']') {
    if (!c->pool || n - 2 >= 512) return NULL;
    char name[512];
    memcpy(name, k + 1, n - 2);
    name[n - 2] = '\0';
    if (memchr(name, '\0', n - 2)) return NULL;
    const pbd_FieldDef *fd = pbd_DefPool_FindFieldByFullName(c->pool, name);
    if (fd && fd->is_extension && fd->containing == m) return fd;
    return NULL;
  }
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pbd_FieldDef *fd = m->fields[i];
    if (fd->is_extension) continue;
    if (key_is(member, fd->name) || (fd->json_name && key_is(member, fd->json_name))) return fd;
  }
  return NULL;
}

/* The members of an object as fields of m (skipping "@type" for an Any's
 * payload). */
static bool object_fields(Ctx *c, const pbd_MessageDef *m, const JVal *v, bool in_any) {
  if (v->kind != J_Object)
    return fail(c, kPbd_Status_Malformed, v->off, "%s expects an object, got %s", m->full_name,
                kind_name(v->kind));
  if (v->count == 0) return true;
  const JVal **by_field = pbd_Arena_Calloc(c->arena, (m->field_count + 1) * sizeof *by_field);
  const JVal **by_oneof = pbd_Arena_Calloc(c->arena, (m->oneof_count + 1) * sizeof *by_oneof);
  if (!by_field || !by_oneof) return oom(c);
  for (const JVal *mem = v->first; mem; mem = mem->next) {
    if (in_any && key_is(mem, "@type")) continue;
    const pbd_FieldDef *fd = find_field(c, m, mem);
    if (!fd) {
      if (mem->key_n > 0 && mem->key[0] == '[')
        return fail(c, kPbd_Status_UnknownField, mem->key_off, "unknown extension %s of %s",
                    quote(c, mem->key, mem->key_n), m->full_name);
      return fail(c, kPbd_Status_UnknownField, mem->key_off, "unknown field %s in %s",
                  quote(c, mem->key, mem->key_n), m->full_name);
    }
    const JVal *prev = by_field[fd->index];
    if (prev)
      return fail(c, kPbd_Status_Malformed, mem->key_off, "field %s given twice (as %s and as %s)",
                  fd->name, quote(c, prev->key, prev->key_n), quote(c, mem->key, mem->key_n));
    by_field[fd->index] = mem;
    bool unset = mem->kind == J_Null && (fd->is_repeated || !null_is_value(fd));
    if (fd->oneof && !unset) {
      size_t oi = (size_t)(fd->oneof - m->oneofs);
      if (oi < m->oneof_count) {
        const JVal *other = by_oneof[oi];
        if (other)
          return fail(c, kPbd_Status_Malformed, mem->key_off,
                      "oneof %s has more than one member set (%s and %s)", fd->oneof->name,
                      quote(c, other->key, other->key_n), quote(c, mem->key, mem->key_n));
        by_oneof[oi] = mem;
      }
    }
    if (!field(c, fd, mem)) {
      prepend_field(c, fd);
      return false;
    }
  }
  return true;
}

static const JVal *member(const JVal *obj, const char *name) {
  for (const JVal *m = obj->first; m; m = m->next)
    if (key_is(m, name)) return m;
  return NULL;
}

/* {"@type": "type.googleapis.com/pkg.T", ...fields} or, for a well-known
 * payload with a JSON form of its own, {"@type": ..., "value": ...}. */
static bool any_value(Ctx *c, const JVal *v) {
  if (v->kind != J_Object)
    return fail(c, kPbd_Status_Malformed, v->off, "google.protobuf.Any expects an object, got %s",
                kind_name(v->kind));
  if (v->count == 0) return true; /* the empty Any */
  const JVal *t = member(v, "@type");
  if (!t)
    return fail(c, kPbd_Status_Malformed, v->off,
                "google.protobuf.Any needs an \"@type\" member naming its type");
  if (t->kind != J_String)
    return fail(c, kPbd_Status_Malformed, t->off, "\"@type\" expects a string, got %s",
                kind_name(t->kind));
  const char *name = t->s + t->n;
  while (name > t->s && name[-1] != '/') name--;
  size_t nn = t->n - (size_t)(name - t->s);
  if (name == t->s || nn == 0 || nn >= 512 || memchr(name, '\0', nn))
    return fail(c, kPbd_Status_Malformed, t->off,
                "invalid type URL %s (expected \"type.googleapis.com/full.type.Name\")",
                quote(c, t->s, t->n));
  char buf[512];
  memcpy(buf, name, nn);
  buf[nn] = '\0';
  const pbd_MessageDef *type = c->pool ? pbd_DefPool_FindMessageByName(c->pool, buf) : NULL;
  if (!type)
    return fail(c, kPbd_Status_Malformed, t->off, "type %s of the Any is not in the schema",
                quote(c, buf, nn));
  put_bytes(c->out, 1, t->s, t->n);
  put_tag(c->out, 2, kPbd_WireType_Delimited);
  size_t mark = c->out->len;
  bool ok;
  if (wkt_of(type) != W_None) {
    const JVal *val = NULL;
    for (const JVal *m = v->first; m; m = m->next) {
      if (key_is(m, "@type")) continue;
      if (!key_is(m, "value"))
        return fail(c, kPbd_Status_UnknownField, m->key_off,
                    "unknown key %s in an Any holding %s (only \"@type\" and \"value\")",
                    quote(c, m->key, m->key_n), type->full_name);
      val = m;
    }
    if (!val)
      return fail(c, kPbd_Status_Malformed, v->off, "an Any holding %s needs a \"value\" member",
                  type->full_name);
    ok = message_value(c, type, val);
  } else {
    ok = object_fields(c, type, v, true);
  }
  if (!ok) {
    char seg[600];
    snprintf(seg, sizeof seg, "[%.*s]", (int)(t->n < 500 ? t->n : 500), t->s);
    pbd_Status_PrependPath(c->s, seg);
    return false;
  }
  end_len(c->out, mark);
  return true;
}

/* google.protobuf.Struct: {"k": <Value>, ...} as map<string, Value> fields = 1. */
static bool struct_fields(Ctx *c, const JVal *v) {
  for (const JVal *m = v->first; m; m = m->next) {
    put_tag(c->out, 1, kPbd_WireType_Delimited);
    size_t entry = c->out->len;
    put_bytes(c->out, 1, m->key, m->key_n);
    put_tag(c->out, 2, kPbd_WireType_Delimited);
    size_t val = c->out->len;
    if (!value_value(c, m)) {
      static const pbd_FieldDef kKey = {.type = kPbd_Type_String};
      prepend_key(c, &kKey, m);
      pbd_Status_PrependPath(c->s, "fields");
      return false;
    }
    end_len(c->out, val);
    end_len(c->out, entry);
  }
  return true;
}

/* google.protobuf.ListValue: [<Value>, ...] as repeated Value values = 1. */
static bool list_values(Ctx *c, const JVal *v) {
  uint32_t i = 0;
  for (const JVal *e = v->first; e; e = e->next, i++) {
    put_tag(c->out, 1, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    if (!value_value(c, e)) {
      prepend_index(c, i);
      pbd_Status_PrependPath(c->s, "values");
      return false;
    }
    end_len(c->out, mark);
  }
  return true;
}

/* google.protobuf.Value: any JSON value. */
static bool value_value(Ctx *c, const JVal *v) {
  switch (v->kind) {
    case J_Null:
      put_tag(c->out, 1, kPbd_WireType_Varint);
      put_varint(c->out, 0);
      return true;
    case J_Number: {
      double d = 0;
      if (!double_value(c, v, "number", &d)) return false;
      put_tag(c->out, 2, kPbd_WireType_Fixed64);
      put_fixed(c->out, double_bits(d), 8);
      return true;
    }
    case J_String: put_bytes(c->out, 3, v->s, v->n); return true;
    case J_False:
    case J_True:
      put_tag(c->out, 4, kPbd_WireType_Varint);
      put_varint(c->out, v->kind == J_True);
      return true;
    case J_Object:
    case J_Array: {
      bool obj = v->kind == J_Object;
      put_tag(c->out, obj ? 5 : 6, kPbd_WireType_Delimited);
      size_t mark = c->out->len;
      if (!(obj ? struct_fields(c, v) : list_values(c, v))) {
        pbd_Status_PrependPath(c->s, obj ? "struct_value" : "list_value");
        return false;
      }
      end_len(c->out, mark);
      return true;
    }
  }
  return false;
}

/* The fields of a message of type m (no tag, no length) from its JSON form. */
static bool message_value(Ctx *c, const pbd_MessageDef *m, const JVal *v) {
  switch (wkt_of(m)) {
    case W_Any: return any_value(c, v);
    case W_Timestamp: return timestamp_value(c, v);
    case W_Duration: return duration_value(c, v);
    case W_FieldMask: return field_mask_value(c, v);
    case W_Value: return value_value(c, v);
    case W_Struct:
      if (v->kind != J_Object)
        return fail(c, kPbd_Status_Malformed, v->off,
                    "google.protobuf.Struct expects an object, got %s", kind_name(v->kind));
      return struct_fields(c, v);
    case W_ListValue:
      if (v->kind != J_Array)
        return fail(c, kPbd_Status_Malformed, v->off,
                    "google.protobuf.ListValue expects an array, got %s", kind_name(v->kind));
      return list_values(c, v);
    case W_Wrapper: {
      const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(m, 1);
      if (v->kind == J_Null)
        return fail(c, kPbd_Status_Malformed, v->off, "%s expects a value of type %s, got null",
                    m->full_name, pbd_FieldType_Name(fd->type));
      return field_value(c, fd, v);
    }
    case W_None: break;
  }
  return object_fields(c, m, v, false);
}

bool pbd_JsonPb_ToBinary(const pbd_DefPool *pool, const pbd_MessageDef *type, const char *json,
                         size_t n, pbd_Buf *out, pbd_Status *s) {
  pbd_Status local;
  if (!s) s = &local;
  pbd_Status_Clear(s);
  if (!type) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "no message type given for the JSON input");
    return false;
  }
  if (!json) json = "";
  Ctx c;
  memset(&c, 0, sizeof c);
  c.base = c.p = json;
  c.n = n;
  c.end = json + n;
  c.s = s;
  c.pool = pool;
  c.out = out;
  c.arena = pbd_Arena_New();
  if (!c.arena) return oom(&c);
  size_t start = out->len;
  pbd_Buf_Append(out, "", 0); /* out->data is set even for an empty encoding */
  const JVal *root = parse_document(&c);
  bool ok = root && message_value(&c, type, root);
  if (ok && out->oom) ok = oom(&c);
  if (!ok) pbd_Buf_Truncate(out, start);
  pbd_Arena_Free(c.arena);
  return ok;
}
