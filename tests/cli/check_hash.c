/* pbdiff tests — `pbdiff hash` (semantic fingerprints, docs/hash.md) run as
 * users run it: pinned fingerprints, the record recomputed with libxxhash as
 * docs/hash.md writes it, --equivalent, several files and errors, delimited
 * streams, and real ONNX models.
 *
 * Every command runs in a fresh directory of its own, with shell variables
 *   $P  the pbdiff binary under test    $R  the source root
 * and the descriptor sets ../sem3.desc and ../sem2.desc, compiled once per
 * run by protoc. */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "pbdiff/pbdiff.h"
#include "testutil.h"
#include "tu_cathash.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("hash", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")

/* ---- hash --------------------------------------------------------------------------- */

/* PINNED fingerprints of the pbh1 scheme (docs/hash.md), computed once with
 * this implementation and written down here.  They must never change: a
 * fingerprint stored today has to compare equal next year.  If this test
 * fails, the canonical tree or the hash record in lib/tree/tree.c changed — undo
 * that, or introduce a new scheme (pbh2: PBDIFF_HASH_SCHEME, docs/hash.md)
 * with new pinned values here, and keep pbh1's meaning. */
START_TEST(hash_pinned) {
  put("empty.pb", "");
  put("schemaless.pb", "08 96 01 12 03 61 62 63 1a 02 08 01 25 01 00 00 00 2b 08 01 2c");
  put("rich3.pb", RICH3);
  put("rich2.pb", RICH2);
  EXPECT(PB("hash empty.pb schemaless.pb"), 0,
         "pbh1:99aa06d3014798d86001c324468d497f  empty.pb\n"
         "pbh1:4493804f50a4dd7796006a275f6dc434  schemaless.pb\n");
  EXPECT(PB("hash " S3 "rich3.pb"), 0, "pbh1:411f2aa77f2b8f4bbab0173c91d7cd12  rich3.pb\n");
  EXPECT(PB("hash " S2 "rich2.pb"), 0, "pbh1:0419342aeb4ba06b4871fd0e8d2fb42a  rich2.pb\n");
  ck_assert_str_eq(PBDIFF_HASH_SCHEME, "pbh1");
}
END_TEST

/* ---- hash: the scheme as docs/hash.md writes it, recomputed here --------------- */

typedef struct {
  uint8_t b[4096];
  size_t n;
} Rec;

static void r_u64(Rec *r, uint64_t v) {
  for (int i = 0; i < 8; i++) r->b[r->n++] = (uint8_t)(v >> (8 * i)); /* little-endian */
}

static void r_bytes(Rec *r, const void *p, size_t n) {
  memcpy(r->b + r->n, p, n);
  r->n += n;
}

static void r_h128(Rec *r, XXH128_hash_t h) {
  r_u64(r, h.low64);
  r_u64(r, h.high64);
}

static void r_str(Rec *r, const void *p, size_t n) {
  r_u64(r, n);
  if (n <= 64) r_bytes(r, p, n);
  else r_h128(r, XXH3_128bits_withSeed(p, n, 0));
}

static XXH128_hash_t r_hash(const Rec *r) { return XXH3_128bits_withSeed(r->b, r->n, 0); }

/* Asserts that `pbdiff hash OPTS FILE` prints the fingerprint of the record. */
static void expect_record(const char *opts, const char *file, const Rec *r) {
  XXH128_hash_t h = r_hash(r);
  char want[64];
  snprintf(want, sizeof want, "pbh1:%016" PRIx64 "%016" PRIx64, h.high64, h.low64);
  char *got = tu_hash_of(opts, file);
  ck_assert_msg(strcmp(got, want) == 0, "%s: pbdiff says %s, docs/hash.md says %s", file, got, want);
  free(got);
}

