/* pbdiff — the hash pass's fast path (canon_pass.h, pbd_CanonPass_HashFast).
 *
 * Most writers put each field of a message in one run: protobuf's own in
 * field-number order, others in their reverse or in declaration order.
 * Then nothing of the general reader's is needed (a slot per field, last
 * values, merged parts, sorting slots, unknown fields): each field's part
 * of the pbh1 record (docs/hash.md) is written as its values are read, as
 * one segment of the frame's buffer, and the segments are put in number
 * order when the message ends.  The bytes, and so the hash, are exactly the
 * general reader's: the record does not depend on the way it was made.
 * A field's tag (of one or two bytes: others are read the long way) leads
 * to its FieldDef, and its value is read by the kind worked out when the
 * schema was loaded (fast_kind_: the wire type, a string or a message, one
 * value or a run), in one switch.
 *
 * A message in several parts is read as their concatenation, and a singular
 * sub-message met again is one more part of it: its parts are hashed as
 * one message.  Anything else gives up (0) and the general reader reads the
 * message from its start: a field seen before, a second member of a oneof, a map, a
 * group, an unknown field or wire type, a closed enum's unknown value, an
 * error of any kind (so that errors, and their order, are the general
 * reader's).  Sub-messages are hashed only when every field of their parent
 * has been read (finish_children), so that giving up never hashes a child
 * twice: the general reader would hash it again, and so on down, a cost
 * that doubles with each level.  Only a child's error gives up after. */
#include "canon/canon_pass.h"

/* Bigger messages go to the general reader, which may stream their record. */
enum { kFastBytes = 16 << 10 };
/* A singular sub-message in more parts goes to the general reader. */
enum { kMaxParts = 16 };

typedef struct {
  Ctx *c;
  Frame *fr;
  const pbd_MessageDef *def;
  int depth;
  size_t n;                  /* bytes of fr->rec written */
  uint32_t nsegs;
  bool ascending, descending;/* the segments' numbers so far */
  bool dropped;              /* a segment was emptied (finish_children) */
  uint32_t npending;         /* sub-messages read, in fr->pending */
  uint32_t nextra;           /* their further parts, in fr->extra */
  const pbd_FieldDef *open;  /* the field whose run is being read, or NULL */
  size_t open_at;            /* where its segment begins */
  uint32_t count;            /* its values so far */
  bool typed;                /* --typed-fields: the record tags' second form */
  bool few;                  /* at most 64 fields: marked in seen_bits, else in fr->seen */
  uint64_t seen_bits;        /* bit i: field i is seen */
} Fast;

static bool grow_bytes(uint8_t **p, size_t *cap, size_t need) {
  if (need <= *cap) return true;
  size_t want = *cap ? *cap * 2 : 1024;
  while (want < need) want *= 2;
  uint8_t *np = realloc(*p, want);
  if (!np) return false;
  *p = np;
  *cap = want;
  return true;
}

static __attribute__((noinline)) bool grow_rec(Fast *f, size_t n) {
  if (grow_bytes(&f->fr->rec, &f->fr->cap_rec, f->n + n)) return true;
  return oom(f->c);
}

/* Room for n more bytes of record; NULL when out of memory (status set). */
static inline uint8_t *room(Fast *f, size_t n) {
  if (f->n + n > f->fr->cap_rec && !grow_rec(f, n)) return NULL;
  uint8_t *w = f->fr->rec + f->n;
  f->n += n;
  return w;
}

static inline bool put_header(Fast *f, const pbd_FieldDef *fd, uint64_t count) {
  uint8_t *w = room(f, 16);
  if (!w) return false;
  put_u64(put_u64(w, fd->record_tag_[f->typed]), count);
  return true;
}

/* One of the frame's arrays (segs, pending, extra) full: twice as big, or
 * `first` elements; false out of memory (status set).  Apart from its
 * callers: it is seldom needed. */
