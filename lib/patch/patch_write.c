/* pbdiff — edits written as the hunks of a patch (docs/patch.md).
 *
 * Each edit of the walk is one hunk.  Its path counts an element's index as
 * it stands when the hunk applies (hunks apply in order): the walk reports
 * a repeated field's edits in order, so by then the elements before it are
 * RIGHT's and those from it on are LEFT's, and the index is RIGHT's for an
 * element on both sides or added, and LEFT's index moved by the elements
 * added and removed before it for one removed.  For the same reason the
 * element before an index-addressed one is RIGHT's element before it, and
 * the one after is LEFT's next: those are the context lines. */
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
  char *field;   /* the repeated field's path as it stands (current indices) */
  int64_t moved; /* elements added minus elements removed so far */
} Offset;

struct pbd_PatchWriter {
  pbd_Buf *out;
  pbd_PatchSchema schema;
  const pbd_Message *left, *right;
  size_t hunks;
  char error[512];
  bool failed;
  Offset *offsets;
  size_t noffsets, capoffsets;
};

void pbd_Patch_ValueBytes(pbd_Buf *out, const pbd_Value *v) {
  if (v->kind == kPbd_Value_None) return;
  pbd_WriteOptions wo = {.float_bits = false};
  pbd_Write_FieldValue(out, v->field ? v->field->number : 0, v, &wo);
}

void pbd_Patch_Guard(pbd_Buf *out, const pbd_Value *v) {
  size_t start = out->len;
  pbd_Format_TextValue(out, v, NULL);
  if (out->len - start <= kPbd_PatchGuardText) return;
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
  w->out = out;
  w->schema = *schema;
  w->left = left;
  w->right = right;
  return w;
}

void pbd_PatchWriter_Free(pbd_PatchWriter *w) {
  if (!w) return;
  for (size_t i = 0; i < w->noffsets; i++) free(w->offsets[i].field);
  free(w->offsets);
  free(w);
}

const char *pbd_PatchWriter_Error(const pbd_PatchWriter *w) { return w->failed ? w->error : NULL; }
size_t pbd_PatchWriter_Hunks(const pbd_PatchWriter *w) { return w->hunks; }

