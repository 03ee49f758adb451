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

/* How an input's bytes are compressed (--input-compression): gzip always,
 * none never; auto inflates an input that begins as gzip does
 * (pbd_Input_IsGzip) and reads the bytes as they are when that finds no
 * valid gzip data (cli/load.c: a stream whose framing cuts it whole). */
typedef enum {
  kPbd_Compression_Auto = 0,
  kPbd_Compression_Gzip,
  kPbd_Compression_None,
} pbd_Compression;

/* "auto", "gzip" or "none"; false for any other name. */
bool pbd_Compression_FromName(const char *name, pbd_Compression *c);

/* The bytes begin as a gzip member (RFC 1952): the magic number, method 8
 * (deflate) and no reserved flag bits.  The magic alone says little: a
 * TFRecord or delimited stream whose first length is 0x8b1f begins with it
 * too; whether the rest is a valid header and data, pbd_Input_GunzipMax
 * finds out. */
bool pbd_Input_IsGzip(const uint8_t *p, size_t n);
/* Inflates a gzip member (or several, concatenated) onto the end of buf:
 * each member's header, CRC-32 and size are checked. */
bool pbd_Input_Gunzip(const uint8_t *p, size_t n, pbd_Buf *buf, pbd_Status *s);
/* The same, stopping with an error as soon as buf would hold over
 * max_bytes in all (a gzip bomb inflates a thousandfold): before inflating
 * when the last member's trailer declares a size past the bound, else as
 * the output passes it; buf never grows past max_bytes + 2.  Errors carry
 * their byte offset in p (status->offset); on failure buf keeps the length
 * it had. */
bool pbd_Input_GunzipMax(const uint8_t *p, size_t n, pbd_Buf *buf, size_t max_bytes,
                         pbd_Status *s);
/* Streams of messages are cut by pbdiff/inputs/framing.h. */

#ifdef __cplusplus
}
#endif
#endif
