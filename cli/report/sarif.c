/* pbdiff CLI — `--format sarif` (docs/ci.md): one SARIF 2.1.0 log, for code
 * scanning dashboards that read static-analysis results.  One run; its
 * tool's driver has one rule per kind of difference; each difference is a
 * result of that rule with its message (`PATH: LEFT -> RIGHT`), RIGHT's file
 * as its physical location, the field path as its logical location, and a
 * partial fingerprint that stays the same from run to run (a hash of the
 * file, the path and the kind), so a dashboard follows one difference across
 * commits.  Under -r one log holds every file's results, and files on one
 * side only or that could not be compared are results of rules of their own.
 *
 * Each pair's report is its results, comma-separated (a fragment); the log
 * around them is written at the end, by the pair's reporter or the run's. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "pbdiff/format/format.h"
#include "pbdiff/pbdiff.h"
#include "report/report_impl.h"

/* The rules: the edit kinds in pbd_EditKind order, then the files'. */
static const struct {
  const char *id, *text;
} kRules[] = {
    {"added", "A value, element or field only RIGHT has"},
    {"removed", "A value, element or field only LEFT has"},
    {"changed", "A value that differs between LEFT and RIGHT"},
    {"presence", "A field with presence set on one side (to its default) and unset on the other"},
    {"moved", "A repeated element at another place"},
    {"only-left", "A file only in the left directory"},
    {"only-right", "A file only in the right directory"},
    {"not-compared", "A file that could not be compared"},
};
enum { kRuleOnlyLeft = 5, kRuleOnlyRight = 6, kRuleNotCompared = 7 };
enum { kRuleCount = sizeof kRules / sizeof kRules[0] };

static void json_str(pbd_Buf *b, const char *s) { pbd_Format_JsonString(b, s, strlen(s)); }

/* A path as a URI reference: unreserved characters and '/' as they are,
 * every other byte percent-encoded (RFC 3986), so that a file name with
 * spaces or '#' still names the file. */
static void uri_of(pbd_Buf *b, const char *path) {
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                 strchr("-._~/", *p);
    if (plain) pbd_Buf_AppendChar(b, (char)*p);
    else pbd_Buf_Printf(b, "%%%02X", *p);
  }
}

/* One result: rule, message, where, and its fingerprint. */
static void result(pbd_Buf *b, int rule, const char *file, const char *path, const char *msg) {
  pbd_Buf_Printf(b, "{\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"error\", \"message\": {\"text\": ",
                 kRules[rule].id, rule);
  json_str(b, msg);
  pbd_Buf_AppendStr(b, "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ");
  pbd_Buf u = {0};
  uri_of(&u, file ? file : "");
  json_str(b, u.oom || !u.data ? "" : u.data);
  pbd_Buf_Free(&u);
  pbd_Buf_AppendStr(b, "}}");
  if (path) {
    pbd_Buf_AppendStr(b, ", \"logicalLocations\": [{\"fullyQualifiedName\": ");
    json_str(b, path);
    pbd_Buf_AppendStr(b, ", \"kind\": \"member\"}]");
  }
  /* stable across runs: the file, the path and the kind, hashed with seed 0 */
  XXH3_state_t *st = XXH3_createState();
  uint64_t h = 0;
  if (st) {
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, file ? file : "", strlen(file ? file : "") + 1);
    XXH3_64bits_update(st, path ? path : "", strlen(path ? path : "") + 1);
    XXH3_64bits_update(st, kRules[rule].id, strlen(kRules[rule].id));
    h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
  }
  pbd_Buf_Printf(b, "}], \"partialFingerprints\": {\"pbdiff/v1\": \"%016llx\"}}",
                 (unsigned long long)h);
}

