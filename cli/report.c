/* pbdiff CLI — text, JSON and JUnit reporters (see report.h for the text
 * and JUnit formats, docs/json-format.md for JSON). */
#include "report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "format/format.h"

/* Strings and bytes longer than this are cut in text reports. */
enum { kPbd_Report_MaxBytes = 64 };
/* One-line message values longer than this are cut in text reports. */
enum { kPbd_Report_MaxMessage = 120 };

#define SGR_BOLD "\033[1m"
#define SGR_RED "\033[31m"
#define SGR_GREEN "\033[32m"
#define SGR_CYAN "\033[36m"
#define SGR_RESET "\033[m"

/* Kinds in the order counts are listed. */
static const pbd_EditKind kKindOrder[] = {kPbd_Edit_Changed, kPbd_Edit_Added, kPbd_Edit_Removed,
                                          kPbd_Edit_Presence, kPbd_Edit_Moved};
enum { kKinds = 5 };

/* Counts for one top-level field (stat). */
typedef struct {
  char *name;
  size_t counts[kKinds]; /* by pbd_EditKind */
} StatField;

struct pbd_Reporter {
  pbd_ReportFormat fmt;
  const struct Format *f; /* the format's functions (kFormats) */
  FILE *out;
  pbd_ReportOptions o;
  char *left_name, *right_name; /* owned copies of o.left_name, o.right_name */
  pbd_Buf line;     /* text: the line(s) being built */
  pbd_Buf entries;  /* json: the difference objects so far, ",\n"-separated */
  size_t total;     /* edits received */
  size_t shown;     /* differences written (text) or collected (json) */
  size_t counts[kKinds];
  /* text: the group (parent) of the last written difference */
  bool have_group;
  pbd_Buf group;
  pbd_Buf path;     /* the edit's path as text, parent part first */
  const pbd_MessageDef *group_type;
  bool names_written;
  /* stat: fields in order of first appearance, and a hash table over them */
  StatField *fields;
  size_t nfields, fields_cap;
  size_t *table;    /* index + 1, 0 = empty */
  size_t table_cap; /* power of two */
  size_t last;      /* index + 1 of the last field counted */
  pbd_Buf explain_text, explain_json; /* --explain, written by Finish */
  bool failed;      /* out of memory */
  /* junit: the text report goes to `out`, a memory stream over junit_text;
   * Finish writes the XML to final_out */
  FILE *final_out;
  char *junit_text;
  size_t junit_len;
  char *test_name;  /* owned copy of o.test_name */
};

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

/* ---- construction ------------------------------------------------------------ */

static char *dup_or_null(const char *s, bool *failed) {
  if (!s) return NULL;
  char *d = strdup(s);
  if (!d) *failed = true;
  return d;
}

/* Each output format: its name (--format), whether --stat and colour apply,
 * and its steps (the table kFormats is below them). */
struct Format {
  const char *name;
  bool stat, color;
  bool (*begin)(pbd_Reporter *r);                  /* NULL: nothing to prepare */
  int (*edit)(pbd_Reporter *r, const pbd_Edit *e); /* one difference */
  void (*finish)(pbd_Reporter *r, bool equal);     /* the report's end */
  bool (*close)(pbd_Reporter *r, bool equal);      /* out to the caller's stream */
};

static const struct Format *format_of(pbd_ReportFormat fmt);

pbd_Reporter *(pbd_Reporter_New)(pbd_ReportFormat fmt, FILE *out, const pbd_ReportOptions *opts) {
  const struct Format *f = format_of(fmt);
  pbd_Reporter *r = f ? calloc(1, sizeof *r) : NULL;
  if (!r) return NULL;
  r->fmt = fmt;
  r->f = f;
  r->out = out;
  if (opts) r->o = *opts;
  bool failed = false;
  r->left_name = dup_or_null(r->o.left_name, &failed);
  r->right_name = dup_or_null(r->o.right_name, &failed);
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


/* ---- text ---------------------------------------------------------------------- */

static void color_on(pbd_Reporter *r, pbd_Buf *b, const char *sgr) {
  if (r->o.color) pbd_Buf_AppendStr(b, sgr);
}

static void color_off(pbd_Reporter *r, pbd_Buf *b) {
  if (r->o.color) pbd_Buf_AppendStr(b, SGR_RESET);
}

static void text_value(pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = kPbd_Report_MaxBytes,
                       .cut_hash = true,
                       .well_known = true,
                       .max_message = kPbd_Report_MaxMessage};
  pbd_Format_TextValue(b, v, &o);
}

