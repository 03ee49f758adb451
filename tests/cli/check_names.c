/* pbdiff tests — names and payload text as they are printed (cli/names.c,
 * docs/security.md): a file name holding a newline or an escape sequence
 * is quoted as git quotes paths in every report and error line, so that it
 * cannot forge a line or drive the terminal; and `pbdiff noise` writes an
 * Any's type URL into its .pbdiff only as a value that reads back as
 * exactly the pattern found (or not at all, when no line can hold it). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("names", "proto/sem3.proto", "sem3.desc")

/* ---- file names ------------------------------------------------------------- */

/* d1 and d2: a.pb differs; "x\ny.pb" only in d1; "e\033[31m.pb" in both,
 * not protobuf. */
static void hostile_dirs(void) {
  put("d1/a.pb", "08 01");
  put("d2/a.pb", "08 02");
  put("d1/x\ny.pb", "08 01");
  put("d1/e\033[31m.pb", "0a 05 61 62");
  put("d2/e\033[31m.pb", "0a 05 61 62");
}

#define BAD_WHY "length 5 of field 1 runs past the end (only 2 left) at byte 1"

START_TEST(names_in_dirs) {
  hostile_dirs();
  EXPECT2(PB("-r d1 d2"), 2,
          "--- d1/a.pb\n"
          "+++ d2/a.pb\n"
          "1[0]: 1 -> 2\n"
          "Only in d1: \"x\\ny.pb\"\n"
          "3 files: 1 differ, 1 only in d1, 1 error\n",
          "pbdiff: \"d1/e\\033[31m.pb\": " BAD_WHY "\n");
  EXPECT2(PB("-r --summary d1 d2"), 2,
          "differ a.pb\n"
          "error \"e\\033[31m.pb\": \"d1/e\\033[31m.pb\": " BAD_WHY "\n"
          "only-left \"x\\ny.pb\"\n"
          "3 files: 1 differ, 1 only in d1, 1 error\n",
          "pbdiff: \"d1/e\\033[31m.pb\": " BAD_WHY "\n");
  EXPECT2(PB("-r --format paths d1 d2"), 2,
          "a.pb\tchanged 1[0]\n"
          "\"e\\033[31m.pb\"\terror\n"
          "\"x\\ny.pb\"\tonly-left\n",
          "pbdiff: \"d1/e\\033[31m.pb\": " BAD_WHY "\n");
}
END_TEST

