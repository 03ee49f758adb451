/* pbdiff CLI — `--format github` (docs/ci.md): GitHub Actions workflow
 * commands, one `::error file=RIGHT,title=pbdiff::PATH: LEFT -> RIGHT` per
 * difference, at most kGh_MaxErrors of them (GitHub keeps 10 error
 * annotations per step and drops the rest without a word), then one
 * `::notice` with the count of the rest; and, when $GITHUB_STEP_SUMMARY
 * names a file, a Markdown table of the differences appended to it (up to
 * kGh_MaxSummary bytes, GitHub's bound on a step summary).
 *
 * Under -r the whole run keeps to the same 10, since it is one step; each
 * file's own report (a part of the run's) is its error lines, a line
 * `\x1eREST` (the differences it did not annotate), and its rows of the
 * table; the run's reporter puts them together. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/html_impl.h"

enum { kGh_MaxErrors = 10 };
enum { kGh_MaxSummary = 1000 * 1000 };

typedef struct {
  size_t errors, rest;   /* lines written; differences past kGh_MaxErrors */
  pbd_Buf rows;          /* the table's rows */
  size_t rows_left_out;  /* differences past kGh_MaxSummary */
  pbd_Buf msg, cmd;
} Github;

/* GitHub's escapes of a workflow command's message (%, CR, LF) and, in a
 * property, also ':' and ','; other control bytes become U+FFFD. */
static void gh_escape(pbd_Buf *b, const char *s, size_t n, bool property) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%') pbd_Buf_AppendStr(b, "%25");
    else if (c == '\r') pbd_Buf_AppendStr(b, "%0D");
    else if (c == '\n') pbd_Buf_AppendStr(b, "%0A");
    else if (property && c == ':') pbd_Buf_AppendStr(b, "%3A");
    else if (property && c == ',') pbd_Buf_AppendStr(b, "%2C");
    else if (c < 0x20 || c == 0x7f) pbd_Buf_AppendStr(b, "\xef\xbf\xbd");
    else pbd_Buf_AppendChar(b, (char)c);
  }
}

/* `::KIND file=FILE,title=pbdiff::MESSAGE` and a newline. */
static void gh_command(pbd_Buf *b, const char *kind, const char *file, const char *msg, size_t n) {
  pbd_Buf_Printf(b, "::%s ", kind);
  if (file) {
    pbd_Buf_AppendStr(b, "file=");
    gh_escape(b, file, strlen(file), true);
    pbd_Buf_AppendChar(b, ',');
  }
  pbd_Buf_AppendStr(b, "title=pbdiff::");
  gh_escape(b, msg, n, false);
  pbd_Buf_AppendChar(b, '\n');
}

/* Text for a Markdown table cell: HTML-escaped, with Markdown's own
 * characters (and '|', which ends a cell) as character references, so a
 * value can neither end its cell nor be read as markup. */
static void md_cell(pbd_Buf *b, const char *s, size_t n) {
  pbd_Buf t = {0};
  hp_escape(&t, s, n);
  for (size_t i = 0; i < t.len; i++) {
    char c = t.data[i];
    if (strchr("|*_`[]~\\$", c)) pbd_Buf_Printf(b, "&#%d;", c);
    else if (c == '\n' || c == '\t') pbd_Buf_AppendChar(b, ' ');
    else pbd_Buf_AppendChar(b, c);
  }
  if (t.oom) b->oom = true;
  pbd_Buf_Free(&t);
}

static void side_cell(pbd_Buf *b, const pbd_Value *v) {
  pbd_Buf t = {0};
  rp_short_value(&t, v);
  if (t.len) pbd_Buf_AppendStr(b, "<code>"), md_cell(b, t.data, t.len), pbd_Buf_AppendStr(b, "</code>");
  if (t.oom) b->oom = true;
  pbd_Buf_Free(&t);
}

static int gh_edit(pbd_Reporter *r, const pbd_Edit *e) {
  Github *g = r->own;
  size_t plen;
  const char *path = rp_path_text(r, e, false, &plen);
  if (!*path) path = ".";
  if (g->errors < kGh_MaxErrors) {
    pbd_Buf_Truncate(&g->msg, 0);
    pbd_Buf_Printf(&g->msg, "%s: ", path);
    rp_describe_edit(&g->msg, e);
    pbd_Buf_Truncate(&g->cmd, 0);
    gh_command(&g->cmd, "error", r->o.right_name, g->msg.data, g->msg.len);
    if (g->msg.oom || rp_flush_line(r, &g->cmd)) return r->failed = true, 1;
    g->errors++;
  } else {
    g->rest++;
  }
  if (g->rows.len > kGh_MaxSummary) {
    g->rows_left_out++;
    return 0;
  }
  pbd_Buf *b = &g->rows;
  pbd_Buf_AppendStr(b, "| ");
  if (r->o.fragment && r->o.test_name) {
    pbd_Buf_AppendStr(b, "<code>");
    md_cell(b, r->o.test_name, strlen(r->o.test_name));
    pbd_Buf_AppendStr(b, "</code> | ");
  }
  pbd_Buf_AppendStr(b, "<code>");
  md_cell(b, path, strlen(path));
  pbd_Buf_Printf(b, "</code> | %s | ", pbd_EditKind_String(e->kind));
  side_cell(b, &e->left);
  pbd_Buf_AppendStr(b, " | ");
  side_cell(b, &e->right);
  pbd_Buf_AppendStr(b, " |\n");
  if (b->oom) return r->failed = true, 1;
  return 0;
}

