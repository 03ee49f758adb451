/* Tests of the descriptor loader (lib/schema/schema.c) on hand-made
 * descriptor bytes: malformed sets, unresolvable types, duplicate numbers
 * and names, extension ranges, editions and bad files, map entries, bad
 * defaults, deep nesting and hostile mutations.  Schemas compiled by protoc
 * are check_schema_load.c's. */
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

/* A tiny protobuf writer for hand-made descriptor sets. */
static void put_varint(pbd_Buf *b, uint64_t v) {
  uint8_t t[10];
  pbd_Buf_Append(b, (const char *)t, tu_varint(t, v));
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
  const pbd_MessageDef *mm = tu_find_message(pool, "p.M");
  ck_assert_int_eq(mm->file->syntax, kPbd_Syntax_Proto2);
  ck_assert_ptr_eq(tu_find_field(mm, "n")->message_type, tu_find_message(pool, "p.M.N"));
  ck_assert_int_eq(tu_find_field(mm, "t")->type, kPbd_Type_Message);
  ck_assert_ptr_eq(tu_find_field(mm, "t")->message_type, tu_find_message(pool, "p.Top"));
  ck_assert_int_eq(tu_find_field(mm, "e")->type, kPbd_Type_Enum);
  ck_assert_uint_eq(tu_find_field(mm, "e")->default_value.u, 1);
  ck_assert_str_eq(tu_find_field(mm, "n")->json_name, "n");
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

  /* The same file name twice with different contents: an error naming it
   * (one of them would be ignored); the same file twice: one file. */
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
  ck_assert(!add_buf(pool, &set, &s));
  ck_assert_msg(strstr(s.msg, "two different files named a.proto"), "%s", s.msg);
  pbd_DefPool_Free(pool);
  m1 = (pbd_Buf){0};
  m2 = (pbd_Buf){0};
  put_str(&m1, 1, "M");
  put_str(&m2, 1, "M");
  f1 = (pbd_Buf){0};
  f2 = (pbd_Buf){0};
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
  /* keys protoc refuses: a message, a float, a double, bytes, an enum (by
   * type number), and a repeated key */
  static const int kBadKeys[] = {kPbd_Type_Message, kPbd_Type_Float, kPbd_Type_Double,
                                 kPbd_Type_Bytes, kPbd_Type_Enum, -1};
  for (size_t i = 0; i < sizeof kBadKeys / sizeof *kBadKeys; i++) {
    pbd_Buf mm = {0}, e = {0}, o = {0};
    put_str(&e, 1, "KEntry");
    int type = kBadKeys[i] < 0 ? kPbd_Type_String : kBadKeys[i];
    int label = kBadKeys[i] < 0 ? kPbd_Label_Repeated : kPbd_Label_Optional;
    const char *tn = type == kPbd_Type_Message ? "M" : type == kPbd_Type_Enum ? "E" : NULL;
    pbd_Buf kf = fdesc("key", 1, label, type, tn);
    pbd_Buf vf = fdesc("value", 2, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
    put_msg(&e, 2, &kf);
    put_msg(&e, 2, &vf);
    put_int(&o, 7, 1);
    put_msg(&e, 7, &o);
    put_str(&mm, 1, "M");
    put_msg(&mm, 3, &e);
    pbd_Buf en = {0}, ev = {0};
    put_str(&ev, 1, "ZERO");
    put_int(&ev, 2, 0);
    put_str(&en, 1, "E");
    put_msg(&en, 2, &ev);
    put_msg(&mm, 4, &en);
    pbd_Buf mf = fdesc("m", 1, kPbd_Label_Repeated, kPbd_Type_Message, "KEntry");
    put_msg(&mm, 2, &mf);
    expect_finalize_error(one_file("k.proto", "proto3", &mm, 1),
                          "map entry p.M.KEntry: a key must be a single integer, bool or string");
  }
}
END_TEST

START_TEST(test_names_are_identifiers) {
  /* a field name with a terminal escape in it never reaches a terminal */
  pbd_Buf m = {0};
  put_str(&m, 1, "M");
  pbd_Buf f = fdesc("x\033]0;PWNED\007\033[31m", 1, kPbd_Label_Optional, kPbd_Type_Int32, NULL);
  put_msg(&m, 2, &f);
  expect_finalize_error(one_file("n.proto", "proto3", &m, 1),
                        "field name p.M.x... is not an identifier");
  pbd_Buf m2 = {0};
  put_str(&m2, 1, "M\033[31m");
  expect_finalize_error(one_file("n.proto", "proto3", &m2, 1), "message name p.M... is not an identifier");
  pbd_Buf m3 = {0}, en = {0}, ev = {0};
  put_str(&ev, 1, "ZERO\033[2J");
  put_int(&ev, 2, 0);
  put_str(&en, 1, "E");
  put_msg(&en, 2, &ev);
  put_str(&m3, 1, "M");
  put_msg(&m3, 4, &en);
  expect_finalize_error(one_file("n.proto", "proto3", &m3, 1),
                        "enum value name p.M.E.ZERO... is not an identifier");
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


static Suite *suite(void) {
  Suite *s = suite_create("schema_errors");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_malformed_bytes);
  tcase_add_test(tc, test_handmade_ok);
  tcase_add_test(tc, test_unresolvable_type);
  tcase_add_test(tc, test_duplicate_field_number);
  tcase_add_test(tc, test_extension_ranges);
  tcase_add_test(tc, test_duplicate_names);
  tcase_add_test(tc, test_editions_and_bad_files);
  tcase_add_test(tc, test_map_entry_checks);
  tcase_add_test(tc, test_names_are_identifiers);
  tcase_add_test(tc, test_bad_defaults);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_hostile_mutations);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
