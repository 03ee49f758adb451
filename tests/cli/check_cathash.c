/* pbdiff tests — `pbdiff cat` (canonical text form) and `pbdiff hash`
 * (semantic fingerprints, docs/hash.md), run as users run them.
 *
 * The central property: inputs equal in meaning print byte-identical `cat`
 * output and the same fingerprint, whatever their encoding (field order,
 * packed or not, map entry order, split messages, defaults written out,
 * non-minimal varints, repeated values of which the last wins, ...), and an
 * input that differs prints other text and another fingerprint.  Every
 * variant is hand-written hex.
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

#include "pbdiff.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("cathash", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")
#define PROTOC_ONNX "protoc -I/usr/include " ONNX_PROTO
#define ENC3 "protoc --encode=sem3.M -I \"$R/testdata/proto\" -I /usr/include \"$R/testdata/proto/sem3.proto\""



/* Trouble: status 2, exact stdout and stderr. */
#define EXPECT_TROUBLE(r, stdout_text, stderr_text) EXPECT2(r, 2, stdout_text, stderr_text)

/* `pbdiff cat OPTS FILE`, which must succeed; its output (malloc'd). */
static char *cat_of(const char *opts, const char *file) {
  const Run *r = PB("cat %s %s", opts, file);
  ck_assert_msg(r->rc == 0 && r->err[0] == '\0', "cat %s %s: status %d, stderr [%s]", opts,
                file, r->rc, r->err);
  return strdup(r->out);
}

/* The fingerprint `pbdiff hash OPTS FILE` prints (malloc'd "pbh1:<32 hex>"),
 * checking the line's form. */
static char *hash_of(const char *opts, const char *file) {
  const Run *r = PB("hash %s %s", opts, file);
  ck_assert_msg(r->rc == 0 && r->err[0] == '\0', "hash %s %s: status %d, stderr [%s]", opts,
                file, r->rc, r->err);
  size_t n = strlen(r->out);
  ck_assert_msg(n == 37 + 2 + strlen(file) + 1 && strncmp(r->out, "pbh1:", 5) == 0 &&
                    strspn(r->out + 5, "0123456789abcdef") == 32 && r->out[37] == ' ' &&
                    r->out[38] == ' ' && strncmp(r->out + 39, file, strlen(file)) == 0 &&
                    r->out[n - 1] == '\n',
                "bad fingerprint line [%s]", r->out);
  return strndup(r->out, 37);
}

/* The property: every variant (hex) prints the same `cat` text and the same
 * fingerprint as the first; every changed one prints other text and another
 * fingerprint.  Lists end with NULL. */
