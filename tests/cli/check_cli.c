/* pbdiff tests — the command-line tool as users and CI run it: exit status,
 * exact stdout (text and JSON), exact one-line errors on stderr, schemas,
 * standard input, delimited streams, options, malformed inputs, real ONNX
 * files and protoc-encoded text-format inputs (the .txtpb files in testdata/cli).
 * The cases that are a command and its exact output are lines of
 * tests/cases/cli.cases (check_cli_cases.c); these need code.
 *
 * Every command runs in a fresh directory of its own (so that error messages
 * name short files: "pbdiff: r.pb: ..."), with shell variables
 *   $P  the pbdiff binary under test    $R  the source root
 * and the descriptor sets ../sem3.desc and ../sem2.desc, compiled once per
 * run by protoc. */
#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbdiff/pbdiff.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("cli", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")





/* An input or schema error: one line "pbdiff: MSG". */
#define EXPECT_ERROR(r, msg) EXPECT_STDERR(r, "pbdiff: " msg "\n")
/* A usage error: "pbdiff: MSG" and the hint line. */
#define EXPECT_USAGE(r, msg) \
  EXPECT_STDERR(r, "pbdiff: " msg "\nTry 'pbdiff --help' for more information.\n")

/* sem3.M with `levels` nested messages: inner { child { child { ... } } }
 * (levels 1 = just `inner {}`).  Built from the inside out. */
static uint8_t *nested_inner(int levels, size_t *len) {
  size_t cap = (size_t)levels * 4 + 16;
  uint8_t *cur = calloc(cap, 1), *next = calloc(cap, 1);
  size_t n = 0;
  for (int i = 0; i < levels; i++) {
    size_t m = 0;
    m += tu_varint(next + m, i == levels - 1 ? 0x6a : 0x22); /* M.inner = 13, Inner.child = 4 */
    m += tu_varint(next + m, n);
    memcpy(next + m, cur, n);
    n += m;
    uint8_t *t = cur;
    cur = next;
    next = t;
  }
  free(next);
  *len = n;
  return cur;
}

/* ---- 2. text output ------------------------------------------------------------ */

