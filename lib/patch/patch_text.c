/* pbdiff — values written in text-format syntax (as lib/format writes them)
 * read back into wire bytes, for the values of a patch.  It reads what
 * pbd_Format_TextValue writes for schema fields: numbers, floats with
 * nan/inf, true/false, enum names or numbers, quoted and escaped strings and
 * bytes, messages `{ name: v name { ... } [ext.name]: v }`, map entries as
 * messages, and an Any's payload as `[type.googleapis.com/T] { ... }`.  An
 * optional `:` before `{`, `<`...`>` braces and `,`/`;` separators are also
 * accepted, as in protobuf's text format.  Unknown fields (by number) have
 * no type to read them as and are refused. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch/patch_internal.h"
#include "pbdiff/wire/wire.h"
#include "pbdiff/write/write.h"

typedef struct {
  const char *p, *end, *start;
  const pbd_DefPool *pool;
  char *why;
  size_t whyn;
  bool failed;
  int depth;
} Reader;

static bool fail(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Reader *r, const char *fmt, ...) {
  if (r->failed) return false;
  r->failed = true;
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(r->why, r->whyn, "%s (at column %zu of the value)", msg, (size_t)(r->p - r->start) + 1);
  return false;
}

static void skip_space(Reader *r) {
  while (r->p < r->end) {
    if (isspace((unsigned char)*r->p) || *r->p == ',' || *r->p == ';') {
      r->p++;
    } else if (*r->p == '#') { /* a comment to the end of the line */
      while (r->p < r->end && *r->p != '\n') r->p++;
    } else {
      break;
    }
  }
}

static bool eat(Reader *r, char c) {
  skip_space(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return true;
  }
  return false;
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* An identifier, a number or a word (`nan`, `-inf`, `1e-5`, `0x1f`). */
static size_t word(Reader *r, const char **w) {
  skip_space(r);
  *w = r->p;
  const char *q = r->p;
  if (q < r->end && (*q == '-' || *q == '+')) q++;
  while (q < r->end && (is_ident_char(*q) || *q == '.' ||
                        ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E'))))
    q++;
  r->p = q;
  return (size_t)(q - *w);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A quoted string (one or more adjacent literals), escapes undone, into out. */
static bool quoted(Reader *r, pbd_Buf *out) {
  skip_space(r);
  if (r->p >= r->end || (*r->p != '"' && *r->p != '\'')) return fail(r, "a quoted string expected");
  while (r->p < r->end && (*r->p == '"' || *r->p == '\'')) {
    char q = *r->p++;
    while (r->p < r->end && *r->p != q) {
      char c = *r->p++;
      if (c == '\n') return fail(r, "a line break in a string");
      if (c != '\\') {
        pbd_Buf_AppendChar(out, c);
        continue;
      }
      if (r->p >= r->end) break;
      char e = *r->p++;
      switch (e) {
        case 'n': pbd_Buf_AppendChar(out, '\n'); break;
        case 'r': pbd_Buf_AppendChar(out, '\r'); break;
        case 't': pbd_Buf_AppendChar(out, '\t'); break;
        case 'a': pbd_Buf_AppendChar(out, '\a'); break;
        case 'b': pbd_Buf_AppendChar(out, '\b'); break;
        case 'f': pbd_Buf_AppendChar(out, '\f'); break;
        case 'v': pbd_Buf_AppendChar(out, '\v'); break;
        case '"': case '\'': case '\\': case '?': pbd_Buf_AppendChar(out, e); break;
        case 'u': { /* JSON's escapes, as paths quote map keys */
          uint32_t cp = 0;
          for (int i = 0; i < 4; i++) {
            if (r->p >= r->end || hexval(*r->p) < 0) return fail(r, "\\u needs four hex digits");
            cp = cp * 16 + (uint32_t)hexval(*r->p++);
          }
          if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
            uint32_t lo = 0;
            for (int i = 2; i < 6; i++) lo = hexval(r->p[i]) < 0 ? 0 : lo * 16 + (uint32_t)hexval(r->p[i]);
            if (lo >= 0xdc00 && lo < 0xe000) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              r->p += 6;
            }
          }
          char u[4];
          size_t k = 0;
          if (cp < 0x80) u[k++] = (char)cp;
          else if (cp < 0x800) u[k++] = (char)(0xc0 | cp >> 6), u[k++] = (char)(0x80 | (cp & 0x3f));
          else if (cp < 0x10000)
            u[k++] = (char)(0xe0 | cp >> 12), u[k++] = (char)(0x80 | ((cp >> 6) & 0x3f)),
            u[k++] = (char)(0x80 | (cp & 0x3f));
          else
            u[k++] = (char)(0xf0 | cp >> 18), u[k++] = (char)(0x80 | ((cp >> 12) & 0x3f)),
            u[k++] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[k++] = (char)(0x80 | (cp & 0x3f));
          pbd_Buf_Append(out, u, k);
          break;
        }
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && r->p < r->end && hexval(*r->p) >= 0) v = v * 16 + hexval(*r->p++), n++;
          if (!n) return fail(r, "\\x without hex digits");
          pbd_Buf_AppendChar(out, (char)v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', n = 1;
            while (n < 3 && r->p < r->end && *r->p >= '0' && *r->p <= '7') v = v * 8 + (*r->p++ - '0'), n++;
            if (v > 255) return fail(r, "octal escape over \\377");
            pbd_Buf_AppendChar(out, (char)v);
          } else {
            return fail(r, "unknown escape \\%c", e);
          }
      }
    }
    if (r->p >= r->end) return fail(r, "unterminated string");
    r->p++;
    skip_space(r);
  }
  return true;
}

static bool word_is(const char *w, size_t n, const char *s) { return n == strlen(s) && !strncmp(w, s, n); }

static bool parse_double(Reader *r, const char *w, size_t n, double *out) {
  const char *s = w;
  bool neg = false;
  if (n && (*s == '-' || *s == '+')) neg = *s == '-', s++, n--;
  if (word_is(s, n, "nan")) *out = NAN;
  else if (word_is(s, n, "inf") || word_is(s, n, "infinity")) *out = INFINITY;
  else {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return fail(r, "a number expected");
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[n - 1] == 'f' || buf[n - 1] == 'F') buf[n - 1] = '\0';
    char *e;
    errno = 0;
    *out = strtod(buf, &e);
    if (*e || buf[0] == '\0') return fail(r, "'%.*s' is not a number", (int)n, s);
  }
  if (neg) *out = -*out;
  return true;
}

