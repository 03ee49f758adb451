/* pbdiff -r DIR1 DIR2 — compares two directory trees file by file.
 *
 * Both trees are walked (regular files, and symlinks to regular files;
 * entries named .git, symlinks to directories and other kinds of file are
 * skipped), the files are paired by their path relative to DIR1 and DIR2,
 * and the union of paths is handled in byte order (strcmp).  Files present
 * on both sides are compared with the options the config gives the file
 * under DIR1 (LEFT, as for a single comparison), by N worker threads
 * (-j N; default: the number of online processors).  Each comparison writes
 * its report and its errors into memory streams of its own; the main thread
 * prints the results in path order as they become ready, so the output is
 * the same for every N.  Workers run at most a window of files ahead of the
 * one being printed, so memory stays bounded by the window's reports.
 *
 * Output goes through the format's reporter for directories (report.h:
 * text, --summary, json, junit), or nothing with -q.
 * Errors always go to standard error, in path order ("pbdiff: DIR2/x.pb:
 * ..."); a file that cannot be compared makes the exit status 2, and the
 * other files are still compared and reported.  Exit status: 2 if anything
 * failed, else 1 if any file differs or is on one side only, else 0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- walking a tree --------------------------------------------------------- */

typedef struct {
  char **v;
  size_t n, cap;
  bool oom;
  char top_error[1200]; /* why the top directory could not be read ("" if it could) */
} PathList;

