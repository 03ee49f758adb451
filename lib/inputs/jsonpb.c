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
#include "pbdiff/inputs/jsonpb.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/wire/wire.h"

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
      if (!jp_int_value(c, v, &kInt32, tn, &u)) return false;
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
      if (!jp_int_value(c, v, &kInt64, tn, &u)) return false;
      if (fd->type == kPbd_Type_SInt64) {
        int64_t x = (int64_t)u;
        u = (u << 1) ^ (uint64_t)(x >> 63);
      }
      break;
    case kPbd_Type_UInt32:
    case kPbd_Type_Fixed32:
      if (!jp_int_value(c, v, &kUInt32, tn, &u)) return false;
      break;
    case kPbd_Type_UInt64:
    case kPbd_Type_Fixed64:
      if (!jp_int_value(c, v, &kUInt64, tn, &u)) return false;
      break;
    case kPbd_Type_Bool:
      if (v->kind != J_True && v->kind != J_False)
        return jp_fail(c, kPbd_Status_Malformed, v->off, "bool value expected (true or false), got %s",
                    jp_kind_name(v->kind));
      u = v->kind == J_True;
      break;
    case kPbd_Type_Double: {
      double d = 0;
      if (!jp_double_value(c, v, "double", &d)) return false;
      u = jp_double_bits(d);
      break;
    }
    case kPbd_Type_Float: {
      double d = 0;
      if (!jp_double_value(c, v, "float", &d)) return false;
      /* Values that round to a finite float are in range: below the
       * midpoint between FLT_MAX and 2^128. */
      if (!isnan(d) && !isinf(d) && fabs(d) >= 0x1.ffffffp+127)
        return jp_fail(c, kPbd_Status_Malformed, v->off, "float value %s is out of range",
                    jp_quote(c, v->s, v->n));
      u = jp_float_bits((float)d);
      break;
    }
    case kPbd_Type_Enum: {
      const pbd_EnumDef *e = fd->enum_type;
      if (v->kind == J_Null && jp_is_null_value_enum(fd)) {
        u = 0;
        break;
      }
      if (v->kind == J_String) {
        const pbd_EnumValueDef *ev = e ? enum_by_name(e, v->s, v->n) : NULL;
        if (!ev)
          return jp_fail(c, kPbd_Status_Malformed, v->off, "unknown value %s of enum %s",
                      jp_quote(c, v->s, v->n), e ? e->full_name : "?");
        u = (uint64_t)(int64_t)ev->number;
        break;
      }
      if (v->kind != J_Number)
        return jp_fail(c, kPbd_Status_Malformed, v->off,
                    "enum value expected (a name or a number), got %s", jp_kind_name(v->kind));
      if (!jp_int_value(c, v, &kInt32, "enum", &u)) return false;
      int32_t num = (int32_t)(uint32_t)u;
      if (e && e->is_closed && !pbd_EnumDef_FindValueByNumber(e, num))
        return jp_fail(c, kPbd_Status_Malformed, v->off, "%d is not a value of closed enum %s", num,
                    e->full_name);
      u = (uint64_t)(int64_t)num;
      break;
    }
    default: return jp_fail(c, kPbd_Status_Malformed, v->off, "field of type %s is not a scalar", tn);
  }
  *raw = u;
  return true;
}

