/* pbdiff — repeated fields matched as multisets or by key, maps by key
 * (diff_walk.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pbdiff/diff/align.h"
#include "pbdiff/diff/diff.h"
#include "diff/diff_walk.h"

/* ---- Sets and keys ------------------------------------------------------------ */

/* The key of a keyed element: the values of its key fields (defaults where
 * unset; every value of a repeated key field, in order), hashed. */
static pbd_Hash128 key_part(const Walk *w, const pbd_FieldDef *kf, const pbd_Message *m) {
  const pbd_Field *f = m ? pbd_Message_FindField(m, kf->number) : NULL;
  if (f && !f->def) f = NULL;
  if (!kf->is_repeated) {
    pbd_Value v = f ? pbd_Field_Value(f, 0) : pbd_FieldDef_DefaultValue(kf);
    return dw_element_key(w, &v);
  }
  XXH3_state_t st;
  XXH3_INITSTATE(&st);
  XXH3_128bits_reset(&st);
  uint64_t n = f ? f->count : 0;
  XXH3_128bits_update(&st, &n, sizeof n);
  for (uint32_t i = 0; i < n; i++) {
    pbd_Value v = pbd_Field_Value(f, i);
    pbd_Hash128 h = dw_element_key(w, &v);
    uint64_t words[2] = {h.lo, h.hi};
    XXH3_128bits_update(&st, words, sizeof words);
  }
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  return (pbd_Hash128){h.low64, h.high64};
}

static pbd_Hash128 element_key_of_fields(const Walk *w, const pbd_MatchRule *rule,
                                         const pbd_Message *m) {
  pbd_Hash128 parts[kPbd_MaxKeyFields];
  for (size_t k = 0; k < rule->key_count; k++) parts[k] = key_part(w, rule->key[k], m);
  XXH128_hash_t h = XXH3_128bits(parts, sizeof parts[0] * rule->key_count);
  return (pbd_Hash128){h.low64, h.high64};
}

static pbd_Hash128 match_key(const Walk *w, const pbd_MatchRule *rule, const pbd_Field *f,
                             uint32_t i) {
  pbd_Value v = pbd_Field_Value(f, i);
  if (rule->kind == kPbd_Match_Key) return element_key_of_fields(w, rule, v.m);
  return dw_element_key(w, &v);
}

/* Pushes the segment naming element i of f: its key, or its index. */
void dw_push_element(Walk *w, const pbd_MatchRule *rule, const pbd_Field *f, uint32_t i) {
  if (rule->kind != kPbd_Match_Key) {
    dw_push_index(w, i);
    return;
  }
  pbd_PathSeg seg = {.kind = kPbd_Seg_ElementKey, .key_fields = rule->key,
                     .key_count = rule->key_count, .element = pbd_Field_Value(f, i).m};
  pbd_Path_Push(&w->path, &seg);
}

/* ---- Keys that name nothing ------------------------------------------------ */

/* Whether an element's key is empty: every key field unset, or an empty
 * string or bytes, or a repeated key field with no value (ONNX test
 * models leave every node's name ""). */
static bool key_is_empty(const pbd_MatchRule *rule, const pbd_Message *m) {
  for (size_t k = 0; k < rule->key_count; k++) {
    const pbd_Field *f = m ? pbd_Message_FindField(m, rule->key[k]->number) : NULL;
    if (!f || !f->def || f->count == 0) continue;
    if (rule->key[k]->is_repeated) return false;
    pbd_Value v = pbd_Field_Value(f, 0);
    bool text = v.kind == kPbd_Value_String || v.kind == kPbd_Value_Bytes;
    if (!text || v.s.size) return false;
  }
  return true;
}

/* One side's elements by key: each one's place among those with its key
 * (occ), and the sorted table of them. */
typedef struct {
  dw_Keyed *sorted;
  uint32_t *occ;
  uint32_t *run; /* at the first of each key in sorted: how many have it */
  bool *loose;   /* its key is empty or repeats on either side */
  uint32_t n, nloose, empty;
} KeySide;

