/* pbdiff CLI — statistics of a corpus comparison (--record-key --stat) and
 * the noise a baseline shows (pbdiff noise): per field path pattern, the
 * records where it differs (report.h, "Corpora"). */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/diff/path.h"
#include "pbdiff/format/format.h"
#include "report/report_impl.h"

typedef struct {
  char *pattern;                  /* first: indexed by rp_NameIndex */
  size_t records;                 /* records where it differs */
  size_t by_kind[5];              /* the same, by kind of difference */
  size_t last_any, last_kind[5];  /* the record that counted last (seq), not to count twice */
  char **examples;                /* the first record keys, in the order they came */
  size_t nexamples;
  bool unwritable;                /* holds a control character or NUL (from an Any's type
                                     URL): no .pbdiff value can hold it on one line */
} PathCount;

struct pbd_CorpusStat {
  size_t max_examples;
  PathCount *paths;
  size_t npaths, cap;
  rp_NameIndex index;             /* over the patterns */
  size_t seq;                     /* the record being counted (from 1) */
  char *record;                   /* its key text */
  pbd_Buf pattern;
  bool oom;
};

pbd_CorpusStat *pbd_CorpusStat_New(size_t max_examples) {
  pbd_CorpusStat *c = calloc(1, sizeof *c);
  if (c) c->max_examples = max_examples;
  return c;
}

void pbd_CorpusStat_Free(pbd_CorpusStat *c) {
  if (!c) return;
  for (size_t i = 0; i < c->npaths; i++) {
    for (size_t k = 0; k < c->paths[i].nexamples; k++) free(c->paths[i].examples[k]);
    free(c->paths[i].examples);
    free(c->paths[i].pattern);
  }
  free(c->paths);
  rp_NameIndex_Free(&c->index);
  free(c->record);
  pbd_Buf_Free(&c->pattern);
  free(c);
}

void pbd_CorpusStat_BeginRecord(pbd_CorpusStat *c, const char *key, size_t len) {
  free(c->record);
  c->record = strndup(key, len);
  if (!c->record) c->oom = true;
  c->seq++;
}

/* The pattern of a path below its record: fields by name, every index and
 * key as [*] (`graph.node[*].op_type`). */
static void path_pattern(pbd_Buf *out, const pbd_Path *p) {
  pbd_Buf_Truncate(out, 0);
  for (size_t i = 1; i < p->count; i++) {
    pbd_PathSegKind k = p->segs[i].kind;
    if (k == kPbd_Seg_Field || k == kPbd_Seg_Extension || k == kPbd_Seg_Any)
      pbd_Path_Format(out, p, i, i + 1);
    else
      pbd_Buf_AppendStr(out, "[*]");
  }
  pbd_Buf_AppendStr(out, "");
  if (!out->oom && out->data[0] == '.') { /* the first field's dot */
    memmove(out->data, out->data + 1, out->len);
    out->len--;
  }
}

/* Whether a pattern of len bytes holds what no one-line config value can:
 * a control character, or a NUL (which ends it early). */
static bool unwritable(const char *pattern, size_t len) {
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)pattern[i] < 0x20 || pattern[i] == 0x7f) return true;
  return false;
}

static PathCount *find_path(pbd_CorpusStat *c, const char *pattern, size_t len) {
  size_t i = rp_NameIndex_Find(&c->index, c->paths, sizeof *c->paths, c->npaths, pattern,
                               strlen(pattern));
  if (i < c->npaths) return &c->paths[i];
  if (c->npaths == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 32;
    PathCount *np = realloc(c->paths, cap * sizeof *np);
    if (!np) return NULL;
    c->paths = np;
    c->cap = cap;
  }
  PathCount *pc = &c->paths[c->npaths];
  memset(pc, 0, sizeof *pc);
  pc->pattern = strdup(pattern);
  pc->unwritable = unwritable(pattern, len);
  pc->examples = calloc(c->max_examples ? c->max_examples : 1, sizeof *pc->examples);
  if (!pc->pattern || !pc->examples ||
      !rp_NameIndex_Add(&c->index, c->paths, sizeof *c->paths, c->npaths)) {
    free(pc->pattern);
    free(pc->examples);
    return NULL;
  }
  c->npaths++;
  return pc;
}

static void count_record(pbd_CorpusStat *c, PathCount *pc, pbd_EditKind kind) {
  if (pc->last_kind[kind] != c->seq) {
    pc->last_kind[kind] = c->seq;
    pc->by_kind[kind]++;
  }
  if (pc->last_any == c->seq) return;
  pc->last_any = c->seq;
  pc->records++;
  if (pc->nexamples < c->max_examples && c->record) {
    pc->examples[pc->nexamples] = strdup(c->record);
    if (pc->examples[pc->nexamples]) pc->nexamples++;
    else c->oom = true;
  }
}

