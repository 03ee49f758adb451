#include "pbdiff/wire/wire.h"

const char *pbd_Wire_VarintError(const uint8_t *p, const uint8_t *end) {
  for (int i = 0; i < 10; i++) {
    if (p + i >= end) return "truncated varint";
    if (p[i] < 0x80) return "valid varint";
  }
  return "varint longer than 10 bytes";
}

static size_t off(const uint8_t *p, const uint8_t *base) { return (size_t)(p - base); }

/* Reads a tag; checks the field number and wire type. */
static const uint8_t *read_tag(const uint8_t *p, const uint8_t *end, const uint8_t *base,
                               pbd_WireField *f, pbd_Status *s) {
  uint64_t tag;
  const uint8_t *q = pbd_Wire_ReadVarint(p, end, &tag);
  if (!q) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base), "%s in tag",
                          pbd_Wire_VarintError(p, end));
    return NULL;
  }
  uint64_t number = tag >> 3;
  uint8_t wt = tag & 7;
  if (number == 0 || number > kPbd_MaxFieldNumber) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                          "invalid field number %llu", (unsigned long long)number);
    return NULL;
  }
  if (wt > 5) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                          "invalid wire type %u (field %llu)", wt, (unsigned long long)number);
    return NULL;
  }
  f->number = (uint32_t)number;
  f->wire_type = wt;
  f->start = p;
  return q;
}

static const uint8_t *skip_group(const uint8_t *p, const uint8_t *end, const uint8_t *base,
                                 int depth_left, pbd_WireField *f, pbd_Status *s) {
  if (depth_left <= 0) {
    pbd_Status_SetErrorAt(s, kPbd_Status_MaxDepthExceeded, off(f->start, base),
                          "groups nested too deep");
    return NULL;
  }
  f->data = p;
  while (p < end) {
    pbd_WireField inner;
    const uint8_t *q = pbd_Wire_ReadField(p, end, base, depth_left - 1, &inner, s);
    if (!q) return NULL;
    if (inner.wire_type == kPbd_WireType_EndGroup) {
      if (inner.number != f->number) {
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                              "end group %u does not match start group %u", inner.number,
                              f->number);
        return NULL;
      }
      f->size = (size_t)(p - f->data);
      return q;
    }
    p = q;
  }
  pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(f->start, base),
                        "group %u has no end tag", f->number);
  return NULL;
}

const uint8_t *pbd_Wire_ReadField(const uint8_t *p, const uint8_t *end, const uint8_t *base,
                                  int depth_left, pbd_WireField *f, pbd_Status *s) {
  p = read_tag(p, end, base, f, s);
  if (!p) return NULL;
  f->value = 0;
  f->data = NULL;
  f->size = 0;
  const uint8_t *q;
  switch (f->wire_type) {
    case kPbd_WireType_Varint:
      q = pbd_Wire_ReadVarint(p, end, &f->value);
      if (!q)
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base), "%s (field %u)",
                              pbd_Wire_VarintError(p, end), f->number);
      return q;
    case kPbd_WireType_Fixed64:
      q = pbd_Wire_ReadFixed64(p, end, &f->value);
      if (!q)
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                              "truncated fixed64 (field %u)", f->number);
      return q;
    case kPbd_WireType_Fixed32: {
      uint32_t v = 0;
      q = pbd_Wire_ReadFixed32(p, end, &v);
      if (!q)
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                              "truncated fixed32 (field %u)", f->number);
      f->value = v;
      return q;
    }
    case kPbd_WireType_Delimited: {
      uint64_t len;
      q = pbd_Wire_ReadVarint(p, end, &len);
      if (!q) {
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base), "%s in length (field %u)",
                              pbd_Wire_VarintError(p, end), f->number);
        return NULL;
      }
      if (len > (uint64_t)(end - q)) {
        pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, off(p, base),
                              "length %llu of field %u runs past the end (only %zu left)",
                              (unsigned long long)len, f->number, (size_t)(end - q));
        return NULL;
      }
      f->data = q;
      f->size = (size_t)len;
      return q + len;
    }
    case kPbd_WireType_StartGroup:
      return skip_group(p, end, base, depth_left, f, s);
    case kPbd_WireType_EndGroup:
      return p;
  }
  return NULL; /* unreachable: read_tag rejects wire types 6 and 7 */
}