static bool key_side(Walk *w, const pbd_MatchRule *rule, const pbd_Field *f, KeySide *ks) {
  uint32_t n = f->count;
  ks->n = n;
  ks->sorted = malloc(sizeof *ks->sorted * (n ? n : 1));
  ks->occ = calloc(n ? n : 1, sizeof *ks->occ);
  ks->loose = calloc(n ? n : 1, sizeof *ks->loose);
  ks->run = calloc(n ? n : 1, sizeof *ks->run);
  if (!ks->sorted || !ks->occ || !ks->loose || !ks->run) return false;
  for (uint32_t i = 0; i < n; i++) ks->sorted[i] = (dw_Keyed){match_key(w, rule, f, i), i};
  qsort(ks->sorted, n, sizeof *ks->sorted, dw_compare_keyed); /* by key, then index */
  for (uint32_t k = 0, first = 0; k < n; k++) {
    if (k && pbd_Hash128_Equal(ks->sorted[k].key, ks->sorted[k - 1].key))
      ks->occ[ks->sorted[k].index] = ks->occ[ks->sorted[k - 1].index] + 1;
    else
      first = k;
    ks->run[first]++;
  }
  return true;
}

/* How many elements of ks have key, in O(log n) however many do. */
static uint32_t key_count(const KeySide *ks, pbd_Hash128 key) {
  size_t at = dw_first_keyed(ks->sorted, ks->n, sizeof *ks->sorted, key);
  return at < ks->n && pbd_Hash128_Equal(ks->sorted[at].key, key) ? ks->run[at] : 0;
}

/* Marks the elements of a whose key is empty or repeats in a or b, and
 * returns how many distinct keys repeat: on the first side those that
 * repeat on either, on the second those the first does not hold (so each
 * is counted once). */
static size_t mark_loose(const pbd_MatchRule *rule, const pbd_Field *f, KeySide *a,
                         const KeySide *b, bool first_side) {
  size_t repeated = 0;
  for (uint32_t k = 0; k < a->n; k++) {
    uint32_t i = a->sorted[k].index;
    bool first = k == 0 || !pbd_Hash128_Equal(a->sorted[k].key, a->sorted[k - 1].key);
    uint32_t here = key_count(a, a->sorted[k].key), there = key_count(b, a->sorted[k].key);
    bool empty = key_is_empty(rule, pbd_Field_Value(f, i).m);
    a->empty += empty;
    if (!empty && first && (first_side ? here > 1 || there > 1 : here > 1 && there == 0))
      repeated++;
    a->loose[i] = empty || here > 1 || there > 1;
    a->nloose += a->loose[i];
  }
  return repeated;
}

static void free_key_side(KeySide *ks) {
  free(ks->sorted), free(ks->occ), free(ks->loose), free(ks->run);
}

/* The loose elements of f as a field of their own, with their indices in f. */
static bool loose_field(const pbd_Field *f, const KeySide *ks, pbd_Field *sub, uint32_t **map) {
  *sub = *f;
  sub->count = 0;
  sub->v.msgs = malloc(sizeof *sub->v.msgs * (ks->nloose ? ks->nloose : 1));
  *map = malloc(sizeof **map * (ks->nloose ? ks->nloose : 1));
  if (!sub->v.msgs || !*map) return false;
  for (uint32_t i = 0; i < f->count; i++) {
    if (!ks->loose[i]) continue;
    (*map)[sub->count] = i;
    sub->v.msgs[sub->count++] = f->v.msgs[i];
  }
  return true;
}

/* The loose elements of both sides aligned as a sequence, their segments
 * naming them by key and occurrence (dw_Subset).  Returns as dw_diff_sequence. */
