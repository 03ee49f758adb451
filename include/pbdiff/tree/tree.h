/* pbdiff — the canonical message tree.
 *
 * pbd_Tree_Parse reads one encoded message into a tree in which every
 * encoding of the same meaning looks the same (docs/semantics.md): fields
 * sorted by number, last value wins, messages merged, packed == unpacked,
 * map entries sorted by key with the last duplicate winning, defaults
 * normalised, unknown fields grouped by number.  Every message carries a
 * 128-bit hash of its canonical content, so that equal subtrees are found
 * without walking them.
 *
 * All memory comes from the arena passed in; strings and bytes (and long
 * runs of fixed-width values, pbd_Field.stride) are views
 * into the input buffer, which must outlive the tree. */
#ifndef PBD_TREE_H_
#define PBD_TREE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif


/* A value of an unknown or schemaless field: the kind travels with each value,
 * since one number can come with several wire types. */
typedef struct {
  pbd_ValueKind kind;
  union {
    uint64_t u;
    pbd_StrView s;
    pbd_Message *m;
  };
} pbd_UnknownValue;

/* All the values of one field of a message.  Known fields store values in a
 * typed array chosen by `kind`; a packed run stays one array of decoded
 * scalars.  A repeated fixed-width field (float, double, fixed32/64,
 * sfixed32/64) whose values arrived in one run, packed or unpacked, is not
 * copied: `stride` is then not 0, and its values stay in the input, 4 or 8
 * little-endian bytes each, `stride` bytes apart from v.fixed (a tensor's
 * millions of weights are read where they are).  Read scalars with
 * pbd_Field_Scalar, pbd_Field_Scalars or pbd_Field_Value, which give the
 * same 64-bit slot either way. */
typedef struct {
  uint32_t number;
  pbd_ValueKind kind;          /* kind of every value (known fields); None for
                                  unknown fields, whose values carry their own */
  const pbd_FieldDef *def;     /* NULL: an unknown field (or schemaless) */
  uint32_t count;              /* 1 for a singular field */
  uint8_t stride;              /* 0, or the values are in v.fixed (above) */
  union {
    uint64_t *scalars;         /* Int, UInt, Bool, Enum, Float, Double */
    const uint8_t *fixed;      /* stride != 0: the first value's bytes */
    pbd_StrView *strs;         /* String, Bytes */
    pbd_Message **msgs;        /* Message */
    pbd_UnknownValue *unknowns;/* def == NULL */
  } v;
} pbd_Field;

typedef struct pbd_LazyTree pbd_LazyTree;

/* A message's fields are read through pbd_Message_Fields and
 * pbd_Message_FieldCount: a message of a shallow tree (pbd_LazyTree) is
 * read from its bytes on first use. */
struct pbd_Message {
  const pbd_MessageDef *def;   /* NULL for schemaless and unknown sub-messages */
  pbd_Field *fields_;          /* present fields, by number; for one number a known
                                  field comes before an unknown one */
  uint32_t field_count_;
  bool building_;              /* internal: true until the message is finished */
  pbd_Hash128 hash;            /* canonical content hash (see pbd_Tree_Parse) */
  struct pbd_Unread *unread_;  /* internal: a shallow message not read yet */
  union {
    /* For google.protobuf.Any whose type is in the schema: the payload read
     * as that type (pbd_Message_AnyPayload). */
    const pbd_Message *any_payload_;
    void *builder_;            /* internal, while building_ */
  };
};

/* The present fields of a finished message, by number (read first when the
 * message is a shallow one). */
const pbd_Field *pbd_Message_Fields(const pbd_Message *m);
uint32_t pbd_Message_FieldCount(const pbd_Message *m);
/* For google.protobuf.Any whose type is in the schema: the payload read as
 * that type (its URL is pbd_Message_AnyTypeUrl).  NULL when not an Any or
 * not resolvable (then `value` is compared as bytes). */
const pbd_Message *pbd_Message_AnyPayload(const pbd_Message *m);
/* Reads two messages' fields now, those of two shallow trees on two
 * threads when both are large (a walk about to compare them). */
void pbd_Message_ReadPair(const pbd_Message *a, const pbd_Message *b);
/* A shallow message not read yet: its bytes and the tree it is read from
 * (0 and NULL once read).  Messages of two trees can be read on two
 * threads at once: the trees share nothing. */
size_t pbd_Message_UnreadBytes(const pbd_Message *m);
const pbd_LazyTree *pbd_Message_UnreadTree(const pbd_Message *m);
/* No field at all, and no resolved Any payload. */
bool pbd_Message_IsEmpty(const pbd_Message *m);

/* Where two shallow messages differ (lib/tree/tree_window.c and
 * tree_hash_window.c say when): `left` and `right` are messages of the two
 * windows' bytes, unread, of the same type.  For each of `fields`, the
 * `base` elements before the windows are the same on both sides, and so
 * are those after; the rest of the messages is in the windows whole.  A
 * walk compares the windows instead of the messages, the elements of those
 * fields `base` higher. */
