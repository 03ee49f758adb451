/* pbdiff tests — directories (-r): exact text output on small trees made at
 * test time (nested subdirectories, files on one side only,
 * equal-but-re-encoded, differing and malformed files, symlinks, .git),
 * --summary, -q, errors, -j 1 vs -j 4, the JSON shape, and JUnit XML
 * (well-formed, counts, escaping; also for a single pair).  Per-path config,
 * 1 000 files and the recipes of docs/ci.md: check_dirs_ci.c.
 *
 * Every command runs in a fresh directory of its own, with shell variables
 *   $P  the pbdiff binary under test    $R  the source root
 * the descriptor sets ../sem3.desc and ../api.desc (compiled once per run),
 * and a directory holding `pbdiff` (a link to $P) first on PATH. */
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

#include "pbdiff/pbdiff.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("dirs", "proto/sem3.proto", "sem3.desc", "dirs/api.proto", "api.desc")






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
/* -r's last line when not every file is equal: the totals */
#define TOTALS_BAD "8 files: 3 equal, 1 differ, 1 only in L, 2 only in R, 1 error\n"
#define TOTALS "7 files: 3 equal, 1 differ, 1 only in L, 2 only in R\n"

START_TEST(text_small_tree) {
  small_tree(true);
  EXPECT2(PB("-r " S3 "L R"), 2, SMALL_TEXT TOTALS_BAD, BAD_ERR);
  /* trailing slashes are not doubled; --recursive is -r */
  EXPECT2(PB("--recursive " S3 "L/ R//"), 2, SMALL_TEXT TOTALS_BAD, BAD_ERR);
  /* the error comes in its place in the path order */
  const Run *r = tu_sh("\"$P\" -r " S3 "L R 2>&1");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_str_eq(r->out, BAD_ERR SMALL_TEXT TOTALS_BAD);
  /* without the malformed file: 1 */
  ck_assert_int_eq(tu_sh("rm L/bad.pb R/bad.pb")->rc, 0);
  EXPECT(PB("-r " S3 "L R"), 1, SMALL_TEXT TOTALS);
  /* swapped sides */
  EXPECT(PB("-r " S3 "R L"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- R/sub/diff.pb\n"
         "+++ L/sub/diff.pb\n"
         "i32: 2 -> 1\n"
         "str: \"x\" -> \"\"\n"
         "Only in L/sub: left_only.pb\n"
         "7 files: 3 equal, 1 differ, 2 only in R, 1 only in L\n");
  /* a tree against itself, and against a copy re-encoded: equal, silent */
  EXPECT(PB("-r " S3 "L L"), 0, "");
  ck_assert_int_eq(tu_sh("rm -r L/sub/left_only.pb R/right_only.pb R/newdir && cp R/sub/diff.pb L/sub/")->rc, 0);
  EXPECT(PB("-r " S3 "L R"), 0, "");
  /* two empty directories */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  EXPECT(PB("-r E1 E2"), 0, "");
  EXPECT(PB("-r E1 L"), 1,
         "Only in L: eq.pb\nOnly in L: lnk.pb\nOnly in L/sub/deep: re.pb\nOnly in L/sub: diff.pb\n"
         "4 files: 4 only in L\n");
}
END_TEST

START_TEST(text_report_options_per_file) {
  small_tree(false);
  /* --stat and --max-diffs apply to each file's report; --stat's counts
   * are summed over every file at the end */
  EXPECT(PB("-r --stat " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "  i32: 1 changed\n"
         "  str: 1 changed\n"
         "2 differences: 2 changed\n"
         "Only in L/sub: left_only.pb\n"
         "all files:\n"
         "  i32: 1 changed\n"
         "  str: 1 changed\n"
         "2 differences: 2 changed\n" TOTALS);
  put("L/sub/more.pb", "08 01 52 01 61");
  put("R/sub/more.pb", "08 05 52 01 62 18 01");
  const Run *st = PB("-r --stat " S3 "L R | tail -6");
  ck_assert_str_eq(st->out,
                   "all files:\n"
                   "  i32: 2 changed\n"
                   "  str: 2 changed\n"
                   "  u32: 1 changed\n"
                   "5 differences: 5 changed\n"
                   "8 files: 3 equal, 2 differ, 1 only in L, 2 only in R\n");
  tu_sh("rm L/sub/more.pb R/sub/more.pb");
  EXPECT(PB("-r --max-diffs 1 " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -> 2\n"
         "... and 1 more difference\n"
         "Only in L/sub: left_only.pb\n" TOTALS);
  /* --explain: equal files with other bytes say why; same bytes say nothing */
  EXPECT(PB("-r --explain " S3 "L R"), 1,
         "Only in R/newdir: x.pb\n"
         "Only in R: right_only.pb\n"
         "--- L/sub/deep/re.pb\n"
         "+++ R/sub/deep/re.pb\n"
         "equal in meaning, but the bytes differ:\n"
         "  field order: 1 in LEFT (at byte 7, in str), 1 in RIGHT (at byte 9, in i32)\n"
         "  packed: 1 in LEFT (at byte 2, in ri), 0 in RIGHT\n"
         "  unpacked: 0 in LEFT, 3 in RIGHT (first at byte 3, in ri)\n"
         "--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -> 2\n"
         "str: \"\" -> \"x\"\n"
         "Only in L/sub: left_only.pb\n" TOTALS);
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
      "only-left sub/left_only.pb\n" TOTALS_BAD;
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
         "only-left sub/left_only.pb\n"
         "8 files: 3 equal, 1 differ, 1 only in L, 3 only in R\n");
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
  EXPECT2(PB("-r -s ../sem3.desc -t no.Such A B"), 2, "1 file: 1 error\n",
          "pbdiff: message type 'no.Such' is not in the schema\n");
  /* an unreadable subdirectory: reported, the rest still compared */
  if (geteuid() != 0) {
    put("A/locked/y.pb", "08 01");
    put("B/z.pb", "08 01");
    ck_assert_int_eq(tu_sh("chmod 000 A/locked")->rc, 0);
    EXPECT2(PB("-r --summary A B"), 2, "equal x.pb\nonly-right z.pb\n2 files: 1 equal, 1 only in B\n",
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
    const Run *r = PB_NOTIME("-r -j 1 %s " S3 "L R", modes[m]);
    int rc1 = r->rc;
    char *out1 = strdup(r->out), *err1 = strdup(r->err);
    ck_assert_int_eq(rc1, 2);
    const char *jobs[] = {"-j 4", "-j 2", "-j 64", ""};
    for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++) {
      for (int rep = 0; rep < 3; rep++) {
        EXPECT2(PB_NOTIME("-r %s %s " S3 "L R", jobs[k], modes[m]), rc1, out1, err1);
      }
    }
    free(out1);
    free(err1);
  }
  /* the summary has every path, in order */
  const Run *r = PB("-r --summary " S3 "L R | wc -l");
  ck_assert_str_eq(r->out, "61\n"); /* and the totals */
  r = PB("-r --summary " S3 "L R | sed '$d' | cut -d' ' -f2 | tr -d : | LC_ALL=C sort -c && echo sorted");
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
      "], \"totals\": {\"files\": 8, \"equal\": 3, \"differ\": 1, \"only_left\": 1, "
      "\"only_right\": 2, \"error\": 1}}\n");
  /* read by a script: every file once, statuses, reports where documented */
  static const char kCheck[] =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))\n"
      "assert set(r) == {'equal', 'left_dir', 'right_dir', 'files', 'totals'}, r.keys()\n"
      "t = r['totals']\n"
      "assert t['files'] == len(r['files'])\n"
      "assert t['files'] == t['equal'] + t['differ'] + t['only_left'] + t['only_right'] + t['error']\n"
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
  r = tu_sh("\"$P\" -r --format json " S3 "L R > out.json 2>/dev/null; /usr/bin/python3 check.py out.json no full");
  EXPECT(r, 0, "error equal equal only-right only-right equal differ only-left\n");
  r = tu_sh("\"$P\" -r --summary --format json " S3 "L R > out.json 2>/dev/null; "
         "/usr/bin/python3 check.py out.json no summary");
  EXPECT(r, 0, "error equal equal only-right only-right equal differ only-left\n");
  ck_assert_int_eq(tu_sh("rm L/bad.pb")->rc, 0);
  r = tu_sh("\"$P\" -r --format json " S3 "L L > out.json; echo $?; /usr/bin/python3 check.py out.json equal full");
  EXPECT(r, 0, "0\nequal equal equal equal equal\n");
  /* empty trees */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  EXPECT(PB("-r --format json E1 E2"), 0,
         "{\"equal\": true, \"left_dir\": \"E1\", \"right_dir\": \"E2\", \"files\": [], "
         "\"totals\": {\"files\": 0, \"equal\": 0, \"differ\": 0, \"only_left\": 0, "
         "\"only_right\": 0, \"error\": 0}}\n");
  /* the single-pair JSON report is unchanged */
  EXPECT(PB("--format json " S3 "L/eq.pb R/eq.pb"), 0,
         "{\"equal\": true, \"left_name\": \"L/eq.pb\", \"right_name\": \"R/eq.pb\", "
         "\"differences\": []}\n");
  /* names that need JSON escaping */
  put("Q/a\"b\\c.pb", "08 01");
  ck_assert_int_eq(tu_sh("mkdir Q2")->rc, 0);
  EXPECT(PB("-r --format json Q Q2"), 1,
         "{\"equal\": false, \"left_dir\": \"Q\", \"right_dir\": \"Q2\", \"files\": [\n"
         "  {\"path\": \"a\\\"b\\\\c.pb\", \"status\": \"only-left\"}\n"
         "], \"totals\": {\"files\": 1, \"equal\": 0, \"differ\": 0, \"only_left\": 1, "
         "\"only_right\": 0, \"error\": 0}}\n");
}
END_TEST

