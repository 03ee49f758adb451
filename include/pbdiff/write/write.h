/* pbdiff — the canonical binary writer: a canonical tree (tree.h) written
 * back as protobuf bytes, one encoding per meaning.
 *
 * pbd_Write_Message writes what the tree holds in one fixed way: fields in
 * number order (an extension by its number among them; for one number the
 * schema field before unknown values of it), each value once (the tree has
 * kept the last value and merged the parts), repeated scalars packed where
 * the schema packs them (is_packed) and one tag per value elsewhere, map
 * entries in key order with key and value always written, unknown fields by
 * number in their order, an Any whose type the schema has as its type URL
 * and its payload written canonically, varints and lengths minimal.  Floats
 * are written as they compare (rule 10): every NaN as the quiet NaN, -0 as
 * +0 except where only its sign makes it present (a proto3 implicit field, a
 * map entry's value); with float_bits every float keeps its bits.
 *
 * So two inputs equal in meaning, read with the same options, give the same
 * bytes, and the bytes read back to the same meaning (with any protobuf
 * library, too). */
#ifndef PBD_WRITE_H_
#define PBD_WRITE_H_

#include <stdbool.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  bool float_bits;   /* keep every float's bits (--float-bits) */
} pbd_WriteOptions;

/* Appends the canonical encoding of m (a finished tree; NULL writes
 * nothing) to out.  False when out ran out of memory (out->oom). */
bool pbd_Write_Message(pbd_Buf *out, const pbd_Message *m, const pbd_WriteOptions *o);

/* Appends v, a value of a field of a message, as that field would be
 * written in it: its tag and its value (a map entry, message or group
 * whole), as pbd_Write_Message writes each value of an unpacked field. */
bool pbd_Write_FieldValue(pbd_Buf *out, uint32_t number, const pbd_Value *v,
                          const pbd_WriteOptions *o);

/* Appends a varint (minimal) to out. */
void pbd_Write_Varint(pbd_Buf *out, uint64_t v);

#ifdef __cplusplus
}
#endif
#endif
