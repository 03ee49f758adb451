/* pbdiff — a three-way merge by meaning (patch.h, docs/git.md): THEIRS'
 * changes since BASE, as the hunks of a patch, taken into OURS one by one.
 * A hunk is taken where its guards hold (OURS did not touch the place); is
 * skipped where OURS made the same change (the same hunk is in OURS' patch,
 * or OURS already holds THEIRS' value); is moved to another index when its
 * guards hold at exactly one (OURS added or removed elements before it, as
 * diff3 lets both sides' insertions stand); and is a conflict otherwise. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch/patch_internal.h"
#include "pbdiff/format/format.h"

enum { kMaxOffsetSearch = 10000 };

typedef struct {
  const pbd_PatchSchema *schema;
  const pbd_MergeOptions *o;
  pbd_PatchApplyOptions ao;
  pbd_Arena *a;
  pbd_MergeResult *r;
  char why[1024];
} Merge;

/* The patch from a to b (as pbdiff --format patch writes it). */
static bool make_patch(Merge *m, const pbd_Message *a, const pbd_Message *b, pbd_Buf *out) {
  pbd_Patch_WriteHeader(out, m->schema);
  pbd_PatchWriter *w = pbd_PatchWriter_New(out, m->schema, a, b);
  if (!w) return snprintf(m->why, sizeof m->why, "out of memory"), false;
  pbd_DiffOptions d;
  if (m->o->diff) d = *m->o->diff;
  else memset(&d, 0, sizeof d);
  d.report_moves = false;
  d.float_bits = m->schema->read && m->schema->read->float_bits;
  pbd_Status s;
  pbd_Status_Clear(&s);
  int rc = pbd_Diff_Run(a, b, &d, pbd_PatchWriter_Edit, w, NULL, &s);
  bool ok = rc >= 0 && pbd_PatchWriter_Finish(w) && !out->oom;
  if (!ok)
    snprintf(m->why, sizeof m->why, "%s", rc < 0 ? s.msg : pbd_PatchWriter_Error(w) ? pbd_PatchWriter_Error(w) : "out of memory");
  pbd_PatchWriter_Free(w);
  return ok;
}

static bool same_text(const char *a, size_t an, const char *b, size_t bn) {
  if (!a || !b) return a == b;
  return an == bn && !memcmp(a, b, an);
}

static bool same_hunk(const pbd_Hunk *x, const pbd_Hunk *y) {
  return same_text(x->kind, x->kind_len, y->kind, y->kind_len) &&
         same_text(x->path, x->path_len, y->path, y->path_len) && x->at == y->at &&
         same_text(x->before, x->before_len, y->before, y->before_len) &&
         same_text(x->after, x->after_len, y->after, y->after_len) &&
         same_text(x->old, x->old_len, y->old, y->old_len) &&
         same_text(x->new_, x->new_len, y->new_, y->new_len);
}

static const pbd_Message *try_hunk(Merge *m, const pbd_Message *cur, const pbd_Hunk *h, size_t hi,
                                   bool unguarded, const char *old, size_t on, bool *refused) {
  char why[1024];
  pbd_ApplyCtx c = {m->schema, &m->ao, m->a, why, sizeof why, unguarded};
  return pbd_Patch_ApplyHunk(&c, cur, h, hi, old, on, h->new_, h->new_len, refused);
}

/* The deepest `[N]` of a path: the offsets of its '[' and ']' (false: none). */
static bool deepest_index(const char *p, size_t n, size_t *lb, size_t *rb) {
  bool q = false, found = false;
  for (size_t i = 0; i < n; i++) {
    if (q && p[i] == '\\') i++;
    else if (p[i] == '"') q = !q;
    else if (!q && p[i] == '[' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') {
      size_t j = i + 1;
      while (j < n && p[j] >= '0' && p[j] <= '9') j++;
      if (j < n && p[j] == ']') {
        *lb = i;
        *rb = j;
        found = true;
      }
    }
  }
  return found;
}

/* The hunk at another index of its deepest element addressed by index, when
 * its guards hold at exactly one; NULL otherwise. */
