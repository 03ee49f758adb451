/* Protobuf JSON input (lib/inputs/jsonpb.c): errors, each with its exact
 * code, message, path and byte offset (unknown keys, numbers and integer
 * ranges, base64, enums, duplicates, oneofs, syntax, UTF-8, depth,
 * well-known types, Any).  Round trips: check_jsonpb_roundtrip.c. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbdiff/format/format.h"
#include "pbdiff/inputs/jsonpb.h"
#include "testutil.h"
#include "pbdiff/tree/tree.h"
#include "tu_jsonpb.h"

/* ------------------------------------------------------------------ */
/* Errors */

/* Converting `json` as type tname fails with exactly this code, message,
 * path and byte offset, and leaves the output buffer as it was. */
static void expect_error_n(const char *tname, const char *json, size_t n, pbd_StatusCode code,
                           const char *msg, const char *path, size_t offset) {
  const pbd_MessageDef *t = tu_jsonpb_type(tname);
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "keep");
  pbd_Status s;
  bool ok = pbd_JsonPb_ToBinary(tu_jsonpb_pool(), t, json, n, &out, &s);
  ck_assert_msg(!ok, "%s: accepted", json);
  ck_assert_msg(s.code == code, "%s: code %s, expected %s (%s)", json,
                pbd_StatusCode_String(s.code), pbd_StatusCode_String(code), s.msg);
  ck_assert_msg(strcmp(s.msg, msg) == 0, "%s:\n got      '%s'\n expected '%s'", json, s.msg, msg);
  ck_assert_msg(strcmp(s.path, path) == 0, "%s: path '%s', expected '%s'", json, s.path, path);
  ck_assert(s.has_offset);
  ck_assert_msg(s.offset == offset, "%s: offset %zu, expected %zu", json, s.offset, offset);
  ck_assert_uint_eq(out.len, 4);
  ck_assert_str_eq(out.data, "keep");
  pbd_Buf_Free(&out);
}

static void expect_error(const char *tname, const char *json, pbd_StatusCode code, const char *msg,
                         const char *path, size_t offset) {
  expect_error_n(tname, json, strlen(json), code, msg, path, offset);
}

#define MAL kPbd_Status_Malformed

START_TEST(error_unknown_key) {
  expect_error("sem3.M", "{\n  \"i32\": 1,\n  \"nope\": 2\n}", kPbd_Status_UnknownField,
               "line 3, column 3: unknown field \"nope\" in sem3.M", "", 16);
  expect_error("sem3.M", "{\"inner\": {\"child\": {\"zz\": 1}}}", kPbd_Status_UnknownField,
               "line 1, column 22: unknown field \"zz\" in sem3.Inner", "inner.child", 21);
  /* Columns count characters: the two-byte ü is one column. */
  expect_error("sem3.M", "{\"str\": \"\xc3\xbc\", \"x\": 1}", kPbd_Status_UnknownField,
               "line 1, column 14: unknown field \"x\" in sem3.M", "", 14);
  /* Keys are matched after unescaping; field names are case-sensitive. */
  expect_error("sem3.M", "{\"I32\": 1}", kPbd_Status_UnknownField,
               "line 1, column 2: unknown field \"I32\" in sem3.M", "", 1);
  expect_error("sem2.M", "{\"[sem2.nope]\": 1}", kPbd_Status_UnknownField,
               "line 1, column 2: unknown extension \"[sem2.nope]\" of sem2.M", "", 1);
  /* An extension of another message. */
  expect_error("sem2.Inner", "{\"[sem2.ext_i]\": 1}", kPbd_Status_UnknownField,
               "line 1, column 2: unknown extension \"[sem2.ext_i]\" of sem2.Inner", "", 1);
  /* "@type" is a key only in an Any. */
  expect_error("sem3.M", "{\"@type\": \"x\"}", kPbd_Status_UnknownField,
               "line 1, column 2: unknown field \"@type\" in sem3.M", "", 1);
  /* A group is named by its field name, not its type name. */
  expect_error("sem2.M", "{\"G\": {}}", kPbd_Status_UnknownField,
               "line 1, column 2: unknown field \"G\" in sem2.M", "", 1);
}
END_TEST

