/* pbdiff — encoding profiles (see explain.h).
 *
 * One recursive pass over the wire, routed as lib/tree/tree.c routes it: a field
 * is known when the schema has its number and its wire type fits (or it is
 * a packed run of a packable field), else unknown; closed-enum values the
 * enum lacks are unknown; unknown LEN fields and schemaless LEN fields are
 * scanned as messages when they parse as one completely (a speculative scan
 * whose counts are dropped when it fails); Any payloads whose type the pool
 * knows are scanned as that type.
 *
 * Per message occurrence the scan keeps, on a shared stack of uint32 (so no
 * allocation per message): per schema field how often it was written (the
 * next element index for repeated fields), and per oneof the member written
 * last.  Map keys of the message's map fields go to a second stack and are
 * checked for order and duplicates when the message ends.  Nested messages
 * push above and pop before their parent continues, so each message's
 * records stay contiguous. */
#include "pbdiff/explain/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/wire/wire.h"

/* ---- Context ------------------------------------------------------------- */

enum { kKeySigned, kKeyUnsigned, kKeyBytes };

/* One map entry's key, kept until its message ends. */
typedef struct {
  uint32_t number;   /* the map field */
  uint32_t seq;      /* order written */
  int kind;          /* kKey* */
  uint64_t u;        /* integer keys (signed ones as int64 bits), bool 0/1 */
  pbd_StrView s;     /* string keys */
  size_t offset;     /* the entry's tag */
  uint64_t site;
} KeyRec;

/* What a map entry's scan reports to its parent. */
typedef struct {
  int kind;
  uint64_t u;
  pbd_StrView s;
  bool has_key, has_value;
  bool unknown_enum; /* a closed-enum value the enum lacks: the tree keeps the
                        whole entry as an unknown field (rule 9) */
} EntryInfo;

/* A group being scanned: the scan stops after its end tag. */
typedef struct {
  uint32_t number;
  const uint8_t *tag;      /* the start-group tag (for errors) */
  const uint8_t *body_end; /* out: the end-group tag */
  const uint8_t *after;    /* out: past the end-group tag */
} GroupEnd;

typedef struct {
  const uint8_t *buf;
  pbd_EncodingProfile *p;
  pbd_Status *s;           /* NULL while a speculative scan runs */
  int max_depth;
  bool equivalent, ignore_unknown;
  const pbd_DefPool *pool;
  const pbd_MessageDef *any; /* google.protobuf.Any in the pool, or NULL */
  bool oom;
  uint32_t *st;            /* per-message state stack */
  size_t st_n, st_cap;
  KeyRec *keys;            /* map key stack */
  size_t keys_n, keys_cap;
  uint32_t seq;
} Ctx;

/* One message occurrence being scanned. */
typedef struct {
  const pbd_MessageDef *def; /* NULL: schemaless */
  int depth;
  uint64_t path;             /* digest of the path from the root */
  size_t st_base;            /* field counts, then oneof members, in c->st */
  EntryInfo *entry;          /* set while scanning a map entry */
  pbd_StrView any_url, any_value;
  bool any_has_url;
} Msg;

static size_t off(const Ctx *c, const uint8_t *p) { return (size_t)(p - c->buf); }

