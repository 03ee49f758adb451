/* pbdiff — values and messages written out: protobuf text format and the
 * protobuf JSON mapping.  Formatting only; knows nothing of the wire. */
#ifndef PBD_FORMAT_H_
#define PBD_FORMAT_H_

#include <stdbool.h>
#include <stddef.h>

#include "base.h"
#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  size_t max_bytes;   /* strings/bytes longer than this are cut, with their size
                         noted; 0 = no limit */
  bool multiline;     /* messages over several indented lines (else one line) */
  int indent;         /* starting indent level for multiline output */
} pbd_TextOptions;

/* Writes a value in text-format syntax: numbers as text format writes them,
 * floats shortest round-trip ("nan", "inf", "-inf", "-0"), strings quoted
 * and escaped, bytes escaped, enums by name (the number when the enum has no
 * such value), messages as `{ a: 1 b { c: 2 } }`.  A None value writes
 * nothing. */
void pbd_Format_TextValue(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o);
/* Writes the fields of a message in text format (no surrounding braces). */
void pbd_Format_TextMessage(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o);
/* Writes a value as the protobuf JSON mapping does: 64-bit integers as
 * strings, bytes base64, enums by name, floats as numbers or "NaN",
 * "Infinity", "-Infinity", messages as objects keyed by json_name (unknown
 * fields by number). */
void pbd_Format_JsonValue(pbd_Buf *out, const pbd_Value *v);
/* Writes s as a JSON string literal with quotes, escaping as RFC 8259 asks;
 * invalid UTF-8 bytes are written as \u00XX of the byte. */
void pbd_Format_JsonString(pbd_Buf *out, const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
