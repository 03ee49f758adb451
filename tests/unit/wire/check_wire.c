/* The wire reader (lib/wire/wire.h) on hand-made bytes: varints (one byte,
 * multi-byte, the 10-byte maximum, non-minimal, truncated, overlong),
 * fixed32/64, ZigZag, and pbd_Wire_ReadField: tags (numbers 1 and 2^29-1,
 * 0 and 2^29, wire types 6 and 7), each wire type, length-delimited bounds,
 * groups (nested, mismatched, unterminated, too deep) and the offsets of
 * errors.  Every input is an exact-size allocation (tu_hex), so a read past
 * the end shows under AddressSanitizer. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "pbdiff/wire/wire.h"

/* ---- varints --------------------------------------------------------------- */

/* Reads one varint from hex; *ok says whether it was read, *used how many
 * bytes it took. */
static uint64_t varint_of(const char *hex, bool *ok, size_t *used) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  uint64_t v = 0xdeadbeef;
  const uint8_t *q = pbd_Wire_ReadVarint(b, b + n, &v);
  *ok = q != NULL;
  *used = q ? (size_t)(q - b) : 0;
  free(b);
  return v;
}

#define CHECK_VARINT(hex, want, want_used)                                                   \
  do {                                                                                       \
    bool ok_;                                                                                \
    size_t used_;                                                                            \
    uint64_t v_ = varint_of(hex, &ok_, &used_);                                              \
    ck_assert_msg(ok_, "%s: not read", hex);                                                 \
    ck_assert_msg(v_ == (uint64_t)(want), "%s: %llu, want %llu", hex, (unsigned long long)v_, \
                  (unsigned long long)(want));                                               \
    ck_assert_uint_eq(used_, want_used);                                                     \
  } while (0)

START_TEST(varint_values) {
  CHECK_VARINT("00", 0, 1);
  CHECK_VARINT("01", 1, 1);
  CHECK_VARINT("7f", 127, 1);
  CHECK_VARINT("80 01", 128, 2);
  CHECK_VARINT("ac 02", 300, 2);
  CHECK_VARINT("96 01", 150, 2);
  CHECK_VARINT("ff ff ff ff 0f", 0xffffffffu, 5);
  CHECK_VARINT("80 80 80 80 10", 1ull << 32, 5);
  /* the 10-byte maximum: -1 as an int64 */
  CHECK_VARINT("ff ff ff ff ff ff ff ff ff 01", UINT64_MAX, 10);
  CHECK_VARINT("80 80 80 80 80 80 80 80 80 01", 1ull << 63, 10);
  /* the bits of a tenth byte past bit 63 are dropped, as protobuf does */
  CHECK_VARINT("ff ff ff ff ff ff ff ff ff 7f", UINT64_MAX, 10);
  /* non-minimal forms read as their value */
  CHECK_VARINT("80 00", 0, 2);
  CHECK_VARINT("81 80 80 00", 1, 4);
  CHECK_VARINT("80 80 80 80 80 80 80 80 80 00", 0, 10);
  /* only the varint is consumed */
  CHECK_VARINT("05 ff", 5, 1);
  CHECK_VARINT("ac 02 08 01", 300, 2);
}
END_TEST

static void check_bad_varint(const char *hex, const char *why) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  uint64_t v;
  ck_assert_msg(pbd_Wire_ReadVarint(b, b + n, &v) == NULL, "%s: read", hex);
  ck_assert_str_eq(pbd_Wire_VarintError(b, b + n), why);
  free(b);
}

