/* pbdiff's Python module, pbdiff._core: the C library's pipeline called in
 * the interpreter's process (never a subprocess).  The module holds the
 * schema type, the error, and the fingerprint and canonical text
 * functions; compare.c holds the comparison.  pbdiff/__init__.py is the
 * API people use; it turns messages into bytes and schemas first.
 *
 * The GIL is released while the library reads, hashes and compares: the
 * library keeps no global state, a finalized schema pool is read-only, and
 * each call's inputs are held as buffers (exported buffers cannot be
 * resized meanwhile), so several threads may call at once. */
#include "core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pbdiff/corpus/records.h"
#include "pbdiff/inputs/framing.h"

PyObject *pbd_Py_Error;

/* ---- errors ------------------------------------------------------------------------- */

static int set_attr(PyObject *o, const char *name, PyObject *v) {
  if (!v) return -1;
  int rc = PyObject_SetAttrString(o, name, v);
  Py_DECREF(v);
  return rc;
}

static PyObject *str_or_none(const char *s) {
  if (s && s[0]) return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
  Py_RETURN_NONE;
}

PyObject *pbd_Py_RaiseStatus(const pbd_Status *s, const char *input) {
  char line[1600];
  pbd_Status_Format(s, input, line, sizeof line);
  PyObject *e = PyObject_CallFunction(pbd_Py_Error, "s", line);
  if (!e) return NULL;
  PyObject *offset = s->has_offset ? PyLong_FromSize_t(s->offset) : Py_NewRef(Py_None);
  if (set_attr(e, "code", PyUnicode_FromString(pbd_StatusCode_String(s->code))) < 0 ||
      set_attr(e, "offset", offset) < 0 || set_attr(e, "path", str_or_none(s->path)) < 0 ||
      set_attr(e, "input", str_or_none(input)) < 0 ||
      set_attr(e, "reason", str_or_none(s->msg)) < 0) {
    Py_DECREF(e);
    return NULL;
  }
  PyErr_SetObject(pbd_Py_Error, e);
  Py_DECREF(e);
  return NULL;
}

static PyObject *raise_usage(const char *fmt, const char *arg) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Status_SetError(&s, kPbd_Status_Usage, fmt, arg);
  return pbd_Py_RaiseStatus(&s, NULL);
}

/* ---- Schema --------------------------------------------------------------------------- */

static PyObject *schema_new(PyTypeObject *t, PyObject *args, PyObject *kw) {
  static char *names[] = {"data", "name", NULL};
  Py_buffer data;
  const char *name = "schema";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|s", names, &data, &name)) return NULL;
  pbd_PySchema *self = (pbd_PySchema *)t->tp_alloc(t, 0);
  if (!self) {
    PyBuffer_Release(&data);
    return NULL;
  }
  pbd_Status s;
  pbd_Status_Clear(&s);
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  self->pool = pbd_DefPool_New();
  ok = self->pool &&
       pbd_DefPool_AddFileDescriptorSet(self->pool, data.buf, (size_t)data.len, name, &s) &&
       pbd_DefPool_Finalize(self->pool, &s);
  if (!self->pool) pbd_Status_SetError(&s, kPbd_Status_OutOfMemory, "out of memory");
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (!ok) {
    Py_DECREF(self);
    return pbd_Py_RaiseStatus(&s, name);
  }
  return (PyObject *)self;
}

static void schema_dealloc(PyObject *o) {
  pbd_PySchema *self = (pbd_PySchema *)o;
  pbd_DefPool_Free(self->pool);
  Py_TYPE(o)->tp_free(o);
}

static PyObject *schema_has_type(PyObject *o, PyObject *name) {
  const char *n = PyUnicode_AsUTF8(name);
  if (!n) return NULL;
  return PyBool_FromLong(pbd_DefPool_FindMessageByName(((pbd_PySchema *)o)->pool, n) != NULL);
}

