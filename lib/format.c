/* pbdiff — text format and JSON writers for tree values (see format.h).
 *
 * Recursion follows the tree, whose depth the reader already bounded
 * (pbd_TreeOptions.max_depth), so no separate limit is kept here. */
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- text format ---------------------------------------------------------- */

static void write_octal(pbd_Buf *out, unsigned char c) {
  char e[5];
  snprintf(e, sizeof e, "\\%03o", (unsigned)c);
  pbd_Buf_Append(out, e, 4);
}

/* A quoted, escaped string (as_utf8: valid UTF-8 kept as is) or bytes
 * literal, cut after max_bytes source bytes (0: no cut) on a character
 * boundary, with the full size noted after the quote. */
static void write_quoted(pbd_Buf *out, pbd_StrView s, bool as_utf8, size_t max_bytes) {
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
  if (lim < s.size) {
    pbd_Buf_Printf(out, "...\" (%zu bytes)", s.size);
  } else {
    pbd_Buf_AppendChar(out, '"');
  }
}

static void write_indent(pbd_Buf *out, int level) {
  for (int i = 0; i < level; i++) pbd_Buf_Append(out, "  ", 2);
}

static bool is_message_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Message || k == kPbd_Value_LenMessage || k == kPbd_Value_Group;
}

static void text_value(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o, int level);

/* Writes the entries of m; returns the number written.  One-line: entries
 * separated by single spaces.  Multiline: each entry on its own line at
 * `level`, newline-terminated. */
static size_t text_body(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o,
                        int level) {
  if (!m) return 0;
  size_t n = 0;
  if (m->any_payload) {
    if (o->multiline) write_indent(out, level);
    pbd_Buf_AppendChar(out, '[');
    pbd_Buf_Append(out, pbd_Message_AnyTypeUrl(m).data, pbd_Message_AnyTypeUrl(m).size);
    pbd_Buf_AppendStr(out, "] ");
    pbd_Value pv = {.kind = kPbd_Value_Message, .field = NULL, .m = m->any_payload};
    text_value(out, &pv, o, level);
    if (o->multiline) pbd_Buf_AppendChar(out, '\n');
    return 1;
  }
  for (uint32_t fi = 0; fi < m->field_count; fi++) {
    const pbd_Field *f = &m->fields[fi];
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
      pbd_Buf_AppendStr(out, is_message_kind(v.kind) ? " " : ": ");
      text_value(out, &v, o, level);
      if (o->multiline) pbd_Buf_AppendChar(out, '\n');
      n++;
    }
  }
  return n;
}

static bool message_is_empty(const pbd_Message *m) {
  return !m || (m->field_count == 0 && !m->any_payload);
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
      write_quoted(out, v->s, true, o->max_bytes);
      break;
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      write_quoted(out, v->s, false, o->max_bytes);
      break;
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      text_message_value(out, v->m, o, level);
      break;
  }
}

static const pbd_TextOptions kDefaultTextOptions = {0, false, 0};

void pbd_Format_TextValue(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o) {
  if (!o) o = &kDefaultTextOptions;
  text_value(out, v, o, o->indent);
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
  for (uint32_t fi = 0; fi < m->field_count; fi++) {
    const pbd_Field *f = &m->fields[fi];
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

static void json_message(pbd_Buf *out, const pbd_Message *m) {
  pbd_Buf_AppendChar(out, '{');
  if (m && m->any_payload) {
    pbd_Buf_AppendStr(out, "\"@type\": ");
    pbd_Format_JsonString(out, pbd_Message_AnyTypeUrl(m).data, pbd_Message_AnyTypeUrl(m).size);
    json_object_fields(out, m->any_payload, false);
  } else if (m) {
    json_object_fields(out, m, true);
  }
  pbd_Buf_AppendChar(out, '}');
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
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      json_message(out, v->m);
      break;
  }
}

void pbd_Format_JsonValue(pbd_Buf *out, const pbd_Value *v) { json_value(out, v); }
