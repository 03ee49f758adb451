/* pbdiff — typed views of bytes (diff.h: pbd_BytesView; docs/semantics.md,
 * "Typed views of bytes").
 *
 * A view is what the user (--bytes-as FIELD=KIND) or the ONNX preset
 * chooses, not a protobuf rule: a bytes field's bytes read as little-endian
 * elements of one type, compared element by element as numbers.  Under the
 * preset an onnx.TensorProto's raw_data is read as the type its data_type
 * names, and equals the typed field ONNX would use for that type
 * (float_data, int32_data, int64_data, double_data, uint64_data) holding
 * the same values; the elements of either are one list, at the path of
 * LEFT's field (`raw_data[1157]` or `float_data[1157]`).
 *
 * Hashes do not know views (docs/hash.md): two tensors equal under a view
 * may hash apart.  Equal hashes still prove equality (same bytes, same
 * view); different hashes only send the walk here, and a repeated field of
 * tensors aligns its elements by dv_message_key, which reads the values,
 * so that raw_data and float_data of the same values pair. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_walk.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- Element kinds ----------------------------------------------------------- */

static const struct {
  const char *name;
  size_t size;
} kElems[] = {
    [kPbd_Elem_None] = {"", 0},          [kPbd_Elem_Float] = {"float", 4},
    [kPbd_Elem_Double] = {"double", 8},  [kPbd_Elem_Float16] = {"float16", 2},
    [kPbd_Elem_BFloat16] = {"bfloat16", 2}, [kPbd_Elem_Int8] = {"int8", 1},
    [kPbd_Elem_UInt8] = {"uint8", 1},    [kPbd_Elem_Int16] = {"int16", 2},
    [kPbd_Elem_UInt16] = {"uint16", 2},  [kPbd_Elem_Int32] = {"int32", 4},
    [kPbd_Elem_UInt32] = {"uint32", 4},  [kPbd_Elem_Int64] = {"int64", 8},
    [kPbd_Elem_UInt64] = {"uint64", 8},  [kPbd_Elem_Bool] = {"bool", 1},
};
enum { kElemCount = sizeof kElems / sizeof kElems[0] };

const char *pbd_ElemKind_Name(pbd_ElemKind k) {
  return (unsigned)k < kElemCount ? kElems[k].name : "";
}

pbd_ElemKind pbd_ElemKind_FromName(const char *name) {
  for (int k = 1; k < kElemCount; k++)
    if (!strcmp(kElems[k].name, name)) return (pbd_ElemKind)k;
  return kPbd_Elem_None;
}

size_t pbd_ElemKind_Size(pbd_ElemKind k) { return (unsigned)k < kElemCount ? kElems[k].size : 0; }

bool pbd_ElemKind_IsFloat(pbd_ElemKind k) {
  return k == kPbd_Elem_Float || k == kPbd_Elem_Double || k == kPbd_Elem_Float16 ||
         k == kPbd_Elem_BFloat16;
}

/* ---- Elements ------------------------------------------------------------------ */

/* One side's elements: little-endian bytes, or the values of a typed
 * repeated field (the tree's 64-bit slots). */
typedef struct {
  pbd_ElemKind kind;
  const pbd_Field *src;   /* the field they are in */
  const uint8_t *bytes;   /* raw: bytes[count * size], else NULL */
  size_t count;
} Elems;

/* n little-endian bytes as a number: the usual widths in one load each (a
 * tensor's elements are read by the million). */
