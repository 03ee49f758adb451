/* pbdiff — text format and JSON writers for tree values (see format.h).
 *
 * Recursion follows the tree, whose depth the reader already bounded
 * (pbd_ReadOptions.max_depth), so no separate limit is kept here. */
#include "pbdiff/format/format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- UTF-8 ---------------------------------------------------------------- */

/* ---- numbers -------------------------------------------------------------- */

static float bits_to_float(uint64_t u) {
  uint32_t b = (uint32_t)u;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static double bits_to_double(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Shortest %g form that reads back as the same float (f finite). */
static void shortest_float(char *buf, size_t size, float f) {
  uint32_t want;
  memcpy(&want, &f, sizeof want);
  for (int prec = 6; prec <= 9; prec++) {
    snprintf(buf, size, "%.*g", prec, (double)f);
    float back = strtof(buf, NULL);
    uint32_t got;
    memcpy(&got, &back, sizeof got);
    if (got == want) return;
  }
}

/* Shortest %g form that reads back as the same double (d finite). */
static void shortest_double(char *buf, size_t size, double d) {
  uint64_t want;
  memcpy(&want, &d, sizeof want);
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, d);
    double back = strtod(buf, NULL);
    uint64_t got;
    memcpy(&got, &back, sizeof got);
    if (got == want) return;
  }
}

/* Writes a float or double value.  Non-finite values as text format
 * ("nan", "inf", "-inf") or as JSON ("\"NaN\"", ...). */
static void write_floating(pbd_Buf *out, const pbd_Value *v, bool json) {
  double d = v->kind == kPbd_Value_Float ? (double)bits_to_float(v->u) : bits_to_double(v->u);
  if (isnan(d)) {
    pbd_Buf_AppendStr(out, json ? "\"NaN\"" : "nan");
  } else if (isinf(d)) {
    if (d > 0) pbd_Buf_AppendStr(out, json ? "\"Infinity\"" : "inf");
    else pbd_Buf_AppendStr(out, json ? "\"-Infinity\"" : "-inf");
  } else {
    char buf[64];
    if (v->kind == kPbd_Value_Float) shortest_float(buf, sizeof buf, bits_to_float(v->u));
    else shortest_double(buf, sizeof buf, d);
    pbd_Buf_AppendStr(out, buf);
  }
}

static const char *enum_name(const pbd_Value *v) {
  if (!v->field || !v->field->enum_type) return NULL;
  const pbd_EnumValueDef *ev = pbd_EnumDef_FindValueByNumber(v->field->enum_type, (int32_t)v->i);
  return ev ? ev->name : NULL;
}

/* ---- well-known types ----------------------------------------------------- */

static bool is_message_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Message || k == kPbd_Value_LenMessage || k == kPbd_Value_Group;
}

/* The schema type of a message value: its own, or for an absent value
 * (m == NULL) the type of its field. */
static const pbd_MessageDef *value_type(const pbd_Value *v) {
  if (v->kind != kPbd_Value_Message) return NULL;
  if (v->m) return v->m->def;
  return v->field ? v->field->message_type : NULL;
}

/* The well-known type name without its "google.protobuf." prefix, or NULL. */
static const char *wkt_name(const pbd_Value *v) {
  static const char prefix[] = "google.protobuf.";
  const pbd_MessageDef *d = value_type(v);
  if (!d || !d->full_name || strncmp(d->full_name, prefix, sizeof prefix - 1) != 0) return NULL;
  return d->full_name + sizeof prefix - 1;
}

/* Reads the int64 field 1 and int32 field 2 of a Timestamp or Duration;
 * false when the message holds anything else. */
static bool seconds_nanos(const pbd_Message *m, int64_t *secs, int64_t *nanos) {
  *secs = 0;
  *nanos = 0;
  if (!m) return true;
  if (pbd_Message_AnyPayload(m)) return false;
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++) {
    const pbd_Field *f = &pbd_Message_Fields(m)[i];
    if (f->count == 0) continue;
    if (!f->def || f->kind != kPbd_Value_Int || (f->number != 1 && f->number != 2)) return false;
    pbd_Value v = pbd_Field_Value(f, f->count - 1);
    if (f->number == 1) *secs = v.i;
    else *nanos = (int32_t)v.i;
  }
  return true;
}

