/* pbdiff — rules shared by the two readers of the wire that must agree bit
 * for bit: the hash pass (canon.c) and the tree builder (tree.c).  Internal
 * to lib/. */
#ifndef PBD_CANON_INTERNAL_H_
#define PBD_CANON_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/wire/wire.h"

/* Values up to these sizes enter a record inline, longer ones as a digest
 * (docs/hash.md). */
enum { kPbd_InlineBytes = 64, kPbd_InlineScalars = 64 };

/* pbd_FieldType_DecodeScalar (values.h) inline: the hash pass decodes every
 * scalar it reads. */
static inline uint64_t pbd_DecodeScalarInline(pbd_FieldType t, uint64_t raw) {
  switch (t) {
    case kPbd_Type_Int32: case kPbd_Type_Enum: case kPbd_Type_SFixed32:
      return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    case kPbd_Type_UInt32: case kPbd_Type_Fixed32: case kPbd_Type_Float:
      return (uint32_t)raw;
    case kPbd_Type_SInt32:
      return (uint64_t)(int64_t)pbd_Wire_ZigZagDecode32((uint32_t)raw);
    case kPbd_Type_SInt64:
      return (uint64_t)pbd_Wire_ZigZagDecode64(raw);
    case kPbd_Type_Bool:
      return raw != 0;
    default:
      return raw;
  }
}

/* pbd_FieldType_WireType as a table: it is asked for every field read. */
static const uint8_t kPbd_WireTypeOf[19] = {
    [kPbd_Type_Double] = kPbd_WireType_Fixed64,   [kPbd_Type_Float] = kPbd_WireType_Fixed32,
    [kPbd_Type_Int64] = kPbd_WireType_Varint,     [kPbd_Type_UInt64] = kPbd_WireType_Varint,
    [kPbd_Type_Int32] = kPbd_WireType_Varint,     [kPbd_Type_Fixed64] = kPbd_WireType_Fixed64,
    [kPbd_Type_Fixed32] = kPbd_WireType_Fixed32,  [kPbd_Type_Bool] = kPbd_WireType_Varint,
    [kPbd_Type_String] = kPbd_WireType_Delimited, [kPbd_Type_Group] = kPbd_WireType_StartGroup,
    [kPbd_Type_Message] = kPbd_WireType_Delimited, [kPbd_Type_Bytes] = kPbd_WireType_Delimited,
    [kPbd_Type_UInt32] = kPbd_WireType_Varint,    [kPbd_Type_Enum] = kPbd_WireType_Varint,
    [kPbd_Type_SFixed32] = kPbd_WireType_Fixed32, [kPbd_Type_SFixed64] = kPbd_WireType_Fixed64,
    [kPbd_Type_SInt32] = kPbd_WireType_Varint,    [kPbd_Type_SInt64] = kPbd_WireType_Varint,
};

static inline int pbd_WireTypeOf(pbd_FieldType t) {
  return (unsigned)t < 19 ? kPbd_WireTypeOf[t] : -1;
}

static inline pbd_ValueKind pbd_ValueKindOf(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Int32: case kPbd_Type_Int64: case kPbd_Type_SInt32:
    case kPbd_Type_SInt64: case kPbd_Type_SFixed32: case kPbd_Type_SFixed64:
      return kPbd_Value_Int;
    case kPbd_Type_UInt32: case kPbd_Type_UInt64: case kPbd_Type_Fixed32:
    case kPbd_Type_Fixed64:
      return kPbd_Value_UInt;
    case kPbd_Type_Bool: return kPbd_Value_Bool;
    case kPbd_Type_Enum: return kPbd_Value_Enum;
    case kPbd_Type_Float: return kPbd_Value_Float;
    case kPbd_Type_Double: return kPbd_Value_Double;
    case kPbd_Type_String: return kPbd_Value_String;
    case kPbd_Type_Bytes: return kPbd_Value_Bytes;
    case kPbd_Type_Message: case kPbd_Type_Group: return kPbd_Value_Message;
  }
  return kPbd_Value_None;
}

static inline bool pbd_ValueKind_IsScalar(pbd_ValueKind k) {
  return k >= kPbd_Value_Int && k <= kPbd_Value_Double;
}
static inline bool pbd_ValueKind_IsStr(pbd_ValueKind k) {
  return k == kPbd_Value_String || k == kPbd_Value_Bytes;
}

