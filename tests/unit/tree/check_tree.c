/* The canonical tree (lib/tree/tree.h) built from hand-made bytes and read
 * back field by field: fields sorted by number, typed values (ints, zigzag,
 * bool, enum, float bits, strings as views of the input), the last value
 * winning, packed == unpacked, messages merged, map entries sorted by key,
 * implicit defaults dropped, unknown fields kept by number, schemaless
 * fields (varints, nested messages, LEN that is not a message, groups),
 * Any payloads, look-ups, and hashes: equal for equal meaning, different
 * otherwise. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "pbdiff/tree/tree.h"

static pbd_Arena *arena;
static void setup(void) { arena = pbd_Arena_New(); }
static void teardown(void) { pbd_Arena_Free(arena); }

static const pbd_MessageDef *M(void) { return tu_type("sem3.M"); }
static pbd_Message *tree(const char *hex) { return tu_tree(M(), hex, NULL, arena); }
static pbd_Message *raw(const char *hex) { return tu_tree(NULL, hex, NULL, arena); }

/* The field `number` of m, which must be there. */
static const pbd_Field *field(const pbd_Message *m, uint32_t number) {
  const pbd_Field *f = pbd_Message_FindField(m, number);
  ck_assert_msg(f != NULL, "no field %u", number);
  return f;
}

static bool str_is(pbd_StrView v, const char *s) {
  return v.size == strlen(s) && !memcmp(v.data, s, v.size);
}

START_TEST(fields_sorted_and_typed) {
  /* written backwards: color GREEN, bool, sint32 -2, int64 -1, int32 150 */
  pbd_Message *m = tree("60 02  38 01  28 03  10 ff ff ff ff ff ff ff ff ff 01  08 96 01");
  ck_assert_uint_eq(pbd_Message_FieldCount(m), 5);
  const pbd_Field *fs = pbd_Message_Fields(m);
  uint32_t want[] = {1, 2, 5, 7, 12};
  for (int i = 0; i < 5; i++) ck_assert_uint_eq(fs[i].number, want[i]);
  ck_assert_int_eq(fs[0].kind, kPbd_Value_Int);
  ck_assert_ptr_nonnull(fs[0].def);
  ck_assert_str_eq(fs[0].def->name, "i32");
  ck_assert_uint_eq(fs[0].count, 1);
  ck_assert_int_eq(pbd_Field_Value(&fs[0], 0).i, 150);
  ck_assert_int_eq(pbd_Field_Value(&fs[1], 0).i, -1);
  ck_assert_int_eq(pbd_Field_Value(&fs[2], 0).i, -2); /* zigzag */
  ck_assert_int_eq(pbd_Field_Value(&fs[3], 0).kind, kPbd_Value_Bool);
  ck_assert_uint_eq(pbd_Field_Value(&fs[3], 0).u, 1);
  pbd_Value color = pbd_Field_Value(&fs[4], 0);
  ck_assert_int_eq(color.kind, kPbd_Value_Enum);
  ck_assert_int_eq(color.i, 2);
  ck_assert_ptr_eq(color.field, fs[4].def);
  ck_assert_ptr_null(pbd_Message_FindField(m, 3));
  ck_assert(!pbd_Message_IsEmpty(m));
}
END_TEST

START_TEST(strings_floats_and_last_value) {
  /* str "ab" then "xyz" (the last wins), f 1.5, d 0.1 */
  pbd_Message *m = tree("52 02 61 62  45 00 00 c0 3f  49 9a 99 99 99 99 99 b9 3f  52 03 78 79 7a");
  const pbd_Field *str = field(m, 10);
  ck_assert_uint_eq(str->count, 1);
  ck_assert_int_eq(str->kind, kPbd_Value_String);
  ck_assert(str_is(str->v.strs[0], "xyz"));
  ck_assert_uint_eq(pbd_Field_Scalar(field(m, 8), 0), 0x3fc00000u); /* the float's bits */
  ck_assert(pbd_Field_Scalar(field(m, 9), 0) == 0x3fb999999999999aull);
  ck_assert_int_eq(field(m, 9)->kind, kPbd_Value_Double);
  /* scalars: the last of several wins */
  m = tree("08 01 08 07 08 05");
  ck_assert_uint_eq(field(m, 1)->count, 1);
  ck_assert_int_eq(pbd_Field_Value(field(m, 1), 0).i, 5);
}
END_TEST

