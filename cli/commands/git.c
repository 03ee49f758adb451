/* pbdiff CLI — git's external-diff form (docs/git.md).
 *
 * git runs a diff driver (`diff.<driver>.command`, or GIT_EXTERNAL_DIFF)
 * at the top of the work tree, once per changed file, with
 *
 *   PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE [NEW-PATH XFRM]
 *
 * OLD-FILE/NEW-FILE are temporary files (or the work-tree file itself),
 * "/dev/null" with HEX and MODE "." for an added or deleted file; a work-tree
 * file's HEX is all zeros; NEW-PATH and XFRM ("similarity index 100%\n
 * rename from a\nrename to b\n...") come for renames and copies, and PATH
 * alone for an unmerged path.  (args is NULL-terminated, as argv is.)
 *
 * We print a header in git's manner and the semantic diff:
 *
 *   diff --pbdiff a/PATH b/NEW-PATH
 *   new file mode MODE | deleted file mode MODE | old mode M1 + new mode M2
 *   (XFRM's lines, without its index line)
 *   index OLD7..NEW7[ MODE]          when the blobs differ (a work-tree
 *                                    file's id from `git hash-object`)
 *   --- a/PATH | /dev/null           when the bytes differ
 *   +++ b/NEW-PATH | /dev/null
 *   the report, or "(equal in meaning; the bytes differ)"
 *
 * A side that cannot be compared by meaning (a Git LFS pointer, a corrupt
 * or stray file under a protobuf glob, a schema that does not load) is
 * shown as git shows a binary file, after the header:
 *
 *   pbdiff: not compared by meaning: b/PATH: WHY
 *   Binary files a/PATH and b/NEW-PATH differ     (when the bytes differ)
 *
 * git stops the whole `git log -p` (`fatal: external diff died`) when the
 * driver exits non-zero, so the status is 0 whether or not the files
 * differ or could be read, and 2 only when git's arguments themselves are
 * wrong.  With GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE true (git 2.46 and later)
 * it is 1 when they differ (in meaning, or in bytes when not read). */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff/core/run.h"

#define SGR_META "\033[1m" /* git's color.diff.meta default */
#define SGR_RESET "\033[m"

enum { kHexAbbrev = 7 };

static const char kEqualNote[] = "(equal in meaning; the bytes differ)\n";

/* git's boolean words for an environment variable. */
static bool env_true(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v) return false;
  return !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
         (isdigit((unsigned char)v[0]) && atoi(v) != 0);
}

/* Runs argv (no shell) with standard output into out (at most n-1 bytes,
 * NUL-terminated) and standard error discarded.  The exit status, or -1. */
static int run_capture(char *const argv[], char *out, size_t n) {
  pbd_Buf b = {0};
  pbd_RunIo io = {.capture = &b, .quiet = true};
  int rc = pbd_Run(argv, &io, NULL, NULL);
  size_t len = b.len < n - 1 ? b.len : n - 1;
  if (len) memcpy(out, b.data, len);
  out[len] = '\0';
  pbd_Buf_Free(&b);
  return rc;
}

/* Whether to colour: --color=always/never as given; otherwise (auto) only
 * where git itself would colour a diff: standard output a terminal or git's
 * pager (GIT_PAGER_IN_USE), NO_COLOR unset, and git's color.diff /
 * color.ui / color.pager saying yes (`git config --get-colorbool`, which
 * also sees `git -c color.diff=...`). */
static bool want_color(const pbd_CliOptions *o) {
  if (!pbd_Report_HasColor(o->format)) return false;
  if (o->color && strcmp(o->color, "auto") != 0) return o->report.color;
  const char *no = getenv("NO_COLOR");
  if (no && *no) return false;
  bool tty = isatty(STDOUT_FILENO) == 1;
  if (!tty && !env_true("GIT_PAGER_IN_USE")) return false;
  char *argv[] = {"git", "config", "--get-colorbool", "color.diff", tty ? "true" : "false", NULL};
  char answer[16];
  if (run_capture(argv, answer, sizeof answer) == 0) return strncmp(answer, "true", 4) == 0;
  const char *term = getenv("TERM"); /* no git to ask: git's defaults */
  return term && strcmp(term, "dumb") != 0;
}