static __attribute__((noinline)) bool grow_frame_array(Fast *f, void **p, uint32_t *cap,
                                                       uint32_t first, size_t elem) {
  uint32_t want = *cap ? *cap * 2 : first;
  void *np = realloc(*p, elem * want);
  if (!np) return oom(f->c);
  *p = np;
  *cap = want;
  return true;
}

static bool grow_segs(Fast *f) {
  return grow_frame_array(f, (void **)&f->fr->segs, &f->fr->cap_segs, 32, sizeof(Segment));
}

/* A field's part of the record, fr->rec[at, at + len), is finished: listed
 * as a segment, and the numbers' order so far noted. */
static inline bool push_segment(Fast *f, uint32_t number, size_t at, size_t len) {
  if (f->nsegs == f->fr->cap_segs && !grow_segs(f)) return false;
  if (f->nsegs) {
    uint32_t last = f->fr->segs[f->nsegs - 1].number;
    f->ascending &= number > last;
    f->descending &= number < last;
  }
  f->fr->segs[f->nsegs++] = (Segment){number, (uint32_t)at, (uint32_t)len};
  return true;
}

/* The open repeated field's run ends: its segment is finished (the count,
 * or a digest in place of more than kPbd_InlineScalars values) and listed.
 * (A singular field's segment is written whole as it is read.) */
static __attribute__((noinline)) void digest_run(Fast *f) {
  uint8_t *vals = f->fr->rec + f->open_at + 16;
  pbd_Hash128 h = digest(f->c, vals, 8 * (size_t)f->count);
  put_hash(vals, h);
  f->n = f->open_at + 32;
}

static inline __attribute__((always_inline)) bool close_run(Fast *f) {
  const pbd_FieldDef *fd = f->open;
  f->open = NULL;
  if (f->count == 0) { /* an empty packed run: no values, no field */
    f->n = f->open_at;
    return true;
  }
  put_u64(f->fr->rec + f->open_at + 8, f->count);
  if (fd->is_packable && f->count > kPbd_InlineScalars) digest_run(f);
  return push_segment(f, fd->number, f->open_at, f->n - f->open_at);
}

static bool grow_extra(Fast *f) {
  return grow_frame_array(f, (void **)&f->fr->extra, &f->fr->cap_extra, 16, sizeof(ExtraPart));
}

static bool grow_pending(Fast *f) {
  return grow_frame_array(f, (void **)&f->fr->pending, &f->fr->cap_pending, 16, sizeof(Pending));
}

/* A new mark for the fields seen in a message of more than 64 fields
 * (seen[i] == gen: field i is seen). */
static void next_gen(Frame *fr) {
  if (++fr->gen == 0) { /* wrapped: marks of old messages could read as this one's */
    memset(fr->seen, 0, sizeof *fr->seen * fr->cap_seen);
    fr->gen = 1;
  }
}

/* Whether field i of the message has been seen in it.  Most messages
 * have at most 64 fields, marked in one word: no memory to load or clear. */
static inline bool seen(const Fast *f, uint32_t i) {
  return f->few ? f->seen_bits >> i & 1 : f->fr->seen[i] == f->fr->gen;
}

static inline void mark_seen(Fast *f, uint32_t i) {
  if (f->few) f->seen_bits |= (uint64_t)1 << i;
  else f->fr->seen[i] = f->fr->gen;
}

/* A oneof member whose sibling came first: the general reader clears it. */
static bool sibling_seen(const Fast *f, const pbd_FieldDef *fd) {
  const pbd_OneofDef *o = fd->oneof;
  for (uint32_t i = 0; i < o->field_count; i++)
    if (o->fields[i] != fd && seen(f, o->fields[i]->index)) return true;
  return false;
}

/* Whether fd may begin a run here: not seen before in this message, no map
 * or group, no oneof sibling seen; if so it is marked seen. */
