/* pbdiff tests — hand-made values, defs and messages shared by the suites of
 * the text and JSON writers (tests/unit/format) and of the reporters
 * (tests/cli/check_report*.c, check_reporters.c): see tu_values.h. */
#include "tu_values.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

pbd_Value mk_u(pbd_ValueKind k, uint64_t u, const pbd_FieldDef *f) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.kind = k;
  v.field = f;
  v.u = u;
  return v;
}

pbd_Value mk_i(pbd_ValueKind k, int64_t i, const pbd_FieldDef *f) {
  pbd_Value v = mk_u(k, 0, f);
  v.i = i;
  return v;
}

pbd_Value mk_s(pbd_ValueKind k, const char *data, size_t n) {
  pbd_Value v = mk_u(k, 0, NULL);
  v.s.data = data;
  v.s.size = n;
  return v;
}

pbd_Value mk_m(pbd_ValueKind k, const pbd_Message *m) {
  pbd_Value v = mk_u(k, 0, NULL);
  v.m = m;
  return v;
}

uint64_t fbits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

char *take(pbd_Buf *b) {
  ck_assert(!b->oom);
  return b->data ? b->data : strdup("");
}

char *text_of(const pbd_Value *v, size_t max_bytes, bool multiline, int indent) {
  pbd_Buf b = {0};
  pbd_TextOptions o = {.max_bytes = max_bytes, .multiline = multiline, .indent = indent};
  pbd_Format_TextValue(&b, v, &o);
  return take(&b);
}

char *json_of(const pbd_Value *v) {
  pbd_Buf b = {0};
  pbd_Format_JsonValue(&b, v);
  return take(&b);
}
/* ---- schema fixtures ------------------------------------------------------ */

pbd_FieldDef fd_i32 = {.name = "i32", .json_name = "i32", .number = 1, .type = kPbd_Type_Int32};
pbd_FieldDef fd_i64 = {.name = "i64", .json_name = "i64", .number = 2, .type = kPbd_Type_Int64};
pbd_FieldDef fd_u32 = {.name = "u32", .json_name = "u32", .number = 3, .type = kPbd_Type_UInt32};
pbd_FieldDef fd_u64 = {.name = "u64", .json_name = "u64", .number = 4, .type = kPbd_Type_UInt64};
pbd_FieldDef fd_s64 = {.name = "s64", .json_name = "s64", .number = 5, .type = kPbd_Type_SInt64};
pbd_FieldDef fd_f64 = {.name = "f64", .json_name = "f64", .number = 6, .type = kPbd_Type_Fixed64};
pbd_FieldDef fd_sf64 = {.name = "sf64", .json_name = "sf64", .number = 7, .type = kPbd_Type_SFixed64};
pbd_FieldDef fd_f32 = {.name = "f32", .json_name = "f32", .number = 8, .type = kPbd_Type_Fixed32};

static const pbd_EnumValueDef color_values[] = {{"RED", 0}, {"GREEN", 1}, {"MINUS", -1}};
static const pbd_EnumValueDef *color_by_number[] = {&color_values[2], &color_values[0],
                                                    &color_values[1]};
static pbd_EnumDef color_enum = {.full_name = "t.Color", .values = color_values,
                                 .value_count = 3, .by_number = color_by_number};
pbd_FieldDef fd_color = {.name = "color", .json_name = "color", .number = 9,
                                .type = kPbd_Type_Enum, .enum_type = &color_enum};

/* t.Sub { int32 a = 1; } holding a: 1 */
static pbd_FieldDef fd_a = {.name = "a", .json_name = "a", .number = 1, .type = kPbd_Type_Int32};
static uint64_t sub_a_vals[] = {1};
static pbd_Field sub_fields[] = {
    {.number = 1, .kind = kPbd_Value_Int, .def = &fd_a, .count = 1, .v.scalars = sub_a_vals}};
pbd_Message sub_msg = {.fields_ = sub_fields, .field_count_ = 1};

/* An unknown sub-message { 1: 7 } */
static pbd_UnknownValue unk_sub_vals[] = {{.kind = kPbd_Value_Varint, .u = 7}};
static pbd_Field unk_sub_fields[] = {{.number = 1, .count = 1, .v.unknowns = unk_sub_vals}};
pbd_Message unk_sub = {.fields_ = unk_sub_fields, .field_count_ = 1};

/* The main fixture:
 *   string name = 1; repeated int32 ids = 2; t.Sub sub_msg = 3;
 *   unknown 5 (varint 3, then a LEN message); extension t.ext = 100 (int32). */