static int diff_loose(Walk *w, const pbd_MatchRule *rule, const pbd_Field *l, const KeySide *kl,
                      const pbd_Field *r, const KeySide *kr) {
  pbd_Field ls, rs;
  uint32_t *lmap = NULL, *rmap = NULL;
  ls.v.msgs = rs.v.msgs = NULL;
  int rc = -1;
  if (loose_field(l, kl, &ls, &lmap) && loose_field(r, kr, &rs, &rmap)) {
    dw_Subset sub = {w->path.count, rule, l, r, lmap, rmap, kl->occ, kr->occ};
    const dw_Subset *outer = w->subset; /* a keyed field inside a loose element has its own */
    w->subset = &sub;
    rc = dw_diff_sequence(w, &ls, &rs);
    w->subset = outer;
  } else {
    w->oom = true;
  }
  free(ls.v.msgs), free(rs.v.msgs), free(lmap), free(rmap);
  return rc;
}

/* A set's leftover messages, paired best first (dw_pair_similar), in the
 * order they stand.  false when out of memory. */
static bool pair_set_leftovers(Walk *w, const pbd_Field *l, const pbd_Field *r, int64_t *partner,
                               bool *rtaken) {
  if (!dw_is_message_kind(l->kind) || !dw_is_message_kind(r->kind)) return true;
  uint32_t n = l->count, m = r->count, nl = 0, nr = 0;
  uint32_t *li = malloc(sizeof *li * (n ? n : 1)), *rj = malloc(sizeof *rj * (m ? m : 1));
  uint32_t *pl = malloc(sizeof *pl * (n ? n : 1));
  bool ok = li && rj && pl;
  for (uint32_t i = 0; ok && i < n; i++)
    if (partner[i] < 0) li[nl++] = i;
  for (uint32_t j = 0; ok && j < m; j++)
    if (!rtaken[j]) rj[nr++] = j;
  ok = ok && dw_pair_similar(w, l, li, nl, r, rj, nr, pl);
  for (uint32_t a = 0; ok && a < nl; a++) {
    if (pl[a] == UINT32_MAX) continue;
    partner[li[a]] = rj[pl[a]];
    rtaken[rj[pl[a]]] = true;
  }
  free(li), free(rj), free(pl);
  return ok;
}

typedef struct {
  double x;
  uint32_t index;
} Num;

static int compare_nums(const void *a, const void *b) {
  const Num *p = a, *q = b;
  bool pn = isnan(p->x), qn = isnan(q->x);
  if (pn != qn) return pn ? 1 : -1; /* NaNs last (they matched exactly already) */
  if (!pn && p->x != q->x) return p->x < q->x ? -1 : 1;
  return (p->index > q->index) - (p->index < q->index);
}

static Num *leftover_nums(const pbd_Field *f, const bool *paired, uint32_t *n) {
  Num *v = malloc(sizeof *v * (f->count ? f->count : 1));
  *n = 0;
  for (uint32_t i = 0; v && i < f->count; i++) {
    if (paired[i]) continue;
    pbd_Value x = pbd_Field_Value(f, i);
    v[(*n)++] = (Num){dw_float_value(&x), i};
  }
  if (v) qsort(v, *n, sizeof *v, compare_nums);
  return v;
}

/* A set of floats under a tolerance: after the exact matches (which hashes
 * make stable), the leftovers of both sides are paired in value order when
 * equal within the tolerance, the smaller one given up otherwise — in
 * O(n log n), the largest pairing for a margin (values within a margin of
 * each other pair in order).  So [1.0, 2.0] as a set equals [2.0005,
 * 1.0005] under a margin of 1e-3, as it does as a sequence in order.
 * false when out of memory. */
static bool pair_set_floats(Walk *w, const pbd_Field *l, const pbd_Field *r, int64_t *partner,
                            bool *rtaken) {
  bool *lpaired = malloc(sizeof *lpaired * (l->count ? l->count : 1));
  for (uint32_t i = 0; lpaired && i < l->count; i++) lpaired[i] = partner[i] >= 0;
  uint32_t na = 0, nb = 0;
  Num *a = lpaired ? leftover_nums(l, lpaired, &na) : NULL, *b = leftover_nums(r, rtaken, &nb);
  bool ok = a && b;
  for (uint32_t i = 0, j = 0; ok && i < na && j < nb;) {
    pbd_Value x = pbd_Field_Value(l, a[i].index), y = pbd_Field_Value(r, b[j].index);
    if (dw_element_equal(w, &x, &y, a[i].index)) {
      partner[a[i].index] = b[j].index;
      rtaken[b[j].index] = true;
      i++, j++;
    } else if (compare_nums(&a[i], &b[j]) < 0) {
      i++;
    } else {
      j++;
    }
  }
  free(lpaired), free(a), free(b);
  return ok;
}

