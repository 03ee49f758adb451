/* pbdiff's Python module: the library's values (pbd_Value, trees of
 * pbd_Message) as Python objects, for Difference.left and .right. */
#include "core.h"

#include <string.h>

/* Messages nest at most kPbd_MaxDepthLimit deep (the readers' bound), so
 * the recursion below is bounded too; Python's own recursion check guards
 * the C stack as well. */

static PyObject *message_dict(const pbd_Message *m);

static PyObject *float_of(const pbd_Value *v) {
  if (v->kind == kPbd_Value_Float) {
    uint32_t bits = (uint32_t)v->u;
    float f;
    memcpy(&f, &bits, sizeof f);
    return PyFloat_FromDouble(f);
  }
  double d;
  memcpy(&d, &v->u, sizeof d);
  return PyFloat_FromDouble(d);
}

/* An enum value by name; its number when the enum does not know it (an
 * open enum's unknown value). */
static PyObject *enum_of(const pbd_Value *v) {
  const pbd_EnumDef *e = v->field ? v->field->enum_type : NULL;
  const pbd_EnumValueDef *ev = e ? pbd_EnumDef_FindValueByNumber(e, (int32_t)v->i) : NULL;
  if (ev) return PyUnicode_FromString(ev->name);
  return PyLong_FromLongLong(v->i);
}

PyObject *pbd_Py_Value(const pbd_Value *v) {
  switch (v->kind) {
    case kPbd_Value_None:
      Py_RETURN_NONE;
    case kPbd_Value_Int:
      return PyLong_FromLongLong(v->i);
    case kPbd_Value_UInt:
    case kPbd_Value_Varint:
    case kPbd_Value_Fixed32:
    case kPbd_Value_Fixed64:
      return PyLong_FromUnsignedLongLong(v->u);
    case kPbd_Value_Bool:
      return PyBool_FromLong(v->u != 0);
    case kPbd_Value_Enum:
      return enum_of(v);
    case kPbd_Value_Float:
    case kPbd_Value_Double:
      return float_of(v);
    case kPbd_Value_String:
      /* proto2 strings need not be UTF-8: such bytes survive as surrogates */
      return PyUnicode_DecodeUTF8(v->s.data, (Py_ssize_t)v->s.size, "surrogateescape");
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      return PyBytes_FromStringAndSize(v->s.data, (Py_ssize_t)v->s.size);
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      return message_dict(v->m);
  }
  PyErr_Format(PyExc_SystemError, "pbdiff: a value of unknown kind %d", (int)v->kind);
  return NULL;
}

/* A field's key in its message's dict: its name, [full.name] for an
 * extension, its number where no schema names it. */
static PyObject *field_key(const pbd_Field *f) {
  if (!f->def) return PyLong_FromUnsignedLong(f->number);
  if (f->def->is_extension) return PyUnicode_FromFormat("[%s]", f->def->full_name);
  return PyUnicode_FromString(f->def->name);
}

/* A map field's entries as a dict, key to value. */
static PyObject *map_dict(const pbd_Field *f) {
  PyObject *d = PyDict_New();
  for (uint32_t i = 0; d && i < f->count; i++) {
    pbd_Value k = pbd_MapEntry_Part(f->v.msgs[i], 1), val = pbd_MapEntry_Part(f->v.msgs[i], 2);
    PyObject *pk = pbd_Py_Value(&k);
    PyObject *pv = pk ? pbd_Py_Value(&val) : NULL;
    if (!pv || PyDict_SetItem(d, pk, pv) < 0) Py_CLEAR(d);
    Py_XDECREF(pk);
    Py_XDECREF(pv);
  }
  return d;
}

/* A field's values: one value for a singular field (or an unknown one
 * seen once), a list for a repeated field (or an unknown one seen more
 * than once: without a schema nothing says which fields repeat). */
static PyObject *field_value(const pbd_Field *f) {
  if (f->def && f->def->is_map) return map_dict(f);
  bool list = f->def ? f->def->is_repeated : f->count > 1;
  if (!list) {
    pbd_Value v = pbd_Field_Value(f, 0);
    return pbd_Py_Value(&v);
  }
  PyObject *l = PyList_New(f->count);
  for (uint32_t i = 0; l && i < f->count; i++) {
    pbd_Value v = pbd_Field_Value(f, i);
    PyObject *item = pbd_Py_Value(&v);
    if (!item) Py_CLEAR(l);
    else PyList_SET_ITEM(l, i, item);
  }
  return l;
}

/* An unknown field that shares a number with a known one (a wire type the
 * schema does not expect) goes under its number. */
static int add_field(PyObject *d, const pbd_Field *f) {
  PyObject *k = field_key(f);
  PyObject *v = k ? field_value(f) : NULL;
  int rc = v ? PyDict_SetItem(d, k, v) : -1;
  Py_XDECREF(k);
  Py_XDECREF(v);
  return rc;
}

static PyObject *message_dict(const pbd_Message *m) {
  if (Py_EnterRecursiveCall(" in pbdiff's message values")) return NULL;
  PyObject *d = PyDict_New();
  const pbd_Message *payload = m ? pbd_Message_AnyPayload(m) : NULL;
  if (d && payload) { /* an Any read as its type: {"@type": URL, fields...} */
    pbd_StrView url = pbd_Message_AnyTypeUrl(m);
    PyObject *u = PyUnicode_DecodeUTF8(url.data, (Py_ssize_t)url.size, "surrogateescape");
    PyObject *inner = u ? message_dict(payload) : NULL;
    if (!inner || PyDict_SetItemString(d, "@type", u) < 0 || PyDict_Update(d, inner) < 0)
      Py_CLEAR(d);
    Py_XDECREF(u);
    Py_XDECREF(inner);
  } else if (d && m) {
    const pbd_Field *fields = pbd_Message_Fields(m);
    for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++) {
      if (add_field(d, &fields[i]) < 0) {
        Py_CLEAR(d);
        break;
      }
    }
  }
  Py_LeaveRecursiveCall();
  return d;
}