static const char kTableHead[] = "| path | kind | LEFT | RIGHT |\n|---|---|---|---|\n";
static const char kFilesTableHead[] =
    "| file | path | kind | LEFT | RIGHT |\n|---|---|---|---|---|\n";

/* Appends text to the file $GITHUB_STEP_SUMMARY names; true when it is
 * unset or the text was written. */
static bool append_summary(const pbd_Buf *text) {
  const char *path = getenv("GITHUB_STEP_SUMMARY");
  if (!path || !*path) return true;
  FILE *f = fopen(path, "a");
  if (!f) return false;
  bool ok = text->oom ? false : fwrite(text->data, 1, text->len, f) == text->len;
  return fclose(f) == 0 && ok;
}

static void more_rows(pbd_Buf *b, size_t n) {
  if (n) pbd_Buf_Printf(b, "\n... %zu more difference%s not listed: a step summary holds at most 1 MiB.\n",
                        n, n == 1 ? "" : "s");
}

static void rest_notice(pbd_Buf *b, const char *file, size_t rest) {
  if (!rest) return;
  pbd_Buf m = {0};
  pbd_Buf_Printf(&m, "%zu more difference%s not annotated (GitHub keeps %d error annotations a step)%s",
                 rest, rest == 1 ? "" : "s", kGh_MaxErrors,
                 getenv("GITHUB_STEP_SUMMARY") ? "; the step summary lists them" : "");
  gh_command(b, "notice", file, m.oom ? "" : m.data, m.len);
  pbd_Buf_Free(&m);
}

static void gh_finish(pbd_Reporter *r, bool equal) {
  Github *g = r->own;
  pbd_Buf out = {0};
  if (r->o.fragment) { /* a file of -r: the run's reporter writes the rest */
    pbd_Buf_Printf(&out, "\x1e%zu %zu\n", g->rest, g->rows_left_out);
    if (g->rows.len) pbd_Buf_Append(&out, g->rows.data, g->rows.len);
    if (out.oom) r->failed = true;
    else fwrite(out.data, 1, out.len, r->out);
    pbd_Buf_Free(&out);
    return;
  }
  rest_notice(&out, r->o.right_name, g->rest);
  if (out.oom) r->failed = true;
  else if (out.len) fwrite(out.data, 1, out.len, r->out);
  pbd_Buf_Truncate(&out, 0);
  pbd_Buf_AppendStr(&out, "### pbdiff");
  if (r->o.left_name && r->o.right_name) {
    pbd_Buf_AppendStr(&out, ": <code>");
    md_cell(&out, r->o.left_name, strlen(r->o.left_name));
    pbd_Buf_AppendStr(&out, "</code> vs <code>");
    md_cell(&out, r->o.right_name, strlen(r->o.right_name));
    pbd_Buf_AppendStr(&out, "</code>");
  }
  if (equal) {
    pbd_Buf_AppendStr(&out, "\n\nequal\n\n");
  } else {
    pbd_Buf_Printf(&out, "\n\n%zu difference%s\n\n%s", r->total, r->total == 1 ? "" : "s", kTableHead);
    if (g->rows.len) pbd_Buf_Append(&out, g->rows.data, g->rows.len);
    more_rows(&out, g->rows_left_out);
    pbd_Buf_AppendChar(&out, '\n');
  }
  if (!append_summary(&out)) r->failed = true;
  pbd_Buf_Free(&out);
}

static bool gh_begin(pbd_Reporter *r) {
  r->own = calloc(1, sizeof(Github));
  r->o.max_diffs = 0; /* the limits are this format's own */
  return r->own != NULL;
}

static void gh_free(pbd_Reporter *r) {
  Github *g = r->own;
  if (!g) return;
  pbd_Buf_Free(&g->rows);
  pbd_Buf_Free(&g->msg);
  pbd_Buf_Free(&g->cmd);
  free(g);
  r->own = NULL;
}

/* ---- pbdiff -r ------------------------------------------------------------------- */

typedef struct {
  size_t errors, rest;
  pbd_Buf rows;
  size_t rows_left_out;
  bool any;
} GithubFiles;

static GithubFiles *gh_files(pbd_FilesReporter *s) {
  if (!s->own && !(s->own = calloc(1, sizeof(GithubFiles)))) s->failed = true;
  return s->own;
}

static void gh_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                            pbd_ReportOptions *ro) {
  rp_files_name_both(s, f, ro);
  ro->fragment = true;
  ro->test_name = f->rel;
}

