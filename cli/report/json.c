/* pbdiff CLI — the JSON report (docs/json-format.md) and the JSON form of
 * pbdiff -r (one object with a "files" array). */
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/report_impl.h"

static void json_str(pbd_Buf *b, const char *s, size_t n) { pbd_Format_JsonString(b, s, n); }

static int json_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->entries;
  if (r->shown > 0) pbd_Buf_AppendStr(b, ",\n");
  size_t plen;
  const char *path = rp_path_text(r, e, false, &plen);
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
  if (r->summaries.len) fprintf(r->out, ", \"summaries\": [\n%s\n]", r->summaries.data);
  if (r->note_json.len) fprintf(r->out, ", %s", r->note_json.data); /* "schema_changes": ... */
  if (r->explain_json.len) fprintf(r->out, ", \"encoding\": %s", r->explain_json.data);
  fputs("}\n", r->out);
}


/* ---- pbdiff -r ------------------------------------------------------------------- */

static void json_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  pbd_Buf *doc = &s->doc;
  pbd_Buf_AppendStr(doc, s->tests > 1 ? ",\n  {\"path\": " : "\n  {\"path\": ");
  json_str(doc, f->rel, strlen(f->rel));
  pbd_Buf_Printf(doc, ", \"status\": \"%s\"", rp_file_word(f));
  bool error = f->side == kPbd_File_Both && f->status == 2;
  if (!error && f->report_len && !s->o.summary) {
    size_t n = f->report_len;
    while (n && f->report[n - 1] == '\n') n--;
    pbd_Buf_AppendStr(doc, ", \"report\": ");
    pbd_Buf_Append(doc, f->report, n);
  }
  if (error) {
    pbd_Buf_AppendStr(doc, ", \"error\": ");
    const char *msg = f->error ? f->error : "";
    json_str(doc, msg, strlen(msg));
  }
  pbd_Buf_AppendChar(doc, '}');
}

static void json_files_end(pbd_FilesReporter *s, bool equal) {
  pbd_Buf head = {0};
  pbd_Buf_Printf(&head, "{\"equal\": %s, \"left_dir\": ", equal ? "true" : "false");
  json_str(&head, s->o.dir1, strlen(s->o.dir1));
  pbd_Buf_AppendStr(&head, ", \"right_dir\": ");
  json_str(&head, s->o.dir2, strlen(s->o.dir2));
  pbd_Buf_AppendStr(&head, ", \"files\": [");
  pbd_Buf_AppendStr(&s->doc, s->tests ? "\n]" : "]");
  pbd_Buf_Printf(&s->doc,
                 ", \"totals\": {\"files\": %zu, \"equal\": %zu, \"differ\": %zu, "
                 "\"only_left\": %zu, \"only_right\": %zu, \"error\": %zu}}\n",
                 s->tests, s->equal, s->differ, s->only_left, s->only_right, s->errors);
  rp_files_write(s, &head);
}

const pbd_FormatDef kPbd_FormatDef_Json = {
    .name = "json", .help = "'json': one object, see docs/json-format.md", .names_inputs = true,
    .summary = true,
    .edit = json_edit, .finish = json_finish, .close = rp_flush_out,
    .run_summary = rp_json_run_summary,
    .file_options = rp_files_name_both, .file = json_file, .files_end = json_files_end,
};