static void colored_value(pbd_Reporter *r, pbd_Buf *b, const char *sgr, const char *word,
                          const pbd_Value *v) {
  color_on(r, b, sgr);
  pbd_Buf_AppendStr(b, word);
  text_value(b, v);
  color_off(r, b);
}

/* `--- LEFT` and `+++ RIGHT`, once, before the first difference. */
static void names_lines(pbd_Reporter *r, pbd_Buf *b) {
  if (r->names_written || !r->o.left_name || !r->o.right_name) return;
  r->names_written = true;
  const char *names[2] = {r->o.left_name, r->o.right_name};
  const char *marks[2] = {"--- ", "+++ "};
  for (int i = 0; i < 2; i++) {
    color_on(r, b, SGR_BOLD);
    pbd_Buf_AppendStr(b, marks[i]);
    pbd_Buf_AppendStr(b, names[i]);
    color_off(r, b);
    pbd_Buf_AppendChar(b, '\n');
  }
}

/* Writes the edit's path as text into r->path and returns it; *plen is
 * the length of its parent part (a prefix of it). */
static const char *path_text(pbd_Reporter *r, const pbd_Edit *e, size_t *plen) {
  pbd_Buf_Truncate(&r->path, 0);
  pbd_Buf_AppendStr(&r->path, "");
  size_t n = e->path ? e->path->count : 0;
  size_t pc = e->parent_count < n ? e->parent_count : n;
  if (e->path) pbd_Path_Format(&r->path, e->path, 0, pc);
  *plen = r->path.len;
  if (e->path) pbd_Path_Format(&r->path, e->path, pc, n);
  return r->path.oom ? "" : r->path.data;
}

static void append_counts(pbd_Reporter *r, pbd_Buf *b, const size_t *counts) {
  bool first = true;
  for (int i = 0; i < kKinds; i++) {
    pbd_EditKind k = kKindOrder[i];
    if (!counts[k]) continue;
    if (!first) pbd_Buf_AppendStr(b, ", ");
    first = false;
    const char *sgr = k == kPbd_Edit_Added     ? SGR_GREEN
                      : k == kPbd_Edit_Removed ? SGR_RED
                      : k == kPbd_Edit_Moved   ? SGR_CYAN
                                               : NULL;
    if (sgr) color_on(r, b, sgr);
    pbd_Buf_Printf(b, "%zu %s", counts[k], pbd_EditKind_String(k));
    if (sgr) color_off(r, b);
  }
}

static int flush_line(pbd_Reporter *r, pbd_Buf *b) {
  if (b->oom) {
    r->failed = true;
    return 1;
  }
  fwrite(b->data, 1, b->len, r->out);
  return 0;
}

static int text_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  size_t plen;
  const char *path = path_text(r, e, &plen);
  names_lines(r, b);
  if (!r->have_group || r->group.len != plen || memcmp(r->group.data, path, plen) != 0 ||
      r->group_type != e->parent) {
    pbd_Buf_Truncate(&r->group, 0);
    pbd_Buf_Append(&r->group, path, plen);
    pbd_Buf_AppendStr(&r->group, ""); /* data never NULL */
    r->group_type = e->parent;
    r->have_group = true;
    if (plen > 0) {
      color_on(r, b, SGR_BOLD);
      pbd_Buf_Append(b, path, plen);
      if (e->parent && e->parent->full_name) pbd_Buf_Printf(b, " (%s)", e->parent->full_name);
      pbd_Buf_AppendChar(b, ':');
      color_off(r, b);
      pbd_Buf_AppendChar(b, '\n');
    }
    if (r->group.oom) b->oom = true;
  }
  const char *field = path + plen;
  if (plen > 0 && *field == '.') field++;
  if (plen > 0) pbd_Buf_AppendStr(b, "  ");
  pbd_Buf_AppendStr(b, *field ? field : ".");
  pbd_Buf_AppendStr(b, ": ");
  switch (e->kind) {
    case kPbd_Edit_Added:
      colored_value(r, b, SGR_GREEN, "added ", &e->right);
      break;
    case kPbd_Edit_Removed:
      colored_value(r, b, SGR_RED, "removed ", &e->left);
      break;
    case kPbd_Edit_Presence:
      if (e->left.kind == kPbd_Value_None) {
        pbd_Buf_AppendStr(b, "unset -> ");
        colored_value(r, b, SGR_GREEN, "set to ", &e->right);
      } else {
        colored_value(r, b, SGR_RED, "set to ", &e->left);
        pbd_Buf_AppendStr(b, " -> unset");
      }
      break;
    case kPbd_Edit_Moved:
      color_on(r, b, SGR_CYAN);
      pbd_Buf_Printf(b, "moved [%lld] -> [%lld]", (long long)e->left_index,
                     (long long)e->right_index);
      color_off(r, b);
      break;
    case kPbd_Edit_Changed:
    default:
      colored_value(r, b, SGR_RED, "", &e->left);
      pbd_Buf_AppendStr(b, " -> ");
      colored_value(r, b, SGR_GREEN, "", &e->right);
      break;
  }
  pbd_Buf_AppendChar(b, '\n');
  return flush_line(r, b);
}

