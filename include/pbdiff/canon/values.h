/* pbdiff — what values mean, for every reader of the wire: the kinds of
 * value, the schema type's reading of a raw varint or fixed value (rule 8),
 * float equality (rule 10), the order of map keys, the defaults of fields,
 * and the options that decide how an input is read.  The hash pass
 * (canon.h) and the tree (tree.h) both build on it. */
#ifndef PBD_VALUES_H_
#define PBD_VALUES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/wire/wire.h"

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

/* One byte range of a message written in parts. */
typedef struct {
  const uint8_t *data;
  size_t size;
} pbd_Part;

typedef struct pbd_HashCache pbd_HashCache;

/* How an input is read, by the hash pass and the tree alike. */
typedef struct {
  int max_depth;               /* nesting limit; <= 0 means kPbd_DefaultMaxDepth;
                                  at most kPbd_MaxDepthLimit */
  bool equivalent;             /* drop set-to-default fields that have presence */
  bool ignore_unknown;         /* drop unknown fields */
  bool strict;                 /* an unknown field is an error */
  bool float_bits;             /* hash floats by bit pattern (else by value) */
  uint64_t hash_seed;          /* XXH3 seed; fixed for stored fingerprints,
                                  random per run for comparisons */
  bool typed_fields;           /* a schema field's type joins its hash record, so
                                  that a field retyped between two schema versions
                                  (float and fixed32 hold the same bits) never
                                  hashes equal; comparisons across versions only,
                                  never fingerprints (docs/hash.md) */
  const pbd_DefPool *pool;     /* to resolve Any type URLs (may be NULL) */
} pbd_ReadOptions;

/* The deepest nesting any reader accepts, whatever max_depth asks: the
 * readers recurse once per level (the hash pass, the trees, --explain), and
 * this many levels stay well within an 8 MiB thread stack, with sanitizers
 * too (tests/cli/check_cli.c nests inputs this deep through every command). */
enum { kPbd_MaxDepthLimit = 1000 };

/* The nesting limit the options give: max_depth, the default when <= 0,
 * and never over kPbd_MaxDepthLimit. */
static inline int pbd_ReadOptions_MaxDepth(const pbd_ReadOptions *o) {
  int d = o && o->max_depth > 0 ? o->max_depth : kPbd_DefaultMaxDepth;
  return d < kPbd_MaxDepthLimit ? d : kPbd_MaxDepthLimit;
}

/* Rule 8: a raw varint or fixed value read as the schema type reads it, in
 * the tree's canonical 64-bit slot (int32/enum/sfixed32 sign-extended from
 * the low 32 bits, uint32/fixed32/float the low 32 bits, sint zigzag-decoded,
 * bool 0 or 1, the rest as is). */
uint64_t pbd_FieldType_DecodeScalar(pbd_FieldType t, uint64_t raw);

/* The default value of a schema field as a pbd_Value (an empty message for
 * message fields is represented with m == NULL). */
pbd_Value pbd_FieldDef_DefaultValue(const pbd_FieldDef *f);

/* Float or Double values (their bits in a and b) equal as rule 10 says:
 * as `==`, except that all NaNs are equal. */
bool pbd_Value_FloatEqual(pbd_ValueKind k, uint64_t a, uint64_t b);
/* The order of map keys (<0, 0, >0): integers by value, bools false before
 * true, strings bytewise; keys of different kinds by kind. */
int pbd_Value_CompareKeys(const pbd_Value *a, const pbd_Value *b);

#ifdef __cplusplus
}
#endif
#endif
