/* pbdiff — repeated fields as sequences (the default matching; diff_walk.h).
 *
 * The elements are aligned by their keys (a longest common subsequence,
 * lib/diff/align.c), then the alignment is made to read as the smallest
 * true difference:
 *
 *  1. Moves: an unmatched LEFT element whose key an unmatched RIGHT element
 *     has is `moved` (both indices), not removed here and added there.
 *  2. Substitutions: a matched element between two runs of unmatched ones
 *     is given up when comparing the whole stretch in place takes fewer
 *     edits ([1,1,1,1] -> [1,0,1,0] is two changes, not an added 0, a
 *     change and a removed 1).  Scalars only (messages pair by similarity),
 *     and not where a move takes part.
 *  3. In each run between matched elements, what is left pairs up: scalars
 *     in order (a removal next to an addition is one change), one message
 *     facing one message as a change, more messages by similarity (the share
 *     of equal fields, at least half): of the pairs within a window of each
 *     other's place, the most alike first, then the closest; the rest are
 *     removed or added.  Each choice reads the same with the sides swapped,
 *     so swapping LEFT and RIGHT mirrors the edits.
 *  4. Order: the field is ordered, so a pair that crosses another (similar
 *     messages that swapped places) is `moved` as well as compared: under
 *     ignores, tolerances or --partial its content may read as equal, and
 *     the change of place must still be reported (docs/semantics.md).
 *  5. Shapes: two lists of one length that the alignment only cuts and
 *     adds to, at no fewer edits than comparing them in place, are compared
 *     in place (pair_by_position).
 *
 * A changed element's path segment carries both indices (`v[2]` in LEFT
 * is `v[3]` in RIGHT), which text reports show as `v[2->3]`. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/threads.h"
#include "diff/diff_walk.h"
#include "pbdiff/diff/align.h"

typedef struct {
  const pbd_Field *l, *r;
  pbd_Hash128 *ka, *kb;   /* element keys */
  int64_t *moved_to;      /* per LEFT element: its RIGHT place when moved, else -1 */
  bool *moved_in;         /* per RIGHT element: it came by a move */
} Seq;

static void push_pair_index(Walk *w, uint32_t i, uint32_t j) {
  /* only a stream's messages are elements at the root of the path */
  if (w->path.count == 0 && w->o->stream_pair)
    w->o->stream_pair(w->o->stream_pair_ctx, dw_element_index(w, i), dw_element_index(w, j));
  dw_push_pair_index(w, i, j);
}

static int removed_elem(Walk *w, const pbd_Field *f, uint32_t i, size_t mark) {
  pbd_Value v = pbd_Field_Value(f, i);
  dw_push_index(w, i);
  int rc = dw_path_ignored(w) ? 0 : dw_emit_at(w, kPbd_Edit_Removed, &v, NULL, i, -1);
  pbd_Path_Truncate(&w->path, mark);
  return rc;
}

static int added_elem(Walk *w, const pbd_Field *f, uint32_t j, size_t mark) {
  if (w->o->partial) return 0; /* only what LEFT sets is compared */
  pbd_Value v = pbd_Field_Value(f, j);
  dw_push_right_index(w, j);
  int rc = dw_path_ignored(w) ? 0 : dw_emit_at(w, kPbd_Edit_Added, NULL, &v, -1, j);
  pbd_Path_Truncate(&w->path, mark);
  return rc;
}

static int changed_elem(Walk *w, const pbd_Field *l, uint32_t i, const pbd_Field *r, uint32_t j,
                        size_t mark) {
  pbd_Value a = pbd_Field_Value(l, i), b = pbd_Field_Value(r, j);
  push_pair_index(w, i, j);
  int rc = dw_path_ignored(w) ? 0 : dw_diff_values_at(w, &a, &b, i, j);
  pbd_Path_Truncate(&w->path, mark);
  return rc;
}

static int moved_elem(Walk *w, const pbd_Field *l, uint32_t i, const pbd_Field *r, uint32_t j,
                      size_t mark) {
  pbd_Value a = pbd_Field_Value(l, i), b = pbd_Field_Value(r, j);
  push_pair_index(w, i, j);
  int rc = 0;
  if (!dw_path_ignored(w)) {
    rc = dw_emit_at(w, kPbd_Edit_Moved, &a, &b, i, j);
    if (!rc) rc = dw_diff_values_at(w, &a, &b, i, j); /* and what else changed */
  }
  pbd_Path_Truncate(&w->path, mark);
  return rc;
}

