/* pbdiff CLI — the HTML form of pbdiff -r (docs/html.md): one page with a
 * list of the files that are not equal (each with its counts by kind and a
 * link to its section) and, after it, each differing file's own report as
 * a section.  At most kHtml_MaxSections bytes of sections are kept; the
 * files past them are still listed and counted. */
#include <stdlib.h>
#include <string.h>

#include "report/html_impl.h"

enum { kHtml_MaxSections = 64 << 20 };

typedef struct {
  pbd_Buf rows, sections;
  size_t left_out; /* files whose section did not fit */
} HtmlFiles;

static HtmlFiles *files_of(pbd_FilesReporter *s) {
  if (!s->own && !(s->own = calloc(1, sizeof(HtmlFiles)))) s->failed = true;
  return s->own;
}

void rp_html_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                          pbd_ReportOptions *ro) {
  rp_files_name_both(s, f, ro);
  ro->fragment = true;
  ro->test_name = f->rel;
}

/* The counts by kind that the file's section carries (data-counts). */
static void section_counts(const pbd_FileResult *f, size_t counts[kKinds]) {
  memset(counts, 0, kKinds * sizeof *counts);
  static const char kAttr[] = "data-counts=\"";
  const char *end = f->report + f->report_len;
  const char *nl = f->report_len ? memchr(f->report, '\n', f->report_len) : NULL;
  if (!nl) return;
  const char *p = f->report;
  for (; p + sizeof kAttr - 1 <= nl && memcmp(p, kAttr, sizeof kAttr - 1); p++) {}
  if (p + sizeof kAttr - 1 > nl) return;
  p += sizeof kAttr - 1;
  for (int k = 0; k < kKinds && p < end && *p != '"'; k++) {
    char *q;
    counts[k] = (size_t)strtoull(p, &q, 10);
    if (q == p) break;
    p = q;
  }
}

void rp_html_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  HtmlFiles *h = files_of(s);
  if (!h || (f->side == kPbd_File_Both && f->status == 0)) return;
  char id[16];
  hp_file_id(id, f->rel);
  bool error = f->side == kPbd_File_Both && f->status == 2;
  bool section = error || (f->side == kPbd_File_Both && f->report_len);
  size_t need = error ? 256 + strlen(f->rel) + (f->error ? 6 * strlen(f->error) : 0) : f->report_len;
  if (section && h->sections.len + need > kHtml_MaxSections) section = false, h->left_out++;
  pbd_Buf *b = &h->rows;
  pbd_Buf_AppendStr(b, "<tr><td>");
  if (section) pbd_Buf_Printf(b, "<a href=\"#%s\">", id);
  pbd_Buf_AppendStr(b, "<code class=\"path\">");
  hp_escape_str(b, f->rel);
  pbd_Buf_AppendStr(b, section ? "</code></a></td><td>" : "</code></td><td>");
  if (f->side != kPbd_File_Both) {
    pbd_Buf_AppendStr(b, "only in <code class=\"path\">");
    hp_escape_str(b, f->side == kPbd_File_OnlyLeft ? s->o.dir1 : s->o.dir2);
    pbd_Buf_AppendStr(b, "</code></td></tr>\n");
    return;
  }
  pbd_Buf_AppendStr(b, rp_file_word(f));
  pbd_Buf_AppendStr(b, "</td>");
  if (!error) {
    size_t counts[kKinds];
    section_counts(f, counts);
    hp_counts_cells(b, counts);
  }
  pbd_Buf_AppendStr(b, "</tr>\n");
  if (!section) return;
  if (error) {
    pbd_Buf_Printf(&h->sections, "<section class=\"file\" id=\"%s\"><h2><code class=\"path\">", id);
    hp_escape_str(&h->sections, f->rel);
    pbd_Buf_AppendStr(&h->sections, "</code>: error</h2>\n<pre>");
    hp_escape_str(&h->sections, f->error ? f->error : "");
    pbd_Buf_AppendStr(&h->sections, "</pre></section>\n");
  } else {
    pbd_Buf_Append(&h->sections, f->report, f->report_len);
  }
}

void rp_html_files_end(pbd_FilesReporter *s, bool equal) {
  HtmlFiles *h = files_of(s);
  if (!h) return;
  pbd_Buf doc = {0}, title = {0}, totals = {0};
  pbd_Buf_Printf(&title, "%s vs %s", s->o.dir1, s->o.dir2);
  hp_page_begin(&doc, title.oom ? "report" : title.data);
  pbd_Buf_AppendStr(&doc, "<header>\n<h1>pbdiff -r: ");
  rp_files_totals_text(s, &totals);
  if (totals.len) hp_escape(&doc, totals.data, totals.len - 1); /* without its newline */
  pbd_Buf_AppendStr(&doc, "</h1>\n<table class=\"meta\">\n<tr><th>LEFT</th><td><code class=\"path\">");
  hp_escape_str(&doc, s->o.dir1);
  pbd_Buf_AppendStr(&doc, "</code></td></tr>\n<tr><th>RIGHT</th><td><code class=\"path\">");
  hp_escape_str(&doc, s->o.dir2);
  pbd_Buf_AppendStr(&doc, "</code></td></tr>\n</table>\n");
  if (!equal && h->rows.len) {
    hp_counts_head(&doc, "file</th><th>status");
    pbd_Buf_Append(&doc, h->rows.data, h->rows.len);
    pbd_Buf_AppendStr(&doc, "</table>\n");
  }
  if (h->left_out) {
    pbd_Buf_AppendStr(&doc, "<p class=\"more\">");
    hp_count(&doc, h->left_out);
    pbd_Buf_Printf(&doc, " file report%s left out: the page keeps at most %d MiB of them.</p>\n",
                   h->left_out == 1 ? "" : "s", kHtml_MaxSections >> 20);
  }
  pbd_Buf_AppendStr(&doc, "</header>\n<main>\n");
  if (h->sections.len) pbd_Buf_Append(&doc, h->sections.data, h->sections.len);
  pbd_Buf_AppendStr(&doc, "</main>\n");
  hp_page_end(&doc);
  if (doc.oom || h->rows.oom || h->sections.oom || title.oom || totals.oom) s->failed = true;
  else fwrite(doc.data, 1, doc.len, s->out);
  pbd_Buf_Free(&doc);
  pbd_Buf_Free(&title);
  pbd_Buf_Free(&totals);
}

void rp_html_files_free(pbd_FilesReporter *s) {
  HtmlFiles *h = s->own;
  if (!h) return;
  pbd_Buf_Free(&h->rows);
  pbd_Buf_Free(&h->sections);
  free(h);
  s->own = NULL;
}
