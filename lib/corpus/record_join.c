/* pbdiff — the join of two corpora by record key (records.h): each side's
 * records sorted by key, then merged, as a sort-merge join does.
 *
 * A side holds millions of records, so each is kept small (docs/scale.md,
 * "Corpora"): 28 bytes (its hash, where its key is, its index in its
 * source) plus its key's text; the source is kept once per run of records
 * of one source.  Sorting orders 4-byte record numbers: a radix sort on 8
 * bytes of each key (after the prefix every key shares), then a comparison
 * sort only among keys with the same 8 bytes. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/corpus/records.h"

/* One record as stored: 4-byte fields only, so that it packs in 28 bytes. */
typedef struct {
  uint32_t hash[4];     /* pbd_Hash128, lo then hi */
  uint32_t key_lo, key_hi; /* where its key is: offset << 24 | length */
  uint32_t index;       /* in its source */
} Rec;

enum { kKeyLenBits = 24 };
static const uint64_t kMaxKeyLen = (1u << kKeyLenBits) - 1;

/* A run of records added one after another from one source. */
typedef struct {
  uint32_t first;       /* its first record */
  uint32_t source;
} SourceRun;

struct pbd_RecordIndex {
  Rec *recs;
  size_t count, cap;
  SourceRun *runs;
  size_t nruns, capruns;
  pbd_Buf keys;         /* every key's text, one after another */
  uint32_t *order;      /* the records in the join's order, once sorted */
  bool oom, full;
};

pbd_RecordIndex *pbd_RecordIndex_New(void) { return calloc(1, sizeof(pbd_RecordIndex)); }

void pbd_RecordIndex_Free(pbd_RecordIndex *x) {
  if (!x) return;
  free(x->recs);
  free(x->runs);
  free(x->order);
  pbd_Buf_Free(&x->keys);
  free(x);
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem, size_t first) {
  if (need <= *cap) return true;
  size_t want = *cap ? *cap * 2 : first;
  while (want < need) want *= 2;
  void *np = realloc(*p, want * elem); /* not zeroed: every slot is written before use */
  if (!np) return false;
  *p = np;
  *cap = want;
  return true;
}

static bool note_source(pbd_RecordIndex *x, uint32_t source) {
  if (x->nruns && x->runs[x->nruns - 1].source == source) return true;
  if (!grow((void **)&x->runs, &x->capruns, x->nruns + 1, sizeof *x->runs, 16)) return false;
  x->runs[x->nruns++] = (SourceRun){(uint32_t)x->count, source};
  return true;
}

bool pbd_RecordIndex_Add(pbd_RecordIndex *x, const char *key, size_t key_len, uint32_t source,
                         size_t index, pbd_Hash128 hash) {
  if (x->order) { /* sorted: no more records */
    x->oom = true;
    return false;
  }
  if (x->count >= PBD_MAX_RECORDS || index > UINT32_MAX || key_len > kMaxKeyLen) {
    x->full = true;
    return false;
  }
  if (!grow((void **)&x->recs, &x->cap, x->count + 1, sizeof *x->recs, 1024) ||
      !note_source(x, source))
    return !(x->oom = true);
  uint64_t ref = (uint64_t)x->keys.len << kKeyLenBits | key_len;
  Rec *r = &x->recs[x->count];
  r->hash[0] = (uint32_t)hash.lo;
  r->hash[1] = (uint32_t)(hash.lo >> 32);
  r->hash[2] = (uint32_t)hash.hi;
  r->hash[3] = (uint32_t)(hash.hi >> 32);
  r->key_lo = (uint32_t)ref;
  r->key_hi = (uint32_t)(ref >> 32);
  r->index = (uint32_t)index;
  pbd_Buf_Append(&x->keys, key, key_len);
  if (x->keys.oom) return !(x->oom = true);
  x->count++;
  return true;
}

size_t pbd_RecordIndex_Count(const pbd_RecordIndex *x) { return x->count; }

bool pbd_RecordIndex_Full(const pbd_RecordIndex *x) { return x->full; }

size_t pbd_RecordIndex_Bytes(const pbd_RecordIndex *x) {
  return x->cap * sizeof *x->recs + x->capruns * sizeof *x->runs + x->keys.cap;
}

