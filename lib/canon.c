/* pbdiff — the canonical hash pass (canon.h).
 *
 * hash_message reads the parts of one message and keeps, per present field,
 * a Slot in scratch memory: the last value of a singular scalar or string,
 * the byte ranges of a singular message (merged when its parent ends: later
 * parts may still come, rule 3), the record bytes of a repeated field's
 * values (each element message hashed as soon as its bytes end: nothing can
 * merge into it), a map's (key, entry hash) pairs, or, past 64 values, a
 * running digest of a repeated scalar.  When the parts are read, the slots
 * are put in field-number order and written as the pbh1 record of
 * docs/hash.md, which is hashed; the scratch memory of the message is then
 * released.  So memory is one message level per nesting level, whatever
 * the size of the input. */
#include "canon.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "arena.h"
#include "canon_internal.h"
#include "wire.h"

/* A growing byte array in scratch memory. */
typedef struct {
  uint8_t *p;
  size_t n, cap;
} Bytes;

typedef struct {
  pbd_Value key;
  pbd_Hash128 hash;
} Entry;

enum { kChunkScalars = 256 };

/* One present field of the message being read.  What it holds depends on
 * the field: the union's member is chosen by `shape`. */
typedef enum {
  kShape_Scalar,    /* singular scalar: scalar */
  kShape_Str,       /* singular string or bytes: str */
  kShape_Message,   /* singular message or group: parts, then child */
  kShape_Scalars,   /* repeated scalars: vals, digest */
  kShape_Record,    /* repeated strings or messages, unknown values: rec */
  kShape_Map,       /* map entries: entries */
} Shape;

typedef struct {
  uint32_t number;
  uint32_t count;          /* values (singular: 0 or 1) */
  const pbd_FieldDef *fd;  /* NULL: the unknown fields of this number */
  uint8_t shape;           /* Shape */
  uint8_t kind;            /* pbd_ValueKind of a known field */
  bool has_varint;         /* unknown values: one of them is a varint */
  bool child_empty;        /* singular message, when finished */
  union {
    uint64_t scalar;
    pbd_StrView str;
    struct {
      pbd_Part *parts;
      uint32_t nparts, capparts;
      pbd_Hash128 child;
    };
    Bytes rec;
    struct {
      uint64_t *vals;      /* canonical slots not yet digested */
      XXH3_state_t *digest;/* past kPbd_InlineScalars values */
      uint32_t nvals;
    };
    struct {
      Entry *entries;      /* map entries as they came */
      uint32_t nentries, capentries;
    };
  };
} Slot;

/* The slots of the messages at one nesting level, kept from one message to
 * the next (most messages at a level are of one type). */
typedef struct {
  Slot *slots;
  uint32_t capslots;
  uint32_t *slot_of;       /* field index -> slot index + 1; zero between messages */
  uint32_t cap_slot_of;
} Frame;

typedef struct {
  const pbd_MessageDef *def;
  int depth;
  Frame *frame;
  uint32_t *slot_of;       /* known fields: def->field_count, index + 1 into slots */
  Slot *slots;
  uint32_t nslots;
  uint32_t last_unknown;   /* index + 1 of the last unknown slot used */
  uint32_t *unk_table;     /* number -> index + 1, when many unknown numbers */
  uint32_t unk_mask;
} Msg;

typedef struct {
  pbd_Hash128 hash;
  bool empty;
  bool entry_unknown_enum; /* a map entry whose value is an unknown closed enum */
  pbd_Value key;           /* a map entry's key */
} Result;

typedef struct {
  const uint8_t *buf;
  const pbd_TreeOptions *o;
  pbd_Arena *scratch;
  pbd_Status *s;
  int max_depth;
  const pbd_MessageDef *any;
  pbd_HashCache *record;         /* remembers large messages, or NULL */
  const pbd_HashCache *lookup;   /* already known hashes (input validated), or NULL */
  bool validate;                 /* only check the input (identical inputs) */
  Frame **frames;                /* by depth - base_depth */
  int nframes, base_depth;
} Ctx;

static size_t off(const Ctx *c, const uint8_t *p) { return (size_t)(p - c->buf); }

