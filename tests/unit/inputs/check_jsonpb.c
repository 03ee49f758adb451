/* Protobuf JSON input (lib/inputs/jsonpb.c).
 *
 * Round trips: every JSON file under testdata/jsonpb is converted with
 * pbd_JsonPb_ToBinary and its tree compared (root hashes, same seed) with the
 * tree of the paired text-format file encoded by `protoc --encode` at test
 * time.  The project's own JSON writer (pbd_Format_JsonValue) is read back
 * the same way, on those inputs and on real ONNX models.  Errors are checked
 * with their exact messages, positions and paths; every prefix of the valid
 * inputs must fail cleanly. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "inputs/jsonpb.h"
#include "testutil.h"
#include "tree/tree.h"

static pbd_DefPool *pool;

static void setup(void) {
  if (!pool) pool = tu_load_pool("jsonpb/wkt_test.proto");
}

static const pbd_MessageDef *type_named(const char *n) {
  setup();
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(pool, n);
  ck_assert_msg(m != NULL, "no type %s", n);
  return m;
}

static pbd_TreeOptions tree_opts(const pbd_DefPool *p) {
  pbd_TreeOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 0x5eed1234;
  o.pool = p;
  return o;
}

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
  pbd_TreeOptions o = tree_opts(p);
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
  const pbd_MessageDef *t = type_named(kCases[_i].type);
  size_t jn = 0, rn = 0;
  char *json = read_testdata(kCases[_i].json, &jn);
  uint8_t *ref = protoc_encode(kCases[_i].type, kCases[_i].txtpb, &rn);
  pbd_Buf bin = to_binary(pool, t, kCases[_i].json, json, jn);
  check_same(pool, t, kCases[_i].json, (const uint8_t *)bin.data, bin.len, ref, rn);
  pbd_Buf_Free(&bin);
  free(ref);
  free(json);
}
END_TEST

/* The trees must also tell the inputs apart: a JSON file compared with
 * another case's reference differs (guards against a hash that ignores
 * what the reader wrote). */
