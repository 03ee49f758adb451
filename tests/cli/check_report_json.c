/* pbdiff tests — the JSON report of cli/report.c, checked against
 * docs/json-format.md by the strict parser of tu_json.h: every kind of edit,
 * the validator's own strictness, and the CLI's JSON output on real inputs. */
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

/* ---- JSON ------------------------------------------------------------------------------ */

START_TEST(json_kinds) {
  size_t n = kinds_edits();
  char *t = tu_report(kPbd_Report_Json, NULL, g_kinds, n, false);
  ck_assert_str_eq(
      t,
      "{\"equal\": false, \"differences\": [\n"
      "  {\"path\": \"g.a\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.b[0]\", \"kind\": \"added\", \"right\": 3, \"right_index\": 0, "
      "\"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.c[1]\", \"kind\": \"removed\", \"left\": \"x\", \"left_index\": 1, "
      "\"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.d\", \"kind\": \"presence\", \"right\": 0, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.e\", \"kind\": \"presence\", \"left\": false, \"parent\": \"g\", "
      "\"type\": \"t.Node\"},\n"
      "  {\"path\": \"g.attribute[\\\"x\\\"]\", \"kind\": \"moved\", \"left\": 7, \"right\": 7, "
      "\"left_index\": 2, \"right_index\": 0, \"parent\": \"g\", \"type\": \"t.Node\"},\n"
      "  {\"path\": \"rm[5]\", \"kind\": \"moved\", \"left\": 7, \"right\": 7, \"left_index\": 5, "
      "\"right_index\": 1, \"parent\": \"\", \"type\": \"t.Model\"},\n"
      "  {\"path\": \"ms[\\\"k\\\"]\", \"kind\": \"added\", \"right\": {\"a\": 1}, "
      "\"parent\": \"\", \"type\": \"t.Model\"}\n"
      "]}\n");
  CHECK_JSON_SHAPE(t, n);
  free(t);
  /* no schema: type null; an Any payload's parent */
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "7[0].1[0].4[0]", 9, NULL, mk_u(kPbd_Value_Varint, 1, NULL),
        mk_u(kPbd_Value_Varint, 2, NULL)),
      E(kPbd_Edit_Changed, "any.[type.googleapis.com/t.Node].a", 32, &md_node, I(5), I(6)),
  };
  t = tu_report(kPbd_Report_Json, NULL, e, N(e), false);
  ck_assert_str_eq(t,
                   "{\"equal\": false, \"differences\": [\n"
                   "  {\"path\": \"7[0].1[0].4[0]\", \"kind\": \"changed\", \"left\": \"1\", "
                   "\"right\": \"2\", \"parent\": \"7[0].1[0]\", \"type\": null},\n"
                   "  {\"path\": \"any.[type.googleapis.com/t.Node].a\", \"kind\": \"changed\", "
                   "\"left\": 5, \"right\": 6, \"parent\": \"any.[type.googleapis.com/t.Node]\", "
                   "\"type\": \"t.Node\"}\n"
                   "]}\n");
  CHECK_JSON_SHAPE(t, 2);
  free(t);
  CHECK_REPORT(kPbd_Report_Json, NULL, NULL, 0, true, "{\"equal\": true, \"differences\": []}\n");
}
END_TEST

/* The validator itself: it must refuse what the documented schema does not
 * allow, or its passes mean nothing. */