static bool oom(Ctx *c) {
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

static bool hash_message(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts, size_t nparts,
                         int depth, Result *out);

/* ---- Scratch arrays -------------------------------------------------------- */

static bool grow(Ctx *c, void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t want = *cap ? *cap : 4;
  while (want < need) want *= 2;
  if (want > UINT32_MAX) return oom(c);
  void *np = pbd_Arena_Realloc(c->scratch, *p, elem * *cap, elem * (size_t)want);
  if (!np) return oom(c);
  *p = np;
  *cap = (uint32_t)want;
  return true;
}

static pbd_Hash128 digest(const Ctx *c, const void *d, size_t n) {
  XXH128_hash_t h = XXH3_128bits_withSeed(d, n, c->o->hash_seed);
  pbd_Hash128 r = {h.low64, h.high64};
  return r;
}

static uint8_t *put_u64(uint8_t *w, uint64_t v) {
  v = pbd_ToLe64(v);
  memcpy(w, &v, 8);
  return w + 8;
}

static uint8_t *put_hash(uint8_t *w, pbd_Hash128 h) { return put_u64(put_u64(w, h.lo), h.hi); }

static size_t str_size(size_t n) { return 8 + (n <= kPbd_InlineBytes ? n : 16); }

static uint8_t *put_str(const Ctx *c, uint8_t *w, const char *d, size_t n) {
  w = put_u64(w, n);
  if (n > kPbd_InlineBytes) return put_hash(w, digest(c, d, n));
  memcpy(w, d, n);
  return w + n;
}

/* Makes room for n more bytes at the end of b; NULL when out of memory. */
static uint8_t *bytes_room(Ctx *c, Bytes *b, size_t n) {
  if (b->n + n > b->cap) {
    size_t want = b->cap ? b->cap * 2 : 64;
    while (want < b->n + n) want *= 2;
    uint8_t *np = pbd_Arena_Realloc(c->scratch, b->p, b->cap, want);
    if (!np) {
      oom(c);
      return NULL;
    }
    b->p = np;
    b->cap = want;
  }
  uint8_t *w = b->p + b->n;
  b->n += n;
  return w;
}

static bool bytes_u64(Ctx *c, Bytes *b, uint64_t v) {
  uint8_t *w = bytes_room(c, b, 8);
  return w && put_u64(w, v);
}

static bool bytes_hash(Ctx *c, Bytes *b, pbd_Hash128 h) {
  uint8_t *w = bytes_room(c, b, 16);
  return w && put_hash(w, h);
}

/* str(s) of docs/hash.md: the length, then the bytes or their digest. */
static bool bytes_str(Ctx *c, Bytes *b, const uint8_t *d, size_t n) {
  uint8_t *w = bytes_room(c, b, str_size(n));
  return w && put_str(c, w, (const char *)d, n);
}

/* ---- Slots ------------------------------------------------------------------ */

static Shape shape_of(const pbd_FieldDef *fd, pbd_ValueKind k) {
  if (!fd) return kShape_Record;
  if (fd->is_map) return kShape_Map;
  if (fd->is_repeated) return pbd_ValueKind_IsScalar(k) ? kShape_Scalars : kShape_Record;
  if (k == kPbd_Value_Message) return kShape_Message;
  return pbd_ValueKind_IsStr(k) ? kShape_Str : kShape_Scalar;
}

static Slot *new_slot(Ctx *c, Msg *m, uint32_t number, const pbd_FieldDef *fd) {
  Frame *f = m->frame;
  if (m->nslots == f->capslots) {
    uint32_t cap = f->capslots ? f->capslots * 2 : 16;
    Slot *ns = realloc(f->slots, sizeof *ns * cap);
    if (!ns) {
      oom(c);
      return NULL;
    }
    f->slots = m->slots = ns;
    f->capslots = cap;
  }
  Slot *s = &m->slots[m->nslots++];
  memset(s, 0, sizeof *s);
  s->number = number;
  s->fd = fd;
  s->kind = fd ? (uint8_t)pbd_ValueKindOf(fd->type) : 0;
  s->shape = (uint8_t)shape_of(fd, s->kind);
  return s;
}

static Slot *known_slot(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  uint32_t k = m->slot_of[fd->index];
  if (k) return &m->slots[k - 1];
  Slot *s = new_slot(c, m, fd->number, fd);
  if (s) m->slot_of[fd->index] = m->nslots;
  return s;
}

static uint32_t unk_hash(uint32_t number) { return number * 0x9E3779B1u; }

static void unk_insert(Msg *m, uint32_t idx1) {
  uint32_t j = unk_hash(m->slots[idx1 - 1].number) & m->unk_mask;
  while (m->unk_table[j]) j = (j + 1) & m->unk_mask;
  m->unk_table[j] = idx1;
}

/* Schemaless messages have only unknown fields, possibly very many numbers:
 * past a few, they are found through a table (built again, twice as big,
 * when half full). */
static bool unk_index_new_slot(Ctx *c, Msg *m) {
  if (m->unk_table && (size_t)m->nslots * 2 <= m->unk_mask) {
    unk_insert(m, m->nslots);
    return true;
  }
  uint32_t cap = 64;
  while (cap < m->nslots * 4u) cap *= 2;
  m->unk_table = pbd_Arena_Calloc(c->scratch, sizeof *m->unk_table * cap);
  if (!m->unk_table) return oom(c);
  m->unk_mask = cap - 1;
  for (uint32_t i = 0; i < m->nslots; i++)
    if (!m->slots[i].fd) unk_insert(m, i + 1);
  return true;
}

static Slot *unknown_slot(Ctx *c, Msg *m, uint32_t number) {
  if (m->last_unknown && m->slots[m->last_unknown - 1].number == number)
    return &m->slots[m->last_unknown - 1];
  if (m->unk_table) {
    for (uint32_t j = unk_hash(number) & m->unk_mask; m->unk_table[j]; j = (j + 1) & m->unk_mask) {
      Slot *s = &m->slots[m->unk_table[j] - 1];
      if (s->number == number) {
        m->last_unknown = m->unk_table[j];
        return s;
      }
    }
  } else {
    for (uint32_t i = 0; i < m->nslots; i++) {
      if (!m->slots[i].fd && m->slots[i].number == number) {
        m->last_unknown = i + 1;
        return &m->slots[i];
      }
    }
  }
  Slot *s = new_slot(c, m, number, NULL);
  if (!s) return NULL;
  m->last_unknown = m->nslots;
  if ((m->unk_table || m->nslots > 8) && !unk_index_new_slot(c, m)) return NULL;
  return s;
}

/* A singular message's parts, merged and hashed (its errors are read now). */
static bool finish_child(Ctx *c, Msg *m, Slot *s) {
  if (!hash_message(c, s->fd->message_type, s->parts, s->nparts, m->depth + 1, &(Result){0})) {
    pbd_FieldDef_PrependPath(s->fd, s->fd->number, 0, c->s);
    return false;
  }
  return true;
}

/* Rule 2 for oneofs: setting one member clears the others.  A cleared
 * message member is still read, so that its errors are errors. */
static bool clear_oneof_siblings(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  const pbd_OneofDef *o = fd->oneof;
  for (uint32_t i = 0; i < o->field_count; i++) {
    const pbd_FieldDef *sib = o->fields[i];
    uint32_t k = sib == fd ? 0 : m->slot_of[sib->index];
    if (!k) continue;
    Slot *s = &m->slots[k - 1];
    if (s->shape == kShape_Message) {
      if (s->nparts && !finish_child(c, m, s)) return false;
      s->nparts = 0;
    }
    s->count = 0;
  }
  return true;
}

/* The slot a value of fd goes to, its oneof siblings cleared. */
static Slot *value_slot(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  Slot *s = known_slot(c, m, fd);
  if (!s || (fd->oneof && !clear_oneof_siblings(c, m, fd))) return NULL;
  return s;
}

/* One canonical 64-bit slot of a repeated scalar.  Past 64 values the
 * record holds only the digest of the array, so values go to a running
 * digest a chunk at a time. */
static bool push_scalar(Ctx *c, Slot *s, uint64_t v) {
  if (!s->vals) {
    s->vals = pbd_Arena_Malloc(c->scratch, sizeof(uint64_t) * kChunkScalars);
    if (!s->vals) return oom(c);
  }
  if (s->nvals == kChunkScalars) {
    if (!s->digest) {
      void *raw = pbd_Arena_Malloc(c->scratch, sizeof(XXH3_state_t) + 64);
      if (!raw) return oom(c);
      s->digest = (XXH3_state_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
      XXH3_INITSTATE(s->digest);
      XXH3_128bits_reset_withSeed(s->digest, c->o->hash_seed);
    }
    XXH3_128bits_update(s->digest, s->vals, sizeof(uint64_t) * s->nvals);
    s->nvals = 0;
  }
  s->vals[s->nvals++] = pbd_ToLe64(v);
  s->count++;
  return true;
}

static uint64_t canonical_scalar(const Ctx *c, const pbd_FieldDef *fd, uint64_t raw) {
  uint64_t v = pbd_FieldType_DecodeScalar(fd->type, raw);
  return pbd_HashBits(c->o->float_bits, pbd_ValueKindOf(fd->type), v);
}

/* ---- Reading fields -------------------------------------------------------- */

static bool add_unknown_value(Ctx *c, Msg *m, uint32_t number, pbd_ValueKind kind, uint64_t u) {
  if (c->validate) return true;
  Slot *s = unknown_slot(c, m, number);
  if (!s) return false;
  s->count++;
  s->has_varint |= kind == kPbd_Value_Varint;
  return bytes_u64(c, &s->rec, kind) && bytes_u64(c, &s->rec, u);
}

/* Rule 13: a LEN field no schema describes is a message when it parses as
 * one completely and is not empty, else bytes. */
static bool try_unknown_message(Ctx *c, const uint8_t *data, size_t size, int depth,
                                pbd_Hash128 *h, bool *failed) {
  *failed = false;
  if (size == 0 || depth >= c->max_depth) return false;
  pbd_Part part = {data, size};
  Result r;
  if (hash_message(c, NULL, &part, 1, depth + 1, &r)) {
    *h = r.hash;
    return true;
  }
  if (c->s->code == kPbd_Status_OutOfMemory) *failed = true;
  else pbd_Status_Clear(c->s);
  return false;
}

static bool record_unknown(Ctx *c, Msg *m, const pbd_WireField *f) {
  /* --strict and --ignore-unknown concern a schema's messages; inside a
   * message no schema describes, every field is unknown by nature (and is
   * only reached when neither option stopped its parent field). */
  if (m->def) {
    if (c->o->strict) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_UnknownField, off(c, f->start),
                            "unknown field %u (wire type %u) refused by --strict", f->number,
                            f->wire_type);
      return false;
    }
    if (c->o->ignore_unknown) return true;
  }
  switch (f->wire_type) {
    case kPbd_WireType_Varint: return add_unknown_value(c, m, f->number, kPbd_Value_Varint, f->value);
    case kPbd_WireType_Fixed32: return add_unknown_value(c, m, f->number, kPbd_Value_Fixed32, f->value);
    case kPbd_WireType_Fixed64: return add_unknown_value(c, m, f->number, kPbd_Value_Fixed64, f->value);
    default: break;
  }
  pbd_Hash128 h = {0, 0};
  bool failed = false;
  pbd_ValueKind kind;
  if (f->wire_type == kPbd_WireType_Delimited) {
    if (c->validate) return true; /* bytes or a message, it cannot be an error */
    bool is_msg = try_unknown_message(c, f->data, f->size, m->depth, &h, &failed);
    if (failed) return false;
    kind = is_msg ? kPbd_Value_LenMessage : kPbd_Value_Len;
  } else { /* a group */
    if (m->depth + 1 > c->max_depth) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                            "nesting deeper than %d", c->max_depth);
      return false;
    }
    pbd_Part part = {f->data, f->size};
    Result r;
    if (!hash_message(c, NULL, &part, 1, m->depth + 1, &r)) {
      pbd_FieldDef_PrependPath(NULL, f->number, 0, c->s);
      return false;
    }
    if (c->validate) return true;
    h = r.hash;
    kind = kPbd_Value_Group;
  }
  Slot *s = unknown_slot(c, m, f->number);
  if (!s || !bytes_u64(c, &s->rec, kind)) return false;
  s->count++;
  if (kind == kPbd_Value_Len) return bytes_str(c, &s->rec, f->data, f->size);
  return bytes_hash(c, &s->rec, h);
}

