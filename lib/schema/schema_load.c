/* pbdiff — the descriptor loader's first phase (schema.h, Add): decoding
 * FileDescriptorSet bytes into build records, names copied into the pool's
 * arena, type names kept as written. */
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
/* Decoding descriptor bytes. */

typedef struct {
  pbd_DefPool *pool;
  pbd_Arena *arena;
  const uint8_t *base;   /* start of the whole set: offsets count from here */
  const char *source;    /* names the set in errors */
  pbd_Status *s;
  pbd_FileDef *file;     /* file being decoded */
} Loader;

static size_t load_offset(const Loader *l, const uint8_t *at) { return (size_t)(at - l->base); }

/* Sets a BadSchema (or other) error at `at`, prefixed with the set's name. */
__attribute__((format(printf, 4, 5))) static bool load_fail(Loader *l, const uint8_t *at,
                                                            pbd_StatusCode code,
                                                            const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pbd_Status_SetErrorAt(l->s, code, load_offset(l, at), "%.100s: %s", l->source, msg);
  return false;
}

static bool load_oom(Loader *l) {
  pbd_Status_SetError(l->s, kPbd_Status_OutOfMemory, "%.100s: out of memory loading schema",
                      l->source);
  return false;
}

/* Reads one field; wire errors keep their message and offset but become
 * BadSchema, since here the bytes are a schema, not an input. */
static const uint8_t *load_next(Loader *l, const uint8_t *p, const uint8_t *end,
                                pbd_WireField *f) {
  const uint8_t *q = pbd_Wire_ReadField(p, end, l->base, kPbd_DefaultMaxDepth, f, l->s);
  if (!q) {
    char msg[sizeof l->s->msg];
    memcpy(msg, l->s->msg, sizeof msg);
    pbd_Status_SetErrorAt(l->s, kPbd_Status_BadSchema, l->s->offset,
                          "%.100s: malformed descriptor: %.380s", l->source, msg);
    return NULL;
  }
  if (f->wire_type == kPbd_WireType_EndGroup) {
    load_fail(l, f->start, kPbd_Status_BadSchema,
              "malformed descriptor: end group %u without a start group", f->number);
    return NULL;
  }
  return q;
}

static void *load_alloc(Loader *l, size_t n, size_t size) {
  if (size && n > SIZE_MAX / 4 / size) {
    load_oom(l);
    return NULL;
  }
  size_t bytes = n * size;
  void *p = pbd_Arena_Calloc(l->arena, bytes ? bytes : 1);
  if (!p) load_oom(l);
  return p;
}

/* Copies a LEN field's payload as a NUL-terminated string.  Names must not
 * contain NUL: they are used as C strings. */
static const char *load_name(Loader *l, const pbd_WireField *f, const char *what) {
  if (memchr(f->data, 0, f->size)) {
    load_fail(l, f->start, kPbd_Status_BadSchema, "%s contains a NUL byte", what);
    return NULL;
  }
  char *p = pbd_Arena_Strndup(l->arena, (const char *)f->data, f->size);
  if (!p) load_oom(l);
  return p;
}

/* prefix + "." + name, or name alone at the top level. */
static const char *load_join(Loader *l, const char *prefix, const char *name) {
  size_t pl = strlen(prefix), nl = strlen(name);
  char *p = pbd_Arena_Malloc(l->arena, pl + nl + 2);
  if (!p) {
    load_oom(l);
    return NULL;
  }
  if (pl) {
    memcpy(p, prefix, pl);
    p[pl++] = '.';
  }
  memcpy(p + pl, name, nl + 1);
  return p;
}

static bool is_varint(const pbd_WireField *f) { return f->wire_type == kPbd_WireType_Varint; }
static bool is_len(const pbd_WireField *f) { return f->wire_type == kPbd_WireType_Delimited; }

/* Reads one bool field out of an options message (last value wins; fields
 * of a repeated options occurrence merge, which for a bool is the same). */
static bool load_option_bool(Loader *l, const pbd_WireField *of, uint32_t number, bool *set,
                             bool *value) {
  const uint8_t *p = of->data, *end = p + of->size;
  while (p < end) {
    pbd_WireField f;
    if (!(p = load_next(l, p, end, &f))) return false;
    if (f.number == number && is_varint(&f)) {
      *set = true;
      *value = f.value != 0;
    }
  }
  return true;
}