static void put_raw(pbd_Buf *b, int wt, uint64_t raw) {
  if (wt == kPbd_WireType_Fixed32)
    jp_put_fixed(b, raw, 4);
  else if (wt == kPbd_WireType_Fixed64)
    jp_put_fixed(b, raw, 8);
  else
    jp_put_varint(b, raw);
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
    return jp_fail(c, kPbd_Status_Malformed, v->off, "bytes value expected (a base64 string), got %s",
                jp_kind_name(v->kind));
  size_t n = v->n, pad = 0;
  while (pad < 2 && n > 0 && v->s[n - 1] == '=') {
    n--;
    pad++;
  }
  if ((pad && (n + pad) % 4 != 0) || n % 4 == 1)
    return jp_fail(c, kPbd_Status_Malformed, v->off, "invalid base64 %s (bad length or padding)",
                jp_quote(c, v->s, v->n));
  size_t outn = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
  char *o = pbd_Arena_Malloc(c->arena, outn + 1);
  if (!o) return jp_oom(c);
  size_t k = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int d = b64val((unsigned char)v->s[i]);
    if (d < 0)
      return jp_fail(c, kPbd_Status_Malformed, v->off,
                  "invalid base64 %s (character %s at position %zu)", jp_quote(c, v->s, v->n),
                  jp_quote(c, v->s + i, 1), i);
    acc = acc << 6 | (uint32_t)d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      o[k++] = (char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  jp_put_bytes(c->out, number, o, k);
  return true;
}

/* One value of field fd (tag included): a singular field's value, a
 * repeated field's element, a map entry's key or value. */
static bool field_value(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  switch (fd->type) {
    case kPbd_Type_Message: {
      jp_put_tag(c->out, fd->number, kPbd_WireType_Delimited);
      size_t mark = c->out->len;
      if (!message_value(c, fd->message_type, v)) return false;
      jp_end_len(c->out, mark);
      return true;
    }
    case kPbd_Type_Group:
      jp_put_tag(c->out, fd->number, kPbd_WireType_StartGroup);
      if (!message_value(c, fd->message_type, v)) return false;
      jp_put_tag(c->out, fd->number, kPbd_WireType_EndGroup);
      return true;
    case kPbd_Type_String:
      if (v->kind != J_String)
        return jp_fail(c, kPbd_Status_Malformed, v->off, "string value expected, got %s",
                    jp_kind_name(v->kind));
      jp_put_bytes(c->out, fd->number, v->s, v->n);
      return true;
    case kPbd_Type_Bytes: return bytes_field(c, fd->number, v);
    default: {
      uint64_t raw = 0;
      if (!scalar_raw(c, fd, v, &raw)) return false;
      int wt = pbd_FieldType_WireType(fd->type);
      jp_put_tag(c->out, fd->number, wt);
      put_raw(c->out, wt, raw);
      return true;
    }
  }
}

static bool repeated_field(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  if (v->kind != J_Array)
    return jp_fail(c, kPbd_Status_Malformed, v->off, "repeated field expects an array, got %s",
                jp_kind_name(v->kind));
  if (v->count == 0) return true;
  bool nullable = jp_null_is_value(fd);
  uint32_t i = 0;
  if (fd->is_packable) {
    int wt = pbd_FieldType_WireType(fd->type);
    jp_put_tag(c->out, fd->number, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    for (const JVal *e = v->first; e; e = e->next, i++) {
      uint64_t raw = 0;
      if (e->kind == J_Null && !nullable) {
        jp_fail(c, kPbd_Status_Malformed, e->off, "null is not allowed in a repeated field");
        goto elem_fail;
      }
      if (!scalar_raw(c, fd, e, &raw)) goto elem_fail;
      put_raw(c->out, wt, raw);
    }
    jp_end_len(c->out, mark);
    return true;
  }
  for (const JVal *e = v->first; e; e = e->next, i++) {
    if (e->kind == J_Null && !nullable) {
      jp_fail(c, kPbd_Status_Malformed, e->off, "null is not allowed in a repeated field");
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
  jp_fail(c, kPbd_Status_Malformed, dup->member->key_off, "map key %s repeats key %s",
       jp_quote(c, dup->member->key, dup->member->key_n),
       jp_quote(c, first->member->key, first->member->key_n));
  prepend_key(c, kf, dup->member);
  return false;
}

static bool enter_level(Ctx *c, const JVal *v);

static bool map_field(Ctx *c, const pbd_FieldDef *fd, const JVal *v) {
  if (v->kind != J_Object)
    return jp_fail(c, kPbd_Status_Malformed, v->off, "map field expects an object, got %s",
                jp_kind_name(v->kind));
  const pbd_MessageDef *entry = fd->message_type;
  const pbd_FieldDef *kf = pbd_MessageDef_FindFieldByNumber(entry, 1);
  const pbd_FieldDef *vf = pbd_MessageDef_FindFieldByNumber(entry, 2);
  if (!kf || !vf)
    return jp_fail(c, kPbd_Status_Malformed, v->off, "map entry %s lacks its key or value field",
                entry->full_name);
  IntKey *keys = NULL;
  size_t nkeys = 0;
  if (kf->type != kPbd_Type_String && kf->type != kPbd_Type_Bool && v->count > 1) {
    keys = pbd_Arena_Malloc(c->arena, v->count * sizeof *keys);
    if (!keys) return jp_oom(c);
  }
  for (const JVal *m = v->first; m; m = m->next) {
    jp_put_tag(c->out, fd->number, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    /* The key, from the member's name. */
    uint64_t raw = 0;
    const IntRange *r = NULL;
    const char *tn = pbd_FieldType_Name(kf->type);
    switch (kf->type) {
      case kPbd_Type_String: jp_put_bytes(c->out, 1, m->key, m->key_n); break;
      case kPbd_Type_Bool:
        if (m->key_n == 4 && memcmp(m->key, "true", 4) == 0) {
          raw = 1;
        } else if (!(m->key_n == 5 && memcmp(m->key, "false", 5) == 0)) {
          jp_fail(c, kPbd_Status_Malformed, m->key_off,
               "map key %s is not a bool (\"true\" or \"false\")", jp_quote(c, m->key, m->key_n));
          goto key_fail;
        }
        jp_put_tag(c->out, 1, kPbd_WireType_Varint);
        jp_put_varint(c->out, raw);
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
        jp_fail(c, kPbd_Status_Malformed, m->key_off, "map key of type %s is not supported", tn);
        goto key_fail;
    }
    if (r) {
      /* Integer keys are decimal strings; read them as the value would be,
       * then encode through scalar_raw's rules by a number literal. */
      if (!jp_int_text(c, m->key, m->key_n, m->key_off, r, tn, &raw)) goto key_fail;
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
    if (m->kind == J_Null && !jp_null_is_value(vf)) {
      jp_fail(c, kPbd_Status_Malformed, m->off, "null is not allowed as a map value");
      goto key_fail;
    }
    if (!enter_level(c, m)) goto key_fail; /* the entry is a message level */
    bool value_ok = field_value(c, vf, m);
    c->depth--;
    if (!value_ok) goto key_fail;
    jp_end_len(c->out, mark);
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
  if (v->kind == J_Null && (fd->is_repeated || !jp_null_is_value(fd))) return true; /* not set */
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
    return jp_fail(c, kPbd_Status_Malformed, v->off, "%s expects an object, got %s", m->full_name,
                jp_kind_name(v->kind));
  if (v->count == 0) return true;
  const JVal **by_field = pbd_Arena_Calloc(c->arena, (m->field_count + 1) * sizeof *by_field);
  const JVal **by_oneof = pbd_Arena_Calloc(c->arena, (m->oneof_count + 1) * sizeof *by_oneof);
  if (!by_field || !by_oneof) return jp_oom(c);
  for (const JVal *mem = v->first; mem; mem = mem->next) {
    if (in_any && key_is(mem, "@type")) continue;
    const pbd_FieldDef *fd = find_field(c, m, mem);
    if (!fd) {
      if (mem->key_n > 0 && mem->key[0] == '[')
        return jp_fail(c, kPbd_Status_UnknownField, mem->key_off, "unknown extension %s of %s",
                    jp_quote(c, mem->key, mem->key_n), m->full_name);
      return jp_fail(c, kPbd_Status_UnknownField, mem->key_off, "unknown field %s in %s",
                  jp_quote(c, mem->key, mem->key_n), m->full_name);
    }
    const JVal *prev = by_field[fd->index];
    if (prev)
      return jp_fail(c, kPbd_Status_Malformed, mem->key_off, "field %s given twice (as %s and as %s)",
                  fd->name, jp_quote(c, prev->key, prev->key_n), jp_quote(c, mem->key, mem->key_n));
    by_field[fd->index] = mem;
    bool unset = mem->kind == J_Null && (fd->is_repeated || !jp_null_is_value(fd));
    if (fd->oneof && !unset) {
      size_t oi = (size_t)(fd->oneof - m->oneofs);
      if (oi < m->oneof_count) {
        const JVal *other = by_oneof[oi];
        if (other)
          return jp_fail(c, kPbd_Status_Malformed, mem->key_off,
                      "oneof %s has more than one member set (%s and %s)", fd->oneof->name,
                      jp_quote(c, other->key, other->key_n), jp_quote(c, mem->key, mem->key_n));
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
    return jp_fail(c, kPbd_Status_Malformed, v->off, "google.protobuf.Any expects an object, got %s",
                jp_kind_name(v->kind));
  if (v->count == 0) return true; /* the empty Any */
  const JVal *t = member(v, "@type");
  if (!t)
    return jp_fail(c, kPbd_Status_Malformed, v->off,
                "google.protobuf.Any needs an \"@type\" member naming its type");
  if (t->kind != J_String)
    return jp_fail(c, kPbd_Status_Malformed, t->off, "\"@type\" expects a string, got %s",
                jp_kind_name(t->kind));
  const char *name = t->s + t->n;
  while (name > t->s && name[-1] != '/') name--;
  size_t nn = t->n - (size_t)(name - t->s);
  if (name == t->s || nn == 0 || nn >= 512 || memchr(name, '\0', nn))
    return jp_fail(c, kPbd_Status_Malformed, t->off,
                "invalid type URL %s (expected \"type.googleapis.com/full.type.Name\")",
                jp_quote(c, t->s, t->n));
  char buf[512];
  memcpy(buf, name, nn);
  buf[nn] = '\0';
  const pbd_MessageDef *type = c->pool ? pbd_DefPool_FindMessageByName(c->pool, buf) : NULL;
  if (!type)
    return jp_fail(c, kPbd_Status_Malformed, t->off, "type %s of the Any is not in the schema",
                jp_quote(c, buf, nn));
  jp_put_bytes(c->out, 1, t->s, t->n);
  jp_put_tag(c->out, 2, kPbd_WireType_Delimited);
  size_t mark = c->out->len;
  bool ok;
  if (jp_wkt_of(type) != W_None) {
    const JVal *val = NULL;
    for (const JVal *m = v->first; m; m = m->next) {
      if (key_is(m, "@type")) continue;
      if (!key_is(m, "value"))
        return jp_fail(c, kPbd_Status_UnknownField, m->key_off,
                    "unknown key %s in an Any holding %s (only \"@type\" and \"value\")",
                    jp_quote(c, m->key, m->key_n), type->full_name);
      val = m;
    }
    if (!val)
      return jp_fail(c, kPbd_Status_Malformed, v->off, "an Any holding %s needs a \"value\" member",
                  type->full_name);
    ok = message_value(c, type, val);
  } else { /* the payload, in the Any's own object, is a level below it */
    ok = enter_level(c, v) && object_fields(c, type, v, true);
    if (ok) c->depth--;
  }
  if (!ok) {
    char seg[600];
    snprintf(seg, sizeof seg, "[%.*s]", (int)(t->n < 500 ? t->n : 500), t->s);
    pbd_Status_PrependPath(c->s, seg);
    return false;
  }
  jp_end_len(c->out, mark);
  return true;
}

/* google.protobuf.Struct: {"k": <Value>, ...} as map<string, Value> fields = 1. */
static bool struct_fields(Ctx *c, const JVal *v) {
  for (const JVal *m = v->first; m; m = m->next) {
    jp_put_tag(c->out, 1, kPbd_WireType_Delimited);
    size_t entry = c->out->len;
    jp_put_bytes(c->out, 1, m->key, m->key_n);
    jp_put_tag(c->out, 2, kPbd_WireType_Delimited);
    size_t val = c->out->len;
    /* the entry and its Value are message levels (after a failure the
     * count no longer matters: the conversion stops) */
    if (!enter_level(c, m) || !enter_level(c, m) || !value_value(c, m)) {
      static const pbd_FieldDef kKey = {.type = kPbd_Type_String};
      prepend_key(c, &kKey, m);
      pbd_Status_PrependPath(c->s, "fields");
      return false;
    }
    c->depth -= 2;
    jp_end_len(c->out, val);
    jp_end_len(c->out, entry);
  }
  return true;
}

/* google.protobuf.ListValue: [<Value>, ...] as repeated Value values = 1. */
static bool list_values(Ctx *c, const JVal *v) {
  uint32_t i = 0;
  for (const JVal *e = v->first; e; e = e->next, i++) {
    jp_put_tag(c->out, 1, kPbd_WireType_Delimited);
    size_t mark = c->out->len;
    if (!enter_level(c, e) || !value_value(c, e)) { /* each Value is a message level */
      prepend_index(c, i);
      pbd_Status_PrependPath(c->s, "values");
      return false;
    }
    c->depth--;
    jp_end_len(c->out, mark);
  }
  return true;
}

/* google.protobuf.Value: any JSON value. */
static bool value_value(Ctx *c, const JVal *v) {
  switch (v->kind) {
    case J_Null:
      jp_put_tag(c->out, 1, kPbd_WireType_Varint);
      jp_put_varint(c->out, 0);
      return true;
    case J_Number: {
      double d = 0;
      if (!jp_double_value(c, v, "number", &d)) return false;
      jp_put_tag(c->out, 2, kPbd_WireType_Fixed64);
      jp_put_fixed(c->out, jp_double_bits(d), 8);
      return true;
    }
    case J_String: jp_put_bytes(c->out, 3, v->s, v->n); return true;
    case J_False:
    case J_True:
      jp_put_tag(c->out, 4, kPbd_WireType_Varint);
      jp_put_varint(c->out, v->kind == J_True);
      return true;
    case J_Object:
    case J_Array: {
      bool obj = v->kind == J_Object;
      jp_put_tag(c->out, obj ? 5 : 6, kPbd_WireType_Delimited);
      size_t mark = c->out->len;
      if (!enter_level(c, v) || !(obj ? struct_fields(c, v) : list_values(c, v))) {
        pbd_Status_PrependPath(c->s, obj ? "struct_value" : "list_value");
        return false;
      }
      c->depth--;
      jp_end_len(c->out, mark);
      return true;
    }
  }
  return false;
}

/* One more message level, as the binary readers count them (the root is
 * level 0; a map entry and a Struct's or ListValue's values are levels
 * too); false with the error at v past --max-depth. */
static bool enter_level(Ctx *c, const JVal *v) {
  if (c->depth + 1 > c->max_depth)
    return jp_fail(c, kPbd_Status_MaxDepthExceeded, v->off,
                   "nesting deeper than %d (--max-depth)", c->max_depth);
  c->depth++;
  return true;
}

static bool message_level(Ctx *c, const pbd_MessageDef *m, const JVal *v);

/* The fields of a message of type m (no tag, no length) from its JSON form:
 * a level deeper than its parent's. */
static bool message_value(Ctx *c, const pbd_MessageDef *m, const JVal *v) {
  if (!enter_level(c, v)) return false;
  bool ok = message_level(c, m, v);
  c->depth--;
  return ok;
}

static bool message_level(Ctx *c, const pbd_MessageDef *m, const JVal *v) {
  switch (jp_wkt_of(m)) {
    case W_Any: return any_value(c, v);
    case W_Timestamp: return jp_timestamp_value(c, v);
    case W_Duration: return jp_duration_value(c, v);
    case W_FieldMask: return jp_field_mask_value(c, v);
    case W_Value: return value_value(c, v);
    case W_Struct:
      if (v->kind != J_Object)
        return jp_fail(c, kPbd_Status_Malformed, v->off,
                    "google.protobuf.Struct expects an object, got %s", jp_kind_name(v->kind));
      return struct_fields(c, v);
    case W_ListValue:
      if (v->kind != J_Array)
        return jp_fail(c, kPbd_Status_Malformed, v->off,
                    "google.protobuf.ListValue expects an array, got %s", jp_kind_name(v->kind));
      return list_values(c, v);
    case W_Wrapper: {
      const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(m, 1);
      if (v->kind == J_Null)
        return jp_fail(c, kPbd_Status_Malformed, v->off, "%s expects a value of type %s, got null",
                    m->full_name, pbd_FieldType_Name(fd->type));
      return field_value(c, fd, v);
    }
    case W_None: break;
  }
  return object_fields(c, m, v, false);
}

bool pbd_JsonPb_ToBinary(const pbd_DefPool *pool, const pbd_MessageDef *type, const char *json,
                         size_t n, pbd_Buf *out, pbd_Status *s) {
  return pbd_JsonPb_ToBinaryDepth(pool, type, json, n, 0, out, s);
}

bool pbd_JsonPb_ToBinaryDepth(const pbd_DefPool *pool, const pbd_MessageDef *type,
                              const char *json, size_t n, int max_depth, pbd_Buf *out,
                              pbd_Status *s) {
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
  c.max_depth = max_depth > 0 ? max_depth : kPbd_DefaultMaxDepth;
  if (c.max_depth > kPbd_MaxDepthLimit) c.max_depth = kPbd_MaxDepthLimit;
  c.depth = -1; /* the root message is level 0 */
  c.arena = pbd_Arena_New();
  if (!c.arena) return jp_oom(&c);
  size_t start = out->len;
  pbd_Buf_Append(out, "", 0); /* out->data is set even for an empty encoding */
  const JVal *root = jp_parse_document(&c);
  bool ok = root && message_value(&c, type, root);
  if (ok && out->oom) ok = jp_oom(&c);
  if (!ok) pbd_Buf_Truncate(out, start);
  pbd_Arena_Free(c.arena);
  return ok;
}
