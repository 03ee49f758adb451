/* pbdiff tests — the CLI reporters (cli/report.c) on one fixed list of
 * edits of every kind, in text and JSON, to memory and to streams, and a
 * write error.  Values are built by hand (tu_values.h). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/report.h" /* linked from build/cli/report.o (see Makefile) */
#include "testutil.h"
#include "tu_values.h"

/* ---- reporters ------------------------------------------------------------ */

/* Builds the edit list shared by the text and JSON reporter tests.  The
 * paths live in a buffer that is overwritten after each edit would be
 * delivered, as the diff engine's are. */
static size_t sample_edits(pbd_Edit *e, char big[200]) {
  memset(big, 'z', 200);
  size_t n = 0;
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, tu_path("a.b", 0, NULL), 0, NULL, mk_i(kPbd_Value_Int, 1, &fd_i64),
                      mk_i(kPbd_Value_Int, 2, &fd_i64)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Added, tu_path("c[0]", 0, NULL), 0, NULL, None(), S("x\"y")
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Removed, tu_path("labels[\"k\"]", 0, NULL), 0, NULL, mk_m(kPbd_Value_Message, &sub_msg),
                      None()
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Presence, tu_path("opt", 0, NULL), 0, NULL, None(), mk_i(kPbd_Value_Int, 0, &fd_i32)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Presence, tu_path("flag", 0, NULL), 0, NULL, mk_u(kPbd_Value_Bool, 0, NULL), None()
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, tu_path("", 0, NULL), 0, NULL, mk_m(kPbd_Value_Message, &sub_msg),
                      mk_m(kPbd_Value_Message, NULL)
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, tu_path("data", 0, NULL), 0, NULL, mk_s(kPbd_Value_Bytes, big, 200), B("\x01")
                      , -1, -1};
  e[n++] = (pbd_Edit){kPbd_Edit_Changed, tu_path("f", 0, NULL), 0, NULL, mk_u(kPbd_Value_Float, fbits(NAN), NULL),
                      mk_u(kPbd_Value_Float, fbits(0.1f), NULL)
                      , -1, -1};
  return n;
}

START_TEST(test_report_text) {
  pbd_Edit e[8];
  char big[200];
  size_t n = sample_edits(e, big);
  char *text = tu_report(kPbd_Report_Text, NULL, e, n, false);
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
  text = tu_report(kPbd_Report_Text, NULL, NULL, 0, true);
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
  pbd_Edit e = {kPbd_Edit_Added, tu_path("x", 0, NULL), 0, NULL, None(), mk_i(kPbd_Value_Int, 3, &fd_i32), -1, -1};
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
  char name[8] = "p";
  pbd_FieldDef fd = {.name = name, .full_name = name};
  pbd_PathSeg seg = {.kind = kPbd_Seg_Field, .number = 1, .field = &fd};
  pbd_Path path = {&seg, 1, 1, false, NULL, 0};
  e[0].path = &path;
  /* The reporter must copy what it keeps: feed the edits one by one and
   * scribble over the path and the bytes after each. */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Json, out, NULL);
  ck_assert_ptr_nonnull(r);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(pbd_Reporter_Edit(r, &e[i]), 0);
  strcpy(name, "gone");
  seg.number = 2;
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
  char *text = tu_report(kPbd_Report_Json, NULL, NULL, 0, true);
  ck_assert_str_eq(text, "{\"equal\": true, \"differences\": []}\n");
  free(text);
  text = tu_report(kPbd_Report_Json, NULL, NULL, 0, false);
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


static Suite *suite(void) {
  Suite *s = suite_create("reporters");
  TCase *tc;
  tc = tcase_create("report");
  tcase_add_test(tc, test_report_text);
  tcase_add_test(tc, test_report_text_streams);
  tcase_add_test(tc, test_report_json);
  tcase_add_test(tc, test_report_json_empty);
  tcase_add_test(tc, test_report_write_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
