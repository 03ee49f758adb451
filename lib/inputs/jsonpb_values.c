/* pbdiff — wire values from JSON values (jsonpb_internal.h): varints,
 * fixed and length-prefixed fields, numbers as the JSON mapping writes them,
 * and the well-known types' JSON forms. */
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

/* ------------------------------------------------------------------ */
/* Wire output */

void jp_put_varint(pbd_Buf *b, uint64_t v) {
  char tmp[10];
  size_t k = 0;
  do {
    tmp[k++] = (char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
    v >>= 7;
  } while (v);
  pbd_Buf_Append(b, tmp, k);
}

void jp_put_tag(pbd_Buf *b, uint32_t number, int wt) {
  jp_put_varint(b, (uint64_t)number << 3 | (uint64_t)wt);
}

void jp_put_fixed(pbd_Buf *b, uint64_t v, int width) {
  char tmp[8];
  for (int i = 0; i < width; i++) tmp[i] = (char)(v >> (8 * i));
  pbd_Buf_Append(b, tmp, (size_t)width);
}

void jp_put_bytes(pbd_Buf *b, uint32_t number, const char *s, size_t n) {
  jp_put_tag(b, number, kPbd_WireType_Delimited);
  jp_put_varint(b, n);
  pbd_Buf_Append(b, s, n);
}

/* Inserts the length of b[mark..] as a varint at mark. */
void jp_end_len(pbd_Buf *b, size_t mark) {
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


const IntRange kInt32 = {true, INT32_MAX};
const IntRange kInt64 = {true, INT64_MAX};
const IntRange kUInt32 = {false, UINT32_MAX};
const IntRange kUInt64 = {false, UINT64_MAX};

/* The integer written as the JSON number s[0..n) (in full: a fraction or an
 * exponent is fine when the value is integral): its sign and magnitude. */
static NumResult int_of(const char *s, size_t n, bool *neg, uint64_t *mag) {
  if (n == 0 || jp_number_len(s, n) != n) return N_NotNumber;
  size_t i = 0;
  *neg = s[0] == '-';
  if (*neg) i++;
  size_t ia = i;
  while (i < n && jp_is_digit(s[i])) i++;
  size_t ib = i, fa = i, fb = i;
  if (i < n && s[i] == '.') {
    fa = ++i;
    while (i < n && jp_is_digit(s[i])) i++;
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

/* An integer from text s[0..n) (a JSON number, or the contents of a string
 * or a map key) at offset off, in range r: the value as a two's-complement
 * uint64 in *out. */
bool jp_int_text(Ctx *c, const char *s, size_t n, size_t off, const IntRange *r,
                     const char *type_name, uint64_t *out) {
  bool neg = false;
  uint64_t mag = 0;
  switch (int_of(s, n, &neg, &mag)) {
    case N_NotNumber:
      return jp_fail(c, kPbd_Status_Malformed, off, "invalid %s value %s", type_name, jp_quote(c, s, n));
    case N_NotInteger:
      return jp_fail(c, kPbd_Status_Malformed, off, "%s value %s is not an integer", type_name,
                  jp_quote(c, s, n));
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
  return jp_fail(c, kPbd_Status_Malformed, off, "%s value %s is out of range", type_name,
              jp_quote(c, s, n));
}

/* An integer value: a JSON number or a string holding one. */
bool jp_int_value(Ctx *c, const JVal *v, const IntRange *r, const char *type_name,
                      uint64_t *out) {
  if (v->kind != J_Number && v->kind != J_String)
    return jp_fail(c, kPbd_Status_Malformed, v->off,
                "%s value expected (a number or a string), got %s", type_name, jp_kind_name(v->kind));
  return jp_int_text(c, v->s, v->n, v->off, r, type_name, out);
}

/* A double: a JSON number, a string holding one, or "NaN", "Infinity",
 * "-Infinity". */
bool jp_double_value(Ctx *c, const JVal *v, const char *type_name, double *out) {
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
    return jp_fail(c, kPbd_Status_Malformed, v->off,
                "%s value expected (a number or a string), got %s", type_name, jp_kind_name(v->kind));
  }
  if (v->n == 0 || jp_number_len(v->s, v->n) != v->n)
    return jp_fail(c, kPbd_Status_Malformed, v->off, "invalid %s value %s", type_name,
                jp_quote(c, v->s, v->n));
  char small[64];
  char *t = v->n < sizeof small ? small : malloc(v->n + 1);
  if (!t) return jp_oom(c);
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
    return jp_fail(c, kPbd_Status_Malformed, v->off, "%s value %s is out of range", type_name,
                jp_quote(c, v->s, v->n));
  *out = d;
  return true;
}

uint64_t jp_double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

uint64_t jp_float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* ------------------------------------------------------------------ */
/* Well-known types */


Wkt jp_wkt_of(const pbd_MessageDef *m) {
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

bool jp_is_null_value_enum(const pbd_FieldDef *fd) {
  return fd->type == kPbd_Type_Enum && fd->enum_type &&
         strcmp(fd->enum_type->full_name, "google.protobuf.NullValue") == 0;
}

/* Whether JSON null is a value of this field (rather than "not set"). */
bool jp_null_is_value(const pbd_FieldDef *fd) {
  if (jp_is_null_value_enum(fd)) return true;
  return (fd->type == kPbd_Type_Message) && jp_wkt_of(fd->message_type) == W_Value;
}

static bool expect_string(Ctx *c, const JVal *v, const char *what) {
  if (v->kind == J_String) return true;
  return jp_fail(c, kPbd_Status_Malformed, v->off, "%s expects a string, got %s", what,
              jp_kind_name(v->kind));
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
    if (!jp_is_digit(s[i])) return -1;
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
    jp_put_tag(c->out, 1, kPbd_WireType_Varint);
    jp_put_varint(c->out, (uint64_t)secs);
  }
  if (nanos) {
    jp_put_tag(c->out, 2, kPbd_WireType_Varint);
    jp_put_varint(c->out, (uint64_t)(int64_t)nanos);
  }
}

/* RFC 3339: 1972-01-01T10:00:20.021Z or ...+01:00; 0 to 9 fraction digits. */
bool jp_timestamp_value(Ctx *c, const JVal *v) {
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
    while (i < n && jp_is_digit(s[i])) i++;
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
      return jp_fail(c, kPbd_Status_Malformed, v->off,
                  "timestamp %s is out of range (0001-01-01T00:00:00Z to "
                  "9999-12-31T23:59:59.999999999Z)",
                  jp_quote(c, s, n));
    put_seconds_nanos(c, secs, nanos);
    return true;
  }
bad:
  return jp_fail(c, kPbd_Status_Malformed, v->off,
              "invalid timestamp %s (RFC 3339 expected, as \"1972-01-01T10:00:20.021Z\")",
              jp_quote(c, s, n));
}

/* "1.5s", "-0.000000001s": seconds with 0 to 9 fraction digits. */
bool jp_duration_value(Ctx *c, const JVal *v) {
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
  while (i < n && jp_is_digit(s[i])) {
    if (secs <= kDurationMax) secs = secs * 10 + (s[i] - '0');
    i++;
  }
  if (i == ia) goto bad;
  if (i < n && s[i] == '.') {
    size_t fa = ++i;
    while (i < n && jp_is_digit(s[i])) i++;
    if (i == fa || i - fa > 9) goto bad;
    nanos = nanos_of(s + fa, i - fa);
  }
  if (i + 1 != n || s[i] != 's') goto bad;
  if (secs > kDurationMax)
    return jp_fail(c, kPbd_Status_Malformed, v->off,
                "duration %s is out of range (at most 315576000000s either way)", jp_quote(c, s, n));
  if (neg) {
    secs = -secs;
    nanos = -nanos;
  }
  put_seconds_nanos(c, secs, nanos);
  return true;
bad:
  return jp_fail(c, kPbd_Status_Malformed, v->off,
              "invalid duration %s (seconds with the suffix s expected, as \"1.5s\")",
              jp_quote(c, s, n));
}

/* "a.fooBar,c": paths joined by ',', lowerCamelCase turned to snake_case. */
bool jp_field_mask_value(Ctx *c, const JVal *v) {
  if (!expect_string(c, v, "google.protobuf.FieldMask")) return false;
  if (v->n == 0) return true;
  char *t = pbd_Arena_Malloc(c->arena, v->n * 2);
  if (!t) return jp_oom(c);
  size_t a = 0;
  while (a <= v->n) {
    size_t b = a;
    while (b < v->n && v->s[b] != ',') b++;
    if (b == a)
      return jp_fail(c, kPbd_Status_Malformed, v->off, "empty path in field mask %s",
                  jp_quote(c, v->s, v->n));
    size_t k = 0;
    for (size_t i = a; i < b; i++) {
      char ch = v->s[i];
      if (ch >= 'A' && ch <= 'Z') {
        t[k++] = '_';
        t[k++] = (char)(ch - 'A' + 'a');
      } else if (ch == '_') {
        return jp_fail(c, kPbd_Status_Malformed, v->off,
                    "field mask path %s contains '_' (JSON paths are lowerCamelCase)",
                    jp_quote(c, v->s + a, b - a));
      } else {
        t[k++] = ch;
      }
    }
    jp_put_bytes(c->out, 1, t, k);
    a = b + 1;
  }
  return true;
}
