/* pbdiff — the side-by-side walk of two canonical trees.
 *
 * pbd_Diff_Run merges two trees field by field and hands each difference to
 * a callback as a pbd_Edit; it knows no output format.  Subtrees whose hashes
 * match are skipped without being walked. */
#ifndef PBD_DIFF_H_
#define PBD_DIFF_H_

#include <stdbool.h>
#include <stddef.h>

#include "status.h"
#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_Edit_Added,     /* only in RIGHT: `right` holds it, `left` is None */
  kPbd_Edit_Removed,   /* only in LEFT: `left` holds it, `right` is None */
  kPbd_Edit_Changed,   /* both sides hold a value and the values differ */
  kPbd_Edit_Presence,  /* one side sets a field with presence to its default,
                          the other leaves it unset (None) */
} pbd_EditKind;

/* "added", "removed", "changed", "presence" */
const char *pbd_EditKind_String(pbd_EditKind k);

typedef struct {
  pbd_EditKind kind;
  const char *path;    /* design.md path syntax; valid during the callback */
  pbd_Value left, right;
} pbd_Edit;

/* Receives one edit; a non-zero return stops the walk (pbd_Diff_Run then
 * returns that value). */
typedef int pbd_EditFunc(void *ctx, const pbd_Edit *e);

typedef struct {
  bool float_bits;     /* compare floats by bit pattern */
  const char *path_prefix; /* prepended to every path, e.g. "[3]" in a stream; may be NULL */
} pbd_DiffOptions;

/* Walks two finished trees of the same type.  Returns 0 when the walk ran
 * to the end (the number of edits is in *n_edits when not NULL), the
 * callback's non-zero value when it stopped the walk, or -1 with the status
 * set when out of memory. */
int pbd_Diff_Run(const pbd_Message *left, const pbd_Message *right, const pbd_DiffOptions *opts,
                 pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s);

/* Appends a map key as a path segment: `["a\"b"]` (JSON-quoted) for strings,
 * `[5]`, `[true]` for others. */
void pbd_Diff_AppendKeySegment(pbd_Buf *path, const pbd_Value *key);

#ifdef __cplusplus
}
#endif
#endif
