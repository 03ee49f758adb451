/* pbdiff CLI — reporters: the table of output formats and what every format
 * shares (construction, counting, --max-diffs, --explain, colour, paths as
 * text); each format's own steps are in its file (text.c, json.c,
 * junit.c).  See report.h for the formats. */
#include "pbdiff/format/format.h"
#include "report/report_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

const pbd_EditKind kPbd_KindOrder[kKinds] = {kPbd_Edit_Changed, kPbd_Edit_Added,
                                             kPbd_Edit_Removed, kPbd_Edit_Presence,
                                             kPbd_Edit_Moved};

/* ---- the table ----------------------------------------------------------------- */

#define PBD_FORMAT_ROW(id) &kPbd_FormatDef_##id,
static const pbd_FormatDef *const kFormats[] = {PBD_REPORT_FORMATS(PBD_FORMAT_ROW)};
#undef PBD_FORMAT_ROW
_Static_assert(sizeof kFormats / sizeof kFormats[0] == kPbd_Report_FormatCount,
               "one row per format");

static const pbd_FormatDef *format_of(pbd_ReportFormat fmt) {
  return (unsigned)fmt < kPbd_Report_FormatCount ? kFormats[fmt] : NULL;
}

bool pbd_Report_FormatByName(const char *name, pbd_ReportFormat *fmt) {
  for (size_t i = 0; i < kPbd_Report_FormatCount; i++) {
    if (strcmp(kFormats[i]->name, name) == 0) {
      *fmt = (pbd_ReportFormat)i;
      return true;
    }
  }
  return false;
}

const char *pbd_Report_FormatNames(void) {
  static char names[128];
  if (!names[0]) {
    for (size_t i = 0; i < kPbd_Report_FormatCount; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
               i == 0 ? "" : i + 1 == kPbd_Report_FormatCount ? " or " : ", ", kFormats[i]->name);
  }
  return names;
}

const char *pbd_Report_FormatName(pbd_ReportFormat fmt) {
  return format_of(fmt) ? format_of(fmt)->name : "?";
}

const char *pbd_Report_FormatHelp(void) {
  static pbd_Buf help;
  if (help.len) return help.data;
  for (size_t i = 0; i < kPbd_Report_FormatCount; i++)
    pbd_Buf_Printf(&help, "%s%s", i ? ";\n" : "", kFormats[i]->help);
  return help.oom ? "" : help.data;
}

bool pbd_Report_NamesInputs(pbd_ReportFormat fmt) {
  return format_of(fmt) && format_of(fmt)->names_inputs;
}

bool pbd_Report_ReportsTrouble(pbd_ReportFormat fmt) {
  return format_of(fmt) && format_of(fmt)->trouble_report;
}

bool pbd_Report_HasStat(pbd_ReportFormat fmt) { return format_of(fmt) && format_of(fmt)->stat; }
bool pbd_Report_HasColor(pbd_ReportFormat fmt) { return format_of(fmt) && format_of(fmt)->color; }
bool pbd_Report_HasSummary(pbd_ReportFormat fmt) {
  return format_of(fmt) && format_of(fmt)->summary;
}
bool pbd_Report_TakesPatchHeader(pbd_ReportFormat fmt) {
  return format_of(fmt) && format_of(fmt)->patch_header;
}

/* ---- colour ------------------------------------------------------------------ */

bool pbd_Report_ColorModeValid(const char *mode) {
  return mode && (strcmp(mode, "auto") == 0 || strcmp(mode, "always") == 0 ||
                  strcmp(mode, "never") == 0);
}

bool pbd_Report_ShouldColor(const char *mode, int fd) {
  if (!mode) mode = "auto";
  if (strcmp(mode, "always") == 0) return true;
  if (strcmp(mode, "auto") != 0) return false;
  const char *no = getenv("NO_COLOR");
  if (no && no[0]) return false;
  const char *term = getenv("TERM");
  if (term && strcmp(term, "dumb") == 0) return false;
  return isatty(fd) == 1;
}

