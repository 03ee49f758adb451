/* pbdiff — the descriptor loader: our own decoder of FileDescriptorSet bytes
 * (upb is not usable on Debian 12, see docs/architecture.md).
 *
 * Loading happens in two phases, like upb's DefBuilder:
 *   Add       decodes descriptor bytes into build records (names copied into
 *             the pool arena, type names kept as written);
 *   Finalize  builds the symbol table, resolves type names and extendees,
 *             merges extensions into their extendees, sorts fields and
 *             computes the derived flags and default values.
 * Finalize runs once after the last Add because an extension, or the type
 * of a field, may be defined in a file that is added later.
 *
 * All defs live in one arena owned by the pool; only the pool's growable
 * lists and the symbol table are malloc'd. */
#include "schema/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "core/arena.h"
#include "wire/wire.h"

/* ------------------------------------------------------------------------ */
/* Build records.  Each embeds its public def as the first member, so that a
 * pointer to the def converts back to the record. */

typedef struct MsgB MsgB;

typedef struct {
  pbd_FieldDef def;
  const pbd_FileDef *file;   /* the file that declares it (for an extension,
                                not the extendee's file) */
  const char *scope;         /* enclosing message or package: relative type
                                names are resolved from here outward */
  const char *type_name;     /* as written, NULL when absent */
  const char *extendee;      /* as written, NULL when absent */
  pbd_StrView default_str;   /* the descriptor's default_value text */
  int32_t oneof_index;       /* -1: none */
  uint32_t seq;              /* tie-break that keeps the sort stable */
  bool has_type, packed_set, packed;
  MsgB *parent;              /* declaring message, NULL for an extension */
  size_t offset;             /* where its descriptor starts, for errors */
} FieldB;

struct MsgB {
  pbd_MessageDef def;
  FieldB *own;               /* declared fields, declaration order */
  uint32_t own_count;
  const char **oneof_names;  /* every oneof_decl, synthetic ones included */
  uint32_t oneof_decl_count;
  uint32_t ext_count;        /* extensions that extend it (Finalize) */
  uint32_t fill;             /* Finalize: next free slot in def.fields */
};

typedef struct {
  void **data;
  size_t len, cap;
} Vec;

static bool Vec_Push(Vec *v, void *p) {
  if (v->len == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(void *)) return false;
    void **d = realloc(v->data, cap * sizeof *d);
    if (!d) return false;
    v->data = d;
    v->cap = cap;
  }
  v->data[v->len++] = p;
  return true;
}

enum { kSym_Message = 1, kSym_Enum = 2, kSym_Field = 3 };

typedef struct {
  const char *key; /* NULL: empty slot */
  uint64_t hash;
  int kind;
  void *def;       /* MsgB*, pbd_EnumDef* or FieldB* */
} Sym;

struct pbd_DefPool {
  pbd_Arena *arena;
  Vec files;     /* pbd_FileDef*, load order */
  Vec msgs;      /* MsgB*, load order (parents before their nested types) */
  Vec enums;     /* pbd_EnumDef* */
  Vec exts;      /* FieldB* of every extension declaration */
  Sym *table;    /* open addressing, linear probing; built by Finalize */
  size_t table_cap;
  bool finalized;
};

/* ------------------------------------------------------------------------ */
/* Pool. */

pbd_DefPool *pbd_DefPool_New(void) {
  pbd_DefPool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->arena = pbd_Arena_New();
  if (!pool->arena) {
    free(pool);
    return NULL;
  }
  return pool;
}

void pbd_DefPool_Free(pbd_DefPool *pool) {
  if (!pool) return;
  free(pool->files.data);
  free(pool->msgs.data);
  free(pool->enums.data);
  free(pool->exts.data);
  free(pool->table);
  pbd_Arena_Free(pool->arena);
  free(pool);
}

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

