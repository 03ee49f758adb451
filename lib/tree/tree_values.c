/* pbdiff — what the tree's values mean: a finished message's hash record
 * (docs/hash.md, the same bytes as lib/canon/canon_record.c writes), and the
 * accessors of tree.h for values, map entries and fields. */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "canon/canon_internal.h"
#include "pbdiff/tree/tree.h"
#include "tree/tree_build.h"
#include "pbdiff/wire/wire.h"


/* ---- Hashing -------------------------------------------------------------- */

/* A message's hash is one XXH3-128 call over a record of its canonical
 * content written into scratch memory: per field its number and kind tag and
 * value count, then the values — scalars as their 64-bit slots (floats made
 * canonical, so that values equal under rule 10 hash equal), strings as
 * length and bytes, children as their hashes.  Long strings and long scalar
 * arrays enter as their own 128-bit digest, so the record stays small.  One
 * call over a flat record is much faster than streaming many small pieces. */

enum { kInlineBytes = kPbd_InlineBytes, kInlineScalars = kPbd_InlineScalars };

typedef struct {
  const pbd_ReadOptions *o;
  pbd_Arena *scratch;
} HashCtx;

static uint64_t hash_bits(const HashCtx *c, pbd_ValueKind k, uint64_t u) {
  return pbd_HashBits(c->o->float_bits, k, u);
}

typedef struct {
  uint8_t *p;     /* where the record goes (cap bytes) */
  size_t n, cap;  /* n counts on past cap: the size a second try needs */
  uint64_t seed;
  bool oom;
} Record;

static uint64_t to_le64(uint64_t v) { return pbd_ToLe64(v); }

static void rec_bytes(Record *r, const void *d, size_t n) {
  if (n && r->n + n <= r->cap) memcpy(r->p + r->n, d, n);
  r->n += n;
}

static void rec_u64(Record *r, uint64_t v) {
  v = to_le64(v);
  rec_bytes(r, &v, sizeof v);
}

static void rec_digest(Record *r, const void *d, size_t n) {
  if (r->n + 16 <= r->cap) {
    XXH128_hash_t h = XXH3_128bits_withSeed(d, n, r->seed);
    rec_u64(r, h.low64);
    rec_u64(r, h.high64);
  } else {
    r->n += 16; /* past the end: only counted */
  }
}

static void rec_str(Record *r, pbd_StrView s) {
  rec_u64(r, s.size);
  if (s.size <= kInlineBytes) rec_bytes(r, s.data, s.size);
  else rec_digest(r, s.data, s.size);
}

static void rec_child(Record *r, const pbd_Message *m) {
  rec_u64(r, m->hash.lo);
  rec_u64(r, m->hash.hi);
}

/* A long scalar array enters as the digest of its values as 64-bit
 * little-endian slots, floats made canonical.  Floats are made canonical a
 * block at a time and hashed while the block is in cache: a tensor's array
 * is read from memory once.  (XXH3 streamed gives what XXH3 over the whole
 * gives, so the digest is the same as over a copy.) */
static void rec_scalar_digest(const HashCtx *c, Record *r, const pbd_Field *f) {
  bool is_float = f->kind == kPbd_Value_Float || f->kind == kPbd_Value_Double;
  if (r->n + 16 > r->cap) {
    r->n += 16; /* past the end: only counted, the values not read */
    return;
  }
  if (!kPbd_BigEndian && !f->stride && (!is_float || c->o->float_bits)) {
    rec_digest(r, f->v.scalars, sizeof(uint64_t) * f->count);
    return;
  }
  XXH3_state_t st;
  memset(&st, 0, sizeof st); /* (gcc cannot see that the reset sets all it reads) */
  XXH3_128bits_reset_withSeed(&st, r->seed);
  uint64_t block[512];
  for (size_t at = 0; at < f->count; at += 512) {
    size_t n = f->count - at < 512 ? f->count - at : 512;
    if (f->stride) { /* still in the input: read as canonical slots at once */
      pbd_FixedValues(f->def->type, !c->o->float_bits, f->v.fixed + at * f->stride, f->stride, n, block);
      for (size_t i = 0; kPbd_BigEndian && i < n; i++) block[i] = to_le64(block[i]);
    } else if (f->kind == kPbd_Value_Float && !c->o->float_bits) {
      const uint64_t *in = f->v.scalars + at;
      for (size_t i = 0; i < n; i++) block[i] = to_le64(pbd_CanonicalFloatBits((uint32_t)in[i]));
    } else {
      const uint64_t *in = f->v.scalars + at;
      for (size_t i = 0; i < n; i++) block[i] = to_le64(hash_bits(c, f->kind, in[i]));
    }
    XXH3_128bits_update(&st, block, n * sizeof block[0]);
  }
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  rec_u64(r, h.low64);
  rec_u64(r, h.high64);
}

