/* pbdiff CLI — what the commands read: schemas (loaded once, cached for all
 * threads) and inputs as the command line names them (mapped; gzip, text
 * format and JSON decoded; --skip-prefix; --delimited split).  Errors go
 * up in a pbd_CliError. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff/core/run.h"
#include "pbdiff/inputs/decode.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/inputs/jsonpb.h"
#include "pbdiff/pbdiff.h"

/* ---- Schema cache ---------------------------------------------------------- */

/* Loaded pools by the list of files they came from, shared by all threads
 * (directory comparisons load each schema once). */
typedef struct CacheEntry {
  struct CacheEntry *next;
  char *key;
  pbd_DefPool *pool;
} CacheEntry;

static CacheEntry *g_cache;
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

void pbd_Cli_ClearSchemaCache(void) {
  pthread_mutex_lock(&g_cache_lock);
  while (g_cache) {
    CacheEntry *e = g_cache;
    g_cache = e->next;
    pbd_DefPool_Free(e->pool);
    free(e->key);
    free(e);
  }
  pthread_mutex_unlock(&g_cache_lock);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The most an input (or a schema file) may hold, from --max-input-bytes. */
static size_t max_input(const pbd_CliOptions *o) {
  return o->max_input > 0 ? (size_t)o->max_input : PBD_DEFAULT_MAX_INPUT_BYTES;
}

static pbd_DefPool *load_pool(size_t max, const pbd_StrList *sets, const pbd_StrList *protos,
                              const pbd_StrList *includes, pbd_CliError *e) {
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!pool) {
    pbd_CliError_Set(e, false, "out of memory");
    return NULL;
  }
  const char **more = malloc(sizeof *more * (sets->n + protos->n + 1));
  size_t nmore = 0;
  if (!more) goto fail_oom;
  for (size_t i = 0; i < protos->n; i++) more[nmore++] = protos->v[i];
  for (size_t i = 0; i < sets->n; i++) {
    if (ends_with(sets->v[i], ".proto")) { /* --left-schema x.proto */
      more[nmore++] = sets->v[i];
      continue;
    }
    pbd_Input in;
    if (!pbd_Input_OpenMax(&in, sets->v[i], max, &s)) {
      pbd_CliError_FromStatus(e, sets->v[i], &s);
      goto fail;
    }
    bool ok = pbd_DefPool_AddFileDescriptorSet(pool, in.data, in.size, sets->v[i], &s);
    pbd_Input_Close(&in);
    if (!ok) {
      /* the loader's messages already start with the set's name */
      char msg[1400];
      pbd_Status_Format(&s, NULL, msg, sizeof msg);
      pbd_CliError_Set(e, false, "%s%s", msg,
              ends_with(sets->v[i], ".proto")
                  ? " (-s wants a descriptor set; use --proto for .proto files)"
                  : "");
      goto fail;
    }
  }
  if (nmore && !pbd_DefPool_AddProtoFiles(pool, more, nmore, includes->v, includes->n, &s)) {
    pbd_CliError_FromStatus(e, NULL, &s);
    goto fail;
  }
  if (!pbd_DefPool_Finalize(pool, &s)) {
    pbd_CliError_FromStatus(e, "schema", &s);
    goto fail;
  }
  free(more);
  return pool;
fail_oom:
  pbd_CliError_Set(e, false, "out of memory");
fail:
  free(more);
  pbd_DefPool_Free(pool);
  return NULL;
}