static bool oom(Ctx *c) {
  c->oom = true;
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

/* ---- Sites ----------------------------------------------------------------- */

static uint64_t mix64(uint64_t x) { /* splitmix64 finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/* Field `number` of the message at `path`. */
static uint64_t field_site(uint64_t path, uint32_t number) {
  return mix64(path ^ ((uint64_t)number * 0x9e3779b97f4a7c15ull));
}
static uint64_t element_path(uint64_t site, uint32_t index) {
  return mix64(site + ((uint64_t)index + 1) * 0xc2b2ae3d27d4eb4full);
}
static uint64_t entry_path(uint64_t site) { return mix64(site ^ 0x165667b19e3779f9ull); }
static uint64_t any_path(uint64_t site) { return mix64(site ^ 0x27d4eb2f165667c5ull); }

/* ---- Counting -------------------------------------------------------------- */

static void note_n(Ctx *c, pbd_EncodingKind k, size_t n, size_t offset, uint64_t digest) {
  pbd_EncodingCount *e = &c->p->by_kind[k];
  if (e->count == 0 || (int64_t)offset < e->first_offset) e->first_offset = (int64_t)offset;
  e->count += n;
  e->site_digest += digest;
}

static void note(Ctx *c, pbd_EncodingKind k, size_t offset, uint64_t site) {
  note_n(c, k, 1, offset, site);
}

/* A varint at [p, q) holding v: longer than needed, or with bits past the
 * 64th in a 10th byte? */
static void check_varint(Ctx *c, const uint8_t *p, const uint8_t *q, uint64_t v, uint64_t site) {
  size_t n = (size_t)(q - p), need = 1;
  if (n == 1) return;
  for (uint64_t x = v >> 7; x; x >>= 7) need++;
  if (n > need || (n == 10 && p[9] > 1)) note(c, kPbd_Encoding_NonMinimalVarint, off(c, p), site);
}

/* Whether a raw varint is what writers write for the value the type reads
 * from it (rule 8). */
static bool value_canonical(pbd_FieldType t, uint64_t raw) {
  switch (t) {
    case kPbd_Type_Int32:
    case kPbd_Type_Enum:
      return raw == (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    case kPbd_Type_UInt32:
    case kPbd_Type_SInt32:
      return raw >> 32 == 0;
    case kPbd_Type_Bool:
      return raw <= 1;
    default:
      return true;
  }
}

/* -0.0 and NaNs: equal to other bits (rule 10). */
static void check_float(Ctx *c, pbd_FieldType t, uint64_t bits, const uint8_t *at, uint64_t site) {
  bool special;
  if (t == kPbd_Type_Float) {
    uint32_t b = (uint32_t)bits;
    special = b == 0x80000000u || ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu));
  } else if (t == kPbd_Type_Double) {
    special = bits == 0x8000000000000000ull ||
              ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
               (bits & 0xfffffffffffffull));
  } else {
    return;
  }
  if (special) note(c, kPbd_Encoding_ZeroSignOrNaN, off(c, at), mix64(site ^ bits));
}

static bool enum_value_unknown(const pbd_FieldDef *fd, uint64_t raw) {
  return fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed &&
         !pbd_EnumDef_FindValueByNumber(fd->enum_type, (int32_t)(uint32_t)raw);
}

static int key_kind(const pbd_FieldDef *fd) {
  switch (fd->type) {
    case kPbd_Type_String: case kPbd_Type_Bytes:
      return kKeyBytes;
    case kPbd_Type_Int32: case kPbd_Type_Int64: case kPbd_Type_SInt32: case kPbd_Type_SInt64:
    case kPbd_Type_SFixed32: case kPbd_Type_SFixed64: case kPbd_Type_Enum:
      return kKeySigned;
    default:
      return kKeyUnsigned;
  }
}

/* ---- Stacks ---------------------------------------------------------------- */

static bool push_state(Ctx *c, size_t n) {
  if (c->st_cap - c->st_n < n) {
    size_t cap = c->st_cap ? c->st_cap : 256;
    while (cap - c->st_n < n) {
      if (cap > SIZE_MAX / (2 * sizeof *c->st)) return oom(c);
      cap *= 2;
    }
    uint32_t *ns = realloc(c->st, cap * sizeof *ns);
    if (!ns) return oom(c);
    c->st = ns;
    c->st_cap = cap;
  }
  if (n) memset(c->st + c->st_n, 0, n * sizeof *c->st);
  c->st_n += n;
  return true;
}

static bool push_key(Ctx *c, const KeyRec *k) {
  if (c->keys_n == c->keys_cap) {
    size_t cap = c->keys_cap ? c->keys_cap * 2 : 64;
    if (cap > SIZE_MAX / sizeof *c->keys) return oom(c);
    KeyRec *nk = realloc(c->keys, cap * sizeof *nk);
    if (!nk) return oom(c);
    c->keys = nk;
    c->keys_cap = cap;
  }
  c->keys[c->keys_n++] = *k;
  return true;
}

/* ---- Map keys -------------------------------------------------------------- */

