/* pbdiff — the canonical hash pass: a message's canonical hash straight from
 * the wire, with no tree.
 *
 * pbd_Canon_Hash reads one encoded message once and computes the same
 * 128-bit hash that pbd_Tree_Parse stores in the root of its tree (the
 * `pbh1` record of docs/hash.md, every rule of docs/semantics.md applied),
 * keeping only a small working state per nesting level: one slot per present
 * field (last value, the parts of a message to merge, a map's keyed entry
 * hashes, a repeated field's values or running digest).  Nothing of it
 * survives the call except, when a pbd_HashCache is given, the hashes of the
 * larger messages, so that a later walk that needs them (lib/tree/tree.c's
 * shallow views) does not hash them again.
 *
 * Errors are the tree builder's: the same codes, messages, byte offsets and
 * field paths.  (When an input holds several errors, the one reported may be
 * another than the tree builder's first: a singular message is read when its
 * parent ends, since later parts may merge into it.) */
#ifndef PBD_CANON_H_
#define PBD_CANON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/core/status.h"
#include "pbdiff/canon/values.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Hashes of messages by where their bytes begin (the first part's, for a
 * message written in parts), remembered during a hash pass for the
 * messages of 16 bytes and more (the shallowest levels first),
 * within a memory budget.  (pbd_HashCache is declared in tree.h.) */

/* A cache for the messages of the buffer that begins at base; NULL when out
 * of memory.  budget_bytes bounds its memory: when full, it keeps the
 * larger messages. */
pbd_HashCache *pbd_HashCache_New(const uint8_t *base, size_t budget_bytes);
void pbd_HashCache_Free(pbd_HashCache *c);
/* The hash (and whether the message is empty) of the message of `type`
 * whose first part begins at data, `size` bytes in all its parts; false
 * when not remembered. */
bool pbd_HashCache_Find(const pbd_HashCache *c, const uint8_t *data, size_t size,
                        const pbd_MessageDef *type, pbd_Hash128 *hash, bool *empty);

/* Hashes buf[begin, end) as a message of `type` (NULL: schemaless) with the
 * tree options (max_depth, equivalent, ignore_unknown, strict, float_bits,
 * hash_seed, pool; the others are not used).  cache may be NULL.  Returns
 * false with the status set as pbd_Tree_Parse sets it. */
bool pbd_Canon_Hash(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                    const pbd_ReadOptions *o, pbd_HashCache *cache, pbd_Hash128 *out,
                    pbd_Status *s);

/* Checks buf[begin, end) as pbd_Canon_Hash reads it, without hashing: the
 * same errors (two inputs with identical bytes need no more). */
bool pbd_Canon_Validate(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                        const pbd_ReadOptions *o, pbd_Status *s);
/* The same, with the check that needs no hash on two threads: for large
 * inputs (the answer and any error are pbd_Canon_Validate's). */
bool pbd_Canon_ValidateOnTwoThreads(const pbd_MessageDef *type, const uint8_t *buf, size_t begin,
                                    size_t end, const pbd_ReadOptions *o, pbd_Status *s);

/* The hash of a message of `type` at nesting `depth` (its parent's depth + 1)
 * made of the given parts (merged, rule 3), as its parent's record takes it;
 * *empty tells whether it has no field left in its canonical form.  Offsets
 * in errors count from buf.  cache (may be NULL) gives the hashes of
 * messages already known, which are then not read again.  scratch (may be
 * NULL) is working memory: what is taken from it is given back. */
bool pbd_Canon_HashParts(const pbd_MessageDef *type, const uint8_t *buf, const pbd_Part *parts,
                         size_t nparts, int depth, const pbd_ReadOptions *o,
                         const pbd_HashCache *cache, pbd_Arena *scratch, pbd_Hash128 *out,
                         bool *empty, pbd_Status *s);

/* Rule 13 for a LEN field of no schema (or an unknown one) at `depth` (the
 * field's message's depth): true with the hash when the bytes parse
 * completely as a message and are not empty; false (status untouched) when
 * they are bytes; false with the status set (OutOfMemory) on failure, which
 * *failed tells. */
bool pbd_Canon_TryHashUnknown(const uint8_t *buf, const uint8_t *data, size_t size, int depth,
                              const pbd_ReadOptions *o, const pbd_HashCache *cache,
                              pbd_Arena *scratch, pbd_Hash128 *out, bool *failed, pbd_Status *s);

/* The two calls above for many messages of one buffer (a shallow tree's):
 * the working memory stays from one call to the next. */
typedef struct pbd_Hasher pbd_Hasher;
pbd_Hasher *pbd_Hasher_New(const uint8_t *buf, const pbd_ReadOptions *o,
                           const pbd_HashCache *cache);
void pbd_Hasher_Free(pbd_Hasher *h);
/* The hashes this hasher computes go to `cache` too, and are looked up
 * there as well as in the one it was made with: a walk that reads a deep
 * message level by level then hashes each sub-message once, not once per
 * level above it (chains of groups nested a thousand deep). */
void pbd_Hasher_Remember(pbd_Hasher *h, pbd_HashCache *cache);
bool pbd_Hasher_HashParts(pbd_Hasher *h, const pbd_MessageDef *type, const pbd_Part *parts,
                          size_t nparts, int depth, pbd_Hash128 *out, bool *empty,
                          pbd_Status *s);
/* HashParts for parts that are a window of a message (some of its fields):
 * the first part begins where a message does, whose remembered hash is not
 * the window's, so the window itself is neither looked up nor remembered. */
bool pbd_Hasher_HashWindow(pbd_Hasher *h, const pbd_MessageDef *type, const pbd_Part *parts,
                           size_t nparts, int depth, pbd_Hash128 *out, pbd_Status *s);
bool pbd_Hasher_TryUnknown(pbd_Hasher *h, const uint8_t *data, size_t size, int depth,
                           pbd_Hash128 *out, bool *failed, pbd_Status *s);

#ifdef __cplusplus
}
#endif
#endif