static pbd_DefPool *cached_pool(size_t max, const pbd_StrList *sets, const pbd_StrList *protos,
                                const pbd_StrList *includes, pbd_CliError *e) {
  pbd_Buf key = {0};
  const pbd_StrList *lists[3] = {sets, protos, includes};
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < lists[k]->n; i++) {
      pbd_Buf_AppendStr(&key, lists[k]->v[i]);
      pbd_Buf_AppendChar(&key, '\n');
    }
    pbd_Buf_AppendChar(&key, '\t');
  }
  if (key.oom) {
    pbd_CliError_Set(e, false, "out of memory");
    return NULL;
  }
  pthread_mutex_lock(&g_cache_lock);
  pbd_DefPool *pool = NULL;
  for (CacheEntry *ce = g_cache; ce && !pool; ce = ce->next)
    if (strcmp(ce->key, key.data) == 0) pool = ce->pool;
  if (!pool) {
    /* loaded under the lock: two threads never compile one schema twice */
    pool = load_pool(max, sets, protos, includes, e);
    CacheEntry *ce = pool ? calloc(1, sizeof *ce) : NULL;
    if (ce) {
      ce->key = key.data;
      key.data = NULL;
      ce->pool = pool;
      ce->next = g_cache;
      g_cache = ce;
    } else if (pool) {
      pbd_DefPool_Free(pool);
      pool = NULL;
      pbd_CliError_Set(e, false, "out of memory");
    }
  }
  pthread_mutex_unlock(&g_cache_lock);
  pbd_Buf_Free(&key);
  return pool;
}

/* The schema's message type a --type most likely meant: the one whose
 * name without its package is the name given (`ModelProto` for
 * onnx.ModelProto), else the closest full name. */
static const char *closest_type(const pbd_DefPool *pool, const char *type) {
  size_t n = pbd_DefPool_MessageCount(pool);
  const char **names = malloc(sizeof *names * (n + 1));
  if (!names) return NULL;
  const char *given = strrchr(type, '.') ? strrchr(type, '.') + 1 : type;
  for (size_t i = 0; i < n; i++) {
    const char *full = pbd_DefPool_Message(pool, i)->full_name;
    names[i] = strrchr(full, '.') ? strrchr(full, '.') + 1 : full; /* without the package */
  }
  const char *c = pbd_Cli_Closest(given, names, n); /* the same name, or a typo in it */
  const char *found = NULL;
  for (size_t i = 0; i < n && c && !found; i++)
    if (names[i] == c) found = pbd_DefPool_Message(pool, i)->full_name;
  free((void *)names);
  return found;
}

bool pbd_Cli_LoadSchema(const pbd_CliOptions *o, int side, pbd_CliSchema *out, pbd_CliError *e) {
  memset(out, 0, sizeof *out);
  const pbd_StrList *sets = &o->schemas, *protos = &o->protos;
  const pbd_StrList *own = side == 1 ? &o->left_schemas : side == 2 ? &o->right_schemas : NULL;
  static const pbd_StrList kNone = {NULL, 0};
  if (own && own->n) sets = own, protos = &kNone;
  const char *type = o->type;
  if (side == 1 && o->left_type) type = o->left_type;
  if (side == 2 && o->right_type) type = o->right_type;
  if (sets->n || protos->n) {
    if (!type) {
      pbd_CliError_Set(e, true, "a schema needs --type, e.g. -t onnx.ModelProto");
      return false;
    }
    if (!(out->pool = cached_pool(max_input(o), sets, protos, &o->includes, e))) return false;
    out->type = pbd_DefPool_FindMessageByName(out->pool, type);
    if (!out->type) {
      const char *c = closest_type(out->pool, type);
      pbd_CliError_Set(e, false, "message type '%s' is not in the schema%s%s%s", type,
                       c ? " (did you mean " : "", c ? c : "", c ? "?)" : "");
      return false;
    }
  } else if (type) {
    pbd_CliError_Set(e, true, "--type needs a schema (-s or --proto)");
    return false;
  }
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (pbd_Cli_ResolveRules(o, out, &s)) return true;
  pbd_CliError_Set(e, false, "%s", s.msg);
  return false;
}

void pbd_Cli_FreeSchema(pbd_CliSchema *s) {
  free(s->rules);
  free(s->ignores);
  free(s->tolerances);
  free(s->tolerance_scopes);
  memset(s, 0, sizeof *s); /* the pool stays in the cache */
}

/* ---- Inputs ---------------------------------------------------------------- */



static pbd_InputFormat guess_format(const char *name) {
  if (ends_with(name, ".textproto") || ends_with(name, ".txtpb") || ends_with(name, ".pbtxt"))
    return kPbd_InputFormat_TextProto;
  if (ends_with(name, ".json")) return kPbd_InputFormat_Json;
  return kPbd_InputFormat_Binary;
}

