/* pbdiff — bounds-checked protobuf wire primitives.
 *
 * Readers take (ptr, end, &out) and return the advanced pointer, or NULL when
 * the bytes are malformed; they never read at or past `end`.  Offsets in
 * errors are measured from `base`, the start of the whole input. */
#ifndef PBD_WIRE_H_
#define PBD_WIRE_H_

#include <stdint.h>

#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_WireType_Varint = 0,
  kPbd_WireType_Fixed64 = 1,
  kPbd_WireType_Delimited = 2,
  kPbd_WireType_StartGroup = 3,
  kPbd_WireType_EndGroup = 4,
  kPbd_WireType_Fixed32 = 5,
} pbd_WireType;

enum { kPbd_MaxFieldNumber = (1 << 29) - 1, kPbd_DefaultMaxDepth = 100 };

/* Reads a varint of at most 10 bytes.  NULL when it is truncated or longer;
 * pbd_Wire_VarintError says which. */
static inline const uint8_t *pbd_Wire_ReadVarint(const uint8_t *p, const uint8_t *end,
                                                 uint64_t *out) {
  if (p < end && *p < 0x80) { /* the common one-byte case */
    *out = *p;
    return p + 1;
  }
  uint64_t v = 0;
  for (int i = 0; i < 10; i++) {
    if (p + i >= end) return NULL;
    uint8_t b = p[i];
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *out = v;
      return p + i + 1;
    }
  }
  return NULL;
}

/* Why pbd_Wire_ReadVarint failed at p: "truncated varint" or
 * "varint longer than 10 bytes". */
const char *pbd_Wire_VarintError(const uint8_t *p, const uint8_t *end);

static inline const uint8_t *pbd_Wire_ReadFixed32(const uint8_t *p, const uint8_t *end,
                                                  uint32_t *out) {
  if (end - p < 4) return NULL;
  *out = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return p + 4;
}

static inline const uint8_t *pbd_Wire_ReadFixed64(const uint8_t *p, const uint8_t *end,
                                                  uint64_t *out) {
  uint32_t lo = 0, hi = 0;
  if (end - p < 8) return NULL;
  pbd_Wire_ReadFixed32(p, end, &lo);
  pbd_Wire_ReadFixed32(p + 4, end, &hi);
  *out = (uint64_t)hi << 32 | lo;
  return p + 8;
}

/* One field as it stands on the wire. */
typedef struct {
  uint32_t number;
  uint8_t wire_type;     /* pbd_WireType */
  uint64_t value;        /* varint, fixed32 or fixed64 value */
  const uint8_t *data;   /* LEN payload or group body (without the end tag) */
  size_t size;
  const uint8_t *start;  /* first byte of the tag */
} pbd_WireField;

/* The common field in a few loads, before pbd_Wire_ReadField: a tag of one
 * or two bytes (fields 1 to 2047), then a varint, a fixed32 or fixed64, or
 * a LEN whose length takes at most four bytes, all before end.  Returns the
 * byte after it; NULL: read it the long way (which also says what is wrong
 * with it, and reads groups).  Always inline: a call per field costs more
 * than the cases it reads save. */
static inline __attribute__((always_inline)) const uint8_t *
pbd_Wire_ReadCommonField(const uint8_t *p, const uint8_t *end, pbd_WireField *f) {
  if (end - p < 2) return NULL;
  uint32_t tag = p[0];
  const uint8_t *q = p + 1;
  if (tag >= 0x80) { /* (fields 16 to 2047: ONNX's AttributeProto.type is 20) */
    if (p[1] >= 0x80 || end - p < 3) return NULL;
    tag = (tag & 0x7f) | (uint32_t)p[1] << 7;
    q = p + 2;
  }
  if (tag < 8) return NULL;
  f->number = tag >> 3;
  f->wire_type = tag & 7;
  f->start = p;
  f->data = NULL;
  f->size = 0;
  switch (f->wire_type) {
    case kPbd_WireType_Varint:
      if (*q < 0x80) {
        f->value = *q;
        return q + 1;
      }
      return pbd_Wire_ReadVarint(q, end, &f->value);
    case kPbd_WireType_Fixed32: {
      uint32_t v = 0;
      q = pbd_Wire_ReadFixed32(q, end, &v);
      f->value = v;
      return q;
    }
    case kPbd_WireType_Fixed64:
      return pbd_Wire_ReadFixed64(q, end, &f->value);
    case kPbd_WireType_Delimited:
      break;
    default:
      return NULL;
  }
  size_t len = *q++;
  if (len >= 0x80) { /* (most lengths take one byte) */
    len &= 0x7f;
    for (int i = 1;; i++) {
      if (i == 4 || q == end) return NULL;
      len |= (size_t)(*q & 0x7f) << (7 * i);
      if (*q++ < 0x80) break;
    }
  }
  if (len > (size_t)(end - q)) return NULL;
  f->value = 0;
  f->data = q;
  f->size = len;
  return q + len;
}

/* Reads one field at p (p < end).  A group is read up to its matching end
 * tag, nested groups within `depth_left` levels.  An end-group tag is
 * returned as a field of wire type EndGroup (the caller decides whether it
 * closes something).  Returns the pointer past the field, or NULL with the
 * status set: truncated or overlong varint, wire type 6 or 7, field number
 * 0 or over 2^29-1, LEN past the end, unmatched or mismatched end group,
 * groups nested deeper than the limit. */
const uint8_t *pbd_Wire_ReadField(const uint8_t *p, const uint8_t *end, const uint8_t *base,
                                  int depth_left, pbd_WireField *f, pbd_Status *s);

/* The field at p, read as pbd_Wire_ReadField reads it (the common field
 * first), for a caller that only needs to know whether it reads: NULL when
 * it does not, or when it is an end-group tag (the caller's own reading
 * then reports why). */
static inline const uint8_t *pbd_Wire_SkimField(const uint8_t *p, const uint8_t *end,
                                                int depth_left, pbd_WireField *f) {
  const uint8_t *q = pbd_Wire_ReadCommonField(p, end, f);
  if (q) return q;
  pbd_Status s;
  pbd_Status_Clear(&s);
  q = pbd_Wire_ReadField(p, end, p, depth_left, f, &s);
  return q && f->wire_type != kPbd_WireType_EndGroup ? q : NULL;
}

/* ZigZag decoding (sint32/sint64). */
static inline int64_t pbd_Wire_ZigZagDecode64(uint64_t n) {
  return (int64_t)(n >> 1) ^ -(int64_t)(n & 1);
}
static inline int32_t pbd_Wire_ZigZagDecode32(uint32_t n) {
  return (int32_t)(n >> 1) ^ -(int32_t)(n & 1);
}

#ifdef __cplusplus
}
#endif
#endif