static bool add_scalar(Ctx *c, Msg *m, const pbd_FieldDef *fd, uint64_t raw) {
  if (pbd_EnumValueUnknown(fd, raw)) {
    if (c->o->strict) {
      pbd_Status_SetError(c->s, kPbd_Status_UnknownField,
                          "value %lld of closed enum %s refused by --strict",
                          (long long)(int32_t)raw, fd->enum_type->full_name);
      return false;
    }
    if (c->o->ignore_unknown) return true;
    return add_unknown_value(c, m, fd->number, kPbd_Value_Varint, raw);
  }
  if (c->validate) return true;
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  if (fd->is_repeated) return push_scalar(c, s, canonical_scalar(c, fd, raw));
  s->scalar = pbd_FieldType_DecodeScalar(fd->type, raw); /* last value wins */
  s->count = 1;
  return true;
}

/* Rule 4: a packed run, decoded in a tight loop into the field's values. */
static bool add_packed(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  const uint8_t *p = f->data, *end = f->data + f->size;
  int wt = pbd_WireTypeOf(fd->type);
  size_t width = wt == kPbd_WireType_Fixed32 ? 4 : wt == kPbd_WireType_Fixed64 ? 8 : 0;
  uint64_t n = 0;
  if (width) {
    if (f->size % width) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, f->data),
                            "packed field %s has %zu bytes, not a multiple of %zu", fd->name,
                            f->size, width);
      return false;
    }
    n = f->size / width;
  } else {
    for (const uint8_t *q = p; q < end; q++) n += *q < 0x80;
  }
  if (n == 0 && f->size > 0) { /* only continuation bytes: a varint cut short */
    pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, f->data),
                          "truncated varint in packed field %s", fd->name);
    return false;
  }
  if (n == 0) return true; /* repeated fields have no presence */
  Slot *s = known_slot(c, m, fd);
  if (!s) return false;
  bool check_enum = fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed;
  while (p < end) {
    uint64_t raw = 0;
    if (width == 4) {
      uint32_t v32 = 0;
      p = pbd_Wire_ReadFixed32(p, end, &v32);
      raw = v32;
    } else if (width == 8) {
      p = pbd_Wire_ReadFixed64(p, end, &raw);
    } else if (*p < 0x80) {
      raw = *p++;
    } else {
      const uint8_t *q = pbd_Wire_ReadVarint(p, end, &raw);
      if (!q) {
        pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p), "%s in packed field %s",
                              pbd_Wire_VarintError(p, end), fd->name);
        return false;
      }
      p = q;
    }
    if (check_enum && pbd_EnumValueUnknown(fd, raw)) {
      if (!add_scalar(c, m, fd, raw)) return false; /* goes to unknown fields */
      continue;
    }
    if (!c->validate && !push_scalar(c, s, canonical_scalar(c, fd, raw))) return false;
  }
  return true;
}

