/* pbdiff — what values mean (values.h). */
#include <math.h>
#include <string.h>

#include "canon/canon_internal.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/wire/wire.h"

uint64_t pbd_FieldType_DecodeScalar(pbd_FieldType t, uint64_t raw) {
  return pbd_DecodeScalarInline(t, raw);
}

bool pbd_Value_FloatEqual(pbd_ValueKind k, uint64_t a, uint64_t b) {
  if (k == kPbd_Value_Float) {
    float x, y;
    uint32_t ax = (uint32_t)a, bx = (uint32_t)b;
    memcpy(&x, &ax, 4);
    memcpy(&y, &bx, 4);
    return x == y || (isnan(x) && isnan(y));
  }
  double x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  return x == y || (isnan(x) && isnan(y));
}

int pbd_Value_CompareKeys(const pbd_Value *a, const pbd_Value *b) {
  /* keys of two kinds (a map key retyped between schema versions) order by
   * kind, never by reading one as the other */
  if (a->kind != b->kind) return (a->kind > b->kind) - (a->kind < b->kind);
  if (a->kind == kPbd_Value_String || a->kind == kPbd_Value_Bytes) {
    size_t n = a->s.size < b->s.size ? a->s.size : b->s.size;
    int r = n ? memcmp(a->s.data, b->s.data, n) : 0;
    if (r) return r;
    return (a->s.size > b->s.size) - (a->s.size < b->s.size);
  }
  if (a->kind == kPbd_Value_Int || a->kind == kPbd_Value_Enum) return (a->i > b->i) - (a->i < b->i);
  return (a->u > b->u) - (a->u < b->u);
}

pbd_Value pbd_FieldDef_DefaultValue(const pbd_FieldDef *fd) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.field = fd;
  v.kind = pbd_ValueKindOf(fd->type);
  if (pbd_ValueKind_IsStr(v.kind)) v.s = fd->default_value.s;
  else if (v.kind != kPbd_Value_Message) v.u = fd->default_value.u;
  return v;
}