static PyMethodDef schema_methods[] = {
    {"has_type", schema_has_type, METH_O, "Whether the schema has the message type (full name)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject pbd_PySchema_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pbdiff._core.Schema",
    .tp_basicsize = sizeof(pbd_PySchema),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Schema(data, name='schema'): a serialized FileDescriptorSet, loaded once.",
    .tp_new = schema_new,
    .tp_dealloc = schema_dealloc,
    .tp_methods = schema_methods,
};

bool pbd_Py_FindType(PyObject *schema, PyObject *type_name, const pbd_DefPool **pool,
                     const pbd_MessageDef **type) {
  *pool = NULL;
  *type = NULL;
  if (schema != Py_None && !PyObject_TypeCheck(schema, &pbd_PySchema_Type)) {
    PyErr_SetString(PyExc_TypeError, "schema must be a pbdiff._core.Schema or None");
    return false;
  }
  if (type_name == Py_None) {
    if (schema != Py_None) {
      raise_usage("%s", "a schema needs a message type (type='package.Message')");
      return false;
    }
    return true;
  }
  const char *name = PyUnicode_AsUTF8(type_name);
  if (!name) return false;
  if (schema == Py_None) {
    raise_usage("type %s needs a schema", name);
    return false;
  }
  *pool = ((pbd_PySchema *)schema)->pool;
  *type = pbd_DefPool_FindMessageByName(*pool, name);
  if (!*type) {
    raise_usage("no message type %s in the schema", name);
    return false;
  }
  return true;
}

/* ---- helpers -------------------------------------------------------------------------- */

bool pbd_Py_Strings(PyObject *seq, const char *what, pbd_PyStrings *l, PyObject **keep) {
  l->v = NULL;
  l->n = 0;
  *keep = PySequence_Fast(seq, what);
  if (!*keep) return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(*keep);
  l->v = calloc((size_t)n + 1, sizeof *l->v);
  if (!l->v) {
    PyErr_NoMemory();
    return false;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(*keep, i);
    if (!PyUnicode_Check(item)) {
      PyErr_Format(PyExc_TypeError, "%s: want str items, not %.80s", what, Py_TYPE(item)->tp_name);
      return false;
    }
    if (!(l->v[i] = PyUnicode_AsUTF8(item))) return false;
  }
  l->n = (size_t)n;
  return true;
}

bool pbd_Py_SplitInput(const Py_buffer *b, bool delimited, pbd_CompareInput *in, pbd_Status *s) {
  memset(in, 0, sizeof *in);
  in->data = b->buf;
  in->size = (size_t)b->len;
  in->count = 1; /* one message, the whole buffer (as pbd_Compare) */
  if (!delimited) return true;
  size_t *begin = NULL, *end = NULL, count = 0;
  if (!pbd_Input_SplitFramed(kPbd_Framing_Delimited, in->data, in->size, 0, NULL, &begin, &end,
                             &count, s)) {
    free(begin);
    free(end);
    return false;
  }
  in->stream = true;
  in->begin = begin;
  in->end = end;
  in->count = count;
  return true;
}

void pbd_Py_FreeInput(pbd_CompareInput *in) {
  free((void *)in->begin);
  free((void *)in->end);
  memset(in, 0, sizeof *in);
}

/* The reading options of hash and cat: the fingerprint scheme's fixed
 * seed (docs/hash.md), and the schema pool for Any payloads. */
static pbd_ReadOptions fixed_read_options(const pbd_DefPool *pool, int equivalent,
                                          int ignore_unknown) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.pool = pool;
  o.equivalent = equivalent;
  o.ignore_unknown = ignore_unknown;
  o.hash_seed = 0;
  return o;
}

/* ---- hash ------------------------------------------------------------------------------- */

/* Message i's fingerprint in fp (pbh1, or pbs1 with sha256), as pbdiff
 * hash writes it (cli/commands/hash.c). */
static bool fingerprint(const pbd_MessageDef *type, const pbd_CompareInput *in, size_t i,
                        const pbd_ReadOptions *o, bool sha256, pbd_Hasher *hasher, char fp[80],
                        pbd_Status *s) {
  size_t begin = in->stream ? in->begin[i] : 0, end = in->stream ? in->end[i] : in->size;
  if (sha256) {
    pbd_Arena *arena = pbd_Arena_New();
    pbd_Message *root = arena ? pbd_Tree_Parse(type, in->data, begin, end, o, arena, s) : NULL;
    uint8_t d[32];
    bool ok = root && pbd_Tree_Sha256(root, o, d);
    if (!arena) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    else if (root && !ok) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "SHA-256 failed (libcrypto)");
    pbd_Arena_Free(arena);
    if (!ok) return false;
    int k = snprintf(fp, 80, "%s:", PBDIFF_SHA256_SCHEME);
    for (int j = 0; j < 32; j++) k += snprintf(fp + k, (size_t)(80 - k), "%02x", d[j]);
    return true;
  }
  pbd_Part part = {in->data + begin, end - begin};
  pbd_Hash128 h;
  if (!pbd_Hasher_HashParts(hasher, type, &part, 1, 0, &h, NULL, s)) return false;
  snprintf(fp, 80, "%s:%016" PRIx64 "%016" PRIx64, PBDIFF_HASH_SCHEME, h.hi, h.lo);
  return true;
}

