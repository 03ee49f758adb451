/* Tests of the descriptor loader (lib/schema/schema.c) on protoc-compiled
 * schemas: every def field of testdata/schema/ (kitchen2, kitchen3), the real
 * ONNX and well-known type schemas, adding a file twice, and protoc runs
 * (pbd_DefPool_AddProtoFiles).  Hand-made descriptor bytes and the loader's
 * errors are check_schema_errors.c's. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbdiff/core/base.h"
#include "pbdiff/schema/schema.h"
#include "testutil.h"
#include "pbdiff/wire/wire.h"
#include "tu_values.h" /* fbits, dbits */


static float bits_f(uint64_t u) {
  uint32_t b = (uint32_t)u;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static double bits_d(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}


/* ------------------------------------------------------------------------ */
/* proto2 kitchen sink. */

START_TEST(test_kitchen2_structure) {
  pbd_DefPool *pool = tu_load_pool("schema/kitchen2.proto");
  const pbd_MessageDef *outer = tu_find_message(pool, "k2.Outer");
  ck_assert_str_eq(outer->name, "Outer");
  ck_assert_str_eq(outer->full_name, "k2.Outer");
  ck_assert_str_eq(outer->file->name, "schema/kitchen2.proto");
  ck_assert_str_eq(outer->file->package, "k2");
  ck_assert_int_eq(outer->file->syntax, kPbd_Syntax_Proto2);
  ck_assert(!outer->is_map_entry);

  /* Own fields and the three extensions, sorted by number. */
  static const uint32_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100, 101, 102};
  ck_assert_uint_eq(outer->field_count, sizeof want / sizeof want[0]);
  for (uint32_t i = 0; i < outer->field_count; i++) {
    ck_assert_uint_eq(outer->fields[i]->number, want[i]);
    ck_assert_uint_eq(outer->fields[i]->index, i);
    ck_assert_ptr_eq(outer->fields[i]->containing, outer);
    ck_assert_ptr_eq(pbd_MessageDef_FindFieldByNumber(outer, want[i]), outer->fields[i]);
  }
  ck_assert_ptr_null(pbd_MessageDef_FindFieldByNumber(outer, 13));
  ck_assert_ptr_null(pbd_MessageDef_FindFieldByNumber(outer, 0));
  ck_assert_ptr_null(pbd_MessageDef_FindFieldByNumber(outer, 1000));

  const pbd_FieldDef *f = tu_find_field(outer, "name");
  ck_assert_str_eq(f->full_name, "k2.Outer.name");
  ck_assert_str_eq(f->json_name, "name");
  ck_assert_int_eq(f->label, kPbd_Label_Required);
  ck_assert_int_eq(f->type, kPbd_Type_String);
  ck_assert(f->has_presence && !f->is_repeated && !f->validate_utf8 && !f->is_extension);
  ck_assert(!f->has_default);
  ck_assert_uint_eq(f->default_value.s.size, 0);
  ck_assert_ptr_null(f->oneof);

  f = tu_find_field(outer, "nums");
  ck_assert(f->is_repeated && f->is_packable && !f->is_packed && !f->has_presence);
  f = tu_find_field(outer, "packed_nums");
  ck_assert(f->is_repeated && f->is_packable && f->is_packed);
  ck_assert_str_eq(f->json_name, "packedNums");
  f = tu_find_field(outer, "strs");
  ck_assert(f->is_repeated && !f->is_packable && !f->is_packed);
  f = tu_find_field(outer, "colors");
  ck_assert(f->is_packed && f->type == kPbd_Type_Enum);
  ck_assert_ptr_eq(f->enum_type, pbd_DefPool_FindEnumByName(pool, "k2.Color"));

  f = tu_find_field(outer, "inner");
  ck_assert_int_eq(f->type, kPbd_Type_Message);
  ck_assert_ptr_eq(f->message_type, tu_find_message(pool, "k2.Outer.Inner"));
  ck_assert(f->has_presence && !f->is_map);

  f = tu_find_field(outer, "mygroup");
  ck_assert_int_eq(f->type, kPbd_Type_Group);
  ck_assert_str_eq(f->full_name, "k2.Outer.mygroup");
  ck_assert_ptr_eq(f->message_type, tu_find_message(pool, "k2.Outer.MyGroup"));
  ck_assert_int_eq(pbd_FieldType_WireType(f->type), kPbd_WireType_StartGroup);
  ck_assert(f->has_presence);

  f = tu_find_field(outer, "color");
  ck_assert_ptr_eq(f->enum_type, pbd_DefPool_FindEnumByName(pool, "k2.Color"));
  ck_assert_uint_eq(f->default_value.u, 2); /* RED, the first declared */
  f = tu_find_field(outer, "mood");
  ck_assert_ptr_eq(f->enum_type, pbd_DefPool_FindEnumByName(pool, "k2.Outer.Inner.Mood"));
  ck_assert_uint_eq(f->default_value.u, 5);
  ck_assert(!f->has_default);

  /* The oneof. */
  ck_assert_uint_eq(outer->oneof_count, 1);
  const pbd_OneofDef *o = &outer->oneofs[0];
  ck_assert_str_eq(o->name, "choice");
  ck_assert_ptr_eq(o->containing, outer);
  ck_assert_uint_eq(o->field_count, 3);
  ck_assert_str_eq(o->fields[0]->name, "c_int");
  ck_assert_str_eq(o->fields[1]->name, "c_str");
  ck_assert_str_eq(o->fields[2]->name, "c_msg");
  for (int i = 0; i < 3; i++) {
    ck_assert_ptr_eq(o->fields[i]->oneof, o);
    ck_assert(o->fields[i]->has_presence);
  }

  /* Extensions merged into the extendee. */
  f = pbd_MessageDef_FindFieldByNumber(outer, 100);
  ck_assert_str_eq(f->name, "top_ext");
  ck_assert_str_eq(f->full_name, "k2.top_ext");
  ck_assert(f->is_extension && f->has_presence);
  ck_assert_ptr_eq(f, pbd_DefPool_FindFieldByFullName(pool, "k2.top_ext"));
  ck_assert_ptr_eq(f, pbd_MessageDef_FindFieldByName(outer, "k2.top_ext"));
  f = pbd_MessageDef_FindFieldByNumber(outer, 101);
  ck_assert_str_eq(f->full_name, "k2.Outer.Inner.in_ext");
  ck_assert_ptr_eq(f->containing, outer);
  ck_assert_ptr_eq(f, pbd_DefPool_FindFieldByFullName(pool, "k2.Outer.Inner.in_ext"));
  f = pbd_MessageDef_FindFieldByNumber(outer, 102);
  ck_assert(f->is_extension && f->is_repeated && f->is_packed && !f->has_presence);

  /* The nested message does not list the extension declared inside it. */
  const pbd_MessageDef *inner = tu_find_message(pool, "k2.Outer.Inner");
  ck_assert_uint_eq(inner->field_count, 2);
  ck_assert_str_eq(inner->name, "Inner");
  f = tu_find_field(inner, "mood");
  ck_assert(f->has_default);
  ck_assert_uint_eq(f->default_value.u, 5); /* GLAD */

  /* Lookups by full name. */
  ck_assert_ptr_eq(pbd_DefPool_FindFieldByFullName(pool, "k2.Outer.inner"),
                   tu_find_field(outer, "inner"));
  ck_assert_ptr_null(pbd_DefPool_FindFieldByFullName(pool, "k2.Outer"));
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, "k2.Color"));
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, ".k2.Outer"));
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, "k2"));
  ck_assert_ptr_null(pbd_DefPool_FindEnumByName(pool, "k2.Outer"));
  ck_assert_ptr_null(pbd_MessageDef_FindFieldByName(outer, "nope"));

  /* Load order: parents before nested types. */
  ck_assert_uint_eq(pbd_DefPool_MessageCount(pool), 4);
  ck_assert_str_eq(pbd_DefPool_Message(pool, 0)->full_name, "k2.Outer");
  ck_assert_str_eq(pbd_DefPool_Message(pool, 1)->full_name, "k2.Outer.Inner");
  ck_assert_str_eq(pbd_DefPool_Message(pool, 2)->full_name, "k2.Outer.MyGroup");
  ck_assert_str_eq(pbd_DefPool_Message(pool, 3)->full_name, "k2.Defaults");
  ck_assert_ptr_null(pbd_DefPool_Message(pool, 4));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_kitchen2_enums) {
  pbd_DefPool *pool = tu_load_pool("schema/kitchen2.proto");
  const pbd_EnumDef *e = pbd_DefPool_FindEnumByName(pool, "k2.Color");
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(e->full_name, "k2.Color");
  ck_assert(e->is_closed);
  ck_assert_ptr_eq(e->file, tu_find_message(pool, "k2.Outer")->file);
  ck_assert_uint_eq(e->value_count, 3);
  ck_assert_str_eq(e->values[0].name, "RED");
  ck_assert_int_eq(e->values[2].number, -3);
  ck_assert_str_eq(e->by_number[0]->name, "BLUE");
  ck_assert_str_eq(e->by_number[1]->name, "GREEN");
  ck_assert_str_eq(e->by_number[2]->name, "RED");
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(e, -3)->name, "BLUE");
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(e, 2)->name, "RED");
  ck_assert_ptr_null(pbd_EnumDef_FindValueByNumber(e, 0));
  ck_assert_ptr_null(pbd_EnumDef_FindValueByNumber(e, 3));

  /* Aliases: the first declared name of a number wins. */
  e = pbd_DefPool_FindEnumByName(pool, "k2.Outer.Inner.Mood");
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(e->by_number[0]->name, "SAD");
  ck_assert_str_eq(e->by_number[1]->name, "HAPPY");
  ck_assert_str_eq(e->by_number[2]->name, "GLAD");
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(e, 5)->name, "HAPPY");
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(e, 0)->name, "SAD");
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_kitchen2_defaults) {
  pbd_DefPool *pool = tu_load_pool("schema/kitchen2.proto");
  const pbd_MessageDef *m = tu_find_message(pool, "k2.Defaults");
#define DEF(name) (tu_find_field(m, name)->default_value)
  ck_assert(tu_find_field(m, "d_int32")->has_default);
  ck_assert_uint_eq(DEF("d_int32").u, (uint64_t)(int64_t)-42);
  ck_assert_uint_eq(DEF("d_int64").u, (uint64_t)(int64_t)-9000000000LL);
  ck_assert_uint_eq(DEF("d_uint32").u, 4000000000u);
  ck_assert_uint_eq(DEF("d_uint64").u, UINT64_MAX);
  ck_assert_uint_eq(DEF("d_sint32").u, (uint64_t)(int64_t)-7);
  ck_assert_uint_eq(DEF("d_sint64").u, (uint64_t)(int64_t)-8);
  ck_assert_uint_eq(DEF("d_fixed32").u, 16);
  ck_assert_uint_eq(DEF("d_fixed64").u, 9);
  ck_assert_uint_eq(DEF("d_sfixed32").u, (uint64_t)(int64_t)-10);
  ck_assert_uint_eq(DEF("d_sfixed64").u, (uint64_t)(int64_t)-11);
  ck_assert_uint_eq(DEF("d_bool").u, 1);
  ck_assert_uint_eq(DEF("d_float").u, fbits(1.5f));
  ck_assert_uint_eq(DEF("d_double").u, dbits(-2.25));
  ck_assert(isinf(bits_f(DEF("d_float_inf").u)) && bits_f(DEF("d_float_inf").u) > 0);
  ck_assert(isinf(bits_f(DEF("d_float_ninf").u)) && bits_f(DEF("d_float_ninf").u) < 0);
  ck_assert(isnan(bits_f(DEF("d_float_nan").u)));
  ck_assert_uint_eq(DEF("d_float_nan").u >> 32, 0); /* a float keeps 32 bits */
  ck_assert(isinf(bits_d(DEF("d_double_ninf").u)) && bits_d(DEF("d_double_ninf").u) < 0);
  ck_assert(isnan(bits_d(DEF("d_double_nan").u)));
  pbd_StrView sv = DEF("d_string").s;
  ck_assert_uint_eq(sv.size, 11);
  ck_assert(memcmp(sv.data, "hi \"there\"\n", 11) == 0);
  sv = DEF("d_bytes").s;
  static const char bytes[] = "a\000b\n\t\\\"\'\xff\001";
  ck_assert_uint_eq(sv.size, sizeof bytes - 1);
  ck_assert(memcmp(sv.data, bytes, sizeof bytes - 1) == 0);
  ck_assert_uint_eq(DEF("d_color").u, (uint64_t)(int64_t)-3);
  ck_assert(tu_find_field(m, "d_color")->has_default);
  ck_assert_uint_eq(DEF("d_color_none").u, 2); /* RED = 2, the first value */
  ck_assert(!tu_find_field(m, "d_color_none")->has_default);
  ck_assert_uint_eq(DEF("d_none").u, 0);
  ck_assert(!tu_find_field(m, "d_none")->has_default);
  ck_assert_ptr_nonnull(DEF("d_string_none").s.data);
  ck_assert_uint_eq(DEF("d_string_none").s.size, 0);
  ck_assert_uint_eq(DEF("d_min").u, (uint64_t)(int64_t)INT32_MIN);
#undef DEF
  pbd_DefPool_Free(pool);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* proto3 kitchen sink. */

START_TEST(test_kitchen3) {
  pbd_DefPool *pool = tu_load_pool("schema/kitchen3.proto");
  const pbd_MessageDef *m = tu_find_message(pool, "k3.sub.Item");
  ck_assert_str_eq(m->file->package, "k3.sub");
  ck_assert_int_eq(m->file->syntax, kPbd_Syntax_Proto3);
  ck_assert_uint_eq(m->field_count, 18);

  const pbd_FieldDef *f = tu_find_field(m, "plain");
  ck_assert(!f->has_presence && !f->proto3_optional && f->oneof == NULL);
  f = tu_find_field(m, "opt");
  ck_assert(f->has_presence && f->proto3_optional);
  ck_assert_ptr_null(f->oneof); /* its synthetic oneof is hidden */
  f = tu_find_field(m, "opt_text");
  ck_assert(f->has_presence && f->proto3_optional && f->validate_utf8 && !f->oneof);
  f = tu_find_field(m, "text");
  ck_assert(f->validate_utf8 && !f->has_presence);
  f = tu_find_field(m, "raw");
  ck_assert(!f->validate_utf8 && f->type == kPbd_Type_Bytes);
  ck_assert(tu_find_field(m, "nums")->is_packed);
  ck_assert(tu_find_field(m, "doubles")->is_packed);
  f = tu_find_field(m, "nums_unpacked");
  ck_assert(f->is_packable && !f->is_packed);
  f = tu_find_field(m, "strs");
  ck_assert(!f->is_packable && !f->is_packed && f->validate_utf8);
  f = tu_find_field(m, "levels");
  ck_assert(f->is_packed && f->enum_type == pbd_DefPool_FindEnumByName(pool, "k3.sub.Level"));
  ck_assert(!f->enum_type->is_closed);
  f = tu_find_field(m, "level");
  ck_assert(!f->has_presence && f->default_value.u == 0 && !f->has_default);
  f = tu_find_field(m, "self");
  ck_assert(f->has_presence && f->message_type == m);
  f = tu_find_field(m, "any");
  ck_assert_ptr_eq(f->message_type, tu_find_message(pool, "google.protobuf.Any"));
  ck_assert_str_eq(f->message_type->file->name, "google/protobuf/any.proto");
  ck_assert_int_eq(f->message_type->file->syntax, kPbd_Syntax_Proto3);

  /* Maps. */
  f = tu_find_field(m, "counts");
  ck_assert(f->is_map && f->is_repeated && !f->is_packable && !f->has_presence);
  const pbd_MessageDef *entry = f->message_type;
  ck_assert_str_eq(entry->full_name, "k3.sub.Item.CountsEntry");
  ck_assert(entry->is_map_entry);
  ck_assert_uint_eq(entry->field_count, 2);
  ck_assert_str_eq(entry->fields[0]->name, "key");
  ck_assert_int_eq(entry->fields[0]->type, kPbd_Type_String);
  ck_assert_str_eq(entry->fields[1]->name, "value");
  ck_assert_int_eq(entry->fields[1]->type, kPbd_Type_Int32);
  f = tu_find_field(m, "children");
  ck_assert(f->is_map);
  ck_assert_ptr_eq(f->message_type->fields[1]->message_type, m);
  ck_assert(!tu_find_field(m, "self")->is_map);

  /* Oneofs: the two real ones only. */
  ck_assert_uint_eq(m->oneof_count, 2);
  ck_assert_str_eq(m->oneofs[0].name, "kind");
  ck_assert_uint_eq(m->oneofs[0].field_count, 2);
  ck_assert_ptr_eq(m->oneofs[0].fields[1], tu_find_field(m, "k_item"));
  ck_assert_str_eq(m->oneofs[1].name, "other");
  ck_assert_uint_eq(m->oneofs[1].field_count, 1);
  f = tu_find_field(m, "k_int");
  ck_assert(f->has_presence && f->oneof == &m->oneofs[0]);
  f = tu_find_field(m, "o_bool");
  ck_assert(f->has_presence && f->oneof == &m->oneofs[1]);
  for (uint32_t i = 0; i < m->field_count; i++) ck_assert_uint_eq(m->fields[i]->index, i);
  pbd_DefPool_Free(pool);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Real schemas. */

START_TEST(test_onnx) {
  pbd_DefPool *pool = tu_load_pool("/usr/include/onnx/onnx.proto");
  const pbd_MessageDef *m = tu_find_message(pool, "onnx.ModelProto");
  const pbd_FieldDef *g = tu_find_field(m, "graph");
  ck_assert_uint_eq(g->number, 7);
  ck_assert_ptr_eq(g->message_type, tu_find_message(pool, "onnx.GraphProto"));
  ck_assert_ptr_eq(pbd_DefPool_FindFieldByFullName(pool, "onnx.ModelProto.graph"), g);
  const pbd_EnumDef *dt = pbd_DefPool_FindEnumByName(pool, "onnx.TensorProto.DataType");
  ck_assert_ptr_nonnull(dt);
  ck_assert(dt->is_closed);
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(dt, 1)->name, "FLOAT");
  const pbd_FieldDef *et = pbd_DefPool_FindFieldByFullName(pool, "onnx.TypeProto.Tensor.elem_type");
  ck_assert_ptr_nonnull(et);
  ck_assert_int_eq(et->type, kPbd_Type_Int32);
  const pbd_MessageDef *t = tu_find_message(pool, "onnx.TensorProto");
  ck_assert(tu_find_field(t, "float_data")->is_packed); /* [packed = true] in onnx.proto */
  ck_assert(!tu_find_field(t, "dims")->is_packed);
  ck_assert_uint_eq(tu_find_message(pool, "onnx.TypeProto")->oneof_count, 1);
  ck_assert_ptr_eq(tu_find_field(tu_find_message(pool, "onnx.AttributeProto"), "type")->enum_type,
                   pbd_DefPool_FindEnumByName(pool, "onnx.AttributeProto.AttributeType"));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_well_known_types) {
  pbd_DefPool *pool = tu_load_pool("/usr/include/google/protobuf/descriptor.proto");
  const pbd_MessageDef *fdp = tu_find_message(pool, "google.protobuf.FieldDescriptorProto");
  ck_assert_uint_eq(tu_find_field(fdp, "proto3_optional")->number, 17);
  ck_assert_ptr_eq(tu_find_field(fdp, "type")->enum_type,
                   pbd_DefPool_FindEnumByName(pool, "google.protobuf.FieldDescriptorProto.Type"));
  const pbd_MessageDef *fo = tu_find_message(pool, "google.protobuf.FieldOptions");
  const pbd_FieldDef *packed = tu_find_field(fo, "packed");
  ck_assert_uint_eq(packed->number, 2);
  ck_assert(packed->has_default == false && packed->has_presence);
  /* ctype has [default = STRING]. */
  const pbd_FieldDef *ctype = tu_find_field(fo, "ctype");
  ck_assert(ctype->has_default);
  ck_assert_uint_eq(ctype->default_value.u, 0);
  pbd_DefPool_Free(pool);

  pool = tu_load_pool("schema/wkt.proto");
  const pbd_MessageDef *all = tu_find_message(pool, "wkt.All");
  ck_assert_uint_eq(all->field_count, 11);
  for (uint32_t i = 0; i < all->field_count; i++)
    ck_assert_ptr_nonnull(all->fields[i]->message_type);
  const pbd_FieldDef *sf = tu_find_field(tu_find_message(pool, "google.protobuf.Struct"), "fields");
  ck_assert(sf->is_map);
  ck_assert_ptr_eq(sf->message_type->fields[1]->message_type,
                   tu_find_message(pool, "google.protobuf.Value"));
  ck_assert_uint_eq(tu_find_message(pool, "google.protobuf.Value")->oneof_count, 1);
  /* An extension of a proto2 message declared in a proto3 file. */
  const pbd_FieldDef *note = pbd_MessageDef_FindFieldByNumber(tu_find_message(pool, "google.protobuf.FieldOptions"), 50001);
  ck_assert_ptr_nonnull(note);
  ck_assert_str_eq(note->full_name, "wkt.wkt_note");
  ck_assert(note->is_extension && note->has_presence && note->validate_utf8);
  ck_assert_int_eq(pbd_DefPool_FindEnumByName(pool, "google.protobuf.NullValue")->is_closed, 0);
  pbd_DefPool_Free(pool);
}
END_TEST

/* Two sets that share files load side by side; the second copy is skipped. */
START_TEST(test_add_twice) {
  char *desc = tu_compile_proto("schema/kitchen3.proto");
  size_t n;
  uint8_t *data = tu_read_file(desc, &n);
  ck_assert_ptr_nonnull(data);
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_DefPool_AddFileDescriptorSet(pool, data, n, desc, &s));
  size_t count = pbd_DefPool_MessageCount(pool);
  ck_assert(pbd_DefPool_AddFileDescriptorSet(pool, data, n, desc, &s));
  ck_assert_uint_eq(pbd_DefPool_MessageCount(pool), count);
  free(data);
  unlink(desc);
  free(desc);
  desc = tu_compile_proto("schema/wkt.proto"); /* also holds any.proto */
  data = tu_read_file(desc, &n);
  ck_assert(pbd_DefPool_AddFileDescriptorSet(pool, data, n, desc, &s));
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "k3.sub.Item"));
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "wkt.All"));
  ck_assert(pbd_DefPool_Finalize(pool, &s)); /* a second call changes nothing */
  /* No Add after Finalize. */
  ck_assert(!pbd_DefPool_AddFileDescriptorSet(pool, data, n, desc, &s));
  free(data);
  unlink(desc);
  free(desc);
  pbd_DefPool_Free(pool);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* protoc. */

