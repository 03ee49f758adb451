/* pbdiff tests — the well-known types of lib/format/format.c: Timestamp,
 * Duration, wrappers, Struct, FieldMask and Any in text and JSON values and
 * in reports, on wkt.All payloads (testdata/schema/wkt.proto) encoded by
 * protoc. */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/format/format.h"
#include "report/report.h" /* linked from build/cli/report.o (see Makefile) */
#include "testutil.h"
#include "pbdiff/tree/tree.h"
#include "tu_json.h"
#include "tu_values.h"

/* ---- well-known types ----------------------------------------------------------------- */

static pbd_DefPool *g_pool;
static pbd_Arena *g_arena;

static void wkt_setup(void) {
  g_pool = tu_load_pool("schema/wkt.proto");
  g_arena = pbd_Arena_New();
}

static void wkt_teardown(void) {
  pbd_Arena_Free(g_arena);
  pbd_DefPool_Free(g_pool);
}

static const pbd_MessageDef *wtype(const char *name) {
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(g_pool, name);
  ck_assert_msg(m != NULL, "no %s", name);
  return m;
}

static const pbd_Message *parse(const pbd_MessageDef *t, const uint8_t *b, size_t n) {
  uint8_t *copy = pbd_Arena_Malloc(g_arena, n ? n : 1); /* outlives the tree */
  memcpy(copy, b, n);
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 1;
  o.pool = g_pool;
  pbd_Status s;
  pbd_Status_Clear(&s);
  const pbd_Message *m = pbd_Tree_Parse(t, copy, 0, n, &o, g_arena, &s);
  ck_assert_msg(m != NULL, "parse: %s", s.msg);
  return m;
}

/* A Timestamp or Duration message { seconds nanos } (zero fields left out). */
static pbd_Value secs_nanos(const char *type, int64_t secs, int32_t nanos) {
  uint8_t b[32];
  size_t n = 0;
  if (secs) {
    b[n++] = 0x08;
    n += tu_varint(b + n, (uint64_t)secs);
  }
  if (nanos) {
    b[n++] = 0x10;
    n += tu_varint(b + n, (uint64_t)(int64_t)nanos);
  }
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.kind = kPbd_Value_Message;
  v.m = parse(wtype(type), b, n);
  return v;
}

static char *wkt_text(const pbd_Value *v, bool *ok) {
  pbd_Buf b = {0};
  *ok = pbd_Format_WellKnownText(&b, v);
  char *s = strdup(b.data ? b.data : "");
  pbd_Buf_Free(&b);
  return s;
}

#define CHECK_WKT(type, secs, nanos, expected)                                          \
  do {                                                                                  \
    pbd_Value v_ = secs_nanos(type, secs, nanos);                                       \
    bool ok_;                                                                           \
    char *s_ = wkt_text(&v_, &ok_);                                                     \
    ck_assert_msg(ok_ && strcmp(s_, expected) == 0, "%s %lld %d: [%s] want [%s]", type, \
                  (long long)(secs), (int)(nanos), s_, expected);                       \
    free(s_);                                                                           \
  } while (0)
#define CHECK_NOT_WKT(type, secs, nanos)                                                  \
  do {                                                                                    \
    pbd_Value v_ = secs_nanos(type, secs, nanos);                                         \
    bool ok_;                                                                             \
    char *s_ = wkt_text(&v_, &ok_);                                                       \
    ck_assert_msg(!ok_ && s_[0] == '\0', "%s %lld %d: [%s] accepted", type,               \
                  (long long)(secs), (int)(nanos), s_);                                   \
    free(s_);                                                                             \
  } while (0)

#define TS "google.protobuf.Timestamp"
#define DU "google.protobuf.Duration"

