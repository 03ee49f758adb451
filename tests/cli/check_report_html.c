/* pbdiff tests — `--format html` (cli/report/html.c, docs/html.md) through
 * the built binary: each page is checked by tests/support/html_check.py
 * (balanced tags, one script named by the page's content security policy,
 * nothing loaded from elsewhere, no event handlers, every difference
 * visible without JavaScript) and what it shows is compared line by line:
 * the branches of the tree with their types, the boxes with their kinds
 * and both sides, the folded counts of what did not change, the header.
 * Then escaping against payloads that try to inject markup, the marked
 * part of a long string, a long numeric field summed up, a message folded,
 * --max-diffs and its default, the size bound on a million differences,
 * and -r.  The browser test (tests/browser/) drives the same pages in
 * Chromium. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("html", "proto/sem3.proto", "sem3.desc")

#define CHECK_PAGE(file) tu_sh("/usr/bin/python3 \"$R/tests/support/html_check.py\" " file)

/* The checker's lines of a page, which must pass it (valid until the next
 * command runs). */
static const char *shown(const char *file) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 \"$R/tests/support/html_check.py\" %s", file);
  const Run *r = tu_sh("%s", cmd);
  ck_assert_msg(r->rc == 0, "%s fails the page check: %s", file, r->err);
  return r->out;
}

/* Lines of the checker's output that start with prefix, joined. */
static char *lines_with(const char *out, const char *prefix) {
  pbd_Buf b = {0};
  pbd_Buf_AppendStr(&b, "");
  for (const char *p = out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (strncmp(p, prefix, strlen(prefix)) == 0) pbd_Buf_Append(&b, p, n);
    p += n;
  }
  return b.data;
}

static void encode(const char *name, const char *text) {
  const Run *r = tu_sh("printf '%%s' '%s' | " ENC3 " > %s", text, name);
  ck_assert_msg(r->rc == 0, "protoc: %s", r->err);
}

START_TEST(tree_kinds_and_folds) {
  encode("a.pb", "i32: 1 str: \"hi\" rm { a: 1 s: \"x\" } rm { a: 2 } ms { key: \"k\" value: 1 } "
                 "ms { key: \"z\" value: 9 } oi: 0 inner { a: 1 s: \"same\" r: 5 child { a: 3 } }");
  encode("b.pb", "i32: 2 str: \"hi\" rm { a: 1 s: \"y\" } ms { key: \"k\" value: 2 } "
                 "ms { key: \"z\" value: 9 } inner { a: 1 s: \"same\" r: 5 child { a: 4 } } u32: 3");
  const Run *r = PB(S3 "--format html a.pb b.pb > k.html");
  ck_assert_int_eq(r->rc, 1);
  ck_assert_str_eq(r->err, "");
  const char *out = shown("k.html");
  char *tree = lines_with(out, "b"), *sides = lines_with(out, "left "), *folds = lines_with(out, "f");
  char *meta = lines_with(out, "meta ");
  ck_assert_str_eq(tree,
                   "box changed i32\n"
                   "box changed u32\n"
                   "branch inner sem3.Inner\n"
                   "branch inner.child sem3.Inner\n"
                   "box changed inner.child.a\n"
                   "branch rm repeated sem3.Inner (2 in LEFT, 1 in RIGHT)\n"
                   "branch rm[0] sem3.Inner\n"
                   "box changed rm[0].s\n"
                   "box removed rm[1]\n"
                   "branch ms map<string, int32> (2 in LEFT, 2 in RIGHT)\n"
                   "box changed ms[\"k\"]\n"
                   "box presence oi\n");
  /* inner has a, s, r and child; rm's two elements both differ; of ms one
   * entry; of the root's seven fields str alone is the same */
  ck_assert_str_eq(folds, "fold ... 3 unchanged fields\nfold ... 1 unchanged field\n"
                          "fold ... 1 unchanged entry\nfold ... 1 unchanged field\n");
  ck_assert_str_eq(sides, "left LEFT 1\nleft LEFT 0\nleft LEFT 3\nleft LEFT \"x\"\n"
                          "left LEFT { a: 2 }\nleft LEFT 1\nleft LEFT 0\n");
  ck_assert_ptr_nonnull(strstr(out, "right RIGHT (absent)\n"));  /* rm[1] */
  ck_assert_ptr_nonnull(strstr(out, "right RIGHT (unset)\n"));   /* oi */
  ck_assert_str_eq(meta, "meta LEFT a.pb\nmeta RIGHT b.pb\nmeta schema ../sem3.desc\n"
                         "meta type sem3.M\nmeta options -s ../sem3.desc -t sem3.M --format html\n");
  free(tree), free(sides), free(folds), free(meta);
  /* the header: counts by kind and by top-level field, linking to the first box */
  r = tu_sh("grep -o '<a class=\"k-[a-z]*\" href=\"#d[0-9]*\">[0-9]* [a-z]*</a>' k.html");
  ck_assert_str_eq(r->out, "<a class=\"k-changed\" href=\"#d0\">5 changed</a>\n"
                           "<a class=\"k-removed\" href=\"#d4\">1 removed</a>\n"
                           "<a class=\"k-presence\" href=\"#d6\">1 presence</a>\n");
  r = tu_sh("grep -o '<tr><td><a href=\"#d[0-9]*\"><code class=\"path\">[a-z0-9]*</code></a></td>"
            "<td class=\"n\">[0-9]*' k.html | sed 's/<[^>]*>/ /g; s/  */ /g'");
  ck_assert_str_eq(r->out, " i32 1\n u32 1\n inner 1\n rm 2\n ms 1\n oi 1\n");
  /* equal: a page that says so, with no box */
  r = PB(S3 "--format html a.pb a.pb > e.html");
  ck_assert_int_eq(r->rc, 0);
  out = shown("e.html");
  ck_assert_ptr_null(strstr(out, "box "));
  ck_assert_int_eq(tu_sh("grep -c '<h1>pbdiff: equal</h1>' e.html")->rc, 0);
}
END_TEST