START_TEST(test_add_proto_files) {
  char proto[4096], inc[4096];
  snprintf(proto, sizeof proto, "%s/testdata/schema/kitchen3.proto", tu_root());
  snprintf(inc, sizeof inc, "%s/testdata", tu_root());
  const char *protos[] = {proto};
  const char *incs[] = {inc};
  pbd_Status s;
  pbd_Status_Clear(&s);

  pbd_DefPool *pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, protos, 1, incs, 1, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  const pbd_MessageDef *m = tu_find_message(pool, "k3.sub.Item");
  ck_assert_str_eq(m->file->name, "schema/kitchen3.proto");
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "google.protobuf.Any"));
  pbd_DefPool_Free(pool);

  /* Without -I: the file's own directory is added. */
  pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, protos, 1, NULL, 0, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_str_eq(tu_find_message(pool, "k3.sub.Item")->file->name, "kitchen3.proto");
  pbd_DefPool_Free(pool);

  /* A file under /usr/include keeps its import name. */
  const char *onnx[] = {"/usr/include/onnx/onnx.proto", "/usr/include/google/protobuf/struct.proto"};
  pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, onnx, 2, NULL, 0, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_str_eq(tu_find_message(pool, "onnx.ModelProto")->file->name, "onnx/onnx.proto");
  ck_assert_str_eq(tu_find_message(pool, "google.protobuf.Struct")->file->name,
                   "google/protobuf/struct.proto");
  pbd_DefPool_Free(pool);

  /* A file named relative to an -I directory. */
  const char *rel[] = {"schema/kitchen2.proto"};
  pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, rel, 1, incs, 1, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "k2.Outer"));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_add_proto_files_spaces) {
  char dir[] = "/tmp/pbdiff schema XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char src[4096], dst[4096];
  snprintf(src, sizeof src, "%s/testdata/schema/kitchen2.proto", tu_root());
  snprintf(dst, sizeof dst, "%s/my schema.proto", dir);
  size_t n;
  uint8_t *text = tu_read_file(src, &n);
  ck_assert_ptr_nonnull(text);
  FILE *f = fopen(dst, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(text, 1, n, f), n);
  fclose(f);
  free(text);
  const char *protos[] = {dst};
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, protos, 1, NULL, 0, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_str_eq(tu_find_message(pool, "k2.Outer")->file->name, "my schema.proto");
  pbd_DefPool_Free(pool);
  unlink(dst);
  rmdir(dir);
}
END_TEST

