/* Protobuf JSON input (lib/inputs/jsonpb.c): round trips.
 *
 * Every JSON file under testdata/jsonpb is converted with
 * pbd_JsonPb_ToBinary and its tree compared (root hashes, same seed) with the
 * tree of the paired text-format file encoded by `protoc --encode` at test
 * time.  The project's own JSON writer (pbd_Format_JsonValue) is read back
 * the same way, on those inputs and on real ONNX models.  Every prefix and
 * every corrupted byte of the valid inputs must fail cleanly or convert;
 * bytes encodings; a large input.  Errors: check_jsonpb_errors.c. */
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

static char *tree_text(const pbd_Message *m) {
  pbd_Buf b = {0};
  pbd_TextOptions o = {.multiline = true};
  pbd_Format_TextMessage(&b, m, &o);
  pbd_Buf_AppendStr(&b, "");
  return b.data;
}

/* Parses two encodings of type t and fails the test, printing both trees,
 * when their root hashes differ. */
static void check_same(const pbd_DefPool *p, const pbd_MessageDef *t, const char *what,
                       const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  pbd_ReadOptions o = tu_jsonpb_tree_opts(p);
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  pbd_Message *ma = pbd_Tree_Parse(t, a, 0, an, &o, arena, &s);
  ck_assert_msg(ma != NULL, "%s: the JSON's encoding does not parse: %s at %zu (in %s)", what,
                s.msg, s.offset, s.path);
  pbd_Message *mb = pbd_Tree_Parse(t, b, 0, bn, &o, arena, &s);
  ck_assert_msg(mb != NULL, "%s: the reference does not parse: %s", what, s.msg);
  if (!pbd_Hash128_Equal(ma->hash, mb->hash)) {
    /* In full on stderr: Check's own messages are limited to a few KiB. */
    char *ta = tree_text(ma), *tb = tree_text(mb);
    fprintf(stderr, "%s: trees differ\n--- from JSON:\n%s\n--- reference:\n%s\n", what, ta, tb);
    ck_abort_msg("%s: trees differ (both printed on stderr)", what);
  }
  pbd_Arena_Free(arena);
}

/* protoc --encode of a text-format file under testdata/jsonpb. */
static uint8_t *protoc_encode(const char *tname, const char *txtpb, size_t *n) {
  char *out = tu_write_temp("", 0, ".pb");
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "protoc --encode=%s -I%s/testdata -I/usr/include jsonpb/wkt_test.proto "
           "< %s/testdata/jsonpb/%s > %s",
           tname, tu_root(), tu_root(), txtpb, out);
  char *err = NULL;
  int rc = tu_run(cmd, NULL, &err);
  ck_assert_msg(rc == 0, "protoc --encode=%s < %s failed: %s", tname, txtpb, err);
  free(err);
  uint8_t *data = tu_read_file(out, n);
  ck_assert_ptr_nonnull(data);
  unlink(out);
  free(out);
  return data;
}

static char *read_testdata(const char *name, size_t *n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/testdata/jsonpb/%s", tu_root(), name);
  char *data = (char *)tu_read_file(path, n);
  ck_assert_msg(data != NULL, "cannot read %s", path);
  return data;
}

/* Converts JSON that must be valid; returns the encoding (free with
 * pbd_Buf_Free). */
static pbd_Buf to_binary(const pbd_DefPool *p, const pbd_MessageDef *t, const char *what,
                         const char *json, size_t n) {
  pbd_Buf out = {0};
  pbd_Status s;
  bool ok = pbd_JsonPb_ToBinary(p, t, json, n, &out, &s);
  ck_assert_msg(ok, "%s: %s (in %s)", what, s.msg, s.path);
  ck_assert(pbd_Status_IsOk(&s));
  return out;
}

