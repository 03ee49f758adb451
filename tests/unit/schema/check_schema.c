/* Tests of the descriptor loader (lib/schema/schema.c): every def field on
 * protoc-compiled schemas (testdata/schema/), the real ONNX and well-known
 * type schemas, hand-made descriptor bytes for the errors, and protoc runs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base.h"
#include "schema/schema.h"
#include "testutil.h"
#include "wire/wire.h"

/* ------------------------------------------------------------------------ */
/* Helpers. */

static const pbd_MessageDef *msg(const pbd_DefPool *pool, const char *name) {
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(pool, name);
  ck_assert_msg(m != NULL, "message %s not found", name);
  return m;
}

static const pbd_FieldDef *field(const pbd_MessageDef *m, const char *name) {
  const pbd_FieldDef *f = pbd_MessageDef_FindFieldByName(m, name);
  ck_assert_msg(f != NULL, "field %s not found in %s", name, m->full_name);
  return f;
}

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

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

/* A tiny protobuf writer for hand-made descriptor sets. */
static void put_varint(pbd_Buf *b, uint64_t v) {
  while (v >= 0x80) {
    pbd_Buf_AppendChar(b, (char)(v | 0x80));
    v >>= 7;
  }
  pbd_Buf_AppendChar(b, (char)v);
}

static void put_int(pbd_Buf *b, uint32_t field, uint64_t v) {
  put_varint(b, (uint64_t)field << 3 | kPbd_WireType_Varint);
  put_varint(b, v);
}

static void put_bytes(pbd_Buf *b, uint32_t field, const char *data, size_t n) {
  put_varint(b, (uint64_t)field << 3 | kPbd_WireType_Delimited);
  put_varint(b, n);
  pbd_Buf_Append(b, data, n);
}

static void put_str(pbd_Buf *b, uint32_t field, const char *s) {
  put_bytes(b, field, s, strlen(s));
}

/* Appends `sub` as a LEN field and frees it. */
static void put_msg(pbd_Buf *b, uint32_t field, pbd_Buf *sub) {
  put_bytes(b, field, sub->data ? sub->data : "", sub->len);
  pbd_Buf_Free(sub);
}

/* A FieldDescriptorProto; type 0 leaves the type out, NULL type_name too. */
static pbd_Buf fdesc(const char *name, uint32_t number, int label, int type,
                     const char *type_name) {
  pbd_Buf b = {0};
  put_str(&b, 1, name);
  put_int(&b, 3, number);
  put_int(&b, 4, (uint64_t)label);
  if (type) put_int(&b, 5, (uint64_t)type);
  if (type_name) put_str(&b, 6, type_name);
  return b;
}

/* Loads one FileDescriptorSet from a Buf (freed); returns the Add result. */
static bool add_buf(pbd_DefPool *pool, pbd_Buf *set, pbd_Status *s) {
  pbd_Status_Clear(s);
  bool ok = pbd_DefPool_AddFileDescriptorSet(pool, (const uint8_t *)set->data, set->len,
                                             "test.desc", s);
  pbd_Buf_Free(set);
  return ok;
}

/* A set with one file (package p) holding the given message descriptors. */
static pbd_Buf one_file(const char *file, const char *syntax, pbd_Buf *msgs, int nmsgs) {
  pbd_Buf f = {0}, set = {0};
  put_str(&f, 1, file);
  put_str(&f, 2, "p");
  for (int i = 0; i < nmsgs; i++) put_msg(&f, 4, &msgs[i]);
  if (syntax) put_str(&f, 12, syntax);
  put_msg(&set, 1, &f);
  return set;
}

/* Expects Add to pass and Finalize to fail with `want` in the message. */
static void expect_finalize_error(pbd_Buf set, const char *want) {
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  ck_assert_msg(add_buf(pool, &set, &s), "add: %s", s.msg);
  ck_assert(!pbd_DefPool_Finalize(pool, &s));
  ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
  ck_assert_msg(strstr(s.msg, want) != NULL, "got \"%s\", want \"%s\"", s.msg, want);
  pbd_DefPool_Free(pool);
}

/* ------------------------------------------------------------------------ */
/* proto2 kitchen sink. */