/* Rules --repeated-as-set and --key: elements paired by value (a multiset)
 * or by key, through a sorted table, O(n log n) however many share a key;
 * leftover messages of a set are paired when similar, best first.  With --report-moves, pairs outside the longest run
 * in the same order on both sides are reported as moved. */
int dw_diff_matched(Walk *w, const pbd_MatchRule *rule, const pbd_Field *l,
                        const pbd_Field *r) {
  uint32_t n = l->count, m = r->count;
  dw_Keyed *el = malloc(sizeof *el * (n ? n : 1));
  int64_t *partner = malloc(sizeof *partner * (n ? n : 1));
  bool *rtaken = calloc(m ? m : 1, sizeof *rtaken);
  uint32_t *taken = calloc(n ? n : 1, sizeof *taken);
  if (!el || !partner || !rtaken || !taken) {
    free(el), free(partner), free(rtaken), free(taken);
    w->oom = true;
    return -1;
  }
  /* keys that name nothing: their elements are aligned apart (diff_loose) */
  KeySide kl = {0}, kr = {0};
  bool keyed = rule->kind == kPbd_Match_Key && dw_is_message_kind(l->kind);
  if (keyed && (!key_side(w, rule, l, &kl) || !key_side(w, rule, r, &kr))) {
    free_key_side(&kl), free_key_side(&kr);
    free(el), free(partner), free(rtaken), free(taken);
    w->oom = true;
    return -1;
  }
  if (keyed) {
    size_t repeated = mark_loose(rule, l, &kl, &kr, true) + mark_loose(rule, r, &kr, &kl, false);
    if ((kl.nloose || kr.nloose) && w->o->key_trouble)
      w->o->key_trouble(w->o->key_trouble_ctx, rule, kl.empty, kr.empty, repeated);
  }
  const bool *lloose = kl.nloose ? kl.loose : NULL, *rloose = kr.nloose ? kr.loose : NULL;
  uint32_t nel = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!lloose || !lloose[i]) el[nel++] = (dw_Keyed){match_key(w, rule, l, i), i};
    partner[i] = -1;
  }
  qsort(el, nel, sizeof *el, dw_compare_keyed);
  /* each RIGHT element takes the first free LEFT element with its key */
  for (uint32_t j = 0; j < m; j++) {
    if (rloose && rloose[j]) continue;
    size_t at = dw_take_keyed(el, nel, sizeof *el, match_key(w, rule, r, j), taken);
    if (at == nel) continue;
    partner[el[at].index] = j;
    rtaken[j] = true;
  }
  free(el), free(taken);
  /* a set's leftovers: similar messages paired best first */
  bool floats = (l->kind == kPbd_Value_Float || l->kind == kPbd_Value_Double) && l->kind == r->kind;
  if (rule->kind == kPbd_Match_Set && w->fuzzy && floats && !pair_set_floats(w, l, r, partner, rtaken)) {
    free(partner), free(rtaken); /* a set: no KeySides */
    w->oom = true;
    return -1;
  }
  if (rule->kind == kPbd_Match_Set && !pair_set_leftovers(w, l, r, partner, rtaken)) {
    free(partner), free(rtaken);
    w->oom = true;
    return -1;
  }
  /* moves: pairs outside a longest increasing run of RIGHT positions */
  bool *stays = NULL;
  if (w->o->report_moves) {
    uint32_t *pos = malloc(sizeof *pos * (n ? n : 1));
    bool *keep = malloc(sizeof *keep * (n ? n : 1));
    stays = calloc(n ? n : 1, sizeof *stays);
    size_t k = 0;
    if (!pos || !keep || !stays) {
      free(pos), free(keep), free(stays), free(partner), free(rtaken);
      free_key_side(&kl), free_key_side(&kr);
      w->oom = true;
      return -1;
    }
    for (uint32_t i = 0; i < n; i++)
      if (partner[i] >= 0) pos[k++] = (uint32_t)partner[i];
    if (!pbd_Align_LongestIncreasing(pos, k, keep)) w->oom = true;
    k = 0;
    for (uint32_t i = 0; i < n; i++)
      if (partner[i] >= 0) stays[i] = keep[k++];
    free(pos), free(keep);
  }
  int rc = 0;
  size_t mark = w->path.count;
  for (uint32_t i = 0; i < n && !rc; i++) {
    if (lloose && lloose[i]) continue; /* aligned below */
    pbd_Value a = pbd_Field_Value(l, i);
    dw_push_element(w, rule, l, i);
    if (dw_path_ignored(w)) {
      /* nothing */
    } else if (partner[i] < 0) {
      rc = dw_emit_at(w, kPbd_Edit_Removed, &a, NULL, i, -1);
    } else {
      uint32_t j = (uint32_t)partner[i];
      pbd_Value b = pbd_Field_Value(r, j);
      if (stays && !stays[i]) rc = dw_emit_at(w, kPbd_Edit_Moved, &a, &b, i, j);
      if (!rc) rc = dw_diff_values_at(w, &a, &b, i, j);
    }
    pbd_Path_Truncate(&w->path, mark);
  }
  for (uint32_t j = 0; j < m && !rc; j++) {
    if (rtaken[j] || w->o->partial || (rloose && rloose[j])) continue;
    pbd_Value b = pbd_Field_Value(r, j);
    dw_push_element(w, rule, r, j);
    if (!dw_path_ignored(w)) rc = dw_emit_at(w, kPbd_Edit_Added, NULL, &b, -1, j);
    pbd_Path_Truncate(&w->path, mark);
  }
  if (!rc && (lloose || rloose)) rc = diff_loose(w, rule, l, &kl, r, &kr);
  free(stays), free(partner), free(rtaken);
  free_key_side(&kl), free_key_side(&kr);
  return rc;
}

