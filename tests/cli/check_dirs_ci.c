/* pbdiff tests — directories in CI use: the .pbdiff config's per-path
 * options, 1 000 files of which exactly 7 differ, and every recipe of
 * docs/ci.md run as written.  The tree output itself: check_dirs.c.
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

#include "pbdiff/pbdiff.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("dirs_ci", "proto/sem3.proto", "sem3.desc", "dirs/api.proto", "api.desc")






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

/* Drops every ` time="SECONDS"` attribute in place: JUnit's timings change
 * from run to run, everything else in the file must match the doc. */
static void strip_times(char *s) {
  char *w = s;
  for (const char *r = s; *r;) {
    if (strncmp(r, " time=\"", 7) == 0) {
      const char *q = r + 7;
      while (*q && *q != '"') q++;
      if (*q == '"') {
        r = q + 1;
        continue;
      }
    }
    *w++ = *r++;
  }
  *w = '\0';
}

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
  EXPECT(PB("-r --summary L R"), 1, "equal a.pb\ndiffer special/b.pb\n2 files: 1 equal, 1 differ\n");
  /* a section for a path with '/' matches the path under DIR1 ... */
  char more[1024];
  snprintf(more, sizeof more, "%s[file \"L/special/*.pb\"]\n    schema = %s/sem3.desc\n"
                              "    type = sem3.M\n    ignore = sem3.M.i32\n", cfg, tu_sandbox_base());
  put_bytes(".pbdiff", more, strlen(more));
  EXPECT(PB("-r --summary L R"), 0, "equal a.pb\nequal special/b.pb\n");
  EXPECT(PB("-r --summary R L"), 1, "equal a.pb\ndiffer special/b.pb\n2 files: 1 equal, 1 differ\n");
  /* ... not the one under DIR2 */
  snprintf(more, sizeof more, "%s[file \"R/special/*.pb\"]\n    schema = %s/sem3.desc\n"
                              "    type = sem3.M\n    ignore = sem3.M.i32\n", cfg, tu_sandbox_base());
  put_bytes(".pbdiff", more, strlen(more));
  EXPECT(PB("-r --summary L R"), 1, "equal a.pb\ndiffer special/b.pb\n2 files: 1 equal, 1 differ\n");
  /* the command line wins */
  EXPECT(PB("-r --summary --ignore sem3.M.i32 L R"), 0, "equal a.pb\nequal special/b.pb\n");
  /* no config: schemaless, packed and unpacked differ */
  EXPECT(PB("-r --summary --config /dev/null L R"), 1,
         "differ a.pb\ndiffer special/b.pb\n2 files: 2 differ\n");
}
END_TEST

/* ---- 1 000 files --------------------------------------------------------------- */


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
  en += tu_varint(entry + en, (uint64_t)i);
  if (!reencode) {
    b[n++] = 0x08, n += tu_varint(b + n, (uint64_t)v);
    b[n++] = 0x52, b[n++] = (uint8_t)sl, memcpy(b + n, str, (size_t)sl), n += (size_t)sl;
    uint8_t run[32];
    size_t rn = 0;
    for (int k = 0; k < 3; k++) rn += tu_varint(run + rn, (uint64_t)(i + k));
    b[n++] = 0x72, b[n++] = (uint8_t)rn, memcpy(b + n, run, rn), n += rn;
    b[n++] = 0x82, b[n++] = 0x01, b[n++] = (uint8_t)en, memcpy(b + n, entry, en), n += en;
  } else {
    b[n++] = 0x82, b[n++] = 0x01, b[n++] = (uint8_t)en, memcpy(b + n, entry, en), n += en;
    for (int k = 0; k < 3; k++) b[n++] = 0x70, n += tu_varint(b + n, (uint64_t)(i + k));
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
  pbd_Buf_AppendStr(&want, "1000 files: 993 equal, 7 differ\n");
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
                   "differ g9/p999.pb\n"
                   "1000 files: 993 equal, 7 differ\n");
  r = PB("-r -j 2 --summary " S3 "L R | grep -c '^equal '");
  ck_assert_str_eq(r->out, "993\n");
  /* the same with one thread, and as JSON */
  r = PB("-r -j 1 --format json " S3 "L R | /usr/bin/python3 -c 'import json, sys; "
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
                   "differ g9/p999.pb\n"
                   "1001 files: 992 equal, 7 differ, 1 only in L, 1 only in R\n");
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
  /* github: the annotations, and the step summary's table (and the blank
   * line that ends a section of the summary) */
  want = doc_block("output", "github");
  char *text = doc_block("recipe", "github");
  put_bytes("recipe.sh", text, strlen(text));
  free(text);
  EXPECT(tu_sh("GITHUB_STEP_SUMMARY=summary.md sh recipe.sh"), 1, want);
  free(want);
  want = doc_block("output", "github-summary");
  char *summary = slurp("summary.md");
  ck_assert(strlen(summary) == strlen(want) + 1 && summary[strlen(want)] == '\n');
  summary[strlen(want)] = '\0';
  ck_assert_str_eq(summary, want);
  free(summary);
  free(want);
  /* junit: the file is the documented one, and well-formed */
  EXPECT(recipe("junit"), 1, "");
  want = doc_block("output", "junit");
  char *got = slurp("pbdiff-junit.xml");
  ck_assert_msg(strstr(got, "<testcase classname=\"pbdiff\" name=\"a.pb\" time=\"") != NULL,
                "no time attribute: %s", got);
  strip_times(got);
  strip_times(want);
  ck_assert_str_eq(got, want);
  free(got);
  free(want);
  tu_put_junit_check();
  EXPECT(tu_sh("/usr/bin/python3 junit.py pbdiff-junit.xml"), 0,
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
  EXPECT(tu_sh("/usr/bin/python3 junit.py pbdiff-junit.xml"), 0,
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
  EXPECT(tu_sh("/usr/bin/python3 junit.py pbdiff-junit.xml"), 0,
         "tests=3 failures=0 errors=1\na.pb pass\nb.pb error\nold.pb pass\n");
  free(g_doc);
  g_doc = NULL;
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("dirs_ci");
  TCase *t = tcase_create("dirs_ci");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, config_matches_left_path);
  tcase_add_test(t, thousand_files);
  tcase_add_test(t, doc_recipes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