void rp_color_on(const pbd_Reporter *r, pbd_Buf *b, const char *sgr) {
  if (r->o.color) pbd_Buf_AppendStr(b, sgr);
}

void rp_color_off(const pbd_Reporter *r, pbd_Buf *b) {
  if (r->o.color) pbd_Buf_AppendStr(b, SGR_RESET);
}

/* ---- helpers ------------------------------------------------------------------ */

char *rp_dup(const char *s, bool *failed) {
  if (!s) return NULL;
  char *d = strdup(s);
  if (!d) *failed = true;
  return d;
}

int rp_flush_line(pbd_Reporter *r, pbd_Buf *b) {
  if (b->oom) {
    r->failed = true;
    return 1;
  }
  fwrite(b->data, 1, b->len, r->out);
  return 0;
}

const char *rp_path_text(pbd_Reporter *r, const pbd_Edit *e, bool both, size_t *plen) {
  pbd_Buf_Truncate(&r->path, 0);
  pbd_Buf_AppendStr(&r->path, "");
  size_t n = e->path ? e->path->count : 0;
  size_t pc = e->parent_count < n ? e->parent_count : n;
  void (*format)(pbd_Buf *, const pbd_Path *, size_t, size_t) =
      both ? pbd_Path_FormatBothIndices : pbd_Path_Format;
  if (e->path) format(&r->path, e->path, 0, pc);
  *plen = r->path.len;
  if (e->path) format(&r->path, e->path, pc, n);
  return r->path.oom ? "" : r->path.data;
}

/* Whether text holds what would leave its line or drive a terminal. */
static bool needs_escape(const char *text, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f || (unsigned char)text[i] >= 0x80) return true;
  return false;
}

/* Escapes r->path in place from `from` on (cli/names.c). */
static void escape_path_from(pbd_Reporter *r, size_t from) {
  pbd_Buf raw = {0};
  pbd_Buf_Append(&raw, r->path.data + from, r->path.len - from);
  pbd_Buf_Truncate(&r->path, from);
  pbd_Cli_AppendEscaped(&r->path, raw.data ? raw.data : "");
  if (raw.oom) r->path.oom = true;
  pbd_Buf_Free(&raw);
}

const char *rp_path_shown(pbd_Reporter *r, const pbd_Edit *e, bool both, size_t *plen) {
  const char *path = rp_path_text(r, e, both, plen);
  if (r->path.oom || !needs_escape(path, r->path.len)) return path;
  pbd_Buf rest = {0}; /* the parent part and the rest, each escaped, *plen kept true */
  pbd_Buf_Append(&rest, r->path.data + *plen, r->path.len - *plen);
  pbd_Buf_Truncate(&r->path, *plen);
  escape_path_from(r, 0);
  *plen = r->path.len;
  pbd_Cli_AppendEscaped(&r->path, rest.data ? rest.data : "");
  if (rest.oom) r->path.oom = true;
  pbd_Buf_Free(&rest);
  return r->path.oom ? "" : r->path.data;
}

bool rp_flush_out(pbd_Reporter *r, bool equal) {
  (void)equal;
  return fflush(r->out) == 0 && !r->failed && !ferror(r->out);
}

/* ---- one pair ------------------------------------------------------------------ */

pbd_Reporter *pbd_Reporter_New(pbd_ReportFormat fmt, FILE *out, const pbd_ReportOptions *opts) {
  const pbd_FormatDef *f = format_of(fmt);
  pbd_Reporter *r = f ? calloc(1, sizeof *r) : NULL;
  if (!r) return NULL;
  r->f = f;
  r->out = out;
  if (opts) r->o = *opts;
  bool failed = false;
  r->left_name = rp_dup(r->o.left_name, &failed);
  r->right_name = rp_dup(r->o.right_name, &failed);
  r->o.left_name = r->left_name;
  r->o.right_name = r->right_name;
  if (!f->stat) r->o.stat = false;
  if (!f->color) r->o.color = false;
  if (failed || (f->begin && !f->begin(r))) {
    pbd_Reporter_Free(r);
    return NULL;
  }
  return r;
}

