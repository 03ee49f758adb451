/* pbdiff tests — directories (-r) and CI use: exact text output on small
 * trees made at test time (nested subdirectories, files on one side only,
 * equal-but-re-encoded, differing and malformed files, symlinks, .git),
 * --summary, -q, -j 1 vs -j 4, the JSON shape, JUnit XML (well-formed,
 * counts, escaping; also for a single pair), per-path config, 1 000 files
 * of which exactly 7 differ, and every recipe of docs/ci.md run as written.
 *
 * Every command runs in a fresh directory of its own, with shell variables
 *   $P  the pbdiff binary under test    $R  the source root
 * the descriptor sets ../sem3.desc and ../api.desc (compiled once per run),
 * and a directory holding `pbdiff` (a link to $P) first on PATH, for the
 * recipes of docs/ci.md. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pbdiff.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("dirs", "proto/sem3.proto", "sem3.desc", "dirs/api.proto", "api.desc")

#define API "-s ../api.desc -t acme.api.Response "





static char *slurp(const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", tu_sandbox_dir(), name);
  size_t n;
  char *s = (char *)tu_read_file(path, &n);
  ck_assert_msg(s != NULL, "cannot read %s", path);
  char *z = realloc(s, n + 1);
  ck_assert_ptr_nonnull(z);
  z[n] = '\0';
  return z;
}

/* ---- the small tree -------------------------------------------------------------- */

/* L and R:
 *   eq.pb            same bytes
 *   lnk.pb           L: a symlink to eq.pb, R: a regular file, same content
 *   sub/deep/re.pb   equal in meaning, other bytes (field order, packed/unpacked)
 *   sub/diff.pb      differs: i32 1 -> 2, str "" -> "x"
 *   bad.pb           L malformed (truncated varint)
 *   sub/left_only.pb only in L
 *   right_only.pb    only in R
 *   newdir/x.pb      only in R, in a directory only R has
 * and what is skipped: L/.git/ (a directory), R/.git (a file), R/link (a
 * symlink to the directory sub), R/dangling.pb (a dangling symlink),
 * L/fifo.pb (a FIFO: opening it would block). */
static void small_tree(bool with_bad) {
  put("L/eq.pb", "08 01 52 01 78");
  put("R/eq.pb", "08 01 52 01 78");
  put("R/lnk.pb", "08 01 52 01 78");
  put("L/sub/deep/re.pb", "08 01 72 03 01 02 03 52 01 78");
  put("R/sub/deep/re.pb", "52 01 78 70 01 70 02 70 03 08 01");
  put("L/sub/diff.pb", "08 01");
  put("R/sub/diff.pb", "08 02 52 01 78");
  if (with_bad) {
    put("L/bad.pb", "08");
    put("R/bad.pb", "08 01");
  }
  put("L/sub/left_only.pb", "08 01");
  put("R/right_only.pb", "08 01");
  put("R/newdir/x.pb", "08 03");
  put("L/.git/config", "00");
  put("R/.git", "00");
  ck_assert_int_eq(tu_sh("ln -s eq.pb L/lnk.pb && ln -s sub R/link && ln -s nowhere R/dangling.pb && "
                      "mkfifo L/fifo.pb")->rc, 0);
}

#define SMALL_TEXT                                                                          \
  "Only in R/newdir: x.pb\n"                                                                \
  "Only in R: right_only.pb\n"                                                              \
  "--- L/sub/diff.pb\n"                                                                     \
  "+++ R/sub/diff.pb\n"                                                                     \
  "i32: 1 -> 2\n"                                                                           \
  "str: \"\" -> \"x\"\n"                                                                    \
  "Only in L/sub: left_only.pb\n"
#define BAD_ERR "pbdiff: L/bad.pb: truncated varint (field 1) at byte 1\n"

START_TEST(text_small_tree) {
  small_tree(true);
  EXPECT2(PB("-r " S3 "L R"), 2, SMALL_TEXT, BAD_ERR);
  /* trailing slashes are not doubled; --recursive is -r */
  EXPECT2(PB("--recursive " S3 "L/ R//"), 2, SMALL_TEXT, BAD_ERR);
  /* the error comes in its place in the path order */
  const Run *r = tu_sh("\"$P\" -r " S3 "L R 2>&1");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->out, BAD_ERR SMALL_TEXT);
  /* without the malformed file: 1 */
  ck_assert_int_eq(tu_sh("rm L/bad.pb R/bad.pb")->rc, 0);
  EXPECT(PB("-r " S3 "L R"), 1, SMALL_TEXT);
  /* swapped sides */
  EXPECT(PB("-r " S3 "R L"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- R/sub/diff.pb\n"
         "+++ L/sub/diff.pb\n"
         "i32: 2 -> 1\n"
         "str: \"x\" -> \"\"\n"
         "Only in L/sub: left_only.pb\n");
  /* a tree against itself, and against a copy re-encoded: equal, silent */
  EXPECT(PB("-r " S3 "L L"), 0, "");
  ck_assert_int_eq(tu_sh("rm -r L/sub/left_only.pb R/right_only.pb R/newdir && cp R/sub/diff.pb L/sub/")->rc, 0);
  EXPECT(PB("-r " S3 "L R"), 0, "");
  /* two empty directories */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  EXPECT(PB("-r E1 E2"), 0, "");
  EXPECT(PB("-r E1 L"), 1,
         "Only in L: eq.pb\nOnly in L: lnk.pb\nOnly in L/sub/deep: re.pb\nOnly in L/sub: diff.pb\n");
}
END_TEST

