/* pbdiff — record framings (framing.h): a stream cut into message spans. */
#include "pbdiff/inputs/framing.h"

#include <inttypes.h>
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
    [kPbd_Framing_Confluent] = "confluent",
    [kPbd_Framing_ConfluentValue] = "confluent-value",
    [kPbd_Framing_ConfluentKeyed] = "confluent-keyed",
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
  const pbd_SplitProgress *progress; /* or NULL */
  size_t told;                       /* what progress was last told */
} Spans;

enum { kProgressBytes = 4 << 20 };

static bool push_span(Spans *sp, size_t b, size_t e, pbd_Status *s) {
  if (sp->progress && b >= sp->told + kProgressBytes) { /* nothing before b is read again */
    sp->progress->done(sp->progress->ctx, b);
    sp->told = b;
  }
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
    if (len > size - body) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                            "record %zu of %llu bytes runs past the end (only %zu left)", i,
                            (unsigned long long)len, size - body);
      return false;
    }
    if (size - body - len < 4) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, body + (size_t)len,
                            "record %zu: data CRC cut short (%zu of 4 bytes after its %llu "
                            "bytes of data)", i, (size_t)(size - body - len),
                            (unsigned long long)len);
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

/* Each gRPC message's body in the input (pbd_SourceSpan), kept when meta
 * is asked for: once messages are inflated, their spans say nothing of
 * where they are in the file. */
static bool push_source(pbd_FramedMeta *meta, size_t *cap, size_t i, size_t b, size_t e,
                        bool compressed, pbd_Status *s) {
  if (!meta) return true;
  if (i == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    pbd_SourceSpan *n = realloc(meta->sources, sizeof *n * ncap);
    if (!n) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    meta->sources = n;
    *cap = ncap;
  }
  meta->sources[i] = (pbd_SourceSpan){b, e, compressed};
  return true;
}

/* gRPC: spans in data while no message is compressed; from the first one
 * that is, every message goes into `inflated` (so the spans have one base). */
static bool split_grpc(const uint8_t *data, size_t size, size_t max_bytes, pbd_Buf *inflated,
                       Spans *sp, pbd_FramedMeta *meta, pbd_Status *s) {
  bool copying = false;
  size_t sources_cap = 0;
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
    if (flag) { /* inflated in place, the bound on all of them together */
      if (!pbd_Input_GunzipMax(body, len, inflated, max_bytes, s)) {
        char msg[sizeof s->msg];
        snprintf(msg, sizeof msg, "%s", s->msg);
        size_t where = s->has_offset ? at + 5 + s->offset : at;
        pbd_Status_SetErrorAt(s, s->code, where, "message %zu (a compressed frame of %zu bytes): "
                              "%.400s", i, len, msg);
        return false;
      }
    } else if (copying) {
      pbd_Buf_Append(inflated, (const char *)body, len);
      if (inflated->len > max_bytes) {
        pbd_Status_SetErrorAt(s, kPbd_Status_TooLarge, at,
                              "message %zu: the messages come to over %zu bytes once inflated, "
                              "the most an input may hold (--max-input-bytes)", i, max_bytes);
        return false;
      }
    }
    if (inflated->oom) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    bool ok = copying ? push_span(sp, b, inflated->len, s)
                      : push_span(sp, at + 5, at + 5 + len, s);
    if (!ok || !push_source(meta, &sources_cap, i, at + 5, at + 5 + len, flag, s)) return false;
    at += 5 + len;
  }
  if (meta && !copying) { /* the spans are in the input: no sources needed */
    free(meta->sources);
    meta->sources = NULL;
  }
  return true;
}

/* ---- Confluent Schema Registry ------------------------------------------------- */

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool push_index(pbd_FramedMeta *m, size_t *cap, uint32_t v, pbd_Status *s) {
  if (m->nindexes == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    uint32_t *n = realloc(m->indexes, sizeof *n * ncap);
    if (!n) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    m->indexes = n;
    *cap = ncap;
  }
  m->indexes[m->nindexes++] = v;
  return true;
}

