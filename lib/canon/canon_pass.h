/* pbdiff — the hash pass's working state, shared by its three files:
 * canon.c reads fields into slots, canon_record.c writes a finished
 * message's pbh1 record and hashes it, canon_api.c holds the entry points
 * of canon.h.  Internal to lib/. */
#ifndef PBD_CANON_PASS_H_
#define PBD_CANON_PASS_H_

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/canon/canon.h"
#include "canon/canon_internal.h"
#include "pbdiff/wire/wire.h"

/* A growing byte array in scratch memory. */
typedef struct {
  uint8_t *p;
  size_t n, cap;
  bool heap;      /* grown past kHeapBytes: malloc'd, freed with its message */
  XXH3_state_t *sink; /* a streamed record's: full, p's bytes go to it (canon_stream.c) */
} Bytes;

/* A slot's values this big grow with realloc, and a record this big is
 * hashed in pieces, rather than copied within scratch memory: the level of
 * a message with a million elements then holds their hashes once, not
 * three times. */
enum { kHeapBytes = 64 << 10 };

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
/* A field's values in a record written as it is read (canon_fast.c). */
typedef struct {
  uint32_t number;
  uint32_t at, len;        /* in the frame's rec */
} Segment;

/* A sub-message the fast path has read but not yet hashed: its hash goes
 * to the 16 bytes at `at` of the frame's rec when the message ends. */
typedef struct {
  const pbd_FieldDef *fd;
  const uint8_t *data;     /* its first part */
  uint32_t size;
  uint32_t at;
  uint32_t seg;            /* a singular field's segment, or UINT32_MAX */
  uint32_t nparts;         /* a singular one's: 1, or more merged (their
                              others are in the frame's extra) */
} Pending;

/* A further part of a pending singular sub-message (canon_fast.c). */
typedef struct {
  uint32_t pending;        /* its index in the frame's pending */
  uint32_t size;
  const uint8_t *data;
} ExtraPart;

typedef struct {
  Slot *slots;
  uint32_t capslots;
  uint32_t *slot_of;       /* field index -> slot index + 1; zero between messages */
  uint32_t cap_slot_of;
  /* the fast path's (canon_fast.c) */
  uint8_t *rec, *sorted;   /* the record as read, and in field-number order */
  size_t cap_rec, cap_sorted;
  Segment *segs;
  uint32_t cap_segs;
  uint32_t *seen;          /* field index -> the message (gen) that had it */
  uint32_t cap_seen, gen;
  Pending *pending;
  uint32_t cap_pending;
  ExtraPart *extra;
  uint32_t cap_extra;
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
  struct Stream *stream;   /* the record streamed as it is read (canon_stream.c), or NULL */
} Msg;

typedef struct {
  pbd_Hash128 hash;
  bool empty;
  bool entry_unknown_enum; /* a map entry whose value is an unknown closed enum */
  pbd_Value key;           /* a map entry's key */
} Result;

typedef struct {
  const uint8_t *buf;
  const pbd_ReadOptions *o;
  pbd_Arena *scratch;
  pbd_Status *s;
  int max_depth;
  const pbd_MessageDef *any;
  pbd_HashCache *record;         /* remembers large messages, or NULL */
  const pbd_HashCache *lookup;   /* already known hashes (input validated), or NULL */
  const pbd_HashCache *recalled; /* and those this context hashed before (record), or NULL */
  bool validate;                 /* only check the input (identical inputs) */
  bool no_fast;                  /* an error was met: no fast path (canon_fast.c) */
  bool fresh;                    /* the next message is a window's: its first byte is
                                    another message's, so it is neither looked up nor
                                    remembered by it (its sub-messages are) */
  Frame **frames;                /* by depth - base_depth */
  int nframes, base_depth;
} Ctx;

static inline size_t off(const Ctx *c, const uint8_t *p) { return (size_t)(p - c->buf); }

