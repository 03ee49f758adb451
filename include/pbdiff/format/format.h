/* pbdiff — values and messages written out: protobuf text format and the
 * protobuf JSON mapping.  Formatting only; knows nothing of the wire. */
#ifndef PBD_FORMAT_H_
#define PBD_FORMAT_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/core/base.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  size_t max_bytes;   /* strings/bytes longer than this are cut, with their size
                         noted; 0 = no limit */
  bool multiline;     /* messages over several indented lines (else one line) */
  int indent;         /* starting indent level for multiline output */
  /* The fields below are for reports; zero leaves plain text format. */
  bool cut_hash;      /* a cut string or bytes value also notes a hash of the
                         whole value: `"abc..." (1000 bytes, xxh3:9f3a1c2b)`, the
                         first 8 of the 16 hex digits of XXH3_64bits (seed 0) */
  bool well_known;    /* google.protobuf.Timestamp as RFC 3339
                         (`2024-05-01T12:00:00.500Z`) and google.protobuf.Duration
                         as `1.5s`, unquoted (see pbd_Format_WellKnownText) */
  size_t max_message; /* one-line form only: a message value whose text is longer
                         than this many bytes is cut to at most this many bytes
                         (never inside an escape or a UTF-8 character) and `...`
                         appended; 0 = no limit */
} pbd_TextOptions;

/* Writes a value in text-format syntax: numbers as text format writes them,
 * floats shortest round-trip ("nan", "inf", "-inf", "-0"), strings quoted
 * and escaped, bytes escaped, enums by name (the number when the enum has no
 * such value), messages as `{ a: 1 b { c: 2 } }`.  A None value writes
 * nothing. */
void pbd_Format_TextValue(pbd_Buf *out, const pbd_Value *v, const pbd_TextOptions *o);
/* Writes a google.protobuf.Timestamp value as RFC 3339 in UTC
 * (`2024-05-01T12:00:00Z`, with 3, 6 or 9 fractional digits when the nanos
 * need them: `...T12:00:00.500Z`, as the protobuf JSON mapping writes it) or
 * a google.protobuf.Duration as seconds with the fewest fractional digits and
 * the suffix s (`3s`, `1.5s`, `-0.25s`, `0.000000001s`; the JSON writer uses
 * the mapping's 0, 3, 6 or 9 digits instead: "1.500s"), without quotes.
 * An absent (m == NULL) value of a
 * field of one of these types is the zero value.  Returns false and writes
 * nothing when the value is not one of these types, holds any other field
 * (unknown ones included), or is out of the range the JSON mapping allows
 * (Timestamp 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, nanos in
 * [0, 1e9); Duration within +-315576000000 s, nanos within +-999999999 with
 * the sign of the seconds). */
bool pbd_Format_WellKnownText(pbd_Buf *out, const pbd_Value *v);
/* Writes the fields of a message in text format (no surrounding braces). */
void pbd_Format_TextMessage(pbd_Buf *out, const pbd_Message *m, const pbd_TextOptions *o);
/* Writes a value as the protobuf JSON mapping does: 64-bit integers as
 * strings, bytes base64, enums by name, floats as numbers or "NaN",
 * "Infinity", "-Infinity", messages as objects keyed by json_name (unknown
 * fields by number, extensions as "[full.name]").  Well-known types as the
 * mapping has them: Timestamp and Duration as strings ("2024-05-01T12:00:00.500Z",
 * "1.500s", "-0.250s", "3s"), the wrappers (google.protobuf.Int32Value ...)
 * as their value, Struct as an object, ListValue as an array, Value as what
 * it holds, FieldMask as one string of lowerCamelCase paths joined by ",",
 * and an Any holding one of these (or another Any) as {"@type": URL, "value": ...}.  A
 * well-known message that does not fit its form (out of range, unknown
 * fields, a Value with nothing set) is written as an ordinary message. */
void pbd_Format_JsonValue(pbd_Buf *out, const pbd_Value *v);
/* Writes s as a JSON string literal with quotes, escaping as RFC 8259 asks;
 * invalid UTF-8 bytes are written as \u00XX of the byte. */
void pbd_Format_JsonString(pbd_Buf *out, const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