START_TEST(test_add_proto_files_errors) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  const char *missing[] = {"/nonexistent/dir/nothing.proto"};
  pbd_DefPool *pool = pbd_DefPool_New();
  fprintf(stderr, "(the protoc error below is expected)\n");
  ck_assert(!pbd_DefPool_AddProtoFiles(pool, missing, 1, NULL, 0, &s));
  ck_assert_int_ne(s.code, kPbd_Status_Ok);
  ck_assert_msg(strstr(s.msg, "protoc failed on /nonexistent/dir/nothing.proto"), "%s", s.msg);
  ck_assert(!pbd_DefPool_AddProtoFiles(pool, missing, 0, NULL, 0, &s));
  ck_assert_int_eq(s.code, kPbd_Status_Usage);

  /* No protoc on PATH (this test runs in its own process under CK_FORK;
   * PATH is restored anyway). */
  char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  setenv("PATH", "/nonexistent-pbdiff-path", 1);
  char proto[4096];
  snprintf(proto, sizeof proto, "%s/testdata/schema/kitchen3.proto", tu_root());
  const char *protos[] = {proto};
  bool ok = pbd_DefPool_AddProtoFiles(pool, protos, 1, NULL, 0, &s);
  if (old) {
    setenv("PATH", old, 1);
    free(old);
  }
  ck_assert(!ok);
  ck_assert_msg(strstr(s.msg, "cannot run protoc (install protobuf-compiler)"), "%s", s.msg);
  ck_assert(pbd_DefPool_Finalize(pool, &s));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_field_types) {
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Double), kPbd_WireType_Fixed64);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_SFixed64), kPbd_WireType_Fixed64);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Float), kPbd_WireType_Fixed32);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Fixed32), kPbd_WireType_Fixed32);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_SInt64), kPbd_WireType_Varint);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Enum), kPbd_WireType_Varint);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Bool), kPbd_WireType_Varint);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Bytes), kPbd_WireType_Delimited);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Message), kPbd_WireType_Delimited);
  ck_assert_int_eq(pbd_FieldType_WireType(kPbd_Type_Group), kPbd_WireType_StartGroup);
  ck_assert_str_eq(pbd_FieldType_Name(kPbd_Type_SFixed32), "sfixed32");
  ck_assert_str_eq(pbd_FieldType_Name(kPbd_Type_String), "string");
  ck_assert_str_eq(pbd_FieldType_Name(kPbd_Type_Group), "group");
  ck_assert_str_eq(pbd_FieldType_Name(kPbd_Type_UInt64), "uint64");
  ck_assert_str_eq(pbd_FieldType_Name((pbd_FieldType)0), "unknown");
  ck_assert_int_eq(pbd_FieldType_WireType((pbd_FieldType)99), -1);
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("schema_load");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_kitchen2_structure);
  tcase_add_test(tc, test_kitchen2_enums);
  tcase_add_test(tc, test_kitchen2_defaults);
  tcase_add_test(tc, test_kitchen3);
  tcase_add_test(tc, test_onnx);
  tcase_add_test(tc, test_well_known_types);
  tcase_add_test(tc, test_add_twice);
  tcase_add_test(tc, test_add_proto_files);
  tcase_add_test(tc, test_add_proto_files_spaces);
  tcase_add_test(tc, test_add_proto_files_errors);
  tcase_add_test(tc, test_field_types);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
