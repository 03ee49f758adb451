/* pbdiff tests — `--format github` (cli/report/github.c, docs/ci.md)
 * through the built binary: one `::error` workflow command per difference
 * with GitHub's escapes (%25, %0D, %0A in the message; also %3A and %2C in
 * a property), at most 10 and a `::notice` counting the rest, the Markdown
 * table appended to $GITHUB_STEP_SUMMARY (every difference, cells that no
 * value can break out of), and -r keeping to 10 for the whole step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("github", "proto/sem3.proto", "sem3.desc")

/* pbdiff with no step summary of the environment's (as under GitHub Actions) */
#define GH(...) tu_sh("env -u GITHUB_STEP_SUMMARY \"$P\" " __VA_ARGS__)

static void encode(const char *name, const char *text) {
  const Run *r = tu_sh("printf '%%s' '%s' | " ENC3 " > %s", text, name);
  ck_assert_msg(r->rc == 0, "protoc: %s", r->err);
}

START_TEST(one_pair) {
  encode("a.pb", "i32: 1 str: \"100%\" rm { a: 1 } oi: 0");
  encode("b.pb", "i32: 2 str: \"50% | *b* `c`\" u32: 7");
  EXPECT(GH(S3 "--format github a.pb b.pb"), 1,
         "::error file=b.pb,title=pbdiff::i32: 1 -> 2\n"
         "::error file=b.pb,title=pbdiff::u32: 0 -> 7\n"
         "::error file=b.pb,title=pbdiff::str: \"100%25\" -> \"50%25 | *b* `c`\"\n"
         "::error file=b.pb,title=pbdiff::rm[0]: removed { a: 1 }\n"
         "::error file=b.pb,title=pbdiff::oi: set to 0 -> unset\n");
  EXPECT(GH(S3 "--format github a.pb a.pb"), 0, "");
  /* a name with the characters a property must escape */
  tu_sh("cp b.pb 'we%%ird,na:me\nx.pb'");
  EXPECT(GH(S3 "--format github a.pb \"$(printf 'we%%%%ird,na:me\\nx.pb')\" | head -1"), 0,
         "::error file=we%25ird%2Cna%3Ame%0Ax.pb,title=pbdiff::i32: 1 -> 2\n");
}
END_TEST

START_TEST(at_most_ten_and_a_notice) {
  pbd_Buf a = {0}, b = {0};
  for (int i = 0; i < 15; i++) pbd_Buf_Printf(&a, "ms { key: \"k%02d\" value: %d } ", i, i);
  for (int i = 0; i < 15; i++) pbd_Buf_Printf(&b, "ms { key: \"k%02d\" value: %d } ", i, i + 1);
  encode("a.pb", a.data);
  encode("b.pb", b.data);
  pbd_Buf_Free(&a), pbd_Buf_Free(&b);
  const Run *r = GH(S3 "--format github a.pb b.pb");
  ck_assert_int_eq(r->rc, 1);
  const Run *c = tu_sh("env -u GITHUB_STEP_SUMMARY \"$P\" " S3 "--format github a.pb b.pb | grep -c '^::error '");
  ck_assert_str_eq(c->out, "10\n");
  c = tu_sh("env -u GITHUB_STEP_SUMMARY \"$P\" " S3 "--format github a.pb b.pb | tail -1");
  ck_assert_str_eq(c->out, "::notice file=b.pb,title=pbdiff::5 more differences not annotated "
                           "(GitHub keeps 10 error annotations a step)\n");
  /* with a step summary: every difference in its table */
  r = tu_sh("echo '# before' > sum.md && GITHUB_STEP_SUMMARY=sum.md \"$P\" " S3
            "--format github a.pb b.pb | tail -1 && head -8 sum.md && grep -c '^| <code>ms' sum.md");
  ck_assert_str_eq(r->out,
                   "::notice file=b.pb,title=pbdiff::5 more differences not annotated (GitHub keeps "
                   "10 error annotations a step); the step summary lists them\n"
                   "# before\n"
                   "### pbdiff: <code>a.pb</code> vs <code>b.pb</code>\n"
                   "\n"
                   "15 differences\n"
                   "\n"
                   "| path | kind | LEFT | RIGHT |\n"
                   "|---|---|---|---|\n"
                   "| <code>ms&#91;&quot;k00&quot;&#93;</code> | changed | <code>0</code> | <code>1</code> |\n"
                   "15\n");
}
END_TEST