START_TEST(text_report_options_per_file) {
  small_tree(false);
  /* --stat and --max-diffs apply to each file's report */
  EXPECT(PB("-r --stat " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "  i32: 1 changed\n"
         "  str: 1 changed\n"
         "2 differences: 2 changed\n"
         "Only in L/sub: left_only.pb\n");
  EXPECT(PB("-r --max-diffs 1 " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -> 2\n"
         "... and 1 more difference\n"
         "Only in L/sub: left_only.pb\n");
  /* --explain: equal files with other bytes say why; same bytes say nothing */
  EXPECT(PB("-r --explain " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/deep/re.pb\n"
         "+++ R/sub/deep/re.pb\n"
         "equal in meaning, but the bytes differ:\n"
         "  field order: 1 in LEFT (at byte 7), 1 in RIGHT (at byte 9)\n"
         "  packed: 1 in LEFT (at byte 2), 0 in RIGHT\n"
         "  unpacked: 0 in LEFT, 3 in RIGHT (first at byte 3)\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -> 2\n"
         "str: \"\" -> \"x\"\n"
         "Only in L/sub: left_only.pb\n");
  /* colour: the ---/+++ lines bold, as a single report's */
  const Run *r = PB("-r --color=always " S3 "L R");
  ck_assert_int_eq(r->rc, 1);
  ck_assert_msg(strstr(r->out, "\033[1m--- L/sub/diff.pb\033[m\n\033[1m+++ R/sub/diff.pb\033[m\n") != NULL,
                "[%s]", r->out);
  /* without a schema, the re-encoded file (packed vs unpacked) differs */
  r = PB("-r --summary L R");
  ck_assert_int_eq(r->rc, 1);
  ck_assert_msg(strstr(r->out, "differ sub/deep/re.pb\n") != NULL, "[%s]", r->out);
}
END_TEST

START_TEST(summary_lines) {
  small_tree(true);
  const char *want =
      "error bad.pb: L/bad.pb: truncated varint (field 1) at byte 1\n"
      "equal eq.pb\n"
      "equal lnk.pb\n"
      "only-right newdir/x.pb\n"
      "only-right right_only.pb\n"
      "equal sub/deep/re.pb\n"
      "differ sub/diff.pb\n"
      "only-left sub/left_only.pb\n";
  EXPECT2(PB("-r --summary " S3 "L R"), 2, want, BAD_ERR);
  EXPECT2(PB("-r --summary -j 1 " S3 "L R"), 2, want, BAD_ERR);
  ck_assert_int_eq(tu_sh("rm L/bad.pb")->rc, 0);
  EXPECT(PB("-r --summary " S3 "L R"), 1,
         "only-right bad.pb\n"
         "equal eq.pb\n"
         "equal lnk.pb\n"
         "only-right newdir/x.pb\n"
         "only-right right_only.pb\n"
         "equal sub/deep/re.pb\n"
         "differ sub/diff.pb\n"
         "only-left sub/left_only.pb\n");
  EXPECT(PB("-r --summary " S3 "L L"), 0,
         "equal eq.pb\nequal lnk.pb\nequal sub/deep/re.pb\nequal sub/diff.pb\nequal sub/left_only.pb\n");
}
END_TEST

START_TEST(quiet_status_only) {
  small_tree(true);
  EXPECT2(PB("-r -q " S3 "L R"), 2, "", BAD_ERR);
  EXPECT2(PB("-r -q --summary " S3 "L R"), 2, "", BAD_ERR);
  EXPECT2(PB("-r -q --format json " S3 "L R"), 2, "", BAD_ERR);
  EXPECT2(PB("-r -q --format junit " S3 "L R"), 2, "", BAD_ERR);
  ck_assert_int_eq(tu_sh("rm L/bad.pb R/bad.pb")->rc, 0);
  EXPECT(PB("-r -q " S3 "L R"), 1, "");
  EXPECT(PB("-rq " S3 "L L"), 0, "");
  /* only a file on one side differs */
  ck_assert_int_eq(tu_sh("mkdir A B && cp L/eq.pb A/ && cp L/eq.pb B/ && cp L/eq.pb B/more.pb")->rc, 0);
  EXPECT(PB("-r -q A B"), 1, "");
  EXPECT(PB("-r -q B A"), 1, "");
  ck_assert_int_eq(tu_sh("rm B/more.pb")->rc, 0);
  EXPECT(PB("-r -q A B"), 0, "");
}
END_TEST

START_TEST(errors_and_usage) {
  small_tree(false);
  EXPECT2(PB("-r L nope"), 2, "", "pbdiff: nope: cannot open directory: No such file or directory\n");
  EXPECT2(PB("-r L/eq.pb R"), 2, "", "pbdiff: L/eq.pb: cannot open directory: Not a directory\n");
  EXPECT2(PB("-r --summary --format junit L R"), 2, "",
          "pbdiff: --summary does not go with --format junit\n"
          "Try 'pbdiff --help' for more information.\n");
  /* a malformed schema option is trouble for every file, reported per file */
  put("A/x.pb", "08 01");
  put("B/x.pb", "08 01");
  EXPECT2(PB("-r -s ../sem3.desc -t no.Such A B"), 2, "",
          "pbdiff: message type 'no.Such' is not in the schema\n");
  /* an unreadable subdirectory: reported, the rest still compared */
  if (geteuid() != 0) {
    put("A/locked/y.pb", "08 01");
    put("B/z.pb", "08 01");
    ck_assert_int_eq(tu_sh("chmod 000 A/locked")->rc, 0);
    EXPECT2(PB("-r --summary A B"), 2, "equal x.pb\nonly-right z.pb\n",
            "pbdiff: A/locked: cannot open directory: Permission denied\n");
    ck_assert_int_eq(tu_sh("chmod 755 A/locked")->rc, 0);
  }
}
END_TEST

/* ---- -j: the same output for every number of threads -------------------------- */

START_TEST(jobs_identical_output) {
  /* 60 files: equal, re-encoded, differing, malformed, one-sided */
  for (int i = 0; i < 60; i++) {
    char l[64], r[64], hex[64];
    snprintf(l, sizeof l, "L/d%d/f%02d.pb", i % 4, i);
    snprintf(r, sizeof r, "R/d%d/f%02d.pb", i % 4, i);
    snprintf(hex, sizeof hex, "08 %02x 72 02 01 02", i + 1);
    if (i % 11 != 10) put(l, hex);
    if (i % 13 == 12) continue; /* only in L */
    if (i % 5 == 1) snprintf(hex, sizeof hex, "70 01 70 02 08 %02x", i + 1); /* re-encoded */
    else if (i % 7 == 3) snprintf(hex, sizeof hex, "08 %02x 72 02 01 02", i + 2); /* differs */
    else if (i % 17 == 5) snprintf(hex, sizeof hex, "08 %02x 72 05 01", i + 1); /* malformed */
    put(r, hex);
  }
  const char *modes[] = {"", "--summary", "--format json", "--format junit", "-q", "--stat"};
  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
    const Run *r = PB("-r -j 1 %s " S3 "L R", modes[m]);
    int rc1 = r->rc;
    char *out1 = strdup(r->out), *err1 = strdup(r->err);
    ck_assert_int_eq(rc1, 2);
    const char *jobs[] = {"-j 4", "-j 2", "-j 64", ""};
    for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++) {
      for (int rep = 0; rep < 3; rep++) {
        EXPECT2(PB("-r %s %s " S3 "L R", jobs[k], modes[m]), rc1, out1, err1);
      }
    }
    free(out1);
    free(err1);
  }
  /* the summary has every path, in order */
  const Run *r = PB("-r --summary " S3 "L R | wc -l");
  ck_assert_str_eq(r->out, "60\n");
  r = PB("-r --summary " S3 "L R | cut -d' ' -f2 | tr -d : | LC_ALL=C sort -c && echo sorted");
  ck_assert_str_eq(r->out, "sorted\n");
}
END_TEST

/* ---- JSON -------------------------------------------------------------------- */

START_TEST(json_shape) {
  small_tree(true);
  const Run *r = PB("-r --format json " S3 "L R");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err, BAD_ERR);
  ck_assert_str_eq(
      r->out,
      "{\"equal\": false, \"left_dir\": \"L\", \"right_dir\": \"R\", \"files\": [\n"
      "  {\"path\": \"bad.pb\", \"status\": \"error\", \"error\": \"L/bad.pb: truncated varint (field 1) at byte 1\"},\n"
      "  {\"path\": \"eq.pb\", \"status\": \"equal\", \"report\": {\"equal\": true, \"left_name\": \"L/eq.pb\", \"right_name\": \"R/eq.pb\", \"differences\": []}},\n"
      "  {\"path\": \"lnk.pb\", \"status\": \"equal\", \"report\": {\"equal\": true, \"left_name\": \"L/lnk.pb\", \"right_name\": \"R/lnk.pb\", \"differences\": []}},\n"
      "  {\"path\": \"newdir/x.pb\", \"status\": \"only-right\"},\n"
      "  {\"path\": \"right_only.pb\", \"status\": \"only-right\"},\n"
      "  {\"path\": \"sub/deep/re.pb\", \"status\": \"equal\", \"report\": {\"equal\": true, \"left_name\": \"L/sub/deep/re.pb\", \"right_name\": \"R/sub/deep/re.pb\", \"differences\": []}},\n"
      "  {\"path\": \"sub/diff.pb\", \"status\": \"differ\", \"report\": {\"equal\": false, \"left_name\": \"L/sub/diff.pb\", \"right_name\": \"R/sub/diff.pb\", \"differences\": [\n"
      "  {\"path\": \"i32\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": \"sem3.M\"},\n"
      "  {\"path\": \"str\", \"kind\": \"changed\", \"left\": \"\", \"right\": \"x\", \"parent\": \"\", \"type\": \"sem3.M\"}\n"
      "]}},\n"
      "  {\"path\": \"sub/left_only.pb\", \"status\": \"only-left\"}\n"
      "]}\n");
  /* read by a script: every file once, statuses, reports where documented */
  static const char kCheck[] =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))\n"
      "assert set(r) == {'equal', 'left_dir', 'right_dir', 'files'}, r.keys()\n"
      "assert r['equal'] is (sys.argv[2] == 'equal')\n"
      "summary = sys.argv[3] == 'summary'\n"
      "for f in r['files']:\n"
      "    assert f['status'] in ('equal', 'differ', 'error', 'only-left', 'only-right')\n"
      "    keys = {'path', 'status'}\n"
      "    if f['status'] in ('equal', 'differ') and not summary:\n"
      "        keys.add('report')\n"
      "        assert f['report']['equal'] is (f['status'] == 'equal')\n"
      "        assert f['report']['left_name'] == r['left_dir'] + '/' + f['path']\n"
      "        assert (len(f['report']['differences']) > 0) is (f['status'] == 'differ')\n"
      "    if f['status'] == 'error':\n"
      "        keys.add('error')\n"
      "    assert set(f) == keys, f\n"
      "paths = [f['path'] for f in r['files']]\n"
      "assert paths == sorted(paths, key=lambda p: p.encode())\n"
      "print(' '.join(f['status'] for f in r['files']))\n";
  put_bytes("check.py", kCheck, sizeof kCheck - 1);
  r = tu_sh("\"$P\" -r --format json " S3 "L R > out.json 2>/dev/null; python3 check.py out.json no full");
  EXPECT(r, 0, "error equal equal only-right only-right equal differ only-left\n");
  r = tu_sh("\"$P\" -r --summary --format json " S3 "L R > out.json 2>/dev/null; "
         "python3 check.py out.json no summary");
  EXPECT(r, 0, "error equal equal only-right only-right equal differ only-left\n");
  ck_assert_int_eq(tu_sh("rm L/bad.pb")->rc, 0);
  r = tu_sh("\"$P\" -r --format json " S3 "L L > out.json; echo $?; python3 check.py out.json equal full");
  EXPECT(r, 0, "0\nequal equal equal equal equal\n");
  /* empty trees */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  EXPECT(PB("-r --format json E1 E2"), 0,
         "{\"equal\": true, \"left_dir\": \"E1\", \"right_dir\": \"E2\", \"files\": []}\n");
  /* the single-pair JSON report is unchanged */
  EXPECT(PB("--format json " S3 "L/eq.pb R/eq.pb"), 0, "{\"equal\": true, \"differences\": []}\n");
  /* names that need JSON escaping */
  put("Q/a\"b\\c.pb", "08 01");
  ck_assert_int_eq(tu_sh("mkdir Q2")->rc, 0);
  EXPECT(PB("-r --format json Q Q2"), 1,
         "{\"equal\": false, \"left_dir\": \"Q\", \"right_dir\": \"Q2\", \"files\": [\n"
         "  {\"path\": \"a\\\"b\\\\c.pb\", \"status\": \"only-left\"}\n"
         "]}\n");
}
END_TEST