/* ---- stat ---------------------------------------------------------------------- */

/* The top-level field of a path as report.h describes it, in r->path. */
static void top_field(pbd_Reporter *r, const pbd_Path *p, const char **name, size_t *len) {
  size_t n = p ? p->count : 0, first = 0;
  if (n > 0 && p->segs[0].kind == kPbd_Seg_Index) { /* a stream's message */
    if (n == 1) {
      *name = "(messages)";
      *len = strlen(*name);
      return;
    }
    first = 1;
  }
  if (first == n) {
    *name = ".";
    *len = 1;
    return;
  }
  pbd_Buf_Truncate(&r->path, 0);
  pbd_Path_Format(&r->path, p, first, first + 1);
  const char *t = r->path.oom ? "" : r->path.data;
  if (*t == '.') t++;
  *name = t;
  *len = strlen(t);
}

static bool stat_grow_table(pbd_Reporter *r) {
  size_t cap = r->table_cap ? r->table_cap * 2 : 64;
  size_t *t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < r->nfields; i++) {
    const char *n = r->fields[i].name;
    size_t h = (size_t)XXH3_64bits(n, strlen(n)) & (cap - 1);
    while (t[h]) h = (h + 1) & (cap - 1);
    t[h] = i + 1;
  }
  free(r->table);
  r->table = t;
  r->table_cap = cap;
  return true;
}

/* The counts of a top-level field, added when new; NULL when out of memory. */
static StatField *stat_field(pbd_Reporter *r, const char *name, size_t len) {
  if (r->last) {
    StatField *f = &r->fields[r->last - 1];
    if (strlen(f->name) == len && memcmp(f->name, name, len) == 0) return f;
  }
  if ((r->nfields + 1) * 2 > r->table_cap && !stat_grow_table(r)) return NULL;
  size_t h = (size_t)XXH3_64bits(name, len) & (r->table_cap - 1);
  while (r->table[h]) {
    StatField *f = &r->fields[r->table[h] - 1];
    if (strlen(f->name) == len && memcmp(f->name, name, len) == 0) {
      r->last = r->table[h];
      return f;
    }
    h = (h + 1) & (r->table_cap - 1);
  }
  if (r->nfields == r->fields_cap) {
    size_t cap = r->fields_cap ? r->fields_cap * 2 : 16;
    StatField *nf = realloc(r->fields, cap * sizeof *nf);
    if (!nf) return NULL;
    r->fields = nf;
    r->fields_cap = cap;
  }
  StatField *f = &r->fields[r->nfields];
  memset(f, 0, sizeof *f);
  f->name = malloc(len + 1);
  if (!f->name) return NULL;
  memcpy(f->name, name, len);
  f->name[len] = '\0';
  r->table[h] = ++r->nfields;
  r->last = r->nfields;
  return f;
}

static int stat_edit(pbd_Reporter *r, const pbd_Edit *e) {
  const char *name;
  size_t len;
  top_field(r, e->path, &name, &len);
  StatField *f = stat_field(r, name, len);
  if (!f) {
    r->failed = true;
    return 1;
  }
  if ((unsigned)e->kind < kKinds) f->counts[e->kind]++;
  return 0;
}

