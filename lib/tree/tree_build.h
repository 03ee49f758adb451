/* pbdiff — the tree builder's parts shared between its files: tree.c reads
 * the wire into builders and finishes them, tree_lazy.c keeps messages of a
 * shallow tree unread until asked, tree_values.c hashes finished messages.
 * Internal to lib/. */
#ifndef PBD_TREE_BUILD_H_
#define PBD_TREE_BUILD_H_

#include <stdbool.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/core/status.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/wire/wire.h"


typedef struct {
  pbd_Field f;
  uint32_t cap;
} FieldBuild;

typedef struct {
  uint32_t number;
  pbd_UnknownValue v;
} UnknownOcc;

typedef struct {
  uint32_t *slot_of;  /* def->field_count entries: 0 absent, else index+1 in fields */
  FieldBuild *fields;
  uint32_t nfields, capfields;
  UnknownOcc *unk;
  uint32_t nunk, capunk;
} Builder;

typedef struct {
  const uint8_t *buf;
  const pbd_ReadOptions *o;
  pbd_Arena *a;       /* the tree: messages, final field arrays, value arrays */
  pbd_Arena *scratch; /* builders, used as a stack: a finished subtree's
                         builders are released at once */
  pbd_Status *s;
  int max_depth;
  bool schemaless;
  const pbd_MessageDef *any;  /* google.protobuf.Any in the pool, or NULL */
  struct pbd_LazyTree *lazy;  /* shallow reading: sub-messages stay unread, or NULL */
} Ctx;

static inline size_t off(const Ctx *c, const uint8_t *p) { return (size_t)(p - c->buf); }

static inline bool oom(Ctx *c) {
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

struct pbd_LazyTree {
  const uint8_t *buf;
  pbd_ReadOptions o;
  const pbd_HashCache *cache;
  pbd_Hasher *hasher;        /* hashes sub-messages the cache does not have */
  pbd_HashCache *recalled;   /* what the hasher hashed during the walk */
  pbd_Arena *arena;          /* the caller's: messages and fields */
  pbd_Arena *scratch;        /* builders while a level is read */
  const pbd_MessageDef *any;
  pbd_Status status;         /* the first failure to read a level */
};

/* A message of a shallow tree whose fields are not read yet. */
typedef struct pbd_Unread {
  pbd_LazyTree *tree;
  pbd_Part *parts;           /* &first until a second part comes */
  uint32_t nparts, capparts;
  int depth;
  bool empty;                /* its canonical form has no field */
  pbd_Part first;
} Unread;


/* tree.c: the reading of the wire into builders. */
Ctx pbd_TreeBuild_NewCtx(const pbd_MessageDef *type, const uint8_t *buf,
                         const pbd_ReadOptions *opts, pbd_Arena *arena, pbd_Status *s);
pbd_Message *pbd_TreeBuild_NewMessage(Ctx *c, const pbd_MessageDef *def);
/* Gives a message (its def set) an empty builder in scratch memory. */
bool pbd_TreeBuild_StartMessage(Ctx *c, pbd_Message *m);
bool pbd_TreeBuild_ParseFields(Ctx *c, pbd_Message *m, const uint8_t *p, const uint8_t *end,
                               int depth);
bool pbd_TreeBuild_FinishMessage(Ctx *c, pbd_Message *m, int depth);

/* tree_lazy.c: messages of a shallow tree, not read yet. */
pbd_Message *pbd_TreeBuild_NewUnread(Ctx *c, const pbd_MessageDef *def, int depth,
                                     const uint8_t *p, size_t n);
pbd_Message *pbd_TreeBuild_NewUnreadHashed(Ctx *c, const pbd_MessageDef *def, int depth,
                                           const uint8_t *p, size_t n, pbd_Hash128 h,
                                           bool empty);
bool pbd_TreeBuild_AddUnreadPart(Ctx *c, pbd_Message *m, const uint8_t *p, size_t n);
bool pbd_TreeBuild_FinishUnread(Ctx *c, pbd_Message *m);
/* An unread message of m's type and depth made of parts of m's bytes (a
 * window, tree_window.c), hashed; NULL when out of memory. */
pbd_Message *pbd_TreeBuild_WindowMessage(const pbd_Message *m, const pbd_Part *parts,
                                         uint32_t nparts);
bool pbd_TreeBuild_UnreadUnknownLen(Ctx *c, const pbd_WireField *f, int depth,
                                    pbd_UnknownValue *v);

/* tree_values.c: writes a finished message's pbh1 record (its children
 * hashed already) and sets m->hash; false when out of memory. */
bool pbd_Tree_HashRecord(pbd_Message *m, const pbd_ReadOptions *o, pbd_Arena *scratch);

#endif
