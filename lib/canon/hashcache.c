/* pbdiff — remembered hashes of messages (lib/canon/canon.h).
 *
 * A hash pass adds one entry per message of 16 bytes or more, to the list
 * of its nesting level; each level's entries stay in offset order, so that
 * a lookup is a binary search, usually short-cut by a cursor: a walk asks
 * for the messages of a level in the order of their bytes.  A lookup tries
 * the level of the last one found first.
 *
 * A pass hashes a message after its descendants, so one list for all
 * levels would have each message put before them, moving them; within a
 * level, messages are hashed in the order of their bytes, and most entries
 * go last.  One that would move many (the general reader hashes a singular
 * child after the repeated ones that follow it; a walk may hash a
 * sequence's last elements first and then its first ones) goes to a second
 * sorted run of its level instead, and when it would move many there too,
 * the second run is merged into the first.  "Many" is about the square root of the entries,
 * so that moves and merges cost about that much an entry at worst, and
 * nothing is ever sorted whole: before, such entries were appended out of
 * order and the next lookup sorted them all, and a walk that looked up and
 * added in turn sorted them again every few hundred entries.
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
 * first byte and whether it is empty, then its hash.  No two messages of
 * one input begin at the same byte (a sub-message's bytes begin after its
 * tag), so the offset is the key. */
typedef struct {
  uint64_t key;   /* offset << 1 | empty */
  pbd_Hash128 hash;
} Entry;

enum {
  kMinBytes = kPbd_HashCacheMinBytes,
  kDepths = 127,      /* depths kept apart; deeper ones count as the deepest */
};

/* Entries in offset order, with the cursor of the lookups. */
typedef struct {
  Entry *v;
  size_t n, cap;
  size_t cursor;        /* where the next Find probably hits */
} Run;

/* One nesting level's entries. */
typedef struct {
  Run main, side;       /* side: those that would have moved many of main */
} Level;

struct pbd_HashCache {
  const uint8_t *base;  /* offsets count from here (the input's first byte) */
  size_t max;           /* entries the budget allows, in all levels */
  size_t entries;
  int max_depth;        /* messages deeper than this are not kept */
  int deepest;          /* the deepest level that has had entries, or -1 */
  int last_hit;         /* the level of the last lookup that found one */
  Level level[kDepths];
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
  c->deepest = -1;
  return c;
}

static size_t level_entries(const Level *l) { return l->main.n + l->side.n; }

static void free_level(Level *l) {
  free(l->main.v);
  free(l->side.v);
  *l = (Level){0};
}

void pbd_HashCache_Free(pbd_HashCache *c) {
  if (!c) return;
  for (int d = 0; d <= c->deepest; d++) free_level(&c->level[d]);
  free(c);
}

/* Full: the deepest level kept goes. */
static void drop_deepest(pbd_HashCache *c) {
  while (c->max_depth >= 0 && level_entries(&c->level[c->max_depth]) == 0) c->max_depth--;
  if (c->max_depth < 0) return;
  c->entries -= level_entries(&c->level[c->max_depth]);
  free_level(&c->level[c->max_depth]);
  c->max_depth--;
}

static uint64_t offset_of(const Entry *e) { return e->key >> 1; }

/* The first entry of r at or after offset in [lo, hi) (the one at hi, if
 * any, is at or after it). */
