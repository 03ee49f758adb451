/* pbdiff — side-by-side walk of two canonical trees.
 *
 * Both trees are canonical (fields sorted by number, map entries by key), so
 * the walk is a merge: fields paired by number, map entries by key.  Repeated
 * fields are aligned as sequences by element hashes (lib/diff/align.c), or matched
 * as multisets or by key when a rule says so.  Equal subtree hashes end the
 * descent at once: equal hashes prove equal content.  With a tolerance,
 * ignore rules or --partial ("fuzzy" options) different hashes no longer
 * prove a difference, so the walk goes on and decides by comparing values.
 * Edits go to the caller's callback with the path as segments (path.h). */
#include "pbdiff/diff/diff.h"
#include "diff/diff_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>



const double kPbd_Similar = 0.5;

const char *pbd_EditKind_String(pbd_EditKind k) {
  switch (k) {
    case kPbd_Edit_Added: return "added";
    case kPbd_Edit_Removed: return "removed";
    case kPbd_Edit_Changed: return "changed";
    case kPbd_Edit_Presence: return "presence";
    case kPbd_Edit_Moved: return "moved";
  }
  return "?";
}

const pbd_Value kPbd_DiffNone = {.kind = kPbd_Value_None};

/* How much higher the indices of elements pushed at index_base_at are. */
static uint32_t window_base(const Walk *w) {
  if (!w->nwindow_fields) return w->index_base;
  if (w->index_base_at == 0 || w->index_base_at > w->path.count) return 0;
  const pbd_PathSeg *seg = &w->path.segs[w->index_base_at - 1];
  for (uint32_t i = 0; i < w->nwindow_fields; i++) /* an unknown field of its number is not it */
    if (w->window_fields[i].number == seg->number && w->window_fields[i].field == seg->field)
      return w->window_fields[i].base;
  return 0;
}

int dw_emit_at(Walk *w, pbd_EditKind kind, const pbd_Value *l, const pbd_Value *r,
                   int64_t li, int64_t ri) {
  if (w->subset && w->path.count == w->subset->at + 1) { /* a keyed field's leftover */
    if (li >= 0) li = w->subset->lmap[li];
    if (ri >= 0) ri = w->subset->rmap[ri];
  }
  if (w->path.count == w->index_base_at + 1) { /* an element of a window's field */
    uint32_t base = window_base(w);
    if (li >= 0) li += base;
    if (ri >= 0) ri += base;
  }
  pbd_Edit e = {kind, &w->path, w->parent_count, w->parent,
                l ? *l : kPbd_DiffNone, r ? *r : kPbd_DiffNone, li, ri};
  w->path.frames = w->frames; /* the messages along the path, for reporters */
  w->path.frame_count = w->nframes;
  w->n++;
  return w->fn(w->ctx, &e);
}

int dw_emit(Walk *w, pbd_EditKind kind, const pbd_Value *l, const pbd_Value *r) {
  return dw_emit_at(w, kind, l, r, -1, -1);
}

/* ---- Paths ---------------------------------------------------------------- */

static void push(Walk *w, pbd_PathSeg seg) { pbd_Path_Push(&w->path, &seg); }

void dw_push_field(Walk *w, const pbd_Field *f) {
  bool ext = f->def && f->def->is_extension;
  push(w, (pbd_PathSeg){.kind = ext ? kPbd_Seg_Extension : kPbd_Seg_Field,
                        .number = f->number, .field = f->def});
}

uint32_t dw_element_index(const Walk *w, uint32_t i) {
  return w->path.count == w->index_base_at ? i + window_base(w) : i;
}

/* An element of a keyed field's leftovers, by its key: element k of a
 * sub-field of one side. */
static bool push_subset_element(Walk *w, bool right, uint32_t k) {
  const dw_Subset *s = w->subset;
  if (!s || w->path.count != s->at) return false;
  uint32_t i = right ? s->rmap[k] : s->lmap[k];
  const pbd_Field *f = right ? s->r : s->l;
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_ElementKey, .key_fields = s->rule->key,
                        .key_count = s->rule->key_count, .element = pbd_Field_Value(f, i).m,
                        .occurrence = right ? s->rocc[i] : s->locc[i]});
  return true;
}

void dw_push_index(Walk *w, uint32_t i) {
  if (push_subset_element(w, false, i)) return;
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_Index, .number = dw_element_index(w, i)});
}

