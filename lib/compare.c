/* pbdiff — the comparison pipeline (pbdiff.h): hash both inputs with no
 * tree, stop when the hashes say equal, else walk shallow trees that read
 * only the levels where hashes differ. */
#include "pbdiff/pbdiff.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/threads.h"

pbd_CompareOptions pbd_CompareOptions_Default(void) {
  pbd_CompareOptions o;
  memset(&o, 0, sizeof o);
  return o;
}

/* Below this many bytes in all, a second thread costs more than it saves. */
enum { kThreadMinBytes = 1 << 20 };

/* One side of a comparison: its messages' hashes, and what is needed to
 * read them again where they differ. */
typedef struct {
  const pbd_CompareInput *in;
  const pbd_MessageDef *type;
  const pbd_MessageDef *const *types; /* per message, or NULL */
  pbd_ReadOptions t;
  size_t count;
  pbd_Hash128 *hashes;
  pbd_HashCache *cache;
  pbd_Status s;
  bool ok;
  bool validate_only;  /* identical inputs: only check them */
  bool two_threads;    /* ... and check each large message on two threads */
} Side;

static size_t msg_begin(const pbd_CompareInput *in, size_t i) { return in->stream ? in->begin[i] : 0; }
static size_t msg_end(const pbd_CompareInput *in, size_t i) { return in->stream ? in->end[i] : in->size; }

static const uint8_t kEmpty[1] = {0};

static const uint8_t *side_data(const Side *sd) { return sd->in->data ? sd->in->data : kEmpty; }

static const pbd_MessageDef *type_at(const Side *sd, size_t i) {
  return sd->in->stream && sd->types && sd->types[i] ? sd->types[i] : sd->type;
}

static void *hash_side(void *arg) {
  Side *sd = arg;
  sd->ok = true;
  for (size_t i = 0; i < sd->count && sd->ok; i++) {
    size_t b = msg_begin(sd->in, i), e = msg_end(sd->in, i);
    const pbd_MessageDef *t = type_at(sd, i);
    if (!sd->validate_only)
      sd->ok = pbd_Canon_Hash(t, side_data(sd), b, e, &sd->t, sd->cache, &sd->hashes[i], &sd->s);
    else if (sd->two_threads && e - b >= kThreadMinBytes)
      sd->ok = pbd_Canon_ValidateOnTwoThreads(t, side_data(sd), b, e, &sd->t, &sd->s);
    else
      sd->ok = pbd_Canon_Validate(t, side_data(sd), b, e, &sd->t, &sd->s);
    if (!sd->ok && sd->in->stream) {
      char seg[32];
      snprintf(seg, sizeof seg, "[%zu]", i);
      pbd_Status_PrependPath(&sd->s, seg);
    }
  }
  return NULL;
}

static bool side_init(Side *sd, const pbd_CompareInput *in, const pbd_MessageDef *type,
                      const pbd_DefPool *pool, const pbd_CompareOptions *o, uint64_t seed,
                      bool want_cache) {
  memset(sd, 0, sizeof *sd);
  sd->in = in;
  sd->type = type;
  sd->t = o->read;
  sd->t.pool = pool;
  sd->t.hash_seed = seed;
  /* two schema versions: equal hashes must mean equal types too */
  sd->t.typed_fields = o->right_schema && o->right_pool != o->read.pool;
  sd->count = in->stream ? in->count : 1;
  pbd_Status_Clear(&sd->s);
  sd->hashes = calloc(sd->count ? sd->count : 1, sizeof *sd->hashes);
  /* a quarter of the input's size for the hashes of its larger messages:
   * what a walk needs to skip them without reading them again */
  if (want_cache) sd->cache = pbd_HashCache_New(side_data(sd), in->size / 4);
  return sd->hashes && (!want_cache || sd->cache);
}

static void side_free(Side *sd) {
  free(sd->hashes);
  pbd_HashCache_Free(sd->cache);
}

typedef struct {
  const uint8_t *a, *b;
  size_t n;
  bool same;
} Halves;

static void *compare_half(void *arg) {
  Halves *h = arg;
  h->same = memcmp(h->a, h->b, h->n) == 0;
  return NULL;
}

/* memcmp, the second half on a second thread when it pays: on two copies
 * the time goes to mapping their pages, which two threads do at once. */
static bool same_data(const uint8_t *a, const uint8_t *b, size_t n, bool parallel) {
  if (!parallel || n < kThreadMinBytes) return memcmp(a, b, n) == 0;
  Halves lo = {a, b, n / 2, false}, hi = {a + n / 2, b + n / 2, n - n / 2, false};
  if (!pbd_Threads_RunBoth(compare_half, &lo, &hi, true)) compare_half(&hi);
  return lo.same && hi.same;
}

