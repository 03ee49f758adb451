/* The record framings (lib/inputs/framing.c) on hand-made bytes: CRC-32C
 * against its published check value, TFRecord and gRPC spans, and the errors
 * that name the record and its byte offset; Confluent Schema Registry
 * values with their schema ids and message-index paths.  (Files from an
 * independent writer are in tests/cases/cli.cases, "framing_tfrecord",
 * "framing_grpc" and "framing_confluent".) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/inputs/framing.h"
#include "testutil.h"

START_TEST(crc32c_check_value) {
  /* RFC 3720's CRC-32C check value */
  ck_assert_uint_eq(pbd_Crc32c((const uint8_t *)"123456789", 9), 0xe3069283u);
  ck_assert_uint_eq(pbd_Crc32c((const uint8_t *)"", 0), 0);
  ck_assert_uint_eq(pbd_Crc32c_Mask(0), 0xa282ead8u);
}
END_TEST

/* Appends one TFRecord of n bytes. */
static size_t put_record(uint8_t *out, const uint8_t *d, uint32_t n) {
  uint8_t len[8] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
  memcpy(out, len, 8);
  uint32_t c = pbd_Crc32c_Mask(pbd_Crc32c(len, 8));
  for (int i = 0; i < 4; i++) out[8 + i] = (uint8_t)(c >> (8 * i));
  memcpy(out + 12, d, n);
  c = pbd_Crc32c_Mask(pbd_Crc32c(d, n));
  for (int i = 0; i < 4; i++) out[12 + n + i] = (uint8_t)(c >> (8 * i));
  return 16 + n;
}

START_TEST(tfrecord_spans_and_errors) {
  uint8_t buf[64];
  size_t n = put_record(buf, (const uint8_t *)"\x08\x01", 2);
  n += put_record(buf + n, (const uint8_t *)"", 0);
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_SplitFramed(kPbd_Framing_TFRecord, buf, n, 0, NULL, &b, &e, &count, &s));
  ck_assert_uint_eq(count, 2);
  ck_assert_uint_eq(b[0], 12);
  ck_assert_uint_eq(e[0], 14);
  ck_assert_uint_eq(b[1], 30);
  ck_assert_uint_eq(e[1], 30);
  buf[13] ^= 0x40; /* the first record's data */
  ck_assert(!pbd_Input_SplitFramed(kPbd_Framing_TFRecord, buf, n, 0, NULL, &b, &e, &count, &s));
  ck_assert(strstr(s.msg, "record 0: data CRC mismatch") != NULL);
  ck_assert_uint_eq(s.offset, 12);
  buf[13] ^= 0x40;
  buf[18] ^= 1; /* the second record's length */
  ck_assert(!pbd_Input_SplitFramed(kPbd_Framing_TFRecord, buf, n, 0, NULL, &b, &e, &count, &s));
  ck_assert(strstr(s.msg, "record 1: length CRC mismatch") != NULL);
  ck_assert_uint_eq(s.offset, 18);
  free(b), free(e);
}
END_TEST

START_TEST(grpc_spans) {
  /* two plain messages: spans in place */
  const uint8_t plain[] = {0, 0, 0, 0, 2, 0x08, 0x01, 0, 0, 0, 0, 0};
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Buf inflated = {0};
  ck_assert(pbd_Input_SplitFramed(kPbd_Framing_Grpc, plain, sizeof plain, 1 << 20, &inflated, &b,
                                  &e, &count, &s));
  ck_assert_uint_eq(count, 2);
  ck_assert_uint_eq(b[0], 5);
  ck_assert_uint_eq(e[0], 7);
  ck_assert_uint_eq(b[1], 12);
  ck_assert_ptr_null(inflated.data);
  /* a length past the end */
  const uint8_t cut[] = {0, 0, 0, 0, 9, 0x08};
  ck_assert(!pbd_Input_SplitFramed(kPbd_Framing_Grpc, cut, sizeof cut, 1 << 20, &inflated, &b, &e,
                                   &count, &s));
  ck_assert_str_eq(s.msg, "message 0 of 9 bytes runs past the end (only 1 left)");
  free(b), free(e);
  pbd_Buf_Free(&inflated);
}
END_TEST

