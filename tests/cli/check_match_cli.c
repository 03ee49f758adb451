/* The explaining diff through the CLI: --key, --repeated-as-set, --ignore and
 * the float options as options (and their usage errors), --explain, --stat,
 * --max-diffs and --color; and the ONNX acceptance case (one node inserted,
 * one removed, one attribute changed, found under each matching rule).  The
 * rules themselves on hand-made trees: tests/unit/diff/check_match.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int count(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, needle)); p++) n++;
  return n;
}

START_TEST(onnx_insert_remove_change) {
  const char *model =
      "/usr/share/libonnx-testdata/data/node/test_softmax_axis_0_expanded/model.onnx";
  char dir[] = "/tmp/pbdiff-match-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char cmd[4096];
  /* edit the text form: insert a Relu node after the first node, remove the
   * Exp node, set keepdims of the ReduceSum node to 0 */
  snprintf(cmd, sizeof cmd,
           "cd %s && protoc --decode=onnx.ModelProto -I/usr/include onnx/onnx.proto < %s > m.txt && "
           "awk 'BEGIN{n=0} /^  node \\{/{n++; if(n==2) print \"  node {\\n    input: \\\"x\\\"\\n"
           "    output: \\\"extra_relu\\\"\\n    op_type: \\\"Relu\\\"\\n  }\"} "
           "{print}' m.txt | "
           "awk '/^  node \\{/{buf=$0; getline; while ($0 !~ /^  \\}/) {buf=buf\"\\n\"$0; getline} "
           "buf=buf\"\\n\"$0; if (buf ~ /op_type: \"Exp\"/) next; if (buf ~ /ReduceSum/) sub(/i: 1/, \"i: 0\", buf); "
           "print buf; next} {print}' > m2.txt && "
           "protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto < m2.txt > m2.onnx",
           dir, model);
  char *out, *err;
  ck_assert_msg(tu_run(cmd, &out, &err) == 0, "edit failed: %s", err);
  free(out), free(err);
  const char *keys[] = {"", "--key onnx.GraphProto.node=output "};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd,
             "%s --format json %s--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto %s %s/m2.onnx",
             tu_pbdiff(), keys[k], model, dir);
    int rc = tu_run(cmd, &out, &err);
    ck_assert_msg(rc == 1, "status %d: %s", rc, err);
    ck_assert_msg(count(out, "\"kind\"") == 3, "want 3 edits (%s):\n%s", keys[k], out);
    ck_assert_msg(count(out, "\"kind\": \"added\"") == 1, "%s", out);
    ck_assert_msg(count(out, "\"kind\": \"removed\"") == 1, "%s", out);
    ck_assert_msg(count(out, "\"kind\": \"changed\"") == 1, "%s", out);
    ck_assert_msg(strstr(out, k ? "graph.node[output=\\\"Softmax_test_softmax_axis_0_expanded_function_X_ReduceSum\\\"].attribute[0].i"
                                : "graph.node[4].attribute[0].i"),
                  "%s", out);
    ck_assert_msg(strstr(out, k ? "graph.node[output=\\\"extra_relu\\\"]" : "graph.node[1]"), "%s", out);
    free(out), free(err);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(tu_run(cmd, NULL, NULL), 0);
}
END_TEST

START_TEST(cli_options) {
  char *out, *err;
  char cmd[2048];
  const char *S = "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto";
  const char *m = "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx";
  snprintf(cmd, sizeof cmd, "%s %s --key onnx.GraphProto.nope=x %s %s", tu_pbdiff(), S, m, m);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "--key: no field onnx.GraphProto.nope"), "%s", err);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --key a.b=c %s %s", tu_pbdiff(), m, m);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "need a schema"), "%s", err);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --float-margin x %s %s", tu_pbdiff(), m, m);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 2);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --float-bits --float-fraction 0.1 %s %s", tu_pbdiff(), m, m);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 2);
  free(out), free(err);
  /* --ignore by full field name and by pattern make the abs/neg models equal */
  const char *n = "/usr/share/libonnx-testdata/data/node/test_neg/model.onnx";
  snprintf(cmd, sizeof cmd, "%s -q %s --ignore onnx.NodeProto.op_type --ignore 'graph.name' %s %s",
           tu_pbdiff(), S, m, n);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s -q %s --ignore 'graph.node[*].op_type' %s %s", tu_pbdiff(), S, m, n);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  free(out), free(err);
  /* --help names every matching option */
  snprintf(cmd, sizeof cmd, "%s --help", tu_pbdiff());
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  const char *opts[] = {"--key", "--repeated-as-set", "--report-moves", "--ignore", "--partial",
                        "--float-margin", "--float-fraction"};
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
    ck_assert_msg(strstr(out, opts[i]), "--help lacks %s", opts[i]);
  free(out), free(err);
}
END_TEST