START_TEST(hash_scheme_recomputed) {
  enum { kKnown = 1, kUnknown = 2, kVarint = 10, kFixed32 = 11, kLenMessage = 14, kGroup = 15 };
  Rec r, c;
  /* the empty message: the empty record */
  put("e.pb", "");
  r.n = 0;
  expect_record("", "e.pb", &r);
  expect_record(S3, "e.pb", &r);
  /* schemaless varint 150: unknown field 1, kind varint */
  put("v.pb", "08 96 01");
  r.n = 0;
  r_u64(&r, 1 << 8 | kUnknown), r_u64(&r, 1), r_u64(&r, kVarint), r_u64(&r, 150);
  expect_record("", "v.pb", &r);
  /* the same bytes as sem3.M.i32: a schema field */
  r.n = 0;
  r_u64(&r, 1 << 8 | kKnown), r_u64(&r, 1), r_u64(&r, 150);
  expect_record(S3, "v.pb", &r);
  /* int32 -3: sign-extended; fixed32 unknown: zero-extended, with its kind */
  put("n.pb", "08 fd ff ff ff 0f  a5 06 fe ff ff ff");
  r.n = 0;
  r_u64(&r, 1 << 8 | kKnown), r_u64(&r, 1), r_u64(&r, (uint64_t)-3);
  r_u64(&r, 100 << 8 | kUnknown), r_u64(&r, 1), r_u64(&r, kFixed32), r_u64(&r, 0xfffffffe);
  expect_record(S3, "n.pb", &r);
  /* strings: inline up to 64 bytes, else their XXH3-128 */
  char big[100];
  memset(big, 'q', sizeof big);
  ck_assert_int_eq(tu_sh("{ printf '\\122\\003abc\\272\\001\\144'; head -c 100 /dev/zero | tr '\\0' q; } "
                      "> s.pb")->rc, 0);
  r.n = 0;
  r_u64(&r, 10 << 8 | kKnown), r_u64(&r, 1), r_str(&r, "abc", 3);
  r_u64(&r, 23 << 8 | kKnown), r_u64(&r, 1), r_str(&r, big, sizeof big);
  expect_record(S3, "s.pb", &r);
  /* a sub-message by its hash, low half first */
  put("m.pb", "6a 02 08 01");
  c.n = 0;
  r_u64(&c, 1 << 8 | kKnown), r_u64(&c, 1), r_u64(&c, 1);
  r.n = 0;
  r_u64(&r, 13 << 8 | kKnown), r_u64(&r, 1), r_h128(&r, r_hash(&c));
  expect_record(S3, "m.pb", &r);
  /* repeated scalars: one count, the values; over 64 values a digest */
  put("r3.pb", "72 03 01 02 03");
  r.n = 0;
  r_u64(&r, 14 << 8 | kKnown), r_u64(&r, 3), r_u64(&r, 1), r_u64(&r, 2), r_u64(&r, 3);
  expect_record(S3, "r3.pb", &r);
  char hex[1024] = "72 41"; /* 65 values 0..64 */
  uint8_t slots[65 * 8];
  for (int i = 0; i < 65; i++) {
    snprintf(hex + strlen(hex), sizeof hex - strlen(hex), " %02x", i);
    for (int k = 0; k < 8; k++) slots[i * 8 + k] = k == 0 ? (uint8_t)i : 0;
  }
  put("r65.pb", hex);
  r.n = 0;
  r_u64(&r, 14 << 8 | kKnown), r_u64(&r, 65), r_h128(&r, XXH3_128bits_withSeed(slots, sizeof slots, 0));
  expect_record(S3, "r65.pb", &r);
  /* floats canonical: -0.0 as +0.0, a NaN as the quiet NaN */
  put("f.pb", "c2 01 0c 00 00 00 80 00 00 c0 3f 01 00 c0 ff");
  r.n = 0;
  r_u64(&r, 24 << 8 | kKnown), r_u64(&r, 3), r_u64(&r, 0), r_u64(&r, 0x3fc00000),
      r_u64(&r, 0x7fc00000);
  expect_record(S3, "f.pb", &r);
  /* --float-bits: the bits as they are */
  r.n = 0;
  r_u64(&r, 24 << 8 | kKnown), r_u64(&r, 3), r_u64(&r, 0x80000000), r_u64(&r, 0x3fc00000),
      r_u64(&r, 0xffc00001);
  expect_record("--float-bits " S3, "f.pb", &r);
  /* map entries: messages in key order */
  put("map.pb", "82 01 05 0a 01 62 10 02  82 01 03 0a 01 61");
  Rec ea, eb;
  ea.n = eb.n = 0;
  r_u64(&ea, 1 << 8 | kKnown), r_u64(&ea, 1), r_str(&ea, "a", 1); /* value 0: dropped */
  r_u64(&eb, 1 << 8 | kKnown), r_u64(&eb, 1), r_str(&eb, "b", 1);
  r_u64(&eb, 2 << 8 | kKnown), r_u64(&eb, 1), r_u64(&eb, 2);
  r.n = 0;
  r_u64(&r, 16 << 8 | kKnown), r_u64(&r, 2), r_h128(&r, r_hash(&ea)), r_h128(&r, r_hash(&eb));
  expect_record(S3, "map.pb", &r);
  /* an Any: 0xA11, its type URL, its payload's hash */
  put("any.pb", "b2 01 24 0a 1e " URL_INNER " 12 02 08 04");
  Rec p, a;
  p.n = a.n = 0;
  r_u64(&p, 1 << 8 | kKnown), r_u64(&p, 1), r_u64(&p, 4);
  r_u64(&a, 0xA11), r_str(&a, "type.googleapis.com/sem3.Inner", 30), r_h128(&a, r_hash(&p));
  r.n = 0;
  r_u64(&r, 22 << 8 | kKnown), r_u64(&r, 1), r_h128(&r, r_hash(&a));
  expect_record(S3, "any.pb", &r);
  /* schemaless: a LEN that parses as a message, a group */
  put("g.pb", "0a 02 08 05 13 08 01 14");
  Rec lm, g;
  lm.n = g.n = 0;
  r_u64(&lm, 1 << 8 | kUnknown), r_u64(&lm, 1), r_u64(&lm, kVarint), r_u64(&lm, 5);
  r_u64(&g, 1 << 8 | kUnknown), r_u64(&g, 1), r_u64(&g, kVarint), r_u64(&g, 1);
  r.n = 0;
  r_u64(&r, 1 << 8 | kUnknown), r_u64(&r, 1), r_u64(&r, kLenMessage), r_h128(&r, r_hash(&lm));
  r_u64(&r, 2 << 8 | kUnknown), r_u64(&r, 1), r_u64(&r, kGroup), r_h128(&r, r_hash(&g));
  expect_record("", "g.pb", &r);
}
END_TEST