/* ".500", ".000120", ".000000001": 3, 6 or 9 digits, none for 0. */
static void write_nanos(pbd_Buf *out, uint32_t n) {
  if (n == 0) return;
  if (n % 1000000 == 0) pbd_Buf_Printf(out, ".%03" PRIu32, n / 1000000);
  else if (n % 1000 == 0) pbd_Buf_Printf(out, ".%06" PRIu32, n / 1000);
  else pbd_Buf_Printf(out, ".%09" PRIu32, n);
}

/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
 * civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = (unsigned)(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

#define kTimestampMinSeconds (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define kTimestampMaxSeconds 253402300799LL /* 9999-12-31T23:59:59Z */
#define kDurationMaxSeconds 315576000000LL  /* 10 000 years */

static bool write_timestamp(pbd_Buf *out, const pbd_Message *m) {
  int64_t secs, nanos;
  if (!seconds_nanos(m, &secs, &nanos)) return false;
  if (secs < kTimestampMinSeconds || secs > kTimestampMaxSeconds || nanos < 0 || nanos > 999999999)
    return false;
  int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days--;
  }
  int64_t y;
  unsigned mo, d;
  civil_from_days(days, &y, &mo, &d);
  pbd_Buf_Printf(out, "%04d-%02u-%02uT%02d:%02d:%02d", (int)y, mo, d, (int)(rem / 3600),
                 (int)(rem / 60 % 60), (int)(rem % 60));
  write_nanos(out, (uint32_t)nanos);
  pbd_Buf_AppendChar(out, 'Z');
  return true;
}

/* Duration: `json` writes 0, 3, 6 or 9 fractional digits as the JSON mapping
 * generates them ("1.500s"); otherwise the fewest digits ("1.5s"). */
static bool write_duration(pbd_Buf *out, const pbd_Message *m, bool json) {
  int64_t secs, nanos;
  if (!seconds_nanos(m, &secs, &nanos)) return false;
  if (secs < -kDurationMaxSeconds || secs > kDurationMaxSeconds || nanos < -999999999 ||
      nanos > 999999999 || (secs > 0 && nanos < 0) || (secs < 0 && nanos > 0))
    return false;
  bool neg = secs < 0 || nanos < 0;
  pbd_Buf_Printf(out, "%s%" PRId64, neg ? "-" : "", neg ? -secs : secs);
  uint32_t frac = (uint32_t)(neg ? -nanos : nanos);
  if (json) {
    write_nanos(out, frac);
  } else if (frac) {
    char digits[16];
    int n = snprintf(digits, sizeof digits, "%09" PRIu32, frac);
    while (n > 0 && digits[n - 1] == '0') n--;
    pbd_Buf_AppendChar(out, '.');
    pbd_Buf_Append(out, digits, (size_t)n);
  }
  pbd_Buf_AppendChar(out, 's');
  return true;
}

static bool well_known(pbd_Buf *out, const pbd_Value *v, bool json) {
  const char *n = wkt_name(v);
  if (!n) return false;
  if (strcmp(n, "Timestamp") == 0) return write_timestamp(out, v->m);
  if (strcmp(n, "Duration") == 0) return write_duration(out, v->m, json);
  return false;
}

bool pbd_Format_WellKnownText(pbd_Buf *out, const pbd_Value *v) {
  size_t mark = out->len;
  if (well_known(out, v, false)) return true;
  pbd_Buf_Truncate(out, mark);
  return false;
}

/* ---- text format ---------------------------------------------------------- */

static void write_octal(pbd_Buf *out, unsigned char c) {
  char e[5];
  snprintf(e, sizeof e, "\\%03o", (unsigned)c);
  pbd_Buf_Append(out, e, 4);
}

