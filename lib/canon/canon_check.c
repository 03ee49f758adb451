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
#include "pbdiff/core/threads.h"
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

/* ---- The same check on two threads ------------------------------------------ */

/* A message's fields are checked one by one, each on its own: any run of
 * whole fields can be checked apart from the rest.  So the input is cut in
 * two at a field near its middle; where the middle falls inside a
 * sub-message (an ONNX model's graph, then its nodes), the cut goes down
 * into it, and its parent's fields before and after it go to the two
 * halves.  The cut is found by reading the tags of one level at a time. */

enum { kMaxCutDepth = 8 };

typedef struct {
  const pbd_MessageDef *def;
  const uint8_t *p, *end;
  int depth;
} Span;

typedef struct {
  const pbd_ReadOptions *o;
  int max_depth;
  Span spans[kMaxCutDepth + 1];
  int n;
  bool ok;
} Half;

static void half_add(Half *h, const pbd_MessageDef *def, const uint8_t *p, const uint8_t *end,
                     int depth) {
  if (p < end) h->spans[h->n++] = (Span){def, p, end, depth};
}

static void *check_half(void *arg) {
  Half *h = arg;
  h->ok = true;
  for (int i = 0; i < h->n && h->ok; i++)
    h->ok = message_ok(h->o, h->max_depth, h->spans[i].def, h->spans[i].p, h->spans[i].end,
                       h->spans[i].depth);
  return NULL;
}

/* The field of [p, end) that holds the byte at mid, in *f; false when a
 * field before it does not read (the check of the whole then decides). */
static bool field_at(const uint8_t *p, const uint8_t *end, const uint8_t *mid, int depth_left,
                     pbd_WireField *f) {
  while (p < end) {
    const uint8_t *next = pbd_Wire_SkimField(p, end, depth_left, f);
    if (!next) return false;
    if (next > mid) return true;
    p = next;
  }
  return false;
}

/* Splits [p, end) of def into the two halves' spans. */
static void cut(Half *a, Half *b, const pbd_MessageDef *def, const uint8_t *p, const uint8_t *end) {
  Span rest[kMaxCutDepth]; /* each parent's fields after the child cut into */
  int depth = 0;
  for (;; depth++) {
    pbd_WireField f;
    if (!field_at(p, end, p + (end - p) / 2, a->max_depth - depth, &f)) {
      half_add(a, def, p, end, depth); /* no cut here: one half checks it all */
      break;
    }
    const pbd_FieldDef *fd = def ? pbd_MessageDef_FieldByNumber(def, f.number) : NULL;
    /* down into a sub-message only where message_ok would go: a known
     * message field, delimited, not too deep */
    bool into = depth + 1 < kMaxCutDepth && depth + 1 <= a->max_depth &&
                f.wire_type == kPbd_WireType_Delimited && fd && fd->type == kPbd_Type_Message;
    half_add(a, def, p, f.start, depth);
    if (!into) { /* cut before that field */
      half_add(b, def, f.start, end, depth);
      break;
    }
    rest[depth] = (Span){def, f.data + f.size, end, depth};
    def = fd->message_type;
    p = f.data;
    end = f.data + f.size;
  }
  for (int d = depth - 1; d >= 0; d--) half_add(b, rest[d].def, rest[d].p, rest[d].end, d);
}

bool pbd_Canon_QuickCheckOnTwoThreads(const pbd_MessageDef *type, const uint8_t *p,
                                      const uint8_t *end, const pbd_ReadOptions *o) {
  Half a = {o, pbd_ReadOptions_MaxDepth(o), {{0}}, 0, false}, b = a;
  cut(&a, &b, type, p, end);
  if (a.n == 0 || b.n == 0) return pbd_Canon_QuickCheck(type, p, end, o);
  if (!pbd_Threads_RunBoth(check_half, &a, &b, true)) check_half(&b);
  return a.ok && b.ok;
}