static bool add_string(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  if (fd->validate_utf8) {
    size_t bad = pbd_Utf8_InvalidAt(f->data, f->size);
    if (bad != f->size) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_BadUtf8, off(c, f->data + bad),
                            "invalid UTF-8 in string field %s", fd->name);
      uint32_t k = m->slot_of[fd->index];
      pbd_FieldDef_PrependPath(fd, fd->number, k ? m->slots[k - 1].count : 0, c->s);
      return false;
    }
  }
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  if (fd->is_repeated) {
    s->count++;
    return c->validate || bytes_str(c, &s->rec, f->data, f->size);
  }
  s->str.data = (const char *)f->data;
  s->str.size = f->size;
  s->count = 1;
  return true;
}

static bool add_message(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  if (m->depth + 1 > c->max_depth) {
    pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                          "nesting deeper than %d", c->max_depth);
    pbd_FieldDef_PrependPath(fd, fd->number, 0, c->s);
    return false;
  }
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  pbd_Part part = {f->data, f->size};
  if (!fd->is_repeated && c->validate) { /* each part is checked on its own */
    if (!hash_message(c, fd->message_type, &part, 1, m->depth + 1, &(Result){0})) {
      pbd_FieldDef_PrependPath(fd, fd->number, 0, c->s);
      return false;
    }
    s->count = 1;
    return true;
  }
  if (!fd->is_repeated) { /* rule 3: read when the parent ends, all parts merged */
    if (s->count == 0) s->nparts = 0;
    if (!grow(c, (void **)&s->parts, &s->capparts, s->nparts + 1, sizeof(pbd_Part))) return false;
    s->parts[s->nparts++] = part;
    s->count = 1;
    return true;
  }
  Result r;
  if (!hash_message(c, fd->message_type, &part, 1, m->depth + 1, &r)) {
    pbd_FieldDef_PrependPath(fd, fd->number, s->count, c->s);
    return false;
  }
  if (c->validate) {
    s->count++;
    return true;
  }
  if (!fd->is_map) {
    s->count++;
    return bytes_hash(c, &s->rec, r.hash);
  }
  /* an entry whose value is an unknown closed enum stays whole as an
   * unknown field (rule 9) */
  if (r.entry_unknown_enum) return record_unknown(c, m, f);
  if (!grow(c, (void **)&s->entries, &s->capentries, s->nentries + 1, sizeof(Entry))) return false;
  s->entries[s->nentries++] = (Entry){r.key, r.hash};
  s->count++;
  return true;
}