/* ---- 2. substitutions ---------------------------------------------------------- */

static bool is_scalar_kind(pbd_ValueKind k) { return !dw_is_message_kind(k); }

/* Edits a run of a removed and b added scalars costs: paired in order. */
static size_t run_cost(size_t a, size_t b) { return a > b ? a : b; }

/* Edits the stretch LEFT[i0,i1) / RIGHT[j0,j1) of equal length costs when
 * compared in place. */
static size_t in_place_cost(const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0) {
  size_t n = 0;
  for (uint32_t i = i0; i < i1; i++) n += !pbd_Hash128_Equal(q->ka[i], q->kb[j0 + (i - i0)]);
  return n;
}

/* Whether a move takes part of LEFT[i0,i1) or RIGHT[j0,j1). */
static bool moves_within(const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1) {
  for (uint32_t i = i0; i < i1; i++)
    if (q->moved_to[i] >= 0) return true;
  for (uint32_t j = j0; j < j1; j++)
    if (q->moved_in[j]) return true;
  return false;
}

/* Drops matched pairs whose neighbouring runs read better as changes in
 * place; one pass, left to right, over the pairs.  Stretches that moves
 * take part in are left as they are (a move says more than changes). */
static void prefer_substitutions(const Seq *q, pbd_AlignPair *pairs, size_t *np) {
  if (!*np || !is_scalar_kind(q->l->kind)) return;
  size_t out = 0;
  uint32_t i = 0, j = 0; /* the start of the run before the current pair */
  for (size_t k = 0; k < *np; k++) {
    uint32_t pi = pairs[k].a, pj = pairs[k].b;
    uint32_t ni = k + 1 < *np ? pairs[k + 1].a : q->l->count;
    uint32_t nj = k + 1 < *np ? pairs[k + 1].b : q->r->count;
    size_t before = run_cost(pi - i, pj - j), after = run_cost(ni - pi - 1, nj - pj - 1);
    bool gaps = before > 0 && after > 0;
    if (gaps && ni - i == nj - j && in_place_cost(q, i, ni, j) < before + after &&
        !moves_within(q, i, ni, j, nj))
      continue;
    pairs[out++] = pairs[k];
    i = pi + 1;
    j = pj + 1;
  }
  *np = out;
}

/* ---- 1. moves -------------------------------------------------------------------- */

/* Pairs unmatched LEFT elements with unmatched RIGHT ones of the same key
 * (in order among equal keys).  false when out of memory. */
static bool find_moves(Seq *q, const pbd_AlignPair *pairs, size_t np) {
  uint32_t n = q->l->count, m = q->r->count;
  bool *lmatched = calloc(n ? n : 1, sizeof *lmatched), *rmatched = calloc(m ? m : 1, 1);
  dw_Keyed *free_r = malloc(sizeof *free_r * (m ? m : 1));
  uint32_t *taken = calloc(m ? m : 1, sizeof *taken);
  q->moved_to = malloc(sizeof *q->moved_to * (n ? n : 1));
  q->moved_in = calloc(m ? m : 1, sizeof *q->moved_in);
  bool ok = lmatched && rmatched && free_r && taken && q->moved_to && q->moved_in;
  for (size_t k = 0; ok && k < np; k++) lmatched[pairs[k].a] = rmatched[pairs[k].b] = true;
  size_t nr = 0;
  for (uint32_t j = 0; ok && j < m; j++)
    if (!rmatched[j]) free_r[nr++] = (dw_Keyed){q->kb[j], j};
  if (ok && nr) qsort(free_r, nr, sizeof *free_r, dw_compare_keyed);
  for (uint32_t i = 0; ok && i < n; i++) {
    q->moved_to[i] = -1;
    if (lmatched[i] || nr == 0) continue;
    size_t at = dw_take_keyed(free_r, nr, sizeof *free_r, q->ka[i], taken);
    if (at == nr) continue;
    q->moved_to[i] = free_r[at].index;
    q->moved_in[free_r[at].index] = true;
  }
  free(lmatched), free(rmatched), free(free_r), free(taken);
  return ok;
}

/* ---- 3. what is left in a run ----------------------------------------------------- */

