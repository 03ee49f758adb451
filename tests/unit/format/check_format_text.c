/* pbdiff tests — the text format writer of lib/format/format.c
 * (pbd_Format_TextValue): scalars, floats, strings and bytes, cut values,
 * messages, maps and Any.  Values, messages and defs are built by hand
 * (tu_values.h). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "pbdiff/format/format.h"
#include "testutil.h"
#include "tu_values.h"

/* ---- text format: scalars ------------------------------------------------- */

START_TEST(test_text_scalars) {
  CHECK_TEXT(mk_u(kPbd_Value_None, 0, NULL), "");
  CHECK_TEXT(mk_i(kPbd_Value_Int, -5, &fd_i32), "-5");
  CHECK_TEXT(mk_i(kPbd_Value_Int, INT64_MIN, &fd_i64), "-9223372036854775808");
  CHECK_TEXT(mk_u(kPbd_Value_UInt, UINT64_MAX, &fd_u64), "18446744073709551615");
  CHECK_TEXT(mk_u(kPbd_Value_UInt, 7, &fd_u32), "7");
  CHECK_TEXT(mk_u(kPbd_Value_Bool, 1, NULL), "true");
  CHECK_TEXT(mk_u(kPbd_Value_Bool, 0, NULL), "false");
  CHECK_TEXT(mk_u(kPbd_Value_Varint, UINT64_MAX, NULL), "18446744073709551615");
  CHECK_TEXT(mk_u(kPbd_Value_Fixed32, 0x1ffffffffULL, NULL), "4294967295");
  CHECK_TEXT(mk_u(kPbd_Value_Fixed64, 0x100000000ULL, NULL), "4294967296");
  CHECK_TEXT(mk_i(kPbd_Value_Enum, 1, &fd_color), "GREEN");
  CHECK_TEXT(mk_i(kPbd_Value_Enum, -1, &fd_color), "MINUS");
  CHECK_TEXT(mk_i(kPbd_Value_Enum, 7, &fd_color), "7");
  CHECK_TEXT(mk_i(kPbd_Value_Enum, 3, NULL), "3");
}
END_TEST

START_TEST(test_text_floats) {
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(0.1f), NULL), "0.1");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(1e20f), NULL), "1e+20");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(16777216.0f), NULL), "16777216");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(3.4028235e38f), NULL), "3.4028235e+38");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(-0.0f), NULL), "-0");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(0.0f), NULL), "0");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(NAN), NULL), "nan");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(INFINITY), NULL), "inf");
  CHECK_TEXT(mk_u(kPbd_Value_Float, fbits(-INFINITY), NULL), "-inf");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(0.1), NULL), "0.1");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(0.1 + 0.2), NULL), "0.30000000000000004");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(1e20), NULL), "1e+20");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(-0.0), NULL), "-0");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(-1.5), NULL), "-1.5");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(NAN), NULL), "nan");
  CHECK_TEXT(mk_u(kPbd_Value_Double, dbits(-INFINITY), NULL), "-inf");
  /* A float's bits live in the low 32 bits only. */
  CHECK_TEXT(mk_u(kPbd_Value_Float, 0xdead00000000ULL | fbits(2.5f), NULL), "2.5");
}
END_TEST