/* A quoted, escaped string (as_utf8: valid UTF-8 kept as is) or bytes
 * literal, cut after max_bytes source bytes (0: no cut) on a character
 * boundary, with the full size noted after the quote. */
static void write_quoted(pbd_Buf *out, pbd_StrView s, bool as_utf8, size_t max_bytes,
                         bool cut_hash) {
  const unsigned char *p = (const unsigned char *)s.data;
  size_t lim = (max_bytes > 0 && s.size > max_bytes) ? max_bytes : s.size;
  pbd_Buf_AppendChar(out, '"');
  size_t i = 0;
  while (i < lim) {
    unsigned char c = p[i];
    if (c >= 0x80) {
      size_t n = as_utf8 ? pbd_Utf8_SequenceLength(p + i, s.size - i) : 0;
      if (n > 0) {
        if (i + n > lim) break; /* never cut a character */
        pbd_Buf_Append(out, (const char *)p + i, n);
        i += n;
      } else {
        write_octal(out, c);
        i++;
      }
      continue;
    }
    switch (c) {
      case '"': pbd_Buf_AppendStr(out, "\\\""); break;
      case '\\': pbd_Buf_AppendStr(out, "\\\\"); break;
      case '\n': pbd_Buf_AppendStr(out, "\\n"); break;
      case '\r': pbd_Buf_AppendStr(out, "\\r"); break;
      case '\t': pbd_Buf_AppendStr(out, "\\t"); break;
      default:
        if (c < 0x20 || c == 0x7f) write_octal(out, c);
        else pbd_Buf_AppendChar(out, (char)c);
    }
    i++;
  }
  if (lim < s.size && cut_hash) {
    uint64_t h = XXH3_64bits(s.data, s.size);
    pbd_Buf_Printf(out, "...\" (%zu bytes, xxh3:%08" PRIx32 ")", s.size, (uint32_t)(h >> 32));
  } else if (lim < s.size) {
    pbd_Buf_Printf(out, "...\" (%zu bytes)", s.size);
  } else {
    pbd_Buf_AppendChar(out, '"');
  }
}

static void write_indent(pbd_Buf *out, int level) {
  for (int i = 0; i < level; i++) pbd_Buf_Append(out, "  ", 2);
}

static void text_value(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o, int level);

/* Writes the entries of m; returns the number written.  One-line: entries
 * separated by single spaces.  Multiline: each entry on its own line at
 * `level`, newline-terminated. */
static size_t text_body(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o,
                        int level) {
  if (!m) return 0;
  size_t n = 0;
  if (pbd_Message_AnyPayload(m)) {
    if (o->multiline) write_indent(out, level);
    pbd_Buf_AppendChar(out, '[');
    pbd_Buf_Append(out, pbd_Message_AnyTypeUrl(m).data, pbd_Message_AnyTypeUrl(m).size);
    pbd_Buf_AppendStr(out, "] ");
    pbd_Value pv = {.kind = kPbd_Value_Message, .field = NULL, .m = pbd_Message_AnyPayload(m)};
    text_value(out, &pv, o, level);
    if (o->multiline) pbd_Buf_AppendChar(out, '\n');
    return 1;
  }
  for (uint32_t fi = 0; fi < pbd_Message_FieldCount(m); fi++) {
    const pbd_Field *f = &pbd_Message_Fields(m)[fi];
    for (uint32_t i = 0; i < f->count; i++) {
      pbd_Value v = pbd_Field_Value(f, i);
      if (o->multiline) write_indent(out, level);
      else if (n > 0) pbd_Buf_AppendChar(out, ' ');
      if (!f->def) {
        pbd_Buf_Printf(out, "%" PRIu32, f->number);
      } else if (f->def->is_extension) {
        pbd_Buf_AppendChar(out, '[');
        pbd_Buf_AppendStr(out, f->def->full_name);
        pbd_Buf_AppendChar(out, ']');
      } else {
        pbd_Buf_AppendStr(out, f->def->name);
      }
      if (is_message_kind(v.kind) && o->well_known) {
        size_t mark = out->len;
        pbd_Buf_AppendStr(out, ": ");
        if (!pbd_Format_WellKnownText(out, &v)) {
          pbd_Buf_Truncate(out, mark);
          pbd_Buf_AppendChar(out, ' ');
          text_value(out, &v, o, level);
        }
      } else {
        pbd_Buf_AppendStr(out, is_message_kind(v.kind) ? " " : ": ");
        text_value(out, &v, o, level);
      }
      if (o->multiline) pbd_Buf_AppendChar(out, '\n');
      n++;
    }
  }
  return n;
}