static uint32_t not_moved(const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1,
                          uint32_t *nr) {
  uint32_t nl = 0;
  *nr = 0;
  for (uint32_t i = i0; i < i1; i++) nl += q->moved_to[i] < 0;
  for (uint32_t j = j0; j < j1; j++) *nr += !q->moved_in[j];
  return nl;
}

/* Which of a run's pairs keep their order: the longest run of pairs whose
 * RIGHT places rise with their LEFT places (patience sorting).  A pair
 * outside it crossed another: its element changed places, which in an
 * ordered field is a difference of its own, reported as `moved` even where
 * ignores, tolerances or --partial leave its content equal.  in_order[k]
 * for LEFT element i0 + k.  false when out of memory. */
static bool pairs_in_order(const uint32_t *partner, uint32_t n, uint32_t j1, bool *in_order) {
  uint32_t *tail = malloc((n + 1) * sizeof *tail); /* tail[len]: k ending the best run of len+1 */
  uint32_t *prev = malloc((n + 1) * sizeof *prev);
  if (!tail || !prev) {
    free(tail), free(prev);
    return false;
  }
  uint32_t len = 0;
  for (uint32_t k = 0; k < n; k++) {
    in_order[k] = false;
    if (partner[k] == j1) continue;
    uint32_t lo = 0, hi = len;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (partner[tail[mid]] < partner[k]) lo = mid + 1;
      else hi = mid;
    }
    prev[k] = lo ? tail[lo - 1] : UINT32_MAX;
    tail[lo] = k;
    if (lo == len) len++;
  }
  for (uint32_t k = len ? tail[len - 1] : UINT32_MAX; k != UINT32_MAX; k = prev[k])
    in_order[k] = true;
  free(tail), free(prev);
  return true;
}

/* Reports a run once its elements are paired (partner[i - i0]: RIGHT's
 * index, or j1 for none; taken[j - j0]: RIGHT's element is paired): moved
 * elements where they left, pairs that crossed another as moved, the other
 * pairs as changes, then what is left as removed and added. */
static int emit_run(Walk *w, const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1,
                    const uint32_t *partner, const bool *taken) {
  size_t mark = w->path.count;
  bool *in_order = malloc((i1 - i0 + 1) * sizeof *in_order);
  if (!in_order || !pairs_in_order(partner, i1 - i0, j1, in_order)) {
    free(in_order);
    w->oom = true;
    return -1;
  }
  int rc = 0;
  for (uint32_t i = i0; i < i1 && !rc; i++) {
    uint32_t j = partner[i - i0];
    if (q->moved_to[i] >= 0) rc = moved_elem(w, q->l, i, q->r, (uint32_t)q->moved_to[i], mark);
    else if (j == j1) rc = removed_elem(w, q->l, i, mark);
    else if (!in_order[i - i0]) rc = moved_elem(w, q->l, i, q->r, j, mark);
    else rc = changed_elem(w, q->l, i, q->r, j, mark);
  }
  for (uint32_t j = j0; j < j1 && !rc; j++)
    if (!q->moved_in[j] && !taken[j - j0]) rc = added_elem(w, q->r, j, mark);
  free(in_order);
  return rc;
}

/* The next RIGHT element from *cursor in [j0, j1) of kind k that is not
 * moved in, or j1. */
static uint32_t next_of_kind(const Seq *q, uint32_t *cursor, uint32_t j1, pbd_ValueKind k) {
  while (*cursor < j1 && (q->moved_in[*cursor] || pbd_Field_Value(q->r, *cursor).kind != k))
    (*cursor)++;
  return *cursor;
}

/* Scalars: a removal next to an addition is one change, in order.  The
 * values of an unknown field can be of several kinds (a varint and a group
 * under one number): the k-th value of a kind on one side pairs with the
 * k-th of that kind on the other, so that swapping the sides mirrors the
 * edits. */