static void rec_field(const HashCtx *c, Record *r, const pbd_Field *f) {
  rec_u64(r, pbd_FieldRecordTag(f->number, f->def, c->o->typed_fields));
  rec_u64(r, f->count);
  if (!f->def) {
    for (uint32_t i = 0; i < f->count; i++) {
      const pbd_UnknownValue *v = &f->v.unknowns[i];
      rec_u64(r, v->kind);
      if (v->kind == kPbd_Value_Len) rec_str(r, v->s);
      else if (v->kind == kPbd_Value_LenMessage || v->kind == kPbd_Value_Group) rec_child(r, v->m);
      else rec_u64(r, v->u);
    }
  } else if (pbd_ValueKind_IsScalar(f->kind) && f->count <= kInlineScalars) {
    for (uint32_t i = 0; i < f->count; i++) rec_u64(r, hash_bits(c, f->kind, pbd_Field_Scalar(f, i)));
  } else if (pbd_ValueKind_IsScalar(f->kind)) {
    rec_scalar_digest(c, r, f);
  } else if (pbd_ValueKind_IsStr(f->kind)) {
    for (uint32_t i = 0; i < f->count; i++) rec_str(r, f->v.strs[i]);
  } else {
    for (uint32_t i = 0; i < f->count; i++) rec_child(r, f->v.msgs[i]);
  }
}

static void rec_message(const HashCtx *c, Record *r, const pbd_Message *m) {
  if (m->any_payload_) {
    /* An Any is its type and its payload's meaning, not the payload bytes. */
    rec_u64(r, 0xA11);
    rec_str(r, pbd_Message_AnyTypeUrl(m));
    rec_child(r, m->any_payload_);
    return;
  }
  for (uint32_t i = 0; i < m->field_count_; i++) rec_field(c, r, &m->fields_[i]);
}

bool pbd_Tree_HashRecord(pbd_Message *m, const pbd_ReadOptions *o, pbd_Arena *scratch) {
  /* Most records fit the stack buffer and take one pass; a bigger one is
   * measured by the first pass and written by a second. */
  HashCtx hc = {o, scratch}, *c = &hc;
  uint8_t small[512];
  Record r = {small, 0, sizeof small, o->hash_seed, false};
  rec_message(c, &r, m);
  pbd_ArenaMark mark = pbd_Arena_Mark(scratch);
  if (r.n > r.cap) {
    size_t need = r.n;
    r.p = pbd_Arena_Malloc(scratch, need);
    if (!r.p) return false;
    r.n = 0;
    r.cap = need;
    rec_message(c, &r, m);
  }
  XXH128_hash_t h = XXH3_128bits_withSeed(r.p, r.n, o->hash_seed);
  pbd_Arena_Reset(scratch, mark);
  if (r.oom) return false;
  m->hash.lo = h.low64;
  m->hash.hi = h.high64;
  return true;
}


pbd_Value pbd_MapEntry_Part(const pbd_Message *entry, uint32_t number) {
  const pbd_Field *f = pbd_Message_FindField(entry, number);
  if (f && f->def) return pbd_Field_Value(f, 0);
  const pbd_FieldDef *fd = entry->def ? pbd_MessageDef_FindFieldByNumber(entry->def, number) : NULL;
  if (fd) return pbd_FieldDef_DefaultValue(fd);
  pbd_Value none;
  memset(&none, 0, sizeof none);
  return none;
}