/* ---- JUnit -------------------------------------------------------------------- */

/* A Python check of a JUnit file: well-formed (minidom), one testsuite whose
 * counts match its test cases and testsuites', the test cases' names and
 * outcomes printed one per line as "NAME OUTCOME" (pass, failure:TYPE,
 * error). */
static const char kJunitCheck[] =
    "import sys, xml.dom.minidom\n"
    "doc = xml.dom.minidom.parse(sys.argv[1])\n"
    "top = doc.documentElement\n"
    "assert top.tagName == 'testsuites', top.tagName\n"
    "suites = top.getElementsByTagName('testsuite')\n"
    "assert len(suites) == 1 and suites[0].getAttribute('name') == 'pbdiff'\n"
    "s = suites[0]\n"
    "cases = s.getElementsByTagName('testcase')\n"
    "fail = sum(1 for c in cases if c.getElementsByTagName('failure'))\n"
    "err = sum(1 for c in cases if c.getElementsByTagName('error'))\n"
    "for e in (top, s):\n"
    "    got = (e.getAttribute('tests'), e.getAttribute('failures'), e.getAttribute('errors'))\n"
    "    assert got == (str(len(cases)), str(fail), str(err)), got\n"
    "print('tests=%d failures=%d errors=%d' % (len(cases), fail, err))\n"
    "for c in cases:\n"
    "    assert c.getAttribute('classname') == 'pbdiff'\n"
    "    f = c.getElementsByTagName('failure')\n"
    "    e = c.getElementsByTagName('error')\n"
    "    out = 'failure:' + f[0].getAttribute('type') if f else 'error' if e else 'pass'\n"
    "    sys.stdout.buffer.write(('%s %s\\n' % (c.getAttribute('name'), out)).encode('utf-8', 'backslashreplace'))\n"
    "    if f and f[0].firstChild is not None and len(sys.argv) > 2:\n"
    "        sys.stdout.buffer.write(('[' + f[0].firstChild.data + ']\\n').encode())\n";