/* Payloads that try to end an element or an attribute, or to run script,
 * in every place a value or a name reaches the page. */
START_TEST(escapes_every_value) {
  encode("a.pb", "str: \"</code></div><script>alert(1)</script>\" "
                 "ms { key: \"\\\"><img src=x onerror=alert(2)>\" value: 1 } by: \"\\x00\\x01<\\xff\"");
  encode("b.pb", "str: \"<svg onload=alert(3)>&amp;\" ms { key: \"\\\"><img src=x onerror=alert(2)>\" "
                 "value: 2 } by: \"\\x27\\\"\"");
  tu_sh("cp a.pb '<b>x&.pb'");
  const Run *r = PB(S3 "--format html '<b>x&.pb' b.pb -L '<i>left' -L \"'><script>alert(4)</script>\" "
                       "> x.html");
  ck_assert_int_eq(r->rc, 1);
  const char *out = shown("x.html"); /* one script, no handlers, balanced */
  ck_assert_ptr_nonnull(strstr(out, "left LEFT \"</code></div><script>alert(1)</script>\"\n"));
  ck_assert_ptr_nonnull(strstr(out, "right RIGHT \"<svg onload=alert(3)>&amp;\"\n"));
  ck_assert_ptr_nonnull(strstr(out, "box changed ms[\"\\\"><img src=x onerror=alert(2)>\"]\n"));
  ck_assert_ptr_nonnull(strstr(out, "meta LEFT <i>left\n"));
  ck_assert_ptr_nonnull(strstr(out, "meta RIGHT '><script>alert(4)</script>\n"));
  /* and in the raw bytes, none of them as markup */
  ck_assert_int_eq(tu_sh("grep -c '<script>alert\\|<img\\|<svg\\|<i>\\|<b>' x.html")->rc, 1);
  ck_assert_int_eq(tu_sh("grep -c '<script>' x.html")->out[0], '1');
}
END_TEST

