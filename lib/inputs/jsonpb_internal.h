/* pbdiff — the JSON reader's parts shared by its files: jsonpb_read.c reads
 * the text into a tree of JSON values, jsonpb_values.c writes wire values
 * (numbers, well-known types), jsonpb.c walks the tree along the schema.
 * Internal to lib/inputs. */
#ifndef PBD_JSONPB_INTERNAL_H_
#define PBD_JSONPB_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"
#include "pbdiff/inputs/jsonpb.h"
#include "pbdiff/schema/schema.h"

/* JSON values */

typedef enum { J_Null, J_False, J_True, J_Number, J_String, J_Array, J_Object } JKind;

typedef struct JVal JVal;
struct JVal {
  JKind kind;
  uint32_t count; /* Array/Object: elements or members */
  size_t off;     /* byte offset of the value's first character */
  const char *s;  /* String: the decoded bytes; Number: the literal */
  size_t n;
  JVal *first;     /* Array/Object: the first element or member */
  JVal *next;      /* the next element or member of the parent */
  const char *key; /* object member: its decoded key */
  size_t key_n;
  size_t key_off; /* offset of the key's opening quote */
};

typedef struct {
  const char *base; /* the whole text, for offsets, lines and columns */
  size_t n;
  const char *p, *end; /* the parser's position */
  pbd_Arena *arena;
  pbd_Status *s;
  const pbd_DefPool *pool;
  pbd_Buf *out;
  int max_depth;    /* --max-depth: message levels (JSON text: 2 * max_depth + 1) */
  int depth;        /* message levels open now */
  char qbuf[2][96]; /* quoted excerpts for messages */
  int qnext;
} Ctx;

typedef enum { N_Ok, N_NotNumber, N_NotInteger, N_Range } NumResult;

/* Ranges of the integer types. */
typedef struct {
  bool is_signed;
  uint64_t max; /* largest positive value */
} IntRange;
/* The integer types' ranges (jsonpb_values.c). */
extern const IntRange kInt32, kInt64, kUInt32, kUInt64;

typedef enum {
  W_None,
  W_Any,
  W_Timestamp,
  W_Duration,
  W_FieldMask,
  W_Struct,
  W_Value,
  W_ListValue,
  W_Wrapper,
} Wkt;

/* jsonpb_read.c: errors and the reader. */
/* Sets the status: "line L, column C: WHAT" at byte offset `off`; false. */
bool jp_fail(Ctx *c, pbd_StatusCode code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool jp_oom(Ctx *c);
/* s[0..n) quoted for a message, cut when long (one of two rotating buffers). */
const char *jp_quote(Ctx *c, const char *s, size_t n);
/* "null", "a number", "an object", ... for messages. */
const char *jp_kind_name(JKind k);
bool jp_is_digit(char ch);
/* The length of the JSON number at the start of s[0..n), 0 when none. */
size_t jp_number_len(const char *s, size_t n);
/* The whole text as one JSON value; NULL with the status set. */
JVal *jp_parse_document(Ctx *c);

/* jsonpb_values.c: the wire, numbers, well-known types. */
void jp_put_varint(pbd_Buf *b, uint64_t v);
void jp_put_tag(pbd_Buf *b, uint32_t number, int wt);
void jp_put_fixed(pbd_Buf *b, uint64_t v, int width);
void jp_put_bytes(pbd_Buf *b, uint32_t number, const char *s, size_t n);
/* Inserts the length prefix of what was written after `mark`. */
void jp_end_len(pbd_Buf *b, size_t mark);
/* An integer in range r from text (a number, a string's contents, a key). */
bool jp_int_text(Ctx *c, const char *s, size_t n, size_t off, const IntRange *r,
                 const char *type_name, uint64_t *out);
/* An integer in range r from a JSON number or string. */
bool jp_int_value(Ctx *c, const JVal *v, const IntRange *r, const char *type_name,
                  uint64_t *out);
/* A float or double from a JSON number or "NaN", "Infinity", "-Infinity". */
bool jp_double_value(Ctx *c, const JVal *v, const char *type_name, double *out);
uint64_t jp_double_bits(double d);
uint64_t jp_float_bits(float f);
/* Which well-known type a message is, if any. */
Wkt jp_wkt_of(const pbd_MessageDef *m);
bool jp_is_null_value_enum(const pbd_FieldDef *fd);
/* A JSON null is the field's value (google.protobuf.Value, NullValue), not
 * its absence. */
bool jp_null_is_value(const pbd_FieldDef *fd);
bool jp_timestamp_value(Ctx *c, const JVal *v);
bool jp_duration_value(Ctx *c, const JVal *v);
bool jp_field_mask_value(Ctx *c, const JVal *v);

#endif
