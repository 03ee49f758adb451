/* pbdiff tests — the JSON reader suites' schema (tu_jsonpb.h). */
#include "tu_jsonpb.h"

#include <check.h>
#include <string.h>

#include "testutil.h"

static pbd_DefPool *pool;

pbd_DefPool *tu_jsonpb_pool(void) {
  if (!pool) pool = tu_load_pool("jsonpb/wkt_test.proto");
  return pool;
}

const pbd_MessageDef *tu_jsonpb_type(const char *n) {
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(tu_jsonpb_pool(), n);
  ck_assert_msg(m != NULL, "no type %s", n);
  return m;
}

pbd_ReadOptions tu_jsonpb_tree_opts(const pbd_DefPool *p) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 0x5eed1234;
  o.pool = p;
  return o;
}
