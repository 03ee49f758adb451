/* pbdiff — input bytes before they are protobuf (decode.h): gzip inflated.
 *
 * The gzip wrapper (RFC 1952) is read here, not by zlib: its header decides
 * whether bytes are gzip at all (a stream whose first length is 0x8b1f
 * starts with gzip's magic too), its trailer's size is checked before the
 * data is inflated, and each error can say which part is missing or wrong.
 * zlib inflates the raw deflate data between them. */
#include "pbdiff/inputs/decode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { kFText = 1, kFHcrc = 2, kFExtra = 4, kFName = 8, kFComment = 16, kFReserved = 0xe0 };
enum { kTrailer = 8 }; /* CRC-32 and ISIZE, both little-endian */

bool pbd_Compression_FromName(const char *name, pbd_Compression *c) {
  static const char *const kNames[] = {"auto", "gzip", "none"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(name, kNames[i])) {
      *c = (pbd_Compression)i;
      return true;
    }
  return false;
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The length of the gzip member header at p[0, n), or 0 when there is none:
 * *why says what is wrong (NULL: too short to tell). */
static size_t header_size(const uint8_t *p, size_t n, const char **why) {
  *why = NULL;
  if (n < 10) return 0;
  if (p[0] != 0x1f || p[1] != 0x8b) return *why = "no gzip magic number", 0;
  if (p[2] != 8) return *why = "compression method is not 8 (deflate)", 0;
  if (p[3] & kFReserved) return *why = "reserved header flags are set", 0;
  size_t at = 10;
  if (p[3] & kFExtra) {
    if (n - at < 2) return 0;
    size_t xlen = (size_t)p[at] | (size_t)p[at + 1] << 8;
    if (n - at - 2 < xlen) return 0;
    at += 2 + xlen;
  }
  for (int flag = kFName; flag <= kFComment; flag <<= 1) {
    if (!(p[3] & flag)) continue;
    const uint8_t *nul = memchr(p + at, 0, n - at);
    if (!nul) return 0;
    at = (size_t)(nul - p) + 1;
  }
  if (p[3] & kFHcrc) {
    if (n - at < 2) return 0;
    at += 2;
  }
  return at;
}

bool pbd_Input_IsGzip(const uint8_t *p, size_t n) {
  return n >= 4 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && !(p[3] & kFReserved);
}

bool pbd_Input_Gunzip(const uint8_t *p, size_t n, pbd_Buf *buf, pbd_Status *s) {
  return pbd_Input_GunzipMax(p, n, buf, (size_t)2 << 30, s);
}

static bool over_bound(size_t max, size_t at, pbd_Status *s) {
  pbd_Status_SetErrorAt(s, kPbd_Status_TooLarge, at,
                        "inflates to over %zu bytes, the most an input may hold "
                        "(--max-input-bytes)", max);
  return false;
}

/* Room for `more` bytes after buf->len, never past max + 1 in all (one byte
 * over the bound shows that it was passed); false on allocation failure. */
static bool reserve(pbd_Buf *buf, size_t more, size_t max) {
  size_t want = buf->len + more + 1; /* the NUL pbd_Buf keeps */
  if (want > max + 2) want = max + 2;
  if (want <= buf->cap) return true;
  char *d = realloc(buf->data, want);
  if (!d) {
    buf->oom = true;
    return false;
  }
  buf->data = d;
  buf->cap = want;
  return true;
}

/* Inflates the raw deflate data at p[0, n) onto buf; *used is what it
 * took.  Errors at offsets in p, shifted by base. */
static bool inflate_member(z_stream *z, const uint8_t *p, size_t n, size_t base, pbd_Buf *buf,
                           size_t max, size_t *used, pbd_Status *s) {
  size_t in_done = 0;
  for (;;) {
    if (buf->len + 1 >= buf->cap) {
      size_t grow = buf->cap > (1u << 16) ? buf->cap : (1u << 16);
      if (buf->len > max) return over_bound(max, base + in_done, s);
      if (!reserve(buf, grow, max)) {
        pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory inflating gzip data");
        return false;
      }
      if (buf->len + 1 >= buf->cap) return over_bound(max, base + in_done, s);
    }
    size_t take = n - in_done > (1u << 30) ? (1u << 30) : n - in_done;
    size_t room = buf->cap - buf->len - 1;
    if (room > (1u << 30)) room = 1u << 30;
    z->next_in = (Bytef *)(p + in_done);
    z->avail_in = (uInt)take;
    z->next_out = (Bytef *)buf->data + buf->len;
    z->avail_out = (uInt)room;
    int rc = inflate(z, Z_NO_FLUSH);
    in_done += take - z->avail_in;
    buf->len += room - z->avail_out;
    buf->data[buf->len] = '\0';
    if (buf->len > max) return over_bound(max, base + in_done, s);
    if (rc == Z_STREAM_END) {
      *used = in_done;
      return true;
    }
    if (rc == Z_BUF_ERROR && in_done == n) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, base + n,
                            "gzip data cut short: the input ends inside the compressed data, "
                            "before its last block and the 8-byte trailer");
      return false;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, base + in_done, "bad gzip data (%s)",
                            z->msg ? z->msg : "corrupt deflate stream");
      return false;
    }
  }
}