START_TEST(hash_equivalent) {
  char *h_empty, *h, *he;
  put("none.pb", "");
  h_empty = tu_hash_of(S3, "none.pb");
  /* no field with presence at its default: --equivalent changes nothing */
  put("a.pb", "08 01 20 05 52 01 78 72 02 01 02 90 01 01 6a 02 08 01");
  h = tu_hash_of(S3, "a.pb");
  he = tu_hash_of("--equivalent " S3, "a.pb");
  ck_assert_str_eq(h, he);
  free(h), free(he);
  /* set to the default, and a set-but-empty message: differ from unset, and
   * equal it with --equivalent */
  const char *presence[] = {"90 01 00", "6a 00", "6a 02 08 00", "85 02 00 00 00 80", "a2 01 00",
                            "98 01 00", NULL};
  for (size_t i = 0; presence[i]; i++) {
    put("p.pb", presence[i]);
    h = tu_hash_of(S3, "p.pb");
    he = tu_hash_of("--equivalent " S3, "p.pb");
    ck_assert_msg(strcmp(h, h_empty) != 0, "%s hashes as unset", presence[i]);
    ck_assert_msg(strcmp(he, h_empty) == 0, "%s with --equivalent: %s, not %s", presence[i], he,
                  h_empty);
    free(h), free(he);
  }
  free(h_empty);
  /* proto2: the declared default */
  put("none.pb", "");
  h_empty = tu_hash_of(S2, "none.pb");
  put("di.pb", "10 07 20 00 60 02");
  h = tu_hash_of(S2, "di.pb");
  ck_assert_str_ne(h, h_empty);
  free(h);
  h = tu_hash_of("--equivalent " S2, "di.pb");
  ck_assert_str_eq(h, h_empty);
  free(h);
  put("di8.pb", "10 08");
  h = tu_hash_of(S2, "di8.pb");
  he = tu_hash_of("--equivalent " S2, "di8.pb");
  ck_assert_str_eq(h, he);
  ck_assert_str_ne(h, h_empty);
  free(h), free(he), free(h_empty);
  /* --ignore-unknown */
  put("u.pb", "08 01 98 06 07");
  put("k.pb", "08 01");
  h = tu_hash_of("--ignore-unknown " S3, "u.pb");
  he = tu_hash_of(S3, "k.pb");
  ck_assert_str_eq(h, he);
  free(h);
  h = tu_hash_of(S3, "u.pb");
  ck_assert_str_ne(h, he);
  free(h), free(he);
}
END_TEST