START_TEST(repeated_packed_and_unpacked) {
  pbd_Message *p = tree("72 03 01 02 03");
  pbd_Message *u = tree("70 01 70 02 70 03");
  pbd_Message *mix = tree("70 01 72 02 02 03");
  const pbd_Message *all[] = {p, u, mix};
  for (int k = 0; k < 3; k++) {
    const pbd_Field *ri = field(all[k], 14);
    ck_assert_uint_eq(ri->count, 3);
    for (uint32_t i = 0; i < 3; i++) ck_assert_int_eq(pbd_Field_Value(ri, i).i, (int64_t)i + 1);
    ck_assert(pbd_Hash128_Equal(all[k]->hash, p->hash));
  }
  /* order matters */
  ck_assert(!pbd_Hash128_Equal(tree("72 03 03 02 01")->hash, p->hash));
  /* repeated messages keep their order and count */
  pbd_Message *rm = tree("7a 02 08 02  7a 02 08 01  7a 00");
  const pbd_Field *f = field(rm, 15);
  ck_assert_uint_eq(f->count, 3);
  ck_assert_int_eq(pbd_Field_Value(field(f->v.msgs[0], 1), 0).i, 2);
  ck_assert_int_eq(pbd_Field_Value(field(f->v.msgs[1], 1), 0).i, 1);
  ck_assert(pbd_Message_IsEmpty(f->v.msgs[2]));
}
END_TEST

START_TEST(messages_merge) {
  /* inner { a: 1 } then inner { s: "x" }: one inner with both */
  pbd_Message *m = tree("6a 02 08 01  6a 03 12 01 78");
  const pbd_Field *inner = field(m, 13);
  ck_assert_uint_eq(inner->count, 1);
  const pbd_Message *in = inner->v.msgs[0];
  ck_assert_ptr_eq(in->def, tu_type("sem3.Inner"));
  ck_assert_uint_eq(pbd_Message_FieldCount(in), 2);
  ck_assert_int_eq(pbd_Field_Value(field(in, 1), 0).i, 1);
  ck_assert(str_is(field(in, 2)->v.strs[0], "x"));
  ck_assert(pbd_Hash128_Equal(m->hash, tree("6a 05 08 01 12 01 78")->hash));
}
END_TEST

START_TEST(maps_sorted_by_key) {
  /* ms {"b": 2}, {"a": 1}, then "b" again with 3 (the last wins) */
  pbd_Message *m = tree("82 01 05 0a 01 62 10 02  82 01 05 0a 01 61 10 01  82 01 05 0a 01 62 10 03");
  const pbd_Field *ms = field(m, 16);
  ck_assert_uint_eq(ms->count, 2);
  pbd_Value k0 = pbd_MapEntry_Part(ms->v.msgs[0], 1), v0 = pbd_MapEntry_Part(ms->v.msgs[0], 2);
  pbd_Value k1 = pbd_MapEntry_Part(ms->v.msgs[1], 1), v1 = pbd_MapEntry_Part(ms->v.msgs[1], 2);
  ck_assert(str_is(k0.s, "a") && v0.i == 1);
  ck_assert(str_is(k1.s, "b") && v1.i == 3);
  /* a missing value is the default */
  m = tree("82 01 03 0a 01 61");
  ck_assert_int_eq(pbd_MapEntry_Part(field(m, 16)->v.msgs[0], 2).i, 0);
  ck_assert(pbd_Hash128_Equal(m->hash, tree("82 01 05 0a 01 61 10 00")->hash));
  /* int keys sort by value, negative first */
  m = tree("8a 01 02 08 02  8a 01 0b 08 ff ff ff ff ff ff ff ff ff 01");
  ck_assert_int_eq(pbd_MapEntry_Part(field(m, 17)->v.msgs[0], 1).i, -1);
}
END_TEST

START_TEST(defaults_and_unknown_fields) {
  /* proto3 implicit fields set to their defaults are absent */
  pbd_Message *m = tree("08 00 52 00 38 00 60 00");
  ck_assert_uint_eq(pbd_Message_FieldCount(m), 0);
  ck_assert(pbd_Message_IsEmpty(m));
  ck_assert(pbd_Hash128_Equal(m->hash, tree("")->hash));
  /* a proto3 optional keeps its presence */
  m = tree("90 01 00");
  ck_assert_int_eq(pbd_Field_Value(field(m, 18), 0).i, 0);
  /* unknown field 127, two values, and a wire type that does not match
   * field 1 (LEN for an int32): both unknown, kinds per value */
  m = tree("f8 07 05  0a 01 78  f8 07 06  08 02");
  const pbd_Field *fs = pbd_Message_Fields(m);
  ck_assert_uint_eq(pbd_Message_FieldCount(m), 3);
  ck_assert_uint_eq(fs[0].number, 1);
  ck_assert_ptr_nonnull(fs[0].def); /* the known one first */
  ck_assert_uint_eq(fs[1].number, 1);
  ck_assert_ptr_null(fs[1].def);
  ck_assert_ptr_eq(pbd_Message_FindField(m, 1), &fs[0]);
  const pbd_Field *u = field(m, 127);
  ck_assert_ptr_null(u->def);
  ck_assert_uint_eq(u->count, 2);
  ck_assert_int_eq(u->v.unknowns[0].kind, kPbd_Value_Varint);
  ck_assert_uint_eq(u->v.unknowns[0].u, 5);
  ck_assert_uint_eq(u->v.unknowns[1].u, 6);
}
END_TEST

