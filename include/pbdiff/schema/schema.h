/* pbdiff — schema definitions loaded from a serialized FileDescriptorSet.
 *
 * Defs are built once by the loader and then read-only: every pointer below
 * stays valid until pbd_DefPool_Free.  The structs are visible so that the
 * hot path (the tree builder) reads fields directly; treat them as const.
 * The loader is the project's own (upb cannot be built against on Debian 12,
 * see docs/architecture.md); this header is the seam where a upb-backed loader could
 * replace it. */
#ifndef PBD_SCHEMA_H_
#define PBD_SCHEMA_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values as in google/protobuf/descriptor.proto. */
typedef enum {
  kPbd_Type_Double = 1,
  kPbd_Type_Float = 2,
  kPbd_Type_Int64 = 3,
  kPbd_Type_UInt64 = 4,
  kPbd_Type_Int32 = 5,
  kPbd_Type_Fixed64 = 6,
  kPbd_Type_Fixed32 = 7,
  kPbd_Type_Bool = 8,
  kPbd_Type_String = 9,
  kPbd_Type_Group = 10,
  kPbd_Type_Message = 11,
  kPbd_Type_Bytes = 12,
  kPbd_Type_UInt32 = 13,
  kPbd_Type_Enum = 14,
  kPbd_Type_SFixed32 = 15,
  kPbd_Type_SFixed64 = 16,
  kPbd_Type_SInt32 = 17,
  kPbd_Type_SInt64 = 18,
} pbd_FieldType;

typedef enum {
  kPbd_Label_Optional = 1,
  kPbd_Label_Required = 2,
  kPbd_Label_Repeated = 3,
} pbd_Label;

typedef enum { kPbd_Syntax_Proto2 = 2, kPbd_Syntax_Proto3 = 3 } pbd_Syntax;

typedef struct pbd_DefPool pbd_DefPool;
typedef struct pbd_FileDef pbd_FileDef;
typedef struct pbd_MessageDef pbd_MessageDef;
typedef struct pbd_FieldDef pbd_FieldDef;
typedef struct pbd_OneofDef pbd_OneofDef;
typedef struct pbd_EnumDef pbd_EnumDef;
typedef struct pbd_EnumValueDef pbd_EnumValueDef;

struct pbd_FileDef {
  const char *name;     /* "google/protobuf/any.proto" */
  const char *package;  /* "" when none */
  pbd_Syntax syntax;
  uint64_t content_hash_; /* internal: XXH3 of its FileDescriptorProto bytes */
};

struct pbd_EnumValueDef {
  const char *name;     /* short name, "TENSOR" */
  int32_t number;
};

struct pbd_EnumDef {
  const char *full_name;       /* "onnx.AttributeProto.AttributeType" */
  const pbd_FileDef *file;
  bool is_closed;              /* proto2 enums are closed, proto3 open */
  const pbd_EnumValueDef *values;  /* declaration order; values[0] is the default */
  uint32_t value_count;        /* >= 1 (the loader rejects empty enums) */
  const pbd_EnumValueDef **by_number; /* sorted by number (stable), for lookup */
  bool dense_;                 /* internal: by_number[i] is numbered i, for every i
                                  (most enums): a known number is one below value_count */
};

/* The value a field holds when unset, in the tree's canonical form:
 * integers, enums and bools in `u` as the tree stores them (signed types as
 * int64 cast to uint64, bool 0/1); float as its 32 bits, double as its 64
 * bits; strings and bytes in `s` (bytes already unescaped). */
typedef struct {
  uint64_t u;
  pbd_StrView s;
} pbd_DefaultValue;

/* Internal, for the hash pass's fast path: a field's values by their wire
 * type and whether they come in a run (repeated), so that one switch reads
 * a value; a map or a group is the general reader's. */
typedef enum {
  kPbd_FastKind_GiveUp = 0,
  kPbd_FastKind_Varint, kPbd_FastKind_Fixed64, kPbd_FastKind_Fixed32,
  kPbd_FastKind_Str, kPbd_FastKind_Message,
  kPbd_FastKind_Varints, kPbd_FastKind_Fixed64s, kPbd_FastKind_Fixed32s,
  kPbd_FastKind_Strs, kPbd_FastKind_Messages,
} pbd_FastKind_;