START_TEST(hash_several_and_errors) {
  put("a.pb", "08 01 52 01 78");
  put("a2.pb", "52 01 78 08 01");
  put("b.pb", "08 02");
  put("bad.pb", "08 01 0a 05 01");
  const Run *r = PB("hash " S3 "a.pb nope.pb bad.pb a2.pb b.pb");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err,
                   "pbdiff: nope.pb: cannot open: No such file or directory\n"
                   "pbdiff: bad.pb: length 5 of field 1 runs past the end (only 1 left) at byte 3\n");
  char want[256];
  const char *fp_a = "pbh1:9cb2c6466a513a0107fb3e0f76928834";
  char *fp_b = tu_hash_of(S3, "b.pb");
  r = PB("hash " S3 "a.pb nope.pb bad.pb a2.pb b.pb 2>/dev/null");
  snprintf(want, sizeof want, "%s  a.pb\n%s  a2.pb\n%s  b.pb\n", fp_a, fp_a, fp_b);
  EXPECT_TROUBLE(r, want, "");
  free(fp_b);
  /* standard input is named "-" */
  EXPECT(PB("hash " S3 "- < a2.pb"), 0, "pbh1:9cb2c6466a513a0107fb3e0f76928834  -\n");
  /* gzip-compressed: the same fingerprint */
  ck_assert_int_eq(tu_sh("gzip -c a.pb > a.pb.gz")->rc, 0);
  EXPECT(PB("hash " S3 "a.pb.gz"), 0, "pbh1:9cb2c6466a513a0107fb3e0f76928834  a.pb.gz\n");
  /* text format: the same fingerprint */
  ck_assert_int_eq(tu_sh("echo 'str: \"x\" i32: 1' > a.txtpb")->rc, 0);
  EXPECT(PB("hash " S3 "a.txtpb"), 0, "pbh1:9cb2c6466a513a0107fb3e0f76928834  a.txtpb\n");
  /* usage */
  EXPECT_TROUBLE(PB("hash"), "",
                 "pbdiff: missing operand: need FILE\nTry 'pbdiff hash --help' for more information.\n");
  EXPECT_TROUBLE(PB("hash --partial " S3 "a.pb"), "",
                 "pbdiff: option '--partial' is for comparisons\n"
                 "Try 'pbdiff hash --help' for more information.\n");
  r = PB("hash --help");
  ck_assert_int_eq(r->rc, 0);
  ck_assert(strncmp(r->out, "Usage: pbdiff hash [OPTIONS] FILE...\n", 37) == 0);
}
END_TEST

START_TEST(hash_delimited) {
  put("d.pb", "05 0a 01 61 10 01  00  02 10 07");
  put("d2.pb", "07 10 05 10 01 0a 01 61  02 10 00  04 10 87 80 00");
  const Run *r = PB("hash --delimited " S3REC "d.pb d2.pb");
  ck_assert_int_eq(r->rc, 0);
  char l[3][64], l2[3][64];
  ck_assert_int_eq(sscanf(r->out, "%40s  d.pb[0]\n%40s  d.pb[1]\n%40s  d.pb[2]\n%40s  d2.pb[0]\n"
                                  "%40s  d2.pb[1]\n%40s  d2.pb[2]\n",
                          l[0], l[1], l[2], l2[0], l2[1], l2[2]),
                   6);
  for (int i = 0; i < 3; i++) ck_assert_str_eq(l[i], l2[i]);
  ck_assert_str_eq(l[1], "pbh1:99aa06d3014798d86001c324468d497f"); /* the empty message */
  ck_assert_str_ne(l[0], l[2]);
  /* each message hashes as it would alone */
  put("m2.pb", "10 07");
  char *alone = tu_hash_of(S3REC, "m2.pb");
  ck_assert_str_eq(alone, l[2]);
  free(alone);
  put("none.pb", "");
  EXPECT(PB("hash --delimited " S3REC "none.pb"), 0, "");
  put("bad.pb", "05 0a 01 61 10");
  EXPECT_TROUBLE(PB("hash --delimited " S3REC "bad.pb d.pb 2>&1"),
                 "pbdiff: bad.pb: message 0 of 5 bytes runs past the end (only 4 left) at byte 0\n"
                 "pbh1:75c87a265ee103c424351366af3113f5  d.pb[0]\n"
                 "pbh1:99aa06d3014798d86001c324468d497f  d.pb[1]\n"
                 "pbh1:d1cad3c7245d8d7f02f15c2c008539b6  d.pb[2]\n",
                 "");
}
END_TEST

