/* pbdiff tests — `pbdiff cat` (canonical text form) run as users run it:
 * exact output on rich sem3, sem2 (groups, extensions) and schemaless
 * inputs, long values, input encodings (gzip, stdin, text format, JSON),
 * per-path config and errors (--delimited: tests/cases/cli.cases).
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

TU_CLI_FIXTURES("cat", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")

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
  /* bytes of 100000 'A' (more than the output buffer): written whole, folded
   * into adjacent literals of 76 characters, one a line (text format reads
   * "a" "b" as "ab"), so that textconv's lines stay short */
  ck_assert_int_eq(tu_sh("{ printf '\\132\\240\\215\\006'; head -c 100000 /dev/zero | tr '\\0' A; } "
                      "> big.pb")->rc, 0);
  const Run *r = PB("cat " S3 "big.pb");
  ck_assert_int_eq(r->rc, 0);
  size_t lines = 100000 / 76 + 1;
  ck_assert_uint_eq(strlen(r->out), 100000 + strlen("by: \"\"\n") + (lines - 1) * strlen("  \"\"\n"));
  ck_assert(strncmp(r->out, "by: \"AAAA", 9) == 0);
  ck_assert(strcmp(r->out + strlen(r->out) - 3, "A\"\n") == 0);
  r = PB("cat " S3 "big.pb | LC_ALL=C awk 'length > 82 { long++ } END { print NR, long + 0 }'");
  EXPECT(r, 0, "1316 0\n");
  /* and it reads back as the same bytes */
  r = tu_sh("\"$P\" cat " S3 "big.pb | protoc --encode=sem3.M -I\"$R/testdata/proto\" -I/usr/include "
            "\"$R/testdata/proto/sem3.proto\" | cmp - big.pb && echo same");
  EXPECT(r, 0, "same\n");
  /* a multi-byte character or an escape is never cut across two lines: 50
   * of "\303\251\n" (4 bytes written), 19 a line */
  ck_assert_int_eq(tu_sh("{ printf '\\122\\226\\001'; for i in $(seq 50); do printf '\\303\\251\\n'; done; } "
                      "> utf.pb")->rc, 0);
  r = PB("cat " S3 "utf.pb | LC_ALL=C awk '{ sub(/^(str: |  )\"/, \"\"); sub(/\"$/, \"\"); print length }'");
  EXPECT(r, 0, "76\n76\n48\n");
  r = PB("cat " S3 "utf.pb | grep -c -v -E '^(str: |  )\"(\303\251\\\\n)+\"$'");
  EXPECT(r, 1, "0\n");
}
END_TEST

/* ---- cat: input encodings and modes ------------------------------------------------ */

START_TEST(cat_encodings) {
  put("rich.pb", RICH3);
  /* gzip-compressed */
  ck_assert_int_eq(tu_sh("gzip -c rich.pb > rich.pb.gz")->rc, 0);
  EXPECT(PB("cat " S3 "rich.pb.gz"), 0, kRich3Text);
  EXPECT(PB("cat " S3 "- < rich.pb.gz"), 0, kRich3Text);
  /* text format (by extension and by --input-format), in two orders, and its
   * binary encoding by protoc: one canonical text */
  ck_assert_int_eq(tu_sh("cp \"$R/testdata/cli/m_full.txtpb\" a.txtpb && "
                      "cp \"$R/testdata/cli/m_full_reordered.txtpb\" b.txt && "
                      ENC3 " < a.txtpb > a.pb")->rc, 0);
  char *bin = tu_cat_of(S3, "a.pb");
  char *txt = tu_cat_of(S3, "a.txtpb");
  char *txt2 = tu_cat_of("--input-format textproto " S3, "b.txt");
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
  char *json = tu_cat_of(S3, "a.json");
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

static Suite *suite(void) {
  Suite *s = suite_create("cat");
  TCase *t = tcase_create("cat");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, cat_rich_sem3);
  tcase_add_test(t, cat_sem2_groups_extensions);
  tcase_add_test(t, cat_schemaless);
  tcase_add_test(t, cat_long_values_whole);
  tcase_add_test(t, cat_encodings);
  tcase_add_test(t, cat_config);
  tcase_add_test(t, cat_errors);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
