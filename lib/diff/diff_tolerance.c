/* pbdiff — scoped float tolerances (pbd_ToleranceRule, diff.h): the margin
 * and fraction that hold at the walk's current path.
 *
 * diff.c looks them up only for two floats that differ in value, so the
 * common walk pays nothing, and the path is rendered as text only then and
 * only when some rule is a pattern.  A rule covers a float when it names a
 * field on the float's path, or when its pattern matches the path up to
 * the end of one of its segments (the float's own path or one above it). */
#include "diff/diff_walk.h"

/* The rules chosen so far for each quantity: index + 1, 0 for none. */
typedef struct {
  size_t margin, fraction;
} Chosen;

/* Whether rule i would replace a choice: it sets a quantity whose rule so
 * far comes before it (the last matching rule wins). */
static bool would_replace(const pbd_ToleranceRule *r, size_t i, const Chosen *c) {
  return (r->margin >= 0 && i + 1 > c->margin) || (r->fraction >= 0 && i + 1 > c->fraction);
}

static void choose(const pbd_ToleranceRule *r, size_t i, Chosen *c) {
  if (r->margin >= 0 && i + 1 > c->margin) c->margin = i + 1;
  if (r->fraction >= 0 && i + 1 > c->fraction) c->fraction = i + 1;
}

static bool field_on_path(const pbd_Path *p, const pbd_FieldDef *fd) {
  for (size_t k = 0; k < p->count; k++) {
    const pbd_PathSeg *s = &p->segs[k];
    if ((s->kind == kPbd_Seg_Field || s->kind == kPbd_Seg_Extension) && s->field == fd) return true;
  }
  return false;
}

/* Pattern rules against each prefix of the path, rendered one segment at a
 * time into w->text (as dw_path_ignored renders the whole). */
static void match_patterns(Walk *w, Chosen *c) {
  const pbd_DiffOptions *o = w->o;
  pbd_Buf_Truncate(&w->text, 0);
  for (size_t k = 0; k < w->path.count; k++) {
    pbd_Path_Format(&w->text, &w->path, k, k + 1);
    if (w->text.oom) {
      w->oom = true;
      return;
    }
    for (size_t i = o->tolerance_count; i-- > 0;) {
      const pbd_ToleranceRule *r = &o->tolerances[i];
      if (r->pattern && would_replace(r, i, c) && pbd_Path_PatternMatches(r->pattern, w->text.data))
        choose(r, i, c);
    }
  }
}

void dw_tolerance_here(Walk *w, double *margin, double *fraction) {
  const pbd_DiffOptions *o = w->o;
  Chosen c = {0, 0};
  for (size_t i = 0; i < o->tolerance_count; i++) {
    const pbd_ToleranceRule *r = &o->tolerances[i];
    if (!r->pattern && r->field && field_on_path(&w->path, r->field)) choose(r, i, &c);
  }
  if (w->tolerance_patterns) match_patterns(w, &c);
  *margin = c.margin ? o->tolerances[c.margin - 1].margin : o->float_margin;
  *fraction = c.fraction ? o->tolerances[c.fraction - 1].fraction : o->float_fraction;
}
