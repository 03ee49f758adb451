/* pbd_Explain (lib/explain/explain.h): for every kind, hand-written pairs that are
 * semantically equal (the trees' root hashes agree) but differ in exactly
 * that encoding choice, checked through the text formatter (kinds, counts
 * and first offsets on both sides) and mirrored (RIGHT vs LEFT swaps the
 * sides); the real ONNX file with a field moved; the formatters' exact text;
 * and robustness: every prefix and many one-byte mutations of real and
 * hand-written payloads scan without a crash and agree with the tree on
 * whether the bytes are well formed. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/explain/explain.h"
#include "testutil.h"
#include "pbdiff/tree/tree.h"

static const pbd_MessageDef *onnx_model(void) { return tu_type("onnx.ModelProto"); }

static const char *kOnnxAbs = "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx";

/* The tree options matching explain options, with a fixed seed. */
static pbd_ReadOptions tree_opts(const pbd_ReadOptions *eo) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 4242;
  o.max_depth = eo->max_depth;
  o.pool = eo->pool;
  o.equivalent = eo->equivalent;
  o.ignore_unknown = eo->ignore_unknown;
  return o;
}

/* Parses with the tree; returns whether it parsed, its root hash in *h. */
static bool tree_parse(const pbd_MessageDef *t, const uint8_t *b, size_t n,
                       const pbd_ReadOptions *eo, pbd_Hash128 *h, pbd_Status *s) {
  pbd_ReadOptions o = tree_opts(eo);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status_Clear(s);
  pbd_Message *m = pbd_Tree_Parse(t, b, 0, n, &o, a, s);
  if (m && h) *h = m->hash;
  pbd_Arena_Free(a);
  return m != NULL;
}

static pbd_EncodingProfile profile(const pbd_MessageDef *t, const uint8_t *b, size_t n,
                                   const pbd_ReadOptions *eo) {
  pbd_EncodingProfile p;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_Explain_Profile(t, b, 0, n, eo, &p, &s), "profile failed: %s at %zu (%s)",
                s.msg, s.offset, s.path);
  return p;
}

/* The text of the comparison LEFT vs RIGHT; also checks that RIGHT vs LEFT
 * gives the same kinds with the sides swapped. */
static char *explain_bytes(const pbd_MessageDef *t, const pbd_ReadOptions *eo,
                           const uint8_t *l, size_t ln, const uint8_t *r, size_t rn) {
  pbd_EncodingProfile pl = profile(t, l, ln, eo), pr = profile(t, r, rn, eo);
  pbd_EncodingDiff d[kPbd_Encoding_Count], back[kPbd_Encoding_Count];
  size_t n = pbd_Explain_Compare(&pl, &pr, d);
  ck_assert_uint_le(n, kPbd_Encoding_Count);
  ck_assert_uint_eq(pbd_Explain_Compare(&pr, &pl, back), n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(back[i].kind, d[i].kind);
    ck_assert_uint_eq(back[i].left.count, d[i].right.count);
    ck_assert_int_eq(back[i].left.first_offset, d[i].right.first_offset);
    ck_assert_uint_eq(back[i].right.count, d[i].left.count);
    ck_assert_int_eq(back[i].right.first_offset, d[i].left.first_offset);
    if (i) ck_assert_int_lt(d[i - 1].kind, d[i].kind);
  }
  /* A profile compared with itself: nothing. */
  ck_assert_uint_eq(pbd_Explain_Compare(&pl, &pl, back), 0);
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "");
  pbd_Explain_FormatText(&out, d, n);
  ck_assert(!out.oom);
  return out.data;
}

/* Asserts that LEFT and RIGHT are semantically equal (root hashes agree)
 * and that --explain says exactly `want`. */
static void expect_eo(const pbd_MessageDef *t, const pbd_ReadOptions *eo, const char *lhex,
                      const char *rhex, const char *want) {
  size_t ln, rn;
  uint8_t *l = tu_hex(lhex, &ln), *r = tu_hex(rhex, &rn);
  pbd_Hash128 hl, hr;
  pbd_Status s;
  ck_assert_msg(tree_parse(t, l, ln, eo, &hl, &s), "tree %s: %s", lhex, s.msg);
  ck_assert_msg(tree_parse(t, r, rn, eo, &hr, &s), "tree %s: %s", rhex, s.msg);
  ck_assert_msg(pbd_Hash128_Equal(hl, hr), "%s and %s are not semantically equal", lhex, rhex);
  char *got = explain_bytes(t, eo, l, ln, r, rn);
  ck_assert_msg(!strcmp(got, want), "%s vs %s:\n got: [%s]\nwant: [%s]", lhex, rhex, got, want);
  free(got);
  got = explain_bytes(t, eo, l, ln, l, ln); /* identical inputs: nothing */
  ck_assert_str_eq(got, "");
  free(got);
  free(l);
  free(r);
}

