/* pbdiff tests — `pbdiff cat` and `pbdiff hash` on inputs equal in meaning:
 * they print byte-identical `cat` output and the same fingerprint, whatever
 * their encoding (field order, packed or not, map entry order, split
 * messages, defaults written out, non-minimal varints, repeated values of
 * which the last wins, ...), and an input that differs prints other text and
 * another fingerprint.  Every variant is hand-written hex.
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

TU_CLI_FIXTURES("cat_variants", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")

/* The property: every variant (hex) prints the same `cat` text and the same
 * fingerprint as the first; every changed one prints other text and another
 * fingerprint.  Lists end with NULL. */
static void check_variants(const char *opts, const char *const *variants,
                           const char *const *changed) {
  put("v0.pb", variants[0]);
  char *text0 = tu_cat_of(opts, "v0.pb"), *hash0 = tu_hash_of(opts, "v0.pb");
  ck_assert_msg(text0[0] != '\0' || variants[0][0] == '\0', "empty cat output");
  for (size_t i = 1; variants[i]; i++) {
    put("v.pb", variants[i]);
    char *text = tu_cat_of(opts, "v.pb"), *hash = tu_hash_of(opts, "v.pb");
    ck_assert_msg(strcmp(text, text0) == 0, "variant %zu (%s) prints\n[%s]\nnot\n[%s]", i,
                  variants[i], text, text0);
    ck_assert_msg(strcmp(hash, hash0) == 0, "variant %zu (%s): %s, not %s", i, variants[i], hash,
                  hash0);
    /* and a comparison agrees */
    ck_assert_int_eq(PB("-q %s v0.pb v.pb", opts)->rc, 0);
    free(text);
    free(hash);
  }
  for (size_t i = 0; changed[i]; i++) {
    put("c.pb", changed[i]);
    char *text = tu_cat_of(opts, "c.pb"), *hash = tu_hash_of(opts, "c.pb");
    ck_assert_msg(strcmp(text, text0) != 0, "changed %zu (%s) prints the same:\n[%s]", i,
                  changed[i], text);
    ck_assert_msg(strcmp(hash, hash0) != 0, "changed %zu (%s): the same fingerprint %s", i,
                  changed[i], hash);
    ck_assert_int_eq(PB("-q %s v0.pb c.pb", opts)->rc, 1);
    free(text);
    free(hash);
  }
  free(text0);
  free(hash0);
}

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- cat and hash: the same meaning, the same bytes --------------------------- */

START_TEST(variants_scalars) {
  /* i32 1, u64 5, str "x" */
  check_variants(S3,
                 LIST("08 01 20 05 52 01 78",
                      "52 01 78 20 05 08 01",                    /* field order */
                      "08 81 80 80 00 20 85 80 00 52 01 78",     /* non-minimal varints */
                      "08 07 52 01 79 20 05 08 01 52 01 78",     /* last value wins */
                      "08 01 10 00 18 00 20 05 38 00 52 01 78 5a 00 60 00 45 00 00 00 00"
                      " 49 00 00 00 00 00 00 00 00"),            /* defaults written out */
                 LIST("08 01 20 06 52 01 78", "08 01 20 05 52 01 79", "08 01 20 05",
                      "08 01 20 05 52 01 78 45 00 00 00 80"));   /* implicit -0.0 */
  /* int32 -1: the 10-byte and the 5-byte forms; sint32 zigzag */
  check_variants(S3, LIST("08 ff ff ff ff 0f 28 03", "08 ff ff ff ff ff ff ff ff ff 01 28 03"),
                 LIST("08 fe ff ff ff 0f 28 03", "08 ff ff ff ff 0f 28 04"));
  /* presence floats: set -0.0 equals set +0.0; NaNs equal each other */
  check_variants(S3, LIST("85 02 00 00 00 00 45 00 00 c0 7f", "85 02 00 00 00 80 45 01 00 c0 ff"),
                 LIST("45 00 00 c0 7f", "85 02 00 00 80 3f 45 00 00 c0 7f"));
  /* --float-bits: the sign of zero and NaN payloads count */
  check_variants("--float-bits " S3,
                 LIST("85 02 00 00 00 80 c2 01 04 01 00 c0 ff", "c5 01 01 00 c0 ff 85 02 00 00 00 80"),
                 LIST("85 02 00 00 00 00 c2 01 04 01 00 c0 ff",
                      "85 02 00 00 00 80 c2 01 04 00 00 c0 7f"));
  EXPECT(PB("cat --float-bits " S3 "v0.pb"), 0, "rf: nan  # bits 0xffc00001\nof: -0\n");
  EXPECT(PB("cat " S3 "v0.pb"), 0, "rf: nan\nof: 0\n");
  /* bool: any non-zero varint is true */
  check_variants(S3, LIST("38 01", "38 02", "38 ff ff ff ff ff ff ff ff ff 01"), LIST("38 00"));
}
END_TEST