static int scalar_run(Walk *w, const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1) {
  uint32_t cursor[kPbd_Value_Group + 1];
  for (size_t k = 0; k < sizeof cursor / sizeof *cursor; k++) cursor[k] = j0;
  bool *taken = calloc(j1 - j0 + 1, sizeof *taken);
  uint32_t *partner = malloc((i1 - i0 + 1) * sizeof *partner);
  if (!taken || !partner) {
    free(taken), free(partner);
    w->oom = true;
    return -1;
  }
  for (uint32_t i = i0; i < i1; i++) {
    partner[i - i0] = j1;
    if (q->moved_to[i] >= 0) continue;
    pbd_ValueKind k = pbd_Field_Value(q->l, i).kind;
    uint32_t j = (unsigned)k <= kPbd_Value_Group ? next_of_kind(q, &cursor[k], j1, k) : j1;
    if (j < j1) {
      taken[j - j0] = true;
      cursor[k]++;
      partner[i - i0] = j;
    }
  }
  int rc = emit_run(w, q, i0, i1, j0, j1, partner, taken);
  free(taken), free(partner);
  return rc;
}

/* Pairs the run's leftover messages (those not moved) by similarity, best
 * first (dw_pair_similar).  partner[i - i0] gets RIGHT's index or j1. */
static bool pair_by_similarity(Walk *w, const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0,
                               uint32_t j1, uint32_t *partner, bool *taken) {
  uint32_t *li = malloc((i1 - i0 + 1) * sizeof *li), *rj = malloc((j1 - j0 + 1) * sizeof *rj);
  uint32_t *pl = malloc((i1 - i0 + 1) * sizeof *pl), nl = 0, nr = 0;
  bool ok = li && rj && pl;
  for (uint32_t i = i0; ok && i < i1; i++) {
    partner[i - i0] = j1;
    if (q->moved_to[i] < 0) li[nl++] = i;
  }
  for (uint32_t j = j0; ok && j < j1; j++)
    if (!q->moved_in[j]) rj[nr++] = j;
  ok = ok && dw_pair_similar(w, q->l, li, nl, q->r, rj, nr, pl);
  for (uint32_t a = 0; ok && a < nl; a++) {
    if (pl[a] == UINT32_MAX) continue;
    partner[li[a] - i0] = rj[pl[a]];
    taken[rj[pl[a]] - j0] = true;
  }
  free(li), free(rj), free(pl);
  return ok;
}

/* Messages: one facing one is a change, however little of it stayed (a
 * message of one field, say); more pair by similarity (pair_by_similarity),
 * wherever they stand in the run; the rest are removed, then added. */
static int message_run(Walk *w, const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1) {
  uint32_t nr, nl = not_moved(q, i0, i1, j0, j1, &nr);
  bool *taken = calloc(j1 - j0 + 1, sizeof *taken);
  uint32_t *partner = malloc((i1 - i0 + 1) * sizeof *partner);
  bool ok = taken && partner;
  if (ok && nl == 1 && nr == 1) { /* the two of the same kind, whatever their likeness */
    uint32_t i = i0, j = j0;
    while (q->moved_to[i] >= 0) i++;
    while (q->moved_in[j]) j++;
    for (uint32_t k = 0; k < i1 - i0; k++) partner[k] = j1;
    if (pbd_Field_Value(q->l, i).kind == pbd_Field_Value(q->r, j).kind) {
      partner[i - i0] = j;
      taken[j - j0] = true;
    }
  } else if (ok) {
    ok = pair_by_similarity(w, q, i0, i1, j0, j1, partner, taken);
  }
  if (!ok) {
    free(taken), free(partner);
    w->oom = true;
    return -1;
  }
  int rc = emit_run(w, q, i0, i1, j0, j1, partner, taken);
  free(taken), free(partner);
  return rc;
}

/* A run of LEFT elements [i0,i1) facing RIGHT ones [j0,j1) between matched
 * elements; moved ones are reported as such where they left. */
static int diff_run(Walk *w, const Seq *q, uint32_t i0, uint32_t i1, uint32_t j0, uint32_t j1) {
  if (is_scalar_kind(q->l->kind)) return scalar_run(w, q, i0, i1, j0, j1);
  return message_run(w, q, i0, i1, j0, j1);
}

/* ---- 5. shapes: position by position ----------------------------------------- */

/* Whether two lists of one length are better read position by position:
 * the alignment moved nothing and paired nothing in its runs (each run is
 * elements removed or elements added), and comparing in place costs no
 * more edits than those removals and additions.  An ONNX shape [1,1,4,3]
 * against [1,1,3,2] is then `dim[2]: 4 -> 3`, `dim[3]: 3 -> 2`, as people
 * read shapes and coordinates, not a 4 removed and a 2 added.  Only where
 * the elements compared in place have the same shape (same_shape); a list
 * shifted by one ([1,2,3] against [2,3,4]) stays a removal and an
 * addition, which is fewer edits than three changes. */
