/* pbdiff CLI — schemas (cached), inputs (mapped; gzip, text format, JSON
 * decoded), and the comparison of one pair of inputs. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "core/run.h"
#include "inputs/decode.h"
#include "pbdiff.h"
#include "explain/explain.h"
#include "inputs/input.h"
#include "inputs/jsonpb.h"
#include "wire/wire.h"

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

void pbd_Cli_PrintStatus(FILE *err, const char *name, const pbd_Status *s) {
  char msg[1400];
  pbd_Status_Format(s, name, msg, sizeof msg);
  fprintf(err, "pbdiff: %s\n", msg);
}

/* Loads descriptor sets (and .proto files among them, compiled by protoc)
 * into a new finalized pool. */
static pbd_DefPool *load_pool(const pbd_StrList *sets, const pbd_StrList *protos,
                              const pbd_StrList *includes, FILE *err) {
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!pool) {
    fprintf(err, "pbdiff: out of memory\n");
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
    if (!pbd_Input_Open(&in, sets->v[i], &s)) {
      pbd_Cli_PrintStatus(err, sets->v[i], &s);
      goto fail;
    }
    bool ok = pbd_DefPool_AddFileDescriptorSet(pool, in.data, in.size, sets->v[i], &s);
    pbd_Input_Close(&in);
    if (!ok) {
      /* the loader's messages already start with the set's name */
      char msg[1400];
      pbd_Status_Format(&s, NULL, msg, sizeof msg);
      fprintf(err, "pbdiff: %s%s\n", msg,
              ends_with(sets->v[i], ".proto")
                  ? " (-s wants a descriptor set; use --proto for .proto files)"
                  : "");
      goto fail;
    }
  }
  if (nmore && !pbd_DefPool_AddProtoFiles(pool, more, nmore, includes->v, includes->n, &s)) {
    pbd_Cli_PrintStatus(err, NULL, &s);
    goto fail;
  }
  if (!pbd_DefPool_Finalize(pool, &s)) {
    pbd_Cli_PrintStatus(err, "schema", &s);
    goto fail;
  }
  free(more);
  return pool;
fail_oom:
  fprintf(err, "pbdiff: out of memory\n");
fail:
  free(more);
  pbd_DefPool_Free(pool);
  return NULL;
}

static pbd_DefPool *cached_pool(const pbd_StrList *sets, const pbd_StrList *protos,
                                const pbd_StrList *includes, FILE *err) {
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
    fprintf(err, "pbdiff: out of memory\n");
    return NULL;
  }
  pthread_mutex_lock(&g_cache_lock);
  pbd_DefPool *pool = NULL;
  for (CacheEntry *e = g_cache; e && !pool; e = e->next)
    if (strcmp(e->key, key.data) == 0) pool = e->pool;
  if (!pool) {
    /* loaded under the lock: two threads never compile one schema twice */
    pool = load_pool(sets, protos, includes, err);
    CacheEntry *e = pool ? calloc(1, sizeof *e) : NULL;
    if (e) {
      e->key = key.data;
      key.data = NULL;
      e->pool = pool;
      e->next = g_cache;
      g_cache = e;
    } else if (pool) {
      pbd_DefPool_Free(pool);
      pool = NULL;
      fprintf(err, "pbdiff: out of memory\n");
    }
  }
  pthread_mutex_unlock(&g_cache_lock);
  pbd_Buf_Free(&key);
  return pool;
}

bool pbd_Cli_LoadSchema(const pbd_CliOptions *o, int side, pbd_CliSchema *out, FILE *err) {
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
      fprintf(err, "pbdiff: a schema needs --type, e.g. -t onnx.ModelProto\n"
                   "Try 'pbdiff --help' for more information.\n");
      return false;
    }
    if (!(out->pool = cached_pool(sets, protos, &o->includes, err))) return false;
    out->type = pbd_DefPool_FindMessageByName(out->pool, type);
    if (!out->type) {
      fprintf(err, "pbdiff: message type '%s' is not in the schema\n", type);
      return false;
    }
  } else if (type) {
    fprintf(err, "pbdiff: --type needs a schema (-s or --proto)\n"
                 "Try 'pbdiff --help' for more information.\n");
    return false;
  }
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (pbd_Cli_ResolveRules(o, out, &s)) return true;
  fprintf(err, "pbdiff: %s\n", s.msg);
  return false;
}

