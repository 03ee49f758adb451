/* pbdiff — edits written as the hunks of a patch (patch.h, docs/patch.md).
 *
 * The walk's edits are kept, then written field by field.  Hunks apply in
 * order, and an index counts the elements as they stand when its hunk
 * applies; so the edits of one repeated field addressed by index are
 * written in three passes that keep every index simple: first the changes
 * inside its elements (by LEFT's index: nothing has moved yet), then the
 * elements removed, from the last (each index still LEFT's), then those
 * added, from the first (each index RIGHT's: what stands before it is by
 * then RIGHT's).  A moved element is removed and added.  Edits elsewhere
 * keep the walk's order.
 *
 * Each hunk is written, read back and applied to a working copy of LEFT
 * (patch_apply.c): its old value and its context (the neighbours of an
 * element addressed by index) are what that copy holds, and a hunk that
 * does not apply there is an error here rather than a broken patch. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "patch/patch_internal.h"
#include "pbdiff/diff/path.h"
#include "pbdiff/format/format.h"
#include "pbdiff/write/write.h"

typedef struct {
  pbd_EditKind kind;
  pbd_PathSeg *segs;      /* a copy of the edit's path; Index numbers are rewritten */
  size_t nsegs;
  pbd_Value left, right;  /* views into the trees */
  int64_t left_index, right_index;
  bool done;
} Ed;

struct pbd_PatchWriter {
  pbd_Buf *out;
  pbd_PatchSchema schema;
  pbd_ReadOptions read;
  const pbd_Message *left, *right, *cur;
  pbd_Arena *arena;       /* the working copy's edits */
  Ed *eds;
  size_t neds, cap;
  size_t hunks;
  char error[1024];
  bool failed;
};

void pbd_Patch_ValueBytes(pbd_Buf *out, const pbd_Value *v) {
  if (v->kind == kPbd_Value_None) return;
  pbd_WriteOptions wo = {.float_bits = false};
  pbd_Write_FieldValue(out, v->field ? v->field->number : 0, v, &wo);
}

void pbd_Patch_Guard(pbd_Buf *out, const pbd_Value *v, size_t max_text) {
  size_t start = out->len;
  pbd_Format_TextValue(out, v, NULL);
  if (out->len - start <= max_text) return;
  pbd_Buf_Truncate(out, start);
  pbd_Buf b = {0};
  pbd_Patch_ValueBytes(&b, v);
  pbd_Buf_Printf(out, "#xxh3:%016" PRIx64 "/%zu", (uint64_t)XXH3_64bits(b.data, b.len), b.len);
  if (b.oom) out->oom = true;
  pbd_Buf_Free(&b);
}

void pbd_Patch_WriteHeader(pbd_Buf *out, const pbd_PatchSchema *schema) {
  pbd_Buf_Printf(out, "%s\ntype %s\n", PBDIFF_PATCH_VERSION,
                 schema->type ? schema->type->full_name : "-");
}

pbd_PatchWriter *pbd_PatchWriter_New(pbd_Buf *out, const pbd_PatchSchema *schema,
                                     const pbd_Message *left, const pbd_Message *right) {
  pbd_PatchWriter *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->arena = pbd_Arena_New();
  if (!w->arena) {
    free(w);
    return NULL;
  }
  w->out = out;
  w->schema = *schema;
  if (schema->read) w->read = *schema->read;
  w->read.pool = schema->pool;
  w->schema.read = &w->read;
  w->left = w->cur = left;
  w->right = right;
  return w;
}

void pbd_PatchWriter_Free(pbd_PatchWriter *w) {
  if (!w) return;
  for (size_t i = 0; i < w->neds; i++) free(w->eds[i].segs);
  free(w->eds);
  pbd_Arena_Free(w->arena);
  free(w);
}

const char *pbd_PatchWriter_Error(const pbd_PatchWriter *w) { return w->failed ? w->error : NULL; }
size_t pbd_PatchWriter_Hunks(const pbd_PatchWriter *w) { return w->hunks; }

static bool stop(pbd_PatchWriter *w, const char *path, const char *why) {
  if (!w->failed) snprintf(w->error, sizeof w->error, "%.200s: %.800s", path, why);
  w->failed = true;
  return false;
}

/* Whether a message holds a field no schema names (a patch could not say
 * what type its values have). */
static bool has_unknown(const pbd_Message *m, int depth) {
  if (!m || depth > kPbd_MaxDepthLimit) return false;
  if (pbd_Message_AnyPayload(m)) return has_unknown(pbd_Message_AnyPayload(m), depth + 1);
  const pbd_Field *fs = pbd_Message_Fields(m);
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++) {
    if (!fs[i].def) return true;
    if (fs[i].kind == kPbd_Value_Message)
      for (uint32_t j = 0; j < fs[i].count; j++)
        if (has_unknown(fs[i].v.msgs[j], depth + 1)) return true;
  }
  return false;
}

