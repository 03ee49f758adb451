/* pbdiff tests — the JSON value writer of lib/format/format.c
 * (pbd_Format_JsonValue): integers, floats, strings and bytes, escaping,
 * messages, maps and Any.  Values, messages and defs are built by hand
 * (tu_values.h). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "testutil.h"
#include "tu_values.h"

/* ---- JSON ----------------------------------------------------------------- */

START_TEST(test_json_ints) {
  CHECK_JSON(mk_u(kPbd_Value_None, 0, NULL), "null");
  CHECK_JSON(mk_i(kPbd_Value_Int, -5, &fd_i32), "-5");
  CHECK_JSON(mk_i(kPbd_Value_Int, -5, &fd_i64), "\"-5\"");
  CHECK_JSON(mk_i(kPbd_Value_Int, INT64_MIN, &fd_s64), "\"-9223372036854775808\"");
  CHECK_JSON(mk_i(kPbd_Value_Int, -1, &fd_sf64), "\"-1\"");
  CHECK_JSON(mk_u(kPbd_Value_UInt, 4294967295u, &fd_u32), "4294967295");
  CHECK_JSON(mk_u(kPbd_Value_UInt, 4294967295u, &fd_f32), "4294967295");
  CHECK_JSON(mk_u(kPbd_Value_UInt, UINT64_MAX, &fd_u64), "\"18446744073709551615\"");
  CHECK_JSON(mk_u(kPbd_Value_UInt, 1, &fd_f64), "\"1\"");
  CHECK_JSON(mk_u(kPbd_Value_Varint, 3, NULL), "\"3\"");
  CHECK_JSON(mk_u(kPbd_Value_Fixed64, 3, NULL), "\"3\"");
  CHECK_JSON(mk_u(kPbd_Value_Fixed32, 0x1ffffffffULL, NULL), "4294967295");
  CHECK_JSON(mk_u(kPbd_Value_Bool, 1, NULL), "true");
  CHECK_JSON(mk_u(kPbd_Value_Bool, 0, NULL), "false");
  CHECK_JSON(mk_i(kPbd_Value_Enum, 1, &fd_color), "\"GREEN\"");
  CHECK_JSON(mk_i(kPbd_Value_Enum, 7, &fd_color), "7");
  CHECK_JSON(mk_i(kPbd_Value_Enum, -2, NULL), "-2");
}
END_TEST

START_TEST(test_json_floats) {
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(0.1f), NULL), "0.1");
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(1e20f), NULL), "1e+20");
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(-0.0f), NULL), "-0");
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(NAN), NULL), "\"NaN\"");
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(INFINITY), NULL), "\"Infinity\"");
  CHECK_JSON(mk_u(kPbd_Value_Float, fbits(-INFINITY), NULL), "\"-Infinity\"");
  CHECK_JSON(mk_u(kPbd_Value_Double, dbits(0.1), NULL), "0.1");
  CHECK_JSON(mk_u(kPbd_Value_Double, dbits(-0.0), NULL), "-0");
  CHECK_JSON(mk_u(kPbd_Value_Double, dbits(1e-7), NULL), "1e-07");
  CHECK_JSON(mk_u(kPbd_Value_Double, dbits(NAN), NULL), "\"NaN\"");
  CHECK_JSON(mk_u(kPbd_Value_Double, dbits(INFINITY), NULL), "\"Infinity\"");
}
END_TEST

START_TEST(test_json_strings_bytes) {
  CHECK_JSON(S("h\xc3\xa9\"\n"), "\"h\xc3\xa9\\\"\\n\"");
  CHECK_JSON(S("\xff"), "\"\\u00ff\"");
  CHECK_JSON(B(""), "\"\"");
  CHECK_JSON(B("f"), "\"Zg==\"");
  CHECK_JSON(B("fo"), "\"Zm8=\"");
  CHECK_JSON(B("foo"), "\"Zm9v\"");
  CHECK_JSON(B("foob"), "\"Zm9vYg==\"");
  CHECK_JSON(B("\xff\xfe\xfd"), "\"//79\"");
  CHECK_JSON(B("\0"), "\"AA==\"");
  CHECK_JSON(mk_s(kPbd_Value_Len, "fooba", 5), "\"Zm9vYmE=\"");
}
END_TEST

