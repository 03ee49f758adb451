/* pbdiff — leftover elements paired by similarity, best first (diff_walk.h).
 *
 * What an alignment or a set match leaves over on both sides is paired
 * when alike: of the candidate pairs within a window of each other's place
 * (places scaled to the longer side, so the window holds about kPairWindow
 * candidates an element, and the cost stays linear), those at least
 * kPbd_Similar alike are taken most alike first, then closest, then
 * earliest.  Every key reads the same with the sides swapped, and two
 * candidates tied on all of them share no element, so the pairs do not
 * depend on which side is LEFT. */
#include <stdlib.h>

#include "diff/diff_walk.h"

enum { kPairWindow = 64 };

typedef struct {
  double score;   /* similarity, at least kPbd_Similar */
  uint64_t skew;  /* |a * nR - b * nL|: how far apart their places are */
  uint32_t a, b;  /* places in the two lists */
  uint32_t sum;   /* a + b */
} Cand;

static int cand_order(const void *x, const void *y) {
  const Cand *p = x, *q = y;
  if (p->score != q->score) return p->score > q->score ? -1 : 1;
  if (p->skew != q->skew) return p->skew < q->skew ? -1 : 1;
  if (p->sum != q->sum) return p->sum < q->sum ? -1 : 1;
  return p->a < q->a ? -1 : p->a > q->a;
}

static bool add_cand(Cand **c, size_t *n, size_t *cap, Cand x) {
  if (*n == *cap) {
    size_t want = *cap ? *cap * 2 : 64;
    Cand *nc = realloc(*c, want * sizeof **c);
    if (!nc) return false;
    *c = nc;
    *cap = want;
  }
  (*c)[(*n)++] = x;
  return true;
}

bool dw_pair_similar(Walk *w, const pbd_Field *l, const uint32_t *li, uint32_t nl,
                     const pbd_Field *r, const uint32_t *rj, uint32_t nr, uint32_t *partner) {
  for (uint32_t a = 0; a < nl; a++) partner[a] = UINT32_MAX;
  if (!nl || !nr) return true;
  uint64_t longer = nl > nr ? nl : nr, reach = (uint64_t)kPairWindow / 2 * longer;
  bool *taken = calloc(nr, sizeof *taken);
  Cand *c = NULL;
  size_t n = 0, cap = 0;
  bool ok = taken != NULL;
  for (uint32_t a = 0; ok && a < nl; a++) {
    pbd_Value x = pbd_Field_Value(l, li[a]);
    uint64_t at = (uint64_t)a * nr; /* |at - b * nl| < reach */
    uint64_t lo = at > reach ? (at - reach) / nl : 0, hi = (at + reach) / nl + 1;
    for (uint64_t b = lo; ok && b < nr && b < hi; b++) {
      uint64_t place = b * nl, skew = place > at ? place - at : at - place;
      if (skew >= reach) continue;
      pbd_Value y = pbd_Field_Value(r, rj[b]);
      double score = dw_similarity(w, &x, &y, li[a]);
      if (score < kPbd_Similar) continue;
      ok = add_cand(&c, &n, &cap, (Cand){score, skew, a, (uint32_t)b, a + (uint32_t)b});
    }
  }
  if (ok && n) qsort(c, n, sizeof *c, cand_order);
  for (size_t k = 0; ok && k < n; k++) {
    if (partner[c[k].a] != UINT32_MAX || taken[c[k].b]) continue;
    partner[c[k].a] = c[k].b;
    taken[c[k].b] = true;
  }
  free(c), free(taken);
  return ok;
}
