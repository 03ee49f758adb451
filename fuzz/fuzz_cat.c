/* libFuzzer harness: what `pbdiff cat` and `pbdiff hash` do with hostile
 * bytes: the whole tree, its text and JSON forms, both fingerprints.
 *
 * The first byte picks a message type (schemaless, sem3.M, sem2.M,
 * onnx.ModelProto) and the read options; the rest is the message.  The
 * schemas come from the descriptor set named by $PBDIFF_FUZZ_DESC (made by
 * `make fuzz`; without it every input is read schemaless).  Checked besides
 * sanitizers: the hash pass and the tree succeed or fail together, and with
 * the same hash (seed 0, as `pbdiff hash`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pool.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/core/arena.h"
#include "pbdiff/format/format.h"
#include "pbdiff/tree/tree.h"

static pbd_DefPool *pool;
static const pbd_MessageDef *types[4];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  pool = fuzz_load_pool();
  if (!pool) return 0;
  types[1] = pbd_DefPool_FindMessageByName(pool, "sem3.M");
  types[2] = pbd_DefPool_FindMessageByName(pool, "sem2.M");
  types[3] = pbd_DefPool_FindMessageByName(pool, "onnx.ModelProto");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t sel = data[0];
  data++, size--;
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.pool = pool;
  o.equivalent = sel & 4;
  o.ignore_unknown = sel & 8;
  o.float_bits = sel & 16;
  o.max_depth = sel & 32 ? 8 : 0;
  const pbd_MessageDef *type = types[sel & 3];
  pbd_Arena *a = pbd_Arena_New();
  if (!a) return 0;
  pbd_Status ts, hs;
  pbd_Status_Clear(&ts);
  pbd_Status_Clear(&hs);
  pbd_Message *root = pbd_Tree_Parse(type, data, 0, size, &o, a, &ts);
  pbd_Hash128 h;
  bool hashed = pbd_Canon_Hash(type, data, 0, size, &o, NULL, &h, &hs);
  if (hashed != (root != NULL)) {
    fprintf(stderr, "hash pass %s (%s), tree %s (%s)\n", hashed ? "ok" : "failed", hs.msg,
            root ? "ok" : "failed", ts.msg);
    abort();
  }
  if (root) {
    if (!pbd_Hash128_Equal(h, root->hash)) {
      fprintf(stderr, "hash pass and tree disagree\n");
      abort();
    }
    pbd_Buf b = {0};
    pbd_TextOptions t = {.max_bytes = 0};
    pbd_Format_TextMessage(&b, root, &t);
    pbd_Value v = {.kind = kPbd_Value_Message, .m = root};
    pbd_Format_JsonValue(&b, &v);
    pbd_Buf_Free(&b);
    uint8_t d[32];
    if (!pbd_Tree_Sha256(root, &o, d)) abort();
  }
  pbd_Arena_Free(a);
  return 0;
}
