/* pbdiff — remembered hashes of messages (lib/canon/canon.h).
 *
 * A hash pass adds one entry per message of 16 bytes or more; entries stay
 * in one array in offset order (a message, which ends after its
 * descendants, is put before them), so that a lookup is a binary search,
 * usually short-cut by a cursor: a walk asks for the messages of a level in
 * the order of their bytes.
 *
 * When the budget is reached, the deepest level goes first.  A walk reads a
 * message's level only where hashes differ, and then needs the hash of
 * every child: the shallow levels (an ONNX graph's nodes) are needed by
 * every walk, a deep one only under the few messages that differ. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "canon/canon_internal.h"

/* 24 bytes an entry: the message's first byte as an offset from the input's
 * first byte, its depth and whether it is empty, then its hash.  No two
 * messages of one input begin at the same byte (a sub-message's bytes
 * begin after its tag), so the offset is the key. */
typedef struct {
  uint64_t key;   /* offset << 8 | depth << 1 | empty */
  pbd_Hash128 hash;
} Entry;

enum {
  kMinBytes = kPbd_HashCacheMinBytes,
  kDepths = 127,      /* depths kept apart; deeper ones count as the deepest */
};

struct pbd_HashCache {
  const uint8_t *base;  /* offsets count from here (the input's first byte) */
  Entry *v;
  size_t n, cap, max;   /* max: entries the budget allows */
  int max_depth;        /* messages deeper than this are not kept */
  size_t at_depth[kDepths];
  size_t cursor;        /* where the next Find probably hits */
  bool sorted;          /* v is in offset order */
  size_t moved;         /* entries moved to keep it so */
};

/* Each side's cache is written by its own thread: a cache line of its own,
 * or the two threads' counters share one and every add waits on the other
 * core. */
enum { kLine = 64 };

pbd_HashCache *pbd_HashCache_New(const uint8_t *base, size_t budget_bytes) {
  size_t bytes = (sizeof(pbd_HashCache) + kLine - 1) / kLine * kLine;
  pbd_HashCache *c = aligned_alloc(kLine, bytes);
  if (!c) return NULL;
  memset(c, 0, bytes);
  c->base = base;
  c->max = budget_bytes / sizeof(Entry);
  if (c->max > UINT32_MAX / 4) c->max = UINT32_MAX / 4;
  c->max_depth = kDepths - 1;
  c->sorted = true;
  return c;
}

void pbd_HashCache_Free(pbd_HashCache *c) {
  if (!c) return;
  free(c->v);
  free(c);
}

static int entry_depth(const Entry *e) { return (int)((e->key >> 1) & 0x7f); }

/* Full: the deepest level kept goes. */
static void drop_deepest(pbd_HashCache *c) {
  while (c->max_depth >= 0 && c->at_depth[c->max_depth] == 0) c->max_depth--;
  if (c->max_depth < 0) return;
  c->at_depth[c->max_depth] = 0;
  c->max_depth--;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (entry_depth(&c->v[i]) <= c->max_depth) c->v[k++] = c->v[i];
  c->n = k;
}

/* The first entry at or after offset in [lo, hi) (entries sorted by
 * offset; the one at hi, if any, is at or after it). */
static size_t lower_bound(const pbd_HashCache *c, size_t lo, size_t hi, uint64_t offset) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->v[mid].key >> 8 < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void pbd_HashCache_Add(pbd_HashCache *c, const uint8_t *data, size_t size, int depth,
                       pbd_Hash128 hash, bool empty) {
  if (!c || c->max == 0 || size < kMinBytes || data < c->base) return;
  if (depth >= kDepths) depth = kDepths - 1;
  while (c->n >= c->max && depth <= c->max_depth) drop_deepest(c);
  if (depth > c->max_depth) return;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 1024;
    if (cap > c->max) cap = c->max;
    Entry *nv = realloc(c->v, cap * sizeof *nv);
    if (!nv) return; /* best effort: a miss only costs hashing again */
    c->v = nv;
    c->cap = cap;
  }
  /* A message ends after its descendants: the entries at or after its
   * offset are exactly its descendants, at the end.  It goes before them,
   * so that the array stays in offset order (bounded: past a few moves per
   * entry, the array is sorted once when first looked up instead). */
  uint64_t offset = (uint64_t)(data - c->base);
  size_t k = c->n;
  if (c->sorted && c->n && c->v[c->n - 1].key >> 8 >= offset) {
    /* found from the end: as many steps as entries to move, usually few */
    while (k > 0 && c->v[k - 1].key >> 8 >= offset) k--;
    c->moved += c->n - k;
    if (c->moved > 8 * c->max) {
      c->sorted = false;
      k = c->n;
    } else {
      memmove(&c->v[k + 1], &c->v[k], sizeof *c->v * (c->n - k));
    }
  }
  c->n++;
  c->v[k].key = offset << 8 | (uint64_t)depth << 1 | (empty ? 1 : 0);
  c->at_depth[depth]++;
  c->v[k].hash = hash;
}

static int compare_entries(const void *a, const void *b) {
  uint64_t x = ((const Entry *)a)->key >> 8, y = ((const Entry *)b)->key >> 8;
  return (x > y) - (x < y);
}

/* A walk asks for the messages of one level in the order of their bytes,
 * so the next lookup usually hits just after the last one. */
static size_t find_index(pbd_HashCache *c, uint64_t offset) {
  if (!c->sorted) { /* too many moves while adding: sorted once now */
    qsort(c->v, c->n, sizeof *c->v, compare_entries);
    c->sorted = true;
    c->moved = 0; /* adding may move entries again, up to the same bound */
  }
  /* the cursor only helps when the entry is at or after it: then it is
   * found by galloping from there (the next sibling lies past the
   * descendants of this one, however many they are) */
  size_t lo = c->cursor;
  if (lo > c->n) return lower_bound(c, 0, c->n, offset);
  if (lo > 0 && c->v[lo - 1].key >> 8 >= offset) { /* behind it: a walk from the end */
    size_t hi = lo - 1, step = 1; /* v[hi] is at or after offset */
    while (hi >= step && c->v[hi - step].key >> 8 >= offset) {
      hi -= step;
      step *= 2;
    }
    size_t below = hi >= step ? hi - step + 1 : 0; /* v[below - 1] is before it, if any */
    return lower_bound(c, below, hi + 1, offset);
  }
  size_t step = 1, hi = lo;
  while (hi < c->n && c->v[hi].key >> 8 < offset) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  return lower_bound(c, lo, hi < c->n ? hi + 1 : c->n, offset);
}

bool pbd_HashCache_Find(const pbd_HashCache *cc, const uint8_t *data, size_t size,
                        const pbd_MessageDef *type, pbd_Hash128 *hash, bool *empty) {
  pbd_HashCache *c = (pbd_HashCache *)cc; /* the cursor is a lookup's memo */
  (void)type;
  if (!c || c->n == 0 || data < c->base || size < kMinBytes) return false;
  uint64_t offset = (uint64_t)(data - c->base);
  size_t k = find_index(c, offset);
  if (k >= c->n || c->v[k].key >> 8 != offset) return false;
  c->cursor = k + 1;
  *hash = c->v[k].hash;
  *empty = c->v[k].key & 1;
  return true;
}