static const struct {
  const char *json, *txtpb, *type;
} kCases[] = {
    {"m_scalars.json", "m_scalars.txtpb", "sem3.M"},
    {"m_scalars_alt.json", "m_scalars.txtpb", "sem3.M"},
    {"m_floats.json", "m_floats.txtpb", "sem3.M"},
    {"m_negzero.json", "m_negzero.txtpb", "sem3.M"},
    {"m_bytes_std.json", "m_bytes.txtpb", "sem3.M"},
    {"m_bytes_url.json", "m_bytes.txtpb", "sem3.M"},
    {"m_enums.json", "m_enums.txtpb", "sem3.M"},
    {"m_enums_num.json", "m_enums.txtpb", "sem3.M"},
    {"m_nested.json", "m_nested.txtpb", "sem3.M"},
    {"m_maps.json", "m_maps.txtpb", "sem3.M"},
    {"m_oneof.json", "m_oneof.txtpb", "sem3.M"},
    {"m_oneof_default.json", "m_oneof_default.txtpb", "sem3.M"},
    {"m_any.json", "m_any.txtpb", "sem3.M"},
    {"m_any_wkt.json", "m_any_wkt.txtpb", "sem3.M"},
    {"w_wkt.json", "w_wkt.txtpb", "jsonpb_test.W"},
    {"w_any.json", "w_any.txtpb", "jsonpb_test.W"},
    {"s2.json", "s2.txtpb", "sem2.M"},
};
enum { kNumCases = sizeof kCases / sizeof kCases[0] };

START_TEST(roundtrip_protoc) {
  const pbd_MessageDef *t = tu_jsonpb_type(kCases[_i].type);
  size_t jn = 0, rn = 0;
  char *json = read_testdata(kCases[_i].json, &jn);
  uint8_t *ref = protoc_encode(kCases[_i].type, kCases[_i].txtpb, &rn);
  pbd_Buf bin = to_binary(tu_jsonpb_pool(), t, kCases[_i].json, json, jn);
  check_same(tu_jsonpb_pool(), t, kCases[_i].json, (const uint8_t *)bin.data, bin.len, ref, rn);
  pbd_Buf_Free(&bin);
  free(ref);
  free(json);
}
END_TEST

/* The trees must also tell the inputs apart: a JSON file compared with
 * another case's reference differs (guards against a hash that ignores
 * what the reader wrote). */
START_TEST(roundtrip_detects_difference) {
  const pbd_MessageDef *t = tu_jsonpb_type("sem3.M");
  size_t jn = 0, rn = 0;
  char *json = read_testdata("m_negzero.json", &jn);
  uint8_t *ref = protoc_encode("sem3.M", "m_floats.txtpb", &rn);
  pbd_Buf bin = to_binary(tu_jsonpb_pool(), t, "m_negzero.json", json, jn);
  pbd_ReadOptions o = tu_jsonpb_tree_opts(tu_jsonpb_pool());
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  pbd_Message *a = pbd_Tree_Parse(t, (const uint8_t *)bin.data, 0, bin.len, &o, arena, &s);
  pbd_Message *b = pbd_Tree_Parse(t, ref, 0, rn, &o, arena, &s);
  ck_assert(a && b);
  ck_assert(!pbd_Hash128_Equal(a->hash, b->hash));
  /* -0 is not the default of a proto3 float: {"f": -0} differs from {}. */
  pbd_Buf empty = to_binary(tu_jsonpb_pool(), t, "{}", "{}", 2);
  pbd_Buf zero = to_binary(tu_jsonpb_pool(), t, "f 0", "{\"f\": 0}", 8);
  pbd_Message *e = pbd_Tree_Parse(t, (const uint8_t *)empty.data, 0, empty.len, &o, arena, &s);
  pbd_Message *z = pbd_Tree_Parse(t, (const uint8_t *)zero.data, 0, zero.len, &o, arena, &s);
  ck_assert(e && z);
  ck_assert(pbd_Hash128_Equal(e->hash, z->hash));
  pbd_Buf nz = to_binary(tu_jsonpb_pool(), t, "f -0", "{\"f\": -0}", 9);
  pbd_Message *m = pbd_Tree_Parse(t, (const uint8_t *)nz.data, 0, nz.len, &o, arena, &s);
  ck_assert(m && !pbd_Hash128_Equal(e->hash, m->hash));
  pbd_Arena_Free(arena);
  pbd_Buf_Free(&bin);
  pbd_Buf_Free(&empty);
  pbd_Buf_Free(&zero);
  pbd_Buf_Free(&nz);
  free(ref);
  free(json);
}
END_TEST

