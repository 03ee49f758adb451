/* pbdiff tests — --no-config: the .pbdiff found upwards is not read (its
 * schema, type and options do not apply), --config still works alone, and
 * the two together are a usage error. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("noconfig", "proto/sem3.proto", "sem3.desc")

START_TEST(no_config) {
  tu_sh("printf '[file \"*.pb\"]\\n  schema = ../sem3.desc\\n  type = sem3.M\\n' > .pbdiff");
  put("a.pb", "08 01");
  put("b.pb", "08 02");
  EXPECT(PB("a.pb b.pb"), 1, "i32: 1 -> 2\n");           /* the config's schema */
  EXPECT(PB("--no-config a.pb b.pb"), 1, "1[0]: 1 -> 2\n"); /* none: by number */
  EXPECT(PB("cat --no-config a.pb"), 0, "1: 1\n");
  tu_sh("printf '[file \"*.pb\"]\\n  schema = /nonexistent.desc\\n  type = x.Y\\n' > .pbdiff");
  EXPECT(PB("--no-config a.pb b.pb"), 1, "1[0]: 1 -> 2\n"); /* not even opened */
  EXPECT2(PB("--no-config --config .pbdiff a.pb b.pb"), 2, "",
          "pbdiff: --config and --no-config contradict each other\n"
          "Try 'pbdiff --help' for more information.\n");
}
END_TEST

static Suite *suite(void) {
  Suite *su = suite_create("noconfig");
  TCase *t = tcase_create("noconfig");
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, no_config);
  suite_add_tcase(su, t);
  return su;
}

int main(void) { return tu_main(suite()); }