START_TEST(varint_truncated_and_overlong) {
  check_bad_varint("", "truncated varint");
  check_bad_varint("80", "truncated varint");
  check_bad_varint("ff ff", "truncated varint");
  check_bad_varint("ff ff ff ff ff ff ff ff ff", "truncated varint"); /* 9 continuations */
  check_bad_varint("ff ff ff ff ff ff ff ff ff ff", "varint longer than 10 bytes");
  check_bad_varint("ff ff ff ff ff ff ff ff ff ff 01", "varint longer than 10 bytes");
  check_bad_varint("80 80 80 80 80 80 80 80 80 80 00", "varint longer than 10 bytes");
  /* the end bounds the read, not the bytes after it */
  uint8_t b[] = {0xac, 0x02};
  uint64_t v;
  ck_assert_ptr_null(pbd_Wire_ReadVarint(b, b + 1, &v));
  ck_assert_ptr_null(pbd_Wire_ReadVarint(b, b, &v));
  ck_assert_ptr_eq(pbd_Wire_ReadVarint(b, b + 2, &v), b + 2);
  ck_assert_uint_eq(v, 300);
}
END_TEST

START_TEST(fixed_and_zigzag) {
  size_t n;
  uint8_t *b = tu_hex("01 02 03 04 05 06 07 08", &n);
  uint32_t u32;
  uint64_t u64;
  ck_assert_ptr_eq(pbd_Wire_ReadFixed32(b, b + n, &u32), b + 4);
  ck_assert_uint_eq(u32, 0x04030201u); /* little-endian */
  ck_assert_ptr_eq(pbd_Wire_ReadFixed64(b, b + n, &u64), b + 8);
  ck_assert(u64 == 0x0807060504030201ull);
  ck_assert_ptr_null(pbd_Wire_ReadFixed32(b + 5, b + n, &u32)); /* 3 bytes left */
  ck_assert_ptr_null(pbd_Wire_ReadFixed64(b + 1, b + n, &u64)); /* 7 bytes left */
  ck_assert_ptr_null(pbd_Wire_ReadFixed64(b, b + 4, &u64));
  free(b);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(0), 0);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(1), -1);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(2), 1);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(3), -2);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(0xfffffffeu), INT32_MAX);
  ck_assert_int_eq(pbd_Wire_ZigZagDecode32(0xffffffffu), INT32_MIN);
  ck_assert(pbd_Wire_ZigZagDecode64(4) == 2);
  ck_assert(pbd_Wire_ZigZagDecode64(5) == -3);
  ck_assert(pbd_Wire_ZigZagDecode64(UINT64_MAX - 1) == INT64_MAX);
  ck_assert(pbd_Wire_ZigZagDecode64(UINT64_MAX) == INT64_MIN);
}
END_TEST

/* ---- fields -------------------------------------------------------------- */

/* Reads the first field of hex (depth limit 100): the field, the bytes used
 * (0 when it failed) and the status. */
typedef struct {
  pbd_WireField f;
  size_t used;
  pbd_Status s;
  uint8_t *bytes;
} Read;

static Read read_field(const char *hex, int depth_left) {
  Read r;
  memset(&r, 0, sizeof r);
  size_t n;
  r.bytes = tu_hex(hex, &n);
  pbd_Status_Clear(&r.s);
  const uint8_t *q = pbd_Wire_ReadField(r.bytes, r.bytes + n, r.bytes, depth_left, &r.f, &r.s);
  r.used = q ? (size_t)(q - r.bytes) : 0;
  if (q) ck_assert_msg(pbd_Status_IsOk(&r.s), "%s: read, with an error: %s", hex, r.s.msg);
  return r;
}

/* A field that must fail with this message (prefix), code and offset. */
static void check_bad_field(const char *hex, int depth_left, pbd_StatusCode code,
                            const char *msg, size_t offset) {
  Read r = read_field(hex, depth_left);
  ck_assert_msg(r.used == 0, "%s: read %zu bytes", hex, r.used);
  ck_assert_msg(r.s.code == code, "%s: code %s, want %s (%s)", hex, pbd_StatusCode_String(r.s.code),
                pbd_StatusCode_String(code), r.s.msg);
  ck_assert_msg(!strncmp(r.s.msg, msg, strlen(msg)), "%s: [%s], want [%s...]", hex, r.s.msg, msg);
  ck_assert(r.s.has_offset);
  ck_assert_msg(r.s.offset == offset, "%s: offset %zu, want %zu", hex, r.s.offset, offset);
  free(r.bytes);
}

