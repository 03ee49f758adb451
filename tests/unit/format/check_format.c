/* pbdiff tests — lib/format/format.c (text format and JSON writers) and the CLI
 * reporters (cli/report.c).  Values, messages and defs are built by hand. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "format/format.h"
#include "testutil.h"

#include "report.h" /* linked from build/cli/report.o (see Makefile) */

/* ---- helpers -------------------------------------------------------------- */

static pbd_Value mk_u(pbd_ValueKind k, uint64_t u, const pbd_FieldDef *f) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.kind = k;
  v.field = f;
  v.u = u;
  return v;
}

static pbd_Value mk_i(pbd_ValueKind k, int64_t i, const pbd_FieldDef *f) {
  pbd_Value v = mk_u(k, 0, f);
  v.i = i;
  return v;
}

static pbd_Value mk_s(pbd_ValueKind k, const char *data, size_t n) {
  pbd_Value v = mk_u(k, 0, NULL);
  v.s.data = data;
  v.s.size = n;
  return v;
}

static pbd_Value mk_m(pbd_ValueKind k, const pbd_Message *m) {
  pbd_Value v = mk_u(k, 0, NULL);
  v.m = m;
  return v;
}

static uint64_t fbits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static char *take(pbd_Buf *b) {
  ck_assert(!b->oom);
  return b->data ? b->data : strdup("");
}

static char *text_of(const pbd_Value *v, size_t max_bytes, bool multiline, int indent) {
  pbd_Buf b = {0};
  pbd_TextOptions o = {.max_bytes = max_bytes, .multiline = multiline, .indent = indent};
  pbd_Format_TextValue(&b, v, &o);
  return take(&b);
}

static char *json_of(const pbd_Value *v) {
  pbd_Buf b = {0};
  pbd_Format_JsonValue(&b, v);
  return take(&b);
}

#define CHECK_TEXT_OPT(v, max, ml, ind, expected) \
  do {                                            \
    pbd_Value v_ = (v);                           \
    char *s_ = text_of(&v_, max, ml, ind);        \
    ck_assert_str_eq(s_, expected);               \
    free(s_);                                     \
  } while (0)
#define CHECK_TEXT(v, expected) CHECK_TEXT_OPT(v, 0, false, 0, expected)
#define CHECK_JSON(v, expected)  \
  do {                           \
    pbd_Value v_ = (v);          \
    char *s_ = json_of(&v_);     \
    ck_assert_str_eq(s_, expected); \
    free(s_);                    \
  } while (0)

#define S(lit) mk_s(kPbd_Value_String, lit, sizeof(lit) - 1)
#define B(lit) mk_s(kPbd_Value_Bytes, lit, sizeof(lit) - 1)

/* ---- schema fixtures ------------------------------------------------------ */

static pbd_FieldDef fd_i32 = {.name = "i32", .json_name = "i32", .number = 1, .type = kPbd_Type_Int32};
static pbd_FieldDef fd_i64 = {.name = "i64", .json_name = "i64", .number = 2, .type = kPbd_Type_Int64};
static pbd_FieldDef fd_u32 = {.name = "u32", .json_name = "u32", .number = 3, .type = kPbd_Type_UInt32};
static pbd_FieldDef fd_u64 = {.name = "u64", .json_name = "u64", .number = 4, .type = kPbd_Type_UInt64};
static pbd_FieldDef fd_s64 = {.name = "s64", .json_name = "s64", .number = 5, .type = kPbd_Type_SInt64};
static pbd_FieldDef fd_f64 = {.name = "f64", .json_name = "f64", .number = 6, .type = kPbd_Type_Fixed64};
static pbd_FieldDef fd_sf64 = {.name = "sf64", .json_name = "sf64", .number = 7, .type = kPbd_Type_SFixed64};
static pbd_FieldDef fd_f32 = {.name = "f32", .json_name = "f32", .number = 8, .type = kPbd_Type_Fixed32};

static const pbd_EnumValueDef color_values[] = {{"RED", 0}, {"GREEN", 1}, {"MINUS", -1}};
static const pbd_EnumValueDef *color_by_number[] = {&color_values[2], &color_values[0],
                                                    &color_values[1]};
static pbd_EnumDef color_enum = {.full_name = "t.Color", .values = color_values,
                                 .value_count = 3, .by_number = color_by_number};
static pbd_FieldDef fd_color = {.name = "color", .json_name = "color", .number = 9,
                                .type = kPbd_Type_Enum, .enum_type = &color_enum};