START_TEST(long_string_marks_the_change) {
  char a[800], b[800];
  char head[301], tail[201];
  memset(head, 'h', 300), head[300] = '\0';
  memset(tail, 't', 200), tail[200] = '\0';
  snprintf(a, sizeof a, "str: \"%sOLD<&>%s\"", head, tail);
  snprintf(b, sizeof b, "str: \"%sNEW!%s\"", head, tail);
  encode("a.pb", a);
  encode("b.pb", b);
  ck_assert_int_eq(PB(S3 "--format html a.pb b.pb > s.html")->rc, 1);
  const char *out = shown("s.html");
  /* 24 bytes of context each side of the part that differs; the same runs
   * around it elided with their lengths */
  ck_assert_ptr_nonnull(strstr(out, "left LEFT ...(276 bytes) \"hhhhhhhhhhhhhhhhhhhhhhhhOLD<&>"
                                    "tttttttttttttttttttttttt\" (176 bytes)...\n"));
  ck_assert_ptr_nonnull(strstr(out, "right RIGHT ...(276 bytes) \"hhhhhhhhhhhhhhhhhhhhhhhhNEW!"
                                    "tttttttttttttttttttttttt\" (176 bytes)...\n"));
  ck_assert_int_eq(tu_sh("grep -c '<mark>OLD&lt;&amp;&gt;</mark>' s.html")->rc, 0);
  ck_assert_int_eq(tu_sh("grep -c '<mark>NEW!</mark>' s.html")->rc, 0);
}
END_TEST

START_TEST(long_numeric_field_summed_up) {
  /* ri: 0..99 on the left; on the right [5] += 10, [40] = -7, one more at the end */
  pbd_Buf a = {0}, b = {0};
  for (int i = 0; i < 100; i++) pbd_Buf_Printf(&a, "ri: %d ", i);
  for (int i = 0; i < 100; i++) pbd_Buf_Printf(&b, "ri: %d ", i == 5 ? 15 : i == 40 ? -7 : i);
  pbd_Buf_AppendStr(&b, "ri: 1000");
  encode("a.pb", a.data);
  encode("b.pb", b.data);
  pbd_Buf_Free(&a), pbd_Buf_Free(&b);
  ck_assert_int_eq(PB(S3 "--format html a.pb b.pb > n.html")->rc, 1);
  const char *out = shown("n.html");
  char *boxes = lines_with(out, "box");
  ck_assert_str_eq(boxes, "box changed ri\n"); /* one box for the three */
  free(boxes);
  ck_assert_ptr_nonnull(strstr(out, "left LEFT 100 elements\nright RIGHT 101 elements\n"));
  const Run *r = tu_sh("sed -n 's/<[^>]*>//g; /element differences/p; /^\\[/p' n.html");
  ck_assert_str_eq(r->out,
                   "3 element differences (2 changed, 1 added); largest absolute difference 47 at [40]; "
                   "largest relative difference 1.175 at [40]\n");
  r = tu_sh("grep -o '<li><code>\\[[0-9]*\\]</code> [^<]*' n.html | sed 's/<[^>]*>//g'");
  ck_assert_str_eq(r->out, "[5] 5 &#8594; 15 \n[40] 40 &#8594; -7 \n[100] \n");
}
END_TEST

START_TEST(added_message_shown_whole_and_folded) {
  pbd_Buf b = {0};
  pbd_Buf_AppendStr(&b, "rm { a: 1 } rm { a: 7 ");
  for (int i = 0; i < 30; i++) pbd_Buf_Printf(&b, "r: %d ", i);
  pbd_Buf_AppendStr(&b, "}");
  encode("a.pb", "rm { a: 1 }");
  encode("b.pb", b.data);
  pbd_Buf_Free(&b);
  ck_assert_int_eq(PB(S3 "--format html a.pb b.pb > m.html")->rc, 1);
  const char *out = shown("m.html");
  ck_assert_ptr_nonnull(strstr(out, "box added rm[1]\n"));
  /* 33 lines (a, 30 r, the braces): folded, but whole */
  ck_assert_int_eq(tu_sh("grep -c '<details class=\"msg\"><summary>message, 33 lines</summary>' m.html")->rc, 0);
  ck_assert_int_eq(tu_sh("grep -c '^  r: 29$' m.html")->rc, 0);
  /* a short one stays on one line, open */
  encode("c.pb", "rm { a: 1 } rm { a: 7 r: 1 }");
  PB(S3 "--format html a.pb c.pb > c.html");
  ck_assert_ptr_nonnull(strstr(shown("c.html"), "right RIGHT { a: 7 r: 1 }\n"));
  ck_assert_int_eq(tu_sh("grep -c 'class=\"msg\"' c.html")->out[0], '0');
}
END_TEST