int pbd_Reporter_Edit(void *reporter, const pbd_Edit *e) {
  pbd_Reporter *r = reporter;
  if (r->failed) return 1;
  r->total++;
  if ((unsigned)e->kind < kKinds) r->counts[e->kind]++;
  bool hidden = !r->o.stat && rp_runs_edit(r, e);
  if (r->o.max_diffs && r->shown >= r->o.max_diffs && !r->o.stat) return 0;
  if (hidden) {
    r->summarised++;
    return 0;
  }
  int rc = r->f->edit(r, e);
  if (rc == 0 && r->run.current) r->run.written++;
  if (rc == 0 && !r->o.stat) r->shown++;
  return rc;
}

bool pbd_Reporter_Finish(pbd_Reporter *r, bool equal) {
  if (!r->failed) rp_runs_end(r);
  if (!r->failed) r->f->finish(r, equal);
  return r->f->close(r, equal);
}

void pbd_Reporter_Explain(pbd_Reporter *r, const char *text, const char *json) {
  pbd_Buf_Truncate(&r->explain_text, 0);
  pbd_Buf_Truncate(&r->explain_json, 0);
  if (text) pbd_Buf_AppendStr(&r->explain_text, text);
  if (json) pbd_Buf_AppendStr(&r->explain_json, json);
  if (r->explain_text.oom || r->explain_json.oom) r->failed = true;
}

void pbd_Reporter_Note(pbd_Reporter *r, const char *text, const char *json) {
  pbd_Buf_Truncate(&r->note_text, 0);
  pbd_Buf_Truncate(&r->note_json, 0);
  if (text) pbd_Buf_AppendStr(&r->note_text, text);
  if (json) pbd_Buf_AppendStr(&r->note_json, json);
  if (r->note_text.oom || r->note_json.oom) r->failed = true;
}

void pbd_Reporter_Free(pbd_Reporter *r) {
  if (!r) return;
  if (r->f->free_own) r->f->free_own(r);
  if (r->final_out && r->out) fclose(r->out); /* a format's own stream (junit) */
  free(r->junit_text);
  free(r->test_name);
  pbd_Buf_Free(&r->junit_paths);
  pbd_Buf_Free(&r->explain_text);
  pbd_Buf_Free(&r->explain_json);
  pbd_Buf_Free(&r->note_text);
  pbd_Buf_Free(&r->note_json);
  pbd_Buf_Free(&r->line);
  pbd_Buf_Free(&r->entries);
  pbd_Buf_Free(&r->summaries);
  pbd_Buf_Free(&r->run.field);
  pbd_Buf_Free(&r->group);
  pbd_Buf_Free(&r->path);
  for (size_t i = 0; i < r->nfields; i++) free(r->fields[i].name);
  free(r->fields);
  rp_NameIndex_Free(&r->field_index);
  free(r->left_name);
  free(r->right_name);
  free(r);
}

/* ---- the files of two directories ------------------------------------------------ */

pbd_FilesReporter *pbd_FilesReporter_New(pbd_ReportFormat fmt, FILE *out,
                                         const pbd_FilesOptions *o) {
  const pbd_FormatDef *f = format_of(fmt);
  pbd_FilesReporter *s = f ? calloc(1, sizeof *s) : NULL;
  if (!s) return NULL;
  s->f = f;
  s->out = out;
  s->o = *o;
  s->started = rp_seconds_now();
  if (!f->summary) s->o.summary = false;
  if (!f->color) s->o.color = false;
  return s;
}

void rp_files_name_both(const pbd_FilesReporter *s, const pbd_FileResult *f, pbd_ReportOptions *ro) {
  (void)s;
  ro->left_name = f->left_path;
  ro->right_name = f->right_path;
}

