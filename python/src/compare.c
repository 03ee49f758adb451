/* pbdiff's Python module: compare(), the library's pipeline
 * (pbd_Compare_Inputs) with the CLI's rules (cli/rules.c: --key,
 * --repeated-as-set, --ignore and scoped tolerances read against the
 * schema) and the CLI's text and JSON reporters (cli/report/), so that
 * str(result) and result.to_json() are what pbdiff prints.  The JSON report
 * is asked for apart (json=True, differences=False): writing values whole,
 * it may cost more than the comparison.
 *
 * The GIL is released for the whole comparison; each difference takes it
 * back only to become a Python tuple. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One report written into memory. */
typedef struct {
  FILE *out;
  char *text;
  size_t len;
  pbd_Reporter *rep;
} Report;

static bool report_open(Report *r, pbd_ReportFormat fmt, size_t max_diffs) {
  memset(r, 0, sizeof *r);
  pbd_ReportOptions ro;
  memset(&ro, 0, sizeof ro);
  ro.max_diffs = max_diffs;
  r->out = open_memstream(&r->text, &r->len);
  r->rep = r->out ? pbd_Reporter_New(fmt, r->out, &ro) : NULL;
  return r->rep != NULL;
}

/* Ends the report; false when out of memory. */
static bool report_close(Report *r, bool equal) {
  bool ok = r->rep && pbd_Reporter_Finish(r->rep, equal);
  pbd_Reporter_Free(r->rep);
  r->rep = NULL;
  if (r->out && fclose(r->out) != 0) ok = false;
  r->out = NULL;
  return ok;
}

static void report_free(Report *r) {
  pbd_Reporter_Free(r->rep);
  if (r->out) fclose(r->out);
  free(r->text);
  memset(r, 0, sizeof *r);
}

/* What the edit callback works with.  The reports are opened at the first
 * edit: an equal pair (the common case) costs none. */
typedef struct {
  Report text, json;
  bool want_text, want_json; /* which reports to write */
  size_t text_limit;     /* the text report's max_diffs (0: all) */
  bool opened;
  PyObject *diffs;       /* the Difference tuples, or NULL when not wanted */
  PyThreadState *ts;     /* the released GIL */
  pbd_Buf path;          /* scratch: an edit's path as text */
  bool oom, py_failed;   /* why the walk was stopped */
} EditCtx;

static PyObject *index_or_none(int64_t i) {
  if (i >= 0) return PyLong_FromLongLong(i);
  Py_RETURN_NONE;
}

/* (path, kind, left, right, left_index, right_index, parent, type): what
 * pbdiff.Difference holds.  The kind's name comes from the library, so a
 * new kind of edit needs nothing here. */
static PyObject *edit_tuple(const pbd_Edit *e, const char *path, size_t parent_len) {
  const char *type = e->parent && e->parent->full_name ? e->parent->full_name : NULL;
  PyObject *l = pbd_Py_Value(&e->left);
  PyObject *r = l ? pbd_Py_Value(&e->right) : NULL;
  PyObject *t = r ? Py_BuildValue("(s#sOONNs#z)", path, (Py_ssize_t)strlen(path),
                                  pbd_EditKind_String(e->kind), l, r, index_or_none(e->left_index),
                                  index_or_none(e->right_index), path, (Py_ssize_t)parent_len, type)
                  : NULL;
  Py_XDECREF(l);
  Py_XDECREF(r);
  return t;
}

/* The parent's part of the path text: the first parent_count segments. */
static const char *path_text(EditCtx *c, const pbd_Edit *e, size_t *parent_len) {
  pbd_Buf_Truncate(&c->path, 0);
  pbd_Buf_AppendStr(&c->path, "");
  size_t n = e->path ? e->path->count : 0;
  size_t pc = e->parent_count < n ? e->parent_count : n;
  if (e->path) pbd_Path_Format(&c->path, e->path, 0, pc);
  *parent_len = c->path.len;
  if (e->path) pbd_Path_Format(&c->path, e->path, pc, n);
  return c->path.oom ? NULL : c->path.data;
}

static int on_edit(void *ctx, const pbd_Edit *e) {
  EditCtx *c = ctx;
  if (!c->opened) {
    c->opened = true;
    if ((c->want_text && !report_open(&c->text, kPbd_Report_Text, c->text_limit)) ||
        (c->want_json && !report_open(&c->json, kPbd_Report_Json, 0))) {
      c->oom = true;
      return 1;
    }
  }
  if ((c->want_text && pbd_Reporter_Edit(c->text.rep, e)) ||
      (c->want_json && pbd_Reporter_Edit(c->json.rep, e))) {
    c->oom = true;
    return 1;
  }
  if (!c->diffs) return 0;
  size_t plen;
  const char *path = path_text(c, e, &plen);
  if (!path) {
    c->oom = true;
    return 1;
  }
  PyEval_RestoreThread(c->ts);
  PyObject *t = edit_tuple(e, path, plen);
  int rc = t ? PyList_Append(c->diffs, t) : -1;
  Py_XDECREF(t);
  c->ts = PyEval_SaveThread();
  if (rc < 0) {
    c->py_failed = true; /* the exception stays set in this thread */
    return 1;
  }
  return 0;
}