/* Whether the elements at place k differ in values only: scalars of one
 * kind, or messages with the same fields present (a coordinate or a shape
 * changes its values; two unrelated messages differ in their fields too,
 * and compared in place would read as a list of unrelated changes). */
static bool same_shape(const Seq *q, uint32_t k) {
  pbd_Value a = pbd_Field_Value(q->l, k), b = pbd_Field_Value(q->r, k);
  if (a.kind != b.kind) return false;
  if (!dw_is_message_kind(a.kind)) return true;
  if (!a.m || !b.m) return false;
  uint32_t n = pbd_Message_FieldCount(a.m);
  if (n != pbd_Message_FieldCount(b.m)) return false;
  const pbd_Field *x = pbd_Message_Fields(a.m), *y = pbd_Message_Fields(b.m);
  for (uint32_t i = 0; i < n; i++)
    if (x[i].number != y[i].number || x[i].count != y[i].count) return false;
  return true;
}

static bool pair_by_position(const Seq *q, const pbd_AlignPair *pairs, size_t np) {
  uint32_t n = q->l->count;
  if (n != q->r->count || np == n) return false;
  for (uint32_t i = 0; i < n; i++)
    if (q->moved_to[i] >= 0) return false;
  uint32_t i = 0, j = 0;
  for (size_t k = 0; k <= np; k++) {
    uint32_t pi = k < np ? pairs[k].a : n, pj = k < np ? pairs[k].b : n;
    if (pi > i && pj > j) return false; /* a run with elements on both sides */
    i = pi + 1;
    j = pj + 1;
  }
  size_t in_place = 0;
  for (uint32_t k = 0; k < n; k++) in_place += !pbd_Hash128_Equal(q->ka[k], q->kb[k]);
  if (in_place > 2 * ((size_t)n - np)) return false;
  for (uint32_t k = 0; k < n; k++)
    if (!pbd_Hash128_Equal(q->ka[k], q->kb[k]) && !same_shape(q, k)) return false;
  return true;
}

static int diff_by_position(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  size_t mark = w->path.count;
  int rc = 0;
  for (uint32_t i = 0; i < l->count && !rc; i++) rc = changed_elem(w, l, i, r, i, mark);
  return rc;
}

/* The keys of a field's elements; a message's is its hash when by_hash. */
static pbd_Hash128 *element_keys(Walk *w, const pbd_Field *f, bool by_hash) {
  pbd_Hash128 *k = malloc(sizeof *k * (f->count ? f->count : 1));
  if (!k) return NULL;
  for (uint32_t i = 0; i < f->count; i++) {
    pbd_Value v = pbd_Field_Value(f, i);
    k[i] = by_hash && v.m ? v.m->hash : dw_element_key(w, &v);
  }
  return k;
}

/* A tensor's key under the ONNX preset reads all its elements
 * (dv_message_key).  Only a tensor whose hash the other side lacks needs
 * it: one with a byte-equal twin there pairs by the hash, which the twin
 * has too.  So the keys are the hashes, and the view's key replaces those
 * the other side does not hold: a model changed in one tensor reads that
 * tensor's values, not every tensor's.  When each side has many bytes to
 * read and key, the two sides' keys are made on two threads, each reading
 * its own side's tensors (two shallow trees share nothing). */
enum { kThreadBytes = 1 << 20 };

typedef struct {
  const Walk *w;
  const pbd_Field *f;
  pbd_Hash128 *k;
  uint32_t *todo; /* the elements whose hash the other side lacks */
  uint32_t ntodo;
  size_t cost;    /* about the bytes their keys read */
  const pbd_LazyTree *tree; /* the one their unread bytes are in */
  bool trees;     /* more than one such tree */
} ViewJob;

/* What keying m costs: its bytes when they are still to be read, else its
 * elements' (4 bytes an element is near enough). */
static void add_cost(ViewJob *j, const pbd_Message *m) {
  const pbd_LazyTree *t = pbd_Message_UnreadTree(m);
  if (t) {
    j->cost += pbd_Message_UnreadBytes(m);
    if (j->tree && j->tree != t) j->trees = true;
    j->tree = t;
  } else {
    j->cost += 4 * dv_message_key_cost(j->w, m);
  }
}