START_TEST(test_text_strings) {
  CHECK_TEXT(S(""), "\"\"");
  CHECK_TEXT(S("a\"b\\c\n\r\t"), "\"a\\\"b\\\\c\\n\\r\\t\"");
  CHECK_TEXT(S("\x01\x1f\x7f"), "\"\\001\\037\\177\"");
  /* Valid multibyte kept: é (2 bytes), € (3), U+1F600 (4). */
  CHECK_TEXT(S("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  /* Invalid: stray byte, overlong, surrogate, > U+10FFFF, truncated sequence. */
  CHECK_TEXT(S("\xff"), "\"\\377\"");
  CHECK_TEXT(S("\xc0\xaf"), "\"\\300\\257\"");
  CHECK_TEXT(S("\xe0\x80\xaf"), "\"\\340\\200\\257\"");
  CHECK_TEXT(S("\xed\xa0\x80"), "\"\\355\\240\\200\"");
  CHECK_TEXT(S("\xf4\x90\x80\x80"), "\"\\364\\220\\200\\200\"");
  CHECK_TEXT(S("a\xc3"), "\"a\\303\"");
  CHECK_TEXT(S("\xe2\x82z"), "\"\\342\\202z\"");
  /* An embedded NUL. */
  CHECK_TEXT(S("a\0b"), "\"a\\000b\"");
}
END_TEST

START_TEST(test_text_bytes) {
  CHECK_TEXT(B(""), "\"\"");
  CHECK_TEXT(B("ab \"\\"), "\"ab \\\"\\\\\"");
  CHECK_TEXT(B("\0\x01\xff\x7f"), "\"\\000\\001\\377\\177\"");
  /* Bytes never keep UTF-8. */
  CHECK_TEXT(B("\xc3\xa9"), "\"\\303\\251\"");
  CHECK_TEXT(mk_s(kPbd_Value_Len, "z\x80", 2), "\"z\\200\"");
}
END_TEST

START_TEST(test_text_truncation) {
  char big[1000];
  memset(big, 'a', sizeof big);
  CHECK_TEXT_OPT(mk_s(kPbd_Value_String, big, sizeof big), 8, false, 0,
                 "\"aaaaaaaa...\" (1000 bytes)");
  CHECK_TEXT_OPT(mk_s(kPbd_Value_Bytes, big, sizeof big), 8, false, 0,
                 "\"aaaaaaaa...\" (1000 bytes)");
  /* Exactly at the limit: not cut. */
  CHECK_TEXT_OPT(S("abc"), 3, false, 0, "\"abc\"");
  CHECK_TEXT_OPT(S("abcd"), 3, false, 0, "\"abc...\" (4 bytes)");
  /* Escapes are whole. */
  CHECK_TEXT_OPT(B("\x01\x02\x03\x04\x05"), 2, false, 0, "\"\\001\\002...\" (5 bytes)");
  CHECK_TEXT_OPT(S("\"\"\"\""), 3, false, 0, "\"\\\"\\\"\\\"...\" (4 bytes)");
  /* A UTF-8 character straddling the limit is left out whole. */
  CHECK_TEXT_OPT(S("a\xc3\xa9xx"), 2, false, 0, "\"a...\" (5 bytes)");
  CHECK_TEXT_OPT(S("a\xc3\xa9xx"), 3, false, 0, "\"a\xc3\xa9...\" (5 bytes)");
  /* Limit applies inside messages too. */
  static pbd_StrView long_name[] = {{"abcdefghij", 10}};
  pbd_Field f = {.number = 1, .kind = kPbd_Value_String, .def = &fd_name, .count = 1,
                 .v.strs = long_name};
  pbd_Message m = {.fields_ = &f, .field_count_ = 1};
  CHECK_TEXT_OPT(mk_m(kPbd_Value_Message, &m), 4, false, 0, "{ name: \"abcd...\" (10 bytes) }");
}
END_TEST

/* Report options: a cut value notes a hash of the whole value. */
START_TEST(test_text_cut_hash) {
  char big[1000];
  memset(big, 'a', sizeof big);
  uint64_t h = XXH3_64bits(big, sizeof big);
  char want[128];
  snprintf(want, sizeof want, "\"aaaaaaaa...\" (1000 bytes, xxh3:%08x)", (unsigned)(h >> 32));
  pbd_TextOptions o = {.max_bytes = 8, .cut_hash = true};
  pbd_Buf b = {0};
  pbd_Value v = mk_s(kPbd_Value_String, big, sizeof big);
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), want);
  pbd_Buf_Free(&b);
  /* bytes too, and the hash is of the whole value, not the shown part */
  big[999] = 'b';
  h = XXH3_64bits(big, sizeof big);
  snprintf(want, sizeof want, "\"aaaaaaaa...\" (1000 bytes, xxh3:%08x)", (unsigned)(h >> 32));
  v = mk_s(kPbd_Value_Bytes, big, sizeof big);
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), want);
  pbd_Buf_Free(&b);
  /* a fixed value: 8 lowercase hex digits, the high half of XXH3_64bits */
  v = S("0123456789");
  o.max_bytes = 4;
  pbd_Format_TextValue(&b, &v, &o);
  h = XXH3_64bits("0123456789", 10);
  snprintf(want, sizeof want, "\"0123...\" (10 bytes, xxh3:%08x)", (unsigned)(h >> 32));
  ck_assert_str_eq(take(&b), want);
  ck_assert_uint_eq(strlen(strstr(b.data, "xxh3:") + 5), 9); /* 8 digits and ')' */
  pbd_Buf_Free(&b);
  /* not cut: no note */
  o.max_bytes = 10;
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "\"0123456789\"");
  pbd_Buf_Free(&b);
}
END_TEST