START_TEST(json_validator_is_strict) {
  static const char *const bad[] = {
      "",
      "{\"equal\": true, \"differences\": []}",          /* no newline */
      "{\"equal\": true, \"differences\": [],}\n",       /* trailing comma */
      "{\"equal\": true, \"differences\": []} x\n",      /* trailing text */
      "{\"equal\": 1, \"differences\": []}\n",
      "{\"equal\": true}\n",
      "{\"differences\": [], \"equal\": true}\n",        /* order */
      "{\"equal\": true, \"equal\": true, \"differences\": []}\n",
      "{\"equal\": true, \"differences\": [], \"extra\": 1}\n",
      "{\"equal\": true, \"differences\": [], \"omitted\": 2}\n",
      "{\"equal\": false, \"differences\": [], \"omitted\": 0}\n",
      "{\"equal\": false, \"left_name\": \"a\", \"differences\": []}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"added\", \"left\": 1, "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"removed\", "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"presence\", "
      "\"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"moved\", \"left\": 1, "
      "\"right\": 1, \"left_index\": 1, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"moved\", \"left\": 1, "
      "\"right\": 1, \"left_index\": -1, \"right_index\": 0, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"renamed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"b\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"ab\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"a\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": 5}]}\n",
      "{\"equal\": false, \"differences\": [{\"kind\": \"changed\", \"path\": \"a\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": 01, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\\x\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\\ud800\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\t\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"\xff\", \"kind\": \"changed\", "
      "\"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a\", \"kind\": \"changed\", "
      "\"left\": NaN, \"right\": 2, \"parent\": \"\", \"type\": null}]}\n",
      "{\"equal\": true, \"differences\": [], \"schema_changes\": [{\"from\": {\"schema_id\": 7}, "
      "\"to\": {\"schema_id\": 8}, \"records\": 0}]}\n",
      "{\"equal\": true, \"differences\": [], \"schema_changes\": [{\"from\": {\"schema_id\": 7}, "
      "\"to\": {\"schema_id\": 8}, \"records\": 1}]}\n",
      "{\"equal\": true, \"differences\": [], \"schema_changes\": [{\"from\": {\"value\": \"none\"}, "
      "\"to\": {\"schema_id\": 8}, \"records\": 2}]}\n",
      "{\"equal\": true, \"differences\": [], \"schema_changes_omitted\": 1}\n",
  };
  for (size_t i = 0; i < N(bad); i++)
    ck_assert_msg(tu_json_check_report(bad[i], NULL) != NULL, "accepted bad report %zu: %s", i,
                  bad[i]);
  static const char *const good[] = {
      "{\"equal\": true, \"differences\": []}\n",
      " { \"equal\" : false , \"differences\" : [ ] , \"omitted\" : 3 } \n",
      "{\"equal\": false, \"differences\": [{\"path\": \"a.b\", \"kind\": \"changed\", "
      "\"left\": {\"x\": [1, 2.5e-3, \"\\u00e9\\ud83d\\ude00\", null, true]}, \"right\": -0, "
      "\"parent\": \"a\", \"type\": \"p.T\"}]}\n",
      "{\"equal\": true, \"differences\": [], \"schema_changes\": [{\"from\": {\"schema_id\": 7}, "
      "\"to\": {\"schema_id\": 8}, \"records\": 5}, {\"from\": {\"key\": null}, \"to\": "
      "{\"key\": \"u\"}, \"records\": 1, \"record\": \"[2]\"}], \"schema_changes_omitted\": 1}\n",
  };
  for (size_t i = 0; i < N(good); i++) {
    const char *w = tu_json_check_report(good[i], NULL);
    ck_assert_msg(w == NULL, "refused good report %zu (%s): %s", i, w, good[i]);
  }
}
END_TEST

/* The CLI's JSON output on real inputs fits the documented shape. */
START_TEST(json_cli_outputs) {
  static const char *const cmds[] = {
      "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx",
      "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx",
      "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx "
      "/usr/share/libonnx-testdata/data/node/test_gru_defaults/model.onnx",
      "--proto /usr/include/onnx/onnx.proto -t onnx.TensorProto "
      "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/input_0.pb "
      "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/output_0.pb",
  };
  for (size_t i = 0; i < N(cmds); i++) {
    char cmd[2048], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "'%s' --format json %s", tu_pbdiff(), cmds[i]);
    int rc = tu_run(cmd, &out, &err);
    ck_assert_msg(rc == 0 || rc == 1, "%s: status %d: %s", cmd, rc, err);
    size_t n = 0;
    const char *w = tu_json_check_report(out, &n);
    ck_assert_msg(w == NULL, "%s: %s in\n%.2000s", cmd, w, out);
    ck_assert_msg((rc == 0) == (n == 0), "%s: status %d with %zu differences", cmd, rc, n);
    free(out);
    free(err);
  }
}
END_TEST