static bool value_has_unknown(const pbd_Value *v) {
  if (v->kind == kPbd_Value_None) return false;
  if (!v->field) return true;
  return v->kind == kPbd_Value_Message && has_unknown(v->m, 0);
}

int pbd_PatchWriter_Edit(void *ctx, const pbd_Edit *e) {
  pbd_PatchWriter *w = ctx;
  const pbd_Path *path = e->path;
  bool unknown = value_has_unknown(&e->left) || value_has_unknown(&e->right);
  for (size_t i = 0; i < path->count; i++)
    unknown |= (path->segs[i].kind == kPbd_Seg_Field && !path->segs[i].field) ||
               path->segs[i].kind == kPbd_Seg_RecordKey;
  if (unknown) {
    pbd_Buf text = {0};
    pbd_Path_Format(&text, path, 0, path->count);
    stop(w, text.data ? text.data : "", "a patch names fields by the schema; unknown fields have none");
    pbd_Buf_Free(&text);
    return 1;
  }
  if (w->neds == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    Ed *n = realloc(w->eds, cap * sizeof *n);
    if (!n) return stop(w, "", "out of memory"), 1;
    w->eds = n;
    w->cap = cap;
  }
  Ed *d = &w->eds[w->neds];
  d->segs = malloc(sizeof *d->segs * (path->count ? path->count : 1));
  if (!d->segs) return stop(w, "", "out of memory"), 1;
  memcpy(d->segs, path->segs, sizeof *d->segs * path->count);
  d->nsegs = path->count;
  d->kind = e->kind;
  d->left = e->left;
  d->right = e->right;
  d->left_index = e->left_index;
  d->right_index = e->right_index;
  d->done = false;
  w->neds++;
  return 0;
}

/* ---- One hunk ------------------------------------------------------------------ */

static void context_line(pbd_Buf *out, char mark, const pbd_Value *v) {
  pbd_Buf_AppendChar(out, mark);
  pbd_Buf_AppendChar(out, ' ');
  if (v->kind == kPbd_Value_None) pbd_Buf_AppendStr(out, "#none");
  else pbd_Patch_Guard(out, v, kPbd_PatchContextText);
  pbd_Buf_AppendChar(out, '\n');
}

/* Finds the text after "\n" + mark + " " in hunk text t (NULL: none). */
static const char *hunk_line(const pbd_Buf *t, char mark, size_t *n) {
  for (size_t i = 0; i + 2 < t->len; i++) {
    if (t->data[i] == '\n' && t->data[i + 1] == mark && t->data[i + 2] == ' ') {
      const char *s = t->data + i + 3, *e = memchr(s, '\n', t->len - (i + 3));
      *n = (size_t)(e - s);
      return s;
    }
  }
  return NULL;
}

/* Writes one hunk: `kind` at segs[0, nsegs) (indices as they stand), the
 * new value `right` (None: removed), `insert` for an element added by
 * index; then applies it to the working copy. */