static inline uint64_t little_endian(const uint8_t *p, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (n == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  if (n == 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
#endif
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* IEEE half precision to float (exact: every half is a float). */
static uint32_t half_to_float_bits(uint16_t h) {
  uint32_t exp = h >> 10 & 0x1f, man = h & 0x3ff;
  float f;
  if (exp == 0) f = ldexpf((float)man, -24);
  else if (exp == 31) f = man ? NAN : INFINITY;
  else f = ldexpf((float)(man | 0x400), (int)exp - 25);
  return float_bits(h >> 15 ? -f : f);
}

static pbd_Value number(pbd_ValueKind kind, uint64_t u) {
  pbd_Value v = {.kind = kind, .field = NULL};
  v.u = u;
  return v;
}

/* An element read from its slot, raw (the little-endian bits) or typed
 * (the tree's slot of int32_data, int64_data, uint64_data, float_data or
 * double_data), as a value: floats (float16 and bfloat16 widened to
 * float), integers signed or not, bools 0 or 1.  The field is NULL, so
 * reporters show a number, not a bytes field's value. */
static pbd_Value element(pbd_ElemKind k, uint64_t bits, bool raw) {
  switch (k) {
    case kPbd_Elem_Float: return number(kPbd_Value_Float, (uint32_t)bits);
    case kPbd_Elem_Double: return number(kPbd_Value_Double, bits);
    case kPbd_Elem_Float16: return number(kPbd_Value_Float, half_to_float_bits((uint16_t)bits));
    case kPbd_Elem_BFloat16: return number(kPbd_Value_Float, (uint32_t)(uint16_t)bits << 16);
    case kPbd_Elem_Int8: return number(kPbd_Value_Int, (uint64_t)(int64_t)(int8_t)bits);
    case kPbd_Elem_Int16: return number(kPbd_Value_Int, (uint64_t)(int64_t)(int16_t)bits);
    case kPbd_Elem_Int32: return number(kPbd_Value_Int, (uint64_t)(int64_t)(int32_t)bits);
    case kPbd_Elem_Int64: return number(kPbd_Value_Int, bits);
    case kPbd_Elem_UInt8: return number(kPbd_Value_UInt, raw ? (uint8_t)bits : (uint32_t)bits);
    case kPbd_Elem_UInt16: return number(kPbd_Value_UInt, raw ? (uint16_t)bits : (uint32_t)bits);
    case kPbd_Elem_UInt32: return number(kPbd_Value_UInt, raw ? (uint32_t)bits : bits);
    case kPbd_Elem_UInt64: return number(kPbd_Value_UInt, bits);
    case kPbd_Elem_Bool: return number(kPbd_Value_Bool, bits != 0);
    case kPbd_Elem_None: break;
  }
  return number(kPbd_Value_None, 0);
}

static pbd_Value elem_at(const Elems *e, size_t i) {
  if (!e->bytes) return element(e->kind, pbd_Field_Scalar(e->src, i), false);
  size_t n = pbd_ElemKind_Size(e->kind);
  return element(e->kind, little_endian(e->bytes + i * n, n), true);
}

/* The first index from i on (below n) where float or double elements read
 * from bytes (b) and a typed field's (t) differ in their bits: the bytes
 * read as a packed run of t's type, whose slots hold the same bits. */
static size_t skip_equal_float_bits(const Elems *b, const Elems *t, size_t i, size_t n) {
  pbd_Field as_typed = *t->src;
  as_typed.stride = (uint8_t)pbd_ElemKind_Size(b->kind);
  as_typed.v.fixed = b->bytes;
  as_typed.count = (uint32_t)b->count;
  return pbd_Field_FirstScalarDifference(&as_typed, t->src, i, n);
}

/* The first index from i on (below n) where two lists of one kind differ
 * in their bits: two lists of bytes (raw_data, or a packed typed field
 * still in the input) have their equal blocks passed by memcmp, two typed
 * lists' slots are compared as they are, bytes and a typed field's floats
 * as bits: not element by element as values. */
static size_t skip_equal_bytes(const Elems *a, const Elems *b, size_t i, size_t n) {
  if (a->kind != b->kind) return i;
  if (!a->bytes && !b->bytes) return pbd_Field_FirstScalarDifference(a->src, b->src, i, n);
  if (!a->bytes || !b->bytes)
    return a->kind != kPbd_Elem_Float && a->kind != kPbd_Elem_Double ? i
           : a->bytes ? skip_equal_float_bits(a, b, i, n) : skip_equal_float_bits(b, a, i, n);
  size_t size = pbd_ElemKind_Size(a->kind), block = 4096 / size;
  while (n - i >= block && !memcmp(a->bytes + i * size, b->bytes + i * size, block * size))
    i += block;
  while (i < n && !memcmp(a->bytes + i * size, b->bytes + i * size, size)) i++;
  return i;
}

static void note_not_viewed(Walk *w, const char *field, size_t size, pbd_ElemKind k) {
  if (!w->o->view_note) return;
  pbd_Buf b = {0};
  pbd_Path_Format(&b, &w->path, 0, w->path.count);
  if (field) {
    if (b.len) pbd_Buf_AppendChar(&b, '.');
    pbd_Buf_AppendStr(&b, field);
  }
  pbd_Buf_Printf(&b, ": %zu bytes are no whole number of %s elements (%zu bytes each), so they "
                     "are compared as bytes", size, pbd_ElemKind_Name(k), pbd_ElemKind_Size(k));
  if (!b.oom && b.data) w->o->view_note(w->o->view_note_ctx, b.data);
  pbd_Buf_Free(&b);
}

/* Two element lists at the current path (the field's segment pushed):
 * position by position, as a tensor's elements are; what one side has
 * beyond the other's end is removed or added. */
static int diff_elements(Walk *w, const Elems *a, const Elems *b) {
  size_t n = a->count < b->count ? a->count : b->count, mark = w->path.count;
  int rc = 0;
  for (size_t i = skip_equal_bytes(a, b, 0, n); i < n && !rc && !w->oom;
       i = skip_equal_bytes(a, b, i + 1, n)) {
    pbd_Value x = elem_at(a, i), y = elem_at(b, i);
    if (x.kind == y.kind && x.u == y.u) continue; /* most elements: the same bits */
    dw_push_index(w, (uint32_t)i);
    if (!dw_path_ignored(w) && !dw_values_equal(w, &x, &y))
      rc = dw_emit_at(w, kPbd_Edit_Changed, &x, &y, (int64_t)i, (int64_t)i);
    pbd_Path_Truncate(&w->path, mark);
  }
  for (size_t i = n; i < a->count && !rc && !w->oom; i++) {
    pbd_Value x = elem_at(a, i);
    dw_push_index(w, (uint32_t)i);
    if (!dw_path_ignored(w)) rc = dw_emit_at(w, kPbd_Edit_Removed, &x, NULL, (int64_t)i, -1);
    pbd_Path_Truncate(&w->path, mark);
  }
  for (size_t i = n; i < b->count && !rc && !w->oom && !w->o->partial; i++) {
    pbd_Value y = elem_at(b, i);
    dw_push_index(w, (uint32_t)i);
    if (!dw_path_ignored(w)) rc = dw_emit_at(w, kPbd_Edit_Added, NULL, &y, -1, (int64_t)i);
    pbd_Path_Truncate(&w->path, mark);
  }
  return rc;
}

/* ---- --bytes-as FIELD=KIND ----------------------------------------------------- */

pbd_ElemKind dv_field_view(const Walk *w, const pbd_FieldDef *fd) {
  if (!fd || fd->is_repeated) return kPbd_Elem_None;
  for (size_t i = 0; i < w->o->bytes_view_count; i++) {
    const pbd_BytesView *v = &w->o->bytes_views[i];
    /* by name too: across two schema versions the sides' defs differ */
    if (v->field == fd || (v->field && !strcmp(v->field->full_name, fd->full_name))) return v->kind;
  }
  return kPbd_Elem_None;
}

int dv_diff_bytes(Walk *w, const pbd_Value *l, const pbd_Value *r, pbd_ElemKind k) {
  size_t n = pbd_ElemKind_Size(k);
  const pbd_Value *bad = l->s.size % n ? l : r->s.size % n ? r : NULL;
  if (bad) {
    if (!dw_values_equal(w, l, r)) note_not_viewed(w, NULL, bad->s.size, k);
    return dw_diff_values(w, l, r);
  }
  pbd_Field lf = {.kind = kPbd_Value_Bytes}, rf = lf;
  Elems a = {k, &lf, (const uint8_t *)l->s.data, l->s.size / n};
  Elems b = {k, &rf, (const uint8_t *)r->s.data, r->s.size / n};
  return diff_elements(w, &a, &b);
}

/* ---- The ONNX preset: onnx.TensorProto --------------------------------------- */

enum { kDims = 1, kDataType = 2, kRawData = 9 };

static bool field_is(const pbd_MessageDef *m, uint32_t number, pbd_FieldType t) {
  const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(m, number);
  return fd && fd->type == t;
}

static bool is_tensor_type(const pbd_MessageDef *m) {
  return m && !strcmp(m->full_name, "onnx.TensorProto") && field_is(m, kDataType, kPbd_Type_Int32) &&
         field_is(m, kRawData, kPbd_Type_Bytes);
}

/* The element kind of an ONNX data_type, and the typed field that holds
 * such elements when raw_data does not (onnx.proto: float_data for FLOAT;
 * int32_data for the types of 16 bits and fewer, float16 and bfloat16 as
 * their bit patterns; int64_data; double_data; uint64_data for UINT32 and
 * UINT64).  None for the rest (STRING, COMPLEX64, ...): not viewed. */
static pbd_ElemKind onnx_kind(int64_t data_type, uint32_t *typed, pbd_FieldType *type) {
  static const struct {
    pbd_ElemKind kind;
    uint32_t field;
    pbd_FieldType type;
  } k[] = {
      [1] = {kPbd_Elem_Float, 4, kPbd_Type_Float},     [2] = {kPbd_Elem_UInt8, 5, kPbd_Type_Int32},
      [3] = {kPbd_Elem_Int8, 5, kPbd_Type_Int32},      [4] = {kPbd_Elem_UInt16, 5, kPbd_Type_Int32},
      [5] = {kPbd_Elem_Int16, 5, kPbd_Type_Int32},     [6] = {kPbd_Elem_Int32, 5, kPbd_Type_Int32},
      [7] = {kPbd_Elem_Int64, 7, kPbd_Type_Int64},     [9] = {kPbd_Elem_Bool, 5, kPbd_Type_Int32},
      [10] = {kPbd_Elem_Float16, 5, kPbd_Type_Int32},  [11] = {kPbd_Elem_Double, 10, kPbd_Type_Double},
      [12] = {kPbd_Elem_UInt32, 11, kPbd_Type_UInt64}, [13] = {kPbd_Elem_UInt64, 11, kPbd_Type_UInt64},
      [16] = {kPbd_Elem_BFloat16, 5, kPbd_Type_Int32},
  };
  if (data_type < 0 || data_type >= (int64_t)(sizeof k / sizeof k[0])) return kPbd_Elem_None;
  *typed = k[data_type].field;
  *type = k[data_type].type;
  return k[data_type].kind;
}

static const pbd_Field *known_field(const pbd_Message *m, uint32_t number) {
  const pbd_Field *f = pbd_Message_FindField(m, number);
  return f && f->def ? f : NULL;
}

/* A tensor's elements: 1 when read, 0 when no view applies (not a tensor
 * of a numeric data_type, no data, or both raw_data and the typed field
 * set: then its fields are compared as they are), -1 when raw_data is no
 * whole number of elements (*raw_size its length). */
static int tensor_elems(const pbd_Message *m, Elems *e, size_t *raw_size) {
  if (!m || !is_tensor_type(m->def)) return 0;
  const pbd_Field *dt = known_field(m, kDataType);
  uint32_t typed = 0;
  pbd_FieldType type = 0;
  e->kind = onnx_kind(dt ? (int64_t)pbd_Field_Scalar(dt, 0) : 0, &typed, &type);
  if (!e->kind) return 0;
  const pbd_FieldDef *tdef = pbd_MessageDef_FindFieldByNumber(m->def, typed);
  if (!tdef || tdef->type != type || !tdef->is_repeated) return 0;
  const pbd_Field *raw = known_field(m, kRawData), *tf = known_field(m, typed);
  if ((raw && tf) || (!raw && !tf)) return 0;
  e->src = raw ? raw : tf;
  e->count = tf ? tf->count : 0;
  /* a packed run of floats or doubles still in the input is read as bytes */
  e->bytes = tf && tf->stride && tf->stride == pbd_ElemKind_Size(e->kind) ? tf->v.fixed : NULL;
  if (raw) {
    size_t size = raw->v.strs[0].size, n = pbd_ElemKind_Size(e->kind);
    *raw_size = size;
    if (size % n) return -1;
    e->bytes = (const uint8_t *)raw->v.strs[0].data;
    e->count = size / n;
  }
  return 1;
}

/* Tensors of two shapes are two things, not one changed in places: their
 * elements are not compared one by one (their fields are, as they are). */
static bool same_dims(const pbd_Message *l, const pbd_Message *r) {
  const pbd_Field *a = known_field(l, kDims), *b = known_field(r, kDims);
  if (!a || !b) return !a && !b;
  return a->count == b->count && pbd_Field_FirstScalarDifference(a, b, 0, a->count) == a->count;
}

bool dv_tensor_pair(Walk *w, const pbd_Message *l, const pbd_Message *r, dv_TensorPair *t) {
  if (!w->o->onnx_tensors || !is_tensor_type(l->def) || !is_tensor_type(r->def)) return false;
  /* a view the user gives raw_data is theirs: the preset steps aside */
  if (dv_field_view(w, pbd_MessageDef_FindFieldByNumber(l->def, kRawData))) return false;
  Elems a, b;
  size_t la = 0, lb = 0;
  int ra = tensor_elems(l, &a, &la), rb = tensor_elems(r, &b, &lb);
  if (ra < 0 || rb < 0) {
    note_not_viewed(w, "raw_data", ra < 0 ? la : lb, ra < 0 ? a.kind : b.kind);
    return false;
  }
  if (ra != 1 || rb != 1 || a.kind != b.kind || !same_dims(l, r)) return false;
  t->l = l;
  t->r = r;
  t->lskip = 1u << a.src->number;
  t->rskip = 1u << b.src->number;
  t->at = a.src->number < b.src->number ? a.src->number : b.src->number;
  return true;
}

int dv_diff_tensor(Walk *w, const dv_TensorPair *t) {
  Elems a, b;
  size_t unused;
  if (tensor_elems(t->l, &a, &unused) != 1 || tensor_elems(t->r, &b, &unused) != 1) return 0;
  size_t mark = w->path.count;
  dw_push_field(w, a.src); /* LEFT's field names the elements */
  int rc = 0;
  bool ignored = dw_field_ignored(w, a.src->def) || dw_field_ignored(w, b.src->def) ||
                 dw_path_ignored(w);
  if (!ignored) rc = diff_elements(w, &a, &b);
  pbd_Path_Truncate(&w->path, mark);
  return rc;
}

/* ---- Alignment keys ------------------------------------------------------------- */

static void hash_u64(XXH3_state_t *st, uint64_t v) { XXH3_128bits_update(st, &v, sizeof v); }

static void hash_str(XXH3_state_t *st, pbd_StrView s) {
  hash_u64(st, s.size);
  if (s.size) XXH3_128bits_update(st, s.data, s.size);
}

static void hash_msg(XXH3_state_t *st, const pbd_Message *m) {
  hash_u64(st, m ? m->hash.lo : 0);
  hash_u64(st, m ? m->hash.hi : 0);
}

/* One field's number, kind and values. */
static void hash_field(XXH3_state_t *st, const pbd_Field *f) {
  hash_u64(st, (uint64_t)f->number << 32 | (uint64_t)f->kind << 1 | (f->def != NULL));
  hash_u64(st, f->count);
  for (uint32_t i = 0; i < f->count; i++) {
    if (!f->def) {
      const pbd_UnknownValue *u = &f->v.unknowns[i];
      hash_u64(st, u->kind);
      if (u->kind == kPbd_Value_Len) hash_str(st, u->s);
      else if (dw_is_message_kind(u->kind)) hash_msg(st, u->m);
      else hash_u64(st, u->u);
    } else if (f->kind == kPbd_Value_String || f->kind == kPbd_Value_Bytes) {
      hash_str(st, f->v.strs[i]);
    } else if (f->kind == kPbd_Value_Message) {
      hash_msg(st, f->v.msgs[i]);
    } else {
      hash_u64(st, pbd_Field_Scalar(f, i));
    }
  }
}

/* An element as a key: floats as rule 10 compares them (all NaNs one key,
 * -0 the key of 0), the rest by value. */
static uint64_t element_key(pbd_Value v) {
  if (v.kind == kPbd_Value_Float || v.kind == kPbd_Value_Double) {
    double x = dw_float_value(&v);
    if (isnan(x)) return 1;
    if (x == 0) return 0;
  }
  return v.u;
}

/* element_key(elem_at(e, i)), with floats, most tensors' elements, read
 * straight from their bits: both zeros key 0, every NaN 1. */
static inline uint32_t canonical_key_bits(uint32_t b) {
  uint32_t magnitude = b & 0x7fffffffu;
  uint32_t zero_made_positive = b & -(uint32_t)(magnitude != 0); /* (no branch: vector code) */
  return magnitude > 0x7f800000u ? 1 : zero_made_positive;
}

static uint64_t element_key_at(const Elems *e, size_t i) {
  if (e->kind != kPbd_Elem_Float) return element_key(elem_at(e, i));
  return canonical_key_bits(e->bytes ? (uint32_t)little_endian(e->bytes + 4 * i, 4)
                                     : (uint32_t)pbd_Field_Scalar(e->src, i));
}

size_t dv_message_key_cost(const Walk *w, const pbd_Message *m) {
  Elems e;
  size_t unused;
  return w->o->onnx_tensors && tensor_elems(m, &e, &unused) == 1 ? e.count : 0;
}

bool dv_keys_by_view(const Walk *w, const pbd_FieldDef *fd) {
  return w->o->onnx_tensors && fd && is_tensor_type(fd->message_type);
}

/* Float elements' keys as 4 bytes each (a key is only ever compared with
 * another key, never with a hash), a block at a time in loops without a
 * branch: half the bytes to hash, and raw_data's loop is vector code. */
static void float_keys(XXH3_state_t *st, const Elems *e) {
  uint32_t buf[1024];
  for (size_t at = 0; at < e->count; at += 1024) {
    size_t n = e->count - at < 1024 ? e->count - at : 1024;
    if (e->bytes) {
      const uint8_t *p = e->bytes + 4 * at;
      for (size_t i = 0; i < n; i++) buf[i] = canonical_key_bits((uint32_t)little_endian(p + 4 * i, 4));
    } else {
      uint64_t v[1024];
      pbd_Field_Scalars(e->src, at, n, v);
      for (size_t i = 0; i < n; i++) buf[i] = canonical_key_bits((uint32_t)v[i]);
    }
    XXH3_128bits_update(st, buf, n * sizeof buf[0]);
  }
}

pbd_Hash128 dv_message_key(const Walk *w, const pbd_Message *m) {
  Elems e;
  size_t unused;
  if (!w->o->onnx_tensors || !is_tensor_type(m->def) || tensor_elems(m, &e, &unused) != 1 ||
      dv_field_view(w, pbd_MessageDef_FindFieldByNumber(m->def, kRawData)))
    return m->hash;
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  const pbd_Field *f = pbd_Message_Fields(m);
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++)
    if (&f[i] != e.src) hash_field(&st, &f[i]);
  hash_u64(&st, (uint64_t)e.kind << 32 | 0x7e57);
  hash_u64(&st, e.count);
  if (e.kind == kPbd_Elem_Float) {
    float_keys(&st, &e);
  } else {
    uint64_t buf[256];
    size_t n = 0;
    for (size_t i = 0; i < e.count; i++) {
      buf[n++] = element_key_at(&e, i);
      if (n == sizeof buf / sizeof buf[0]) XXH3_128bits_update(&st, buf, sizeof buf), n = 0;
    }
    if (n) XXH3_128bits_update(&st, buf, n * sizeof buf[0]);
  }
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  return (pbd_Hash128){h.low64, h.high64};
}