static bool pool_has_file(const pbd_DefPool *pool, const char *name, size_t n) {
  for (size_t i = 0; i < pool->files.len; i++) {
    const pbd_FileDef *f = pool->files.data[i];
    if (strlen(f->name) == n && memcmp(f->name, name, n) == 0) return true;
  }
  return false;
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
  /* Sets that share imports (descriptor.proto...) load side by side. */
  if (pool_has_file(l->pool, (const char *)name->data, name->size)) return true;
  pbd_FileDef *file = load_alloc(l, 1, sizeof *file);
  if (!file || !(file->name = load_name(l, name, "file name"))) return false;
  file->package = "";
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
  if (!ok) {
    pool->files.len = nfiles;
    pool->msgs.len = nmsgs;
    pool->enums.len = nenums;
    pool->exts.len = nexts;
  }
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Finalize. */

static uint64_t sym_hash(const char *key, size_t n) { return XXH3_64bits(key, n); }

static const Sym *sym_find(const pbd_DefPool *pool, const char *key, size_t n) {
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
    const Sym *e = sym_find(pool, name + 1, strlen(name + 1));
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
    const Sym *e = sym_find(pool, buf, k + nl);
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

static bool finalize_oom(pbd_Status *s) {
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
    if (oom) return finalize_oom(s);
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
    if (oom) return finalize_oom(s);
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
    if (m->ext_count == UINT32_MAX - m->own_count) return finalize_oom(s);
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
  if (!count || !synthetic || !real) return finalize_oom(s);
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
  if (!oneofs) return finalize_oom(s);
  for (uint32_t j = 0; j < nd; j++) {
    if (real[j] < 0) continue;
    pbd_OneofDef *o = &oneofs[real[j]];
    o->name = m->oneof_names[j];
    o->containing = &m->def;
    o->fields = pbd_Arena_Malloc(pool->arena, (count[j] ? count[j] : 1) * sizeof *o->fields);
    if (!o->fields) return finalize_oom(s);
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
  if (oom) return finalize_oom(s);
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
  return field_default(pool, fb, s);
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
  }
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
    if (!fields) return finalize_oom(s);
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
  for (size_t i = 0; i < pool->exts.len; i++)
    if (!finish_field(pool, pool->exts.data[i], s)) return false;
  pool->finalized = true;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Lookups. */

static const void *find_kind(const pbd_DefPool *pool, const char *name, int kind) {
  if (!name) return NULL;
  const Sym *e = sym_find(pool, name, strlen(name));
  return e && e->kind == kind ? e->def : NULL;
}

const pbd_MessageDef *pbd_DefPool_FindMessageByName(const pbd_DefPool *pool,
                                                    const char *full_name) {
  const MsgB *m = find_kind(pool, full_name, kSym_Message);
  return m ? &m->def : NULL;
}

const pbd_EnumDef *pbd_DefPool_FindEnumByName(const pbd_DefPool *pool, const char *full_name) {
  return find_kind(pool, full_name, kSym_Enum);
}

const pbd_FieldDef *pbd_DefPool_FindFieldByFullName(const pbd_DefPool *pool,
                                                    const char *full_name) {
  const FieldB *f = find_kind(pool, full_name, kSym_Field);
  return f ? &f->def : NULL;
}

size_t pbd_DefPool_MessageCount(const pbd_DefPool *pool) { return pool->msgs.len; }

const pbd_MessageDef *pbd_DefPool_Message(const pbd_DefPool *pool, size_t i) {
  return i < pool->msgs.len ? &((const MsgB *)pool->msgs.data[i])->def : NULL;
}

const pbd_FieldDef *pbd_MessageDef_FindFieldByNumber(const pbd_MessageDef *m, uint32_t number) {
  if (number < m->by_number_count) return m->by_number[number];
  size_t lo = 0, hi = m->field_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t n = m->fields[mid]->number;
    if (n == number) return m->fields[mid];
    if (n < number) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const pbd_FieldDef *pbd_MessageDef_FindFieldByName(const pbd_MessageDef *m, const char *name) {
  for (uint32_t i = 0; i < m->field_count; i++) {
    /* Extensions answer to their full name, fields to their short one. */
    const pbd_FieldDef *f = m->fields[i];
    if (strcmp(f->is_extension ? f->full_name : f->name, name) == 0) return f;
  }
  return NULL;
}

const pbd_EnumValueDef *pbd_EnumDef_FindValueByNumber(const pbd_EnumDef *e, int32_t number) {
  size_t lo = 0, hi = e->value_count;
  while (lo < hi) { /* lower bound: the first declared of equal numbers */
    size_t mid = lo + (hi - lo) / 2;
    if (e->by_number[mid]->number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < e->value_count && e->by_number[lo]->number == number ? e->by_number[lo] : NULL;
}

int pbd_FieldType_WireType(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Double: case kPbd_Type_Fixed64: case kPbd_Type_SFixed64:
      return kPbd_WireType_Fixed64;
    case kPbd_Type_Float: case kPbd_Type_Fixed32: case kPbd_Type_SFixed32:
      return kPbd_WireType_Fixed32;
    case kPbd_Type_Int64: case kPbd_Type_UInt64: case kPbd_Type_Int32: case kPbd_Type_Bool:
    case kPbd_Type_UInt32: case kPbd_Type_Enum: case kPbd_Type_SInt32: case kPbd_Type_SInt64:
      return kPbd_WireType_Varint;
    case kPbd_Type_String: case kPbd_Type_Message: case kPbd_Type_Bytes:
      return kPbd_WireType_Delimited;
    case kPbd_Type_Group:
      return kPbd_WireType_StartGroup;
  }
  return -1;
}

const char *pbd_FieldType_Name(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Double: return "double";
    case kPbd_Type_Float: return "float";
    case kPbd_Type_Int64: return "int64";
    case kPbd_Type_UInt64: return "uint64";
    case kPbd_Type_Int32: return "int32";
    case kPbd_Type_Fixed64: return "fixed64";
    case kPbd_Type_Fixed32: return "fixed32";
    case kPbd_Type_Bool: return "bool";
    case kPbd_Type_String: return "string";
    case kPbd_Type_Group: return "group";
    case kPbd_Type_Message: return "message";
    case kPbd_Type_Bytes: return "bytes";
    case kPbd_Type_UInt32: return "uint32";
    case kPbd_Type_Enum: return "enum";
    case kPbd_Type_SFixed32: return "sfixed32";
    case kPbd_Type_SFixed64: return "sfixed64";
    case kPbd_Type_SInt32: return "sint32";
    case kPbd_Type_SInt64: return "sint64";
  }
  return "unknown";
}

/* ------------------------------------------------------------------------ */
/* Running protoc. */

static char *arena_cat(pbd_Arena *a, const char *x, const char *y) {
  size_t xl = strlen(x), yl = strlen(y);
  char *p = pbd_Arena_Malloc(a, xl + yl + 1);
  if (p) {
    memcpy(p, x, xl);
    memcpy(p + xl, y, yl + 1);
  }
  return p;
}

/* Drops "./" prefixes: protoc matches -I directories textually. */
static const char *skip_dot_slash(const char *p) {
  while (p[0] == '.' && p[1] == '/') {
    p += 2;
    while (*p == '/') p++;
  }
  return p;
}

/* Whether protoc would find `proto` (a path on disk) under directory `dir`. */
static bool dir_covers(const char *dir, const char *proto) {
  dir = skip_dot_slash(dir);
  proto = skip_dot_slash(proto);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n == 0 || (n == 1 && dir[0] == '.')) return proto[0] != '/';
  if (n == 1 && dir[0] == '/') return proto[0] == '/';
  return strncmp(dir, proto, n) == 0 && proto[n] == '/';
}

/* Runs argv[0] from PATH without a shell and waits for it.  A failed exec
 * is told apart from a failing program through a close-on-exec pipe. */
static bool run_protoc(char *const argv[], const char *what, pbd_Status *s) {
  int pfd[2];
  if (pipe(pfd) != 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot run protoc: %s", strerror(errno));
    return false;
  }
  fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
  fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(pfd[0]);
    close(pfd[1]);
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot run protoc: %s", strerror(e));
    return false;
  }
  if (pid == 0) {
    close(pfd[0]);
    execvp(argv[0], argv);
    int e = errno;
    if (write(pfd[1], &e, sizeof e) < 0) _exit(127);
    _exit(127);
  }
  close(pfd[1]);
  int exec_errno = 0;
  ssize_t k;
  do k = read(pfd[0], &exec_errno, sizeof exec_errno);
  while (k < 0 && errno == EINTR);
  close(pfd[0]);
  int status;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  if (k == (ssize_t)sizeof exec_errno) {
    if (exec_errno == ENOENT)
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run protoc (install protobuf-compiler)");
    else
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run protoc: %s", strerror(exec_errno));
    return false;
  }
  if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    pbd_Status_SetError(s, kPbd_Status_BadSchema, "protoc failed on %.300s", what);
    return false;
  }
  return true;
}

static uint8_t *read_whole(const char *path, size_t *n, pbd_Status *s) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot read %.300s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  size_t size = (size_t)st.st_size, len = 0;
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) {
    close(fd);
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory reading %.300s", path);
    return NULL;
  }
  while (len < size) {
    ssize_t k = read(fd, buf + len, size - len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot read %.300s: %s", path,
                          k < 0 ? strerror(errno) : "file shrank");
      free(buf);
      close(fd);
      return NULL;
    }
    len += (size_t)k;
  }
  close(fd);
  *n = len;
  return buf;
}

