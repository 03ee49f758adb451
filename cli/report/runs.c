/* pbdiff CLI — long runs of changed numbers summarised (report_impl.h:
 * rp_Run).  A tensor of a million floats that an exporter wrote again can
 * differ in most of its elements; one line each buries the rest of the
 * report.  So consecutive edits that change elements of one field read
 * through a typed view (--bytes-as, the ONNX preset: the walk hands them
 * as numbers of no schema field, at the path of a schema field) form a
 * run, and a run longer than kRunShown is summarised
 * when it ends: how many elements differ, the first indices, and the
 * largest absolute and relative differences with where they are.  The
 * text report writes the first kRunShown elements and the summary; JSON
 * writes every element (bounded by --max-diffs) and the summaries. */
#include <math.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/report_impl.h"

static bool is_number(const pbd_Value *v) {
  switch (v->kind) {
    case kPbd_Value_Int:
    case kPbd_Value_UInt:
    case kPbd_Value_Bool:
    case kPbd_Value_Float:
    case kPbd_Value_Double:
    case kPbd_Value_Varint:
    case kPbd_Value_Fixed32:
    case kPbd_Value_Fixed64: return true;
    default: return false;
  }
}

static double as_double(const pbd_Value *v) {
  switch (v->kind) {
    case kPbd_Value_Int: return (double)v->i;
    case kPbd_Value_Float: {
      float f;
      uint32_t b = (uint32_t)v->u;
      memcpy(&f, &b, 4);
      return f;
    }
    case kPbd_Value_Double: {
      double d;
      memcpy(&d, &v->u, 8);
      return d;
    }
    default: return (double)v->u;
  }
}

/* An edit that can be part of a run: a change of a viewed element (a
 * number that no schema field holds, at an index after a schema field's
 * segment) into a number of the same kind.  The elements of a repeated
 * field of numbers are listed as ever, one a line. */
static bool is_element_change(const pbd_Edit *e) {
  const pbd_Path *p = e->path;
  if (e->kind != kPbd_Edit_Changed || p->count < 2) return false;
  const pbd_PathSeg *field = &p->segs[p->count - 2], *index = &p->segs[p->count - 1];
  return index->kind == kPbd_Seg_Index && field->kind == kPbd_Seg_Field && field->field &&
         !e->left.field && !e->right.field && e->left.kind == e->right.kind && is_number(&e->left);
}

static void end_run(pbd_Reporter *r) {
  rp_Run *run = &r->run;
  if (run->open && run->count > kRunShown && run->written && r->f->run_summary)
    r->f->run_summary(r, run);
  run->open = false;
}

void rp_runs_end(pbd_Reporter *r) { end_run(r); }

static void add(rp_Run *run, const pbd_Edit *e) {
  const pbd_PathSeg *s = &e->path->segs[e->path->count - 1];
  size_t at = s->number;
  if (run->count < kRunShown) run->first[run->count] = at;
  run->count++;
  double a = as_double(&e->left), b = as_double(&e->right);
  double d = fabs(a - b), big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  if (isnan(d)) return; /* a NaN differs by no amount */
  if (run->count == 1 || d > run->max_abs) run->max_abs = d, run->max_abs_at = at;
  double rel = big > 0 && !isinf(d) ? d / big : 0;
  if (run->count == 1 || rel > run->max_rel) run->max_rel = rel, run->max_rel_at = at;
}

/* Starts a run at the field whose path is f->data[mark, len). */
static void start(pbd_Reporter *r, const pbd_Edit *e, size_t mark) {
  rp_Run *run = &r->run;
  pbd_Buf *f = &run->field;
  memmove(f->data, f->data + mark, f->len - mark);
  pbd_Buf_Truncate(f, f->len - mark);
  pbd_Buf holder = {0}; /* the part of the message that holds the field */
  pbd_Path_Format(&holder, e->path, 0, e->parent_count);
  run->parent_len = holder.len;
  pbd_Buf_Free(&holder);
  memset(run->first, 0, sizeof run->first);
  run->open = true;
  run->count = 0;
  run->written = 0;
  run->max_abs = run->max_rel = 0;
  run->max_abs_at = run->max_rel_at = 0;
}

bool rp_runs_edit(pbd_Reporter *r, const pbd_Edit *e) {
  if (!r->f->run_summary) return false;
  rp_Run *run = &r->run;
  run->current = false;
  if (!is_element_change(e)) {
    end_run(r);
    return false;
  }
  /* the element's field path after the run's, to tell whether it extends it */
  pbd_Buf *f = &run->field;
  size_t mark = run->open ? f->len : 0;
  pbd_Buf_Truncate(f, mark);
  pbd_Path_Format(f, e->path, 0, e->path->count - 1);
  if (f->oom || !f->data) {
    r->failed = true;
    return false;
  }
  if (run->open && f->len - mark == mark && !memcmp(f->data, f->data + mark, mark)) {
    pbd_Buf_Truncate(f, mark);
  } else {
    end_run(r);
    start(r, e, mark);
  }
  add(run, e);
  run->current = true;
  return r->f->hides_runs && run->count > kRunShown;
}

/* ---- the summaries, as the text and JSON reports write them ---------------------- */

static void number_text(pbd_Buf *b, double d) { pbd_Buf_Printf(b, "%.6g", d); }

void rp_text_run_summary(pbd_Reporter *r, const rp_Run *run) {
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  const char *field = run->field.data + run->parent_len;
  if (*field == '.') field++;
  if (run->parent_len) pbd_Buf_AppendStr(b, "  ");
  pbd_Buf_Printf(b, "%s: %zu elements differ, %zu not shown; max abs difference ", field,
                 run->count, run->count - run->written);
  number_text(b, run->max_abs);
  pbd_Buf_Printf(b, " at [%zu], max rel difference ", run->max_abs_at);
  number_text(b, run->max_rel);
  pbd_Buf_Printf(b, " at [%zu]\n", run->max_rel_at);
  rp_flush_line(r, b);
}

static void json_number(pbd_Buf *b, double d) {
  if (isfinite(d)) pbd_Buf_Printf(b, "%.17g", d);
  else pbd_Buf_AppendStr(b, "null");
}

void rp_json_run_summary(pbd_Reporter *r, const rp_Run *run) {
  pbd_Buf *b = &r->summaries;
  if (b->len) pbd_Buf_AppendStr(b, ",\n");
  pbd_Buf_AppendStr(b, "  {\"path\": ");
  pbd_Format_JsonString(b, run->field.data, run->field.len);
  pbd_Buf_Printf(b, ", \"differing\": %zu, \"first_indices\": [", run->count);
  for (size_t i = 0; i < kRunShown; i++) pbd_Buf_Printf(b, "%s%zu", i ? ", " : "", run->first[i]);
  pbd_Buf_AppendStr(b, "], \"max_abs_difference\": ");
  json_number(b, run->max_abs);
  pbd_Buf_Printf(b, ", \"max_abs_index\": %zu, \"max_rel_difference\": ", run->max_abs_at);
  json_number(b, run->max_rel);
  pbd_Buf_Printf(b, ", \"max_rel_index\": %zu}", run->max_rel_at);
  if (b->oom) r->failed = true;
}
