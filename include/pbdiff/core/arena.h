/* pbdiff — arena allocator.  One arena per parsed input (and one per diff
 * run): every allocating function takes the arena, nothing is freed one by
 * one, the whole arena goes at once with pbd_Arena_Free. */
#ifndef PBD_ARENA_H_
#define PBD_ARENA_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pbd_Arena pbd_Arena;

/* A bound on the bytes several arenas may reserve together (those of one
 * comparison, filled on two threads).  A block that would go over it is not
 * allocated: the allocation returns NULL as if memory had run out, and the
 * budget remembers it (pbd_MemBudget_Exceeded), so that the caller can say
 * which bound was hit instead of "out of memory". */
typedef struct pbd_MemBudget pbd_MemBudget;

/* Returns a budget of `limit` bytes, or NULL when out of memory. */
pbd_MemBudget *pbd_MemBudget_New(size_t limit);
/* Frees the budget (after every arena charged to it).  NULL is accepted. */
void pbd_MemBudget_Free(pbd_MemBudget *b);
/* True when an allocation was refused for going over the bound. */
bool pbd_MemBudget_Exceeded(const pbd_MemBudget *b);
size_t pbd_MemBudget_Limit(const pbd_MemBudget *b);
/* Rewrites an out-of-memory status `s` caused by the bound into the error
 * that names it (keeping the byte offset of the message being read). */
void pbd_MemBudget_SayExceeded(const pbd_MemBudget *b, pbd_Status *s);

/* A position in the arena that pbd_Arena_Reset can return to, releasing
 * everything allocated after it (used to undo a failed speculative parse). */
typedef struct {
  void *block;
  size_t used;
} pbd_ArenaMark;

/* Returns a new empty arena, or NULL when out of memory. */
pbd_Arena *pbd_Arena_New(void);
/* Frees the arena and everything allocated from it.  NULL is accepted. */
void pbd_Arena_Free(pbd_Arena *a);
/* Returns `size` bytes aligned to 8, or NULL when out of memory (or when
 * size is absurd).  The memory is not zeroed. */
void *pbd_Arena_Malloc(pbd_Arena *a, size_t size);
/* As pbd_Arena_Malloc, zeroed. */
void *pbd_Arena_Calloc(pbd_Arena *a, size_t size);
/* Grows an allocation of `old_size` to `new_size` (copying; the last
 * allocation grows in place when there is room).  NULL on failure, the old
 * block being left intact. */
void *pbd_Arena_Realloc(pbd_Arena *a, void *ptr, size_t old_size, size_t new_size);
/* Copies n bytes and a NUL terminator into the arena. */
char *pbd_Arena_Strndup(pbd_Arena *a, const char *s, size_t n);
/* Total bytes reserved from the system (for benchmarks). */
size_t pbd_Arena_BytesReserved(const pbd_Arena *a);

/* Moves everything allocated from `other` into `a` (it is then freed with
 * `a`) and frees `other` itself.  Marks of `a` taken before must not be
 * reset to afterwards. */
void pbd_Arena_Fuse(pbd_Arena *a, pbd_Arena *other);

/* Charges every block the arena reserves from now on to `b` (and gives it
 * back when the block is freed); NULL: no bound.  The budget must outlive
 * the arena. */
void pbd_Arena_SetBudget(pbd_Arena *a, pbd_MemBudget *b);
pbd_MemBudget *pbd_Arena_Budget(const pbd_Arena *a);

pbd_ArenaMark pbd_Arena_Mark(const pbd_Arena *a);
void pbd_Arena_Reset(pbd_Arena *a, pbd_ArenaMark m);

#ifdef __cplusplus
}
#endif
#endif