START_TEST(test_kitchen2_structure) {
  pbd_DefPool *pool = tu_load_pool("schema/kitchen2.proto");
  const pbd_MessageDef *outer = msg(pool, "k2.Outer");
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

  const pbd_FieldDef *f = field(outer, "name");
  ck_assert_str_eq(f->full_name, "k2.Outer.name");
  ck_assert_str_eq(f->json_name, "name");
  ck_assert_int_eq(f->label, kPbd_Label_Required);
  ck_assert_int_eq(f->type, kPbd_Type_String);
  ck_assert(f->has_presence && !f->is_repeated && !f->validate_utf8 && !f->is_extension);
  ck_assert(!f->has_default);
  ck_assert_uint_eq(f->default_value.s.size, 0);
  ck_assert_ptr_null(f->oneof);

  f = field(outer, "nums");
  ck_assert(f->is_repeated && f->is_packable && !f->is_packed && !f->has_presence);
  f = field(outer, "packed_nums");
  ck_assert(f->is_repeated && f->is_packable && f->is_packed);
  ck_assert_str_eq(f->json_name, "packedNums");
  f = field(outer, "strs");
  ck_assert(f->is_repeated && !f->is_packable && !f->is_packed);
  f = field(outer, "colors");
  ck_assert(f->is_packed && f->type == kPbd_Type_Enum);
  ck_assert_ptr_eq(f->enum_type, pbd_DefPool_FindEnumByName(pool, "k2.Color"));

  f = field(outer, "inner");
  ck_assert_int_eq(f->type, kPbd_Type_Message);
  ck_assert_ptr_eq(f->message_type, msg(pool, "k2.Outer.Inner"));
  ck_assert(f->has_presence && !f->is_map);

  f = field(outer, "mygroup");
  ck_assert_int_eq(f->type, kPbd_Type_Group);
  ck_assert_str_eq(f->full_name, "k2.Outer.mygroup");
  ck_assert_ptr_eq(f->message_type, msg(pool, "k2.Outer.MyGroup"));
  ck_assert_int_eq(pbd_FieldType_WireType(f->type), kPbd_WireType_StartGroup);
  ck_assert(f->has_presence);

  f = field(outer, "color");
  ck_assert_ptr_eq(f->enum_type, pbd_DefPool_FindEnumByName(pool, "k2.Color"));
  ck_assert_uint_eq(f->default_value.u, 2); /* RED, the first declared */
  f = field(outer, "mood");
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
  const pbd_MessageDef *inner = msg(pool, "k2.Outer.Inner");
  ck_assert_uint_eq(inner->field_count, 2);
  ck_assert_str_eq(inner->name, "Inner");
  f = field(inner, "mood");
  ck_assert(f->has_default);
  ck_assert_uint_eq(f->default_value.u, 5); /* GLAD */

  /* Lookups by full name. */
  ck_assert_ptr_eq(pbd_DefPool_FindFieldByFullName(pool, "k2.Outer.inner"),
                   field(outer, "inner"));
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
  ck_assert_ptr_eq(e->file, msg(pool, "k2.Outer")->file);
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
  const pbd_MessageDef *m = msg(pool, "k2.Defaults");
#define DEF(name) (field(m, name)->default_value)
  ck_assert(field(m, "d_int32")->has_default);
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
  ck_assert(field(m, "d_color")->has_default);
  ck_assert_uint_eq(DEF("d_color_none").u, 2); /* RED = 2, the first value */
  ck_assert(!field(m, "d_color_none")->has_default);
  ck_assert_uint_eq(DEF("d_none").u, 0);
  ck_assert(!field(m, "d_none")->has_default);
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
  const pbd_MessageDef *m = msg(pool, "k3.sub.Item");
  ck_assert_str_eq(m->file->package, "k3.sub");
  ck_assert_int_eq(m->file->syntax, kPbd_Syntax_Proto3);
  ck_assert_uint_eq(m->field_count, 18);

  const pbd_FieldDef *f = field(m, "plain");
  ck_assert(!f->has_presence && !f->proto3_optional && f->oneof == NULL);
  f = field(m, "opt");
  ck_assert(f->has_presence && f->proto3_optional);
  ck_assert_ptr_null(f->oneof); /* its synthetic oneof is hidden */
  f = field(m, "opt_text");
  ck_assert(f->has_presence && f->proto3_optional && f->validate_utf8 && !f->oneof);
  f = field(m, "text");
  ck_assert(f->validate_utf8 && !f->has_presence);
  f = field(m, "raw");
  ck_assert(!f->validate_utf8 && f->type == kPbd_Type_Bytes);
  ck_assert(field(m, "nums")->is_packed);
  ck_assert(field(m, "doubles")->is_packed);
  f = field(m, "nums_unpacked");
  ck_assert(f->is_packable && !f->is_packed);
  f = field(m, "strs");
  ck_assert(!f->is_packable && !f->is_packed && f->validate_utf8);
  f = field(m, "levels");
  ck_assert(f->is_packed && f->enum_type == pbd_DefPool_FindEnumByName(pool, "k3.sub.Level"));
  ck_assert(!f->enum_type->is_closed);
  f = field(m, "level");
  ck_assert(!f->has_presence && f->default_value.u == 0 && !f->has_default);
  f = field(m, "self");
  ck_assert(f->has_presence && f->message_type == m);
  f = field(m, "any");
  ck_assert_ptr_eq(f->message_type, msg(pool, "google.protobuf.Any"));
  ck_assert_str_eq(f->message_type->file->name, "google/protobuf/any.proto");
  ck_assert_int_eq(f->message_type->file->syntax, kPbd_Syntax_Proto3);

  /* Maps. */
  f = field(m, "counts");
  ck_assert(f->is_map && f->is_repeated && !f->is_packable && !f->has_presence);
  const pbd_MessageDef *entry = f->message_type;
  ck_assert_str_eq(entry->full_name, "k3.sub.Item.CountsEntry");
  ck_assert(entry->is_map_entry);
  ck_assert_uint_eq(entry->field_count, 2);
  ck_assert_str_eq(entry->fields[0]->name, "key");
  ck_assert_int_eq(entry->fields[0]->type, kPbd_Type_String);
  ck_assert_str_eq(entry->fields[1]->name, "value");
  ck_assert_int_eq(entry->fields[1]->type, kPbd_Type_Int32);
  f = field(m, "children");
  ck_assert(f->is_map);
  ck_assert_ptr_eq(f->message_type->fields[1]->message_type, m);
  ck_assert(!field(m, "self")->is_map);

  /* Oneofs: the two real ones only. */
  ck_assert_uint_eq(m->oneof_count, 2);
  ck_assert_str_eq(m->oneofs[0].name, "kind");
  ck_assert_uint_eq(m->oneofs[0].field_count, 2);
  ck_assert_ptr_eq(m->oneofs[0].fields[1], field(m, "k_item"));
  ck_assert_str_eq(m->oneofs[1].name, "other");
  ck_assert_uint_eq(m->oneofs[1].field_count, 1);
  f = field(m, "k_int");
  ck_assert(f->has_presence && f->oneof == &m->oneofs[0]);
  f = field(m, "o_bool");
  ck_assert(f->has_presence && f->oneof == &m->oneofs[1]);
  for (uint32_t i = 0; i < m->field_count; i++) ck_assert_uint_eq(m->fields[i]->index, i);
  pbd_DefPool_Free(pool);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Real schemas. */

START_TEST(test_onnx) {
  pbd_DefPool *pool = tu_load_pool("/usr/include/onnx/onnx.proto");
  const pbd_MessageDef *m = msg(pool, "onnx.ModelProto");
  const pbd_FieldDef *g = field(m, "graph");
  ck_assert_uint_eq(g->number, 7);
  ck_assert_ptr_eq(g->message_type, msg(pool, "onnx.GraphProto"));
  ck_assert_ptr_eq(pbd_DefPool_FindFieldByFullName(pool, "onnx.ModelProto.graph"), g);
  const pbd_EnumDef *dt = pbd_DefPool_FindEnumByName(pool, "onnx.TensorProto.DataType");
  ck_assert_ptr_nonnull(dt);
  ck_assert(dt->is_closed);
  ck_assert_str_eq(pbd_EnumDef_FindValueByNumber(dt, 1)->name, "FLOAT");
  const pbd_FieldDef *et = pbd_DefPool_FindFieldByFullName(pool, "onnx.TypeProto.Tensor.elem_type");
  ck_assert_ptr_nonnull(et);
  ck_assert_int_eq(et->type, kPbd_Type_Int32);
  const pbd_MessageDef *t = msg(pool, "onnx.TensorProto");
  ck_assert(field(t, "float_data")->is_packed); /* [packed = true] in onnx.proto */
  ck_assert(!field(t, "dims")->is_packed);
  ck_assert_uint_eq(msg(pool, "onnx.TypeProto")->oneof_count, 1);
  ck_assert_ptr_eq(field(msg(pool, "onnx.AttributeProto"), "type")->enum_type,
                   pbd_DefPool_FindEnumByName(pool, "onnx.AttributeProto.AttributeType"));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_well_known_types) {
  pbd_DefPool *pool = tu_load_pool("/usr/include/google/protobuf/descriptor.proto");
  const pbd_MessageDef *fdp = msg(pool, "google.protobuf.FieldDescriptorProto");
  ck_assert_uint_eq(field(fdp, "proto3_optional")->number, 17);
  ck_assert_ptr_eq(field(fdp, "type")->enum_type,
                   pbd_DefPool_FindEnumByName(pool, "google.protobuf.FieldDescriptorProto.Type"));
  const pbd_MessageDef *fo = msg(pool, "google.protobuf.FieldOptions");
  const pbd_FieldDef *packed = field(fo, "packed");
  ck_assert_uint_eq(packed->number, 2);
  ck_assert(packed->has_default == false && packed->has_presence);
  /* ctype has [default = STRING]. */
  const pbd_FieldDef *ctype = field(fo, "ctype");
  ck_assert(ctype->has_default);
  ck_assert_uint_eq(ctype->default_value.u, 0);
  pbd_DefPool_Free(pool);

  pool = tu_load_pool("schema/wkt.proto");
  const pbd_MessageDef *all = msg(pool, "wkt.All");
  ck_assert_uint_eq(all->field_count, 11);
  for (uint32_t i = 0; i < all->field_count; i++)
    ck_assert_ptr_nonnull(all->fields[i]->message_type);
  const pbd_FieldDef *sf = field(msg(pool, "google.protobuf.Struct"), "fields");
  ck_assert(sf->is_map);
  ck_assert_ptr_eq(sf->message_type->fields[1]->message_type,
                   msg(pool, "google.protobuf.Value"));
  ck_assert_uint_eq(msg(pool, "google.protobuf.Value")->oneof_count, 1);
  /* An extension of a proto2 message declared in a proto3 file. */
  const pbd_FieldDef *note = pbd_MessageDef_FindFieldByNumber(msg(pool, "google.protobuf.FieldOptions"), 50001);
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
/* Hand-made descriptors. */

START_TEST(test_malformed_bytes) {
  static const struct {
    const char *hex;
    size_t offset;
  } cases[] = {
      {"0a 05 0a 03 61", 1},         /* file LEN runs past the end */
      {"0a 04 0a 05 61 62", 3},      /* file name LEN runs past the file */
      {"0f", 0},                     /* wire type 7 */
      {"0a 06 0a 01 61 22 01 0f", 7}, /* bad tag inside a message_type */
      {"08 ff ff", 1},               /* truncated varint */
      {"0a 03 0a 01 61 0a", 6},      /* truncated length at the end */
      {"0c", 0},                     /* end group without start */
      {"0b 0a 00", 0},               /* group without end */
      {"00", 0},                     /* field number 0 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n;
    uint8_t *data = tu_hex(cases[i].hex, &n);
    pbd_DefPool *pool = pbd_DefPool_New();
    pbd_Status s;
    pbd_Status_Clear(&s);
    ck_assert_msg(!pbd_DefPool_AddFileDescriptorSet(pool, data, n, "bad.desc", &s), "%s",
                  cases[i].hex);
    ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
    ck_assert_msg(s.has_offset && s.offset == cases[i].offset, "%s: offset %zu, msg %s",
                  cases[i].hex, s.offset, s.msg);
    ck_assert_msg(strstr(s.msg, "bad.desc") != NULL, "%s", s.msg);
    /* A failed Add leaves nothing behind: the pool still finalizes. */
    ck_assert(pbd_DefPool_Finalize(pool, &s));
    ck_assert_uint_eq(pbd_DefPool_MessageCount(pool), 0);
    pbd_DefPool_Free(pool);
    free(data);
  }
  /* Empty input is an empty set; a NULL status is accepted. */
  pbd_DefPool *pool = pbd_DefPool_New();
  ck_assert(pbd_DefPool_AddFileDescriptorSet(pool, NULL, 0, "empty", NULL));
  size_t n;
  uint8_t *data = tu_hex("0f", &n);
  ck_assert(!pbd_DefPool_AddFileDescriptorSet(pool, data, n, "bad", NULL));
  free(data);
  ck_assert(pbd_DefPool_Finalize(pool, NULL));
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, "x"));
  pbd_DefPool_Free(pool);
}
END_TEST