static int compare_key(const KeyRec *a, const KeyRec *b) {
  if (a->kind == kKeyBytes) {
    size_t n = a->s.size < b->s.size ? a->s.size : b->s.size;
    int r = n ? memcmp(a->s.data, b->s.data, n) : 0;
    if (r) return r;
    return (a->s.size > b->s.size) - (a->s.size < b->s.size);
  }
  if (a->kind == kKeySigned) {
    int64_t x = (int64_t)a->u, y = (int64_t)b->u;
    return (x > y) - (x < y);
  }
  return (a->u > b->u) - (a->u < b->u);
}

static int by_number_seq(const void *x, const void *y) {
  const KeyRec *a = x, *b = y;
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_key_seq(const void *x, const void *y) {
  const KeyRec *a = x, *b = y;
  int r = compare_key(a, b);
  if (r) return r;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The entries of each map field of one message: order, then duplicates. */
static void check_maps(Ctx *c, size_t base) {
  size_t n = c->keys_n - base;
  if (n < 2) return;
  KeyRec *k = c->keys + base;
  qsort(k, n, sizeof *k, by_number_seq);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && k[j].number == k[i].number) j++;
    size_t max = i;
    for (size_t x = i + 1; x < j; x++) {
      if (compare_key(&k[x], &k[max]) < 0) note(c, kPbd_Encoding_MapEntryOrder, k[x].offset, k[x].site);
      else max = x;
    }
    qsort(k + i, j - i, sizeof *k, by_key_seq);
    for (size_t x = i + 1; x < j; x++)
      if (compare_key(&k[x], &k[x - 1]) == 0)
        note(c, kPbd_Encoding_DuplicateMapKey, k[x].offset, k[x].site);
    i = j;
  }
}

/* ---- Scanning -------------------------------------------------------------- */

static bool scan_message(Ctx *c, const pbd_MessageDef *def, const uint8_t *p, const uint8_t *end,
                         int depth, uint64_t path, GroupEnd *group, EntryInfo *entry);

/* Scans [p, p+n) as a message of `type` if it parses as one completely;
 * its counts stay only then (rule 13, rule 11).  False only when out of
 * memory. */
static bool try_scan(Ctx *c, const pbd_MessageDef *type, const uint8_t *p, size_t n, int depth,
                     uint64_t path) {
  pbd_EncodingProfile saved = *c->p;
  pbd_Status *s = c->s;
  size_t st = c->st_n, keys = c->keys_n;
  c->s = NULL;
  bool ok = scan_message(c, type, p, p + n, depth, path, NULL, NULL);
  c->s = s;
  c->st_n = st;
  c->keys_n = keys;
  if (ok) return true;
  *c->p = saved;
  if (c->oom) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  return true;
}

static void prepend_path(Ctx *c, const pbd_FieldDef *fd, uint32_t number, uint32_t index) {
  pbd_FieldDef_PrependPath(fd, number, index, c->s);
}

static bool too_deep(Ctx *c, const uint8_t *p) {
  pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, p), "nesting deeper than %d",
                        c->max_depth);
  return false;
}

/* A singular field written once more in this message: again, or over
 * another member of its oneof. */
static void singular_occurrence(Ctx *c, const Msg *m, const pbd_FieldDef *fd, size_t at,
                                uint64_t site, bool is_msg) {
  uint32_t *count = &c->st[m->st_base + fd->index];
  pbd_EncodingKind again = is_msg ? kPbd_Encoding_SplitMessage : kPbd_Encoding_RepeatedSingular;
  const pbd_OneofDef *o = fd->oneof;
  if (o && o->containing == m->def) { /* o is then one of m->def->oneofs */
    uint32_t *cur = &c->st[m->st_base + m->def->field_count + (size_t)(o - m->def->oneofs)];
    if (*cur && *cur != fd->number) note(c, kPbd_Encoding_OneofOverwritten, at, site);
    else if (*cur == fd->number) note(c, again, at, site);
    *cur = fd->number;
  } else if (*count) {
    note(c, again, at, site);
  }
  if (*count < UINT32_MAX) (*count)++;
}