START_TEST(schemaless_fields) {
  /* 1: varint 1; 2: a LEN that reads as { 1: 2 }; 3: "x" (not a message:
   * 0x78 is field 15 with a truncated varint); 4: fixed32; 5: group { 1: 3 } */
  pbd_Message *m = raw("08 01  12 02 08 02  1a 01 78  25 07 00 00 00  2b 08 03 2c");
  ck_assert_ptr_null(m->def);
  ck_assert_uint_eq(pbd_Message_FieldCount(m), 5);
  ck_assert_int_eq(field(m, 1)->v.unknowns[0].kind, kPbd_Value_Varint);
  const pbd_UnknownValue *two = &field(m, 2)->v.unknowns[0];
  ck_assert_int_eq(two->kind, kPbd_Value_LenMessage);
  ck_assert_uint_eq(field(two->m, 1)->v.unknowns[0].u, 2);
  const pbd_UnknownValue *three = &field(m, 3)->v.unknowns[0];
  ck_assert_int_eq(three->kind, kPbd_Value_Len);
  ck_assert(str_is(three->s, "x"));
  ck_assert_int_eq(field(m, 4)->v.unknowns[0].kind, kPbd_Value_Fixed32);
  ck_assert_uint_eq(field(m, 4)->v.unknowns[0].u, 7);
  const pbd_UnknownValue *g = &field(m, 5)->v.unknowns[0];
  ck_assert_int_eq(g->kind, kPbd_Value_Group);
  ck_assert_uint_eq(field(g->m, 1)->v.unknowns[0].u, 3);
  /* field order does not matter, the order of one number's values does */
  ck_assert(pbd_Hash128_Equal(raw("08 01 10 02")->hash, raw("10 02 08 01")->hash));
  ck_assert(!pbd_Hash128_Equal(raw("08 01 08 02")->hash, raw("08 02 08 01")->hash));
}
END_TEST

START_TEST(any_payload_and_hash_seed) {
  /* any { type_url: "type.googleapis.com/sem3.Inner" value: { a: 1 } } */
  char *url = tu_hex_of("type.googleapis.com/sem3.Inner");
  char hex[256];
  snprintf(hex, sizeof hex, "b2 01 24 0a 1e %s 12 02 08 01", url);
  free(url);
  pbd_Message *m = tree(hex);
  const pbd_Message *any = field(m, 22)->v.msgs[0];
  const pbd_Message *payload = pbd_Message_AnyPayload(any);
  ck_assert_ptr_nonnull(payload);
  ck_assert_ptr_eq(payload->def, tu_type("sem3.Inner"));
  ck_assert_int_eq(pbd_Field_Value(field(payload, 1), 0).i, 1);
  ck_assert(str_is(pbd_Message_AnyTypeUrl(any), "type.googleapis.com/sem3.Inner"));
  /* another seed, another hash for the same content */
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 99;
  pbd_Message *a = tu_tree(M(), "08 01", NULL, arena), *b = tu_tree(M(), "08 01", &o, arena);
  ck_assert(!pbd_Hash128_Equal(a->hash, b->hash));
  ck_assert(pbd_Hash128_Equal(a->hash, tree("08 01")->hash));
}
END_TEST

START_TEST(parse_errors) {
  size_t n;
  uint8_t *b = tu_hex("08 01 6a 03 12 05 61", &n);
  pbd_ReadOptions o = {.hash_seed = 1};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_ptr_null(pbd_Tree_Parse(M(), b, 0, n, &o, arena, &s));
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  ck_assert_str_eq(s.path, "inner");
  /* begin and end select a range; offsets still count from buf */
  pbd_Status_Clear(&s);
  pbd_Message *m = pbd_Tree_Parse(M(), b, 0, 2, &o, arena, &s);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(pbd_Field_Value(field(m, 1), 0).i, 1);
  pbd_Status_Clear(&s);
  ck_assert_ptr_null(pbd_Tree_Parse(M(), b, 4, n, &o, arena, &s));
  ck_assert(s.has_offset && s.offset >= 4);
  free(b);
}
END_TEST