START_TEST(wkt_timestamp) {
  CHECK_WKT(TS, 0, 0, "1970-01-01T00:00:00Z");
  CHECK_WKT(TS, 1714564800, 0, "2024-05-01T12:00:00Z");
  CHECK_WKT(TS, 1714564800, 500000000, "2024-05-01T12:00:00.500Z");
  CHECK_WKT(TS, 1714564800, 120000, "2024-05-01T12:00:00.000120Z");
  CHECK_WKT(TS, 1714564800, 1, "2024-05-01T12:00:00.000000001Z");
  CHECK_WKT(TS, 1714564800, 999999999, "2024-05-01T12:00:00.999999999Z");
  CHECK_WKT(TS, 951868799, 0, "2000-02-29T23:59:59Z");
  CHECK_WKT(TS, -1, 0, "1969-12-31T23:59:59Z");
  CHECK_WKT(TS, -14182940, 0, "1969-07-20T20:17:40Z");
  CHECK_WKT(TS, -62135596800LL, 0, "0001-01-01T00:00:00Z");
  CHECK_WKT(TS, 253402300799LL, 999999999, "9999-12-31T23:59:59.999999999Z");
  /* out of range: not written */
  CHECK_NOT_WKT(TS, -62135596801LL, 0);
  CHECK_NOT_WKT(TS, 253402300800LL, 0);
  CHECK_NOT_WKT(TS, 0, -1);
  CHECK_NOT_WKT(TS, 0, 1000000000);
  CHECK_NOT_WKT(TS, INT64_MIN, 0);
  /* an absent value of a Timestamp field is the epoch */
  const pbd_FieldDef *fts = pbd_MessageDef_FindFieldByName(wtype("wkt.All"), "ts");
  pbd_Value none = pbd_FieldDef_DefaultValue(fts);
  bool ok;
  char *s = wkt_text(&none, &ok);
  ck_assert(ok);
  ck_assert_str_eq(s, "1970-01-01T00:00:00Z");
  free(s);
  /* an unknown field inside: not written */
  static const uint8_t unk[] = {0x08, 0x01, 0x18, 0x01};
  pbd_Value u = {.kind = kPbd_Value_Message, .m = parse(wtype(TS), unk, sizeof unk)};
  s = wkt_text(&u, &ok);
  ck_assert(!ok);
  free(s);
  /* other types, other values */
  pbd_Value i = I(5);
  s = wkt_text(&i, &ok);
  ck_assert(!ok);
  free(s);
  pbd_Value other = secs_nanos("google.protobuf.Int64Value", 5, 0);
  s = wkt_text(&other, &ok);
  ck_assert(!ok);
  free(s);
}
END_TEST

START_TEST(wkt_duration) {
  CHECK_WKT(DU, 0, 0, "0s");
  CHECK_WKT(DU, 3, 0, "3s");
  CHECK_WKT(DU, 1, 500000000, "1.5s");
  CHECK_WKT(DU, 0, -250000000, "-0.25s");
  CHECK_WKT(DU, 0, 120000000, "0.12s");
  CHECK_WKT(DU, -3, 0, "-3s");
  CHECK_WKT(DU, -1, -1, "-1.000000001s");
  CHECK_WKT(DU, 0, 1000, "0.000001s");
  CHECK_WKT(DU, 315576000000LL, 999999999, "315576000000.999999999s");
  CHECK_WKT(DU, -315576000000LL, -999999999, "-315576000000.999999999s");
  CHECK_NOT_WKT(DU, 315576000001LL, 0);
  CHECK_NOT_WKT(DU, -315576000001LL, 0);
  CHECK_NOT_WKT(DU, 1, -1);  /* signs differ */
  CHECK_NOT_WKT(DU, -1, 1);
  CHECK_NOT_WKT(DU, 0, 1000000000);
  CHECK_NOT_WKT(DU, 0, -1000000000);
}
END_TEST

/* wkt.All payloads, encoded by protoc from text format. */
static const pbd_Message *encode_all(const char *txt) {
  char *in = tu_write_temp(txt, strlen(txt), ".txt");
  char *out = tu_write_temp("", 0, ".pb");
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "protoc --encode=wkt.All -I%s/testdata/schema -I/usr/include %s/testdata/schema/wkt.proto "
           "< %s > %s",
           tu_root(), tu_root(), in, out);
  char *err = NULL;
  int rc = tu_run(cmd, NULL, &err);
  ck_assert_msg(rc == 0, "protoc --encode: %s", err);
  free(err);
  size_t n;
  uint8_t *b = tu_read_file(out, &n);
  ck_assert_ptr_nonnull(b);
  const pbd_Message *m = parse(wtype("wkt.All"), b, n);
  free(b);
  unlink(in);
  unlink(out);
  free(in);
  free(out);
  return m;
}

