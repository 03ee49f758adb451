/* pbdiff — canonical tree builder.
 *
 * One pass over the wire builds each message in a builder that holds, per
 * known field, a typed value array (looked up by the field's index through
 * slot_of) and, for unknown fields, a list of occurrences.  Because a
 * singular message field that occurs again is parsed into the same node,
 * merging (rule 3) falls out of the builder; last-value-wins is a slot
 * overwrite; a oneof member clears its siblings.  When the whole input is
 * read, finish_message turns each builder into the canonical form bottom up:
 * fields sorted by number, defaults dropped, map entries sorted and deduped,
 * unknown fields grouped by number, Any payloads parsed, and the hash taken
 * over the result. */
#include "pbdiff/tree/tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "canon/canon_internal.h"
#include "tree/tree_build.h"
#include "pbdiff/wire/wire.h"

/* ---- Value kinds ------------------------------------------------------- */

static int wire_type_of(pbd_FieldType t) { return pbd_WireTypeOf(t); }
static pbd_ValueKind kind_of_type(pbd_FieldType t) { return pbd_ValueKindOf(t); }
static bool kind_is_scalar(pbd_ValueKind k) { return pbd_ValueKind_IsScalar(k); }
static bool kind_is_str(pbd_ValueKind k) { return pbd_ValueKind_IsStr(k); }

/* ---- Builders ------------------------------------------------------------- */

bool pbd_TreeBuild_StartMessage(Ctx *c, pbd_Message *m) {
  Builder *b = pbd_Arena_Calloc(c->scratch, sizeof *b);
  if (!b) return false;
  if (m->def && m->def->field_count) {
    b->slot_of = pbd_Arena_Calloc(c->scratch, sizeof(uint32_t) * m->def->field_count);
    if (!b->slot_of) return false;
  }
  m->builder_ = b;
  m->building_ = true;
  return true;
}

pbd_Message *pbd_TreeBuild_NewMessage(Ctx *c, const pbd_MessageDef *def) {
  pbd_Message *m = pbd_Arena_Calloc(c->a, sizeof *m);
  if (!m) return NULL;
  m->def = def;
  return pbd_TreeBuild_StartMessage(c, m) ? m : NULL;
}

static FieldBuild *get_slot(Ctx *c, Builder *b, const pbd_FieldDef *fd) {
  uint32_t k = b->slot_of[fd->index];
  if (k) return &b->fields[k - 1];
  if (b->nfields == b->capfields) {
    uint32_t cap = b->capfields ? b->capfields * 2 : 4;
    FieldBuild *nf = pbd_Arena_Realloc(c->scratch, b->fields, sizeof(FieldBuild) * b->capfields,
                                       sizeof(FieldBuild) * cap);
    if (!nf) return NULL;
    b->fields = nf;
    b->capfields = cap;
  }
  FieldBuild *s = &b->fields[b->nfields++];
  memset(s, 0, sizeof *s);
  s->f.number = fd->number;
  s->f.def = fd;
  s->f.kind = kind_of_type(fd->type);
  b->slot_of[fd->index] = b->nfields;
  return s;
}

static size_t elem_size(pbd_ValueKind k) {
  if (kind_is_scalar(k)) return sizeof(uint64_t);
  if (kind_is_str(k)) return sizeof(pbd_StrView);
  return sizeof(pbd_Message *);
}

/* A field of this many fixed-width values or more, all in one run so far,
 * keeps them where they are in the input (pbd_Field.stride): a tensor's
 * weights are not copied into a tree's slots, nor into fresh memory. */
enum { kInPlaceMin = 16 };

static bool leave_in_input(FieldBuild *s, const uint8_t *first, size_t stride, uint64_t n) {
  if (s->f.stride || n < kInPlaceMin || n > UINT32_MAX || stride > UINT8_MAX) return false;
  s->f.v.fixed = first;
  s->f.stride = (uint8_t)stride;
  s->f.count = (uint32_t)n;
  return true;
}

/* Room for `extra` more values in a slot whose values are still in the
 * input: they are copied out first (another run of them came). */