static char *make_temp(const char *suffix) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  size_t n = strlen(dir) + 32;
  char *path = malloc(n);
  if (!path) return NULL;
  snprintf(path, n, "%s/pbdiff-XXXXXX%s", dir, suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0) {
    free(path);
    return NULL;
  }
  close(fd);
  return path;
}

static bool write_file(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static bool slurp(const char *path, pbd_Buf *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char chunk[1 << 16];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) pbd_Buf_Append(out, chunk, k);
  fclose(f);
  return !out->oom;
}

/* Text format to binary by running protoc --encode with the schema's own
 * files.  protoc's message ("input:3:5: ...") becomes "FILE: line 3,
 * column 5: ...". */
static bool encode_text(const pbd_CliOptions *o, int side, const char *type, const uint8_t *p,
                        size_t n, pbd_Buf *out, const char *name, pbd_CliError *e) {
  char *in = make_temp(".txtpb"), *bin = make_temp(".pb"), *msgs = make_temp(".err");
  bool ok = false;
  const char **argv = NULL;
  pbd_Buf sets = {0}, type_arg = {0};
  if (!in || !bin || !msgs || !write_file(in, p, n)) {
    pbd_CliError_Set(e, false, "%s: cannot write a temporary file", name);
    goto done;
  }
  static const pbd_StrList kNone = {NULL, 0};
  const pbd_StrList *own = side == 1 ? &o->left_schemas : side == 2 ? &o->right_schemas : &kNone;
  const pbd_StrList *schemas = own->n ? own : &o->schemas;
  const pbd_StrList *protos = own->n ? own : &o->protos; /* own lists mix .desc and .proto */
  size_t cap = 8 + schemas->n + 2 * protos->n + o->includes.n;
  argv = calloc(cap, sizeof *argv);
  if (!argv) goto done;
  size_t k = 0;
  argv[k++] = "protoc";
  pbd_Buf_Printf(&type_arg, "--encode=%s", type);
  argv[k++] = type_arg.data;
  bool have_sets = false;
  char *copies[64] = {NULL}; /* sets whose path holds ':', protoc's separator */
  size_t ncopies = 0;
  for (size_t i = 0; i < schemas->n; i++) {
    if (ends_with(schemas->v[i], ".proto")) continue;
    const char *path = schemas->v[i];
    if (strchr(path, ':')) { /* given to protoc as a copy at a path without one */
      pbd_Buf bytes = {0};
      char *copy = ncopies < 64 ? make_temp(".desc") : NULL;
      bool copied = copy && slurp(path, &bytes) &&
                    write_file(copy, (const uint8_t *)(bytes.data ? bytes.data : ""), bytes.len);
      pbd_Buf_Free(&bytes);
      if (!copied) {
        if (copy) unlink(copy);
        free(copy);
        pbd_CliError_Set(e, false, "%s: cannot copy %s for protoc", name, path);
        goto done_copies;
      }
      path = copies[ncopies++] = copy;
    }
    pbd_Buf_AppendStr(&sets, have_sets ? ":" : "--descriptor_set_in=");
    pbd_Buf_AppendStr(&sets, path);
    have_sets = true;
  }
  if (have_sets) argv[k++] = sets.data;
  char **incs = calloc(o->includes.n + protos->n + 2, sizeof *incs);
  if (!incs) goto done;
  size_t ni = 0;
  bool any_proto = false;
  for (size_t i = 0; i < protos->n; i++) any_proto |= ends_with(protos->v[i], ".proto");
  if (any_proto) {
    for (size_t i = 0; i < o->includes.n; i++) {
      size_t len = strlen(o->includes.v[i]) + 3;
      incs[ni] = malloc(len);
      if (incs[ni]) snprintf(incs[ni], len, "-I%s", o->includes.v[i]), argv[k++] = incs[ni++];
    }
    /* each .proto's own directory, so that protoc finds it as it is named */
    for (size_t i = 0; i < protos->n; i++) {
      if (!ends_with(protos->v[i], ".proto")) continue;
      const char *slash = strrchr(protos->v[i], '/');
      size_t dl = slash ? (size_t)(slash - protos->v[i]) : 1;
      incs[ni] = malloc(dl + 3);
      if (!incs[ni]) continue;
      snprintf(incs[ni], dl + 3, "-I%.*s", (int)dl, slash ? protos->v[i] : ".");
      argv[k++] = incs[ni++];
    }
    argv[k++] = "-I/usr/include";
    for (size_t i = 0; i < protos->n && k + 1 < cap; i++)
      if (ends_with(protos->v[i], ".proto")) argv[k++] = protos->v[i];
  }
  argv[k] = NULL;
  pbd_RunIo io = {in, bin, msgs, NULL, false};
  pbd_Status rs;
  pbd_Status_Clear(&rs);
  int rc = pbd_Run((char *const *)argv, &io, "protobuf-compiler", &rs);
  if (rc < 0) {
    pbd_CliError_Set(e, false, "%s: %s", name, rs.msg);
  } else if (rc != 0) {
    pbd_Buf m = {0};
    slurp(msgs, &m);
    const char *text = m.data ? m.data : "";
    unsigned line = 0, col = 0;
    char *save = NULL;
    const char *colon = strstr(text, "input:");
    char rest[600] = "";
    if (colon && sscanf(colon, "input:%u:%u: %599[^\n]", &line, &col, rest) == 3)
      pbd_CliError_Set(e, false, "%s: line %u, column %u: %s", name, line, col, rest);
    else
      pbd_CliError_Set(e, false, "%s: not valid text format for %s: %.300s", name, type,
              text[0] ? strtok_r(m.data, "\n", &save) : "protoc failed");
    pbd_Buf_Free(&m);
  } else {
    ok = slurp(bin, out);
    if (!ok) pbd_CliError_Set(e, false, "%s: cannot read protoc's output", name);
  }
  for (size_t i = 0; i < ni; i++) free(incs[i]);
  free(incs);
done_copies:
  for (size_t i = 0; i < ncopies; i++) unlink(copies[i]), free(copies[i]);
done:
  if (in) unlink(in);
  if (bin) unlink(bin);
  if (msgs) unlink(msgs);
  free(in), free(bin), free(msgs);
  free((void *)argv);
  pbd_Buf_Free(&sets);
  pbd_Buf_Free(&type_arg);
  return ok;
}