/* t.Sub { int32 a = 1; } holding a: 1 */
static pbd_FieldDef fd_a = {.name = "a", .json_name = "a", .number = 1, .type = kPbd_Type_Int32};
static uint64_t sub_a_vals[] = {1};
static pbd_Field sub_fields[] = {
    {.number = 1, .kind = kPbd_Value_Int, .def = &fd_a, .count = 1, .v.scalars = sub_a_vals}};
static pbd_Message sub_msg = {.fields_ = sub_fields, .field_count_ = 1};

/* An unknown sub-message { 1: 7 } */
static pbd_UnknownValue unk_sub_vals[] = {{.kind = kPbd_Value_Varint, .u = 7}};
static pbd_Field unk_sub_fields[] = {{.number = 1, .count = 1, .v.unknowns = unk_sub_vals}};
static pbd_Message unk_sub = {.fields_ = unk_sub_fields, .field_count_ = 1};

/* The main fixture:
 *   string name = 1; repeated int32 ids = 2; t.Sub sub_msg = 3;
 *   unknown 5 (varint 3, then a LEN message); extension t.ext = 100 (int32). */
static pbd_FieldDef fd_name = {.name = "name", .json_name = "name", .number = 1,
                               .type = kPbd_Type_String};
static pbd_FieldDef fd_ids = {.name = "ids", .json_name = "ids", .number = 2,
                              .label = kPbd_Label_Repeated, .type = kPbd_Type_Int32,
                              .is_repeated = true};
static pbd_FieldDef fd_sub = {.name = "sub_msg", .json_name = "subMsg", .number = 3,
                              .type = kPbd_Type_Message, .has_presence = true};
static pbd_FieldDef fd_ext = {.name = "ext", .full_name = "t.ext", .json_name = "ext",
                              .number = 100, .type = kPbd_Type_Int32, .is_extension = true};
static pbd_StrView main_names[] = {{"x", 1}};
static uint64_t main_ids[] = {1, 2};
static pbd_Message *main_subs[] = {&sub_msg};
static pbd_UnknownValue main_unk5[] = {{.kind = kPbd_Value_Varint, .u = 3},
                                       {.kind = kPbd_Value_LenMessage, .m = &unk_sub}};
static uint64_t main_ext[] = {9};
static pbd_Field main_fields[] = {
    {.number = 1, .kind = kPbd_Value_String, .def = &fd_name, .count = 1, .v.strs = main_names},
    {.number = 2, .kind = kPbd_Value_Int, .def = &fd_ids, .count = 2, .v.scalars = main_ids},
    {.number = 3, .kind = kPbd_Value_Message, .def = &fd_sub, .count = 1, .v.msgs = main_subs},
    {.number = 5, .count = 2, .v.unknowns = main_unk5},
    {.number = 100, .kind = kPbd_Value_Int, .def = &fd_ext, .count = 1, .v.scalars = main_ext},
};
static pbd_Message main_msg = {.fields_ = main_fields, .field_count_ = 5};

/* map<string, int32> labels = 1; map<int64, int64> counts = 2; */
static pbd_FieldDef fd_key = {.name = "key", .json_name = "key", .number = 1,
                              .type = kPbd_Type_String};
static pbd_FieldDef fd_value = {.name = "value", .json_name = "value", .number = 2,
                                .type = kPbd_Type_Int32};
static const pbd_FieldDef *entry_fields[] = {&fd_key, &fd_value};
static pbd_MessageDef labels_entry = {.full_name = "t.M.LabelsEntry", .fields = entry_fields,
                                      .field_count = 2, .is_map_entry = true};
static pbd_FieldDef fd_labels = {.name = "labels", .json_name = "labels", .number = 1,
                                 .label = kPbd_Label_Repeated, .type = kPbd_Type_Message,
                                 .message_type = &labels_entry, .is_repeated = true,
                                 .is_map = true};
static pbd_StrView e1_key[] = {{"a", 1}}, e2_key[] = {{"b\"", 2}};
static uint64_t e1_val[] = {1}, e2_val[] = {2};
static pbd_Field e1_fields[] = {
    {.number = 1, .kind = kPbd_Value_String, .def = &fd_key, .count = 1, .v.strs = e1_key},
    {.number = 2, .kind = kPbd_Value_Int, .def = &fd_value, .count = 1, .v.scalars = e1_val}};
static pbd_Field e2_fields[] = {
    {.number = 1, .kind = kPbd_Value_String, .def = &fd_key, .count = 1, .v.strs = e2_key},
    {.number = 2, .kind = kPbd_Value_Int, .def = &fd_value, .count = 1, .v.scalars = e2_val}};
static pbd_Message e1 = {.def = &labels_entry, .fields_ = e1_fields, .field_count_ = 2};
static pbd_Message e2 = {.def = &labels_entry, .fields_ = e2_fields, .field_count_ = 2};
static pbd_Message *labels_entries[] = {&e1, &e2};