/* ---- A record's parts ---------------------------------------------------------- */

static uint64_t key_ref(const Rec *r) { return (uint64_t)r->key_hi << 32 | r->key_lo; }

static const char *key_of(const pbd_RecordIndex *x, uint32_t i, size_t *len) {
  uint64_t ref = key_ref(&x->recs[i]);
  *len = (size_t)(ref & kMaxKeyLen);
  return x->keys.data + (ref >> kKeyLenBits);
}

static uint32_t source_of(const pbd_RecordIndex *x, uint32_t i) {
  size_t lo = 0, hi = x->nruns; /* the last run that starts at or before i */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->runs[mid].first <= i) lo = mid;
    else hi = mid;
  }
  return x->runs[lo].source;
}

static pbd_Record record_of(const pbd_RecordIndex *x, uint32_t i) {
  const Rec *r = &x->recs[i];
  pbd_Record out = {.source = source_of(x, i), .index = r->index};
  out.hash.lo = (uint64_t)r->hash[1] << 32 | r->hash[0];
  out.hash.hi = (uint64_t)r->hash[3] << 32 | r->hash[2];
  return out;
}

/* ---- Sorting ------------------------------------------------------------------ */

static int compare_keys(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

/* The join's order: by key bytewise (a shorter key before its extensions),
 * then by source and index. */
static int compare_records(const pbd_RecordIndex *x, uint32_t a, uint32_t b) {
  size_t an, bn;
  const char *ak = key_of(x, a, &an), *bk = key_of(x, b, &bn);
  int c = compare_keys(ak, an, bk, bn);
  if (c) return c;
  uint32_t as = source_of(x, a), bs = source_of(x, b);
  if (as != bs) return as < bs ? -1 : 1;
  uint32_t ai = x->recs[a].index, bi = x->recs[b].index;
  return (ai > bi) - (ai < bi);
}

/* The bytes every key shares at its start (at most the shortest key). */
static size_t common_prefix(const pbd_RecordIndex *x) {
  if (x->count == 0) return 0;
  size_t n0;
  const char *k0 = key_of(x, 0, &n0);
  size_t common = n0;
  for (uint32_t i = 1; i < x->count && common; i++) {
    size_t n;
    const char *k = key_of(x, i, &n);
    if (n < common) common = n;
    size_t j = 0;
    while (j < common && k[j] == k0[j]) j++;
    common = j;
  }
  return common;
}

/* Eight bytes of the key from `skip` on, big-endian, zeros past its end:
 * their order as integers is the keys' order, but for keys that tie. */
static uint64_t key_prefix(const pbd_RecordIndex *x, uint32_t i, size_t skip) {
  size_t n;
  const unsigned char *k = (const unsigned char *)key_of(x, i, &n);
  uint64_t p = 0;
  for (size_t j = 0; j < 8; j++) p = p << 8 | (skip + j < n ? k[skip + j] : 0);
  return p;
}

/* LSD radix sort of the record numbers in `order` by pfx[], byte by byte
 * from the lowest; a byte that every prefix has alike takes no pass. */
static void radix_sort(uint32_t *order, uint32_t *tmp, const uint64_t *pfx, size_t n) {
  size_t (*counts)[256] = calloc(8, sizeof *counts); /* 16 KiB */
  if (!counts) return; /* left unsorted: the comparison sort below does it all */
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 8; b++) counts[b][(pfx[i] >> (8 * b)) & 0xff]++;
  for (int b = 0; b < 8; b++) {
    if (counts[b][(pfx[0] >> (8 * b)) & 0xff] == n) continue;
    size_t sum = 0;
    for (int v = 0; v < 256; v++) {
      size_t c = counts[b][v];
      counts[b][v] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; i++) tmp[counts[b][(pfx[order[i]] >> (8 * b)) & 0xff]++] = order[i];
    memcpy(order, tmp, n * sizeof *order);
  }
  free(counts);
}