/* No value can end its cell or be read as Markdown or HTML in the summary. */
START_TEST(summary_cells_hold) {
  encode("a.pb", "str: \"a|b <script>x</script>\"");
  encode("b.pb", "str: \"*em* _u_ `c` [l](http://x) ~s~ \\\\ $m$\"");
  const Run *r = tu_sh("GITHUB_STEP_SUMMARY=sum.md \"$P\" " S3 "--format github a.pb b.pb >/dev/null; "
                       "grep '^| <code>str' sum.md");
  ck_assert_str_eq(r->out,
                   "| <code>str</code> | changed | <code>&quot;a&#124;b &lt;script&gt;x&lt;/script&gt;&quot;"
                   "</code> | <code>&quot;&#42;em&#42; &#95;u&#95; &#96;c&#96; &#91;l&#93;(http://x) "
                   "&#126;s&#126; &#92;&#92; &#36;m&#36;&quot;</code> |\n");
  /* equal: nothing annotated, the summary says so */
  r = tu_sh("GITHUB_STEP_SUMMARY=eq.md \"$P\" " S3 "--format github a.pb a.pb; echo $?; cat eq.md");
  ck_assert_str_eq(r->out, "0\n### pbdiff: <code>a.pb</code> vs <code>a.pb</code>\n\nequal\n\n");
  /* a summary that cannot be written is trouble */
  r = tu_sh("GITHUB_STEP_SUMMARY=no/such/dir/sum.md \"$P\" " S3 "--format github a.pb b.pb > /dev/null");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err, "pbdiff: cannot write the report\n");
}
END_TEST

START_TEST(directories) {
  tu_sh("mkdir -p d1 d2");
  pbd_Buf a = {0}, b = {0};
  for (int i = 0; i < 8; i++) pbd_Buf_Printf(&a, "ms { key: \"k%d\" value: %d } ", i, i);
  for (int i = 0; i < 8; i++) pbd_Buf_Printf(&b, "ms { key: \"k%d\" value: %d } ", i, i + 1);
  encode("d1/x.pb", a.data);
  encode("d2/x.pb", b.data);
  encode("d1/y.pb", a.data);
  encode("d2/y.pb", b.data);
  pbd_Buf_Free(&a), pbd_Buf_Free(&b);
  encode("d1/only.pb", "i32: 1");
  encode("d1/same.pb", "i32: 1");
  encode("d2/same.pb", "i32: 1");
  const Run *r = tu_sh("GITHUB_STEP_SUMMARY=sum.md \"$P\" " S3 "-r --format github d1 d2; echo $?; "
                       "sed -n '1,5p' sum.md; grep -c '^| <code>[xy].pb' sum.md");
  ck_assert_str_eq(r->out,
                   "::error file=d1/only.pb,title=pbdiff::only in d1\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k0\"]: 0 -> 1\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k1\"]: 1 -> 2\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k2\"]: 2 -> 3\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k3\"]: 3 -> 4\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k4\"]: 4 -> 5\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k5\"]: 5 -> 6\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k6\"]: 6 -> 7\n"
                   "::error file=d2/x.pb,title=pbdiff::ms[\"k7\"]: 7 -> 8\n"
                   "::error file=d2/y.pb,title=pbdiff::ms[\"k0\"]: 0 -> 1\n"
                   "::notice title=pbdiff::7 more differences not annotated (GitHub keeps 10 error "
                   "annotations a step); the step summary lists them\n"
                   "1\n"
                   "### pbdiff -r <code>d1</code> <code>d2</code>\n"
                   "\n"
                   "4 files: 1 equal, 2 differ, 1 only in d1\n"
                   "\n"
                   "| file | path | kind | LEFT | RIGHT |\n"
                   "16\n");
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("github");
  TCase *t = tcase_create("github");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, one_pair);
  tcase_add_test(t, at_most_ten_and_a_notice);
  tcase_add_test(t, summary_cells_hold);
  tcase_add_test(t, directories);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