static inline bool oom(Ctx *c) {
  pbd_Status_SetError(c->s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}

static inline pbd_Hash128 digest(const Ctx *c, const void *d, size_t n) {
  XXH128_hash_t h = XXH3_128bits_withSeed(d, n, c->o->hash_seed);
  pbd_Hash128 r = {h.low64, h.high64};
  return r;
}

static inline uint8_t *put_u64(uint8_t *w, uint64_t v) {
  v = pbd_ToLe64(v);
  memcpy(w, &v, 8);
  return w + 8;
}

static inline uint8_t *put_hash(uint8_t *w, pbd_Hash128 h) { return put_u64(put_u64(w, h.lo), h.hi); }

static inline size_t str_size(size_t n) { return 8 + (n <= kPbd_InlineBytes ? n : 16); }

/* n bytes copied, n at most 16, in loads of fixed size that the compiler
 * makes moves: most strings of a model (names, inputs, outputs) are short,
 * and a call to memcpy costs more than the copy. */
static inline void copy_short(uint8_t *w, const char *d, size_t n) {
  if (n >= 8) {
    memcpy(w, d, 8);
    memcpy(w + n - 8, d + n - 8, 8);
  } else if (n >= 4) {
    memcpy(w, d, 4);
    memcpy(w + n - 4, d + n - 4, 4);
  } else if (n) {
    w[0] = (uint8_t)d[0];
    w[n / 2] = (uint8_t)d[n / 2];
    w[n - 1] = (uint8_t)d[n - 1];
  }
}

static inline uint8_t *put_str(const Ctx *c, uint8_t *w, const char *d, size_t n) {
  w = put_u64(w, n);
  if (n > kPbd_InlineBytes) return put_hash(w, digest(c, d, n));
  if (n <= 16) copy_short(w, d, n);
  else memcpy(w, d, n);
  return w + n;
}

/* A repeated scalar's canonical 64-bit slot (docs/hash.md). */
static inline uint64_t canonical_scalar(const Ctx *c, const pbd_FieldDef *fd, uint64_t raw) {
  uint64_t v = pbd_DecodeScalarInline(fd->type, raw);
  return pbd_HashBitsOfType(c->o->float_bits, fd->type, v);
}

/* Rules 5, 7 and 10 and --equivalent in one place, for a singular field's
 * value (a scalar's decoded bits, a string, or whether a sub-message is
 * empty): whether the record leaves it out as the field's default.
 * Without presence by bits (-0.0 is no default); with presence only under
 * --equivalent, floats by value; a map entry's key and value always, floats
 * by value unless --float-bits. */
static inline bool pbd_CanonPass_DropsAsDefault(const Ctx *c, bool map_entry,
                                                const pbd_FieldDef *fd, uint64_t scalar,
                                                pbd_StrView str, bool child_empty) {
  bool by_value;
  if (map_entry) by_value = !c->o->float_bits;
  else if (!fd->has_presence) by_value = false;
  else if (c->o->equivalent) by_value = true;
  else return false;
  pbd_ValueKind k = pbd_ValueKindOf(fd->type);
  if (k == kPbd_Value_Message) return child_empty;
  if (pbd_ValueKind_IsStr(k))
    return str.size == fd->default_value.s.size &&
           (str.size == 0 || memcmp(str.data, fd->default_value.s.data, str.size) == 0);
  if (by_value && (k == kPbd_Value_Float || k == kPbd_Value_Double))
    return pbd_Value_FloatEqual(k, scalar, fd->default_value.u);
  return scalar == fd->default_value.u;
}

/* Reads and hashes one message made of `nparts` parts at `depth`
 * (canon.c). */
bool pbd_CanonPass_HashMessage(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts,
                               size_t nparts, int depth, Result *out);
/* The general reader alone (canon.c), for a message the fast path gave up:
 * `frame` is its level's (pbd_CanonPass_FrameAt), `fresh` as c->fresh was
 * when HashMessage took it. */
bool pbd_CanonPass_HashSlow(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts,
                            size_t nparts, int depth, Frame *frame, bool fresh, Result *out);
/* The frame of nesting level `depth`, its field table big enough for
 * `fields`; NULL out of memory.  Inline: it is asked for every message. */
Frame *pbd_CanonPass_NewFrame(Ctx *c, int depth, uint32_t fields);
static inline Frame *pbd_CanonPass_FrameAt(Ctx *c, int depth, uint32_t fields) {
  int i = depth - c->base_depth;
  if (i >= 0 && i < c->nframes && c->frames[i] && fields <= c->frames[i]->cap_slot_of)
    return c->frames[i];
  return pbd_CanonPass_NewFrame(c, depth, fields);
}
/* Rule 13 for a LEN field no schema describes (canon.c). */
bool pbd_CanonPass_TryUnknown(Ctx *c, const uint8_t *data, size_t size, int depth,
                              pbd_Hash128 *h, bool *failed);
void pbd_CanonPass_FreeFrames(Ctx *c);
/* The record of a message whose parts are read, and its hash
 * (canon_record.c). */
bool pbd_CanonPass_Finish(Ctx *c, Msg *m, Result *out);

/* The fast path (canon_fast.c) for a message (of `nparts` parts, read as
 * one) whose fields each come in one run, as most writers write them (in
 * field-number order or its reverse, say): the record is written as the
 * fields are read, with no slots.  1: hashed into *out; 0: not such a
 * message (nothing is reported: the general reader reads it again, and
 * finds any error); -1: out of memory, the status set. */
int pbd_CanonPass_HashFast(Ctx *c, Frame *fr, const pbd_MessageDef *def, const pbd_Part *parts,
                           size_t nparts, int depth, Result *out);

/* A message of one part that is a field's value, hashed as HashMessage
 * would, without its work for what a child is not (a window's first
 * message) nor, most often, has (an Any, a map entry, a cache to look in):
 * one below the caches' size floor (most of a field-heavy model's) is not
 * remembered, the rest as HashMessage remembers them; and to the general
 * reader only if the fast path gives it up.  Inline in both readers: it is
 * asked for every sub-message. */
static inline bool pbd_CanonPass_HashChild(Ctx *c, const pbd_MessageDef *def,
                                           const pbd_Part *part, int depth, Result *r) {
  bool cached = part->size >= kPbd_HashCacheMinBytes;
  if (c->fresh || c->validate || def == c->any || def->is_map_entry ||
      (cached && (c->lookup || c->recalled)))
    return pbd_CanonPass_HashMessage(c, def, part, 1, depth, r);
  Frame *fr = pbd_CanonPass_FrameAt(c, depth, def->field_count);
  if (!fr) return oom(c);
  int fast = pbd_CanonPass_HashFast(c, fr, def, part, 1, depth, r);
  if (fast == 0) return pbd_CanonPass_HashSlow(c, def, part, 1, depth, fr, false, r); /* adds it */
  if (fast < 0) return false;
  if (cached) pbd_HashCache_Add(c->record, part->data, part->size, depth, r->hash, r->empty);
  return true;
}

/* A large message whose fields are all elements of repeated string, bytes
 * or message fields (or unknown fields), in number order, is hashed as it
 * is read: its record is fed to the digest value by value instead of kept
 * (canon_stream.c).  Start: true when m is set up so (else m is as it was
 * and the message is read the usual way); the slot of every value is then
 * pbd_CanonPass_StreamSlot's, and FinishStream gives the hash. */
bool pbd_CanonPass_StartStream(Ctx *c, Msg *m, const pbd_Part *parts, size_t nparts);
Slot *pbd_CanonPass_StreamSlot(Ctx *c, Msg *m, uint32_t number, const pbd_FieldDef *fd);
bool pbd_CanonPass_FinishStream(Ctx *c, Msg *m, Result *out);

#endif
