/* pbdiff — the quick check of an input that needs no hash (canon.h,
 * pbd_Canon_Validate): two inputs with identical bytes are equal as soon as
 * they read without error.
 *
 * It walks the wire as the hash pass reads it, but keeps nothing and writes
 * no message: it only answers "certainly no error".  Wherever an error is
 * possible or the answer is not plain (groups, a refused unknown field or
 * enum value, anything malformed), it answers "not sure", and the caller
 * runs the hash pass's own reading, which finds the error and words it. */
#include "pbdiff/canon/canon.h"
#include "canon/canon_internal.h"
#include "pbdiff/wire/wire.h"

static bool enum_refused(const pbd_ReadOptions *o, const pbd_FieldDef *fd, uint64_t raw) {
  return o->strict && pbd_EnumValueUnknown(fd, raw);
}

/* A packed run of fd's values that reads without error. */
static bool packed_ok(const pbd_ReadOptions *o, const pbd_FieldDef *fd, const uint8_t *p,
                      const uint8_t *end) {
  int wt = pbd_WireTypeOf(fd->type);
  size_t n = (size_t)(end - p);
  if (wt == kPbd_WireType_Fixed32) return n % 4 == 0;
  if (wt == kPbd_WireType_Fixed64) return n % 8 == 0;
  bool check_enum = o->strict && fd->type == kPbd_Type_Enum;
  while (p < end) {
    uint64_t raw;
    const uint8_t *q = pbd_Wire_ReadVarint(p, end, &raw);
    if (!q || (check_enum && enum_refused(o, fd, raw))) return false;
    p = q;
  }
  return true;
}

/* A known field whose wire type fits: its value reads without error. */
static bool value_ok(const pbd_ReadOptions *o, int max_depth, const pbd_FieldDef *fd,
                     uint64_t value, const uint8_t *data, size_t size, int depth);

static bool message_ok(const pbd_ReadOptions *o, int max_depth, const pbd_MessageDef *def,
                       const uint8_t *p, const uint8_t *end, int depth) {
  while (p < end) {
    uint64_t tag, value = 0;
    p = pbd_Wire_ReadVarint(p, end, &tag);
    uint64_t number = p ? tag >> 3 : 0;
    int wt = (int)(tag & 7);
    if (number == 0 || number > kPbd_MaxFieldNumber) return false;
    const uint8_t *data = NULL;
    size_t size = 0;
    switch (wt) {
      case kPbd_WireType_Varint:
        if (!(p = pbd_Wire_ReadVarint(p, end, &value))) return false;
        break;
      case kPbd_WireType_Fixed64:
        if (!(p = pbd_Wire_ReadFixed64(p, end, &value))) return false;
        break;
      case kPbd_WireType_Fixed32: {
        uint32_t v;
        if (!(p = pbd_Wire_ReadFixed32(p, end, &v))) return false;
        value = v;
        break;
      }
      case kPbd_WireType_Delimited:
        if (!(p = pbd_Wire_ReadVarint(p, end, &value)) || value > (uint64_t)(end - p))
          return false;
        data = p;
        size = (size_t)value;
        p += size;
        break;
      default:
        return false; /* groups and stray end tags: the careful reading decides */
    }
    if (!def) continue; /* no schema: any value is a value (or bytes) */
    const pbd_FieldDef *fd = pbd_MessageDef_FieldByNumber(def, (uint32_t)number);
    if (fd && wt == pbd_WireTypeOf(fd->type)) {
      if (!value_ok(o, max_depth, fd, value, data, size, depth)) return false;
    } else if (fd && fd->is_packable && wt == kPbd_WireType_Delimited) {
      if (!packed_ok(o, fd, data, data + size)) return false;
    } else if (o->strict) {
      return false; /* an unknown field, refused */
    }
  }
  return true;
}

static bool value_ok(const pbd_ReadOptions *o, int max_depth, const pbd_FieldDef *fd,
                     uint64_t value, const uint8_t *data, size_t size, int depth) {
  switch (fd->type) {
    case kPbd_Type_String:
      return !fd->validate_utf8 || pbd_Utf8_InvalidAt(data, size) == size;
    case kPbd_Type_Bytes:
      return true;
    case kPbd_Type_Message:
      return depth + 1 <= max_depth &&
             message_ok(o, max_depth, fd->message_type, data, data + size, depth + 1);
    case kPbd_Type_Enum:
      return !enum_refused(o, fd, value);
    default:
      return true;
  }
}

bool pbd_Canon_QuickCheck(const pbd_MessageDef *type, const uint8_t *p, const uint8_t *end,
                          const pbd_ReadOptions *o) {
  int max_depth = pbd_ReadOptions_MaxDepth(o);
  return message_ok(o, max_depth, type, p, end, 0);
}