START_TEST(field_scalars) {
  Read r = read_field("08 96 01", 100);
  ck_assert_uint_eq(r.used, 3);
  ck_assert_uint_eq(r.f.number, 1);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_Varint);
  ck_assert_uint_eq(r.f.value, 150);
  ck_assert_ptr_eq(r.f.start, r.bytes);
  free(r.bytes);
  r = read_field("0d 78 56 34 12 ff", 100); /* fixed32, then another byte */
  ck_assert_uint_eq(r.used, 5);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_Fixed32);
  ck_assert_uint_eq(r.f.value, 0x12345678u);
  free(r.bytes);
  r = read_field("11 01 00 00 00 00 00 00 80", 100); /* field 2, fixed64 */
  ck_assert_uint_eq(r.used, 9);
  ck_assert_uint_eq(r.f.number, 2);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_Fixed64);
  ck_assert(r.f.value == 0x8000000000000001ull);
  free(r.bytes);
}
END_TEST

START_TEST(field_numbers) {
  /* the largest number, 2^29-1: tag (2^29-1) << 3 = f8 ff ff ff 0f */
  Read r = read_field("f8 ff ff ff 0f 07", 100);
  ck_assert_uint_eq(r.used, 6);
  ck_assert_uint_eq(r.f.number, kPbd_MaxFieldNumber);
  ck_assert_uint_eq(r.f.value, 7);
  free(r.bytes);
  /* a two-byte tag: field 16 */
  r = read_field("80 01 01", 100);
  ck_assert_uint_eq(r.f.number, 16);
  free(r.bytes);
  check_bad_field("00 01", 100, kPbd_Status_Malformed, "invalid field number 0", 0);
  check_bad_field("80 80 80 80 10 01", 100, kPbd_Status_Malformed, "invalid field number 536870912",
                  0);
  check_bad_field("0e", 100, kPbd_Status_Malformed, "invalid wire type 6 (field 1)", 0);
  check_bad_field("0f", 100, kPbd_Status_Malformed, "invalid wire type 7 (field 1)", 0);
  check_bad_field("80", 100, kPbd_Status_Malformed, "truncated varint in tag", 0);
  check_bad_field("ff ff ff ff ff ff ff ff ff ff 01", 100, kPbd_Status_Malformed,
                  "varint longer than 10 bytes in tag", 0);
}
END_TEST

START_TEST(field_truncated_values) {
  check_bad_field("08", 100, kPbd_Status_Malformed, "truncated varint (field 1)", 1);
  check_bad_field("10 ff ff", 100, kPbd_Status_Malformed, "truncated varint (field 2)", 1);
  check_bad_field("08 ff ff ff ff ff ff ff ff ff ff 01", 100, kPbd_Status_Malformed,
                  "varint longer than 10 bytes (field 1)", 1);
  check_bad_field("0d 01 02 03", 100, kPbd_Status_Malformed, "truncated fixed32 (field 1)", 1);
  check_bad_field("09 01 02 03 04 05 06 07", 100, kPbd_Status_Malformed,
                  "truncated fixed64 (field 1)", 1);
}
END_TEST