static void stat_write(pbd_Reporter *r) {
  if (r->total == 0) return;
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  names_lines(r, b);
  for (size_t i = 0; i < r->nfields; i++) {
    pbd_Buf_Printf(b, "  %s: ", r->fields[i].name);
    append_counts(r, b, r->fields[i].counts);
    pbd_Buf_AppendChar(b, '\n');
    if (b->len > 65536) {
      if (flush_line(r, b)) return;
      pbd_Buf_Truncate(b, 0);
    }
  }
  pbd_Buf_Printf(b, "%zu difference%s: ", r->total, r->total == 1 ? "" : "s");
  append_counts(r, b, r->counts);
  pbd_Buf_AppendChar(b, '\n');
  flush_line(r, b);
}

/* ---- JSON ------------------------------------------------------------------------ */

static void json_str(pbd_Buf *b, const char *s, size_t n) { pbd_Format_JsonString(b, s, n); }

static int json_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->entries;
  if (r->shown > 0) pbd_Buf_AppendStr(b, ",\n");
  size_t plen;
  const char *path = path_text(r, e, &plen);
  pbd_Buf_AppendStr(b, "  {\"path\": ");
  json_str(b, path, strlen(path));
  pbd_Buf_AppendStr(b, ", \"kind\": ");
  const char *kind = pbd_EditKind_String(e->kind);
  json_str(b, kind, strlen(kind));
  if (e->left.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(b, ", \"left\": ");
    pbd_Format_JsonValue(b, &e->left);
  }
  if (e->right.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(b, ", \"right\": ");
    pbd_Format_JsonValue(b, &e->right);
  }
  if (e->left_index >= 0) pbd_Buf_Printf(b, ", \"left_index\": %lld", (long long)e->left_index);
  if (e->right_index >= 0)
    pbd_Buf_Printf(b, ", \"right_index\": %lld", (long long)e->right_index);
  pbd_Buf_AppendStr(b, ", \"parent\": ");
  json_str(b, path, plen);
  pbd_Buf_AppendStr(b, ", \"type\": ");
  if (e->parent && e->parent->full_name) json_str(b, e->parent->full_name, strlen(e->parent->full_name));
  else pbd_Buf_AppendStr(b, "null");
  pbd_Buf_AppendChar(b, '}');
  if (b->oom) {
    r->failed = true;
    return 1;
  }
  return 0;
}

static void json_finish(pbd_Reporter *r, bool equal) {
  fprintf(r->out, "{\"equal\": %s, ", equal ? "true" : "false");
  if (r->o.left_name && r->o.right_name) {
    pbd_Buf b = {0};
    pbd_Buf_AppendStr(&b, "\"left_name\": ");
    json_str(&b, r->o.left_name, strlen(r->o.left_name));
    pbd_Buf_AppendStr(&b, ", \"right_name\": ");
    json_str(&b, r->o.right_name, strlen(r->o.right_name));
    pbd_Buf_AppendStr(&b, ", ");
    if (b.oom) r->failed = true;
    else fwrite(b.data, 1, b.len, r->out);
    pbd_Buf_Free(&b);
  }
  fputs("\"differences\": [", r->out);
  if (r->shown > 0) {
    fputc('\n', r->out);
    fwrite(r->entries.data, 1, r->entries.len, r->out);
    fputc('\n', r->out);
  }
  fputc(']', r->out);
  if (r->total > r->shown) fprintf(r->out, ", \"omitted\": %zu", r->total - r->shown);
  if (r->explain_json.len) fprintf(r->out, ", \"encoding\": %s", r->explain_json.data);
  fputs("}\n", r->out);
}

/* ---- JUnit ----------------------------------------------------------------------- */

