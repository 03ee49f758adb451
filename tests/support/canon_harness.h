/* pbdiff tests — the machinery shared by the differential suites of the
 * canonical hash pass (lib/canon/canon.h) against the tree builder (lib/tree/tree.h):
 * check_canon.c, check_canon_cache.c and check_canon_random.c.
 *
 * canon_harness.c: schemas, option sets and seeds, running the tree builder
 * and pbd_Canon_Hash / _Validate on the same bytes, comparing the results
 * (with the one tolerated difference it explains), reporting and shrinking
 * disagreements, the suite boilerplate.
 * canon_checks.c: the HashParts, Hasher and TryHashUnknown checks, and a
 * byte builder for inputs made by code.
 *
 * Output is quiet: counts, tolerated pairs and other notes go to stderr
 * only when $PBDIFF_VERBOSE is set; disagreements are always printed in
 * full (options, seed, input, minimal input, both results). */
#ifndef PBD_CANON_HARNESS_H_
#define PBD_CANON_HARNESS_H_

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/core/status.h"
#include "pbdiff/tree/tree.h"

/* ---- Schemas, options, seeds ---------------------------------------------- */

/* The message type `name` (NULL: schemaless) and its pool in *pool: sem3.* and
 * sem2.* from testdata/proto, onnx.* from the system's onnx.proto, onnxtest.*
 * from testdata/proto/onnx_optional.proto; fails the test on another name. */
const pbd_MessageDef *ch_type_named(const char *name, const pbd_DefPool **pool);

typedef struct {
  const char *name;
  int max_depth;
  bool equivalent, ignore_unknown, float_bits, strict;
} ch_OptSet;

enum { kCh_NumOptSets = 9, kCh_NumSeeds = 2 };
extern const ch_OptSet ch_opt_sets[kCh_NumOptSets]; /* every suite runs under these */
extern const uint64_t ch_seeds[kCh_NumSeeds];       /* and these hash seeds */

/* The tree options of an option set, with the seed and the pool. */
pbd_ReadOptions ch_tree_opts(const ch_OptSet *os, uint64_t seed, const pbd_DefPool *pool);
/* Whether to run fewer inputs: $PBDIFF_QUICK set (not "0"), or a sanitizer build. */
bool ch_quick(void);
/* Whether $PBDIFF_VERBOSE is set (not "0"): print counts and tolerated pairs. */
bool ch_verbose(void);

/* ---- Running and comparing -------------------------------------------------- */

typedef struct {
  bool ok;
  pbd_Hash128 hash;
  bool empty;        /* the canonical form has no field (tree; HashParts) */
  bool has_empty;
  bool scratch_kept; /* a scratch arena was passed and not given back */
  pbd_Status s;
} ch_Result;

typedef enum { kCh_Agree, kCh_Tolerated, kCh_Disagree } ch_Verdict;

/* What one check is about, for the report and for shrinking. */
typedef struct {
  const char *what; /* which function is compared ("Canon_Hash", ...) */
  const pbd_MessageDef *type;
  const pbd_DefPool *pool;
  pbd_ReadOptions o;
  const char *optname;
  bool validate; /* ch_run_pair checks pbd_Canon_Validate, not _Hash */
} ch_Case;

/* A result that is not ok, its status clear. */
ch_Result ch_result(void);
/* An exact-size malloc'd copy of b[0, n) (1 byte when n is 0), so that ASan sees over-reads. */
uint8_t *ch_copy(const uint8_t *b, size_t n);
/* pbd_Tree_Parse of buf[begin, end) as t: ok, root hash, whether empty, status. */
ch_Result ch_via_tree(const pbd_MessageDef *t, const uint8_t *buf, size_t begin, size_t end,
                      const pbd_ReadOptions *o);
/* pbd_Canon_Hash of buf[begin, end) as t, with the cache (may be NULL). */
ch_Result ch_via_canon(const pbd_MessageDef *t, const uint8_t *buf, size_t begin, size_t end,
                       const pbd_ReadOptions *o, pbd_HashCache *cache);
/* The verdict on the tree's result tr and the canonical pass's cr for buf[begin, end). */
ch_Verdict ch_compare(const pbd_DefPool *pool, const pbd_MessageDef *t, const uint8_t *buf,
                      size_t begin, size_t end, const ch_Result *tr, const ch_Result *cr);