/* The arguments of compare(), as pbdiff/__init__.py passes them. */
typedef struct {
  Py_buffer left, right;
  PyObject *schema, *type, *ignore, *keys, *sets, *margins, *fractions, *bytes_as;
  double float_margin, float_fraction;
  int equivalent, ignore_unknown, partial, report_moves, delimited, want_diffs;
  int want_text, want_json;
  Py_ssize_t report_limit;
} Args;

static bool parse_args(PyObject *args, PyObject *kw, Args *a) {
  static char *names[] = {"left", "right", "schema", "type", "ignore", "keys", "sets",
                          "margins", "fractions", "bytes_as", "float_margin", "float_fraction",
                          "equivalent", "ignore_unknown", "partial", "report_moves",
                          "delimited", "report_limit", "differences", "text", "json", NULL};
  memset(a, 0, sizeof *a);
  PyObject *empty = PyTuple_New(0);
  if (!empty) return false;
  a->schema = a->type = Py_None;
  a->ignore = a->keys = a->sets = a->margins = a->fractions = a->bytes_as = empty;
  a->want_diffs = a->want_text = 1;
  bool ok = PyArg_ParseTupleAndKeywords(
      args, kw, "y*y*|OOOOOOOOddpppppnppp", names, &a->left, &a->right, &a->schema, &a->type,
      &a->ignore, &a->keys, &a->sets, &a->margins, &a->fractions, &a->bytes_as, &a->float_margin,
      &a->float_fraction, &a->equivalent, &a->ignore_unknown, &a->partial, &a->report_moves,
      &a->delimited, &a->report_limit, &a->want_diffs, &a->want_text, &a->want_json);
  Py_DECREF(empty); /* the defaults above are only read during the call */
  if (ok && (a->float_margin < 0 || a->float_fraction < 0 || a->report_limit < 0)) {
    PyErr_SetString(PyExc_ValueError, "tolerances and report_limit must not be negative");
    PyBuffer_Release(&a->left);
    PyBuffer_Release(&a->right);
    return false;
  }
  return ok;
}

/* The rule lists, as the CLI's options (strings kept alive by keep[]). */
typedef struct {
  pbd_PyStrings ignore, keys, sets, margins, fractions, bytes_as;
  PyObject *keep[6];
} Rules;

static bool read_rules(const Args *a, Rules *r) {
  memset(r, 0, sizeof *r);
  return pbd_Py_Strings(a->ignore, "ignore", &r->ignore, &r->keep[0]) &&
         pbd_Py_Strings(a->keys, "keys", &r->keys, &r->keep[1]) &&
         pbd_Py_Strings(a->sets, "sets", &r->sets, &r->keep[2]) &&
         pbd_Py_Strings(a->margins, "float_margin", &r->margins, &r->keep[3]) &&
         pbd_Py_Strings(a->fractions, "float_fraction", &r->fractions, &r->keep[4]) &&
         pbd_Py_Strings(a->bytes_as, "bytes_as", &r->bytes_as, &r->keep[5]);
}

static void free_rules(Rules *r) {
  free(r->ignore.v);
  free(r->keys.v);
  free(r->sets.v);
  free(r->margins.v);
  free(r->fractions.v);
  free(r->bytes_as.v);
  for (int i = 0; i < 6; i++) Py_XDECREF(r->keep[i]);
}

static pbd_StrList str_list(const pbd_PyStrings *l) { return (pbd_StrList){l->v, l->n}; }

/* The CLI's options for the rules, resolved against the schema into the
 * comparison's options (cli/rules.c checks every name as pbdiff does). */
static bool resolve(const Args *a, const Rules *r, const pbd_DefPool *pool,
                    const pbd_MessageDef *type, pbd_CliSchema *cs, pbd_CompareOptions *co,
                    pbd_Status *s) {
  pbd_CliOptions o;
  memset(&o, 0, sizeof o);
  o.compare = pbd_CompareOptions_Default();
  o.compare.diff.float_margin = a->float_margin;
  o.compare.diff.float_fraction = a->float_fraction;
  o.compare.diff.partial = a->partial;
  o.compare.diff.report_moves = a->report_moves;
  o.ignores = str_list(&r->ignore);
  o.keys = str_list(&r->keys);
  o.sets = str_list(&r->sets);
  o.scoped_margins = str_list(&r->margins);
  o.scoped_fractions = str_list(&r->fractions);
  o.bytes_as = str_list(&r->bytes_as);
  o.quiet = true; /* a view that does not apply is no line on the caller's stderr */
  memset(cs, 0, sizeof *cs);
  cs->pool = (pbd_DefPool *)pool; /* read only: the rules point into it */
  cs->type = type;
  if (!pbd_Cli_ResolveRules(&o, cs, s)) return false;
  *co = pbd_CompareOptions_Default();
  co->type = type;
  co->read.pool = pool;
  co->read.equivalent = a->equivalent;
  co->read.ignore_unknown = a->ignore_unknown;
  co->parallel = true; /* the library keeps one thread for small inputs */
  co->diff = cs->diff;
  return true;
}