/* A Confluent stream whose every record moved to a new schema id: the JSON
 * report counts the change once (docs/json-format.md, schema_changes), by
 * position and by --record-key, fits the documented shape, and caps the
 * kinds as --max-diffs caps differences. */
START_TEST(json_schema_changes) {
  char dir[] = "/tmp/pbdiff-json-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char cmd[4096], *out = NULL, *err = NULL;
  /* 300 records of LEFT under schema id 7; RIGHT's under 8, but every third under 9 with
   * the indexes [1], and the last a tombstone */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && printf 'syntax = \"proto3\";\\npackage mt;\\n"
           "message A { int32 x = 1; int32 y = 2; }\\n' > mt.proto && "
           "for a in $(seq 1 100); do for b in 1 2 3; do printf '08%%02x10%%02x %%s\\n' $a $b $b; "
           "done; done > msgs && w='/usr/bin/python3 %s/tests/support/write_framed.py confluent' && "
           "$w l.kc $(sed 's|^\\(.*\\) .*|7/0:\\1|' msgs) && "
           "$w r.kc $(sed -e 's|^\\(.*\\) 3$|9/1:\\1|' -e 's|^\\(.*\\) .$|8/0:\\1|' "
           "-e '$s|.*|tombstone|' msgs)",
           dir, tu_root());
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  free(out);
  free(err);
  static const char *const opts[] = {"", "--record-key x+y", "--max-diffs 1"};
  for (size_t i = 0; i < N(opts); i++) {
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' --format json --proto mt.proto -t mt.A --framing confluent %s "
             "l.kc r.kc",
             dir, tu_pbdiff(), opts[i]);
    int rc = tu_run(cmd, &out, &err);
    ck_assert_msg(rc == 1, "%s: status %d: %s", cmd, rc, err); /* the tombstone differs */
    const char *w = tu_json_check_report(out, NULL);
    ck_assert_msg(w == NULL, "%s: %s in\n%.2000s", cmd, w, out);
    ck_assert_msg(strstr(out, "{\"from\": {\"schema_id\": 7}, \"to\": {\"schema_id\": 8}, "
                              "\"records\": 200}"), "%s: %s", cmd, out);
    bool capped = strstr(opts[i], "max-diffs") != NULL;
    const char *nine = "{\"from\": {\"schema_id\": 7, \"indexes\": [0]}, \"to\": "
                       "{\"schema_id\": 9, \"indexes\": [1]}, \"records\": 99}";
    ck_assert_msg(!strstr(out, nine) == capped, "%s: %s", cmd, out);
    ck_assert_msg(!strstr(out, "\"schema_changes_omitted\": 2}") == !capped, "%s: %s", cmd, out);
    ck_assert_msg(!strstr(out, "\"schema_changes_omitted\"") == !capped, "%s: %s", cmd, out);
    const char *gone = "{\"from\": {\"schema_id\": 7, \"indexes\": [0]}, \"to\": "
                       "{\"value\": \"tombstone\"}, \"records\": 1, \"record\": \"[299]\"}";
    /* by key the tombstone (x=0,y=0) pairs with no record */
    ck_assert_msg((strstr(out, gone) != NULL) == (i == 0), "%s: %s", cmd, out);
    free(out);
    free(err);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(tu_run(cmd, NULL, NULL), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("report_json");
  TCase *tc;
  tc = tcase_create("json");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, json_kinds);
  tcase_add_test(tc, json_validator_is_strict);
  tcase_add_test(tc, json_cli_outputs);
  tcase_add_test(tc, json_schema_changes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