static void put_junit_check(void) { put_bytes("junit.py", kJunitCheck, sizeof kJunitCheck - 1); }

START_TEST(junit_tree) {
  small_tree(true);
  put_junit_check();
  const Run *r = PB("-r --format junit " S3 "L R");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->err, BAD_ERR);
  ck_assert_str_eq(
      r->out,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites tests=\"8\" failures=\"4\" errors=\"1\">\n"
      "  <testsuite name=\"pbdiff\" tests=\"8\" failures=\"4\" errors=\"1\">\n"
      "    <testcase classname=\"pbdiff\" name=\"bad.pb\">\n"
      "      <error message=\"L/bad.pb: truncated varint (field 1) at byte 1\" type=\"error\"/>\n"
      "    </testcase>\n"
      "    <testcase classname=\"pbdiff\" name=\"eq.pb\"/>\n"
      "    <testcase classname=\"pbdiff\" name=\"lnk.pb\"/>\n"
      "    <testcase classname=\"pbdiff\" name=\"newdir/x.pb\">\n"
      "      <failure message=\"only in R\" type=\"only-right\"/>\n"
      "    </testcase>\n"
      "    <testcase classname=\"pbdiff\" name=\"right_only.pb\">\n"
      "      <failure message=\"only in R\" type=\"only-right\"/>\n"
      "    </testcase>\n"
      "    <testcase classname=\"pbdiff\" name=\"sub/deep/re.pb\"/>\n"
      "    <testcase classname=\"pbdiff\" name=\"sub/diff.pb\">\n"
      "      <failure message=\"2 differences\" type=\"differ\">--- L/sub/diff.pb\n"
      "+++ R/sub/diff.pb\n"
      "i32: 1 -&gt; 2\n"
      "str: &quot;&quot; -&gt; &quot;x&quot;\n"
      "</failure>\n"
      "    </testcase>\n"
      "    <testcase classname=\"pbdiff\" name=\"sub/left_only.pb\">\n"
      "      <failure message=\"only in L\" type=\"only-left\"/>\n"
      "    </testcase>\n"
      "  </testsuite>\n"
      "</testsuites>\n");
  r = tu_sh("\"$P\" -r --format junit " S3 "L R > j.xml 2>/dev/null; echo $?; python3 junit.py j.xml body");
  EXPECT(r, 0,
         "2\n"
         "tests=8 failures=4 errors=1\n"
         "bad.pb error\n"
         "eq.pb pass\n"
         "lnk.pb pass\n"
         "newdir/x.pb failure:only-right\n"
         "right_only.pb failure:only-right\n"
         "sub/deep/re.pb pass\n"
         "sub/diff.pb failure:differ\n"
         "[--- L/sub/diff.pb\n+++ R/sub/diff.pb\ni32: 1 -> 2\nstr: \"\" -> \"x\"\n]\n"
         "sub/left_only.pb failure:only-left\n");
  /* xmllint, where installed, agrees that it is well-formed */
  r = tu_sh("command -v xmllint >/dev/null || exit 0; xmllint --noout j.xml");
  EXPECT(r, 0, "");
  /* L against itself: only the malformed file fails */
  r = tu_sh("\"$P\" -r --format junit " S3 "L L > j.xml 2>/dev/null; echo $?; python3 junit.py j.xml");
  EXPECT(r, 0,
         "2\ntests=6 failures=0 errors=1\nbad.pb error\neq.pb pass\nlnk.pb pass\n"
         "sub/deep/re.pb pass\nsub/diff.pb pass\nsub/left_only.pb pass\n");
  /* all equal: no failures */
  ck_assert_int_eq(tu_sh("rm L/bad.pb")->rc, 0);
  r = tu_sh("\"$P\" -r --format junit " S3 "L L > j.xml; echo $?; python3 junit.py j.xml");
  EXPECT(r, 0,
         "0\ntests=5 failures=0 errors=0\neq.pb pass\nlnk.pb pass\n"
         "sub/deep/re.pb pass\nsub/diff.pb pass\nsub/left_only.pb pass\n");
  /* --max-diffs cuts the body, the message counts all */
  r = PB("-r --format junit --max-diffs 1 " S3 "L R 2>/dev/null | grep -A3 'message=\"2 differences\"'");
  EXPECT(r, 0,
         "      <failure message=\"2 differences\" type=\"differ\">--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -&gt; 2\n"
         "... and 1 more difference\n");
  /* --explain: equal files' explanation in <system-out> */
  r = PB("-r --format junit --explain " S3 "L R 2>/dev/null | grep -A6 'name=\"sub/deep/re.pb\"'");
  EXPECT(r, 0,
         "    <testcase classname=\"pbdiff\" name=\"sub/deep/re.pb\">\n"
         "      <system-out>equal in meaning, but the bytes differ:\n"
         "  field order: 1 in LEFT (at byte 7), 1 in RIGHT (at byte 9)\n"
         "  packed: 1 in LEFT (at byte 2), 0 in RIGHT\n"
         "  unpacked: 0 in LEFT, 3 in RIGHT (first at byte 3)\n"
         "</system-out>\n"
         "    </testcase>\n");
  /* empty trees: an empty suite */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  r = tu_sh("\"$P\" -r --format junit E1 E2 > j.xml; echo $?; python3 junit.py j.xml");
  EXPECT(r, 0, "0\ntests=0 failures=0 errors=0\n");
}
END_TEST

