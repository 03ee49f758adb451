/* pbdiff tests — what a repository's .pbdiff and its file names can do to
 * git through pbdiff (docs/security.md), through real git: a .pbdiff with a
 * typo, or naming /dev/stdin, /dev/tty, /proc/self/fd/0 or a FIFO as its
 * schema, is shown by the diff driver and by textconv as a file that cannot
 * be read is, and git goes on (standalone, it stays an error, exit 2); a
 * file name holding a newline or an escape sequence is quoted as git quotes
 * it, in the header and in the "not compared" line alike.
 *
 * Each test makes a repository r in its directory holding shop.proto and
 * c.pb committed as v1 then v2 (shop.Inventory of testdata/git), with
 * HOME in the base directory and GIT_CONFIG_NOSYSTEM=1, so that no user or
 * system git config takes part. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

static char g_hex[2][8]; /* short blob ids of v1.pb and v2.pb */

/* printf into a malloc'd string. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  ck_assert(n >= 0 && (size_t)n < sizeof buf);
  return strdup(buf);
}

/* A shell command in the test's repository (r) with git's environment made
 * plain; the result stays valid until the next call. */
#define GIT_ENV                                                                               \
  "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_EXTERNAL_DIFF GIT_PAGER_IN_USE "            \
  "GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE NO_COLOR GIT_CONFIG_PARAMETERS; "                        \
  "export HOME=\"$B\" XDG_CONFIG_HOME=\"$B/.config\" GIT_CONFIG_NOSYSTEM=1 GIT_PAGER=cat "    \
  "PAGER=cat TERM=dumb LC_ALL=C; "
#define IN_REPO(cmd) tu_sh("B='%s'; " GIT_ENV "cd r && " cmd, tu_sandbox_base())

static void suite_setup(void) {
  tu_sandbox_open("gitconfig", NULL);
  const tu_Run *r = tu_sh("for v in v1 v2; do protoc --encode=shop.Inventory -I\"$R/testdata/git\" "
                          "\"$R/testdata/git/shop.proto\" <\"$R/testdata/git/$v.txtpb\" >$v.pb || "
                          "exit 1; done; printf '\\n\\005ab' >bad.pb; "
                          "git hash-object v1.pb | cut -c1-7; git hash-object v2.pb | cut -c1-7");
  ck_assert_msg(r->rc == 0 && strlen(r->out) == 16, "setup: %s", r->err);
  memcpy(g_hex[0], r->out, 7);
  memcpy(g_hex[1], r->out + 8, 7);
}
static void suite_teardown(void) { tu_sandbox_close(); }
static void test_setup(void) { tu_sandbox_test_begin(); }
static void test_teardown(void) { tu_sandbox_test_end(); }

/* The repository with `config` as its .pbdiff (printf text), *.pb set to
 * `how` ("diff=pbdiff" for the driver, "diff=pbcat" for textconv), and c.pb
 * committed as v1 then v2. */
static void make_repo(const char *config, const char *how) {
  const tu_Run *r = tu_sh(
      "B='%s'; " GIT_ENV
      "git init -q r && cd r && git config user.name T && git config user.email t@example.com && "
      "git config diff.pbdiff.command \"'$P'\" && git config diff.pbcat.textconv \"'$P' cat --textconv\" && "
      "cp \"$R/testdata/git/shop.proto\" . && printf '%s' >.pbdiff && echo '*.pb %s' >.gitattributes && "
      "cp \"$B/v1.pb\" c.pb && git add -A && git commit -qm v1 && cp \"$B/v2.pb\" c.pb && "
      "git commit -qam v2",
      tu_sandbox_base(), config, how);
  ck_assert_msg(r->rc == 0, "make_repo: %s", r->err);
}

/* The driver's output for c.pb v1 -> v2 when the config does not load:
 * git's header, the reason (the config file, its line, what is wrong), and
 * git's binary line. */
static char *driver_bad_config(const char *why) {
  return fmt("diff --pbdiff a/c.pb b/c.pb\n"
                     "index %s..%s 100644\n"
                     "pbdiff: not compared by meaning: %s/r/.pbdiff: line 2: %s\n"
                     "Binary files a/c.pb and b/c.pb differ\n",
                     g_hex[0], g_hex[1], tu_sandbox_dir(), why);
}

#define TYPO_CONFIG "[file \"*.pb\"]\\n\\tshema = shop.desc\\n\\ttype = shop.Inventory\\n"
#define TYPO_WHY "unknown key 'shema' (did you mean 'schema'?)"

