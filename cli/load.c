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
  free(s->views);
  memset(s, 0, sizeof *s); /* the pool stays in the cache */
}

/* ---- Inputs ---------------------------------------------------------------- */



static pbd_InputFormat guess_format(const char *name) {
  if (ends_with(name, ".textproto") || ends_with(name, ".txtpb") || ends_with(name, ".pbtxt"))
    return kPbd_InputFormat_TextProto;
  if (ends_with(name, ".json")) return kPbd_InputFormat_Json;
  return kPbd_InputFormat_Binary;
}

/* All n bytes written to fd. */
static bool write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

/* The schema's descriptor sets in a new file that protoc can read by name
 * (made by mkstemps, written through its descriptor; the caller unlinks
 * it), or NULL. */
static char *schema_file(const pbd_DefPool *pool) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir || strchr(dir, ':')) dir = "/tmp"; /* ':' separates protoc's sets */
  size_t n = strlen(dir) + 32, size;
  char *path = malloc(n);
  if (!path) return NULL;
  snprintf(path, n, "%s/pbdiff-XXXXXX.desc", dir);
  int fd = mkstemps(path, 5);
  const uint8_t *set = pbd_DefPool_DescriptorSetBytes(pool, &size);
  bool ok = fd >= 0 && write_all(fd, set, size);
  if (fd >= 0) close(fd);
  if (!ok) {
    if (fd >= 0) unlink(path);
    free(path);
    return NULL;
  }
  return path;
}

/* Text format to binary by running protoc --encode against the schema as it
 * was loaded (its descriptor sets, whatever -s, --proto and -I named, so no
 * directory of theirs reaches protoc's ':'-separated lists).  The text goes
 * in and protoc's messages come out through files without a name
 * (core/run.h); its message ("input:3:5: ...") becomes "FILE: line 3,
 * column 5: ...". */
static bool encode_text(const pbd_CliSchema *schema, const char *type, const uint8_t *p,
                        size_t n, pbd_Buf *out, const char *name, pbd_CliError *e) {
  pbd_Status rs;
  pbd_Status_Clear(&rs);
  char *set = schema_file(schema->pool);
  int in = pbd_Run_TempFile(&rs), msgs = in >= 0 ? pbd_Run_TempFile(&rs) : -1;
  bool ok = false;
  pbd_Buf type_arg = {0}, set_arg = {0};
  pbd_Buf_Printf(&type_arg, "--encode=%s", type);
  pbd_Buf_Printf(&set_arg, "--descriptor_set_in=%s", set ? set : "");
  if (!set || in < 0 || msgs < 0 || !write_all(in, p, n) || lseek(in, 0, SEEK_SET) != 0 ||
      type_arg.oom || set_arg.oom) {
    pbd_CliError_Set(e, false, "%s: cannot write a temporary file", name);
    goto done;
  }
  char *argv[] = {"protoc", type_arg.data, set_arg.data, NULL};
  pbd_RunIo io = {.stdin_fd = in, .stderr_fd = msgs, .capture = out,
                  .time_limit = pbd_Run_ProtocTimeLimit()};
  int rc = pbd_Run(argv, &io, "protobuf-compiler", &rs);
  if (rc < 0) {
    pbd_CliError_Set(e, false, "%s: %s", name, rs.msg);
  } else if (rc != 0) {
    pbd_Buf m = {0};
    pbd_Run_ReadFd(msgs, &m);
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
    ok = !out->oom;
    if (!ok) pbd_CliError_Set(e, false, "%s: out of memory reading protoc's output", name);
  }
done:
  if (in >= 0) close(in);
  if (msgs >= 0) close(msgs);
  if (set) unlink(set);
  free(set);
  pbd_Buf_Free(&type_arg);
  pbd_Buf_Free(&set_arg);
  return ok;
}

/* Whether the bytes split as Kafka values with a Confluent header (kcat
 * -f '%R%s'), one at least holding a value (zero bytes split as empty
 * values). */
static bool reads_as_kafka(const uint8_t *p, size_t n) {
  size_t *begin = NULL, *end = NULL, count = 0, values = 0;
  pbd_FramedMeta meta = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  bool ok = pbd_Input_SplitFramedMeta(kPbd_Framing_Confluent, p, n, 0, NULL, &begin, &end, &count,
                                      &meta, NULL, &s);
  for (size_t i = 0; ok && i < count; i++) values += meta.records[i].value == kPbd_RecordValue_Present;
  pbd_FramedMeta_Free(&meta);
  free(begin), free(end);
  return values > 0;
}