typedef struct {
  uint32_t number;
  const pbd_FieldDef *field; /* NULL: an unknown field, or no schema */
  uint32_t base;
} pbd_WindowField;
typedef struct {
  pbd_Message *left, *right;
  const pbd_WindowField *fields; /* by number */
  uint32_t nfields;
} pbd_MessageWindow;
/* false (and nothing read) when the messages are small, read already, or
 * differ in more than one sequence field's occurrences (the bytes decide). */
bool pbd_Message_NarrowPair(const pbd_Message *a, const pbd_Message *b, pbd_MessageWindow *out);
/* The same by the elements' hashes, for messages whose bytes differ all
 * along (a re-encoding with one change): the common prefix and suffix of
 * each repeated message, string or bytes field's elements are left out,
 * every other field is in the windows whole.  keep_whole(ctx, field): a
 * field whose elements must not be narrowed (a rule matches them other
 * than as a sequence).  false when nothing would be left out. */
bool pbd_Message_NarrowByHash(const pbd_Message *a, const pbd_Message *b,
                              bool (*keep_whole)(void *ctx, const pbd_FieldDef *field),
                              void *ctx, pbd_MessageWindow *out);



/* Parses buf[begin, end) as a message of type `type` (NULL: schemaless).
 * Byte offsets in errors count from buf.  Returns the root, or NULL with the
 * status set (Malformed, BadUtf8, MaxDepthExceeded, UnknownField,
 * OutOfMemory) naming the offset and, where known, the field path. */
pbd_Message *pbd_Tree_Parse(const pbd_MessageDef *type, const uint8_t *buf, size_t begin,
                            size_t end, const pbd_ReadOptions *opts, pbd_Arena *arena,
                            pbd_Status *s);

/* The pbs1 fingerprint of a whole tree (docs/hash.md): SHA-256 over one
 * self-delimiting serialisation of its canonical content, with the same
 * normalisations as the message hash (o: float_bits, typed_fields).  Equal
 * meanings give equal digests; two meanings with one digest would be a
 * SHA-256 collision.  False only when the digest library fails. */
bool pbd_Tree_Sha256(const pbd_Message *root, const pbd_ReadOptions *o, uint8_t out[32]);

/* A shallow tree: each message is read one level at a time, when its fields
 * are first asked for; the sub-messages of a level carry only their hash
 * (from the cache of a hash pass over the same buffer, else computed by
 * lib/canon/canon.c) and their byte ranges.  So a walk that descends only where
 * hashes differ reads only what differs.  The buffer must have passed a hash
 * pass with the same options (so reading it cannot fail but for memory). */

/* A shallow tree over buf; cache may be NULL.  NULL when out of memory. */
pbd_LazyTree *pbd_LazyTree_New(const uint8_t *buf, const pbd_ReadOptions *o,
                               const pbd_HashCache *cache, pbd_Arena *arena);
/* The message buf[begin, end) of `type` whose hash (from the hash pass) is
 * `hash`, not read yet; NULL when out of memory. */
pbd_Message *pbd_LazyTree_Root(pbd_LazyTree *t, const pbd_MessageDef *type, size_t begin,
                               size_t end, pbd_Hash128 hash);
/* false (with the status) when reading a message failed: its fields then
 * looked empty, so a result built on them must not be trusted. */
bool pbd_LazyTree_Ok(const pbd_LazyTree *t, pbd_Status *s);
void pbd_LazyTree_Free(pbd_LazyTree *t);

/* The i-th value of a field as a pbd_Value. */
pbd_Value pbd_Field_Value(const pbd_Field *f, uint32_t i);
/* Of a known scalar field: value i as its 64-bit slot; values [from,
 * from + n) into out. */
uint64_t pbd_Field_Scalar(const pbd_Field *f, size_t i);
void pbd_Field_Scalars(const pbd_Field *f, size_t from, size_t n, uint64_t *out);
/* Of two known scalar fields, each with n or more values: the first index
 * from `from` on, below n, where their slots differ (n: none does). */
size_t pbd_Field_FirstScalarDifference(const pbd_Field *x, const pbd_Field *y, size_t from,
                                       size_t n);

/* A map entry's key (1) or value (2); the default when the entry leaves it
 * out (an empty message, m == NULL, for a message value). */
pbd_Value pbd_MapEntry_Part(const pbd_Message *entry, uint32_t number);

/* The type URL of an Any with a parsed payload (field 1), else empty. */
pbd_StrView pbd_Message_AnyTypeUrl(const pbd_Message *m);

/* Finds a field of a finished message by number (the known one when both a
 * known and an unknown field have it); NULL when absent. */
const pbd_Field *pbd_Message_FindField(const pbd_Message *m, uint32_t number);

#ifdef __cplusplus
}
#endif
#endif