static void expect(const pbd_MessageDef *t, const char *lhex, const char *rhex, const char *want) {
  pbd_ReadOptions eo = {0};
  expect_eo(t, &eo, lhex, rhex, want);
}

/* The count and first offset of one kind in one payload. */
static pbd_EncodingCount count_of(const pbd_MessageDef *t, const pbd_ReadOptions *eo,
                                  const char *hex, pbd_EncodingKind k) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  pbd_EncodingProfile p = profile(t, b, n, eo);
  free(b);
  return p.by_kind[k];
}

/* ---- One test per kind ---------------------------------------------------- */

START_TEST(kind_field_order) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 10 02", "10 02 08 01", "field order: 0 in LEFT, 1 in RIGHT (at byte 2)\n");
  /* repeated elements interleaved with another field: only that field */
  expect(M, "70 01 08 05 70 02", "08 05 70 01 70 02",
         "field order: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* equal counts at different places still differ */
  expect(M, "10 02 08 01 18 03", "08 01 18 03 10 02",
         "field order: 1 in LEFT (at byte 2), 1 in RIGHT (at byte 4)\n");
  /* the same counts at the same places, only shifted by another kind */
  expect(M, "52 01 61 10 02 08 01", "52 81 00 61 10 02 08 01",
         "non-minimal varint: 0 in LEFT, 1 in RIGHT (at byte 1)\n");
  /* inside a sub-message: offsets count from the start of the input */
  expect(M, "6a 04 12 00 08 01", "6a 04 08 01 12 00",
         "field order: 1 in LEFT (at byte 4), 0 in RIGHT\n");
  /* a map entry with its value before its key */
  expect(M, "82 01 05 10 01 0a 01 61", "82 01 05 0a 01 61 10 01",
         "field order: 1 in LEFT (at byte 5), 0 in RIGHT\n");
  /* proto2: groups and extensions are fields like any other */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "3b 40 01 3c 08 01", "08 01 3b 40 01 3c",
         "field order: 1 in LEFT (at byte 4), 0 in RIGHT\n");
  expect(M2, "a0 06 05 08 01", "08 01 a0 06 05", "field order: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  /* unknown fields are ordered among themselves */
  expect(M, "08 01 a8 06 02 a0 06 01", "08 01 a0 06 01 a8 06 02",
         "field order: 1 in LEFT (at byte 5), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_packed_unpacked) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "72 02 01 02", "70 01 70 02",
         "packed: 1 in LEFT (at byte 0), 0 in RIGHT\n"
         "unpacked: 0 in LEFT, 2 in RIGHT (first at byte 0)\n");
  /* one run or two: only the packed count */
  expect(M, "72 02 01 02", "72 01 01 72 01 02",
         "packed: 1 in LEFT (at byte 0), 2 in RIGHT (first at byte 0)\n");
  /* mixed, with one more element unpacked on the right */
  expect(M, "70 01 72 02 02 03", "70 01 70 02 72 01 03",
         "unpacked: 1 in LEFT (at byte 0), 2 in RIGHT (first at byte 0)\n");
  /* fixed-width: repeated float */
  expect(M, "c2 01 08 0000803f 00000040", "c5 01 0000803f c5 01 00000040",
         "packed: 1 in LEFT (at byte 0), 0 in RIGHT\n"
         "unpacked: 0 in LEFT, 2 in RIGHT (first at byte 0)\n");
  /* proto2 [packed = true] enum */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "2a 02 01 02", "28 01 28 02",
         "packed: 1 in LEFT (at byte 0), 0 in RIGHT\n"
         "unpacked: 0 in LEFT, 2 in RIGHT (first at byte 0)\n");
}
END_TEST