/* A stable merge sort of a[0, n) by compare_records; tmp holds n. */
static void merge_sort(const pbd_RecordIndex *x, uint32_t *a, uint32_t *tmp, size_t n) {
  if (n <= 12) { /* insertion sort */
    for (size_t i = 1; i < n; i++) {
      uint32_t v = a[i];
      size_t j = i;
      for (; j > 0 && compare_records(x, a[j - 1], v) > 0; j--) a[j] = a[j - 1];
      a[j] = v;
    }
    return;
  }
  size_t h = n / 2;
  merge_sort(x, a, tmp, h);
  merge_sort(x, a + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = compare_records(x, a[j], a[i]) < 0 ? a[j++] : a[i++];
  while (i < h) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

/* The record numbers of x in the join's order (compare_records); NULL when
 * out of memory.  Working memory: 12 bytes a record, given back. */
static uint32_t *sort_index(const pbd_RecordIndex *x) {
  size_t n = x->count;
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  uint64_t *pfx = malloc((n ? n : 1) * sizeof *pfx);
  if (!order || !tmp || !pfx) {
    free(order);
    free(tmp);
    free(pfx);
    return NULL;
  }
  size_t skip = common_prefix(x);
  for (uint32_t i = 0; i < n; i++) {
    order[i] = i;
    pfx[i] = key_prefix(x, i, skip);
  }
  if (n > 1) radix_sort(order, tmp, pfx, n);
  for (size_t i = 0; i < n;) { /* the runs of equal prefixes: by the whole key */
    size_t j = i + 1;
    while (j < n && pfx[order[j]] == pfx[order[i]]) j++;
    if (j - i > 1) merge_sort(x, order + i, tmp, j - i);
    i = j;
  }
  free(tmp);
  free(pfx);
  return order;
}

bool pbd_RecordIndex_Sort(pbd_RecordIndex *x) {
  if (x->oom || x->full) return false;
  if (!x->order && !(x->order = sort_index(x))) x->oom = true;
  return !x->oom;
}

/* ---- Merging ------------------------------------------------------------------ */

typedef struct {
  const pbd_RecordIndex *x;
  const uint32_t *order;
  size_t n;
} Side;

static int compare_at(const Side *a, size_t i, const Side *b, size_t j) {
  size_t an, bn;
  const char *ak = key_of(a->x, a->order[i], &an), *bk = key_of(b->x, b->order[j], &bn);
  return compare_keys(ak, an, bk, bn);
}

/* The records from i on with the key of the i-th. */
static size_t run_length(const Side *s, size_t i) {
  size_t j = i + 1;
  while (j < s->n && compare_at(s, i, s, j) == 0) j++;
  return j - i;
}

/* Hands the records of one key to fn: LEFT's k-th with RIGHT's k-th. */
static int emit_key(const Side *l, size_t li, size_t nl, const Side *r, size_t ri, size_t nr,
                    pbd_RecordPairFunc *fn, void *ctx) {
  size_t key_len;
  const char *key = nl ? key_of(l->x, l->order[li], &key_len) : key_of(r->x, r->order[ri], &key_len);
  size_t most = nl > nr ? nl : nr;
  for (size_t k = 0; k < most; k++) {
    pbd_Record lrec, rrec;
    if (k < nl) lrec = record_of(l->x, l->order[li + k]);
    if (k < nr) rrec = record_of(r->x, r->order[ri + k]);
    pbd_RecordPair p = {key, key_len, k < nl ? &lrec : NULL, k < nr ? &rrec : NULL, k, nl, nr};
    int rc = fn(ctx, &p);
    if (rc) return rc;
  }
  return 0;
}

int pbd_Records_Join(pbd_RecordIndex *left, pbd_RecordIndex *right, pbd_RecordPairFunc *fn,
                     void *ctx) {
  if (!pbd_RecordIndex_Sort(left) || !pbd_RecordIndex_Sort(right)) return -1;
  Side l = {left, left->order, left->count}, r = {right, right->order, right->count};
  int rc = 0;
  size_t i = 0, j = 0;
  while (rc == 0 && (i < l.n || j < r.n)) {
    int c = i == l.n ? 1 : j == r.n ? -1 : compare_at(&l, i, &r, j);
    size_t li = c <= 0 ? run_length(&l, i) : 0, rj = c >= 0 ? run_length(&r, j) : 0;
    rc = emit_key(&l, i, li, &r, j, rj, fn, ctx);
    i += li;
    j += rj;
  }
  return rc;
}