static bool copy_out_of_input(Ctx *c, FieldBuild *s, uint32_t extra) {
  uint64_t want = s->f.count;
  while (want < s->f.count + (uint64_t)extra) want *= 2;
  if (want > UINT32_MAX) return oom(c);
  uint64_t *v = pbd_Arena_Malloc(c->a, sizeof *v * (size_t)want);
  if (!v) return oom(c);
  pbd_Field_Scalars(&s->f, 0, s->f.count, v);
  s->f.v.scalars = v;
  s->f.stride = 0;
  s->cap = (uint32_t)want;
  return true;
}

/* Makes room for `extra` more values in a slot. */
static bool reserve(Ctx *c, FieldBuild *s, uint32_t extra) {
  if (s->f.stride) return copy_out_of_input(c, s, extra);
  if (s->f.count + (uint64_t)extra <= s->cap) return true;
  uint64_t want = s->cap ? s->cap : 1;
  while (want < s->f.count + (uint64_t)extra) want *= 2;
  if (want > UINT32_MAX) return oom(c);
  size_t es = elem_size(s->f.kind);
  void *p = pbd_Arena_Realloc(c->a, s->f.v.scalars, es * s->cap, es * (size_t)want);
  if (!p) return oom(c);
  s->f.v.scalars = p;
  s->cap = (uint32_t)want;
  return true;
}

/* Rule 2 for oneofs: setting one member clears the others. */
static void clear_oneof_siblings(Builder *b, const pbd_FieldDef *fd) {
  const pbd_OneofDef *o = fd->oneof;
  for (uint32_t i = 0; i < o->field_count; i++) {
    const pbd_FieldDef *sib = o->fields[i];
    if (sib == fd) continue;
    uint32_t k = b->slot_of[sib->index];
    if (k) b->fields[k - 1].f.count = 0;
  }
}

/* The slot for a singular value (count becomes 1) or the next element. */
static FieldBuild *slot_for_value(Ctx *c, Builder *b, const pbd_FieldDef *fd) {
  FieldBuild *s = get_slot(c, b, fd);
  if (!s) {
    oom(c);
    return NULL;
  }
  if (fd->oneof) clear_oneof_siblings(b, fd);
  if (!fd->is_repeated) {
    if (!reserve(c, s, 1)) return NULL;
    s->f.count = 0; /* last value wins: overwrite */
  } else if (!reserve(c, s, 1)) {
    return NULL;
  }
  return s;
}

static bool add_unknown(Ctx *c, Builder *b, uint32_t number, pbd_UnknownValue v) {
  if (b->nunk == b->capunk) {
    uint32_t cap = b->capunk ? b->capunk * 2 : 4;
    UnknownOcc *nu = pbd_Arena_Realloc(c->scratch, b->unk, sizeof(UnknownOcc) * b->capunk,
                                       sizeof(UnknownOcc) * cap);
    if (!nu) return oom(c);
    b->unk = nu;
    b->capunk = cap;
  }
  b->unk[b->nunk].number = number;
  b->unk[b->nunk].v = v;
  b->nunk++;
  return true;
}

/* ---- Parsing -------------------------------------------------------------- */


/* Rule 13: a LEN field without a schema is a message when it parses as one
 * completely (no error anywhere in it), else bytes.  A failed attempt gives
 * its arena space back. */
static pbd_Message *try_parse_unknown_message(Ctx *c, const uint8_t *p, size_t n, int depth) {
  if (n == 0 || depth >= c->max_depth) return NULL;
  pbd_ArenaMark mark = pbd_Arena_Mark(c->a), smark = pbd_Arena_Mark(c->scratch);
  pbd_Status saved = *c->s;
  pbd_Message *m = pbd_TreeBuild_NewMessage(c, NULL);
  bool ok = m && pbd_TreeBuild_ParseFields(c, m, p, p + n, depth + 1) && pbd_TreeBuild_FinishMessage(c, m, depth + 1);
  pbd_Arena_Reset(c->scratch, smark);
  if (ok) return m;
  if (c->s->code == kPbd_Status_OutOfMemory) return NULL;
  *c->s = saved;
  pbd_Arena_Reset(c->a, mark);
  return NULL;
}