/* Hand-built: file "a.proto", package p, with fields in scrambled order. */
START_TEST(test_handmade_ok) {
  pbd_Buf m[2] = {{0}, {0}};
  /* message M { N n = 1 (relative, nested); Top t = 2 (relative, outer);
   * enum-by-lookup e = 3 (no type given); } with the name last. */
  pbd_Buf f1 = fdesc("n", 1, kPbd_Label_Optional, kPbd_Type_Message, "N");
  put_msg(&m[0], 2, &f1);
  pbd_Buf f2 = fdesc("t", 2, kPbd_Label_Optional, 0, "Top");
  put_msg(&m[0], 2, &f2);
  pbd_Buf f3 = fdesc("e", 3, kPbd_Label_Optional, 0, "p.E");
  put_msg(&m[0], 2, &f3);
  pbd_Buf nested = {0};
  put_str(&nested, 1, "N");
  put_msg(&m[0], 3, &nested);
  put_str(&m[0], 1, "Wrong");
  put_str(&m[0], 1, "M"); /* last value wins */
  put_str(&m[1], 1, "Top");
  pbd_Buf en = {0}, v = {0};
  put_str(&en, 1, "E");
  put_str(&v, 1, "E_ONE");
  put_int(&v, 2, 1);
  put_msg(&en, 2, &v);
  /* The file: message types before the package (order must not matter). */
  pbd_Buf file = {0}, set = {0};
  put_msg(&file, 4, &m[0]);
  put_msg(&file, 4, &m[1]);
  put_msg(&file, 5, &en);
  put_str(&file, 2, "p");
  put_str(&file, 1, "a.proto");
  put_int(&file, 99, 7); /* unknown field, skipped */
  put_msg(&set, 1, &file);

  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  ck_assert_msg(add_buf(pool, &set, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  const pbd_MessageDef *mm = msg(pool, "p.M");
  ck_assert_int_eq(mm->file->syntax, kPbd_Syntax_Proto2);
  ck_assert_ptr_eq(field(mm, "n")->message_type, msg(pool, "p.M.N"));
  ck_assert_int_eq(field(mm, "t")->type, kPbd_Type_Message);
  ck_assert_ptr_eq(field(mm, "t")->message_type, msg(pool, "p.Top"));
  ck_assert_int_eq(field(mm, "e")->type, kPbd_Type_Enum);
  ck_assert_uint_eq(field(mm, "e")->default_value.u, 1);
  ck_assert_str_eq(field(mm, "n")->json_name, "n");
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, "p.Wrong"));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_unresolvable_type) {
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_Buf f = fdesc("f", 1, kPbd_Label_Optional, kPbd_Type_Message, ".p.Missing");
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1), "p.M.f");
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  f = fdesc("f", 1, kPbd_Label_Optional, kPbd_Type_Message, ".p.Missing");
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1), ".p.Missing");
  /* An enum type named as a message. */
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  f = fdesc("f", 1, kPbd_Label_Optional, kPbd_Type_Enum, ".p.M");
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1), "not an enum");
  /* A message field without a type name. */
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  f = fdesc("f", 1, kPbd_Label_Optional, kPbd_Type_Message, NULL);
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1), "no type name");
}
END_TEST