/* Whether bytes that failed to inflate read as they are: a stream that the
 * framing cuts whole (a first length of 31, then a tag 0x8b 0x08, begins
 * like gzip data).  One message never does: its first byte would be 0x1f,
 * wire type 7. */
static bool reads_raw(const pbd_CliOptions *o, const uint8_t *p, size_t n) {
  if (!o->delimited) return false;
  size_t *begin = NULL, *end = NULL, count = 0;
  pbd_Buf inflated = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  bool ok = pbd_Input_SplitFramed(o->framing ? o->framing : kPbd_Framing_Delimited, p, n,
                                  max_input(o), &inflated, &begin, &end, &count, &s);
  free(begin), free(end);
  pbd_Buf_Free(&inflated);
  return ok;
}

/* gzip inflated as --input-compression says: auto only where a whole gzip
 * header begins the input and the data inflates (or the bytes cannot be
 * read otherwise); the result replaces in's bytes. */
static bool decompress(const pbd_CliOptions *o, pbd_CliInput *in, pbd_Buf *owned,
                       pbd_CliError *e) {
  if (o->compression == kPbd_Compression_None) return true;
  bool header = pbd_Input_IsGzip(in->data, in->size);
  if (!header && o->compression == kPbd_Compression_Auto) return true;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!header) {
    pbd_CliError_Set(e, false, "%s: not gzip data (no valid gzip header at byte 0; "
                     "--input-compression gzip)", in->name);
    return false;
  }
  if (!pbd_Input_GunzipMax(in->data, in->size, owned, max_input(o), &s)) {
    if (o->compression == kPbd_Compression_Auto && s.code != kPbd_Status_TooLarge &&
        reads_raw(o, in->data, in->size))
      return true;
    pbd_CliError_FromStatus(e, in->name, &s);
    return false;
  }
  in->data = (const uint8_t *)(owned->data ? owned->data : "");
  in->size = owned->len;
  return true;
}

const pbd_MessageDef *pbd_Cli_RecordType(const pbd_CliInput *in, const pbd_CliSchema *schema,
                                        size_t i) {
  return in->types && in->types[i] ? in->types[i] : schema->type;
}

const pbd_StrView *pbd_Cli_KafkaKey(const pbd_CliInput *in, size_t i, pbd_StrView *view) {
  const pbd_FramedMeta *m = &in->meta;
  if (!m->keyed || !m->records || !m->records[i].has_key) return NULL;
  view->data = (const char *)m->base + m->records[i].key_begin;
  view->size = m->records[i].key_size;
  return view;
}

bool pbd_Cli_CheckKafkaKey(const pbd_CliOptions *o, const pbd_RecordKey *k, pbd_CliError *e) {
  if (!pbd_RecordKey_UsesKafkaKey(k) || o->framing == kPbd_Framing_ConfluentKeyed) return true;
  pbd_CliError_Set(e, true, "--record-key kafka-key needs the keys: --framing confluent-keyed "
                   "(kcat -f '%%K%%k%%R%%s')");
  return false;
}

/* Each Confluent record's type by its message indexes in the file that
 * declares the schema's type (the registered schema), where they name one;
 * NULL entries read as the type itself.  false only when out of memory. */
static bool record_types(const pbd_CliSchema *schema, pbd_CliInput *in) {
  const pbd_FramedMeta *m = &in->meta;
  if (!m->records || !schema->type || !in->nmsgs) return true;
  in->types = calloc(in->nmsgs, sizeof *in->types);
  if (!in->types) return false;
  enum { kCache = 8 }; /* a stream holds few index paths: the last ones found */
  const pbd_RecordMeta *seen[kCache] = {NULL};
  const pbd_MessageDef *seen_type[kCache] = {NULL};
  size_t nseen = 0;
  for (size_t i = 0; i < in->nmsgs; i++) {
    const pbd_RecordMeta *r = &m->records[i];
    if (!r->index_count) continue; /* no value */
    const uint32_t *path = m->indexes + r->first_index;
    size_t k = 0;
    while (k < nseen && !(seen[k]->index_count == r->index_count &&
                          !memcmp(m->indexes + seen[k]->first_index, path,
                                  sizeof *path * r->index_count)))
      k++;
    if (k == nseen) {
      k = nseen < kCache ? nseen++ : i % kCache;
      seen[k] = r;
      seen_type[k] = pbd_DefPool_FindMessageByIndexes(schema->pool, schema->type->file, path,
                                                      r->index_count);
    }
    in->types[i] = seen_type[k];
  }
  return true;
}