void pbd_Report_XmlEscape(pbd_Buf *b, const char *s, size_t n, bool attribute) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    const unsigned char *run = p; /* plain characters, appended at once */
    while (p < end && *p >= 0x20 && *p < 0x7f && *p != '&' && *p != '<' && *p != '>' && *p != '"')
      p++;
    pbd_Buf_Append(b, (const char *)run, (size_t)(p - run));
    if (p == end) break;
    unsigned char c = *p;
    if (c == '&') pbd_Buf_AppendStr(b, "&amp;"), p++;
    else if (c == '<') pbd_Buf_AppendStr(b, "&lt;"), p++;
    else if (c == '>') pbd_Buf_AppendStr(b, "&gt;"), p++;
    else if (c == '"') pbd_Buf_AppendStr(b, "&quot;"), p++;
    else if (c == '\t' || c == '\n' || c == '\r') {
      if (attribute) pbd_Buf_Printf(b, "&#%d;", c);
      else pbd_Buf_AppendChar(b, (char)c);
      p++;
    } else if (c < 0x20) {
      pbd_Buf_AppendStr(b, "\xef\xbf\xbd"), p++; /* not allowed in XML 1.0 */
    } else if (c == 0x7f) {
      pbd_Buf_AppendChar(b, (char)c), p++; /* allowed, if discouraged */
    } else {
      size_t k = pbd_Utf8_SequenceLength(p, (size_t)(end - p));
      bool nonchar = k == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf);
      if (k == 0 || nonchar) {
        pbd_Buf_AppendStr(b, "\xef\xbf\xbd");
        p += k ? k : 1;
      } else {
        pbd_Buf_Append(b, (const char *)p, k);
        p += k;
      }
    }
  }
}

void pbd_Report_JunitBegin(pbd_Buf *b, size_t tests, size_t failures, size_t errors) {
  pbd_Buf_AppendStr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  pbd_Buf_Printf(b, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", tests,
                 failures, errors);
  pbd_Buf_Printf(b, "  <testsuite name=\"pbdiff\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
                 tests, failures, errors);
}

void pbd_Report_JunitCase(pbd_Buf *b, const char *name, const char *outcome, const char *type,
                          const char *message, const char *body, size_t body_len,
                          const char *system_out, size_t system_out_len) {
  pbd_Buf_AppendStr(b, "    <testcase classname=\"pbdiff\" name=\"");
  pbd_Report_XmlEscape(b, name, strlen(name), true);
  if (!outcome && !system_out) {
    pbd_Buf_AppendStr(b, "\"/>\n");
    return;
  }
  pbd_Buf_AppendStr(b, "\">\n");
  if (outcome) {
    pbd_Buf_Printf(b, "      <%s message=\"", outcome);
    if (message) pbd_Report_XmlEscape(b, message, strlen(message), true);
    pbd_Buf_AppendStr(b, "\"");
    if (type) {
      pbd_Buf_AppendStr(b, " type=\"");
      pbd_Report_XmlEscape(b, type, strlen(type), true);
      pbd_Buf_AppendStr(b, "\"");
    }
    if (body) {
      pbd_Buf_AppendChar(b, '>');
      pbd_Report_XmlEscape(b, body, body_len, false);
      pbd_Buf_Printf(b, "</%s>\n", outcome);
    } else {
      pbd_Buf_AppendStr(b, "/>\n");
    }
  }
  if (system_out) {
    pbd_Buf_AppendStr(b, "      <system-out>");
    pbd_Report_XmlEscape(b, system_out, system_out_len, false);
    pbd_Buf_AppendStr(b, "</system-out>\n");
  }
  pbd_Buf_AppendStr(b, "    </testcase>\n");
}

void pbd_Report_JunitEnd(pbd_Buf *b) { pbd_Buf_AppendStr(b, "  </testsuite>\n</testsuites>\n"); }

/* Writes the document (or the <testcase> element) around the text report
 * collected in the memory stream. */
static bool junit_finish(pbd_Reporter *r, bool equal) {
  if (fflush(r->out) != 0 || ferror(r->out)) r->failed = true;
  if (r->failed) return false;
  const char *name = r->o.test_name ? r->o.test_name : r->o.right_name ? r->o.right_name : "pbdiff";
  pbd_Buf b = {0};
  char message[64];
  snprintf(message, sizeof message, "%zu difference%s", r->total, r->total == 1 ? "" : "s");
  if (!r->o.junit_testcase) pbd_Report_JunitBegin(&b, 1, equal ? 0 : 1, 0);
  const char *text = r->junit_text ? r->junit_text : "";
  const char *out = r->explain_text.len ? r->explain_text.data : NULL;
  if (equal) pbd_Report_JunitCase(&b, name, NULL, NULL, NULL, NULL, 0, out, r->explain_text.len);
  else pbd_Report_JunitCase(&b, name, "failure", "differ", message, text, r->junit_len, out, r->explain_text.len);
  if (!r->o.junit_testcase) pbd_Report_JunitEnd(&b);
  bool ok = !b.oom && fwrite(b.data, 1, b.len, r->final_out) == b.len;
  pbd_Buf_Free(&b);
  if (fflush(r->final_out) != 0 || ferror(r->final_out)) ok = false;
  return ok;
}