/* Report options: long one-line message values are cut with "...", never
 * inside an escape or a UTF-8 character. */
START_TEST(test_text_max_message) {
  pbd_TextOptions o = {.max_message = 10};
  pbd_Buf b = {0};
  pbd_Value v = mk_m(kPbd_Value_Message, &main_msg);
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "{ name: \"x...");
  pbd_Buf_Free(&b);
  o.max_message = 200; /* long enough: whole */
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b),
                   "{ name: \"x\" ids: 1 ids: 2 sub_msg { a: 1 } 5: 3 5 { 1: 7 } [t.ext]: 9 }");
  pbd_Buf_Free(&b);
  /* exactly at the limit: whole */
  o.max_message = 8;
  v = mk_m(kPbd_Value_Message, &sub_msg);
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "{ a: 1 }");
  pbd_Buf_Free(&b);
  o.max_message = 7;
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "{ a: 1 ...");
  pbd_Buf_Free(&b);
  /* escapes and UTF-8 characters stay whole */
  static pbd_StrView esc[] = {{"\x01\x02\"\xc3\xa9", 5}};
  pbd_Field f = {.number = 1, .kind = kPbd_Value_String, .def = &fd_name, .count = 1,
                 .v.strs = esc};
  pbd_Message m = {.fields_ = &f, .field_count_ = 1};
  v = mk_m(kPbd_Value_Message, &m);
  /* full: { name: "\001\002\"é" } */
  static const struct {
    size_t max;
    const char *want;
  } cases[] = {
      {9, "{ name: \"..."},           {10, "{ name: \"..."},
      {12, "{ name: \"..."},          {13, "{ name: \"\\001..."},
      {16, "{ name: \"\\001..."},      {17, "{ name: \"\\001\\002..."},
      {18, "{ name: \"\\001\\002..."}, {19, "{ name: \"\\001\\002\\\"..."},
      {20, "{ name: \"\\001\\002\\\"..."}, {21, "{ name: \"\\001\\002\\\"\xc3\xa9..."},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    o.max_message = cases[i].max;
    pbd_Format_TextValue(&b, &v, &o);
    ck_assert_msg(strcmp(take(&b), cases[i].want) == 0, "max %zu: [%s] want [%s]", cases[i].max,
                  b.data, cases[i].want);
    pbd_Buf_Free(&b);
  }
  /* scalars are never cut this way, nor multiline messages */
  o.max_message = 2;
  v = S("abcdef");
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "\"abcdef\"");
  pbd_Buf_Free(&b);
  o.multiline = true;
  v = mk_m(kPbd_Value_Message, &sub_msg);
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "{\n  a: 1\n}");
  pbd_Buf_Free(&b);
  /* appended after what the buffer held */
  o = (pbd_TextOptions){.max_message = 4};
  pbd_Buf_AppendStr(&b, "x: ");
  pbd_Format_TextValue(&b, &v, &o);
  ck_assert_str_eq(take(&b), "x: { a:...");
  pbd_Buf_Free(&b);
}
END_TEST

/* ---- text format: messages ------------------------------------------------ */