/* hash(data, schema, type, delimited, equivalent, ignore_unknown, sha256)
 * -> a fingerprint, or with delimited a list of them. */
static PyObject *py_hash(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"data", "schema", "type", "delimited", "equivalent",
                          "ignore_unknown", "sha256", NULL};
  Py_buffer data;
  PyObject *schema = Py_None, *type_name = Py_None;
  int delimited = 0, equivalent = 0, ignore_unknown = 0, sha256 = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|OOpppp", names, &data, &schema, &type_name,
                                   &delimited, &equivalent, &ignore_unknown, &sha256))
    return NULL;
  const pbd_DefPool *pool;
  const pbd_MessageDef *type;
  PyObject *out = NULL;
  if (!pbd_Py_FindType(schema, type_name, &pool, &type)) goto done;
  pbd_ReadOptions o = fixed_read_options(pool, equivalent, ignore_unknown);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_CompareInput in;
  char (*fps)[80] = NULL;
  size_t n = 0, failed_at = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = pbd_Py_SplitInput(&data, delimited, &in, &s);
  n = ok ? (in.stream ? in.count : 1) : 0;
  fps = ok ? malloc((n ? n : 1) * sizeof *fps) : NULL;
  pbd_Hasher *hasher = fps ? pbd_Hasher_New(in.data, &o, NULL) : NULL;
  if (ok && !hasher) {
    pbd_Status_SetError(&s, kPbd_Status_OutOfMemory, "out of memory");
    ok = false;
  }
  for (size_t i = 0; ok && i < n; i++) {
    failed_at = i;
    ok = fingerprint(type, &in, i, &o, sha256, hasher, fps[i], &s);
  }
  pbd_Hasher_Free(hasher);
  Py_END_ALLOW_THREADS
  if (!ok) {
    if (delimited && in.stream) {
      char seg[32];
      snprintf(seg, sizeof seg, "[%zu]", failed_at);
      pbd_Status_PrependPath(&s, seg);
    }
    pbd_Py_RaiseStatus(&s, "input");
  } else if (!delimited) {
    out = PyUnicode_FromString(fps[0]);
  } else {
    out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
      PyObject *f = PyUnicode_FromString(fps[i]);
      if (!f) Py_CLEAR(out);
      else PyList_SET_ITEM(out, (Py_ssize_t)i, f);
    }
  }
  free(fps);
  pbd_Py_FreeInput(&in);
done:
  PyBuffer_Release(&data);
  return out;
}

/* ---- hash_records: the map step of a corpus (scripts/pbdiff-dask.py) ---------------- */

typedef struct {
  char fp[80];
  size_t key_at, key_len; /* in the keys buffer */
} RecordOut;

/* Each record's fingerprint and key, as `pbdiff hash --record-key KEY
 * --framing F --format json` gives them (cli/commands/hash.c). */
static bool hash_keyed(const pbd_MessageDef *type, const pbd_RecordKey *rk,
                       const pbd_CompareInput *in, const pbd_ReadOptions *o, RecordOut *out,
                       pbd_Buf *keys, size_t *failed_at, pbd_Status *s) {
  pbd_Hasher *hasher = pbd_Hasher_New(in->data, o, NULL);
  pbd_Arena *scratch = pbd_Arena_New();
  pbd_Buf key = {0};
  bool ok = hasher && scratch;
  if (!ok) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  for (size_t i = 0; ok && i < in->count; i++) {
    *failed_at = i;
    pbd_Part part = {in->data + in->begin[i], in->end[i] - in->begin[i]};
    pbd_Hash128 h;
    pbd_Buf_Truncate(&key, 0);
    ok = pbd_Hasher_HashParts(hasher, type, &part, 1, 0, &h, NULL, s) &&
         pbd_RecordKey_Read(rk, type, in->data, in->begin[i], in->end[i], h, o, scratch, &key, s);
    if (!ok) break;
    snprintf(out[i].fp, sizeof out[i].fp, "%s:%016" PRIx64 "%016" PRIx64, PBDIFF_HASH_SCHEME, h.hi,
             h.lo);
    out[i].key_at = keys->len;
    out[i].key_len = key.len;
    pbd_Buf_Append(keys, key.data ? key.data : "", key.len);
    if (key.oom || keys->oom) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      ok = false;
    }
  }
  pbd_Buf_Free(&key);
  pbd_Arena_Free(scratch);
  pbd_Hasher_Free(hasher);
  return ok;
}

/* The records of a framing's spans (one record, the whole input, without
 * a framing); false with the status set, also for a gRPC stream whose
 * messages are compressed (their bytes are not the input's). */