START_TEST(junit_escaping) {
  put_junit_check();
  /* names with XML's special characters, a control character and a byte
   * that is not UTF-8; a string value with them too */
  put("A/a&b<c>\"d'.pb", "08 01");
  put("B/a&b<c>\"d'.pb", "08 02");
  put("A/ctl\001x\377y.pb", "08 01");
  put("A/caf\303\251.pb", "52 03 3c 26 3e");             /* str: "<&>" */
  put("B/caf\303\251.pb", "52 05 5d 5d 3e 0a 22");       /* str: "]]>\n\"" */
  put("A/\357\277\276.pb", "08 01");                     /* U+FFFE */
  const Run *r = tu_sh("\"$P\" -r --format junit " S3 "A B > j.xml; echo $?; python3 junit.py j.xml body");
  EXPECT(r, 0,
         "1\n"
         "tests=4 failures=4 errors=0\n"
         "a&b<c>\"d'.pb failure:differ\n"
         "[--- A/a&b<c>\"d'.pb\n+++ B/a&b<c>\"d'.pb\ni32: 1 -> 2\n]\n"
         "caf\303\251.pb failure:differ\n"
         "[--- A/caf\303\251.pb\n+++ B/caf\303\251.pb\nstr: \"<&>\" -> \"]]>\\n\\\"\"\n]\n"
         "ctl\357\277\275x\357\277\275y.pb failure:only-left\n" /* U+FFFD */
         "\357\277\275.pb failure:only-left\n");
  r = tu_sh("grep -c 'name=\"a&amp;b&lt;c&gt;&quot;d'\"'\"'.pb\"' j.xml");
  EXPECT(r, 0, "1\n");
  r = tu_sh("command -v xmllint >/dev/null || exit 0; xmllint --noout j.xml");
  EXPECT(r, 0, "");
  /* newlines in a name survive as references in the attribute */
  put("C/two\nlines.pb", "08 01");
  ck_assert_int_eq(tu_sh("mkdir D")->rc, 0);
  r = tu_sh("\"$P\" -r --format junit C D > j.xml; grep -c 'name=\"two&#10;lines.pb\"' j.xml; "
         "python3 -c 'import sys, xml.dom.minidom as m; "
         "print(repr(m.parse(sys.argv[1]).getElementsByTagName(\"testcase\")[0].getAttribute(\"name\")))' j.xml");
  EXPECT(r, 0, "1\n'two\\nlines.pb'\n");
}
END_TEST