static inline bool starts_run(Fast *f, const pbd_FieldDef *fd) {
  if (seen(f, fd->index)) return false;
  if (!fd->plain_run_ &&
      (fd->is_map || fd->type == kPbd_Type_Group || (fd->oneof && sibling_seen(f, fd))))
    return false;
  mark_seen(f, fd->index);
  return true;
}

/* A field not seen before in this message begins: 1, 0 to give up, -1 out
 * of memory.  The run of the field before it, if repeated, ends; a repeated
 * field's run is opened, its header written with the count to come. */
static int new_field(Fast *f, const pbd_FieldDef *fd) {
  if (!starts_run(f, fd)) return 0;
  if (f->open && !close_run(f)) return -1;
  if (!fd->is_repeated) return 1;
  f->open = fd;
  f->open_at = f->n;
  f->count = 0;
  return put_header(f, fd, 0) ? 1 : -1;
}

/* A singular field's value: its header, then `len` bytes at the returned
 * pointer for the caller to fill, listed as a segment; NULL out of memory. */
static inline uint8_t *singular_room(Fast *f, const pbd_FieldDef *fd, size_t len) {
  size_t at = f->n;
  uint8_t *w = room(f, 16 + len);
  if (!w || !push_segment(f, fd->number, at, 16 + len)) return NULL;
  return put_u64(put_u64(w, fd->record_tag_[f->typed]), 1);
}

/* The fields this path reads are no map entry's (pbd_CanonPass_HashMessage). */
static inline bool dropped(const Ctx *c, const pbd_FieldDef *fd, uint64_t u, pbd_StrView str,
                           bool child_empty) {
  return pbd_CanonPass_DropsAsDefault(c, false, fd, u, str, child_empty);
}

/* A value of the open run of a repeated scalar.  This and scalar_one are
 * inline wherever they are called: once per scalar, and a call's saved
 * registers cost more than their work. */
static inline __attribute__((always_inline)) bool scalar_run(Fast *f, const pbd_FieldDef *fd,
                                                              uint64_t raw) {
  uint8_t *w;
  f->count++;
  return (w = room(f, 8)) && put_u64(w, canonical_scalar(f->c, fd, raw));
}

/* A singular scalar's value, left out when it is the default. */
static inline __attribute__((always_inline)) bool scalar_one(Fast *f, const pbd_FieldDef *fd,
                                                              uint64_t raw) {
  uint8_t *w;
  uint64_t v = pbd_DecodeScalarInline(fd->type, raw);
  /* (without presence a default goes by its bits: dropped()'s first case) */
  if (fd->has_presence ? f->c->o->equivalent && dropped(f->c, fd, v, (pbd_StrView){0}, false)
                       : v == fd->default_value.u)
    return true;
  return (w = singular_room(f, fd, 8)) &&
         put_u64(w, pbd_HashBitsOfType(f->c->o->float_bits, fd->type, v));
}

/* A packed run of fd's values, p[0, size): 1, 0 to give up (a malformed
 * run, a closed enum's unknown value), -1.  Malformed as pbd_Packed_Count
 * and pbd_Packed_Next find it (a size no multiple of the width, a varint
 * cut short or too long), read here without a call per value, into room
 * made once for as many values as the bytes can hold. */
static int packed_values(Fast *f, const pbd_FieldDef *fd, const uint8_t *p, size_t size) {
  const uint8_t *end = p + size;
  int wt = fd->wire_type_;
  size_t width = wt == kPbd_WireType_Fixed32 ? 4 : wt == kPbd_WireType_Fixed64 ? 8 : 1;
  if (size % width) return 0;
  uint8_t *w0 = room(f, 8 * (size / width)), *w = w0;
  if (!w) return -1;
  uint64_t raw;
  if (wt == kPbd_WireType_Varint) {
    bool closed = fd->closed_enum_;
    while (p < end) {
      raw = *p;
      if (raw < 0x80) p++;
      else if (!(p = pbd_Wire_ReadVarint(p, end, &raw))) return 0;
      if (closed && pbd_EnumValueUnknown(fd, raw)) return 0;
      w = put_u64(w, canonical_scalar(f->c, fd, raw));
    }
  } else {
    for (; p < end; p += width)
      w = put_u64(w, canonical_scalar(f->c, fd, width == 4 ? pbd_LoadLe32(p) : pbd_LoadLe64(p)));
  }
  f->count += (uint32_t)((size_t)(w - w0) / 8);
  f->n -= (size_t)(w0 + 8 * (size / width) - w); /* the room the values did not fill */
  return 1;
}