/* The next element index of a repeated field, then advanced by n. */
static uint32_t take_elements(Ctx *c, const Msg *m, const pbd_FieldDef *fd, uint64_t n) {
  uint32_t *count = &c->st[m->st_base + fd->index];
  uint32_t idx = *count;
  *count = n >= UINT32_MAX - *count ? UINT32_MAX : *count + (uint32_t)n;
  return idx;
}

enum { kErr = -1, kKnown = 0, kUnknown = 1, kDropped = 2 };

/* A packed run of a packable field. */
static int scan_packed(Ctx *c, const Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f,
                       const uint8_t *p, const uint8_t *t, uint64_t site) {
  check_varint(c, t, f->data, f->size, site);
  int wt = pbd_FieldType_WireType(fd->type);
  size_t width = wt == kPbd_WireType_Fixed32 ? 4 : wt == kPbd_WireType_Fixed64 ? 8 : 0;
  bool empty = f->size == 0;
  note(c, empty ? kPbd_Encoding_EmptyPackedRun : kPbd_Encoding_Packed, off(c, p), site);
  if (empty) return kKnown;
  uint64_t n = 0;
  if (width) {
    if (f->size % width) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, f->data),
                            "packed field %s has %zu bytes, not a multiple of %zu", fd->name,
                            f->size, width);
      return kErr;
    }
    n = f->size / width;
    if (fd->type == kPbd_Type_Float || fd->type == kPbd_Type_Double) {
      for (const uint8_t *e = f->data; e < f->data + f->size; e += width) {
        uint64_t bits = 0;
        if (width == 4) {
          uint32_t b32 = 0;
          pbd_Wire_ReadFixed32(e, f->data + f->size, &b32);
          bits = b32;
        } else {
          pbd_Wire_ReadFixed64(e, f->data + f->size, &bits);
        }
        check_float(c, fd->type, bits, e, site);
      }
    }
  } else {
    const uint8_t *e = f->data, *pe = f->data + f->size;
    while (e < pe) {
      uint64_t v = 0;
      const uint8_t *q = pbd_Wire_ReadVarint(e, pe, &v);
      if (!q) {
        pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, e), "%s in packed field %s",
                              pbd_Wire_VarintError(e, pe), fd->name);
        return kErr;
      }
      check_varint(c, e, q, v, site);
      if (!value_canonical(fd->type, v)) note(c, kPbd_Encoding_NonCanonicalValue, off(c, e), site);
      e = q;
      n++;
    }
  }
  take_elements(c, m, fd, n);
  return kKnown;
}

/* A message, group or map entry field. */
static int scan_submessage(Ctx *c, Msg *m, const pbd_FieldDef *fd, int wt, const uint8_t *p,
                           const uint8_t *t, const uint8_t *end, uint64_t site,
                           const uint8_t **next) {
  if (m->depth + 1 > c->max_depth) {
    too_deep(c, p);
    prepend_path(c, fd, fd->number, 0);
    return kErr;
  }
  bool singular = !fd->is_repeated;
  bool presence_default = singular && c->equivalent && !m->def->is_map_entry;
  uint32_t index = 0;
  uint64_t child;
  if (singular) {
    singular_occurrence(c, m, fd, off(c, p), site, true);
    child = site;
  } else {
    index = take_elements(c, m, fd, 1);
    child = fd->is_map ? entry_path(site) : element_path(site, index);
  }
  if (m->entry && fd->number == 2) m->entry->has_value = true;
  if (wt == kPbd_WireType_StartGroup) {
    GroupEnd g = {fd->number, p, NULL, NULL};
    if (!scan_message(c, fd->message_type, t, end, m->depth + 1, child, &g, NULL)) {
      prepend_path(c, fd, fd->number, index);
      return kErr;
    }
    if (presence_default && g.body_end == t) note(c, kPbd_Encoding_DefaultWritten, off(c, p), site);
    *next = g.after;
    return kKnown;
  }
  pbd_WireField f;
  const uint8_t *q = pbd_Wire_ReadField(p, end, c->buf, c->max_depth - m->depth, &f, c->s);
  if (!q) return kErr;
  check_varint(c, t, f.data, f.size, site);
  if (presence_default && f.size == 0) note(c, kPbd_Encoding_DefaultWritten, off(c, p), site);
  *next = q;
  EntryInfo e;
  memset(&e, 0, sizeof e);
  const pbd_FieldDef *kd = NULL;
  if (fd->is_map && (kd = pbd_MessageDef_FindFieldByNumber(fd->message_type, 1)) != NULL) {
    e.kind = key_kind(kd);
    e.u = kd->default_value.u;
    e.s = kd->default_value.s;
  }
  if (!scan_message(c, fd->message_type, f.data, f.data + f.size, m->depth + 1, child, NULL,
                    fd->is_map ? &e : NULL)) {
    prepend_path(c, fd, fd->number, index);
    return kErr;
  }
  if (!fd->is_map) return kKnown;
  if (e.unknown_enum) return kUnknown; /* kept whole as an unknown field */
  if (!e.has_key || !e.has_value) note(c, kPbd_Encoding_MapEntryPartOmitted, off(c, p), site);
  KeyRec k = {fd->number, c->seq++, e.kind, e.u, e.s, off(c, p), site};
  return push_key(c, &k) ? kKnown : kErr;
}