static bool push_record_meta(pbd_FramedMeta *m, size_t *cap, size_t i, const pbd_RecordMeta *r,
                             pbd_Status *s) {
  if (i == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    pbd_RecordMeta *n = realloc(m->records, sizeof *n * ncap);
    if (!n) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    m->records = n;
    *cap = ncap;
  }
  m->records[i] = *r;
  return true;
}

/* Where the metadata goes while splitting: NULL meta keeps none (the
 * values are still checked). */
typedef struct {
  pbd_FramedMeta *meta;
  size_t records_cap, indexes_cap;
} MetaOut;

/* Reads one zigzag varint of the index list at *p (before stop) into *v;
 * `what` names it in errors ("message index 2"). */
static bool read_zigzag(const uint8_t *data, const uint8_t **p, const uint8_t *stop, size_t rec,
                        const char *what, int64_t *v, pbd_Status *s) {
  uint64_t u;
  const uint8_t *q = pbd_Wire_ReadVarint(*p, stop, &u);
  if (!q) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(*p - data),
                          "record %zu: %s in %s", rec,
                          pbd_Wire_VarintError(*p, stop), what);
    return false;
  }
  *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  *p = q;
  return true;
}

/* The message-index list at *p: a count, then that many indexes; count 0
 * stands for [0].  Each index takes a byte at least, so a count above the
 * bytes left is not a list (a corrupt or foreign value). */
static bool read_index_list(const uint8_t *data, const uint8_t **p, const uint8_t *stop,
                            size_t rec, MetaOut *mo, pbd_RecordMeta *r, pbd_Status *s) {
  const uint8_t *at = *p;
  int64_t count;
  if (!read_zigzag(data, p, stop, rec, "the message-index count", &count, s)) return false;
  if (count < 0 || count > stop - *p) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(at - data),
                          "record %zu: message-index count %lld (%s)", rec, (long long)count,
                          count < 0 ? "negative" : "more than the bytes left");
    return false;
  }
  r->first_index = mo->meta ? mo->meta->nindexes : 0;
  r->index_count = count ? (size_t)count : 1;
  if (count == 0) return !mo->meta || push_index(mo->meta, &mo->indexes_cap, 0, s);
  for (int64_t k = 0; k < count; k++) {
    char what[48];
    snprintf(what, sizeof what, "message index %lld", (long long)k);
    const uint8_t *iat = *p;
    int64_t v;
    if (!read_zigzag(data, p, stop, rec, what, &v, s)) return false;
    if (v < 0 || v > INT32_MAX) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(iat - data),
                            "record %zu: message index %lld out of range", rec, (long long)v);
      return false;
    }
    if (mo->meta && !push_index(mo->meta, &mo->indexes_cap, (uint32_t)v, s)) return false;
  }
  return true;
}

/* One Confluent value, data[at, stop): its message's span and metadata. */
static bool split_confluent_value(const uint8_t *data, size_t at, size_t stop, Spans *sp,
                                  MetaOut *mo, pbd_Status *s) {
  size_t rec = *sp->count;
  if (stop == at) { /* an empty value: no header, no message */
    pbd_RecordMeta r = {.first_index = mo->meta ? mo->meta->nindexes : 0,
                        .value = kPbd_RecordValue_Empty};
    if (mo->meta && !push_record_meta(mo->meta, &mo->records_cap, rec, &r, s)) return false;
    return push_span(sp, at, at, s);
  }
  if (data[at] != 0) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                          "record %zu: magic byte 0x%02x, not 0x00: not a Confluent Schema "
                          "Registry value", rec, data[at]);
    return false;
  }
  if (stop - at < 6) { /* magic, schema id, at least one byte of indexes */
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, at,
                          "record %zu: Confluent header cut short (%zu of at least 6 bytes)", rec,
                          stop - at);
    return false;
  }
  pbd_RecordMeta r = {.schema_id = be32(data + at + 1)};
  const uint8_t *p = data + at + 5;
  if (!read_index_list(data, &p, data + stop, rec, mo, &r, s)) return false;
  if (mo->meta && !push_record_meta(mo->meta, &mo->records_cap, rec, &r, s)) return false;
  return push_span(sp, (size_t)(p - data), stop, s);
}

/* One value of a confluent stream at *at: its length (kcat's %R; -1 for a
 * tombstone), then the value; *at moves past it. */