static inline bool string_value(Fast *f, const pbd_FieldDef *fd, const uint8_t *data,
                                size_t size) {
  uint8_t *o;
  if (fd->is_repeated) {
    f->count++;
    return (o = room(f, str_size(size))) && put_str(f->c, o, (const char *)data, size);
  }
  pbd_StrView v = {(const char *)data, size};
  if (dropped(f->c, fd, 0, v, false)) return true;
  return (o = singular_room(f, fd, str_size(size))) && put_str(f->c, o, v.data, v.size);
}

/* A sub-message: its 16 bytes of the record kept for its hash, which
 * finish_children puts there.  1, 0 to give up (too deep), -1. */
static inline int message_value(Fast *f, const pbd_FieldDef *fd, const uint8_t *data,
                                size_t size) {
  if (f->depth + 1 > f->c->max_depth) return 0;
  uint8_t *o;
  uint32_t seg = UINT32_MAX;
  if (fd->is_repeated) {
    f->count++;
    if (!(o = room(f, 16))) return -1;
  } else {
    if (!(o = singular_room(f, fd, 16))) return -1;
    seg = f->nsegs - 1;
  }
  if (f->npending == f->fr->cap_pending && !grow_pending(f)) return -1;
  f->fr->pending[f->npending++] =
      (Pending){fd, data, (uint32_t)size, (uint32_t)(o - f->fr->rec), seg, 1};
  return 1;
}

/* A singular sub-message seen before (rule 3: its parts merge), which the
 * oneof check of its first part has let by: the open run ends, and this
 * part joins the pending one.  1, 0 to give up (too many parts), -1. */
static __attribute__((noinline)) int merge_part(Fast *f, const pbd_FieldDef *fd,
                                                const uint8_t *data, size_t size) {
  if (f->open && !close_run(f)) return -1;
  uint32_t i = f->npending;
  while (i > 0 && f->fr->pending[i - 1].fd != fd) i--;
  if (i == 0 || f->fr->pending[i - 1].nparts == kMaxParts) return 0;
  if (f->nextra == f->fr->cap_extra && !grow_extra(f)) return -1;
  f->fr->pending[i - 1].nparts++;
  f->fr->extra[f->nextra++] = (ExtraPart){i - 1, (uint32_t)size, data};
  return 1;
}

/* Whether a field that does not begin a run is such a further part. */
static inline bool further_part(const Fast *f, const pbd_FieldDef *fd, int wire_type) {
  return fd->type == kPbd_Type_Message && !fd->is_repeated &&
         wire_type == kPbd_WireType_Delimited && seen(f, fd->index);
}

/* Pending sub-message i, hashed from all its parts. */
static __attribute__((noinline)) bool hash_merged(Fast *f, uint32_t i, Result *r) {
  const Pending *p = &f->fr->pending[i];
  pbd_Part parts[kMaxParts];
  parts[0] = (pbd_Part){p->data, p->size};
  uint32_t n = 1;
  for (uint32_t k = 0; k < f->nextra && n < p->nparts; k++)
    if (f->fr->extra[k].pending == i) parts[n++] = (pbd_Part){f->fr->extra[k].data, f->fr->extra[k].size};
  return pbd_CanonPass_HashMessage(f->c, p->fd->message_type, parts, n, f->depth + 1, r);
}