START_TEST(test_duplicate_field_number) {
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_Buf a = fdesc("a", 3, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  pbd_Buf b = fdesc("b", 3, kPbd_Label_Optional, kPbd_Type_String, NULL);
  put_msg(&m, 2, &a);
  put_msg(&m, 2, &b);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1),
                        "duplicate field number 3 in p.M (a and b)");

  /* An extension that takes a field's number. */
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  a = fdesc("a", 3, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_msg(&m, 2, &a);
  pbd_Buf range = {0};
  put_int(&range, 1, 1);
  put_int(&range, 2, 10);
  put_msg(&m, 5, &range); /* extensions 1 to 9 */
  pbd_Buf x = fdesc("x", 3, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_str(&x, 2, ".p.M");
  put_msg(&m, 6, &x); /* nested extension: p.M.x */
  expect_finalize_error(one_file("a.proto", NULL, &m, 1),
                        "duplicate field number 3 in p.M (a and p.M.x)");
}
END_TEST

/* Extension ranges are loaded, and an extension outside them is an error. */
START_TEST(test_extension_ranges) {
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_Buf r1 = {0}, r2 = {0};
  put_int(&r1, 1, 100);
  put_int(&r1, 2, 201);
  put_int(&r2, 2, 1000); /* fields in any order */
  put_int(&r2, 1, 500);
  put_msg(&m, 5, &r1);
  put_msg(&m, 5, &r2);
  pbd_Buf x = fdesc("x", 300, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_str(&x, 2, ".p.M");
  put_msg(&m, 6, &x);
  expect_finalize_error(one_file("a.proto", NULL, &m, 1),
                        "extension p.M.x: number 300 is not in an extension range of p.M");

  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  r1 = (pbd_Buf){0};
  r2 = (pbd_Buf){0};
  put_int(&r1, 1, 100);
  put_int(&r1, 2, 201);
  put_int(&r2, 2, 1000);
  put_int(&r2, 1, 500);
  put_msg(&m, 5, &r1);
  put_msg(&m, 5, &r2);
  x = fdesc("x", 999, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_str(&x, 2, ".p.M");
  put_msg(&m, 6, &x);
  pbd_Buf set = one_file("a.proto", NULL, &m, 1);
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  ck_assert(add_buf(pool, &set, &s));
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  const pbd_MessageDef *M = pbd_DefPool_FindMessageByName(pool, "p.M");
  ck_assert_uint_eq(M->extension_range_count, 2);
  ck_assert_uint_eq(M->extension_ranges[0].start, 100);
  ck_assert_uint_eq(M->extension_ranges[0].end, 201);
  ck_assert_uint_eq(M->extension_ranges[1].start, 500);
  ck_assert_uint_eq(M->extension_ranges[1].end, 1000);
  ck_assert_ptr_nonnull(pbd_MessageDef_FindFieldByNumber(M, 999));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_duplicate_names) {
  pbd_Buf m1 = {0}, m2 = {0};
  put_str(&m1, 1, "M");
  put_str(&m2, 1, "M");
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Buf set = one_file("a.proto", NULL, &m1, 1);
  ck_assert(add_buf(pool, &set, &s));
  set = one_file("b.proto", "proto3", &m2, 1);
  ck_assert(add_buf(pool, &set, &s));
  ck_assert(!pbd_DefPool_Finalize(pool, &s));
  ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
  ck_assert_msg(strstr(s.msg, "duplicate name p.M (in a.proto and b.proto)"), "%s", s.msg);
  pbd_DefPool_Free(pool);

  /* The same file name twice: the second is skipped, no error. */
  m1 = (pbd_Buf){0};
  m2 = (pbd_Buf){0};
  put_str(&m1, 1, "M");
  put_str(&m2, 1, "Other");
  pbd_Buf f1 = {0}, f2 = {0};
  put_str(&f1, 1, "a.proto");
  put_msg(&f1, 4, &m1);
  put_str(&f2, 1, "a.proto");
  put_msg(&f2, 4, &m2);
  set = (pbd_Buf){0};
  put_msg(&set, 1, &f1);
  put_msg(&set, 1, &f2);
  pool = pbd_DefPool_New();
  ck_assert(add_buf(pool, &set, &s));
  ck_assert(pbd_DefPool_Finalize(pool, &s));
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "M"));
  ck_assert_ptr_null(pbd_DefPool_FindMessageByName(pool, "Other"));
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_editions_and_bad_files) {
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Buf set = one_file("ed.proto", "editions", &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
  ck_assert_msg(strstr(s.msg, "editions are not supported"), "%s", s.msg);
  ck_assert(s.has_offset);

  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  set = one_file("x.proto", "proto4", &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "unknown syntax"), "%s", s.msg);

  /* An enum without values. */
  pbd_Buf file = {0}, en = {0};
  set = (pbd_Buf){0};
  put_str(&file, 1, "e.proto");
  put_str(&en, 1, "Empty");
  put_msg(&file, 5, &en);
  put_msg(&set, 1, &file);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "enum Empty has no values"), "%s", s.msg);

  /* A file without a name; a message without a name; a bad field number. */
  file = (pbd_Buf){0};
  set = (pbd_Buf){0};
  put_str(&file, 2, "p");
  put_msg(&set, 1, &file);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "file without a name"), "%s", s.msg);
  m = (pbd_Buf){0};
  put_str(&m, 8, "x");
  set = one_file("n.proto", NULL, &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "message without a name"), "%s", s.msg);
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  pbd_Buf f = fdesc("f", 0, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_msg(&m, 2, &f);
  set = one_file("n.proto", NULL, &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "invalid field number 0"), "%s", s.msg);
  m = (pbd_Buf){0};
  put_str(&m, 1, "M");
  f = fdesc("f", 1, kPbd_Label_Optional, 19, NULL);
  put_msg(&m, 2, &f);
  set = one_file("n.proto", NULL, &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "invalid field type 19"), "%s", s.msg);
  /* A NUL inside a name. */
  m = (pbd_Buf){0};
  put_bytes(&m, 1, "A\0B", 3);
  set = one_file("n.proto", NULL, &m, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "NUL"), "%s", s.msg);

  /* None of the failed files is in the pool. */
  ck_assert(pbd_DefPool_Finalize(pool, &s));
  ck_assert_uint_eq(pbd_DefPool_MessageCount(pool), 0);
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_map_entry_checks) {
  /* map_entry message without its value field. */
  pbd_Buf m = {0}, entry = {0}, opts = {0};
  put_str(&entry, 1, "BadEntry");
  pbd_Buf k = fdesc("key", 1, kPbd_Label_Optional, kPbd_Type_String, NULL);
  put_msg(&entry, 2, &k);
  put_int(&opts, 7, 1);
  put_msg(&entry, 7, &opts);
  put_str(&m, 1, "M");
  put_msg(&m, 3, &entry);
  pbd_Buf f = fdesc("bad", 1, kPbd_Label_Repeated, kPbd_Type_Message, "BadEntry");
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("m.proto", "proto3", &m, 1),
                        "map entry p.M.BadEntry lacks");
}
END_TEST