void rp_files_totals_text(const pbd_FilesReporter *s, pbd_Buf *b) {
  pbd_Buf_Printf(b, "%zu file%s", s->tests, s->tests == 1 ? "" : "s");
  const char *sep = ": ";
  if (s->equal) pbd_Buf_Printf(b, "%s%zu equal", sep, s->equal), sep = ", ";
  if (s->differ) pbd_Buf_Printf(b, "%s%zu differ", sep, s->differ), sep = ", ";
  if (s->only_left) pbd_Buf_Printf(b, "%s%zu only in %s", sep, s->only_left, s->o.dir1), sep = ", ";
  if (s->only_right) pbd_Buf_Printf(b, "%s%zu only in %s", sep, s->only_right, s->o.dir2), sep = ", ";
  if (s->errors) pbd_Buf_Printf(b, "%s%zu error%s", sep, s->errors, s->errors == 1 ? "" : "s");
  pbd_Buf_AppendChar(b, '\n');
}

void rp_files_write(pbd_FilesReporter *s, pbd_Buf *head) {
  if (head->oom || s->doc.oom) {
    s->failed = true;
  } else {
    fwrite(head->data, 1, head->len, s->out);
    fwrite(s->doc.data, 1, s->doc.len, s->out);
  }
  pbd_Buf_Free(head);
}

pbd_StatTotals *pbd_StatTotals_New(void) { return calloc(1, sizeof(pbd_StatTotals)); }

void pbd_StatTotals_Free(pbd_StatTotals *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) free(t->fields[i].name);
  free(t->fields);
  free(t);
}

bool rp_stat_add(pbd_StatTotals *t, const char *name, const size_t *counts) {
  size_t i = 0;
  while (i < t->n && strcmp(t->fields[i].name, name)) i++;
  if (i == t->n) {
    if (t->n == t->cap) {
      size_t cap = t->cap ? 2 * t->cap : 16;
      void *f = realloc(t->fields, cap * sizeof *t->fields);
      if (!f) return false;
      t->fields = f;
      t->cap = cap;
    }
    memset(&t->fields[i], 0, sizeof t->fields[i]);
    if (!(t->fields[i].name = strdup(name))) return false;
    t->n++;
  }
  for (int k = 0; k < kKinds; k++) t->fields[i].counts[k] += counts[k], t->counts[k] += counts[k];
  return true;
}

void pbd_FilesReporter_FileOptions(const pbd_FilesReporter *s, const pbd_FileResult *f,
                                   pbd_ReportOptions *ro, bool *quiet) {
  *quiet = s->o.summary; /* the verdict is the line */
  if (s->f->file_options) s->f->file_options(s, f, ro);
}

void pbd_FilesReporter_File(pbd_FilesReporter *s, const pbd_FileResult *f) {
  s->tests++;
  bool only = f->side != kPbd_File_Both;
  if (!only && f->status == 2) s->errors++;
  else if (only || f->status == 1) s->failures++;
  if (f->stat && s->o.stat_totals) { /* --stat over every file */
    if (!s->stat) s->stat = pbd_StatTotals_New();
    for (size_t i = 0; s->stat && i < f->stat->n; i++)
      if (!rp_stat_add(s->stat, f->stat->fields[i].name, f->stat->fields[i].counts)) s->failed = true;
    if (!s->stat) s->failed = true;
  }
  if (f->side == kPbd_File_OnlyLeft) s->only_left++;
  else if (f->side == kPbd_File_OnlyRight) s->only_right++;
  else if (f->status == 0) s->equal++;
  else if (f->status == 1) s->differ++;
  s->f->file(s, f);
  if (s->doc.oom) s->failed = true;
}

bool pbd_FilesReporter_Finish(pbd_FilesReporter *s, bool equal) {
  if (s->f->files_end && !s->failed) s->f->files_end(s, equal);
  return !s->failed;
}