/* Routes one wire field to its schema field, or to unknown fields when the
 * number is not in the schema or the wire type does not fit (rule 6). */
static bool add_field(Ctx *c, Msg *m, const pbd_WireField *f) {
  const pbd_FieldDef *fd = m->def ? pbd_MessageDef_FindFieldByNumber(m->def, f->number) : NULL;
  if (!fd) return record_unknown(c, m, f);
  if (f->wire_type == pbd_WireTypeOf(fd->type)) {
    switch (fd->type) {
      case kPbd_Type_String:
      case kPbd_Type_Bytes:
        return add_string(c, m, fd, f);
      case kPbd_Type_Message:
      case kPbd_Type_Group:
        return add_message(c, m, fd, f);
      default:
        return add_scalar(c, m, fd, f->value);
    }
  }
  if (fd->is_packable && f->wire_type == kPbd_WireType_Delimited) return add_packed(c, m, fd, f);
  return record_unknown(c, m, f);
}

static bool read_part(Ctx *c, Msg *m, const uint8_t *p, const uint8_t *end) {
  int group_depth_left = c->max_depth - m->depth;
  while (p < end) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, end, c->buf, group_depth_left, &f, c->s);
    if (!q) return false;
    if (f.wire_type == kPbd_WireType_EndGroup) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p),
                            "end group %u without a start group", f.number);
      return false;
    }
    if (!add_field(c, m, &f)) return false;
    p = q;
  }
  return true;
}

/* ---- The record ---------------------------------------------------------------- */

static int compare_keys_stable(const Entry *a, const Entry *b) {
  return pbd_Value_CompareKeys(&a->key, &b->key);
}

/* Stable merge sort of map entries by key: among equal keys the order
 * decides which duplicate wins. */