/* Tree and Canon_Hash (or Validate, per c->validate) on an exact-size copy of b[0, n). */
ch_Verdict ch_run_pair(const ch_Case *c, const uint8_t *b, size_t n, ch_Result *tr, ch_Result *cr);
/* The case of function `what`, type t from pool, option set os and seed. */
ch_Case ch_make_case(const char *what, const pbd_MessageDef *t, const pbd_DefPool *pool,
                     const ch_OptSet *os, uint64_t seed);

/* ---- Reporting ---------------------------------------------------------------- */

enum { kCh_MaxSignatures = 64 };

/* Disagreements grouped by signature: function, type, how the results differ. */
typedef struct {
  char *sig;
  long count;
  int examples;
} ch_Signature;

typedef struct {
  const char *test;
  long checks, agreed, tolerated, disagreements;
  int tol_listed;
  pbd_Buf text;     /* examples of each signature */
  pbd_Buf tol_text; /* some tolerated pairs */
  ch_Signature sigs[kCh_MaxSignatures];
  int nsigs;
} ch_Report;

/* Starts the report of test `test`. */
void ch_report_init(ch_Report *r, const char *test);
/* Prints the report (counts only when verbose) and fails the test when anything disagreed. */
void ch_report_finish(ch_Report *r);
/* Records one verdict on `input` (shown up to 200 bytes); shrinkable: plain Canon_Hash vs tree. */
void ch_note(ch_Report *r, const ch_Case *c, ch_Verdict v, const uint8_t *input, size_t n,
             const ch_Result *tr, const ch_Result *cr, bool shrinkable, const char *extra);
/* Canon_Hash and Canon_Validate against the tree for one input, type and options. */
void ch_check_one(ch_Report *r, const ch_Case *c, const uint8_t *b, size_t n);

/* ---- Parts, the hasher, unknown fields (canon_checks.c) ------------------------ */

/* pbd_Canon_HashParts, with a scratch arena every other call (which must be given back). */
ch_Result ch_via_parts(const pbd_MessageDef *t, const uint8_t *buf, const pbd_Part *parts,
                       size_t nparts, int depth, const pbd_ReadOptions *o,
                       const pbd_HashCache *cache);
/* pbd_Hasher_HashParts with the hasher h. */
ch_Result ch_via_hasher(pbd_Hasher *h, const pbd_MessageDef *t, const pbd_Part *parts,
                        size_t nparts, int depth);
/* HashParts and a kept Hasher against the tree: whole, split at every field, every field apart. */
void ch_check_parts(ch_Report *r, const ch_Case *c, const uint8_t *b, size_t n);
/* HashParts at depth 1 and 2 against the tree as a root with a lower depth limit. */
void ch_check_parts_depth(ch_Report *r, const ch_Case *c, const uint8_t *b, size_t n);
/* TryHashUnknown (and Hasher_TryUnknown) of p as a LEN field at depth d against the tree. */
void ch_check_try_unknown(ch_Report *r, const ch_Case *c, const uint8_t *p, size_t n, int d);

/* ---- Building inputs (canon_checks.c) --------------------------------------------- */

typedef struct {
  uint8_t *p;
  size_t n, cap;
} ch_Bytes;

/* Appends d[0, n) to b. */
void ch_b_put(ch_Bytes *b, const void *d, size_t n);
/* Appends one byte. */
void ch_b_byte(ch_Bytes *b, uint8_t x);
/* Appends v as a (minimal) varint. */
void ch_b_varint(ch_Bytes *b, uint64_t v);
/* Appends the tag of field `number` with wire type wt. */
void ch_b_tag(ch_Bytes *b, uint32_t number, int wt);
/* Appends field `number` as LEN holding payload; returns where the payload starts in b. */
size_t ch_b_len(ch_Bytes *b, uint32_t number, const ch_Bytes *payload);
/* Appends field `number` as LEN holding n printable bytes starting near c. */
void ch_b_fill(ch_Bytes *b, uint32_t number, char c, size_t n);
/* Appends v little-endian in 4 bytes. */
void ch_b_u32(ch_Bytes *b, uint32_t v);
/* Appends v little-endian in 8 bytes. */
void ch_b_u64(ch_Bytes *b, uint64_t v);
/* Gives b's bytes as an exact-size malloc'd buffer (size in *n) and frees b. */
uint8_t *ch_b_exact(ch_Bytes *b, size_t *n);

/* ---- Suites --------------------------------------------------------------------- */

typedef struct {
  const char *name; /* its case: CK_RUN_CASE=name runs it alone */
  const TTest *test;
} ch_Test;

/* Runs suite `suite` of the n tests, each its own case (600 s timeout), and
 * returns main's exit status. */
int ch_run(const char *suite, const ch_Test *tests, size_t n);

#endif