static bool same_bytes(const pbd_CompareInput *l, const pbd_CompareInput *r, bool parallel) {
  if (l->size != r->size || l->stream != r->stream) return false;
  if (l->stream && l->count && (l->count != r->count ||
                   memcmp(l->begin, r->begin, sizeof *l->begin * l->count) ||
                   memcmp(l->end, r->end, sizeof *l->end * l->count)))
    return false;
  return l->size == 0 || l->data == r->data || same_data(l->data, r->data, l->size, parallel);
}

/* Hashes both sides, RIGHT on a second thread when it pays. */
static void hash_sides(Side *l, Side *r, bool parallel) {
  bool two = parallel && l->in->size + r->in->size >= kThreadMinBytes;
  if (!pbd_Threads_RunBoth(hash_side, l, r, two) && l->ok) hash_side(r);
}

static bool hashes_equal(const Side *l, const Side *r) {
  if (l->count != r->count) return false;
  for (size_t i = 0; i < l->count; i++)
    if (!pbd_Hash128_Equal(l->hashes[i], r->hashes[i])) return false;
  return true;
}

static int count_only(void *ctx, const pbd_Edit *e) {
  (void)ctx, (void)e;
  return 1; /* the first difference settles the verdict */
}

/* The roots of one side's messages [from, to) as shallow trees. */
static pbd_Message **shallow_roots(Side *sd, pbd_LazyTree *t, size_t from, size_t to) {
  pbd_Message **roots = calloc(to > from ? to - from : 1, sizeof *roots);
  for (size_t i = from; roots && i < to; i++) {
    roots[i - from] = pbd_LazyTree_Root(t, type_at(sd, i), msg_begin(sd->in, i),
                                        msg_end(sd->in, i), sd->hashes[i]);
    if (!roots[i - from]) {
      free(roots);
      return NULL;
    }
  }
  return roots;
}

size_t pbd_CompareOptions_MaxMemory(const pbd_CompareOptions *o, size_t left_size,
                                    size_t right_size) {
  if (o->max_memory) return o->max_memory;
  size_t in = left_size + right_size, per = PBD_DEFAULT_MAX_MEMORY_PER_BYTE;
  if (in < left_size || in > (SIZE_MAX - PBD_DEFAULT_MAX_MEMORY_BASE) / per) return SIZE_MAX;
  return PBD_DEFAULT_MAX_MEMORY_BASE + in * per;
}

/* How many messages two streams share at their start (*pre) and, after
 * that, at their end (*suf), by hash: equal hashes prove equal messages
 * under any options, and the alignment would pair them in place.  Only the
 * messages between are read, so a stream of millions of messages with one
 * changed costs the hashes, not a tree root per message. */
static void common_ends(const Side *l, const Side *r, size_t *pre, size_t *suf) {
  size_t n = l->count < r->count ? l->count : r->count, p = 0, q = 0;
  while (p < n && pbd_Hash128_Equal(l->hashes[p], r->hashes[p])) p++;
  while (q < n - p && pbd_Hash128_Equal(l->hashes[l->count - 1 - q], r->hashes[r->count - 1 - q]))
    q++;
  *pre = p;
  *suf = q;
}

/* The walk over shallow trees, for the inputs whose hashes differ.  Their
 * trees share one memory bound (o->max_memory). */
static int walk(Side *l, Side *r, const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                size_t *n, pbd_CompareResult *result, pbd_Status *s) {
  pbd_MemBudget *budget =
      pbd_MemBudget_New(pbd_CompareOptions_MaxMemory(o, l->in->size, r->in->size));
  pbd_Arena *la = pbd_Arena_New(), *ra = pbd_Arena_New();
  if (la) pbd_Arena_SetBudget(la, budget);
  if (ra) pbd_Arena_SetBudget(ra, budget);
  pbd_LazyTree *lt = la ? pbd_LazyTree_New(side_data(l), &l->t, l->cache, la) : NULL;
  pbd_LazyTree *rt = ra ? pbd_LazyTree_New(side_data(r), &r->t, r->cache, ra) : NULL;
  size_t pre = 0, suf = 0;
  if (l->in->stream) common_ends(l, r, &pre, &suf);
  size_t nl = l->count - pre - suf, nr = r->count - pre - suf;
  pbd_Message **lr = lt ? shallow_roots(l, lt, pre, pre + nl) : NULL;
  pbd_Message **rr = rt ? shallow_roots(r, rt, pre, pre + nr) : NULL;
  pbd_DiffOptions d = o->diff;
  d.stream_base = pre;
  d.float_bits = o->read.float_bits; /* floats compare as they hashed */
  int rc = -1;
  if (!budget || !lr || !rr) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    if (budget && (!lr || !rr)) result->failed_input = !lr ? 1 : 2; /* whose roots did not fit */
  } else if (l->in->stream) {
    /* the messages before and after the window pair in place */
    for (size_t i = 0; d.stream_pair && i < pre; i++) d.stream_pair(d.stream_pair_ctx, i, i);
    rc = pbd_Diff_RunStream((const pbd_Message *const *)lr, nl, (const pbd_Message *const *)rr, nr,
                            &d, fn, ctx, n, s);
    for (size_t k = 0; d.stream_pair && k < suf; k++)
      d.stream_pair(d.stream_pair_ctx, pre + nl + k, pre + nr + k);
  } else {
    rc = pbd_Diff_Run(lr[0], rr[0], &d, fn, ctx, n, s);
  }
  if (rc >= 0 && !pbd_LazyTree_Ok(lt, s)) rc = -1, result->failed_input = 1;
  else if (rc >= 0 && !pbd_LazyTree_Ok(rt, s)) rc = -1, result->failed_input = 2;
  if (rc < 0 && pbd_MemBudget_Exceeded(budget)) pbd_MemBudget_SayExceeded(budget, s);
  free(lr);
  free(rr);
  pbd_LazyTree_Free(lt);
  pbd_LazyTree_Free(rt);
  pbd_Arena_Free(la);
  pbd_Arena_Free(ra);
  pbd_MemBudget_Free(budget);
  return rc;
}