START_TEST(variants_repeated) {
  /* i32 9, ri [1, 2, 3], rf [1.5, 0] */
  check_variants(S3,
                 LIST("08 09 72 03 01 02 03 c2 01 08 00 00 c0 3f 00 00 00 00",
                      /* unpacked, interleaved with another field */
                      "70 01 08 09 70 02 70 03 c5 01 00 00 c0 3f c5 01 00 00 00 00",
                      /* mixed; -0.0 for 0 in a repeated float */
                      "72 01 01 70 02 72 01 03 c2 01 04 00 00 c0 3f c5 01 00 00 00 80 08 09",
                      /* an empty packed run adds nothing */
                      "72 00 08 09 72 03 01 02 03 c2 01 08 00 00 c0 3f 00 00 00 00"),
                 LIST("08 09 72 03 01 03 02 c2 01 08 00 00 c0 3f 00 00 00 00", /* order */
                      "08 09 72 02 01 02 c2 01 08 00 00 c0 3f 00 00 00 00",    /* one less */
                      "08 09 72 03 01 02 03 c2 01 04 00 00 c0 3f"));
  /* repeated messages and strings keep their order */
  check_variants(S3, LIST("7a 02 08 01 7a 02 08 02 ba 01 01 61 ba 01 00",
                          "7a 02 08 01 ba 01 01 61 7a 03 08 82 00 ba 01 00"),
                 LIST("7a 02 08 02 7a 02 08 01 ba 01 01 61 ba 01 00",
                      "7a 02 08 01 7a 02 08 02 ba 01 00 ba 01 01 61"));
}
END_TEST

START_TEST(variants_maps) {
  /* ms {a: 1, b: 2, c: 0}, mi {3: {a: 1}} */
  check_variants(
      S3,
      LIST("82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02 82 01 03 0a 01 63"
           " 8a 01 06 08 03 12 02 08 01",
           /* entries reversed */
           "8a 01 06 08 03 12 02 08 01 82 01 03 0a 01 63 82 01 05 0a 01 62 10 02"
           " 82 01 05 0a 01 61 10 01",
           /* fields inside the entries swapped; a default value written out */
           "82 01 05 10 01 0a 01 61 82 01 05 10 02 0a 01 62 82 01 05 10 00 0a 01 63"
           " 8a 01 06 12 02 08 01 08 03",
           /* duplicate keys: the last entry wins whole (its value is not merged) */
           "82 01 05 0a 01 61 10 09 8a 01 09 08 03 12 05 08 05 12 01 71 82 01 05 0a 01 62 10 02"
           " 82 01 03 0a 01 63 82 01 05 0a 01 61 10 01 8a 01 06 08 03 12 02 08 01"),
      LIST("82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 03 82 01 03 0a 01 63"
           " 8a 01 06 08 03 12 02 08 01",
           "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02"
           " 8a 01 06 08 03 12 02 08 01",
           "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02 82 01 03 0a 01 63"
           " 8a 01 06 08 03 12 02 08 02"));
  /* a map key left out is the default key; bool keys */
  check_variants(S3, LIST("8a 01 04 12 02 08 01 f2 01 03 12 01 74 f2 01 04 08 01 12 00",
                          "8a 01 06 08 00 12 02 08 01 f2 01 05 08 00 12 01 74 f2 01 02 08 01"),
                 LIST("8a 01 06 08 01 12 02 08 01 f2 01 03 12 01 74 f2 01 04 08 01 12 00"));
}
END_TEST