START_TEST(roundtrip_detects_difference) {
  const pbd_MessageDef *t = type_named("sem3.M");
  size_t jn = 0, rn = 0;
  char *json = read_testdata("m_negzero.json", &jn);
  uint8_t *ref = protoc_encode("sem3.M", "m_floats.txtpb", &rn);
  pbd_Buf bin = to_binary(pool, t, "m_negzero.json", json, jn);
  pbd_TreeOptions o = tree_opts(pool);
  pbd_Arena *arena = pbd_Arena_New();
  pbd_Status s;
  pbd_Message *a = pbd_Tree_Parse(t, (const uint8_t *)bin.data, 0, bin.len, &o, arena, &s);
  pbd_Message *b = pbd_Tree_Parse(t, ref, 0, rn, &o, arena, &s);
  ck_assert(a && b);
  ck_assert(!pbd_Hash128_Equal(a->hash, b->hash));
  /* -0 is not the default of a proto3 float: {"f": -0} differs from {}. */
  pbd_Buf empty = to_binary(pool, t, "{}", "{}", 2);
  pbd_Buf zero = to_binary(pool, t, "f 0", "{\"f\": 0}", 8);
  pbd_Message *e = pbd_Tree_Parse(t, (const uint8_t *)empty.data, 0, empty.len, &o, arena, &s);
  pbd_Message *z = pbd_Tree_Parse(t, (const uint8_t *)zero.data, 0, zero.len, &o, arena, &s);
  ck_assert(e && z);
  ck_assert(pbd_Hash128_Equal(e->hash, z->hash));
  pbd_Buf nz = to_binary(pool, t, "f -0", "{\"f\": -0}", 9);
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
  pbd_TreeOptions o = tree_opts(p);
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
  const pbd_MessageDef *t = type_named(kCases[_i].type);
  size_t rn = 0;
  uint8_t *ref = protoc_encode(kCases[_i].type, kCases[_i].txtpb, &rn);
  check_writer_roundtrip(pool, t, kCases[_i].txtpb, ref, rn);
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

/* ------------------------------------------------------------------ */
/* Errors */

/* Converting `json` as type tname fails with exactly this code, message,
 * path and byte offset, and leaves the output buffer as it was. */
static void expect_error_n(const char *tname, const char *json, size_t n, pbd_StatusCode code,
                           const char *msg, const char *path, size_t offset) {
  const pbd_MessageDef *t = type_named(tname);
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "keep");
  pbd_Status s;
  bool ok = pbd_JsonPb_ToBinary(pool, t, json, n, &out, &s);
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
  ck_assert(pbd_JsonPb_ToBinary(pool, type_named("sem3.M"), "{\"c1\": null, \"c2\": \"x\"}", 23,
                                &out, &s));
  ck_assert(pbd_JsonPb_ToBinary(pool, type_named("sem3.M"), "{\"c2\": \"x\", \"c1\": null}", 23,
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

/* kPbd_JsonPb_MaxDepth levels of objects or arrays read; one more fails. */
START_TEST(error_depth) {
  const pbd_MessageDef *m = type_named("sem3.M");
  for (int extra = 0; extra <= 1; extra++) {
    int levels = kPbd_JsonPb_MaxDepth + extra; /* objects, the root included */
    pbd_Buf j = {0};
    pbd_Buf_AppendStr(&j, "{\"inner\": ");
    for (int i = 2; i < levels; i++) pbd_Buf_AppendStr(&j, "{\"child\": ");
    pbd_Buf_AppendStr(&j, "{}");
    for (int i = 1; i < levels; i++) pbd_Buf_AppendChar(&j, '}');
    pbd_Buf out = {0};
    pbd_Status s;
    bool ok = pbd_JsonPb_ToBinary(pool, m, j.data, j.len, &out, &s);
    if (extra == 0) {
      ck_assert_msg(ok, "%s", s.msg);
      /* The tree reader's default limit takes what this reader takes. */
      pbd_TreeOptions o = tree_opts(pool);
      pbd_Arena *arena = pbd_Arena_New();
      ck_assert_msg(pbd_Tree_Parse(m, (const uint8_t *)out.data, 0, out.len, &o, arena, &s), "%s",
                    s.msg);
      pbd_Arena_Free(arena);
    } else {
      ck_assert(!ok);
      ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
      char want[64];
      size_t off = strlen("{\"inner\": ") + (size_t)(levels - 2) * strlen("{\"child\": ");
      snprintf(want, sizeof want, "line 1, column %zu: nesting deeper than 100", off + 1);
      ck_assert_str_eq(s.msg, want);
      ck_assert_uint_eq(s.offset, off);
    }
    pbd_Buf_Free(&out);
    pbd_Buf_Free(&j);
  }
  /* Arrays count too (a Value holding lists). */
  pbd_Buf j = {0};
  pbd_Buf_AppendStr(&j, "{\"val\": ");
  for (int i = 0; i < 200000; i++) pbd_Buf_AppendChar(&j, '[');
  pbd_Buf out = {0};
  pbd_Status s;
  ck_assert(!pbd_JsonPb_ToBinary(pool, type_named("jsonpb_test.W"), j.data, j.len, &out, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  ck_assert_str_eq(s.msg, "line 1, column 108: nesting deeper than 100");
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
  /* Without a pool no type resolves. */
  pbd_Buf out = {0};
  pbd_Status s;
  const char *j = "{\"any\": {\"@type\": \"type.googleapis.com/sem3.Inner\"}}";
  ck_assert(!pbd_JsonPb_ToBinary(NULL, type_named("sem3.M"), j, strlen(j), &out, &s));
  ck_assert_str_eq(s.msg, "line 1, column 19: type \"sem3.Inner\" of the Any is not in the schema");
  ck_assert(pbd_JsonPb_ToBinary(NULL, type_named("sem3.M"), "{\"i32\": 1}", 10, &out, &s));
  ck_assert_uint_eq(out.len, 2);
  pbd_Buf_Free(&out);
}
END_TEST

/* Every prefix of a valid input fails cleanly (a prefix that is itself the
 * whole value, before trailing whitespace, reads). */
START_TEST(every_prefix) {
  const pbd_MessageDef *t = type_named(kCases[_i].type);
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
    bool ok = pbd_JsonPb_ToBinary(pool, t, p, k, &out, &s);
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
  const pbd_MessageDef *t = type_named(kCases[_i].type);
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
      if (!pbd_JsonPb_ToBinary(pool, t, p, n, &out, &s)) {
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
  const pbd_MessageDef *m = type_named("sem3.M");
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
    pbd_Buf out = to_binary(pool, m, kCases2[i].json, kCases2[i].json, strlen(kCases2[i].json));
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
  pbd_Buf out = to_binary(pool, m, "long", j.data, j.len);
  ck_assert_uint_eq(out.len, 1 + 3 + 1 + 3 + 20000);
  ck_assert_uint_eq((uint8_t)out.data[0], 0x6a);
  ck_assert_uint_eq((uint8_t)out.data[1], 0xa4); /* 20004 = 0x4e24 */
  ck_assert_uint_eq((uint8_t)out.data[2], 0x9c);
  ck_assert_uint_eq((uint8_t)out.data[3], 0x01);
  pbd_Buf_Free(&out);
  pbd_Buf_Free(&j);
  /* A root of a well-known type takes its own form. */
  const char *ts = "\"1970-01-01T00:00:01.5Z\"";
  out = to_binary(pool, type_named("google.protobuf.Timestamp"), ts, ts, strlen(ts));
  ck_assert_uint_eq(out.len, 8); /* 08 01 10 <5-byte 500000000> */
  pbd_Buf_Free(&out);
  out = to_binary(pool, type_named("google.protobuf.Value"), "null", "null", 4);
  ck_assert_uint_eq(out.len, 2);
  pbd_Buf_Free(&out);
}
END_TEST

/* A golden file with many entries and a long array reads in linear time. */
START_TEST(large_input) {
  const pbd_MessageDef *m = type_named("sem3.M");
  pbd_Buf j = {0};
  pbd_Buf_AppendStr(&j, "{\"ms\": {");
  for (int i = 0; i < 50000; i++) pbd_Buf_Printf(&j, "%s\"key%d\": %d", i ? ", " : "", i, i);
  pbd_Buf_AppendStr(&j, "}, \"rd\": [");
  for (int i = 0; i < 50000; i++) pbd_Buf_Printf(&j, "%s%d.25", i ? ", " : "", i);
  pbd_Buf_AppendStr(&j, "]}");
  pbd_Buf out = to_binary(pool, m, "large", j.data, j.len);
  pbd_TreeOptions o = tree_opts(pool);
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
  Suite *s = suite_create("jsonpb");
  TCase *t = tcase_create("jsonpb");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, roundtrip_protoc, 0, kNumCases);
  tcase_add_test(t, roundtrip_detects_difference);
  tcase_add_loop_test(t, roundtrip_writer, 0, kNumCases);
  tcase_add_test(t, roundtrip_writer_onnx);
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
  tcase_add_loop_test(t, every_prefix, 0, kNumCases);
  tcase_add_loop_test(t, every_byte_corrupted, 0, kNumCases);
  tcase_add_test(t, encoding_bytes);
  tcase_add_test(t, large_input);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
