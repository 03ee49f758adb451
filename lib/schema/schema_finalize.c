/* pbdiff — the descriptor loader's second phase (schema.h, Finalize): the
 * symbol table, type names and extendees resolved, extensions merged into
 * their extendees, fields sorted, derived flags and default values. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "pbdiff/core/arena.h"
#include "schema/schema_pool.h"
#include "pbdiff/wire/wire.h"

/* ------------------------------------------------------------------------ */
/* Finalize. */

static uint64_t sym_hash(const char *key, size_t n) { return XXH3_64bits(key, n); }

const Sym *pbd_SchemaPool_FindSym(const pbd_DefPool *pool, const char *key, size_t n) {
  if (!pool->table) return NULL;
  uint64_t h = sym_hash(key, n);
  size_t mask = pool->table_cap - 1;
  for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
    const Sym *e = &pool->table[i];
    if (!e->key) return NULL;
    if (e->hash == h && strncmp(e->key, key, n) == 0 && e->key[n] == '\0') return e;
  }
}

static const char *sym_file(const Sym *e) {
  switch (e->kind) {
    case kSym_Message: return ((const MsgB *)e->def)->def.file->name;
    case kSym_Enum: return ((const pbd_EnumDef *)e->def)->file->name;
    default: return ((const FieldB *)e->def)->file->name;
  }
}

static bool sym_insert(pbd_DefPool *pool, const char *key, int kind, void *def, pbd_Status *s) {
  size_t n = strlen(key);
  uint64_t h = sym_hash(key, n);
  size_t mask = pool->table_cap - 1;
  size_t i = (size_t)h & mask;
  for (; pool->table[i].key; i = (i + 1) & mask) {
    Sym *e = &pool->table[i];
    if (e->hash == h && strcmp(e->key, key) == 0) {
      Sym fresh = {key, h, kind, def};
      pbd_Status_SetError(s, kPbd_Status_BadSchema, "duplicate name %.200s (in %.100s and %.100s)",
                          key, sym_file(e), sym_file(&fresh));
      return false;
    }
  }
  pool->table[i] = (Sym){key, h, kind, def};
  return true;
}

static bool build_table(pbd_DefPool *pool, pbd_Status *s) {
  size_t total = pool->msgs.len + pool->enums.len + pool->exts.len;
  for (size_t i = 0; i < pool->msgs.len; i++) total += ((MsgB *)pool->msgs.data[i])->own_count;
  size_t cap = 16;
  while (cap < total * 2) {
    if (cap > SIZE_MAX / 2 / sizeof(Sym)) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory building schema");
      return false;
    }
    cap *= 2;
  }
  free(pool->table);
  pool->table = calloc(cap, sizeof *pool->table);
  pool->table_cap = cap;
  if (!pool->table) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory building schema");
    return false;
  }
  for (size_t i = 0; i < pool->msgs.len; i++) {
    MsgB *m = pool->msgs.data[i];
    if (!sym_insert(pool, m->def.full_name, kSym_Message, m, s)) return false;
    for (uint32_t j = 0; j < m->own_count; j++)
      if (!sym_insert(pool, m->own[j].def.full_name, kSym_Field, &m->own[j], s)) return false;
  }
  for (size_t i = 0; i < pool->enums.len; i++) {
    pbd_EnumDef *e = pool->enums.data[i];
    if (!sym_insert(pool, e->full_name, kSym_Enum, e, s)) return false;
  }
  for (size_t i = 0; i < pool->exts.len; i++) {
    FieldB *x = pool->exts.data[i];
    if (!sym_insert(pool, x->def.full_name, kSym_Field, x, s)) return false;
  }
  return true;
}

/* Resolves a type name as protoc does: ".a.b.C" is fully qualified; any
 * other name is looked up in the scope, then in each enclosing scope
 * outward (C++ rules, simplified: the first scope where the whole name is a
 * type wins).  `want` is a kSym_ kind, or 0 for message or enum. */