static bool record_unknown(Ctx *c, pbd_Message *m, const pbd_WireField *f, int depth) {
  Builder *b = m->builder_;
  bool keep;
  if (!pbd_UnknownFieldAllowed(!c->schemaless, c->o, f, c->buf, &keep, c->s)) return false;
  if (!keep) return true;
  pbd_UnknownValue v;
  memset(&v, 0, sizeof v);
  switch (f->wire_type) {
    case kPbd_WireType_Varint: v.kind = kPbd_Value_Varint; v.u = f->value; break;
    case kPbd_WireType_Fixed32: v.kind = kPbd_Value_Fixed32; v.u = f->value; break;
    case kPbd_WireType_Fixed64: v.kind = kPbd_Value_Fixed64; v.u = f->value; break;
    case kPbd_WireType_Delimited:
      if (c->lazy) {
        if (!pbd_TreeBuild_UnreadUnknownLen(c, f, depth, &v)) return false;
        break;
      }
      v.m = try_parse_unknown_message(c, f->data, f->size, depth);
      if (v.m) {
        v.kind = kPbd_Value_LenMessage;
      } else {
        if (c->s->code == kPbd_Status_OutOfMemory) return false;
        v.kind = kPbd_Value_Len;
        v.s.data = (const char *)f->data;
        v.s.size = f->size;
      }
      break;
    case kPbd_WireType_StartGroup: {
      if (depth + 1 > c->max_depth) goto too_deep;
      pbd_Message *g = c->lazy ? pbd_TreeBuild_NewUnread(c, NULL, depth + 1, f->data, f->size)
                               : pbd_TreeBuild_NewMessage(c, NULL);
      if (!g) return oom(c);
      if ((!c->lazy && !pbd_TreeBuild_ParseFields(c, g, f->data, f->data + f->size, depth + 1)) ||
          !pbd_TreeBuild_FinishMessage(c, g, depth + 1)) {
        pbd_FieldDef_PrependPath(NULL, f->number, 0, c->s);
        return false;
      }
      v.kind = kPbd_Value_Group;
      v.m = g;
      break;
    }
  }
  return add_unknown(c, b, f->number, v);
too_deep:
  pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                        "nesting deeper than %d", c->max_depth);
  return false;
}

static bool enum_value_unknown(const pbd_FieldDef *fd, uint64_t raw) {
  return pbd_EnumValueUnknown(fd, raw);
}

static bool add_scalar(Ctx *c, pbd_Message *m, const pbd_FieldDef *fd, uint64_t raw) {
  if (enum_value_unknown(fd, raw)) {
    bool keep;
    if (!pbd_UnknownEnumAllowed(!c->schemaless, c->o, fd, raw, &keep, c->s)) return false;
    /* in a map entry it makes the whole entry unknown (rule 9), which
     * --ignore-unknown then drops whole: keep it until the entry decides */
    if (m->def && m->def->is_map_entry) keep = true;
    if (!keep) return true;
    pbd_UnknownValue v = {.kind = kPbd_Value_Varint, .u = pbd_UnknownEnumVarint(raw)};
    return add_unknown(c, m->builder_, fd->number, v);
  }
  FieldBuild *s = slot_for_value(c, m->builder_, fd);
  if (!s) return false;
  s->f.v.scalars[s->f.count++] = pbd_FieldType_DecodeScalar(fd->type, raw);
  return true;
}

/* n fixed-width values (width 4 or 8), `stride` bytes apart from p,
 * appended to a slot with room for them: a tensor's millions of floats in
 * one loop rather than a field read each. */
static void append_fixed(FieldBuild *s, pbd_FieldType t, const uint8_t *p, size_t stride,
                         size_t n) {
  pbd_FixedValues(t, false, p, stride, n, s->f.v.scalars + s->f.count);
  s->f.count += (uint32_t)n;
}