void dw_push_right_index(Walk *w, uint32_t j) {
  if (push_subset_element(w, true, j)) return;
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_Index, .number = dw_element_index(w, j)});
}

void dw_push_pair_index(Walk *w, uint32_t i, uint32_t j) {
  if (push_subset_element(w, false, i)) return; /* LEFT's name, as an index path's */
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_Index, .number = dw_element_index(w, i),
                        .right_number = dw_element_index(w, j), .paired = true});
}

void dw_push_map_key(Walk *w, const pbd_Value *key) {
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_MapKey, .key = *key});
}

static void push_any(Walk *w, pbd_StrView type_url) {
  push(w, (pbd_PathSeg){.kind = kPbd_Seg_Any, .type_url = type_url});
}

/* ---- Ignore rules ---------------------------------------------------------- */

static bool some_pattern_matches(Walk *w, const char *text) {
  return pbd_PatternSet_Matches(w->ignore_set, text, &w->starred);
}

/* Whether the path as it stands now is ignored (a pattern matches it).  In
 * a stream, a pattern matches the whole path (`[*].header.timestamp`) or
 * the path below the message (`header.timestamp`, as for one message and as
 * pbdiff noise writes it). */
bool dw_path_ignored(Walk *w) {
  if (!w->patterns) return false;
  /* rendered in two steps, the first segment then the rest, which
   * pbd_Path_Format makes the whole path: the rest is a stream message's
   * own path (segments: [i], then below) */
  pbd_Buf_Truncate(&w->text, 0);
  pbd_Path_Format(&w->text, &w->path, 0, 1);
  size_t first = w->text.len;
  pbd_Path_Format(&w->text, &w->path, 1, w->path.count);
  if (w->text.oom) {
    w->oom = true;
    return true;
  }
  if (some_pattern_matches(w, w->text.data)) return true;
  if (!w->stream || w->path.count < 2) return false;
  const char *below = w->text.data + first;
  return some_pattern_matches(w, below[0] == '.' ? below + 1 : below);
}

static int compare_defs(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(const pbd_FieldDef *const *)a, y = (uintptr_t)*(const pbd_FieldDef *const *)b;
  return (x > y) - (x < y);
}

/* The fields --ignore names, sorted for a binary search: a config may name
 * many, and every field of the walk is looked up. */
static bool index_ignored_fields(Walk *w) {
  size_t n = 0;
  for (size_t i = 0; i < w->o->ignore_count; i++) n += w->o->ignores[i].field != NULL;
  if (!n) return true;
  w->ignored_fields = malloc(sizeof *w->ignored_fields * n);
  if (!w->ignored_fields) return false;
  for (size_t i = 0; i < w->o->ignore_count; i++)
    if (w->o->ignores[i].field) w->ignored_fields[w->nignored_fields++] = w->o->ignores[i].field;
  qsort(w->ignored_fields, n, sizeof *w->ignored_fields, compare_defs);
  return true;
}

bool dw_field_ignored(const Walk *w, const pbd_FieldDef *fd) {
  return fd && w->nignored_fields &&
         bsearch(&fd, w->ignored_fields, w->nignored_fields, sizeof fd, compare_defs) != NULL;
}

static const pbd_MatchRule *rule_for(const Walk *w, const pbd_FieldDef *fd) {
  if (!fd) return NULL;
  for (size_t i = 0; i < w->o->rule_count; i++)
    if (w->o->rules[i].field == fd) return &w->o->rules[i];
  return NULL;
}

/* ---- Values --------------------------------------------------------------- */

/* Two floats at the current path: equal bits or rule 10, else within the
 * tolerance that holds there (looked up only now: most floats are equal). */
static bool float_tolerated(Walk *w, pbd_ValueKind k, uint64_t a, uint64_t b);

static bool float_equal(Walk *w, pbd_ValueKind k, uint64_t a, uint64_t b) {
  if (w->o->float_bits || a == b) return a == b;
  if (pbd_Value_FloatEqual(k, a, b)) return true; /* rule 10 */
  return float_tolerated(w, k, a, b);
}

/* Whether the tolerance at the current path takes two floats as equal
 * (false where none holds). */