static bool split_records(const Py_buffer *b, pbd_Framing f, pbd_CompareInput *in, pbd_Status *s) {
  memset(in, 0, sizeof *in);
  in->data = b->buf;
  in->size = (size_t)b->len;
  in->stream = true;
  size_t *begin = NULL, *end = NULL, count = 0;
  pbd_Buf inflated = {0};
  bool ok;
  if (f == kPbd_Framing_None) {
    begin = malloc(sizeof *begin);
    end = malloc(sizeof *end);
    ok = begin && end;
    if (ok) begin[0] = 0, end[0] = in->size, count = 1;
    else pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  } else {
    ok = pbd_Input_SplitFramed(f, in->data, in->size, 0, &inflated, &begin, &end, &count, s);
  }
  if (ok && inflated.len) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "compressed gRPC messages have no place in the input (use the pbdiff binary)");
    ok = false;
  }
  pbd_Buf_Free(&inflated);
  in->begin = begin;
  in->end = end;
  in->count = count;
  return ok;
}

/* hash_records(data, schema, type, record_key, framing, equivalent,
 * ignore_unknown) -> [(key, fingerprint, offset, size), ...] */
static PyObject *py_hash_records(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"data", "schema", "type", "record_key", "framing", "equivalent",
                          "ignore_unknown", NULL};
  Py_buffer data;
  PyObject *schema = Py_None, *type_name = Py_None;
  const char *spec, *framing = NULL;
  int equivalent = 0, ignore_unknown = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*OOs|zpp", names, &data, &schema, &type_name, &spec,
                                   &framing, &equivalent, &ignore_unknown))
    return NULL;
  const pbd_DefPool *pool;
  const pbd_MessageDef *type;
  pbd_Framing f = kPbd_Framing_None;
  pbd_RecordKey rk;
  pbd_Status s;
  pbd_Status_Clear(&s);
  PyObject *out = NULL;
  if (!pbd_Py_FindType(schema, type_name, &pool, &type)) goto done;
  if (framing && framing[0] && !pbd_Framing_FromName(framing, &f)) {
    raise_usage("no framing %s", framing);
    goto done;
  }
  if (!pbd_RecordKey_Parse(type, spec, &rk, &s)) {
    pbd_Py_RaiseStatus(&s, NULL);
    goto done;
  }
  pbd_ReadOptions o = fixed_read_options(pool, equivalent, ignore_unknown);
  pbd_CompareInput in;
  RecordOut *recs = NULL;
  pbd_Buf keys = {0};
  size_t failed_at = 0;
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = split_records(&data, f, &in, &s);
  recs = ok ? calloc(in.count ? in.count : 1, sizeof *recs) : NULL;
  if (ok && !recs) pbd_Status_SetError(&s, kPbd_Status_OutOfMemory, "out of memory");
  ok = recs && hash_keyed(type, &rk, &in, &o, recs, &keys, &failed_at, &s);
  Py_END_ALLOW_THREADS
  if (!ok) {
    if (in.count && s.code != kPbd_Status_OutOfMemory && f != kPbd_Framing_None) {
      char seg[32];
      snprintf(seg, sizeof seg, "[%zu]", failed_at);
      pbd_Status_PrependPath(&s, seg);
    }
    pbd_Py_RaiseStatus(&s, "input");
  } else {
    out = PyList_New((Py_ssize_t)in.count);
    for (size_t i = 0; out && i < in.count; i++) {
      const char *key = keys.data ? keys.data + recs[i].key_at : "";
      PyObject *t = Py_BuildValue("(NsNN)",
                                  PyUnicode_DecodeUTF8(key,
                                                       (Py_ssize_t)recs[i].key_len, "surrogateescape"),
                                  recs[i].fp, PyLong_FromSize_t(in.begin[i]),
                                  PyLong_FromSize_t(in.end[i] - in.begin[i]));
      if (!t) Py_CLEAR(out);
      else PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
  }
  free(recs);
  pbd_Buf_Free(&keys);
  pbd_Py_FreeInput(&in);
done:
  PyBuffer_Release(&data);
  return out;
}

/* ---- cat -------------------------------------------------------------------------------- */

/* Each message's canonical tree, then the text cat writes
 * (pbd_Cli_CatWrite) into *text (malloc'd). */
