#include "pbdiff/core/arena.h"

#include "pbdiff/core/status.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

struct pbd_MemBudget {
  atomic_size_t used;
  size_t limit;
  atomic_bool exceeded;
};

struct pbd_Arena {
  pbd_MemBudget *budget; /* NULL: no bound */
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

pbd_MemBudget *pbd_MemBudget_New(size_t limit) {
  pbd_MemBudget *b = malloc(sizeof *b);
  if (!b) return NULL;
  atomic_init(&b->used, 0);
  atomic_init(&b->exceeded, false);
  b->limit = limit;
  return b;
}

void pbd_MemBudget_Free(pbd_MemBudget *b) { free(b); }

bool pbd_MemBudget_Exceeded(const pbd_MemBudget *b) {
  return b && atomic_load(&((pbd_MemBudget *)b)->exceeded);
}

size_t pbd_MemBudget_Limit(const pbd_MemBudget *b) { return b ? b->limit : SIZE_MAX; }

void pbd_MemBudget_SayExceeded(const pbd_MemBudget *b, pbd_Status *s) {
  bool at = s->has_offset;
  size_t offset = s->offset, mib = pbd_MemBudget_Limit(b) >> 20;
  if (at)
    pbd_Status_SetError(s, kPbd_Status_TooLarge,
                        "memory bound of %zu MiB reached reading the message at byte %zu "
                        "(--max-memory N raises it)", mib, offset);
  else
    pbd_Status_SetError(s, kPbd_Status_TooLarge,
                        "memory bound of %zu MiB reached (--max-memory N raises it)", mib);
}

/* Takes `size` bytes from the budget, or says no (and remembers it). */
static bool budget_take(pbd_MemBudget *b, size_t size) {
  if (!b) return true;
  size_t before = atomic_fetch_add(&b->used, size);
  if (before + size >= before && before + size <= b->limit) return true;
  atomic_fetch_sub(&b->used, size);
  atomic_store(&b->exceeded, true);
  return false;
}

static void budget_give(pbd_MemBudget *b, size_t size) {
  if (b) atomic_fetch_sub(&b->used, size);
}

/* A block for one large request (a tensor's values read into a tree) is
 * written whole at once: its memory is asked for in huge pages where the
 * system gives them on request, so that the kernel maps 2 MiB a fault
 * rather than 4 KiB (on a virtual machine each fault is costly). */
enum { kHugePage = 2u << 20 };

static void advise_huge(void *p, size_t size) {
#ifdef MADV_HUGEPAGE
  uintptr_t from = ((uintptr_t)p + kHugePage - 1) & ~(uintptr_t)(kHugePage - 1);
  uintptr_t to = ((uintptr_t)p + size) & ~(uintptr_t)(kHugePage - 1);
  if (from < to) (void)madvise((void *)from, to - from, MADV_HUGEPAGE); /* advice: may fail harmlessly */
#else
  (void)p, (void)size;
#endif
}

static Block *alloc_block(pbd_Arena *a, size_t size, bool whole) {
  if (!budget_take(a->budget, size)) return NULL;
  Block *b = malloc(sizeof(Block) + size);
  if (b) b->size = size;
  else budget_give(a->budget, size);
  if (b && whole && size >= 2 * kHugePage) advise_huge(b + 1, size);
  return b;
}

static void free_block(pbd_Arena *a, Block *b) {
  if (b) budget_give(a->budget, b->size);
  free(b);
}

static char *block_data(Block *b) { return (char *)(b + 1); }

pbd_Arena *pbd_Arena_New(void) {
  pbd_Arena *a = calloc(1, sizeof *a);
  if (a) a->next_size = kFirstBlock;
  return a;
}

void pbd_Arena_Free(pbd_Arena *a) {
  if (!a) return;
  free_block(a, a->spare);
  Block *b = a->head;
  while (b) {
    Block *prev = b->prev;
    free_block(a, b);
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
  Block *b = alloc_block(a, size, size == min);
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

void pbd_Arena_SetBudget(pbd_Arena *a, pbd_MemBudget *b) { a->budget = b; }

pbd_MemBudget *pbd_Arena_Budget(const pbd_Arena *a) { return a->budget; }

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
      free_block(a, a->spare);
      a->spare = b;
    } else {
      free_block(a, b);
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
  if (a->budget != other->budget) { /* the blocks' bytes now count against a's bound */
    budget_give(other->budget, other->reserved);
    if (a->budget) atomic_fetch_add(&a->budget->used, other->reserved);
  }
  free_block(other, other->spare);
  free(other);
}