/* The index path of record i as "a,b,c". */
static const char *path_of(const pbd_FramedMeta *m, size_t i) {
  static char out[64];
  out[0] = '\0';
  const pbd_RecordMeta *r = &m->records[i];
  for (size_t k = 0; k < r->index_count; k++)
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%u", k ? "," : "",
             m->indexes[r->first_index + k]);
  return out;
}

START_TEST(confluent_spans_and_metadata) {
  /* two length-prefixed values: schema 7 with the single 0x00 byte ([0]),
   * then schema 0x01020304 with count 2 (zigzag 0x04) and indexes 1, 64
   * (zigzag 0x02 and 0x80 0x01) */
  const uint8_t buf[] = {0, 0, 0, 8,    0, 0, 0, 0, 7,    0,    0x08, 0x01,
                         0, 0, 0, 10,   0, 1, 2, 3, 4,    0x04, 0x02, 0x80, 0x01, 0x10};
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_FramedMeta m = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_SplitFramedMeta(kPbd_Framing_Confluent, buf, sizeof buf, 0, NULL, &b, &e,
                                      &count, &m, NULL, &s));
  ck_assert_uint_eq(count, 2);
  ck_assert_uint_eq(b[0], 10);
  ck_assert_uint_eq(e[0], 12);
  ck_assert_uint_eq(b[1], 25);
  ck_assert_uint_eq(e[1], 26);
  ck_assert_uint_eq(m.records[0].schema_id, 7);
  ck_assert_str_eq(path_of(&m, 0), "0");
  ck_assert_uint_eq(m.records[1].schema_id, 0x01020304u);
  ck_assert_str_eq(path_of(&m, 1), "1,64");
  ck_assert(pbd_RecordMeta_Differ(&m, 0, &m, 1));
  ck_assert(!pbd_RecordMeta_Differ(&m, 1, &m, 1));
  pbd_Buf t = {0};
  pbd_RecordMeta_Format(&t, &m, 1);
  ck_assert_str_eq(t.data, "schema id 16909060, message indexes [1, 64]");
  pbd_Buf_Free(&t);
  pbd_FramedMeta_Free(&m);
  /* one value, the whole input: the message starts after the index list */
  ck_assert(pbd_Input_SplitFramedMeta(kPbd_Framing_ConfluentValue, buf + 16, 10, 0, NULL, &b, &e,
                                      &count, &m, NULL, &s));
  ck_assert_uint_eq(count, 1);
  ck_assert_uint_eq(b[0], 9);
  ck_assert_uint_eq(e[0], 10);
  ck_assert_str_eq(path_of(&m, 0), "1,64");
  pbd_FramedMeta_Free(&m);
  /* without metadata wanted, the same spans */
  ck_assert(pbd_Input_SplitFramed(kPbd_Framing_Confluent, buf, sizeof buf, 0, NULL, &b, &e,
                                  &count, &s));
  ck_assert_uint_eq(count, 2);
  ck_assert_uint_eq(b[1], 25);
  free(b), free(e);
}
END_TEST

/* Splits `n` bytes as `f`, expecting failure with `msg` at `offset`. */
static void expect_error(pbd_Framing f, const uint8_t *d, size_t n, const char *msg,
                         size_t offset) {
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_FramedMeta m = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Input_SplitFramedMeta(f, d, n, 0, NULL, &b, &e, &count, &m, NULL, &s));
  ck_assert_str_eq(s.msg, msg);
  ck_assert_uint_eq(s.offset, offset);
  pbd_FramedMeta_Free(&m);
  free(b), free(e);
}

