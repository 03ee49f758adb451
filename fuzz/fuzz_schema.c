/* libFuzzer harness: the descriptor-set loader on hostile bytes.
 *
 * The input is read as a FileDescriptorSet (what `-s FILE.desc` and a
 * `.pbdiff` `schema` key load), then finalized.  When the pool loads, every
 * message type in it is used the way a comparison uses it: its fields are
 * listed, a small fixed message is parsed as that type, printed as text and
 * fingerprinted.  Any crash, leak, hang or sanitizer report is a bug; a
 * refused schema is fine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/format/format.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

/* A message touching fields 1 to 5 with every wire type. */
static const uint8_t kProbe[] = {0x08, 0x96, 0x01, 0x12, 0x02, 0x08, 0x01, 0x1d, 0, 0, 0x80,
                                 0x3f, 0x21, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x2a, 0x01, 0x78};

static void use_type(const pbd_MessageDef *m, const pbd_DefPool *pool) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.pool = pool;
  pbd_Arena *a = pbd_Arena_New();
  if (!a) return;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *root = pbd_Tree_Parse(m, kProbe, 0, sizeof kProbe, &o, a, &s);
  if (root) {
    pbd_Buf b = {0};
    pbd_TextOptions t = {.max_bytes = 64};
    pbd_Format_TextMessage(&b, root, &t);
    pbd_Value v = {.kind = kPbd_Value_Message, .m = root};
    pbd_Format_JsonValue(&b, &v);
    pbd_Buf_Free(&b);
    uint8_t d[32];
    pbd_Tree_Sha256(root, &o, d);
  }
  pbd_Arena_Free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pbd_DefPool *pool = pbd_DefPool_New();
  if (!pool) return 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (pbd_DefPool_AddFileDescriptorSet(pool, data, size, "fuzz.desc", &s) &&
      pbd_DefPool_Finalize(pool, &s)) {
    size_t n = pbd_DefPool_MessageCount(pool);
    for (size_t i = 0; i < n && i < 64; i++) use_type(pbd_DefPool_Message(pool, i), pool);
  }
  pbd_DefPool_Free(pool);
  return 0;
}
