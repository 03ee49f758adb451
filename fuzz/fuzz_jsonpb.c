/* libFuzzer harness: protobuf JSON on hostile text.  The first byte picks
 * the type (sem3.M, sem2.M, onnx.ModelProto); the rest is JSON.  Whatever
 * pbd_JsonPb_ToBinary accepts must parse as a tree of that type; a refusal
 * must say why.  Schemas from $PBDIFF_FUZZ_DESC (see `make fuzz`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/inputs/input.h"
#include "pbdiff/inputs/jsonpb.h"
#include "pbdiff/schema/schema.h"
#include "fuzz_pool.h"
#include "pbdiff/tree/tree.h"

static pbd_DefPool *pool;
static const pbd_MessageDef *types[3];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  pool = fuzz_load_pool();
  if (!pool) abort();
  pbd_Status s;
  pbd_Status_Clear(&s);
  types[0] = pbd_DefPool_FindMessageByName(pool, "sem3.M");
  types[1] = pbd_DefPool_FindMessageByName(pool, "sem2.M");
  types[2] = pbd_DefPool_FindMessageByName(pool, "onnx.ModelProto");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const pbd_MessageDef *t = types[data[0] % 3];
  char *json = malloc(size); /* exact size: ASan sees any over-read */
  memcpy(json, data + 1, size - 1);
  pbd_Buf out = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (pbd_JsonPb_ToBinary(pool, t, json, size - 1, &out, &s)) {
    pbd_ReadOptions o;
    memset(&o, 0, sizeof o);
    o.pool = pool;
    o.max_depth = 10000; /* Struct nests 3 messages per JSON level */
    pbd_Arena *a = pbd_Arena_New();
    if (!pbd_Tree_Parse(t, (const uint8_t *)(out.data ? out.data : ""), 0, out.len, &o, a, &s))
      abort(); /* the reader wrote bytes that do not parse */
    pbd_Arena_Free(a);
  } else if (s.code == kPbd_Status_Ok || !s.msg[0]) {
    abort();
  }
  pbd_Buf_Free(&out);
  free(json);
  return 0;
}
