/* pbdiff CLI — reporters: turn edits into text or JSON on an output stream.
 * They know the tree's values (lib/format/format.h), never the wire format.
 *
 * Text report (the default), one line per difference, grouped by message:
 *
 *   ir_version: 7 -> 3
 *   graph.node[0] (onnx.NodeProto):
 *     op_type: "Abs" -> "Acos"
 *     attribute[1]: added { name: "alpha" f: 0.5 type: FLOAT }
 *   graph (onnx.GraphProto):
 *     name: "test_abs" -> "test_acos"
 *
 * - An edit's parent is path[0, parent_len): the message holding the field.
 *   Fields of the root message (parent path empty) are written unindented
 *   and without a header.  Otherwise, whenever the parent path or type
 *   differs from the previous written difference's, a header line
 *   `PARENT (full.Type):` is written (`PARENT:` without a schema), and the
 *   differences under it are indented by two spaces.  Edits are never
 *   reordered: a parent that comes back after another gets a new header.
 * - A difference line is `FIELD: BODY`, FIELD being the path after the
 *   parent and its '.' (the whole path for root fields; "." for an empty
 *   one; an element compared with one at another index in RIGHT reads
 *   `v[2->3]`, except in moved lines), BODY one of
 *     LEFT -> RIGHT                 changed
 *     added RIGHT                   only in RIGHT
 *     removed LEFT                  only in LEFT
 *     unset -> set to RIGHT         presence (RIGHT sets it to its default)
 *     set to LEFT -> unset          presence (LEFT sets it to its default)
 *     moved [LI] -> [RI]            moved: element positions in LEFT, RIGHT
 * - Values in text-format syntax on one line: strings and bytes longer than
 *   64 bytes cut after 64 bytes (on a character boundary) as
 *   `"abc..." (1000 bytes, xxh3:9f3a1c2b)` (the first 8 of the 16 hex digits
 *   of XXH3_64bits of the whole value).  A message value whose line would
 *   pass 120 bytes (an added or removed element, say) is written instead
 *   as indented text format over several lines, `{` ... `}`, whole up to
 *   max_value_lines lines (40 by default), then `... (N more lines)`.  A changed pair of strings or bytes,
 *   one longer than 64 bytes, sharing more than 16 bytes of start and end
 *   and differing in at most 128 bytes, shows only what differs, with 16
 *   bytes of context and the lengths of the same runs around it:
 *   `...(43 bytes) "/kernel/weights_a" (3 bytes)... -> ...(43 bytes)
 *   "/kernel/weights_b" (3 bytes)...`; a message value (added, removed, ...)
 *   as `{ a: 1 b { c: 2 } }`, cut after 120 bytes with `...`;
 *   google.protobuf.Timestamp as `2024-05-01T12:00:00.500Z` and
 *   google.protobuf.Duration as `1.5s` (unquoted; out-of-range values as
 *   messages).
 * - With left_name and right_name both set, the report starts with
 *   `--- LEFT_NAME` and `+++ RIGHT_NAME` lines (only when there is at least
 *   one difference).
 * - max_diffs N > 0: the first N differences are written, then
 *   `... and K more differences` (`difference` when K is 1) at the end.
 * - stat: instead of the differences, at the end: one line per top-level
 *   field, `  FIELD: COUNTS`, in the order the fields first came, then
 *   `N differences: COUNTS` (`1 difference: ...`).  COUNTS lists the
 *   nonzero counts by kind in the order changed, added, removed, presence,
 *   moved, as `3 changed, 1 added`.  FIELD is the first path segment
 *   without the index or key after it (with stat_depth N, the first N
 *   fields, indices and keys between them as `[*]`: `graph.node[*].op_type`) (`graph.node[3].op_type` -> `graph`,
 *   `labels["env"]` -> `labels`, `[pkg.ext].a` -> `[pkg.ext]`); a leading
 *   stream index (`[3].name`, --delimited) is skipped, and a whole stream
 *   message added or removed (path `[3]`) counts as `(messages)`.  Nothing
 *   is written when there are no differences; max_diffs does not apply.
 * - color: headers and the ---/+++ lines bold, removed values and LEFT red,
 *   added values and RIGHT green (`added VALUE`, `removed VALUE`,
 *   `set to VALUE` coloured whole), moved cyan; in --stat the removed,
 *   added and moved counts.  SGR codes \033[1m, \033[31m, \033[32m,
 *   \033[36m, each ended by \033[m.
 *
 * JSON report: see docs/json-format.md.  HTML report (--format html, one
 * self-contained page): docs/html.md.  GitHub Actions (--format github,
 * workflow commands and $GITHUB_STEP_SUMMARY): docs/ci.md.
 *
 * JUnit report (--format junit, for CI servers; docs/ci.md): an XML 1.0
 * document with one test case, named after RIGHT:
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <testsuites tests="1" failures="1" errors="0" time="0.012">
 *     <testsuite name="pbdiff" tests="1" failures="1" errors="0" time="0.012">
 *       <testcase classname="pbdiff" name="RIGHT" time="0.012">
 *         <failure message="2 differences" type="differ">TEXT REPORT</failure>
 *       </testcase>
 *     </testsuite>
 *   </testsuites>
 *
 * - time: seconds the comparison took, to the millisecond (for -r, each
 *   file's own, and the whole run's on the suite).
 * - An equal pair is `<testcase classname="pbdiff" name="RIGHT" time="T"/>` and
 *   failures="0"; with --explain, the explanation is its <system-out>.
 * - The failure body is the text report exactly as --format text writes it
 *   without colour (---/+++ lines, max_diffs, ...), XML-escaped; message
 *   counts every difference (`1 difference`, `N differences`).
 * - The name is test_name, else right_name, else "pbdiff".
 * - junit_testcase: only the <testcase> element (indented, ended by a
 *   newline) is written; pbdiff -r puts one per file into one document. */
