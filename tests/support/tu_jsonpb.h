/* pbdiff tests — what the suites of the protobuf JSON reader
 * (tests/unit/inputs/check_jsonpb_*.c) share: the schema of
 * testdata/jsonpb/wkt_test.proto (sem3, sem2, jsonpb_test and the well-known
 * types), loaded once per process. */
#ifndef PBD_TU_JSONPB_H_
#define PBD_TU_JSONPB_H_

#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

pbd_DefPool *tu_jsonpb_pool(void);
/* Its message `name`; fails the test when it is not there. */
const pbd_MessageDef *tu_jsonpb_type(const char *name);
/* Tree options for pool p with a fixed seed. */
pbd_ReadOptions tu_jsonpb_tree_opts(const pbd_DefPool *p);

#endif