START_TEST(error_numbers) {
  expect_error("sem3.M", "{\"i32\": \"12a\"}", MAL, "line 1, column 9: invalid int32 value \"12a\"",
               "i32", 8);
  expect_error("sem3.M", "{\"i32\": 12a}", MAL, "line 1, column 9: invalid number \"12a\"", "", 8);
  expect_error("sem3.M", "{\"i32\": 01}", MAL, "line 1, column 9: invalid number \"01\"", "", 8);
  expect_error("sem3.M", "{\"d\": .5}", MAL, "line 1, column 7: invalid number \".5\"", "", 6);
  expect_error("sem3.M", "{\"d\": +1}", MAL, "line 1, column 7: invalid number \"+1\"", "", 6);
  expect_error("sem3.M", "{\"d\": 1.}", MAL, "line 1, column 7: invalid number \"1.\"", "", 6);
  expect_error("sem3.M", "{\"d\": NaN}", MAL,
               "line 1, column 7: invalid literal \"NaN\" (strings need quotes)", "", 6);
  expect_error("sem3.M", "{\"i32\": 1.5}", MAL,
               "line 1, column 9: int32 value \"1.5\" is not an integer", "i32", 8);
  expect_error("sem3.M", "{\"i32\": \" 1\"}", MAL, "line 1, column 9: invalid int32 value \" 1\"",
               "i32", 8);
  expect_error("sem3.M", "{\"i32\": \"NaN\"}", MAL, "line 1, column 9: invalid int32 value \"NaN\"",
               "i32", 8);
  expect_error("sem3.M", "{\"i32\": true}", MAL,
               "line 1, column 9: int32 value expected (a number or a string), got a bool", "i32",
               8);
  expect_error("sem3.M", "{\"d\": \"1,5\"}", MAL, "line 1, column 7: invalid double value \"1,5\"",
               "d", 6);
  expect_error("sem3.M", "{\"d\": 1e999}", MAL,
               "line 1, column 7: double value \"1e999\" is out of range", "d", 6);
  expect_error("sem3.M", "{\"f\": 3.5e38}", MAL,
               "line 1, column 7: float value \"3.5e38\" is out of range", "f", 6);
  expect_error("sem3.M", "{\"rf\": [1, -3.4028236e38]}", MAL,
               "line 1, column 12: float value \"-3.4028236e38\" is out of range", "rf[1]", 11);
  expect_error("sem3.M", "{\"b\": \"true\"}", MAL,
               "line 1, column 7: bool value expected (true or false), got a string", "b", 6);
  expect_error("sem3.M", "{\"b\": 1}", MAL,
               "line 1, column 7: bool value expected (true or false), got a number", "b", 6);
  expect_error("sem3.M", "{\"str\": 1}", MAL,
               "line 1, column 9: string value expected, got a number", "str", 8);
}
END_TEST

START_TEST(error_int_range) {
  expect_error("sem3.M", "{\"i64\": \"9223372036854775808\"}", MAL,
               "line 1, column 9: int64 value \"9223372036854775808\" is out of range", "i64", 8);
  expect_error("sem3.M", "{\"i64\": -9223372036854775809}", MAL,
               "line 1, column 9: int64 value \"-9223372036854775809\" is out of range", "i64", 8);
  expect_error("sem3.M", "{\"u64\": \"18446744073709551616\"}", MAL,
               "line 1, column 9: uint64 value \"18446744073709551616\" is out of range", "u64", 8);
  expect_error("sem3.M", "{\"u64\": -1}", MAL,
               "line 1, column 9: uint64 value \"-1\" is out of range", "u64", 8);
  expect_error("sem3.M", "{\"i32\": 2147483648}", MAL,
               "line 1, column 9: int32 value \"2147483648\" is out of range", "i32", 8);
  expect_error("sem3.M", "{\"s32\": -2147483649}", MAL,
               "line 1, column 9: sint32 value \"-2147483649\" is out of range", "s32", 8);
  expect_error("sem3.M", "{\"u32\": 1e10}", MAL,
               "line 1, column 9: uint32 value \"1e10\" is out of range", "u32", 8);
  expect_error("sem3.M", "{\"fx64\": \"1e400\"}", MAL,
               "line 1, column 10: fixed64 value \"1e400\" is out of range", "fx64", 9);
  expect_error("sem3.M", "{\"sfx64\": 1e-400}", MAL,
               "line 1, column 11: sfixed64 value \"1e-400\" is not an integer", "sfx64", 10);
  expect_error("sem3.M",
               "{\"i64\": \"1"
               "0000000000000000000000000000000000000000000000000000000000000000000000000000000000"
               "0000000000000000000000000000000000000000000000000000000000000000000000000000000000"
               "\"}",
               MAL,
               "line 1, column 9: int64 value \"1"
               "0000000000000000000000000000000000000000000000000000000000000000000000000000000000"
               "...\" is out of range",
               "i64", 8);
  /* Map keys are read by the same rules. */
  expect_error("sem3.M", "{\"mi\": {\"2147483648\": {}}}", MAL,
               "line 1, column 9: int32 value \"2147483648\" is out of range", "mi[2147483648]", 8);
}
END_TEST

