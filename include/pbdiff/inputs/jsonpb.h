/* pbdiff — protobuf JSON input: text in the proto3 JSON mapping
 * (https://protobuf.dev/programming-guides/json/) turned into the protobuf
 * binary encoding, so that a golden file kept as JSON is read by the same
 * tree builder as any binary input.
 *
 * The JSON is read strictly (RFC 8259): one value with only whitespace
 * around it, no comments, no trailing commas, no duplicate keys, strings in
 * valid UTF-8.  Messages nest at most max_depth levels (--max-depth, as in
 * every reader: the root is level 0), and JSON containers at most
 * 2 * max_depth + 1 (a message level takes two at most: an array or a
 * map's object, and the message's object).  Object
 * keys name fields by json_name or by their proto name ("[full.name]" for an
 * extension); an unknown key is an error.  The well-known types take their
 * special forms (Any, Timestamp, Duration, FieldMask, Struct, Value,
 * ListValue, NullValue, the wrappers). */
#ifndef PBD_JSONPB_H_
#define PBD_JSONPB_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/core/base.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The nesting limit of pbd_JsonPb_ToBinary: kPbd_DefaultMaxDepth message
 * levels (kept for callers of the old name; pbd_JsonPb_ToBinaryDepth takes
 * any limit). */
enum { kPbd_JsonPb_MaxDepth = 100 };

/* Converts protobuf JSON text for message `type` into the protobuf binary
 * encoding (appended to out), following the proto3 JSON mapping.  pool
 * resolves Any type URLs and extensions (it may be NULL when neither
 * occurs).  Fields are written in the order they appear in the JSON;
 * repeated scalars are written packed.
 *
 * Returns false with the status set: the message says what is wrong and
 * where, as "line L, column C: WHAT" (lines and columns count from 1,
 * columns in characters), and status->offset/has_offset hold the byte offset
 * of the same place; the path names the field being read when known (as
 * pbd_Tree_Parse names paths: `inner.child`, `rm[2].a`, `ms["k"]`).  Codes:
 * Malformed (syntax, a value that does not fit its field), BadUtf8,
 * MaxDepthExceeded, UnknownField (a key that names no field), OutOfMemory,
 * Usage (type NULL).  On success out->data is allocated (NUL-terminated)
 * even when the encoding is empty, so it can go straight to pbd_Tree_Parse;
 * on failure out keeps the length it had on entry. */
bool pbd_JsonPb_ToBinary(const pbd_DefPool *pool, const pbd_MessageDef *type, const char *json,
                         size_t n, pbd_Buf *out, pbd_Status *s);
/* The same with a nesting limit of max_depth message levels (<= 0: the
 * default, kPbd_DefaultMaxDepth; at most kPbd_MaxDepthLimit), as
 * pbd_ReadOptions.max_depth gives the binary readers. */
bool pbd_JsonPb_ToBinaryDepth(const pbd_DefPool *pool, const pbd_MessageDef *type,
                              const char *json, size_t n, int max_depth, pbd_Buf *out,
                              pbd_Status *s);

#ifdef __cplusplus
}
#endif
#endif