#ifndef PBD_CLI_REPORT_H_
#define PBD_CLI_REPORT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pbdiff/core/base.h"
#include "pbdiff/diff/diff.h"

/* The output formats, X(Id) each, in --help's order: a new format is one
 * line here and one file (cli/report/NAME.c) defining its row
 * kPbd_FormatDef_Id (cli/report/report_impl.h). */
#define PBD_REPORT_FORMATS(X) X(Text) X(Json) X(Junit) X(Paths) X(Html) X(Github) X(Sarif)

#define PBD_REPORT_FORMAT_ENUM(id) kPbd_Report_##id,
typedef enum { PBD_REPORT_FORMATS(PBD_REPORT_FORMAT_ENUM) kPbd_Report_FormatCount } pbd_ReportFormat;
#undef PBD_REPORT_FORMAT_ENUM

/* Counts by kind and by field, summed over the files of -r --stat. */
typedef struct pbd_StatTotals pbd_StatTotals;
pbd_StatTotals *pbd_StatTotals_New(void);
void pbd_StatTotals_Free(pbd_StatTotals *t);

typedef struct {
  bool color;             /* text: ANSI colours (see pbd_Report_ShouldColor) */
  size_t max_diffs;       /* write at most this many differences; 0 = all */
  size_t max_value_lines; /* text: lines of a long message value; 0 = 40 */
  bool stat;              /* text: counts instead of differences (JSON: ignored) */
  size_t stat_depth;      /* stat: fields per path counted on (0: 1) */
  pbd_StatTotals *stat_out; /* stat: the counts are also added here (-r) */
  const char *left_name;  /* input names for the ---/+++ lines (text) and the */
  const char *right_name; /* "left_name"/"right_name" keys (JSON); may be NULL;
                             copied */
  /* JUnit only: */
  const char *test_name;        /* the test case's name (copied); NULL: see above */
  bool junit_testcase;          /* write the <testcase> element only */
  /* -r, text: a pair with identical bytes says nothing (no "identical
   * bytes" line from --explain) */
  bool quiet_identical;
  /* html: the header's schema files, message type and options in force (any
   * may be NULL; not copied: they must outlive the reporter) */
  const char *schema_text, *type_name, *options_text;
  /* html, github: the report is one file's part of a -r report */
  bool fragment;
} pbd_ReportOptions;