static bool split_confluent_record(const uint8_t *data, size_t size, size_t *at, size_t i,
                                   Spans *sp, MetaOut *mo, pbd_Status *s) {
  if (size - *at < 4) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, *at,
                          "record %zu: length cut short (%zu of 4 bytes)", i, size - *at);
    return false;
  }
  size_t len = be32(data + *at);
  if (len == 0xffffffffu) { /* a tombstone: no value at all */
    pbd_RecordMeta r = {.first_index = mo->meta ? mo->meta->nindexes : 0,
                        .value = kPbd_RecordValue_Tombstone};
    if (mo->meta && !push_record_meta(mo->meta, &mo->records_cap, i, &r, s)) return false;
    if (!push_span(sp, *at + 4, *at + 4, s)) return false;
    *at += 4;
    return true;
  }
  if (len > size - *at - 4) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, *at,
                          "record %zu of %zu bytes runs past the end (only %zu left)", i, len,
                          size - *at - 4);
    return false;
  }
  if (!split_confluent_value(data, *at + 4, *at + 4 + len, sp, mo, s)) return false;
  *at += 4 + len;
  return true;
}

/* The Kafka key at *at (kcat's %K%k: a u32 big-endian length, -1 for no
 * key, then its bytes) into r; *at moves past it. */
static bool read_kafka_key(const uint8_t *data, size_t size, size_t *at, size_t i,
                           pbd_RecordMeta *r, pbd_Status *s) {
  if (size - *at < 4) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, *at,
                          "record %zu: key length cut short (%zu of 4 bytes)", i, size - *at);
    return false;
  }
  size_t klen = be32(data + *at);
  r->has_key = klen != 0xffffffffu;
  if (r->has_key && klen > size - *at - 4) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, *at,
                          "record %zu: key of %zu bytes runs past the end (only %zu left)", i,
                          klen, size - *at - 4);
    return false;
  }
  r->key_begin = *at + 4;
  r->key_size = r->has_key ? klen : 0;
  *at += 4 + r->key_size;
  if (*at == size) {
    pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, *at,
                          "record %zu: the value's length is missing after the key", i);
    return false;
  }
  return true;
}

/* Kafka values each after a u32 big-endian length (kcat -f '%R%s'); keyed,
 * each after its key (kcat -f '%K%k%R%s'). */
static bool split_confluent(const uint8_t *data, size_t size, bool keyed, Spans *sp, MetaOut *mo,
                            pbd_Status *s) {
  size_t at = 0;
  while (at < size) {
    size_t i = *sp->count;
    pbd_RecordMeta key = {0};
    if (keyed && !read_kafka_key(data, size, &at, i, &key, s)) return false;
    if (!split_confluent_record(data, size, &at, i, sp, mo, s)) return false;
    if (keyed && mo->meta) {
      mo->meta->records[i].has_key = key.has_key;
      mo->meta->records[i].key_begin = key.key_begin;
      mo->meta->records[i].key_size = key.key_size;
    }
  }
  return true;
}

void pbd_FramedMeta_Free(pbd_FramedMeta *meta) {
  free(meta->sources);
  free(meta->records);
  free(meta->indexes);
  memset(meta, 0, sizeof *meta);
}

static bool same_path(const pbd_FramedMeta *a, size_t i, const pbd_FramedMeta *b, size_t j) {
  const pbd_RecordMeta *x = &a->records[i], *y = &b->records[j];
  return x->value == y->value && x->index_count == y->index_count &&
         (!x->index_count || !memcmp(a->indexes + x->first_index, b->indexes + y->first_index,
                 sizeof *a->indexes * x->index_count));
}

/* Whether two records' Kafka keys differ (where both framings carry keys). */
bool pbd_RecordMeta_KeysDiffer(const pbd_FramedMeta *a, size_t i, const pbd_FramedMeta *b,
                               size_t j) {
  if (!a->keyed || !b->keyed || !a->records || !b->records) return false;
  const pbd_RecordMeta *x = &a->records[i], *y = &b->records[j];
  return x->has_key != y->has_key || x->key_size != y->key_size ||
         (x->key_size && memcmp(a->base + x->key_begin, b->base + y->key_begin, x->key_size));
}

