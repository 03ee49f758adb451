/* pbdiff tests — git integration (docs/git.md), through real git: each test
 * makes a repository in a temporary directory, commits two versions of a
 * payload (testdata/git/v1.txtpb, v2.txtpb encoded by protoc as
 * shop.Inventory of testdata/git/shop.proto) and checks exactly what
 * `git diff`, `git log -p`, `git difftool` and textconv print through
 * pbdiff: the diff driver (git's seven external-diff arguments), the
 * difftool (two arguments) and `pbdiff cat` as textconv.
 *
 * Commands run with HOME in the run's directory and GIT_CONFIG_NOSYSTEM=1,
 * so that no user or system git config takes part, and with the shell
 * variables
 *   $P  pbdiff under test   $R  the source root   $B  the run's directory
 * $B holds v1.pb, v2.pb, v2r.pb (v2 in other bytes: its parts in the other
 * order) and bad.pb (a truncated string). */
#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "testutil.h"
#include "tu_cli.h"

/* ---- fixtures -------------------------------------------------------------- */

/* The sandbox of testutil.h: its base directory is $B (payloads, HOME), each
 * test's repository is r in the test's directory. */
static char g_hex[4][8];       /* short blob ids of v1, v2, v2r, bad */

/* Runs the shell command (printf-formatted) in `dir` with the environment
 * described at the top; the result stays valid until the next call. */
static const Run *sh_in(const char *dir, const char *fmt, va_list ap) {
  char user[6144], cmd[8192];
  int n = vsnprintf(user, sizeof user, fmt, ap);
  ck_assert(n >= 0 && (size_t)n < sizeof user);
  const char *base = tu_sandbox_base();
  n = snprintf(cmd, sizeof cmd,
               "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_EXTERNAL_DIFF GIT_PAGER_IN_USE "
               "GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE NO_COLOR GIT_CONFIG_PARAMETERS; "
               "export HOME='%s' XDG_CONFIG_HOME='%s/.config' GIT_CONFIG_NOSYSTEM=1 "
               "GIT_PAGER=cat PAGER=cat TERM=dumb LC_ALL=C P R B='%s' && "
               "cd '%s' && %s",
               base, base, base, dir, user);
  ck_assert(n >= 0 && (size_t)n < sizeof cmd);
  return tu_sh("%s", cmd);
}

/* In the test's repository. */
static const Run *sh(const char *fmt, ...) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/r", tu_sandbox_dir());
  va_list ap;
  va_start(ap, fmt);
  const Run *r = sh_in(dir, fmt, ap);
  va_end(ap);
  return r;
}

static const Run *sh_base(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const Run *r = sh_in(tu_sandbox_base(), fmt, ap);
  va_end(ap);
  return r;
}

#define OK(r)                                                                                   \
  do {                                                                                          \
    const Run *r_ = (r);                                                                        \
    ck_assert_msg(r_->rc == 0, "status %d\nstdout: [%.1500s]\nstderr: [%.1500s]", r_->rc,       \
                  r_->out, r_->err);                                                            \
  } while (0)

/* git died (status 128): nothing on stdout, stderr exactly the given text. */
#define EXPECT_STDERR_128(r, stderr_text)                                                       \
  do {                                                                                          \
    const Run *r_ = (r);                                                                        \
    ck_assert_msg(r_->rc == 128 && r_->out[0] == '\0' && strcmp(r_->err, (stderr_text)) == 0,   \
                  "status %d (want 128)\nstdout: [%.1500s]\nstderr: [%.1500s]\n  want: [%s]",  \
                  r_->rc, r_->out, r_->err, (stderr_text));                                     \
  } while (0)

/* Replaces {V1} {V2} {V2R} {BAD} by the payloads' short blob ids and {B} by
 * the run's directory (malloc'd). */
static char *expand(const char *tmpl) {
  static const char *const kTokens[] = {"{V1}", "{V2}", "{V2R}", "{BAD}"};
  pbd_Buf b = {0};
  pbd_Buf_AppendStr(&b, "");
  for (const char *p = tmpl; *p;) {
    bool done = false;
    for (int i = 0; i < 4 && !done; i++)
      if (!strncmp(p, kTokens[i], strlen(kTokens[i]))) {
        pbd_Buf_AppendStr(&b, g_hex[i]);
        p += strlen(kTokens[i]);
        done = true;
      }
    if (!done && !strncmp(p, "{B}", 3)) {
      pbd_Buf_AppendStr(&b, tu_sandbox_base());
      p += 3;
      done = true;
    }
    if (!done) pbd_Buf_AppendChar(&b, *p++);
  }
  ck_assert(!b.oom);
  return b.data;
}

#define EXPECT_X(r, status, tmpl)  \
  do {                             \
    char *x_ = expand(tmpl);       \
    EXPECT(r, status, x_);         \
    free(x_);                      \
  } while (0)

static void encode(const char *name) {
  OK(sh_base("protoc --encode=shop.Inventory -I\"$R/testdata/git\" \"$R/testdata/git/shop.proto\" "
             "<\"$R/testdata/git/%s.txtpb\" >%s.pb",
             name, name));
}