static inline bool hash_pending(Fast *f, uint32_t i, Result *r) {
  const Pending *p = &f->fr->pending[i];
  if (p->nparts > 1) return hash_merged(f, i, r);
  pbd_Part part = {p->data, p->size};
  return pbd_CanonPass_HashChild(f->c, p->fd->message_type, &part, f->depth + 1, r);
}

/* The sub-messages read, hashed in the order they came, each hash put in
 * its place; a singular one that is left out as a default (an empty one
 * with presence, under --equivalent) has its segment emptied.  1, 0 to
 * give up (a child's error, which the general reader then reports), -1.
 * (The children's frames are deeper ones: fr->pending stays put.) */
static int finish_children(Fast *f) {
  Ctx *c = f->c;
  for (uint32_t i = 0; i < f->npending; i++) {
    const Pending *p = &f->fr->pending[i];
    Result r;
    if (!hash_pending(f, i, &r)) {
      if (c->s->code == kPbd_Status_OutOfMemory) return -1;
      /* from now on the general reader reads every message: no fast
       * attempt reads a child twice */
      pbd_Status_Clear(c->s);
      c->no_fast = true;
      return 0;
    }
    if (p->seg != UINT32_MAX && dropped(c, p->fd, 0, (pbd_StrView){0}, r.empty)) {
      f->fr->segs[p->seg].len = 0;
      f->dropped = true;
      continue;
    }
    put_hash(f->fr->rec + p->at, r.hash);
  }
  return 1;
}


/* A segment copied: every one but an emptied one is at least its 16-byte
 * header, and most are at most 64 bytes (a scalar's, a sub-message's, a
 * short string's), copied in overlapping moves of fixed size: a call to
 * memcpy costs more than such a copy. */
static inline void copy_segment(uint8_t *w, const uint8_t *s, size_t len) {
  if (len > 64) memcpy(w, s, len);
  else if (len > 32) {
    memcpy(w, s, 32);
    memcpy(w + len - 32, s + len - 32, 32);
  } else if (len >= 16) {
    memcpy(w, s, 16);
    memcpy(w + len - 16, s + len - 16, 16);
  }
}

/* The record in number order: as read, reversed, or sorted, without the
 * segments emptied; *len its length. */
static const uint8_t *ordered_record(Fast *f, size_t *len) {
  *len = f->n;
  if (!f->dropped && (f->ascending || f->nsegs < 2)) return f->fr->rec;
  Segment *s = f->fr->segs;
  if (!f->descending) { /* insertion sort: the numbers are distinct, and few */
    for (uint32_t i = 1; i < f->nsegs; i++) {
      Segment t = s[i];
      uint32_t j = i;
      for (; j > 0 && s[j - 1].number > t.number; j--) s[j] = s[j - 1];
      s[j] = t;
    }
  }
  if (!grow_bytes(&f->fr->sorted, &f->fr->cap_sorted, f->n)) return NULL;
  uint8_t *w = f->fr->sorted;
  for (uint32_t k = 0; k < f->nsegs; k++) {
    const Segment *g = &s[f->descending ? f->nsegs - 1 - k : k];
    copy_segment(w, f->fr->rec + g->at, g->len);
    w += g->len;
  }
  *len = (size_t)(w - f->fr->sorted);
  return f->fr->sorted;
}

static bool start(Fast *f, Ctx *c, Frame *fr, const pbd_MessageDef *def, int depth) {
  /* (each member set, rather than the whole struct: open_at and count are
   * set when a run opens) */
  f->c = c;
  f->fr = fr;
  f->def = def;
  f->depth = depth;
  f->n = 0;
  f->nsegs = 0;
  f->ascending = f->descending = true;
  f->dropped = false;
  f->npending = f->nextra = 0;
  f->open = NULL;
  f->typed = c->o->typed_fields;
  f->few = def->field_count <= 64;
  f->seen_bits = 0;
  if (f->few) return true;
  if (def->field_count > fr->cap_seen) {
    uint32_t *seen = calloc(def->field_count, sizeof *seen);
    if (!seen) return oom(c);
    free(fr->seen);
    fr->seen = seen;
    fr->cap_seen = def->field_count;
    fr->gen = 0;
  }
  next_gen(fr);
  return true;
}