static bool parse_float_bits(Reader *r, const char *w, size_t n, uint32_t *out) {
  /* strtof, not (float)strtod: a shortest float text rounds once */
  char buf[64];
  const char *s = w;
  size_t k = n;
  bool neg = false;
  if (k && (*s == '-' || *s == '+')) neg = *s == '-', s++, k--;
  float f;
  if (word_is(s, k, "nan")) f = NAN;
  else if (word_is(s, k, "inf") || word_is(s, k, "infinity")) f = INFINITY;
  else {
    if (k == 0 || k >= sizeof buf) return fail(r, "a number expected");
    memcpy(buf, s, k);
    buf[k] = '\0';
    if (buf[k - 1] == 'f' || buf[k - 1] == 'F') buf[k - 1] = '\0';
    char *e;
    f = strtof(buf, &e);
    if (*e || buf[0] == '\0') return fail(r, "'%.*s' is not a number", (int)n, w);
  }
  if (neg) f = -f;
  memcpy(out, &f, 4);
  return true;
}

static bool parse_int(Reader *r, const char *w, size_t n, bool is_signed, int64_t lo, uint64_t hi,
                      uint64_t *out) {
  char buf[40];
  if (n == 0 || n >= sizeof buf) return fail(r, "an integer expected");
  memcpy(buf, w, n);
  buf[n] = '\0';
  char *e;
  errno = 0;
  if (buf[0] == '-') {
    long long v = strtoll(buf, &e, 0);
    if (*e || errno || !is_signed || v < lo) return fail(r, "'%s' is out of range or not an integer", buf);
    *out = (uint64_t)v;
  } else {
    unsigned long long v = strtoull(buf, &e, 0);
    if (*e || errno || v > hi) return fail(r, "'%s' is out of range or not an integer", buf);
    *out = v;
  }
  return true;
}

static bool encode_message_body(Reader *r, const pbd_MessageDef *t, char close, pbd_Buf *out);