static size_t lower_bound(const Run *r, size_t lo, size_t hi, uint64_t offset) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (offset_of(&r->v[mid]) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

enum { kMinMoves = 64 };

/* How many entries an insertion may move: about the square root of the
 * entries (a power of two), and at least kMinMoves. */
static size_t move_bound(size_t entries) {
  size_t t = kMinMoves;
  while (t * t < entries) t *= 2;
  return t;
}

static bool reserve(Run *r, size_t need, size_t max) {
  if (need <= r->cap) return true;
  size_t cap = r->cap ? r->cap : 1024;
  while (cap < need) cap *= 2;
  if (cap > max) cap = max;
  if (cap < need) return false;
  Entry *nv = realloc(r->v, cap * sizeof *nv);
  if (!nv) return false;
  r->v = nv;
  r->cap = cap;
  return true;
}

typedef enum { kPut, kTooFar, kNoRoom } PutResult;

/* Puts e into r in offset order, unless that moves more than
 * move_bound(entries) entries.  The place is found from the end: an entry
 * usually goes last, or before its descendants, the last few (so the bound
 * is worked out only past kMinMoves). */
static inline PutResult put(Run *r, Entry e, size_t entries, size_t max) {
  uint64_t offset = offset_of(&e);
  size_t k = r->n, bound = kMinMoves;
  while (k > 0 && offset_of(&r->v[k - 1]) >= offset) {
    if (r->n - k >= bound) {
      if (bound > kMinMoves || r->n - k >= (bound = move_bound(entries))) return kTooFar;
    }
    k--;
  }
  if (!reserve(r, r->n + 1, max)) return kNoRoom;
  memmove(&r->v[k + 1], &r->v[k], sizeof *r->v * (r->n - k));
  r->v[k] = e;
  r->n++;
  return kPut;
}

/* A level's side run merged into its main, from the end (main's room
 * first). */
static bool merge_side(Level *l, size_t max) {
  Run *a = &l->main, *b = &l->side;
  if (!reserve(a, a->n + b->n, max)) return false;
  size_t i = a->n, j = b->n, out = a->n + b->n;
  while (j > 0) {
    if (i > 0 && offset_of(&a->v[i - 1]) > offset_of(&b->v[j - 1])) a->v[--out] = a->v[--i];
    else a->v[--out] = b->v[--j];
  }
  a->n += b->n;
  free(b->v); /* (its room again as it fills: the two stay within about the budget) */
  *b = (Run){0};
  return true;
}

/* The rest of an add: the budget reached, or the entry not the level's
 * last.  (Apart, so that the common add is a leaf that saves no registers.) */
static __attribute__((noinline)) void add_slow(pbd_HashCache *c, uint64_t offset, int depth,
                                               pbd_Hash128 hash, bool empty) {
  while (c->entries >= c->max && depth <= c->max_depth) drop_deepest(c);
  if (depth > c->max_depth) return;
  if (depth > c->deepest) c->deepest = depth;
  Entry e = {offset << 1 | (empty ? 1 : 0), hash};
  Level *l = &c->level[depth];
  /* (best effort: without room a miss only costs hashing again) */
  size_t entries = level_entries(l);
  PutResult r = put(&l->main, e, entries, c->max);
  if (r == kTooFar) r = put(&l->side, e, entries, c->max);
  if (r == kTooFar && merge_side(l, c->max)) r = put(&l->side, e, entries, c->max);
  if (r == kPut) c->entries++;
}

void pbd_HashCache_Add(pbd_HashCache *c, const uint8_t *data, size_t size, int depth,
                       pbd_Hash128 hash, bool empty) {
  if (!c || c->max == 0 || size < kMinBytes || data < c->base) return;
  if (depth >= kDepths) depth = kDepths - 1;
  uint64_t offset = (uint64_t)(data - c->base);
  Run *m = &c->level[depth].main;
  if (c->entries < c->max && m->n && m->n < m->cap &&
      offset_of(&m->v[m->n - 1]) < offset) { /* most: last of a level begun */
    m->v[m->n++] = (Entry){offset << 1 | (empty ? 1 : 0), hash};
    c->entries++;
    return;
  }
  if (depth <= c->max_depth) add_slow(c, offset, depth, hash, empty);
}

/* A walk asks for the messages of one level in the order of their bytes,
 * so the next lookup usually hits just after the last one.  The entry at
 * offset in r, or r->n. */
static size_t find_in(Run *r, uint64_t offset) {
  if (r->n == 0) return 0;
  /* the cursor only helps when the entry is at or after it: then it is
   * found by galloping from there (the next sibling lies past the
   * descendants of this one, however many they are) */
  size_t lo = r->cursor, k;
  if (lo > r->n) {
    k = lower_bound(r, 0, r->n, offset);
  } else if (lo > 0 && offset_of(&r->v[lo - 1]) >= offset) { /* behind it: a walk from the end */
    size_t hi = lo - 1, step = 1; /* v[hi] is at or after offset */
    while (hi >= step && offset_of(&r->v[hi - step]) >= offset) {
      hi -= step;
      step *= 2;
    }
    size_t below = hi >= step ? hi - step + 1 : 0; /* v[below - 1] is before it, if any */
    k = lower_bound(r, below, hi + 1, offset);
  } else {
    size_t step = 1, hi = lo;
    while (hi < r->n && offset_of(&r->v[hi]) < offset) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    k = lower_bound(r, lo, hi < r->n ? hi + 1 : r->n, offset);
  }
  if (k >= r->n || offset_of(&r->v[k]) != offset) return r->n;
  r->cursor = k + 1;
  return k;
}

/* The entry at offset in level l, or NULL. */
static const Entry *find_at_level(Level *l, uint64_t offset) {
  size_t k = find_in(&l->main, offset);
  if (k < l->main.n) return &l->main.v[k];
  k = find_in(&l->side, offset);
  return k < l->side.n ? &l->side.v[k] : NULL;
}

/* The entry at offset in any level, trying the last one found in first. */
static __attribute__((noinline)) const Entry *find_anywhere(pbd_HashCache *c, uint64_t offset) {
  int last = c->last_hit, top = c->deepest < c->max_depth ? c->deepest : c->max_depth;
  const Entry *e = last <= top ? find_at_level(&c->level[last], offset) : NULL;
  for (int d = 0; !e && d <= top; d++) {
    if (d == last || !(e = find_at_level(&c->level[d], offset))) continue;
    c->last_hit = d;
  }
  return e;
}

bool pbd_HashCache_Find(const pbd_HashCache *cc, const uint8_t *data, size_t size,
                        const pbd_MessageDef *type, pbd_Hash128 *hash, bool *empty) {
  pbd_HashCache *c = (pbd_HashCache *)cc; /* the cursors are a lookup's memo */
  (void)type;
  if (!c || data < c->base || size < kMinBytes || c->entries == 0) return false;
  uint64_t offset = (uint64_t)(data - c->base);
  /* A sequence's elements are asked for in turn, from either end: the
   * next is at the cursor of the last level found in, or the previous just
   * before the last found.  (A dropped level has no entries.)  The rest
   * apart, so that this is a leaf that saves no registers. */
  Run *r = &c->level[c->last_hit].main;
  size_t at = r->cursor;
  if (at >= r->n || offset_of(&r->v[at]) != offset) at -= 2; /* (0 or 1: past any n) */
  const Entry *e;
  if (at < r->n && offset_of(&r->v[at]) == offset) {
    r->cursor = at + 1;
    e = &r->v[at];
  } else if (!(e = find_anywhere(c, offset))) {
    return false;
  }
  *hash = e->hash;
  *empty = e->key & 1;
  return true;
}