START_TEST(error_base64) {
  expect_error("sem3.M", "{\"by\": \"AP8Q!A\"}", MAL,
               "line 1, column 8: invalid base64 \"AP8Q!A\" (character \"!\" at position 4)", "by",
               7);
  expect_error("sem3.M", "{\"by\": \"A\"}", MAL,
               "line 1, column 8: invalid base64 \"A\" (bad length or padding)", "by", 7);
  expect_error("sem3.M", "{\"by\": \"AQ=\"}", MAL,
               "line 1, column 8: invalid base64 \"AQ=\" (bad length or padding)", "by", 7);
  expect_error("sem3.M", "{\"by\": \"A=Q=\"}", MAL,
               "line 1, column 8: invalid base64 \"A=Q=\" (character \"=\" at position 1)", "by",
               7);
  expect_error("sem3.M", "{\"by\": \"AQ===\"}", MAL,
               "line 1, column 8: invalid base64 \"AQ===\" (bad length or padding)", "by", 7);
  expect_error("sem3.M", "{\"by\": \"AQ\\nA\"}", MAL,
               "line 1, column 8: invalid base64 \"AQ\\nA\" (character \"\\n\" at position 2)",
               "by", 7);
  expect_error("sem3.M", "{\"by\": [1]}", MAL,
               "line 1, column 8: bytes value expected (a base64 string), got an array", "by", 7);
}
END_TEST

START_TEST(error_enums) {
  expect_error("sem3.M", "{\"color\": \"BLUE\"}", MAL,
               "line 1, column 11: unknown value \"BLUE\" of enum sem3.Color", "color", 10);
  expect_error("sem3.M", "{\"rc\": [\"RED\", \"red\"]}", MAL,
               "line 1, column 16: unknown value \"red\" of enum sem3.Color", "rc[1]", 15);
  /* Names only: a quoted number is not a name. */
  expect_error("sem3.M", "{\"color\": \"1\"}", MAL,
               "line 1, column 11: unknown value \"1\" of enum sem3.Color", "color", 10);
  expect_error("sem3.M", "{\"color\": 1.5}", MAL,
               "line 1, column 11: enum value \"1.5\" is not an integer", "color", 10);
  expect_error("sem3.M", "{\"color\": 2147483648}", MAL,
               "line 1, column 11: enum value \"2147483648\" is out of range", "color", 10);
  expect_error("sem3.M", "{\"color\": true}", MAL,
               "line 1, column 11: enum value expected (a name or a number), got a bool", "color",
               10);
  /* A closed (proto2) enum takes only its own numbers. */
  expect_error("sem2.M", "{\"req\": 1, \"k\": 5}", MAL,
               "line 1, column 17: 5 is not a value of closed enum sem2.Kind", "k", 16);
}
END_TEST

START_TEST(error_duplicates) {
  expect_error("sem3.M", "{\"i32\": 1, \"i32\": 2}", MAL,
               "line 1, column 12: duplicate key \"i32\"", "", 11);
  /* Escapes do not hide a duplicate. */
  expect_error("sem3.M", "{\"inner\": {\"a\": 1, \"\\u0061\": 2}}", MAL,
               "line 1, column 20: duplicate key \"a\"", "", 19);
  /* A large object: the first repeated key in text order is named. */
  char big[2048];
  size_t k = (size_t)snprintf(big, sizeof big, "{\"ms\": {");
  for (int i = 0; i < 40; i++)
    k += (size_t)snprintf(big + k, sizeof big - k, "\"k%d\": %d, ", i, i);
  size_t first_dup = k;
  k += (size_t)snprintf(big + k, sizeof big - k, "\"k30\": 1, \"k5\": 2}}");
  char msg[128];
  snprintf(msg, sizeof msg, "line 1, column %zu: duplicate key \"k30\"", first_dup + 1);
  expect_error("sem3.M", big, MAL, msg, "", first_dup);
  /* One integer map key spelt twice. */
  expect_error("sem3.M", "{\"mi\": {\"10\": {}, \"2\": {}, \"1e1\": {}, \"20e-1\": {}}}", MAL,
               "line 1, column 28: map key \"1e1\" repeats key \"10\"", "mi[1e1]", 27);
  /* One field by both of its names. */
  expect_error("jsonpb_test.W", "{\"snakeCaseField\": 1, \"snake_case_field\": 2}", MAL,
               "line 1, column 23: field snake_case_field given twice (as \"snakeCaseField\" and "
               "as \"snake_case_field\")",
               "", 22);
  expect_error("jsonpb_test.W", "{\"custom\": 1, \"CUSTOM_name\": null}", MAL,
               "line 1, column 15: field custom given twice (as \"custom\" and as "
               "\"CUSTOM_name\")",
               "", 14);
}
END_TEST