static bool canonical_text(const pbd_MessageDef *type, const pbd_CompareInput *in,
                           const pbd_ReadOptions *o, bool json, char **text, size_t *len,
                           pbd_Status *s) {
  size_t n = in->stream ? in->count : 1;
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Message **roots = calloc(n ? n : 1, sizeof *roots);
  FILE *out = arena && roots ? open_memstream(text, len) : NULL;
  bool ok = out != NULL;
  if (!ok) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  for (size_t i = 0; ok && i < n; i++) {
    size_t begin = in->stream ? in->begin[i] : 0, end = in->stream ? in->end[i] : in->size;
    if (!(roots[i] = pbd_Tree_Parse(type, in->data, begin, end, o, arena, s))) {
      if (in->stream) {
        char seg[32];
        snprintf(seg, sizeof seg, "[%zu]", i);
        pbd_Status_PrependPath(s, seg);
      }
      ok = false;
    }
  }
  if (ok && pbd_Cli_CatWrite(out, roots, n, in->stream, NULL, false, json) != 1) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    ok = false;
  }
  if (out && fclose(out) != 0 && ok) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    ok = false;
  }
  free(roots);
  pbd_Arena_Free(arena);
  return ok;
}

/* cat(data, schema, type, delimited, equivalent, ignore_unknown, json) -> str */
static PyObject *py_cat(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"data", "schema", "type", "delimited", "equivalent",
                          "ignore_unknown", "json", NULL};
  Py_buffer data;
  PyObject *schema = Py_None, *type_name = Py_None;
  int delimited = 0, equivalent = 0, ignore_unknown = 0, json = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|OOpppp", names, &data, &schema, &type_name,
                                   &delimited, &equivalent, &ignore_unknown, &json))
    return NULL;
  const pbd_DefPool *pool;
  const pbd_MessageDef *type;
  PyObject *out = NULL;
  if (pbd_Py_FindType(schema, type_name, &pool, &type)) {
    pbd_ReadOptions o = fixed_read_options(pool, equivalent, ignore_unknown);
    pbd_Status s;
    pbd_Status_Clear(&s);
    pbd_CompareInput in;
    char *text = NULL;
    size_t len = 0;
    bool ok;
    Py_BEGIN_ALLOW_THREADS
    ok = pbd_Py_SplitInput(&data, delimited, &in, &s) &&
         canonical_text(type, &in, &o, json, &text, &len, &s);
    Py_END_ALLOW_THREADS
    if (ok) out = PyUnicode_DecodeUTF8(text ? text : "", (Py_ssize_t)len, "surrogateescape");
    else pbd_Py_RaiseStatus(&s, "input");
    free(text);
    pbd_Py_FreeInput(&in);
  }
  PyBuffer_Release(&data);
  return out;
}

/* ---- the module ------------------------------------------------------------------------- */

static PyMethodDef module_methods[] = {
    {"compare", (PyCFunction)(void (*)(void))pbd_Py_Compare, METH_VARARGS | METH_KEYWORDS,
     "compare(left, right, schema, type, ...) -> (equal, differences, text, json)"},
    {"equal_reports", pbd_Py_EqualReports, METH_NOARGS,
     "The text and JSON reports of an equal pair."},
    {"hash", (PyCFunction)(void (*)(void))py_hash, METH_VARARGS | METH_KEYWORDS,
     "hash(data, schema, type, delimited, equivalent, ignore_unknown, sha256) -> str or list"},
    {"hash_records", (PyCFunction)(void (*)(void))py_hash_records, METH_VARARGS | METH_KEYWORDS,
     "hash_records(data, schema, type, record_key, framing, ...) -> [(key, fp, offset, size)]"},
    {"cat", (PyCFunction)(void (*)(void))py_cat, METH_VARARGS | METH_KEYWORDS,
     "cat(data, schema, type, delimited, equivalent, ignore_unknown, json) -> str"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "pbdiff._core",
    .m_doc = "pbdiff's C library, called in process (use the pbdiff package).",
    .m_size = -1, .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
  if (PyType_Ready(&pbd_PySchema_Type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  pbd_Py_Error = PyErr_NewExceptionWithDoc(
      "pbdiff.Error",
      "A comparison, fingerprint or canonical text could not be made: a malformed input, a bad "
      "schema or option.  str() is pbdiff's one-line message; .code, .offset (bytes), .path "
      "(the field), .input ('left', 'right', 'input' or None) and .reason say what and where.",
      NULL, NULL);
  if (!pbd_Py_Error || PyModule_AddObjectRef(m, "Error", pbd_Py_Error) < 0 ||
      PyModule_AddObjectRef(m, "Schema", (PyObject *)&pbd_PySchema_Type) < 0 ||
      PyModule_AddStringConstant(m, "VERSION", PBDIFF_VERSION) < 0 ||
      PyModule_AddStringConstant(m, "HASH_SCHEME", PBDIFF_HASH_SCHEME) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