static const Sym *resolve(const pbd_DefPool *pool, const char *scope, const char *name, int want,
                          bool *oom) {
  if (name[0] == '.') {
    const Sym *e = pbd_SchemaPool_FindSym(pool, name + 1, strlen(name + 1));
    if (e && (want ? e->kind == want : e->kind != kSym_Field)) return e;
    return NULL;
  }
  size_t sl = strlen(scope), nl = strlen(name);
  char *buf = malloc(sl + nl + 2);
  if (!buf) {
    *oom = true;
    return NULL;
  }
  const Sym *found = NULL;
  for (;;) {
    size_t k = sl;
    memcpy(buf, scope, sl);
    if (sl) buf[k++] = '.';
    memcpy(buf + k, name, nl);
    const Sym *e = pbd_SchemaPool_FindSym(pool, buf, k + nl);
    if (e && (want ? e->kind == want : e->kind != kSym_Field)) {
      found = e;
      break;
    }
    if (sl == 0) break;
    while (sl > 0 && scope[sl - 1] != '.') sl--;
    if (sl > 0) sl--; /* the dot */
  }
  free(buf);
  return found;
}

bool pbd_SchemaPool_Oom(pbd_Status *s) {
  pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory building schema");
  return false;
}

/* Resolves the field's type name and, for an extension, its extendee. */
static bool resolve_field(pbd_DefPool *pool, FieldB *fb, pbd_Status *s) {
  pbd_FieldDef *d = &fb->def;
  bool oom = false;
  bool wants_name = !fb->has_type || d->type == kPbd_Type_Message ||
                    d->type == kPbd_Type_Group || d->type == kPbd_Type_Enum;
  if (wants_name) {
    if (!fb->type_name || !fb->type_name[0]) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema, "field %.200s has no type name",
                          d->full_name);
      return false;
    }
    int want = !fb->has_type ? 0 : d->type == kPbd_Type_Enum ? kSym_Enum : kSym_Message;
    const Sym *e = resolve(pool, fb->scope, fb->type_name, want, &oom);
    if (oom) return pbd_SchemaPool_Oom(s);
    if (!e) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "field %.200s: cannot resolve type %.200s (%s)", d->full_name,
                          fb->type_name,
                          resolve(pool, fb->scope, fb->type_name, 0, &oom)
                              ? (want == kSym_Enum ? "not an enum" : "not a message")
                              : "not defined");
      return false;
    }
    if (e->kind == kSym_Message) {
      d->message_type = &((MsgB *)e->def)->def;
      if (!fb->has_type) d->type = kPbd_Type_Message;
    } else {
      d->enum_type = e->def;
      if (!fb->has_type) d->type = kPbd_Type_Enum;
    }
  }
  if (d->is_extension) {
    const Sym *e = resolve(pool, fb->scope, fb->extendee, kSym_Message, &oom);
    if (oom) return pbd_SchemaPool_Oom(s);
    if (!e) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "extension %.200s: cannot resolve extendee %.200s", d->full_name,
                          fb->extendee);
      return false;
    }
    MsgB *m = e->def;
    d->containing = &m->def;
    bool in_range = false;
    for (uint32_t i = 0; i < m->def.extension_range_count && !in_range; i++)
      in_range = d->number >= m->def.extension_ranges[i].start &&
                 d->number < m->def.extension_ranges[i].end;
    if (!in_range) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "extension %.200s: number %u is not in an extension range of %.200s",
                          d->full_name, d->number, m->def.full_name);
      return false;
    }
    if (m->ext_count == UINT32_MAX - m->own_count) return pbd_SchemaPool_Oom(s);
    m->ext_count++;
  } else {
    d->containing = &fb->parent->def;
  }
  return true;
}