/* Binary -> tree -> the project's JSON writer -> this reader -> tree. */
static void check_writer_roundtrip(const pbd_DefPool *p, const pbd_MessageDef *t, const char *what,
                                   const uint8_t *bin, size_t n) {
  pbd_ReadOptions o = tu_jsonpb_tree_opts(p);
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  pbd_Message *m = pbd_Tree_Parse(t, bin, 0, n, &o, arena, &s);
  ck_assert_msg(m != NULL, "%s: %s", what, s.msg);
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  pbd_Buf json = {0};
  pbd_Format_JsonValue(&json, &v);
  ck_assert(!json.oom);
  pbd_Buf back = {0};
  bool ok = pbd_JsonPb_ToBinary(p, t, json.data, json.len, &back, &s);
  ck_assert_msg(ok, "%s: the writer's JSON does not read back: %s (in %s)\n%.2000s", what, s.msg,
                s.path, json.data);
  check_same(p, t, what, (const uint8_t *)back.data, back.len, bin, n);
  pbd_Buf_Free(&json);
  pbd_Buf_Free(&back);
  pbd_Arena_Free(arena);
}

START_TEST(roundtrip_writer) {
  const pbd_MessageDef *t = tu_jsonpb_type(kCases[_i].type);
  size_t rn = 0;
  uint8_t *ref = protoc_encode(kCases[_i].type, kCases[_i].txtpb, &rn);
  check_writer_roundtrip(tu_jsonpb_pool(), t, kCases[_i].txtpb, ref, rn);
  free(ref);
}
END_TEST

/* Real ONNX models (proto2, deep, large repeated fields) through the JSON
 * writer and back. */
START_TEST(roundtrip_writer_onnx) {
  glob_t g;
  if (glob("/usr/share/libonnx-testdata/data/node/*/model.onnx", 0, NULL, &g) != 0) {
    fprintf(stderr, "check_jsonpb: no libonnx-testdata, ONNX round trip skipped\n");
    return;
  }
  pbd_DefPool *onnx = tu_load_pool("/usr/include/onnx/onnx.proto");
  const pbd_MessageDef *t = pbd_DefPool_FindMessageByName(onnx, "onnx.ModelProto");
  ck_assert_ptr_nonnull(t);
  size_t step = g.gl_pathc / 40 + 1, done = 0;
  for (size_t i = 0; i < g.gl_pathc; i += step) {
    size_t n = 0;
    uint8_t *bin = tu_read_file(g.gl_pathv[i], &n);
    ck_assert_ptr_nonnull(bin);
    check_writer_roundtrip(onnx, t, g.gl_pathv[i], bin, n);
    free(bin);
    done++;
  }
  ck_assert_uint_gt(done, 10);
  globfree(&g);
  pbd_DefPool_Free(onnx);
}
END_TEST

/* Every prefix of a valid input fails cleanly (a prefix that is itself the
 * whole value, before trailing whitespace, reads). */