/* --explain, --stat, --max-diffs and --color through the CLI. */
START_TEST(cli_explain_and_report_options) {
  char cmd[4096], *out, *err, want[4096];
  const char *root = tu_root();
  char S[1024];
  snprintf(S, sizeof S, "--proto %s/testdata/proto/sem3.proto -t sem3.M", root);
  /* equal in meaning, different bytes: the encoding differences */
  size_t n;
  char path[1024];
  snprintf(path, sizeof path, "%s/testdata/explain/expected.txt", root);
  char *expected = (char *)tu_read_file(path, &n);
  ck_assert_ptr_nonnull(expected);
  expected = realloc(expected, n + 1);
  expected[n] = '\0';
  int k = snprintf(want, sizeof want, "equal in meaning, but the bytes differ:\n");
  for (char *p = expected; *p;) {
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
    k += snprintf(want + k, sizeof want - (size_t)k, "  %.*s", (int)len, p);
    p += len;
  }
  free(expected);
  snprintf(cmd, sizeof cmd, "%s --explain %s %s/testdata/explain/left.pb %s/testdata/explain/right.pb",
           tu_pbdiff(), S, root, root);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  ck_assert_str_eq(out, want);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --explain --format json %s %s/testdata/explain/left.pb %s/testdata/explain/right.pb",
           tu_pbdiff(), S, root, root);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  char head[2048];
  snprintf(head, sizeof head,
           "{\"equal\": true, \"left_name\": \"%s/testdata/explain/left.pb\", \"right_name\": "
           "\"%s/testdata/explain/right.pb\", \"differences\": [], \"encoding\": [{\"kind\": "
           "\"field order\", \"left\": {\"count\": 0, \"first_offset\": null}, \"right\": "
           "{\"count\": 2, \"first_offset\": 4, \"first_path\": \"i32\"}}",
           root, root);
  ck_assert_msg(!strncmp(out, head, strlen(head)), "%s", out);
  free(out), free(err);
  /* identical bytes */
  snprintf(cmd, sizeof cmd, "%s --explain %s %s/testdata/explain/left.pb %s/testdata/explain/left.pb",
           tu_pbdiff(), S, root, root);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 0);
  ck_assert_str_eq(out, "identical bytes\n");
  free(out), free(err);
  /* different in meaning: the differences, no explanation */
  snprintf(cmd, sizeof cmd, "printf '\\010\\002' | %s --explain %s %s/testdata/explain/left.pb -",
           tu_pbdiff(), S, root);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  ck_assert_msg(!strstr(out, "bytes differ") && strstr(out, "i32: 1 -> 2"), "%s", out);
  free(out), free(err);
  /* --stat, --max-diffs, --color */
  const char *m = "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx",
             *a = "/usr/share/libonnx-testdata/data/node/test_acos/model.onnx";
  const char *O = "--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto";
  snprintf(cmd, sizeof cmd, "%s --stat %s %s %s", tu_pbdiff(), O, m, a);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  ck_assert_str_eq(out, "  ir_version: 1 changed\n  graph: 2 changed\n  opset_import: 1 changed\n"
                        "4 differences: 4 changed\n");
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --max-diffs 1 %s %s %s", tu_pbdiff(), O, m, a);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  ck_assert_str_eq(out, "ir_version: 7 -> 3\n... and 3 more differences\n");
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s --color=always --max-diffs 1 %s %s %s", tu_pbdiff(), O, m, a);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  ck_assert_msg(strstr(out, "\033[31m7\033[m") && strstr(out, "\033[32m3\033[m"), "%s", out);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s --color=auto %s %s %s", tu_pbdiff(), O, m, a);
  ck_assert_int_eq(tu_run(cmd, &out, &err), 1);
  ck_assert_msg(!strchr(out, '\033'), "%s", out);
  free(out), free(err);
  const char *bad[] = {"--color=sometimes", "--max-diffs 0", "--stat --format json"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(cmd, sizeof cmd, "%s %s %s %s %s", tu_pbdiff(), bad[i], O, m, a);
    ck_assert_int_eq(tu_run(cmd, &out, &err), 2);
    free(out), free(err);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("match_cli");
  TCase *t = tcase_create("match_cli");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, onnx_insert_remove_change);
  tcase_add_test(t, cli_options);
  tcase_add_test(t, cli_explain_and_report_options);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
