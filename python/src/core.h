/* pbdiff's Python module (pbdiff._core): what its files share.
 *
 * module.c defines the module, its Schema type and its functions (compare,
 * hash, cat); values.c turns the library's values into Python objects.
 * Every function here is called with the GIL held. */
#ifndef PBD_PY_CORE_H_
#define PBD_PY_CORE_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pbdiff/pbdiff.h"

/* A value as Python sees it: int, float, bool, str, bytes, an enum's name
 * (its number when the enum has no such value), a dict for a message
 * (fields by name, or by number where no schema names them; repeated
 * fields as lists, maps as dicts), None for no value.  NULL with an
 * exception set on failure. */
PyObject *pbd_Py_Value(const pbd_Value *v);

#endif

/* ---- module.c: what compare.c also uses ----------------------------------------- */

/* pbdiff.Error, the exception every failure of the library raises. */
extern PyObject *pbd_Py_Error;

/* A loaded schema (pbdiff._core.Schema): a finalized pool, read-only, so
 * that threads share it without a lock. */
typedef struct {
  PyObject_HEAD
  pbd_DefPool *pool;
} pbd_PySchema;

extern PyTypeObject pbd_PySchema_Type;

/* Raises pbdiff.Error for a failed status: the message is the CLI's one
 * line ("left: truncated varint at byte 3 (in a.b)", `input` naming the
 * input; NULL for none), with the attributes code, offset (None when
 * unknown), path (None when unknown) and input.  Returns NULL. */
PyObject *pbd_Py_RaiseStatus(const pbd_Status *s, const char *input);

/* The message type to read as: `type_name` in the schema (both may be
 * None: schemaless).  false with an exception set when the schema has no
 * such type or a type is named without a schema. */
bool pbd_Py_FindType(PyObject *schema, PyObject *type_name, const pbd_DefPool **pool,
                     const pbd_MessageDef **type);

/* A sequence of str as a list of UTF-8 strings, which point into the
 * sequence's items (keep *keep alive while they are used; free l->v).
 * false with an exception set. */
typedef struct {
  const char **v;
  size_t n;
} pbd_PyStrings;
bool pbd_Py_Strings(PyObject *seq, const char *what, pbd_PyStrings *l, PyObject **keep);

/* An input's messages: the whole buffer, or with delimited its varint
 * length-prefixed messages (spans malloc'd; free with pbd_Py_FreeInput).
 * false with the status set. */
bool pbd_Py_SplitInput(const Py_buffer *b, bool delimited, pbd_CompareInput *in, pbd_Status *s);
void pbd_Py_FreeInput(pbd_CompareInput *in);

/* ---- compare.c -------------------------------------------------------------------- */

PyObject *pbd_Py_Compare(PyObject *self, PyObject *args, PyObject *kw);
/* The text and JSON reports of an equal pair: ("", "{...}\n"). */
PyObject *pbd_Py_EqualReports(PyObject *self, PyObject *unused);