/* Rule 4: a packed run of scalars, decoded into the field's array. */
static bool add_packed(Ctx *c, pbd_Message *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  const uint8_t *p = f->data, *end = f->data + f->size;
  size_t width;
  int64_t n = pbd_Packed_Count(fd, f, c->buf, &width, c->s);
  if (n <= 0) return n == 0; /* an empty run creates nothing: no presence */
  FieldBuild *s = get_slot(c, m->builder_, fd);
  if (!s) return oom(c);
  /* (pbd_Packed_Count checked the length is n whole values) */
  if (width && !s->f.count && leave_in_input(s, p, width, (uint64_t)n)) return true;
  if (n > UINT32_MAX || !reserve(c, s, (uint32_t)n)) return oom(c);
  if (width) {
    append_fixed(s, fd->type, p, width, (size_t)n);
    return true;
  }
  bool check_enum = fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed;
  while (p < end) {
    uint64_t raw = 0;
    if (!(p = pbd_Packed_Next(fd, width, p, end, c->buf, &raw, c->s))) return false;
    if (check_enum && enum_value_unknown(fd, raw)) {
      if (!add_scalar(c, m, fd, raw)) return false; /* goes to unknown fields */
      continue;
    }
    s->f.v.scalars[s->f.count++] = pbd_FieldType_DecodeScalar(fd->type, raw);
  }
  return true;
}

/* A repeated fixed-width field written unpacked (each value after its own
 * tag, as proto2 writers do): the values that follow the one just read
 * under the same tag bytes are appended at once.  Returns where the run
 * ends; a value cut short is left to the field reader, which reports it. */
static const uint8_t *add_unpacked_run(Ctx *c, pbd_Message *m, const pbd_FieldDef *fd,
                                       const pbd_WireField *f, const uint8_t *q, const uint8_t *end) {
  size_t width = f->wire_type == kPbd_WireType_Fixed32 ? 4 : 8, taglen = (size_t)(q - f->start) - width;
  size_t stride = taglen + width, n = 0;
  const uint8_t *p = q;
  if (taglen == 1) /* fields 1 to 15, most of them: a byte to match */
    while ((size_t)(end - p) >= stride && *p == *f->start && n < UINT32_MAX) p += stride, n++;
  else
    while ((size_t)(end - p) >= stride && !memcmp(p, f->start, taglen) && n < UINT32_MAX) p += stride, n++;
  if (!n) return q;
  FieldBuild *s = get_slot(c, m->builder_, fd);
  if (!s) return oom(c), NULL;
  /* the value just read the first of the field's: the run from it */
  if (s->f.count == 1 && !s->f.stride && leave_in_input(s, f->start + taglen, stride, (uint64_t)n + 1))
    return p;
  if (!reserve(c, s, (uint32_t)n)) return oom(c), NULL;
  append_fixed(s, fd->type, q + taglen, stride, n);
  return p;
}

static void prepend_field_path(Ctx *c, const pbd_FieldDef *fd, uint32_t index) {
  pbd_FieldDef_PrependPath(fd, fd->number, index, c->s);
}

/* A map entry whose value is a closed enum value the schema does not know:
 * protobuf readers then keep the whole entry as an unknown field of the map's
 * message (rule 9), rather than an entry with a default value. */
static bool entry_has_unknown_enum(const pbd_Message *entry) {
  const Builder *b = entry->builder_;
  const pbd_FieldDef *v = pbd_MessageDef_FieldByNumber(entry->def, 2);
  if (!v || v->type != kPbd_Type_Enum || !v->enum_type || !v->enum_type->is_closed) return false;
  for (uint32_t i = 0; i < b->nunk; i++)
    if (b->unk[i].number == 2 && b->unk[i].v.kind == kPbd_Value_Varint) return true;
  return false;
}