START_TEST(error_oneof) {
  expect_error("sem3.M", "{\"c1\": 1, \"c2\": \"x\"}", MAL,
               "line 1, column 11: oneof choice has more than one member set (\"c1\" and \"c2\")",
               "", 10);
  expect_error("sem3.M", "{\"c3\": {}, \"c1\": 0}", MAL,
               "line 1, column 12: oneof choice has more than one member set (\"c3\" and \"c1\")",
               "", 11);
  /* null leaves a member unset, except where null is a value. */
  expect_error("jsonpb_test.W", "{\"pickS\": \"x\", \"pickNull\": null}", MAL,
               "line 1, column 16: oneof pick has more than one member set (\"pickS\" and "
               "\"pickNull\")",
               "", 15);
  pbd_Buf out = {0};
  pbd_Status s;
  ck_assert(pbd_JsonPb_ToBinary(tu_jsonpb_pool(), tu_jsonpb_type("sem3.M"), "{\"c1\": null, \"c2\": \"x\"}", 23,
                                &out, &s));
  ck_assert(pbd_JsonPb_ToBinary(tu_jsonpb_pool(), tu_jsonpb_type("sem3.M"), "{\"c2\": \"x\", \"c1\": null}", 23,
                                &out, &s));
  pbd_Buf_Free(&out);
}
END_TEST

START_TEST(error_syntax) {
  expect_error("sem3.M", "{} x", MAL, "line 1, column 4: unexpected text after the JSON value", "",
               3);
  expect_error("sem3.M", "{}{}", MAL, "line 1, column 3: unexpected text after the JSON value", "",
               2);
  expect_error("sem3.M", "{\"i32\": 1", MAL,
               "line 1, column 10: unexpected end of input, expected ',' or '}'", "", 9);
  expect_error("sem3.M", "{\"str\": \"ab", MAL, "line 1, column 9: unterminated string", "", 8);
  expect_error("sem3.M", "{\"ri\": [1, 2", MAL,
               "line 1, column 13: unexpected end of input, expected ',' or ']'", "", 12);
  expect_error("sem3.M", "{\"ri\": [1, 2,]}", MAL,
               "line 1, column 14: unexpected character ']', expected a value", "", 13);
  expect_error("sem3.M", "{\"i32\": 1,}", MAL,
               "line 1, column 11: unexpected character '}', expected a string key", "", 10);
  expect_error("sem3.M", "{i32: 1}", MAL,
               "line 1, column 2: unexpected character 'i', expected a string key", "", 1);
  expect_error("sem3.M", "{'i32': 1}", MAL,
               "line 1, column 2: unexpected character ''', expected a string key", "", 1);
  expect_error("sem3.M", "{\"i32\" 1}", MAL,
               "line 1, column 8: unexpected character '1', expected ':' after the key", "", 7);
  expect_error("sem3.M", "{\"i32\": 1 /* c */}", MAL,
               "line 1, column 11: unexpected character '/', expected ',' or '}'", "", 10);
  expect_error("sem3.M", "", MAL, "line 1, column 1: no JSON value (empty input)", "", 0);
  expect_error("sem3.M", " \n\t ", MAL, "line 2, column 3: no JSON value (empty input)", "", 4);
  expect_error("sem3.M", "\xef\xbb\xbf{}", MAL,
               "line 1, column 1: unexpected byte 0xef, expected a value", "", 0);
  expect_error_n("sem3.M", "{}\0", 3, MAL, "line 1, column 3: unexpected text after the JSON value",
                 "", 2);
  expect_error("sem3.M", "{\"str\": \"a\tb\"}", MAL,
               "line 1, column 11: control character U+0009 in string (write it escaped)", "", 10);
  expect_error("sem3.M", "{\"str\": \"\\x41\"}", MAL,
               "line 1, column 10: invalid escape \"\\\\x\" in string", "", 9);
  expect_error("sem3.M", "{\"str\": \"\\u12G4\"}", MAL,
               "line 1, column 10: invalid \\u escape (four hex digits expected)", "", 9);
  expect_error("sem3.M", "{\"b\": tru}", MAL,
               "line 1, column 7: invalid literal \"tru\" (strings need quotes)", "", 6);
  expect_error("sem3.M", "{\"b\": nulls}", MAL,
               "line 1, column 7: invalid literal \"nulls\" (strings need quotes)", "", 6);
  /* The root of a message is an object. */
  expect_error("sem3.M", "[]", MAL, "line 1, column 1: sem3.M expects an object, got an array", "",
               0);
  expect_error("sem3.M", "null", MAL, "line 1, column 1: sem3.M expects an object, got null", "",
               0);
  expect_error("sem3.M", "{\"inner\": 5}", MAL,
               "line 1, column 11: sem3.Inner expects an object, got a number", "inner", 10);
  expect_error("sem3.M", "{\"ri\": 5}", MAL,
               "line 1, column 8: repeated field expects an array, got a number", "ri", 7);
  expect_error("sem3.M", "{\"ri\": [1, null]}", MAL,
               "line 1, column 12: null is not allowed in a repeated field", "ri[1]", 11);
  expect_error("sem3.M", "{\"rm\": [{}, null]}", MAL,
               "line 1, column 13: null is not allowed in a repeated field", "rm[1]", 12);
  expect_error("sem3.M", "{\"ms\": [1]}", MAL,
               "line 1, column 8: map field expects an object, got an array", "ms", 7);
  expect_error("sem3.M", "{\"ms\": {\"a\": null}}", MAL,
               "line 1, column 14: null is not allowed as a map value", "ms[\"a\"]", 13);
}
END_TEST