/* Unchecked (runs once, in the parent): the run's directory and payloads. */
static void suite_setup(void) {
  tu_sandbox_open("git", NULL);
  encode("v1");
  encode("v2");
  encode("v2_tail");
  encode("v2_items");
  /* v2 in other bytes: items first, then the rest (messages merge) */
  OK(sh_base("cat v2_items.pb v2_tail.pb >v2r.pb && ! cmp -s v2.pb v2r.pb && "
             "printf '\\n\\005ab' >bad.pb && cp \"$R/testdata/git/shop.proto\" ."));
  const char *names[4] = {"v1.pb", "v2.pb", "v2r.pb", "bad.pb"};
  for (int i = 0; i < 4; i++) {
    const Run *r = sh_base("git hash-object %s | cut -c1-7", names[i]);
    OK(r);
    ck_assert_uint_eq(strlen(r->out), 8);
    memcpy(g_hex[i], r->out, 7);
    g_hex[i][7] = '\0';
  }
}

static void suite_teardown(void) { tu_sandbox_close(); }
static void test_setup(void) { tu_sandbox_test_begin(); }
static void test_teardown(void) { tu_sandbox_test_end(); }

/* The repository: shop.proto, a .pbdiff config with `pbdiff_config` (NULL:
 * none), a .gitattributes line `attributes` (NULL: none), and FILE (c.pb
 * when NULL) committed as v1 ("v1") and then v2 ("v2"). */
static void make_repo(const char *pbdiff_config, const char *attributes, const char *file) {
  OK(sh_base("cd '%s' && git init -q r && cd r && git config user.name Tester && "
             "git config user.email tester@example.com && cp \"$B/shop.proto\" . && "
             "%s%s%s %s%s%s "
             "f='%s' && mkdir -p \"$(dirname \"$f\")\" && cp \"$B/v1.pb\" \"$f\" && "
             "git add -A && git commit -qm v1 && cp \"$B/v2.pb\" \"$f\" && git commit -qam v2",
             tu_sandbox_dir(), pbdiff_config ? "printf '" : "", pbdiff_config ? pbdiff_config : "",
             pbdiff_config ? "' >.pbdiff &&" : "", attributes ? "echo '" : "",
             attributes ? attributes : "", attributes ? "' >.gitattributes &&" : "",
             file ? file : "c.pb"));
}

/* The usual setup: `[file "*.pb"]` maps to shop.Inventory; the driver is
 * configured as docs/git.md says. */
#define CONFIG_NAME_GLOB "[file \"*.pb\"]\\n\\tproto = shop.proto\\n\\ttype = shop.Inventory\\n"

static void make_driver_repo(void) {
  make_repo(CONFIG_NAME_GLOB, "*.pb diff=pbdiff", NULL);
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
}

/* v1 -> v2 as the driver reports it for c.pb */
#define V1_V2_BODY                                        \
  "revision: 1 -> 2\n"                                    \
  "labels[\"region\"]: \"eu\" -> \"us\"\n"                \
  "items[1] (shop.Item):\n"                               \
  "  count: 5 -> 7\n"                                     \
  "items[2]: added { sku: \"plum\" count: 1 }\n"
#define V1_V2_DIFF                                        \
  "diff --pbdiff a/c.pb b/c.pb\n"                         \
  "index {V1}..{V2} 100644\n"                             \
  "--- a/c.pb\n"                                          \
  "+++ b/c.pb\n" V1_V2_BODY

/* ---- 1. the diff driver ----------------------------------------------------- */

