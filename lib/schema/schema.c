/* pbdiff — the descriptor loader: our own decoder of FileDescriptorSet bytes
 * (upb is not usable on Debian 12, see docs/architecture.md).
 *
 * Loading happens in two phases, like upb's DefBuilder:
 *   Add       decodes descriptor bytes into build records (names copied into
 *             the pool arena, type names kept as written);
 *   Finalize  builds the symbol table, resolves type names and extendees,
 *             merges extensions into their extendees, sorts fields and
 *             computes the derived flags and default values.
 * Finalize runs once after the last Add because an extension, or the type
 * of a field, may be defined in a file that is added later.
 *
 * All defs live in one arena owned by the pool; only the pool's growable
 * lists and the symbol table are malloc'd. */
#include "pbdiff/schema/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/run.h"
#include "schema/schema_pool.h"
#include "pbdiff/wire/wire.h"


/* ------------------------------------------------------------------------ */
/* Pool. */

pbd_DefPool *pbd_DefPool_New(void) {
  pbd_DefPool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->arena = pbd_Arena_New();
  if (!pool->arena) {
    free(pool);
    return NULL;
  }
  return pool;
}

void pbd_DefPool_Free(pbd_DefPool *pool) {
  if (!pool) return;
  free(pool->files.data);
  free(pool->msgs.data);
  free(pool->enums.data);
  free(pool->exts.data);
  free(pool->table);
  pbd_Buf_Free(&pool->sets);
  pbd_Arena_Free(pool->arena);
  free(pool);
}

const uint8_t *pbd_DefPool_DescriptorSetBytes(const pbd_DefPool *pool, size_t *n) {
  *n = pool->sets.len;
  return (const uint8_t *)(pool->sets.data ? pool->sets.data : "");
}

/* ------------------------------------------------------------------------ */
/* Lookups. */

static const void *find_kind(const pbd_DefPool *pool, const char *name, int kind) {
  if (!name) return NULL;
  const Sym *e = pbd_SchemaPool_FindSym(pool, name, strlen(name));
  return e && e->kind == kind ? e->def : NULL;
}

const pbd_MessageDef *pbd_DefPool_FindMessageByName(const pbd_DefPool *pool,
                                                    const char *full_name) {
  const MsgB *m = find_kind(pool, full_name, kSym_Message);
  return m ? &m->def : NULL;
}

const pbd_EnumDef *pbd_DefPool_FindEnumByName(const pbd_DefPool *pool, const char *full_name) {
  return find_kind(pool, full_name, kSym_Enum);
}

const pbd_FieldDef *pbd_DefPool_FindFieldByFullName(const pbd_DefPool *pool,
                                                    const char *full_name) {
  const FieldB *f = find_kind(pool, full_name, kSym_Field);
  return f ? &f->def : NULL;
}

size_t pbd_DefPool_MessageCount(const pbd_DefPool *pool) { return pool->msgs.len; }

/* Whether m is declared directly in scope ("pkg" or "pkg.Outer"; "" for
 * the top level of a file without a package). */
static bool declared_in(const pbd_MessageDef *m, const char *scope, size_t n) {
  const char *name = m->full_name;
  if (n && (strncmp(name, scope, n) != 0 || name[n] != '.')) return false;
  return !strchr(name + (n ? n + 1 : 0), '.');
}

const pbd_MessageDef *pbd_DefPool_FindMessageByIndexes(const pbd_DefPool *pool,
                                                       const pbd_FileDef *file,
                                                       const uint32_t *indexes, size_t n) {
  const char *scope = file->package;
  size_t scope_len = strlen(scope);
  const pbd_MessageDef *found = NULL;
  for (size_t d = 0; d < n; d++) { /* the pool keeps declaration order */
    uint32_t seen = 0;
    found = NULL;
    for (size_t i = 0; i < pool->msgs.len && !found; i++) {
      const pbd_MessageDef *m = &((const MsgB *)pool->msgs.data[i])->def;
      if (m->file == file && declared_in(m, scope, scope_len) && seen++ == indexes[d]) found = m;
    }
    if (!found) return NULL;
    scope = found->full_name;
    scope_len = strlen(scope);
  }
  return found;
}

