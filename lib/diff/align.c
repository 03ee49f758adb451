#include "pbdiff/diff/align.h"

#include <stdlib.h>
#include <string.h>

/* Myers' search stops in a region once its edit distance passes this bound
 * (and then leaves the region unmatched): it caps the cost of one region at
 * O((N+M) * kMaxCost) while any realistic change list stays far below it. */
enum { kMaxCost = 1024 };
/* Regions at least this long look for unique anchors first. */
enum { kPatienceMin = 64 };

typedef struct {
  const pbd_Hash128 *a, *b;
  pbd_AlignPair *out;
  size_t n, cap;
  bool oom;
} Aligner;

static bool eq(const Aligner *x, size_t i, size_t j) {
  return pbd_Hash128_Equal(x->a[i], x->b[j]);
}

static void emit(Aligner *x, size_t i, size_t j) {
  if (x->oom) return;
  if (x->n == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 64;
    pbd_AlignPair *p = realloc(x->out, cap * sizeof *p);
    if (!p) {
      x->oom = true;
      return;
    }
    x->out = p;
    x->cap = cap;
  }
  x->out[x->n++] = (pbd_AlignPair){(uint32_t)i, (uint32_t)j};
}

/* ---- Myers, forward greedy with a trace for the path ---------------------- */

/* Aligns a[a0,a1) with b[b0,b1) (no common prefix or suffix assumed).
 * Keeps V for every cost d (O(D^2) memory, D <= kMaxCost). */
