/* pbdiff CLI — `--format paths`: one line per difference, `KIND PATH`
 * (`changed graph.node[3].op_type`), nothing else: for scripts (grep, sort,
 * uniq -c) and for writing --ignore lists.  Under -r each line starts with
 * the file's relative path and a tab, and a file on one side only or one
 * that could not be compared is one line `REL<TAB>only-left`,
 * `REL<TAB>only-right` or `REL<TAB>error`. */
#include <string.h>

#include "report/report_impl.h"

static int paths_edit(pbd_Reporter *r, const pbd_Edit *e) {
  size_t plen;
  const char *path = rp_path_shown(r, e, false, &plen);
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  pbd_Buf_Printf(b, "%s %s\n", pbd_EditKind_String(e->kind), *path ? path : ".");
  return rp_flush_line(r, b);
}

static void paths_finish(pbd_Reporter *r, bool equal) { (void)r, (void)equal; }

/* -r: the file's own lines, each after its path and a tab. */
static void paths_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  pbd_Buf rel = {0}; /* quoted as git quotes paths: a name cannot forge a line */
  pbd_Cli_AppendName(&rel, NULL, f->rel);
  const char *name = rel.data && !rel.oom ? rel.data : "(out of memory)";
  if (f->side != kPbd_File_Both || f->status == 2) {
    fprintf(s->out, "%s\t%s\n", name, rp_file_word(f));
    pbd_Buf_Free(&rel);
    return;
  }
  for (const char *p = f->report, *end = p + f->report_len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
    fprintf(s->out, "%s\t%.*s", name, (int)n, p);
    p += n;
  }
  pbd_Buf_Free(&rel);
}

const pbd_FormatDef kPbd_FormatDef_Paths = {
    .name = "paths", .help = "'paths': one 'KIND PATH' line per difference",
    .patch_header = true,
    .edit = paths_edit, .finish = paths_finish, .close = rp_flush_out,
    .file = paths_file,
};