void pbd_FilesReporter_Free(pbd_FilesReporter *s) {
  if (!s) return;
  if (s->f->files_free) s->f->files_free(s);
  pbd_StatTotals_Free(s->stat);
  pbd_Buf_Free(&s->doc);
  free(s);
}

/* ---- the name index ------------------------------------------------------------ */

static const char *item_name(const void *items, size_t stride, size_t i) {
  return *(char *const *)((const char *)items + i * stride);
}

static size_t name_slot(const rp_NameIndex *x, const char *name, size_t len) {
  return (size_t)XXH3_64bits(name, len) & (x->cap - 1);
}

static bool name_is(const char *item, const char *name, size_t len) {
  return strncmp(item, name, len) == 0 && item[len] == '\0';
}

size_t rp_NameIndex_Find(rp_NameIndex *x, const void *items, size_t stride, size_t n,
                         const char *name, size_t len) {
  if (x->last && name_is(item_name(items, stride, x->last - 1), name, len)) return x->last - 1;
  if (!x->cap) return n;
  for (size_t h = name_slot(x, name, len); x->slots[h]; h = (h + 1) & (x->cap - 1)) {
    if (name_is(item_name(items, stride, x->slots[h] - 1), name, len)) {
      x->last = x->slots[h];
      return x->slots[h] - 1;
    }
  }
  return n;
}

static void name_insert(rp_NameIndex *x, const void *items, size_t stride, size_t i) {
  const char *name = item_name(items, stride, i);
  size_t h = name_slot(x, name, strlen(name));
  while (x->slots[h]) h = (h + 1) & (x->cap - 1);
  x->slots[h] = i + 1;
}

bool rp_NameIndex_Add(rp_NameIndex *x, const void *items, size_t stride, size_t n) {
  if ((n + 1) * 2 > x->cap) { /* at most half full: rebuild twice as large */
    size_t cap = x->cap ? x->cap * 2 : 64;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    free(x->slots);
    x->slots = slots;
    x->cap = cap;
    for (size_t i = 0; i < n; i++) name_insert(x, items, stride, i);
  }
  name_insert(x, items, stride, n);
  x->last = n + 1;
  return true;
}

void rp_NameIndex_Free(rp_NameIndex *x) {
  free(x->slots);
  memset(x, 0, sizeof *x);
}

/* ---- one difference in words (github, sarif) ----------------------------- */

void rp_short_value(pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = 64, .cut_hash = true, .well_known = true, .max_message = 120};
  pbd_Format_TextValue(b, v, &o);
}

void rp_describe_edit(pbd_Buf *b, const pbd_Edit *e) {
  bool l = e->left.kind != kPbd_Value_None, r = e->right.kind != kPbd_Value_None;
  switch (e->kind) {
    case kPbd_Edit_Added: pbd_Buf_AppendStr(b, "added "), rp_short_value(b, &e->right); return;
    case kPbd_Edit_Removed: pbd_Buf_AppendStr(b, "removed "), rp_short_value(b, &e->left); return;
    case kPbd_Edit_Presence:
      if (!l) pbd_Buf_AppendStr(b, "unset -> set to "), rp_short_value(b, &e->right);
      else pbd_Buf_AppendStr(b, "set to "), rp_short_value(b, &e->left), pbd_Buf_AppendStr(b, " -> unset");
      return;
    case kPbd_Edit_Moved:
      pbd_Buf_Printf(b, "moved [%lld] -> [%lld]", (long long)e->left_index, (long long)e->right_index);
      return;
    case kPbd_Edit_Changed: break;
    default: pbd_Buf_Printf(b, "%s ", pbd_EditKind_String(e->kind)); break;
  }
  if (l) rp_short_value(b, &e->left);
  pbd_Buf_AppendStr(b, l && r ? " -> " : "");
  if (r) rp_short_value(b, &e->right);
}