static bool message_is_empty(const pbd_Message *m) {
  return !m || (pbd_Message_FieldCount(m) == 0 && !pbd_Message_AnyPayload(m));
}

static void text_message_value(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o,
                               int level) {
  if (message_is_empty(m)) {
    pbd_Buf_AppendStr(out, "{ }");
  } else if (o->multiline) {
    pbd_Buf_AppendStr(out, "{\n");
    text_body(out, m, o, level + 1);
    write_indent(out, level);
    pbd_Buf_AppendChar(out, '}');
  } else {
    pbd_Buf_AppendStr(out, "{ ");
    text_body(out, m, o, level);
    pbd_Buf_AppendStr(out, " }");
  }
}

static void text_value(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o, int level) {
  switch (v->kind) {
    case kPbd_Value_None:
      break;
    case kPbd_Value_Int:
      pbd_Buf_Printf(out, "%" PRId64, v->i);
      break;
    case kPbd_Value_UInt:
    case kPbd_Value_Varint:
    case kPbd_Value_Fixed64:
      pbd_Buf_Printf(out, "%" PRIu64, v->u);
      break;
    case kPbd_Value_Fixed32:
      pbd_Buf_Printf(out, "%" PRIu32, (uint32_t)v->u);
      break;
    case kPbd_Value_Bool:
      pbd_Buf_AppendStr(out, v->u ? "true" : "false");
      break;
    case kPbd_Value_Enum: {
      const char *name = enum_name(v);
      if (name) pbd_Buf_AppendStr(out, name);
      else pbd_Buf_Printf(out, "%" PRId32, (int32_t)v->i);
      break;
    }
    case kPbd_Value_Float:
    case kPbd_Value_Double:
      write_floating(out, v, false);
      break;
    case kPbd_Value_String:
      write_quoted(out, v->s, true, o->max_bytes, o->cut_hash);
      break;
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      write_quoted(out, v->s, false, o->max_bytes, o->cut_hash);
      break;
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      if (o->well_known && pbd_Format_WellKnownText(out, v)) break;
      text_message_value(out, v->m, o, level);
      break;
  }
}

/* Cuts the text written from `start` to at most `max` bytes on a boundary of
 * the text-format syntax (never inside a backslash escape or a UTF-8
 * sequence) and appends "...", when it is longer than `max`. */
