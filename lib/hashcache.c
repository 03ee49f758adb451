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

typedef struct {
  const uint8_t *data;
  const pbd_MessageDef *type;
  pbd_Hash128 hash;
  uint64_t size : 63;
  uint64_t empty : 1;
} Entry;

struct pbd_HashCache {
  Entry *v;
  size_t n, cap, max;   /* max: entries the budget allows */
  size_t min_size;      /* messages below this are not kept */
  uint32_t *slots;      /* open addressing over v (index + 1), built on first Find */
  size_t mask;
};

enum { kFirstMinSize = 48 };

pbd_HashCache *pbd_HashCache_New(size_t budget_bytes) {
  pbd_HashCache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->max = budget_bytes / (sizeof(Entry) + 2 * sizeof(uint32_t));
  if (c->max > UINT32_MAX / 4) c->max = UINT32_MAX / 4;
  c->min_size = kFirstMinSize;
  return c;
}

void pbd_HashCache_Free(pbd_HashCache *c) {
  if (!c) return;
  free(c->v);
  free(c->slots);
  free(c);
}

/* Full: keep only the entries at least twice the old floor. */
static void raise_floor(pbd_HashCache *c) {
  c->min_size *= 2;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->v[i].size >= c->min_size) c->v[k++] = c->v[i];
  c->n = k;
}

void pbd_HashCache_Add(pbd_HashCache *c, const uint8_t *data, size_t size,
                       const pbd_MessageDef *type, pbd_Hash128 hash, bool empty) {
  if (!c || size < c->min_size || c->max == 0) return;
  if (c->slots) { /* added after a lookup: the table is built again */
    free(c->slots);
    c->slots = NULL;
  }
  while (c->n >= c->max && c->min_size < ((size_t)1 << 62)) {
    raise_floor(c);
    if (size < c->min_size) return;
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
  e->data = data;
  e->type = type;
  e->hash = hash;
  e->size = size;
  e->empty = empty;
}

static size_t slot_hash(const uint8_t *data, const pbd_MessageDef *type) {
  uint64_t k = (uint64_t)(uintptr_t)data * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)type;
  return (size_t)(k ^ k >> 29);
}

static void build_table(pbd_HashCache *c) {
  size_t cap = 16;
  while (cap < c->n * 2) cap *= 2;
  c->slots = calloc(cap, sizeof *c->slots);
  if (!c->slots) return;
  c->mask = cap - 1;
  for (size_t i = 0; i < c->n; i++) {
    size_t j = slot_hash(c->v[i].data, c->v[i].type) & c->mask;
    while (c->slots[j]) j = (j + 1) & c->mask;
    c->slots[j] = (uint32_t)(i + 1);
  }
}

bool pbd_HashCache_Find(const pbd_HashCache *cc, const uint8_t *data, const pbd_MessageDef *type,
                        pbd_Hash128 *hash, bool *empty) {
  pbd_HashCache *c = (pbd_HashCache *)cc; /* the table is a lazily built index */
  if (!c || c->n == 0) return false;
  if (!c->slots) build_table(c);
  if (!c->slots) return false;
  for (size_t j = slot_hash(data, type) & c->mask; c->slots[j]; j = (j + 1) & c->mask) {
    const Entry *e = &c->v[c->slots[j] - 1];
    if (e->data == data && e->type == type) {
      *hash = e->hash;
      *empty = e->empty;
      return true;
    }
  }
  return false;
}