START_TEST(confluent_errors) {
  /* a good first record, then a bad magic byte in the second */
  const uint8_t magic[] = {0, 0, 0, 6, 0, 0, 0, 0, 1, 0, 0, 0, 0, 6, 1, 0, 0, 0, 1, 0};
  expect_error(kPbd_Framing_Confluent, magic, sizeof magic,
               "record 1: magic byte 0x01, not 0x00: not a Confluent Schema Registry value", 14);
  /* a value shorter than its header; a length past the end; a cut length */
  const uint8_t shorthdr[] = {0, 0, 0, 3, 0, 0, 0};
  expect_error(kPbd_Framing_Confluent, shorthdr, sizeof shorthdr,
               "record 0: Confluent header cut short (3 of at least 6 bytes)", 4);
  expect_error(kPbd_Framing_Confluent, magic, 12, "record 1: length cut short (2 of 4 bytes)", 10);
  const uint8_t past[] = {0, 0, 0, 9, 0, 0, 0, 0, 1, 0};
  expect_error(kPbd_Framing_Confluent, past, sizeof past,
               "record 0 of 9 bytes runs past the end (only 6 left)", 0);
  /* index lists: negative count (zigzag 0x01 is -1), a count above the
   * bytes left, a truncated index, a negative index */
  const uint8_t neg[] = {0, 0, 0, 0, 1, 0x01, 0x08};
  expect_error(kPbd_Framing_ConfluentValue, neg, sizeof neg,
               "record 0: message-index count -1 (negative)", 5);
  const uint8_t absurd[] = {0, 0, 0, 0, 1, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02};
  expect_error(kPbd_Framing_ConfluentValue, absurd, sizeof absurd,
               "record 0: message-index count 2147483647 (more than the bytes left)", 5);
  const uint8_t cut[] = {0, 0, 0, 0, 1, 0x04, 0x02, 0x80};
  expect_error(kPbd_Framing_ConfluentValue, cut, sizeof cut,
               "record 0: truncated varint in message index 1", 7);
  const uint8_t negidx[] = {0, 0, 0, 0, 1, 0x02, 0x03};
  expect_error(kPbd_Framing_ConfluentValue, negidx, sizeof negidx,
               "record 0: message index -2 out of range", 6);
  const uint8_t one[] = {0};
  expect_error(kPbd_Framing_ConfluentValue, one, sizeof one,
               "record 0: Confluent header cut short (1 of at least 6 bytes)", 0);
}
END_TEST

/* Records without a value, as kcat writes them: a tombstone's length is -1
 * (0xffffffff), an empty value's 0; both are empty spans, told apart in the
 * metadata (issue 23: they read as "4294967295 bytes runs past the end" and
 * "Confluent header cut short"). */
START_TEST(confluent_records_without_a_value) {
  const uint8_t buf[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
                         0, 0, 0, 7, 0, 0, 0, 0, 7, 0, 0x08};
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_FramedMeta m = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_Input_SplitFramedMeta(kPbd_Framing_Confluent, buf, sizeof buf, 0, NULL, &b,
                                          &e, &count, &m, NULL, &s), "%s", s.msg);
  ck_assert_uint_eq(count, 3);
  ck_assert_uint_eq(b[0], e[0]);
  ck_assert_uint_eq(b[1], e[1]);
  ck_assert_uint_eq(b[2], 18);
  ck_assert_int_eq(m.records[0].value, kPbd_RecordValue_Tombstone);
  ck_assert_int_eq(m.records[1].value, kPbd_RecordValue_Empty);
  ck_assert_int_eq(m.records[2].value, kPbd_RecordValue_Present);
  ck_assert(pbd_RecordMeta_Differ(&m, 0, &m, 1));
  ck_assert(!pbd_RecordMeta_Differ(&m, 0, &m, 0));
  pbd_Buf t = {0};
  pbd_RecordMeta_Format(&t, &m, 0);
  pbd_Buf_AppendStr(&t, "; ");
  pbd_RecordMeta_Format(&t, &m, 1);
  ck_assert_str_eq(t.data, "a tombstone (no value); an empty value");
  pbd_Buf_Free(&t);
  pbd_FramedMeta_Free(&m);
  free(b), free(e);
  /* one value saved to a file, empty */
  b = e = NULL;
  ck_assert(pbd_Input_SplitFramedMeta(kPbd_Framing_ConfluentValue, buf, 0, 0, NULL, &b, &e,
                                      &count, &m, NULL, &s));
  ck_assert_uint_eq(count, 1);
  ck_assert_int_eq(m.records[0].value, kPbd_RecordValue_Empty);
  pbd_FramedMeta_Free(&m);
  free(b), free(e);
}
END_TEST

/* The progress a split reports (for a corpus's files, given back behind
 * it): a record's start, every 4 MiB or more, never going back, and
 * nothing for gRPC (its spans may be in an inflated buffer). */
