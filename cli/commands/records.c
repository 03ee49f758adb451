/* pbdiff --record-key KEY LEFT RIGHT (and -r, and pbdiff noise) — two
 * corpora compared record by record, records paired by key.
 *
 * Each side is a file or, with -r, the regular files under a directory (as
 * -r walks them); with --framing each file is a stream of records, else
 * each file is one record.  Every record is hashed (one random seed for
 * both sides) and its key read; only the key, the hash and where the record
 * is are kept.  The two indexes are joined by key (lib/corpus/): pairs with
 * equal hashes are equal without another look; the others are compared as
 * two messages, their differences reported under the record's key
 * (`[id="r-1042"].price`); a key on one side only is a record added or
 * removed.  A key held by several records of one side pairs them in the
 * order they came (`[id="x"#2]` for the second) and is reported on stderr.
 *
 * Without --record-key (pbdiff noise only), records pair by position: the
 * key is the file's path under its directory and the record's index.
 *
 * The inputs stay mapped (or, gzip-compressed, inflated) for the run: the
 * pairs that differ are read again from them.  A mapped file's pages are
 * given back behind the key pass (pbd_Cli_ReleaseInput), so the run holds
 * its index, not its inputs; the pairs that differ map theirs again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "record_notes.h"
#include "pbdiff/core/threads.h"
#include "pbdiff/corpus/records.h"
#include "pbdiff/pbdiff.h"

enum { kMaxDuplicateLines = 10 };

typedef struct {
  const char *root;        /* as given */
  char **rels;             /* the files under it (-r), or NULL: root is the file */
  char **paths;            /* root/rel for each: the inputs' names, kept for the run */
  size_t nfiles;
  pbd_CliInput *inputs;
  pbd_CliSchema schema;
  pbd_RecordKey key;
  pbd_RecordIndex *index;
  uint32_t **spans;        /* per file: where each record begins and ends, in 4 bytes
                              each (compact_spans), or NULL: the input's own arrays */
  size_t dup_lines;
  /* the key pass's own, so that the two sides can be read at once */
  pbd_IgnoreHash *ignore;  /* the hash under --ignore, or NULL: the plain hash */
  pbd_Buf key_text, scratch; /* a record's key text; its bytes less what is ignored */
  pbd_Arena *arena;
  pbd_CliError e;
  bool ok;
} Side;

typedef struct {
  const pbd_CliOptions *o;
  Side l, r;
  pbd_ReadOptions lread, rread;   /* each side's reading, one seed */
  pbd_CompareOptions compare;
  pbd_Reporter *rep;              /* the edits' report, or NULL */
  pbd_CorpusStat *stat;           /* --stat and noise, or NULL */
  pbd_RecordNotes *notes;         /* Confluent metadata of paired records, or NULL (-q) */
  pbd_CorpusTotals totals;
  pbd_Arena *arena;               /* trees of records added or removed */
  pbd_Buf key;                    /* the current record's key text */
  pbd_Path path;                  /* the current edit's path, under the key */
  pbd_PathFrame *frames;          /* and the messages along it (path.frames) */
  size_t frames_cap;
  pbd_CliError *e;
  size_t n_edits;
  size_t threads;                 /* -j: the key pass's and the pairs' threads */
  atomic_size_t rereads;          /* records read again since the key pass (note_reread) */
  bool failed;
} Run;

typedef struct PairPool PairPool;


/* ---- Reading each side ---------------------------------------------------------- */