static pbd_FieldDef fd_ckey = {.name = "key", .json_name = "key", .number = 1,
                               .type = kPbd_Type_Int64};
static pbd_FieldDef fd_cvalue = {.name = "value", .json_name = "value", .number = 2,
                                 .type = kPbd_Type_Int64};
static const pbd_FieldDef *centry_fields[] = {&fd_ckey, &fd_cvalue};
static pbd_MessageDef counts_entry = {.full_name = "t.M.CountsEntry", .fields = centry_fields,
                                      .field_count = 2, .is_map_entry = true};
static pbd_FieldDef fd_counts = {.name = "counts", .json_name = "counts", .number = 2,
                                 .label = kPbd_Label_Repeated, .type = kPbd_Type_Message,
                                 .message_type = &counts_entry, .is_repeated = true,
                                 .is_map = true};
static uint64_t c1_key[] = {(uint64_t)-5}, c1_val[] = {10};
static pbd_Field c1_fields[] = {
    {.number = 1, .kind = kPbd_Value_Int, .def = &fd_ckey, .count = 1, .v.scalars = c1_key},
    {.number = 2, .kind = kPbd_Value_Int, .def = &fd_cvalue, .count = 1, .v.scalars = c1_val}};
static pbd_Message c1 = {.def = &counts_entry, .fields_ = c1_fields, .field_count_ = 2};
static pbd_Message *counts_entries[] = {&c1};

static pbd_Field map_fields[] = {
    {.number = 1, .kind = kPbd_Value_Message, .def = &fd_labels, .count = 2,
     .v.msgs = labels_entries},
    {.number = 2, .kind = kPbd_Value_Message, .def = &fd_counts, .count = 1,
     .v.msgs = counts_entries}};
static pbd_Message map_msg = {.fields_ = map_fields, .field_count_ = 2};

/* An Any whose payload resolved to t.Sub { a: 1 }. */
static pbd_FieldDef fd_type_url = {.name = "type_url", .json_name = "typeUrl", .number = 1,
                                   .type = kPbd_Type_String};
static pbd_StrView any_url[] = {{"type.googleapis.com/t.Sub", 25}};
static pbd_Field any_fields[] = {
    {.number = 1, .kind = kPbd_Value_String, .def = &fd_type_url, .count = 1, .v.strs = any_url}};
static pbd_Message any_msg = {.any_payload_ = &sub_msg, .fields_ = any_fields, .field_count_ = 1};

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

/* ---- reporters ------------------------------------------------------------ */

/* Feeds a fixed list of edits to a reporter and returns what it wrote. */
static char *run_reporter(pbd_ReportFormat fmt, const pbd_Edit *edits, size_t n, bool equal) {
  return tu_report(fmt, NULL, edits, n, equal);
}

static pbd_Value none_value(void) { return mk_u(kPbd_Value_None, 0, NULL); }

/* Builds the edit list shared by the text and JSON reporter tests.  The
 * paths live in a buffer that is overwritten after each edit would be
 * delivered, as the diff engine's are. */
static size_t sample_edits(pbd_Edit *e, char big[200]) {
  memset(big, 'z', 200);
  size_t n = 0;
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, "a.b", 0, NULL, mk_i(kPbd_Value_Int, 1, &fd_i64),
                      mk_i(kPbd_Value_Int, 2, &fd_i64)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Added, "c[0]", 0, NULL, none_value(), S("x\"y")
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Removed, "labels[\"k\"]", 0, NULL, mk_m(kPbd_Value_Message, &sub_msg),
                      none_value()
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Presence, "opt", 0, NULL, none_value(), mk_i(kPbd_Value_Int, 0, &fd_i32)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Presence, "flag", 0, NULL, mk_u(kPbd_Value_Bool, 0, NULL), none_value()
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, "", 0, NULL, mk_m(kPbd_Value_Message, &sub_msg),
                      mk_m(kPbd_Value_Message, NULL)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, "data", 0, NULL, mk_s(kPbd_Value_Bytes, big, 200), B("\x01")
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, "f", 0, NULL, mk_u(kPbd_Value_Float, fbits(NAN), NULL),
                      mk_u(kPbd_Value_Float, fbits(0.1f), NULL)
                      , -1, -1};
  return n;
}