static bool add_message(Ctx *c, pbd_Message *m, const pbd_FieldDef *fd, const pbd_WireField *f,
                        int depth) {
  const uint8_t *p = f->data;
  size_t n = f->size;
  if (depth + 1 > c->max_depth) {
    pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                          "nesting deeper than %d", c->max_depth);
    prepend_field_path(c, fd, 0);
    return false;
  }
  FieldBuild *s = get_slot(c, m->builder_, fd);
  if (!s) return oom(c);
  if (fd->oneof) clear_oneof_siblings(m->builder_, fd);
  pbd_Message *child;
  uint32_t index = 0;
  if (c->lazy && !fd->is_map) { /* shallow: the child stays unread */
    if (!fd->is_repeated && s->f.count == 1) return pbd_TreeBuild_AddUnreadPart(c, s->f.v.msgs[0], p, n);
    if (!reserve(c, s, 1)) return false;
    child = pbd_TreeBuild_NewUnread(c, fd->message_type, depth + 1, p, n);
    if (!child) return oom(c);
    if (!fd->is_repeated) s->f.count = 0;
    index = s->f.count;
    s->f.v.msgs[s->f.count++] = child;
    if (fd->is_repeated && !pbd_TreeBuild_FinishMessage(c, child, depth + 1)) { /* complete: hash it now */
      prepend_field_path(c, fd, index);
      return false;
    }
    return true;
  }
  if (!fd->is_repeated && s->f.count == 1) {
    child = s->f.v.msgs[0]; /* rule 3: the same singular message merges */
    if (!pbd_TreeBuild_ParseFields(c, child, p, p + n, depth + 1)) {
      prepend_field_path(c, fd, 0);
      return false;
    }
    return true;
  }
  if (!reserve(c, s, 1)) return false;
  /* A repeated element is complete at the end of its bytes (nothing can
   * merge into it later), so it is finished at once and its builders, taken
   * from scratch after this mark, are released. */
  pbd_ArenaMark smark = pbd_Arena_Mark(c->scratch);
  child = pbd_TreeBuild_NewMessage(c, fd->message_type);
  if (!child) return oom(c);
  if (!fd->is_repeated) s->f.count = 0;
  index = s->f.count;
  s->f.v.msgs[s->f.count++] = child;
  if (!pbd_TreeBuild_ParseFields(c, child, p, p + n, depth + 1)) {
    prepend_field_path(c, fd, index);
    return false;
  }
  if (fd->is_map && entry_has_unknown_enum(child)) {
    s->f.count--;
    pbd_Arena_Reset(c->scratch, smark);
    return record_unknown(c, m, f, depth);
  }
  if (fd->is_repeated && !pbd_TreeBuild_FinishMessage(c, child, depth + 1)) {
    prepend_field_path(c, fd, index);
    return false;
  }
  if (fd->is_repeated) pbd_Arena_Reset(c->scratch, smark);
  return true;
}

static bool add_string(Ctx *c, pbd_Message *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  const Builder *b = m->builder_;
  uint32_t k = b->slot_of[fd->index];
  if (!pbd_StringValueOk(fd, f, c->buf, k ? b->fields[k - 1].f.count : 0, c->s)) return false;
  FieldBuild *s = slot_for_value(c, m->builder_, fd);
  if (!s) return false;
  pbd_StrView *v = &s->f.v.strs[s->f.count++];
  v->data = (const char *)f->data;
  v->size = f->size;
  return true;
}

/* Routes one wire field to its schema field, or to unknown fields when the
 * number is not in the schema or the wire type does not fit (rule 6). */
static bool add_field(Ctx *c, pbd_Message *m, const pbd_WireField *f, int depth) {
  const pbd_FieldDef *fd =
      m->def ? pbd_MessageDef_FieldByNumber(m->def, f->number) : NULL;
  if (!fd) return record_unknown(c, m, f, depth);
  int want = wire_type_of(fd->type);
  if (f->wire_type == want) {
    switch (fd->type) {
      case kPbd_Type_String:
      case kPbd_Type_Bytes:
        return add_string(c, m, fd, f);
      case kPbd_Type_Message:
      case kPbd_Type_Group:
        return add_message(c, m, fd, f, depth);
      default:
        return add_scalar(c, m, fd, f->value);
    }
  }
  if (fd->is_packable && f->wire_type == kPbd_WireType_Delimited) return add_packed(c, m, fd, f);
  return record_unknown(c, m, f, depth);
}