START_TEST(field_length_delimited) {
  Read r = read_field("12 03 61 62 63 08 01", 100);
  ck_assert_uint_eq(r.used, 5);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_Delimited);
  ck_assert_ptr_eq(r.f.data, r.bytes + 2);
  ck_assert_uint_eq(r.f.size, 3);
  ck_assert(!memcmp(r.f.data, "abc", 3));
  free(r.bytes);
  /* empty, and exactly up to the end */
  r = read_field("12 00", 100);
  ck_assert_uint_eq(r.used, 2);
  ck_assert_uint_eq(r.f.size, 0);
  free(r.bytes);
  r = read_field("1a 02 08 01", 100);
  ck_assert_uint_eq(r.used, 4);
  ck_assert_uint_eq(r.f.size, 2);
  free(r.bytes);
  /* one byte past the end, a huge length, a bad length varint */
  check_bad_field("12 04 61 62 63", 100, kPbd_Status_Malformed,
                  "length 4 of field 2 runs past the end (only 3 left)", 1);
  check_bad_field("12 ff ff ff ff 0f 61", 100, kPbd_Status_Malformed,
                  "length 4294967295 of field 2 runs past the end (only 1 left)", 1);
  check_bad_field("12 80", 100, kPbd_Status_Malformed, "truncated varint in length (field 2)", 1);
  /* offsets count from base, not from where the read started */
  size_t n;
  uint8_t *b = tu_hex("08 01 12 05 61", &n);
  pbd_WireField f;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_ptr_null(pbd_Wire_ReadField(b + 2, b + n, b, 100, &f, &s));
  ck_assert_uint_eq(s.offset, 3);
  free(b);
}
END_TEST

START_TEST(field_groups) {
  /* group 1 { 1: 1 } then a field after it */
  Read r = read_field("0b 08 01 0c 10 02", 100);
  ck_assert_uint_eq(r.used, 4);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_StartGroup);
  ck_assert_uint_eq(r.f.number, 1);
  ck_assert_ptr_eq(r.f.data, r.bytes + 1);
  ck_assert_uint_eq(r.f.size, 2); /* the body, without the end tag */
  free(r.bytes);
  /* empty; nested; a LEN inside holding an end-group byte is not an end */
  r = read_field("0b 0c", 100);
  ck_assert_uint_eq(r.used, 2);
  ck_assert_uint_eq(r.f.size, 0);
  free(r.bytes);
  r = read_field("0b 13 08 01 14 12 01 0c 0c", 100);
  ck_assert_uint_eq(r.used, 9);
  ck_assert_uint_eq(r.f.size, 7);
  free(r.bytes);
  /* an end-group tag alone is returned as such, for the caller to judge */
  r = read_field("0c", 100);
  ck_assert_uint_eq(r.used, 1);
  ck_assert_uint_eq(r.f.wire_type, kPbd_WireType_EndGroup);
  free(r.bytes);
  check_bad_field("0b 08 01", 100, kPbd_Status_Malformed, "group 1 has no end tag", 0);
  check_bad_field("0b 08 01 14", 100, kPbd_Status_Malformed,
                  "end group 2 does not match start group 1", 3);
  check_bad_field("0b 08", 100, kPbd_Status_Malformed, "truncated varint (field 1)", 2);
  /* depth: a group needs one level; one inside it two */
  r = read_field("0b 0c", 1);
  ck_assert_uint_eq(r.used, 2);
  free(r.bytes);
  check_bad_field("0b 0c", 0, kPbd_Status_MaxDepthExceeded, "groups nested too deep", 0);
  r = read_field("0b 13 14 0c", 2);
  ck_assert_uint_eq(r.used, 4);
  free(r.bytes);
  check_bad_field("0b 13 14 0c", 1, kPbd_Status_MaxDepthExceeded, "groups nested too deep", 1);
}
END_TEST

/* Every prefix of a sequence of fields reads cleanly or fails cleanly, never
 * past its end. */
START_TEST(every_prefix_reads_or_fails) {
  size_t n;
  uint8_t *all = tu_hex("08 96 01 12 03 61 62 63 0b 13 08 01 14 0c 1d 01 02 03 04"
                        " 21 01 02 03 04 05 06 07 08 f8 ff ff ff 0f 07",
                        &n);
  for (size_t k = 0; k <= n; k++) {
    uint8_t *b = malloc(k ? k : 1);
    memcpy(b, all, k);
    const uint8_t *p = b, *end = b + k;
    int fields = 0;
    while (p < end) {
      pbd_WireField f;
      pbd_Status s;
      pbd_Status_Clear(&s);
      const uint8_t *q = pbd_Wire_ReadField(p, end, b, 100, &f, &s);
      if (!q) {
        ck_assert(s.code != kPbd_Status_Ok && s.has_offset && s.offset <= k && s.msg[0]);
        break;
      }
      ck_assert(q > p && q <= end);
      p = q;
      fields++;
    }
    if (k == n) ck_assert_int_eq(fields, 6);
    free(b);
  }
  free(all);
}
END_TEST

