/* pbdiff — remembered hashes of large messages (lib/canon.h).
 *
 * A hash pass appends one entry per message of at least `min_size` bytes;
 * entries stay in a plain array (appending costs nothing an equal
 * comparison would notice), and the lookup table is built only on the
 * first Find, which only a comparison with differences ever makes.  When
 * the budget is reached, the size floor doubles and smaller entries go, so
 * the largest messages, the ones most costly to hash again, stay. */
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "canon_internal.h"

/* 24 bytes an entry: the message's first byte as an offset from the first
 * message remembered, its size class (log2) and whether it is empty, then
 * its hash.  No two messages of one input begin at the same byte (a
 * sub-message's bytes begin after its tag), so the offset is the key. */
typedef struct {
  uint64_t key;   /* offset << 8 | size class << 1 | empty */
  pbd_Hash128 hash;
} Entry;

struct pbd_HashCache {
  const uint8_t *base;  /* offsets count from here (the input's first byte) */
  Entry *v;
  size_t n, cap, max;   /* max: entries the budget allows */
  unsigned min_class;   /* messages below 2^min_class bytes are not kept */
  uint32_t *slots;      /* open addressing over v (index + 1), built on first Find */
  size_t mask;
};

enum { kFirstMinClass = 6 }; /* 64 bytes */

pbd_HashCache *pbd_HashCache_New(const uint8_t *base, size_t budget_bytes) {
  pbd_HashCache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->base = base;
  c->max = budget_bytes / sizeof(Entry);
  if (c->max > UINT32_MAX / 4) c->max = UINT32_MAX / 4;
  c->min_class = kFirstMinClass;
  return c;
}

void pbd_HashCache_Free(pbd_HashCache *c) {
  if (!c) return;
  free(c->v);
  free(c->slots);
  free(c);
}

static unsigned size_class(size_t size) {
  unsigned k = 0;
  while (k < 62 && ((size_t)2 << k) <= size) k++;
  return k;
}

/* Full: keep only the entries at least twice the old floor. */
static void raise_floor(pbd_HashCache *c) {
  c->min_class++;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (((c->v[i].key >> 1) & 0x7f) >= c->min_class) c->v[k++] = c->v[i];
  c->n = k;
}

void pbd_HashCache_Add(pbd_HashCache *c, const uint8_t *data, size_t size,
                       const pbd_MessageDef *type, pbd_Hash128 hash, bool empty) {
  (void)type;
  if (!c || c->max == 0 || size >> c->min_class == 0) return;
  if (c->slots) { /* added after a lookup: the table is built again */
    free(c->slots);
    c->slots = NULL;
  }
  if (data < c->base) return;
  unsigned cls = size_class(size);
  while (c->n >= c->max && c->min_class < 62) {
    raise_floor(c);
    if (cls < c->min_class) return;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 1024;
    if (cap > c->max) cap = c->max;
    Entry *nv = realloc(c->v, cap * sizeof *nv);
    if (!nv) return; /* best effort: a miss only costs hashing again */
    c->v = nv;
    c->cap = cap;
  }
  Entry *e = &c->v[c->n++];
  e->key = (uint64_t)(data - c->base) << 8 | cls << 1 | (empty ? 1 : 0);
  e->hash = hash;
}

static size_t slot_hash(uint64_t offset) {
  uint64_t k = offset * 0x9E3779B97F4A7C15ull;
  return (size_t)(k ^ k >> 29);
}

static void build_table(pbd_HashCache *c) {
  size_t cap = 16;
  while (cap < c->n * 2) cap *= 2;
  c->slots = calloc(cap, sizeof *c->slots);
  if (!c->slots) return;
  c->mask = cap - 1;
  for (size_t i = 0; i < c->n; i++) {
    size_t j = slot_hash(c->v[i].key >> 8) & c->mask;
    while (c->slots[j]) j = (j + 1) & c->mask;
    c->slots[j] = (uint32_t)(i + 1);
  }
}

bool pbd_HashCache_Find(const pbd_HashCache *cc, const uint8_t *data, const pbd_MessageDef *type,
                        pbd_Hash128 *hash, bool *empty) {
  pbd_HashCache *c = (pbd_HashCache *)cc; /* the table is a lazily built index */
  (void)type;
  if (!c || c->n == 0 || data < c->base) return false;
  if (!c->slots) build_table(c);
  if (!c->slots) return false;
  uint64_t offset = (uint64_t)(data - c->base);
  for (size_t j = slot_hash(offset) & c->mask; c->slots[j]; j = (j + 1) & c->mask) {
    const Entry *e = &c->v[c->slots[j] - 1];
    if (e->key >> 8 == offset) {
      *hash = e->hash;
      *empty = e->key & 1;
      return true;
    }
  }
  return false;
}