START_TEST(kind_empty_packed_run) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 72 00", "08 01", "empty packed run: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  expect(M, "72 00 72 01 05", "72 01 05", "empty packed run: 1 in LEFT (at byte 0), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_non_minimal_varint) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* a value */
  expect(M, "08 81 00", "08 01", "non-minimal varint: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* a tag */
  expect(M, "88 00 01", "08 01", "non-minimal varint: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* a length */
  expect(M, "52 81 00 61", "52 01 61", "non-minimal varint: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* a packed element, and a packed run's length */
  expect(M, "72 03 01 82 00", "72 02 01 02",
         "non-minimal varint: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  expect(M, "72 82 00 01 02", "72 02 01 02",
         "non-minimal varint: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* bits past the 64th in a 10th byte */
  expect(M, "10 ffffffffffffffffff7f", "10 ffffffffffffffffff01",
         "non-minimal varint: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* inside a sub-message, and twice */
  expect(M, "6a 04 88 00 81 00", "6a 02 08 01",
         "non-minimal varint: 2 in LEFT (first at byte 2), 0 in RIGHT\n");
  /* group end tag (proto2) */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "3b 40 01 bc 00", "3b 40 01 3c",
         "non-minimal varint: 1 in LEFT (at byte 3), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_non_canonical_value) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* int32 -1 in 5 bytes (the 32-bit form) vs sign-extended in 10 */
  expect(M, "08 ffffffff0f", "08 ffffffffffffffffff01",
         "non-canonical value: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* bool 2 */
  expect(M, "38 02", "38 01", "non-canonical value: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* uint32 with bit 32 set */
  expect(M, "18 8180808010", "18 01", "non-canonical value: 1 in LEFT (at byte 1), 0 in RIGHT\n");
  /* an enum in a packed run */
  expect(M, "fa 01 05 ffffffff0f", "fa 01 0a ffffffffffffffffff01",
         "non-canonical value: 1 in LEFT (at byte 3), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_zero_sign_or_nan) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* optional float: -0.0 and +0.0 both set are equal */
  expect(M, "85 02 00000080", "85 02 00000000", "-0.0 or NaN: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* repeated double, unpacked */
  expect(M, "e9 01 0000000000000080", "e9 01 0000000000000000",
         "-0.0 or NaN: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* packed NaNs with other payloads: equal counts, other bits */
  expect(M, "c2 01 08 0000c07f 0100c07f", "c2 01 08 0000c07f 0000c07f",
         "-0.0 or NaN: 2 in LEFT (first at byte 3), 2 in RIGHT (first at byte 3)\n");
  /* the same NaN bits at the same place: nothing */
  expect(M, "c5 01 0100c07f", "c5 01 0100c07f", "");
}
END_TEST

START_TEST(kind_repeated_singular) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 08 02", "08 02", "singular field repeated: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  expect(M, "52 01 61 52 01 62", "52 01 62",
         "singular field repeated: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  /* the same oneof member twice */
  expect(M, "98 01 05 98 01 06", "98 01 06",
         "singular field repeated: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  /* proto2 optional */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "08 01 08 02 08 03", "08 03",
         "singular field repeated: 2 in LEFT (first at byte 2), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_split_message) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "6a 02 08 01 6a 03 12 01 78", "6a 05 08 01 12 01 78",
         "split message: 1 in LEFT (at byte 4), 0 in RIGHT\n");
  /* the same oneof message member twice */
  expect(M, "aa 01 02 08 01 aa 01 03 12 01 79", "aa 01 05 08 01 12 01 79",
         "split message: 1 in LEFT (at byte 5), 0 in RIGHT\n");
  /* a group written in two parts (proto2) */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "3b 40 01 3c 3b 40 02 3c", "3b 40 02 3c",
         "split message: 1 in LEFT (at byte 4), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_oneof_overwritten) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "98 01 05 a2 01 01 78", "a2 01 01 78",
         "oneof overwritten: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  /* a message member set again after another: starts afresh, not a split */
  expect(M, "aa 01 02 08 01 98 01 05 aa 01 03 12 01 79", "aa 01 03 12 01 79",
         "field order: 1 in LEFT (at byte 5), 0 in RIGHT\n"
         "oneof overwritten: 2 in LEFT (first at byte 5), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_map_entry_order) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "82 01 05 0a 01 62 10 02 82 01 05 0a 01 61 10 01",
         "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02",
         "map entry order: 1 in LEFT (at byte 8), 0 in RIGHT\n");
  /* signed integer keys: -1 before 1 */
  expect(M, "8a 01 04 08 01 12 00 8a 01 0d 08 ffffffffffffffffff01 12 00",
         "8a 01 0d 08 ffffffffffffffffff01 12 00 8a 01 04 08 01 12 00",
         "map entry order: 1 in LEFT (at byte 7), 0 in RIGHT\n");
  /* bool keys: false before true */
  expect(M, "f2 01 02 08 01 f2 01 02 08 00", "f2 01 02 08 00 f2 01 02 08 01",
         "map entry order: 1 in LEFT (at byte 5), 0 in RIGHT\n");
  /* two maps interleaved, each in order: nothing */
  expect(M, "82 01 03 0a 01 61 8a 01 02 08 01 82 01 03 0a 01 62",
         "82 01 03 0a 01 61 82 01 03 0a 01 62 8a 01 02 08 01",
         "field order: 1 in LEFT (at byte 11), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_duplicate_map_key) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "82 01 05 0a 01 61 10 01 82 01 05 0a 01 61 10 02", "82 01 05 0a 01 61 10 02",
         "duplicate map key: 1 in LEFT (at byte 8), 0 in RIGHT\n");
  /* a message value is replaced, not merged */
  expect(M, "8a 01 06 08 01 12 02 08 05 8a 01 07 08 01 12 03 12 01 78",
         "8a 01 07 08 01 12 03 12 01 78",
         "duplicate map key: 1 in LEFT (at byte 9), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_map_entry_part_omitted) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* no value */
  expect(M, "82 01 03 0a 01 61", "82 01 05 0a 01 61 10 00",
         "map entry part omitted: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* no key */
  expect(M, "82 01 02 10 05", "82 01 04 0a 00 10 05",
         "map entry part omitted: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* neither: one entry, counted once */
  expect(M, "82 01 00", "82 01 04 0a 00 10 00",
         "map entry part omitted: 1 in LEFT (at byte 0), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_default_written) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 00", "", "default written: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  expect(M, "52 00 5a 00 60 00", "", "default written: 3 in LEFT (first at byte 0), 0 in RIGHT\n");
  expect(M, "08 05 45 00000000", "08 05", "default written: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* -0.0 is not a default (rule 10): not equal to absent, not counted */
  size_t n;
  uint8_t *b = tu_hex("45 00000080", &n);
  pbd_ReadOptions eo = {0};
  pbd_Hash128 h1, h2;
  pbd_Status s;
  ck_assert(tree_parse(M, b, n, &eo, &h1, &s));
  ck_assert(tree_parse(M, b, 0, &eo, &h2, &s));
  ck_assert(!pbd_Hash128_Equal(h1, h2));
  ck_assert_uint_eq(count_of(M, &eo, "45 00000080", kPbd_Encoding_DefaultWritten).count, 0);
  free(b);
  /* fields with presence are not counted unless --equivalent */
  ck_assert_uint_eq(count_of(M, &eo, "90 01 00", kPbd_Encoding_DefaultWritten).count, 0);
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  ck_assert_uint_eq(count_of(M2, &eo, "08 00", kPbd_Encoding_DefaultWritten).count, 0);
  eo.equivalent = true;
  expect_eo(M2, &eo, "08 00", "", "default written: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* the declared default [default = 7], and a float by value: -0.0 == 0.0 */
  expect_eo(M2, &eo, "10 07 55 00000080", "",
            "-0.0 or NaN: 1 in LEFT (at byte 3), 0 in RIGHT\n"
            "default written: 2 in LEFT (first at byte 0), 0 in RIGHT\n");
  /* an empty sub-message */
  expect_eo(M2, &eo, "32 00", "", "default written: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  expect_eo(M, &eo, "90 01 00", "", "default written: 1 in LEFT (at byte 0), 0 in RIGHT\n");
}
END_TEST

START_TEST(kind_unknown_placement) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* a number the schema does not have */
  expect(M, "a0 06 01 08 01", "08 01 a0 06 01",
         "unknown field placement: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* a wire type that does not fit (LEN for int32) */
  expect(M, "0a 01 78 10 05", "10 05 0a 01 78",
         "unknown field placement: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* between known fields: counted; after them all: not */
  expect(M, "08 01 a0 06 01 10 02 a0 06 02", "08 01 10 02 a0 06 01 a0 06 02",
         "unknown field placement: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* a closed-enum value the enum does not have (proto2) */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  expect(M2, "20 09 08 01", "08 01 20 09",
         "unknown field placement: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* a map entry holding one: the whole entry is an unknown field */
  const pbd_MessageDef *W = tu_type("sem2.WithMap");
  expect(W, "0a 04 08 01 10 09 0a 04 08 02 10 01", "0a 04 08 02 10 01 0a 04 08 01 10 09",
         "unknown field placement: 1 in LEFT (at byte 0), 0 in RIGHT\n");
  /* --ignore-unknown: unknown fields count for nothing */
  pbd_ReadOptions eo = {.ignore_unknown = true};
  expect_eo(M, &eo, "a0 06 01 08 01", "08 01 a0 06 07", "");
}
END_TEST

START_TEST(schemaless) {
  expect(NULL, "08 01 10 02", "10 02 08 01", "field order: 0 in LEFT, 1 in RIGHT (at byte 2)\n");
  /* a LEN field that parses as a message is scanned as one */
  expect(NULL, "0a 04 10 02 08 01", "0a 04 08 01 10 02",
         "field order: 1 in LEFT (at byte 4), 0 in RIGHT\n");
  expect(NULL, "0a 05 88 00 01 10 02", "0a 04 08 01 10 02",
         "non-minimal varint: 1 in LEFT (at byte 2), 0 in RIGHT\n");
  /* groups */
  expect(NULL, "0b 18 01 10 02 0c", "0b 10 02 18 01 0c",
         "field order: 1 in LEFT (at byte 3), 0 in RIGHT\n");
  /* bytes that do not parse count for nothing inside */
  expect(NULL, "0a 02 88 00", "0a 02 88 00", "");
  /* unknown fields under a schema are read the same way */
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "a2 06 04 10 02 08 01", "a2 06 04 08 01 10 02",
         "field order: 1 in LEFT (at byte 5), 0 in RIGHT\n");
}
END_TEST

START_TEST(any_payload) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  char *url = tu_hex_of("type.googleapis.com/sem3.Inner");
  char l[512], r[512];
  /* any { type_url: ..., value: Inner{s: "x", a: 1} } vs Inner{a: 1, s: "x"} */
  snprintf(l, sizeof l, "b2 01 27 0a 1e %s 12 05 12 01 78 08 01", url);
  snprintf(r, sizeof r, "b2 01 27 0a 1e %s 12 05 08 01 12 01 78", url);
  pbd_ReadOptions eo = {.pool = tu_type_pool("sem3.")};
  expect_eo(M, &eo, l, r, "field order: 1 in LEFT (at byte 40), 0 in RIGHT\n");
  /* without a pool the payload is bytes: nothing inside is counted (and the
   * trees, comparing bytes, would not be equal) */
  eo.pool = NULL;
  ck_assert_uint_eq(count_of(M, &eo, l, kPbd_Encoding_FieldOrder).count, 0);
  /* an unknown type: bytes */
  eo.pool = tu_type_pool("sem3.");
  char *url2 = tu_hex_of("type.googleapis.com/sem3.Nope");
  snprintf(l, sizeof l, "b2 01 26 0a 1d %s 12 05 12 01 78 08 01", url2);
  ck_assert_uint_eq(count_of(M, &eo, l, kPbd_Encoding_FieldOrder).count, 0);
  free(url);
  free(url2);
}
END_TEST

START_TEST(several_kinds_and_identical) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "", "", "");
  expect(M, "08 01 52 02 68 69 72 02 01 02", "08 01 52 02 68 69 72 02 01 02", "");
  /* the bundled example pair (testdata/explain) */
  char path[4096];
  size_t ln, rn, en;
  snprintf(path, sizeof path, "%s/testdata/explain/left.pb", tu_root());
  uint8_t *l = tu_read_file(path, &ln);
  snprintf(path, sizeof path, "%s/testdata/explain/right.pb", tu_root());
  uint8_t *r = tu_read_file(path, &rn);
  snprintf(path, sizeof path, "%s/testdata/explain/expected.txt", tu_root());
  char *want = (char *)tu_read_file(path, &en);
  ck_assert(l && r && want);
  want = realloc(want, en + 1);
  want[en] = '\0';
  pbd_ReadOptions eo = {0};
  pbd_Hash128 hl, hr;
  pbd_Status s;
  ck_assert(tree_parse(M, l, ln, &eo, &hl, &s));
  ck_assert(tree_parse(M, r, rn, &eo, &hr, &s));
  ck_assert(pbd_Hash128_Equal(hl, hr));
  /* with each first occurrence's field path (pbd_Explain_PathAt) */
  pbd_EncodingProfile pl = profile(M, l, ln, &eo), pr = profile(M, r, rn, &eo);
  pbd_EncodingDiff d[kPbd_Encoding_Count];
  size_t n = pbd_Explain_Compare(&pl, &pr, d);
  for (size_t i = 0; i < n; i++) {
    pbd_Buf p = {0};
    if (d[i].left.count) pbd_Explain_PathAt(M, l, 0, ln, (size_t)d[i].left.first_offset, &p);
    snprintf(d[i].left_path, sizeof d[i].left_path, "%s", p.data ? p.data : "");
    pbd_Buf_Truncate(&p, 0);
    if (d[i].right.count) pbd_Explain_PathAt(M, r, 0, rn, (size_t)d[i].right.first_offset, &p);
    snprintf(d[i].right_path, sizeof d[i].right_path, "%s", p.data ? p.data : "");
    pbd_Buf_Free(&p);
  }
  pbd_Buf got = {0};
  pbd_Explain_FormatText(&got, d, n);
  ck_assert_str_eq(got.data, want);
  pbd_Buf_Free(&got);
  /* nested: a message element by its place, a map entry by its key */
  pbd_Buf p = {0};
  const uint8_t nested[] = {0x7a, 0x02, 0x08, 0x01, 0x7a, 0x04, 0x08, 0x02, 0x10, 0x03,
                            0x82, 0x01, 0x05, 0x0a, 0x01, 0x6b, 0x10, 0x07};
  pbd_Explain_PathAt(M, nested, 0, sizeof nested, 6, &p); /* rm[1]'s a */
  ck_assert_str_eq(p.data, "rm[1].a");
  pbd_Buf_Truncate(&p, 0);
  pbd_Explain_PathAt(M, nested, 0, sizeof nested, 16, &p); /* in ms's entry "k" */
  ck_assert_str_eq(p.data, "ms[\"k\"]");
  pbd_Buf_Free(&p);
  free(l);
  free(r);
  free(want);
}
END_TEST

/* The real ONNX model with ir_version (field 1) moved to the end. */
START_TEST(onnx_field_moved) {
  const pbd_MessageDef *T = onnx_model();
  size_t n;
  uint8_t *l = tu_read_file(kOnnxAbs, &n);
  ck_assert_ptr_nonnull(l);
  ck_assert_uint_eq(n, 97);
  ck_assert_uint_eq(l[0], 0x08); /* ir_version: 7 */
  ck_assert_uint_eq(l[1], 0x07);
  uint8_t *r = malloc(n);
  memcpy(r, l + 2, n - 2);
  memcpy(r + n - 2, l, 2);
  pbd_ReadOptions eo = {.pool = tu_type_pool("onnx.")};
  pbd_Hash128 hl, hr;
  pbd_Status s;
  ck_assert(tree_parse(T, l, n, &eo, &hl, &s));
  ck_assert(tree_parse(T, r, n, &eo, &hr, &s));
  ck_assert(pbd_Hash128_Equal(hl, hr));
  char *got = explain_bytes(T, &eo, l, n, r, n);
  ck_assert_str_eq(got, "field order: 0 in LEFT, 1 in RIGHT (at byte 95)\n");
  free(got);
  free(r);
  free(l);
}
END_TEST

/* Real files: every model scans, and agrees with the tree. */
START_TEST(onnx_real_files) {
  const pbd_MessageDef *T = onnx_model();
  glob_t g;
  ck_assert_int_eq(glob("/usr/share/libonnx-testdata/data/node/*/model.onnx", 0, NULL, &g), 0);
  ck_assert_uint_gt(g.gl_pathc, 100);
  pbd_ReadOptions eo = {.pool = tu_type_pool("onnx.")};
  size_t done = 0;
  for (size_t i = 0; i < g.gl_pathc && done < 400; i++, done++) {
    size_t n;
    uint8_t *b = tu_read_file(g.gl_pathv[i], &n);
    ck_assert_ptr_nonnull(b);
    pbd_EncodingProfile p;
    pbd_Status s;
    pbd_Status_Clear(&s);
    ck_assert_msg(pbd_Explain_Profile(T, b, 0, n, &eo, &p, &s), "%s: %s", g.gl_pathv[i], s.msg);
    pbd_EncodingDiff d[kPbd_Encoding_Count];
    ck_assert_uint_eq(pbd_Explain_Compare(&p, &p, d), 0);
    free(b);
  }
  globfree(&g);
}
END_TEST

/* ---- Formatters ------------------------------------------------------------ */

START_TEST(format_text_and_json) {
  pbd_EncodingDiff d[2] = {
      {kPbd_Encoding_FieldOrder, {3, 12, 1}, {0, -1, 0}, "", ""},
      {kPbd_Encoding_Packed, {1, 0, 5}, {1, 7, 6}, "", ""},
  };
  pbd_Buf b = {0};
  pbd_Buf_AppendStr(&b, "");
  pbd_Explain_FormatText(&b, d, 2);
  ck_assert_str_eq(b.data,
                   "field order: 3 in LEFT (first at byte 12), 0 in RIGHT\n"
                   "packed: 1 in LEFT (at byte 0), 1 in RIGHT (at byte 7)\n");
  pbd_Buf_Truncate(&b, 0);
  pbd_Explain_FormatJson(&b, d, 2);
  ck_assert_str_eq(b.data,
                   "[{\"kind\": \"field order\", \"left\": {\"count\": 3, \"first_offset\": 12}, "
                   "\"right\": {\"count\": 0, \"first_offset\": null}}, "
                   "{\"kind\": \"packed\", \"left\": {\"count\": 1, \"first_offset\": 0}, "
                   "\"right\": {\"count\": 1, \"first_offset\": 7}}]");
  /* with the paths of the first occurrences */
  strcpy(d[0].left_path, "graph.node[0]");
  strcpy(d[1].right_path, "ri");
  pbd_Buf_Truncate(&b, 0);
  pbd_Explain_FormatText(&b, d, 2);
  ck_assert_str_eq(b.data,
                   "field order: 3 in LEFT (first at byte 12, in graph.node[0]), 0 in RIGHT\n"
                   "packed: 1 in LEFT (at byte 0), 1 in RIGHT (at byte 7, in ri)\n");
  pbd_Buf_Truncate(&b, 0);
  pbd_Explain_FormatJson(&b, d, 1);
  ck_assert_str_eq(b.data,
                   "[{\"kind\": \"field order\", \"left\": {\"count\": 3, \"first_offset\": 12, "
                   "\"first_path\": \"graph.node[0]\"}, \"right\": {\"count\": 0, \"first_offset\": null}}]");
  pbd_Buf_Truncate(&b, 0);
  pbd_Explain_FormatText(&b, d, 0);
  ck_assert_str_eq(b.data, "");
  pbd_Explain_FormatJson(&b, d, 0);
  ck_assert_str_eq(b.data, "[]");
  pbd_Buf_Free(&b);
  /* every kind has its own name */
  for (int i = 0; i < kPbd_Encoding_Count; i++) {
    const char *a = pbd_EncodingKind_String((pbd_EncodingKind)i);
    ck_assert_str_ne(a, "?");
    for (int j = 0; j < i; j++) ck_assert_str_ne(a, pbd_EncodingKind_String((pbd_EncodingKind)j));
  }
  ck_assert_str_eq(pbd_EncodingKind_String(kPbd_Encoding_Count), "?");
}
END_TEST

/* ---- Robustness ------------------------------------------------------------ */

/* Scans b (an exact-size copy, so that ASan sees any overread) with the
 * type and schemaless; a failure sets the status; the verdict agrees with
 * the tree's, except that the scan does not check UTF-8. */
static void consistent(const pbd_MessageDef *t, const pbd_DefPool *pool, const uint8_t *src,
                       size_t n) {
  uint8_t *b = malloc(n ? n : 1);
  if (n) memcpy(b, src, n);
  const pbd_MessageDef *types[2] = {t, NULL};
  for (int i = 0; i < 2; i++) {
    pbd_ReadOptions eo = {.pool = pool};
    pbd_EncodingProfile p;
    pbd_Status s, ts;
    pbd_Status_Clear(&s);
    bool ok = pbd_Explain_Profile(types[i], b, 0, n, &eo, &p, &s);
    if (!ok) {
      ck_assert(s.code != kPbd_Status_Ok);
      ck_assert(s.has_offset);
      for (int k = 0; k < kPbd_Encoding_Count; k++) ck_assert_uint_eq(p.by_kind[k].count, 0);
    } else {
      for (int k = 0; k < kPbd_Encoding_Count; k++) {
        const pbd_EncodingCount *e = &p.by_kind[k];
        ck_assert(e->count ? e->first_offset >= 0 && (size_t)e->first_offset < n
                           : e->first_offset == -1);
      }
    }
    bool tok = tree_parse(types[i], b, n, &eo, NULL, &ts);
    if (tok) ck_assert_msg(ok, "tree parses, explain fails: %s at %zu", s.msg, s.offset);
    if (ok && !tok) ck_assert_msg(ts.code == kPbd_Status_BadUtf8, "explain ok, tree: %s", ts.msg);
  }
  free(b);
}

static void check_prefixes_and_mutations(const pbd_MessageDef *t, const pbd_DefPool *pool,
                                         const uint8_t *b, size_t n) {
  for (size_t k = 0; k <= n; k++) consistent(t, pool, b, k);
  static const uint8_t vals[] = {0x00, 0x01, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x3c,
                                 0x7f, 0x80, 0xff};
  uint8_t *m = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    for (size_t v = 0; v <= sizeof vals; v++) {
      memcpy(m, b, n);
      m[i] = v < sizeof vals ? vals[v] : (uint8_t)(b[i] ^ 0x40);
      consistent(t, pool, m, n);
    }
  }
  free(m);
}

static void check_hex(const pbd_MessageDef *t, const char *hex) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  check_prefixes_and_mutations(t, tu_type_pool("sem3."), b, n);
  free(b);
}

START_TEST(every_prefix_and_mutation) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  check_hex(M, "08 96 01 10 02 52 02 68 69 6a 06 08 01 22 02 08 02 72 03 01 81 00"
               "82 01 05 0a 01 61 10 01 8a 01 04 08 01 12 00 98 01 05 a2 01 01 78"
               "c2 01 04 0000803f a0 06 01");
  char *url = tu_hex_of("type.googleapis.com/sem3.Inner");
  char any[256];
  snprintf(any, sizeof any, "b2 01 27 0a 1e %s 12 05 12 01 78 08 01", url);
  free(url);
  check_hex(M, any);
  check_hex(M2, "3b 40 01 3c 08 01 20 09 2a 02 01 02 a0 06 05 aa 06 02 08 01 32 02 08 07");
  size_t n;
  uint8_t *b = tu_read_file(kOnnxAbs, &n);
  ck_assert_ptr_nonnull(b);
  check_prefixes_and_mutations(onnx_model(), tu_type_pool("onnx."), b, n);
  free(b);
}
END_TEST

START_TEST(hostile_inputs) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* deep group nesting: an error, no crash */
  enum { kDeep = 300 };
  uint8_t deep[2 * kDeep];
  memset(deep, 0x0b, kDeep);
  memset(deep + kDeep, 0x0c, kDeep);
  pbd_EncodingProfile p;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Explain_Profile(NULL, deep, 0, sizeof deep, NULL, &p, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  /* deep LEN nesting of a known message field: an error too */
  uint8_t *chain = malloc(4 * kDeep);
  size_t len = 0;
  for (int i = 0; i < kDeep; i++) { /* Inner.child (4) inside M.inner (13) */
    uint8_t tmp[8];
    size_t h = 0;
    tmp[h++] = i == kDeep - 1 ? 0x6a : 0x22;
    size_t v = len;
    do {
      tmp[h++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
      v >>= 7;
    } while (v);
    memmove(chain + h, chain, len);
    memcpy(chain, tmp, h);
    len += h;
  }
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Explain_Profile(M, chain, 0, len, NULL, &p, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  ck_assert(strncmp(s.path, "inner.child.child", 17) == 0 || strncmp(s.path, "...", 3) == 0);
  /* schemaless, it is bytes past the limit: fine */
  pbd_Status_Clear(&s);
  ck_assert(pbd_Explain_Profile(NULL, chain, 0, len, NULL, &p, &s));
  consistent(M, tu_type_pool("sem3."), chain, len);
  free(chain);
  /* a smaller limit */
  size_t n;
  uint8_t *b = tu_hex("6a 04 22 02 08 01", &n);
  pbd_ReadOptions eo = {.max_depth = 2};
  ck_assert(pbd_Explain_Profile(M, b, 0, n, &eo, &p, &s));
  eo.max_depth = 1;
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Explain_Profile(M, b, 0, n, &eo, &p, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  free(b);
  /* malformed bits, each an error with an offset */
  static const char *bad[] = {
      "08",             /* truncated varint */
      "08 ffffffffffffffffffff01", /* varint over 10 bytes */
      "0e 01",          /* wire type 6 */
      "00 01",          /* field number 0 */
      "52 05 61",       /* LEN past the end */
      "0c",             /* end group without a start */
      "0b 08 01",       /* group without an end */
      "0b 14",          /* mismatched end group */
      "c2 01 03 00 00 00", /* packed fixed32 of 3 bytes */
      "72 02 01 80",    /* truncated varint in a packed run */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    b = tu_hex(bad[i], &n);
    pbd_Status_Clear(&s);
    ck_assert_msg(!pbd_Explain_Profile(M, b, 0, n, NULL, &p, &s), "%s scanned", bad[i]);
    ck_assert_int_eq(s.code, kPbd_Status_Malformed);
    ck_assert(s.has_offset);
    consistent(M, tu_type_pool("sem3."), b, n);
    free(b);
  }
  /* as the tree reads it: a varint run of continuation bytes only is a
   * truncated varint */
  b = tu_hex("72 01 80", &n);
  consistent(M, tu_type_pool("sem3."), b, n);
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Explain_Profile(M, b, 0, n, NULL, &p, &s));
  free(b);
  /* begin/end inside a larger buffer: offsets count from buf */
  b = tu_hex("ff ff 10 02 08 01 ff", &n);
  pbd_Status_Clear(&s);
  ck_assert(pbd_Explain_Profile(M, b, 2, 6, NULL, &p, &s));
  ck_assert_uint_eq(p.by_kind[kPbd_Encoding_FieldOrder].count, 1);
  ck_assert_int_eq(p.by_kind[kPbd_Encoding_FieldOrder].first_offset, 4);
  ck_assert(!pbd_Explain_Profile(M, b, 5, 2, NULL, &p, &s));
  free(b);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("explain");
  TCase *t = tcase_create("kinds");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, kind_field_order);
  tcase_add_test(t, kind_packed_unpacked);
  tcase_add_test(t, kind_empty_packed_run);
  tcase_add_test(t, kind_non_minimal_varint);
  tcase_add_test(t, kind_non_canonical_value);
  tcase_add_test(t, kind_zero_sign_or_nan);
  tcase_add_test(t, kind_repeated_singular);
  tcase_add_test(t, kind_split_message);
  tcase_add_test(t, kind_oneof_overwritten);
  tcase_add_test(t, kind_map_entry_order);
  tcase_add_test(t, kind_duplicate_map_key);
  tcase_add_test(t, kind_map_entry_part_omitted);
  tcase_add_test(t, kind_default_written);
  tcase_add_test(t, kind_unknown_placement);
  tcase_add_test(t, schemaless);
  tcase_add_test(t, any_payload);
  tcase_add_test(t, several_kinds_and_identical);
  tcase_add_test(t, onnx_field_moved);
  tcase_add_test(t, onnx_real_files);
  tcase_add_test(t, format_text_and_json);
  tcase_add_test(t, every_prefix_and_mutation);
  tcase_add_test(t, hostile_inputs);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