START_TEST(config_typo_driver) {
  make_repo(TYPO_CONFIG, "diff=pbdiff");
  char *want = driver_bad_config(TYPO_WHY);
  EXPECT(IN_REPO("git diff HEAD~1 HEAD"), 0, want);
  /* git goes on: the second commit's diff and the first's (an added file) both show */
  const tu_Run *r = IN_REPO("git log -p --ext-diff --format=%%s");
  ck_assert_msg(r->rc == 0 && strstr(r->out, want) && strstr(r->out, "new file mode 100644\n") &&
                    strstr(r->out, "\nv1\n") && r->err[0] == '\0',
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  free(want);
  /* standalone, a bad config is still trouble */
  char *err = fmt("pbdiff: %s/r/.pbdiff: line 2: %s\n", tu_sandbox_dir(), TYPO_WHY);
  EXPECT2(IN_REPO("\"$P\" c.pb c.pb"), 2, "", err);
  EXPECT2(IN_REPO("\"$P\" cat c.pb"), 2, "", err);
  free(err);
}
END_TEST

START_TEST(config_typo_textconv) {
  make_repo(TYPO_CONFIG, "diff=pbcat");
  const tu_Run *r = IN_REPO("git diff HEAD~1 HEAD");
  char *line = fmt("\n # not read as protobuf: %s/r/.pbdiff: line 2: %s\n", tu_sandbox_dir(),
                   TYPO_WHY);
  ck_assert_msg(r->rc == 0 && strstr(r->out, line) && r->err[0] == '\0',
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  free(line);
}
END_TEST

/* A schema that is no regular file: refused before anything opens it, so
 * git does not wait on it.  Standard input is a FIFO whose writer stays (as
 * a terminal would): reading /dev/stdin would block until the timeout. */
#define HELD_STDIN(cmd)                                                                 \
  "rm -f ../in && mkfifo ../in && { sleep 60 >../in 2>/dev/null & s=$!; }; "              \
  "timeout 20 " cmd " <../in; rc=$?; kill $s; exit $rc"
static void expect_refused(const char *schema, const char *what) {
  char config[256], why[512];
  snprintf(config, sizeof config, "[file \"*.pb\"]\\n\\tschema = %s\\n\\ttype = shop.Inventory\\n",
           schema);
  snprintf(why, sizeof why, "schema %s is %s, not a regular file (a config names files to read whole)",
           schema, what);
  make_repo(config, "diff=pbdiff");
  char *want = driver_bad_config(why);
  EXPECT(IN_REPO(HELD_STDIN("git diff HEAD~1 HEAD")), 0, want);
  free(want);
  tu_sh("B='%s'; " GIT_ENV "cd r && echo '*.pb diff=pbcat' >.gitattributes", tu_sandbox_base());
  const tu_Run *r = IN_REPO(HELD_STDIN("git diff HEAD~1 HEAD"));
  ck_assert_msg(r->rc == 0 && strstr(r->out, "\n # not read as protobuf: ") && strstr(r->out, why),
                "%s: status %d\nstdout: [%s]\nstderr: [%s]", schema, r->rc, r->out, r->err);
}

START_TEST(config_schema_not_regular) {
  expect_refused("/dev/stdin", "a FIFO"); /* standard input: the pipe */
}
END_TEST

START_TEST(config_schema_proc_fd) {
  expect_refused("/proc/self/fd/0", "a FIFO");
}
END_TEST

START_TEST(config_schema_tty) {
  expect_refused("/dev/tty", "a character device");
}
END_TEST

START_TEST(config_schema_fifo) {
  /* a FIFO in the work tree, named by a symlink the repository could hold */
  tu_sh("mkfifo '%s/fifo' && ln -s '%s/fifo' schema.desc", tu_sandbox_dir(), tu_sandbox_dir());
  char path[512];
  snprintf(path, sizeof path, "%s/schema.desc", tu_sandbox_dir());
  expect_refused(path, "a FIFO");
}
END_TEST

/* A file name holding a newline and an escape sequence, whose contents are
 * not protobuf: its name is quoted in the "not compared" line as in the
 * header, so that no line of the output is the name's. */
START_TEST(driver_quotes_names) {
  make_repo("[file \"*.pb\"]\\n\\tproto = shop.proto\\n\\ttype = shop.Inventory\\n", "diff=pbdiff");
  const tu_Run *r =
      IN_REPO("f=$(printf 'x\\ny\\033[2J.pb') && cp \"$B/bad.pb\" \"$f\" && git add -A && "
              "git commit -qm bad && cp \"$B/v1.pb\" \"$f\" && git diff -- \"$f\" | tail -n +3");
  EXPECT(r, 0,
         "pbdiff: not compared by meaning: \"a/x\\ny\\033[2J.pb\": length 5 of field 1 runs past "
         "the end (only 2 left) at byte 1\n"
         "Binary files \"a/x\\ny\\033[2J.pb\" and \"b/x\\ny\\033[2J.pb\" differ\n");
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("git_config");
  TCase *t = tcase_create("git_config");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, config_typo_driver);
  tcase_add_test(t, config_typo_textconv);
  tcase_add_test(t, config_schema_not_regular);
  tcase_add_test(t, config_schema_proc_fd);
  tcase_add_test(t, config_schema_tty);
  tcase_add_test(t, config_schema_fifo);
  tcase_add_test(t, driver_quotes_names);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