const pbd_MessageDef *pbd_DefPool_Message(const pbd_DefPool *pool, size_t i) {
  return i < pool->msgs.len ? &((const MsgB *)pool->msgs.data[i])->def : NULL;
}

const pbd_FieldDef *pbd_MessageDef_FindFieldByNumber(const pbd_MessageDef *m, uint32_t number) {
  if (number < m->by_number_count) return m->by_number[number];
  size_t lo = 0, hi = m->field_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t n = m->fields[mid]->number;
    if (n == number) return m->fields[mid];
    if (n < number) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const pbd_FieldDef *pbd_MessageDef_FindFieldByName(const pbd_MessageDef *m, const char *name) {
  for (uint32_t i = 0; i < m->field_count; i++) {
    /* Extensions answer to their full name, fields to their short one. */
    const pbd_FieldDef *f = m->fields[i];
    if (strcmp(f->is_extension ? f->full_name : f->name, name) == 0) return f;
  }
  return NULL;
}

const pbd_EnumValueDef *pbd_EnumDef_FindValueByNumber(const pbd_EnumDef *e, int32_t number) {
  size_t lo = 0, hi = e->value_count;
  while (lo < hi) { /* lower bound: the first declared of equal numbers */
    size_t mid = lo + (hi - lo) / 2;
    if (e->by_number[mid]->number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < e->value_count && e->by_number[lo]->number == number ? e->by_number[lo] : NULL;
}

int pbd_FieldType_WireType(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Double: case kPbd_Type_Fixed64: case kPbd_Type_SFixed64:
      return kPbd_WireType_Fixed64;
    case kPbd_Type_Float: case kPbd_Type_Fixed32: case kPbd_Type_SFixed32:
      return kPbd_WireType_Fixed32;
    case kPbd_Type_Int64: case kPbd_Type_UInt64: case kPbd_Type_Int32: case kPbd_Type_Bool:
    case kPbd_Type_UInt32: case kPbd_Type_Enum: case kPbd_Type_SInt32: case kPbd_Type_SInt64:
      return kPbd_WireType_Varint;
    case kPbd_Type_String: case kPbd_Type_Message: case kPbd_Type_Bytes:
      return kPbd_WireType_Delimited;
    case kPbd_Type_Group:
      return kPbd_WireType_StartGroup;
  }
  return -1;
}

const char *pbd_FieldType_Name(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Double: return "double";
    case kPbd_Type_Float: return "float";
    case kPbd_Type_Int64: return "int64";
    case kPbd_Type_UInt64: return "uint64";
    case kPbd_Type_Int32: return "int32";
    case kPbd_Type_Fixed64: return "fixed64";
    case kPbd_Type_Fixed32: return "fixed32";
    case kPbd_Type_Bool: return "bool";
    case kPbd_Type_String: return "string";
    case kPbd_Type_Group: return "group";
    case kPbd_Type_Message: return "message";
    case kPbd_Type_Bytes: return "bytes";
    case kPbd_Type_UInt32: return "uint32";
    case kPbd_Type_Enum: return "enum";
    case kPbd_Type_SFixed32: return "sfixed32";
    case kPbd_Type_SFixed64: return "sfixed64";
    case kPbd_Type_SInt32: return "sint32";
    case kPbd_Type_SInt64: return "sint64";
  }
  return "unknown";
}

/* Running protoc: schema_protoc.c. */

void pbd_FieldDef_PrependPath(const pbd_FieldDef *fd, uint32_t number, uint32_t index,
                              pbd_Status *s) {
  char seg[32];
  if (!s) return;
  if (!fd) {
    snprintf(seg, sizeof seg, "%u", number);
    pbd_Status_PrependPath(s, seg);
    return;
  }
  if (fd->is_repeated && !fd->is_map) {
    snprintf(seg, sizeof seg, "[%u]", index);
    pbd_Status_PrependPath(s, seg);
  }
  if (fd->is_extension) {
    char ext[512];
    snprintf(ext, sizeof ext, "[%s]", fd->full_name);
    pbd_Status_PrependPath(s, ext);
  } else {
    pbd_Status_PrependPath(s, fd->name);
  }
}