START_TEST(names_in_pairs) {
  hostile_dirs();
  /* one error line, the name quoted */
  EXPECT_STDERR(PB("\"d1/e$(printf '\\033')[31m.pb\" d1/a.pb"),
                "pbdiff: \"d1/e\\033[31m.pb\": " BAD_WHY "\n");
  /* the report's --- and +++ lines (-L names them) */
  EXPECT(PB("-L \"$(printf 'l\\nr')\" -L 'caf\303\251' d1/a.pb d2/a.pb"), 1,
         "--- \"l\\nr\"\n"
         "+++ \"caf\\303\\251\"\n"
         "1[0]: 1 -> 2\n");
  /* hash's lines name the file as sha256sum would need it quoted */
  const Run *r = PB("hash \"d1/$(printf 'x\\ny.pb')\"");
  ck_assert_msg(r->rc == 0 && strstr(r->out, "  \"d1/x\\ny.pb\"\n") && !strchr(strchr(r->out, '\n') + 1, '\n'),
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  /* a config file's name in its errors */
  tu_sh("mkdir -p \"$(printf 'c\\nd')\" && printf 'bogus\\n' > \"$(printf 'c\\nd')/.pbdiff\"");
  EXPECT_STDERR(PB("--config \"$(printf 'c\\nd')/.pbdiff\" d1/a.pb d2/a.pb"),
                "pbdiff: \"c\\nd/.pbdiff\": line 1: 'bogus' outside a [file \"GLOB\"] section\n");
}
END_TEST

/* ---- pbdiff noise and the type URLs of Any ------------------------------------ */

static size_t varint(uint8_t *p, uint64_t v) { return tu_varint(p, v); }

/* A length-delimited field into out at *n. */
static void put_len(uint8_t *out, size_t *n, uint32_t tag, const void *data, size_t len) {
  *n += varint(out + *n, tag);
  *n += varint(out + *n, len);
  memcpy(out + *n, data, len);
  *n += len;
}

/* A stream record of sem3.M: i32 = key, any = {type_url: url, value: Inner{a}}. */
static size_t any_record(uint8_t *out, int key, const char *url, int a) {
  uint8_t inner[2] = {0x08, (uint8_t)a}, any[512], msg[600];
  size_t na = 0, nm = 0, n = 0;
  put_len(any, &na, 0x0a, url, strlen(url));
  put_len(any, &na, 0x12, inner, sizeof inner);
  msg[nm++] = 0x08;
  msg[nm++] = (uint8_t)key;
  put_len(msg, &nm, (22 << 3) | 2, any, na);
  n += varint(out, nm);
  memcpy(out + n, msg, nm);
  return n + nm;
}

/* A URL a config line would misread (a quote, a backslash, comment marks,
 * a leading space), and one that would add lines of its own. */
#define URL_ODD " x#;\"\\/sem3.Inner"
#define URL_LINES "x\n[file \"*\"]\n\tschema = /dev/stdin\n/sem3.Inner"

static void noise_runs(void) {
  uint8_t run[2][1200];
  for (int v = 0; v < 2; v++) {
    size_t n = any_record(run[v], 1, URL_ODD, 1 + v);
    n += any_record(run[v] + n, 2, URL_LINES, 1 + v);
    tu_put_bytes(v ? "run2.bin" : "run1.bin", run[v], n);
  }
}

#define NOISE S3 "--framing delimited --record-key i32 "

START_TEST(noise_round_trip) {
  noise_runs();
  EXPECT(PB("noise " NOISE "run1.bin run2.bin"), 0,
         "# pbdiff noise: what differs between two runs of one version.\n"
         "# records: 2 in LEFT, 2 in RIGHT; 2 paired: 0 equal, 2 differ; 0 only in LEFT, 0 only in RIGHT\n"
         "[file \"*\"]\n"
         "\t# 1 of 2 paired records (1 changed)\n"
         "\tignore = \"any.[ x#;\\\"\\\\/sem3.Inner].a\"\n"
         "\t# 1 of 2 paired records (1 changed)\n"
         "\t# not written: the path holds a control character: "
         "any.[x\\n[file \"*\"]\\n\\tschema = /dev/stdin\\n/sem3.Inner].a\n");
  /* read back by the .pbdiff parser: exactly the pattern found, alone */
  tu_sh("\"$P\" noise " NOISE "run1.bin run2.bin > noise.pbdiff");
  char path[1024], input[1024];
  snprintf(path, sizeof path, "%s/noise.pbdiff", tu_sandbox_dir());
  snprintf(input, sizeof input, "%s/run1.bin", tu_sandbox_dir());
  pbd_CliOptions o;
  memset(&o, 0, sizeof o);
  o.config = path;
  pbd_CliError e = {0};
  pbd_Config *cfg = pbd_Config_Load(&o, &e);
  ck_assert_msg(cfg != NULL, "%s", e.msg);
  pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, input);
  ck_assert_uint_eq(eff.ignores.n, 1);
  ck_assert_str_eq(eff.ignores.v[0], "any.[" URL_ODD "].a");
  pbd_Cli_FreeApplied(&eff);
  pbd_Config_Free(cfg);
  /* and it ignores what it says: only the record whose path no line holds
   * differs (its type URL escaped in the report, on one line) */
  EXPECT(PB(NOISE "--config noise.pbdiff run1.bin run2.bin"), 1,
         "[i32=2].any.[x\\n[file \"*\"]\\n\\tschema = /dev/stdin\\n/sem3.Inner] (sem3.Inner):\n"
         "  a: 1 -> 2\n"
         "records: 2 in LEFT, 2 in RIGHT; 2 paired: 1 equal, 1 differ; 0 only in LEFT, 0 only in RIGHT\n");
}
END_TEST

START_TEST(corpus_stat_escapes) {
  noise_runs();
  /* the text and paths reports of the streams: the type URL escaped */
  EXPECT(PB(S3 "--framing delimited run1.bin run2.bin"), 1,
         "[0].any.[ x#;\"\\/sem3.Inner] (sem3.Inner):\n"
         "  a: 1 -> 2\n"
         "[1].any.[x\\n[file \"*\"]\\n\\tschema = /dev/stdin\\n/sem3.Inner] (sem3.Inner):\n"
         "  a: 1 -> 2\n");
  EXPECT(PB(S3 "--framing delimited --format paths run1.bin run2.bin"), 1,
         "changed [0].any.[ x#;\"\\/sem3.Inner].a\n"
         "changed [1].any.[x\\n[file \"*\"]\\n\\tschema = /dev/stdin\\n/sem3.Inner].a\n");
  EXPECT(PB(NOISE "--stat run1.bin run2.bin"), 1,
         "  any.[ x#;\"\\/sem3.Inner].a: 1 record (1 changed), e.g. [i32=1]\n"
         "  any.[x\\n[file \"*\"]\\n\\tschema = /dev/stdin\\n/sem3.Inner].a: 1 record (1 changed), "
         "e.g. [i32=2]\n"
         "records: 2 in LEFT, 2 in RIGHT; 2 paired: 0 equal, 2 differ; 0 only in LEFT, 0 only in RIGHT\n");
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("names");
  TCase *t = tcase_create("names");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, names_in_dirs);
  tcase_add_test(t, names_in_pairs);
  tcase_add_test(t, noise_round_trip);
  tcase_add_test(t, corpus_stat_escapes);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