static int cmp_field(const void *a, const void *b) {
  const FieldB *x = *(const FieldB *const *)a, *y = *(const FieldB *const *)b;
  if (x->def.number != y->def.number) return x->def.number < y->def.number ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *field_label(const pbd_FieldDef *f) {
  return f->is_extension ? f->full_name : f->name;
}

/* Exposes the real oneofs: a oneof all of whose members are proto3
 * `optional` fields is the synthetic one protoc makes for each of them. */
static bool build_oneofs(pbd_DefPool *pool, MsgB *m, pbd_Status *s) {
  uint32_t nd = m->oneof_decl_count;
  for (uint32_t i = 0; i < m->own_count; i++) {
    FieldB *fb = &m->own[i];
    if (fb->oneof_index >= 0 && (uint32_t)fb->oneof_index >= nd) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "field %.200s: oneof index %d out of range (%u oneofs)",
                          fb->def.full_name, fb->oneof_index, nd);
      return false;
    }
  }
  if (nd == 0) return true;
  /* Per declared oneof: member count, whether all are proto3 optional, and
   * its index among the real ones (or -1). */
  uint32_t *count = pbd_Arena_Calloc(pool->arena, nd * sizeof *count);
  bool *synthetic = pbd_Arena_Calloc(pool->arena, nd * sizeof *synthetic);
  int64_t *real = pbd_Arena_Calloc(pool->arena, nd * sizeof *real);
  if (!count || !synthetic || !real) return pbd_SchemaPool_Oom(s);
  for (uint32_t j = 0; j < nd; j++) synthetic[j] = true;
  for (uint32_t i = 0; i < m->own_count; i++) {
    FieldB *fb = &m->own[i];
    if (fb->oneof_index < 0) continue;
    count[fb->oneof_index]++;
    if (!fb->def.proto3_optional) synthetic[fb->oneof_index] = false;
  }
  uint32_t nreal = 0;
  for (uint32_t j = 0; j < nd; j++) {
    if (count[j] == 0) synthetic[j] = false;
    real[j] = synthetic[j] ? -1 : (int64_t)nreal++;
  }
  if (nreal == 0) return true;
  pbd_OneofDef *oneofs = pbd_Arena_Calloc(pool->arena, nreal * sizeof *oneofs);
  if (!oneofs) return pbd_SchemaPool_Oom(s);
  for (uint32_t j = 0; j < nd; j++) {
    if (real[j] < 0) continue;
    pbd_OneofDef *o = &oneofs[real[j]];
    o->name = m->oneof_names[j];
    o->containing = &m->def;
    o->fields = pbd_Arena_Malloc(pool->arena, (count[j] ? count[j] : 1) * sizeof *o->fields);
    if (!o->fields) return pbd_SchemaPool_Oom(s);
  }
  for (uint32_t i = 0; i < m->own_count; i++) { /* declaration order */
    FieldB *fb = &m->own[i];
    if (fb->oneof_index < 0 || real[fb->oneof_index] < 0) continue;
    pbd_OneofDef *o = &oneofs[real[fb->oneof_index]];
    o->fields[o->field_count++] = &fb->def;
    fb->def.oneof = o;
  }
  m->def.oneofs = oneofs;
  m->def.oneof_count = nreal;
  return true;
}

/* Unescapes a bytes default written with C escapes (protoc's CEscape:
 * \n \r \t \" \' \\ and octal \NNN; \xHH and the rest of C's set are
 * accepted too).  Returns false on a bad escape. */
static bool unescape_bytes(pbd_Arena *a, pbd_StrView in, pbd_StrView *out, bool *oom) {
  char *o = pbd_Arena_Malloc(a, in.size + 1);
  if (!o) {
    *oom = true;
    return false;
  }
  size_t n = 0;
  const char *p = in.data, *end = in.data + in.size;
  while (p < end) {
    if (*p != '\\') {
      o[n++] = *p++;
      continue;
    }
    if (++p == end) return false;
    char c = *p++;
    unsigned v;
    switch (c) {
      case 'a': v = '\a'; break;
      case 'b': v = '\b'; break;
      case 'f': v = '\f'; break;
      case 'n': v = '\n'; break;
      case 'r': v = '\r'; break;
      case 't': v = '\t'; break;
      case 'v': v = '\v'; break;
      case '\\': case '\'': case '"': case '?': v = (unsigned char)c; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        v = (unsigned)(c - '0');
        for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++)
          v = v * 8 + (unsigned)(*p++ - '0');
        if (v > 0xff) return false;
        break;
      case 'x': case 'X': {
        int digits = 0;
        v = 0;
        for (; p < end; p++, digits++) {
          int h = *p >= '0' && *p <= '9'   ? *p - '0'
                  : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                  : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                           : -1;
          if (h < 0) break;
          v = v * 16 + (unsigned)h;
          if (v > 0xff) return false;
        }
        if (digits == 0) return false;
        break;
      }
      default:
        return false;
    }
    o[n++] = (char)v;
  }
  o[n] = '\0';
  out->data = o;
  out->size = n;
  return true;
}