static PyObject *report_str(const Report *r) {
  return PyUnicode_DecodeUTF8(r->text ? r->text : "", (Py_ssize_t)r->len, "surrogateescape");
}

/* Runs the comparison with the GIL released; the result tuple, or NULL
 * with an exception set. */
static PyObject *run(const Args *a, const pbd_CompareOptions *co, PyObject *diffs) {
  EditCtx c;
  memset(&c, 0, sizeof c);
  c.text_limit = (size_t)a->report_limit;
  c.want_text = a->want_text;
  c.want_json = a->want_json;
  c.diffs = diffs;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_CompareInput l, r;
  pbd_CompareResult res;
  memset(&res, 0, sizeof res);
  int rc = -1;
  const char *bad = NULL; /* the input that did not split */
  c.ts = PyEval_SaveThread();
  if (!pbd_Py_SplitInput(&a->left, a->delimited, &l, &s)) bad = "left";
  else if (!pbd_Py_SplitInput(&a->right, a->delimited, &r, &s)) bad = "right";
  else rc = pbd_Compare_Inputs(&l, &r, co, on_edit, &c, &res, &s);
  bool equal = rc == 0;
  bool reports_ok = true;
  if (rc >= 0 && c.opened) { /* both closed, whatever the first says */
    bool text_ok = !c.want_text || report_close(&c.text, equal);
    reports_ok = (!c.want_json || report_close(&c.json, equal)) && text_ok;
  }
  PyEval_RestoreThread(c.ts);
  pbd_Py_FreeInput(&l);
  if (!bad || strcmp(bad, "left")) pbd_Py_FreeInput(&r);
  pbd_Buf_Free(&c.path);
  PyObject *out = NULL;
  if (c.py_failed) {
    /* the exception of the failed conversion is set */
  } else if (c.oom || !reports_ok) {
    PyErr_NoMemory();
  } else if (bad) {
    pbd_Py_RaiseStatus(&s, bad);
  } else if (rc < 0) {
    pbd_Py_RaiseStatus(&s, res.failed_input == 1 ? "left" : res.failed_input == 2 ? "right" : NULL);
  } else if (!c.opened) {
    out = Py_BuildValue("(OOOO)", equal ? Py_True : Py_False, diffs ? diffs : Py_None, Py_None,
                        Py_None);
  } else {
    PyObject *text = c.want_text ? report_str(&c.text) : Py_NewRef(Py_None);
    PyObject *json = c.want_json ? report_str(&c.json) : Py_NewRef(Py_None);
    out = Py_BuildValue("(OONN)", equal ? Py_True : Py_False, diffs ? diffs : Py_None, text, json);
  }
  report_free(&c.text);
  report_free(&c.json);
  return out;
}

PyObject *pbd_Py_Compare(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  Args a;
  if (!parse_args(args, kw, &a)) return NULL;
  PyObject *out = NULL, *diffs = NULL;
  Rules rules;
  const pbd_DefPool *pool;
  const pbd_MessageDef *type;
  pbd_CliSchema cs;
  memset(&cs, 0, sizeof cs);
  pbd_CompareOptions co;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!read_rules(&a, &rules) || !pbd_Py_FindType(a.schema, a.type, &pool, &type)) {
    /* the exception is set */
  } else if (!resolve(&a, &rules, pool, type, &cs, &co, &s)) {
    pbd_Py_RaiseStatus(&s, NULL);
  } else if (!a.want_diffs || (diffs = PyList_New(0))) {
    out = run(&a, &co, diffs);
  }
  Py_XDECREF(diffs);
  cs.pool = NULL;
  pbd_Cli_FreeSchema(&cs);
  free_rules(&rules);
  PyBuffer_Release(&a.left);
  PyBuffer_Release(&a.right);
  return out;
}

PyObject *pbd_Py_EqualReports(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  Report text, json;
  memset(&json, 0, sizeof json);
  bool ok = report_open(&text, kPbd_Report_Text, 0) && report_open(&json, kPbd_Report_Json, 0);
  ok = ok && report_close(&text, true) && report_close(&json, true);
  PyObject *out = ok ? Py_BuildValue("(NN)", report_str(&text), report_str(&json)) : PyErr_NoMemory();
  report_free(&text);
  report_free(&json);
  return out;
}
