/* The record framings (lib/inputs/framing.c) on hand-made bytes: CRC-32C
 * against its published check value, TFRecord and gRPC spans, and the errors
 * that name the record and its byte offset.  (Files from an independent
 * writer are in tests/cases/cli.cases, "framing_tfrecord" and "framing_grpc".) */
#include <check.h>
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

START_TEST(framing_names) {
  pbd_Framing f;
  ck_assert(pbd_Framing_FromName("tfrecord", &f) && f == kPbd_Framing_TFRecord);
  ck_assert(pbd_Framing_FromName("grpc", &f) && f == kPbd_Framing_Grpc);
  ck_assert(pbd_Framing_FromName("delimited", &f) && f == kPbd_Framing_Delimited);
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
  tcase_add_test(t, framing_names);
  suite_add_tcase(s, t);
  return tu_main(s);
}