START_TEST(text_value_syntax) {
  /* strings quoted and escaped: quote, newline, backslash, tab, control byte;
   * valid UTF-8 shown as is */
  put_bytes("s1.pb", "\x52\x04" "a\"b\n", 6);
  put_bytes("s2.pb", "\x52\x06" "h\xc3\xa9\\\t\x01", 8);
  EXPECT(PB(S3 "s1.pb s2.pb"), 1, "str: \"a\\\"b\\n\" -> \"h\xc3\xa9\\\\\\t\\001\"\n");
  /* enums by name; an unknown (open enum) value by number */
  put("c1.pb", "60 01");
  put("c2.pb", "60 02");
  put("c5.pb", "60 05");
  EXPECT(PB(S3 "c1.pb c2.pb"), 1, "color: RED -> GREEN\n");
  EXPECT(PB(S3 "c1.pb c5.pb"), 1, "color: RED -> 5\n");
  /* signed and unsigned integer types */
  put("n1.pb", "28 03  20 01  cd 01 ff ff ff ff  e1 01 ff ff ff ff ff ff ff ff");
  put("n2.pb", "28 04  20 ff ff ff ff ff ff ff ff ff 01  cd 01 01 00 00 00  e1 01 01 00 00 00 00 00 00 00");
  EXPECT(PB(S3 "n1.pb n2.pb"), 1,
         "u64: 1 -> 18446744073709551615\n"
         "s32: -2 -> 2\n"
         "fx32: 4294967295 -> 1\n"
         "sfx64: -1 -> 1\n");
  /* floats: shortest form, nan, -0 */
  put("f1.pb", "45 00 00 c0 3f  49 9a 99 99 99 99 99 b9 3f");
  put("f2.pb", "45 00 00 c0 ff  49 00 00 00 00 00 00 00 80");
  EXPECT(PB(S3 "f1.pb f2.pb"), 1, "f: 1.5 -> nan\nd: 0.1 -> -0\n");
  /* bytes: octal escapes; long values cut at 64 bytes with the size noted */
  uint8_t by1[102] = {0x5a, 100};
  for (int i = 0; i < 100; i++) by1[2 + i] = (uint8_t)i;
  put_bytes("by1.pb", by1, sizeof by1);
  put("by2.pb", "5a 03 00 ff 41");
  EXPECT(PB(S3 "by1.pb by2.pb"), 1,
         "by: \"\\000\\001\\002\\003\\004\\005\\006\\007\\010\\t\\n\\013\\014\\r\\016\\017"
         "\\020\\021\\022\\023\\024\\025\\026\\027\\030\\031\\032\\033\\034\\035\\036\\037"
         " !\\\"#$%&'()*+,-./0123456789:;<=>?...\" (100 bytes, xxh3:004e4f92) -> \"\\000\\377A\"\n");
  /* a long string is cut on a character boundary: 63 ASCII + a 2-byte char */
  char s65[67] = "\x52\x41";
  memset(s65 + 2, 'a', 63);
  memcpy(s65 + 65, "\xc3\xa9", 2);
  put_bytes("s65.pb", s65, sizeof s65);
  char s64[66] = "\x52\x40";
  memset(s64 + 2, 'b', 64);
  put_bytes("s64.pb", s64, sizeof s64);
  EXPECT(PB(S3 "s65.pb s64.pb"), 1,
         "str: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" (65 bytes, xxh3:d0b10cc3)"
         " -> \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"\n");
  /* map keys in paths: JSON-quoted strings */
  put("k1.pb", "82 01 07 0a 03 61 22 62 10 01");
  put("k2.pb", "82 01 07 0a 03 61 22 62 10 02");
  EXPECT(PB(S3 "k1.pb k2.pb"), 1, "ms[\"a\\\"b\"]: 1 -> 2\n");
  /* a proto2 string is not checked for UTF-8: bad bytes escaped */
  put("p1.pb", "72 01 ff");
  put("p2.pb", "72 01 fe");
  EXPECT(PB(S2 "p1.pb p2.pb"), 1, "s: \"\\377\" -> \"\\376\"\n");
}
END_TEST

/* ---- 3. JSON output ------------------------------------------------------------- */

START_TEST(json_output) {
  put("j1.pb", "08 01 10 05 60 01 20 01");
  put("j2.pb", "08 02 10 ac 02 60 02 20 ff ff ff ff ff ff ff ff ff 01");
  EXPECT(PB("--format json " S3 "j1.pb j2.pb"), 1,
         "{\"equal\": false, \"left_name\": \"j1.pb\", \"right_name\": \"j2.pb\", \"differences\": [\n"
         "  {\"path\": \"i32\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"i64\", \"kind\": \"changed\", \"left\": \"5\", \"right\": \"300\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"u64\", \"kind\": \"changed\", \"left\": \"1\", \"right\": "
         "\"18446744073709551615\", \"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"color\", \"kind\": \"changed\", \"left\": \"RED\", \"right\": \"GREEN\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
  EXPECT(PB("--format json " S3 "j1.pb j1.pb"), 0, "{\"equal\": true, \"left_name\": \"j1.pb\", \"right_name\": \"j1.pb\", \"differences\": []}\n");
  EXPECT(PB("--format=json " S3 "j2.pb j2.pb"), 0,
         "{\"equal\": true, \"left_name\": \"j2.pb\", \"right_name\": \"j2.pb\", \"differences\": []}\n");
  /* --format text is the default */
  EXPECT(PB("--format text " S3 "j1.pb j1.pb"), 0, "");
  /* added / removed / presence: only the sides that exist */
  put("l.pb", "90 01 00  82 01 05 0a 01 61 10 01");
  put("r.pb", "82 01 05 0a 01 61 10 01  82 01 05 0a 01 62 10 02");
  EXPECT(PB("--format json " S3 "l.pb r.pb"), 1,
         "{\"equal\": false, \"left_name\": \"l.pb\", \"right_name\": \"r.pb\", \"differences\": [\n"
         "  {\"path\": \"ms[\\\"b\\\"]\", \"kind\": \"added\", \"right\": 2, "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"oi\", \"kind\": \"presence\", \"left\": 0, "
         "\"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
  /* bytes as base64, float NaN as a string, messages as objects (a set,
   * non-empty message vs none is added, not presence) */
  put("b1.pb", "5a 03 00 ff 41  45 00 00 c0 3f");
  put("b2.pb", "5a 01 ff  45 00 00 c0 7f  6a 04 08 01 12 00");
  EXPECT(PB("--format json " S3 "b1.pb b2.pb"), 1,
         "{\"equal\": false, \"left_name\": \"b1.pb\", \"right_name\": \"b2.pb\", \"differences\": [\n"
         "  {\"path\": \"f\", \"kind\": \"changed\", \"left\": 1.5, \"right\": \"NaN\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"by\", \"kind\": \"changed\", \"left\": \"AP9B\", \"right\": \"/w==\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"inner\", \"kind\": \"added\", \"right\": {\"a\": 1}, "
         "\"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
  /* long bytes are never cut in JSON */
  uint8_t by1[102] = {0x5a, 100};
  for (int i = 0; i < 100; i++) by1[2 + i] = (uint8_t)i;
  put_bytes("by1.pb", by1, sizeof by1);
  EXPECT(PB("--format json " S3 "by1.pb b2.pb"), 1,
         "{\"equal\": false, \"left_name\": \"by1.pb\", \"right_name\": \"b2.pb\", \"differences\": [\n"
         "  {\"path\": \"f\", \"kind\": \"changed\", \"left\": 0, \"right\": \"NaN\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"by\", \"kind\": \"changed\", \"left\": "
         "\"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+"
         "P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiYw==\", \"right\": \"/w==\", "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"inner\", \"kind\": \"added\", \"right\": {\"a\": 1}, "
         "\"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
  /* unknown fields: varints as strings, LEN as base64 */
  put("u1.pb", "98 06 07  9a 06 03 61 62 63  a0 06 05");
  put("u2.pb", "98 06 07  9a 06 03 61 62 64");
  EXPECT2(PB("--format json " S3 "u1.pb u2.pb"), 1,
         "{\"equal\": false, \"left_name\": \"u1.pb\", \"right_name\": \"u2.pb\", \"differences\": [\n"
         "  {\"path\": \"99[1]\", \"kind\": \"changed\", \"left\": \"YWJj\", \"right\": \"YWJk\", "
         "\"left_index\": 1, \"right_index\": 1, \"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"100[0]\", \"kind\": \"removed\", \"left\": \"5\", "
         "\"left_index\": 0, \"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n",
          "pbdiff: warning: u1.pb: none of its fields is in sem3.M; is that the right schema and "
          "--type?\n");
}
END_TEST

/* ---- 4. schemas ------------------------------------------------------------------ */

START_TEST(schema_descriptor_sets) {
  put("a.pb", "08 01");
  put("b.pb", "08 02");
  /* repeated -s: both files' types are found */
  EXPECT(PB("-s ../sem2.desc -s ../sem3.desc -t sem3.M a.pb b.pb"), 1, "i32: 1 -> 2\n");
  EXPECT(PB("-s ../sem2.desc -s ../sem3.desc -t sem2.M a.pb b.pb"), 1, "i: 1 -> 2\n");
  EXPECT(PB("--schema ../sem3.desc --type sem3.M a.pb b.pb"), 1, "i32: 1 -> 2\n");
  /* --proto FILE -I DIR, and an absolute --proto alone */
  EXPECT(PB("--proto proto/sem3.proto -I \"$R/testdata\" -t sem3.M a.pb b.pb"), 1,
            "i32: 1 -> 2\n");
  EXPECT(PB("--proto \"$R/testdata/proto/sem3.proto\" --proto-path \"$R/testdata/proto\" "
            "-t sem3.M a.pb b.pb"),
         1, "i32: 1 -> 2\n");
  EXPECT(PB("--proto \"$R/testdata/proto/sem2.proto\" -t sem2.M a.pb b.pb"), 1, "i: 1 -> 2\n");
  /* a descriptor set compiled here by protoc, from another directory */
  ck_assert_int_eq(tu_sh("protoc --include_imports -I \"$R/testdata\" -I /usr/include "
                      "-o here.desc \"$R/testdata/proto/sem3.proto\"")->rc, 0);
  EXPECT(PB("-s here.desc -t sem3.Inner a.pb b.pb"), 1, "a: 1 -> 2\n");
}
END_TEST

START_TEST(schema_errors) {
  put("a.pb", "08 01");
  put("b.pb", "08 02");
  EXPECT_USAGE(PB("-s ../sem3.desc a.pb b.pb"), "a schema needs --type, e.g. -t onnx.ModelProto");
  EXPECT_USAGE(PB("--proto \"$R/testdata/proto/sem3.proto\" a.pb b.pb"),
               "a schema needs --type, e.g. -t onnx.ModelProto");
  EXPECT_USAGE(PB("-t sem3.M a.pb b.pb"), "--type needs a schema (-s or --proto)");
  EXPECT_USAGE(PB("-I \"$R/testdata\" -t sem3.M a.pb b.pb"), "-I is for --proto");
  EXPECT_ERROR(PB("-s nope.desc -t sem3.M a.pb b.pb"),
               "nope.desc: cannot open: No such file or directory");
  /* a protoc failure: one line with protoc's first diagnostic; a missing
   * import says what to do */
  EXPECT_ERROR(PB("--proto nope.proto -t sem3.M a.pb b.pb"),
               "protoc failed on nope.proto: Could not make proto path relative: nope.proto: No "
               "such file or directory");
  tu_sh("mkdir -p dep && printf 'syntax = \"proto3\"; package d; message D { int32 x = 1; }\\n'"
        " > dep/d.proto && printf 'syntax = \"proto3\"; import \"d.proto\"; package m; "
        "message M { d.D d = 1; }\\n' > m.proto");
  EXPECT_ERROR(PB("--proto m.proto -t m.M a.pb b.pb"),
               "protoc failed on m.proto: d.proto: File not found. (add the directory that holds "
               "it with -I DIR)");
  /* a type without its package: the full name that fits */
  EXPECT_ERROR(PB("--proto m.proto -I dep -t M a.pb b.pb"),
               "message type 'M' is not in the schema (did you mean m.M?)");
}
END_TEST

/* ---- 5. standard input ------------------------------------------------------------ */

START_TEST(stdin_operand) {
  put("a.pb", "08 01");
  put("b.pb", "08 02");
  EXPECT(PB(S3 "- b.pb < a.pb"), 1, "i32: 1 -> 2\n");
  EXPECT(PB(S3 "a.pb - < b.pb"), 1, "i32: 1 -> 2\n");
  EXPECT(PB(S3 "- a.pb < a.pb"), 0, "");
  EXPECT(tu_sh("cat b.pb | \"$P\" " S3 "a.pb -"), 1, "i32: 1 -> 2\n");
  EXPECT_USAGE(PB(S3 "- - < a.pb"), "only one of LEFT and RIGHT can be standard input");
  /* errors name standard input */
  put("bad.pb", "08");
  EXPECT_ERROR(PB(S3 "- a.pb < bad.pb"), "standard input: truncated varint (field 1) at byte 1");
  /* a large input through a pipe (read in growing chunks, not mapped) */
  const char *big = "/usr/share/libonnx-testdata/data/node/test_maxpool_3d_default/"
                    "test_data_set_0/input_0.pb"; /* 393 235 bytes */
  EXPECT(tu_sh("cat %s | \"$P\" --proto " ONNX_PROTO " -t onnx.TensorProto - %s", big, big), 0, "");
  EXPECT(tu_sh("cat %s | \"$P\" --proto " ONNX_PROTO " -t onnx.TensorProto %s -", big, big), 0, "");
  /* "--" ends the options: a file named like an option */
  put("-x.pb", "08 02");
  EXPECT(PB(S3 "-- a.pb -x.pb"), 1, "i32: 1 -> 2\n");
}
END_TEST

/* ---- 7. options -------------------------------------------------------------- */

START_TEST(option_max_depth) {
  /* inner { child { child { } } }: three levels */
  put("n.pb", "6a 04 22 02 22 00");
  EXPECT_ERROR(PB("--max-depth 2 " S3 "n.pb n.pb"),
               "n.pb: nesting deeper than 2 at byte 4 (in inner.child.child)");
  EXPECT(PB("--max-depth 3 " S3 "n.pb n.pb"), 0, "");
  EXPECT(PB("--max-depth=3 " S3 "n.pb n.pb"), 0, "");
  /* 51 levels under --max-depth 50: the whole path is shown */
  size_t len;
  uint8_t *deep = nested_inner(51, &len);
  put_bytes("deep.pb", deep, len);
  free(deep);
  char want[1024] = "pbdiff: deep.pb: nesting deeper than 50 at byte ";
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%zu", len - 2); /* the last tag, "22 00" */
  strcat(want, tmp);
  strcat(want, " (in inner");
  for (int i = 0; i < 50; i++) strcat(want, ".child");
  strcat(want, ")\n");
  EXPECT_STDERR(PB("--max-depth 50 " S3 "n.pb deep.pb"), want);
  EXPECT_USAGE(PB("--max-depth 0 " S3 "n.pb n.pb"),
               "--max-depth wants a number from 1 to 1000, not '0'");
  EXPECT_USAGE(PB("--max-depth two " S3 "n.pb n.pb"),
               "--max-depth wants a number from 1 to 1000, not 'two'");
  EXPECT_USAGE(PB("--max-depth 10001 " S3 "n.pb n.pb"),
               "--max-depth wants a number from 1 to 1000, not '10001'");
}
END_TEST

START_TEST(option_help_version) {
  const Run *r = PB("--help");
  ck_assert_int_eq(r->rc, 0);
  ck_assert_str_eq(r->err, "");
  ck_assert_msg(strncmp(r->out, "Usage: pbdiff [OPTIONS] LEFT RIGHT\n", 35) == 0, "[%s]", r->out);
  static const char *const opts[] = {
      "-s, --schema FILE", "--proto FILE", "-I, --proto-path DIR", "-t, --type NAME",
      "--equivalent", "--ignore-unknown", "--strict", "--float-bits", "--delimited",
      "--max-depth N", "-q, --quiet", "--format FMT", "-h, --help", "--version",
  };
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
    ck_assert_msg(strstr(r->out, opts[i]) != NULL, "--help does not list %s", opts[i]);
  char *help = strdup(r->out);
  EXPECT(PB("-h"), 0, help);
  EXPECT(PB("--help a.pb"), 0, help); /* help wins over everything */
  free(help);

  r = PB("--version");
  ck_assert_int_eq(r->rc, 0);
  ck_assert_str_eq(r->err, "");
  int a, b, c, k = -1;
  ck_assert_msg(sscanf(r->out, "pbdiff %d.%d.%d (fingerprints pbh%*d)\n%n", &a, &b, &c, &k) == 3 &&
                    k == (int)strlen(r->out),
                "--version: [%s]", r->out);
  EXPECT(PB("--version"), 0, "pbdiff " PBDIFF_VERSION " (fingerprints " PBDIFF_HASH_SCHEME ")\n");
}
END_TEST

/* Output that cannot be written is trouble (a full disk must not pass a CI
 * gate silently). */
START_TEST(output_write_error) {
  put("a.pb", "08 01");
  put("b.pb", "08 02");
  const Run *r = PB(S3 "a.pb b.pb > /dev/full");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err, "pbdiff: cannot write the report\n");
  r = PB("--format json " S3 "a.pb a.pb > /dev/full");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err, "pbdiff: cannot write the report\n");
  /* -q writes nothing, so nothing can fail */
  r = PB("-q " S3 "a.pb b.pb > /dev/full");
  ck_assert_int_eq(r->rc, 1);
  ck_assert_str_eq(r->err, "");
}
END_TEST

/* --help and --version, too, must not claim success when stdout is full. */
START_TEST(output_write_error_help) {
  const Run *r = PB("--help > /dev/full");
  ck_assert_msg(r->rc == 2 && strncmp(r->err, "pbdiff: ", 8) == 0,
                "--help > /dev/full: status %d, stderr [%s]", r->rc, r->err);
  r = PB("--version > /dev/full");
  ck_assert_msg(r->rc == 2 && strncmp(r->err, "pbdiff: ", 8) == 0,
                "--version > /dev/full: status %d, stderr [%s]", r->rc, r->err);
}
END_TEST

/* ---- 8. malformed inputs ---------------------------------------------------------- */

START_TEST(malformed_wire) {
  put("ok.pb", "08 01");
#define BAD(hex, msg)                                   \
  do {                                                  \
    put("m.pb", hex);                                   \
    EXPECT_ERROR(PB(S3 "ok.pb m.pb"), "m.pb: " msg);    \
  } while (0)
  BAD("08 01 10", "truncated varint (field 2) at byte 3");
  BAD("08 01 10 80", "truncated varint (field 2) at byte 3");
  BAD("08 01 10 ff ff ff ff ff ff ff ff ff ff 01", "varint longer than 10 bytes (field 2) at byte 3");
  BAD("08 01 80", "truncated varint in tag at byte 2");
  BAD("08 01 0e", "invalid wire type 6 (field 1) at byte 2");
  BAD("08 01 0f", "invalid wire type 7 (field 1) at byte 2");
  BAD("08 01 52 05 61 62", "length 5 of field 10 runs past the end (only 2 left) at byte 3");
  BAD("08 01 0c", "end group 1 without a start group at byte 2");
  BAD("08 01 0b", "group 1 has no end tag at byte 2");
  BAD("08 01 00", "invalid field number 0 at byte 2");
#undef BAD
  /* schemaless: the same reader */
  put("m.pb", "08 01 0e");
  EXPECT_ERROR(PB("ok.pb m.pb"), "m.pb: invalid wire type 6 (field 1) at byte 2");
  /* LEFT malformed: LEFT is named */
  put("l.pb", "0a 03 08");
  EXPECT_ERROR(PB("l.pb ok.pb"), "l.pb: length 3 of field 1 runs past the end (only 1 left) at byte 1");
}
END_TEST

START_TEST(malformed_utf8_and_depth) {
  put("ok.pb", "08 01");
  /* proto3 string inner.s = "a\xffb": offset of the bad byte, path */
  put("u.pb", "6a 05 12 03 61 ff 62");
  EXPECT_ERROR(PB(S3 "ok.pb u.pb"), "u.pb: invalid UTF-8 in string field s at byte 5 (in inner.s)");
  put("u2.pb", "6a 03 12 01 80");
  EXPECT_ERROR(PB(S3 "ok.pb u2.pb"), "u2.pb: invalid UTF-8 in string field s at byte 4 (in inner.s)");
  /* nesting over the default limit (100) */
  size_t len;
  uint8_t *deep = nested_inner(100, &len);
  put_bytes("d100.pb", deep, len);
  free(deep);
  EXPECT(PB(S3 "d100.pb d100.pb"), 0, "");
  deep = nested_inner(101, &len);
  put_bytes("d101.pb", deep, len);
  free(deep);
  const Run *r = PB(S3 "ok.pb d101.pb");
  char want[128];
  snprintf(want, sizeof want, "pbdiff: d101.pb: nesting deeper than 100 at byte %zu (in ", len - 2);
  ck_assert_msg(r->rc == 2 && r->out[0] == '\0' && strncmp(r->err, want, strlen(want)) == 0 &&
                    strchr(r->err, '\n') == r->err + strlen(r->err) - 1,
                "status %d, stderr [%s], want [%s...]", r->rc, r->err, want);
  ck_assert_msg(strstr(r->err, "child.child)\n") != NULL, "[%s]", r->err);
  /* groups nested over the limit (schemaless) */
  char groups[101 * 2];
  memset(groups, 0x0b, 101);
  memset(groups + 101, 0x0c, 101);
  put_bytes("g101.pb", groups, sizeof groups);
  put_bytes("g100.pb", groups + 1, sizeof groups - 2);
  EXPECT(PB("g100.pb g100.pb"), 0, "");
  EXPECT_ERROR(PB("ok.pb g101.pb"), "g101.pb: groups nested too deep at byte 100");
}
END_TEST

START_TEST(malformed_files) {
  put("ok.pb", "08 01");
  EXPECT_ERROR(PB(S3 "ok.pb nope.pb"), "nope.pb: cannot open: No such file or directory");
  EXPECT_ERROR(PB(S3 "nope.pb ok.pb"), "nope.pb: cannot open: No such file or directory");
  ck_assert_int_eq(tu_sh("mkdir sub")->rc, 0);
  EXPECT_ERROR(PB(S3 "ok.pb sub"), "sub: is a directory (to compare directories, use -r)");
  EXPECT_ERROR(PB("sub ok.pb"), "sub: is a directory (to compare directories, use -r)");
  /* an unreadable file (skipped when running as root) */
  if (geteuid() != 0) {
    put("locked.pb", "08 01");
    ck_assert_int_eq(tu_sh("chmod 000 locked.pb")->rc, 0);
    EXPECT_ERROR(PB(S3 "ok.pb locked.pb"), "locked.pb: cannot open: Permission denied");
  }
}
END_TEST

/* ---- 9. real ONNX files ------------------------------------------------------------- */

START_TEST(onnx_models) {
  EXPECT(PB(ONNX_MODEL ONNX_NODE "test_abs/model.onnx " ONNX_NODE "test_abs/model.onnx"), 0, "");
  EXPECT(PB(ONNX_MODEL ONNX_NODE "test_abs/model.onnx " ONNX_NODE "test_acos/model.onnx"), 1,
         "ir_version: 7 -> 3\n"
         "graph.node[0] (onnx.NodeProto):\n"
         "  op_type: \"Abs\" -> \"Acos\"\n"
         "graph (onnx.GraphProto):\n"
         "  name: \"test_abs\" -> \"test_acos\"\n"
         "opset_import[0] (onnx.OperatorSetIdProto):\n"
         "  version: 13 -> 7\n");
  EXPECT(PB("-q " ONNX_MODEL ONNX_NODE "test_abs/model.onnx " ONNX_NODE "test_acos/model.onnx"), 1,
         "");
  /* tensors */
  const char *t = "--proto " ONNX_PROTO " -t onnx.TensorProto ";
  EXPECT(PB("%s" ONNX_NODE "test_abs/test_data_set_0/input_0.pb "
            ONNX_NODE "test_abs/test_data_set_0/input_0.pb", t), 0, "");
  /* the ONNX preset reads raw_data as the floats data_type says: Abs made
   * 28 of its 60 negative elements positive */
  EXPECT(PB("%s" ONNX_NODE "test_abs/test_data_set_0/input_0.pb "
            ONNX_NODE "test_abs/test_data_set_0/output_0.pb", t), 1,
         "name: \"x\" -> \"y\"\n"
         "raw_data[5]: -0.9772779 -> 0.9772779\n"
         "raw_data[7]: -0.1513572 -> 0.1513572\n"
         "raw_data[8]: -0.10321885 -> 0.10321885\n"
         "raw_data[17]: -0.20515826 -> 0.20515826\n"
         "raw_data[19]: -0.85409576 -> 0.85409576\n"
         "raw_data: 28 elements differ, 23 not shown; max abs difference 5.10598 at [20], "
         "max rel difference 2 at [5]\n");
  /* --bytes-as none: its bytes, as the encoding has them */
  const Run *r = PB("%s --bytes-as none " ONNX_NODE "test_abs/test_data_set_0/input_0.pb "
                    ONNX_NODE "test_abs/test_data_set_0/output_0.pb", t);
  ck_assert_int_eq(r->rc, 1);
  ck_assert_str_eq(r->err, "");
  ck_assert_msg(strncmp(r->out, "name: \"x\" -> \"y\"\nraw_data: \"", 28) == 0, "[%s]", r->out);
  ck_assert_msg(strstr(r->out, "...\" (240 bytes, xxh3:20bcc4df) -> \"") != NULL, "[%s]", r->out);
  const char *tail = "\" (240 bytes, xxh3:c257f0db)\n";
  ck_assert_msg(strcmp(r->out + strlen(r->out) - strlen(tail), tail) == 0, "[%s]", r->out);
  ck_assert_ptr_eq(strchr(strchr(r->out, '\n') + 1, '\n'), r->out + strlen(r->out) - 1);
  /* large tensors (393 235 and 357 511 bytes): repeated int64 dims by index */
  r = PB("%s" ONNX_NODE "test_maxpool_3d_default/test_data_set_0/input_0.pb "
         ONNX_NODE "test_maxpool_3d_default/test_data_set_0/output_0.pb", t);
  ck_assert_int_eq(r->rc, 1);
  const char *head = "dims[2]: 32 -> 31\ndims[3]: 32 -> 31\ndims[4]: 32 -> 31\n"
                     "name: \"x\" -> \"y\"\nraw_data: \"";
  ck_assert_msg(strncmp(r->out, head, strlen(head)) == 0, "[%.1500s]", r->out);
  ck_assert_msg(strstr(r->out, "...\" (393216 bytes, xxh3:4460ff09) -> \"") != NULL, "[%.1500s]",
                r->out);
  tail = "\" (357492 bytes, xxh3:8c96649b)\n";
  ck_assert_msg(strcmp(r->out + strlen(r->out) - strlen(tail), tail) == 0, "[%.1500s]", r->out);
}
END_TEST

/* A real model decoded to text and encoded again by protoc means the same. */
START_TEST(onnx_reencoded) {
  const char *m = ONNX_NODE "test_averagepool_2d_pads/model.onnx";
  ck_assert_int_eq(tu_sh("cp %s orig.onnx && " PROTOC_ONNX " --decode=onnx.ModelProto < orig.onnx "
                      "> m.txt", m)->rc, 0);
  EXPECT(tu_sh(PROTOC_ONNX " --encode=onnx.ModelProto < m.txt > re.onnx && "
            "\"$P\" " ONNX_MODEL "orig.onnx re.onnx"), 0, "");
  /* other bytes, same meaning: ir_version written last, and the graph in two
   * parts that merge (its name in a second `graph` record) */
  EXPECT(tu_sh("grep -v '^ir_version' m.txt | sed '/^  name: \"test_averagepool_2d_pads\"$/d' | "
            PROTOC_ONNX " --encode=onnx.ModelProto > p1 && "
            "echo 'ir_version: 6 graph { name: \"test_averagepool_2d_pads\" }' | "
            PROTOC_ONNX " --encode=onnx.ModelProto > p2 && cat p1 p2 > split.onnx && "
            "! cmp -s orig.onnx split.onnx && \"$P\" " ONNX_MODEL "orig.onnx split.onnx"), 0, "");
  EXPECT(tu_sh("\"$P\" " ONNX_MODEL "--format json split.onnx orig.onnx"), 0,
         "{\"equal\": true, \"left_name\": \"split.onnx\", \"right_name\": \"orig.onnx\", "
         "\"differences\": []}\n");
  /* edited values in the text form: exact paths */
  EXPECT(tu_sh("awk '/ints: 2/ { if (++n == 3) sub(/ints: 2/, \"ints: 5\") } "
            "/dim_value: 28/ { if (++k == 1) sub(/28/, \"29\") } { print }' m.txt | "
            PROTOC_ONNX " --encode=onnx.ModelProto > e.onnx && "
            "\"$P\" " ONNX_MODEL "orig.onnx e.onnx"), 1,
         "graph.node[0].attribute[1] (onnx.AttributeProto):\n"
         "  ints[2]: 2 -> 5\n"
         "graph.input[0].type.tensor_type.shape.dim[2] (onnx.TensorShapeProto.Dimension):\n"
         "  dim_value: 28 -> 29\n");
}
END_TEST

START_TEST(onnx_reencoded_edit_op_type) {
  const char *m = ONNX_NODE "test_abs/model.onnx";
  EXPECT(tu_sh(PROTOC_ONNX " --decode=onnx.ModelProto < %s | " PROTOC_ONNX
            " --encode=onnx.ModelProto > re.onnx && \"$P\" " ONNX_MODEL "%s re.onnx", m, m), 0, "");
  EXPECT(tu_sh(PROTOC_ONNX " --decode=onnx.ModelProto < %s | sed 's/op_type: \"Abs\"/op_type: \"Neg\"/' | "
            PROTOC_ONNX " --encode=onnx.ModelProto > neg.onnx && \"$P\" " ONNX_MODEL "%s neg.onnx",
            m, m),
         1, "graph.node[0] (onnx.NodeProto):\n  op_type: \"Abs\" -> \"Neg\"\n");
  /* a descriptor set of onnx.proto works the same as --proto */
  EXPECT(tu_sh("protoc --include_imports -I/usr/include -o onnx.desc " ONNX_PROTO " && "
            "\"$P\" -s onnx.desc -t onnx.ModelProto --format json %s neg.onnx", m), 1,
         "{\"equal\": false, \"left_name\": \"" ONNX_NODE "test_abs/model.onnx\", "
         "\"right_name\": \"neg.onnx\", \"differences\": [\n"
         "  {\"path\": \"graph.node[0].op_type\", \"kind\": \"changed\", \"left\": \"Abs\", "
         "\"right\": \"Neg\", \"parent\": \"graph.node[0]\", \"type\": \"onnx.NodeProto\"}\n"
         "]}\n");
}
END_TEST

/* ---- 10. text-format inputs encoded by protoc ------------------------------------------ */

static void encode3(const char *txt, const char *out) {
  const Run *r = tu_sh(ENC3 " < \"$R/testdata/cli/%s\" > %s", txt, out);
  ck_assert_msg(r->rc == 0, "protoc --encode %s: %s", txt, r->err);
}

START_TEST(textformat_reordered_equal) {
  encode3("m_full.txtpb", "a.pb");
  encode3("m_full_reordered.txtpb", "b.pb");
  /* the bytes differ (map entries in another order) */
  ck_assert_int_eq(tu_sh("cmp -s a.pb b.pb")->rc, 1);
  EXPECT(PB(S3 "a.pb b.pb"), 0, "");
  EXPECT(PB(S3 "b.pb a.pb"), 0, "");
  EXPECT(PB("--format json " S3 "a.pb b.pb"), 0, "{\"equal\": true, \"left_name\": \"a.pb\", \"right_name\": \"b.pb\", \"differences\": []}\n");
}
END_TEST

START_TEST(textformat_changed_paths) {
  encode3("m_full.txtpb", "a.pb");
  encode3("m_full_reordered.txtpb", "b.pb");
  encode3("m_full_changed.txtpb", "c.pb");
  const char *want =
      "rm[1] (sem3.Inner):\n"
      "  s: \"two\" -> \"deux\"\n"
      "ms[\"b\"]: 2 -> 20\n"
      "mi[3] (sem3.Inner):\n"
      "  s: \"three\" -> \"trois\"\n"
      "any.[type.googleapis.com/sem3.Inner] (sem3.Inner):\n"
      "  a: 5 -> 6\n";
  EXPECT(PB(S3 "a.pb c.pb"), 1, want);
  EXPECT(PB(S3 "b.pb c.pb"), 1, want);
  encode3("m_full_oneof.txtpb", "d.pb");
  EXPECT(PB(S3 "b.pb d.pb"), 1,
         "ri[1]: 2 -> 5\n"
         "ms[\"a\"]: removed 1\n"
         "ms[\"c\"]: added 3\n"
         "c1: added 4\n"
         "c2: removed \"chosen\"\n");
  EXPECT(PB("--format json " S3 "a.pb c.pb"), 1,
         "{\"equal\": false, \"left_name\": \"a.pb\", \"right_name\": \"c.pb\", \"differences\": [\n"
         "  {\"path\": \"rm[1].s\", \"kind\": \"changed\", \"left\": \"two\", \"right\": \"deux\", "
         "\"parent\": \"rm[1]\", \"type\": \"sem3.Inner\"},\n"
         "  {\"path\": \"ms[\\\"b\\\"]\", \"kind\": \"changed\", \"left\": 2, \"right\": 20, "
         "\"parent\": \"\", \"type\": \"sem3.M\"},\n"
         "  {\"path\": \"mi[3].s\", \"kind\": \"changed\", \"left\": \"three\", \"right\": \"trois\", "
         "\"parent\": \"mi[3]\", \"type\": \"sem3.Inner\"},\n"
         "  {\"path\": \"any.[type.googleapis.com/sem3.Inner].a\", \"kind\": \"changed\", "
         "\"left\": 5, \"right\": 6, \"parent\": \"any.[type.googleapis.com/sem3.Inner]\", "
         "\"type\": \"sem3.Inner\"}\n"
         "]}\n");
}
END_TEST

/* ---- 11. RIGHT parsed with LEFT's elements shared ------------------------------ */

/* RIGHT may share LEFT's parsed repeated elements when their bytes are
 * equal (elements of 48 bytes and more); what RIGHT means, and its errors,
 * must not depend on LEFT. */
#define X50 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

START_TEST(shared_elements) {
  const char *rm3 = "rm { a: 1 s: \"" X50 "\" r: [1, 2] }\nrm { a: 2 s: \"" X50 "%s\" }\n"
                    "rm { a: 3 s: \"" X50 "\" }\n";
  ck_assert_int_eq(tu_sh("printf '%s' '' | " ENC3 " > big1.pb", rm3)->rc, 0);
  ck_assert_int_eq(tu_sh("printf '%s' 'y' | " ENC3 " > big2.pb", rm3)->rc, 0);
  EXPECT(PB(S3 "big1.pb big2.pb"), 1, "rm[1] (sem3.Inner):\n  s: \"" X50 "\" -> \"" X50 "y\"\n");
  EXPECT(PB(S3 "big2.pb big1.pb"), 1, "rm[1] (sem3.Inner):\n  s: \"" X50 "y\" -> \"" X50 "\"\n");
  EXPECT(PB(S3 "big1.pb big1.pb"), 0, "");
  /* RIGHT = LEFT's bytes and a cut varint: RIGHT's own error and offset */
  ck_assert_int_eq(tu_sh("cp big1.pb big3.pb && printf '\\010' >> big3.pb")->rc, 0);
  EXPECT_ERROR(PB(S3 "big1.pb big3.pb"), "big3.pb: truncated varint (field 1) at byte 173");
  /* the same element bytes deeper in RIGHT (inside an Any): RIGHT reads
   * them as it would alone, under its own depth */
  ck_assert_int_eq(tu_sh("echo 'rm { a: 1 s: \"" X50 "\" child { child { } } }' | " ENC3
                      " > shallow.pb && echo 'any { [type.googleapis.com/sem3.M] "
                      "{ rm { a: 1 s: \"" X50 "\" child { child { } } } } }' | " ENC3
                      " > deep.pb && : > empty.pb")->rc, 0);
  for (int depth = 3; depth <= 6; depth++) {
    const Run *r = PB("--max-depth %d " S3 "empty.pb deep.pb", depth);
    int alone_rc = r->rc;
    char *alone = strdup(r->out);
    r = PB("--max-depth %d " S3 "shallow.pb deep.pb", depth);
    ck_assert_int_eq(r->rc, alone_rc);
    const char *removed = "rm[0]: removed { a: 1 s: \"" X50 "\" child { child { } } }\n";
    ck_assert_msg(strncmp(r->out, removed, strlen(removed)) == 0 &&
                      strcmp(r->out + strlen(removed), alone) == 0,
                  "--max-depth %d:\n[%s]\nalone:\n[%s]", depth, r->out, alone);
    free(alone);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cli");
  TCase *t = tcase_create("cli");
  tcase_set_timeout(t, 60);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, text_value_syntax);
  tcase_add_test(t, json_output);
  tcase_add_test(t, schema_descriptor_sets);
  tcase_add_test(t, schema_errors);
  tcase_add_test(t, stdin_operand);
  tcase_add_test(t, option_max_depth);
  tcase_add_test(t, option_help_version);
  tcase_add_test(t, output_write_error);
  tcase_add_test(t, output_write_error_help);
  tcase_add_test(t, malformed_wire);
  tcase_add_test(t, malformed_utf8_and_depth);
  tcase_add_test(t, malformed_files);
  tcase_add_test(t, onnx_models);
  tcase_add_test(t, onnx_reencoded);
  tcase_add_test(t, onnx_reencoded_edit_op_type);
  tcase_add_test(t, textformat_reordered_equal);
  tcase_add_test(t, textformat_changed_paths);
  tcase_add_test(t, shared_elements);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