/* ms: n entries "k0".."k<n-1>" with values i + plus: one box each (a map's
 * entries are paired by key at once; so are a million). */
static void many(const char *name, int n, int plus) {
  const Run *r = tu_sh("/usr/bin/python3 -c 'import sys\n"
                       "def v(x):\n"
                       "  o=b\"\"\n"
                       "  while True:\n"
                       "    b=x&127; x>>=7\n"
                       "    if x: o+=bytes([b|128])\n"
                       "    else: return o+bytes([b])\n"
                       "e=lambda k, i: b\"\\x0a\"+v(len(k))+k+b\"\\x10\"+v(i)\n"
                       "m=lambda i: e(b\"k%%d\" %% i, i+%d)\n"
                       "sys.stdout.buffer.write(b\"\".join(b\"\\x82\\x01\"+v(len(m(i)))+m(i) for i in range(%d)))' > %s",
                       plus, n, name);
  ck_assert_msg(r->rc == 0, "%s", r->err);
}

START_TEST(max_diffs_and_the_size_bound) {
  many("a.pb", 10, 0);
  many("b.pb", 10, 1);
  ck_assert_int_eq(PB(S3 "--format html --max-diffs 3 a.pb b.pb > t.html")->rc, 1);
  const char *out = shown("t.html");
  char *boxes = lines_with(out, "box"), *more = lines_with(out, "more");
  ck_assert_str_eq(boxes, "box changed ms[\"k0\"]\nbox changed ms[\"k1\"]\nbox changed ms[\"k2\"]\n");
  ck_assert_str_eq(more, "more 7 more differences not shown: the report shows 3 boxes (at most "
                         "--max-diffs, now 3, and 8 MiB of them); the counts above are of all of them.\n"
                         "more 7 more differences not shown: the report shows 3 boxes (at most "
                         "--max-diffs, now 3, and 8 MiB of them); the counts above are of all of them.\n");
  free(boxes), free(more);
  /* the entries not shown differ: none of the ten is unchanged */
  ck_assert_ptr_null(strstr(out, "fold "));
  ck_assert_int_eq(tu_sh("grep -c '10 changed</a>' t.html")->rc, 0); /* the counts are of all */
  /* the default: 2000 boxes; a million differences stay within the bound */
  many("a.pb", 1000000, 0);
  many("b.pb", 1000000, 1);
  ck_assert_int_eq(PB(S3 "--format html a.pb b.pb > big.html")->rc, 1);
  ck_assert_int_eq(tu_sh("grep -c 'class=\"d k-changed\"' big.html | grep -qx 2000")->rc, 0);
  ck_assert_int_eq(tu_sh("grep -c '998&#8239;000 more differences not shown' big.html")->rc, 0);
  struct stat st;
  char path[4096];
  snprintf(path, sizeof path, "%s/big.html", tu_sandbox_dir());
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_msg(st.st_size < (9 << 20), "%lld bytes", (long long)st.st_size);
  shown("big.html");
  /* --max-diffs raised: the body stops at 8 MiB of boxes, and says so */
  ck_assert_int_eq(PB(S3 "--format html --max-diffs 1000000 a.pb b.pb > cap.html")->rc, 1);
  snprintf(path, sizeof path, "%s/cap.html", tu_sandbox_dir());
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_msg(st.st_size > (8 << 20) && st.st_size < (9 << 20), "%lld bytes", (long long)st.st_size);
  ck_assert_int_eq(tu_sh("grep -c 'more differences not shown' cap.html")->rc, 0);
}
END_TEST