static void cut_text(pbd_Buf *out, size_t start, size_t max) {
  if (out->oom || out->len - start <= max) return;
  const unsigned char *p = (const unsigned char *)out->data + start;
  size_t n = out->len - start, i = 0;
  bool quoted = false;
  while (i < n) {
    size_t len = 1;
    if (quoted && p[i] == '\\') {
      len = (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7') ? 4 : 2;
    } else if (p[i] >= 0x80) {
      len = pbd_Utf8_SequenceLength(p + i, n - i);
      if (len == 0) len = 1;
    } else if (p[i] == '"') {
      quoted = !quoted;
    }
    if (i + len > max) break;
    i += len;
  }
  pbd_Buf_Truncate(out, start + i);
  pbd_Buf_AppendStr(out, "...");
}

static const pbd_TextOptions kDefaultTextOptions = {0};

void pbd_Format_TextValue(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o) {
  if (!o) o = &kDefaultTextOptions;
  size_t start = out->len;
  text_value(out, v, o, o->indent);
  if (o->max_message > 0 && !o->multiline && is_message_kind(v->kind))
    cut_text(out, start, o->max_message);
}

void pbd_Format_TextMessage(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o) {
  if (!o) o = &kDefaultTextOptions;
  text_body(out, m, o, o->indent);
}

/* ---- JSON ----------------------------------------------------------------- */

void pbd_Format_JsonString(pbd_Buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  pbd_Buf_AppendChar(out, '"');
  size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c >= 0x80) {
      size_t len = pbd_Utf8_SequenceLength(p + i, n - i);
      if (len > 0) {
        pbd_Buf_Append(out, (const char *)p + i, len);
        i += len;
        continue;
      }
      /* An invalid byte: written as the code point of the same number. */
    }
    switch (c) {
      case '"': pbd_Buf_AppendStr(out, "\\\""); break;
      case '\\': pbd_Buf_AppendStr(out, "\\\\"); break;
      case '\n': pbd_Buf_AppendStr(out, "\\n"); break;
      case '\r': pbd_Buf_AppendStr(out, "\\r"); break;
      case '\t': pbd_Buf_AppendStr(out, "\\t"); break;
      case '\b': pbd_Buf_AppendStr(out, "\\b"); break;
      case '\f': pbd_Buf_AppendStr(out, "\\f"); break;
      default:
        if (c < 0x20 || c >= 0x80) {
          char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          pbd_Buf_Append(out, e, sizeof e);
        } else {
          pbd_Buf_AppendChar(out, (char)c);
        }
    }
    i++;
  }
  pbd_Buf_AppendChar(out, '"');
}

static void write_base64(pbd_Buf *out, pbd_StrView s) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char *p = (const unsigned char *)s.data;
  pbd_Buf_AppendChar(out, '"');
  size_t i = 0;
  for (; i + 3 <= s.size; i += 3) {
    uint32_t w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    char q[4] = {tab[w >> 18], tab[(w >> 12) & 63], tab[(w >> 6) & 63], tab[w & 63]};
    pbd_Buf_Append(out, q, 4);
  }
  size_t rest = s.size - i;
  if (rest > 0) {
    uint32_t w = (uint32_t)p[i] << 16 | (rest == 2 ? (uint32_t)p[i + 1] << 8 : 0);
    char q[4] = {tab[w >> 18], tab[(w >> 12) & 63], rest == 2 ? tab[(w >> 6) & 63] : '=', '='};
    pbd_Buf_Append(out, q, 4);
  }
  pbd_Buf_AppendChar(out, '"');
}

static bool is_64bit_type(const pbd_FieldDef *f) {
  switch (f->type) {
    case kPbd_Type_Int64:
    case kPbd_Type_UInt64:
    case kPbd_Type_SInt64:
    case kPbd_Type_Fixed64:
    case kPbd_Type_SFixed64:
      return true;
    default:
      return false;
  }
}

static void json_value(pbd_Buf *out, const pbd_Value *v);

/* A map key as a JSON object key (always a string). */
static void json_map_key(pbd_Buf *out, const pbd_Value *k) {
  switch (k->kind) {
    case kPbd_Value_String:
    case kPbd_Value_Bytes:
      pbd_Format_JsonString(out, k->s.data, k->s.size);
      break;
    case kPbd_Value_Int:
      pbd_Buf_Printf(out, "\"%" PRId64 "\"", k->i);
      break;
    case kPbd_Value_Enum:
      pbd_Buf_Printf(out, "\"%" PRId32 "\"", (int32_t)k->i);
      break;
    case kPbd_Value_Bool:
      pbd_Buf_AppendStr(out, k->u ? "\"true\"" : "\"false\"");
      break;
    case kPbd_Value_Fixed32:
      pbd_Buf_Printf(out, "\"%" PRIu32 "\"", (uint32_t)k->u);
      break;
    case kPbd_Value_None:
      pbd_Buf_AppendStr(out, "\"\"");
      break;
    default:
      pbd_Buf_Printf(out, "\"%" PRIu64 "\"", k->u);
      break;
  }
}