pbd_FieldDef fd_name = {.name = "name", .json_name = "name", .number = 1,
                               .type = kPbd_Type_String};
pbd_FieldDef fd_ids = {.name = "ids", .json_name = "ids", .number = 2,
                              .label = kPbd_Label_Repeated, .type = kPbd_Type_Int32,
                              .is_repeated = true};
pbd_FieldDef fd_sub = {.name = "sub_msg", .json_name = "subMsg", .number = 3,
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
pbd_Message main_msg = {.fields_ = main_fields, .field_count_ = 5};

/* map<string, int32> labels = 1; map<int64, int64> counts = 2; */
static pbd_FieldDef fd_key = {.name = "key", .json_name = "key", .number = 1,
                              .type = kPbd_Type_String};
pbd_FieldDef fd_value = {.name = "value", .json_name = "value", .number = 2,
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
pbd_Message map_msg = {.fields_ = map_fields, .field_count_ = 2};

/* An Any whose payload resolved to t.Sub { a: 1 }. */
static pbd_FieldDef fd_type_url = {.name = "type_url", .json_name = "typeUrl", .number = 1,
                                   .type = kPbd_Type_String};
static pbd_StrView any_url[] = {{"type.googleapis.com/t.Sub", 25}};
static pbd_Field any_fields[] = {
    {.number = 1, .kind = kPbd_Value_String, .def = &fd_type_url, .count = 1, .v.strs = any_url}};
pbd_Message any_msg = {.any_payload_ = &sub_msg, .fields_ = any_fields, .field_count_ = 1};
/* Message defs for edits' parents. */
pbd_MessageDef md_model = {.full_name = "t.Model", .name = "Model"};
pbd_MessageDef md_graph = {.full_name = "t.Graph", .name = "Graph"};
pbd_MessageDef md_node = {.full_name = "t.Node", .name = "Node"};
pbd_MessageDef md_rec = {.full_name = "t.Rec", .name = "Rec"};

/* Short builders for the report suites. */
pbd_Value I(int64_t i) {
  pbd_Value v = mk_u(kPbd_Value_Int, 0, &fd_i32);
  v.i = i;
  return v;
}
pbd_Value Str(const char *s) {
  pbd_Value v = mk_u(kPbd_Value_String, 0, NULL);
  v.s.data = s;
  v.s.size = strlen(s);
  return v;
}
pbd_Value Msg(const pbd_Message *m) {
  pbd_Value v = mk_u(kPbd_Value_Message, 0, NULL);
  v.m = m;
  return v;
}
pbd_Value None(void) { return mk_u(kPbd_Value_None, 0, NULL); }

pbd_Edit E(pbd_EditKind k, const char *path, size_t plen, const pbd_MessageDef *parent,
           pbd_Value l, pbd_Value r) {
  size_t pc;
  const pbd_Path *p = tu_path(path, plen, &pc);
  pbd_Edit e = {k, p, pc, parent, l, r, -1, -1};
  return e;
}
pbd_Edit Moved(const char *path, size_t plen, const pbd_MessageDef *parent, int64_t li,
               int64_t ri) {
  size_t pc;
  const pbd_Path *p = tu_path(path, plen, &pc);
  pbd_Edit e = {kPbd_Edit_Moved, p, pc, parent, I(7), I(7), li, ri};
  return e;
}

/* Every kind, under a header and at the root. */
pbd_Edit g_kinds[8];
size_t kinds_edits(void) {
  size_t n = 0;
  g_kinds[n++] = E(kPbd_Edit_Changed, "g.a", 1, &md_node, I(1), I(2));
  g_kinds[n++] = E(kPbd_Edit_Added, "g.b[0]", 1, &md_node, None(), I(3));
  g_kinds[n++] = E(kPbd_Edit_Removed, "g.c[1]", 1, &md_node, Str("x"), None());
  g_kinds[n++] = E(kPbd_Edit_Presence, "g.d", 1, &md_node, None(), I(0));
  g_kinds[n++] = E(kPbd_Edit_Presence, "g.e", 1, &md_node, mk_u(kPbd_Value_Bool, 0, NULL), None());
  g_kinds[n++] = Moved("g.attribute[\"x\"]", 1, &md_node, 2, 0);
  g_kinds[n++] = Moved("rm[5]", 0, &md_model, 5, 1);
  g_kinds[n++] = E(kPbd_Edit_Added, "ms[\"k\"]", 0, &md_model, None(), Msg(&sub_msg));
  g_kinds[2].left_index = 1;
  g_kinds[1].right_index = 0;
  return n;
}