static const pbd_Message *at_other_index(Merge *m, const pbd_Message *cur, const pbd_Hunk *h, size_t hi) {
  size_t lb = 0, rb = 0;
  if (!(h->before || h->after) || !deepest_index(h->path, h->path_len, &lb, &rb)) return NULL;
  pbd_Buf probe = {0};
  pbd_Buf_Append(&probe, h->path, lb);
  pbd_Buf_AppendStr(&probe, "[0]");
  pbd_Target t;
  char why[512];
  bool ok = !probe.oom && pbd_PatchTree_Resolve(cur, m->schema->type, probe.data, probe.len, &t, why, sizeof why);
  pbd_Buf_Free(&probe);
  uint32_t count = ok && t.field ? t.field->count : 0;
  if (!ok || count > kMaxOffsetSearch) return NULL;
  const pbd_Message *found = NULL;
  size_t matches = 0;
  for (uint32_t k = 0; k <= count && matches < 2; k++) {
    pbd_Buf p = {0};
    pbd_Buf_Append(&p, h->path, lb);
    pbd_Buf_Printf(&p, "[%" PRIu32 "]", k);
    pbd_Buf_Append(&p, h->path + rb + 1, h->path_len - rb - 1);
    if (p.oom || (p.len == h->path_len && !memcmp(p.data, h->path, p.len))) {
      pbd_Buf_Free(&p);
      continue;
    }
    pbd_Hunk moved = *h;
    moved.path = p.data;
    moved.path_len = p.len;
    bool refused;
    const pbd_Message *r = try_hunk(m, cur, &moved, hi, false, h->old, h->old_len, &refused);
    if (r) {
      found = r;
      matches++;
    }
    pbd_Buf_Free(&p);
  }
  return matches == 1 ? found : NULL;
}

/* Whether cur already holds the hunk's result at its place (the same
 * change made on both sides): its new value there, or nothing for a removal
 * of a field, entry or keyed element. */
static bool already_there(Merge *m, const pbd_Message *cur, const pbd_Hunk *h, size_t hi) {
  pbd_Hunk plain = *h;
  plain.before = plain.after = NULL;
  plain.before_len = plain.after_len = 0;
  if (!h->new_) { /* a removal: by index, nothing tells that the element has gone */
    pbd_Target t;
    char why[512];
    if (!pbd_PatchTree_Resolve(cur, m->schema->type, h->path, h->path_len, &t, why, sizeof why)) return false;
    return !t.found && !(t.kind == kPbd_Target_Element && t.by_index);
  }
  bool refused;
  return try_hunk(m, cur, &plain, hi, false, h->new_, h->new_len, &refused) != NULL;
}

/* The value cur holds at a hunk's path, for messages ("nothing" when none). */
static void value_text(Merge *m, const pbd_Message *cur, const char *path, size_t n, pbd_Buf *out) {
  pbd_Target t;
  char why[512];
  pbd_Value v;
  memset(&v, 0, sizeof v);
  if (pbd_PatchTree_Resolve(cur, m->schema->type, path, n, &t, why, sizeof why)) v = pbd_Target_Value(&t);
  if (v.kind == kPbd_Value_None) {
    pbd_Buf_AppendStr(out, "nothing");
    return;
  }
  pbd_TextOptions o = {.max_bytes = 64, .max_message = 120};
  pbd_Format_TextValue(out, &v, &o);
}

static void side_text(pbd_Buf *out, const char *s, size_t n) {
  if (!s) pbd_Buf_AppendStr(out, "nothing");
  else pbd_Buf_Printf(out, "%.*s", (int)(n < 200 ? n : 200), s);
}

static void report_conflict(Merge *m, const pbd_Message *cur, const pbd_Hunk *h) {
  pbd_Buf *b = &m->r->report;
  pbd_Buf_Printf(b, "%.*s: base ", (int)h->path_len, h->path);
  side_text(b, h->old, h->old_len);
  pbd_Buf_AppendStr(b, ", ours ");
  value_text(m, cur, h->path, h->path_len, b);
  pbd_Buf_AppendStr(b, ", theirs ");
  side_text(b, h->new_, h->new_len);
  pbd_Buf_AppendChar(b, '\n');
}