/* A LEN field's length at q: the byte after it and *len, or NULL when it
 * is malformed or runs past end. */
static inline const uint8_t *read_len(const uint8_t *q, const uint8_t *end, size_t *len) {
  uint64_t n = *q;
  if (n < 0x80) q++;
  else if (!(q = pbd_Wire_ReadVarint(q, end, &n))) return NULL;
  if (n > (uint64_t)(end - q)) return NULL;
  *len = (size_t)n;
  return q;
}

/* A tag the fused reader does not take (one of three bytes or more, or no
 * byte after it): the field read the long way, so that any error in it gives
 * up as before, and its tag again as a varint.  The byte after the tag and
 * *tag, or NULL to give up. */
static __attribute__((noinline)) const uint8_t *long_tag(Fast *f, const uint8_t *p,
                                                         const uint8_t *end, uint32_t *tag) {
  pbd_WireField w;
  uint64_t t;
  if (!pbd_Wire_ReadField(p, end, f->c->buf, f->c->max_depth - f->depth, &w, f->c->s) ||
      !(p = pbd_Wire_ReadVarint(p, end, &t)) || t > UINT32_MAX)
    return NULL;
  *tag = (uint32_t)t;
  return p;
}

/* A field's first value, or a value of a field whose run this is not: the
 * run of the field before ends, fd's begins (new_field), or a singular
 * sub-message's further part joins its first.  The byte after it when it
 * was a further part (*rc 1), NULL otherwise (*rc 1 to read the value, 0
 * to give up, -1). */
static inline const uint8_t *field_begins(Fast *f, const pbd_FieldDef *fd, int wire_type,
                                          const uint8_t *q, const uint8_t *end, int *rc) {
  *rc = new_field(f, fd);
  if (*rc != 0 || !further_part(f, fd, wire_type)) return NULL;
  size_t len;
  if (!(q = read_len(q, end, &len))) return NULL;
  *rc = merge_part(f, fd, q, len);
  return *rc == 1 ? q + len : NULL;
}

/* A packed run of fd's values at q (a LEN field of a packable field): the
 * byte after it, or NULL (*rc 0 to give up, -1). */
static const uint8_t *packed_field(Fast *f, const pbd_FieldDef *fd, const uint8_t *q,
                                   const uint8_t *end, int *rc) {
  size_t len;
  *rc = 0;
  if (!(q = read_len(q, end, &len))) return NULL;
  *rc = packed_values(f, fd, q, len);
  return *rc == 1 ? q + len : NULL;
}

/* The value of fd at q, in the wire type fd's values come in: read and
 * its part of the record written, by fd's kind (one switch for the wire
 * type, the field's kind and whether it is repeated).  The byte after
 * it, or NULL (*rc 0 to give up: malformed, a closed enum's unknown value,
 * invalid UTF-8, too deep; -1). */