/* Parses a whole integer default (decimal, or 0x hex / 0 octal). */
static bool parse_int(const char *t, bool is_signed, int64_t min, int64_t max, uint64_t umax,
                      uint64_t *out) {
  if (!t[0] || t[0] == ' ' || (t[0] >= '\t' && t[0] <= '\r')) return false;
  char *end;
  errno = 0;
  if (is_signed) {
    long long v = strtoll(t, &end, 0);
    if (errno || *end || v < min || v > max) return false;
    *out = (uint64_t)(int64_t)v;
  } else {
    if (t[0] == '-') return false;
    unsigned long long v = strtoull(t, &end, 0);
    if (errno || *end || v > umax) return false;
    *out = (uint64_t)v;
  }
  return true;
}

/* The canonical unset value (see pbd_DefaultValue). */
static bool field_default(pbd_DefPool *pool, FieldB *fb, pbd_Status *s) {
  pbd_FieldDef *d = &fb->def;
  pbd_DefaultValue *dv = &d->default_value;
  dv->s.data = "";
  if (!d->has_default) {
    if (d->type == kPbd_Type_Enum) dv->u = (uint64_t)(int64_t)d->enum_type->values[0].number;
    return true;
  }
  pbd_StrView t = fb->default_str;
  bool ok = true, oom = false;
  if (strlen(t.data) != t.size && d->type != kPbd_Type_String && d->type != kPbd_Type_Bytes)
    ok = false; /* a NUL inside a number or name */
  else switch (d->type) {
    case kPbd_Type_Int32: case kPbd_Type_SInt32: case kPbd_Type_SFixed32:
      ok = parse_int(t.data, true, INT32_MIN, INT32_MAX, 0, &dv->u);
      break;
    case kPbd_Type_Int64: case kPbd_Type_SInt64: case kPbd_Type_SFixed64:
      ok = parse_int(t.data, true, INT64_MIN, INT64_MAX, 0, &dv->u);
      break;
    case kPbd_Type_UInt32: case kPbd_Type_Fixed32:
      ok = parse_int(t.data, false, 0, 0, UINT32_MAX, &dv->u);
      break;
    case kPbd_Type_UInt64: case kPbd_Type_Fixed64:
      ok = parse_int(t.data, false, 0, 0, UINT64_MAX, &dv->u);
      break;
    case kPbd_Type_Bool:
      if (strcmp(t.data, "true") == 0) dv->u = 1;
      else if (strcmp(t.data, "false") == 0) dv->u = 0;
      else ok = false;
      break;
    case kPbd_Type_Float: {
      char *end;
      float f = strtof(t.data, &end);
      uint32_t bits;
      memcpy(&bits, &f, sizeof bits);
      dv->u = bits;
      ok = t.size > 0 && *end == '\0';
      break;
    }
    case kPbd_Type_Double: {
      char *end;
      double f = strtod(t.data, &end);
      memcpy(&dv->u, &f, sizeof dv->u);
      ok = t.size > 0 && *end == '\0';
      break;
    }
    case kPbd_Type_String:
      dv->s = t;
      break;
    case kPbd_Type_Bytes:
      ok = unescape_bytes(pool->arena, t, &dv->s, &oom);
      break;
    case kPbd_Type_Enum: {
      const pbd_EnumDef *e = d->enum_type;
      ok = false;
      for (uint32_t i = 0; i < e->value_count && !ok; i++) {
        if (strcmp(e->values[i].name, t.data) == 0) {
          dv->u = (uint64_t)(int64_t)e->values[i].number;
          ok = true;
        }
      }
      break;
    }
    case kPbd_Type_Message: case kPbd_Type_Group:
      pbd_Status_SetError(s, kPbd_Status_BadSchema, "field %.200s: a message has no default",
                          d->full_name);
      return false;
  }
  if (oom) return pbd_SchemaPool_Oom(s);
  if (!ok) {
    pbd_Status_SetError(s, kPbd_Status_BadSchema, "field %.200s: bad %s default \"%.100s\"",
                        d->full_name, pbd_FieldType_Name(d->type), t.data);
    return false;
  }
  return true;
}

static bool type_is_packable(pbd_FieldType t) {
  return t != kPbd_Type_String && t != kPbd_Type_Bytes && t != kPbd_Type_Message &&
         t != kPbd_Type_Group;
}