static void json_object_fields(pbd_Buf *out, const pbd_Message *m, bool first) {
  for (uint32_t fi = 0; fi < pbd_Message_FieldCount(m); fi++) {
    const pbd_Field *f = &pbd_Message_Fields(m)[fi];
    if (f->count == 0) continue;
    if (!first) pbd_Buf_AppendStr(out, ", ");
    first = false;
    const pbd_FieldDef *d = f->def;
    if (!d) {
      pbd_Buf_Printf(out, "\"%" PRIu32 "\"", f->number);
    } else if (d->is_extension) {
      pbd_Buf_AppendStr(out, "\"[");
      pbd_Buf_AppendStr(out, d->full_name);
      pbd_Buf_AppendStr(out, "]\"");
    } else {
      const char *jn = d->json_name ? d->json_name : d->name;
      pbd_Format_JsonString(out, jn, strlen(jn));
    }
    pbd_Buf_AppendStr(out, ": ");
    if (d && d->is_map) {
      pbd_Buf_AppendChar(out, '{');
      for (uint32_t i = 0; i < f->count; i++) {
        pbd_Value e = pbd_Field_Value(f, i);
        const pbd_Message *em = is_message_kind(e.kind) ? e.m : NULL;
        pbd_Value k = pbd_MapEntry_Part(em, 1);
        pbd_Value val = pbd_MapEntry_Part(em, 2);
        if (i > 0) pbd_Buf_AppendStr(out, ", ");
        json_map_key(out, &k);
        pbd_Buf_AppendStr(out, ": ");
        json_value(out, &val);
      }
      pbd_Buf_AppendChar(out, '}');
    } else if ((d && d->is_repeated) || (!d && f->count > 1)) {
      pbd_Buf_AppendChar(out, '[');
      for (uint32_t i = 0; i < f->count; i++) {
        pbd_Value v = pbd_Field_Value(f, i);
        if (i > 0) pbd_Buf_AppendStr(out, ", ");
        json_value(out, &v);
      }
      pbd_Buf_AppendChar(out, ']');
    } else {
      pbd_Value v = pbd_Field_Value(f, f->count - 1);
      json_value(out, &v);
    }
  }
}

static bool json_wkt(pbd_Buf *out, const pbd_Value *v);

static void json_message(pbd_Buf *out, const pbd_Message *m) {
  pbd_Buf_AppendChar(out, '{');
  if (m && pbd_Message_AnyPayload(m)) {
    pbd_Buf_AppendStr(out, "\"@type\": ");
    pbd_Format_JsonString(out, pbd_Message_AnyTypeUrl(m).data, pbd_Message_AnyTypeUrl(m).size);
    pbd_Value pv = {.kind = kPbd_Value_Message, .field = NULL, .m = pbd_Message_AnyPayload(m)};
    size_t mark = out->len;
    pbd_Buf_AppendStr(out, ", \"value\": ");
    if (!json_wkt(out, &pv)) {
      pbd_Buf_Truncate(out, mark);
      json_object_fields(out, pbd_Message_AnyPayload(m), false);
    }
  } else if (m) {
    json_object_fields(out, m, true);
  }
  pbd_Buf_AppendChar(out, '}');
}

/* The only field of a well-known message that may be set, by number:
 * true when every present field is a known one among the allowed numbers
 * (a bit set of numbers 1..31). */
static bool only_fields(const pbd_Message *m, uint32_t allowed) {
  if (!m) return true;
  if (pbd_Message_AnyPayload(m)) return false;
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++) {
    const pbd_Field *f = &pbd_Message_Fields(m)[i];
    if (f->count == 0) continue;
    if (!f->def || f->number >= 32 || !(allowed >> f->number & 1)) return false;
  }
  return true;
}

/* A present field of a finished message, or NULL. */
static const pbd_Field *present(const pbd_Message *m, uint32_t number) {
  if (!m) return NULL;
  const pbd_Field *f = pbd_Message_FindField(m, number);
  return f && f->def && f->count > 0 ? f : NULL;
}

static bool json_struct(pbd_Buf *out, const pbd_Message *m);
static bool json_list(pbd_Buf *out, const pbd_Message *m);