/* --color WORD: true for "auto", "always" and "never" (so the CLI can reject
 * anything else as a usage error). */
bool pbd_Report_ColorModeValid(const char *mode);
/* Whether to colour output written to file descriptor fd: "always" yes,
 * "never" no; "auto" (or NULL) yes only when fd is a terminal, the
 * environment variable NO_COLOR is unset or empty, and TERM is not "dumb".
 * An invalid word gives false.  --color=always overrides NO_COLOR, as
 * no-color.org asks of command-line options. */
bool pbd_Report_ShouldColor(const char *mode, int fd);

/* The format named `name` ("text", "json", "junit"); false when none is. */
bool pbd_Report_FormatByName(const char *name, pbd_ReportFormat *fmt);
/* The names of the formats, for messages: "text, json or junit". */
const char *pbd_Report_FormatNames(void);
/* The name of a format ("text"). */
const char *pbd_Report_FormatName(pbd_ReportFormat fmt);
/* What each format writes, one after the other, for --help (lines split
 * by '\n'). */
const char *pbd_Report_FormatHelp(void);
/* Whether --stat and colour apply to the format (text). */
bool pbd_Report_HasStat(pbd_ReportFormat fmt);
bool pbd_Report_HasColor(pbd_ReportFormat fmt);
/* Whether a single comparison's report names both inputs (JSON's
 * left_name and right_name). */
bool pbd_Report_NamesInputs(pbd_ReportFormat fmt);
/* Whether a comparison that failed is written as a report too (JUnit: a
 * test case with an <error>), through pbd_FilesReporter. */
bool pbd_Report_ReportsTrouble(pbd_ReportFormat fmt);
/* Whether -r --summary goes with the format. */
bool pbd_Report_HasSummary(pbd_ReportFormat fmt);
/* Whether the git driver writes git's header lines (diff --pbdiff, index,
 * ---/+++) before the report (text); else the report names both sides. */
bool pbd_Report_TakesPatchHeader(pbd_ReportFormat fmt);

typedef struct pbd_Reporter pbd_Reporter;

/* A reporter writing to `out` (not closed by the reporter), with options
 * (NULL: defaults: no colour, no limit, no stat, no names).  NULL when out
 * of memory. */
pbd_Reporter *pbd_Reporter_New(pbd_ReportFormat fmt, FILE *out, const pbd_ReportOptions *opts);

/* A pbd_EditFunc: pass the reporter as ctx.  Every edit of the comparison
 * must be passed (max_diffs and stat count them all); returns 0, or
 * non-zero only when out of memory.  Text differences are written as they
 * come (stat: at the end); JSON is collected and written by Finish. */
int pbd_Reporter_Edit(void *reporter, const pbd_Edit *e);
/* Adds the --explain result, written by Finish: `text` (lines, each ending
 * in a newline) after the text report, `json` (a JSON value) as the
 * top-level key "encoding" of the JSON report.  Both are copied. */
void pbd_Reporter_Explain(pbd_Reporter *r, const char *text, const char *json);
/* Adds notes on the pair that are not differences (the records of a
 * Confluent stream whose schema id or message indexes differ,
 * docs/semantics.md rule 14), written by Finish: `text` (lines, each ending
 * in a newline) after the differences and before --explain's text, `json`
 * (members of an object: `"key": value, ...`) as members of the JSON
 * report's top-level object (cli/record_notes.h: "schema_changes");
 * JUnit adds the text to <system-out>, paths writes nothing.  Both are
 * copied. */
void pbd_Reporter_Note(pbd_Reporter *r, const char *text, const char *json);
/* Ends the report: text writes the `... and K more differences` line or
 * the stat; JSON writes the whole object with a newline.  Returns false
 * when writing failed. */
bool pbd_Reporter_Finish(pbd_Reporter *r, bool equal);
void pbd_Reporter_Free(pbd_Reporter *r);

