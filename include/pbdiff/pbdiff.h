/* pbdiff — the library in one header.
 *
 * A C program loads a schema (or none), compares two encoded messages with
 * options, and receives each difference through its own callback:
 *
 *   pbd_DefPool *pool = pbd_DefPool_New();
 *   pbd_DefPool_AddFileDescriptorSet(pool, desc, desc_size, "api.desc", &status);
 *   pbd_DefPool_Finalize(pool, &status);
 *   pbd_CompareOptions o = pbd_CompareOptions_Default();
 *   o.type = pbd_DefPool_FindMessageByName(pool, "acme.Reply");
 *   o.pool = pool;
 *   pbd_CompareResult r;
 *   if (pbd_Compare(left, left_size, right, right_size, &o, my_edit, my_ctx, &r, &status) < 0)
 *     ... status.msg, status.offset, r.failed_input say what went wrong ...
 *
 * Ownership: the library never keeps the input buffers nor the callback
 * after pbd_Compare returns; values in a pbd_Edit (strings, messages, the
 * path) are valid only during the callback.  Everything is re-entrant: no
 * global state.  docs/library.md has a complete example; the modules
 * behind this header (schema.h, tree.h, diff.h, format.h) can also be used
 * one by one. */
#ifndef PBD_PBDIFF_H_
#define PBD_PBDIFF_H_

#include "pbdiff/core/base.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/format/format.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/core/status.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PBDIFF_VERSION "0.3.0"
/* The fingerprint scheme of `pbdiff hash` (docs/hash.md): fingerprints of
 * one scheme stay comparable across pbdiff versions. */
#define PBDIFF_HASH_SCHEME "pbh1"
/* The cryptographic fingerprint's scheme (pbd_Tree_Sha256, docs/hash.md). */
#define PBDIFF_SHA256_SCHEME "pbs1"

typedef struct {
  const pbd_MessageDef *type;  /* the message type; NULL compares without a schema */
  /* How both inputs are read: nesting limit, --equivalent, --ignore-unknown,
   * --strict, --float-bits, the hash seed (0: a random seed per call, so
   * that crafted collisions do not carry over) and the schema pool (which
   * also resolves Any payloads; may be NULL). */
  pbd_ReadOptions read;
  /* With right_schema, RIGHT is read with its own schema and type (a NULL
   * type: without a schema), to compare across two versions of a schema by
   * field number; else as LEFT. */
  bool right_schema;
  const pbd_MessageDef *right_type;
  const pbd_DefPool *right_pool;
  bool parallel;               /* hash the two inputs on two threads (same result;
                                  off by default) */
  /* Only the verdict is wanted (pbdiff -q).  When the hashes settle it (one
   * schema and type for both, and no option under which inputs of different
   * hashes may compare equal: a tolerance, a matching rule, an ignore,
   * partial, a typed view of bytes, stream_pair), inputs whose hashes differ
   * are different without a walk, and no hash cache is kept for a walk: the
   * edit function is not called, n_edits is 1. */
  bool verdict_only;
  pbd_DiffOptions diff;        /* tolerances, matching rules, ignores, partial scope
                                  (its float_bits follows read.float_bits) */
  /* The most memory the walk may take for the trees of the parts that
   * differ (beyond the inputs and their hashes); going over it is an
   * error (kPbd_Status_TooLarge).  0: PBD_DEFAULT_MAX_MEMORY_BASE plus
   * PBD_DEFAULT_MAX_MEMORY_PER_BYTE per byte of the two inputs. */
  size_t max_memory;
  /* For streams: each message's type on LEFT and on RIGHT (a Confluent
   * record names its own by its message indexes; NULL entries and NULL
   * arrays: the type above). */
  const pbd_MessageDef *const *left_types, *const *right_types;
} pbd_CompareOptions;

/* The default bound on the walk's memory: whatever the shape of the inputs
 * (many tiny elements cost a tree node each, ~85 bytes per input byte), the
 * walk takes at most this base plus this much per input byte. */
#define PBD_DEFAULT_MAX_MEMORY_BASE ((size_t)1 << 30)
#define PBD_DEFAULT_MAX_MEMORY_PER_BYTE 32

/* The bound pbd_Compare_Inputs applies to inputs of these sizes. */
size_t pbd_CompareOptions_MaxMemory(const pbd_CompareOptions *o, size_t left_size,
                                    size_t right_size);

typedef struct {
  bool equal;
  size_t n_edits;              /* edits delivered (all of them unless the callback stopped) */
  int failed_input;            /* on error: 1 LEFT, 2 RIGHT, 0 neither (out of memory) */
} pbd_CompareResult;

/* One input: a buffer holding one message, or a stream of messages at the
 * given ranges (--delimited: paths then start with the message's index). */
typedef struct {
  const uint8_t *data;
  size_t size;
  bool stream;                 /* false: one message, the whole buffer */
  const size_t *begin, *end;   /* a stream's messages: data[begin[i], end[i]) */
  size_t count;
} pbd_CompareInput;

/* Default options: schemaless, rule by rule as docs/semantics.md says. */
pbd_CompareOptions pbd_CompareOptions_Default(void);

/* Compares two encoded messages.  Each difference goes to fn(ctx, edit)
 * (fn may be NULL to get only the verdict; a non-zero return stops the
 * walk).  Returns 0 when equal, 1 when different, -1 on error with the
 * status set (malformed input: code, message, byte offset and path) and
 * result->failed_input naming the input.  result may be NULL. */
int pbd_Compare(const uint8_t *left, size_t left_size, const uint8_t *right, size_t right_size,
                const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                pbd_CompareResult *result, pbd_Status *s);

/* The pipeline behind pbd_Compare, for one message or two streams: both
 * inputs are hashed without a tree (lib/canon/canon.h; on two threads with
 * o->parallel); equal root hashes are the answer; otherwise the two are
 * walked as shallow trees (lib/tree/tree.h), each level read only where hashes
 * differ.  Errors name the stream message (`[3]`) in the status path.
 * Returns as pbd_Compare. */
int pbd_Compare_Inputs(const pbd_CompareInput *left, const pbd_CompareInput *right,
                       const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                       pbd_CompareResult *result, pbd_Status *s);

#ifdef __cplusplus
}
#endif
#endif