/* FieldDescriptorProto, for a field (parent set) or an extension. */
static bool load_field(Loader *l, const pbd_WireField *ff, FieldB *fb, const char *scope,
                       MsgB *parent) {
  const uint8_t *p = ff->data, *end = p + ff->size;
  fb->file = l->file;
  fb->scope = scope;
  fb->parent = parent;
  fb->oneof_index = -1;
  fb->offset = load_offset(l, ff->start);
  fb->def.label = kPbd_Label_Optional; /* proto2's default when absent */
  bool has_number = false;
  while (p < end) {
    pbd_WireField f;
    if (!(p = load_next(l, p, end, &f))) return false;
    switch (f.number) {
      case 1:
        if (is_len(&f) && !(fb->def.name = load_name(l, &f, "field name"))) return false;
        break;
      case 2:
        if (is_len(&f) && !(fb->extendee = load_name(l, &f, "extendee"))) return false;
        break;
      case 3:
        if (is_varint(&f)) {
          int32_t n = (int32_t)(uint32_t)f.value;
          if (n < 1 || n > kPbd_MaxFieldNumber)
            return load_fail(l, f.start, kPbd_Status_BadSchema, "invalid field number %d", n);
          fb->def.number = (uint32_t)n;
          has_number = true;
        }
        break;
      case 4:
        if (is_varint(&f)) {
          if (f.value < kPbd_Label_Optional || f.value > kPbd_Label_Repeated)
            return load_fail(l, f.start, kPbd_Status_BadSchema, "invalid field label %llu",
                             (unsigned long long)f.value);
          fb->def.label = (pbd_Label)f.value;
        }
        break;
      case 5:
        if (is_varint(&f)) {
          if (f.value < kPbd_Type_Double || f.value > kPbd_Type_SInt64)
            return load_fail(l, f.start, kPbd_Status_BadSchema, "invalid field type %llu",
                             (unsigned long long)f.value);
          fb->def.type = (pbd_FieldType)f.value;
          fb->has_type = true;
        }
        break;
      case 6:
        if (is_len(&f) && !(fb->type_name = load_name(l, &f, "type name"))) return false;
        break;
      case 7:
        if (is_len(&f)) {
          /* NUL-terminated too, for strtod and friends; the size says
           * where a string default really ends. */
          char *d = pbd_Arena_Strndup(l->arena, (const char *)f.data, f.size);
          if (!d) return load_oom(l);
          fb->default_str.data = d;
          fb->default_str.size = f.size;
          fb->def.has_default = true;
        }
        break;
      case 8:
        if (is_len(&f) && !load_option_bool(l, &f, 2, &fb->packed_set, &fb->packed))
          return false;
        break;
      case 9:
        if (is_varint(&f)) {
          int32_t i = (int32_t)(uint32_t)f.value;
          if (i < 0)
            return load_fail(l, f.start, kPbd_Status_BadSchema, "invalid oneof index %d", i);
          fb->oneof_index = i;
        }
        break;
      case 10:
        if (is_len(&f) && !(fb->def.json_name = load_name(l, &f, "json name"))) return false;
        break;
      case 17:
        if (is_varint(&f)) fb->def.proto3_optional = f.value != 0;
        break;
      default:
        break;
    }
  }
  if (!fb->def.name || !fb->def.name[0])
    return load_fail(l, ff->start, kPbd_Status_BadSchema, "field without a name in %s",
                     scope[0] ? scope : l->file->name);
  if (!(fb->def.full_name = load_join(l, scope, fb->def.name))) return false;
  if (!has_number)
    return load_fail(l, ff->start, kPbd_Status_BadSchema, "field %s has no number",
                     fb->def.full_name);
  if (!fb->has_type && !fb->type_name)
    return load_fail(l, ff->start, kPbd_Status_BadSchema, "field %s has no type",
                     fb->def.full_name);
  if (!fb->def.json_name) {
    /* protoc always writes json_name; this is its rule for when it
     * does not: drop underscores, capitalise the letter after one. */
    const char *n = fb->def.name;
    char *j = pbd_Arena_Malloc(l->arena, strlen(n) + 1), *o = j;
    if (!j) return load_oom(l);
    bool upper = false;
    for (; *n; n++) {
      if (*n == '_') {
        upper = true;
      } else {
        *o++ = upper && *n >= 'a' && *n <= 'z' ? (char)(*n - 'a' + 'A') : *n;
        upper = false;
      }
    }
    *o = '\0';
    fb->def.json_name = j;
  }
  fb->def.is_repeated = fb->def.label == kPbd_Label_Repeated;
  return true;
}