struct pbd_FieldDef {
  const char *name;            /* "elem_type"; for a group field, the field name */
  const char *full_name;       /* "onnx.TypeProto.Tensor.elem_type"; for an extension,
                                  the extension's full name */
  const char *json_name;
  uint32_t number;
  pbd_Label label;
  pbd_FieldType type;
  const pbd_MessageDef *containing;   /* the message it is a field of (the extendee
                                         for an extension) */
  const pbd_MessageDef *message_type; /* Message and Group fields */
  const pbd_EnumDef *enum_type;       /* Enum fields */
  const pbd_OneofDef *oneof;          /* real oneof, NULL for none or a synthetic
                                         proto3-optional oneof */
  uint32_t index;              /* position in containing->fields */
  bool is_repeated;            /* label == Repeated */
  bool is_packed;              /* repeated scalar that this schema writes packed
                                  ([packed=true], or proto3 unless packed=false) */
  bool is_packable;            /* repeated and a scalar numeric type or enum */
  bool has_presence;           /* not repeated, and: proto2, proto3 `optional`,
                                  message/group type, oneof member, extension */
  bool is_extension;
  bool is_map;                 /* repeated message field whose type is a map entry */
  bool proto3_optional;
  bool validate_utf8;          /* string field of a proto3 file */
  bool has_default;            /* proto2 [default = ...] given */
  /* internal, for the hash pass's fast path (lib/canon/canon_fast.c),
   * which asks them of every field it reads: */
  uint8_t wire_type_;          /* the wire type its values come in unpacked */
  bool closed_enum_;           /* an enum field whose enum is closed */
  bool plain_run_;             /* not a map, a group or a oneof member */
  uint8_t fast_kind_;          /* pbd_FastKind_: how a value in wire_type_ is read */
  uint64_t record_tag_[2];     /* the first word of its part of a pbh1 record
                                  (docs/hash.md): [1] with --typed-fields */
  pbd_DefaultValue default_value;
};

struct pbd_OneofDef {
  const char *name;
  const pbd_MessageDef *containing;
  const pbd_FieldDef **fields;
  uint32_t field_count;
};

/* Field numbers [start, end) reserved for extensions. */
typedef struct {
  uint32_t start, end;
} pbd_ExtensionRange;

struct pbd_MessageDef {
  const char *full_name;       /* "onnx.ModelProto" */
  const char *name;            /* "ModelProto" */
  const pbd_FileDef *file;
  /* Every field of the message, including the extensions of it found
   * anywhere in the pool (is_extension set), sorted by number.  Field i has
   * index i. */
  const pbd_FieldDef **fields;
  uint32_t field_count;
  /* by_number[n] is the field numbered n (or NULL) for n < by_number_count:
   * a direct lookup for the usual small, dense numbers; larger numbers fall
   * back to a binary search over `fields`. */
  const pbd_FieldDef **by_number;
  uint32_t by_number_count;
  const pbd_OneofDef *oneofs;  /* real oneofs only (not proto3-optional ones) */
  uint32_t oneof_count;
  bool is_map_entry;           /* map entry: field 1 key, field 2 value */
  const pbd_ExtensionRange *extension_ranges; /* as declared; every extension of
                                  the message has its number in one of them */
  uint32_t extension_range_count;
};

/* Returns a new empty pool, or NULL when out of memory. */
pbd_DefPool *pbd_DefPool_New(void);
void pbd_DefPool_Free(pbd_DefPool *pool);

/* Adds the files of a serialized FileDescriptorSet.  A file whose name is
 * already in the pool is skipped (so two sets that both include
 * descriptor.proto load).  `source_name` names the set in errors.  Returns
 * false with the status set (kPbd_Status_BadSchema, with byte offset where
 * the bytes are malformed). */
bool pbd_DefPool_AddFileDescriptorSet(pbd_DefPool *pool, const uint8_t *data, size_t size,
                                      const char *source_name, pbd_Status *s);

