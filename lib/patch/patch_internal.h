/* pbdiff — internal parts of lib/patch shared by its files:
 * patch_text.c (text-format values to wire bytes), patch_tree.c (paths
 * resolved in a tree, copy-on-write edits), patch_write.c (edits to hunks)
 * and patch_apply.c (hunks read, checked and applied). */
#ifndef PBD_PATCH_INTERNAL_H_
#define PBD_PATCH_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/patch/patch.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

/* Guards longer than this as text are written as their hash and size: an
 * old value (which -R needs whole to put back) past 64 KiB, a neighbour
 * (only ever checked) past 200 bytes. */
enum { kPbd_PatchOldText = 64 << 10, kPbd_PatchContextText = 200 };

/* ---- patch_text.c ---------------------------------------------------------- */

/* Appends fd's tag and value, read from `text` (one value in text-format
 * syntax, as pbd_Format_TextValue writes it), to out.  False with why. */
bool pbd_PatchText_EncodeField(const char *text, size_t n, const pbd_FieldDef *fd,
                               const pbd_DefPool *pool, pbd_Buf *out, char *why, size_t whyn);
/* Appends the fields of `{ ... }` (text format), read as type t, to out. */
bool pbd_PatchText_EncodeMessage(const char *text, size_t n, const pbd_MessageDef *t,
                                 const pbd_DefPool *pool, pbd_Buf *out, char *why, size_t whyn);

/* ---- patch_tree.c ---------------------------------------------------------- */

/* Where a path leads in a tree. */
typedef enum {
  kPbd_Target_Field,    /* a singular field (may be absent) */
  kPbd_Target_Element,  /* an element of a repeated field, by index or key */
  kPbd_Target_Entry,    /* a map entry, by key */
} pbd_TargetKind;

typedef struct {
  pbd_TargetKind kind;
  const pbd_Message *holder;   /* the message holding the field */
  const pbd_FieldDef *fd;      /* the field (a map or repeated field for entries and elements) */
  const pbd_Field *field;      /* holder's field, NULL when absent */
  bool found;                  /* the value (field, element, entry) is there */
  uint32_t index;              /* Element: its index (by index: the one asked for);
                                  Entry/keyed Element: where it is or would go */
  bool by_index;               /* Element addressed by [N] */
  const char *key_text;        /* Entry: the key as the path writes it */
  size_t key_len;
  /* The deepest element on the path addressed by index (the target itself,
   * or one above it): its field and index, for the context lines. */
  bool has_context;
  const pbd_Field *context_field;
  uint32_t context_index;
  bool context_is_target;
  size_t context_path_len;     /* the path's text up to that element's ']' */
} pbd_Target;

/* The value at a target (None when not found); for an entry, its value part. */
pbd_Value pbd_Target_Value(const pbd_Target *t);

/* A path as text resolved against root: fills *t for its last segment.
 * False with why when a segment does not name a field of the schema or a
 * message above it is missing. */
bool pbd_PatchTree_Resolve(const pbd_Message *root, const pbd_MessageDef *type,
                           const char *path, size_t n, pbd_Target *t, char *why, size_t whyn);

/* What to do at a path: set (or insert) a value, or remove it. */
typedef struct {
  bool remove;
  const pbd_Field *value;      /* the new value: a field of a parsed message of the
                                  holder's type, its first value taken; NULL with
                                  !remove: the field is cleared (a default) */
  int64_t at;                  /* a keyed element added: its place (-1: at the end) */
  bool insert;                 /* an element by index: inserted there (else replaced) */
} pbd_PatchOp;

/* A new root with op applied at path (the path must resolve); the old tree
 * is left as it is and shares what did not change.  NULL with why. */
const pbd_Message *pbd_PatchTree_Edit(const pbd_Message *root, const pbd_MessageDef *type,
                                      const char *path, size_t n, const pbd_PatchOp *op,
                                      pbd_Arena *a, char *why, size_t whyn);

/* ---- patch_apply.c ----------------------------------------------------------- */

typedef struct {
  int line;                   /* of the @@ line */
  const char *kind;           /* "changed", ... (as written; for messages) */
  size_t kind_len;
  const char *path;
  size_t path_len;
  int64_t at;                 /* " at N" of a keyed element added, else -1 */
  const char *before, *after; /* context: ^ and $ lines (NULL: none) */
  size_t before_len, after_len;
  const char *old, *new_;     /* - and + lines (NULL: none) */
  size_t old_len, new_len;
} pbd_Hunk;

typedef struct {
  const pbd_PatchSchema *schema;
  const pbd_PatchApplyOptions *o;
  pbd_Arena *a;
  char *why;
  size_t whyn;
  bool unguarded;             /* apply without checking guards (merge --favor theirs) */
} pbd_ApplyCtx;

/* Reads a patch's hunks (malloc'd array into *out, free it; its pointers
 * point into text).  Applied, or BadPatch / OutOfMemory with c->why. */
pbd_ApplyResult pbd_Patch_Read(pbd_ApplyCtx *c, const char *text, size_t n, pbd_Hunk **out,
                               size_t *nout);

/* Checks hunk h (number hi, from 0) on root with its old and new sides as
 * given (swapped for -R) and applies it: the new root, or NULL with c->why;
 * *refused says whether a guard failed (else the hunk could not be read). */
const pbd_Message *pbd_Patch_ApplyHunk(pbd_ApplyCtx *c, const pbd_Message *root, const pbd_Hunk *h,
                                       size_t hi, const char *old, size_t on, const char *nw,
                                       size_t nn, bool *refused);

/* ---- shared ------------------------------------------------------------------ */

/* The canonical bytes of a value of a field (tag included), for guards:
 * equal for equal meaning.  A None value writes nothing. */
void pbd_Patch_ValueBytes(pbd_Buf *out, const pbd_Value *v);
/* A guard as the patch writes it: the value's text, or `#xxh3:HEX/SIZE` of
 * its canonical bytes when the text is longer than max_text. */
void pbd_Patch_Guard(pbd_Buf *out, const pbd_Value *v, size_t max_text);

#endif
