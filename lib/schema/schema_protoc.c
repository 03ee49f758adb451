/* pbdiff — .proto sources compiled by running protoc (schema.h,
 * pbd_DefPool_AddProtoFiles).
 *
 * protoc reads the descriptor set it writes from standard output (never a
 * file of ours opened by name) and says what went wrong on standard error,
 * which goes to a file without a name (core/run.h).  protoc splits -I
 * directories at ':', so a directory whose name holds one is given to it
 * as a symbolic link without one, in a private directory made for the run:
 * the files keep the names they have relative to it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/run.h"
#include "pbdiff/schema/schema.h"
#include "schema/schema_pool.h"

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

/* Where `proto` (a path on disk) continues under directory `dir` as protoc
 * matches them: the rest after the directory ("/sub/a.proto", or the whole
 * relative path under "."), or NULL when dir does not hold it. */
static const char *covered_rest(const char *dir, const char *proto) {
  dir = skip_dot_slash(dir);
  proto = skip_dot_slash(proto);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n == 0 || (n == 1 && dir[0] == '.')) return proto[0] != '/' ? proto : NULL;
  if (n == 1 && dir[0] == '/') return proto[0] == '/' ? proto : NULL;
  return strncmp(dir, proto, n) == 0 && proto[n] == '/' ? proto + n : NULL;
}

/* The private directory of links to directories whose names hold ':'. */
typedef struct {
  pbd_Arena *a;
  char *dir;     /* NULL until the first link */
  size_t count;  /* links d0, d1, ... made in it */
  pbd_Status *s;
  const char *from[64], *to[64]; /* the directories linked, and their links */
} Links;

/* dir as protoc can be given it: itself, or a link to it without ':'
 * (NULL with the status set when the link cannot be made). */
static const char *colon_free(Links *l, const char *dir) {
  if (!strchr(dir, ':')) return dir;
  for (size_t i = 0; i < l->count; i++) /* one link per directory */
    if (!strcmp(l->from[i], dir)) return l->to[i];
  if (l->count == 64) {
    pbd_Status_SetError(l->s, kPbd_Status_Usage, "more than 64 directories with ':' in their names");
    return NULL;
  }
  if (!l->dir) {
    const char *tmpdir = getenv("TMPDIR");
    char *t = arena_cat(l->a, tmpdir && *tmpdir ? tmpdir : "/tmp", "/pbdiff-protoc-XXXXXX");
    if (!t || !mkdtemp(t)) {
      pbd_Status_SetError(l->s, kPbd_Status_Io, "cannot create a temporary directory: %s",
                          strerror(errno));
      return NULL;
    }
    l->dir = t;
  }
  char cwd[PATH_MAX] = "";
  if (dir[0] != '/' && !getcwd(cwd, sizeof cwd)) {
    pbd_Status_SetError(l->s, kPbd_Status_Io, "cannot read the current directory: %s",
                        strerror(errno));
    return NULL;
  }
  char name[32];
  snprintf(name, sizeof name, "/d%zu", l->count);
  char *link = arena_cat(l->a, l->dir, name);
  char *target = dir[0] == '/' ? (char *)dir : arena_cat(l->a, cwd, "/");
  if (target && dir[0] != '/') target = arena_cat(l->a, target, dir);
  if (!link || !target) {
    pbd_SchemaPool_Oom(l->s);
    return NULL;
  }
  if (symlink(target, link) != 0) {
    pbd_Status_SetError(l->s, kPbd_Status_Io, "cannot link to %.300s: %s", dir, strerror(errno));
    return NULL;
  }
  l->from[l->count] = dir;
  l->to[l->count++] = link;
  return link;
}

static void remove_links(Links *l) {
  if (!l->dir) return;
  for (size_t i = 0; i < l->count; i++) {
    char name[32];
    snprintf(name, sizeof name, "/d%zu", i);
    char *link = arena_cat(l->a, l->dir, name);
    if (link) unlink(link);
  }
  rmdir(l->dir);
}

/* protoc's first error line, with a hint when an import was not found. */
static void protoc_failure(const char *what, int err_fd, pbd_Status *s) {
  pbd_Buf err = {0};
  char line[400] = "";
  if (err_fd >= 0 && pbd_Run_ReadFd(err_fd, &err) && err.data)
    snprintf(line, sizeof line, "%.*s", (int)strcspn(err.data, "\n"), err.data);
  pbd_Buf_Free(&err);
  bool import = strstr(line, "File not found") || strstr(line, "was not found");
  pbd_Status_SetError(s, kPbd_Status_BadSchema, "protoc failed on %.200s%s%.300s%s", what,
                      line[0] ? ": " : "", line,
                      import ? " (add the directory that holds it with -I DIR)" : "");
}

/* The command line: protoc --include_imports -I... -o/dev/stdout FILES,
 * every directory and file as protoc can read it (colon_free). */