START_TEST(test_report_text) {
  pbd_Edit e[8];
  char big[200];
  size_t n = sample_edits(e, big);
  char *text = run_reporter(kPbd_Report_Text, e, n, false);
  ck_assert_str_eq(text,
                   "a.b: 1 -> 2\n"
                   "c[0]: added \"x\\\"y\"\n"
                   "labels[\"k\"]: removed { a: 1 }\n"
                   "opt: unset -> set to 0\n"
                   "flag: set to false -> unset\n"
                   ".: { a: 1 } -> { }\n"
                   "data: \"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...\" "
                   "(200 bytes, xxh3:adac0421) -> \"\\001\"\n"
                   "f: nan -> 0.1\n");
  free(text);

  /* No edits: nothing at all. */
  text = run_reporter(kPbd_Report_Text, NULL, 0, true);
  ck_assert_str_eq(text, "");
  free(text);
}
END_TEST

START_TEST(test_report_text_streams) {
  /* Each line is written when its edit arrives. */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Text, out, NULL);
  pbd_Edit e = {kPbd_Edit_Added, "x", 0, NULL, none_value(), mk_i(kPbd_Value_Int, 3, &fd_i32), -1, -1};
  ck_assert_int_eq(pbd_Reporter_Edit(r, &e), 0);
  fflush(out);
  ck_assert_str_eq(text, "x: added 3\n");
  ck_assert(pbd_Reporter_Finish(r, false));
  pbd_Reporter_Free(r);
  fclose(out);
  free(text);
}
END_TEST

START_TEST(test_report_json) {
  pbd_Edit e[8];
  char big[200];
  size_t n = sample_edits(e, big);
  char path[8] = "p";
  e[0].path = path;
  /* The reporter must copy what it keeps: feed the edits one by one and
   * scribble over the path and the bytes after each. */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Json, out, NULL);
  ck_assert_ptr_nonnull(r);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(pbd_Reporter_Edit(r, &e[i]), 0);
  strcpy(path, "gone");
  memset(big, 'q', 200);
  ck_assert(pbd_Reporter_Finish(r, false));
  pbd_Reporter_Free(r);
  fclose(out);

  char b64[300];
  strcpy(b64, "");
  /* 200 'z' bytes: 66 groups "enp6" and "eno=" for the last 2 bytes. */
  for (int i = 0; i < 66; i++) strcat(b64, "enp6");
  strcat(b64, "eno=");
  char expected[4096];
  snprintf(expected, sizeof expected,
           "{\"equal\": false, \"differences\": [\n"
           "  {\"path\": \"p\", \"kind\": \"changed\", \"left\": \"1\", \"right\": \"2\", "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"c[0]\", \"kind\": \"added\", \"right\": \"x\\\"y\", "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"labels[\\\"k\\\"]\", \"kind\": \"removed\", \"left\": {\"a\": 1}, "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"opt\", \"kind\": \"presence\", \"right\": 0, "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"flag\", \"kind\": \"presence\", \"left\": false, "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"\", \"kind\": \"changed\", \"left\": {\"a\": 1}, \"right\": {}, "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"data\", \"kind\": \"changed\", \"left\": \"%s\", \"right\": \"AQ==\", "
           "\"parent\": \"\", \"type\": null},\n"
           "  {\"path\": \"f\", \"kind\": \"changed\", \"left\": \"NaN\", \"right\": 0.1, "
           "\"parent\": \"\", \"type\": null}\n"
           "]}\n",
           b64);
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

START_TEST(test_report_json_empty) {
  char *text = run_reporter(kPbd_Report_Json, NULL, 0, true);
  ck_assert_str_eq(text, "{\"equal\": true, \"differences\": []}\n");
  free(text);
  text = run_reporter(kPbd_Report_Json, NULL, 0, false);
  ck_assert_str_eq(text, "{\"equal\": false, \"differences\": []}\n");
  free(text);
}
END_TEST

START_TEST(test_report_write_error) {
  /* A stream opened read-only cannot be written: Finish reports failure. */
  FILE *in = fopen("/dev/null", "r");
  ck_assert_ptr_nonnull(in);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Json, in, NULL);
  ck_assert(!pbd_Reporter_Finish(r, true));
  pbd_Reporter_Free(r);
  fclose(in);
}
END_TEST

static Suite *format_suite(void) {
  Suite *s = suite_create("format");
  TCase *tc = tcase_create("text");
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
  tc = tcase_create("json");
  tcase_add_test(tc, test_json_ints);
  tcase_add_test(tc, test_json_floats);
  tcase_add_test(tc, test_json_strings_bytes);
  tcase_add_test(tc, test_json_string_escaping);
  tcase_add_test(tc, test_json_messages);
  suite_add_tcase(s, tc);
  tc = tcase_create("report");
  tcase_add_test(tc, test_report_text);
  tcase_add_test(tc, test_report_text_streams);
  tcase_add_test(tc, test_report_json);
  tcase_add_test(tc, test_report_json_empty);
  tcase_add_test(tc, test_report_write_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_main(format_suite());
}