/* The framing's progress, for a corpus's file: what it has cut is given
 * back behind it. */
typedef struct {
  const pbd_CliInput *in;
  size_t from; /* given back up to here */
} ReleaseBehind;

static void release_behind(void *ctx, size_t n) {
  ReleaseBehind *r = ctx;
  pbd_Cli_ReleaseBehind(r->in, &r->from, n);
}

static bool read_input(const pbd_CliOptions *o, const pbd_CliSchema *schema, const char *path,
                       const char *display, pbd_InputFormat format,
                       const pbd_ReadOptions *topts, bool release, pbd_CliInput *in,
                       pbd_CliError *e) {
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
  if (!decompress(o, in, owned, e)) return false;
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
      ok = pbd_JsonPb_ToBinaryDepth(schema->pool, schema->type, (const char *)in->data,
                                     in->size, o->compare.read.max_depth, &bin, &s);
      s.has_offset = false; /* the message says where: "line L, column C" */
      if (!ok) pbd_CliError_FromStatus(e, in->name, &s);
    } else {
      ok = encode_text(schema, schema->type->full_name, in->data, in->size, &bin, in->name, e);
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
    ReleaseBehind behind = {in, 0};
    pbd_SplitProgress progress = {release_behind, &behind};
    if (!pbd_Input_SplitFramedMeta(f, in->data, in->size, max_input(o), &inflated, &in->begin,
                                   &in->end, &in->nmsgs, &in->meta, release ? &progress : NULL,
                                   &s)) {
      pbd_Buf_Free(&inflated);
      pbd_CliError_FromStatus(e, in->name, &s);
      if (f == kPbd_Framing_Delimited && reads_as_kafka(in->data, in->size))
        pbd_CliError_Hint(e, "it reads as Kafka values in the Confluent Schema Registry "
                             "format: --framing confluent");
      return false;
    }
    if (!record_types(schema, in)) {
      pbd_CliError_Set(e, false, "out of memory");
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
    in->roots[i] = pbd_Tree_Parse(pbd_Cli_RecordType(in, schema, i), in->data, in->begin[i],
                                  in->end[i], topts, in->arena, &s);
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

bool pbd_Cli_ReadInput(const pbd_CliOptions *o, const pbd_CliSchema *schema, int side,
                       const char *path, const char *display, pbd_InputFormat format,
                       const pbd_ReadOptions *topts, pbd_CliInput *in, pbd_CliError *e) {
  (void)side; /* the side's own schema is already in `schema` */
  return read_input(o, schema, path, display, format, topts, false, in, e);
}

bool pbd_Cli_ReadCorpusInput(const pbd_CliOptions *o, const pbd_CliSchema *schema,
                             const char *path, pbd_InputFormat format, pbd_CliInput *in,
                             pbd_CliError *e) {
  return read_input(o, schema, path, NULL, format, NULL, true, in, e);
}

void pbd_Cli_ReleaseInput(const pbd_CliInput *in, size_t begin, size_t end) {
  const pbd_Input *raw = in->input_;
  if (raw && raw->data == in->data) pbd_Input_Release(raw, begin, end);
}

enum { kReleaseStep = 4 << 20 };

void pbd_Cli_ReleaseBehind(const pbd_CliInput *in, size_t *from, size_t upto) {
  if (upto < *from || upto - *from < kReleaseStep) return;
  pbd_Cli_ReleaseInput(in, *from, upto);
  *from = upto;
}

void pbd_Cli_FreeInput(pbd_CliInput *in) {
  pbd_Arena_Free(in->arena);
  pbd_MemBudget_Free(in->budget_);
  free(in->begin);
  free(in->end);
  pbd_FramedMeta_Free(&in->meta);
  free(in->roots);
  free((void *)in->types);
  if (in->owned_) pbd_Buf_Free(in->owned_);
  free(in->owned_);
  if (in->input_) pbd_Input_Close(in->input_);
  free(in->input_);
  memset(in, 0, sizeof *in);
}

