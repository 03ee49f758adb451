#include "pbdiff/core/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Blocks form a singly linked list, newest first.  Allocation bumps `used`
 * in the newest block; a request that does not fit opens a new block at
 * least twice the size of the last (capped), so the number of blocks stays
 * logarithmic in the total. */
typedef struct Block {
  struct Block *prev;
  size_t size; /* usable bytes after the header */
  size_t used;
  max_align_t align_[]; /* data follows */
} Block;

struct pbd_Arena {
  Block *head;
  Block *spare; /* the largest block released by Reset, kept for reuse so
                   that a mark/reset loop at a block boundary does not call
                   malloc and free on every turn */
  size_t reserved;
  size_t next_size;
};

/* 8 is all any tree struct needs (no SIMD types live in arenas); a larger
 * alignment would waste memory on the many small value arrays. */
enum { kAlign = 8, kFirstBlock = 4096, kMaxBlock = 64u << 20 };

static Block *alloc_block(size_t size) {
  Block *b = malloc(sizeof(Block) + size);
  if (b) b->size = size;
  return b;
}

static void free_block(Block *b) { free(b); }

static char *block_data(Block *b) { return (char *)(b + 1); }

pbd_Arena *pbd_Arena_New(void) {
  pbd_Arena *a = calloc(1, sizeof *a);
  if (a) a->next_size = kFirstBlock;
  return a;
}

void pbd_Arena_Free(pbd_Arena *a) {
  if (!a) return;
  free_block(a->spare);
  Block *b = a->head;
  while (b) {
    Block *prev = b->prev;
    free_block(b);
    b = prev;
  }
  free(a);
}

static Block *new_block(pbd_Arena *a, size_t min) {
  if (a->spare && a->spare->size >= min) {
    Block *b = a->spare;
    a->spare = NULL;
    b->prev = a->head;
    b->used = 0;
    a->head = b;
    a->reserved += b->size;
    return b;
  }
  size_t size = a->next_size;
  if (size < min) size = min;
  if (size > SIZE_MAX / 2) return NULL;
  Block *b = alloc_block(size);
  if (!b) return NULL;
  b->prev = a->head;
  b->used = 0;
  a->head = b;
  a->reserved += b->size;
  if (a->next_size < kMaxBlock) a->next_size *= 2;
  return b;
}

void *pbd_Arena_Malloc(pbd_Arena *a, size_t size) {
  if (size > SIZE_MAX / 2) return NULL;
  size = (size + kAlign - 1) & ~(size_t)(kAlign - 1);
  if (size == 0) size = kAlign;
  Block *b = a->head;
  if (!b || b->size - b->used < size) {
    b = new_block(a, size);
    if (!b) return NULL;
  }
  void *p = block_data(b) + b->used;
  b->used += size;
  return p;
}

void *pbd_Arena_Calloc(pbd_Arena *a, size_t size) {
  void *p = pbd_Arena_Malloc(a, size);
  if (p) memset(p, 0, size);
  return p;
}

void *pbd_Arena_Realloc(pbd_Arena *a, void *ptr, size_t old_size, size_t new_size) {
  if (!ptr) return pbd_Arena_Malloc(a, new_size);
  if (new_size <= old_size) return ptr;
  Block *b = a->head;
  size_t old_r = (old_size + kAlign - 1) & ~(size_t)(kAlign - 1);
  if (old_r == 0) old_r = kAlign;
  /* Grow in place when ptr is the last allocation of the newest block. */
  if (b && (char *)ptr + old_r == block_data(b) + b->used && new_size <= SIZE_MAX / 2) {
    size_t new_r = (new_size + kAlign - 1) & ~(size_t)(kAlign - 1);
    if (b->used - old_r + new_r <= b->size) {
      b->used = b->used - old_r + new_r;
      return ptr;
    }
  }
  void *p = pbd_Arena_Malloc(a, new_size);
  if (p) memcpy(p, ptr, old_size);
  return p;
}

char *pbd_Arena_Strndup(pbd_Arena *a, const char *s, size_t n) {
  char *p = pbd_Arena_Malloc(a, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

size_t pbd_Arena_BytesReserved(const pbd_Arena *a) { return a->reserved; }

pbd_ArenaMark pbd_Arena_Mark(const pbd_Arena *a) {
  pbd_ArenaMark m = {a->head, a->head ? a->head->used : 0};
  return m;
}

void pbd_Arena_Reset(pbd_Arena *a, pbd_ArenaMark m) {
  /* Blocks opened after the mark are released; the marked block rewinds. */
  while (a->head && a->head != m.block) {
    Block *b = a->head;
    a->head = b->prev;
    a->reserved -= b->size;
    if (!a->spare || a->spare->size < b->size) {
      free_block(a->spare);
      a->spare = b;
    } else {
      free_block(b);
    }
  }
  if (a->head) a->head->used = m.used;
}

void pbd_Arena_Fuse(pbd_Arena *a, pbd_Arena *other) {
  if (!other) return;
  Block *b = other->head;
  if (b) { /* other's chain goes behind a's newest block, which stays current */
    Block *last = b;
    while (last->prev) last = last->prev;
    if (a->head) {
      last->prev = a->head->prev;
      a->head->prev = b;
    } else {
      a->head = b;
    }
  }
  a->reserved += other->reserved;
  free_block(other->spare);
  free(other);
}