/* One annotation of the run, or counted past the step's limit. */
static void run_error(pbd_FilesReporter *s, GithubFiles *g, const char *line, size_t n) {
  if (g->errors < kGh_MaxErrors) {
    fwrite(line, 1, n, s->out);
    g->errors++;
  } else {
    g->rest++;
  }
}

static void file_row(GithubFiles *g, const char *rel, const char *what) {
  if (g->rows.len > kGh_MaxSummary) {
    g->rows_left_out++;
    return;
  }
  pbd_Buf_AppendStr(&g->rows, "| <code>");
  md_cell(&g->rows, rel, strlen(rel));
  pbd_Buf_AppendStr(&g->rows, "</code> | | ");
  md_cell(&g->rows, what, strlen(what));
  pbd_Buf_AppendStr(&g->rows, " | | |\n");
}

static void gh_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  GithubFiles *g = gh_files(s);
  if (!g || (f->side == kPbd_File_Both && f->status == 0)) return;
  g->any = true;
  if (f->side != kPbd_File_Both || f->status == 2) {
    pbd_Buf line = {0}, msg = {0};
    bool left = f->side == kPbd_File_OnlyLeft;
    if (f->side == kPbd_File_Both) pbd_Buf_Printf(&msg, "cannot compare: %s", f->error ? f->error : "");
    else pbd_Buf_Printf(&msg, "only in %s", left ? s->o.dir1 : s->o.dir2);
    pbd_Buf file = {0}; /* the file as the run names it: DIR/REL */
    if (f->side == kPbd_File_Both && f->right_path) {
      pbd_Buf_AppendStr(&file, f->right_path);
    } else {
      const char *dir = left ? s->o.dir1 : s->o.dir2;
      size_t n = strlen(dir);
      pbd_Buf_Printf(&file, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", f->rel);
    }
    gh_command(&line, "error", file.oom ? f->rel : file.data, msg.oom ? "" : msg.data, msg.len);
    pbd_Buf_Free(&file);
    if (line.oom || msg.oom) s->failed = true;
    else run_error(s, g, line.data, line.len), file_row(g, f->rel, msg.data);
    pbd_Buf_Free(&line);
    pbd_Buf_Free(&msg);
    return;
  }
  const char *p = f->report, *end = p + f->report_len;
  while (p < end && *p != '\x1e') { /* the file's annotations */
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
    run_error(s, g, p, n);
    p += n;
  }
  if (p < end) { /* \x1eREST LEFT_OUT, then the rows */
    char *q;
    g->rest += (size_t)strtoull(p + 1, &q, 10);
    g->rows_left_out += (size_t)strtoull(q, &q, 10);
    const char *rows = memchr(p, '\n', (size_t)(end - p));
    rows = rows ? rows + 1 : end;
    if (g->rows.len + (size_t)(end - rows) > kGh_MaxSummary) {
      for (const char *r = rows; r < end; r++) g->rows_left_out += *r == '\n';
    } else {
      pbd_Buf_Append(&g->rows, rows, (size_t)(end - rows));
    }
  }
}

static void gh_files_end(pbd_FilesReporter *s, bool equal) {
  GithubFiles *g = gh_files(s);
  if (!g) return;
  pbd_Buf out = {0};
  rest_notice(&out, NULL, g->rest);
  if (out.len) fwrite(out.data, 1, out.len, s->out);
  pbd_Buf_Truncate(&out, 0);
  pbd_Buf_AppendStr(&out, "### pbdiff -r <code>");
  md_cell(&out, s->o.dir1, strlen(s->o.dir1));
  pbd_Buf_AppendStr(&out, "</code> <code>");
  md_cell(&out, s->o.dir2, strlen(s->o.dir2));
  pbd_Buf_AppendStr(&out, "</code>\n\n");
  pbd_Buf totals = {0};
  rp_files_totals_text(s, &totals);
  if (totals.len) md_cell(&out, totals.data, totals.len - 1);
  pbd_Buf_Free(&totals);
  pbd_Buf_AppendStr(&out, "\n\n");
  if (!equal && g->any) {
    pbd_Buf_AppendStr(&out, kFilesTableHead);
    if (g->rows.len) pbd_Buf_Append(&out, g->rows.data, g->rows.len);
    more_rows(&out, g->rows_left_out);
    pbd_Buf_AppendChar(&out, '\n');
  }
  if (g->rows.oom || !append_summary(&out)) s->failed = true;
  pbd_Buf_Free(&out);
}

static void gh_files_free(pbd_FilesReporter *s) {
  GithubFiles *g = s->own;
  if (!g) return;
  pbd_Buf_Free(&g->rows);
  free(g);
  s->own = NULL;
}

const pbd_FormatDef kPbd_FormatDef_Github = {
    .name = "github",
    .help = "'github': GitHub Actions annotations (at most 10)\nand a table in $GITHUB_STEP_SUMMARY, "
            "see docs/ci.md",
    .names_inputs = true,
    .begin = gh_begin, .edit = gh_edit, .finish = gh_finish, .close = rp_flush_out,
    .free_own = gh_free,
    .file_options = gh_file_options, .file = gh_file, .files_end = gh_files_end,
    .files_free = gh_files_free,
};
