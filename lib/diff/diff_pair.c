/* pbdiff — leftover elements paired by similarity, best first (diff_walk.h).
 *
 * What an alignment or a set match leaves over on both sides is paired
 * when alike: of the candidate pairs within a window of each other's place
 * (places scaled to the longer side, so the window holds about kPairWindow
 * candidates an element, and the cost stays linear), those at least
 * kPbd_Similar alike are taken most alike first, then closest, then
 * earliest.  Every key reads the same with the sides swapped, and two
 * candidates tied on all of them share no element, so the pairs do not
 * depend on which side is LEFT.
 *
 * The pairs are those of the greedy pass over all candidates in that
 * order, but the candidates are never all held or sorted (64 an element,
 * 32 bytes each, and a sort of them all, were most of the time and a
 * gigabyte at 300 000 elements): each LEFT element keeps its kKept best,
 * and a heap holds each one's best not yet passed over.  The heap's top is
 * the least of all the candidates still live, so it is the greedy pass's
 * next; when its RIGHT element is taken, its LEFT element moves on to its
 * next.  An element that passes over all it kept looks at its window
 * again: every candidate better than the kept ones was kept and has been
 * passed over, and a taken element stays taken, so the next ones are the
 * best of those in the window not taken yet. */
#include <stdlib.h>

#include "diff/diff_walk.h"

enum { kPairWindow = 64, kKept = 8 };

typedef struct {
  double score; /* similarity, at least kPbd_Similar */
  uint32_t b;   /* place in RIGHT's list */
} Cand;

typedef struct {
  Walk *w;
  const pbd_Field *l, *r;
  const uint32_t *li, *rj;
  uint32_t nl, nr;
  uint64_t reach;  /* a candidate's skew is below it */
  bool *taken;     /* RIGHT element b is paired */
  Cand *kept;      /* LEFT element a's at kept[a * kKept ..] */
  uint8_t *nkept;  /* how many a kept */
  uint8_t *next;   /* the first of them not passed over */
  bool *more;      /* whether a's window held more than it kept */
} Pairing;

/* How far apart the places of a (LEFT) and b (RIGHT) are, scaled:
 * |a * nr - b * nl|. */
static uint64_t skew_of(const Pairing *p, uint32_t a, uint32_t b) {
  uint64_t at = (uint64_t)a * p->nr, place = (uint64_t)b * p->nl;
  return place > at ? place - at : at - place;
}

/* Whether candidate (a, x) comes before (c, y) in the greedy order: more
 * alike, then closer, then earlier (a + b, then a). */
static bool cand_before(const Pairing *p, uint32_t a, Cand x, uint32_t c, Cand y) {
  if (x.score != y.score) return x.score > y.score;
  uint64_t sx = skew_of(p, a, x.b), sy = skew_of(p, c, y.b);
  if (sx != sy) return sx < sy;
  uint64_t ux = (uint64_t)a + x.b, uy = (uint64_t)c + y.b;
  if (ux != uy) return ux < uy;
  return a < c;
}

/* Keeps x among a's kKept best (in order); true when one fell out. */
static bool keep(Pairing *p, uint32_t a, Cand x) {
  Cand *k = &p->kept[(size_t)a * kKept];
  uint32_t n = p->nkept[a], at = n;
  while (at > 0 && cand_before(p, a, x, a, k[at - 1])) at--;
  bool dropped = n == kKept;
  if (at == kKept) return true;
  for (uint32_t i = dropped ? kKept - 1 : n; i > at; i--) k[i] = k[i - 1];
  k[at] = x;
  if (!dropped) p->nkept[a]++;
  return dropped;
}

/* Looks at a's window again: its kKept best candidates whose RIGHT
 * element is not taken. */
static void gather(Pairing *p, uint32_t a) {
  p->nkept[a] = p->next[a] = 0;
  p->more[a] = false;
  pbd_Value x = pbd_Field_Value(p->l, p->li[a]);
  uint64_t at = (uint64_t)a * p->nr;
  uint64_t lo = at > p->reach ? (at - p->reach) / p->nl : 0, hi = (at + p->reach) / p->nl + 1;
  for (uint64_t b = lo; b < p->nr && b < hi; b++) {
    if (p->taken[b] || skew_of(p, a, (uint32_t)b) >= p->reach) continue;
    pbd_Value y = pbd_Field_Value(p->r, p->rj[b]);
    double score = dw_similarity(p->w, &x, &y, p->li[a]);
    if (score >= kPbd_Similar && keep(p, a, (Cand){score, (uint32_t)b})) p->more[a] = true;
  }
}

/* a's best candidate not passed over; a keeps at least one. */
static Cand head(const Pairing *p, uint32_t a) {
  return p->kept[(size_t)a * kKept + p->next[a]];
}

/* Passes over a's head: false when a has no candidate left. */
static bool pass_over(Pairing *p, uint32_t a) {
  if (++p->next[a] < p->nkept[a]) return true;
  if (!p->more[a]) return false;
  gather(p, a);
  return p->nkept[a] > 0;
}

/* ---- The heap of LEFT elements, least head first -------------------------- */

static bool heap_before(const Pairing *p, uint32_t a, uint32_t c) {
  return cand_before(p, a, head(p, a), c, head(p, c));
}

static void sift_down(const Pairing *p, uint32_t *heap, uint32_t n, uint32_t i) {
  for (;;) {
    uint32_t least = i, k = 2 * i + 1;
    if (k < n && heap_before(p, heap[k], heap[least])) least = k;
    if (k + 1 < n && heap_before(p, heap[k + 1], heap[least])) least = k + 1;
    if (least == i) return;
    uint32_t t = heap[i];
    heap[i] = heap[least], heap[least] = t;
    i = least;
  }
}

/* The greedy pass: pops the least head, pairs it or passes over it. */
static void pair_greedily(Pairing *p, uint32_t *heap, uint32_t n, uint32_t *partner) {
  for (uint32_t i = n / 2; i-- > 0;) sift_down(p, heap, n, i);
  while (n > 0) {
    uint32_t a = heap[0];
    Cand c = head(p, a);
    if (!p->taken[c.b]) {
      partner[a] = c.b;
      p->taken[c.b] = true;
    } else if (pass_over(p, a)) {
      sift_down(p, heap, n, 0);
      continue;
    }
    heap[0] = heap[--n];
    sift_down(p, heap, n, 0);
  }
}

bool dw_pair_similar(Walk *w, const pbd_Field *l, const uint32_t *li, uint32_t nl,
                     const pbd_Field *r, const uint32_t *rj, uint32_t nr, uint32_t *partner) {
  for (uint32_t a = 0; a < nl; a++) partner[a] = UINT32_MAX;
  if (!nl || !nr) return true;
  uint64_t longer = nl > nr ? nl : nr;
  Pairing p = {w, l, r, li, rj, nl, nr, (uint64_t)kPairWindow / 2 * longer,
               calloc(nr, sizeof(bool)), malloc((size_t)nl * kKept * sizeof(Cand)),
               malloc(nl), malloc(nl), malloc(nl * sizeof(bool))};
  uint32_t *heap = malloc(nl * sizeof *heap), n = 0;
  bool ok = p.taken && p.kept && p.nkept && p.next && p.more && heap;
  for (uint32_t a = 0; ok && a < nl; a++) {
    gather(&p, a);
    if (p.nkept[a]) heap[n++] = a;
  }
  if (ok) pair_greedily(&p, heap, n, partner);
  free(heap), free(p.more), free(p.next), free(p.nkept), free(p.kept), free(p.taken);
  return ok;
}