/* After a fixed-width value: the rest of its unpacked run, when the value
 * was an element of a repeated field of the schema's. */
static const uint8_t *gather_unpacked(Ctx *c, pbd_Message *m, const pbd_WireField *f, const uint8_t *q,
                                      const uint8_t *end) {
  const pbd_FieldDef *fd = pbd_MessageDef_FieldByNumber(m->def, f->number);
  if (!fd || !fd->is_repeated || wire_type_of(fd->type) != f->wire_type) return q;
  return add_unpacked_run(c, m, fd, f, q, end);
}

bool pbd_TreeBuild_ParseFields(Ctx *c, pbd_Message *m, const uint8_t *p, const uint8_t *end, int depth) {
  int group_depth_left = c->max_depth - depth;
  while (p < end) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, end, c->buf, group_depth_left, &f, c->s);
    if (!q) return false;
    if (f.wire_type == kPbd_WireType_EndGroup) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p),
                            "end group %u without a start group", f.number);
      return false;
    }
    if (!add_field(c, m, &f, depth)) return false;
    if ((f.wire_type == kPbd_WireType_Fixed32 || f.wire_type == kPbd_WireType_Fixed64) && m->def &&
        !(q = gather_unpacked(c, m, &f, q, end)))
      return false;
    p = q;
  }
  return true;
}

/* ---- Finishing: canonical form -------------------------------------------- */

static bool str_equal(pbd_StrView a, pbd_StrView b) {
  return a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
}

/* Whether a singular field's value is its default.  by_value: floats
 * compare as values (-0 == 0, NaN == NaN) for presence fields under
 * --equivalent; otherwise by bits, as protobuf decides what an implicit
 * field writes (so -0.0 is not a default, rule 10). */
static bool is_default(const pbd_Field *f, bool by_value) {
  const pbd_FieldDef *fd = f->def;
  if (f->kind == kPbd_Value_Message) {
    const pbd_Message *child = f->v.msgs[0];
    return child->unread_ ? child->unread_->empty : child->field_count_ == 0;
  }
  if (kind_is_str(f->kind)) return str_equal(f->v.strs[0], fd->default_value.s);
  uint64_t v = f->v.scalars[0], d = fd->default_value.u;
  if (by_value && (f->kind == kPbd_Value_Float || f->kind == kPbd_Value_Double))
    return pbd_Value_FloatEqual(f->kind, v, d);
  return v == d;
}

static bool drop_as_default(const Ctx *c, const pbd_Message *m, const pbd_Field *f) {
  const pbd_FieldDef *fd = f->def;
  if (fd->is_repeated) return false;
  /* rule 5: a map value is always set, so rule 10 makes -0.0 its default */
  if (m->def && m->def->is_map_entry) return is_default(f, !c->o->float_bits);
  if (!fd->has_presence) return is_default(f, false);               /* rule 7 */
  return c->o->equivalent && is_default(f, true);
}

/* Map keys order (pbd_Value_CompareKeys): integers by value, bools false
 * before true, strings bytewise; a missing key is the default. */
static int compare_keys(const pbd_Message *a, const pbd_Message *b) {
  pbd_Value x = pbd_MapEntry_Part(a, 1), y = pbd_MapEntry_Part(b, 1);
  return pbd_Value_CompareKeys(&x, &y);
}

/* Stable merge sort of map entries by key (qsort is not stable, and the
 * order among equal keys decides which duplicate wins). */