/* A known field (the schema has it and its wire type fits). */
static int scan_known(Ctx *c, Msg *m, const pbd_FieldDef *fd, int wt, const uint8_t *p,
                      const uint8_t *t, const uint8_t *end, uint64_t site, const uint8_t **next) {
  if (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group)
    return scan_submessage(c, m, fd, wt, p, t, end, site, next);
  pbd_WireField f;
  const uint8_t *q = pbd_Wire_ReadField(p, end, c->buf, c->max_depth - m->depth, &f, c->s);
  if (!q) return kErr;
  *next = q;
  if (wt == kPbd_WireType_Delimited && fd->is_packable) {
    int r = scan_packed(c, m, fd, &f, p, t, site);
    if (r == kErr) prepend_path(c, fd, fd->number, c->st[m->st_base + fd->index]);
    return r;
  }
  bool in_entry = m->def->is_map_entry;
  bool singular = !fd->is_repeated;
  bool implicit = singular && !fd->has_presence && !in_entry;
  bool presence_default = singular && fd->has_presence && c->equivalent && !in_entry;
  EntryInfo *e = in_entry ? m->entry : NULL;
  if (wt == kPbd_WireType_Delimited) { /* string, bytes */
    check_varint(c, t, f.data, f.size, site);
    pbd_StrView v = {(const char *)f.data, f.size};
    if (singular) {
      singular_occurrence(c, m, fd, off(c, p), site, false);
      pbd_StrView d = fd->default_value.s;
      if ((implicit || presence_default) && v.size == d.size &&
          (v.size == 0 || memcmp(v.data, d.data, v.size) == 0))
        note(c, kPbd_Encoding_DefaultWritten, off(c, p), site);
    } else {
      take_elements(c, m, fd, 1);
    }
    if (e && fd->number == 1) {
      e->s = v;
      e->has_key = true;
    } else if (e && fd->number == 2) {
      e->has_value = true;
    }
    if (m->def == c->any && fd->number == 1 && fd->type == kPbd_Type_String) {
      m->any_url = v;
      m->any_has_url = true;
    } else if (m->def == c->any && fd->number == 2 && fd->type == kPbd_Type_Bytes) {
      m->any_value = v;
    }
    return kKnown;
  }
  if (wt == kPbd_WireType_Varint) {
    check_varint(c, t, q, f.value, site);
    if (!value_canonical(fd->type, f.value))
      note(c, kPbd_Encoding_NonCanonicalValue, off(c, t), site);
  } else {
    check_float(c, fd->type, f.value, t, site);
  }
  if (enum_value_unknown(fd, f.value)) {
    /* Goes to unknown fields (rule 9); in a map entry it makes the whole
     * entry unknown; --ignore-unknown drops it. */
    if (c->ignore_unknown) return kDropped;
    if (e) {
      if (fd->number == 2) e->unknown_enum = true;
      return kDropped;
    }
    return kUnknown;
  }
  if (!singular) {
    if (fd->is_packable) note(c, kPbd_Encoding_Unpacked, off(c, p), site);
    take_elements(c, m, fd, 1);
    return kKnown;
  }
  singular_occurrence(c, m, fd, off(c, p), site, false);
  uint64_t v = pbd_FieldType_DecodeScalar(fd->type, f.value), d = fd->default_value.u;
  bool is_default = false;
  if (implicit) {
    is_default = v == d; /* by bits: -0.0 is not a default (rule 10) */
  } else if (presence_default) {
    if (fd->type == kPbd_Type_Float) is_default = pbd_Value_FloatEqual(kPbd_Value_Float, v, d);
    else if (fd->type == kPbd_Type_Double) is_default = pbd_Value_FloatEqual(kPbd_Value_Double, v, d);
    else is_default = v == d;
  }
  if (is_default) note(c, kPbd_Encoding_DefaultWritten, off(c, p), site);
  if (e && fd->number == 1) {
    e->u = v;
    e->has_key = true;
  } else if (e && fd->number == 2) {
    e->has_value = true;
  }
  return kKnown;
}