START_TEST(error_utf8) {
  expect_error("sem3.M", "{\"str\": \"\xff\"}", kPbd_Status_BadUtf8,
               "line 1, column 10: invalid UTF-8 in string", "", 9);
  expect_error("sem3.M", "{\"str\": \"ok \xc0\xaf\"}", kPbd_Status_BadUtf8,
               "line 1, column 13: invalid UTF-8 in string", "", 12);
  expect_error("sem3.M", "{\"str\": \"\xed\xa0\x80\"}", kPbd_Status_BadUtf8,
               "line 1, column 10: invalid UTF-8 in string", "", 9);
  expect_error("sem3.M", "{\"s\xe2\x82\": 1}", kPbd_Status_BadUtf8,
               "line 1, column 4: invalid UTF-8 in string", "", 3);
  expect_error("sem3.M", "{\"str\": \"\\ud800\"}", kPbd_Status_BadUtf8,
               "line 1, column 10: unpaired UTF-16 surrogate \\uD800 in string", "", 9);
  expect_error("sem3.M", "{\"str\": \"\\udc00\\ud800\"}", kPbd_Status_BadUtf8,
               "line 1, column 10: unpaired UTF-16 surrogate \\uDC00 in string", "", 9);
  expect_error("sem3.M", "{\"str\": \"\\ud800\\u0041\"}", kPbd_Status_BadUtf8,
               "line 1, column 10: unpaired UTF-16 surrogate \\uD800 in string", "", 9);
  expect_error("sem3.M", "{\"str\": \xff}", MAL,
               "line 1, column 9: unexpected byte 0xff, expected a value", "", 8);
}
END_TEST

/* Message levels under the root: --max-depth of them read, one more fails,
 * at the default (100) and at the largest limit (1000) alike, exactly where
 * the binary readers draw the line (issue 22: JSON was held at 100 levels
 * whatever --max-depth said). */
static void nested_inner(pbd_Buf *j, int levels) { /* objects, the root included */
  pbd_Buf_AppendStr(j, "{\"inner\": ");
  for (int i = 2; i < levels; i++) pbd_Buf_AppendStr(j, "{\"child\": ");
  pbd_Buf_AppendStr(j, "{}");
  for (int i = 1; i < levels; i++) pbd_Buf_AppendChar(j, '}');
}