/* google.protobuf.Value: what its `kind` oneof holds. */
static bool json_struct_value(pbd_Buf *out, const pbd_Message *m) {
  if (!m || !only_fields(m, 0x7e)) return false;
  const pbd_Field *f = NULL;
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++)
    if (pbd_Message_Fields(m)[i].count > 0) f = &pbd_Message_Fields(m)[i];
  if (!f) return false; /* nothing set: not a valid Value */
  pbd_Value v = pbd_Field_Value(f, f->count - 1);
  switch (f->number) {
    case 1: pbd_Buf_AppendStr(out, "null"); return true;
    case 5: return v.kind == kPbd_Value_Message && json_struct(out, v.m);
    case 6: return v.kind == kPbd_Value_Message && json_list(out, v.m);
    default: json_value(out, &v); return true;
  }
}

/* google.protobuf.Struct: map<string, Value> fields = 1 as an object. */
static bool json_struct(pbd_Buf *out, const pbd_Message *m) {
  if (!only_fields(m, 0x2)) return false;
  const pbd_Field *f = present(m, 1);
  if (f && !f->def->is_map) return false;
  pbd_Buf_AppendChar(out, '{');
  for (uint32_t i = 0; f && i < f->count; i++) {
    pbd_Value e = pbd_Field_Value(f, i);
    if (e.kind != kPbd_Value_Message || !e.m) return false;
    pbd_Value k = pbd_MapEntry_Part(e.m, 1), val = pbd_MapEntry_Part(e.m, 2);
    if (k.kind != kPbd_Value_String || val.kind != kPbd_Value_Message) return false;
    if (i > 0) pbd_Buf_AppendStr(out, ", ");
    pbd_Format_JsonString(out, k.s.data, k.s.size);
    pbd_Buf_AppendStr(out, ": ");
    if (!json_struct_value(out, val.m)) return false;
  }
  pbd_Buf_AppendChar(out, '}');
  return true;
}

/* google.protobuf.ListValue: repeated Value values = 1 as an array. */
static bool json_list(pbd_Buf *out, const pbd_Message *m) {
  if (!only_fields(m, 0x2)) return false;
  const pbd_Field *f = present(m, 1);
  pbd_Buf_AppendChar(out, '[');
  for (uint32_t i = 0; f && i < f->count; i++) {
    pbd_Value e = pbd_Field_Value(f, i);
    if (e.kind != kPbd_Value_Message) return false;
    if (i > 0) pbd_Buf_AppendStr(out, ", ");
    if (!json_struct_value(out, e.m)) return false;
  }
  pbd_Buf_AppendChar(out, ']');
  return true;
}