START_TEST(directories) {
  tu_sh("mkdir -p d1/s d2/s");
  encode("d1/s/x.pb", "i32: 1");
  encode("d2/s/x.pb", "i32: 2 u32: 1");
  encode("d1/same.pb", "i32: 1");
  encode("d2/same.pb", "i32: 1");
  encode("d1/only.pb", "i32: 1");
  put("d2/bad.pb", "0a 05");
  put("d1/bad.pb", "08 01");
  const Run *r = PB(S3 "-r --format html d1 d2 > r.html");
  ck_assert_int_eq(r->rc, 2);
  const char *out = shown("r.html"); /* links reach sections, ids unique */
  ck_assert_ptr_nonnull(strstr(out, "box changed i32\nleft LEFT 1\nright RIGHT 2\n"
                                    "box changed u32\nleft LEFT 0\nright RIGHT 1\n"));
  r = tu_sh("sed -n 's/<td class=\"n\"><\\/td>//g; s/<[^>]*>/ /g; s/  */ /g; /^ [a-z/]*\\.pb [a-z]/p' r.html");
  ck_assert_str_eq(r->out, " bad.pb error \n only.pb only in d1 \n s/x.pb differ 2 2 \n");
  ck_assert_int_eq(tu_sh("grep -c '<h1>pbdiff -r: 4 files: 1 equal, 1 differ, 1 only in d1, 1 error</h1>' r.html")->rc, 0);
  ck_assert_int_eq(tu_sh("grep -c 'length 5 of field 1 runs past the end' r.html")->rc, 0);
}
END_TEST

/* A stream's messages and a corpus's records are branches of their own; a
 * record's fields are counted as a message's are. */
START_TEST(streams_and_records) {
  put("s1.pb", "02 0801 02 0802");
  put("s2.pb", "02 0801 02 0803 02 0805");
  ck_assert_int_eq(PB(S3 "--delimited --format html s1.pb s2.pb > st.html")->rc, 1);
  char *boxes = lines_with(shown("st.html"), "box");
  ck_assert_str_eq(boxes, "box removed [1]\nbox added [1]\nbox added [2]\n");
  free(boxes);
  /* records by key: id 1, shard 5 (testdata/proto/corpus.proto) */
  put("l.bin", "05 0a0161 2801 05 0a0162 2802");
  put("r.bin", "05 0a0162 2803 05 0a0163 2802");
  const Run *r = PB("--proto \"$R/testdata/proto/corpus.proto\" -t corpus.Record --framing delimited "
                    "--record-key id --format html l.bin r.bin > rk.html");
  ck_assert_int_eq(r->rc, 1);
  const char *out = shown("rk.html");
  char *tree = lines_with(out, "b"), *folds = lines_with(out, "fold");
  ck_assert_str_eq(tree, "box removed [id=\"a\"]\nbranch [id=\"b\"] corpus.Record\n"
                         "box changed [id=\"b\"].shard\nbox added [id=\"c\"]\n");
  ck_assert_str_eq(folds, "fold ... 1 unchanged field\n"); /* b's id */
  free(tree), free(folds);
}
END_TEST

START_TEST(listed_in_help) {
  const char *help = PB("--help")->out;
  ck_assert_ptr_nonnull(strstr(help, "'html': one self-contained HTML page (the tree"));
  ck_assert_ptr_nonnull(strstr(help, "'github': GitHub Actions annotations"));
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("html");
  TCase *t = tcase_create("html");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, tree_kinds_and_folds);
  tcase_add_test(t, escapes_every_value);
  tcase_add_test(t, long_string_marks_the_change);
  tcase_add_test(t, long_numeric_field_summed_up);
  tcase_add_test(t, added_message_shown_whole_and_folded);
  tcase_add_test(t, max_diffs_and_the_size_bound);
  tcase_add_test(t, directories);
  tcase_add_test(t, streams_and_records);
  tcase_add_test(t, listed_in_help);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