static bool tree_reads(const pbd_MessageDef *m, const pbd_Buf *bin, int max_depth) {
  pbd_ReadOptions o = tu_jsonpb_tree_opts(tu_jsonpb_pool());
  o.max_depth = max_depth;
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  bool ok = pbd_Tree_Parse(m, (const uint8_t *)bin->data, 0, bin->len, &o, arena, &s) != NULL;
  pbd_Arena_Free(arena);
  return ok;
}

START_TEST(error_depth) {
  const pbd_MessageDef *m = tu_jsonpb_type("sem3.M");
  static const int kLimits[] = {100, 1000};
  for (int k = 0; k < 2; k++) {
    int max = kLimits[k];
    for (int extra = 0; extra <= 1; extra++) {
      int levels = max + 1 + extra;
      pbd_Buf j = {0}, out = {0};
      nested_inner(&j, levels);
      pbd_Status s;
      bool ok = max == 100 ? pbd_JsonPb_ToBinary(tu_jsonpb_pool(), m, j.data, j.len, &out, &s)
                           : pbd_JsonPb_ToBinaryDepth(tu_jsonpb_pool(), m, j.data, j.len, max,
                                                      &out, &s);
      if (extra == 0) {
        ck_assert_msg(ok, "%d: %s", max, s.msg);
        ck_assert_msg(tree_reads(m, &out, max), "the tree reader refuses %d levels", max);
      } else {
        ck_assert(!ok);
        ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
        char want[96];
        size_t off = strlen("{\"inner\": ") + (size_t)(levels - 2) * strlen("{\"child\": ");
        snprintf(want, sizeof want, "line 1, column %zu: nesting deeper than %d (--max-depth)",
                 off + 1, max);
        ck_assert_str_eq(s.msg, want);
        ck_assert_uint_eq(s.offset, off);
        /* the same message in binary, read with one level more, is refused
         * by the tree reader at this limit too */
        if (max < kPbd_MaxDepthLimit) {
          pbd_Buf_Truncate(&out, 0);
          ck_assert(pbd_JsonPb_ToBinaryDepth(tu_jsonpb_pool(), m, j.data, j.len, max + 1, &out, &s));
          ck_assert(!tree_reads(m, &out, max));
        }
      }
      pbd_Buf_Free(&out);
      pbd_Buf_Free(&j);
    }
  }
  /* JSON text nested past what any message within the limit takes (two
   * JSON levels per message level, plus the root) stops while reading */
  pbd_Buf j = {0};
  pbd_Buf_AppendStr(&j, "{\"val\": ");
  for (int i = 0; i < 200000; i++) pbd_Buf_AppendChar(&j, '[');
  pbd_Buf out = {0};
  pbd_Status s;
  ck_assert(!pbd_JsonPb_ToBinary(tu_jsonpb_pool(), tu_jsonpb_type("jsonpb_test.W"), j.data, j.len, &out, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  ck_assert_str_eq(s.msg, "line 1, column 209: JSON nesting deeper than 201 levels, more than "
                          "--max-depth 100 message levels can take");
  /* a Value's lists are message levels: Value, ListValue, Value, ... */
  pbd_Buf_Truncate(&j, 0);
  pbd_Buf_AppendStr(&j, "{\"val\": ");
  for (int i = 0; i < 60; i++) pbd_Buf_AppendChar(&j, '[');
  for (int i = 0; i < 60; i++) pbd_Buf_AppendChar(&j, ']');
  pbd_Buf_AppendChar(&j, '}');
  ck_assert(!pbd_JsonPb_ToBinary(tu_jsonpb_pool(), tu_jsonpb_type("jsonpb_test.W"), j.data, j.len, &out, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  ck_assert(pbd_JsonPb_ToBinaryDepth(tu_jsonpb_pool(), tu_jsonpb_type("jsonpb_test.W"), j.data,
                                     j.len, 200, &out, &s));
  pbd_Buf_Free(&out);
  pbd_Buf_Free(&j);
}
END_TEST

START_TEST(error_wkt) {
  const char *W = "jsonpb_test.W";
  expect_error(W, "{\"ts\": \"2023-02-29T00:00:00Z\"}", MAL,
               "line 1, column 8: invalid timestamp \"2023-02-29T00:00:00Z\" (RFC 3339 expected, "
               "as \"1972-01-01T10:00:20.021Z\")",
               "ts", 7);
  expect_error(W, "{\"ts\": \"2023-01-01 00:00:00Z\"}", MAL,
               "line 1, column 8: invalid timestamp \"2023-01-01 00:00:00Z\" (RFC 3339 expected, "
               "as \"1972-01-01T10:00:20.021Z\")",
               "ts", 7);
  expect_error(W, "{\"ts\": \"2023-01-01T00:00:00.1234567890Z\"}", MAL,
               "line 1, column 8: invalid timestamp \"2023-01-01T00:00:00.1234567890Z\" (RFC "
               "3339 expected, as \"1972-01-01T10:00:20.021Z\")",
               "ts", 7);
  expect_error(W, "{\"ts\": \"2023-01-01T00:00:00\"}", MAL,
               "line 1, column 8: invalid timestamp \"2023-01-01T00:00:00\" (RFC 3339 expected, "
               "as \"1972-01-01T10:00:20.021Z\")",
               "ts", 7);
  expect_error(W, "{\"ts\": \"0001-01-01T00:00:00+00:01\"}", MAL,
               "line 1, column 8: timestamp \"0001-01-01T00:00:00+00:01\" is out of range "
               "(0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)",
               "ts", 7);
  expect_error(W, "{\"ts\": 0}", MAL,
               "line 1, column 8: google.protobuf.Timestamp expects a string, got a number", "ts",
               7);
  expect_error(W, "{\"rts\": [\"1970-01-01T00:00:00Z\", {}]}", MAL,
               "line 1, column 34: google.protobuf.Timestamp expects a string, got an object",
               "rts[1]", 33);
  expect_error(W, "{\"dur\": \"1.5\"}", MAL,
               "line 1, column 9: invalid duration \"1.5\" (seconds with the suffix s expected, "
               "as \"1.5s\")",
               "dur", 8);
  expect_error(W, "{\"dur\": \"1.0000000001s\"}", MAL,
               "line 1, column 9: invalid duration \"1.0000000001s\" (seconds with the suffix s "
               "expected, as \"1.5s\")",
               "dur", 8);
  expect_error(W, "{\"dur\": \"+1s\"}", MAL,
               "line 1, column 9: invalid duration \"+1s\" (seconds with the suffix s expected, "
               "as \"1.5s\")",
               "dur", 8);
  expect_error(W, "{\"dur\": \"315576000001s\"}", MAL,
               "line 1, column 9: duration \"315576000001s\" is out of range (at most "
               "315576000000s either way)",
               "dur", 8);
  expect_error(W, "{\"fm\": \"a,foo_bar\"}", MAL,
               "line 1, column 8: field mask path \"foo_bar\" contains '_' (JSON paths are "
               "lowerCamelCase)",
               "fm", 7);
  expect_error(W, "{\"fm\": \"a,,b\"}", MAL, "line 1, column 8: empty path in field mask \"a,,b\"",
               "fm", 7);
  expect_error(W, "{\"st\": [1]}", MAL,
               "line 1, column 8: google.protobuf.Struct expects an object, got an array", "st", 7);
  expect_error(W, "{\"lv\": {}}", MAL,
               "line 1, column 8: google.protobuf.ListValue expects an array, got an object", "lv",
               7);
  expect_error(W, "{\"st\": {\"a\": {\"b\": [1, 1e999]}}}", MAL,
               "line 1, column 24: number value \"1e999\" is out of range",
               "st.fields[\"a\"].struct_value.fields[\"b\"].list_value.values[1]", 23);
  expect_error(W, "{\"i32v\": \"x\"}", MAL, "line 1, column 10: invalid int32 value \"x\"", "i32v",
               9);
  expect_error(W, "{\"bv\": \"true\"}", MAL,
               "line 1, column 8: bool value expected (true or false), got a string", "bv", 7);
  expect_error(W, "{\"rwrap\": [1, null]}", MAL,
               "line 1, column 15: null is not allowed in a repeated field", "rwrap[1]", 14);
  expect_error(W, "null", MAL, "line 1, column 1: jsonpb_test.W expects an object, got null", "",
               0);
  /* Map keys. */
  expect_error("sem3.M", "{\"mb\": {\"yes\": \"x\"}}", MAL,
               "line 1, column 9: map key \"yes\" is not a bool (\"true\" or \"false\")", "mb[yes]",
               8);
  expect_error("sem3.M", "{\"mi\": {\"x\": {}}}", MAL,
               "line 1, column 9: invalid int32 value \"x\"", "mi[x]", 8);
  expect_error("sem3.M", "{\"mi\": {\"1\": {\"a\": true}}}", MAL,
               "line 1, column 20: int32 value expected (a number or a string), got a bool",
               "mi[1].a", 19);
  expect_error("sem3.M", "{\"rm\": [{}, {\"a\": \"x\"}]}", MAL,
               "line 1, column 19: invalid int32 value \"x\"", "rm[1].a", 18);
  expect_error(W, "{\"mu32\": {\"-1\": true}}", MAL,
               "line 1, column 11: uint32 value \"-1\" is out of range", "mu32[-1]", 10);
}
END_TEST

START_TEST(error_any) {
  const char *W = "jsonpb_test.W";
  expect_error(W, "{\"any\": {\"a\": 1}}", MAL,
               "line 1, column 9: google.protobuf.Any needs an \"@type\" member naming its type",
               "any", 8);
  expect_error(W, "{\"any\": {\"@type\": \"type.googleapis.com/no.Such\"}}", MAL,
               "line 1, column 19: type \"no.Such\" of the Any is not in the schema", "any", 18);
  expect_error(W, "{\"any\": {\"@type\": \"sem3.Inner\"}}", MAL,
               "line 1, column 19: invalid type URL \"sem3.Inner\" (expected "
               "\"type.googleapis.com/full.type.Name\")",
               "any", 18);
  expect_error(W, "{\"any\": {\"@type\": 5}}", MAL,
               "line 1, column 19: \"@type\" expects a string, got a number", "any", 18);
  expect_error(W, "{\"any\": {\"@type\": \"type.googleapis.com/sem3.Inner\", \"b\": 1}}",
               kPbd_Status_UnknownField, "line 1, column 53: unknown field \"b\" in sem3.Inner",
               "any[type.googleapis.com/sem3.Inner]", 52);
  expect_error(W, "{\"any\": {\"@type\": \"type.googleapis.com/sem3.Inner\", \"a\": \"x\"}}", MAL,
               "line 1, column 58: invalid int32 value \"x\"",
               "any[type.googleapis.com/sem3.Inner].a", 57);
  expect_error(W,
               "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Duration\", "
               "\"seconds\": 1}}",
               kPbd_Status_UnknownField,
               "line 1, column 67: unknown key \"seconds\" in an Any holding "
               "google.protobuf.Duration (only \"@type\" and \"value\")",
               "any", 66);
  expect_error(W, "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Duration\"}}", MAL,
               "line 1, column 9: an Any holding google.protobuf.Duration needs a \"value\" "
               "member",
               "any", 8);
  expect_error(
      W,
      "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Int64Value\", "
      "\"value\": null}}",
      MAL, "line 1, column 78: google.protobuf.Int64Value expects a value of type int64, got null",
      "any[type.googleapis.com/google.protobuf.Int64Value]", 77);
  expect_error(W, "{\"any\": []}", MAL,
               "line 1, column 9: google.protobuf.Any expects an object, got an array", "any", 8);
  /* Without a tu_jsonpb_pool() no type resolves. */
  pbd_Buf out = {0};
  pbd_Status s;
  const char *j = "{\"any\": {\"@type\": \"type.googleapis.com/sem3.Inner\"}}";
  ck_assert(!pbd_JsonPb_ToBinary(NULL, tu_jsonpb_type("sem3.M"), j, strlen(j), &out, &s));
  ck_assert_str_eq(s.msg, "line 1, column 19: type \"sem3.Inner\" of the Any is not in the schema");
  ck_assert(pbd_JsonPb_ToBinary(NULL, tu_jsonpb_type("sem3.M"), "{\"i32\": 1}", 10, &out, &s));
  ck_assert_uint_eq(out.len, 2);
  pbd_Buf_Free(&out);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("jsonpb_errors");
  TCase *t = tcase_create("jsonpb_errors");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, error_unknown_key);
  tcase_add_test(t, error_numbers);
  tcase_add_test(t, error_int_range);
  tcase_add_test(t, error_base64);
  tcase_add_test(t, error_enums);
  tcase_add_test(t, error_duplicates);
  tcase_add_test(t, error_oneof);
  tcase_add_test(t, error_syntax);
  tcase_add_test(t, error_utf8);
  tcase_add_test(t, error_depth);
  tcase_add_test(t, error_wkt);
  tcase_add_test(t, error_any);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