static bool list_side(const pbd_CliOptions *o, Side *s, pbd_CliError *e) {
  struct stat st;
  if (stat(s->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
    s->nfiles = 1;
  } else if (!o->recursive) {
    pbd_CliError_Set(e, false, "%s: is a directory (to compare two corpora of files, use -r)",
                     pbd_Cli_Name(s->root, (char[1024]){0}, 1024));
    return false;
  } else if (pbd_Cli_ListFiles(s->root, &s->rels, &s->nfiles) == 2) {
    pbd_CliError_Set(e, false, "%s: cannot read the directory",
                     pbd_Cli_Name(s->root, (char[1024]){0}, 1024));
    return false;
  }
  s->inputs = calloc(s->nfiles ? s->nfiles : 1, sizeof *s->inputs);
  s->spans = calloc(s->nfiles ? s->nfiles : 1, sizeof *s->spans);
  s->index = pbd_RecordIndex_New();
  bool ok = s->inputs && s->spans && s->index;
  if (ok && s->rels) {
    s->paths = calloc(s->nfiles ? s->nfiles : 1, sizeof *s->paths);
    for (size_t f = 0; s->paths && f < s->nfiles && ok; f++)
      ok = (s->paths[f] = pbd_Cli_JoinPath(s->root, s->rels[f])) != NULL;
    ok = ok && s->paths;
  }
  if (!ok) pbd_CliError_Set(e, false, "out of memory");
  return ok;
}

/* Where record i of file f is: [*begin, *end) of its input's bytes. */
static void record_span(const Side *s, size_t f, size_t i, size_t *begin, size_t *end) {
  const uint32_t *sp = s->spans ? s->spans[f] : NULL;
  *begin = sp ? sp[2 * i] : s->inputs[f].begin[i];
  *end = sp ? sp[2 * i + 1] : s->inputs[f].end[i];
}

static pbd_Part record_bytes(const Side *s, size_t f, size_t i) {
  size_t b, e;
  record_span(s, f, i, &b, &e);
  return (pbd_Part){s->inputs[f].data + b, e - b};
}

/* The framing's spans are two size_t a record, kept for the run: where a
 * file's bytes fit in 4 GiB, they are kept in 4 bytes each instead (the
 * index is the run's memory: docs/scale.md, "Corpora"). */
static bool compact_spans(Side *s, size_t f) {
  pbd_CliInput *in = &s->inputs[f];
  if (in->size > UINT32_MAX || in->nmsgs == 0) return true;
  uint32_t *sp = malloc(2 * in->nmsgs * sizeof *sp);
  if (!sp) return false;
  for (size_t i = 0; i < in->nmsgs; i++) {
    sp[2 * i] = (uint32_t)in->begin[i];
    sp[2 * i + 1] = (uint32_t)in->end[i];
  }
  free(in->begin);
  free(in->end);
  in->begin = in->end = NULL;
  s->spans[f] = sp;
  return true;
}

/* The key of a record by position (no --record-key): `REL#I`. */
static void position_key(const Side *s, size_t f, size_t i, pbd_Buf *out) {
  pbd_Buf_Printf(out, "%s#%zu", s->rels ? s->rels[f] : "", i);
}

/* The hash a record is paired by: under --ignore, its hash with the
 * ignored fields left out where that hash can be had (then the pairs that
 * differ only there are equal without a walk), else its hash. */
static bool pairing_hash(const Side *s, const pbd_CliInput *in, size_t begin, size_t end,
                         const pbd_MessageDef *type, const pbd_ReadOptions *ro,
                         pbd_Hasher *hasher, pbd_Buf *scratch, pbd_Hash128 *h, pbd_Status *st) {
  if (!s->ignore || type != pbd_IgnoreHash_Type(s->ignore)) return true;
  pbd_Hash128 ih;
  if (pbd_IgnoreHash_Hash(s->ignore, hasher, in->data, begin, end, ro, scratch, &ih, st))
    *h = ih;
  return pbd_Status_IsOk(st);
}

static bool index_record(Run *run, Side *s, int side, size_t f, size_t i, pbd_Hasher *hasher,
                         pbd_Hasher *ignore_hasher, pbd_Status *st) {
  const pbd_CliInput *in = &s->inputs[f];
  const pbd_ReadOptions *ro = side == 1 ? &run->lread : &run->rread;
  pbd_Hash128 h;
  pbd_Buf_Truncate(&s->key_text, 0);
  size_t begin, end;
  record_span(s, f, i, &begin, &end);
  pbd_Part part = {in->data + begin, end - begin};
  const pbd_MessageDef *type = pbd_Cli_RecordType(in, &s->schema, i); /* Confluent indexes */
  if (!pbd_Hasher_HashParts(hasher, type, &part, 1, 0, &h, NULL, st)) return false;
  if (run->o->record_key) {
    pbd_StrView kafka;
    if (!pbd_RecordKey_ReadWithKafkaKey(&s->key, type, in->data, begin, end, h, ro,
                                        pbd_Cli_KafkaKey(in, i, &kafka),
                                        s->arena, &s->key_text, st))
      return false;
  } else {
    position_key(s, f, i, &s->key_text);
  }
  if (!pairing_hash(s, in, begin, end, type, ro, ignore_hasher, &s->scratch, &h, st)) return false;
  if (s->key_text.oom || !pbd_RecordIndex_Add(s->index, s->key_text.data ? s->key_text.data : "",
                                         s->key_text.len, (uint32_t)f, i, h)) {
    if (pbd_RecordIndex_Full(s->index)) /* records are numbered in 4 bytes */
      pbd_Status_SetError(st, kPbd_Status_TooLarge,
                          "more than %u records on one side, or a record key over 16 MiB",
                          (unsigned)PBD_MAX_RECORDS);
    else
      pbd_Status_SetError(st, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  return true;
}

static bool read_file(Run *run, Side *s, int side, size_t f) {
  const pbd_ReadOptions *ro = side == 1 ? &run->lread : &run->rread;
  if (!pbd_Cli_ReadCorpusInput(run->o, &s->schema, s->paths ? s->paths[f] : s->root,
                               side == 1 ? run->o->left_format : run->o->right_format,
                               &s->inputs[f], &s->e))
    return false;
  /* hashers per file: their working memory serves every record */
  pbd_Hasher *hasher = pbd_Hasher_New(s->inputs[f].data, ro, NULL);
  pbd_Hasher *ignore_hasher = s->ignore ? pbd_Hasher_New(s->inputs[f].data, ro, NULL) : NULL;
  bool ok = hasher && (ignore_hasher || !s->ignore);
  if (!ok) pbd_CliError_Set(&s->e, false, "out of memory");
  /* The file is not held while the index grows: the framing gave back
   * what it cut but the last few MiB, and the key pass gives back what it
   * has read, a few MiB at a time.  The pairs that differ map their pages
   * again, from the page cache. */
  const pbd_CliInput *in = &s->inputs[f];
  pbd_Cli_ReleaseInput(in, 0, in->size);
  size_t kept_from = 0;
  if (ok && !compact_spans(s, f)) {
    pbd_CliError_Set(&s->e, false, "out of memory");
    ok = false;
  }
  for (size_t i = 0; ok && i < in->nmsgs; i++) {
    size_t begin, end;
    record_span(s, f, i, &begin, &end);
    pbd_Cli_ReleaseBehind(in, &kept_from, begin);
    pbd_Status st;
    pbd_Status_Clear(&st);
    if (!index_record(run, s, side, f, i, hasher, ignore_hasher, &st)) {
      if (run->o->delimited) {
        char seg[32];
        snprintf(seg, sizeof seg, "[%zu]", i);
        pbd_Status_PrependPath(&st, seg);
      }
      pbd_CliError_FromStatus(&s->e, s->inputs[f].name, &st);
      ok = false;
    }
  }
  pbd_Cli_ReleaseInput(in, kept_from, in->size);
  pbd_Hasher_Free(hasher);
  pbd_Hasher_Free(ignore_hasher);
  return ok;
}

/* One side's key pass: every record hashed and its key read, then the
 * index sorted (the join's first step, done here so that each side does
 * it on its own thread). */
static bool read_side(Run *run, Side *s, int side) {
  s->arena = pbd_Arena_New();
  s->ok = s->arena != NULL;
  if (!s->ok) pbd_CliError_Set(&s->e, false, "out of memory");
  for (size_t f = 0; s->ok && f < s->nfiles; f++) s->ok = read_file(run, s, side, f);
  if (s->ok && !pbd_RecordIndex_Sort(s->index)) {
    pbd_CliError_Set(&s->e, false, "out of memory");
    s->ok = false;
  }
  pbd_Buf_Free(&s->scratch);
  return s->ok;
}

/* One side's key pass, as pbd_Threads_RunBoth runs it. */
typedef struct {
  Run *run;
  Side *s;
  int side;
} SideJob;

static void *read_side_job(void *arg) {
  SideJob *j = arg;
  read_side(j->run, j->s, j->side);
  return NULL;
}

/* Both sides' key passes, on two threads unless -j 1; an error is LEFT's
 * when LEFT has one (as when read one after the other). */
static bool read_sides(Run *run) {
  SideJob l = {run, &run->l, 1}, r = {run, &run->r, 2};
  if (!pbd_Threads_RunBoth(read_side_job, &l, &r, run->threads > 1) && run->l.ok)
    read_side_job(&r);
  bool left = run->l.ok;
  if (!left || !run->r.ok) *run->e = !left ? run->l.e : run->r.e;
  return left && run->r.ok;
}

/* ---- Reporting ---------------------------------------------------------------------- */

static int deliver(Run *run, const pbd_Edit *e) {
  run->n_edits++;
  if (run->stat) return pbd_CorpusStat_Edit(run->stat, e);
  if (run->rep) return pbd_Reporter_Edit(run->rep, e);
  return 1; /* -q: the first difference settles it */
}

/* An edit of a pair's comparison, its path put under the record's key. */
static int edit_under_key(void *ctx, const pbd_Edit *e) {
  Run *run = ctx;
  pbd_Path_Truncate(&run->path, 1);
  for (size_t i = 0; i < e->path->count; i++) pbd_Path_Push(&run->path, &e->path->segs[i]);
  if (run->path.oom) return 1;
  /* the messages along the path, one segment further down (the HTML report
   * counts what did not change in them) */
  size_t nf = e->path->frame_count;
  if (nf > run->frames_cap) {
    pbd_PathFrame *f = realloc(run->frames, nf * sizeof *f);
    if (!f) return 1;
    run->frames = f;
    run->frames_cap = nf;
  }
  for (size_t i = 0; i < nf; i++) {
    run->frames[i] = e->path->frames[i];
    run->frames[i].path_count++;
  }
  run->path.frames = run->frames;
  run->path.frame_count = nf;
  pbd_Edit k = *e;
  k.path = &run->path;
  k.parent_count = e->parent_count + 1;
  int rc = deliver(run, &k);
  run->path.frames = NULL; /* valid during this edit only */
  run->path.frame_count = 0;
  return rc;
}

/* `id="x"`, or `id="x"#2` for the second record with that key. */
static void begin_record(Run *run, const pbd_RecordPair *p) {
  pbd_Buf_Truncate(&run->key, 0);
  pbd_Buf_Append(&run->key, p->key, p->key_len);
  pbd_Path_AppendOccurrence(&run->key, p->occurrence);
  pbd_Buf_AppendStr(&run->key, "");
  pbd_PathSeg seg = {.kind = kPbd_Seg_RecordKey};
  seg.key_text.data = run->key.data ? run->key.data : "";
  seg.key_text.size = run->key.len;
  pbd_Path_Truncate(&run->path, 0);
  pbd_Path_Push(&run->path, &seg);
  if (run->stat) pbd_CorpusStat_BeginRecord(run->stat, seg.key_text.data, seg.key_text.size);
}

static void say_duplicate(Side *s, const char *side, const pbd_RecordPair *p,
                          size_t count) {
  fflush(stdout); /* after the report so far, on a terminal too */
  if (s->dup_lines++ == kMaxDuplicateLines) {
    fprintf(stderr, "pbdiff: warning: %s: more keys held by several records (see the totals)\n", side);
  } else if (s->dup_lines <= kMaxDuplicateLines) {
    pbd_Buf key = {0}, shown = {0}; /* the key is payload text: escaped */
    pbd_Buf_Append(&key, p->key, p->key_len > 200 ? 200 : p->key_len);
    pbd_Cli_AppendEscaped(&shown, key.data ? key.data : "");
    fprintf(stderr, "pbdiff: warning: %s: %zu records have the key %s (paired in order)\n", side,
            count, shown.data ? shown.data : "");
    pbd_Buf_Free(&key);
    pbd_Buf_Free(&shown);
  }
}

/* Each record read again maps its page back, and a fault maps the pages
 * around it too (64 KiB): a thousand pairs that differ, spread over a
 * file, would map most of it again.  So every kReleaseRereads records
 * read, the inputs are given back again.  Where more than one record in
 * kRereadShare is read again, most of the files will be mapped again
 * whatever is done, and giving them back would only cost faults: then
 * they stay. */
enum { kReleaseRereads = 32, kRereadShare = 16 };

static void release_side(const Side *s) {
  for (size_t f = 0; f < s->nfiles; f++) pbd_Cli_ReleaseInput(&s->inputs[f], 0, s->inputs[f].size);
}

static void note_reread(Run *run) {
  size_t n = atomic_fetch_add(&run->rereads, 1) + 1;
  size_t records = run->totals.left_records + run->totals.right_records;
  if (n % kReleaseRereads || n > records / kRereadShare) return;
  release_side(&run->l);
  release_side(&run->r);
}

/* A record on one side only: a whole message added or removed. */
static int one_side(Run *run, const Side *s, const pbd_Record *rec, bool added) {
  const pbd_CliInput *in = &s->inputs[rec->source];
  pbd_Status st;
  pbd_Status_Clear(&st);
  pbd_ArenaMark mark = pbd_Arena_Mark(run->arena);
  const pbd_ReadOptions *ro = added ? &run->rread : &run->lread;
  /* only a report shows the record (statistics count it, -q stops at it) */
  size_t begin, end;
  record_span(s, rec->source, rec->index, &begin, &end);
  if (run->rep) note_reread(run);
  pbd_Message *m = !run->rep ? NULL
      : pbd_Tree_Parse(pbd_Cli_RecordType(in, &s->schema, rec->index), in->data, begin, end,
                       ro, run->arena, &st);
  if (run->rep && !m) {
    pbd_CliError_FromStatus(run->e, in->name, &st);
    run->failed = true;
    return -1;
  }
  pbd_Edit e = {.kind = added ? kPbd_Edit_Added : kPbd_Edit_Removed, .path = &run->path,
                .left_index = -1, .right_index = -1};
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  if (added) e.right = v;
  else e.left = v;
  int rc = deliver(run, &e);
  pbd_Arena_Reset(run->arena, mark);
  return rc;
}

/* The two records of a pair as inputs, and the options to compare them. */
static void pair_inputs(Run *run, const pbd_Record *lr, const pbd_Record *rr,
                        pbd_CompareInput *a, pbd_CompareInput *b, pbd_CompareOptions *co) {
  note_reread(run);
  const pbd_CliInput *li = &run->l.inputs[lr->source], *ri = &run->r.inputs[rr->source];
  pbd_Part lp = record_bytes(&run->l, lr->source, lr->index);
  pbd_Part rp = record_bytes(&run->r, rr->source, rr->index);
  *a = (pbd_CompareInput){lp.data, lp.size, false, NULL, NULL, 1};
  *b = (pbd_CompareInput){rp.data, rp.size, false, NULL, NULL, 1};
  *co = run->compare;
  co->parallel = false; /* the pairs are what runs in parallel */
  if (li->types || ri->types) { /* each record read as the type its indexes name */
    co->type = pbd_Cli_RecordType(li, &run->l.schema, lr->index);
    co->right_type = pbd_Cli_RecordType(ri, &run->r.schema, rr->index);
    co->right_pool = co->right_schema ? co->right_pool : co->read.pool;
    co->right_schema = true;
  }
}

/* Two records with one key whose hashes differ. */
static int compare_pair(Run *run, const pbd_Record *lr, const pbd_Record *rr) {
  pbd_CompareInput a, b;
  pbd_CompareOptions co;
  pair_inputs(run, lr, rr, &a, &b, &co);
  pbd_CompareResult res;
  pbd_Status st;
  pbd_Status_Clear(&st);
  int rc = pbd_Compare_Inputs(&a, &b, &co, edit_under_key, run, &res, &st);
  if (rc < 0) {
    const pbd_CliInput *bad = &(res.failed_input == 2 ? run->r.inputs : run->l.inputs)
                                   [res.failed_input == 2 ? rr->source : lr->source];
    pbd_Status_PrependPath(&st, run->key.data ? run->key.data : "");
    pbd_CliError_FromStatus(run->e, bad->name, &st);
    run->failed = true;
  }
  return rc;
}

static int stop_at_first(void *ctx, const pbd_Edit *e) {
  (void)e;
  ++*(size_t *)ctx;
  return 1;
}

/* Whether two records differ under the options, on a worker: 0 equal, 1
 * they differ, -1 trouble (the main thread compares them again, and
 * reports what it finds). */
static int pair_verdict(Run *run, const pbd_Record *lr, const pbd_Record *rr) {
  pbd_CompareInput a, b;
  pbd_CompareOptions co;
  pair_inputs(run, lr, rr, &a, &b, &co);
  pbd_CompareResult res;
  pbd_Status st;
  pbd_Status_Clear(&st);
  size_t edits = 0;
  int rc = pbd_Compare_Inputs(&a, &b, &co, stop_at_first, &edits, &res, &st);
  return rc < 0 ? -1 : edits > 0;
}

/* One pair, in the join's order.  verdict: what a worker found (0 equal,
 * 1 they differ, -1 trouble), or -2 when not asked. */
static int deliver_pair(Run *run, const pbd_RecordPair *p, int verdict) {
  if (p->occurrence == 0 && p->left_count > 1) {
    run->totals.dup_left++;
    say_duplicate(&run->l, run->l.root, p, p->left_count);
  }
  if (p->occurrence == 0 && p->right_count > 1) {
    run->totals.dup_right++;
    say_duplicate(&run->r, run->r.root, p, p->right_count);
  }
  begin_record(run, p);
  if (p->left && p->right && run->notes &&
      !pbd_RecordNotes_Add(run->notes, &run->l.inputs[p->left->source].meta, p->left->index,
                           &run->r.inputs[p->right->source].meta, p->right->index,
                           run->key.data ? run->key.data : ""))
    return -1;
  size_t before = run->n_edits;
  int rc = 0;
  if (p->left && p->right) {
    run->totals.paired++;
    if (pbd_Hash128_Equal(p->left->hash, p->right->hash) || verdict == 0) {
      run->totals.equal++;
      return 0;
    }
    rc = compare_pair(run, p->left, p->right);
    if (rc < 0) return -1;
    if (run->n_edits > before) run->totals.changed++;
    else run->totals.equal++; /* hashes differ, meanings do not: an ignored field */
  } else if (p->left) {
    run->totals.only_left++;
    rc = one_side(run, &run->l, p->left, false);
  } else {
    run->totals.only_right++;
    rc = one_side(run, &run->r, p->right, true);
  }
  return rc < 0 ? -1 : run->o->quiet && run->n_edits ? 1 : 0;
}

/* ---- Pairs on -j threads ----------------------------------------------------------- */

/* The pairs whose hashes differ are compared by workers, which only tell
 * whether the two differ; the main thread hands out every pair in the
 * join's order, and compares again (reporting the edits) only the pairs
 * that differ.  So the report is the one -j 1 writes, byte for byte, and
 * what is held is a window of pairs, not the pairs that differ. */
typedef struct {
  pbd_RecordPair pair;
  pbd_Record left, right;  /* the pair's records (the join's are valid during its call) */
  bool work;               /* both records, hashes that differ: for a worker */
  bool done;
  int verdict;
} Slot;

struct PairPool {
  Run *run;
  Slot *slots;
  size_t window;              /* slots, a power of two */
  size_t head, tail, taken;   /* delivered < taken by workers (or skipped) < pushed */
  bool closing;
  pthread_t *threads;
  size_t nthreads;
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv;
};

static void *pair_worker(void *arg) {
  PairPool *pp = arg;
  pthread_mutex_lock(&pp->mu);
  for (;;) {
    while (!pp->closing && pp->taken == pp->tail) pthread_cond_wait(&pp->work_cv, &pp->mu);
    if (pp->taken == pp->tail) break; /* closing, nothing left */
    Slot *sl = &pp->slots[pp->taken++ & (pp->window - 1)];
    if (!sl->work) continue;
    bool closing = pp->closing; /* the join stopped: no one waits for it */
    pthread_mutex_unlock(&pp->mu);
    int v = closing ? -1 : pair_verdict(pp->run, &sl->left, &sl->right);
    pthread_mutex_lock(&pp->mu);
    sl->verdict = v;
    sl->done = true;
    pthread_cond_broadcast(&pp->done_cv);
  }
  pthread_mutex_unlock(&pp->mu);
  return NULL;
}

/* Hands out the oldest pair, once its verdict is in. */
static int deliver_head(PairPool *pp) {
  Slot *sl = &pp->slots[pp->head & (pp->window - 1)];
  if (sl->work) {
    pthread_mutex_lock(&pp->mu);
    while (!sl->done) pthread_cond_wait(&pp->done_cv, &pp->mu);
    pthread_mutex_unlock(&pp->mu);
  }
  sl->pair.left = sl->pair.left ? &sl->left : NULL;
  sl->pair.right = sl->pair.right ? &sl->right : NULL;
  int rc = deliver_pair(pp->run, &sl->pair, sl->work ? sl->verdict : -2);
  pthread_mutex_lock(&pp->mu);
  pp->head++;
  if (pp->taken < pp->head) pp->taken = pp->head; /* its slot is free: no worker may read it */
  pthread_mutex_unlock(&pp->mu);
  return rc;
}

static int push_pair(void *ctx, const pbd_RecordPair *p) {
  PairPool *pp = ctx;
  while (pp->tail - pp->head == pp->window) {
    int rc = deliver_head(pp);
    if (rc) return rc;
  }
  Slot *sl = &pp->slots[pp->tail & (pp->window - 1)];
  sl->pair = *p;
  if (p->left) sl->left = *p->left;
  if (p->right) sl->right = *p->right;
  sl->work = p->left && p->right && !pbd_Hash128_Equal(p->left->hash, p->right->hash);
  sl->done = false;
  pthread_mutex_lock(&pp->mu);
  pp->tail++;
  if (sl->work) pthread_cond_signal(&pp->work_cv); /* (most pairs need no one) */
  pthread_mutex_unlock(&pp->mu);
  return 0;
}

static void close_pool(PairPool *pp) {
  pthread_mutex_lock(&pp->mu);
  pp->closing = true;
  pthread_cond_broadcast(&pp->work_cv);
  pthread_mutex_unlock(&pp->mu);
  for (size_t t = 0; t < pp->nthreads; t++) pthread_join(pp->threads[t], NULL);
  free(pp->threads);
  free(pp->slots);
  pthread_mutex_destroy(&pp->mu);
  pthread_cond_destroy(&pp->work_cv);
  pthread_cond_destroy(&pp->done_cv);
}

static int on_pair(void *ctx, const pbd_RecordPair *p) { return deliver_pair(ctx, p, -2); }

/* The join, its pairs compared on run->threads workers (none: here). */
static int join_pairs(Run *run) {
  PairPool pp = {.run = run, .window = 1024};
  while (pp.window < run->threads * 256) pp.window *= 2;
  if (run->threads > 1) {
    pp.slots = malloc(pp.window * sizeof *pp.slots);
    pp.threads = malloc(run->threads * sizeof *pp.threads);
  }
  if (!pp.slots || !pp.threads) {
    free(pp.slots);
    free(pp.threads);
    return pbd_Records_Join(run->l.index, run->r.index, on_pair, run);
  }
  pthread_mutex_init(&pp.mu, NULL);
  pthread_cond_init(&pp.work_cv, NULL);
  pthread_cond_init(&pp.done_cv, NULL);
  while (pp.nthreads < run->threads &&
         pthread_create(&pp.threads[pp.nthreads], NULL, pair_worker, &pp) == 0)
    pp.nthreads++;
  int rc = pp.nthreads ? pbd_Records_Join(run->l.index, run->r.index, push_pair, &pp)
                       : pbd_Records_Join(run->l.index, run->r.index, on_pair, run);
  while (rc == 0 && pp.head < pp.tail) rc = deliver_head(&pp);
  close_pool(&pp);
  return rc;
}

/* ---- The run ------------------------------------------------------------------------- */

static bool load_side(Run *run, Side *s, int side, bool two) {
  if (!list_side(run->o, s, run->e) || !pbd_Cli_LoadSchema(run->o, two ? side : 0, &s->schema, run->e))
    return false;
  pbd_Status st;
  pbd_Status_Clear(&st);
  if (run->o->record_key && !pbd_RecordKey_Parse(s->schema.type, run->o->record_key, &s->key, &st)) {
    pbd_CliError_Set(run->e, true, "%s", st.msg);
    return false;
  }
  return !run->o->record_key || pbd_Cli_CheckKafkaKey(run->o, &s->key, run->e);
}

static void setup_reading(Run *run, bool two) {
  const pbd_CliOptions *o = run->o;
  uint64_t seed = o->compare.read.hash_seed ? o->compare.read.hash_seed : pbd_RandomSeed();
  run->compare = o->compare;
  run->compare.type = run->l.schema.type;
  run->compare.read.pool = run->l.schema.pool;
  run->compare.read.hash_seed = seed;
  run->compare.right_schema = two;
  run->compare.right_type = run->r.schema.type;
  run->compare.right_pool = run->r.schema.pool;
  run->compare.diff = run->l.schema.diff;
  run->lread = run->compare.read;
  run->rread = run->compare.read;
  run->rread.pool = run->r.schema.pool;
  /* two schema versions: equal hashes must mean equal types too */
  run->lread.typed_fields = run->rread.typed_fields = two && run->r.schema.pool != run->l.schema.pool;
  /* the hash under --ignore: the rules name LEFT's schema's fields, so one
   * schema only */
  const char *why;
  if (!two && run->compare.diff.ignore_count) {
    run->l.ignore = pbd_IgnoreHash_New(run->l.schema.type, &run->compare.diff, &run->lread, &why);
    run->r.ignore = pbd_IgnoreHash_New(run->r.schema.type, &run->compare.diff, &run->rread, &why);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  run->threads = o->jobs > 0 ? (size_t)o->jobs : cores > 0 ? (size_t)cores : 1;
}

static void free_side(Side *s) {
  for (size_t f = 0; s->inputs && f < s->nfiles; f++) pbd_Cli_FreeInput(&s->inputs[f]);
  free(s->inputs);
  for (size_t f = 0; s->spans && f < s->nfiles; f++) free(s->spans[f]);
  free(s->spans);
  for (size_t f = 0; s->rels && f < s->nfiles; f++) free(s->rels[f]);
  for (size_t f = 0; s->paths && f < s->nfiles; f++) free(s->paths[f]);
  free(s->rels);
  free(s->paths);
  pbd_Cli_FreeSchema(&s->schema);
  pbd_RecordIndex_Free(s->index);
  pbd_IgnoreHash_Free(s->ignore);
  pbd_Buf_Free(&s->key_text);
  pbd_Buf_Free(&s->scratch);
  pbd_Arena_Free(s->arena);
}

static bool start_report(Run *run) {
  const pbd_CliOptions *o = run->o;
  if (o->quiet) return true;
  if (!o->noise && !(run->notes = pbd_RecordNotes_New())) return false;
  if (o->report.stat || o->noise) {
    run->stat = pbd_CorpusStat_New(o->examples ? o->examples : 3);
    return run->stat != NULL;
  }
  pbd_ReportOptions ro = o->report;
  run->rep = pbd_Reporter_New(o->format, stdout, &ro);
  return run->rep != NULL;
}

static bool finish_report(Run *run, bool differ) {
  const pbd_CliOptions *o = run->o;
  if (o->quiet) return true;
  if (o->noise) return pbd_CorpusStat_WriteNoise(run->stat, &run->totals,
                                                 o->section ? o->section : "*", stdout);
  pbd_Buf text = {0}, json = {0}; /* the notes, as positional pairing gives them */
  bool ok = pbd_RecordNotes_Write(run->notes, o->report.max_diffs, &text, &json);
  if (run->stat) {
    ok = ok && ((!differ && o->format != kPbd_Report_Json) ||
                pbd_CorpusStat_Write(run->stat, &run->totals, o->format == kPbd_Report_Json,
                                     json.data, stdout));
    if (ok && text.len && o->format != kPbd_Report_Json) ok = fputs(text.data, stdout) >= 0;
  } else {
    if (ok && text.len) pbd_Reporter_Note(run->rep, text.data, json.data);
    ok = ok && pbd_Reporter_Finish(run->rep, !differ);
  }
  pbd_Buf_Free(&text);
  pbd_Buf_Free(&json);
  if (run->stat) return ok;
  if (ok && differ && o->format == kPbd_Report_Text) { /* as -r, a totals line closes the list */
    pbd_Buf b = {0};
    pbd_CorpusTotals_Text(&b, &run->totals);
    ok = !b.oom && fputs(b.data, stdout) >= 0;
    pbd_Buf_Free(&b);
  }
  return ok;
}

int pbd_Cli_CompareRecords(const pbd_CliOptions *o, const char *left, const char *right,
                           pbd_CliError *e) {
  Run run = {.o = o, .e = e};
  run.l.root = left;
  run.r.root = right;
  bool two = o->left_schemas.n || o->right_schemas.n || o->left_type || o->right_type;
  run.arena = pbd_Arena_New();
  bool ok = run.arena && load_side(&run, &run.l, 1, two) && load_side(&run, &run.r, 2, two);
  if (ok) setup_reading(&run, two);
  ok = ok && read_sides(&run);
  if (ok) {
    run.totals.left_records = pbd_RecordIndex_Count(run.l.index);
    run.totals.right_records = pbd_RecordIndex_Count(run.r.index);
    if (!start_report(&run)) pbd_CliError_Set(e, false, "out of memory");
  }
  int status = kExitTrouble;
  if (ok && (o->quiet || run.rep || run.stat)) {
    int rc = join_pairs(&run);
    if (rc < 0 && !run.failed) pbd_CliError_Set(e, false, "out of memory");
    bool differ = run.totals.changed || run.totals.only_left || run.totals.only_right ||
                  (o->quiet && run.n_edits);
    if (rc >= 0 && !finish_report(&run, differ)) pbd_CliError_Set(e, false, "cannot write the report");
    else if (rc >= 0) status = differ ? kExitDifferent : kExitEqual;
    if (o->noise && status != kExitTrouble) status = kExitEqual; /* noise found is no failure */
  }
  pbd_Reporter_Free(run.rep);
  pbd_CorpusStat_Free(run.stat);
  pbd_RecordNotes_Free(run.notes);
  pbd_Buf_Free(&run.key);
  pbd_Path_Free(&run.path);
  free(run.frames);
  pbd_Arena_Free(run.arena);
  free_side(&run.l);
  free_side(&run.r);
  return status;
}
