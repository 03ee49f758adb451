/* pbdiff CLI — text and JSON reporters (see report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"

/* Strings and bytes longer than this are cut in text reports. */
enum { kPbd_Report_MaxBytes = 64 };

struct pbd_Reporter {
  pbd_ReportFormat fmt;
  FILE *out;
  pbd_Buf line;     /* text: the line being built */
  pbd_Buf entries;  /* json: the difference objects so far, ",\n"-separated */
  size_t n_entries;
  bool failed;      /* out of memory while collecting */
};

pbd_Reporter *pbd_Reporter_New(pbd_ReportFormat fmt, FILE *out) {
  pbd_Reporter *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->fmt = fmt;
  r->out = out;
  return r;
}

static void text_value(pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = kPbd_Report_MaxBytes, .multiline = false, .indent = 0};
  pbd_Format_TextValue(b, v, &o);
}

static int text_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  pbd_Buf_AppendStr(b, (e->path && e->path[0]) ? e->path : ".");
  pbd_Buf_AppendStr(b, ": ");
  switch (e->kind) {
    case kPbd_Edit_Added:
      pbd_Buf_AppendStr(b, "added ");
      text_value(b, &e->right);
      break;
    case kPbd_Edit_Removed:
      pbd_Buf_AppendStr(b, "removed ");
      text_value(b, &e->left);
      break;
    case kPbd_Edit_Presence:
      if (e->left.kind == kPbd_Value_None) {
        pbd_Buf_AppendStr(b, "unset -> set to ");
        text_value(b, &e->right);
      } else {
        pbd_Buf_AppendStr(b, "set to ");
        text_value(b, &e->left);
        pbd_Buf_AppendStr(b, " -> unset");
      }
      break;
    case kPbd_Edit_Changed:
    default:
      text_value(b, &e->left);
      pbd_Buf_AppendStr(b, " -> ");
      text_value(b, &e->right);
      break;
  }
  pbd_Buf_AppendChar(b, '\n');
  if (b->oom) {
    r->failed = true;
    return 1;
  }
  fwrite(b->data, 1, b->len, r->out);
  return 0;
}

static int json_edit(pbd_Reporter *r, const pbd_Edit *e) {
  pbd_Buf *b = &r->entries;
  if (r->n_entries > 0) pbd_Buf_AppendStr(b, ",\n");
  pbd_Buf_AppendStr(b, "  {\"path\": ");
  const char *path = e->path ? e->path : "";
  pbd_Format_JsonString(b, path, strlen(path));
  pbd_Buf_AppendStr(b, ", \"kind\": ");
  const char *kind = pbd_EditKind_String(e->kind);
  pbd_Format_JsonString(b, kind, strlen(kind));
  if (e->left.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(b, ", \"left\": ");
    pbd_Format_JsonValue(b, &e->left);
  }
  if (e->right.kind != kPbd_Value_None) {
    pbd_Buf_AppendStr(b, ", \"right\": ");
    pbd_Format_JsonValue(b, &e->right);
  }
  pbd_Buf_AppendChar(b, '}');
  r->n_entries++;
  if (b->oom) {
    r->failed = true;
    return 1;
  }
  return 0;
}

int pbd_Reporter_Edit(void *reporter, const pbd_Edit *e) {
  pbd_Reporter *r = reporter;
  if (r->failed) return 1;
  return r->fmt == kPbd_Report_Json ? json_edit(r, e) : text_edit(r, e);
}

bool pbd_Reporter_Finish(pbd_Reporter *r, bool equal) {
  if (r->fmt == kPbd_Report_Json && !r->failed) {
    fprintf(r->out, "{\"equal\": %s, \"differences\": [", equal ? "true" : "false");
    if (r->n_entries > 0) {
      fputc('\n', r->out);
      fwrite(r->entries.data, 1, r->entries.len, r->out);
      fputc('\n', r->out);
    }
    fputs("]}\n", r->out);
  }
  if (fflush(r->out) != 0) return false;
  return !r->failed && !ferror(r->out);
}

void pbd_Reporter_Free(pbd_Reporter *r) {
  if (!r) return;
  pbd_Buf_Free(&r->line);
  pbd_Buf_Free(&r->entries);
  free(r);
}