int pbd_CorpusStat_Edit(void *ctx, const pbd_Edit *e) {
  pbd_CorpusStat *c = ctx;
  if (e->path->count < 2) return 0; /* a whole record: the totals count it */
  path_pattern(&c->pattern, e->path);
  PathCount *pc = c->pattern.oom ? NULL : find_path(c, c->pattern.data, c->pattern.len);
  if (!pc) {
    c->oom = true;
    return 1;
  }
  count_record(c, pc, e->kind);
  return 0;
}

/* ---- Writing ------------------------------------------------------------------ */

/* Most records first, then by pattern: an order a merge of partial
 * statistics (scripts/pbdiff-dask.py) can rebuild.  Sorting is the last
 * use of the statistics: the index over the patterns no longer holds. */
static int by_records(const void *pa, const void *pb) {
  const PathCount *a = pa, *b = pb;
  if (a->records != b->records) return a->records < b->records ? 1 : -1;
  return strcmp(a->pattern, b->pattern);
}

static const pbd_EditKind kKindOrder[] = {kPbd_Edit_Changed, kPbd_Edit_Added, kPbd_Edit_Removed,
                                          kPbd_Edit_Presence, kPbd_Edit_Moved};

static void kinds_text(pbd_Buf *b, const PathCount *pc) {
  bool first = true;
  for (size_t k = 0; k < 5; k++) {
    size_t n = pc->by_kind[kKindOrder[k]];
    if (!n) continue;
    pbd_Buf_Printf(b, "%s%zu %s", first ? "" : ", ", n, pbd_EditKind_String(kKindOrder[k]));
    first = false;
  }
}

void pbd_CorpusTotals_Text(pbd_Buf *b, const pbd_CorpusTotals *t) {
  pbd_Buf_Printf(b, "records: %zu in LEFT, %zu in RIGHT; %zu paired: %zu equal, %zu differ; "
                    "%zu only in LEFT, %zu only in RIGHT",
                 t->left_records, t->right_records, t->paired, t->equal, t->changed, t->only_left,
                 t->only_right);
  if (t->dup_left || t->dup_right)
    pbd_Buf_Printf(b, "; duplicate keys: %zu in LEFT, %zu in RIGHT", t->dup_left, t->dup_right);
  pbd_Buf_AppendChar(b, '\n');
}

static void write_text(const pbd_CorpusStat *c, const pbd_CorpusTotals *t, pbd_Buf *b) {
  for (size_t i = 0; i < c->npaths; i++) {
    const PathCount *pc = &c->paths[i];
    /* patterns and keys hold payload text (an Any's type URL, a key's
     * string): escaped, so that they stay on their line */
    pbd_Buf_AppendStr(b, "  ");
    pbd_Cli_AppendEscaped(b, pc->pattern);
    pbd_Buf_Printf(b, ": %zu record%s (", pc->records, pc->records == 1 ? "" : "s");
    kinds_text(b, pc);
    pbd_Buf_AppendChar(b, ')');
    for (size_t k = 0; k < pc->nexamples; k++) {
      pbd_Buf_AppendStr(b, k ? " [" : ", e.g. [");
      pbd_Cli_AppendEscaped(b, pc->examples[k]);
      pbd_Buf_AppendChar(b, ']');
    }
    pbd_Buf_AppendChar(b, '\n');
  }
  pbd_CorpusTotals_Text(b, t);
}

static void json_totals(pbd_Buf *b, const pbd_CorpusTotals *t) {
  pbd_Buf_Printf(b, "{\"left_records\": %zu, \"right_records\": %zu, \"paired\": %zu, "
                    "\"equal\": %zu, \"differ\": %zu, \"only_left\": %zu, \"only_right\": %zu, "
                    "\"duplicate_keys_left\": %zu, \"duplicate_keys_right\": %zu}",
                 t->left_records, t->right_records, t->paired, t->equal, t->changed, t->only_left,
                 t->only_right, t->dup_left, t->dup_right);
}

