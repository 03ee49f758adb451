#include "pbdiff.h"

#include <string.h>

pbd_CompareOptions pbd_CompareOptions_Default(void) {
  pbd_CompareOptions o;
  memset(&o, 0, sizeof o);
  return o;
}

static int count_only(void *ctx, const pbd_Edit *e) {
  (void)ctx, (void)e;
  return 1; /* the first difference settles the verdict */
}

int pbd_Compare(const uint8_t *left, size_t left_size, const uint8_t *right, size_t right_size,
                const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                pbd_CompareResult *result, pbd_Status *s) {
  pbd_CompareResult dummy;
  if (!result) result = &dummy;
  memset(result, 0, sizeof *result);
  pbd_TreeOptions t;
  memset(&t, 0, sizeof t);
  t.max_depth = o->max_depth;
  t.equivalent = o->equivalent;
  t.ignore_unknown = o->ignore_unknown;
  t.strict = o->strict;
  t.float_bits = o->diff.float_bits;
  t.pool = o->pool;
  t.parallel = o->parallel;
  t.hash_seed = pbd_RandomSeed(); /* crafted collisions do not carry over */
  pbd_Arena *la = pbd_Arena_New(), *ra = pbd_Arena_New();
  pbd_ElementIndex *idx = pbd_ElementIndex_New();
  int rc = -1;
  if (!la || !ra || !idx) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    goto done;
  }
  /* RIGHT shares the elements it has byte for byte in common with LEFT. */
  pbd_TreeOptions lt = t, rt = t;
  lt.record = idx;
  rt.reuse = idx;
  static const uint8_t kEmpty[1] = {0};
  pbd_Message *lm = pbd_Tree_Parse(o->type, left ? left : kEmpty, 0, left_size, &lt, la, s);
  if (!lm) {
    result->failed_input = s->code == kPbd_Status_OutOfMemory ? 0 : 1;
    goto done;
  }
  pbd_Message *rm = pbd_Tree_Parse(o->type, right ? right : kEmpty, 0, right_size, &rt, ra, s);
  if (!rm) {
    result->failed_input = s->code == kPbd_Status_OutOfMemory ? 0 : 2;
    goto done;
  }
  size_t n = 0;
  int walk = pbd_Diff_Run(lm, rm, &o->diff, fn ? fn : count_only, ctx, &n, s);
  if (walk < 0) goto done;
  result->n_edits = n;
  result->equal = n == 0;
  rc = n == 0 ? 0 : 1;
done:
  pbd_Arena_Free(ra);
  pbd_Arena_Free(la);
  pbd_ElementIndex_Free(idx);
  return rc;
}