/* google.protobuf.FieldMask: the paths in lowerCamelCase joined by ",". */
static bool json_field_mask(pbd_Buf *out, const pbd_Message *m) {
  if (!only_fields(m, 0x2)) return false;
  const pbd_Field *f = present(m, 1);
  if (f && f->kind != kPbd_Value_String) return false;
  pbd_Buf joined = {0};
  for (uint32_t i = 0; f && i < f->count; i++) {
    if (i > 0) pbd_Buf_AppendChar(&joined, ',');
    pbd_StrView p = f->v.strs[i];
    bool up = false;
    for (size_t j = 0; j < p.size; j++) {
      char c = p.data[j];
      if (c == '_') {
        up = true;
        continue;
      }
      if (up && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
      up = false;
      pbd_Buf_AppendChar(&joined, c);
    }
  }
  if (joined.oom) {
    out->oom = true;
  } else {
    pbd_Format_JsonString(out, joined.data ? joined.data : "", joined.len);
  }
  pbd_Buf_Free(&joined);
  return true;
}

/* Writes a well-known message in its JSON mapping form; false (output
 * undefined past the starting length, which the caller restores) when v is
 * not one or does not fit the form. */
static bool json_wkt_form(pbd_Buf *out, const pbd_Value *v) {
  const char *n = wkt_name(v);
  if (!n) return false;
  if (strcmp(n, "Timestamp") == 0 || strcmp(n, "Duration") == 0) {
    pbd_Buf_AppendChar(out, '"');
    if (!well_known(out, v, true)) return false;
    pbd_Buf_AppendChar(out, '"');
    return true;
  }
  static const char *const wrappers[] = {"DoubleValue", "FloatValue", "Int64Value",
                                         "UInt64Value", "Int32Value", "UInt32Value",
                                         "BoolValue",   "StringValue", "BytesValue"};
  for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
    if (strcmp(n, wrappers[i]) != 0) continue;
    if (!only_fields(v->m, 0x2)) return false;
    const pbd_Field *f = present(v->m, 1);
    if (f) {
      pbd_Value x = pbd_Field_Value(f, f->count - 1);
      json_value(out, &x);
      return true;
    }
    const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(value_type(v), 1);
    if (!fd) return false;
    pbd_Value x = pbd_FieldDef_DefaultValue(fd);
    json_value(out, &x);
    return true;
  }
  if (strcmp(n, "Struct") == 0) return json_struct(out, v->m);
  if (strcmp(n, "ListValue") == 0) return json_list(out, v->m);
  if (strcmp(n, "Value") == 0) return json_struct_value(out, v->m);
  if (strcmp(n, "FieldMask") == 0) return json_field_mask(out, v->m);
  if (strcmp(n, "Any") == 0 && v->m && pbd_Message_AnyPayload(v->m)) { /* an Any in an Any: "value" */
    json_message(out, v->m);
    return true;
  }
  return false;
}

static bool json_wkt(pbd_Buf *out, const pbd_Value *v) {
  size_t mark = out->len;
  if (json_wkt_form(out, v)) return true;
  pbd_Buf_Truncate(out, mark);
  return false;
}

static void json_value(pbd_Buf *out, const pbd_Value *v) {
  switch (v->kind) {
    case kPbd_Value_None:
      pbd_Buf_AppendStr(out, "null");
      break;
    case kPbd_Value_Int:
      if (!v->field || is_64bit_type(v->field)) pbd_Buf_Printf(out, "\"%" PRId64 "\"", v->i);
      else pbd_Buf_Printf(out, "%" PRId64, v->i);
      break;
    case kPbd_Value_UInt:
      if (!v->field || is_64bit_type(v->field)) pbd_Buf_Printf(out, "\"%" PRIu64 "\"", v->u);
      else pbd_Buf_Printf(out, "%" PRIu64, v->u);
      break;
    case kPbd_Value_Varint:
    case kPbd_Value_Fixed64:
      pbd_Buf_Printf(out, "\"%" PRIu64 "\"", v->u);
      break;
    case kPbd_Value_Fixed32:
      pbd_Buf_Printf(out, "%" PRIu32, (uint32_t)v->u);
      break;
    case kPbd_Value_Bool:
      pbd_Buf_AppendStr(out, v->u ? "true" : "false");
      break;
    case kPbd_Value_Enum: {
      const pbd_EnumDef *e = v->field ? v->field->enum_type : NULL;
      if (e && e->full_name && strcmp(e->full_name, "google.protobuf.NullValue") == 0) {
        pbd_Buf_AppendStr(out, "null");
        break;
      }
      const char *name = enum_name(v);
      if (name) pbd_Format_JsonString(out, name, strlen(name));
      else pbd_Buf_Printf(out, "%" PRId32, (int32_t)v->i);
      break;
    }
    case kPbd_Value_Float:
    case kPbd_Value_Double:
      write_floating(out, v, true);
      break;
    case kPbd_Value_String:
      pbd_Format_JsonString(out, v->s.data, v->s.size);
      break;
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      write_base64(out, v->s);
      break;
    case kPbd_Value_Message:
      if (json_wkt(out, v)) break;
      json_message(out, v->m);
      break;
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      json_message(out, v->m);
      break;
  }
}

void pbd_Format_JsonValue(pbd_Buf *out, const pbd_Value *v) { json_value(out, v); }