bool pbd_Cli_ReadInput(const pbd_CliOptions *o, const pbd_CliSchema *schema, int side,
                       const char *path, const char *display, pbd_InputFormat format,
                       const pbd_ReadOptions *topts, pbd_CliInput *in, pbd_CliError *e) {
  memset(in, 0, sizeof *in);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Input *raw = calloc(1, sizeof *raw);
  pbd_Buf *owned = calloc(1, sizeof *owned);
  in->input_ = raw;
  in->owned_ = owned;
  if (!raw || !owned) {
    pbd_CliError_Set(e, false, "out of memory");
    return false;
  }
  if (!pbd_Input_OpenMax(raw, path, max_input(o), &s)) {
    in->name = display ? display : pbd_Input_DisplayName(raw);
    pbd_CliError_FromStatus(e, in->name, &s);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) pbd_CliError_Hint(e, "to compare directories, use -r");
    return false;
  }
  in->name = display ? display : pbd_Input_DisplayName(raw);
  in->data = raw->data;
  in->size = raw->size;
  if (pbd_Input_IsGzip(in->data, in->size)) {
    if (!pbd_Input_GunzipMax(in->data, in->size, owned, max_input(o), &s)) {
      pbd_CliError_FromStatus(e, in->name, &s);
      return false;
    }
    in->data = (const uint8_t *)(owned->data ? owned->data : "");
    in->size = owned->len;
  }
  if (o->skip_prefix > 0) {
    if ((unsigned long long)o->skip_prefix > in->size) {
      pbd_CliError_Set(e, false, "%s: %zu bytes, shorter than --skip-prefix %lld", in->name, in->size,
              o->skip_prefix);
      return false;
    }
    in->data += o->skip_prefix;
    in->size -= (size_t)o->skip_prefix;
  }
  if (format == kPbd_InputFormat_Guess) format = guess_format(in->name);
  if (format != kPbd_InputFormat_Binary) {
    if (!schema->type) {
      pbd_CliError_Set(e, false, "%s: a %s input needs a schema and --type", in->name,
              format == kPbd_InputFormat_Json ? "JSON" : "text-format");
      return false;
    }
    if (o->delimited) {
      pbd_CliError_Set(e, false, "%s: --delimited reads binary inputs only", in->name);
      return false;
    }
    if (!pbd_Cli_NoConflictMarkers(in->name, in->data, in->size, e)) return false;
    pbd_Buf bin = {0};
    bool ok;
    if (format == kPbd_InputFormat_Json) {
      ok = pbd_JsonPb_ToBinary(schema->pool, schema->type, (const char *)in->data, in->size, &bin, &s);
      if (!ok) pbd_CliError_FromStatus(e, in->name, &s);
    } else {
      ok = encode_text(o, side, schema->type->full_name, in->data, in->size, &bin, in->name, e);
    }
    if (!ok) {
      pbd_Buf_Free(&bin);
      return false;
    }
    pbd_Buf_Free(owned);
    *owned = bin;
    in->data = (const uint8_t *)(owned->data ? owned->data : "");
    in->size = owned->len;
  }
  in->arena = pbd_Arena_New();
  /* the trees of `cat` and --explain are bound as a comparison's walk is */
  in->budget_ = pbd_MemBudget_New(pbd_CompareOptions_MaxMemory(&o->compare, in->size, 0));
  if (in->arena) pbd_Arena_SetBudget(in->arena, in->budget_);
  if (!in->arena || !in->budget_) {
    pbd_CliError_Set(e, false, "out of memory");
    return false;
  }
  if (o->delimited) {
    pbd_Framing f = o->framing ? o->framing : kPbd_Framing_Delimited;
    pbd_Buf inflated = {0}; /* gRPC messages that were compressed */
    if (!pbd_Input_SplitFramedMeta(f, in->data, in->size, max_input(o), &inflated, &in->begin,
                                   &in->end, &in->nmsgs, &in->meta, &s)) {
      pbd_Buf_Free(&inflated);
      pbd_CliError_FromStatus(e, in->name, &s);
      return false;
    }
    if (inflated.data) { /* the spans are in the inflated messages */
      pbd_Buf_Free(owned);
      *owned = inflated;
      in->data = (const uint8_t *)owned->data;
      in->size = owned->len;
    }
  } else {
    in->begin = malloc(sizeof *in->begin);
    in->end = malloc(sizeof *in->end);
    if (!in->begin || !in->end) {
      pbd_CliError_Set(e, false, "out of memory");
      return false;
    }
    in->begin[0] = 0;
    in->end[0] = in->size;
    in->nmsgs = 1;
  }
  if (!topts) return true; /* ranges only: the caller hashes or compares them */
  in->roots = calloc(in->nmsgs ? in->nmsgs : 1, sizeof *in->roots);
  if (!in->roots) {
    pbd_CliError_Set(e, false, "out of memory");
    return false;
  }
  for (size_t i = 0; i < in->nmsgs; i++) {
    in->roots[i] = pbd_Tree_Parse(schema->type, in->data, in->begin[i], in->end[i], topts,
                                  in->arena, &s);
    if (!in->roots[i]) {
      if (o->delimited) {
        char seg[32];
        snprintf(seg, sizeof seg, "[%zu]", i);
        pbd_Status_PrependPath(&s, seg);
      }
      if (pbd_MemBudget_Exceeded(in->budget_)) pbd_MemBudget_SayExceeded(in->budget_, &s);
      pbd_CliError_FromStatus(e, in->name, &s);
      return false;
    }
  }
  return true;
}

void pbd_Cli_FreeInput(pbd_CliInput *in) {
  pbd_Arena_Free(in->arena);
  pbd_MemBudget_Free(in->budget_);
  free(in->begin);
  free(in->end);
  pbd_FramedMeta_Free(&in->meta);
  free(in->roots);
  if (in->owned_) pbd_Buf_Free(in->owned_);
  free(in->owned_);
  if (in->input_) pbd_Input_Close(in->input_);
  free(in->input_);
  memset(in, 0, sizeof *in);
}