static char *value_text(const pbd_Message *m, bool well_known) {
  pbd_Buf b = {0};
  pbd_TextOptions o = {.well_known = well_known};
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  pbd_Format_TextValue(&b, &v, &o);
  char *s = strdup(b.data);
  pbd_Buf_Free(&b);
  return s;
}

static char *value_json(const pbd_Message *m) {
  pbd_Buf b = {0};
  pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
  pbd_Format_JsonValue(&b, &v);
  char *s = strdup(b.data);
  pbd_Buf_Free(&b);
  return s;
}

#define CHECK_STR(expr, expected) \
  do {                            \
    char *s_ = (expr);            \
    ck_assert_str_eq(s_, expected); \
    free(s_);                     \
  } while (0)

START_TEST(wkt_in_text_values) {
  const pbd_Message *m = encode_all(
      "duration { seconds: 1 nanos: 500000000 } ts { seconds: 1714564800 nanos: 500000000 }");
  CHECK_STR(value_text(m, true), "{ duration: 1.5s ts: 2024-05-01T12:00:00.500Z }");
  /* plain text format without the option */
  CHECK_STR(value_text(m, false),
            "{ duration { seconds: 1 nanos: 500000000 } ts { seconds: 1714564800 nanos: 500000000 } }");
  /* multiline */
  pbd_Buf b = {0};
  pbd_TextOptions ml = {.multiline = true, .well_known = true};
  pbd_Format_TextMessage(&b, m, &ml);
  ck_assert_str_eq(b.data, "duration: 1.5s\nts: 2024-05-01T12:00:00.500Z\n");
  pbd_Buf_Free(&b);
  /* out of range: the message form */
  m = encode_all("ts { seconds: 1 nanos: -5 } duration { seconds: -1 nanos: 5 }");
  CHECK_STR(value_text(m, true), "{ duration { seconds: -1 nanos: 5 } ts { seconds: 1 nanos: -5 } }");
  /* an empty Timestamp set: the epoch */
  m = encode_all("ts { }");
  CHECK_STR(value_text(m, true), "{ ts: 1970-01-01T00:00:00Z }");
  /* inside an Any */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Duration] { seconds: 3 } }");
  CHECK_STR(value_text(m, true), "{ any { [type.googleapis.com/google.protobuf.Duration] 3s } }");
}
END_TEST

START_TEST(wkt_in_json_values) {
  const pbd_Message *m = encode_all(
      "duration { seconds: -1 nanos: -500000000 } ts { seconds: 1714564800 nanos: 120000 } "
      "i64 { value: 5 }");
  CHECK_STR(value_json(m), "{\"duration\": \"-1.500s\", \"ts\": \"2024-05-01T12:00:00.000120Z\", "
                           "\"i64\": \"5\"}");
  /* an empty wrapper is its default value */
  m = encode_all("i64 { } ts { }");
  CHECK_STR(value_json(m), "{\"ts\": \"1970-01-01T00:00:00Z\", \"i64\": \"0\"}");
  /* out of range: the message form */
  m = encode_all("ts { seconds: 253402300800 }");
  CHECK_STR(value_json(m), "{\"ts\": {\"seconds\": \"253402300800\"}}");
  /* Struct, Value, ListValue */
  m = encode_all(
      "struct { fields { key: \"n\" value { number_value: 1.5 } } "
      "fields { key: \"s\" value { string_value: \"x\" } } "
      "fields { key: \"b\" value { bool_value: true } } "
      "fields { key: \"z\" value { null_value: NULL_VALUE } } "
      "fields { key: \"l\" value { list_value { values { number_value: 1 } values { "
      "struct_value { } } } } } }");
  CHECK_STR(value_json(m),
            "{\"struct\": {\"b\": true, \"l\": [1, {}], \"n\": 1.5, \"s\": \"x\", \"z\": null}}");
  /* a Value with nothing set: the message form */
  m = encode_all("struct { fields { key: \"e\" value { } } }");
  CHECK_STR(value_json(m), "{\"struct\": {\"fields\": {\"e\": {}}}}");
  /* FieldMask */
  m = encode_all("mask { paths: \"foo_bar\" paths: \"a.b_c_d\" }");
  CHECK_STR(value_json(m), "{\"mask\": \"fooBar,a.bCD\"}");
  m = encode_all("mask { }");
  CHECK_STR(value_json(m), "{\"mask\": \"\"}");
  /* an Any holding one: "value" */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Timestamp] { seconds: 1 } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Timestamp\", "
                           "\"value\": \"1970-01-01T00:00:01Z\"}}");
  m = encode_all("any { [type.googleapis.com/google.protobuf.Int64Value] { value: 7 } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Int64Value\", "
                           "\"value\": \"7\"}}");
  /* an Any holding an Any */
  m = encode_all("any { [type.googleapis.com/google.protobuf.Any] { "
                 "[type.googleapis.com/google.protobuf.Duration] { seconds: 3 } } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.Any\", "
                           "\"value\": {\"@type\": \"type.googleapis.com/google.protobuf.Duration\", "
                           "\"value\": \"3s\"}}}");
  /* an Any holding an ordinary message: its fields */
  m = encode_all("any { [type.googleapis.com/google.protobuf.SourceContext] { file_name: \"f\" } }");
  CHECK_STR(value_json(m), "{\"any\": {\"@type\": \"type.googleapis.com/google.protobuf.SourceContext\", "
                           "\"fileName\": \"f\"}}");
}
END_TEST