/* An unknown field, or any field of a schemaless message. */
static bool scan_unknown(Ctx *c, const Msg *m, uint32_t number, int wt, const uint8_t *p,
                         const uint8_t *t, const uint8_t *end, uint64_t site,
                         const uint8_t **next) {
  if (wt == kPbd_WireType_StartGroup) {
    if (m->depth + 1 > c->max_depth) return too_deep(c, p);
    GroupEnd g = {number, p, NULL, NULL};
    if (!scan_message(c, NULL, t, end, m->depth + 1, site, &g, NULL)) {
      prepend_path(c, NULL, number, 0);
      return false;
    }
    *next = g.after;
    return true;
  }
  pbd_WireField f;
  const uint8_t *q = pbd_Wire_ReadField(p, end, c->buf, c->max_depth - m->depth, &f, c->s);
  if (!q) return false;
  *next = q;
  if (wt == kPbd_WireType_Varint) {
    check_varint(c, t, q, f.value, site);
  } else if (wt == kPbd_WireType_Delimited) {
    check_varint(c, t, f.data, f.size, site);
    if (f.size && m->depth < c->max_depth && !try_scan(c, NULL, f.data, f.size, m->depth + 1, site))
      return false;
  }
  return true;
}

/* Rule 11: an Any whose type the pool knows has its payload scanned as that
 * type (when it parses as one). */
static bool scan_any_payload(Ctx *c, const Msg *m) {
  pbd_StrView u = m->any_url;
  const char *name = u.data + u.size;
  while (name > u.data && name[-1] != '/') name--;
  size_t nlen = u.size - (size_t)(name - u.data);
  char buf[512];
  if (nlen == 0 || nlen >= sizeof buf) return true;
  memcpy(buf, name, nlen);
  buf[nlen] = '\0';
  const pbd_MessageDef *type = pbd_DefPool_FindMessageByName(c->pool, buf);
  if (!type || m->depth + 1 > c->max_depth || !m->any_value.size) return true;
  return try_scan(c, type, (const uint8_t *)m->any_value.data, m->any_value.size, m->depth + 1,
                  any_path(field_site(m->path, 2)));
}