/* ---- Maps ----------------------------------------------------------------- */

/* Rule 5: entries paired by key; the path names the key, and a change
 * reports the values. */
int dw_diff_map(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  uint32_t i = 0, j = 0;
  size_t mark = w->path.count;
  int rc = 0;
  while ((i < l->count || j < r->count) && !rc) {
    const pbd_Message *le = i < l->count ? l->v.msgs[i] : NULL;
    const pbd_Message *re = j < r->count ? r->v.msgs[j] : NULL;
    pbd_Value lk = le ? pbd_MapEntry_Part(le, 1) : kPbd_DiffNone, rk = re ? pbd_MapEntry_Part(re, 1) : kPbd_DiffNone;
    int c = !le ? 1 : !re ? -1 : pbd_Value_CompareKeys(&lk, &rk);
    dw_push_map_key(w, c <= 0 ? &lk : &rk);
    bool skip = dw_path_ignored(w);
    if (c == 0) {
      if (!skip && !pbd_Hash128_Equal(le->hash, re->hash)) {
        pbd_Value lv = pbd_MapEntry_Part(le, 2), rv = pbd_MapEntry_Part(re, 2);
        rc = dw_diff_values(w, &lv, &rv);
      }
      i++, j++;
    } else if (c < 0) {
      pbd_Value lv = pbd_MapEntry_Part(le, 2);
      if (!skip) rc = dw_emit(w, kPbd_Edit_Removed, &lv, NULL);
      i++;
    } else {
      pbd_Value rv = pbd_MapEntry_Part(re, 2);
      if (!skip && !w->o->partial) rc = dw_emit(w, kPbd_Edit_Added, NULL, &rv);
      j++;
    }
    pbd_Path_Truncate(&w->path, mark);
  }
  return rc;
}