/* An extension declared at file level (scope = package) or inside a
 * message (scope = that message's full name). */
static bool load_extension(Loader *l, const pbd_WireField *ef, const char *scope) {
  FieldB *fb = load_alloc(l, 1, sizeof *fb);
  if (!fb || !load_field(l, ef, fb, scope, NULL)) return false;
  if (!fb->extendee || !fb->extendee[0])
    return load_fail(l, ef->start, kPbd_Status_BadSchema, "extension %s has no extendee",
                     fb->def.full_name);
  fb->def.is_extension = true;
  if (!Vec_Push(&l->pool->exts, fb)) return load_oom(l);
  return true;
}

static int cmp_enum_value(const void *a, const void *b) {
  const pbd_EnumValueDef *x = *(const pbd_EnumValueDef *const *)a;
  const pbd_EnumValueDef *y = *(const pbd_EnumValueDef *const *)b;
  if (x->number != y->number) return x->number < y->number ? -1 : 1;
  /* Equal numbers (allow_alias): declaration order, which is array order. */
  return x < y ? -1 : x > y;
}

/* EnumDescriptorProto. */
static bool load_enum(Loader *l, const pbd_WireField *ef, const char *scope) {
  const uint8_t *p, *end = ef->data + ef->size;
  const char *name = NULL;
  uint32_t nvalues = 0;
  for (p = ef->data; p < end;) {
    pbd_WireField f;
    if (!(p = load_next(l, p, end, &f))) return false;
    if (f.number == 1 && is_len(&f) && !(name = load_name(l, &f, "enum name"))) return false;
    if (f.number == 2 && is_len(&f)) nvalues++;
  }
  if (!name || !name[0])
    return load_fail(l, ef->start, kPbd_Status_BadSchema, "enum without a name in %s",
                     scope[0] ? scope : l->file->name);
  pbd_EnumDef *e = load_alloc(l, 1, sizeof *e);
  if (!e || !(e->full_name = load_join(l, scope, name))) return false;
  if (nvalues == 0)
    return load_fail(l, ef->start, kPbd_Status_BadSchema, "enum %s has no values",
                     e->full_name);
  pbd_EnumValueDef *values = load_alloc(l, nvalues, sizeof *values);
  const pbd_EnumValueDef **by_number = load_alloc(l, nvalues, sizeof *by_number);
  if (!values || !by_number) return false;
  uint32_t i = 0;
  for (p = ef->data; p < end;) {
    pbd_WireField f;
    p = load_next(l, p, end, &f); /* cannot fail: the first pass read it */
    if (f.number != 2 || !is_len(&f)) continue;
    pbd_EnumValueDef *v = &values[i];
    for (const uint8_t *q = f.data, *qend = f.data + f.size; q < qend;) {
      pbd_WireField g;
      if (!(q = load_next(l, q, qend, &g))) return false;
      if (g.number == 1 && is_len(&g) && !(v->name = load_name(l, &g, "enum value name")))
        return false;
      if (g.number == 2 && is_varint(&g)) v->number = (int32_t)(uint32_t)g.value;
    }
    if (!v->name || !v->name[0])
      return load_fail(l, f.start, kPbd_Status_BadSchema, "value without a name in enum %s",
                       e->full_name);
    by_number[i] = v;
    i++;
  }
  qsort(by_number, nvalues, sizeof *by_number, cmp_enum_value);
  e->file = l->file;
  e->is_closed = l->file->syntax == kPbd_Syntax_Proto2;
  e->values = values;
  e->value_count = nvalues;
  e->by_number = by_number;
  e->dense_ = true;
  for (uint32_t k = 0; k < nvalues && e->dense_; k++) e->dense_ = by_number[k]->number == (int32_t)k;
  if (!Vec_Push(&l->pool->enums, e)) return load_oom(l);
  return true;
}

/* DescriptorProto.  Nested types recurse; the depth is bounded so that
 * hostile bytes cannot exhaust the stack. */