/* A scalar, string or message value of fd, written with its tag. */
static bool encode_value(Reader *r, const pbd_FieldDef *fd, pbd_Buf *out) {
  uint32_t num = fd->number;
  if (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group) {
    eat(r, ':');
    char close = eat(r, '{') ? '}' : eat(r, '<') ? '>' : 0;
    if (!close) return fail(r, "'{' expected for the message field %s", fd->name);
    if (++r->depth > kPbd_MaxDepthLimit) return fail(r, "nested too deep");
    pbd_Buf body = {0};
    bool ok = encode_message_body(r, fd->message_type, close, &body);
    r->depth--;
    if (fd->type == kPbd_Type_Group) {
      pbd_Write_Varint(out, (uint64_t)num << 3 | kPbd_WireType_StartGroup);
      pbd_Buf_Append(out, body.data, body.len);
      pbd_Write_Varint(out, (uint64_t)num << 3 | kPbd_WireType_EndGroup);
    } else {
      pbd_Write_Varint(out, (uint64_t)num << 3 | kPbd_WireType_Delimited);
      pbd_Write_Varint(out, body.len);
      pbd_Buf_Append(out, body.data, body.len);
    }
    if (body.oom) out->oom = true;
    pbd_Buf_Free(&body);
    return ok;
  }
  if (!eat(r, ':')) return fail(r, "':' expected after %s", fd->name);
  if (fd->type == kPbd_Type_String || fd->type == kPbd_Type_Bytes) {
    pbd_Buf s = {0};
    bool ok = quoted(r, &s);
    pbd_Write_Varint(out, (uint64_t)num << 3 | kPbd_WireType_Delimited);
    pbd_Write_Varint(out, s.len);
    pbd_Buf_Append(out, s.data, s.len);
    if (s.oom) out->oom = true;
    pbd_Buf_Free(&s);
    return ok;
  }
  const char *w;
  size_t n = word(r, &w);
  uint64_t v = 0;
  bool ok = true;
  switch (fd->type) {
    case kPbd_Type_Double: {
      double d = 0;
      ok = parse_double(r, w, n, &d);
      memcpy(&v, &d, 8);
      break;
    }
    case kPbd_Type_Float: {
      uint32_t b = 0;
      ok = parse_float_bits(r, w, n, &b);
      v = b;
      break;
    }
    case kPbd_Type_Bool:
      if (word_is(w, n, "true") || word_is(w, n, "True") || word_is(w, n, "t") || word_is(w, n, "1")) v = 1;
      else if (word_is(w, n, "false") || word_is(w, n, "False") || word_is(w, n, "f") || word_is(w, n, "0")) v = 0;
      else ok = fail(r, "true or false expected for %s", fd->name);
      break;
    case kPbd_Type_Enum: {
      const pbd_EnumDef *e = fd->enum_type;
      bool found = false;
      for (uint32_t i = 0; e && i < e->value_count && !found; i++) {
        if (word_is(w, n, e->values[i].name)) {
          v = (uint64_t)(int64_t)e->values[i].number;
          found = true;
        }
      }
      if (!found) ok = parse_int(r, w, n, true, INT32_MIN, INT32_MAX, &v);
      break;
    }
    case kPbd_Type_Int32: case kPbd_Type_SInt32: case kPbd_Type_SFixed32:
      ok = parse_int(r, w, n, true, INT32_MIN, INT32_MAX, &v);
      break;
    case kPbd_Type_Int64: case kPbd_Type_SInt64: case kPbd_Type_SFixed64:
      ok = parse_int(r, w, n, true, INT64_MIN, INT64_MAX, &v);
      break;
    case kPbd_Type_UInt32: case kPbd_Type_Fixed32:
      ok = parse_int(r, w, n, false, 0, UINT32_MAX, &v);
      break;
    default:
      ok = parse_int(r, w, n, false, 0, UINT64_MAX, &v);
      break;
  }
  if (!ok) return false;
  /* one tag and the value as the writer writes a scalar of this type */
  pbd_Value val = {.kind = kPbd_Value_UInt, .field = fd, .u = v};
  pbd_WriteOptions wo = {.float_bits = true}; /* the bits as written */
  return pbd_Write_FieldValue(out, num, &val, &wo) || fail(r, "out of memory");
}

/* `[full.name]` (an extension) or `[host/pkg.T]` (an Any's payload) after
 * its '['; the name in *name. */
static bool bracket_name(Reader *r, const char **name, size_t *n) {
  skip_space(r);
  *name = r->p;
  while (r->p < r->end && *r->p != ']') r->p++;
  if (r->p >= r->end) return fail(r, "']' expected");
  *n = (size_t)(r->p - *name);
  r->p++;
  return true;
}