/* ---- JUnit -------------------------------------------------------------------- */

START_TEST(junit_tree) {
  small_tree(true);
  tu_put_junit_check();
  const Run *r = PB_NOTIME("-r --format junit " S3 "L R");
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
      "      <failure message=\"2 differences: i32, str\" type=\"differ\">--- L/sub/diff.pb\n"
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
  r = tu_sh("\"$P\" -r --format junit " S3 "L R > j.xml 2>/dev/null; echo $?; /usr/bin/python3 junit.py j.xml body");
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
  r = tu_sh("\"$P\" -r --format junit " S3 "L L > j.xml 2>/dev/null; echo $?; /usr/bin/python3 junit.py j.xml");
  EXPECT(r, 0,
         "2\ntests=6 failures=0 errors=1\nbad.pb error\neq.pb pass\nlnk.pb pass\n"
         "sub/deep/re.pb pass\nsub/diff.pb pass\nsub/left_only.pb pass\n");
  /* all equal: no failures */
  ck_assert_int_eq(tu_sh("rm L/bad.pb")->rc, 0);
  r = tu_sh("\"$P\" -r --format junit " S3 "L L > j.xml; echo $?; /usr/bin/python3 junit.py j.xml");
  EXPECT(r, 0,
         "0\ntests=5 failures=0 errors=0\neq.pb pass\nlnk.pb pass\n"
         "sub/deep/re.pb pass\nsub/diff.pb pass\nsub/left_only.pb pass\n");
  /* --max-diffs cuts the body, the message counts all */
  r = PB("-r --format junit --max-diffs 1 " S3 "L R 2>/dev/null | grep -A3 'message=\"2 differences'");
  EXPECT(r, 0,
         "      <failure message=\"2 differences: i32, ...\" type=\"differ\">--- L/sub/diff.pb\n"
         "+++ R/sub/diff.pb\n"
         "i32: 1 -&gt; 2\n"
         "... and 1 more difference\n");
  /* --explain: equal files' explanation in <system-out> */
  r = PB_NOTIME("-r --format junit --explain " S3 "L R 2>/dev/null | grep -A6 'name=\"sub/deep/re.pb\"'");
  EXPECT(r, 0,
         "    <testcase classname=\"pbdiff\" name=\"sub/deep/re.pb\">\n"
         "      <system-out>equal in meaning, but the bytes differ:\n"
         "  field order: 1 in LEFT (at byte 7, in str), 1 in RIGHT (at byte 9, in i32)\n"
         "  packed: 1 in LEFT (at byte 2, in ri), 0 in RIGHT\n"
         "  unpacked: 0 in LEFT, 3 in RIGHT (first at byte 3, in ri)\n"
         "</system-out>\n"
         "    </testcase>\n");
  /* empty trees: an empty suite */
  ck_assert_int_eq(tu_sh("mkdir E1 E2")->rc, 0);
  r = tu_sh("\"$P\" -r --format junit E1 E2 > j.xml; echo $?; /usr/bin/python3 junit.py j.xml");
  EXPECT(r, 0, "0\ntests=0 failures=0 errors=0\n");
}
END_TEST