START_TEST(variants_merge) {
  /* inner {a: 1 s: "x" r: [1, 2] child {a: 2}} rm [{a: 1}] */
  check_variants(S3,
                 LIST("6a 0d 08 01 12 01 78 1a 02 01 02 22 02 08 02 7a 02 08 01",
                      /* inner in two parts that merge, r joined */
                      "6a 04 08 01 18 01 7a 02 08 01 6a 09 12 01 78 18 02 22 02 08 02",
                      /* the whole message as two concatenated parts; child merged,
                       * its a replaced */
                      "6a 06 08 01 22 02 08 07 7a 02 08 01 6a 0b 12 01 78 1a 02 01 02 22 02 08 02"),
                 LIST("6a 0d 08 01 12 01 78 1a 02 02 01 22 02 08 02 7a 02 08 01",
                      "6a 0d 08 01 12 01 78 1a 02 01 02 22 02 08 03 7a 02 08 01",
                      "6a 0b 08 01 12 01 78 1a 02 01 02 22 00 7a 02 08 01"));
  /* set-but-empty sub-message vs unset: a difference (presence) */
  check_variants(S3, LIST("6a 00 08 01", "08 01 6a 00 6a 00"), LIST("08 01"));
}
END_TEST

START_TEST(variants_oneof_any_unknown) {
  /* c2 "z", oi 0, any {Inner a: 4 s: "y"}, unknown 99 [7, 8], 100 fixed32 1 */
  check_variants(
      S3,
      LIST("a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00",
           /* other oneof members first: the last one wins */
           "98 01 05 aa 01 02 08 01 a2 01 01 7a 90 01 00 " ANY_A
           " 98 06 07 98 06 08 a5 06 01 00 00 00",
           /* the Any's payload in other bytes (fields swapped, a long varint), its
            * URL after its value */
           "a2 01 01 7a 90 01 00 b2 01 28 12 06 12 01 79 08 84 00 0a 1e " URL_INNER
           " 98 06 07 98 06 08 a5 06 01 00 00 00",
           /* unknown fields among the known ones (order kept within a number) */
           "98 06 07 a2 01 01 7a a5 06 01 00 00 00 90 01 00 98 06 08 " ANY_A),
      LIST("a2 01 01 7a 90 01 00 " ANY_A " 98 06 08 98 06 07 a5 06 01 00 00 00",
           "a2 01 01 7a " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00",          /* oi unset */
           "98 01 00 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00",    /* c1 */
           "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a0 06 01",          /* varint */
           "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a9 06 01 00 00 00 00 00 00 00",
           "a2 01 01 7a 90 01 00 b2 01 25 0a 1e " URL_INNER " 12 03 12 01 79"
           " 98 06 07 98 06 08 a5 06 01 00 00 00"));
#undef ANY_A
  /* unknown LEN: bytes, a message, a group */
  check_variants(S3, LIST("ba 06 02 08 05", "ba 06 03 08 85 00"),
                 LIST("bb 06 08 05 bc 06", "ba 06 02 08 06", "ba 06 01 08"));
}
END_TEST

START_TEST(variants_proto2_and_schemaless) {
  /* closed enum values the schema does not know go to unknown fields, also
   * out of a packed run; groups merge; an extension's last value wins */
  check_variants(S2,
                 LIST("2a 03 01 09 02 3b 40 03 3c a0 06 05",
                      "28 01 28 09 28 02 3b 3c a0 06 01 3b 40 03 3c a0 06 05",
                      "a0 06 05 3b 40 03 3c 2a 02 01 02 28 09"),
                 LIST("2a 03 01 09 02 3b 40 04 3c a0 06 05", "2a 02 01 02 3b 40 03 3c a0 06 05",
                      "2a 03 01 09 02 3b 40 03 3c a0 06 05 10 07"));
  /* schemaless: numbers in any order; occurrences of one number in order */
  check_variants("",
                 LIST("08 01 12 04 08 02 10 03 1d 01 00 00 00",
                      "1d 01 00 00 00 12 04 08 02 10 03 08 01",
                      "08 81 80 00 1d 01 00 00 00 12 04 08 02 10 03",
                      "08 01 12 04 10 03 08 02 1d 01 00 00 00"), /* inside too */
                 LIST("08 01 12 04 08 02 10 04 1d 01 00 00 00",
                      "08 01 12 02 08 02 12 02 10 03 1d 01 00 00 00", /* nothing merges */
                      "08 01 08 01 12 04 08 02 10 03 1d 01 00 00 00",
                      "08 01 12 04 08 02 10 03 25 01 00 00 00"));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cat_variants");
  TCase *t = tcase_create("cat_variants");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, variants_scalars);
  tcase_add_test(t, variants_repeated);
  tcase_add_test(t, variants_maps);
  tcase_add_test(t, variants_merge);
  tcase_add_test(t, variants_oneof_any_unknown);
  tcase_add_test(t, variants_proto2_and_schemaless);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