static char **protoc_argv(Links *l, const char *const *protos, size_t nprotos,
                          const char *const *include_dirs, size_t ninclude) {
  pbd_Arena *a = l->a;
  size_t max = 5 + ninclude + 2 * nprotos + 1;
  char **argv = max < SIZE_MAX / sizeof(char *) ? pbd_Arena_Malloc(a, max * sizeof *argv) : NULL;
  if (!argv) return NULL;
  size_t argc = 0;
  argv[argc++] = "protoc";
  argv[argc++] = "--include_imports";
  const char **incs = pbd_Arena_Malloc(a, (ninclude + 1) * sizeof *incs);
  if (!incs) return NULL;
  for (size_t i = 0; i < ninclude; i++) {
    if (!(incs[i] = colon_free(l, include_dirs[i]))) return NULL;
    if (!(argv[argc++] = arena_cat(a, "-I", incs[i]))) return NULL;
  }
  char **files = pbd_Arena_Malloc(a, (nprotos + 1) * sizeof *files);
  if (!files) return NULL;
  /* the -I directories: the given ones, then the files' own directories */
  const char **dirs = pbd_Arena_Malloc(a, (ninclude + nprotos + 1) * sizeof *dirs);
  const char **mapped = pbd_Arena_Malloc(a, (ninclude + nprotos + 1) * sizeof *mapped);
  if (!dirs || !mapped) return NULL;
  size_t ndirs = ninclude;
  for (size_t i = 0; i < ninclude; i++) dirs[i] = include_dirs[i], mapped[i] = incs[i];
  for (size_t i = 0; i < nprotos; i++) {
    const char *p = protos[i], *rest = NULL;
    size_t j = 0;
    for (; j < ndirs && !rest; j++) rest = covered_rest(dirs[j], p);
    if (rest) { /* named under the -I that holds it, linked or not */
      const char *d = mapped[j - 1];
      files[i] = d == dirs[j - 1]
                     ? (char *)p
                     : arena_cat(a, d, rest[0] == '/' ? rest : "/");
      if (files[i] && rest[0] != '/') files[i] = arena_cat(a, files[i], rest);
    } else if (covered_rest("/usr/include", p) || access(p, F_OK) != 0) {
      /* under the system directory, or a name relative to an -I */
      files[i] = (char *)p;
    } else {
      /* protoc refuses an input outside every -I: the file's own directory */
      const char *slash = strrchr(p, '/');
      char *dir = !slash        ? pbd_Arena_Strndup(a, ".", 1)
                  : slash == p ? pbd_Arena_Strndup(a, "/", 1)
                                : pbd_Arena_Strndup(a, p, (size_t)(slash - p));
      const char *d = dir ? colon_free(l, dir) : NULL;
      if (!d) return NULL;
      if (!(argv[argc++] = arena_cat(a, "-I", d))) return NULL;
      dirs[ndirs] = dir, mapped[ndirs++] = d;
      /* (a name without '/' is in ".", which holds no ':') */
      files[i] = d == dir ? (char *)p : arena_cat(a, d, slash);
    }
    if (!files[i]) return NULL;
  }
  argv[argc++] = "-I/usr/include";
  argv[argc++] = "-o/dev/stdout";
  for (size_t i = 0; i < nprotos; i++) argv[argc++] = files[i];
  argv[argc] = NULL;
  return argv;
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
  char *what = a ? pbd_Arena_Calloc(a, 320) : NULL;
  if (!what) {
    pbd_Arena_Free(a);
    return pbd_SchemaPool_Oom(s);
  }
  for (size_t i = 0; i < nprotos; i++) {
    size_t used = strlen(what);
    snprintf(what + used, 320 - used, "%s%s", i ? ", " : "", protos[i]);
  }
  Links links = {.a = a, .s = s};
  pbd_Status_Clear(s);
  char **argv = protoc_argv(&links, protos, nprotos, include_dirs, ninclude);
  bool ok = argv != NULL;
  if (!ok && s->code == kPbd_Status_Ok) pbd_SchemaPool_Oom(s);
  int err_fd = ok ? pbd_Run_TempFile(s) : -1;
  pbd_Buf set = {0};
  if (ok && err_fd < 0) ok = false;
  if (ok) {
    pbd_RunIo io = {.stderr_fd = err_fd, .capture = &set, .time_limit = pbd_Run_ProtocTimeLimit()};
    int rc = pbd_Run(argv, &io, "protobuf-compiler", s);
    if (rc != 0) {
      if (rc > 0) protoc_failure(what, err_fd, s);
      ok = false;
    } else if (set.oom) {
      ok = pbd_SchemaPool_Oom(s);
    }
  }
  if (err_fd >= 0) close(err_fd);
  remove_links(&links);
  if (ok)
    ok = pbd_DefPool_AddFileDescriptorSet(pool, (const uint8_t *)(set.data ? set.data : ""),
                                          set.len, what, s);
  pbd_Buf_Free(&set);
  pbd_Arena_Free(a);
  return ok;
}