void pbd_Cli_FreeSchema(pbd_CliSchema *s) {
  free(s->rules);
  free(s->ignores);
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
                        size_t n, pbd_Buf *out, const char *name, FILE *err) {
  char *in = make_temp(".txtpb"), *bin = make_temp(".pb"), *msgs = make_temp(".err");
  bool ok = false;
  const char **argv = NULL;
  pbd_Buf sets = {0}, type_arg = {0};
  if (!in || !bin || !msgs || !write_file(in, p, n)) {
    fprintf(err, "pbdiff: %s: cannot write a temporary file\n", name);
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
  for (size_t i = 0; i < schemas->n; i++) {
    if (ends_with(schemas->v[i], ".proto")) continue;
    pbd_Buf_AppendStr(&sets, have_sets ? ":" : "--descriptor_set_in=");
    pbd_Buf_AppendStr(&sets, schemas->v[i]);
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
    fprintf(err, "pbdiff: %s: %s\n", name, rs.msg);
  } else if (rc != 0) {
    pbd_Buf m = {0};
    slurp(msgs, &m);
    const char *text = m.data ? m.data : "";
    unsigned line = 0, col = 0;
    char *save = NULL;
    const char *colon = strstr(text, "input:");
    char rest[600] = "";
    if (colon && sscanf(colon, "input:%u:%u: %599[^\n]", &line, &col, rest) == 3)
      fprintf(err, "pbdiff: %s: line %u, column %u: %s\n", name, line, col, rest);
    else
      fprintf(err, "pbdiff: %s: not valid text format for %s: %.300s\n", name, type,
              text[0] ? strtok_r(m.data, "\n", &save) : "protoc failed");
    pbd_Buf_Free(&m);
  } else {
    ok = slurp(bin, out);
    if (!ok) fprintf(err, "pbdiff: %s: cannot read protoc's output\n", name);
  }
  for (size_t i = 0; i < ni; i++) free(incs[i]);
  free(incs);
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

/* Splits a delimited stream into message spans. */

bool pbd_Cli_ReadInput(const pbd_CliOptions *o, const pbd_CliSchema *schema, int side,
                       const char *path, const char *display, pbd_InputFormat format,
                       const pbd_ReadOptions *topts, pbd_CliInput *in, FILE *err) {
  memset(in, 0, sizeof *in);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Input *raw = calloc(1, sizeof *raw);
  pbd_Buf *owned = calloc(1, sizeof *owned);
  in->input_ = raw;
  in->owned_ = owned;
  if (!raw || !owned) {
    fprintf(err, "pbdiff: out of memory\n");
    return false;
  }
  if (!pbd_Input_Open(raw, path, &s)) {
    in->name = display ? display : pbd_Input_DisplayName(raw);
    pbd_Cli_PrintStatus(err, in->name, &s);
    return false;
  }
  in->name = display ? display : pbd_Input_DisplayName(raw);
  in->data = raw->data;
  in->size = raw->size;
  if (pbd_Input_IsGzip(in->data, in->size)) {
    if (!pbd_Input_Gunzip(in->data, in->size, owned, &s)) {
      pbd_Cli_PrintStatus(err, in->name, &s);
      return false;
    }
    in->data = (const uint8_t *)(owned->data ? owned->data : "");
    in->size = owned->len;
  }
  if (o->skip_prefix > 0) {
    if ((unsigned long long)o->skip_prefix > in->size) {
      fprintf(err, "pbdiff: %s: %zu bytes, shorter than --skip-prefix %lld\n", in->name, in->size,
              o->skip_prefix);
      return false;
    }
    in->data += o->skip_prefix;
    in->size -= (size_t)o->skip_prefix;
  }
  if (format == kPbd_InputFormat_Guess) format = guess_format(in->name);
  if (format != kPbd_InputFormat_Binary) {
    if (!schema->type) {
      fprintf(err, "pbdiff: %s: a %s input needs a schema and --type\n", in->name,
              format == kPbd_InputFormat_Json ? "JSON" : "text-format");
      return false;
    }
    if (o->delimited) {
      fprintf(err, "pbdiff: %s: --delimited reads binary inputs only\n", in->name);
      return false;
    }
    pbd_Buf bin = {0};
    bool ok;
    if (format == kPbd_InputFormat_Json) {
      ok = pbd_JsonPb_ToBinary(schema->pool, schema->type, (const char *)in->data, in->size, &bin, &s);
      if (!ok) pbd_Cli_PrintStatus(err, in->name, &s);
    } else {
      ok = encode_text(o, side, schema->type->full_name, in->data, in->size, &bin, in->name, err);
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
  if (!in->arena) {
    fprintf(err, "pbdiff: out of memory\n");
    return false;
  }
  if (o->delimited) {
    if (!pbd_Input_SplitDelimited(in->data, in->size, &in->begin, &in->end, &in->nmsgs, &s)) {
      pbd_Cli_PrintStatus(err, in->name, &s);
      return false;
    }
  } else {
    in->begin = malloc(sizeof *in->begin);
    in->end = malloc(sizeof *in->end);
    if (!in->begin || !in->end) {
      fprintf(err, "pbdiff: out of memory\n");
      return false;
    }
    in->begin[0] = 0;
    in->end[0] = in->size;
    in->nmsgs = 1;
  }
  if (!topts) return true; /* ranges only: the caller hashes or compares them */
  in->roots = calloc(in->nmsgs ? in->nmsgs : 1, sizeof *in->roots);
  if (!in->roots) {
    fprintf(err, "pbdiff: out of memory\n");
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
      pbd_Cli_PrintStatus(err, in->name, &s);
      return false;
    }
  }
  return true;
}

void pbd_Cli_FreeInput(pbd_CliInput *in) {
  pbd_Arena_Free(in->arena);
  free(in->begin);
  free(in->end);
  free(in->roots);
  if (in->owned_) pbd_Buf_Free(in->owned_);
  free(in->owned_);
  if (in->input_) pbd_Input_Close(in->input_);
  free(in->input_);
  memset(in, 0, sizeof *in);
}

/* ---- Comparing a pair ------------------------------------------------------ */

static int stop_at_first(void *ctx, const pbd_Edit *e) {
  (void)e;
  ++*(size_t *)ctx;
  return 1; /* quiet: the first difference settles the verdict */
}

/* --explain: for each pair of messages equal in meaning whose bytes differ,
 * the encoding choices that differ (lib/explain/explain.h), as text lines and as
 * the JSON value of the report's "encoding" key. */
static bool explain(const pbd_CliInput *l, const pbd_CliInput *r, const pbd_CliSchema *ls,
                    const pbd_CliSchema *rs, const pbd_CliOptions *o, pbd_Buf *text, pbd_Buf *json,
                    FILE *err) {
  pbd_ReadOptions le = o->compare.read, re = o->compare.read;
  le.pool = ls->pool;
  re.pool = rs->pool;
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t differing = 0;
  pbd_Buf_AppendStr(json, "[");
  for (size_t i = 0; i < l->nmsgs && i < r->nmsgs; i++) {
    size_t ln = l->end[i] - l->begin[i], rn = r->end[i] - r->begin[i];
    if (ln == rn && memcmp(l->data + l->begin[i], r->data + r->begin[i], ln) == 0) continue;
    pbd_EncodingProfile lp, rp;
    if (!pbd_Explain_Profile(ls->type, l->data, l->begin[i], l->end[i], &le, &lp, &s) ||
        !pbd_Explain_Profile(rs->type, r->data, r->begin[i], r->end[i], &re, &rp, &s)) {
      fprintf(err, "pbdiff: --explain: %s\n", s.msg);
      return false;
    }
    pbd_EncodingDiff d[kPbd_Encoding_Count];
    size_t n = pbd_Explain_Compare(&lp, &rp, d);
    if (o->delimited) pbd_Buf_Printf(text, "[%zu] ", i);
    pbd_Buf_AppendStr(text, "equal in meaning, but the bytes differ:\n");
    pbd_Buf buf = {0};
    pbd_Explain_FormatText(&buf, d, n);
    for (const char *p = buf.data; p && *p;) { /* indent each line */
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
      pbd_Buf_AppendStr(text, "  ");
      pbd_Buf_Append(text, p, len);
      p += len;
    }
    if (n == 0) pbd_Buf_AppendStr(text, "  (in no encoding choice that --explain counts)\n");
    pbd_Buf_Truncate(&buf, 0);
    pbd_Explain_FormatJson(&buf, d, n);
    if (differing++) pbd_Buf_AppendStr(json, ", ");
    if (o->delimited) {
      pbd_Buf_Printf(json, "{\"message\": %zu, \"encoding\": %s}", i, buf.data);
    } else if (buf.len >= 2) { /* the array's items, without its brackets */
      pbd_Buf_Append(json, buf.data + 1, buf.len - 2);
    }
    pbd_Buf_Free(&buf);
  }
  pbd_Buf_AppendStr(json, "]");
  if (!differing && !o->report.quiet_identical) pbd_Buf_AppendStr(text, "identical bytes\n");
  return !text->oom && !json->oom;
}

int pbd_Cli_ComparePair(const pbd_CliOptions *o, const char *lpath, const char *rpath,
                        const char *lname, const char *rname, FILE *out, FILE *err) {
  pbd_CliSchema ls, rs;
  bool two = o->left_schemas.n || o->right_schemas.n || o->left_type || o->right_type;
  if (!pbd_Cli_LoadSchema(o, two ? 1 : 0, &ls, err)) {
    pbd_Cli_FreeSchema(&ls);
    return kExitTrouble;
  }
  if (!pbd_Cli_LoadSchema(o, two ? 2 : 0, &rs, err)) {
    pbd_Cli_FreeSchema(&ls);
    pbd_Cli_FreeSchema(&rs);
    return kExitTrouble;
  }
  pbd_CliInput l, r;
  memset(&l, 0, sizeof l);
  memset(&r, 0, sizeof r);
  int status = kExitTrouble;
  bool ok = pbd_Cli_ReadInput(o, &ls, two ? 1 : 0, lpath, lname, o->left_format, NULL, &l, err);
  ok = ok && pbd_Cli_ReadInput(o, &rs, two ? 2 : 0, rpath, rname, o->right_format, NULL, &r, err);
  if (ok) {
    pbd_ReportOptions ro = o->report;
    pbd_Reporter *rep = o->quiet ? NULL : pbd_Reporter_New(o->format, out, &ro);
    if (!o->quiet && !rep) {
      fprintf(err, "pbdiff: out of memory\n");
    } else {
      size_t n = 0;
      pbd_Status s;
      pbd_Status_Clear(&s);
      pbd_CompareOptions co = o->compare; /* hash_seed 0: a random one per pair */
      co.type = ls.type;
      co.read.pool = ls.pool;
      co.right_schema = true;
      co.right_type = rs.type;
      co.right_pool = rs.pool;
      co.parallel = !o->recursive && sysconf(_SC_NPROCESSORS_ONLN) > 1;
      co.diff = ls.diff;
      pbd_CompareInput li = {l.data, l.size, o->delimited, l.begin, l.end, l.nmsgs};
      pbd_CompareInput ri = {r.data, r.size, o->delimited, r.begin, r.end, r.nmsgs};
      pbd_CompareResult res;
      int rc = pbd_Compare_Inputs(&li, &ri, &co, o->quiet ? stop_at_first : pbd_Reporter_Edit,
                                  o->quiet ? (void *)&n : (void *)rep, &res, &s);
      if (!o->quiet) n = res.n_edits;
      if (rc < 0 && res.failed_input) {
        pbd_Cli_PrintStatus(err, res.failed_input == 1 ? l.name : r.name, &s);
      } else if (rc < 0) {
        fprintf(err, "pbdiff: %s\n", s.msg);

      } else {
        status = n ? kExitDifferent : kExitEqual;
        if (n == 0 && rep && o->explain) {
          pbd_Buf text = {0}, json = {0};
          if (explain(&l, &r, &ls, &rs, o, &text, &json, err)) pbd_Reporter_Explain(rep, text.data, json.data);
          else status = kExitTrouble;
          pbd_Buf_Free(&text);
          pbd_Buf_Free(&json);
        }
        if (rep && !pbd_Reporter_Finish(rep, n == 0)) {
          fprintf(err, "pbdiff: cannot write the report\n");
          status = kExitTrouble;
        }
      }
      pbd_Reporter_Free(rep);
    }
  }
  pbd_Cli_FreeInput(&r);
  pbd_Cli_FreeInput(&l);
  pbd_Cli_FreeSchema(&ls);
  pbd_Cli_FreeSchema(&rs);
  return status;
}
