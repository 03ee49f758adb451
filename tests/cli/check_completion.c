/* pbdiff tests — the bash completion (scripts/pbdiff.bash-completion), run
 * by bash against the built binary: option names from --help, and the
 * values of the options that take a word from a list from the option table
 * (pbdiff [COMMAND] --complete-values), in both `--opt VALUE` and
 * `--opt=VALUE` forms; an option whose argument is optional (--color) takes
 * its value only after '='. */
#include <check.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("completion", "proto/sem3.proto", "sem3.desc")

/* What the completion offers for the words (shell syntax; the last is the
 * word being completed), one line. */
#define COMPLETE(words)                                                                     \
  tu_sh("P=\"$P\" R=\"$R\" bash -c '. \"$R/scripts/pbdiff.bash-completion\"; COMP_WORDS=(\"$P\" " words "); " \
        "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _pbdiff; echo \"${COMPREPLY[*]}\"'")

START_TEST(completion_values) {
  EXPECT(COMPLETE("--framing \"\""), 0,
         "delimited tfrecord grpc confluent confluent-value confluent-keyed\n");
  EXPECT(COMPLETE("--framing conf"), 0, "confluent confluent-value confluent-keyed\n");
  EXPECT(COMPLETE("--input-compression n"), 0, "none\n");
  EXPECT(COMPLETE("-r --format j"), 0, "json junit\n");
  EXPECT(COMPLETE("cat --format \"\""), 0, "text json\n");
  EXPECT(COMPLETE("hash --input-format t"), 0, "textproto\n");
  EXPECT(COMPLETE("--left-format b"), 0, "binary\n");
  EXPECT(COMPLETE("--bytes-as n"), 0, "none\n");
  EXPECT(COMPLETE("hash --bytes-as \"\""), 0, "none\n");
  /* bash splits --opt=VALUE at '=' */
  EXPECT(COMPLETE("--color = a"), 0, "auto always\n");
  EXPECT(COMPLETE("--framing = t"), 0, "tfrecord\n");
  /* and without '=' as a word break, it stays in the word */
  EXPECT(COMPLETE("--input-format=j"), 0, "json\n");
  /* --color's value only after '=': a separate word is an operand */
  put("cfile.pb", "");
  EXPECT(COMPLETE("--color cf"), 0, "cfile.pb\n");
  /* options and files as before */
  EXPECT(COMPLETE("--no-p"), 0, "--no-pager\n");
  EXPECT(COMPLETE("-s cf"), 0, "cfile.pb\n");
  EXPECT(COMPLETE("ha"), 0, "hash\n");
}
END_TEST

START_TEST(complete_values_from_the_table) {
  EXPECT(PB("cat --complete-values"), 0,
         "--framing delimited tfrecord grpc confluent confluent-value confluent-keyed\n"
         "--input-compression auto gzip none\n"
         "--input-format binary textproto json\n"
         "--format text json\n");
  /* every report format the table has, and --color's optional argument */
  const Run *r = PB("--complete-values | grep -e '^--format ' -e '^--color'");
  ck_assert_msg(r->rc == 0 && !strncmp(r->out, "--format text json junit paths", 30) &&
                    strstr(r->out, "\n--color= auto always never\n"),
                "%s", r->out);
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("completion");
  TCase *t = tcase_create("completion");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, completion_values);
  tcase_add_test(t, complete_values_from_the_table);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