START_TEST(junit_single_pair) {
  put_junit_check();
  put("l.pb", "08 01");
  put("r.pb", "08 02 52 01 78");
  put("same.pb", "52 01 78 08 01 08 02"); /* equal to r.pb */
  put("one.pb", "08 02");                  /* one difference from l.pb */
  EXPECT(PB("--format junit " S3 "l.pb r.pb"), 1,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<testsuites tests=\"1\" failures=\"1\" errors=\"0\">\n"
         "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"1\" errors=\"0\">\n"
         "    <testcase classname=\"pbdiff\" name=\"r.pb\">\n"
         "      <failure message=\"2 differences\" type=\"differ\">i32: 1 -&gt; 2\n"
         "str: &quot;&quot; -&gt; &quot;x&quot;\n"
         "</failure>\n"
         "    </testcase>\n"
         "  </testsuite>\n"
         "</testsuites>\n");
  /* named after RIGHT wherever the options are */
  EXPECT(PB(S3 "r.pb same.pb --format=junit"), 0,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<testsuites tests=\"1\" failures=\"0\" errors=\"0\">\n"
         "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
         "    <testcase classname=\"pbdiff\" name=\"same.pb\"/>\n"
         "  </testsuite>\n"
         "</testsuites>\n");
  const Run *r = PB(S3 "--format junit -- r.pb l.pb | grep testcase");
  EXPECT(r, 0, "    <testcase classname=\"pbdiff\" name=\"l.pb\">\n    </testcase>\n");
  r = PB("--format junit " S3 "l.pb r.pb --max-diffs 1 | grep -c 'name=\"r.pb\"'");
  EXPECT(r, 0, "1\n");
  r = PB(S3 "l.pb --format junit one.pb -- | grep -c 'name=\"one.pb\"'");
  EXPECT(r, 0, "1\n");
  r = tu_sh("\"$P\" --format junit " S3 "l.pb r.pb > j.xml; python3 junit.py j.xml");
  EXPECT(r, 0, "tests=1 failures=1 errors=0\nr.pb failure:differ\n");
  /* a single difference */
  r = PB("--format junit " S3 "l.pb one.pb | grep -e '<failure' -e '</failure'");
  EXPECT(r, 0, "      <failure message=\"1 difference\" type=\"differ\">i32: 1 -&gt; 2\n</failure>\n");
  /* standard input as RIGHT */
  r = PB("--format junit " S3 "l.pb - < r.pb | grep -c 'name=\"-\"'");
  EXPECT(r, 0, "1\n");
  /* trouble: nothing on stdout, as with JSON */
  put("bad.pb", "08");
  EXPECT2(PB("--format junit " S3 "l.pb bad.pb"), 2, "",
          "pbdiff: bad.pb: truncated varint (field 1) at byte 1\n");
  EXPECT(PB("-q --format junit " S3 "l.pb r.pb"), 1, "");
  /* text and JSON stay as they were */
  EXPECT(PB(S3 "l.pb r.pb"), 1, "i32: 1 -> 2\nstr: \"\" -> \"x\"\n");
  EXPECT(PB("--format text " S3 "l.pb one.pb"), 1, "i32: 1 -> 2\n");
  r = PB("--format json " S3 "l.pb one.pb");
  EXPECT(r, 1,
         "{\"equal\": false, \"differences\": [\n"
         "  {\"path\": \"i32\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
}
END_TEST

/* ---- the config's per-path options -------------------------------------------- */

START_TEST(config_matches_left_path) {
  /* packed (L) vs unpacked (R): equal only with the schema, which only
   * the config gives */
  put("L/a.pb", "72 02 01 02");
  put("R/a.pb", "70 01 70 02");
  put("L/special/b.pb", "08 01 72 02 01 02");
  put("R/special/b.pb", "08 02 70 01 70 02");
  char cfg[512];
  snprintf(cfg, sizeof cfg,
           "[file \"*.pb\"]\n"
           "    schema = %s/sem3.desc\n"
           "    type = sem3.M\n",
           tu_sandbox_base());
  put_bytes(".pbdiff", cfg, strlen(cfg));
  EXPECT(PB("-r --summary L R"), 1, "equal a.pb\ndiffer special/b.pb\n");
  /* a section for a path with '/' matches the path under DIR1 ... */
  char more[1024];
  snprintf(more, sizeof more, "%s[file \"L/special/*.pb\"]\n    schema = %s/sem3.desc\n"
                              "    type = sem3.M\n    ignore = sem3.M.i32\n", cfg, tu_sandbox_base());
  put_bytes(".pbdiff", more, strlen(more));
  EXPECT(PB("-r --summary L R"), 0, "equal a.pb\nequal special/b.pb\n");
  EXPECT(PB("-r --summary R L"), 1, "equal a.pb\ndiffer special/b.pb\n");
  /* ... not the one under DIR2 */
  snprintf(more, sizeof more, "%s[file \"R/special/*.pb\"]\n    schema = %s/sem3.desc\n"
                              "    type = sem3.M\n    ignore = sem3.M.i32\n", cfg, tu_sandbox_base());
  put_bytes(".pbdiff", more, strlen(more));
  EXPECT(PB("-r --summary L R"), 1, "equal a.pb\ndiffer special/b.pb\n");
  /* the command line wins */
  EXPECT(PB("-r --summary --ignore sem3.M.i32 L R"), 0, "equal a.pb\nequal special/b.pb\n");
  /* no config: schemaless, packed and unpacked differ */
  EXPECT(PB("-r --summary --config /dev/null L R"), 1, "differ a.pb\ndiffer special/b.pb\n");
}
END_TEST

/* ---- 1 000 files --------------------------------------------------------------- */

static void varint(uint8_t *b, size_t *n, uint64_t v) {
  while (v >= 0x80) {
    b[(*n)++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[(*n)++] = (uint8_t)v;
}

/* sem3.M { i32: v str: "file-I" ri: [I, I+1, I+2] ms { "k": I } }, packed and
 * in field order, or (reencode) unpacked, fields backwards, i32 written
 * twice (last wins) with a non-minimal varint. */
static size_t payload(uint8_t *b, int i, int v, bool reencode) {
  size_t n = 0;
  char str[32];
  int sl = snprintf(str, sizeof str, "file-%d", i);
  uint8_t entry[16];
  size_t en = 0;
  entry[en++] = 0x0a, entry[en++] = 1, entry[en++] = 'k', entry[en++] = 0x10;
  varint(entry, &en, (uint64_t)i);
  if (!reencode) {
    b[n++] = 0x08, varint(b, &n, (uint64_t)v);
    b[n++] = 0x52, b[n++] = (uint8_t)sl, memcpy(b + n, str, (size_t)sl), n += (size_t)sl;
    uint8_t run[32];
    size_t rn = 0;
    for (int k = 0; k < 3; k++) varint(run, &rn, (uint64_t)(i + k));
    b[n++] = 0x72, b[n++] = (uint8_t)rn, memcpy(b + n, run, rn), n += rn;
    b[n++] = 0x82, b[n++] = 0x01, b[n++] = (uint8_t)en, memcpy(b + n, entry, en), n += en;
  } else {
    b[n++] = 0x82, b[n++] = 0x01, b[n++] = (uint8_t)en, memcpy(b + n, entry, en), n += en;
    for (int k = 0; k < 3; k++) b[n++] = 0x70, varint(b, &n, (uint64_t)(i + k));
    b[n++] = 0x52, b[n++] = (uint8_t)sl, memcpy(b + n, str, (size_t)sl), n += (size_t)sl;
    b[n++] = 0x08, b[n++] = 0x05; /* i32: 5, then v: the last wins */
    b[n++] = 0x08;                /* v (< 16384) as a 3-byte, non-minimal varint */
    b[n++] = (uint8_t)(0x80 | (v & 0x7f));
    b[n++] = (uint8_t)(0x80 | ((v >> 7) & 0x7f));
    b[n++] = 0x00;
  }
  return n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

START_TEST(thousand_files) {
  static const int kDiffer[7] = {3, 141, 142, 500, 777, 998, 999};
  bool differ[1000] = {false}, reenc[1000] = {false};
  for (int k = 0; k < 7; k++) differ[kDiffer[k]] = true;
  for (int k = 0; k < 50; k++) reenc[(k * 37 + 11) % 1000] = true; /* 50 distinct indices */
  int nre = 0;
  for (int i = 0; i < 1000; i++) nre += reenc[i] && !differ[i];
  ck_assert_int_eq(nre, 50);
  double t0 = now();
  for (int i = 0; i < 1000; i++) {
    char name[64];
    uint8_t b[128];
    snprintf(name, sizeof name, "L/g%d/p%03d.pb", i % 10, i);
    put_bytes(name, b, payload(b, i, 1000 + i, false));
    snprintf(name, sizeof name, "R/g%d/p%03d.pb", i % 10, i);
    put_bytes(name, b, payload(b, i, differ[i] ? 2000 + i : 1000 + i, reenc[i]));
  }
  /* the test's own sanity: re-encoded files differ in bytes */
  const Run *r = tu_sh("diff -rq L R | wc -l");
  ck_assert_str_eq(r->out, "57\n");
  double t1 = now();
  r = PB("-r -j 2 " S3 "L R");
  double t2 = now();
  ck_assert_int_eq(r->rc, 1);
  ck_assert_str_eq(r->err, "");
  /* exactly the 7, each with its one difference */
  pbd_Buf want = {0};
  static const int kSorted[7] = {3, 141, 142, 500, 777, 998, 999};
  /* path order: g0..g9, then p### within */
  for (int g = 0; g < 10; g++)
    for (int k = 0; k < 7; k++) {
      int i = kSorted[k];
      if (i % 10 != g) continue;
      pbd_Buf_Printf(&want, "--- L/g%d/p%03d.pb\n+++ R/g%d/p%03d.pb\ni32: %d -> %d\n", g, i, g, i,
                     1000 + i, 2000 + i);
    }
  ck_assert_str_eq(r->out, want.data);
  pbd_Buf_Free(&want);
  fprintf(stderr, "thousand_files: writing 2000 files %.2fs, pbdiff -r -j 2 %.2fs\n", t1 - t0, t2 - t1);
  ck_assert_msg(t2 - t1 < 30, "pbdiff -r -j 2 took %.1fs", t2 - t1);
  /* the summary lists the same 7 as differ, and 993 equal */
  r = PB("-r -j 2 --summary " S3 "L R | grep -v '^equal ' ");
  ck_assert_str_eq(r->out,
                   "differ g0/p500.pb\n"
                   "differ g1/p141.pb\n"
                   "differ g2/p142.pb\n"
                   "differ g3/p003.pb\n"
                   "differ g7/p777.pb\n"
                   "differ g8/p998.pb\n"
                   "differ g9/p999.pb\n");
  r = PB("-r -j 2 --summary " S3 "L R | grep -c '^equal '");
  ck_assert_str_eq(r->out, "993\n");
  /* the same with one thread, and as JSON */
  r = PB("-r -j 1 --format json " S3 "L R | python3 -c 'import json, sys; "
         "print(*[f[\"path\"] for f in json.load(sys.stdin)[\"files\"] if f[\"status\"] != \"equal\"])'");
  EXPECT(r, 0, "g0/p500.pb g1/p141.pb g2/p142.pb g3/p003.pb g7/p777.pb g8/p998.pb g9/p999.pb\n");
  /* a file gone from R, one more in R */
  ck_assert_int_eq(tu_sh("mv R/g4/p004.pb R/g4/p004.bak")->rc, 0);
  r = PB("-r -j 2 --summary " S3 "L R | grep -v '^equal '");
  ck_assert_str_eq(r->out,
                   "differ g0/p500.pb\n"
                   "differ g1/p141.pb\n"
                   "differ g2/p142.pb\n"
                   "differ g3/p003.pb\n"
                   "only-right g4/p004.bak\n"
                   "only-left g4/p004.pb\n"
                   "differ g7/p777.pb\n"
                   "differ g8/p998.pb\n"
                   "differ g9/p999.pb\n");
}
END_TEST

/* ---- docs/ci.md: every recipe, as written -------------------------------------- */

static char *g_doc;

/* The fenced block after the line `<!-- KIND: NAME -->` in docs/ci.md
 * (malloc'd). */
static char *doc_block(const char *kind, const char *name) {
  if (!g_doc) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/docs/ci.md", tu_sandbox_root());
    size_t n;
    char *d = (char *)tu_read_file(path, &n);
    ck_assert_msg(d != NULL, "cannot read %s", path);
    g_doc = realloc(d, n + 1);
    g_doc[n] = '\0';
  }
  char marker[128];
  snprintf(marker, sizeof marker, "<!-- %s: %s -->\n```", kind, name);
  const char *p = strstr(g_doc, marker);
  ck_assert_msg(p != NULL, "docs/ci.md has no block %s: %s", kind, name);
  ck_assert_msg(strstr(p + 1, marker) == NULL, "docs/ci.md has two blocks %s: %s", kind, name);
  p = strchr(p + strlen(marker), '\n') + 1;
  const char *end = strstr(p, "\n```\n");
  ck_assert_ptr_nonnull(end);
  return strndup(p, (size_t)(end - p + 1));
}

/* Runs the recipe NAME of docs/ci.md with sh in the test's directory. */
static const Run *recipe(const char *name) {
  char *text = doc_block("recipe", name);
  put_bytes("recipe.sh", text, strlen(text));
  free(text);
  return tu_sh("sh recipe.sh");
}

/* The files the recipes use (docs/ci.md describes them). */
static void recipe_files(void) {
  ck_assert_int_eq(tu_sh("cp ../api.desc .")->rc, 0);
  const char *expected = "08 03 12 05 0a0161 1001 1a 0b 0a03656e76 120470726f64";
  put("expected.pb", expected);
  put("actual.pb", "08 04 12 05 0a0161 1002 1a 0b 0a03656e76 120470726f64");
  put("expected/a.pb", expected);
  put("actual/a.pb", "1a 0b 120470726f64 0a03656e76 12 05 1001 0a0161 08 03");
  put("expected/b.pb", expected);
  put("actual/b.pb", "08 04 12 05 0a0161 1002 1a 0b 0a03656e76 120470726f64");
  put("expected/old.pb", "08 01");
  put("actual/new/c.pb", "08 02");
}

START_TEST(doc_recipes) {
  recipe_files();
  /* exit codes */
  EXPECT(recipe("exit-codes"), 1, "different meaning\n");
  EXPECT(recipe("assert"), 1, "");
  EXPECT(recipe("assert-schema"), 1, "");
  /* json */
  char *want = doc_block("output", "json");
  EXPECT(recipe("json"), 1, want);
  free(want);
  if (tu_sh("command -v jq >/dev/null")->rc == 0)
    EXPECT(recipe("jq"), 0, "changed version\nchanged items[0].count\n"); /* jq is optional */
  /* directories */
  want = doc_block("output", "dirs");
  EXPECT(recipe("dirs"), 1, want);
  free(want);
  want = doc_block("output", "summary");
  EXPECT(recipe("summary"), 1, want);
  free(want);
  want = doc_block("output", "json-dirs");
  EXPECT(recipe("json-dirs"), 0, want);
  free(want);
  /* junit: the file is the documented one, and well-formed */
  EXPECT(recipe("junit"), 1, "");
  want = doc_block("output", "junit");
  char *got = slurp("pbdiff-junit.xml");
  ck_assert_str_eq(got, want);
  free(got);
  free(want);
  put_junit_check();
  EXPECT(tu_sh("python3 junit.py pbdiff-junit.xml"), 0,
         "tests=4 failures=3 errors=0\na.pb pass\nb.pb failure:differ\n"
         "new/c.pb failure:only-right\nold.pb failure:only-left\n");
  /* version */
  EXPECT(recipe("version"), 0, "pbdiff " PBDIFF_VERSION " (fingerprints " PBDIFF_HASH_SCHEME ")\n");
  ck_assert_msg(strstr(g_doc, "`pbdiff " PBDIFF_VERSION " (fingerprints " PBDIFF_HASH_SCHEME ")`"),
                "docs/ci.md shows another version line");

  /* the same recipes when the payloads are equal: 0 */
  ck_assert_int_eq(tu_sh("cp expected.pb actual.pb && rm -r actual && cp -r expected actual")->rc, 0);
  EXPECT(recipe("exit-codes"), 0, "same meaning\n");
  EXPECT(recipe("assert"), 0, "");
  EXPECT(recipe("json"), 0, "");
  EXPECT(recipe("dirs"), 0, "");
  EXPECT(recipe("junit"), 0, "");
  EXPECT(tu_sh("python3 junit.py pbdiff-junit.xml"), 0,
         "tests=3 failures=0 errors=0\na.pb pass\nb.pb pass\nold.pb pass\n");
  /* and when one is malformed: 2, the message on stderr */
  put("actual.pb", "08");
  EXPECT2(recipe("exit-codes"), 2, "pbdiff could not compare\n",
          "pbdiff: actual.pb: truncated varint (field 1) at byte 1\n");
  const Run *r = recipe("json");
  ck_assert_int_eq(r->rc, 2);
  put("actual/b.pb", "08");
  r = recipe("junit");
  ck_assert_int_eq(r->rc, 2);
  EXPECT(tu_sh("python3 junit.py pbdiff-junit.xml"), 0,
         "tests=3 failures=0 errors=1\na.pb pass\nb.pb error\nold.pb pass\n");
  free(g_doc);
  g_doc = NULL;
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("dirs");
  TCase *t = tcase_create("dirs");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, text_small_tree);
  tcase_add_test(t, text_report_options_per_file);
  tcase_add_test(t, summary_lines);
  tcase_add_test(t, quiet_status_only);
  tcase_add_test(t, errors_and_usage);
  tcase_add_test(t, jobs_identical_output);
  tcase_add_test(t, json_shape);
  tcase_add_test(t, junit_tree);
  tcase_add_test(t, junit_escaping);
  tcase_add_test(t, junit_single_pair);
  tcase_add_test(t, config_matches_left_path);
  tcase_add_test(t, thousand_files);
  tcase_add_test(t, doc_recipes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