/* Returns the offset of the first invalid byte, or n when s is valid UTF-8. */
static inline size_t pbd_Utf8_InvalidAt(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (n - i >= 8) { /* ASCII fast path */
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    size_t len = pbd_Utf8_SequenceLength(s + i, n - i);
    if (!len) return i;
    i += len;
  }
  return n;
}

/* A string field's value is valid UTF-8 where the schema asks for it
 * (proto3); else false with the error, at the first bad byte, and the
 * field's path (element `index` of a repeated field). */
static inline bool pbd_StringValueOk(const pbd_FieldDef *fd, const pbd_WireField *f,
                                     const uint8_t *base, uint32_t index, pbd_Status *s) {
  if (!fd->validate_utf8) return true;
  size_t bad = pbd_Utf8_InvalidAt(f->data, f->size);
  if (bad == f->size) return true;
  pbd_Status_SetErrorAt(s, kPbd_Status_BadUtf8, (size_t)(f->data + bad - base),
                        "invalid UTF-8 in string field %s", fd->name);
  pbd_FieldDef_PrependPath(fd, fd->number, index, s);
  return false;
}

/* Rule 6 under --strict and --ignore-unknown, for an unknown field of a
 * message the schema describes (in_schema): false with the status when
 * refused; else *keep says whether it is kept (not under --ignore-unknown). */
static inline bool pbd_UnknownFieldAllowed(bool in_schema, const pbd_ReadOptions *o,
                                           const pbd_WireField *f, const uint8_t *base,
                                           bool *keep, pbd_Status *s) {
  *keep = true;
  if (!in_schema) return true;
  if (o->strict) {
    pbd_Status_SetErrorAt(s, kPbd_Status_UnknownField, (size_t)(f->start - base),
                          "unknown field %u (wire type %u) refused by --strict", f->number,
                          f->wire_type);
    return false;
  }
  *keep = !o->ignore_unknown;
  return true;
}

/* Rule 9 under the same options: a closed-enum value the schema does not
 * know is refused (false, the status set), dropped or kept (*keep) as an
 * unknown varint. */
static inline bool pbd_UnknownEnumAllowed(bool in_schema, const pbd_ReadOptions *o,
                                          const pbd_FieldDef *fd, uint64_t raw, bool *keep,
                                          pbd_Status *s) {
  *keep = true;
  if (o->strict && in_schema) {
    pbd_Status_SetError(s, kPbd_Status_UnknownField,
                        "value %lld of closed enum %s refused by --strict",
                        (long long)(int32_t)raw, fd->enum_type->full_name);
    return false;
  }
  *keep = !o->ignore_unknown;
  return true;
}

/* A closed enum value the schema does not know goes to unknown fields, as
 * protobuf readers do (rule 9). */
/* The unknown varint a closed enum's unknown value is kept as: the int32
 * the field reads, sign-extended, as C++ and Python protobuf keep it (so the
 * 10-byte and the 5-byte forms of -1 are one value, rule 8). */
static inline uint64_t pbd_UnknownEnumVarint(uint64_t raw) {
  return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
}

static inline bool pbd_EnumValueUnknown(const pbd_FieldDef *fd, uint64_t raw) {
  if (fd->type != kPbd_Type_Enum || !fd->enum_type || !fd->enum_type->is_closed) return false;
  const pbd_EnumDef *e = fd->enum_type;
  int32_t v = (int32_t)(uint32_t)raw;
  /* most enums number their values 0..n-1: then a range check decides */
  if (e->dense_) return v < 0 || v >= (int32_t)e->value_count;
  return !pbd_EnumDef_FindValueByNumber(e, v);
}

/* Canonical bits of a float for hashing (unless --float-bits): -0 as +0 and
 * every NaN as one NaN, so values equal under rule 10 hash equal. */
/* The first word of a field's hash record: its number, then 1 for a schema
 * field and 2 for an unknown one; with typed_fields the schema type too. */
static inline uint64_t pbd_FieldRecordTag(uint32_t number, const pbd_FieldDef *fd, bool typed) {
  /* A schema field's word was worked out when the schema was loaded
   * (finish_field in lib/schema/schema_finalize.c), the one place it is. */
  if (fd) return fd->record_tag_[typed];
  return (uint64_t)number << 8 | 2;
}

/* Rule 10 on a float's and a double's bits: -0 as +0, every NaN as the one
 * quiet NaN (the magnitude past infinity's is a NaN's).  Without a branch,
 * so that a loop over packed values compiles to vector code. */
