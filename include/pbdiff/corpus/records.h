/* pbdiff — records of a corpus matched by key (--record-key).
 *
 * A corpus is many records (the messages of streams, in one file or many);
 * two corpora are compared record by record, a record of LEFT paired with
 * the record of RIGHT that has the same key, whatever the order and the
 * sharding of either side.  A key is one or more scalar fields of the
 * record, a nested one by its path (`id`, `header.request_id`,
 * `id+shard`); its text is what reports name a record by:
 *
 *   id="r-1042"            a string
 *   header.request_id=7    a nested integer
 *   id="r-1",shard=3       several fields (',' between them)
 *
 * The key is read as the tree reads the field: the last value of a field
 * written twice, a sub-message written in parts merged, an unset field its
 * default.  Per record, only its key text, its hash and where it is are
 * kept (28 bytes plus the key, and 4 more once sorted: docs/scale.md): the
 * records themselves are read again only where two hashes differ. */
#ifndef PBD_CORPUS_RECORDS_H_
#define PBD_CORPUS_RECORDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/canon/values.h"
#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/schema/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { kPbd_MaxRecordKeyFields = 8, kPbd_MaxRecordKeyDepth = 16 };

/* One key field: the path of field numbers from the record, and the
 * fields (NULL without a schema: then the path is numbers, `1.3`). */
typedef struct {
  uint32_t numbers[kPbd_MaxRecordKeyDepth];
  const pbd_FieldDef *fields[kPbd_MaxRecordKeyDepth];
  size_t depth;
  char name[256];   /* as written in the spec: "header.request_id" */
  bool kafka_key;   /* "kafka-key": the record's Kafka key, not a field (depth 0) */
} pbd_RecordKeyPath;

typedef struct {
  pbd_RecordKeyPath paths[kPbd_MaxRecordKeyFields];
  size_t count;
} pbd_RecordKey;

/* Reads a key spec, `PATH[+PATH...]`, each PATH field names (or numbers
 * without a schema) joined by '.', or `kafka-key`: the Kafka key that the
 * framing confluent-keyed carries with each record (no field name holds a
 * '-').  Every field on a path but the last must
 * be a singular message field, the last a singular scalar, string or bytes
 * field.  false with a usage error naming what is wrong. */
bool pbd_RecordKey_Parse(const pbd_MessageDef *type, const char *spec, pbd_RecordKey *k,
                         pbd_Status *s);

/* Appends the key text of the record buf[begin, end) of `type` to out.  The
 * record must have passed a hash pass with the options o, and `hash` be the
 * hash it gave; scratch is working memory, given back before returning.
 * false when out of memory (status set). */
bool pbd_RecordKey_Read(const pbd_RecordKey *k, const pbd_MessageDef *type, const uint8_t *buf,
                        size_t begin, size_t end, pbd_Hash128 hash, const pbd_ReadOptions *o,
                        pbd_Arena *scratch, pbd_Buf *out, pbd_Status *s);
/* Whether the spec names the Kafka key. */
bool pbd_RecordKey_UsesKafkaKey(const pbd_RecordKey *k);
/* pbd_RecordKey_Read with the record's Kafka key: its bytes, or NULL for a
 * record without one (`kafka-key=null`); a kafka-key path reads as
 * `kafka-key="user-1"`. */
bool pbd_RecordKey_ReadWithKafkaKey(const pbd_RecordKey *k, const pbd_MessageDef *type,
                                    const uint8_t *buf, size_t begin, size_t end,
                                    pbd_Hash128 hash, const pbd_ReadOptions *o,
                                    const pbd_StrView *kafka_key, pbd_Arena *scratch,
                                    pbd_Buf *out, pbd_Status *s);

/* ---- A record's hash under the ignore rules ------------------------------------------ */

/* With --ignore in force, the records of a corpus mostly differ in what is
 * ignored (a timestamp): their hashes differ, and each pair would be walked
 * only to find nothing.  A record's hash with the ignored fields left out
 * (lib/corpus/record_ignore.c) settles those pairs in the key pass: two
 * records whose such hashes agree are equal under the options.  Only rules
 * the hash can follow exactly are taken: fields by full name, and patterns
 * of field names with `[*]` after repeated and map fields, none a oneof
 * member, an extension or a closed enum; not with matching rules or
 * --equivalent.  Otherwise NULL with *why saying what (NULL with *why NULL:
 * out of memory), and pairs are walked as without it. */