/* The conflicts patch: THEIRS' value in place of what the merge kept. */
static void conflict_hunk(Merge *m, const pbd_Message *merged, const pbd_Hunk *h) {
  pbd_Target t;
  char why[512];
  pbd_Buf *b = &m->r->patch;
  if (!pbd_PatchTree_Resolve(merged, m->schema->type, h->path, h->path_len, &t, why, sizeof why)) {
    pbd_Buf_Printf(b, "# %.*s %.*s: not in the merged file (%s)\n", (int)h->kind_len, h->kind,
                   (int)h->path_len, h->path, why);
    return;
  }
  pbd_Buf_Printf(b, "@@ %.*s %.*s", (int)h->kind_len, h->kind, (int)h->path_len, h->path);
  if (h->at >= 0) pbd_Buf_Printf(b, " at %" PRId64, h->at);
  pbd_Buf_AppendChar(b, '\n');
  bool insertion = t.kind == kPbd_Target_Element && t.by_index && !h->old;
  pbd_Value v = pbd_Target_Value(&t);
  if (!insertion && v.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(b, "- ");
    pbd_Patch_Guard(b, &v, kPbd_PatchOldText);
    pbd_Buf_AppendChar(b, '\n');
  }
  if (h->new_) pbd_Buf_Printf(b, "+ %.*s\n", (int)h->new_len, h->new_);
}

bool pbd_Patch_Merge(const pbd_Message *base, const pbd_Message *ours, const pbd_Message *theirs,
                     const pbd_PatchSchema *schema, const pbd_MergeOptions *o, pbd_Arena *arena,
                     pbd_MergeResult *result, char *why, size_t whyn) {
  memset(result, 0, sizeof *result);
  Merge m = {schema, o, {.reverse = false, .read = schema->read}, arena, result, ""};
  pbd_Buf tp = {0}, op = {0};
  pbd_Hunk *th = NULL, *oh = NULL, **conflicts = NULL;
  size_t nt = 0, no = 0, nc = 0;
  bool ok = make_patch(&m, base, theirs, &tp) && make_patch(&m, base, ours, &op);
  if (ok) {
    pbd_ApplyCtx c = {schema, &m.ao, arena, m.why, sizeof m.why, false};
    ok = pbd_Patch_Read(&c, tp.data, tp.len, &th, &nt) == kPbd_Apply_Applied &&
         pbd_Patch_Read(&c, op.data, op.len, &oh, &no) == kPbd_Apply_Applied;
  }
  conflicts = ok ? malloc(sizeof *conflicts * (nt ? nt : 1)) : NULL;
  if (ok && !conflicts) ok = snprintf(m.why, sizeof m.why, "out of memory") < 0;
  const pbd_Message *cur = ours;
  for (size_t i = 0; ok && i < nt; i++) {
    const pbd_Hunk *h = &th[i];
    bool same = false;
    for (size_t k = 0; k < no && !same; k++) same = same_hunk(h, &oh[k]);
    if (same) continue; /* the same change on both sides: taken once */
    bool refused;
    const pbd_Message *next = try_hunk(&m, cur, h, i, false, h->old, h->old_len, &refused);
    if (!next) next = at_other_index(&m, cur, h, i);
    if (next) {
      cur = next;
      continue;
    }
    if (already_there(&m, cur, h, i)) continue;
    if (o->favor == kPbd_Favor_Theirs) { /* THEIRS' value, whatever OURS holds */
      next = try_hunk(&m, cur, h, i, true, h->old, h->old_len, &refused);
      if (next) {
        cur = next;
        result->favoured++;
        continue;
      }
    } else if (o->favor == kPbd_Favor_Ours) {
      result->favoured++;
      continue;
    }
    report_conflict(&m, cur, h);
    conflicts[nc++] = (pbd_Hunk *)h;
  }
  if (ok) {
    result->merged = cur;
    result->conflicts = nc;
    pbd_Patch_WriteHeader(&result->patch, schema);
    for (size_t i = 0; i < nc; i++) conflict_hunk(&m, cur, conflicts[i]);
    if (result->report.oom || result->patch.oom) ok = snprintf(m.why, sizeof m.why, "out of memory") < 0;
  }
  if (!ok) snprintf(why, whyn, "%s", m.why);
  free(conflicts);
  free(th);
  free(oh);
  pbd_Buf_Free(&tp);
  pbd_Buf_Free(&op);
  return ok;
}