static int stop(pbd_PatchWriter *w, const char *path, const char *why) {
  snprintf(w->error, sizeof w->error, "%s: %s", path, why);
  w->failed = true;
  return 1;
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

/* The offset slot of a repeated field (by its current path). */
static Offset *offset_of(pbd_PatchWriter *w, const char *field) {
  for (size_t i = 0; i < w->noffsets; i++)
    if (!strcmp(w->offsets[i].field, field)) return &w->offsets[i];
  if (w->noffsets == w->capoffsets) {
    size_t cap = w->capoffsets ? 2 * w->capoffsets : 16;
    Offset *n = realloc(w->offsets, cap * sizeof *n);
    if (!n) return NULL;
    w->offsets = n;
    w->capoffsets = cap;
  }
  char *copy = strdup(field);
  if (!copy) return NULL;
  w->offsets[w->noffsets] = (Offset){copy, 0};
  return &w->offsets[w->noffsets++];
}

/* The element `i` of the repeated field at `prefix` (text) in a tree, or
 * None. */
static pbd_Value element_at(const pbd_Message *root, const pbd_MessageDef *type, const char *prefix,
                            int64_t i) {
  pbd_Value none;
  memset(&none, 0, sizeof none);
  if (i < 0) return none;
  pbd_Buf p = {0};
  pbd_Buf_Printf(&p, "%s[%" PRId64 "]", prefix, i);
  pbd_Target t;
  char why[256];
  bool ok = !p.oom && pbd_PatchTree_Resolve(root, type, p.data, p.len, &t, why, sizeof why);
  pbd_Buf_Free(&p);
  return ok ? pbd_Target_Value(&t) : none;
}

static void context_line(pbd_Buf *out, char mark, const pbd_Value *v) {
  pbd_Buf_AppendChar(out, mark);
  pbd_Buf_AppendChar(out, ' ');
  if (v->kind == kPbd_Value_None) pbd_Buf_AppendStr(out, "#none");
  else pbd_Patch_Guard(out, v);
  pbd_Buf_AppendChar(out, '\n');
}

int pbd_PatchWriter_Edit(void *ctx, const pbd_Edit *e) {
  pbd_PatchWriter *w = ctx;
  const pbd_Path *path = e->path;
  pbd_Buf text = {0};
  pbd_Path_Format(&text, path, 0, path->count);
  const char *shown = text.data ? text.data : "";
  if (e->kind == kPbd_Edit_Moved) {
    int rc = stop(w, shown, "a moved element cannot be written as a patch (leave out --report-moves)");
    pbd_Buf_Free(&text);
    return rc;
  }
  for (size_t i = 0; i < path->count; i++) {
    if ((path->segs[i].kind == kPbd_Seg_Field && !path->segs[i].field) ||
        path->segs[i].kind == kPbd_Seg_RecordKey) {
      int rc = stop(w, shown, "a patch names fields by the schema; this one has none (an unknown field)");
      pbd_Buf_Free(&text);
      return rc;
    }
  }
  if (value_has_unknown(&e->left) || value_has_unknown(&e->right)) {
    int rc = stop(w, shown, "the value holds unknown fields, which a patch cannot write");
    pbd_Buf_Free(&text);
    return rc;
  }
  /* The path with indices as they stand when the hunk applies. */
  pbd_PathSeg *segs = malloc(sizeof *segs * (path->count ? path->count : 1));
  if (!segs) {
    pbd_Buf_Free(&text);
    return stop(w, shown, "out of memory");
  }
  memcpy(segs, path->segs, sizeof *segs * path->count);
  pbd_Path cur = {segs, path->count, path->count, false};
  size_t last_index = SIZE_MAX; /* the deepest element addressed by index */
  int64_t moved_before = 0, left_index = -1;
  pbd_Buf prefix = {0};
  for (size_t i = 0; i < cur.count; i++) {
    pbd_PathSeg *s = &segs[i];
    if (s->kind != kPbd_Seg_Index) continue;
    bool leaf = i + 1 == cur.count;
    pbd_Buf_Truncate(&prefix, 0);
    pbd_Path_Format(&prefix, &cur, 0, i);
    Offset *off = offset_of(w, prefix.data ? prefix.data : "");
    if (!off) {
      free(segs);
      pbd_Buf_Free(&text);
      pbd_Buf_Free(&prefix);
      return stop(w, shown, "out of memory");
    }
    int64_t left = s->number;
    if (s->paired) s->number = s->right_number;
    else if (!(leaf && e->kind == kPbd_Edit_Added)) s->number = (uint32_t)((int64_t)s->number + off->moved);
    s->paired = false;
    last_index = i;
    moved_before = off->moved;
    left_index = leaf && e->kind == kPbd_Edit_Added ? -1 : left;
    if (leaf && e->kind == kPbd_Edit_Added) off->moved++;
    if (leaf && e->kind == kPbd_Edit_Removed) off->moved--;
  }
  pbd_Buf *out = w->out;
  pbd_Buf_AppendStr(out, "@@ ");
  pbd_Buf_AppendStr(out, pbd_EditKind_String(e->kind));
  pbd_Buf_AppendChar(out, ' ');
  pbd_Path_Format(out, &cur, 0, cur.count);
  if (cur.count && segs[cur.count - 1].kind == kPbd_Seg_ElementKey && e->kind == kPbd_Edit_Added)
    pbd_Buf_Printf(out, " at %" PRId64, e->right_index);
  pbd_Buf_AppendChar(out, '\n');
  if (last_index != SIZE_MAX) { /* the neighbours of the element addressed by index */
    pbd_Buf_Truncate(&prefix, 0);
    pbd_Path_Format(&prefix, &cur, 0, last_index);
    const char *pre = prefix.data ? prefix.data : "";
    int64_t c = segs[last_index].number;
    pbd_Value before = element_at(w->right, w->schema.type, pre, c - 1);
    /* in LEFT the field's path has its ancestors at their LEFT indices */
    pbd_Path lp = {path->segs, path->count, path->count, false};
    pbd_Buf lpre = {0};
    pbd_Path_Format(&lpre, &lp, 0, last_index);
    const char *lpath = lpre.data ? lpre.data : "";
    pbd_Value after = element_at(w->left, w->schema.type, lpath,
                                 left_index < 0 ? c - moved_before : left_index + 1);
    pbd_Buf_Free(&lpre);
    context_line(out, '^', &before);
    context_line(out, '$', &after);
  }
  if (e->left.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(out, "- ");
    pbd_Patch_Guard(out, &e->left);
    pbd_Buf_AppendChar(out, '\n');
  }
  if (e->right.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(out, "+ ");
    pbd_Format_TextValue(out, &e->right, NULL);
    pbd_Buf_AppendChar(out, '\n');
  }
  w->hunks++;
  free(segs);
  pbd_Buf_Free(&text);
  pbd_Buf_Free(&prefix);
  return out->oom ? stop(w, shown, "out of memory") : 0;
}