pbd_Value pbd_Field_Value(const pbd_Field *f, uint32_t i) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.field = f->def;
  if (!f->def) {
    const pbd_UnknownValue *u = &f->v.unknowns[i];
    v.kind = u->kind;
    if (u->kind == kPbd_Value_Len) v.s = u->s;
    else if (u->kind == kPbd_Value_LenMessage || u->kind == kPbd_Value_Group) v.m = u->m;
    else v.u = u->u;
    return v;
  }
  v.kind = f->kind;
  if (pbd_ValueKind_IsScalar(f->kind)) v.u = pbd_Field_Scalar(f, i);
  else if (pbd_ValueKind_IsStr(f->kind)) v.s = f->v.strs[i];
  else v.m = f->v.msgs[i];
  return v;
}

/* ---- Scalars read where they are (pbd_Field.stride) ------------------------- */

uint64_t pbd_Field_Scalar(const pbd_Field *f, size_t i) {
  if (!f->stride) return f->v.scalars[i];
  const uint8_t *p = f->v.fixed + i * f->stride;
  pbd_FieldType t = f->def->type;
  return pbd_DecodeScalarInline(t, pbd_FixedWidth(t) == 4 ? pbd_LoadLe32(p) : pbd_LoadLe64(p));
}

void pbd_Field_Scalars(const pbd_Field *f, size_t from, size_t n, uint64_t *out) {
  if (f->stride) pbd_FixedValues(f->def->type, false, f->v.fixed + from * f->stride, f->stride, n, out);
  else if (n) memcpy(out, f->v.scalars + from, n * sizeof *out);
}

/* Both fields' values in the input, packed, of one type: their bytes are
 * equal exactly where their slots are. */
static bool same_packed_bytes(const pbd_Field *x, const pbd_Field *y) {
  size_t w = pbd_FixedWidth(x->def->type);
  return x->stride == w && y->stride == w && x->def->type == y->def->type;
}

size_t pbd_Field_FirstScalarDifference(const pbd_Field *x, const pbd_Field *y, size_t from,
                                       size_t n) {
  enum { kBlock = 512 };
  size_t i = from;
  if (!x->stride && !y->stride) { /* a block at a time, then one by one */
    const uint64_t *a = x->v.scalars, *b = y->v.scalars;
    while (n - i >= kBlock && !memcmp(a + i, b + i, kBlock * sizeof *a)) i += kBlock;
    while (i < n && a[i] == b[i]) i++;
    return i;
  }
  if (same_packed_bytes(x, y)) {
    size_t w = x->stride;
    while (n - i >= kBlock && !memcmp(x->v.fixed + i * w, y->v.fixed + i * w, kBlock * w)) i += kBlock;
  }
  uint64_t a[kBlock], b[kBlock];
  while (i < n) {
    size_t k = n - i < kBlock ? n - i : kBlock;
    pbd_Field_Scalars(x, i, k, a);
    pbd_Field_Scalars(y, i, k, b);
    if (memcmp(a, b, k * sizeof a[0])) {
      size_t j = 0;
      while (a[j] == b[j]) j++;
      return i + j;
    }
    i += k;
  }
  return n;
}


pbd_StrView pbd_Message_AnyTypeUrl(const pbd_Message *m) {
  pbd_StrView none = {"", 0};
  const pbd_Field *url = pbd_Message_AnyPayload(m) ? pbd_Message_FindField(m, 1) : NULL;
  return url && url->def && url->kind == kPbd_Value_String ? url->v.strs[0] : none;
}

const pbd_Field *pbd_Message_FindField(const pbd_Message *m, uint32_t number) {
  const pbd_Field *fields = pbd_Message_Fields(m);
  uint32_t n = pbd_Message_FieldCount(m), lo = 0, hi = n;
  while (lo < hi) { /* first field with number >= wanted */
    uint32_t mid = lo + (hi - lo) / 2;
    if (fields[mid].number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && fields[lo].number == number ? &fields[lo] : NULL;
}