static inline __attribute__((always_inline)) const uint8_t *
read_value(Fast *f, const pbd_FieldDef *fd, const uint8_t *q, const uint8_t *end, int *rc) {
  uint64_t v;
  size_t len;
  *rc = 0;
  switch ((pbd_FastKind_)fd->fast_kind_) {
    case kPbd_FastKind_Varint:
    case kPbd_FastKind_Varints:
      v = *q;
      if (v < 0x80) q++;
      else if (!(q = pbd_Wire_ReadVarint(q, end, &v))) return NULL;
      if (fd->closed_enum_ && pbd_EnumValueUnknown(fd, v)) return NULL;
      break;
    case kPbd_FastKind_Fixed64:
    case kPbd_FastKind_Fixed64s:
      if (end - q < 8) return NULL;
      v = pbd_LoadLe64(q);
      q += 8;
      break;
    case kPbd_FastKind_Fixed32:
    case kPbd_FastKind_Fixed32s:
      if (end - q < 4) return NULL;
      v = pbd_LoadLe32(q);
      q += 4;
      break;
    case kPbd_FastKind_Str:
    case kPbd_FastKind_Strs:
      if (!(q = read_len(q, end, &len))) return NULL;
      if (fd->validate_utf8 && pbd_Utf8_InvalidAt(q, len) != len) return NULL;
      *rc = string_value(f, fd, q, len) ? 1 : -1;
      return *rc == 1 ? q + len : NULL;
    case kPbd_FastKind_Message:
    case kPbd_FastKind_Messages:
      if (!(q = read_len(q, end, &len))) return NULL;
      *rc = message_value(f, fd, q, len);
      return *rc == 1 ? q + len : NULL;
    default:
      return NULL;
  }
  bool ok = fd->fast_kind_ >= kPbd_FastKind_Varints ? scalar_run(f, fd, v) : scalar_one(f, fd, v);
  *rc = ok ? 1 : -1;
  return ok ? q : NULL;
}

/* The fields of one part: 1, 0 to give up, -1.  A tag of one or two bytes
 * is read here (fields 1 to 2047: ONNX's AttributeProto.type is 20), with
 * a byte after it; any other the long way. */
static int read_part(Fast *f, pbd_Part part) {
  const uint8_t *p = part.data, *end = part.data + part.size;
  const pbd_MessageDef *def = f->def;
  while (p < end) {
    uint32_t tag = p[0];
    const uint8_t *q = p + 1;
    if (tag >= 0x80) {
      if (end - p >= 3 && p[1] < 0x80) {
        tag = (tag & 0x7f) | (uint32_t)p[1] << 7;
        q = p + 2;
      } else {
        q = long_tag(f, p, end, &tag);
      }
    } else if (q == end) {
      q = long_tag(f, p, end, &tag);
    }
    if (!q || tag < 8) goto give_up;
    const pbd_FieldDef *fd = pbd_MessageDef_FieldByNumber(def, tag >> 3);
    if (!fd) goto give_up;
    int wire_type = tag & 7, rc;
    if (fd != f->open) {
      const uint8_t *past = field_begins(f, fd, wire_type, q, end, &rc);
      if (past) {
        p = past;
        continue;
      }
      if (rc <= 0) goto out;
    }
    if (wire_type != fd->wire_type_) {
      if (!fd->is_packable || wire_type != kPbd_WireType_Delimited) goto give_up;
      p = packed_field(f, fd, q, end, &rc);
    } else {
      p = read_value(f, fd, q, end, &rc);
    }
    if (!p) goto out;
    continue;
  give_up:
    rc = 0;
  out:
    if (rc == 0) pbd_Status_Clear(f->c->s);
    return rc;
  }
  return 1;
}

int pbd_CanonPass_HashFast(Ctx *c, Frame *fr, const pbd_MessageDef *def, const pbd_Part *parts,
                           size_t nparts, int depth, Result *out) {
  size_t total = parts[0].size;
  for (size_t i = 1; i < nparts; i++) total += parts[i].size;
  if (total > kFastBytes || c->no_fast) return 0;
  Fast f;
  if (!start(&f, c, fr, def, depth)) return -1;
  for (size_t i = 0; i < nparts; i++) {
    int rc = read_part(&f, parts[i]);
    if (rc <= 0) return rc;
  }
  if (f.open && !close_run(&f)) return -1;
  int rc = f.npending ? finish_children(&f) : 1;
  if (rc <= 0) return rc;
  static const uint8_t kNothing[1];
  size_t len = 0;
  const uint8_t *rec = f.n ? ordered_record(&f, &len) : kNothing;
  if (!rec) return oom(c) ? -1 : -1;
  if (len == 0) rec = kNothing;
  out->hash = digest(c, rec, len);
  out->empty = len == 0;
  out->entry_unknown_enum = false;
  return 1;
}
