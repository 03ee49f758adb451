/* pbdiff CLI — the JUnit XML report (report.h) for CI servers, and the JUnit
 * form of pbdiff -r (one document, one test case per file). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report_impl.h"

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

double rp_seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void pbd_Report_JunitBegin(pbd_Buf *b, size_t tests, size_t failures, size_t errors,
                           double seconds) {
  pbd_Buf_AppendStr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  pbd_Buf_Printf(b, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
                 tests, failures, errors, seconds);
  pbd_Buf_Printf(b,
                 "  <testsuite name=\"pbdiff\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                 "time=\"%.3f\">\n",
                 tests, failures, errors, seconds);
}

void pbd_Report_JunitCase(pbd_Buf *b, const char *name, double seconds, const char *outcome,
                          const char *type, const char *message, const char *body,
                          size_t body_len, const char *system_out, size_t system_out_len) {
  pbd_Buf_AppendStr(b, "    <testcase classname=\"pbdiff\" name=\"");
  pbd_Report_XmlEscape(b, name, strlen(name), true);
  pbd_Buf_Printf(b, "\" time=\"%.3f", seconds);
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
  pbd_Buf b = {0}, message = {0};
  pbd_Buf_Printf(&message, "%zu difference%s", r->total, r->total == 1 ? "" : "s");
  if (r->junit_paths.len) { /* where, as a CI server's list of failures shows only the message */
    pbd_Buf_Printf(&message, ": %s", r->junit_paths.data);
    if (r->total > r->junit_npaths) pbd_Buf_AppendStr(&message, ", ...");
  }
  if (message.oom) b.oom = true;
  double seconds = rp_seconds_now() - r->started;
  if (!r->o.junit_testcase) pbd_Report_JunitBegin(&b, 1, equal ? 0 : 1, 0, seconds);
  const char *text = r->junit_text ? r->junit_text : "";
  pbd_Buf sys = {0}; /* <system-out>: the notes, then --explain's text */
  pbd_Buf_Append(&sys, r->note_text.data ? r->note_text.data : "", r->note_text.len);
  pbd_Buf_Append(&sys, r->explain_text.data ? r->explain_text.data : "", r->explain_text.len);
  const char *out = sys.len ? sys.data : NULL;
  if (equal)
    pbd_Report_JunitCase(&b, name, seconds, NULL, NULL, NULL, NULL, 0, out, sys.len);
  else
    pbd_Report_JunitCase(&b, name, seconds, "failure", "differ", message.data ? message.data : "",
                         text, r->junit_len, out, sys.len);
  if (sys.oom) b.oom = true;
  pbd_Buf_Free(&sys);
  pbd_Buf_Free(&message);
  if (!r->o.junit_testcase) pbd_Report_JunitEnd(&b);
  bool ok = !b.oom && fwrite(b.data, 1, b.len, r->final_out) == b.len;
  pbd_Buf_Free(&b);
  if (fflush(r->final_out) != 0 || ferror(r->final_out)) ok = false;
  return ok;
}

/* The first differences' paths, for the failure's message. */
enum { kMessagePaths = 3 };

static int junit_edit(pbd_Reporter *r, const pbd_Edit *e) {
  if (r->junit_npaths < kMessagePaths && e->path && e->path->count) {
    size_t plen;
    const char *path = rp_path_shown(r, e, false, &plen);
    if (*path == '.') path++;
    if (*path) {
      if (r->junit_npaths++) pbd_Buf_AppendStr(&r->junit_paths, ", ");
      pbd_Buf_AppendStr(&r->junit_paths, path);
      if (r->junit_paths.oom) r->failed = true;
    }
  }
  return rp_text_edit(r, e);
}

/* The text report goes to a memory stream; Finish wraps it in XML. */
static bool junit_begin(pbd_Reporter *r) {
  r->started = rp_seconds_now();
  bool failed = false;
  r->test_name = rp_dup(r->o.test_name, &failed);
  r->o.test_name = r->test_name;
  r->final_out = r->out;
  r->out = open_memstream(&r->junit_text, &r->junit_len);
  return !failed && r->out;
}


/* ---- pbdiff -r ------------------------------------------------------------------- */

static void junit_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                               pbd_ReportOptions *ro) {
  rp_files_name_both(s, f, ro);
  ro->test_name = f->rel;
  ro->junit_testcase = true; /* the document is ours */
}

static void junit_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  pbd_Buf *doc = &s->doc;
  const char *word = rp_file_word(f);
  if (f->side != kPbd_File_Both) {
    pbd_Buf msg = {0};
    pbd_Buf_Printf(&msg, "only in %s", f->side == kPbd_File_OnlyLeft ? s->o.dir1 : s->o.dir2);
    pbd_Report_JunitCase(doc, f->rel, 0, "failure", word, msg.data ? msg.data : "", NULL, 0, NULL,
                         0);
    if (msg.oom) s->failed = true;
    pbd_Buf_Free(&msg);
  } else if (f->status == 2) {
    pbd_Report_JunitCase(doc, f->rel, f->seconds, "error", "error", f->error ? f->error : "",
                         NULL, 0, NULL, 0);
  } else if (f->report_len) {
    pbd_Buf_Append(doc, f->report, f->report_len); /* the file's <testcase> */
  } else { /* no report written (cannot happen): the verdict alone */
    int st = f->status;
    pbd_Report_JunitCase(doc, f->rel, f->seconds, st ? "failure" : NULL, st ? "differ" : NULL,
                         st ? "differs" : NULL, NULL, 0, NULL, 0);
  }
}

static void junit_files_end(pbd_FilesReporter *s, bool equal) {
  (void)equal;
  pbd_Buf head = {0};
  pbd_Report_JunitBegin(&head, s->tests, s->failures, s->errors,
                        rp_seconds_now() - s->started);
  pbd_Report_JunitEnd(&s->doc);
  rp_files_write(s, &head);
}

const pbd_FormatDef kPbd_FormatDef_Junit = {
    .name = "junit", .trouble_report = true,
    .help = "'junit': JUnit XML for CI servers, one test\ncase per file, see docs/ci.md",
    .begin = junit_begin, .edit = junit_edit, .finish = rp_text_end, .close = junit_finish,
    .file_options = junit_file_options, .file = junit_file, .files_end = junit_files_end,
};
