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
} pbd_Framing;

/* The framing of a name ("delimited", "tfrecord", "grpc"); false if none. */
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

/* CRC-32C (Castagnoli) of n bytes, and TFRecord's masked form of a CRC. */
uint32_t pbd_Crc32c(const uint8_t *p, size_t n);
uint32_t pbd_Crc32c_Mask(uint32_t crc);

#ifdef __cplusplus
}
#endif
#endif