/* Hex of n fixed-width values, each after the tag `tag` (unpacked) or all
 * in one LEN field of tag `len_tag` (packed); `odd` (a one-byte tag) puts a
 * data_type field (08 01) before the value at n/2 and writes the tag of the
 * value at 2n/3 in two bytes (25 as a5 00), so that the unpacked run breaks
 * twice.
 * value(i) gives the i-th value's bits. */
static char *fixed_hex(size_t n, size_t width, const char *tag, const char *len_tag, bool odd,
                       uint64_t (*value)(size_t)) {
  unsigned long tag_byte = strtoul(tag, NULL, 16);
  char *hex = malloc(n * (width * 3 + 12) + 64), *o = hex;
  if (len_tag) {
    size_t len = n * width; /* a two-byte varint is enough here */
    o += sprintf(o, "%s %02zx %02zx ", len_tag, (len & 0x7f) | 0x80, len >> 7);
  }
  for (size_t i = 0; i < n; i++) {
    if (!len_tag && odd && i == n / 2) o += sprintf(o, "08 01 ");
    if (!len_tag && odd && i == 2 * n / 3) o += sprintf(o, "%02lx 00 ", tag_byte | 0x80);
    else if (!len_tag) o += sprintf(o, "%s ", tag);
    uint64_t v = value(i);
    for (size_t b = 0; b < width; b++) o += sprintf(o, "%02x ", (unsigned)(v >> (8 * b)) & 0xff);
  }
  if (len_tag && odd) o += sprintf(o, "08 01");
  return hex;
}

/* Floats with a -0 and a NaN that is not canonical among them. */
static uint64_t float_bits(size_t i) {
  return i == 7 ? 0x80000000u : i == 300 ? 0x7fc00001u : (uint32_t)(0x3f800000u + 977 * i);
}
static uint64_t double_bits(size_t i) { return i == 5 ? 1ull << 63 : 0x3ff0000000000000ull + 12345 * i; }
static uint64_t negative_bits(size_t i) { return (uint32_t)(-(int32_t)i * 1000003); }

/* A repeated fixed-width field written unpacked is read a run at a time:
 * the same values, in order, and the same hash as packed, the hash pass
 * agreeing, where another field or a two-byte tag breaks the run, for
 * 1- and 2-byte tags, floats (-0 and a NaN kept as bits), doubles and
 * sfixed32 (sign-extended). */
START_TEST(unpacked_fixed_runs) {
  static const struct {
    const char *type, *tag, *len_tag;
    uint32_t number;
    size_t n, width;
    uint64_t (*value)(size_t);
  } k[] = {
      {"onnx.TensorProto", "25", "22", 4, 600, 4, float_bits},
      {"onnx.TensorProto", "51", "52", 10, 300, 8, double_bits},
      {"sem3.M", "95 02", "92 02", 34, 200, 4, negative_bits},
  };
  pbd_ReadOptions o = {0};
  for (size_t c = 0; c < sizeof k / sizeof k[0]; c++) {
    const pbd_MessageDef *t = tu_type(k[c].type);
    o.pool = tu_type_pool(k[c].type);
    bool odd = c < 2; /* (sem3.M has no field 1 of varints to break the run with) */
    char *uh = fixed_hex(k[c].n, k[c].width, k[c].tag, NULL, odd, k[c].value);
    char *ph = fixed_hex(k[c].n, k[c].width, k[c].tag, k[c].len_tag, odd, k[c].value);
    pbd_Message *u = tu_tree(t, uh, &o, arena), *p = tu_tree(t, ph, &o, arena);
    const pbd_Field *uf = field(u, k[c].number), *pf = field(p, k[c].number);
    ck_assert_uint_eq(uf->count, k[c].n);
    ck_assert_uint_eq(pf->count, k[c].n);
    for (size_t i = 0; i < k[c].n; i++) {
      uint64_t want = k[c].value(i);
      if (k[c].number == 34) want = (uint64_t)(int64_t)(int32_t)(uint32_t)want;
      ck_assert_msg(pbd_Field_Scalar(uf, i) == want && pbd_Field_Scalar(pf, i) == want, "%s field %u [%zu]: %llx, %llx",
                    k[c].type, k[c].number, i, (unsigned long long)pbd_Field_Scalar(uf, i),
                    (unsigned long long)pbd_Field_Scalar(pf, i));
    }
    ck_assert(pbd_Hash128_Equal(u->hash, p->hash));
    size_t un, pn;
    uint8_t *ub = tu_hex(uh, &un), *pb = tu_hex(ph, &pn);
    ck_assert(pbd_Hash128_Equal(tu_hash_agrees(t, ub, un, &o), u->hash));
    ck_assert(pbd_Hash128_Equal(tu_hash_agrees(t, pb, pn, &o), u->hash));
    free(ub), free(pb), free(uh), free(ph);
  }
  /* a value cut short ends the run; the field reader says where (its value
   * starts at byte 11) */
  size_t n;
  uint8_t *b = tu_hex("25 00 00 80 3f  25 00 00 00 40  25 00 00", &n);
  pbd_Status s;
  pbd_Status_Clear(&s);
  o.pool = tu_type_pool("onnx.TensorProto");
  ck_assert_ptr_null(pbd_Tree_Parse(tu_type("onnx.TensorProto"), b, 0, n, &o, arena, &s));
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  ck_assert_msg(s.has_offset && s.offset == 11, "%s at %zu", s.msg, s.offset);
  free(b);
}
END_TEST

