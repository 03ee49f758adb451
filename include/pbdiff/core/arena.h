/* pbdiff — arena allocator.  One arena per parsed input (and one per diff
 * run): every allocating function takes the arena, nothing is freed one by
 * one, the whole arena goes at once with pbd_Arena_Free. */
#ifndef PBD_ARENA_H_
#define PBD_ARENA_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pbd_Arena pbd_Arena;

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

pbd_ArenaMark pbd_Arena_Mark(const pbd_Arena *a);
void pbd_Arena_Reset(pbd_Arena *a, pbd_ArenaMark m);

#ifdef __cplusplus
}
#endif
#endif