static void sort_entries(Entry *v, Entry *tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_entries(v, tmp, h);
  sort_entries(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = compare_keys_stable(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* Rule 5: entries by key, the last of duplicate keys kept. */
static bool canonicalize_map(Ctx *c, Slot *s) {
  if (s->nentries >= 2) {
    Entry *tmp = pbd_Arena_Malloc(c->scratch, sizeof(Entry) * s->nentries);
    if (!tmp) return oom(c);
    sort_entries(s->entries, tmp, s->nentries);
    uint32_t out = 0;
    for (uint32_t i = 0; i < s->nentries; i++) {
      if (i + 1 < s->nentries && compare_keys_stable(&s->entries[i], &s->entries[i + 1]) == 0)
        continue;
      s->entries[out++] = s->entries[i];
    }
    s->nentries = out;
  }
  s->count = s->nentries;
  return true;
}

static bool str_equal(pbd_StrView a, pbd_StrView b) {
  return a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
}

/* Whether a singular field holds its default: by bits, or (presence fields
 * under --equivalent) floats by value. */
static bool is_default(const Slot *s, bool by_value) {
  const pbd_FieldDef *fd = s->fd;
  pbd_ValueKind k = pbd_ValueKindOf(fd->type);
  if (k == kPbd_Value_Message) return s->child_empty;
  if (pbd_ValueKind_IsStr(k)) return str_equal(s->str, fd->default_value.s);
  if (by_value && (k == kPbd_Value_Float || k == kPbd_Value_Double))
    return pbd_Value_FloatEqual(k, s->scalar, fd->default_value.u);
  return s->scalar == fd->default_value.u;
}

static bool drop_as_default(const Ctx *c, const Msg *m, const Slot *s) {
  const pbd_FieldDef *fd = s->fd;
  if (fd->is_repeated) return false;
  if (m->def && m->def->is_map_entry) return is_default(s, false); /* rule 5 */
  if (!fd->has_presence) return is_default(s, false);               /* rule 7 */
  return c->o->equivalent && is_default(s, true);
}

/* Known fields before unknown ones of the same number. */
static int slot_order(const Slot *a, const Slot *b) {
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return (a->fd == NULL) - (b->fd == NULL);
}

static void sort_slots(Slot **v, Slot **tmp, size_t n) {
  if (n < 2) return;
  if (n <= 16) {
    for (size_t i = 1; i < n; i++) {
      Slot *t = v[i];
      size_t j = i;
      for (; j > 0 && slot_order(v[j - 1], t) > 0; j--) v[j] = v[j - 1];
      v[j] = t;
    }
    return;
  }
  size_t h = n / 2;
  sort_slots(v, tmp, h);
  sort_slots(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = slot_order(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* ---- Writing the record ---------------------------------------------------- */

/* The size of a slot's values in the record. */
static size_t values_size(const Slot *s) {
  switch (s->shape) {
    case kShape_Record: return s->rec.n;
    case kShape_Map: return 16 * (size_t)s->nentries;
    case kShape_Scalars: return s->count <= kPbd_InlineScalars ? 8 * (size_t)s->count : 16;
    case kShape_Message: return 16;
    case kShape_Str: return str_size(s->str.size);
    default: return 8;
  }
}

/* Writes a slot's values as the record has them. */
static uint8_t *put_values(const Ctx *c, uint8_t *w, Slot *s) {
  switch (s->shape) {
    case kShape_Record:
      if (s->rec.n) memcpy(w, s->rec.p, s->rec.n);
      return w + s->rec.n;
    case kShape_Map:
      for (uint32_t i = 0; i < s->nentries; i++) w = put_hash(w, s->entries[i].hash);
      return w;
    case kShape_Scalars:
      if (s->count <= kPbd_InlineScalars) {
        memcpy(w, s->vals, 8 * (size_t)s->count);
        return w + 8 * (size_t)s->count;
      }
      if (!s->digest) return put_hash(w, digest(c, s->vals, 8 * (size_t)s->nvals));
      XXH3_128bits_update(s->digest, s->vals, sizeof(uint64_t) * s->nvals);
      XXH128_hash_t h = XXH3_128bits_digest(s->digest);
      return put_hash(w, (pbd_Hash128){h.low64, h.high64});
    case kShape_Message: return put_hash(w, s->child);
    case kShape_Str: return put_str(c, w, s->str.data, s->str.size);
    default: return put_u64(w, pbd_HashBits(c->o->float_bits, s->kind, s->scalar));
  }
}

/* The value of a known singular slot (a map entry's key, an Any's parts). */
static pbd_Value slot_value(const Slot *s) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.field = s->fd;
  v.kind = pbd_ValueKindOf(s->fd->type);
  if (pbd_ValueKind_IsStr(v.kind)) v.s = s->str;
  else v.u = s->scalar;
  return v;
}

/* Rule 11: an Any whose type the schema has is its URL and its payload's
 * meaning: *payload is set when its payload parses as that type. */
static bool any_payload(Ctx *c, const Msg *m, Slot **present, uint32_t n, const Slot **url,
                        pbd_Hash128 *payload, bool *resolved) {
  *resolved = false;
  const Slot *val = NULL;
  *url = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (present[i]->fd && present[i]->number == 1) *url = present[i];
    if (present[i]->fd && present[i]->number == 2) val = present[i];
  }
  if (!*url || (*url)->kind != kPbd_Value_String) return true;
  const pbd_MessageDef *type = pbd_AnyPayloadType(c->o->pool, (*url)->str);
  if (!type || m->depth + 1 > c->max_depth) return true;
  pbd_Part part = {(const uint8_t *)"", 0};
  if (val && val->kind == kPbd_Value_Bytes)
    part = (pbd_Part){(const uint8_t *)val->str.data, val->str.size};
  Result pr;
  if (!hash_message(c, type, &part, 1, m->depth + 1, &pr)) {
    if (c->s->code == kPbd_Status_OutOfMemory) return false;
    pbd_Status_Clear(c->s); /* stays bytes, compared as bytes */
    return true;
  }
  *resolved = true;
  *payload = pr.hash;
  return true;
}

/* Whether a map entry's value is a closed enum value the schema does not
 * know (it went to the entry's unknown fields as a varint). */
static bool entry_has_unknown_enum(const Msg *m) {
  const pbd_FieldDef *v = pbd_MessageDef_FindFieldByNumber(m->def, 2);
  if (!v || v->type != kPbd_Type_Enum || !v->enum_type || !v->enum_type->is_closed) return false;
  for (uint32_t i = 0; i < m->nslots; i++)
    if (!m->slots[i].fd && m->slots[i].number == 2 && m->slots[i].has_varint) return true;
  return false;
}

static bool finish(Ctx *c, Msg *m, Result *out) {
  bool entry = m->def && m->def->is_map_entry;
  Slot *few[64]; /* most messages have a few fields: no allocation */
  Slot **present = m->nslots <= 32 ? few
                                   : pbd_Arena_Malloc(c->scratch, sizeof(Slot *) * m->nslots * 2);
  if (!present) return oom(c);
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->nslots; i++) {
    Slot *s = &m->slots[i];
    if (s->count == 0 || (entry && !s->fd)) continue;
    if (s->shape == kShape_Message) {
      Result r;
      if (!hash_message(c, s->fd->message_type, s->parts, s->nparts, m->depth + 1, &r)) {
        pbd_FieldDef_PrependPath(s->fd, s->fd->number, 0, c->s);
        return false;
      }
      s->child = r.hash;
      s->child_empty = r.empty;
    }
    if (s->shape == kShape_Map && !canonicalize_map(c, s)) return false;
    if (s->fd && drop_as_default(c, m, s)) continue;
    present[n++] = s;
  }
  sort_slots(present, present + n, n);
  if (entry) {
    out->entry_unknown_enum = entry_has_unknown_enum(m);
    const pbd_FieldDef *kf = pbd_MessageDef_FindFieldByNumber(m->def, 1);
    memset(&out->key, 0, sizeof out->key);
    if (kf) out->key = pbd_FieldDef_DefaultValue(kf);
    for (uint32_t i = 0; i < n; i++)
      if (present[i]->number == 1) out->key = slot_value(present[i]);
  }
  const Slot *url = NULL;
  pbd_Hash128 payload;
  bool resolved = false;
  if (c->any && m->def == c->any && !any_payload(c, m, present, n, &url, &payload, &resolved))
    return false;
  size_t size = resolved ? 8 + str_size(url->str.size) + 16 : 0;
  for (uint32_t i = 0; i < n && !resolved; i++) size += 16 + values_size(present[i]);
  uint8_t small[1024];
  uint8_t *rec = size <= sizeof small ? small : pbd_Arena_Malloc(c->scratch, size);
  if (!rec) return oom(c);
  uint8_t *w = rec;
  if (resolved) {
    w = put_hash(put_str(c, put_u64(w, 0xA11), url->str.data, url->str.size), payload);
  } else {
    for (uint32_t i = 0; i < n; i++) {
      Slot *s = present[i];
      w = put_u64(w, (uint64_t)s->number << 8 | (s->fd ? 1 : 2));
      w = put_values(c, put_u64(w, s->count), s);
    }
  }
  out->hash = digest(c, rec, (size_t)(w - rec));
  out->empty = n == 0;
  return true;
}

/* The frame of a nesting level, its field table big enough for `fields`. */
static Frame *frame_at(Ctx *c, int depth, uint32_t fields) {
  int i = depth - c->base_depth;
  if (i < 0) return NULL;
  if (i >= c->nframes) {
    int n = c->nframes ? c->nframes * 2 : 8;
    while (n <= i) n *= 2;
    Frame **nf = realloc(c->frames, sizeof *nf * (size_t)n);
    if (!nf) return NULL;
    memset(nf + c->nframes, 0, sizeof *nf * (size_t)(n - c->nframes));
    c->frames = nf;
    c->nframes = n;
  }
  if (!c->frames[i] && !(c->frames[i] = calloc(1, sizeof(Frame)))) return NULL;
  Frame *f = c->frames[i];
  if (fields > f->cap_slot_of) {
    uint32_t *t = calloc(fields, sizeof *t);
    if (!t) return NULL;
    free(f->slot_of);
    f->slot_of = t;
    f->cap_slot_of = fields;
  }
  return f;
}

static void free_frames(Ctx *c) {
  for (int i = 0; i < c->nframes; i++) {
    if (!c->frames[i]) continue;
    free(c->frames[i]->slots);
    free(c->frames[i]->slot_of);
    free(c->frames[i]);
  }
  free(c->frames);
  c->frames = NULL;
  c->nframes = 0;
}

/* Reads and hashes one message made of `nparts` parts at `depth`. */
static bool hash_message(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts, size_t nparts,
                         int depth, Result *out) {
  size_t total = 0;
  for (size_t i = 0; i < nparts; i++) total += parts[i].size;
  if (c->lookup && nparts &&
      pbd_HashCache_Find(c->lookup, parts[0].data, total, def, &out->hash, &out->empty) &&
      !(def && def->is_map_entry)) {
    out->entry_unknown_enum = false;
    return true;
  }
  pbd_ArenaMark mark = pbd_Arena_Mark(c->scratch);
  Msg m;
  memset(&m, 0, sizeof m);
  m.def = def;
  m.depth = depth;
  m.frame = frame_at(c, depth, def ? def->field_count : 0);
  bool ok = m.frame != NULL || oom(c);
  if (ok) {
    m.slots = m.frame->slots;
    m.slot_of = m.frame->slot_of;
  }
  for (size_t i = 0; ok && i < nparts; i++)
    ok = read_part(c, &m, parts[i].data, parts[i].data + parts[i].size);
  ok = ok && (c->validate || finish(c, &m, out));
  for (uint32_t i = 0; i < m.nslots; i++) /* the level's table, clean for the next */
    if (m.slots[i].fd) m.slot_of[m.slots[i].fd->index] = 0;
  pbd_Arena_Reset(c->scratch, mark);
  if (ok && nparts && !c->validate)
    pbd_HashCache_Add(c->record, parts[0].data, total, def, out->hash, out->empty);
  return ok;
}

/* ---- Public ------------------------------------------------------------------ */

static Ctx new_ctx(const pbd_MessageDef *type, const uint8_t *buf, const pbd_TreeOptions *o,
                   pbd_Arena *scratch, pbd_Status *s) {
  (void)type;
  Ctx c;
  memset(&c, 0, sizeof c);
  c.buf = buf;
  c.o = o;
  c.scratch = scratch;
  c.s = s;
  c.max_depth = o->max_depth > 0 ? o->max_depth : kPbd_DefaultMaxDepth;
  c.any = o->pool ? pbd_DefPool_FindMessageByName(o->pool, "google.protobuf.Any") : NULL;
  return c;
}

bool pbd_Canon_Hash(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                    const pbd_TreeOptions *o, pbd_HashCache *cache, pbd_Hash128 *out,
                    pbd_Status *s) {
  pbd_Arena *scratch = pbd_Arena_New();
  if (!scratch) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  Ctx c = new_ctx(type, buf, o, scratch, s);
  c.record = cache;
  pbd_Part part = {buf + begin, end - begin};
  Result r;
  bool ok = hash_message(&c, type, &part, 1, 0, &r);
  free_frames(&c);
  pbd_Arena_Free(scratch);
  if (ok && out) *out = r.hash;
  return ok;
}

bool pbd_Canon_Validate(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                        const pbd_TreeOptions *o, pbd_Status *s) {
  if (pbd_Canon_QuickCheck(type, buf + begin, buf + end, o)) return true;
  /* an error is possible: the careful reading finds it and says where */
  pbd_Arena *scratch = pbd_Arena_New();
  if (!scratch) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  Ctx c = new_ctx(type, buf, o, scratch, s);
  c.validate = true;
  pbd_Part part = {buf + begin, end - begin};
  bool ok = hash_message(&c, type, &part, 1, 0, &(Result){0});
  free_frames(&c);
  pbd_Arena_Free(scratch);
  return ok;
}

/* ---- A hasher kept for many calls (shallow trees) ---------------------------- */

struct pbd_Hasher {
  Ctx c;  /* its frames and scratch memory outlive each call */
};

pbd_Hasher *pbd_Hasher_New(const uint8_t *buf, const pbd_TreeOptions *o,
                           const pbd_HashCache *cache) {
  pbd_Hasher *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->c = new_ctx(NULL, buf, o, pbd_Arena_New(), NULL);
  h->c.lookup = cache;
  if (!h->c.scratch) {
    free(h);
    return NULL;
  }
  return h;
}

void pbd_Hasher_Free(pbd_Hasher *h) {
  if (!h) return;
  free_frames(&h->c);
  pbd_Arena_Free(h->c.scratch);
  free(h);
}

bool pbd_Hasher_HashParts(pbd_Hasher *h, const pbd_MessageDef *type, const pbd_Part *parts,
                          size_t nparts, int depth, pbd_Hash128 *out, bool *empty,
                          pbd_Status *s) {
  h->c.s = s;
  Result r;
  if (!hash_message(&h->c, type, parts, nparts, depth, &r)) return false;
  *out = r.hash;
  if (empty) *empty = r.empty;
  return true;
}

bool pbd_Hasher_TryUnknown(pbd_Hasher *h, const uint8_t *data, size_t size, int depth,
                           pbd_Hash128 *out, bool *failed, pbd_Status *s) {
  h->c.s = s;
  return try_unknown_message(&h->c, data, size, depth, out, failed);
}

/* A context for one call with the caller's scratch memory, or its own. */
static bool begin_call(Ctx *c, const uint8_t *buf, const pbd_TreeOptions *o,
                       const pbd_HashCache *cache, pbd_Arena *scratch, int depth,
                       pbd_Status *s) {
  *c = new_ctx(NULL, buf, o, scratch ? scratch : pbd_Arena_New(), s);
  c->lookup = cache;
  c->base_depth = depth;
  if (!c->scratch) return oom(c);
  return true;
}

static void end_call(Ctx *c, pbd_Arena *scratch) {
  free_frames(c);
  if (!scratch) pbd_Arena_Free(c->scratch);
}

bool pbd_Canon_HashParts(const pbd_MessageDef *type, const uint8_t *buf, const pbd_Part *parts,
                         size_t nparts, int depth, const pbd_TreeOptions *o,
                         const pbd_HashCache *cache, pbd_Arena *scratch, pbd_Hash128 *out,
                         bool *empty, pbd_Status *s) {
  Ctx c;
  if (!begin_call(&c, buf, o, cache, scratch, depth, s)) return false;
  Result r;
  bool ok = hash_message(&c, type, parts, nparts, depth, &r);
  end_call(&c, scratch);
  if (ok) {
    *out = r.hash;
    if (empty) *empty = r.empty;
  }
  return ok;
}

bool pbd_Canon_TryHashUnknown(const uint8_t *buf, const uint8_t *data, size_t size, int depth,
                              const pbd_TreeOptions *o, const pbd_HashCache *cache,
                              pbd_Arena *scratch, pbd_Hash128 *out, bool *failed, pbd_Status *s) {
  Ctx c;
  *failed = false;
  if (!begin_call(&c, buf, o, cache, scratch, depth + 1, s)) {
    *failed = true;
    return false;
  }
  bool ok = try_unknown_message(&c, data, size, depth, out, failed);
  end_call(&c, scratch);
  return ok;
}