static inline uint32_t pbd_CanonicalFloatBits(uint32_t b) {
  uint32_t magnitude = b & 0x7fffffffu;
  uint32_t zero_made_positive = b & -(uint32_t)(magnitude != 0);
  return magnitude > 0x7f800000u ? 0x7fc00000u : zero_made_positive;
}

static inline uint64_t pbd_CanonicalDoubleBits(uint64_t b) {
  uint64_t magnitude = b & 0x7fffffffffffffffull;
  uint64_t zero_made_positive = b & -(uint64_t)(magnitude != 0);
  return magnitude > 0x7ff0000000000000ull ? 0x7ff8000000000000ull : zero_made_positive;
}

static inline uint64_t pbd_HashBits(bool float_bits, pbd_ValueKind k, uint64_t u) {
  if (float_bits) return u;
  if (k == kPbd_Value_Float) return pbd_CanonicalFloatBits((uint32_t)u);
  if (k == kPbd_Value_Double) return pbd_CanonicalDoubleBits(u);
  return u;
}

/* pbd_HashBits for a field's schema type: the same bits, without the
 * type's kind looked up first (the hash pass asks this for every scalar). */
static inline uint64_t pbd_HashBitsOfType(bool float_bits, pbd_FieldType t, uint64_t u) {
  if (float_bits) return u;
  if (t == kPbd_Type_Float) return pbd_CanonicalFloatBits((uint32_t)u);
  if (t == kPbd_Type_Double) return pbd_CanonicalDoubleBits(u);
  return u;
}

/* The record is little-endian on every machine (docs/hash.md), so that
 * fingerprints do not depend on the host. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static inline uint64_t pbd_ToLe64(uint64_t v) { return __builtin_bswap64(v); }
#else
static inline uint64_t pbd_ToLe64(uint64_t v) { return v; }
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
enum { kPbd_BigEndian = 1 };
#else
enum { kPbd_BigEndian = 0 };
#endif

static inline uint32_t pbd_LoadLe32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t pbd_LoadLe64(const uint8_t *p) {
  return (uint64_t)pbd_LoadLe32(p) | (uint64_t)pbd_LoadLe32(p + 4) << 32;
}

/* n fixed-width values of type t (float, double, fixed32/64, signed or
 * not) packed from p, decoded as pbd_FieldType_DecodeScalar decodes them,
 * floats and doubles made canonical (rule 10) when asked.  One loop per
 * type, without a branch in it: each compiles to vector code.  The hash
 * pass writes a tensor's millions of weights with it, and a tree reads them. */
/* The bytes of a value of a fixed-width type: 4 (float, fixed32,
 * sfixed32) or 8 (double, fixed64, sfixed64). */
static inline size_t pbd_FixedWidth(pbd_FieldType t) {
  return t == kPbd_Type_Float || t == kPbd_Type_Fixed32 || t == kPbd_Type_SFixed32 ? 4 : 8;
}

#define PBD_FIXED_LOOP(WIDTH, EXPR)                                     \
  do {                                                                  \
    for (size_t i = 0; i < n; i++) {                                    \
      const uint8_t *q = p + i * (WIDTH);                               \
      out[i] = (EXPR);                                                  \
    }                                                                   \
  } while (0)

static inline void pbd_PackedFixedValues(pbd_FieldType t, bool canonical, const uint8_t *p,
                                         size_t n, uint64_t *out) {
  switch (t) {
    case kPbd_Type_Float:
      if (!canonical) PBD_FIXED_LOOP(4, (uint64_t)pbd_LoadLe32(q));
      else PBD_FIXED_LOOP(4, (uint64_t)pbd_CanonicalFloatBits(pbd_LoadLe32(q)));
      break;
    case kPbd_Type_Fixed32:
      PBD_FIXED_LOOP(4, (uint64_t)pbd_LoadLe32(q));
      break;
    case kPbd_Type_SFixed32:
      PBD_FIXED_LOOP(4, (uint64_t)(int64_t)(int32_t)pbd_LoadLe32(q));
      break;
    case kPbd_Type_Double:
      if (!canonical) PBD_FIXED_LOOP(8, pbd_LoadLe64(q));
      else PBD_FIXED_LOOP(8, pbd_CanonicalDoubleBits(pbd_LoadLe64(q)));
      break;
    default: /* fixed64, sfixed64 */
      PBD_FIXED_LOOP(8, pbd_LoadLe64(q));
      break;
  }
}
#undef PBD_FIXED_LOOP