static bool scan_message(Ctx *c, const pbd_MessageDef *def, const uint8_t *p, const uint8_t *end,
                         int depth, uint64_t path, GroupEnd *group, EntryInfo *entry) {
  Msg m;
  memset(&m, 0, sizeof m);
  m.def = def;
  m.depth = depth;
  m.path = path;
  m.st_base = c->st_n;
  m.entry = entry;
  size_t key_base = c->keys_n;
  if (def && !push_state(c, (size_t)def->field_count + def->oneof_count)) return false;
  bool in_entry = def && def->is_map_entry;
  uint32_t max_known = 0, max_unknown = 0;
  size_t pend_n = 0, pend_first = 0; /* unknown fields not yet followed by a known one */
  uint64_t pend_digest = 0;
  bool closed = false;
  while (p < end) {
    uint64_t tag = 0;
    const uint8_t *t = pbd_Wire_ReadVarint(p, end, &tag);
    uint64_t number64 = tag >> 3;
    int wt = (int)(tag & 7);
    if (!t || number64 == 0 || number64 > kPbd_MaxFieldNumber || wt > 5) {
      pbd_WireField f; /* let the wire reader say what is wrong */
      if (!pbd_Wire_ReadField(p, end, c->buf, 1, &f, c->s)) return false;
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p), "invalid tag");
      return false;
    }
    uint32_t number = (uint32_t)number64;
    uint64_t site = field_site(path, number);
    if (wt == kPbd_WireType_EndGroup) {
      if (group && group->number == number) {
        check_varint(c, p, t, tag, site);
        group->body_end = p;
        group->after = t;
        closed = true;
        break;
      }
      if (group)
        pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p),
                              "end group %u does not match start group %u", number, group->number);
      else
        pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p),
                              "end group %u without a start group", number);
      return false;
    }
    const pbd_FieldDef *fd = def ? pbd_MessageDef_FindFieldByNumber(def, number) : NULL;
    bool known = fd && (wt == pbd_FieldType_WireType(fd->type) ||
                        (fd->is_packable && wt == kPbd_WireType_Delimited));
    const uint8_t *next = NULL;
    if (def && !known && (in_entry || c->ignore_unknown)) {
      /* Dropped by the tree (map entries keep no unknown fields): skipped,
       * nothing in it counted. */
      pbd_WireField f;
      next = pbd_Wire_ReadField(p, end, c->buf, c->max_depth - depth, &f, c->s);
      if (!next) return false;
      p = next;
      continue;
    }
    check_varint(c, p, t, tag, site);
    int cls;
    if (known) {
      cls = scan_known(c, &m, fd, wt, p, t, end, site, &next);
      if (cls == kErr) return false;
    } else {
      if (!scan_unknown(c, &m, number, wt, p, t, end, site, &next)) return false;
      cls = def ? kUnknown : kKnown; /* schemaless: every field is in one class */
    }
    if (cls == kKnown) {
      if (number < max_known) note(c, kPbd_Encoding_FieldOrder, off(c, p), site);
      else max_known = number;
      if (pend_n) {
        note_n(c, kPbd_Encoding_UnknownPlacement, pend_n, pend_first, pend_digest);
        pend_n = 0;
        pend_digest = 0;
      }
    } else if (cls == kUnknown) {
      if (number < max_unknown) note(c, kPbd_Encoding_FieldOrder, off(c, p), site);
      else max_unknown = number;
      if (pend_n++ == 0) pend_first = off(c, p);
      pend_digest += site;
    }
    p = next;
  }
  if (group && !closed) {
    pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, group->tag),
                          "group %u has no end tag", group->number);
    return false;
  }
  if (def && def == c->any && m.any_has_url && !scan_any_payload(c, &m)) return false;
  check_maps(c, key_base);
  c->st_n = m.st_base;
  c->keys_n = key_base;
  return true;
}

/* ---- Public ---------------------------------------------------------------- */

static void profile_clear(pbd_EncodingProfile *out) {
  memset(out, 0, sizeof *out);
  for (int k = 0; k < kPbd_Encoding_Count; k++) out->by_kind[k].first_offset = -1;
}

bool pbd_Explain_Profile(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                         const pbd_ReadOptions *opts, pbd_EncodingProfile *out, pbd_Status *s) {
  profile_clear(out);
  if (begin > end) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "begin %zu is past end %zu", begin, end);
    return false;
  }
  if (begin == end) return true; /* an empty message: nothing written */
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  if (opts) o = *opts;
  Ctx c;
  memset(&c, 0, sizeof c);
  c.buf = buf;
  c.p = out;
  c.s = s;
  c.max_depth = pbd_ReadOptions_MaxDepth(&o);
  c.equivalent = o.equivalent;
  c.ignore_unknown = o.ignore_unknown;
  c.pool = o.pool;
  c.any = o.pool ? pbd_DefPool_FindMessageByName(o.pool, "google.protobuf.Any") : NULL;
  bool ok = scan_message(&c, type, buf + begin, buf + end, 0, 0, NULL, NULL);
  free(c.st);
  free(c.keys);
  if (!ok) profile_clear(out);
  return ok;
}

