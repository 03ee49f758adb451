/* pbdiff CLI — what the reporters' files share: the reporter's state, the
 * row each output format fills in (its name, what applies to it, its
 * steps for one pair and for a run over directories), and small helpers.
 * Internal to cli/report: report.c drives, text.c, json.c and junit.c are
 * the formats. */
#ifndef PBD_CLI_REPORT_IMPL_H_
#define PBD_CLI_REPORT_IMPL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "names.h"
#include "report/report.h"

#define SGR_BOLD "\033[1m"
#define SGR_RED "\033[31m"
#define SGR_GREEN "\033[32m"
#define SGR_CYAN "\033[36m"
#define SGR_RESET "\033[m"

enum { kKinds = 5 };
/* Kinds in the order counts are listed. */
extern const pbd_EditKind kPbd_KindOrder[kKinds];


/* Counts for one top-level field (stat). */
typedef struct {
  char *name;
  size_t counts[kKinds]; /* by pbd_EditKind */
} StatField;

/* A run of changed numbers: consecutive edits that change elements of
 * one field read through a typed view of bytes (cli/report/runs.c).  A long one is
 * summarised: the text report shows its first kRunShown elements and a
 * line of counts; JSON keeps every element and adds the summary. */
enum { kRunShown = 5 };
typedef struct {
  bool open;
  pbd_Buf field;       /* the field's path, no index ("graph.initializer[0].raw_data") */
  size_t parent_len;   /* of it, the part of the message that holds the field */
  size_t count;        /* elements that differ */
  size_t first[kRunShown]; /* their first indices */
  double max_abs, max_rel; /* the largest differences, absolute and relative */
  size_t max_abs_at, max_rel_at;
  size_t written;      /* of them, written by the format (not past --max-diffs) */
  bool current;        /* the edit being reported is one of them */
} rp_Run;

struct pbd_Reporter {
  const struct pbd_FormatDef *f; /* the format's row */
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
  int value_indent;  /* text: the indent level of the line being written */
  /* stat: fields in order of first appearance, and an index over them */
  StatField *fields;
  size_t nfields, fields_cap;
  rp_NameIndex field_index;
  pbd_Buf explain_text, explain_json; /* --explain, written by Finish */
  pbd_Buf note_text, note_json;       /* pbd_Reporter_Note, written by Finish */
  bool failed;      /* out of memory */
  /* junit: the text report goes to `out`, a memory stream over junit_text;
   * Finish writes the XML to final_out */
  FILE *final_out;
  char *junit_text;
  size_t junit_len;
  char *test_name;  /* owned copy of o.test_name */
  pbd_Buf junit_paths; /* junit: the first differences' paths, for the failure's message */
  size_t junit_npaths;
  double started;   /* junit: when the comparison began, for its time */
  void *own;        /* a format's own state (html, github), freed by its free_own */
  rp_Run run;       /* the run of changed numbers being read */
  size_t summarised; /* elements of runs the text report did not write, summarised */
  pbd_Buf summaries; /* json: the summaries of long runs, ",\n"-separated */
};

struct pbd_FilesReporter {
  const struct pbd_FormatDef *f;
  FILE *out;
  pbd_FilesOptions o;
  pbd_Buf doc;      /* json and junit: the document, written at the end */
  size_t tests, failures, errors;
  size_t equal, differ, only_left, only_right; /* the totals by outcome */
  pbd_StatTotals *stat;                        /* --stat: summed over the files */
  double started;                              /* junit: the run's start, for its time */
  bool failed;      /* out of memory */
  void *own;        /* a format's own state (html, github), freed by its files_free */
};

/* One output format.  A new format is a file defining its row and one
 * line in PBD_REPORT_FORMATS (report.h). */
typedef struct pbd_FormatDef {
  const char *name;   /* --format NAME */
  const char *help;   /* what it writes, for --help: "'NAME': ...", lines split by '\n' */
  bool stat, color;   /* whether --stat and colour apply */
  bool summary;       /* whether -r --summary applies */
  bool patch_header;  /* the git driver writes git's header lines first */
  bool names_inputs;  /* a single comparison's report names both inputs */
  bool trouble_report; /* a comparison that failed is still a report (an error case) */
  /* one pair */
  bool (*begin)(pbd_Reporter *r);                  /* NULL: nothing to prepare */
  int (*edit)(pbd_Reporter *r, const pbd_Edit *e); /* one difference */
  void (*finish)(pbd_Reporter *r, bool equal);     /* the report's end */
  bool (*close)(pbd_Reporter *r, bool equal);      /* out to the caller's stream */
  /* pbdiff -r: the options of one file's own report, its result, the end */
  void (*file_options)(const pbd_FilesReporter *s, const pbd_FileResult *f, pbd_ReportOptions *ro);
  void (*file)(pbd_FilesReporter *s, const pbd_FileResult *f);
  void (*files_end)(pbd_FilesReporter *s, bool equal);
  /* A long run of changed numbers (rp_Run) once it ends; NULL: the format
   * writes its elements as any edits.  hides_runs: the elements past the
   * first kRunShown are not written, the summary stands for them. */
  void (*run_summary)(pbd_Reporter *r, const rp_Run *run);
  bool hides_runs;
  /* NULL: the format keeps no state of its own (r->own, s->own) */
  void (*free_own)(pbd_Reporter *r);
  void (*files_free)(pbd_FilesReporter *s);
} pbd_FormatDef;

