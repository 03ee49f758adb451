/* pbdiff — the descriptor pool's build records, shared by the files of the
 * loader: schema_load.c decodes FileDescriptorSet bytes into them,
 * schema_finalize.c resolves them into read-only defs, schema.c holds the
 * pool, the lookups and the protoc runner.  Internal to lib/schema. */
#ifndef PBD_SCHEMA_POOL_H_
#define PBD_SCHEMA_POOL_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/schema/schema.h"

/* ------------------------------------------------------------------------ */
/* Build records.  Each embeds its public def as the first member, so that a
 * pointer to the def converts back to the record. */

typedef struct MsgB MsgB;

typedef struct {
  pbd_FieldDef def;
  const pbd_FileDef *file;   /* the file that declares it (for an extension,
                                not the extendee's file) */
  const char *scope;         /* enclosing message or package: relative type
                                names are resolved from here outward */
  const char *type_name;     /* as written, NULL when absent */
  const char *extendee;      /* as written, NULL when absent */
  pbd_StrView default_str;   /* the descriptor's default_value text */
  int32_t oneof_index;       /* -1: none */
  uint32_t seq;              /* tie-break that keeps the sort stable */
  bool has_type, packed_set, packed;
  MsgB *parent;              /* declaring message, NULL for an extension */
  size_t offset;             /* where its descriptor starts, for errors */
} FieldB;

struct MsgB {
  pbd_MessageDef def;
  FieldB *own;               /* declared fields, declaration order */
  uint32_t own_count;
  const char **oneof_names;  /* every oneof_decl, synthetic ones included */
  uint32_t oneof_decl_count;
  uint32_t ext_count;        /* extensions that extend it (Finalize) */
  uint32_t fill;             /* Finalize: next free slot in def.fields */
};

typedef struct {
  void **data;
  size_t len, cap;
} Vec;

static inline bool Vec_Push(Vec *v, void *p) {
  if (v->len == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(void *)) return false;
    void **d = realloc(v->data, cap * sizeof *d);
    if (!d) return false;
    v->data = d;
    v->cap = cap;
  }
  v->data[v->len++] = p;
  return true;
}

enum { kSym_Message = 1, kSym_Enum = 2, kSym_Field = 3 };

typedef struct {
  const char *key; /* NULL: empty slot */
  uint64_t hash;
  int kind;
  void *def;       /* MsgB*, pbd_EnumDef* or FieldB* */
} Sym;

struct pbd_DefPool {
  pbd_Arena *arena;
  Vec files;     /* pbd_FileDef*, load order */
  Vec msgs;      /* MsgB*, load order (parents before their nested types) */
  Vec enums;     /* pbd_EnumDef* */
  Vec exts;      /* FieldB* of every extension declaration */
  Sym *table;    /* open addressing, linear probing; built by Finalize */
  size_t table_cap;
  bool finalized;
  pbd_Buf sets;  /* the descriptor sets added, concatenated (for protoc --encode) */
};


/* schema_finalize.c: the symbol of a full name ("pkg.Msg"), or NULL. */
const Sym *pbd_SchemaPool_FindSym(const pbd_DefPool *pool, const char *key, size_t n);
/* Sets the status to out of memory; false. */
bool pbd_SchemaPool_Oom(pbd_Status *s);

#endif