/* Compiles .proto sources by running
 *   protoc --include_imports -I DIR... -o TMPFILE FILE...
 * (the system include directory /usr/include is added last so that the
 * well-known types resolve) and adds the result.  protoc's own error output
 * is passed through to stderr. */
bool pbd_DefPool_AddProtoFiles(pbd_DefPool *pool, const char *const *protos, size_t nprotos,
                               const char *const *include_dirs, size_t ninclude,
                               pbd_Status *s);
/* The descriptor sets added so far (those AddProtoFiles compiled included),
 * concatenated: one serialized FileDescriptorSet holding every file, as
 * protoc --descriptor_set_in reads it.  *n gets its size; never NULL. */
const uint8_t *pbd_DefPool_DescriptorSetBytes(const pbd_DefPool *pool, size_t *n);

/* Resolves type names, attaches extensions to their extendees, sorts fields
 * and builds lookups.  Must be called once after the last Add and before
 * any lookup.  Errors: unresolvable type name, duplicate field numbers (also
 * between an extension and a field), duplicate full names, a map entry
 * without key/value fields. */
bool pbd_DefPool_Finalize(pbd_DefPool *pool, pbd_Status *s);

const pbd_MessageDef *pbd_DefPool_FindMessageByName(const pbd_DefPool *pool,
                                                    const char *full_name);
const pbd_EnumDef *pbd_DefPool_FindEnumByName(const pbd_DefPool *pool, const char *full_name);
/* Finds a field or extension by its full name ("pkg.Msg.field"). */
const pbd_FieldDef *pbd_DefPool_FindFieldByFullName(const pbd_DefPool *pool,
                                                    const char *full_name);
/* Number of messages in the pool, and the i-th (in load order): lets the CLI
 * guess a type when the schema has exactly one top-level candidate. */
size_t pbd_DefPool_MessageCount(const pbd_DefPool *pool);
/* The message type of `file` at an index path, as the Confluent Schema
 * Registry names one: indexes[0] the top-level message in declaration
 * order, each next index a nested type of the one before ([1, 0]: the
 * first nested type of the second message).  NULL when the path names
 * none. */
const pbd_MessageDef *pbd_DefPool_FindMessageByIndexes(const pbd_DefPool *pool,
                                                       const pbd_FileDef *file,
                                                       const uint32_t *indexes, size_t n);
const pbd_MessageDef *pbd_DefPool_Message(const pbd_DefPool *pool, size_t i);

/* The field with this number (by_number, else a binary search over
 * m->fields); NULL when the message has no such number. */
const pbd_FieldDef *pbd_MessageDef_FindFieldByNumber(const pbd_MessageDef *m, uint32_t number);
/* The same, inline for the usual small field numbers: readers ask it for
 * every field of the wire. */
static inline const pbd_FieldDef *pbd_MessageDef_FieldByNumber(const pbd_MessageDef *m,
                                                               uint32_t number) {
  return number < m->by_number_count ? m->by_number[number]
                                     : pbd_MessageDef_FindFieldByNumber(m, number);
}
const pbd_FieldDef *pbd_MessageDef_FindFieldByName(const pbd_MessageDef *m, const char *name);

const pbd_EnumValueDef *pbd_EnumDef_FindValueByNumber(const pbd_EnumDef *e, int32_t number);

/* Prepends the path segment of a field to an error's path as it unwinds:
 * `name`, `name[index]` for a repeated field (not a map), `[full.name]` for
 * an extension, or the number when fd is NULL (an unknown field). */
void pbd_FieldDef_PrependPath(const pbd_FieldDef *fd, uint32_t number, uint32_t index,
                              pbd_Status *s);

/* The wire type a field of this type is written with when not packed
 * (Varint, Fixed64, Fixed32, Delimited, or StartGroup for groups). */
int pbd_FieldType_WireType(pbd_FieldType t);
/* "int32", "string", ... as in .proto files. */
const char *pbd_FieldType_Name(pbd_FieldType t);

#ifdef __cplusplus
}
#endif
#endif