/* One member at p[at, n): header, data, trailer checked; *next past it. */
static bool gunzip_member(z_stream *z, const uint8_t *p, size_t n, size_t at, pbd_Buf *buf,
                          size_t max, size_t *next, pbd_Status *s) {
  const char *why;
  size_t h = header_size(p + at, n - at, &why);
  if (!h) {
    if (why)
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at, "not a gzip member: %s", why);
    else
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "gzip data cut short: the input ends inside the gzip header "
                            "(%zu bytes of it)", n - at);
    return false;
  }
  /* The last member's trailer ends the input: the size it declares (mod
   * 2^32) is a floor on what the member inflates to, so a bound that it
   * passes is known before anything is inflated. */
  if (n - at - h >= kTrailer) {
    uint32_t declared = le32(p + n - 4);
    if (declared > max || buf->len > max - declared) {
      pbd_Status_SetErrorAt(s, kPbd_Status_TooLarge, at,
                            "declares %u inflated bytes (gzip trailer), over %zu bytes, the "
                            "most an input may hold (--max-input-bytes)", declared, max);
      return false;
    }
  }
  inflateReset(z);
  size_t start_len = buf->len, used = 0;
  if (!inflate_member(z, p + at + h, n - at - h, at + h, buf, max, &used, s)) return false;
  size_t t = at + h + used;
  if (n - t < kTrailer) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, t,
                          "gzip data cut short: %zu of the trailer's 8 bytes (CRC-32 and "
                          "size)", n - t);
    return false;
  }
  size_t out = buf->len - start_len;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t k = 0; k < out; k += 1u << 30) {
    size_t part = out - k > (1u << 30) ? (1u << 30) : out - k;
    crc = crc32(crc, (const Bytef *)buf->data + start_len + k, (uInt)part);
  }
  if (le32(p + t) != (uint32_t)crc) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, t,
                          "gzip CRC-32 mismatch (0x%08x in the trailer, 0x%08x computed)",
                          le32(p + t), (uint32_t)crc);
    return false;
  }
  if (le32(p + t + 4) != (uint32_t)out) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, t + 4,
                          "gzip size mismatch (%u in the trailer, %zu inflated)", le32(p + t + 4),
                          out);
    return false;
  }
  *next = t + kTrailer;
  return true;
}

bool pbd_Input_GunzipMax(const uint8_t *p, size_t n, pbd_Buf *buf, size_t max, pbd_Status *s) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK) { /* raw deflate: the wrapper is read above */
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot start gzip decoding");
    return false;
  }
  size_t at = 0, entry_len = buf->len;
  bool ok = true;
  do ok = gunzip_member(&z, p, n, at, buf, max, &at, s); /* members, concatenated */
  while (ok && at < n);
  inflateEnd(&z);
  if (ok && buf->oom) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory decompressing");
    ok = false;
  }
  if (!ok && buf->data) pbd_Buf_Truncate(buf, entry_len);
  return ok;
}