typedef struct pbd_IgnoreHash pbd_IgnoreHash;
pbd_IgnoreHash *pbd_IgnoreHash_New(const pbd_MessageDef *type, const pbd_DiffOptions *d,
                                   const pbd_ReadOptions *ro, const char **why);
void pbd_IgnoreHash_Free(pbd_IgnoreHash *ih);
/* The record type it was made for (records of another type keep their
 * plain hash: the two never agree but on equal records). */
const pbd_MessageDef *pbd_IgnoreHash_Type(const pbd_IgnoreHash *ih);
/* The hash of the record buf[begin, end), which passed the hash pass with
 * the options ro, its ignored fields left out, hashed by `hasher` (made
 * with ro); scratch is working memory.  false with the status set when out
 * of memory; false with the status untouched when the record cannot be
 * hashed so (the caller keeps its plain hash). */
bool pbd_IgnoreHash_Hash(const pbd_IgnoreHash *ih, pbd_Hasher *hasher, const uint8_t *buf,
                         size_t begin, size_t end, const pbd_ReadOptions *ro, pbd_Buf *scratch,
                         pbd_Hash128 *out, pbd_Status *s);

/* ---- The join ---------------------------------------------------------------- */

/* One record as the join hands it out: its hash and place, the source (a
 * file, numbered by the caller) and its index there.  (The index stores it
 * in less: docs/scale.md, "Corpora".) */
typedef struct {
  uint32_t source;
  size_t index;
  pbd_Hash128 hash;
} pbd_Record;

/* The most records one side may hold (they are numbered in 4 bytes), and
 * the longest key (16 MiB - 1). */
#define PBD_MAX_RECORDS UINT32_MAX

/* The records of one side. */
typedef struct pbd_RecordIndex pbd_RecordIndex;

pbd_RecordIndex *pbd_RecordIndex_New(void);
void pbd_RecordIndex_Free(pbd_RecordIndex *x);
/* Adds a record; false when out of memory, or when the index is full
 * (pbd_RecordIndex_Full): PBD_MAX_RECORDS records already, an index or a
 * key too large.  Records are added before the index is sorted. */
bool pbd_RecordIndex_Add(pbd_RecordIndex *x, const char *key, size_t key_len, uint32_t source,
                         size_t index, pbd_Hash128 hash);
size_t pbd_RecordIndex_Count(const pbd_RecordIndex *x);
/* Whether an Add failed for want of room in the index (not of memory). */
bool pbd_RecordIndex_Full(const pbd_RecordIndex *x);
/* Sorts the index in the join's order now (the join sorts it otherwise),
 * so that each side can be sorted on a thread of its own; false when out
 * of memory (or after a failed Add). */
bool pbd_RecordIndex_Sort(pbd_RecordIndex *x);
/* The bytes the index holds (records and keys), for the memory bound. */
size_t pbd_RecordIndex_Bytes(const pbd_RecordIndex *x);

/* One key of the join, with its records on each side.  Records of one key
 * pair in the order they came (source, then index): the k-th of LEFT with
 * the k-th of RIGHT; `occurrence` is k (from 0) and `left`/`right` NULL
 * where one side has fewer.  left_count/right_count tell how many records
 * each side has with this key (more than one: a duplicate key). */
typedef struct {
  const char *key;
  size_t key_len;
  const pbd_Record *left, *right;
  size_t occurrence;
  size_t left_count, right_count;
} pbd_RecordPair;

/* Receives one pair (its records valid during the call); a non-zero return
 * stops the join. */
typedef int pbd_RecordPairFunc(void *ctx, const pbd_RecordPair *p);

/* Sorts both indexes by key and hands each pair to fn in the order of the
 * keys (bytewise), so that the result does not depend on the order or the
 * sharding of the records.  Returns 0, fn's non-zero value, or -1 when out
 * of memory. */
int pbd_Records_Join(pbd_RecordIndex *left, pbd_RecordIndex *right, pbd_RecordPairFunc *fn,
                     void *ctx);

#ifdef __cplusplus
}
#endif
#endif