START_TEST(every_prefix) {
  const pbd_MessageDef *t = tu_jsonpb_type(kCases[_i].type);
  size_t n = 0;
  char *json = read_testdata(kCases[_i].json, &n);
  size_t full = n;
  while (full > 0 && (json[full - 1] == '\n' || json[full - 1] == ' ')) full--;
  for (size_t k = 0; k < n; k++) {
    /* Copy so that the sanitizers see any read past the prefix. */
    char *p = malloc(k ? k : 1);
    memcpy(p, json, k);
    pbd_Buf out = {0};
    pbd_Status s;
    bool ok = pbd_JsonPb_ToBinary(tu_jsonpb_pool(), t, p, k, &out, &s);
    if (k >= full) {
      ck_assert_msg(ok, "%s: prefix %zu: %s", kCases[_i].json, k, s.msg);
    } else {
      ck_assert_msg(!ok, "%s: prefix of %zu bytes accepted", kCases[_i].json, k);
      ck_assert(s.code != kPbd_Status_Ok && s.has_offset);
      ck_assert_msg(strncmp(s.msg, "line ", 5) == 0, "%s", s.msg);
      ck_assert_uint_le(s.offset, k);
      ck_assert_uint_eq(out.len, 0);
    }
    pbd_Buf_Free(&out);
    free(p);
  }
  free(json);
}
END_TEST

/* Corrupting one byte anywhere never crashes; an error names a place in
 * the input. */
START_TEST(every_byte_corrupted) {
  const pbd_MessageDef *t = tu_jsonpb_type(kCases[_i].type);
  size_t n = 0;
  char *json = read_testdata(kCases[_i].json, &n);
  static const char kBytes[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '0', '\xff', '\0', 'e'};
  for (size_t k = 0; k < n; k++) {
    for (size_t b = 0; b < sizeof kBytes; b++) {
      char *p = malloc(n);
      memcpy(p, json, n);
      p[k] = kBytes[b];
      pbd_Buf out = {0};
      pbd_Status s;
      if (!pbd_JsonPb_ToBinary(tu_jsonpb_pool(), t, p, n, &out, &s)) {
        ck_assert(s.has_offset && s.offset <= n);
        ck_assert_msg(strncmp(s.msg, "line ", 5) == 0, "%s", s.msg);
      }
      pbd_Buf_Free(&out);
      free(p);
    }
  }
  free(json);
}
END_TEST

/* Fields come out in JSON order, as the encoding the tree reads. */
START_TEST(encoding_bytes) {
  const pbd_MessageDef *m = tu_jsonpb_type("sem3.M");
  static const struct {
    const char *json, *hex;
  } kCases2[] = {
      {"{\"i32\": -1}", "08ffffffffffffffffff01"},
      {"{\"s32\": -1, \"s64\": \"-2\"}", "2801 3003"},
      {"{\"u64\": 18446744073709551615}", "20ffffffffffffffffff01"},
      {"{\"fx32\": 1, \"sfx64\": -1}", "cd01 01000000 e101 ffffffffffffffff"},
      {"{\"ri\": [1, 2, 300]}", "7204 0102ac02"},
      {"{\"rs\": [\"a\", \"\"]}", "ba0101 61 ba0100"},
      {"{\"inner\": {\"child\": {\"a\": 1}}, \"b\": true}", "6a04 2202 0801 3801"},
      {"{\"ms\": {\"k\": 5}}", "8201 05 0a016b 1005"},
      {"{\"ri\": [], \"rm\": [], \"ms\": {}, \"inner\": null, \"str\": null}", ""},
      {"{\"str\": \"\\u0000\"}", "520100"},
  };
  for (size_t i = 0; i < sizeof kCases2 / sizeof kCases2[0]; i++) {
    pbd_Buf out = to_binary(tu_jsonpb_pool(), m, kCases2[i].json, kCases2[i].json, strlen(kCases2[i].json));
    size_t wn = 0;
    uint8_t *want = tu_hex(kCases2[i].hex, &wn);
    pbd_Buf hex = {0};
    for (size_t k = 0; k < out.len; k++) pbd_Buf_Printf(&hex, "%02x", (uint8_t)out.data[k]);
    pbd_Buf_AppendStr(&hex, "");
    ck_assert_msg(out.len == wn && (wn == 0 || memcmp(out.data, want, wn) == 0),
                  "%s -> %s, expected %s", kCases2[i].json, hex.data, kCases2[i].hex);
    pbd_Buf_Free(&hex);
    pbd_Buf_Free(&out);
    free(want);
  }
  /* A long submessage: the length prefix grows to several bytes. */
  pbd_Buf j = {0};
  pbd_Buf_AppendStr(&j, "{\"inner\": {\"s\": \"");
  for (int i = 0; i < 20000; i++) pbd_Buf_AppendChar(&j, 'x');
  pbd_Buf_AppendStr(&j, "\"}}");
  pbd_Buf out = to_binary(tu_jsonpb_pool(), m, "long", j.data, j.len);
  ck_assert_uint_eq(out.len, 1 + 3 + 1 + 3 + 20000);
  ck_assert_uint_eq((uint8_t)out.data[0], 0x6a);
  ck_assert_uint_eq((uint8_t)out.data[1], 0xa4); /* 20004 = 0x4e24 */
  ck_assert_uint_eq((uint8_t)out.data[2], 0x9c);
  ck_assert_uint_eq((uint8_t)out.data[3], 0x01);
  pbd_Buf_Free(&out);
  pbd_Buf_Free(&j);
  /* A root of a well-known type takes its own form. */
  const char *ts = "\"1970-01-01T00:00:01.5Z\"";
  out = to_binary(tu_jsonpb_pool(), tu_jsonpb_type("google.protobuf.Timestamp"), ts, ts, strlen(ts));
  ck_assert_uint_eq(out.len, 8); /* 08 01 10 <5-byte 500000000> */
  pbd_Buf_Free(&out);
  out = to_binary(tu_jsonpb_pool(), tu_jsonpb_type("google.protobuf.Value"), "null", "null", 4);
  ck_assert_uint_eq(out.len, 2);
  pbd_Buf_Free(&out);
}
END_TEST

