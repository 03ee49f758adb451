/* pbdiff — rule 4 for both readers of the wire (canon.c, tree.c): how a
 * packed run of scalars is counted and read, with the same errors. */
#include "canon/canon_internal.h"

int64_t pbd_Packed_Count(const pbd_FieldDef *fd, const pbd_WireField *f, const uint8_t *base,
                         size_t *width, pbd_Status *s) {
  int wt = pbd_WireTypeOf(fd->type);
  *width = wt == kPbd_WireType_Fixed32 ? 4 : wt == kPbd_WireType_Fixed64 ? 8 : 0;
  uint64_t n = 0;
  if (*width) {
    if (f->size % *width) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(f->data - base),
                            "packed field %s has %zu bytes, not a multiple of %zu", fd->name,
                            f->size, *width);
      return -1;
    }
    n = f->size / *width;
  } else {
    for (const uint8_t *q = f->data; q < f->data + f->size; q++) n += *q < 0x80;
  }
  if (n == 0 && f->size > 0) { /* only continuation bytes: a varint cut short */
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(f->data - base),
                          "truncated varint in packed field %s", fd->name);
    return -1;
  }
  return (int64_t)n;
}

const uint8_t *pbd_Packed_Next(const pbd_FieldDef *fd, size_t width, const uint8_t *p,
                               const uint8_t *end, const uint8_t *base, uint64_t *raw,
                               pbd_Status *s) {
  if (width == 4) {
    uint32_t v32 = 0;
    p = pbd_Wire_ReadFixed32(p, end, &v32);
    *raw = v32;
    return p;
  }
  if (width == 8) return pbd_Wire_ReadFixed64(p, end, raw);
  const uint8_t *q = pbd_Wire_ReadVarint(p, end, raw);
  if (!q)
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(p - base), "%s in packed field %s",
                          pbd_Wire_VarintError(p, end), fd->name);
  return q;
}