static void sort_entries(pbd_Message **v, pbd_Message **tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_entries(v, tmp, h);
  sort_entries(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = compare_keys(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* Rule 5: entries sorted by key; of duplicate keys the last one stays whole. */
static bool canonicalize_map(Ctx *c, pbd_Field *f) {
  if (f->count < 2) return true;
  pbd_Message **tmp = pbd_Arena_Malloc(c->scratch, sizeof(pbd_Message *) * f->count);
  if (!tmp) return oom(c);
  sort_entries(f->v.msgs, tmp, f->count);
  uint32_t out = 0;
  for (uint32_t i = 0; i < f->count; i++) {
    if (i + 1 < f->count && compare_keys(f->v.msgs[i], f->v.msgs[i + 1]) == 0) continue;
    f->v.msgs[out++] = f->v.msgs[i];
  }
  f->count = out;
  return true;
}

static void sort_unknown(UnknownOcc *v, UnknownOcc *tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_unknown(v, tmp, h);
  sort_unknown(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = v[j].number < v[i].number ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

static int compare_field_index(const void *a, const void *b) {
  const FieldBuild *x = a, *y = b;
  uint32_t i = x->f.def->index, j = y->f.def->index;
  return (i > j) - (i < j);
}

/* Rule 11: an Any whose type is in the schema carries its payload parsed. */
static bool resolve_any(Ctx *c, pbd_Message *m, int depth) {
  if (!c->any || m->def != c->any)
    return true;
  const pbd_Field *url = pbd_Message_FindField(m, 1), *val = pbd_Message_FindField(m, 2);
  if (!url || !url->def || url->kind != kPbd_Value_String) return true;
  const pbd_MessageDef *type = pbd_AnyPayloadType(c->o->pool, url->v.strs[0]);
  if (!type || depth + 1 > c->max_depth) return true;
  pbd_StrView bytes = {"", 0};
  if (val && val->def && val->kind == kPbd_Value_Bytes) bytes = val->v.strs[0];
  const uint8_t *p = (const uint8_t *)bytes.data;
  /* A payload that does not parse stays bytes and is compared as bytes. */
  pbd_ArenaMark mark = pbd_Arena_Mark(c->a), smark = pbd_Arena_Mark(c->scratch);
  pbd_Message *payload = NULL;
  bool ok;
  if (c->lazy) {
    pbd_Part part = {p, bytes.size};
    pbd_Hash128 h;
    bool empty = false;
    ok = pbd_Hasher_HashParts(c->lazy->hasher, type, &part, 1, depth + 1, &h, &empty, c->s);
    if (ok) {
      payload = pbd_TreeBuild_NewUnreadHashed(c, type, depth + 1, p, bytes.size, h, empty);
      if (!payload) return oom(c);
    }
  } else {
    payload = pbd_TreeBuild_NewMessage(c, type);
    ok = payload && pbd_TreeBuild_ParseFields(c, payload, p, p + bytes.size, depth + 1) &&
         pbd_TreeBuild_FinishMessage(c, payload, depth + 1);
  }
  pbd_Arena_Reset(c->scratch, smark);
  if (ok) {
    m->any_payload_ = payload;
    return true;
  }
  if (c->s->code == kPbd_Status_OutOfMemory) return false;
  pbd_Status_Clear(c->s); /* it was clear: no error stops a reading */
  pbd_Arena_Reset(c->a, mark);
  return true;
}

static bool hash_message(Ctx *c, pbd_Message *m);

bool pbd_TreeBuild_FinishMessage(Ctx *c, pbd_Message *m, int depth) {
  if (!m->building_) return true;
  if (m->unread_) return pbd_TreeBuild_FinishUnread(c, m);
  Builder *b = m->builder_;
  /* Known fields in number order (def order is number order).  Writers
   * usually write fields in number order, so check before sorting. */
  bool sorted = true;
  for (uint32_t i = 1; i < b->nfields && sorted; i++)
    sorted = b->fields[i - 1].f.def->index < b->fields[i].f.def->index;
  if (!sorted && b->nfields <= 16) { /* few fields: insertion sort */
    for (uint32_t i = 1; i < b->nfields; i++) {
      FieldBuild t = b->fields[i];
      uint32_t j = i;
      for (; j > 0 && b->fields[j - 1].f.def->index > t.f.def->index; j--)
        b->fields[j] = b->fields[j - 1];
      b->fields[j] = t;
    }
  } else if (!sorted) {
    qsort(b->fields, b->nfields, sizeof *b->fields, compare_field_index);
  }
  /* Map entries keep no unknown fields, as protobuf runtimes parse them. */
  if (m->def && m->def->is_map_entry) b->nunk = 0;
  uint32_t nunk_groups = 0;
  if (b->nunk) {
    UnknownOcc *tmp = pbd_Arena_Malloc(c->scratch, sizeof(UnknownOcc) * b->nunk);
    if (!tmp) return oom(c);
    sort_unknown(b->unk, tmp, b->nunk);
    for (uint32_t i = 0; i < b->nunk; i++)
      if (i == 0 || b->unk[i].number != b->unk[i - 1].number) nunk_groups++;
  }
  pbd_Field *out = pbd_Arena_Malloc(c->a, sizeof(pbd_Field) * (b->nfields + nunk_groups));
  pbd_UnknownValue *uvals = b->nunk ? pbd_Arena_Malloc(c->a, sizeof *uvals * b->nunk) : NULL;
  if (!out || (b->nunk && !uvals)) return oom(c);
  uint32_t n = 0, ui = 0, fi = 0;
  m->building_ = false; /* children see a finished parent from here on */
  m->builder_ = NULL;
  while (fi < b->nfields || ui < b->nunk) {
    bool take_known = fi < b->nfields && (ui >= b->nunk || b->fields[fi].f.number <= b->unk[ui].number);
    if (take_known) {
      pbd_Field *f = &b->fields[fi++].f;
      if (f->count == 0) continue; /* a cleared oneof member */
      if (f->kind == kPbd_Value_Message) {
        for (uint32_t i = 0; i < f->count; i++) {
          if (!pbd_TreeBuild_FinishMessage(c, f->v.msgs[i], depth + 1)) {
            prepend_field_path(c, f->def, i);
            return false;
          }
        }
        if (f->def->is_map && !canonicalize_map(c, f)) return false;
      }
      if (drop_as_default(c, m, f)) continue;
      out[n++] = *f;
    } else {
      pbd_Field *f = &out[n++];
      memset(f, 0, sizeof *f);
      f->number = b->unk[ui].number;
      f->v.unknowns = uvals + ui;
      while (ui < b->nunk && b->unk[ui].number == f->number) {
        uvals[ui] = b->unk[ui].v;
        ui++;
        f->count++;
      }
    }
  }
  m->fields_ = out;
  m->field_count_ = n;
  if (!resolve_any(c, m, depth)) return false;
  return hash_message(c, m);
}

/* The hash of a finished message (tree_values.c). */
static bool hash_message(Ctx *c, pbd_Message *m) {
  if (pbd_Tree_HashRecord(m, c->o, c->scratch)) return true;
  return oom(c);
}

/* ---- Public --------------------------------------------------------------- */

Ctx pbd_TreeBuild_NewCtx(const pbd_MessageDef *type, const uint8_t *buf, const pbd_ReadOptions *opts,
                   pbd_Arena *arena, pbd_Status *s) {
  Ctx c = {buf, opts, arena, NULL, s,
           pbd_ReadOptions_MaxDepth(opts), type == NULL,
           opts->pool ? pbd_DefPool_FindMessageByName(opts->pool, "google.protobuf.Any") : NULL,
           NULL};
  return c;
}

pbd_Message *pbd_Tree_Parse(const pbd_MessageDef *type, const uint8_t *buf, size_t begin,
                            size_t end, const pbd_ReadOptions *opts, pbd_Arena *arena,
                            pbd_Status *s) {
  Ctx c = pbd_TreeBuild_NewCtx(type, buf, opts, arena, s);
  c.scratch = pbd_Arena_New();
  if (c.scratch) pbd_Arena_SetBudget(c.scratch, pbd_Arena_Budget(arena)); /* one bound */
  pbd_Message *m = c.scratch ? pbd_TreeBuild_NewMessage(&c, type) : NULL;
  bool ok = m != NULL || oom(&c);
  ok = ok && pbd_TreeBuild_ParseFields(&c, m, buf + begin, buf + end, 0) && pbd_TreeBuild_FinishMessage(&c, m, 0);
  pbd_Arena_Free(c.scratch);
  return ok ? m : NULL;
}