static bool write_hunk(pbd_PatchWriter *w, const char *kind, const pbd_PathSeg *segs, size_t nsegs,
                       const pbd_Value *right, bool insert, int64_t at) {
  pbd_PathSeg *copy = malloc(sizeof *copy * (nsegs ? nsegs : 1));
  if (!copy) return stop(w, "", "out of memory");
  memcpy(copy, segs, sizeof *copy * nsegs);
  for (size_t i = 0; i < nsegs; i++) copy[i].paired = false;
  pbd_Path p = {.segs = copy, .count = nsegs, .cap = nsegs};
  pbd_Buf path = {0}, t = {0};
  pbd_Path_Format(&path, &p, 0, nsegs);
  free(copy);
  const char *ptext = path.data ? path.data : "";
  pbd_Target tg;
  char why[512];
  if (!pbd_PatchTree_Resolve(w->cur, w->schema.type, ptext, path.len, &tg, why, sizeof why)) {
    stop(w, ptext, why);
    pbd_Buf_Free(&path);
    return false;
  }
  pbd_Buf_Printf(&t, "@@ %s %s", kind, ptext);
  if (at >= 0) pbd_Buf_Printf(&t, " at %" PRId64, at);
  pbd_Buf_AppendChar(&t, '\n');
  if (tg.has_context) {
    const pbd_Field *cf = tg.context_field;
    uint32_t i = tg.context_index, count = cf ? cf->count : 0;
    uint32_t next = insert && tg.context_is_target ? i : i + 1;
    pbd_Value none;
    memset(&none, 0, sizeof none);
    pbd_Value before = i > 0 && i - 1 < count ? pbd_Field_Value(cf, i - 1) : none;
    pbd_Value after = next < count ? pbd_Field_Value(cf, next) : none;
    context_line(&t, '^', &before);
    context_line(&t, '$', &after);
  }
  pbd_Value old = pbd_Target_Value(&tg);
  if (!insert && old.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(&t, "- ");
    pbd_Patch_Guard(&t, &old, kPbd_PatchOldText);
    pbd_Buf_AppendChar(&t, '\n');
  }
  if (right->kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(&t, "+ ");
    pbd_Format_TextValue(&t, right, NULL);
    pbd_Buf_AppendChar(&t, '\n');
  }
  if (t.oom) {
    pbd_Buf_Free(&path);
    pbd_Buf_Free(&t);
    return stop(w, ptext, "out of memory");
  }
  /* read back and applied to the working copy */
  pbd_Hunk h;
  memset(&h, 0, sizeof h);
  h.line = (int)w->hunks + 1;
  h.path = t.data + 4 + strlen(kind);
  h.path_len = path.len;
  h.at = at;
  h.before = hunk_line(&t, '^', &h.before_len);
  h.after = hunk_line(&t, '$', &h.after_len);
  h.old = hunk_line(&t, '-', &h.old_len);
  h.new_ = hunk_line(&t, '+', &h.new_len);
  char awhy[800];
  pbd_PatchApplyOptions ao = {.reverse = false, .read = &w->read};
  pbd_ApplyCtx c = {&w->schema, &ao, w->arena, awhy, sizeof awhy, false};
  bool refused;
  const pbd_Message *next = pbd_Patch_ApplyHunk(&c, w->cur, &h, w->hunks, h.old, h.old_len, h.new_,
                                                h.new_len, &refused);
  bool ok = next != NULL;
  if (ok) {
    w->cur = next;
    pbd_Buf_Append(w->out, t.data, t.len);
    w->hunks++;
  } else {
    stop(w, ptext, awhy);
  }
  pbd_Buf_Free(&path);
  pbd_Buf_Free(&t);
  return ok;
}

/* ---- Ordering ----------------------------------------------------------------- */

/* The first Index segment at or after `from`, or nsegs. */
static size_t first_index(const Ed *d, size_t from) {
  for (size_t i = from; i < d->nsegs; i++)
    if (d->segs[i].kind == kPbd_Seg_Index) return i;
  return d->nsegs;
}

/* Whether two edits' paths agree on segments [0, n) as text (indices as
 * rewritten so far). */
static bool same_prefix(const Ed *a, const Ed *b, size_t n) {
  if (a->nsegs < n || b->nsegs < n) return false;
  pbd_Path pa = {.segs = a->segs, .count = a->nsegs, .cap = a->nsegs};
  pbd_Path pb = {.segs = b->segs, .count = b->nsegs, .cap = b->nsegs};
  pbd_Buf x = {0}, y = {0};
  pbd_Path_Format(&x, &pa, 0, n);
  pbd_Path_Format(&y, &pb, 0, n);
  bool eq = x.len == y.len && (x.len == 0 || !memcmp(x.data, y.data, x.len));
  pbd_Buf_Free(&x);
  pbd_Buf_Free(&y);
  return eq;
}

static bool emit(pbd_PatchWriter *w, Ed **list, size_t n, size_t from);

static int cmp_left_desc(const void *a, const void *b) {
  const Ed *x = *(Ed *const *)a, *y = *(Ed *const *)b;
  return (x->left_index < y->left_index) - (x->left_index > y->left_index);
}
static int cmp_right_asc(const void *a, const void *b) {
  const Ed *x = *(Ed *const *)a, *y = *(Ed *const *)b;
  return (x->right_index > y->right_index) - (x->right_index < y->right_index);
}

/* The LEFT index of an edit's element at segment j. */
static int64_t left_at(const Ed *d, size_t j) {
  if (j + 1 == d->nsegs && d->kind != kPbd_Edit_Added && d->left_index >= 0) return d->left_index;
  return d->segs[j].number;
}