static bool encode_any_payload(Reader *r, const char *url, size_t n, pbd_Buf *out) {
  const char *slash = url + n;
  while (slash > url && slash[-1] != '/') slash--;
  char tname[512];
  size_t tn = (size_t)(url + n - slash);
  if (tn >= sizeof tname) return fail(r, "type URL too long");
  memcpy(tname, slash, tn);
  tname[tn] = '\0';
  const pbd_MessageDef *t = r->pool ? pbd_DefPool_FindMessageByName(r->pool, tname) : NULL;
  if (!t) return fail(r, "the Any's type %s is not in the schema", tname);
  eat(r, ':');
  char close = eat(r, '{') ? '}' : eat(r, '<') ? '>' : 0;
  if (!close) return fail(r, "'{' expected after [%.*s]", (int)n, url);
  pbd_Buf body = {0};
  bool ok = encode_message_body(r, t, close, &body);
  pbd_Write_Varint(out, 1 << 3 | kPbd_WireType_Delimited);
  pbd_Write_Varint(out, n);
  pbd_Buf_Append(out, url, n);
  pbd_Write_Varint(out, 2 << 3 | kPbd_WireType_Delimited);
  pbd_Write_Varint(out, body.len);
  pbd_Buf_Append(out, body.data, body.len);
  if (body.oom) out->oom = true;
  pbd_Buf_Free(&body);
  return ok;
}

/* Fields up to `close` (0: the end of the text). */
static bool encode_message_body(Reader *r, const pbd_MessageDef *t, char close, pbd_Buf *out) {
  for (;;) {
    skip_space(r);
    if (r->failed) return false;
    if (r->p >= r->end) return close ? fail(r, "'%c' expected", close) : true;
    if (close && *r->p == close) {
      r->p++;
      return true;
    }
    const pbd_FieldDef *fd = NULL;
    if (*r->p == '[') {
      r->p++;
      const char *name = r->p;
      size_t n = 0;
      if (!bracket_name(r, &name, &n)) return false;
      if (memchr(name, '/', n)) {
        if (!encode_any_payload(r, name, n, out)) return false;
        continue;
      }
      char full[512];
      if (n >= sizeof full) return fail(r, "extension name too long");
      memcpy(full, name, n);
      full[n] = '\0';
      fd = r->pool ? pbd_DefPool_FindFieldByFullName(r->pool, full) : NULL;
      if (!fd || !fd->is_extension || fd->containing != t)
        return fail(r, "%s is not an extension of %s", full, t ? t->full_name : "the message");
    } else {
      const char *w = r->p;
      while (r->p < r->end && is_ident_char(*r->p)) r->p++;
      size_t n = (size_t)(r->p - w);
      if (n == 0) return fail(r, "a field name expected");
      if (isdigit((unsigned char)w[0])) return fail(r, "unknown field %.*s: a patch names fields by the schema", (int)n, w);
      char name[256];
      if (n >= sizeof name) return fail(r, "field name too long");
      memcpy(name, w, n);
      name[n] = '\0';
      fd = t ? pbd_MessageDef_FindFieldByName(t, name) : NULL;
      if (!fd || fd->is_extension) return fail(r, "%s has no field %s", t ? t->full_name : "the message", name);
    }
    if (!encode_value(r, fd, out)) return false;
  }
}

bool pbd_PatchText_EncodeField(const char *text, size_t n, const pbd_FieldDef *fd,
                               const pbd_DefPool *pool, pbd_Buf *out, char *why, size_t whyn) {
  Reader r = {text, text + n, text, pool, why, whyn, false, 0};
  /* "name: value" is what the writer of a field writes; here only the value */
  pbd_Buf field = {0};
  bool ok;
  if (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group) {
    ok = encode_value(&r, fd, out);
  } else {
    /* encode_value reads the ':' first: a scalar value stands alone here */
    pbd_Buf_AppendStr(&field, ": ");
    pbd_Buf_Append(&field, text, n);
    Reader r2 = {field.data, field.data + field.len, field.data, pool, why, whyn, false, 0};
    ok = encode_value(&r2, fd, out);
    r.p = r.end - (r2.end - r2.p);
    r.failed = r2.failed;
  }
  pbd_Buf_Free(&field);
  if (!ok) return false;
  skip_space(&r);
  if (r.p != r.end) return fail(&r, "text after the value");
  if (out->oom) return fail(&r, "out of memory");
  return true;
}

bool pbd_PatchText_EncodeMessage(const char *text, size_t n, const pbd_MessageDef *t,
                                 const pbd_DefPool *pool, pbd_Buf *out, char *why, size_t whyn) {
  Reader r = {text, text + n, text, pool, why, whyn, false, 0};
  if (!eat(&r, '{')) return fail(&r, "'{' expected");
  if (!encode_message_body(&r, t, '}', out)) return false;
  skip_space(&r);
  if (r.p != r.end) return fail(&r, "text after the value");
  return !out->oom || fail(&r, "out of memory");
}
