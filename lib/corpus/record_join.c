/* pbdiff — the join of two corpora by record key (records.h): each side's
 * records sorted by key, then merged, as a sort-merge join does. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/corpus/records.h"

struct pbd_RecordIndex {
  pbd_Record *recs;
  size_t count, cap;
  pbd_Buf keys;      /* every key's text, one after another */
  bool oom;
};

pbd_RecordIndex *pbd_RecordIndex_New(void) { return calloc(1, sizeof(pbd_RecordIndex)); }

void pbd_RecordIndex_Free(pbd_RecordIndex *x) {
  if (!x) return;
  free(x->recs);
  pbd_Buf_Free(&x->keys);
  free(x);
}

bool pbd_RecordIndex_Add(pbd_RecordIndex *x, const char *key, size_t key_len, uint32_t source,
                         size_t index, pbd_Hash128 hash) {
  if (x->count == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 1024;
    pbd_Record *r = realloc(x->recs, cap * sizeof *r);
    if (!r) return !(x->oom = true);
    x->recs = r;
    x->cap = cap;
  }
  if (key_len > UINT32_MAX) return !(x->oom = true);
  pbd_Record *r = &x->recs[x->count];
  r->key_off = x->keys.len;
  r->key_len = (uint32_t)key_len;
  r->source = source;
  r->index = index;
  r->hash = hash;
  pbd_Buf_Append(&x->keys, key, key_len);
  if (x->keys.oom) return !(x->oom = true);
  x->count++;
  return true;
}

size_t pbd_RecordIndex_Count(const pbd_RecordIndex *x) { return x->count; }

size_t pbd_RecordIndex_Bytes(const pbd_RecordIndex *x) {
  return x->cap * sizeof *x->recs + x->keys.cap;
}

/* ---- Sorting ------------------------------------------------------------------ */

/* qsort has no context argument in C11: records are sorted through an
 * array of these, which carries the key's address. */
typedef struct {
  const char *key;
  const pbd_Record *rec;
} Sorted;

static int compare_keys(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

static int compare_sorted(const void *pa, const void *pb) {
  const Sorted *a = pa, *b = pb;
  int c = compare_keys(a->key, a->rec->key_len, b->key, b->rec->key_len);
  if (c) return c;
  if (a->rec->source != b->rec->source) return a->rec->source < b->rec->source ? -1 : 1;
  return (a->rec->index > b->rec->index) - (a->rec->index < b->rec->index);
}

static Sorted *sort_index(const pbd_RecordIndex *x) {
  Sorted *s = malloc((x->count ? x->count : 1) * sizeof *s);
  if (!s) return NULL;
  for (size_t i = 0; i < x->count; i++) {
    s[i].key = x->keys.data + x->recs[i].key_off;
    s[i].rec = &x->recs[i];
  }
  qsort(s, x->count, sizeof *s, compare_sorted);
  return s;
}

/* ---- Merging ------------------------------------------------------------------ */

/* The records from i on with the key of s[i]. */
static size_t run_length(const Sorted *s, size_t n, size_t i) {
  size_t j = i + 1;
  while (j < n && compare_keys(s[i].key, s[i].rec->key_len, s[j].key, s[j].rec->key_len) == 0) j++;
  return j - i;
}

/* Hands the records of one key to fn: LEFT's k-th with RIGHT's k-th. */
static int emit_key(const Sorted *l, size_t nl, const Sorted *r, size_t nr, pbd_RecordPairFunc *fn,
                    void *ctx) {
  const Sorted *any = nl ? l : r;
  size_t most = nl > nr ? nl : nr;
  for (size_t k = 0; k < most; k++) {
    pbd_RecordPair p = {any->key, any->rec->key_len, k < nl ? l[k].rec : NULL,
                        k < nr ? r[k].rec : NULL, k, nl, nr};
    int rc = fn(ctx, &p);
    if (rc) return rc;
  }
  return 0;
}

int pbd_Records_Join(pbd_RecordIndex *left, pbd_RecordIndex *right, pbd_RecordPairFunc *fn,
                     void *ctx) {
  if (left->oom || right->oom) return -1;
  Sorted *l = sort_index(left), *r = sort_index(right);
  int rc = l && r ? 0 : -1;
  size_t i = 0, j = 0, nl = left->count, nr = right->count;
  while (rc == 0 && (i < nl || j < nr)) {
    int c = i == nl ? 1 : j == nr ? -1
                        : compare_keys(l[i].key, l[i].rec->key_len, r[j].key, r[j].rec->key_len);
    size_t li = c <= 0 ? run_length(l, nl, i) : 0, rj = c >= 0 ? run_length(r, nr, j) : 0;
    rc = emit_key(l + i, li, r + j, rj, fn, ctx);
    i += li;
    j += rj;
  }
  free(l);
  free(r);
  return rc;
}