/* pbd_FastKind_ of a field (schema.h). */
static pbd_FastKind_ fast_kind(const pbd_FieldDef *d) {
  if (d->is_map || d->type == kPbd_Type_Group) return kPbd_FastKind_GiveUp;
  int run = d->is_repeated ? kPbd_FastKind_Varints - kPbd_FastKind_Varint : 0;
  pbd_FastKind_ one;
  switch (d->wire_type_) {
    case kPbd_WireType_Varint: one = kPbd_FastKind_Varint; break;
    case kPbd_WireType_Fixed64: one = kPbd_FastKind_Fixed64; break;
    case kPbd_WireType_Fixed32: one = kPbd_FastKind_Fixed32; break;
    default: one = d->type == kPbd_Type_Message ? kPbd_FastKind_Message : kPbd_FastKind_Str;
  }
  return (pbd_FastKind_)(one + run);
}

/* Derived flags; needs types resolved and oneofs built. */
static bool finish_field(pbd_DefPool *pool, FieldB *fb, pbd_Status *s) {
  pbd_FieldDef *d = &fb->def;
  bool proto3 = fb->file->syntax == kPbd_Syntax_Proto3;
  bool is_msg = d->type == kPbd_Type_Message || d->type == kPbd_Type_Group;
  if (d->is_extension && fb->oneof_index >= 0) {
    pbd_Status_SetError(s, kPbd_Status_BadSchema, "extension %.200s cannot be in a oneof",
                        d->full_name);
    return false;
  }
  d->has_presence = !d->is_repeated && (!proto3 || d->proto3_optional || is_msg ||
                                        d->oneof != NULL || d->is_extension);
  d->is_packable = d->is_repeated && type_is_packable(d->type);
  d->is_packed = d->is_packable && (fb->packed_set ? fb->packed : proto3);
  d->validate_utf8 = d->type == kPbd_Type_String && proto3;
  d->is_map = d->is_repeated && d->type == kPbd_Type_Message && d->message_type->is_map_entry;
  d->wire_type_ = (uint8_t)pbd_FieldType_WireType(d->type);
  d->closed_enum_ = d->type == kPbd_Type_Enum && d->enum_type && d->enum_type->is_closed;
  d->plain_run_ = !d->is_map && d->type != kPbd_Type_Group && !d->oneof;
  d->fast_kind_ = (uint8_t)fast_kind(d);
  /* The first word of the field's part of a pbh1 record: its number, 1 for
   * a schema field, and with typed_fields its type. pbd_FieldRecordTag
   * (lib/canon/canon_internal.h) reads it from here for every reader. */
  d->record_tag_[0] = (uint64_t)d->number << 8 | 1;
  d->record_tag_[1] = d->record_tag_[0] | (uint64_t)(d->type & 0x1f) << 2;
  return field_default(pool, fb, s);
}

/* protoc's rule for map keys: any integral or string type, singular. */
static bool map_key_type_ok(const pbd_FieldDef *k) {
  switch (k->type) {
    case kPbd_Type_Int32: case kPbd_Type_Int64: case kPbd_Type_UInt32: case kPbd_Type_UInt64:
    case kPbd_Type_SInt32: case kPbd_Type_SInt64: case kPbd_Type_Fixed32:
    case kPbd_Type_Fixed64: case kPbd_Type_SFixed32: case kPbd_Type_SFixed64:
    case kPbd_Type_Bool: case kPbd_Type_String:
      return !k->is_repeated;
    default:
      return false;
  }
}

/* Names as protoc allows them: letters, digits and `_` (`.` between the
 * parts of a full name), so that no name carries control characters into
 * a terminal. */
static bool name_ok(const char *name, pbd_Status *s, const char *what, const char *in) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        *p == '_' || *p == '.')
      continue;
    pbd_Status_SetError(s, kPbd_Status_BadSchema,
                        "%s name %s%s%.*s... is not an identifier (letters, digits, _)", what,
                        in ? in : "", in ? "." : "", (int)((const char *)p - name), name);
    return false;
  }
  return true;
}