static bool load_message(Loader *l, const pbd_WireField *mf, const char *scope, int depth) {
  if (depth > kPbd_DefaultMaxDepth)
    return load_fail(l, mf->start, kPbd_Status_BadSchema, "messages nested too deep");
  const uint8_t *p, *end = mf->data + mf->size;
  MsgB *m = load_alloc(l, 1, sizeof *m);
  if (!m) return false;
  const char *name = NULL;
  uint32_t nfields = 0, noneofs = 0, nranges = 0;
  bool map_entry_set = false, map_entry = false;
  /* First pass: the name (needed for nested names, whatever the field
   * order), the options and the array sizes. */
  for (p = mf->data; p < end;) {
    pbd_WireField f;
    if (!(p = load_next(l, p, end, &f))) return false;
    if (!is_len(&f)) continue;
    if (f.number == 1 && !(name = load_name(l, &f, "message name"))) return false;
    if (f.number == 2) nfields++;
    if (f.number == 7 && !load_option_bool(l, &f, 7, &map_entry_set, &map_entry)) return false;
    if (f.number == 8) noneofs++;
    if (f.number == 5) nranges++;
  }
  if (!name || !name[0])
    return load_fail(l, mf->start, kPbd_Status_BadSchema, "message without a name in %s",
                     scope[0] ? scope : l->file->name);
  const char *full = load_join(l, scope, name);
  if (!full) return false;
  m->def.full_name = full;
  m->def.name = name;
  m->def.file = l->file;
  m->def.is_map_entry = map_entry;
  m->own_count = nfields;
  m->oneof_decl_count = noneofs;
  if (!(m->own = load_alloc(l, nfields, sizeof *m->own))) return false;
  if (!(m->oneof_names = load_alloc(l, noneofs, sizeof *m->oneof_names))) return false;
  pbd_ExtensionRange *ranges = load_alloc(l, nranges, sizeof *ranges);
  if (!ranges) return false;
  m->def.extension_ranges = ranges;
  if (!Vec_Push(&l->pool->msgs, m)) return load_oom(l);
  uint32_t nf = 0, no = 0;
  for (p = mf->data; p < end;) {
    pbd_WireField f;
    p = load_next(l, p, end, &f); /* cannot fail: the first pass read it */
    if (!is_len(&f)) continue;
    switch (f.number) {
      case 2:
        m->own[nf].seq = nf;
        if (!load_field(l, &f, &m->own[nf], full, m)) return false;
        nf++;
        break;
      case 3:
        if (!load_message(l, &f, full, depth + 1)) return false;
        break;
      case 4:
        if (!load_enum(l, &f, full)) return false;
        break;
      case 5: { /* ExtensionRange: start (1), end (2, exclusive) */
        pbd_ExtensionRange r = {0, 0};
        for (const uint8_t *q = f.data, *qend = f.data + f.size; q < qend;) {
          pbd_WireField g;
          if (!(q = load_next(l, q, qend, &g))) return false;
          if (g.number == 1 && is_varint(&g)) r.start = (uint32_t)g.value;
          if (g.number == 2 && is_varint(&g)) r.end = (uint32_t)g.value;
        }
        ranges[m->def.extension_range_count++] = r;
        break;
      }
      case 6:
        if (!load_extension(l, &f, full)) return false;
        break;
      case 8: {
        const char *oname = NULL;
        for (const uint8_t *q = f.data, *qend = f.data + f.size; q < qend;) {
          pbd_WireField g;
          if (!(q = load_next(l, q, qend, &g))) return false;
          if (g.number == 1 && is_len(&g) && !(oname = load_name(l, &g, "oneof name")))
            return false;
        }
        if (!oname || !oname[0])
          return load_fail(l, f.start, kPbd_Status_BadSchema, "oneof without a name in %s",
                           full);
        m->oneof_names[no++] = oname;
        break;
      }
      default:
        break;
    }
  }
  return true;
}

static const pbd_FileDef *pool_file(const pbd_DefPool *pool, const char *name, size_t n) {
  for (size_t i = 0; i < pool->files.len; i++) {
    const pbd_FileDef *f = pool->files.data[i];
    if (strlen(f->name) == n && memcmp(f->name, name, n) == 0) return f;
  }
  return NULL;
}