/* An object id as git writes it (SHA-1 or SHA-256). */
static bool is_hex(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 64) return false;
  for (; *s; s++)
    if (!isxdigit((unsigned char)*s)) return false;
  return true;
}

static bool is_mode(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '7') return false;
  return true;
}

bool pbd_Cli_GitIdOrGone(const char *s) { return !strcmp(s, ".") || is_hex(s); }
bool pbd_Cli_GitModeOrGone(const char *s) { return !strcmp(s, ".") || is_mode(s); }

static bool all_zeros(const char *s) {
  for (; *s; s++)
    if (*s != '0') return false;
  return true;
}

/* A path as git writes it in headers: PREFIX+PATH, quoted as git quotes
 * paths (cli/names.c). */
static void quoted_path(pbd_Buf *b, const char *prefix, const char *path) {
  pbd_Cli_AppendName(b, prefix, path);
}

/* One header line, bold when colouring. */
static void meta_line(pbd_Buf *b, bool color, const char *line, size_t n) {
  if (color) pbd_Buf_AppendStr(b, SGR_META);
  pbd_Buf_Append(b, line, n);
  if (color) pbd_Buf_AppendStr(b, SGR_RESET);
  pbd_Buf_AppendChar(b, '\n');
}

/* A `--- ` or `+++ ` line: git ends the name with a tab when the path holds
 * a space, so that patch tools find where it ends. */
static void file_line(pbd_Buf *h, bool color, const char *marker, const char *prefix,
                      const char *path, bool gone) {
  pbd_Buf line = {0};
  pbd_Buf_AppendStr(&line, marker);
  if (gone) pbd_Buf_AppendStr(&line, "/dev/null");
  else quoted_path(&line, prefix, path);
  if (!gone && strchr(path, ' ')) pbd_Buf_AppendChar(&line, '\t');
  meta_line(h, color, line.data, line.len);
  if (line.oom) h->oom = true;
  pbd_Buf_Free(&line);
}

/* git's XFRM message (rename and copy lines), without colour codes and
 * without its index line (we write our own). */
static void xfrm_lines(pbd_Buf *b, bool color, const char *xfrm) {
  pbd_Buf plain = {0};
  for (const char *p = xfrm; *p; p++) {
    if (*p == '\033' && p[1] == '[') { /* drop an SGR sequence */
      const char *q = p + 2;
      while (*q && (isdigit((unsigned char)*q) || *q == ';')) q++;
      if (*q == 'm') {
        p = q;
        continue;
      }
    }
    pbd_Buf_AppendChar(&plain, *p);
  }
  for (const char *p = plain.data; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (n && strncmp(p, "index ", 6) != 0) { /* git quotes the names; escape what else is there */
      pbd_Buf raw = {0}, safe = {0};
      pbd_Buf_Append(&raw, p, n);
      pbd_Cli_AppendEscaped(&safe, raw.data ? raw.data : "");
      meta_line(b, color, safe.data ? safe.data : "", safe.len);
      if (raw.oom || safe.oom) b->oom = true;
      pbd_Buf_Free(&raw);
      pbd_Buf_Free(&safe);
    }
    p += n + (nl ? 1 : 0);
  }
  pbd_Buf_Free(&plain);
}

/* Whether a path is a regular file (or /dev/null): what git names is one, but an operand
 * could name a device or a FIFO, which hash-object and a byte comparison
 * would read without end (/dev/zero). */
static bool regular_file(const char *path, off_t *size) {
  if (!strcmp(path, "/dev/null")) { /* git's side of an added or deleted file: empty */
    if (size) *size = 0;
    return true;
  }
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (size) *size = st.st_size;
  return true;
}

/* The blob id git would give a work-tree file (git passes zeros for those):
 * `git hash-object -- FILE`; `hex` is left as it is when that fails or the
 * file is not a regular one. */
