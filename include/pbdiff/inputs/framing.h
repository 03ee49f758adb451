/* pbdiff — record framings: how a stream of messages is cut into messages.
 *
 *   delimited  a varint length before each message (Java writeDelimitedTo,
 *              C++ SerializeDelimitedToOstream; --delimited)
 *   tfrecord   TensorFlow's TFRecord: a u64 little-endian length, the masked
 *              CRC-32C of those 8 bytes, the data, the masked CRC-32C of the
 *              data (mask: ((crc >> 15) | (crc << 17)) + 0xa282ead8); both
 *              CRCs are checked
 *   grpc       gRPC's message framing: a compressed flag byte and a u32
 *              big-endian length before each message; a message whose flag is
 *              1 is gzip-compressed
 *   confluent  Kafka values in the Confluent Schema Registry wire format, each
 *              after a u32 big-endian length (as `kcat -f '%R%s'` writes them);
 *              a length of -1 (0xffffffff) is a tombstone, a record without a
 *              value, and a length of 0 an empty value
 *   confluent-value  the whole input is one such value, without a length
 *   confluent-keyed  Kafka records with their keys, as `kcat -f '%K%k%R%s'`
 *              writes them: the key's length (u32 big-endian, -1 for no key),
 *              the key, then the value as in confluent
 *
 * A Confluent value is the magic byte 0x00, the schema id (u32 big-endian),
 * the message-index list, then the message: the list is a zigzag varint
 * count N and N zigzag varint indexes, or count 0 (one 0x00 byte) for [0],
 * the schema's first message type.  The schema id and the indexes of each
 * record are kept (pbd_Input_SplitFramedMeta).
 *
 * Errors name the record (from 0) and its byte offset. */
#ifndef PBD_FRAMING_H_
#define PBD_FRAMING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_Framing_None = 0, /* one message, the whole input */
  kPbd_Framing_Delimited,
  kPbd_Framing_TFRecord,
  kPbd_Framing_Grpc,
  kPbd_Framing_Confluent,      /* u32 big-endian length, then a Confluent value */
  kPbd_Framing_ConfluentValue, /* one Confluent value, the whole input */
  kPbd_Framing_ConfluentKeyed, /* a Kafka key, then a length and a Confluent value */
} pbd_Framing;

/* The framing of a name ("delimited", "tfrecord", "grpc", "confluent",
 * "confluent-value"); false if none. */
bool pbd_Framing_FromName(const char *name, pbd_Framing *f);
const char *pbd_Framing_Name(pbd_Framing f);

/* The spans of the messages of data[0, size): *count ranges
 * [(*begin)[i], (*end)[i]) in malloc'd arrays (the caller frees them, also on
 * failure).  The spans are in data, except when a gRPC message is
 * compressed: then every message is written, inflated where it was
 * compressed, into *inflated (at most max_bytes in all) and the spans are in
 * inflated->data. */
bool pbd_Input_SplitFramed(pbd_Framing f, const uint8_t *data, size_t size, size_t max_bytes,
                           pbd_Buf *inflated, size_t **begin, size_t **end, size_t *count,
                           pbd_Status *s);

/* What a framing says of each record besides its bytes: for the Confluent
 * framings, the schema id and the message-index path (the indexes of the
 * message type in the schema's file: [0] the first top-level message,
 * [1, 0] the first nested type of the second). */
/* What a Kafka record holds as its value: a Confluent value, nothing (a
 * tombstone: kcat writes its length as -1, 0xffffffff) or an empty value
 * (length 0).  A record without a value is an empty message with no
 * schema id and no indexes. */
typedef enum {
  kPbd_RecordValue_Present = 0,
  kPbd_RecordValue_Tombstone,
  kPbd_RecordValue_Empty,
} pbd_RecordValue;

typedef struct {
  uint32_t schema_id;
  size_t first_index;  /* its path: indexes[first_index, first_index + index_count) */
  size_t index_count;  /* at least 1 (the single 0x00 byte is [0]); 0 without a value */
  pbd_RecordValue value;
  bool has_key;        /* confluent-keyed: the record's Kafka key is */
  size_t key_begin, key_size; /* base[key_begin, key_begin + key_size); none if !has_key */
} pbd_RecordMeta;

/* Where a record's bytes stand in the input that was split, when the
 * spans are not there (gRPC: the messages were written into the inflated
 * buffer): its body's range, and whether that body is gzip-compressed (its
 * span's size is then the inflated size). */
typedef struct {
  size_t begin, end;
  bool compressed;
} pbd_SourceSpan;

typedef struct {
  pbd_RecordMeta *records; /* one per span, or NULL: the framing carries none */
  uint32_t *indexes;       /* every record's message indexes, one path after another */
  size_t nindexes;
  pbd_SourceSpan *sources; /* one per span when the spans are in an inflated
                              buffer, else NULL (they are in the input) */
  const uint8_t *base;     /* the input split: where the Kafka keys are */
  bool keyed;              /* the framing carries Kafka keys (has_key says which) */
} pbd_FramedMeta;

/* How far a split has read, for a caller that gives back what is behind
 * it (a corpus's files: pbd_Input_Release): done(ctx, n) says that the
 * split will not read data[0, n) again.  Called every few MiB, in the
 * input's own bytes only (not for gRPC, whose spans may be in an inflated
 * buffer). */
typedef struct {
  void (*done)(void *ctx, size_t n);
  void *ctx;
} pbd_SplitProgress;

/* pbd_Input_SplitFramed, and when meta is not NULL, each record's metadata
 * in it (malloc'd: pbd_FramedMeta_Free, also on failure; records stays NULL
 * for the framings without metadata).  meta must start zeroed; progress
 * may be NULL. */
bool pbd_Input_SplitFramedMeta(pbd_Framing f, const uint8_t *data, size_t size, size_t max_bytes,
                               pbd_Buf *inflated, size_t **begin, size_t **end, size_t *count,
                               pbd_FramedMeta *meta, const pbd_SplitProgress *progress,
                               pbd_Status *s);
void pbd_FramedMeta_Free(pbd_FramedMeta *meta);

/* Whether two records' metadata differ (schema id, index path, or whether
 * there is a value), and one record's as text: "schema id 7, message indexes
 * [1, 0]", "a tombstone (no value)", "an empty value". */
bool pbd_RecordMeta_Differ(const pbd_FramedMeta *a, size_t i, const pbd_FramedMeta *b, size_t j);
void pbd_RecordMeta_Format(pbd_Buf *out, const pbd_FramedMeta *m, size_t i);
/* For confluent-keyed: whether two records' Kafka keys differ, and one
 * record's key as text (`key "user-1"`, bytes quoted as text format quotes
 * them, or `no key`). */
bool pbd_RecordMeta_KeysDiffer(const pbd_FramedMeta *a, size_t i, const pbd_FramedMeta *b,
                               size_t j);
void pbd_RecordMeta_FormatKey(pbd_Buf *out, const pbd_FramedMeta *m, size_t i);

/* CRC-32C (Castagnoli) of n bytes, and TFRecord's masked form of a CRC. */
uint32_t pbd_Crc32c(const uint8_t *p, size_t n);
uint32_t pbd_Crc32c_Mask(uint32_t crc);

#ifdef __cplusplus
}
#endif
#endif