/* ---- A report over the files of two directories (pbdiff -r) ------------------
 *
 * The formats' -r forms (docs/ci.md):
 *   text      `Only in DIR1/sub: name` / `Only in DIR2/sub: name` (as
 *             diff -r), and before each file's report that is not empty
 *             `--- DIR1/rel` and `+++ DIR2/rel` (bold with colour)
 *   --summary one line per file: `equal REL`, `differ REL`, `error REL: MSG`,
 *             `only-left REL`, `only-right REL` (text and json)
 *   json      {"equal": B, "left_dir": D1, "right_dir": D2, "files": [
 *               {"path": REL, "status": S[, "report": {...}][, "error": MSG]}, ...]}
 *   junit     one JUnit document, one test case per file */

typedef enum { kPbd_File_Both, kPbd_File_OnlyLeft, kPbd_File_OnlyRight } pbd_FileSide;

typedef struct {
  const char *rel;                    /* the path under both directories */
  const char *left_path, *right_path; /* DIR1/REL and DIR2/REL (Both) */
  pbd_FileSide side;
  int status;                         /* Both: 0 equal, 1 different, 2 trouble */
  const char *report;                 /* what the file's own report wrote */
  size_t report_len;
  const char *error;                  /* status 2: what went wrong, one line */
  const pbd_StatTotals *stat;         /* --stat: the file's counts, or NULL */
  double seconds;                     /* how long its comparison took */
} pbd_FileResult;

typedef struct {
  bool summary;                       /* one line per file */
  bool stat_totals;                   /* --stat: counts summed over the files at the end */
  bool color;
  const char *dir1, *dir2;            /* the directories as shown */
} pbd_FilesOptions;

typedef struct pbd_FilesReporter pbd_FilesReporter;

/* NULL when out of memory. */
pbd_FilesReporter *pbd_FilesReporter_New(pbd_ReportFormat fmt, FILE *out,
                                         const pbd_FilesOptions *o);
/* The options of one file's own report (f: rel and paths set), and whether
 * it needs none (*quiet: the verdict is enough). */
void pbd_FilesReporter_FileOptions(const pbd_FilesReporter *s, const pbd_FileResult *f,
                                   pbd_ReportOptions *ro, bool *quiet);
/* One file's result, in path order. */
void pbd_FilesReporter_File(pbd_FilesReporter *s, const pbd_FileResult *f);
/* Writes what is left (the document of json and junit); false when out of
 * memory. */
bool pbd_FilesReporter_Finish(pbd_FilesReporter *s, bool equal);
void pbd_FilesReporter_Free(pbd_FilesReporter *s);

/* ---- Corpora: statistics per field path (--record-key --stat, pbdiff noise) ----
 *
 * A corpus comparison pairs records by key (include/pbdiff/corpus/records.h);
 * the statistics count, for each field path pattern below a record
 * (fields by name, every index and key as [*]: `items[*].price`), the
 * records where it differs, by kind, with the keys of the first N such
 * records (the smallest keys: records come in key order).  Text:
 *
 *     price: 8 records (8 changed), e.g. [id="r-1"] [id="r-7"] [id="r-9"]
 *     tags[*]: 2 records (1 added, 1 removed), e.g. [id="r-3"] [id="r-4"]
 *   records: 1000 in LEFT, 1000 in RIGHT; 999 paired: 990 equal, 9 differ; 1 only in LEFT, 1 only in RIGHT
 *
 * patterns by records (most first), then bytewise; JSON (docs/json-format.md):
 * {"equal": B, "totals": {...}, "paths": [{"path": P, "records": N,
 * "changed": N, "added": N, "removed": N, "presence": N, "moved": N,
 * "examples": [KEY, ...]}, ...]}.  The noise form is a .pbdiff section
 * of `ignore = PATTERN` lines, each after a comment with its counts. */