START_TEST(junit_escaping) {
  tu_put_junit_check();
  /* names with XML's special characters, a control character and a byte
   * that is not UTF-8; a string value with them too */
  put("A/a&b<c>\"d'.pb", "08 01");
  put("B/a&b<c>\"d'.pb", "08 02");
  put("A/ctl\001x\377y.pb", "08 01");
  put("A/caf\303\251.pb", "52 03 3c 26 3e");             /* str: "<&>" */
  put("B/caf\303\251.pb", "52 05 5d 5d 3e 0a 22");       /* str: "]]>\n\"" */
  put("A/\357\277\276.pb", "08 01");                     /* U+FFFE */
  const Run *r = tu_sh("\"$P\" -r --format junit " S3 "A B > j.xml; echo $?; /usr/bin/python3 junit.py j.xml body");
  EXPECT(r, 0,
         "1\n"
         "tests=4 failures=4 errors=0\n"
         "a&b<c>\"d'.pb failure:differ\n"
         /* the report's names quoted as git quotes them (cli/names.c) */
         "[--- \"A/a&b<c>\\\"d'.pb\"\n+++ \"B/a&b<c>\\\"d'.pb\"\ni32: 1 -> 2\n]\n"
         "caf\303\251.pb failure:differ\n"
         "[--- \"A/caf\\303\\251.pb\"\n+++ \"B/caf\\303\\251.pb\"\nstr: \"<&>\" -> \"]]>\\n\\\"\"\n]\n"
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
         "/usr/bin/python3 -c 'import sys, xml.dom.minidom as m; "
         "print(repr(m.parse(sys.argv[1]).getElementsByTagName(\"testcase\")[0].getAttribute(\"name\")))' j.xml");
  EXPECT(r, 0, "1\n'two\\nlines.pb'\n");
}
END_TEST