bool pbd_RecordMeta_Differ(const pbd_FramedMeta *a, size_t i, const pbd_FramedMeta *b, size_t j) {
  if (!a->records || !b->records) return a->records != b->records;
  return a->records[i].schema_id != b->records[j].schema_id || !same_path(a, i, b, j) ||
         pbd_RecordMeta_KeysDiffer(a, i, b, j);
}

/* Bytes quoted as text format quotes them: printable ASCII kept, quote and
 * backslash escaped, other bytes as three octal digits. */
static void quote_bytes(pbd_Buf *out, const uint8_t *p, size_t n) {
  pbd_Buf_AppendChar(out, '"');
  for (size_t k = 0; k < n; k++) {
    if (p[k] == '"' || p[k] == '\\') pbd_Buf_Printf(out, "\\%c", p[k]);
    else if (p[k] >= 0x20 && p[k] < 0x7f) pbd_Buf_AppendChar(out, (char)p[k]);
    else pbd_Buf_Printf(out, "\\%03o", p[k]);
  }
  pbd_Buf_AppendChar(out, '"');
}

void pbd_RecordMeta_FormatKey(pbd_Buf *out, const pbd_FramedMeta *m, size_t i) {
  const pbd_RecordMeta *r = &m->records[i];
  if (!r->has_key) {
    pbd_Buf_AppendStr(out, "no key");
    return;
  }
  pbd_Buf_AppendStr(out, "key ");
  quote_bytes(out, m->base + r->key_begin, r->key_size);
}

void pbd_RecordMeta_Format(pbd_Buf *out, const pbd_FramedMeta *m, size_t i) {
  const pbd_RecordMeta *r = &m->records[i];
  if (m->keyed) {
    pbd_RecordMeta_FormatKey(out, m, i);
    pbd_Buf_AppendStr(out, ", ");
  }
  if (r->value != kPbd_RecordValue_Present) {
    pbd_Buf_AppendStr(out, r->value == kPbd_RecordValue_Tombstone ? "a tombstone (no value)"
                                                                  : "an empty value");
    return;
  }
  pbd_Buf_Printf(out, "schema id %" PRIu32 ", message indexes [", r->schema_id);
  for (size_t k = 0; k < r->index_count; k++)
    pbd_Buf_Printf(out, "%s%" PRIu32, k ? ", " : "", m->indexes[r->first_index + k]);
  pbd_Buf_AppendChar(out, ']');
}

/* ---- all framings ------------------------------------------------------------- */

bool pbd_Input_SplitFramedMeta(pbd_Framing f, const uint8_t *data, size_t size, size_t max_bytes,
                               pbd_Buf *inflated, size_t **begin, size_t **end, size_t *count,
                               pbd_FramedMeta *meta, const pbd_SplitProgress *progress,
                               pbd_Status *s) {
  Spans sp = {begin, end, count, 0, f == kPbd_Framing_Grpc ? NULL : progress, 0};
  MetaOut mo = {.meta = meta};
  *count = 0;
  if (meta) meta->base = data;
  switch (f) {
    case kPbd_Framing_None: return push_span(&sp, 0, size, s);
    case kPbd_Framing_Delimited: return split_delimited(data, size, &sp, s);
    case kPbd_Framing_TFRecord: return split_tfrecord(data, size, &sp, s);
    case kPbd_Framing_Grpc: return split_grpc(data, size, max_bytes, inflated, &sp, meta, s);
    case kPbd_Framing_Confluent: return split_confluent(data, size, false, &sp, &mo, s);
    case kPbd_Framing_ConfluentKeyed:
      if (meta) meta->keyed = true;
      return split_confluent(data, size, true, &sp, &mo, s);
    case kPbd_Framing_ConfluentValue: return split_confluent_value(data, 0, size, &sp, &mo, s);
  }
  pbd_Status_SetError(s, kPbd_Status_Usage, "unknown framing %d", (int)f);
  return false;
}

bool pbd_Input_SplitFramed(pbd_Framing f, const uint8_t *data, size_t size, size_t max_bytes,
                           pbd_Buf *inflated, size_t **begin, size_t **end, size_t *count,
                           pbd_Status *s) {
  return pbd_Input_SplitFramedMeta(f, data, size, max_bytes, inflated, begin, end, count, NULL,
                                   NULL, s);
}