static bool finish_message(pbd_DefPool *pool, MsgB *m, pbd_Status *s) {
  pbd_FieldDef **fields = (pbd_FieldDef **)m->def.fields;
  uint32_t n = m->def.field_count;
  qsort(fields, n, sizeof *fields, cmp_field);
  for (uint32_t i = 0; i < n; i++) {
    fields[i]->index = i;
    if (i > 0 && fields[i]->number == fields[i - 1]->number) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "duplicate field number %u in %.200s (%.100s and %.100s)",
                          fields[i]->number, m->def.full_name, field_label(fields[i - 1]),
                          field_label(fields[i]));
      return false;
    }
  }
  /* Dense lookup table while it stays small (numbers up to 4x the field
   * count, plus slack); sparse schemas keep the binary search. */
  uint32_t max = n ? fields[n - 1]->number : 0;
  if (n && max <= 4 * n + 64) {
    const pbd_FieldDef **t = pbd_Arena_Malloc(pool->arena, (max + 1) * sizeof *t);
    if (!t) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    memset(t, 0, (max + 1) * sizeof *t);
    for (uint32_t i = 0; i < n; i++) t[fields[i]->number] = fields[i];
    m->def.by_number = t;
    m->def.by_number_count = max + 1;
  }
  if (m->def.is_map_entry) {
    const pbd_FieldDef *k = pbd_MessageDef_FindFieldByNumber(&m->def, 1);
    const pbd_FieldDef *v = pbd_MessageDef_FindFieldByNumber(&m->def, 2);
    if (!k || !v || k->is_extension || v->is_extension) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "map entry %.200s lacks its key (1) or value (2) field",
                          m->def.full_name);
      return false;
    }
    if (!map_key_type_ok(k) || v->is_repeated) {
      pbd_Status_SetError(s, kPbd_Status_BadSchema,
                          "map entry %.200s: a key must be a single integer, bool or string "
                          "and the value not repeated (as protoc requires)",
                          m->def.full_name);
      return false;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (!name_ok(fields[i]->name, s, "field", m->def.full_name)) return false;
  if (!name_ok(m->def.full_name, s, "message", NULL)) return false;
  return build_oneofs(pool, m, s);
}

bool pbd_DefPool_Finalize(pbd_DefPool *pool, pbd_Status *s) {
  pbd_Status dummy;
  if (!s) s = &dummy;
  if (pool->finalized) return true;
  if (!build_table(pool, s)) return false;
  for (size_t i = 0; i < pool->msgs.len; i++) {
    MsgB *m = pool->msgs.data[i];
    m->ext_count = 0;
    for (uint32_t j = 0; j < m->own_count; j++)
      if (!resolve_field(pool, &m->own[j], s)) return false;
  }
  for (size_t i = 0; i < pool->exts.len; i++)
    if (!resolve_field(pool, pool->exts.data[i], s)) return false;
  /* Every message's field array: its own fields, then the extensions of it
   * in load order (seq keeps that order among equal numbers). */
  for (size_t i = 0; i < pool->msgs.len; i++) {
    MsgB *m = pool->msgs.data[i];
    uint32_t n = m->own_count + m->ext_count;
    const pbd_FieldDef **fields = pbd_Arena_Malloc(pool->arena, (n ? n : 1) * sizeof *fields);
    if (!fields) return pbd_SchemaPool_Oom(s);
    for (uint32_t j = 0; j < m->own_count; j++) fields[j] = &m->own[j].def;
    m->def.fields = fields;
    m->def.field_count = n;
    m->fill = m->own_count;
  }
  for (size_t i = 0; i < pool->exts.len; i++) {
    FieldB *x = pool->exts.data[i];
    MsgB *m = (MsgB *)x->def.containing;
    x->seq = m->fill;
    m->def.fields[m->fill++] = &x->def;
  }
  for (size_t i = 0; i < pool->msgs.len; i++)
    if (!finish_message(pool, pool->msgs.data[i], s)) return false;
  for (size_t i = 0; i < pool->msgs.len; i++) {
    MsgB *m = pool->msgs.data[i];
    for (uint32_t j = 0; j < m->own_count; j++)
      if (!finish_field(pool, &m->own[j], s)) return false;
  }
  for (size_t i = 0; i < pool->exts.len; i++) {
    FieldB *x = pool->exts.data[i];
    if (!finish_field(pool, x, s) || !name_ok(x->def.full_name, s, "extension", NULL))
      return false;
  }
  for (size_t i = 0; i < pool->enums.len; i++) { /* enum values print by name */
    const pbd_EnumDef *e = pool->enums.data[i];
    if (!name_ok(e->full_name, s, "enum", NULL)) return false;
    for (uint32_t k = 0; k < e->value_count; k++)
      if (!name_ok(e->values[k].name, s, "enum value", e->full_name)) return false;
  }
  pool->finalized = true;
  return true;
}
