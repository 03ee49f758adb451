/* pbdiff — record framings (framing.h): a stream cut into message spans. */
#include "pbdiff/inputs/framing.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/inputs/decode.h"
#include "pbdiff/wire/wire.h"

static const char *const kNames[] = {
    [kPbd_Framing_None] = "none",
    [kPbd_Framing_Delimited] = "delimited",
    [kPbd_Framing_TFRecord] = "tfrecord",
    [kPbd_Framing_Grpc] = "grpc",
};

bool pbd_Framing_FromName(const char *name, pbd_Framing *f) {
  for (size_t i = 1; i < sizeof kNames / sizeof *kNames; i++)
    if (!strcmp(name, kNames[i])) {
      *f = (pbd_Framing)i;
      return true;
    }
  return false;
}

const char *pbd_Framing_Name(pbd_Framing f) {
  return (unsigned)f < sizeof kNames / sizeof *kNames ? kNames[f] : "?";
}

/* ---- CRC-32C ---------------------------------------------------------------- */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1; /* Castagnoli, reflected */
    crc_table[i] = c;
  }
}

uint32_t pbd_Crc32c(const uint8_t *p, size_t n) {
  pthread_once(&crc_once, crc_init); /* both sides may be read on two threads */
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

uint32_t pbd_Crc32c_Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

/* ---- spans -------------------------------------------------------------------- */

typedef struct {
  size_t **begin, **end, *count, cap;
} Spans;

static bool push_span(Spans *sp, size_t b, size_t e, pbd_Status *s) {
  if (*sp->count == sp->cap) {
    sp->cap = sp->cap ? sp->cap * 2 : 16;
    size_t *nb = realloc(*sp->begin, sizeof *nb * sp->cap);
    if (nb) *sp->begin = nb;
    size_t *ne = nb ? realloc(*sp->end, sizeof *ne * sp->cap) : NULL;
    if (ne) *sp->end = ne;
    if (!nb || !ne) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
  }
  (*sp->begin)[*sp->count] = b;
  (*sp->end)[*sp->count] = e;
  (*sp->count)++;
  return true;
}

static bool split_delimited(const uint8_t *data, size_t size, Spans *sp, pbd_Status *s) {
  const uint8_t *p = data, *end = data + size;
  while (p < end) {
    uint64_t len;
    const uint8_t *q = pbd_Wire_ReadVarint(p, end, &len);
    if (!q) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(p - data),
                            "%s in length prefix of message %zu", pbd_Wire_VarintError(p, end),
                            *sp->count);
      return false;
    }
    if (len > (uint64_t)(end - q)) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(p - data),
                            "message %zu of %llu bytes runs past the end (only %zu left)",
                            *sp->count, (unsigned long long)len, (size_t)(end - q));
      return false;
    }
    if (!push_span(sp, (size_t)(q - data), (size_t)(q - data + len), s)) return false;
    p = q + len;
  }
  return true;
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool split_tfrecord(const uint8_t *data, size_t size, Spans *sp, pbd_Status *s) {
  size_t at = 0;
  while (at < size) {
    size_t i = *sp->count;
    if (size - at < 12) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "record %zu: header cut short (%zu of 12 bytes)", i, size - at);
      return false;
    }
    uint64_t len = (uint64_t)le32(data + at) | (uint64_t)le32(data + at + 4) << 32;
    uint32_t want = le32(data + at + 8), got = pbd_Crc32c_Mask(pbd_Crc32c(data + at, 8));
    if (want != got) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "record %zu: length CRC mismatch (0x%08x in the file, 0x%08x "
                            "computed): not a TFRecord file, or a corrupt one", i, want, got);
      return false;
    }
    size_t body = at + 12;
    if (len > size - body || size - body - len < 4) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "record %zu of %llu bytes runs past the end (only %zu left)", i,
                            (unsigned long long)len, size - body);
      return false;
    }
    want = le32(data + body + len);
    got = pbd_Crc32c_Mask(pbd_Crc32c(data + body, (size_t)len));
    if (want != got) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, body,
                            "record %zu: data CRC mismatch (0x%08x in the file, 0x%08x "
                            "computed)", i, want, got);
      return false;
    }
    if (!push_span(sp, body, body + (size_t)len, s)) return false;
    at = body + (size_t)len + 4;
  }
  return true;
}

/* gRPC: spans in data while no message is compressed; from the first one
 * that is, every message goes into `inflated` (so the spans have one base). */
static bool split_grpc(const uint8_t *data, size_t size, size_t max_bytes, pbd_Buf *inflated,
                       Spans *sp, pbd_Status *s) {
  bool copying = false;
  size_t at = 0;
  while (at < size) {
    size_t i = *sp->count;
    if (size - at < 5) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "message %zu: gRPC header cut short (%zu of 5 bytes)", i, size - at);
      return false;
    }
    uint8_t flag = data[at];
    size_t len = (size_t)data[at + 1] << 24 | (size_t)data[at + 2] << 16 |
                 (size_t)data[at + 3] << 8 | data[at + 4];
    if (flag > 1) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "message %zu: compressed flag %u (0 or 1 in gRPC framing)", i, flag);
      return false;
    }
    if (len > size - at - 5) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "message %zu of %zu bytes runs past the end (only %zu left)", i, len,
                            size - at - 5);
      return false;
    }
    const uint8_t *body = data + at + 5;
    if (flag && !copying) { /* the spans so far move into `inflated` */
      copying = true;
      for (size_t k = 0; k < i; k++) {
        size_t b = inflated->len;
        pbd_Buf_Append(inflated, (const char *)data + (*sp->begin)[k], (*sp->end)[k] - (*sp->begin)[k]);
        (*sp->end)[k] = inflated->len;
        (*sp->begin)[k] = b;
      }
    }
    size_t b = inflated->len;
    if (flag) {
      pbd_Buf one = {0};
      size_t room = max_bytes > inflated->len ? max_bytes - inflated->len : 0;
      if (!pbd_Input_GunzipMax(body, len, &one, room, s)) {
        pbd_Buf_Free(&one);
        char msg[sizeof s->msg];
        snprintf(msg, sizeof msg, "%s", s->msg);
        pbd_Status_SetErrorAt(s, s->code, at, "message %zu: %.400s", i, msg);
        return false;
      }
      pbd_Buf_Append(inflated, one.data ? one.data : "", one.len);
      pbd_Buf_Free(&one);
    } else if (copying) {
      pbd_Buf_Append(inflated, (const char *)body, len);
    }
    if (inflated->oom) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    bool ok = copying ? push_span(sp, b, inflated->len, s)
                      : push_span(sp, at + 5, at + 5 + len, s);
    if (!ok) return false;
    at += 5 + len;
  }
  return true;
}

bool pbd_Input_SplitFramed(pbd_Framing f, const uint8_t *data, size_t size, size_t max_bytes,
                           pbd_Buf *inflated, size_t **begin, size_t **end, size_t *count,
                           pbd_Status *s) {
  Spans sp = {begin, end, count, 0};
  *count = 0;
  switch (f) {
    case kPbd_Framing_None: return push_span(&sp, 0, size, s);
    case kPbd_Framing_Delimited: return split_delimited(data, size, &sp, s);
    case kPbd_Framing_TFRecord: return split_tfrecord(data, size, &sp, s);
    case kPbd_Framing_Grpc: return split_grpc(data, size, max_bytes, inflated, &sp, s);
  }
  pbd_Status_SetError(s, kPbd_Status_Usage, "unknown framing %d", (int)f);
  return false;
}