static void myers(Aligner *x, size_t a0, size_t a1, size_t b0, size_t b1) {
  long n = (long)(a1 - a0), m = (long)(b1 - b0);
  long max = n + m;
  if (max > kMaxCost) max = kMaxCost;
  long off = max + 1, width = 2 * max + 3;
  long *v = malloc(sizeof(long) * (size_t)width);
  long **trace = calloc((size_t)max + 1, sizeof(long *));
  if (!v || !trace) {
    free(v);
    free(trace);
    x->oom = true;
    return;
  }
  for (long k = 0; k < width; k++) v[k] = -1;
  v[off + 1] = 0;
  long found = -1;
  for (long d = 0; d <= max && found < 0; d++) {
    for (long k = -d; k <= d; k += 2) {
      long xi = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                          : v[off + k - 1] + 1;
      long yi = xi - k;
      while (xi < n && yi < m && eq(x, a0 + (size_t)xi, b0 + (size_t)yi)) xi++, yi++;
      v[off + k] = xi;
      if (xi >= n && yi >= m) {
        found = d;
        break;
      }
    }
    trace[d] = malloc(sizeof(long) * (size_t)width);
    if (!trace[d]) {
      x->oom = true;
      break;
    }
    memcpy(trace[d], v, sizeof(long) * (size_t)width);
  }
  if (found >= 0 && !x->oom) {
    /* Walk the trace back from (n, m), collecting the diagonal (matched)
     * steps, then emit them in order. */
    size_t cap = (size_t)(n < m ? n : m) + 1, cnt = 0;
    pbd_AlignPair *tmp = malloc(cap * sizeof *tmp);
    if (!tmp) {
      x->oom = true;
    } else {
      long xi = n, yi = m;
      for (long d = found; d >= 0; d--) {
        long k = xi - yi;
        long prev_k;
        if (d == 0) {
          prev_k = 0; /* unused */
        } else {
          const long *pv = trace[d - 1];
          prev_k = (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
        }
        long prev_x = d == 0 ? 0 : trace[d - 1][off + prev_k];
        long prev_y = d == 0 ? 0 : prev_x - prev_k;
        /* the snake from the step's end back to its start */
        long sx = d == 0 ? 0 : (prev_k == k + 1 ? prev_x : prev_x + 1);
        while (xi > sx && yi > (d == 0 ? 0 : sx - k)) {
          xi--, yi--;
          tmp[cnt++] = (pbd_AlignPair){(uint32_t)(a0 + (size_t)xi), (uint32_t)(b0 + (size_t)yi)};
        }
        xi = prev_x;
        yi = prev_y;
      }
      for (size_t i = cnt; i-- > 0;) emit(x, tmp[i].a, tmp[i].b);
      free(tmp);
    }
  }
  for (long d = 0; d <= max; d++) free(trace[d]);
  free(trace);
  free(v);
}

/* ---- Patience anchors ----------------------------------------------------- */

typedef struct {
  pbd_Hash128 key;
  uint32_t count_a, count_b, pos_a, pos_b;
  bool used;
} Slot;

static size_t slot_of(Slot *t, size_t mask, pbd_Hash128 k) {
  /* Mix both halves (keys may be scalar values, not random hashes). */
  uint64_t z = k.lo + 0x9E3779B97F4A7C15ull * (k.hi ^ (k.hi >> 31));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  size_t j = (size_t)(z ^ (z >> 31)) & mask;
  while (t[j].used && !pbd_Hash128_Equal(t[j].key, k)) j = (j + 1) & mask;
  return j;
}

static void align_region(Aligner *x, size_t a0, size_t a1, size_t b0, size_t b1, int depth);

/* Splits the region at elements that occur exactly once on each side, in
 * the longest run of them that is in the same order on both sides.
 * Returns false when there are none (the caller falls back to Myers). */
static bool patience(Aligner *x, size_t a0, size_t a1, size_t b0, size_t b1, int depth) {
  size_t total = (a1 - a0) + (b1 - b0), cap = 16;
  while (cap < total * 2) cap *= 2;
  Slot *t = calloc(cap, sizeof *t);
  if (!t) {
    x->oom = true;
    return true;
  }
  size_t mask = cap - 1;
  for (size_t i = a0; i < a1; i++) {
    size_t j = slot_of(t, mask, x->a[i]);
    t[j].used = true;
    t[j].key = x->a[i];
    t[j].count_a++;
    t[j].pos_a = (uint32_t)i;
  }
  for (size_t i = b0; i < b1; i++) {
    size_t j = slot_of(t, mask, x->b[i]);
    if (!t[j].used) continue;
    t[j].count_b++;
    t[j].pos_b = (uint32_t)i;
  }
  /* unique-on-both elements, in the order of a */
  size_t nu = 0;
  uint32_t *ua = malloc(sizeof(uint32_t) * (a1 - a0 + 1)), *ub = malloc(sizeof(uint32_t) * (a1 - a0 + 1));
  bool *keep = malloc(sizeof(bool) * (a1 - a0 + 1));
  if (!ua || !ub || !keep) {
    free(t), free(ua), free(ub), free(keep);
    x->oom = true;
    return true;
  }
  for (size_t i = a0; i < a1; i++) {
    const Slot *s = &t[slot_of(t, mask, x->a[i])];
    if (s->count_a == 1 && s->count_b == 1) {
      ua[nu] = (uint32_t)i;
      ub[nu] = s->pos_b;
      nu++;
    }
  }
  free(t);
  bool split = false;
  if (nu > 0 && pbd_Align_LongestIncreasing(ub, nu, keep)) {
    size_t pa = a0, pb = b0;
    for (size_t k = 0; k < nu; k++) {
      if (!keep[k]) continue;
      align_region(x, pa, ua[k], pb, ub[k], depth + 1);
      emit(x, ua[k], ub[k]);
      pa = ua[k] + 1;
      pb = ub[k] + 1;
      split = true;
    }
    if (split) align_region(x, pa, a1, pb, b1, depth + 1);
  } else if (nu > 0) {
    x->oom = true;
    split = true;
  }
  free(ua), free(ub), free(keep);
  return split;
}

static void align_region(Aligner *x, size_t a0, size_t a1, size_t b0, size_t b1, int depth) {
  if (x->oom) return;
  /* common prefix and suffix */
  while (a0 < a1 && b0 < b1 && eq(x, a0, b0)) emit(x, a0++, b0++);
  size_t sa = a1, sb = b1;
  while (sa > a0 && sb > b0 && eq(x, sa - 1, sb - 1)) sa--, sb--;
  if (a0 < sa && b0 < sb) {
    bool big = (sa - a0) + (sb - b0) >= kPatienceMin;
    if (!(big && depth < 64 && patience(x, a0, sa, b0, sb, depth))) myers(x, a0, sa, b0, sb);
  }
  for (; sa < a1; sa++, sb++) emit(x, sa, sb);
}

bool pbd_Align_Sequences(const pbd_Hash128 *a, size_t n, const pbd_Hash128 *b, size_t m,
                         pbd_AlignPair **pairs, size_t *npairs) {
  Aligner x = {a, b, NULL, 0, 0, false};
  align_region(&x, 0, n, 0, m, 0);
  if (x.oom) {
    free(x.out);
    *pairs = NULL;
    *npairs = 0;
    return false;
  }
  *pairs = x.out;
  *npairs = x.n;
  return true;
}

bool pbd_Align_LongestIncreasing(const uint32_t *v, size_t n, bool *keep) {
  /* Patience sorting: tails[k] is the index of the smallest tail of an
   * increasing run of length k+1; prev links rebuild the run. */
  size_t *tails = malloc(sizeof(size_t) * (n + 1)), *prev = malloc(sizeof(size_t) * (n + 1));
  if (!tails || !prev) {
    free(tails), free(prev);
    return false;
  }
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    size_t lo = 0, hi = len;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (v[tails[mid]] < v[i]) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo > 0 ? tails[lo - 1] : (size_t)-1;
    tails[lo] = i;
    if (lo == len) len++;
  }
  memset(keep, 0, n * sizeof *keep);
  for (size_t i = len ? tails[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i]) keep[i] = true;
  free(tails);
  free(prev);
  return true;
}