/* Diffs two wkt.All payloads into a report. */
static char *diff_report(const char *ltxt, const char *rtxt, pbd_ReportFormat fmt) {
  const pbd_Message *l = encode_all(ltxt), *r = encode_all(rtxt);
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *rep = pbd_Reporter_New(fmt, out, NULL);
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 0;
  ck_assert_int_eq(pbd_Diff_Run(l, r, NULL, pbd_Reporter_Edit, rep, &n, &s), 0);
  ck_assert(pbd_Reporter_Finish(rep, n == 0));
  pbd_Reporter_Free(rep);
  fclose(out);
  return text;
}

START_TEST(wkt_in_reports) {
  CHECK_STR(diff_report("", "ts { seconds: 1714564800 }", kPbd_Report_Text),
            "ts: added 2024-05-01T12:00:00Z\n");
  CHECK_STR(diff_report("duration { seconds: 1 nanos: 500000000 }", "", kPbd_Report_Text),
            "duration: removed 1.5s\n");
  CHECK_STR(diff_report("", "ts { }", kPbd_Report_Text),
            "ts: unset -> set to 1970-01-01T00:00:00Z\n");
  char *t = diff_report("", "ts { seconds: 1714564800 nanos: 500000000 } i64 { value: 9 }",
                        kPbd_Report_Json);
  ck_assert_str_eq(t,
                   "{\"equal\": false, \"differences\": [\n"
                   "  {\"path\": \"ts\", \"kind\": \"added\", \"right\": "
                   "\"2024-05-01T12:00:00.500Z\", \"parent\": \"\", \"type\": \"wkt.All\"},\n"
                   "  {\"path\": \"i64\", \"kind\": \"added\", \"right\": \"9\", \"parent\": \"\", "
                   "\"type\": \"wkt.All\"}\n"
                   "]}\n");
  CHECK_JSON_SHAPE(t, 2);
  free(t);
  /* both set: the diff engine descends into the fields (a Timestamp
   * compared as one value needs the engine to stop there) */
  t = diff_report("ts { seconds: 1 }", "ts { seconds: 2 }", kPbd_Report_Text);
  /* a Timestamp or Duration change is one change of the whole value */
  ck_assert_str_eq(t, "ts: 1970-01-01T00:00:01Z -> 1970-01-01T00:00:02Z\n");
  free(t);
  t = diff_report("duration { seconds: 1 }", "duration { seconds: 1 nanos: 500000000 }",
                  kPbd_Report_Text);
  ck_assert_str_eq(t, "duration: 1s -> 1.5s\n");
  free(t);
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("wkt");
  TCase *tc;
  tc = tcase_create("wkt");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, wkt_setup, wkt_teardown);
  tcase_add_test(tc, wkt_timestamp);
  tcase_add_test(tc, wkt_duration);
  tcase_add_test(tc, wkt_in_text_values);
  tcase_add_test(tc, wkt_in_json_values);
  tcase_add_test(tc, wkt_in_reports);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