/* The edits `g` of one repeated field, its index at segment j. */
static bool emit_field(pbd_PatchWriter *w, Ed **g, size_t n, size_t j) {
  Ed **rem = malloc(sizeof *rem * n), **ins = malloc(sizeof *ins * n), **inner = malloc(sizeof *inner * n);
  bool ok = rem && ins && inner;
  size_t nrem = 0, nins = 0;
  /* the elements leaving their place: removed and moved */
  for (size_t i = 0; ok && i < n; i++) {
    Ed *d = g[i];
    bool leaf = j + 1 == d->nsegs;
    if (leaf && (d->kind == kPbd_Edit_Removed || d->kind == kPbd_Edit_Moved)) rem[nrem++] = d;
    if (leaf && (d->kind == kPbd_Edit_Added || d->kind == kPbd_Edit_Moved)) ins[nins++] = d;
  }
  /* 1. changes in the elements that stay, by LEFT's index, in LEFT's order */
  for (size_t i = 0; ok && i < n; i++) {
    Ed *d = g[i];
    if (d->done || (j + 1 == d->nsegs && d->kind != kPbd_Edit_Changed && d->kind != kPbd_Edit_Presence))
      continue;
    int64_t l = left_at(d, j);
    bool moves = false;
    for (size_t k = 0; k < nrem; k++) moves |= rem[k]->kind == kPbd_Edit_Moved && rem[k]->left_index == l;
    size_t m = 0;
    for (size_t k = i; k < n; k++) {
      Ed *e = g[k];
      if (e->done || left_at(e, j) != l || (j + 1 == e->nsegs && e->kind != kPbd_Edit_Changed &&
                                            e->kind != kPbd_Edit_Presence))
        continue;
      e->segs[j].number = (uint32_t)l;
      if (moves) e->done = true; /* a moved element is put back whole from RIGHT */
      else inner[m++] = e;       /* (emit marks them done) */
    }
    ok = emit(w, inner, m, j + 1);
  }
  /* 2. removals from the last; 3. insertions from the first */
  if (ok) qsort(rem, nrem, sizeof *rem, cmp_left_desc);
  for (size_t i = 0; ok && i < nrem; i++) {
    Ed *d = rem[i];
    d->segs[j].number = (uint32_t)d->left_index;
    pbd_Value none;
    memset(&none, 0, sizeof none);
    ok = write_hunk(w, "removed", d->segs, j + 1, &none, false, -1);
    d->done = true;
  }
  if (ok) qsort(ins, nins, sizeof *ins, cmp_right_asc);
  for (size_t i = 0; ok && i < nins; i++) {
    Ed *d = ins[i];
    d->segs[j].number = (uint32_t)d->right_index;
    ok = write_hunk(w, "added", d->segs, j + 1, &d->right, true, -1);
    d->done = true;
  }
  free(rem);
  free(ins);
  free(inner);
  return ok || (w->failed ? false : stop(w, "", "out of memory"));
}

/* One edit with no index below `from`: as the walk reported it. */
static bool emit_plain(pbd_PatchWriter *w, Ed *d) {
  d->done = true;
  bool keyed_add = d->nsegs && d->segs[d->nsegs - 1].kind == kPbd_Seg_ElementKey &&
                   d->kind == kPbd_Edit_Added;
  if (d->kind == kPbd_Edit_Moved) return true; /* a keyed element's place: not carried */
  return write_hunk(w, pbd_EditKind_String(d->kind), d->segs, d->nsegs, &d->right, false,
                    keyed_add ? d->right_index : -1);
}

/* The edits of `list` (all sharing segments [0, from)), in the walk's order,
 * the edits of each repeated field addressed by index together. */
static bool emit(pbd_PatchWriter *w, Ed **list, size_t n, size_t from) {
  Ed **g = malloc(sizeof *g * (n ? n : 1));
  if (!g) return stop(w, "", "out of memory");
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    Ed *d = list[i];
    if (d->done) continue;
    size_t j = first_index(d, from);
    if (j == d->nsegs) {
      /* setting one member of a oneof clears the others: a removal of
       * another member goes first, so that -R can put it back */
      const pbd_FieldDef *fd = d->nsegs ? d->segs[d->nsegs - 1].field : NULL;
      for (size_t k = i + 1; ok && fd && fd->oneof && d->right.kind != kPbd_Value_None && k < n; k++) {
        Ed *e = list[k]; /* one that leaves nothing: removed, or a presence unset */
        const pbd_FieldDef *ef = e->nsegs ? e->segs[e->nsegs - 1].field : NULL;
        if (!e->done && e->right.kind == kPbd_Value_None && ef && ef->oneof == fd->oneof &&
            e->nsegs == d->nsegs && first_index(e, from) == e->nsegs && same_prefix(d, e, d->nsegs - 1))
          ok = emit_plain(w, e);
      }
      ok = ok && emit_plain(w, d);
      continue;
    }
    size_t m = 0;
    for (size_t k = i; k < n; k++)
      if (!list[k]->done && first_index(list[k], from) == j && same_prefix(d, list[k], j)) g[m++] = list[k];
    ok = emit_field(w, g, m, j);
  }
  free(g);
  return ok;
}

bool pbd_PatchWriter_Finish(pbd_PatchWriter *w) {
  if (w->failed) return false;
  Ed **list = malloc(sizeof *list * (w->neds ? w->neds : 1));
  if (!list) return stop(w, "", "out of memory");
  for (size_t i = 0; i < w->neds; i++) list[i] = &w->eds[i];
  bool ok = emit(w, list, w->neds, 0);
  free(list);
  return ok && !w->out->oom ? true : (w->failed ? false : stop(w, "", "out of memory"));
}