static void work_tree_hex(const char *file, char *hex, size_t n) {
  if (!regular_file(file, NULL)) return;
  char *argv[] = {"git", "hash-object", "--", (char *)file, NULL};
  char out[160];
  if (run_capture(argv, out, sizeof out) != 0) return;
  out[strcspn(out, "\n")] = '\0';
  size_t len = strlen(out);
  if (is_hex(out) && len < n) memcpy(hex, out, len + 1);
}

/* Whether two regular files hold the same bytes (false when one cannot be
 * read or is not a regular file). */
static bool same_bytes(const char *a, const char *b) {
  off_t sa, sb;
  if (!regular_file(a, &sa) || !regular_file(b, &sb) || sa != sb) return false;
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  bool same = fa && fb;
  char ba[1 << 15], bb[1 << 15];
  while (same) {
    size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
    if (na != nb || memcmp(ba, bb, na) != 0) same = false;
    if (na < sizeof ba) {
      same = same && !ferror(fa) && !ferror(fb);
      break;
    }
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

/* git's arguments: side 0 the old file, 1 the new one. */
typedef struct {
  const char *path, *new_path; /* in the repository (new_path: after a rename) */
  const char *xfrm;            /* rename or copy lines, or NULL */
  const char *file[2], *mode[2];
  char hex[2][72];             /* "0000000" for a missing side */
  bool gone[2];                /* added (old gone) or deleted (new gone) */
} GitArgs;

/* Reads the 7 or 9 arguments; false with a usage error on stderr. */
static bool parse_args(char **args, GitArgs *g) {
  memset(g, 0, sizeof *g);
  g->path = g->new_path = args[0];
  if (args[7] && args[8]) g->new_path = args[7], g->xfrm = args[8];
  const char *bad = NULL, *what = NULL;
  for (int side = 0; side < 2; side++) {
    const char *file = args[1 + 3 * side], *hex = args[2 + 3 * side], *mode = args[3 + 3 * side];
    g->gone[side] = !strcmp(hex, ".");
    g->file[side] = g->gone[side] ? "/dev/null" : file;
    g->mode[side] = mode;
    snprintf(g->hex[side], sizeof g->hex[side], "%s", g->gone[side] ? "0000000" : hex);
    if (!bad && !g->gone[side] && !is_hex(hex)) bad = hex, what = "' is not an object id";
    if (!bad && !g->gone[side] && !is_mode(mode)) bad = mode, what = "' is not a file mode";
  }
  bool neither = !bad && g->gone[0] && g->gone[1];
  char quoted[256];
  if (bad) bad = pbd_Cli_Name(bad, quoted, sizeof quoted);
  if (bad || neither)
    fprintf(stderr,
            "pbdiff: 7 operands are git's external-diff form (PATH OLD-FILE OLD-HEX OLD-MODE "
            "NEW-FILE NEW-HEX NEW-MODE); %s%s%s\n"
            "Try 'pbdiff --help' for more information.\n",
            bad ? "'" : "", bad ? bad : "OLD-HEX and NEW-HEX cannot both be '.'",
            bad ? what : "");
  return !bad && !neither;
}

/* The header lines (see the top of the file).  The ids are compared whole
 * and written abbreviated. */
static void header(pbd_Buf *h, const GitArgs *g, bool bytes_differ, bool color) {
  pbd_Buf line = {0};
  pbd_Buf_AppendStr(&line, "diff --pbdiff ");
  quoted_path(&line, "a/", g->path);
  pbd_Buf_AppendChar(&line, ' ');
  quoted_path(&line, "b/", g->new_path);
  meta_line(h, color, line.data, line.len);
  bool same_mode = !g->gone[0] && !g->gone[1] && !strcmp(g->mode[0], g->mode[1]);
  pbd_Buf_Truncate(&line, 0);
  if (g->gone[0]) {
    pbd_Buf_Printf(&line, "new file mode %s", g->mode[1]);
    meta_line(h, color, line.data, line.len);
  } else if (g->gone[1]) {
    pbd_Buf_Printf(&line, "deleted file mode %s", g->mode[0]);
    meta_line(h, color, line.data, line.len);
  } else if (!same_mode) {
    pbd_Buf_Printf(&line, "old mode %s", g->mode[0]);
    meta_line(h, color, line.data, line.len);
    pbd_Buf_Truncate(&line, 0);
    pbd_Buf_Printf(&line, "new mode %s", g->mode[1]);
    meta_line(h, color, line.data, line.len);
  }
  if (g->xfrm) xfrm_lines(h, color, g->xfrm);
  if (strcmp(g->hex[0], g->hex[1]) != 0) {
    pbd_Buf_Truncate(&line, 0);
    pbd_Buf_Printf(&line, "index %.*s..%.*s", kHexAbbrev, g->hex[0], kHexAbbrev, g->hex[1]);
    if (same_mode) pbd_Buf_Printf(&line, " %s", g->mode[0]);
    meta_line(h, color, line.data, line.len);
  }
  if (bytes_differ) {
    file_line(h, color, "--- ", "a/", g->path, g->gone[0]);
    file_line(h, color, "+++ ", "b/", g->new_path, g->gone[1]);
  }
  if (line.oom) h->oom = true;
  pbd_Buf_Free(&line);
}

/* Compares the two sides with the options, the text report into a string
 * (*body, malloc'd) so that the header can come first.  0, 1 or 2 (with
 * the error in e). */
static int compare_to_string(const pbd_CliOptions *o, const GitArgs *g, const char *lname,
                             const char *rname, char **body, size_t *len, pbd_CliError *e) {
  *body = NULL;
  *len = 0;
  FILE *mem = open_memstream(body, len);
  if (!mem) {
    pbd_CliError_Set(e, false, "out of memory");
    return kExitTrouble;
  }
  int status = pbd_Cli_ComparePair(o, g->file[0], g->file[1], lname, rname, mem, e);
  if (fclose(mem) != 0 && status != kExitTrouble) {
    pbd_CliError_Set(e, false, "out of memory");
    status = kExitTrouble;
  }
  return status;
}

/* Whether a file is a Git LFS pointer (the object itself not fetched). */
static bool lfs_pointer(const char *file) {
  static const char kMagic[] = "version https://git-lfs.github.com/spec/";
  char head[sizeof kMagic];
  FILE *f = fopen(file, "rb");
  size_t n = f ? fread(head, 1, sizeof kMagic - 1, f) : 0;
  if (f) fclose(f);
  return n == sizeof kMagic - 1 && memcmp(head, kMagic, n) == 0;
}

/* What stands for the report of a pair that could not be compared: why,
 * and (as git says it of binary files) whether the bytes differ. */
static void not_compared(pbd_Buf *b, const GitArgs *g, const pbd_CliError *e, bool bytes_differ) {
  bool lfs = false;
  for (int side = 0; side < 2; side++) {
    if (g->gone[side] || !lfs_pointer(g->file[side])) continue;
    pbd_Buf_AppendStr(b, "pbdiff: not compared by meaning: ");
    quoted_path(b, side ? "b/" : "a/", side ? g->new_path : g->path);
    pbd_Buf_AppendStr(b, " is a Git LFS pointer (fetch the object: git lfs pull)\n");
    lfs = true;
  }
  if (!lfs) { /* the message names a/PATH or b/PATH first: quoted as in the header */
    pbd_Buf_AppendStr(b, "pbdiff: not compared by meaning: ");
    const char *rest = e->msg;
    for (int side = 0; side < 2 && rest == e->msg; side++) {
      const char *path = side ? g->new_path : g->path;
      size_t n = strlen(path);
      if (!g->gone[side] && !strncmp(rest, side ? "b/" : "a/", 2) && !strncmp(rest + 2, path, n) &&
          rest[2 + n] == ':') {
        quoted_path(b, side ? "b/" : "a/", path);
        rest += 2 + n;
      }
    }
    pbd_Cli_AppendEscaped(b, rest);
    pbd_Buf_AppendChar(b, '\n');
  }
  if (!bytes_differ) return;
  pbd_Buf_AppendStr(b, "Binary files ");
  if (g->gone[0]) pbd_Buf_AppendStr(b, "/dev/null");
  else quoted_path(b, "a/", g->path);
  pbd_Buf_AppendStr(b, " and ");
  if (g->gone[1]) pbd_Buf_AppendStr(b, "/dev/null");
  else quoted_path(b, "b/", g->new_path);
  pbd_Buf_AppendStr(b, " differ\n");
}

int pbd_Cli_GitDriver(const pbd_CliOptions *o, const pbd_Config *cfg,
                      const pbd_CliError *config_error, char **args) {
  if (!args[1]) { /* an unmerged path (git diff --cached in a conflict): as git says it */
    pbd_Buf line = {0};
    pbd_Buf_AppendStr(&line, "* Unmerged path ");
    quoted_path(&line, "", args[0]);
    printf("%s\n", line.data ? line.data : "");
    pbd_Buf_Free(&line);
    return kExitEqual;
  }
  GitArgs g;
  if (!parse_args(args, &g)) return kExitTrouble;

  /* the sides' names in errors (and for guessing the format from the
   * extension): a/PATH, b/NEW-PATH, /dev/null */
  pbd_Buf name[2] = {{0}, {0}};
  for (int side = 0; side < 2; side++) {
    if (g.gone[side]) pbd_Buf_AppendStr(&name[side], "/dev/null");
    else pbd_Buf_Printf(&name[side], "%s/%s", side ? "b" : "a", side ? g.new_path : g.path);
  }
  pbd_CliOptions eff = pbd_Config_Apply(cfg, o, g.path); /* the path in the repository */
  int status = kExitTrouble;
  if (name[0].oom || name[1].oom) {
    fprintf(stderr, "pbdiff: out of memory\n");
  } else if (!pbd_Report_TakesPatchHeader(eff.format)) {
    /* JSON and other machine formats: one report per file naming both
     * sides, no text header */
    eff.report.left_name = name[0].data;
    eff.report.right_name = name[1].data;
    pbd_CliError error = {0};
    if (config_error) error = *config_error, status = kExitTrouble;
    else status = pbd_Cli_ComparePair(&eff, g.file[0], g.file[1], name[0].data, name[1].data,
                                      stdout, &error);
    pbd_CliError_PrintNote(stderr, &error);
    if (status == kExitTrouble) { /* said on standard error, and git goes on */
      pbd_CliError_Print(stderr, &error, "pbdiff");
      status = kExitDifferent;
    }
  } else {
    eff.report.left_name = eff.report.right_name = NULL; /* the header names them */
    eff.report.color = want_color(&eff);
    char *body;
    size_t body_len;
    pbd_CliError error = {0};
    if (config_error) error = *config_error, status = kExitTrouble, body = NULL, body_len = 0;
    else status = compare_to_string(&eff, &g, name[0].data, name[1].data, &body, &body_len, &error);
    pbd_CliError_PrintNote(stderr, &error);
    for (int side = 0; side < 2; side++)
      if (!g.gone[side] && all_zeros(g.hex[side]))
        work_tree_hex(g.file[side], g.hex[side], sizeof g.hex[side]);
    bool bytes_differ = status == kExitDifferent || !same_bytes(g.file[0], g.file[1]);
    pbd_Buf h = {0};
    header(&h, &g, bytes_differ && status != kExitTrouble, eff.report.color);
    if (status == kExitTrouble) { /* shown, and git goes on */
      not_compared(&h, &g, &error, bytes_differ);
      status = bytes_differ ? kExitDifferent : kExitEqual;
      body_len = 0;
    }
    if (h.oom) {
      fprintf(stderr, "pbdiff: out of memory\n");
      status = kExitTrouble;
    } else {
      fwrite(h.data, 1, h.len, stdout);
      if (body_len) fwrite(body, 1, body_len, stdout);
      else if (bytes_differ && status == kExitEqual && !eff.quiet) fputs(kEqualNote, stdout);
    }
    pbd_Buf_Free(&h);
    free(body);
  }
  pbd_Cli_FreeApplied(&eff);
  pbd_Buf_Free(&name[0]);
  pbd_Buf_Free(&name[1]);
  if (status == kExitTrouble) return kExitTrouble;
  /* git dies on any other status unless told to trust it */
  return status == kExitDifferent && env_true("GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE") ? kExitDifferent
                                                                                   : kExitEqual;
}