/* The text report goes to a memory stream; Finish wraps it in XML. */
static bool junit_begin(pbd_Reporter *r) {
  bool failed = false;
  r->test_name = dup_or_null(r->o.test_name, &failed);
  r->o.test_name = r->test_name;
  r->final_out = r->out;
  r->out = open_memstream(&r->junit_text, &r->junit_len);
  return !failed && r->out;
}

/* ---- formats ----------------------------------------------------------------------- */

/* What ends a text report: the counts (stat) or how many were not shown. */
static void text_end(pbd_Reporter *r, bool equal) {
  (void)equal;
  if (r->o.stat) {
    stat_write(r);
  } else if (r->total > r->shown) {
    size_t k = r->total - r->shown;
    fprintf(r->out, "... and %zu more difference%s\n", k, k == 1 ? "" : "s");
  }
}

static void text_finish(pbd_Reporter *r, bool equal) {
  text_end(r, equal);
  if (r->explain_text.len) fwrite(r->explain_text.data, 1, r->explain_text.len, r->out);
}

/* Flushes what a format wrote to the caller's stream. */
static bool flush_out(pbd_Reporter *r, bool equal) {
  (void)equal;
  return fflush(r->out) == 0 && !r->failed && !ferror(r->out);
}


/* A new format is its functions and one row here. */
static const struct Format kFormats[] = {
    [kPbd_Report_Text] = {"text", true, true, NULL, text_edit, text_finish, flush_out},
    [kPbd_Report_Json] = {"json", false, false, NULL, json_edit, json_finish, flush_out},
    [kPbd_Report_Junit] = {"junit", true, false, junit_begin, text_edit, text_end, junit_finish},
};
enum { kFormatCount = sizeof kFormats / sizeof kFormats[0] };

static const struct Format *format_of(pbd_ReportFormat fmt) {
  return (unsigned)fmt < kFormatCount ? &kFormats[fmt] : NULL;
}

bool pbd_Report_FormatByName(const char *name, pbd_ReportFormat *fmt) {
  for (size_t i = 0; i < kFormatCount; i++) {
    if (strcmp(kFormats[i].name, name) == 0) {
      *fmt = (pbd_ReportFormat)i;
      return true;
    }
  }
  return false;
}

const char *pbd_Report_FormatNames(void) {
  static char names[128];
  if (!names[0]) {
    for (size_t i = 0; i < kFormatCount; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
               i == 0 ? "" : i + 1 == kFormatCount ? " or " : ", ", kFormats[i].name);
  }
  return names;
}

/* ---- entry points ------------------------------------------------------------------ */

int pbd_Reporter_Edit(void *reporter, const pbd_Edit *e) {
  pbd_Reporter *r = reporter;
  if (r->failed) return 1;
  r->total++;
  if ((unsigned)e->kind < kKinds) r->counts[e->kind]++;
  if (r->o.stat) return stat_edit(r, e);
  if (r->o.max_diffs && r->shown >= r->o.max_diffs) return 0;
  int rc = r->f->edit(r, e);
  if (rc == 0) r->shown++;
  return rc;
}

bool pbd_Reporter_Finish(pbd_Reporter *r, bool equal) {
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

void pbd_Reporter_Free(pbd_Reporter *r) {
  if (!r) return;
  if (r->final_out && r->out) fclose(r->out); /* a format's own stream (junit) */
  free(r->junit_text);
  free(r->test_name);
  pbd_Buf_Free(&r->explain_text);
  pbd_Buf_Free(&r->explain_json);
  pbd_Buf_Free(&r->line);
  pbd_Buf_Free(&r->entries);
  pbd_Buf_Free(&r->group);
  pbd_Buf_Free(&r->path);
  for (size_t i = 0; i < r->nfields; i++) free(r->fields[i].name);
  free(r->fields);
  free(r->table);
  free(r->left_name);
  free(r->right_name);
  free(r);
}