typedef struct {
  size_t n[64];
  size_t count;
} Told;

static void note_done(void *ctx, size_t n) {
  Told *t = ctx;
  if (t->count < 64) t->n[t->count] = n;
  t->count++;
}

START_TEST(split_progress_at_record_starts) {
  enum { kRecords = 100000, kBody = 99 }; /* 100 bytes framed: 10 MB */
  size_t size = (size_t)kRecords * (kBody + 1);
  uint8_t *d = malloc(size);
  ck_assert_ptr_nonnull(d);
  for (size_t i = 0; i < kRecords; i++) {
    d[i * (kBody + 1)] = kBody;                             /* the length prefix */
    memset(d + i * (kBody + 1) + 1, 0x08 + (int)(i & 1), kBody); /* field 1 or 2, varint 8 or 9 */
  }
  Told told = {0};
  pbd_SplitProgress progress = {note_done, &told};
  size_t *b = NULL, *e = NULL, count = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_SplitFramedMeta(kPbd_Framing_Delimited, d, size, 0, NULL, &b, &e, &count,
                                      NULL, &progress, &s));
  ck_assert_uint_eq(count, kRecords);
  ck_assert_uint_eq(told.count, 2); /* 4 MiB and 8 MiB into 10 MB */
  size_t last = 0;
  for (size_t k = 0; k < told.count; k++) {
    size_t n = told.n[k];
    ck_assert_uint_ge(n, last + (4u << 20));
    ck_assert_uint_eq(n % (kBody + 1), 1); /* a record's first byte, after its prefix */
    ck_assert_uint_lt(n, size);
    last = n;
  }
  free(b), free(e);
  /* gRPC: a flag byte and a u32 big-endian length before each message */
  size_t gsize = (size_t)kRecords * (kBody + 5);
  uint8_t *g = malloc(gsize);
  ck_assert_ptr_nonnull(g);
  for (size_t i = 0; i < kRecords; i++) {
    uint8_t *r = g + i * (kBody + 5);
    memcpy(r, (uint8_t[5]){0, 0, 0, 0, kBody}, 5);
    memset(r + 5, 0x08, kBody);
  }
  told.count = 0;
  b = e = NULL;
  pbd_Buf inflated = {0};
  ck_assert(pbd_Input_SplitFramedMeta(kPbd_Framing_Grpc, g, gsize, 0, &inflated, &b, &e, &count,
                                      NULL, &progress, &s));
  ck_assert_uint_eq(count, kRecords);
  ck_assert_uint_eq(told.count, 0);
  pbd_Buf_Free(&inflated);
  free(b), free(e);
  free(g), free(d);
}
END_TEST

START_TEST(framing_names) {
  pbd_Framing f;
  ck_assert(pbd_Framing_FromName("tfrecord", &f) && f == kPbd_Framing_TFRecord);
  ck_assert(pbd_Framing_FromName("grpc", &f) && f == kPbd_Framing_Grpc);
  ck_assert(pbd_Framing_FromName("delimited", &f) && f == kPbd_Framing_Delimited);
  ck_assert(pbd_Framing_FromName("confluent", &f) && f == kPbd_Framing_Confluent);
  ck_assert(pbd_Framing_FromName("confluent-value", &f) && f == kPbd_Framing_ConfluentValue);
  ck_assert_str_eq(pbd_Framing_Name(kPbd_Framing_ConfluentValue), "confluent-value");
  ck_assert(!pbd_Framing_FromName("none", &f));
  ck_assert_str_eq(pbd_Framing_Name(kPbd_Framing_Grpc), "grpc");
}
END_TEST

int main(void) {
  Suite *s = suite_create("framing");
  TCase *t = tcase_create("framing");
  tcase_add_test(t, crc32c_check_value);
  tcase_add_test(t, tfrecord_spans_and_errors);
  tcase_add_test(t, grpc_spans);
  tcase_add_test(t, confluent_spans_and_metadata);
  tcase_add_test(t, confluent_errors);
  tcase_add_test(t, confluent_records_without_a_value);
  tcase_add_test(t, framing_names);
  tcase_add_test(t, split_progress_at_record_starts);
  suite_add_tcase(s, t);
  return tu_main(s);
}