START_TEST(test_json_string_escaping) {
  pbd_Buf b = {0};
  const char in[] = "a\"\\/\n\t\r\b\f\x01\x1f\x7f \xc3\xa9 \xf0\x9f\x98\x80 \xff\xed\xa0\x80\xc3";
  pbd_Format_JsonString(&b, in, sizeof in - 1);
  ck_assert_str_eq(b.data,
                   "\"a\\\"\\\\/\\n\\t\\r\\b\\f\\u0001\\u001f\x7f \xc3\xa9 \xf0\x9f\x98\x80 "
                   "\\u00ff\\u00ed\\u00a0\\u0080\\u00c3\"");
  pbd_Buf_Free(&b);
  pbd_Format_JsonString(&b, "", 0);
  ck_assert_str_eq(b.data, "\"\"");
  pbd_Buf_Free(&b);
  pbd_Format_JsonString(&b, "a\0b", 3);
  ck_assert_str_eq(b.data, "\"a\\u0000b\"");
  pbd_Buf_Free(&b);
}
END_TEST

START_TEST(test_json_messages) {
  CHECK_JSON(mk_m(kPbd_Value_Message, NULL), "{}");
  pbd_Message empty = {0};
  CHECK_JSON(mk_m(kPbd_Value_Message, &empty), "{}");
  CHECK_JSON(mk_m(kPbd_Value_Message, &sub_msg), "{\"a\": 1}");
  CHECK_JSON(mk_m(kPbd_Value_LenMessage, &unk_sub), "{\"1\": \"7\"}");
  CHECK_JSON(mk_m(kPbd_Value_Group, &unk_sub), "{\"1\": \"7\"}");
  CHECK_JSON(mk_m(kPbd_Value_Message, &main_msg),
             "{\"name\": \"x\", \"ids\": [1, 2], \"subMsg\": {\"a\": 1}, "
             "\"5\": [\"3\", {\"1\": \"7\"}], \"[t.ext]\": 9}");
  CHECK_JSON(mk_m(kPbd_Value_Message, &map_msg),
             "{\"labels\": {\"a\": 1, \"b\\\"\": 2}, \"counts\": {\"-5\": \"10\"}}");
  CHECK_JSON(mk_m(kPbd_Value_Message, &any_msg),
             "{\"@type\": \"type.googleapis.com/t.Sub\", \"a\": 1}");

  /* A repeated field with one element is still an array. */
  static uint64_t one_id[] = {4};
  pbd_Field f = {.number = 2, .kind = kPbd_Value_Int, .def = &fd_ids, .count = 1,
                 .v.scalars = one_id};
  pbd_Message m = {.fields_ = &f, .field_count_ = 1};
  CHECK_JSON(mk_m(kPbd_Value_Message, &m), "{\"ids\": [4]}");

  /* Bool map keys. */
  static pbd_FieldDef bkey = {.name = "key", .json_name = "key", .number = 1,
                              .type = kPbd_Type_Bool};
  static const pbd_FieldDef *bentry_fields[] = {&bkey, &fd_value};
  static pbd_MessageDef bentry = {.full_name = "t.M.FlagsEntry", .fields = bentry_fields,
                                  .field_count = 2, .is_map_entry = true};
  static pbd_FieldDef fd_flags = {.name = "flags", .json_name = "flags", .number = 3,
                                  .label = kPbd_Label_Repeated, .type = kPbd_Type_Message,
                                  .message_type = &bentry, .is_repeated = true, .is_map = true};
  static uint64_t k0[] = {0}, k1[] = {1}, v0[] = {5}, v1[] = {6};
  pbd_Field ef0[] = {
      {.number = 1, .kind = kPbd_Value_Bool, .def = &bkey, .count = 1, .v.scalars = k0},
      {.number = 2, .kind = kPbd_Value_Int, .def = &fd_value, .count = 1, .v.scalars = v0}};
  pbd_Field ef1[] = {
      {.number = 1, .kind = kPbd_Value_Bool, .def = &bkey, .count = 1, .v.scalars = k1},
      {.number = 2, .kind = kPbd_Value_Int, .def = &fd_value, .count = 1, .v.scalars = v1}};
  pbd_Message be0 = {.def = &bentry, .fields_ = ef0, .field_count_ = 2};
  pbd_Message be1 = {.def = &bentry, .fields_ = ef1, .field_count_ = 2};
  pbd_Message *bentries[] = {&be0, &be1};
  pbd_Field ff = {.number = 3, .kind = kPbd_Value_Message, .def = &fd_flags, .count = 2,
                  .v.msgs = bentries};
  pbd_Message fm = {.fields_ = &ff, .field_count_ = 1};
  CHECK_JSON(mk_m(kPbd_Value_Message, &fm), "{\"flags\": {\"false\": 5, \"true\": 6}}");
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("format_json");
  TCase *tc;
  tc = tcase_create("json");
  tcase_add_test(tc, test_json_ints);
  tcase_add_test(tc, test_json_floats);
  tcase_add_test(tc, test_json_strings_bytes);
  tcase_add_test(tc, test_json_string_escaping);
  tcase_add_test(tc, test_json_messages);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
