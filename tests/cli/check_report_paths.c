/* pbdiff tests — `--format paths` (cli/report/paths.c): one `KIND PATH`
 * line per difference for one pair, lines after `REL<TAB>` under -r, one
 * line for a file on one side only or that failed, --max-diffs, and the
 * git driver's header before the lines. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/pbdiff.h"
#include "report/report.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("paths", "proto/sem3.proto", "sem3.desc")

START_TEST(reporter_lines) {
  pbd_Value one = {.kind = kPbd_Value_Int, .i = 1}, two = {.kind = kPbd_Value_Int, .i = 2};
  pbd_Value none = {.kind = kPbd_Value_None};
  size_t pc;
  const pbd_Path *p1 = tu_path("graph.node[3].op_type", 13, &pc);
  pbd_Edit e[] = {
      {kPbd_Edit_Changed, p1, pc, NULL, one, two, -1, -1},
      {kPbd_Edit_Added, tu_path("labels[\"k\"]", 0, NULL), 0, NULL, none, two, -1, -1},
      {kPbd_Edit_Removed, tu_path("", 0, NULL), 0, NULL, one, none, -1, -1},
  };
  char *t = tu_report(kPbd_Report_Paths, NULL, e, 3, false);
  ck_assert_str_eq(t, "changed graph.node[3].op_type\nadded labels[\"k\"]\nremoved .\n");
  free(t);
  pbd_ReportOptions o = {.max_diffs = 1};
  t = tu_report(kPbd_Report_Paths, &o, e, 3, false);
  ck_assert_str_eq(t, "changed graph.node[3].op_type\n");
  free(t);
  t = tu_report(kPbd_Report_Paths, NULL, NULL, 0, true);
  ck_assert_str_eq(t, "");
  free(t);
  pbd_ReportFormat f;
  ck_assert(pbd_Report_FormatByName("paths", &f) && f == kPbd_Report_Paths);
}
END_TEST

START_TEST(command_line) {
  put("a.pb", "08 01 52 02 6869 7a 02 0801"); /* i32: 1, str: "hi", rm {i32: 1} */
  put("b.pb", "08 02 52 02 686f 18 05");       /* i32: 2, str: "ho", u32: 5 */
  EXPECT(PB(S3 "--format paths a.pb b.pb"), 1,
         "changed i32\nchanged u32\nchanged str\nremoved rm[0]\n");
  EXPECT(PB(S3 "--format paths a.pb a.pb"), 0, "");
  ck_assert_ptr_nonnull(strstr(PB("--help")->out, "'paths'"));
}
END_TEST

START_TEST(directories) {
  tu_sh("mkdir -p d1/s d2/s");
  put("d1/s/x.pb", "08 01");
  put("d2/s/x.pb", "08 02");
  put("d1/same.pb", "08 01");
  put("d2/same.pb", "08 01");
  put("d1/only.pb", "08 01");
  put("d2/bad.pb", "0a 05");
  put("d1/bad.pb", "08 01");
  EXPECT2(PB(S3 "-r --format paths d1 d2"), 2,
          "bad.pb\terror\nonly.pb\tonly-left\ns/x.pb\tchanged i32\n",
          "pbdiff: d2/bad.pb: length 5 of field 1 runs past the end (only 0 left) at byte 1\n");
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("paths");
  TCase *t = tcase_create("paths");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, reporter_lines);
  tcase_add_test(t, command_line);
  tcase_add_test(t, directories);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
