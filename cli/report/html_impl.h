/* pbdiff CLI — the HTML report's pieces (docs/html.md): the page around a
 * report (html_page.c: styles, the script, the content security policy),
 * escaping, and the cells that show a value (html_values.c).  Internal to
 * cli/report: html.c is the format's row and the tree of differences. */
#ifndef PBD_CLI_REPORT_HTML_IMPL_H_
#define PBD_CLI_REPORT_HTML_IMPL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report_impl.h"

/* ---- html_page.c ---------------------------------------------------------------- */

/* Appends s[0, n) escaped for HTML text and attribute values: & < > " ' as
 * entities; tab and newline kept; every other control character, and each
 * byte that is not part of well-formed UTF-8, as U+FFFD.  So no value,
 * name or path can open a tag or leave an attribute. */
void hp_escape(pbd_Buf *b, const char *s, size_t n);
void hp_escape_str(pbd_Buf *b, const char *s);
/* `1 204 567`: a count with thin spaces between groups of three digits. */
void hp_count(pbd_Buf *b, size_t n);
/* A table of counts: its head (first column's title, the total, a column
 * per kind in kPbd_KindOrder) and a row's cells (counts by pbd_EditKind). */
void hp_counts_head(pbd_Buf *b, const char *first_col);
void hp_counts_cells(pbd_Buf *b, const size_t *counts);
/* The id prefix of the section of one file of -r ("fXXXXXXXX-"). */
void hp_file_id(char out[16], const char *rel);
/* The document up to the opening of <body>, with the navigation bar:
 * <title>pbdiff: TITLE</title>, the styles and the content security policy
 * (nothing may be loaded; only the page's own script runs). */
void hp_page_begin(pbd_Buf *b, const char *title);
/* The script (n/p and the buttons) and the end of the document. */
void hp_page_end(pbd_Buf *b);

/* ---- html_values.c ------------------------------------------------------------- */

/* Bytes of message text one report may spend on added, removed or moved
 * messages shown whole; past it they are shown on one cut line. */
enum { kHv_MessageBudget = 4 << 20 };
/* One message value shown whole is cut after this many bytes of text. */
enum { kHv_MaxMessageText = 64 << 10 };
/* A message value of more lines than this is folded (a closed <details>). */
enum { kHv_FoldLines = 20 };
/* Strings and bytes longer than this are cut (with their size and hash). */
enum { kHv_MaxBytes = 256 };

/* One value as the content of a cell: text format, HTML-escaped; a message
 * over several lines (folded past kHv_FoldLines lines), spending *budget. */
void hv_cell(pbd_Buf *b, const pbd_Value *v, size_t *budget);
/* A changed pair of long strings or bytes sharing a start or an end: each
 * side's cell shows the part that differs inside <mark>, with some context,
 * and the lengths of the equal runs elided around it.  false (nothing
 * written) when the pair is not such a pair. */
bool hv_changed_part(pbd_Buf *lb, pbd_Buf *rb, const pbd_Value *l, const pbd_Value *r);

/* Whether a field is numeric (integers and floats, not bool or enum), so
 * that its long repeated runs are summarised. */
bool hv_numeric_field(const pbd_FieldDef *f);

/* A long numeric repeated field's differences, summed up. */
enum { kHv_FirstIndices = 10 };
typedef struct {
  size_t left_len, right_len; /* the field's lengths */
  size_t edits, by_kind[kKinds], other_kinds;
  bool have_abs, have_rel;
  double max_abs, max_rel;
  int64_t max_abs_at, max_rel_at;
  size_t nfirst;
  int64_t first_at[kHv_FirstIndices];
  pbd_Buf first;             /* the first differing elements, as list items */
} hv_NumSummary;

/* Adds one element's edit (its index: e->left_index, else right_index). */
void hv_num_add(hv_NumSummary *s, const pbd_Edit *e);
/* The summary's body (after its heading line). */
void hv_num_write(pbd_Buf *b, const hv_NumSummary *s);
void hv_num_free(hv_NumSummary *s);

#endif