static bool float_tolerated(Walk *w, pbd_ValueKind k, uint64_t a, uint64_t b) {
  if (w->o->float_bits) return false;
  double margin = w->o->float_margin, fraction = w->o->float_fraction;
  if (w->o->tolerance_count) dw_tolerance_here(w, &margin, &fraction);
  if (margin <= 0 && fraction <= 0) return false;
  double x, y;
  if (k == kPbd_Value_Float) {
    float fx, fy;
    uint32_t ax = (uint32_t)a, bx = (uint32_t)b;
    memcpy(&fx, &ax, 4);
    memcpy(&fy, &bx, 4);
    x = fx, y = fy;
  } else {
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
  }
  if (isnan(x) || isnan(y)) return false;
  if (isinf(x) || isinf(y)) return x == y;
  double d = fabs(x - y), big = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
  return d <= margin || d <= fraction * big; /* as MessageDifferencer */
}

bool dw_is_message_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Message || k == kPbd_Value_LenMessage || k == kPbd_Value_Group;
}

static bool is_float_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Float || k == kPbd_Value_Double;
}

bool dw_values_equal(Walk *w, const pbd_Value *a, const pbd_Value *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case kPbd_Value_None: return true;
    case kPbd_Value_Float:
    case kPbd_Value_Double: return float_equal(w, a->kind, a->u, b->u);
    case kPbd_Value_String:
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      return a->s.size == b->s.size && (a->s.size == 0 || !memcmp(a->s.data, b->s.data, a->s.size));
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      if (!a->m || !b->m) return (a->m ? pbd_Message_FieldCount(a->m) : 0) == (b->m ? pbd_Message_FieldCount(b->m) : 0);
      return pbd_Hash128_Equal(a->m->hash, b->m->hash);
    default: return a->u == b->u;
  }
}

bool dw_element_equal(Walk *w, const pbd_Value *a, const pbd_Value *b, uint32_t left_index) {
  if (!w->o->tolerance_count) return dw_values_equal(w, a, b);
  size_t mark = w->path.count;
  dw_push_index(w, left_index);
  bool eq = dw_values_equal(w, a, b);
  pbd_Path_Truncate(&w->path, mark);
  return eq;
}

double dw_float_value(const pbd_Value *v) {
  if (v->kind == kPbd_Value_Float) {
    float f;
    uint32_t b = (uint32_t)v->u;
    memcpy(&f, &b, 4);
    return f;
  }
  double d;
  memcpy(&d, &v->u, 8);
  return d;
}