typedef struct {
  size_t left_records, right_records; /* records read on each side */
  size_t paired, equal, changed;      /* pairs with one key; of them equal, differing */
  size_t only_left, only_right;       /* records whose key the other side lacks */
  size_t dup_left, dup_right;         /* keys held by more than one record of a side */
} pbd_CorpusTotals;

typedef struct pbd_CorpusStat pbd_CorpusStat;

/* Statistics keeping up to max_examples keys per pattern; NULL when out of
 * memory. */
pbd_CorpusStat *pbd_CorpusStat_New(size_t max_examples);
void pbd_CorpusStat_Free(pbd_CorpusStat *c);
/* The edits that follow belong to the record with this key. */
void pbd_CorpusStat_BeginRecord(pbd_CorpusStat *c, const char *key, size_t len);
/* A pbd_EditFunc (ctx: the statistics) for edits whose path starts with the
 * record's key; a whole record added or removed is left to the totals. */
int pbd_CorpusStat_Edit(void *ctx, const pbd_Edit *e);
/* The totals line (text, ending in a newline). */
void pbd_CorpusTotals_Text(pbd_Buf *b, const pbd_CorpusTotals *t);
/* Writes the statistics as text or JSON; extra_json (or NULL), members such
 * as "schema_changes": [...], closes the JSON object.  False when out of
 * memory or writing failed. */
bool pbd_CorpusStat_Write(pbd_CorpusStat *c, const pbd_CorpusTotals *t, bool json,
                          const char *extra_json, FILE *out);
/* Writes the statistics as a .pbdiff section [file "GLOB"] ignoring every
 * pattern (pbdiff noise). */
bool pbd_CorpusStat_WriteNoise(pbd_CorpusStat *c, const pbd_CorpusTotals *t, const char *glob,
                               FILE *out);

/* ---- JUnit XML pieces (the reporter's and pbdiff -r's) ----------------------- */

/* Appends s[0, n) escaped for XML 1.0 text and attribute values: & < > "
 * as entities, tab, newline and carriage return as character references
 * when `attribute` (so that they survive attribute normalisation), every
 * other control character, U+FFFE, U+FFFF and each byte that is not part
 * of well-formed UTF-8 as U+FFFD. */
void pbd_Report_XmlEscape(pbd_Buf *b, const char *s, size_t n, bool attribute);
/* `<?xml ...?>`, `<testsuites ...>` and `<testsuite name="pbdiff" ...>`
 * with the counts, each on a line. */
void pbd_Report_JunitBegin(pbd_Buf *b, size_t tests, size_t failures, size_t errors,
                           double seconds);
/* One <testcase classname="pbdiff" name="NAME"> element, indented by four
 * spaces and ended by a newline.  outcome NULL: passed (empty element
 * unless system_out is given); "failure" or "error": a child element of
 * that name with the message and type attributes and, when body is not
 * NULL, the body as its text.  system_out (NULL: none) becomes a
 * <system-out> child. */
void pbd_Report_JunitCase(pbd_Buf *b, const char *name, double seconds, const char *outcome,
                          const char *type, const char *message, const char *body,
                          size_t body_len, const char *system_out, size_t system_out_len);
/* Closes what pbd_Report_JunitBegin opened. */
void pbd_Report_JunitEnd(pbd_Buf *b);

/* A hash index over the names of an array of items, each item a struct
 * whose first member is its `char *name`, `stride` bytes apart: the
 * lookups of --stat and of corpus statistics, one per edit. */
typedef struct {
  size_t *slots;  /* position + 1, 0 = empty */
  size_t cap;     /* power of two */
  size_t last;    /* position + 1 of the last name found or added */
} rp_NameIndex;

/* The position of name[0, len) among the n items, or n when it is not one. */
size_t rp_NameIndex_Find(rp_NameIndex *x, const void *items, size_t stride, size_t n,
                         const char *name, size_t len);
/* Indexes item n (its name set), the items before it being indexed; false
 * when out of memory. */
bool rp_NameIndex_Add(rp_NameIndex *x, const void *items, size_t stride, size_t n);
void rp_NameIndex_Free(rp_NameIndex *x);

#endif