START_TEST(test_text_messages) {
  CHECK_TEXT(mk_m(kPbd_Value_Message, NULL), "{ }");
  pbd_Message empty = {0};
  CHECK_TEXT(mk_m(kPbd_Value_Message, &empty), "{ }");
  CHECK_TEXT_OPT(mk_m(kPbd_Value_Message, &empty), 0, true, 0, "{ }");
  CHECK_TEXT(mk_m(kPbd_Value_Message, &sub_msg), "{ a: 1 }");
  CHECK_TEXT(mk_m(kPbd_Value_LenMessage, &unk_sub), "{ 1: 7 }");
  CHECK_TEXT(mk_m(kPbd_Value_Group, &unk_sub), "{ 1: 7 }");
  CHECK_TEXT(mk_m(kPbd_Value_Message, &main_msg),
             "{ name: \"x\" ids: 1 ids: 2 sub_msg { a: 1 } 5: 3 5 { 1: 7 } [t.ext]: 9 }");

  pbd_Buf b = {0};
  pbd_TextOptions one = {0};
  pbd_Format_TextMessage(&b, &main_msg, &one);
  ck_assert_str_eq(b.data, "name: \"x\" ids: 1 ids: 2 sub_msg { a: 1 } 5: 3 5 { 1: 7 } [t.ext]: 9");
  pbd_Buf_Free(&b);

  pbd_TextOptions ml = {.multiline = true};
  pbd_Format_TextMessage(&b, &main_msg, &ml);
  ck_assert_str_eq(b.data,
                   "name: \"x\"\n"
                   "ids: 1\n"
                   "ids: 2\n"
                   "sub_msg {\n"
                   "  a: 1\n"
                   "}\n"
                   "5: 3\n"
                   "5 {\n"
                   "  1: 7\n"
                   "}\n"
                   "[t.ext]: 9\n");
  pbd_Buf_Free(&b);

  pbd_TextOptions ml1 = {.multiline = true, .indent = 1};
  pbd_Format_TextMessage(&b, &sub_msg, &ml1);
  ck_assert_str_eq(b.data, "  a: 1\n");
  pbd_Buf_Free(&b);

  /* An empty message writes nothing. */
  pbd_Format_TextMessage(&b, &empty, &ml);
  ck_assert_ptr_null(b.data);
  pbd_Format_TextMessage(&b, NULL, &ml);
  ck_assert_ptr_null(b.data);

  /* A message value, multiline, nested. */
  pbd_Message *outer_subs[] = {&main_msg};
  pbd_Field of = {.number = 3, .kind = kPbd_Value_Message, .def = &fd_sub, .count = 1,
                  .v.msgs = outer_subs};
  pbd_Message outer = {.fields_ = &of, .field_count_ = 1};
  CHECK_TEXT_OPT(mk_m(kPbd_Value_Message, &outer), 0, true, 0,
                 "{\n"
                 "  sub_msg {\n"
                 "    name: \"x\"\n"
                 "    ids: 1\n"
                 "    ids: 2\n"
                 "    sub_msg {\n"
                 "      a: 1\n"
                 "    }\n"
                 "    5: 3\n"
                 "    5 {\n"
                 "      1: 7\n"
                 "    }\n"
                 "    [t.ext]: 9\n"
                 "  }\n"
                 "}");
  CHECK_TEXT_OPT(mk_m(kPbd_Value_Message, &sub_msg), 0, true, 2, "{\n      a: 1\n    }");
  CHECK_TEXT(mk_m(kPbd_Value_Message, &outer),
             "{ sub_msg { name: \"x\" ids: 1 ids: 2 sub_msg { a: 1 } 5: 3 5 { 1: 7 } "
             "[t.ext]: 9 } }");
}
END_TEST

START_TEST(test_text_maps_and_any) {
  CHECK_TEXT(mk_m(kPbd_Value_Message, &map_msg),
             "{ labels { key: \"a\" value: 1 } labels { key: \"b\\\"\" value: 2 } "
             "counts { key: -5 value: 10 } }");
  CHECK_TEXT(mk_m(kPbd_Value_Message, &any_msg), "{ [type.googleapis.com/t.Sub] { a: 1 } }");
  CHECK_TEXT_OPT(mk_m(kPbd_Value_Message, &any_msg), 0, true, 0,
                 "{\n  [type.googleapis.com/t.Sub] {\n    a: 1\n  }\n}");
  pbd_Buf b = {0};
  pbd_TextOptions one = {0};
  pbd_Format_TextMessage(&b, &any_msg, &one);
  ck_assert_str_eq(b.data, "[type.googleapis.com/t.Sub] { a: 1 }");
  pbd_Buf_Free(&b);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("format_text");
  TCase *tc;
  tc = tcase_create("text");
  tcase_add_test(tc, test_text_scalars);
  tcase_add_test(tc, test_text_floats);
  tcase_add_test(tc, test_text_strings);
  tcase_add_test(tc, test_text_bytes);
  tcase_add_test(tc, test_text_truncation);
  tcase_add_test(tc, test_text_messages);
  tcase_add_test(tc, test_text_maps_and_any);
  tcase_add_test(tc, test_text_cut_hash);
  tcase_add_test(tc, test_text_max_message);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