/* float_bits with the value at changed_at one bit off (none: SIZE_MAX). */
static size_t changed_at = SIZE_MAX;
static uint64_t changed_bits(size_t i) { return float_bits(i) ^ (i == changed_at); }

/* A run of 16 fixed-width values or more is left in the input
 * (pbd_Field.stride: 4 apart packed, 5 unpacked, each after its tag byte);
 * fewer are copied into slots, and so is a run that another run of the
 * field follows.  Each form reads back the same slots, and
 * pbd_Field_FirstScalarDifference finds the one value changed, at either
 * end of a block of 512 or of the list, whatever the two sides' forms. */
START_TEST(fixed_values_in_place) {
  const pbd_MessageDef *t = tu_type("onnx.TensorProto");
  pbd_ReadOptions o = {0};
  o.pool = tu_type_pool("onnx.TensorProto");
  static const size_t sizes[] = {15, 16, 1100}, at[] = {0, 511, 512, 1099};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    size_t n = sizes[z];
    const pbd_Field *f[2][3]; /* [unchanged, changed][packed, unpacked, two runs] */
    for (size_t a = 0; a < sizeof at / sizeof at[0] && at[a] < n; a++) {
      for (int c = 0; c < 2; c++) {
        changed_at = c ? at[a] : SIZE_MAX;
        char *hex[3] = {fixed_hex(n, 4, "25", "22", false, changed_bits),
                        fixed_hex(n, 4, "25", NULL, false, changed_bits),
                        fixed_hex(n, 4, "25", NULL, true, changed_bits)};
        for (int k = 0; k < 3; k++) {
          f[c][k] = field(tu_tree(t, hex[k], &o, arena), 4);
          free(hex[k]);
          ck_assert_uint_eq(f[c][k]->count, n);
          for (size_t i = 0; i < n; i++) ck_assert_uint_eq(pbd_Field_Scalar(f[c][k], i), changed_bits(i));
        }
        ck_assert_uint_eq(f[c][0]->stride, n >= 16 ? 4 : 0);
        ck_assert_uint_eq(f[c][1]->stride, n >= 16 ? 5 : 0);
        ck_assert_uint_eq(f[c][2]->stride, 0);
      }
      for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
          ck_assert_uint_eq(pbd_Field_FirstScalarDifference(f[0][x], f[0][y], 0, n), n);
          ck_assert_uint_eq(pbd_Field_FirstScalarDifference(f[0][x], f[1][y], 0, n), at[a]);
          ck_assert_uint_eq(pbd_Field_FirstScalarDifference(f[1][y], f[0][x], at[a], n), at[a]);
          ck_assert_uint_eq(pbd_Field_FirstScalarDifference(f[0][x], f[1][y], at[a] + 1, n), n);
        }
    }
  }
  changed_at = SIZE_MAX;
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tree");
  TCase *t = tcase_create("tree");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, fields_sorted_and_typed);
  tcase_add_test(t, strings_floats_and_last_value);
  tcase_add_test(t, repeated_packed_and_unpacked);
  tcase_add_test(t, messages_merge);
  tcase_add_test(t, maps_sorted_by_key);
  tcase_add_test(t, defaults_and_unknown_fields);
  tcase_add_test(t, schemaless_fields);
  tcase_add_test(t, any_payload_and_hash_seed);
  tcase_add_test(t, parse_errors);
  tcase_add_test(t, unpacked_fixed_runs);
  tcase_add_test(t, fixed_values_in_place);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