static bool find_unmatched(ViewJob *j, const pbd_Hash128 *other, uint32_t n_other) {
  dw_Keyed *sorted = malloc(sizeof *sorted * (n_other ? n_other : 1));
  j->todo = malloc(sizeof *j->todo * (j->f->count ? j->f->count : 1));
  if (!sorted || !j->todo) {
    free(sorted);
    return false;
  }
  for (uint32_t i = 0; i < n_other; i++) sorted[i] = (dw_Keyed){other[i], i};
  qsort(sorted, n_other, sizeof *sorted, dw_compare_keyed);
  for (uint32_t i = 0; i < j->f->count; i++) {
    size_t at = dw_first_keyed(sorted, n_other, sizeof *sorted, j->k[i]);
    if (at < n_other && pbd_Hash128_Equal(sorted[at].key, j->k[i])) continue;
    j->todo[j->ntodo++] = i;
    add_cost(j, j->f->v.msgs[i]);
  }
  free(sorted);
  return true;
}

/* The two jobs can run at once: much to do on each side, and what is still
 * to be read on either side in a tree of its own. */
static bool apart(const ViewJob *a, const ViewJob *b) {
  return a->cost >= kThreadBytes && b->cost >= kThreadBytes && !a->trees && !b->trees &&
         (!a->tree || a->tree != b->tree);
}

static void *view_keys(void *arg) {
  ViewJob *j = arg;
  for (uint32_t t = 0; t < j->ntodo; t++) j->k[j->todo[t]] = dv_message_key(j->w, j->f->v.msgs[j->todo[t]]);
  return NULL;
}

/* Both fields' keys, in q->ka and q->kb. */
static bool sequence_keys(Walk *w, Seq *q) {
  /* only tensors have a key of their own; other elements (an ONNX graph's
   * nodes) key by their hashes, with no lookup on the other side */
  bool tensors = q->l->kind == kPbd_Value_Message && q->r->kind == kPbd_Value_Message &&
                 dv_keys_by_view(w, q->l->def) && dv_keys_by_view(w, q->r->def);
  q->ka = element_keys(w, q->l, tensors);
  q->kb = element_keys(w, q->r, tensors);
  if (!q->ka || !q->kb) return false;
  if (!tensors) return true;
  ViewJob jl = {.w = w, .f = q->l, .k = q->ka}, jr = {.w = w, .f = q->r, .k = q->kb};
  /* (both sets of hashes as they are, before either side's keys change) */
  bool ok = find_unmatched(&jl, q->kb, q->r->count) && find_unmatched(&jr, q->ka, q->l->count);
  if (ok) {
    if (!pbd_Threads_RunBoth(view_keys, &jl, &jr, apart(&jl, &jr))) view_keys(&jr);
  }
  free(jl.todo);
  free(jr.todo);
  return ok;
}

int dw_diff_sequence(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  Seq q = {.l = l, .r = r};
  pbd_AlignPair *pairs = NULL;
  size_t np = 0;
  int rc = -1;
  if (!sequence_keys(w, &q) || !pbd_Align_Sequences(q.ka, l->count, q.kb, r->count, &pairs, &np)) {
    w->oom = true;
    goto done;
  }
  if (!find_moves(&q, pairs, np)) {
    w->oom = true;
    goto done;
  }
  prefer_substitutions(&q, pairs, &np);
  if (pair_by_position(&q, pairs, np)) {
    rc = diff_by_position(w, l, r);
    goto done;
  }
  rc = 0;
  uint32_t i = 0, j = 0;
  size_t mark = w->path.count;
  for (size_t k = 0; k <= np && !rc; k++) {
    uint32_t pi = k < np ? pairs[k].a : l->count, pj = k < np ? pairs[k].b : r->count;
    rc = diff_run(w, &q, i, pi, j, pj);
    /* matched by key: equal unless keys collide; confirm */
    if (!rc && k < np) rc = changed_elem(w, l, pi, r, pj, mark);
    i = pi + 1;
    j = pj + 1;
  }
done:
  free(pairs);
  free(q.ka), free(q.kb), free(q.moved_to), free(q.moved_in);
  return rc;
}
