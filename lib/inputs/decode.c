/* pbdiff — input bytes before they are protobuf (decode.h): gzip inflated,
 * a stream of varint length-prefixed messages split. */
#include "pbdiff/inputs/decode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pbdiff/wire/wire.h"

bool pbd_Input_IsGzip(const uint8_t *p, size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

bool pbd_Input_Gunzip(const uint8_t *p, size_t n, pbd_Buf *buf, pbd_Status *s) {
  return pbd_Input_GunzipMax(p, n, buf, (size_t)2 << 30, s);
}

bool pbd_Input_GunzipMax(const uint8_t *p, size_t n, pbd_Buf *buf, size_t max, pbd_Status *s) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot start gzip decoding");
    return false;
  }
  size_t in_done = 0;
  int rc = Z_OK;
  char chunk[1 << 16];
  while (in_done < n || rc != Z_STREAM_END) {
    size_t take = n - in_done > (1u << 30) ? (1u << 30) : n - in_done;
    z.next_in = (Bytef *)(p + in_done);
    z.avail_in = (uInt)take;
    do {
      z.next_out = (Bytef *)chunk;
      z.avail_out = sizeof chunk;
      rc = inflate(&z, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END) {
        pbd_Status_SetError(s, kPbd_Status_Malformed, "bad gzip data at byte %zu (%s)",
                            in_done + (take - z.avail_in), z.msg ? z.msg : "corrupt");
        inflateEnd(&z);
        return false;
      }
      pbd_Buf_Append(buf, chunk, sizeof chunk - z.avail_out);
      if (buf->len > max) {
        pbd_Status_SetError(s, kPbd_Status_Io,
                            "inflates to over %zu bytes, the most an input may hold "
                            "(--max-input-bytes)", max);
        inflateEnd(&z);
        return false;
      }
    } while (z.avail_out == 0 && rc != Z_STREAM_END);
    in_done += take - z.avail_in;
    if (rc == Z_STREAM_END) {
      if (in_done >= n) break;
      inflateReset(&z); /* another member follows */
      rc = Z_OK;
    } else if (take == 0 || (z.avail_in == 0 && in_done >= n)) {
      pbd_Status_SetError(s, kPbd_Status_Malformed, "gzip data cut short at byte %zu", n);
      inflateEnd(&z);
      return false;
    }
  }
  inflateEnd(&z);
  if (buf->oom) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory decompressing");
    return false;
  }
  return true;
}
