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
 * All memory comes from the arena passed in; strings and bytes are views
 * into the input buffer, which must outlive the tree. */
#ifndef PBD_TREE_H_
#define PBD_TREE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "base.h"
#include "schema.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a value is stored and what it means. */
typedef enum {
  kPbd_Value_None = 0,  /* absent */
  /* Values of schema fields (pbd_Field.def set). */
  kPbd_Value_Int,       /* int32/int64/sint32/sint64/sfixed32/sfixed64: `i` */
  kPbd_Value_UInt,      /* uint32/uint64/fixed32/fixed64: `u` */
  kPbd_Value_Bool,      /* `u` is 0 or 1 */
  kPbd_Value_Enum,      /* `i` (an int32); name via field->enum_type */
  kPbd_Value_Float,     /* `u` holds the 32 bits of the float */
  kPbd_Value_Double,    /* `u` holds the 64 bits of the double */
  kPbd_Value_String,    /* `s` */
  kPbd_Value_Bytes,     /* `s` */
  kPbd_Value_Message,   /* `m` (also groups and map entries) */
  /* Values of unknown fields and of schemaless input (pbd_Field.def NULL):
   * only the wire says what they are. */
  kPbd_Value_Varint,    /* `u` */
  kPbd_Value_Fixed32,   /* `u` (low 32 bits) */
  kPbd_Value_Fixed64,   /* `u` */
  kPbd_Value_Len,       /* `s`: a LEN field that does not parse as a message */
  kPbd_Value_LenMessage,/* `m`: a LEN field read as a nested message */
  kPbd_Value_Group,     /* `m`: a group (wire types 3/4) */
} pbd_ValueKind;

typedef struct pbd_Message pbd_Message;

/* One value, as handed to reporters and formatters. */
typedef struct {
  pbd_ValueKind kind;
  const pbd_FieldDef *field;   /* the schema field, or NULL */
  union {
    uint64_t u;
    int64_t i;
    pbd_StrView s;
    const pbd_Message *m;
  };
} pbd_Value;

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
 * scalars. */
typedef struct {
  uint32_t number;
  pbd_ValueKind kind;          /* kind of every value (known fields); None for
                                  unknown fields, whose values carry their own */
  const pbd_FieldDef *def;     /* NULL: an unknown field (or schemaless) */
  uint32_t count;              /* 1 for a singular field */
  union {
    uint64_t *scalars;         /* Int, UInt, Bool, Enum, Float, Double */
    pbd_StrView *strs;         /* String, Bytes */
    pbd_Message **msgs;        /* Message */
    pbd_UnknownValue *unknowns;/* def == NULL */
  } v;
} pbd_Field;

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
/* No field at all, and no resolved Any payload. */
bool pbd_Message_IsEmpty(const pbd_Message *m);

/* One byte range of a message written in parts. */
typedef struct {
  const uint8_t *data;
  size_t size;
} pbd_Part;

typedef struct pbd_HashCache pbd_HashCache;

typedef struct {
  int max_depth;               /* nesting limit; <= 0 means kPbd_DefaultMaxDepth */
  bool equivalent;             /* drop set-to-default fields that have presence */
  bool ignore_unknown;         /* drop unknown fields */
  bool strict;                 /* an unknown field is an error */
  bool float_bits;             /* hash floats by bit pattern (else by value) */
  uint64_t hash_seed;          /* XXH3 seed; fixed for stored fingerprints,
                                  random per run for comparisons */
  const pbd_DefPool *pool;     /* to resolve Any type URLs (may be NULL) */
} pbd_TreeOptions;

/* Parses buf[begin, end) as a message of type `type` (NULL: schemaless).
 * Byte offsets in errors count from buf.  Returns the root, or NULL with the
 * status set (Malformed, BadUtf8, MaxDepthExceeded, UnknownField,
 * OutOfMemory) naming the offset and, where known, the field path. */
pbd_Message *pbd_Tree_Parse(const pbd_MessageDef *type, const uint8_t *buf, size_t begin,
                            size_t end, const pbd_TreeOptions *opts, pbd_Arena *arena,
                            pbd_Status *s);

/* A shallow tree: each message is read one level at a time, when its fields
 * are first asked for; the sub-messages of a level carry only their hash
 * (from the cache of a hash pass over the same buffer, else computed by
 * lib/canon.c) and their byte ranges.  So a walk that descends only where
 * hashes differ reads only what differs.  The buffer must have passed a hash
 * pass with the same options (so reading it cannot fail but for memory). */
typedef struct pbd_LazyTree pbd_LazyTree;

/* A shallow tree over buf; cache may be NULL.  NULL when out of memory. */
pbd_LazyTree *pbd_LazyTree_New(const uint8_t *buf, const pbd_TreeOptions *o,
                               const pbd_HashCache *cache, pbd_Arena *arena);
/* The message buf[begin, end) of `type` whose hash (from the hash pass) is
 * `hash`, not read yet; NULL when out of memory. */
pbd_Message *pbd_LazyTree_Root(pbd_LazyTree *t, const pbd_MessageDef *type, size_t begin,
                               size_t end, pbd_Hash128 hash);
/* false (with the status) when reading a message failed: its fields then
 * looked empty, so a result built on them must not be trusted. */
bool pbd_LazyTree_Ok(const pbd_LazyTree *t, pbd_Status *s);
void pbd_LazyTree_Free(pbd_LazyTree *t);

/* Rule 8: a raw varint or fixed value read as the schema type reads it, in
 * the tree's canonical 64-bit slot (int32/enum/sfixed32 sign-extended from
 * the low 32 bits, uint32/fixed32/float the low 32 bits, sint zigzag-decoded,
 * bool 0 or 1, the rest as is). */
uint64_t pbd_FieldType_DecodeScalar(pbd_FieldType t, uint64_t raw);

/* The i-th value of a field as a pbd_Value. */
pbd_Value pbd_Field_Value(const pbd_Field *f, uint32_t i);

/* The default value of a schema field as a pbd_Value (an empty message for
 * message fields is represented with m == NULL). */
pbd_Value pbd_FieldDef_DefaultValue(const pbd_FieldDef *f);

/* Float or Double values (their bits in a and b) equal as rule 10 says:
 * as `==`, except that all NaNs are equal. */
bool pbd_Value_FloatEqual(pbd_ValueKind k, uint64_t a, uint64_t b);
/* The order of map keys (<0, 0, >0): integers by value, bools false before
 * true, strings bytewise; keys of different kinds by kind. */
int pbd_Value_CompareKeys(const pbd_Value *a, const pbd_Value *b);
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