static void write_json(const pbd_CorpusStat *c, const pbd_CorpusTotals *t, const char *extra,
                       pbd_Buf *b) {
  bool equal = !t->changed && !t->only_left && !t->only_right;
  pbd_Buf_Printf(b, "{\"equal\": %s, \"totals\": ", equal ? "true" : "false");
  json_totals(b, t);
  pbd_Buf_AppendStr(b, ", \"paths\": [");
  for (size_t i = 0; i < c->npaths; i++) {
    const PathCount *pc = &c->paths[i];
    pbd_Buf_AppendStr(b, i ? ", {\"path\": " : "{\"path\": ");
    pbd_Format_JsonString(b, pc->pattern, strlen(pc->pattern));
    pbd_Buf_Printf(b, ", \"records\": %zu", pc->records);
    for (size_t k = 0; k < 5; k++)
      pbd_Buf_Printf(b, ", \"%s\": %zu", pbd_EditKind_String(kKindOrder[k]),
                     pc->by_kind[kKindOrder[k]]);
    pbd_Buf_AppendStr(b, ", \"examples\": [");
    for (size_t k = 0; k < pc->nexamples; k++) {
      if (k) pbd_Buf_AppendStr(b, ", ");
      pbd_Format_JsonString(b, pc->examples[k], strlen(pc->examples[k]));
    }
    pbd_Buf_AppendStr(b, "]}");
  }
  pbd_Buf_AppendChar(b, ']');
  if (extra && *extra) pbd_Buf_Printf(b, ", %s", extra);
  pbd_Buf_AppendStr(b, "}\n");
}

static bool flush(pbd_Buf *b, FILE *out) {
  bool ok = !b->oom && fwrite(b->data ? b->data : "", 1, b->len, out) == b->len;
  pbd_Buf_Free(b);
  return ok;
}

bool pbd_CorpusStat_Write(pbd_CorpusStat *c, const pbd_CorpusTotals *t, bool json,
                          const char *extra_json, FILE *out) {
  if (c->oom) return false;
  if (c->npaths) qsort(c->paths, c->npaths, sizeof *c->paths, by_records);
  pbd_Buf b = {0};
  if (json) write_json(c, t, extra_json, &b);
  else write_text(c, t, &b);
  return flush(&b, out);
}

/* A pattern as a config value that reads back as exactly it (cli/config.c):
 * as it is, or in double quotes with \" and \\ when it holds a quote, a
 * backslash, a comment's `#` or `;`, or space at an end.  A pattern that
 * holds a control character is not written (a newline in it would start
 * lines of the payload author's choosing): a comment says so, escaped. */
static void ignore_line(pbd_Buf *b, const PathCount *pc) {
  const char *p = pc->pattern;
  if (pc->unwritable) {
    pbd_Buf_AppendStr(b, "\t# not written: the path holds a control character: ");
    pbd_Cli_AppendEscaped(b, p);
    pbd_Buf_AppendChar(b, '\n');
    return;
  }
  size_t n = strlen(p);
  bool quote = strpbrk(p, "\"\\#;") || (n && strchr(" \t", p[0])) || (n && strchr(" \t", p[n - 1]));
  pbd_Buf_AppendStr(b, "\tignore = ");
  if (quote) pbd_Buf_AppendChar(b, '"');
  for (; *p; p++) {
    if (quote && (*p == '"' || *p == '\\')) pbd_Buf_AppendChar(b, '\\');
    pbd_Buf_AppendChar(b, *p);
  }
  if (quote) pbd_Buf_AppendChar(b, '"');
  pbd_Buf_AppendChar(b, '\n');
}

bool pbd_CorpusStat_WriteNoise(pbd_CorpusStat *c, const pbd_CorpusTotals *t, const char *glob,
                               FILE *out) {
  if (c->oom) return false;
  if (c->npaths) qsort(c->paths, c->npaths, sizeof *c->paths, by_records);
  pbd_Buf b = {0};
  pbd_Buf_AppendStr(&b, "# pbdiff noise: what differs between two runs of one version.\n# ");
  pbd_CorpusTotals_Text(&b, t);
  if (t->only_left || t->only_right)
    pbd_Buf_AppendStr(&b, "# Records on one side only cannot be ignored field by field: "
                          "is the record key stable between runs?\n");
  pbd_Buf_AppendStr(&b, "[file \"");
  for (const char *p = glob; *p; p++) { /* a config value: quote and backslash escaped */
    if (*p == '"' || *p == '\\') pbd_Buf_AppendChar(&b, '\\');
    pbd_Buf_AppendChar(&b, *p);
  }
  pbd_Buf_AppendStr(&b, "\"]\n");
  for (size_t i = 0; i < c->npaths; i++) {
    const PathCount *pc = &c->paths[i];
    pbd_Buf_Printf(&b, "\t# %zu of %zu paired records (", pc->records, t->paired);
    kinds_text(&b, pc);
    pbd_Buf_AppendStr(&b, ")\n");
    ignore_line(&b, pc);
  }
  return flush(&b, out);
}
