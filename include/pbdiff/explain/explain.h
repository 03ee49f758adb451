/* pbdiff — why two payloads that mean the same differ in their bytes.
 *
 * pbd_Explain_Profile scans one encoded message in a single pass and counts
 * the encoding choices its writer made that do not change its meaning
 * (docs/semantics.md): fields out of number order, repeated scalars packed
 * or not, varints longer than needed, a singular field written twice, a
 * message written in parts, map entries out of key order, defaults written
 * out, unknown fields placed before known ones, ...  For each kind it keeps
 * how often it was met and the byte offset of the first occurrence.
 * pbd_Explain_Compare then lists the kinds in which two profiles differ:
 * that is what `pbdiff --explain` prints when LEFT and RIGHT are equal but
 * their bytes are not.  docs/explain.md describes each kind with an example.
 *
 * The scan reads the wire as pbd_Tree_Parse does (same field routing, same
 * merge rules, same checks as pbd_Wire_ReadField, same depth limit), so it
 * is safe on any input; it builds no tree and allocates nothing per field
 * (two small working stacks, grown geometrically, freed before it returns).
 * Counts are per *occurrence on the wire*: a message written in two parts is
 * scanned as two messages (see docs/explain.md, "Limits"). */
#ifndef PBD_EXPLAIN_H_
#define PBD_EXPLAIN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The encoding choices counted.  "Message" below is one message occurrence
 * on the wire: the root, one LEN payload of a message field, one group body,
 * one map entry, one Any payload. */
typedef enum {
  /* A field written after a field with a higher number in the same message.
   * Known fields are compared with known fields, unknown with unknown (their
   * placement against known fields is UnknownPlacement).  At its tag. */
  kPbd_Encoding_FieldOrder = 0,
  /* A packed run (one LEN) of a packable repeated field; one per run.  At its
   * tag.  An empty run counts as EmptyPackedRun instead. */
  kPbd_Encoding_Packed,
  /* An element of a packable repeated field written with its own tag; one per
   * element.  At its tag. */
  kPbd_Encoding_Unpacked,
  /* A packed run of length 0 (adds nothing).  At its tag. */
  kPbd_Encoding_EmptyPackedRun,
  /* A varint longer than its value needs (or with bits past the 64th in its
   * 10th byte): tags, lengths, values, packed elements.  At the varint. */
  kPbd_Encoding_NonMinimalVarint,
  /* A varint value that reads as the schema type says but is not the value
   * writers write for it: bool other than 0/1, int32/enum not sign-extended
   * from 32 bits (-1 in 5 bytes), uint32/sint32 with bits above the 32nd.
   * At the value. */
  kPbd_Encoding_NonCanonicalValue,
  /* A float or double written as -0.0 or as a NaN: equal to +0.0 where both
   * are set, and to any other NaN (rule 10), with other bits.  Every one is
   * counted, and its bits enter the site digest, so that NaNs with other
   * payloads at the same place still show.  At the value. */
  kPbd_Encoding_ZeroSignOrNaN,
  /* A singular scalar, string or bytes field (or the same oneof member)
   * written again in one message: the last value wins.  At the later tag. */
  kPbd_Encoding_RepeatedSingular,
  /* A singular message or group field (or the same oneof message member)
   * written again in one message: the parts merge.  At the later tag. */
  kPbd_Encoding_SplitMessage,
  /* A oneof member written while another member of its oneof was set: the
   * earlier one is cleared.  At the later tag. */
  kPbd_Encoding_OneofOverwritten,
  /* A map entry whose key is lower than a key written before it in the same
   * map field of the same message.  At the entry's tag. */
  kPbd_Encoding_MapEntryOrder,
  /* A map entry whose key was written before in the same map field of the
   * same message: the last entry wins.  At the later entry's tag. */
  kPbd_Encoding_DuplicateMapKey,
  /* A map entry written without its key, or without its value (they read as
   * defaults); one per entry.  At the entry's tag. */
  kPbd_Encoding_MapEntryPartOmitted,
  /* A singular field without presence (proto3 implicit) written holding its
   * default (0, false, "", empty bytes, first enum value; by bits, so -0.0 is
   * not a default).  With pbd_ExplainOptions.equivalent also a field with
   * presence holding its default (by value) and a message field written
   * empty.  Map entry keys and values are not counted.  At the tag. */
  kPbd_Encoding_DefaultWritten,
  /* An unknown field (number not in the schema, wire type that does not fit,
   * closed-enum value the enum does not have, map entry holding one) followed
   * by a known field of the same message; writers put unknown fields last.
   * At the unknown field's tag. */
  kPbd_Encoding_UnknownPlacement,
  kPbd_Encoding_Count
} pbd_EncodingKind;