bool pbd_DefPool_AddProtoFiles(pbd_DefPool *pool, const char *const *protos, size_t nprotos,
                               const char *const *include_dirs, size_t ninclude,
                               pbd_Status *s) {
  pbd_Status dummy;
  if (!s) s = &dummy;
  if (nprotos == 0) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "no .proto file given");
    return false;
  }
  /* Every string of the command line lives in a scratch arena. */
  pbd_Arena *a = pbd_Arena_New();
  size_t max = 5 + ninclude + 2 * nprotos + 1;
  char **argv = a && max < SIZE_MAX / sizeof(char *) ? pbd_Arena_Malloc(a, max * sizeof *argv)
                                                      : NULL;
  const char **dirs = argv ? pbd_Arena_Malloc(a, (ninclude + nprotos + 2) * sizeof *dirs) : NULL;
  if (!dirs) {
    pbd_Arena_Free(a);
    return finalize_oom(s);
  }
  size_t argc = 0, ndirs = 0;
  bool ok = true;
  argv[argc++] = "protoc";
  argv[argc++] = "--include_imports";
  for (size_t i = 0; i < ninclude; i++) {
    dirs[ndirs++] = include_dirs[i];
    ok = ok && (argv[argc++] = arena_cat(a, "-I", include_dirs[i]));
  }
  dirs[ndirs++] = "/usr/include";
  /* protoc refuses an input outside every -I; give such a file its own
   * directory (only when it exists: else it may name a file relative to
   * an -I, which protoc also accepts). */
  for (size_t i = 0; ok && i < nprotos; i++) {
    bool covered = false;
    for (size_t j = 0; j < ndirs && !covered; j++) covered = dir_covers(dirs[j], protos[i]);
    if (covered || access(protos[i], F_OK) != 0) continue;
    const char *slash = strrchr(protos[i], '/');
    char *dir = !slash                ? pbd_Arena_Strndup(a, ".", 1)
                : slash == protos[i] ? pbd_Arena_Strndup(a, "/", 1)
                                      : pbd_Arena_Strndup(a, protos[i],
                                                          (size_t)(slash - protos[i]));
    ok = dir && (argv[argc++] = arena_cat(a, "-I", dir));
    dirs[ndirs++] = dir;
  }
  argv[argc++] = "-I/usr/include";
  const char *tmpdir = getenv("TMPDIR");
  char *tmp = arena_cat(a, tmpdir && *tmpdir ? tmpdir : "/tmp", "/pbdiff-protoc-XXXXXX");
  char *oarg = NULL;
  char *what = pbd_Arena_Calloc(a, 320);
  if (!ok || !tmp || !what) {
    pbd_Arena_Free(a);
    return finalize_oom(s);
  }
  for (size_t i = 0; i < nprotos; i++) {
    size_t used = strlen(what);
    snprintf(what + used, 320 - used, "%s%s", i ? ", " : "", protos[i]);
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot create a temporary file in %.300s: %s",
                        tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    pbd_Arena_Free(a);
    return false;
  }
  close(fd);
  ok = (oarg = arena_cat(a, "-o", tmp)) != NULL;
  if (ok) {
    argv[argc++] = oarg;
    for (size_t i = 0; i < nprotos; i++) argv[argc++] = (char *)protos[i];
    argv[argc] = NULL;
    ok = run_protoc(argv, what, s);
  } else {
    finalize_oom(s);
  }
  size_t n = 0;
  uint8_t *data = ok ? read_whole(tmp, &n, s) : NULL;
  unlink(tmp);
  if (data) ok = pbd_DefPool_AddFileDescriptorSet(pool, data, n, what, s);
  else ok = false;
  free(data);
  pbd_Arena_Free(a);
  return ok;
}

void pbd_FieldDef_PrependPath(const pbd_FieldDef *fd, uint32_t number, uint32_t index,
                              pbd_Status *s) {
  char seg[32];
  if (!s) return;
  if (!fd) {
    snprintf(seg, sizeof seg, "%u", number);
    pbd_Status_PrependPath(s, seg);
    return;
  }
  if (fd->is_repeated && !fd->is_map) {
    snprintf(seg, sizeof seg, "[%u]", index);
    pbd_Status_PrependPath(s, seg);
  }
  if (fd->is_extension) {
    char ext[512];
    snprintf(ext, sizeof ext, "[%s]", fd->full_name);
    pbd_Status_PrependPath(s, ext);
  } else {
    pbd_Status_PrependPath(s, fd->name);
  }
}