START_TEST(test_bad_defaults) {
  static const struct {
    int type;
    const char *type_name;
    const char *def;
  } cases[] = {
      {kPbd_Type_Int32, NULL, "abc"},         {kPbd_Type_Int32, NULL, "2147483648"},
      {kPbd_Type_UInt32, NULL, "-1"},         {kPbd_Type_UInt64, NULL, "18446744073709551616"},
      {kPbd_Type_Bool, NULL, "yes"},          {kPbd_Type_Double, NULL, "1.5x"},
      {kPbd_Type_Float, NULL, ""},            {kPbd_Type_Bytes, NULL, "\\q"},
      {kPbd_Type_Bytes, NULL, "\\"},          {kPbd_Type_Bytes, NULL, "\\400"},
      {kPbd_Type_Bytes, NULL, "\\x"},         {kPbd_Type_Enum, ".p.M.E", "NOPE"},
      {kPbd_Type_Message, ".p.M", "x"},       {kPbd_Type_Int64, NULL, " 5"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pbd_Buf m = {0}, en = {0}, v = {0};
    put_str(&m, 1, "M");
    pbd_Buf f = fdesc("f", 1, kPbd_Label_Optional, cases[i].type, cases[i].type_name);
    put_str(&f, 7, cases[i].def);
    put_msg(&m, 2, &f);
    put_str(&en, 1, "E");
    put_str(&v, 1, "E0");
    put_msg(&en, 2, &v);
    put_msg(&m, 4, &en);
    pbd_Buf set = one_file("d.proto", NULL, &m, 1); /* M with a nested enum p.M.E */
    pbd_DefPool *pool = pbd_DefPool_New();
    pbd_Status s;
    ck_assert_msg(add_buf(pool, &set, &s), "%s", s.msg);
    ck_assert_msg(!pbd_DefPool_Finalize(pool, &s), "default \"%s\" accepted", cases[i].def);
    ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
    pbd_DefPool_Free(pool);
  }
  /* Hex, octal and escapes that are fine. */
  static const struct {
    int type;
    const char *def;
    uint64_t u;
  } good[] = {
      {kPbd_Type_Int32, "0x10", 16},
      {kPbd_Type_Int32, "-0x10", (uint64_t)(int64_t)-16},
      {kPbd_Type_UInt32, "010", 8},
      {kPbd_Type_Int64, "-9223372036854775808", (uint64_t)INT64_MIN},
      {kPbd_Type_Bool, "false", 0},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    pbd_Buf m = {0};
    put_str(&m, 1, "M");
    pbd_Buf f = fdesc("f", 1, kPbd_Label_Optional, good[i].type, NULL);
    put_str(&f, 7, good[i].def);
    put_msg(&m, 2, &f);
    pbd_Buf set = one_file("d.proto", NULL, &m, 1);
    pbd_DefPool *pool = pbd_DefPool_New();
    pbd_Status s;
    ck_assert(add_buf(pool, &set, &s));
    ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s: %s", good[i].def, s.msg);
    ck_assert_uint_eq(pbd_DefPool_FindFieldByFullName(pool, "p.M.f")->default_value.u,
                      good[i].u);
    pbd_DefPool_Free(pool);
  }
  /* \x41 and short octal escapes. */
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_Buf f = fdesc("f", 1, kPbd_Label_Optional, kPbd_Type_Bytes, NULL);
  put_str(&f, 7, "\\x41\\1\\12x\\?");
  put_msg(&m, 2, &f);
  pbd_Buf set = one_file("d.proto", NULL, &m, 1);
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  ck_assert(add_buf(pool, &set, &s));
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  pbd_StrView sv = pbd_DefPool_FindFieldByFullName(pool, "p.M.f")->default_value.s;
  ck_assert_uint_eq(sv.size, 5);
  ck_assert(memcmp(sv.data, "A\001\012x?", 5) == 0);
  pbd_DefPool_Free(pool);
}
END_TEST

START_TEST(test_deep_nesting) {
  /* 300 nested message types: refused, without exhausting the stack. */
  pbd_Buf cur = {0};
  put_str(&cur, 1, "N");
  for (int i = 0; i < 300; i++) {
    pbd_Buf outer = {0};
    put_str(&outer, 1, "N");
    put_msg(&outer, 3, &cur);
    cur = outer;
  }
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Buf set = one_file("deep.proto", NULL, &cur, 1);
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
  ck_assert_msg(strstr(s.msg, "nested too deep"), "%s", s.msg);
  pbd_DefPool_Free(pool);
}
END_TEST

/* Every truncation and many byte mutations of a real descriptor set either
 * load or fail cleanly (run under ASan to catch overreads and leaks). */
START_TEST(test_hostile_mutations) {
  char *desc = tu_compile_proto("schema/kitchen2.proto");
  size_t n;
  uint8_t *data = tu_read_file(desc, &n);
  ck_assert_ptr_nonnull(data);
  unlink(desc);
  free(desc);
  for (size_t len = 0; len < n; len += (len < 600 ? 1 : 7)) {
    uint8_t *copy = malloc(len ? len : 1); /* exact size, so ASan sees overreads */
    memcpy(copy, data, len);
    pbd_DefPool *pool = pbd_DefPool_New();
    pbd_Status s;
    pbd_Status_Clear(&s);
    if (pbd_DefPool_AddFileDescriptorSet(pool, copy, len, "t", &s))
      pbd_DefPool_Finalize(pool, &s);
    else
      ck_assert_int_eq(s.code, kPbd_Status_BadSchema);
    pbd_DefPool_Free(pool);
    free(copy);
  }
  uint32_t rng = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    uint8_t *copy = malloc(n);
    memcpy(copy, data, n);
    for (int k = 0; k < 1 + iter % 4; k++) {
      rng = rng * 1103515245u + 12345u;
      size_t at = (rng >> 8) % n;
      rng = rng * 1103515245u + 12345u;
      copy[at] = (uint8_t)(rng >> 16);
    }
    pbd_DefPool *pool = pbd_DefPool_New();
    pbd_Status s;
    pbd_Status_Clear(&s);
    if (pbd_DefPool_AddFileDescriptorSet(pool, copy, n, "t", &s) &&
        pbd_DefPool_Finalize(pool, &s)) {
      /* Whatever loaded must be consistent. */
      for (size_t i = 0; i < pbd_DefPool_MessageCount(pool); i++) {
        const pbd_MessageDef *m = pbd_DefPool_Message(pool, i);
        ck_assert_ptr_eq(pbd_DefPool_FindMessageByName(pool, m->full_name), m);
        for (uint32_t j = 0; j < m->field_count; j++) {
          ck_assert_uint_eq(m->fields[j]->index, j);
          if (j) ck_assert_uint_gt(m->fields[j]->number, m->fields[j - 1]->number);
        }
      }
    } else {
      ck_assert_int_ne(s.code, kPbd_Status_Ok);
    }
    pbd_DefPool_Free(pool);
    free(copy);
  }
  free(data);
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
  const pbd_MessageDef *m = msg(pool, "k3.sub.Item");
  ck_assert_str_eq(m->file->name, "schema/kitchen3.proto");
  ck_assert_ptr_nonnull(pbd_DefPool_FindMessageByName(pool, "google.protobuf.Any"));
  pbd_DefPool_Free(pool);

  /* Without -I: the file's own directory is added. */
  pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, protos, 1, NULL, 0, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_str_eq(msg(pool, "k3.sub.Item")->file->name, "kitchen3.proto");
  pbd_DefPool_Free(pool);

  /* A file under /usr/include keeps its import name. */
  const char *onnx[] = {"/usr/include/onnx/onnx.proto", "/usr/include/google/protobuf/struct.proto"};
  pool = pbd_DefPool_New();
  ck_assert_msg(pbd_DefPool_AddProtoFiles(pool, onnx, 2, NULL, 0, &s), "%s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "%s", s.msg);
  ck_assert_str_eq(msg(pool, "onnx.ModelProto")->file->name, "onnx/onnx.proto");
  ck_assert_str_eq(msg(pool, "google.protobuf.Struct")->file->name,
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
  ck_assert_str_eq(msg(pool, "k2.Outer")->file->name, "my schema.proto");
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

static Suite *schema_suite(void) {
  Suite *suite = suite_create("schema");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_kitchen2_structure);
  tcase_add_test(tc, test_kitchen2_enums);
  tcase_add_test(tc, test_kitchen2_defaults);
  tcase_add_test(tc, test_kitchen3);
  tcase_add_test(tc, test_onnx);
  tcase_add_test(tc, test_well_known_types);
  tcase_add_test(tc, test_add_twice);
  tcase_add_test(tc, test_malformed_bytes);
  tcase_add_test(tc, test_handmade_ok);
  tcase_add_test(tc, test_unresolvable_type);
  tcase_add_test(tc, test_duplicate_field_number);
  tcase_add_test(tc, test_extension_ranges);
  tcase_add_test(tc, test_duplicate_names);
  tcase_add_test(tc, test_editions_and_bad_files);
  tcase_add_test(tc, test_map_entry_checks);
  tcase_add_test(tc, test_bad_defaults);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_hostile_mutations);
  tcase_add_test(tc, test_add_proto_files);
  tcase_add_test(tc, test_add_proto_files_spaces);
  tcase_add_test(tc, test_add_proto_files_errors);
  tcase_add_test(tc, test_field_types);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(void) {
  return tu_main(schema_suite());
}