/* FileDescriptorProto. */
static bool load_file(Loader *l, const pbd_WireField *ff) {
  const uint8_t *p, *end = ff->data + ff->size;
  const pbd_WireField *name = NULL, *package = NULL, *syntax = NULL;
  pbd_WireField fname, fpackage, fsyntax;
  /* First pass: name, package and syntax, which the rest depends on. */
  for (p = ff->data; p < end;) {
    pbd_WireField f;
    if (!(p = load_next(l, p, end, &f))) return false;
    if (!is_len(&f)) continue;
    if (f.number == 1) fname = f, name = &fname;
    if (f.number == 2) fpackage = f, package = &fpackage;
    if (f.number == 12) fsyntax = f, syntax = &fsyntax;
  }
  if (!name || name->size == 0)
    return load_fail(l, ff->start, kPbd_Status_BadSchema, "file without a name");
  /* Sets that share imports (descriptor.proto...) load side by side: the
   * same file twice is one file; two different files of one name are an
   * error (one of them would be silently ignored) */
  uint64_t content = XXH3_64bits(ff->data, ff->size);
  const pbd_FileDef *seen = pool_file(l->pool, (const char *)name->data, name->size);
  if (seen && seen->content_hash_ == content) return true;
  if (seen)
    return load_fail(l, ff->start, kPbd_Status_BadSchema,
                     "two different files named %.200s (load one version of it)", seen->name);
  pbd_FileDef *file = load_alloc(l, 1, sizeof *file);
  if (!file || !(file->name = load_name(l, name, "file name"))) return false;
  file->package = "";
  file->content_hash_ = content;
  if (package && !(file->package = load_name(l, package, "package name"))) return false;
  file->syntax = kPbd_Syntax_Proto2;
  if (syntax) {
    const char *sx = load_name(l, syntax, "syntax");
    if (!sx) return false;
    if (strcmp(sx, "proto3") == 0) {
      file->syntax = kPbd_Syntax_Proto3;
    } else if (strcmp(sx, "editions") == 0) {
      return load_fail(l, syntax->start, kPbd_Status_BadSchema,
                       "%s: editions are not supported", file->name);
    } else if (sx[0] && strcmp(sx, "proto2") != 0) {
      return load_fail(l, syntax->start, kPbd_Status_BadSchema, "%s: unknown syntax \"%.40s\"",
                       file->name, sx);
    }
  }
  l->file = file;
  if (!Vec_Push(&l->pool->files, file)) return load_oom(l);
  for (p = ff->data; p < end;) {
    pbd_WireField f;
    p = load_next(l, p, end, &f); /* cannot fail: the first pass read it */
    if (!is_len(&f)) continue;
    bool ok = true;
    if (f.number == 4) ok = load_message(l, &f, file->package, 1);
    if (f.number == 5) ok = load_enum(l, &f, file->package);
    if (f.number == 7) ok = load_extension(l, &f, file->package);
    if (!ok) return false;
  }
  return true;
}

bool pbd_DefPool_AddFileDescriptorSet(pbd_DefPool *pool, const uint8_t *data, size_t size,
                                      const char *source_name, pbd_Status *s) {
  pbd_Status dummy;
  if (!s) s = &dummy;
  Loader l = {pool, pool->arena, data, source_name ? source_name : "descriptor set", s, NULL};
  if (pool->finalized) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "%.100s: schema pool is already finalized",
                        l.source);
    return false;
  }
  /* A failed Add leaves the pool as it was (the arena keeps some garbage). */
  size_t nfiles = pool->files.len, nmsgs = pool->msgs.len, nenums = pool->enums.len,
         nexts = pool->exts.len;
  static const uint8_t kEmpty[1];
  const uint8_t *p = data ? data : kEmpty, *end = p + (data ? size : 0);
  l.base = p;
  bool ok = true;
  while (ok && p < end) {
    pbd_WireField f;
    if (!(p = load_next(&l, p, end, &f))) {
      ok = false;
    } else if (f.number == 1 && is_len(&f)) {
      ok = load_file(&l, &f);
    }
  }
  if (ok) { /* kept whole: FileDescriptorSets concatenated are one */
    pbd_Buf_Append(&pool->sets, (const char *)(data ? data : kEmpty), data ? size : 0);
    if (pool->sets.oom) ok = pbd_SchemaPool_Oom(s);
  }
  if (!ok) {
    pool->files.len = nfiles;
    pool->msgs.len = nmsgs;
    pool->enums.len = nenums;
    pool->exts.len = nexts;
  }
  return ok;
}