static void check_variants(const char *opts, const char *const *variants,
                           const char *const *changed) {
  put("v0.pb", variants[0]);
  char *text0 = cat_of(opts, "v0.pb"), *hash0 = hash_of(opts, "v0.pb");
  ck_assert_msg(text0[0] != '\0' || variants[0][0] == '\0', "empty cat output");
  for (size_t i = 1; variants[i]; i++) {
    put("v.pb", variants[i]);
    char *text = cat_of(opts, "v.pb"), *hash = hash_of(opts, "v.pb");
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
    char *text = cat_of(opts, "c.pb"), *hash = hash_of(opts, "c.pb");
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

/* "type.googleapis.com/sem3.Inner" (30 bytes) */
#define URL_INNER "74 79 70 65 2e 67 6f 6f 67 6c 65 61 70 69 73 2e 63 6f 6d 2f 73 65 6d 33 2e 49 6e 6e 65 72"

/* A rich sem3.M: every kind of field, a oneof written twice, an Any, unknown
 * fields of every wire type (99 twice, around the known fields). */
#define RICH3                                                                           \
  "08 fd ff ff ff ff ff ff ff ff 01  98 06 07  28 03  38 01  45 00 00 00 80"             \
  "49 00 00 00 00 00 00 04 40  52 08 68 c3 a9 6c 6c 6f 0a 22  5a 03 00 ff 41  60 07"     \
  "6a 0e 08 01 12 02 69 6e 1a 02 01 02 22 02 08 02"                                      \
  "72 0b 03 ff ff ff ff ff ff ff ff ff 01  7a 02 08 05  7a 00"                           \
  "82 01 05 0a 01 62 10 02  82 01 03 0a 01 61"                                           \
  "8a 01 06 08 03 12 02 08 07  8a 01 02 08 01  90 01 00  98 01 04  aa 01 02 08 09"       \
  "b2 01 24 0a 1e " URL_INNER " 12 02 08 04  ba 01 01 78  ba 01 00"                      \
  "c2 01 0c 00 00 c0 3f 00 00 00 80 00 00 c0 7f  d1 01 01 00 00 00 00 00 00 00"          \
  "f2 01 05 08 01 12 01 74  fa 01 02 01 05  85 02 00 00 00 80"                           \
  "a5 06 01 00 00 00  a9 06 02 00 00 00 00 00 00 00  b2 06 03 68 69 21  ba 06 02 08 05"  \
  "c3 06 08 01 c4 06  98 06 08"

static const char kRich3Text[] =
    "i32: -3\n"
    "s32: -2\n"
    "b: true\n"
    "f: -0\n" /* proto3 implicit -0.0: present, unlike +0.0 (rule 10) */
    "d: 2.5\n"
    "str: \"h\xc3\xa9" "llo\\n\\\"\"\n"
    "by: \"\\000\\377A\"\n"
    "color: 7\n"
    "inner {\n"
    "  a: 1\n"
    "  s: \"in\"\n"
    "  r: 1\n"
    "  r: 2\n"
    "  child {\n"
    "    a: 2\n"
    "  }\n"
    "}\n"
    "ri: 3\n"
    "ri: -1\n"
    "rm {\n"
    "  a: 5\n"
    "}\n"
    "rm { }\n"
    "ms {\n"
    "  key: \"a\"\n"
    "  value: 0\n"
    "}\n"
    "ms {\n"
    "  key: \"b\"\n"
    "  value: 2\n"
    "}\n"
    "mi {\n"
    "  key: 1\n"
    "  value { }\n"
    "}\n"
    "mi {\n"
    "  key: 3\n"
    "  value {\n"
    "    a: 7\n"
    "  }\n"
    "}\n"
    "oi: 0\n"
    "c3 {\n"
    "  a: 9\n"
    "}\n"
    "any {\n"
    "  [type.googleapis.com/sem3.Inner] {\n"
    "    a: 4\n"
    "  }\n"
    "}\n"
    "rs: \"x\"\n"
    "rs: \"\"\n"
    "rf: 1.5\n"
    "rf: 0\n" /* a -0.0 element equals +0.0 */
    "rf: nan\n"
    "fx64: 1\n"
    "mb {\n"
    "  key: true\n"
    "  value: \"t\"\n"
    "}\n"
    "rc: RED\n"
    "rc: 5\n"
    "of: 0\n" /* proto3 optional -0.0: set, equal to a set +0.0 */
    "99: 7\n"
    "99: 8\n"
    "100: 0x00000001\n"
    "101: 0x0000000000000002\n"
    "102: \"hi!\"\n"
    "103 {\n"
    "  1: 5\n"
    "}\n"
    "104 {  # group\n"
    "  1: 1\n"
    "}\n";

/* A sem2.M (proto2): declared default set, closed enum values the schema does
 * not know (alone and out of a packed run), a group, extensions, a set -0.0. */
#define RICH2 "08 01 10 07 20 05 3b 40 03 3c a0 06 05 aa 06 02 08 01 55 00 00 00 80 58 00 2a 03 01 09 02"

/* ---- cat: exact output ------------------------------------------------------- */

START_TEST(cat_rich_sem3) {
  put("rich.pb", RICH3);
  EXPECT(PB("cat " S3 "rich.pb"), 0, kRich3Text);
  /* standard input; the options after the operand */
  EXPECT(PB("cat - " S3 "< rich.pb"), 0, kRich3Text);
}
END_TEST

START_TEST(cat_sem2_groups_extensions) {
  put("m.pb", RICH2);
  EXPECT(PB("cat " S2 "m.pb"), 0,
         "i: 1\n"
         "di: 7\n"
         "4: 5\n"
         "rk: ONE\n"
         "rk: TWO\n"
         "5: 9\n"
         "g {\n"
         "  ga: 3\n"
         "}\n"
         "f: 0\n"
         "req: 0\n"
         "[sem2.ext_i]: 5\n"
         "[sem2.ext_m] {\n"
         "  a: 1\n"
         "}\n");
  /* --equivalent: fields set to their default are gone */
  EXPECT(PB("cat --equivalent " S2 "m.pb"), 0,
         "i: 1\n"
         "4: 5\n"
         "rk: ONE\n"
         "rk: TWO\n"
         "5: 9\n"
         "g {\n"
         "  ga: 3\n"
         "}\n"
         "[sem2.ext_i]: 5\n"
         "[sem2.ext_m] {\n"
         "  a: 1\n"
         "}\n");
  /* --ignore-unknown: the unknown closed-enum values are gone */
  EXPECT(PB("cat --ignore-unknown --equivalent " S2 "m.pb"), 0,
         "i: 1\n"
         "rk: ONE\n"
         "rk: TWO\n"
         "g {\n"
         "  ga: 3\n"
         "}\n"
         "[sem2.ext_i]: 5\n"
         "[sem2.ext_m] {\n"
         "  a: 1\n"
         "}\n");
}
END_TEST

START_TEST(cat_schemaless) {
  put("rich.pb", RICH3);
  /* fields by number, every occurrence kept in order, values by wire type */
  EXPECT(PB("cat rich.pb"), 0,
         "1: 18446744073709551613\n"
         "5: 3\n"
         "7: 1\n"
         "8: 0x80000000\n"
         "9: 0x4004000000000000\n"
         "10: \"h\\303\\251llo\\n\\\"\"\n"
         "11: \"\\000\\377A\"\n"
         "12: 7\n"
         "13 {\n"
         "  1: 1\n"
         "  2: \"in\"\n"
         "  3: \"\\001\\002\"\n"
         "  4 {\n"
         "    1: 2\n"
         "  }\n"
         "}\n"
         "14: \"\\003\\377\\377\\377\\377\\377\\377\\377\\377\\377\\001\"\n"
         "15 {\n"
         "  1: 5\n"
         "}\n"
         "15: \"\"\n"
         "16 {\n"
         "  1: \"b\"\n"
         "  2: 2\n"
         "}\n"
         "16 {\n"
         "  1: \"a\"\n"
         "}\n"
         "17 {\n"
         "  1: 3\n"
         "  2 {\n"
         "    1: 7\n"
         "  }\n"
         "}\n"
         "17 {\n"
         "  1: 1\n"
         "}\n"
         "18: 0\n"
         "19: 4\n"
         "21 {\n"
         "  1: 9\n"
         "}\n"
         "22 {\n"
         "  1: \"type.googleapis.com/sem3.Inner\"\n"
         "  2 {\n"
         "    1: 4\n"
         "  }\n"
         "}\n"
         "23: \"x\"\n"
         "23: \"\"\n"
         "24: \"\\000\\000\\300?\\000\\000\\000\\200\\000\\000\\300\\177\"\n"
         "26: 0x0000000000000001\n"
         "30 {\n"
         "  1: 1\n"
         "  2: \"t\"\n"
         "}\n"
         "31: \"\\001\\005\"\n"
         "32: 0x80000000\n"
         "99: 7\n"
         "99: 8\n"
         "100: 0x00000001\n"
         "101: 0x0000000000000002\n"
         "102: \"hi!\"\n"
         "103 {\n"
         "  1: 5\n"
         "}\n"
         "104 {  # group\n"
         "  1: 1\n"
         "}\n");
  put("s.pb", "08 96 01  1d 01 00 00 00  21 02 00 00 00 00 00 00 00  2a 03 68 69 21"
              "  32 02 08 05  3b 08 01 3c  2a 00  08 01");
  EXPECT(PB("cat s.pb"), 0,
         "1: 150\n"
         "1: 1\n"
         "3: 0x00000001\n"
         "4: 0x0000000000000002\n"
         "5: \"hi!\"\n"
         "5: \"\"\n"
         "6 {\n"
         "  1: 5\n"
         "}\n"
         "7 {  # group\n"
         "  1: 1\n"
         "}\n");
  /* an empty message prints nothing */
  put("e.pb", "");
  EXPECT(PB("cat e.pb"), 0, "");
  EXPECT(PB("cat " S3 "e.pb"), 0, "");
}
END_TEST

START_TEST(cat_long_values_whole) {
  /* bytes of 100000 'A' (more than the output buffer): written whole */
  ck_assert_int_eq(tu_sh("{ printf '\\132\\240\\215\\006'; head -c 100000 /dev/zero | tr '\\0' A; } "
                      "> big.pb")->rc, 0);
  const Run *r = PB("cat " S3 "big.pb");
  ck_assert_int_eq(r->rc, 0);
  ck_assert_uint_eq(strlen(r->out), 100000 + strlen("by: \"\"\n"));
  ck_assert(strncmp(r->out, "by: \"AAAA", 9) == 0);
  ck_assert(strcmp(r->out + strlen(r->out) - 3, "A\"\n") == 0);
  ck_assert_uint_eq(strspn(r->out + 5, "A"), 100000);
}
END_TEST

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
#define ANY_A "b2 01 27 0a 1e " URL_INNER " 12 05 08 04 12 01 79"
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

/* ---- cat: input encodings and modes ------------------------------------------------ */

START_TEST(cat_encodings) {
  put("rich.pb", RICH3);
  /* gzip-compressed */
  ck_assert_int_eq(tu_sh("gzip -c rich.pb > rich.pb.gz")->rc, 0);
  EXPECT(PB("cat " S3 "rich.pb.gz"), 0, kRich3Text);
  EXPECT(PB("cat " S3 "- < rich.pb.gz"), 0, kRich3Text);
  /* text format (by extension and by --format), in two orders, and its
   * binary encoding by protoc: one canonical text */
  ck_assert_int_eq(tu_sh("cp \"$R/testdata/cli/m_full.txtpb\" a.txtpb && "
                      "cp \"$R/testdata/cli/m_full_reordered.txtpb\" b.txt && "
                      ENC3 " < a.txtpb > a.pb")->rc, 0);
  char *bin = cat_of(S3, "a.pb");
  char *txt = cat_of(S3, "a.txtpb");
  char *txt2 = cat_of("--format textproto " S3, "b.txt");
  ck_assert_str_eq(txt, bin);
  ck_assert_str_eq(txt2, bin);
  ck_assert_str_eq(bin,
                   "i32: 7\n"
                   "str: \"hello\"\n"
                   "color: GREEN\n"
                   "ri: 1\n"
                   "ri: 2\n"
                   "ri: 3\n"
                   "rm {\n"
                   "  a: 1\n"
                   "}\n"
                   "rm {\n"
                   "  a: 2\n"
                   "  s: \"two\"\n"
                   "}\n"
                   "ms {\n"
                   "  key: \"a\"\n"
                   "  value: 1\n"
                   "}\n"
                   "ms {\n"
                   "  key: \"b\"\n"
                   "  value: 2\n"
                   "}\n"
                   "mi {\n"
                   "  key: 3\n"
                   "  value {\n"
                   "    a: 1\n"
                   "    s: \"three\"\n"
                   "  }\n"
                   "}\n"
                   "c2: \"chosen\"\n"
                   "any {\n"
                   "  [type.googleapis.com/sem3.Inner] {\n"
                   "    a: 5\n"
                   "    s: \"in any\"\n"
                   "    r: 1\n"
                   "    r: 2\n"
                   "  }\n"
                   "}\n");
  /* JSON (protobuf's JSON mapping) */
  ck_assert_int_eq(tu_sh("printf '%%s' '{\"str\": \"hello\", \"i32\": 7, \"color\": \"GREEN\", "
                      "\"ri\": [1, 2, 3], \"rm\": [{\"a\": 1}, {\"s\": \"two\", \"a\": 2}], "
                      "\"ms\": {\"b\": 2, \"a\": 1}, \"mi\": {\"3\": {\"s\": \"three\", \"a\": 1}}, "
                      "\"c2\": \"chosen\", \"any\": {\"@type\": \"type.googleapis.com/sem3.Inner\", "
                      "\"r\": [1, 2], \"a\": 5, \"s\": \"in any\"}}' > a.json")->rc, 0);
  char *json = cat_of(S3, "a.json");
  ck_assert_str_eq(json, bin);
  free(bin);
  free(txt);
  free(txt2);
  free(json);
  /* a text-format input needs a schema */
  EXPECT_TROUBLE(PB("cat a.txtpb"), "",
                 "pbdiff: a.txtpb: a text-format input needs a schema and --type\n");
}
END_TEST

START_TEST(cat_delimited) {
  /* three sem3.Rec: {name "a" n 1}, {}, {n 7} */
  put("d.pb", "05 0a 01 61 10 01  00  02 10 07");
  EXPECT(PB("cat --delimited " S3REC "d.pb"), 0,
         "# message 0\n"
         "name: \"a\"\n"
         "n: 1\n"
         "# message 1\n"
         "# message 2\n"
         "n: 7\n");
  /* the same messages in other bytes */
  put("d2.pb", "07 10 05 10 01 0a 01 61  02 10 00  04 10 87 80 00");
  EXPECT(PB("cat --delimited " S3REC "d2.pb"), 0,
         "# message 0\nname: \"a\"\nn: 1\n# message 1\n# message 2\nn: 7\n");
  /* an empty stream prints nothing */
  put("none.pb", "");
  EXPECT(PB("cat --delimited " S3REC "none.pb"), 0, "");
  /* a bad message in the stream: an error and no output */
  put("bad.pb", "05 0a 01 61 10 01  01 08");
  EXPECT_TROUBLE(PB("cat --delimited " S3REC "bad.pb"), "",
                 "pbdiff: bad.pb: truncated varint (field 1) at byte 8 (in [1])\n");
}
END_TEST

START_TEST(cat_config) {
  /* the schema and type come from a .pbdiff section matching the path given */
  put("m.sem", "08 01 52 01 78");
  ck_assert_int_eq(tu_sh("printf '[file \"*.sem\"]\\n\\tschema = %s/sem3.desc\\n\\ttype = sem3.M\\n"
                      "\\tkey = sem3.M.rm=a\\n' > .pbdiff", tu_sandbox_base())->rc, 0);
  EXPECT(PB("cat m.sem"), 0, "i32: 1\nstr: \"x\"\n");
  EXPECT(PB("hash m.sem"), 0, "pbh1:9cb2c6466a513a0107fb3e0f76928834  m.sem\n");
  /* the command line wins; another file takes no section */
  put("m.bin", "08 01 52 01 78");
  EXPECT(PB("cat m.bin"), 0, "1: 1\n10: \"x\"\n");
  EXPECT(PB("cat --config /dev/null m.sem"), 0, "1: 1\n10: \"x\"\n");
}
END_TEST

START_TEST(cat_errors) {
  put("bad.pb", "08");
  EXPECT_TROUBLE(PB("cat " S3 "bad.pb"), "", "pbdiff: bad.pb: truncated varint (field 1) at byte 1\n");
  EXPECT_TROUBLE(PB("cat " S3 "nope.pb"), "",
                 "pbdiff: nope.pb: cannot open: No such file or directory\n");
  put("u.pb", "52 02 c3 28"); /* proto3 string with invalid UTF-8 */
  EXPECT_TROUBLE(PB("cat " S3 "u.pb"), "",
                 "pbdiff: u.pb: invalid UTF-8 in string field str at byte 2 (in str)\n");
  put("k.pb", "08 01 98 06 07");
  EXPECT_TROUBLE(PB("cat --strict " S3 "k.pb"), "",
                 "pbdiff: k.pb: unknown field 99 (wire type 0) refused by --strict at byte 2\n");
  EXPECT_TROUBLE(PB("cat -s ../sem3.desc -t sem3.Nope k.pb"), "",
                 "pbdiff: message type 'sem3.Nope' is not in the schema\n");
  EXPECT_TROUBLE(PB("cat"), "",
                 "pbdiff: missing operand: need FILE\nTry 'pbdiff cat --help' for more information.\n");
  EXPECT_TROUBLE(PB("cat k.pb k.pb"), "",
                 "pbdiff: too many operands: need one FILE\n"
                 "Try 'pbdiff cat --help' for more information.\n");
  EXPECT_TROUBLE(PB("cat -q k.pb"), "",
                 "pbdiff: option '-q' is for comparisons\n"
                 "Try 'pbdiff cat --help' for more information.\n");
  const Run *r = PB("cat --help");
  ck_assert_int_eq(r->rc, 0);
  ck_assert(strncmp(r->out, "Usage: pbdiff cat [OPTIONS] FILE\n", 33) == 0);
  /* a write error is trouble */
  if (access("/dev/full", W_OK) == 0) {
    EXPECT_TROUBLE(PB("cat k.pb > /dev/full"), "", "pbdiff: cannot write to standard output\n");
    EXPECT_TROUBLE(PB("hash k.pb > /dev/full"), "", "pbdiff: cannot write to standard output\n");
  }
}
END_TEST

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
  char *got = hash_of(opts, file);
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
  h_empty = hash_of(S3, "none.pb");
  /* no field with presence at its default: --equivalent changes nothing */
  put("a.pb", "08 01 20 05 52 01 78 72 02 01 02 90 01 01 6a 02 08 01");
  h = hash_of(S3, "a.pb");
  he = hash_of("--equivalent " S3, "a.pb");
  ck_assert_str_eq(h, he);
  free(h), free(he);
  /* set to the default, and a set-but-empty message: differ from unset, and
   * equal it with --equivalent */
  const char *presence[] = {"90 01 00", "6a 00", "6a 02 08 00", "85 02 00 00 00 80", "a2 01 00",
                            "98 01 00", NULL};
  for (size_t i = 0; presence[i]; i++) {
    put("p.pb", presence[i]);
    h = hash_of(S3, "p.pb");
    he = hash_of("--equivalent " S3, "p.pb");
    ck_assert_msg(strcmp(h, h_empty) != 0, "%s hashes as unset", presence[i]);
    ck_assert_msg(strcmp(he, h_empty) == 0, "%s with --equivalent: %s, not %s", presence[i], he,
                  h_empty);
    free(h), free(he);
  }
  free(h_empty);
  /* proto2: the declared default */
  put("none.pb", "");
  h_empty = hash_of(S2, "none.pb");
  put("di.pb", "10 07 20 00 60 02");
  h = hash_of(S2, "di.pb");
  ck_assert_str_ne(h, h_empty);
  free(h);
  h = hash_of("--equivalent " S2, "di.pb");
  ck_assert_str_eq(h, h_empty);
  free(h);
  put("di8.pb", "10 08");
  h = hash_of(S2, "di8.pb");
  he = hash_of("--equivalent " S2, "di8.pb");
  ck_assert_str_eq(h, he);
  ck_assert_str_ne(h, h_empty);
  free(h), free(he), free(h_empty);
  /* --ignore-unknown */
  put("u.pb", "08 01 98 06 07");
  put("k.pb", "08 01");
  h = hash_of("--ignore-unknown " S3, "u.pb");
  he = hash_of(S3, "k.pb");
  ck_assert_str_eq(h, he);
  free(h);
  h = hash_of(S3, "u.pb");
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
  char *fp_b = hash_of(S3, "b.pb");
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
  char *alone = hash_of(S3REC, "m2.pb");
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
  char *h = hash_of(ONNX_MODEL, "orig.onnx");
  char *hr = hash_of(ONNX_MODEL, "re.onnx");
  char *hs = hash_of(ONNX_MODEL, "split.onnx");
  char *he = hash_of(ONNX_MODEL, "e.onnx");
  ck_assert_str_eq(h, hr);
  ck_assert_str_eq(h, hs);
  ck_assert_str_ne(h, he);
  char *c = cat_of(ONNX_MODEL, "orig.onnx");
  char *cs = cat_of(ONNX_MODEL, "split.onnx");
  char *ce = cat_of(ONNX_MODEL, "e.onnx");
  ck_assert_str_eq(c, cs);
  ck_assert_str_ne(c, ce);
  ck_assert_msg(strstr(c, "ir_version: ") == c && strstr(c, "graph {\n") != NULL &&
                    strstr(c, "    op_type: \"AveragePool\"\n") != NULL,
                "[%.2000s]", c);
  free(h), free(hr), free(hs), free(he), free(c), free(cs), free(ce);
  /* a TensorProto with raw_data, round-tripped through protoc */
  ck_assert_int_eq(tu_sh(PROTOC_ONNX " --decode=onnx.TensorProto < in0.pb | " PROTOC_ONNX
                      " --encode=onnx.TensorProto > in0re.pb")->rc, 0);
  h = hash_of("--proto " ONNX_PROTO " -t onnx.TensorProto", "in0.pb");
  hr = hash_of("--proto " ONNX_PROTO " -t onnx.TensorProto", "in0re.pb");
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
  Suite *s = suite_create("cathash");
  TCase *t = tcase_create("cathash");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, cat_rich_sem3);
  tcase_add_test(t, cat_sem2_groups_extensions);
  tcase_add_test(t, cat_schemaless);
  tcase_add_test(t, cat_long_values_whole);
  tcase_add_test(t, variants_scalars);
  tcase_add_test(t, variants_repeated);
  tcase_add_test(t, variants_maps);
  tcase_add_test(t, variants_merge);
  tcase_add_test(t, variants_oneof_any_unknown);
  tcase_add_test(t, variants_proto2_and_schemaless);
  tcase_add_test(t, cat_encodings);
  tcase_add_test(t, cat_delimited);
  tcase_add_test(t, cat_config);
  tcase_add_test(t, cat_errors);
  tcase_add_test(t, hash_pinned);
  tcase_add_test(t, hash_scheme_recomputed);
  tcase_add_test(t, hash_equivalent);
  tcase_add_test(t, hash_several_and_errors);
  tcase_add_test(t, hash_delimited);
  tcase_add_test(t, onnx_models);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
