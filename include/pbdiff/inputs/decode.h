/* pbdiff — input bytes before they are protobuf: gzip inflated (streams of
 * messages are cut by framing.h).  Errors go to the status; the caller names
 * the input. */
#ifndef PBD_DECODE_H_
#define PBD_DECODE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes begin with gzip's magic number. */
bool pbd_Input_IsGzip(const uint8_t *p, size_t n);
/* Inflates a gzip member (or several, concatenated) into buf. */
bool pbd_Input_Gunzip(const uint8_t *p, size_t n, pbd_Buf *buf, pbd_Status *s);
/* The same, stopping with an error as soon as the output passes max_bytes
 * (a gzip bomb inflates a thousandfold). */
bool pbd_Input_GunzipMax(const uint8_t *p, size_t n, pbd_Buf *buf, size_t max_bytes,
                         pbd_Status *s);
/* Streams of messages are cut by pbdiff/inputs/framing.h. */

#ifdef __cplusplus
}
#endif
#endif