static void list_add(PathList *l, char *s) {
  if (!s) {
    l->oom = true;
    return;
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    char **nv = realloc(l->v, cap * sizeof *nv);
    if (!nv) {
      free(s);
      l->oom = true;
      return;
    }
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = s;
}

static void list_free(PathList *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

char *pbd_Cli_JoinPath(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  bool slash = na > 0 && a[na - 1] != '/';
  char *s = malloc(na + slash + nb + 1);
  if (!s) return NULL;
  memcpy(s, a, na);
  if (slash) s[na] = '/';
  memcpy(s + na + slash, b, nb + 1);
  return s;
}

/* An error line on stderr, after what stdout holds so far (so that the two
 * stay in order on a terminal). */
static void print_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_err(const char *fmt, ...) {
  fflush(stdout);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

/* Adds the regular files under root/rel (rel "" for root itself) to out, as
 * paths relative to root.  Returns 0, or 1 when a subdirectory could not be
 * read and 2 when root itself could not (the error printed). */
static int walk(const char *root, const char *rel, PathList *out) {
  char *dir = rel[0] ? pbd_Cli_JoinPath(root, rel) : strdup(root);
  if (!dir) {
    out->oom = true;
    return 1;
  }
  DIR *d = opendir(dir);
  if (!d) {
    char quoted[1024], why[1200];
    snprintf(why, sizeof why, "%s: cannot open directory: %s", pbd_Cli_Name(dir, quoted, sizeof quoted),
             strerror(errno));
    print_err("pbdiff: %s\n", why);
    if (!rel[0]) snprintf(out->top_error, sizeof out->top_error, "%s", why);
    free(dir);
    return rel[0] ? 1 : 2;
  }
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && !out->oom) {
    const char *name = e->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git")) continue;
    bool is_dir = e->d_type == DT_DIR, is_reg = e->d_type == DT_REG;
    if (!is_dir && !is_reg) { /* a symlink, or a file system without d_type */
      struct stat st;
      if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISLNK(st.st_mode)) { /* follow it to a regular file only */
        is_reg = fstatat(dirfd(d), name, &st, 0) == 0 && S_ISREG(st.st_mode);
      } else {
        is_dir = S_ISDIR(st.st_mode);
        is_reg = S_ISREG(st.st_mode);
      }
    }
    if (!is_dir && !is_reg) continue;
    char *child = rel[0] ? pbd_Cli_JoinPath(rel, name) : strdup(name);
    if (is_reg) {
      list_add(out, child);
    } else if (child) {
      if (walk(root, child, out)) rc = 1;
      free(child);
    } else {
      out->oom = true;
    }
  }
  closedir(d);
  free(dir);
  return rc;
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int pbd_Cli_ListFiles(const char *root, char ***paths, size_t *n) {
  PathList l = {0};
  int rc = walk(root, "", &l);
  if (l.oom) {
    list_free(&l);
    print_err("pbdiff: out of memory\n");
    return 2;
  }
  if (l.n) qsort(l.v, l.n, sizeof *l.v, cmp_path);
  *paths = l.v;
  *n = l.n;
  return rc;
}

/* ---- comparing in parallel ----------------------------------------------------- */

/* One file present on both sides. */
typedef struct {
  const char *rel;
  char *lpath, *rpath;
  int status;
  char *out;       /* what the comparison's report wrote (a memory stream) */
  size_t out_len;
  pbd_CliError error; /* status 2: what went wrong */
  pbd_StatTotals *stat; /* --stat: the file's counts by field */
  double seconds;       /* how long its comparison took */
  bool done;
} Job;

typedef struct {
  const pbd_CliOptions *o;
  const pbd_Config *cfg;
  const pbd_FilesReporter *rep; /* NULL: -q */
  Job *jobs;
  size_t njobs;
  size_t next;    /* the next job to take */
  size_t printed; /* jobs printed (and freed) by the main thread */
  size_t window;  /* workers stay below printed + window */
  pthread_mutex_t mu;
  pthread_cond_t done_cv, space_cv;
} Shared;

static void run_job(const Shared *sh, Job *j) {
  FILE *out = open_memstream(&j->out, &j->out_len);
  if (!out) {
    pbd_CliError_Set(&j->error, false, "%s: cannot compare (out of memory)",
                     pbd_Cli_Name(j->rel, (char[1024]){0}, 1024));
    j->status = kExitTrouble;
    return;
  }
  pbd_CliOptions eff = pbd_Config_Apply(sh->cfg, sh->o, j->lpath);
  if (sh->rep) {
    pbd_FileResult f = {.rel = j->rel, .left_path = j->lpath, .right_path = j->rpath};
    bool quiet = false;
    pbd_FilesReporter_FileOptions(sh->rep, &f, &eff.report, &quiet);
    eff.quiet |= quiet;
    if (eff.report.stat && !eff.quiet) eff.report.stat_out = j->stat = pbd_StatTotals_New();
  } else {
    eff.quiet = true; /* -q: the first difference settles it */
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  j->status = pbd_Cli_ComparePair(&eff, j->lpath, j->rpath, NULL, NULL, out, &j->error);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  j->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  pbd_Cli_FreeApplied(&eff);
  bool ok = !ferror(out);
  ok &= fclose(out) == 0;
  if (!ok && j->status != kExitTrouble) {
    pbd_CliError_Set(&j->error, false, "%s: cannot compare (out of memory)",
                     pbd_Cli_Name(j->rel, (char[1024]){0}, 1024));
    j->status = kExitTrouble;
  }
}

static void *worker(void *arg) {
  Shared *sh = arg;
  pthread_mutex_lock(&sh->mu);
  for (;;) {
    while (sh->next < sh->njobs && sh->next >= sh->printed + sh->window)
      pthread_cond_wait(&sh->space_cv, &sh->mu);
    if (sh->next >= sh->njobs) break;
    Job *j = &sh->jobs[sh->next++];
    pthread_mutex_unlock(&sh->mu);
    run_job(sh, j);
    pthread_mutex_lock(&sh->mu);
    j->done = true;
    pthread_cond_broadcast(&sh->done_cv);
  }
  pthread_mutex_unlock(&sh->mu);
  return NULL;
}

/* ---- output ------------------------------------------------------------------ */

typedef enum { kEntry_OnlyLeft, kEntry_OnlyRight, kEntry_Both } EntryKind;

typedef struct {
  const char *rel;
  EntryKind kind;
} Entry;

/* DIR as the user named it, without trailing slashes ("/" stays). */
static char *display_dir(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  return strndup(dir, n);
}

/* One run of pbdiff -r. */
typedef struct {
  const pbd_CliOptions *o;
  pbd_FilesReporter *rep; /* NULL: -q */
  char *d1, *d2;          /* DIR1 and DIR2 as shown */
  PathList left, right;   /* relative paths, sorted */
  Entry *entries;         /* their union, in path order */
  size_t nentries;
  Job *jobs;              /* the paths on both sides, in path order */
  size_t njobs;
  bool differ, trouble, oom;
} DirRun;

/* Walks both trees and pairs their files.  false when nothing can be
 * compared (a top directory unreadable, or out of memory). */
static bool collect(DirRun *r) {
  int w1 = walk(r->d1, "", &r->left), w2 = walk(r->d2, "", &r->right);
  if (r->left.oom || r->right.oom) return !(r->oom = true);
  if (w1 || w2) r->trouble = true;
  if (w1 == 2 || w2 == 2) return false; /* a top directory compares with nothing */
  PathList *l = &r->left, *rt = &r->right;
  if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_path);
  if (rt->n) qsort(rt->v, rt->n, sizeof *rt->v, cmp_path);
  r->entries = calloc(l->n + rt->n + 1, sizeof *r->entries);
  r->jobs = calloc((l->n < rt->n ? l->n : rt->n) + 1, sizeof *r->jobs);
  if (!r->entries || !r->jobs) return !(r->oom = true);
  for (size_t i = 0, k = 0; i < l->n || k < rt->n;) {
    int c = i == l->n ? 1 : k == rt->n ? -1 : strcmp(l->v[i], rt->v[k]);
    if (c < 0) {
      r->entries[r->nentries++] = (Entry){l->v[i++], kEntry_OnlyLeft};
    } else if (c > 0) {
      r->entries[r->nentries++] = (Entry){rt->v[k++], kEntry_OnlyRight};
    } else {
      Job *j = &r->jobs[r->njobs++];
      j->rel = l->v[i];
      j->lpath = pbd_Cli_JoinPath(r->d1, l->v[i]);
      j->rpath = pbd_Cli_JoinPath(r->d2, rt->v[k]);
      if (!j->lpath || !j->rpath) return !(r->oom = true);
      r->entries[r->nentries++] = (Entry){l->v[i], kEntry_Both};
      i++, k++;
    }
  }
  return true;
}

/* Reports one path (j: its job, done, for a path on both sides). */
static void report_entry(DirRun *r, const Entry *e, const Job *j) {
  int st = j ? j->status : kExitDifferent;
  if (st == kExitTrouble) r->trouble = true;
  else if (st == kExitDifferent) r->differ = true;
  if (r->rep) {
    pbd_FileResult f = {.rel = e->rel,
                        .side = e->kind == kEntry_OnlyLeft    ? kPbd_File_OnlyLeft
                                : e->kind == kEntry_OnlyRight ? kPbd_File_OnlyRight
                                                              : kPbd_File_Both,
                        .left_path = j ? j->lpath : NULL,
                        .right_path = j ? j->rpath : NULL,
                        .status = st,
                        .report = j ? j->out : NULL,
                        .report_len = j ? j->out_len : 0,
                        .error = j ? j->error.msg : NULL,
                        .stat = j ? j->stat : NULL,
                        .seconds = j ? j->seconds : 0};
    pbd_FilesReporter_File(r->rep, &f);
  }
  if (j && (st == kExitTrouble || j->error.note[0])) { /* after stdout's lines, in order */
    fflush(stdout);
    pbd_CliError_PrintNote(stderr, &j->error);
    if (st == kExitTrouble) pbd_CliError_Print(stderr, &j->error, "pbdiff");
  }
}

/* Compares the jobs with N threads and reports every entry in order. */
static void compare_all(DirRun *r, const pbd_Config *cfg) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  size_t want = r->o->jobs > 0 ? (size_t)r->o->jobs : cores > 0 ? (size_t)cores : 1;
  if (want > r->njobs) want = r->njobs;
  Shared sh = {.o = r->o, .cfg = cfg, .rep = r->rep, .jobs = r->jobs, .njobs = r->njobs,
               .window = want * 16 > 256 ? want * 16 : 256};
  pthread_mutex_init(&sh.mu, NULL);
  pthread_cond_init(&sh.done_cv, NULL);
  pthread_cond_init(&sh.space_cv, NULL);
  pthread_t *threads = calloc(want + 1, sizeof *threads);
  size_t nthreads = 0;
  while (threads && nthreads < want && pthread_create(&threads[nthreads], NULL, worker, &sh) == 0)
    nthreads++;
  /* (with no thread at all, the main thread compares each file itself) */
  size_t next_job = 0;
  for (size_t i = 0; i < r->nentries; i++) {
    Job *j = NULL;
    if (r->entries[i].kind == kEntry_Both) {
      j = &r->jobs[next_job++];
      if (nthreads == 0) {
        run_job(&sh, j);
      } else {
        pthread_mutex_lock(&sh.mu);
        while (!j->done) pthread_cond_wait(&sh.done_cv, &sh.mu);
        pthread_mutex_unlock(&sh.mu);
      }
    }
    report_entry(r, &r->entries[i], j);
    if (j) { /* its memory is no longer needed: let the workers run further */
      free(j->out);
      j->out = NULL;
      pbd_StatTotals_Free(j->stat);
      j->stat = NULL;
      pthread_mutex_lock(&sh.mu);
      sh.printed++;
      pthread_cond_broadcast(&sh.space_cv);
      pthread_mutex_unlock(&sh.mu);
    }
  }
  for (size_t t = 0; t < nthreads; t++) pthread_join(threads[t], NULL);
  free(threads);
  pthread_cond_destroy(&sh.done_cv);
  pthread_cond_destroy(&sh.space_cv);
  pthread_mutex_destroy(&sh.mu);
}

/* A top directory that could not be read, for a format whose readers want
 * a report of trouble: one error case named after the directory. */
static void top_trouble(DirRun *r) {
  bool left = r->left.top_error[0] != '\0';
  pbd_FileResult f = {.rel = left ? r->d1 : r->d2, .side = kPbd_File_Both, .status = kExitTrouble,
                      .error = left ? r->left.top_error : r->right.top_error};
  pbd_FilesReporter_File(r->rep, &f);
  if (!pbd_FilesReporter_Finish(r->rep, false)) r->oom = true;
}

int pbd_Cli_CompareDirs(const pbd_CliOptions *o, const pbd_Config *cfg, const char *dir1,
                        const char *dir2) {
  if (o->summary && !pbd_Report_HasSummary(o->format) && !o->quiet) {
    fprintf(stderr, "pbdiff: --summary does not go with --format %s\n"
                    "Try 'pbdiff --help' for more information.\n", pbd_Report_FormatName(o->format));
    return kExitTrouble;
  }
  DirRun r = {.o = o};
  r.d1 = display_dir(dir1);
  r.d2 = display_dir(dir2);
  pbd_FilesOptions fo = {.summary = o->summary, .stat_totals = o->report.stat,
                         .color = o->report.color, .dir1 = r.d1, .dir2 = r.d2};
  if (!o->quiet && r.d1 && r.d2) r.rep = pbd_FilesReporter_New(o->format, stdout, &fo);
  if (!r.d1 || !r.d2 || (!o->quiet && !r.rep)) r.oom = true;
  else if (collect(&r)) {
    compare_all(&r, cfg);
    if (!r.oom && r.rep && !pbd_FilesReporter_Finish(r.rep, !r.trouble && !r.differ)) r.oom = true;
  } else if (!r.oom && r.rep && pbd_Report_ReportsTrouble(o->format)) {
    top_trouble(&r); /* JUnit: a document with the error, not an empty file */
  }
  if (r.oom) {
    print_err("pbdiff: out of memory\n");
    r.trouble = true;
  }
  for (size_t i = 0; i < r.njobs; i++) {
    free(r.jobs[i].lpath);
    free(r.jobs[i].rpath);
    free(r.jobs[i].out);
    pbd_StatTotals_Free(r.jobs[i].stat);
  }
  free(r.jobs);
  free(r.entries);
  list_free(&r.left);
  list_free(&r.right);
  pbd_FilesReporter_Free(r.rep);
  free(r.d1);
  free(r.d2);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "pbdiff: cannot write to standard output\n");
    r.trouble = true;
  }
  return r.trouble ? kExitTrouble : r.differ ? kExitDifferent : kExitEqual;
}