/* n values `width` bytes wide, `stride` apart from p, moved together to
 * `packed` (the tag after each dropped); the common strides, a value's
 * width and its one-byte tag, as constants. */
#define PBD_GATHER_LOOP(WIDTH, STRIDE)                                   \
  do {                                                                   \
    for (size_t i = 0; i < n; i++) memcpy(packed + i * (WIDTH), p + i * (STRIDE), (WIDTH)); \
  } while (0)

static inline void pbd_GatherFixed(const uint8_t *p, size_t width, size_t stride, size_t n,
                                   uint8_t *packed) {
  if (width == 4 && stride == 5) PBD_GATHER_LOOP(4, 5);
  else if (width == 8 && stride == 9) PBD_GATHER_LOOP(8, 9);
  else if (width == 4) PBD_GATHER_LOOP(4, stride);
  else PBD_GATHER_LOOP(8, stride);
}
#undef PBD_GATHER_LOOP

/* pbd_PackedFixedValues of values `stride` bytes apart: a packed run
 * (stride = width) or an unpacked one (the tag between).  An unpacked run
 * is moved together a block at a time first, so that the values are read
 * by the packed run's loop. */
static inline void pbd_FixedValues(pbd_FieldType t, bool canonical, const uint8_t *p,
                                   size_t stride, size_t n, uint64_t *out) {
  size_t width = pbd_FixedWidth(t);
  if (stride == width) {
    pbd_PackedFixedValues(t, canonical, p, n, out);
    return;
  }
  enum { kBlock = 64 };
  uint8_t packed[kBlock * 8];
  while (n) {
    size_t k = n < kBlock ? n : kBlock;
    pbd_GatherFixed(p, width, stride, k, packed);
    pbd_PackedFixedValues(t, canonical, packed, k, out);
    p += k * stride;
    out += k;
    n -= k;
  }
}

/* The Any type URL's message name (after the last '/') looked up in the
 * pool; NULL when it names none, or names a map entry: no message declares
 * such a type, and a map entry's reading drops unknown fields (as runtimes
 * parse entries), which a payload must keep, so the value stays bytes. */
static inline const pbd_MessageDef *pbd_AnyPayloadType(const pbd_DefPool *pool, pbd_StrView u) {
  const char *name = u.data + u.size;
  while (name > u.data && name[-1] != '/') name--;
  size_t nlen = u.size - (size_t)(name - u.data);
  char buf[512];
  if (!pool || nlen == 0 || nlen >= sizeof buf) return NULL;
  memcpy(buf, name, nlen);
  buf[nlen] = '\0';
  const pbd_MessageDef *t = pbd_DefPool_FindMessageByName(pool, buf);
  return t && !t->is_map_entry ? t : NULL;
}

/* Rule 4 (packed.c): the number of values of a packed run of fd, and the
 * width of each (0: varints); -1 with the status set when the run is
 * malformed.  Offsets in errors count from base. */
int64_t pbd_Packed_Count(const pbd_FieldDef *fd, const pbd_WireField *f, const uint8_t *base,
                         size_t *width, pbd_Status *s);
/* The next value of a packed run, read at p (p < end): where the run goes
 * on, or NULL with the status set. */
const uint8_t *pbd_Packed_Next(const pbd_FieldDef *fd, size_t width, const uint8_t *p,
                               const uint8_t *end, const uint8_t *base, uint64_t *raw,
                               pbd_Status *s);

/* True when buf reads as a message of `type` without any error, as certain
 * as the hash pass (canon_check.c); false when an error is possible. */
bool pbd_Canon_QuickCheck(const pbd_MessageDef *type, const uint8_t *p, const uint8_t *end,
                          const pbd_ReadOptions *o);
/* The same answer, the input cut in two halves checked on two threads. */
bool pbd_Canon_QuickCheckOnTwoThreads(const pbd_MessageDef *type, const uint8_t *p,
                                      const uint8_t *end, const pbd_ReadOptions *o);

/* Messages smaller than this are not kept: hashed again faster than found. */
enum { kPbd_HashCacheMinBytes = 16 };

/* Remembers a message's hash (hashcache.c); a no-op when c is NULL or the
 * message is below the cache's size floor. */
void pbd_HashCache_Add(pbd_HashCache *c, const uint8_t *data, size_t size, int depth,
                       pbd_Hash128 hash, bool empty);

#endif
