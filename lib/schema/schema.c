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
  pbd_Arena_Free(pool->arena);
  free(pool);
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

/* ------------------------------------------------------------------------ */
/* Running protoc. */

static char *arena_cat(pbd_Arena *a, const char *x, const char *y) {
  size_t xl = strlen(x), yl = strlen(y);
  char *p = pbd_Arena_Malloc(a, xl + yl + 1);
  if (p) {
    memcpy(p, x, xl);
    memcpy(p + xl, y, yl + 1);
  }
  return p;
}

/* Drops "./" prefixes: protoc matches -I directories textually. */
static const char *skip_dot_slash(const char *p) {
  while (p[0] == '.' && p[1] == '/') {
    p += 2;
    while (*p == '/') p++;
  }
  return p;
}

/* Whether protoc would find `proto` (a path on disk) under directory `dir`. */
static bool dir_covers(const char *dir, const char *proto) {
  dir = skip_dot_slash(dir);
  proto = skip_dot_slash(proto);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n == 0 || (n == 1 && dir[0] == '.')) return proto[0] != '/';
  if (n == 1 && dir[0] == '/') return proto[0] == '/';
  return strncmp(dir, proto, n) == 0 && proto[n] == '/';
}

/* protoc's first error line (from the file its standard error went to),
 * with a hint when an import was not found. */
static void protoc_failure(const char *what, const char *err_path, pbd_Status *s) {
  char line[400] = "";
  FILE *f = fopen(err_path, "r");
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
  }
  line[strcspn(line, "\n")] = '\0';
  bool import = strstr(line, "File not found") || strstr(line, "was not found");
  pbd_Status_SetError(s, kPbd_Status_BadSchema, "protoc failed on %.200s%s%.300s%s", what,
                      line[0] ? ": " : "", line,
                      import ? " (add the directory that holds it with -I DIR)" : "");
}

/* Runs protoc (core/run.h): false with the status when it cannot run or
 * fails (then with the first line of what it said). */
static bool run_protoc(char *const argv[], const char *what, const char *err_path,
                       pbd_Status *s) {
  pbd_RunIo io = {.stderr_path = err_path};
  int rc = pbd_Run(argv, &io, "protobuf-compiler", s);
  if (rc < 0) return false;
  if (rc != 0) {
    protoc_failure(what, err_path, s);
    return false;
  }
  return true;
}

static uint8_t *read_whole(const char *path, size_t *n, pbd_Status *s) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot read %.300s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  size_t size = (size_t)st.st_size, len = 0;
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) {
    close(fd);
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory reading %.300s", path);
    return NULL;
  }
  while (len < size) {
    ssize_t k = read(fd, buf + len, size - len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot read %.300s: %s", path,
                          k < 0 ? strerror(errno) : "file shrank");
      free(buf);
      close(fd);
      return NULL;
    }
    len += (size_t)k;
  }
  close(fd);
  *n = len;
  return buf;
}

bool pbd_DefPool_AddProtoFiles(pbd_DefPool *pool, const char *const *protos, size_t nprotos,
                               const char *const *include_dirs, size_t ninclude,
                               pbd_Status *s) {
  pbd_Status dummy;
  if (!s) s = &dummy;
  if (nprotos == 0) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "no .proto file given");
    return false;
  }
  /* Every string of the command line lives in a scratch arena. */
  pbd_Arena *a = pbd_Arena_New();
  size_t max = 5 + ninclude + 2 * nprotos + 1;
  char **argv = a && max < SIZE_MAX / sizeof(char *) ? pbd_Arena_Malloc(a, max * sizeof *argv)
                                                      : NULL;
  const char **dirs = argv ? pbd_Arena_Malloc(a, (ninclude + nprotos + 2) * sizeof *dirs) : NULL;
  if (!dirs) {
    pbd_Arena_Free(a);
    return pbd_SchemaPool_Oom(s);
  }
  size_t argc = 0, ndirs = 0;
  bool ok = true;
  argv[argc++] = "protoc";
  argv[argc++] = "--include_imports";
  for (size_t i = 0; i < ninclude; i++) {
    dirs[ndirs++] = include_dirs[i];
    ok = ok && (argv[argc++] = arena_cat(a, "-I", include_dirs[i]));
  }
  dirs[ndirs++] = "/usr/include";
  /* protoc refuses an input outside every -I; give such a file its own
   * directory (only when it exists: else it may name a file relative to
   * an -I, which protoc also accepts). */
  for (size_t i = 0; ok && i < nprotos; i++) {
    bool covered = false;
    for (size_t j = 0; j < ndirs && !covered; j++) covered = dir_covers(dirs[j], protos[i]);
    if (covered || access(protos[i], F_OK) != 0) continue;
    const char *slash = strrchr(protos[i], '/');
    char *dir = !slash                ? pbd_Arena_Strndup(a, ".", 1)
                : slash == protos[i] ? pbd_Arena_Strndup(a, "/", 1)
                                      : pbd_Arena_Strndup(a, protos[i],
                                                          (size_t)(slash - protos[i]));
    ok = dir && (argv[argc++] = arena_cat(a, "-I", dir));
    dirs[ndirs++] = dir;
  }
  argv[argc++] = "-I/usr/include";
  const char *tmpdir = getenv("TMPDIR");
  char *tmp = arena_cat(a, tmpdir && *tmpdir ? tmpdir : "/tmp", "/pbdiff-protoc-XXXXXX");
  char *oarg = NULL;
  char *what = pbd_Arena_Calloc(a, 320);
  if (!ok || !tmp || !what) {
    pbd_Arena_Free(a);
    return pbd_SchemaPool_Oom(s);
  }
  for (size_t i = 0; i < nprotos; i++) {
    size_t used = strlen(what);
    snprintf(what + used, 320 - used, "%s%s", i ? ", " : "", protos[i]);
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot create a temporary file in %.300s: %s",
                        tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    pbd_Arena_Free(a);
    return false;
  }
  close(fd);
  ok = (oarg = arena_cat(a, "-o", tmp)) != NULL;
  if (ok) {
    argv[argc++] = oarg;
    for (size_t i = 0; i < nprotos; i++) argv[argc++] = (char *)protos[i];
    argv[argc] = NULL;
    char *err_path = arena_cat(a, tmp, ".err");
    ok = err_path && run_protoc(argv, what, err_path, s);
    if (err_path) unlink(err_path);
  } else {
    pbd_SchemaPool_Oom(s);
  }
  size_t n = 0;
  uint8_t *data = ok ? read_whole(tmp, &n, s) : NULL;
  unlink(tmp);
  if (data) ok = pbd_DefPool_AddFileDescriptorSet(pool, data, n, what, s);
  else ok = false;
  free(data);
  pbd_Arena_Free(a);
  return ok;
}

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
