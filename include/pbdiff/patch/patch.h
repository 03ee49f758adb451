/* pbdiff — patches: a difference written as guarded, versioned text
 * (`pbpatch 1`, docs/patch.md) and applied to a canonical tree.
 *
 * Writing: a pbd_PatchWriter is the pbd_EditFunc of a walk (diff.h) over two
 * whole trees; each edit becomes one hunk addressed by its path, with the
 * value it replaces or removes as its guard (a long one by hash and size)
 * and, for an element addressed by index, its neighbours as context.  Hunks
 * apply in order: an index counts the elements as they stand when the hunk
 * applies, which for a patch of one edit is LEFT's index.
 *
 * Applying: pbd_Patch_Apply checks every hunk's guards against the tree as
 * the hunks before it left it and returns a new tree (copy-on-write, the
 * input tree unchanged), or refuses the whole patch naming the first hunk
 * whose guard does not hold.  In reverse, the hunks undo themselves in
 * reverse order. */
#ifndef PBD_PATCH_H_
#define PBD_PATCH_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/canon/values.h"
#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PBDIFF_PATCH_VERSION "pbpatch 1"

/* What a patch was written for and a new value is read with.  Parse LEFT
 * and RIGHT with their `pool` set (for Any payloads). */
typedef struct {
  const pbd_MessageDef *type;  /* the root type (patches need a schema) */
  const pbd_DefPool *pool;
  const pbd_ReadOptions *read; /* how the trees were read (values are read alike) */
} pbd_PatchSchema;

typedef struct pbd_PatchWriter pbd_PatchWriter;

/* A writer appending to out; left and right are the whole trees the walk
 * compares.  It keeps the edits until pbd_PatchWriter_Finish, which writes
 * the hunks: those of one repeated field addressed by index in three
 * passes (changes inside its elements in LEFT's order, then removals from
 * the last, then insertions from the first), so that the patch does not
 * depend on the order the walk reports them in, and a moved element is a
 * removal and an insertion.  Each hunk is applied to a copy of LEFT as it
 * is written (its context and old values are read there, and a hunk that
 * would not apply is an error, not a patch).  NULL when out of memory. */
pbd_PatchWriter *pbd_PatchWriter_New(pbd_Buf *out, const pbd_PatchSchema *schema,
                                     const pbd_Message *left, const pbd_Message *right);
/* A pbd_EditFunc (ctx: the writer).  It stops the walk (returns 1) at an
 * edit a patch cannot carry (an unknown field: no schema names it);
 * pbd_PatchWriter_Error then says why. */
int pbd_PatchWriter_Edit(void *writer, const pbd_Edit *e);
/* Writes the hunks; false (pbd_PatchWriter_Error says why) when one cannot
 * be written. */
bool pbd_PatchWriter_Finish(pbd_PatchWriter *w);
/* Why the writer stopped, or NULL. */
const char *pbd_PatchWriter_Error(const pbd_PatchWriter *w);
/* The number of hunks written. */
size_t pbd_PatchWriter_Hunks(const pbd_PatchWriter *w);
void pbd_PatchWriter_Free(pbd_PatchWriter *w);
/* The patch's header (`pbpatch 1`, the type): out gets it before the hunks. */
void pbd_Patch_WriteHeader(pbd_Buf *out, const pbd_PatchSchema *schema);

typedef enum {
  kPbd_Apply_Applied = 0,      /* every hunk applied: *out is the new tree */
  kPbd_Apply_Refused,          /* a guard does not hold: nothing applied */
  kPbd_Apply_AlreadyApplied,   /* refused, and the patch's result is what the
                                  tree already holds (every hunk's reverse holds) */
  kPbd_Apply_BadPatch,         /* the patch cannot be read (or is for another type) */
  kPbd_Apply_OutOfMemory,
} pbd_ApplyResult;

typedef struct {
  bool reverse;                /* undo the patch (-R) */
  const pbd_ReadOptions *read; /* how new values are read (their pool, float bits) */
} pbd_PatchApplyOptions;

/* Applies patch[0, n) to root (a whole tree of schema->type).  *out is the
 * new tree (from arena) when Applied.  Otherwise why says, in one line,
 * which hunk, where and what was found: `hunk 2 (graph.node[3].op_type):
 * patch expects "Relu", FILE has "Gelu"` (the caller adds the file name).
 * The patch's lines count from 1. */
pbd_ApplyResult pbd_Patch_Apply(const char *patch, size_t n, const pbd_Message *root,
                                const pbd_PatchSchema *schema, const pbd_PatchApplyOptions *o,
                                pbd_Arena *arena, const pbd_Message **out, char *why,
                                size_t whyn);

/* ---- Three-way merge ----------------------------------------------------------
 *
 * pbd_Patch_Merge takes THEIRS' changes since BASE into OURS: THEIRS' patch
 * (BASE -> THEIRS, as pbd_PatchWriter writes it) applied to OURS hunk by
 * hunk.  A hunk whose guards hold in OURS is taken; one that OURS' own patch
 * (BASE -> OURS) also has is the same change, taken once; an element
 * addressed by index whose guards hold at exactly one other index (OURS
 * inserted or removed elements before it) is taken there; a value OURS
 * already holds is taken once; anything else is a conflict, and OURS' value
 * stays (or, favouring THEIRS, THEIRS' value is set without guards).  Maps
 * and keyed elements merge per key (their paths are keys), other repeated
 * fields by their neighbours. */
typedef enum { kPbd_Favor_None = 0, kPbd_Favor_Ours, kPbd_Favor_Theirs } pbd_MergeFavor;

typedef struct {
  pbd_MergeFavor favor;
  const pbd_DiffOptions *diff; /* matching rules (--key), as for the patches; may be NULL */
} pbd_MergeOptions;

typedef struct {
  const pbd_Message *merged;   /* the result (from the arena) */
  size_t conflicts;            /* conflicts left (0 when favoured) */
  size_t favoured;             /* conflicts resolved by favor */
  pbd_Buf report;              /* one line per conflict: `PATH: base B, ours O, theirs T` */
  pbd_Buf patch;               /* the conflicts as a patch that takes THEIRS' side on
                                  the merged tree (pbpatch 1) */
} pbd_MergeResult;

/* Merges; false with why only on trouble (out of memory, a patch that
 * cannot be written).  Free result->report and ->patch with pbd_Buf_Free. */
bool pbd_Patch_Merge(const pbd_Message *base, const pbd_Message *ours, const pbd_Message *theirs,
                     const pbd_PatchSchema *schema, const pbd_MergeOptions *o, pbd_Arena *arena,
                     pbd_MergeResult *result, char *why, size_t whyn);

#ifdef __cplusplus
}
#endif
#endif