/* ---- real inputs: ONNX ------------------------------------------------------------ */

START_TEST(onnx_models) {
  const char *m = ONNX_NODE "test_averagepool_2d_pads/model.onnx";
  const char *t = ONNX_NODE "test_averagepool_2d_pads/test_data_set_0/input_0.pb";
  ck_assert_int_eq(tu_sh("cp %s orig.onnx && cp %s in0.pb && " PROTOC_ONNX
                      " --decode=onnx.ModelProto < orig.onnx > m.txt && " PROTOC_ONNX
                      " --encode=onnx.ModelProto < m.txt > re.onnx", m, t)->rc, 0);
  /* other bytes, same meaning: ir_version last, the graph in two parts */
  ck_assert_int_eq(tu_sh("grep -v '^ir_version' m.txt | sed '/^  name: \"test_averagepool_2d_pads\"$/d' | "
                      PROTOC_ONNX " --encode=onnx.ModelProto > p1 && "
                      "echo 'ir_version: 6 graph { name: \"test_averagepool_2d_pads\" }' | "
                      PROTOC_ONNX " --encode=onnx.ModelProto > p2 && cat p1 p2 > split.onnx && "
                      "! cmp -s orig.onnx split.onnx")->rc, 0);
  /* an edited value */
  ck_assert_int_eq(tu_sh("awk '/dim_value: 28/ { if (++k == 1) sub(/28/, \"29\") } { print }' m.txt | "
                      PROTOC_ONNX " --encode=onnx.ModelProto > e.onnx")->rc, 0);
  char *h = tu_hash_of(ONNX_MODEL, "orig.onnx");
  char *hr = tu_hash_of(ONNX_MODEL, "re.onnx");
  char *hs = tu_hash_of(ONNX_MODEL, "split.onnx");
  char *he = tu_hash_of(ONNX_MODEL, "e.onnx");
  ck_assert_str_eq(h, hr);
  ck_assert_str_eq(h, hs);
  ck_assert_str_ne(h, he);
  char *c = tu_cat_of(ONNX_MODEL, "orig.onnx");
  char *cs = tu_cat_of(ONNX_MODEL, "split.onnx");
  char *ce = tu_cat_of(ONNX_MODEL, "e.onnx");
  ck_assert_str_eq(c, cs);
  ck_assert_str_ne(c, ce);
  ck_assert_msg(strstr(c, "ir_version: ") == c && strstr(c, "graph {\n") != NULL &&
                    strstr(c, "    op_type: \"AveragePool\"\n") != NULL,
                "[%.2000s]", c);
  free(h), free(hr), free(hs), free(he), free(c), free(cs), free(ce);
  /* a TensorProto with raw_data, round-tripped through protoc */
  ck_assert_int_eq(tu_sh(PROTOC_ONNX " --decode=onnx.TensorProto < in0.pb | " PROTOC_ONNX
                      " --encode=onnx.TensorProto > in0re.pb")->rc, 0);
  h = tu_hash_of("--proto " ONNX_PROTO " -t onnx.TensorProto", "in0.pb");
  hr = tu_hash_of("--proto " ONNX_PROTO " -t onnx.TensorProto", "in0re.pb");
  ck_assert_str_eq(h, hr);
  free(h), free(hr);
  /* several models at once, each its own line */
  const Run *r = PB("hash " ONNX_MODEL " orig.onnx %stest_abs/model.onnx re.onnx", ONNX_NODE);
  ck_assert_int_eq(r->rc, 0);
  ck_assert_int_eq(strchr(r->out, '\n') - r->out, 37 + 2 + 9);
#undef ONNX_MODEL
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hash");
  TCase *t = tcase_create("hash");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, hash_pinned);
  tcase_add_test(t, hash_scheme_recomputed);
  tcase_add_test(t, hash_equivalent);
  tcase_add_test(t, hash_several_and_errors);
  tcase_add_test(t, hash_delimited);
  tcase_add_test(t, onnx_models);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
