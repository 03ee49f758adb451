/* pbdiff fuzzing — the schema every harness reads: the descriptor set named
 * by $PBDIFF_FUZZ_DESC (make fuzz compiles it from testdata/proto and ONNX). */
#ifndef PBD_FUZZ_POOL_H_
#define PBD_FUZZ_POOL_H_

#include <stdio.h>
#include <stdlib.h>

#include "pbdiff/inputs/input.h"
#include "pbdiff/schema/schema.h"

/* The finalized pool, or NULL when $PBDIFF_FUZZ_DESC is not set; aborts when
 * the set does not load. */
static inline pbd_DefPool *fuzz_load_pool(void) {
  const char *desc = getenv("PBDIFF_FUZZ_DESC");
  if (!desc) return NULL;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Input in;
  pbd_DefPool *pool = pbd_DefPool_New();
  if (!pbd_Input_Open(&in, desc, &s) ||
      !pbd_DefPool_AddFileDescriptorSet(pool, in.data, in.size, desc, &s) ||
      !pbd_DefPool_Finalize(pool, &s)) {
    fprintf(stderr, "fuzz: cannot load %s: %s\n", desc, s.msg);
    abort();
  }
  pbd_Input_Close(&in);
  return pool;
}

#endif