/* pbd_Wire_ReadCommonField reads a field exactly as pbd_Wire_ReadField does,
 * or gives it up (NULL) to be read the long way: for one- and two-byte tags
 * (a non-minimal one too), varints of 1 to 10 bytes, fixed32/64 and LENs,
 * and for every prefix of each (an exact-size allocation: a read past the
 * end shows under AddressSanitizer).  `fast` says which whole fields it
 * must read itself, so that the hash pass's common fields stay off the
 * long way. */
START_TEST(common_field_agrees_with_read_field) {
  static const struct {
    const char *hex;
    bool fast;
  } cases[] = {
      {"08 05", true},                            /* 1: varint */
      {"08 96 01", true},                         /* a two-byte varint */
      {"08 ff ff ff ff ff ff ff ff ff 01", true}, /* ten bytes: 2^64 - 1 */
      {"08 ff ff ff ff ff ff ff ff ff ff 01", false}, /* eleven: overlong */
      {"a0 01 04", true},                         /* 20: varint, a two-byte tag */
      {"a0 01 96 01", true},
      {"88 00 07", true},                         /* 1, its tag non-minimal */
      {"80 00 07", false},                        /* field 0 */
      {"80 80 01 07", false},                     /* a three-byte tag: field 2048 */
      {"15 00 00 80 3f", true},                   /* 2: fixed32 */
      {"a5 01 00 00 80 3f", true},                /* 20: fixed32 */
      {"19 01 02 03 04 05 06 07 08", true},       /* 3: fixed64 */
      {"12 03 61 62 63", true},                   /* 2: LEN */
      {"a2 01 02 61 62", true},                   /* 20: LEN */
      {"12 80 01", false},                        /* a length past the end */
      {"0b 0c", false},                           /* a group: the long way */
      {"0e 00", false},                           /* wire type 6 */
      {"8f 01 00", false},                        /* 17, wire type 7 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    size_t n;
    uint8_t *all = tu_hex(cases[i].hex, &n);
    for (size_t k = 0; k <= n; k++) {
      uint8_t *b = malloc(k ? k : 1);
      memcpy(b, all, k);
      pbd_WireField fast, slow;
      memset(&fast, 0xa5, sizeof fast);
      pbd_Status s;
      pbd_Status_Clear(&s);
      const uint8_t *q = pbd_Wire_ReadCommonField(b, b + k, &fast);
      const uint8_t *r = pbd_Wire_ReadField(b, b + k, b, 100, &slow, &s);
      if (k == n && cases[i].fast) ck_assert_msg(q != NULL, "%s: given up", cases[i].hex);
      if (q) {
        ck_assert_msg(r == q, "%s (%zu bytes): ends differ", cases[i].hex, k);
        ck_assert_uint_eq(fast.number, slow.number);
        ck_assert_uint_eq(fast.wire_type, slow.wire_type);
        ck_assert_msg(fast.value == slow.value, "%s: values differ", cases[i].hex);
        ck_assert_ptr_eq(fast.start, slow.start);
        ck_assert_ptr_eq(fast.data, slow.data);
        ck_assert_uint_eq(fast.size, slow.size);
      }
      free(b);
    }
    free(all);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wire");
  TCase *t = tcase_create("wire");
  tcase_add_test(t, varint_values);
  tcase_add_test(t, varint_truncated_and_overlong);
  tcase_add_test(t, fixed_and_zigzag);
  tcase_add_test(t, field_scalars);
  tcase_add_test(t, field_numbers);
  tcase_add_test(t, field_truncated_values);
  tcase_add_test(t, field_length_delimited);
  tcase_add_test(t, field_groups);
  tcase_add_test(t, every_prefix_reads_or_fails);
  tcase_add_test(t, common_field_agrees_with_read_field);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