START_TEST(driver_changed) {
  make_driver_repo();
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  /* git runs the driver at the top of the work tree: the .pbdiff there is
   * found, and PATH is the path in the repository */
  EXPECT_X(sh("mkdir -p sub && cd sub && git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  /* the work tree against HEAD: git passes the file itself, with zeros for
   * its id; the header shows the id git would give it */
  EXPECT_X(sh("cp \"$B/v1.pb\" c.pb && git diff"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {V2}..{V1} 100644\n"
           "--- a/c.pb\n"
           "+++ b/c.pb\n"
           "revision: 2 -> 1\n"
           "labels[\"region\"]: \"us\" -> \"eu\"\n"
           "items[1] (shop.Item):\n"
           "  count: 7 -> 5\n"
           "items[2]: removed { sku: \"plum\" count: 1 }\n");
  /* git diff --stat and --no-ext-diff do not run the driver */
  EXPECT(sh("git diff --no-ext-diff HEAD~1 HEAD | head -1"), 0, "diff --git a/c.pb b/c.pb\n");
}
END_TEST

START_TEST(driver_log_ext_diff) {
  make_driver_repo();
  /* git log and git show run an external driver only with --ext-diff */
  EXPECT_X(sh("git log -p --ext-diff --format=%%s -1"), 0, "v2\n\n" V1_V2_DIFF);
  EXPECT_X(sh("git show --ext-diff --format=%%s HEAD"), 0, "v2\n\n" V1_V2_DIFF);
  EXPECT(sh("git log -p --format=%%s -1 | grep -c '^diff --git a/c.pb b/c.pb$'"), 0, "1\n");
}
END_TEST

START_TEST(driver_equal_reencoded) {
  make_driver_repo();
  /* v2 re-encoded: git lists the file (its bytes changed), pbdiff says why */
  EXPECT_X(sh("cp \"$B/v2r.pb\" c.pb && git diff"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {V2}..{V2R} 100644\n"
           "--- a/c.pb\n"
           "+++ b/c.pb\n"
           "(equal in meaning; the bytes differ)\n");
  /* committed, in history */
  OK(sh("git commit -qam v2r"));
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {V2}..{V2R} 100644\n"
           "--- a/c.pb\n"
           "+++ b/c.pb\n"
           "(equal in meaning; the bytes differ)\n");
  /* options on the command: --explain says how the bytes differ */
  OK(sh("git config diff.pbdiff.command \"'$P' --explain\""));
  const Run *r = sh("git diff HEAD~1 HEAD");
  char *want = expand("diff --pbdiff a/c.pb b/c.pb\n"
                      "index {V2}..{V2R} 100644\n"
                      "--- a/c.pb\n"
                      "+++ b/c.pb\n"
                      "equal in meaning, but the bytes differ:\n"
                      "  field order:");
  ck_assert_msg(r->rc == 0 && !strncmp(r->out, want, strlen(want)) && !r->err[0],
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  free(want);
}
END_TEST

START_TEST(driver_added_deleted) {
  make_driver_repo();
  OK(sh("git rm -q c.pb && cp \"$B/v1.pb\" n.pb && git add n.pb && git commit -qm swap"));
  /* an added or deleted file is compared with an empty message */
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "deleted file mode 100644\n"
           "index {V2}..0000000\n"
           "--- a/c.pb\n"
           "+++ /dev/null\n"
           "store: \"north\" -> \"\"\n"
           "revision: 2 -> 0\n"
           "state: OPEN -> STATE_UNSPECIFIED\n"
           "labels[\"region\"]: removed \"us\"\n"
           "items[0]: removed { sku: \"apple\" count: 3 }\n"
           "items[1]: removed { sku: \"pear\" count: 7 tags: \"fruit\" }\n"
           "items[2]: removed { sku: \"plum\" count: 1 }\n"
           "diff --pbdiff a/n.pb b/n.pb\n"
           "new file mode 100644\n"
           "index 0000000..{V1}\n"
           "--- /dev/null\n"
           "+++ b/n.pb\n"
           "store: \"\" -> \"north\"\n"
           "revision: 0 -> 1\n"
           "state: STATE_UNSPECIFIED -> OPEN\n"
           "labels[\"region\"]: added \"eu\"\n"
           "items[0]: added { sku: \"apple\" count: 3 }\n"
           "items[1]: added { sku: \"pear\" count: 5 tags: \"fruit\" }\n");
  /* an empty file is an empty message: nothing to show but the header */
  EXPECT(sh(": >e.pb && git add e.pb && git diff --cached"), 0,
         "diff --pbdiff a/e.pb b/e.pb\n"
         "new file mode 100644\n"
         "index 0000000..e69de29\n");
}
END_TEST

START_TEST(driver_mode_change) {
  make_driver_repo();
  /* the same bytes: the mode lines alone */
  EXPECT(sh("chmod +x c.pb && git diff"), 0,
         "diff --pbdiff a/c.pb b/c.pb\n"
         "old mode 100644\n"
         "new mode 100755\n");
  EXPECT_X(sh("cp \"$B/v1.pb\" c.pb && git diff"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "old mode 100644\n"
           "new mode 100755\n"
           "index {V2}..{V1}\n"
           "--- a/c.pb\n"
           "+++ b/c.pb\n"
           "revision: 2 -> 1\n"
           "labels[\"region\"]: \"us\" -> \"eu\"\n"
           "items[1] (shop.Item):\n"
           "  count: 7 -> 5\n"
           "items[2]: removed { sku: \"plum\" count: 1 }\n");
}
END_TEST

START_TEST(driver_malformed) {
  make_driver_repo();
  /* a side that is not protobuf is shown as git shows a binary file, and
   * the driver exits 0 so that git goes on */
  EXPECT_X(sh("cp \"$B/bad.pb\" c.pb && git diff"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {V2}..{BAD} 100644\n"
           "pbdiff: not compared by meaning: b/c.pb: length 5 of field 1 runs past the end "
           "(only 2 left) at byte 1\n"
           "Binary files a/c.pb and b/c.pb differ\n");
  /* on the old side, in history; and a Git LFS pointer, and a whole
   * git log -p over them completes */
  OK(sh("git commit -qam bad && cp \"$B/v1.pb\" c.pb && git commit -qam v1"));
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {BAD}..{V1} 100644\n"
           "pbdiff: not compared by meaning: a/c.pb: length 5 of field 1 runs past the end "
           "(only 2 left) at byte 1\n"
           "Binary files a/c.pb and b/c.pb differ\n");
  OK(sh("printf 'version https://git-lfs.github.com/spec/v1\\noid sha256:4d7a\\nsize 9\\n' > c.pb"
        " && git commit -qam lfs"));
  const Run *r = sh("git log -p --ext-diff --format=%%s");
  ck_assert_msg(r->rc == 0 && r->err[0] == '\0', "status %d: %s", r->rc, r->err);
  ck_assert_ptr_nonnull(strstr(r->out, "lfs\n\ndiff --pbdiff a/c.pb b/c.pb\n"));
  ck_assert_ptr_nonnull(strstr(
      r->out, "pbdiff: not compared by meaning: b/c.pb is a Git LFS pointer (fetch the object: "
              "git lfs pull)\nBinary files a/c.pb and b/c.pb differ\n"));
  ck_assert_ptr_nonnull(strstr(r->out, "v2\n\ndiff --pbdiff a/c.pb b/c.pb\n")); /* went on */
  /* trusting the exit code: bytes that differ and were not read differ */
  EXPECT_STDERR_128(sh("GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE=true git diff --quiet HEAD~1 HEAD ||"
                       " exit 128"), "");
}
END_TEST

START_TEST(driver_color) {
  make_driver_repo();
#define META(s) "\033[1m" s "\033[m\n"
  static const char kColored[] =
      META("diff --pbdiff a/c.pb b/c.pb")
      META("index {V1}..{V2} 100644")
      META("--- a/c.pb")
      META("+++ b/c.pb")
      "revision: \033[31m1\033[m -> \033[32m2\033[m\n"
      "labels[\"region\"]: \033[31m\"eu\"\033[m -> \033[32m\"us\"\033[m\n"
      "\033[1mitems[1] (shop.Item):\033[m\n"
      "  count: \033[31m5\033[m -> \033[32m7\033[m\n"
      "items[2]: \033[32madded { sku: \"plum\" count: 1 }\033[m\n";
  /* git's pager is in use: colour as git colours (color.diff, color.ui) */
  EXPECT_X(sh("GIT_PAGER_IN_USE=true TERM=xterm git diff HEAD~1 HEAD"), 0, kColored);
  EXPECT_X(sh("GIT_PAGER_IN_USE=true TERM=xterm git -c color.diff=false diff HEAD~1 HEAD"), 0,
           V1_V2_DIFF);
  EXPECT_X(sh("GIT_PAGER_IN_USE=true TERM=xterm git -c color.ui=never diff HEAD~1 HEAD"), 0,
           V1_V2_DIFF);
  EXPECT_X(sh("GIT_PAGER_IN_USE=true TERM=xterm NO_COLOR=1 git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  /* not a terminal, no pager: none, unless the command asks */
  EXPECT_X(sh("TERM=xterm git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  EXPECT_X(sh("git -c diff.pbdiff.command=\"'$P' --color=always\" diff HEAD~1 HEAD"), 0, kColored);
  EXPECT_X(sh("GIT_PAGER_IN_USE=true TERM=xterm git -c diff.pbdiff.command=\"'$P' --color=never\" "
              "diff HEAD~1 HEAD"),
           0, V1_V2_DIFF);
#undef META
}
END_TEST

START_TEST(driver_schema_on_command) {
  /* no .pbdiff: the schema goes on the command (run at the top of the work
   * tree, so a relative --proto names a file of the repository) */
  make_repo(NULL, "*.pb diff=pbdiff", NULL);
  OK(sh("git config diff.pbdiff.command \"'$P' --proto shop.proto -t shop.Inventory\""));
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  EXPECT_X(sh("cd / && git -C '%s/r' diff HEAD~1 HEAD", tu_sandbox_dir()), 0, V1_V2_DIFF);
  /* and no schema at all: fields by number */
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "index {V1}..{V2} 100644\n"
           "--- a/c.pb\n"
           "+++ b/c.pb\n"
           "2[0]: 1 -> 2\n"
           "4[0]:\n"
           "  2[0]: \"eu\" -> \"us\"\n"
           "5[1]:\n"
           "  2[0]: 5 -> 7\n"
           "5[2]: added { 1: \"plum\" 2: 1 }\n");
}
END_TEST

START_TEST(driver_config_path) {
  /* a glob with a directory matches the path in the repository, not git's
   * temporary file */
  make_repo("[file \"data/*.pb\"]\\n\\tproto = shop.proto\\n\\ttype = shop.Inventory\\n",
            "*.pb diff=pbdiff", "data/c.pb");
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
  static const char kWant[] =
      "diff --pbdiff a/data/c.pb b/data/c.pb\n"
      "index {V1}..{V2} 100644\n"
      "--- a/data/c.pb\n"
      "+++ b/data/c.pb\n" V1_V2_BODY;
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0, kWant);
  EXPECT_X(sh("cd data && git diff HEAD~1 HEAD"), 0, kWant);
}
END_TEST

START_TEST(driver_json) {
  /* --format json: one object per file, naming both sides; no text header */
  make_driver_repo();
  OK(sh("git config diff.pbdiff.command \"'$P' --format json\""));
  const Run *r = sh("git diff HEAD~1 HEAD");
  static const char kFirst[] =
      "{\"equal\": false, \"left_name\": \"a/c.pb\", \"right_name\": \"b/c.pb\", \"differences\": [\n"
      "  {\"path\": \"revision\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, ";
  ck_assert_msg(r->rc == 0 && !strncmp(r->out, kFirst, strlen(kFirst)) &&
                    strstr(r->out, "{\"path\": \"items[2]\", \"kind\": \"added\"") &&
                    !strcmp(r->out + strlen(r->out) - 3, "]}\n") && !r->err[0],
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  EXPECT(sh("cp \"$B/v2r.pb\" c.pb && git diff"), 0,
         "{\"equal\": true, \"left_name\": \"a/c.pb\", \"right_name\": \"b/c.pb\", \"differences\": []}\n");
}
END_TEST

START_TEST(driver_external_diff_env) {
  /* GIT_EXTERNAL_DIFF instead of an attribute: every file goes to pbdiff */
  make_repo(CONFIG_NAME_GLOB, NULL, NULL);
  EXPECT_X(sh("GIT_EXTERNAL_DIFF=\"$P\" git diff HEAD~1 HEAD"), 0, V1_V2_DIFF);
  /* exit status: 0 equal or different (git dies on anything else), 2 on
   * trouble; 1 for different where git trusts it (git 2.46 and later) */
  char args[512];
  snprintf(args, sizeof args,
           "c.pb \"$B/v1.pb\" 0123456789abcdef0123456789abcdef01234567 100644 "
           "\"$B/v2.pb\" 89abcdef0123456789abcdef0123456789abcdef 100644");
  ck_assert_int_eq(sh("\"$P\" %s", args)->rc, 0);
  ck_assert_int_eq(sh("GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE=true \"$P\" %s", args)->rc, 1);
  ck_assert_int_eq(sh("GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE=false \"$P\" %s", args)->rc, 0);
  ck_assert_int_eq(
      sh("GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE=1 \"$P\" c.pb \"$B/v2.pb\" 0123456 100644 "
         "\"$B/v2r.pb\" 89abcde 100644")->rc,
      0);
  EXPECT_X(sh("\"$P\" c.pb /dev/null . . \"$B/v2.pb\" 89abcdef 100644 | head -3"), 0,
           "diff --pbdiff a/c.pb b/c.pb\n"
           "new file mode 100644\n"
           "index 0000000..89abcde\n");
}
END_TEST

#define ZEROS "0000000000000000000000000000000000000000"

START_TEST(driver_bad_operands) {
  make_driver_repo();
  const Run *r = sh("\"$P\" a b zz 100644 e f 100644");
  ck_assert_msg(r->rc == 2 && r->out[0] == '\0' &&
                    !strcmp(r->err,
                            "pbdiff: 7 operands are git's external-diff form (PATH OLD-FILE "
                            "OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE); 'zz' is not an object id\n"
                            "Try 'pbdiff --help' for more information.\n"),
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  r = sh("\"$P\" c.pb c.pb 1234abc 100644 c.pb 1234abc rw-r--r--");
  ck_assert_msg(r->rc == 2 && strstr(r->err, "'rw-r--r--' is not a file mode\n"), "[%s]", r->err);
  r = sh("\"$P\" c.pb /dev/null . . /dev/null . .");
  ck_assert_msg(r->rc == 2 && strstr(r->err, "); OLD-HEX and NEW-HEX cannot both be '.'\n"), "[%s]",
                r->err);
  /* operands naming devices end (neither git hash-object nor the byte
   * comparison reads /dev/zero without end: a fuzzing finding) */
  r = sh("timeout 60 \"$P\" --max-input-bytes 4096 c.pb /dev/zero " ZEROS " 100644 /dev/zero "
         ZEROS " 100644");
  ck_assert_msg(r->rc == 0 && strstr(r->out, "Binary files a/c.pb and b/c.pb differ\n") &&
                    strstr(r->out, "over 4096 bytes"),
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
}
END_TEST

START_TEST(driver_quoted_paths) {
  /* names in the header as git writes them: quoted when unusual, a tab
   * after ---/+++ names with a space */
  make_driver_repo();
  OK(sh("cp \"$B/v2.pb\" 'sp ace.pb' && cp \"$B/v2.pb\" \"$(printf 'caf\\303\\251.pb')\" && "
        "cp \"$B/v2.pb\" 'q\"t.pb' && git add -A && git commit -qm names && "
        "cp \"$B/v2r.pb\" 'sp ace.pb' && cp \"$B/v2r.pb\" \"$(printf 'caf\\303\\251.pb')\" && "
        "cp \"$B/v2r.pb\" 'q\"t.pb'"));
  /* git's own header lines (--text: with the ---/+++ lines), with
   * "diff --git" for "diff --pbdiff" */
  const Run *r = sh("git diff --no-ext-diff --text -- '*.pb' ':!c.pb' | grep -a -E '^(diff|index|---|[+][+][+]) ' | "
        "sed 's/^diff --git/diff --pbdiff/' >../want.txt && "
        "git diff -- '*.pb' ':!c.pb' >../got.txt && grep -c '^(equal in meaning' ../got.txt && "
        "grep -v '^(equal' ../got.txt | cmp - ../want.txt && grep -c -P '^[-+]{3} .*\\t$' ../got.txt");
  OK(r);
  ck_assert_str_eq(r->out, "3\n2\n");
}
END_TEST

START_TEST(driver_rename) {
  make_driver_repo();
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
  /* a rename: git's similarity and rename lines; the same bytes, no diff */
  EXPECT(sh("git mv c.pb d.pb && git diff --cached"), 0,
         "diff --pbdiff a/c.pb b/d.pb\n"
         "similarity index 100%\n"
         "rename from c.pb\n"
         "rename to d.pb\n");
  /* renamed and re-encoded: the index line and the verdict */
  EXPECT_X(sh("cp \"$B/v2r.pb\" d.pb && git add d.pb && git diff --cached -M50%%"), 0,
           "diff --pbdiff a/c.pb b/d.pb\n"
           "similarity index 65%\n"
           "rename from c.pb\n"
           "rename to d.pb\n"
           "index {V2}..{V2R} 100644\n"
           "--- a/c.pb\n"
           "+++ b/d.pb\n"
           "(equal in meaning; the bytes differ)\n");
}
END_TEST

START_TEST(driver_unmerged) {
  make_driver_repo();
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
  OK(sh("git checkout -qb side HEAD~1 && cp \"$B/v2r.pb\" c.pb && git commit -qam side && "
        "git checkout -q - && ! git merge -q side >/dev/null 2>&1"));
  /* git passes the path alone */
  EXPECT(sh("git diff --cached"), 0, "* Unmerged path c.pb\n");
  EXPECT(sh("git -c diff.pbdiff.command= diff --cached --no-ext-diff"), 0, "* Unmerged path c.pb\n");
}
END_TEST

START_TEST(driver_no_renames) {
  /* pbdiff's command line takes git's seven arguments: with rename
   * detection off, a rename is a deletion and an addition */
  make_driver_repo();
  const Run *r = sh("git mv c.pb d.pb && git diff --cached --no-renames");
  char *want = expand("diff --pbdiff a/c.pb b/c.pb\n"
                      "deleted file mode 100644\n"
                      "index {V2}..0000000\n");
  ck_assert_msg(r->rc == 0 && !strncmp(r->out, want, strlen(want)) &&
                    strstr(r->out, "\ndiff --pbdiff a/d.pb b/d.pb\nnew file mode 100644\n") &&
                    !r->err[0],
                "status %d\nstdout: [%s]\nstderr: [%s]", r->rc, r->out, r->err);
  free(want);
  /* the same by configuration */
  char *no_renames = strdup(r->out);
  EXPECT(sh("git config diff.renames false && git diff --cached"), 0, no_renames);
  free(no_renames);
}
END_TEST

START_TEST(driver_onnx) {
  /* real ONNX models (libonnx-testdata), by the .gitattributes line and
   * the .pbdiff section of docs/git.md */
  make_repo("[file \"*.onnx\"]\n\tproto = /usr/include/onnx/onnx.proto\n\ttype = onnx.ModelProto\n",
            "*.onnx diff=pbdiff", "m.pb");
  OK(sh("git config diff.pbdiff.command \"'$P'\" && "
        "cp /usr/share/libonnx-testdata/data/node/test_abs/model.onnx model.onnx && "
        "git add model.onnx && git commit -qm abs && "
        "cp /usr/share/libonnx-testdata/data/node/test_acos/model.onnx model.onnx && "
        "git commit -qam acos"));
  const Run *ids = sh("git rev-parse HEAD~1:model.onnx HEAD:model.onnx | cut -c1-7 | paste -sd. -");
  OK(ids);
  char want[1024];
  snprintf(want, sizeof want,
           "diff --pbdiff a/model.onnx b/model.onnx\n"
           "index %.7s..%.7s 100644\n"
           "--- a/model.onnx\n"
           "+++ b/model.onnx\n"
           "ir_version: 7 -> 3\n"
           "graph.node[0] (onnx.NodeProto):\n"
           "  op_type: \"Abs\" -> \"Acos\"\n"
           "graph (onnx.GraphProto):\n"
           "  name: \"test_abs\" -> \"test_acos\"\n"
           "opset_import[0] (onnx.OperatorSetIdProto):\n"
           "  version: 13 -> 7\n",
           ids->out, ids->out + 8);
  EXPECT(sh("git diff HEAD~1 HEAD"), 0, want);
}
END_TEST

/* ---- 2. difftool (two arguments) ------------------------------------------- */

START_TEST(difftool_extcmd) {
  /* no diff driver command here: with one, git runs it instead (below) */
  make_repo(CONFIG_NAME_GLOB, "*.pb diff=pbdiff", NULL);
  /* pbdiff LOCAL REMOTE: git's temporary files keep the file's name, so
   * the name glob of .pbdiff matches them */
  EXPECT(sh("git difftool -y -x \"$P\" HEAD~1 HEAD -- c.pb"), 0, V1_V2_BODY);
  EXPECT(sh("git difftool -y -x \"$P\" HEAD~1 HEAD"), 0, V1_V2_BODY);
  /* difftool ignores the tool's status unless told to trust it */
  const Run *r = sh("git difftool -y --trust-exit-code -x \"$P\" HEAD~1 HEAD -- c.pb");
  ck_assert_msg(r->rc != 0 && !strcmp(r->out, V1_V2_BODY), "status %d\nstdout: [%s]", r->rc,
                r->out);
  EXPECT(sh("git difftool -y --trust-exit-code -x \"$P\" HEAD HEAD -- c.pb"), 0, "");
  /* the work tree: REMOTE is the file itself */
  EXPECT(sh("cp \"$B/v2r.pb\" c.pb && git difftool -y -x \"$P\""), 0, "");
  /* a named tool */
  r = sh("git config difftool.pbdiff.cmd \"'$P' \\\"\\$LOCAL\\\" \\\"\\$REMOTE\\\"\" && "
         "git config --get difftool.pbdiff.cmd");
  OK(r);
  ck_assert_msg(strstr(r->out, "pbdiff' \"$LOCAL\" \"$REMOTE\"\n"), "[%s]", r->out);
  EXPECT(sh("git difftool -y -t pbdiff HEAD~1 HEAD"), 0, V1_V2_BODY);
  EXPECT(sh("git difftool -y --tool=pbdiff HEAD~1 HEAD -- c.pb"), 0, V1_V2_BODY);
  /* with diff.pbdiff.command set, git diff's driver takes precedence over
   * the difftool for the files it covers */
  OK(sh("git config diff.pbdiff.command \"'$P'\""));
  EXPECT_X(sh("git difftool -y -t pbdiff HEAD~1 HEAD"), 0, V1_V2_DIFF);
}
END_TEST

START_TEST(difftool_schema_options) {
  /* a directory glob matches: the section is chosen by the path in the
   * repository (git's $BASE), not by difftool's temporary files */
  make_repo("[file \"data/*.pb\"]\\n\\tproto = shop.proto\\n\\ttype = shop.Inventory\\n", NULL,
            "data/c.pb");
  EXPECT(sh("git difftool -y -x \"$P\" HEAD~1 HEAD | head -1"), 0, "revision: 1 -> 2\n");
  /* -L names the file; an added file (LEFT is /dev/null) keeps its schema */
  EXPECT(sh("git difftool -y -x \"'$P' -L \\\"a/\\$BASE\\\" -L \\\"b/\\$BASE\\\"\" HEAD~1 HEAD"
            " | head -3"), 0, "--- a/data/c.pb\n+++ b/data/c.pb\nrevision: 1 -> 2\n");
  EXPECT(sh("git difftool -y -x \"'$P' --proto shop.proto -t shop.Inventory\" HEAD~1 HEAD"), 0,
         V1_V2_BODY);
  OK(sh("cp data/c.pb data/d.pb && git add data/d.pb && git commit -qm add"));
  EXPECT(sh("git difftool -y -x \"$P\" HEAD~1 HEAD | head -1"), 0, "store: \"\" -> \"north\"\n");
}
END_TEST

/* ---- 3. textconv: pbdiff cat ------------------------------------------------- */

/* What git shows for c.pb from v1 to v2 through textconv: a line diff of
 * the canonical text forms. */
#define TEXTCONV_V1_V2                                    \
  "diff --git a/c.pb b/c.pb\n"                            \
  "index {V1}..{V2} 100644\n"                             \
  "--- a/c.pb\n"                                          \
  "+++ b/c.pb\n"                                          \
  "@@ -1,9 +1,9 @@\n"                                     \
  " store: \"north\"\n"                                   \
  "-revision: 1\n"                                        \
  "+revision: 2\n"                                        \
  " state: OPEN\n"                                        \
  " labels {\n"                                           \
  "   key: \"region\"\n"                                  \
  "-  value: \"eu\"\n"                                    \
  "+  value: \"us\"\n"                                    \
  " }\n"                                                  \
  " items {\n"                                            \
  "   sku: \"apple\"\n"                                   \
  "@@ -11,6 +11,10 @@ items {\n"                          \
  " }\n"                                                  \
  " items {\n"                                            \
  "   sku: \"pear\"\n"                                    \
  "-  count: 5\n"                                         \
  "+  count: 7\n"                                         \
  "   tags: \"fruit\"\n"                                  \
  " }\n"                                                  \
  "+items {\n"                                            \
  "+  sku: \"plum\"\n"                                    \
  "+  count: 1\n"                                         \
  "+}\n"

START_TEST(textconv_cat) {
  make_repo(CONFIG_NAME_GLOB, "*.pb diff=pbdiffcat", NULL);
  OK(sh("git config diff.pbdiffcat.textconv \"'$P' cat\""));
  /* git passes a temporary file named like the file: the name glob of
   * .pbdiff (found at the top of the work tree, where git runs textconv)
   * gives its type */
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0, TEXTCONV_V1_V2);
  /* git log -p and git show use textconv without further options */
  EXPECT_X(sh("git log -p --format=%%s -1"), 0, "v2\n\n" TEXTCONV_V1_V2);
  EXPECT_X(sh("git show --format=%%s HEAD"), 0, "v2\n\n" TEXTCONV_V1_V2);
  /* a re-encoding converts to the same text: no diff at all */
  EXPECT(sh("cp \"$B/v2r.pb\" c.pb && git diff"), 0, "");
  OK(sh("git commit -qam v2r"));
  EXPECT(sh("git log -p --format=%%s -1"), 0, "v2r\n\n");
}
END_TEST

START_TEST(textconv_schema_options) {
  /* no .pbdiff: the schema on the textconv command (git runs it at the top
   * of the work tree, so a relative --proto names a file of the repository) */
  make_repo(NULL, "*.pb diff=pbdiffcat", NULL);
  OK(sh("git config diff.pbdiffcat.textconv \"'$P' cat --proto shop.proto -t shop.Inventory\""));
  EXPECT_X(sh("git diff HEAD~1 HEAD"), 0, TEXTCONV_V1_V2);
  EXPECT_X(sh("mkdir sub && cd sub && git diff HEAD~1 HEAD"), 0, TEXTCONV_V1_V2);
}
END_TEST

START_TEST(textconv_malformed) {
  make_repo(CONFIG_NAME_GLOB, "*.pb diff=pbdiffcat", NULL);
  /* plain cat: an error, and git stops */
  OK(sh("git config diff.pbdiffcat.textconv \"'$P' cat\""));
  const Run *r = sh("cp \"$B/bad.pb\" c.pb && git diff");
  EXPECT_STDERR_128(r, "pbdiff: c.pb: length 5 of field 1 runs past the end (only 2 left) at byte 1\n"
                       "fatal: unable to read files to diff\n");
  /* cat --textconv, as docs/git.md sets it up: why, the bytes' digest, and
   * git goes on; a Git LFS pointer shows as its lines */
  OK(sh("git config diff.pbdiffcat.textconv \"'$P' cat --textconv\""));
  r = sh("git diff");
  ck_assert_msg(r->rc == 0, "status %d: %s", r->rc, r->err);
  ck_assert_ptr_nonnull(strstr(r->out, "+# not read as protobuf: length 5 of field 1 runs past "
                                       "the end (only 2 left) at byte 1\n+# 4 bytes, xxh3:"));
  OK(sh("printf 'version https://git-lfs.github.com/spec/v1\\noid sha256:4d7a\\nsize 9\\n' > c.pb"));
  r = sh("git diff");
  ck_assert_ptr_nonnull(strstr(r->out, "+# not read as protobuf: invalid wire type 6 (field 14) at "
                                       "byte 0\n+version https://git-lfs.github.com/spec/v1\n"
                                       "+oid sha256:4d7a\n+size 9\n"));
}
END_TEST

/* ---- 4. docs/git.md: its recipes are the ones tested above ------------------ */

START_TEST(docs_recipes) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/docs/git.md", tu_sandbox_root());
  size_t n;
  char *doc = (char *)tu_read_file(path, &n);
  ck_assert_msg(doc != NULL, "cannot read %s", path);
  char *text = malloc(n + 1);
  memcpy(text, doc, n);
  text[n] = '\0';
  free(doc);
  static const char *const kLines[] = {
      "*.pb diff=pbdiff",
      "git config diff.pbdiff.command pbdiff",
      "git config diff.pbdiff.command 'pbdiff --proto shop.proto -t shop.Inventory'",
      "[file \"*.pb\"]",
      "git log -p --ext-diff",
      "git difftool -y -x pbdiff HEAD~1 HEAD",
      "git config difftool.pbdiff.cmd 'pbdiff \"$LOCAL\" \"$REMOTE\"'",
      "git difftool -y -t pbdiff HEAD~1 HEAD",
      "*.pb diff=pbdiffcat",
      "git config diff.pbdiffcat.textconv 'pbdiff cat --textconv'",
      "git config diff.pbdiffcat.textconv 'pbdiff cat --textconv --proto shop.proto -t shop.Inventory'",
      "(equal in meaning; the bytes differ)",
      "external diff died",
      "not compared by meaning",
      "*.onnx diff=pbdiff",
      "git show --ext-diff HEAD",
      "GIT_EXTERNAL_DIFF=pbdiff git diff",
      "diff.pbdiff.command 'pbdiff --explain'",
      "diff.pbdiff.command 'pbdiff --format json'",
      "git diff --no-renames",
      "git config diff.renames false",
      "git difftool -y -x 'pbdiff --proto shop.proto -t shop.Inventory' HEAD~1 HEAD",
      "GIT_EXTERNAL_DIFF_TRUST_EXIT_CODE=true",
  };
  for (size_t i = 0; i < sizeof kLines / sizeof *kLines; i++)
    ck_assert_msg(strstr(text, kLines[i]), "docs/git.md lacks: %s", kLines[i]);
  free(text);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("git");
  TCase *t = tcase_create("git");
  tcase_set_timeout(t, 60);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, driver_changed);
  tcase_add_test(t, driver_log_ext_diff);
  tcase_add_test(t, driver_equal_reencoded);
  tcase_add_test(t, driver_added_deleted);
  tcase_add_test(t, driver_mode_change);
  tcase_add_test(t, driver_malformed);
  tcase_add_test(t, driver_color);
  tcase_add_test(t, driver_schema_on_command);
  tcase_add_test(t, driver_config_path);
  tcase_add_test(t, driver_json);
  tcase_add_test(t, driver_external_diff_env);
  tcase_add_test(t, driver_bad_operands);
  tcase_add_test(t, driver_quoted_paths);
  tcase_add_test(t, driver_rename);
  tcase_add_test(t, driver_unmerged);
  tcase_add_test(t, driver_no_renames);
  tcase_add_test(t, driver_onnx);
  tcase_add_test(t, difftool_extcmd);
  tcase_add_test(t, difftool_schema_options);
  tcase_add_test(t, textconv_cat);
  tcase_add_test(t, textconv_schema_options);
  tcase_add_test(t, textconv_malformed);
  tcase_add_test(t, docs_recipes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