size_t pbd_Explain_Compare(const pbd_EncodingProfile *l, const pbd_EncodingProfile *r,
                           pbd_EncodingDiff *out) {
  size_t n = 0;
  for (int k = 0; k < kPbd_Encoding_Count; k++) {
    const pbd_EncodingCount *a = &l->by_kind[k], *b = &r->by_kind[k];
    if (a->count == b->count && a->site_digest == b->site_digest) continue;
    out[n].kind = (pbd_EncodingKind)k;
    out[n].left = *a;
    out[n].right = *b;
    out[n].left_path[0] = out[n].right_path[0] = '\0';
    n++;
  }
  return n;
}

const char *pbd_EncodingKind_String(pbd_EncodingKind k) {
  switch (k) {
    case kPbd_Encoding_FieldOrder: return "field order";
    case kPbd_Encoding_Packed: return "packed";
    case kPbd_Encoding_Unpacked: return "unpacked";
    case kPbd_Encoding_EmptyPackedRun: return "empty packed run";
    case kPbd_Encoding_NonMinimalVarint: return "non-minimal varint";
    case kPbd_Encoding_NonCanonicalValue: return "non-canonical value";
    case kPbd_Encoding_ZeroSignOrNaN: return "-0.0 or NaN";
    case kPbd_Encoding_RepeatedSingular: return "singular field repeated";
    case kPbd_Encoding_SplitMessage: return "split message";
    case kPbd_Encoding_OneofOverwritten: return "oneof overwritten";
    case kPbd_Encoding_MapEntryOrder: return "map entry order";
    case kPbd_Encoding_DuplicateMapKey: return "duplicate map key";
    case kPbd_Encoding_MapEntryPartOmitted: return "map entry part omitted";
    case kPbd_Encoding_DefaultWritten: return "default written";
    case kPbd_Encoding_UnknownPlacement: return "unknown field placement";
    case kPbd_Encoding_Count: break;
  }
  return "?";
}

static void text_side(pbd_Buf *b, const pbd_EncodingCount *e, const char *side, const char *path) {
  pbd_Buf_Printf(b, "%zu in %s", e->count, side);
  if (e->count == 0) return;
  pbd_Buf_Printf(b, " (%sat byte %lld", e->count > 1 ? "first " : "", (long long)e->first_offset);
  if (path[0]) pbd_Buf_Printf(b, ", in %s", path);
  pbd_Buf_AppendChar(b, ')');
}

void pbd_Explain_FormatText(pbd_Buf *out, const pbd_EncodingDiff *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    pbd_Buf_AppendStr(out, pbd_EncodingKind_String(d[i].kind));
    pbd_Buf_AppendStr(out, ": ");
    text_side(out, &d[i].left, "LEFT", d[i].left_path);
    pbd_Buf_AppendStr(out, ", ");
    text_side(out, &d[i].right, "RIGHT", d[i].right_path);
    pbd_Buf_AppendChar(out, '\n');
  }
}

static void json_side(pbd_Buf *b, const pbd_EncodingCount *e, const char *path) {
  pbd_Buf_Printf(b, "{\"count\": %zu, \"first_offset\": ", e->count);
  if (!e->count) {
    pbd_Buf_AppendStr(b, "null}");
    return;
  }
  pbd_Buf_Printf(b, "%lld", (long long)e->first_offset);
  if (path[0]) {
    pbd_Buf_AppendStr(b, ", \"first_path\": ");
    pbd_Format_JsonString(b, path, strlen(path));
  }
  pbd_Buf_AppendChar(b, '}');
}

void pbd_Explain_FormatJson(pbd_Buf *out, const pbd_EncodingDiff *d, size_t n) {
  pbd_Buf_AppendChar(out, '[');
  for (size_t i = 0; i < n; i++) {
    const char *k = pbd_EncodingKind_String(d[i].kind);
    if (i) pbd_Buf_AppendStr(out, ", ");
    pbd_Buf_AppendStr(out, "{\"kind\": ");
    pbd_Format_JsonString(out, k, strlen(k));
    pbd_Buf_AppendStr(out, ", \"left\": ");
    json_side(out, &d[i].left, d[i].left_path);
    pbd_Buf_AppendStr(out, ", \"right\": ");
    json_side(out, &d[i].right, d[i].right_path);
    pbd_Buf_AppendChar(out, '}');
  }
  pbd_Buf_AppendChar(out, ']');
}