static int sarif_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->entries, msg = {0};
  size_t plen;
  const char *path = rp_path_text(r, e, false, &plen);
  pbd_Buf_Printf(&msg, "%s: ", *path ? path : ".");
  rp_describe_edit(&msg, e);
  if (r->shown > 0) pbd_Buf_AppendStr(b, ",\n");
  int rule = (int)e->kind < kRuleOnlyLeft ? (int)e->kind : kPbd_Edit_Changed;
  result(b, rule, r->o.right_name, *path ? path : ".", msg.oom ? "" : msg.data);
  bool oom = msg.oom || b->oom;
  pbd_Buf_Free(&msg);
  if (oom) r->failed = true;
  return oom;
}

/* The log around the results; `omitted` differences past --max-diffs. */
static void write_log(FILE *out, const pbd_Buf *results, size_t omitted) {
  fprintf(out, "{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\", "
               "\"runs\": [{\"tool\": {\"driver\": {\"name\": \"pbdiff\", \"version\": \"%s\", "
               "\"rules\": [",
          PBDIFF_VERSION);
  for (int i = 0; i < kRuleCount; i++)
    fprintf(out, "%s{\"id\": \"%s\", \"shortDescription\": {\"text\": \"%s\"}}", i ? ", " : "",
            kRules[i].id, kRules[i].text);
  fputs("]}}, \"results\": [", out);
  if (results->len) {
    fputc('\n', out);
    fwrite(results->data, 1, results->len, out);
    fputc('\n', out);
  }
  fputc(']', out);
  if (omitted) fprintf(out, ", \"properties\": {\"omitted\": %zu}", omitted);
  fputs("}]}\n", out);
}

static void sarif_finish(pbd_Reporter *r, bool equal) {
  (void)equal;
  if (r->o.fragment) { /* a file of -r: the run's reporter writes the log */
    if (r->entries.len) fwrite(r->entries.data, 1, r->entries.len, r->out);
    return;
  }
  write_log(r->out, &r->entries, r->total - r->shown);
}

/* ---- pbdiff -r ------------------------------------------------------------------- */

static void sarif_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                               pbd_ReportOptions *ro) {
  rp_files_name_both(s, f, ro);
  ro->fragment = true;
}

static void sarif_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  pbd_Buf *doc = &s->doc;
  if (f->side == kPbd_File_Both && f->status == 0) return;
  if (doc->len && (f->side != kPbd_File_Both || f->status == 2 || f->report_len))
    pbd_Buf_AppendStr(doc, ",\n");
  if (f->side == kPbd_File_Both && f->status != 2) {
    pbd_Buf_Append(doc, f->report, f->report_len);
    return;
  }
  pbd_Buf file = {0}, msg = {0};
  bool left = f->side == kPbd_File_OnlyLeft;
  if (f->side == kPbd_File_Both) {
    pbd_Buf_AppendStr(&file, f->right_path ? f->right_path : f->rel);
    pbd_Buf_Printf(&msg, "cannot compare: %s", f->error ? f->error : "");
  } else {
    const char *dir = left ? s->o.dir1 : s->o.dir2;
    size_t n = strlen(dir);
    pbd_Buf_Printf(&file, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", f->rel);
    pbd_Buf_Printf(&msg, "only in %s", dir);
  }
  int rule = f->side == kPbd_File_Both ? kRuleNotCompared : left ? kRuleOnlyLeft : kRuleOnlyRight;
  if (file.oom || msg.oom) s->failed = true;
  else result(doc, rule, file.data, NULL, msg.data);
  pbd_Buf_Free(&file);
  pbd_Buf_Free(&msg);
}

static void sarif_files_end(pbd_FilesReporter *s, bool equal) {
  (void)equal;
  if (s->doc.oom) {
    s->failed = true;
    return;
  }
  write_log(s->out, &s->doc, 0);
}

const pbd_FormatDef kPbd_FormatDef_Sarif = {
    .name = "sarif",
    .help = "'sarif': a SARIF 2.1.0 log, a result per difference,\nsee docs/ci.md",
    .names_inputs = true,
    .edit = sarif_edit, .finish = sarif_finish, .close = rp_flush_out,
    .file_options = sarif_file_options, .file = sarif_file, .files_end = sarif_files_end,
};