/* Whether inputs whose hashes differ are sure to differ, so that a walk
 * can only confirm it: none of the options under which two values of
 * different hashes may compare equal, and both sides read as one type.
 * (tests/support/testutil.c and fuzz_compare check that without these a
 * walk that finds nothing means the hashes agree.) */
static bool hashes_settle(const pbd_CompareOptions *o, bool one_type) {
  const pbd_DiffOptions *d = &o->diff;
  return one_type && !o->left_types && !o->right_types && d->float_margin == 0 &&
         d->float_fraction == 0 && !d->tolerance_count && !d->rule_count && !d->ignore_count &&
         !d->partial && !d->bytes_view_count && !d->onnx_tensors && !d->stream_pair;
}

int pbd_Compare_Inputs(const pbd_CompareInput *left, const pbd_CompareInput *right,
                       const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                       pbd_CompareResult *result, pbd_Status *s) {
  pbd_CompareResult dummy;
  if (!result) result = &dummy;
  memset(result, 0, sizeof *result);
  const pbd_MessageDef *rtype = o->right_schema ? o->right_type : o->type;
  const pbd_DefPool *rpool = o->right_schema ? o->right_pool : o->read.pool;
  uint64_t seed = o->read.hash_seed ? o->read.hash_seed : pbd_RandomSeed();
  bool one_type = rtype == o->type && rpool == o->read.pool;
  /* identical bytes read the same way: one validating pass decides */
  bool identical = one_type && same_bytes(left, right, o->parallel) &&
                   !o->left_types == !o->right_types;
  /* the verdict alone, and the hashes give it: nothing to walk */
  bool settled = o->verdict_only && hashes_settle(o, one_type);
  Side l, r;
  int rc = -1;
  bool ok = side_init(&l, left, o->type, o->read.pool, o, seed, !identical && !settled);
  ok = side_init(&r, right, rtype, rpool, o, seed, !identical && !settled) && ok;
  /* records of several types: equal hashes must mean equal types too */
  l.types = left->stream ? o->left_types : NULL;
  r.types = right->stream ? o->right_types : NULL;
  if (l.types || r.types) l.t.typed_fields = r.t.typed_fields = true;
  if (!ok) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    goto done;
  }
  if (identical) {
    l.validate_only = true;
    l.two_threads = o->parallel;
    hash_side(&l);
    r.ok = l.ok;
  } else {
    hash_sides(&l, &r, o->parallel);
  }
  if (!l.ok || !r.ok) {
    const Side *bad = !l.ok ? &l : &r;
    *s = bad->s;
    result->failed_input = s->code == kPbd_Status_OutOfMemory ? 0 : !l.ok ? 1 : 2;
    goto done;
  }
  size_t n = 0;
  if (!identical && !hashes_equal(&l, &r)) {
    if (settled) {
      n = 1;
    } else {
      rc = walk(&l, &r, o, fn ? fn : count_only, ctx, &n, result, s);
      if (rc < 0) goto done;
    }
  } else if (left->stream && o->diff.stream_pair) { /* equal without a walk: in order */
    for (size_t i = 0; i < l.count; i++) o->diff.stream_pair(o->diff.stream_pair_ctx, i, i);
  }
  result->n_edits = n;
  result->equal = n == 0;
  rc = n == 0 ? 0 : 1;
done:
  side_free(&l);
  side_free(&r);
  return rc;
}

int pbd_Compare(const uint8_t *left, size_t left_size, const uint8_t *right, size_t right_size,
                const pbd_CompareOptions *o, pbd_EditFunc *fn, void *ctx,
                pbd_CompareResult *result, pbd_Status *s) {
  pbd_CompareInput l = {left, left_size, false, NULL, NULL, 1};
  pbd_CompareInput r = {right, right_size, false, NULL, NULL, 1};
  return pbd_Compare_Inputs(&l, &r, o, fn, ctx, result, s);
}