#define PBD_DECLARE_FORMAT(id) extern const pbd_FormatDef kPbd_FormatDef_##id;
PBD_REPORT_FORMATS(PBD_DECLARE_FORMAT)
#undef PBD_DECLARE_FORMAT

/* ---- report.c: helpers for the formats ------------------------------------- */

void rp_color_on(const pbd_Reporter *r, pbd_Buf *b, const char *sgr);
void rp_color_off(const pbd_Reporter *r, pbd_Buf *b);
/* Writes b to r->out; non-zero (r->failed) when b ran out of memory. */
int rp_flush_line(pbd_Reporter *r, pbd_Buf *b);
/* The edit's path as text (in r->path); *plen: the length of its parent
 * part.  both: an element at another index in RIGHT reads `[2->3]`. */
const char *rp_path_text(pbd_Reporter *r, const pbd_Edit *e, bool both, size_t *plen);
/* The same as shown on a line of text: an Any's type URL in it is payload
 * text, so control characters and what is not UTF-8 are escaped (JSON
 * writes rp_path_text's, JSON-escaped). */
const char *rp_path_shown(pbd_Reporter *r, const pbd_Edit *e, bool both, size_t *plen);
/* runs.c: an edit into the run being read (a long run that ends is handed
 * to the format's run_summary first); true when the edit is an element
 * the format does not write (hides_runs).  rp_runs_end ends the last. */
bool rp_runs_edit(pbd_Reporter *r, const pbd_Edit *e);
void rp_runs_end(pbd_Reporter *r);
/* The text report's line for a long run, and JSON's object (in r->summaries). */
void rp_text_run_summary(pbd_Reporter *r, const rp_Run *run);
void rp_json_run_summary(pbd_Reporter *r, const rp_Run *run);
/* Flushes what a format wrote to the caller's stream. */
bool rp_flush_out(pbd_Reporter *r, bool equal);
/* A copy (NULL stays NULL); sets *failed when out of memory. */
char *rp_dup(const char *s, bool *failed);
/* One difference as a text line, or counted for --stat (text.c; JUnit's
 * failure body is the text report). */
int rp_text_edit(pbd_Reporter *r, const pbd_Edit *e);
/* What ends a text report: the counts (stat) or how many were not shown. */
void rp_text_end(pbd_Reporter *r, bool equal);
/* "equal", "differ", "error", "only-left" or "only-right" (text.c). */
const char *rp_file_word(const pbd_FileResult *f);
/* A value on one line, cut short (64 bytes of a string, 120 of a message). */
void rp_short_value(pbd_Buf *b, const pbd_Value *v);
/* The difference in words: `LEFT -> RIGHT`, `added RIGHT`, `removed LEFT`,
 * `unset -> set to RIGHT`, `moved [I] -> [J]`; a kind without words of its
 * own reads `KIND LEFT -> RIGHT` (the github and sarif formats). */
void rp_describe_edit(pbd_Buf *b, const pbd_Edit *e);
/* Seconds on a monotonic clock (junit's time attributes). */
double rp_seconds_now(void);
/* Writes head, then the document collected in s->doc, and frees head. */
void rp_files_write(pbd_FilesReporter *s, pbd_Buf *head);
struct pbd_StatTotals {
  struct { char *name; size_t counts[kKinds]; } *fields;
  size_t n, cap;
  size_t counts[kKinds]; /* over all fields */
};
/* Adds a field's counts (false when out of memory). */
bool rp_stat_add(pbd_StatTotals *t, const char *name, const size_t *counts);
/* "  FIELD: 3 changed, 1 added" lines and "N differences: ..." (text.c). */
void rp_stat_lines(pbd_Buf *b, bool color, const pbd_StatTotals *t);

/* The totals line of -r: "4 files: 1 equal, 1 differ, 1 only in L, 1 error". */
void rp_files_totals_text(const pbd_FilesReporter *s, pbd_Buf *b);
/* A pbd_FormatDef.file_options: each file's report names both files. */
void rp_files_name_both(const pbd_FilesReporter *s, const pbd_FileResult *f, pbd_ReportOptions *ro);

#endif