/* Short lowercase name for reports: "field order", "packed", "unpacked",
 * "empty packed run", "non-minimal varint", "non-canonical value",
 * "-0.0 or NaN", "singular field repeated", "split message", "oneof overwritten",
 * "map entry order", "duplicate map key", "map entry part omitted",
 * "default written", "unknown field placement"; "?" out of range. */
const char *pbd_EncodingKind_String(pbd_EncodingKind k);

typedef struct {
  size_t count;          /* occurrences met */
  int64_t first_offset;  /* byte offset (from buf) of the first one; -1 when
                            count == 0 */
  uint64_t site_digest;  /* order-independent digest of *where* they were met
                            (field numbers along the path, indices of
                            repeated elements; not byte offsets), so that two
                            inputs with equal counts at different places still
                            differ; 0 when count == 0 */
} pbd_EncodingCount;

typedef struct {
  pbd_EncodingCount by_kind[kPbd_Encoding_Count];
} pbd_EncodingProfile;

/* Scans buf[begin, end) as one message of `type` (NULL: schemaless, as rule
 * 13 reads it: then only FieldOrder and NonMinimalVarint apply, LEN fields
 * that parse as messages being scanned as messages) and fills *out.
 * opts (may be NULL: defaults) are read as the comparison reads: max_depth,
 * pool (resolves Any type URLs so that payloads are scanned as their type;
 * NULL: not scanned), equivalent (fields with presence holding defaults
 * count too) and ignore_unknown (unknown fields skipped, nothing in them
 * counted).  Offsets count from buf.  Returns false with
 * the status set (kPbd_Status_Malformed, kPbd_Status_MaxDepthExceeded,
 * kPbd_Status_OutOfMemory), naming the byte offset and, where known, the
 * field path, when the bytes are malformed; *out is then all zero counts.
 * Does not check UTF-8 (pbd_Tree_Parse does).  Keeps no pointer to buf. */
bool pbd_Explain_Profile(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                         const pbd_ReadOptions *opts, pbd_EncodingProfile *out, pbd_Status *s);

/* One kind in which two profiles differ. */
typedef struct {
  pbd_EncodingKind kind;
  pbd_EncodingCount left, right;
  /* Where the first occurrence is, as a field path (pbd_Explain_PathAt;
   * "" when not filled in or at the top). */
  char left_path[160], right_path[160];
} pbd_EncodingDiff;

/* Appends the field path holding byte `offset` of the message type encoded
 * in buf[begin, end) (`graph.node[3].attribute`; nothing when the offset is
 * at the top); reads no further than the schema knows
 * (lib/explain/explain_path.c). */
void pbd_Explain_PathAt(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                        size_t offset, pbd_Buf *out);

/* Writes to out (room for kPbd_Encoding_Count entries) the kinds whose
 * counts or site digests differ between l and r, in enum order; returns how
 * many.  0 for equal profiles (identical inputs always give 0). */
size_t pbd_Explain_Compare(const pbd_EncodingProfile *l, const pbd_EncodingProfile *r,
                           pbd_EncodingDiff *out);

/* Appends one line per entry:
 *   field order: 3 in LEFT (first at byte 12, in graph.node[0]), 0 in RIGHT
 *   packed: 1 in LEFT (at byte 0, in ri), 1 in RIGHT (at byte 7, in ri)
 * ("at byte" for a count of 1, "first at byte" for more, nothing for 0;
 * ", in PATH" when the entry's path is filled in). */
void pbd_Explain_FormatText(pbd_Buf *out, const pbd_EncodingDiff *d, size_t n);

/* Appends a JSON array on one line (nothing else; "[]" for n == 0):
 *   [{"kind": "field order", "left": {"count": 3, "first_offset": 12,
 *     "first_path": "graph.node[0]"}, "right": {"count": 0, "first_offset": null}}, ...]
 * (first_path only when filled in)
 * (written without the line break shown here). */
void pbd_Explain_FormatJson(pbd_Buf *out, const pbd_EncodingDiff *d, size_t n);

#ifdef __cplusplus
}
#endif
#endif