/* A golden file with many entries and a long array reads in linear time. */
START_TEST(large_input) {
  const pbd_MessageDef *m = tu_jsonpb_type("sem3.M");
  pbd_Buf j = {0};
  pbd_Buf_AppendStr(&j, "{\"ms\": {");
  for (int i = 0; i < 50000; i++) pbd_Buf_Printf(&j, "%s\"key%d\": %d", i ? ", " : "", i, i);
  pbd_Buf_AppendStr(&j, "}, \"rd\": [");
  for (int i = 0; i < 50000; i++) pbd_Buf_Printf(&j, "%s%d.25", i ? ", " : "", i);
  pbd_Buf_AppendStr(&j, "]}");
  pbd_Buf out = to_binary(tu_jsonpb_pool(), m, "large", j.data, j.len);
  pbd_ReadOptions o = tu_jsonpb_tree_opts(tu_jsonpb_pool());
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  pbd_Message *t = pbd_Tree_Parse(m, (const uint8_t *)out.data, 0, out.len, &o, arena, &s);
  ck_assert(t != NULL);
  const pbd_Field *ms = pbd_Message_FindField(t, 16), *rd = pbd_Message_FindField(t, 29);
  ck_assert(ms && rd);
  ck_assert_uint_eq(ms->count, 50000);
  ck_assert_uint_eq(rd->count, 50000);
  pbd_Arena_Free(arena);
  pbd_Buf_Free(&out);
  pbd_Buf_Free(&j);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("jsonpb_roundtrip");
  TCase *t = tcase_create("jsonpb_roundtrip");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, roundtrip_protoc, 0, kNumCases);
  tcase_add_test(t, roundtrip_detects_difference);
  tcase_add_loop_test(t, roundtrip_writer, 0, kNumCases);
  tcase_add_test(t, roundtrip_writer_onnx);
  tcase_add_loop_test(t, every_prefix, 0, kNumCases);
  tcase_add_loop_test(t, every_byte_corrupted, 0, kNumCases);
  tcase_add_test(t, encoding_bytes);
  tcase_add_test(t, large_input);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