START_TEST(junit_single_pair) {
  tu_put_junit_check();
  put("l.pb", "08 01");
  put("r.pb", "08 02 52 01 78");
  put("same.pb", "52 01 78 08 01 08 02"); /* equal to r.pb */
  put("one.pb", "08 02");                  /* one difference from l.pb */
  EXPECT(PB_NOTIME("--format junit " S3 "l.pb r.pb"), 1,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<testsuites tests=\"1\" failures=\"1\" errors=\"0\">\n"
         "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"1\" errors=\"0\">\n"
         "    <testcase classname=\"pbdiff\" name=\"r.pb\">\n"
         "      <failure message=\"2 differences: i32, str\" type=\"differ\">i32: 1 -&gt; 2\n"
         "str: &quot;&quot; -&gt; &quot;x&quot;\n"
         "</failure>\n"
         "    </testcase>\n"
         "  </testsuite>\n"
         "</testsuites>\n");
  /* named after RIGHT wherever the options are */
  EXPECT(PB_NOTIME(S3 "r.pb same.pb --format=junit"), 0,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<testsuites tests=\"1\" failures=\"0\" errors=\"0\">\n"
         "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
         "    <testcase classname=\"pbdiff\" name=\"same.pb\"/>\n"
         "  </testsuite>\n"
         "</testsuites>\n");
  const Run *r = PB_NOTIME(S3 "--format junit -- r.pb l.pb | grep testcase");
  EXPECT(r, 0, "    <testcase classname=\"pbdiff\" name=\"l.pb\">\n    </testcase>\n");
  r = PB("--format junit " S3 "l.pb r.pb --max-diffs 1 | grep -c 'name=\"r.pb\"'");
  EXPECT(r, 0, "1\n");
  r = PB(S3 "l.pb --format junit one.pb -- | grep -c 'name=\"one.pb\"'");
  EXPECT(r, 0, "1\n");
  r = tu_sh("\"$P\" --format junit " S3 "l.pb r.pb > j.xml; /usr/bin/python3 junit.py j.xml");
  EXPECT(r, 0, "tests=1 failures=1 errors=0\nr.pb failure:differ\n");
  /* a single difference */
  r = PB_NOTIME("--format junit " S3 "l.pb one.pb | grep -e '<failure' -e '</failure'");
  EXPECT(r, 0, "      <failure message=\"1 difference: i32\" type=\"differ\">i32: 1 -&gt; 2\n</failure>\n");
  /* standard input as RIGHT */
  r = PB("--format junit " S3 "l.pb - < r.pb | grep -c 'name=\"-\"'");
  EXPECT(r, 0, "1\n");
  /* trouble: a test case with an <error> (not an empty file), and the
   * error on standard error */
  put("bad.pb", "08");
  EXPECT2(PB_NOTIME("--format junit " S3 "l.pb bad.pb"), 2,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites tests=\"1\" failures=\"0\" errors=\"1\">\n"
          "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
          "    <testcase classname=\"pbdiff\" name=\"bad.pb\">\n"
          "      <error message=\"bad.pb: truncated varint (field 1) at byte 1\" type=\"error\"/>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "</testsuites>\n",
          "pbdiff: bad.pb: truncated varint (field 1) at byte 1\n");
  EXPECT(PB("-q --format junit " S3 "l.pb r.pb"), 1, "");
  /* the message names the first three paths, then "..." */
  put("many.pb", "08 02 10 01 18 01 20 01");
  r = PB_NOTIME("--format junit " S3 "l.pb many.pb | grep -o 'message=\"[^\"]*\"'");
  EXPECT(r, 0, "message=\"4 differences: i32, i64, u32, ...\"\n");
  /* -r on a directory that is not there: still a document, one error case */
  tu_sh("mkdir E");
  EXPECT2(PB_NOTIME("-r --format junit " S3 "E missing"), 2,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites tests=\"1\" failures=\"0\" errors=\"1\">\n"
          "  <testsuite name=\"pbdiff\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
          "    <testcase classname=\"pbdiff\" name=\"missing\">\n"
          "      <error message=\"missing: cannot open directory: No such file or directory\" type=\"error\"/>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "</testsuites>\n",
          "pbdiff: missing: cannot open directory: No such file or directory\n");
  /* --stat is a text report (docs/ci.md) */
  EXPECT_STDERR(PB("--format junit --stat " S3 "l.pb r.pb"),
                "pbdiff: --stat is a text report; it does not go with --format junit\n"
                "Try 'pbdiff --help' for more information.\n");
  EXPECT_STDERR(PB("-r --format junit --stat " S3 "L L"),
                "pbdiff: --stat is a text report; it does not go with --format junit\n"
                "Try 'pbdiff --help' for more information.\n");
  /* text and JSON stay as they were */
  EXPECT(PB(S3 "l.pb r.pb"), 1, "i32: 1 -> 2\nstr: \"\" -> \"x\"\n");
  EXPECT(PB("--format text " S3 "l.pb one.pb"), 1, "i32: 1 -> 2\n");
  r = PB("--format json " S3 "l.pb one.pb");
  EXPECT(r, 1,
         "{\"equal\": false, \"left_name\": \"l.pb\", \"right_name\": \"one.pb\", "
         "\"differences\": [\n"
         "  {\"path\": \"i32\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, \"parent\": \"\", \"type\": \"sem3.M\"}\n"
         "]}\n");
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
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