int dw_compare_keyed(const void *a, const void *b) {
  const dw_Keyed *x = a, *y = b;
  if (x->key.hi != y->key.hi) return x->key.hi < y->key.hi ? -1 : 1;
  if (x->key.lo != y->key.lo) return x->key.lo < y->key.lo ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

size_t dw_take_keyed(const void *sorted, size_t n, size_t size, pbd_Hash128 key, uint32_t *taken) {
  size_t first = dw_first_keyed(sorted, n, size, key);
  if (first == n) return n;
  size_t at = first + taken[first];
  const dw_Keyed *k = (const dw_Keyed *)((const char *)sorted + at * size);
  if (at >= n || !pbd_Hash128_Equal(k->key, key)) return n;
  taken[first]++;
  return at;
}

size_t dw_first_keyed(const void *sorted, size_t n, size_t size, pbd_Hash128 key) {
  dw_Keyed probe = {key, 0};
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (dw_compare_keyed((const char *)sorted + mid * size, &probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A 128-bit key per element for alignment and set matching: equal keys for
 * equal values (floats as rule 10 compares them, unless --float-bits). */
pbd_Hash128 dw_element_key(const Walk *w, const pbd_Value *v) {
  pbd_Hash128 k = {0, (uint64_t)v->kind << 56};
  if (dw_is_message_kind(v->kind)) return v->m ? dv_message_key(w, v->m) : k;
  if (v->kind == kPbd_Value_String || v->kind == kPbd_Value_Bytes || v->kind == kPbd_Value_Len) {
    XXH128_hash_t h = XXH3_128bits_withSeed(v->s.data, v->s.size, v->kind);
    k.lo = h.low64;
    k.hi = h.high64;
    return k;
  }
  uint64_t u = v->u;
  if (is_float_kind(v->kind) && !w->o->float_bits) {
    double x;
    if (v->kind == kPbd_Value_Float) {
      float f;
      uint32_t b = (uint32_t)u;
      memcpy(&f, &b, 4);
      x = f;
    } else {
      memcpy(&x, &u, 8);
    }
    if (isnan(x)) u = 1;
    else if (x == 0) u = 0;
  }
  k.lo = u;
  return k;
}

/* ---- Walk ----------------------------------------------------------------- */

static int diff_message(Walk *w, const pbd_Message *l, const pbd_Message *r);

/* Compares two values at the current path: messages are walked, the rest
 * reported as changed when they differ. */
/* Timestamp and Duration read as one value (2024-05-01T12:00:00Z, 1.5s):
 * a change is reported whole, not as seconds and nanos apart. */
static bool is_time_value(const pbd_Message *m) {
  return m->def && (!strcmp(m->def->full_name, "google.protobuf.Timestamp") ||
                    !strcmp(m->def->full_name, "google.protobuf.Duration"));
}

static int stop_at_first(void *ctx, const pbd_Edit *e) {
  (void)ctx, (void)e;
  return 1;
}

/* Whether two messages differ under the options, without reporting how
 * (-1 when out of memory). */
static int messages_differ(Walk *w, const pbd_Message *l, const pbd_Message *r) {
  pbd_EditFunc *fn = w->fn;
  void *ctx = w->ctx;
  size_t n = w->n;
  w->fn = stop_at_first;
  int rc = diff_message(w, l, r);
  w->fn = fn;
  w->ctx = ctx;
  w->n = n;
  return w->oom ? -1 : rc != 0;
}

int dw_diff_values_at(Walk *w, const pbd_Value *l, const pbd_Value *r, int64_t li,
                          int64_t ri) {
  if (dw_is_message_kind(l->kind) && l->kind == r->kind && l->m && r->m) {
    if (is_time_value(l->m) && l->m->def == r->m->def) {
      /* one value, one rendering, whatever the options: with ignores or
       * tolerances the parts decide whether it changed, the whole is shown */
      if (pbd_Hash128_Equal(l->m->hash, r->m->hash)) return 0;
      int differ = w->fuzzy ? messages_differ(w, l->m, r->m) : 1;
      if (differ <= 0) return differ;
      return dw_emit_at(w, kPbd_Edit_Changed, l, r, li, ri);
    }
    return diff_message(w, l->m, r->m);
  }
  if (w->fuzzy && dw_is_message_kind(l->kind) && l->kind == r->kind && (l->m || r->m)) {
    /* A message value absent on one side (a map entry without its value)
     * is the empty message: under ignores, tolerances or --partial what it
     * lacks may not count, so the two are compared as messages. */
    pbd_Message empty = {.def = l->m ? l->m->def : r->m->def};
    int differ = messages_differ(w, l->m ? l->m : &empty, r->m ? r->m : &empty);
    if (differ <= 0) return differ;
  } else if (dw_values_equal(w, l, r)) {
    return 0;
  }
  return dw_emit_at(w, kPbd_Edit_Changed, l, r, li, ri);
}

int dw_diff_values(Walk *w, const pbd_Value *l, const pbd_Value *r) {
  return dw_diff_values_at(w, l, r, -1, -1);
}

/* Whether two values of field f (its k-th) are equal.  With scoped
 * tolerances the path goes down to the value first, so that the tolerance
 * that holds there decides, as it will when the pair is walked. */
static bool field_values_equal(Walk *w, const pbd_Field *f, uint32_t k, const pbd_Value *u,
                               const pbd_Value *v) {
  if (!w->o->tolerance_count) return dw_values_equal(w, u, v);
  size_t mark = w->path.count;
  dw_push_field(w, f);
  if (!f->def || f->def->is_repeated) dw_push_index(w, k);
  bool eq = dw_values_equal(w, u, v);
  pbd_Path_Truncate(&w->path, mark);
  return eq;
}

/* Share of equal fields of two messages (1 for two empty ones), elements
 * of the repeated field at the current path (LEFT's at left_index). */
static int order_fields(const pbd_Field *a, const pbd_Field *b);

/* Whether field f of an element at the current path (the element's index
 * pushed) is left out by --ignore. */
static bool element_field_ignored(Walk *w, const pbd_Field *f) {
  if (dw_field_ignored(w, f->def)) return true;
  if (!w->patterns) return false;
  size_t mark = w->path.count;
  dw_push_field(w, f);
  bool ignored = dw_path_ignored(w);
  pbd_Path_Truncate(&w->path, mark);
  return ignored;
}

/* Whether fields x and y (of one number) hold the same values, as
 * field_values_equal finds them one by one.  Integers, booleans, enums and
 * strings are compared as they are stored (no tolerance applies to them):
 * leftovers are compared with every candidate, so this is their cost. */
static bool same_values(Walk *w, const pbd_Field *x, const pbd_Field *y) {
  if (x->count != y->count) return false;
  bool plain = x->def && y->def && x->kind == y->kind;
  if (plain && x->kind >= kPbd_Value_Int && x->kind <= kPbd_Value_Enum)
    return pbd_Field_FirstScalarDifference(x, y, 0, x->count) == x->count;
  if (plain && (x->kind == kPbd_Value_String || x->kind == kPbd_Value_Bytes)) {
    for (uint32_t k = 0; k < x->count; k++) {
      pbd_StrView a = x->v.strs[k], b = y->v.strs[k];
      if (a.size != b.size || (a.size && memcmp(a.data, b.data, a.size))) return false;
    }
    return true;
  }
  for (uint32_t k = 0; k < x->count; k++) {
    pbd_Value u = pbd_Field_Value(x, k), v = pbd_Field_Value(y, k);
    if (!field_values_equal(w, x, k, &u, &v)) return false;
  }
  return true;
}

/* Share of equal fields of two messages (1 for two empty ones), elements
 * of the repeated field at the current path (LEFT's at left_index), as the
 * comparison sees them: ignored fields take no part, and floats compare
 * under the tolerance that holds there. */
static double message_similarity(Walk *w, const pbd_Message *a, const pbd_Message *b,
                                 uint32_t left_index) {
  if (!a || !b) return 0;
  size_t mark = w->path.count;
  bool ignores = w->patterns || w->nignored_fields;
  if (w->o->tolerance_count || ignores) dw_push_index(w, left_index);
  uint32_t i = 0, j = 0, na = pbd_Message_FieldCount(a), nb = pbd_Message_FieldCount(b);
  const pbd_Field *fa = pbd_Message_Fields(a), *fb = pbd_Message_Fields(b);
  uint32_t same = 0, total = 0;
  while (i < na || j < nb) {
    const pbd_Field *x = i < na ? &fa[i] : NULL;
    const pbd_Field *y = j < nb ? &fb[j] : NULL;
    int c = !x ? 1 : !y ? -1 : order_fields(x, y);
    const pbd_Field *f = c <= 0 ? x : y;
    bool counted = !ignores || !element_field_ignored(w, f);
    if (c == 0) {
      if (counted) same += same_values(w, x, y), total += 2;
      i++, j++;
    } else {
      total += counted;
      if (c < 0) i++;
      else j++;
    }
  }
  pbd_Path_Truncate(&w->path, mark);
  return total ? 2.0 * same / total : 1.0;
}

double dw_similarity(Walk *w, const pbd_Value *a, const pbd_Value *b, uint32_t left_index) {
  if (a->kind != b->kind) return 0;
  if (!dw_is_message_kind(a->kind)) return 1; /* scalars: a replaced value */
  return message_similarity(w, a->m, b->m, left_index);
}

/* ---- Fields --------------------------------------------------------------- */

/* A field present in one tree only (rule 7 decides the kind of edit). */
static int field_only(Walk *w, const pbd_Field *f, bool in_left) {
  if (!in_left && w->o->partial) return 0; /* --partial: only LEFT's fields */
  pbd_EditKind kind = in_left ? kPbd_Edit_Removed : kPbd_Edit_Added;
  size_t mark = w->path.count;
  int rc = 0;
  const pbd_FieldDef *fd = f->def;
  if (!fd || fd->is_repeated) {
    const pbd_MatchRule *rule = rule_for(w, fd);
    for (uint32_t i = 0; i < f->count && !rc; i++) {
      pbd_Value v = pbd_Field_Value(f, i);
      if (fd && fd->is_map) {
        pbd_Value k = pbd_MapEntry_Part(v.m, 1);
        dw_push_map_key(w, &k);
        v = pbd_MapEntry_Part(v.m, 2);
      } else if (rule) {
        dw_push_element(w, rule, f, i);
      } else {
        dw_push_index(w, i);
      }
      if (!dw_path_ignored(w))
        rc = in_left ? dw_emit_at(w, kind, &v, NULL, i, -1) : dw_emit_at(w, kind, NULL, &v, -1, i);
      pbd_Path_Truncate(&w->path, mark);
    }
    return rc;
  }
  pbd_Value v = pbd_Field_Value(f, 0);
  if (!fd->has_presence) {
    /* Implicit presence: absent means the default, so this is a change,
     * unless a tolerance that holds here takes the value for the
     * default.  Neither rule 10 nor a tolerance makes a -0.0 the default:
     * it differs from an absent field by its presence (its bits are
     * written), not by its value, whatever options are in force. */
    pbd_Value d = pbd_FieldDef_DefaultValue(fd);
    if (w->fuzzy && is_float_kind(v.kind) && !pbd_Value_FloatEqual(v.kind, v.u, d.u) &&
        float_tolerated(w, v.kind, v.u, d.u))
      return 0;
    return in_left ? dw_emit(w, kPbd_Edit_Changed, &v, &d) : dw_emit(w, kPbd_Edit_Changed, &d, &v);
  }
  bool at_default;
  if (v.kind == kPbd_Value_Message) {
    at_default = pbd_Message_FieldCount(v.m) == 0 && !pbd_Message_AnyPayload(v.m);
  } else {
    pbd_Value d = pbd_FieldDef_DefaultValue(fd);
    at_default = (is_float_kind(v.kind) && pbd_Value_FloatEqual(v.kind, v.u, d.u)) ||
                 (!is_float_kind(v.kind) && dw_values_equal(w, &v, &d));
  }
  if (at_default) kind = kPbd_Edit_Presence;
  return in_left ? dw_emit(w, kind, &v, NULL) : dw_emit(w, kind, NULL, &v);
}

static bool is_singular(const pbd_Field *f) { return f->def && !f->def->is_repeated; }
static bool is_map(const pbd_Field *f) { return f->def && f->def->is_map; }

static int diff_field(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  /* The two sides' defs differ only across schema versions; then the
   * field is walked as what both sides agree it is, and as a sequence
   * otherwise, so that no value of either side goes unseen. */
  if (is_map(l) && is_map(r)) return dw_diff_map(w, l, r);
  if (is_singular(l) && is_singular(r)) {
    pbd_Value a = pbd_Field_Value(l, 0), b = pbd_Field_Value(r, 0);
    pbd_ElemKind view = l->kind == kPbd_Value_Bytes && r->kind == kPbd_Value_Bytes
                            ? dv_field_view(w, l->def) : kPbd_Elem_None;
    if (view) return dv_diff_bytes(w, &a, &b, view);
    return dw_diff_values(w, &a, &b);
  }
  const pbd_MatchRule *rule = rule_for(w, l->def);
  if (rule && rule->kind != kPbd_Match_Sequence) return dw_diff_matched(w, rule, l, r);
  return dw_diff_sequence(w, l, r);
}

/* Fields pair up by number; at one number a known field sorts before an
 * unknown one and pairs only with its like. */
static int order_fields(const pbd_Field *a, const pbd_Field *b) {
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return (a->def == NULL) - (b->def == NULL);
}

/* Whether a field's values are a tensor's elements, compared apart
 * (dv_TensorPair: bits of the numbers below 32). */
static bool in_skip(uint32_t skip, const pbd_Field *f) {
  return f && f->def && f->number < 32 && (skip >> f->number & 1);
}

/* t: a tensor pair whose elements are compared apart (dv_diff_tensor),
 * where the walk reaches the first of their fields; NULL: none. */
static int diff_fields(Walk *w, const pbd_Message *l, const pbd_Message *r,
                       const dv_TensorPair *t) {
  uint32_t i = 0, j = 0;
  size_t mark = w->path.count;
  int rc = 0;
  const dv_TensorPair *pending = t; /* its elements not compared yet */
  while ((i < pbd_Message_FieldCount(l) || j < pbd_Message_FieldCount(r)) && !rc && !w->oom) {
    const pbd_Field *lf = i < pbd_Message_FieldCount(l) ? &pbd_Message_Fields(l)[i] : NULL;
    const pbd_Field *rf = j < pbd_Message_FieldCount(r) ? &pbd_Message_Fields(r)[j] : NULL;
    int c = !lf ? 1 : !rf ? -1 : order_fields(lf, rf);
    const pbd_Field *f = c <= 0 ? lf : rf;
    if (pending && f->number >= pending->at) {
      rc = dv_diff_tensor(w, pending);
      pending = NULL;
      continue;
    }
    if (t && (in_skip(t->lskip, lf) || in_skip(t->rskip, rf))) {
      i += in_skip(t->lskip, lf);
      j += in_skip(t->rskip, rf);
      continue;
    }
    dw_push_field(w, f);
    bool skip = dw_field_ignored(w, f->def) || dw_path_ignored(w);
    if (c == 0) {
      if (!skip) rc = diff_field(w, lf, rf);
      i++, j++;
    } else if (c < 0) {
      if (!skip) rc = field_only(w, lf, true);
      i++;
    } else {
      if (!skip) rc = field_only(w, rf, false);
      j++;
    }
    pbd_Path_Truncate(&w->path, mark);
  }
  if (pending && !rc && !w->oom) rc = dv_diff_tensor(w, pending);
  return rc;
}

/* A field whose elements a rule pairs other than by their order: its
 * occurrences stay whole in a window. */
static bool matched_other_than_in_order(void *walk, const pbd_FieldDef *field) {
  const pbd_MatchRule *rule = rule_for(walk, field);
  return rule && rule->kind != kPbd_Match_Sequence;
}

/* Two large messages that differ in a few elements of their repeated
 * fields are walked through their windows (pbd_MessageWindow): the level
 * of a field of millions of elements is not read, only the elements
 * between its common prefix and suffix, found by the bytes when the
 * messages share them, else by the elements' hashes.  Not where a rule
 * matches the field other than as a sequence.  1: walked (the result in
 * *rc), 0: not narrowed. */
static int diff_window(Walk *w, const pbd_Message *l, const pbd_Message *r, int *rc) {
  pbd_MessageWindow win;
  if (pbd_Message_NarrowPair(l, r, &win)) {
    if (matched_other_than_in_order(w, win.fields[0].field)) return 0;
  } else if (!pbd_Message_NarrowByHash(l, r, matched_other_than_in_order, w, &win)) {
    return 0;
  }
  uint32_t base = w->index_base;
  size_t at = w->index_base_at;
  const pbd_WindowField *fields = w->window_fields;
  uint32_t nfields = w->nwindow_fields;
  w->index_base_at = w->path.count + 1; /* below the field's segment */
  w->window_fields = win.fields;
  w->nwindow_fields = win.nfields;
  *rc = diff_message(w, win.left, win.right);
  w->index_base = base;
  w->index_base_at = at;
  w->window_fields = fields;
  w->nwindow_fields = nfields;
  return 1;
}

/* Enters a message pair for the edits' frames; false (w->oom) when out of
 * memory. */
static bool push_frame(Walk *w, const pbd_Message *l, const pbd_Message *r) {
  if (w->nframes == w->frames_cap) {
    size_t cap = w->frames_cap ? 2 * w->frames_cap : 16;
    pbd_PathFrame *f = realloc(w->frames, cap * sizeof *f);
    if (!f) {
      w->oom = true;
      return false;
    }
    w->frames = f;
    w->frames_cap = cap;
  }
  w->frames[w->nframes++] = (pbd_PathFrame){w->path.count, l, r};
  return true;
}

static int diff_message(Walk *w, const pbd_Message *l, const pbd_Message *r) {
  if (l == r || pbd_Hash128_Equal(l->hash, r->hash)) return 0;
  int rc;
  if (diff_window(w, l, r, &rc)) return rc;
  pbd_Message_ReadPair(l, r); /* both sides' fields, at once when they are big */
  pbd_StrView lu = pbd_Message_AnyTypeUrl(l), ru = pbd_Message_AnyTypeUrl(r);
  if (pbd_Message_AnyPayload(l) && pbd_Message_AnyPayload(r) && lu.size == ru.size && !memcmp(lu.data, ru.data, lu.size)) {
    /* Rule 11: an Any is compared through its unpacked payload. */
    size_t mark = w->path.count;
    push_any(w, lu);
    rc = diff_message(w, pbd_Message_AnyPayload(l), pbd_Message_AnyPayload(r));
    pbd_Path_Truncate(&w->path, mark);
    return rc;
  }
  size_t saved_count = w->parent_count;
  const pbd_MessageDef *saved = w->parent;
  w->parent_count = w->path.count;
  w->parent = l->def;
  if (!push_frame(w, l, r)) return 0;
  dv_TensorPair t;
  rc = diff_fields(w, l, r, dv_tensor_pair(w, l, r, &t) ? &t : NULL);
  w->nframes--;
  w->parent_count = saved_count;
  w->parent = saved;
  return rc;
}

static void walk_begin(Walk *w, const pbd_DiffOptions *opts, pbd_EditFunc *fn, void *ctx) {
  static const pbd_DiffOptions kDefaults = {0};
  memset(w, 0, sizeof *w);
  w->index_base_at = SIZE_MAX;
  w->o = opts ? opts : &kDefaults;
  w->fn = fn;
  w->ctx = ctx;
  w->fuzzy = w->o->float_margin > 0 || w->o->float_fraction > 0 || w->o->ignore_count > 0 ||
             w->o->partial;
  for (size_t i = 0; i < w->o->ignore_count; i++)
    if (w->o->ignores[i].pattern) w->patterns = true;
  if (w->patterns) {
    const char **p = malloc(sizeof *p * w->o->ignore_count);
    for (size_t i = 0; p && i < w->o->ignore_count; i++) p[i] = w->o->ignores[i].pattern;
    w->ignore_set = p ? pbd_PatternSet_New(p, w->o->ignore_count) : NULL;
    free(p);
    if (!w->ignore_set) w->oom = true, w->patterns = false;
  }
  if (!index_ignored_fields(w)) w->oom = true;
  /* a scoped tolerance, like a global one, means different hashes no
   * longer prove a difference, wherever it applies */
  for (size_t i = 0; i < w->o->tolerance_count; i++) {
    const pbd_ToleranceRule *r = &w->o->tolerances[i];
    if (r->margin > 0 || r->fraction > 0) w->fuzzy = true;
    if (r->pattern) w->tolerance_patterns = true;
  }
}

static int walk_end(Walk *w, int rc, size_t *n_edits, pbd_Status *s) {
  bool oom = w->path.oom || w->oom;
  pbd_Path_Free(&w->path);
  pbd_Buf_Free(&w->text);
  pbd_Buf_Free(&w->starred);
  pbd_PatternSet_Free(w->ignore_set);
  free(w->ignored_fields);
  free(w->frames);
  if (n_edits) *n_edits = w->n;
  if (oom) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return -1;
  }
  return rc;
}

int pbd_Diff_Run(const pbd_Message *left, const pbd_Message *right, const pbd_DiffOptions *opts,
                 pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s) {
  Walk w;
  walk_begin(&w, opts, fn, ctx);
  return walk_end(&w, diff_message(&w, left, right), n_edits, s);
}

int pbd_Diff_RunStream(const pbd_Message *const *left, size_t nleft,
                      const pbd_Message *const *right, size_t nright, const pbd_DiffOptions *opts,
                      pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s) {
  /* The stream is walked as one repeated message field with an empty name,
   * so that messages are aligned like the elements of any repeated field
   * and paths read [3].name, or [3] for a whole message. */
  static const pbd_FieldDef kStream = {.name = "", .full_name = "", .json_name = "",
                                       .label = kPbd_Label_Repeated, .type = kPbd_Type_Message,
                                       .is_repeated = true};
  if (nleft > UINT32_MAX || nright > UINT32_MAX) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "stream too long");
    return -1;
  }
  pbd_Field l = {.kind = kPbd_Value_Message, .def = &kStream, .count = (uint32_t)nleft,
                 .v.msgs = (pbd_Message **)left};
  pbd_Field r = {.kind = kPbd_Value_Message, .def = &kStream, .count = (uint32_t)nright,
                 .v.msgs = (pbd_Message **)right};
  Walk w;
  walk_begin(&w, opts, fn, ctx);
  w.stream = true;
  if (w.o->stream_base > UINT32_MAX - (nleft > nright ? nleft : nright)) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "stream too long");
    return walk_end(&w, -1, n_edits, s);
  }
  w.index_base = (uint32_t)w.o->stream_base;
  w.index_base_at = 0; /* the messages' own indices */
  return walk_end(&w, dw_diff_sequence(&w, &l, &r), n_edits, s);
}
