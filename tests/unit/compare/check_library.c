/* docs/library.md's example, extracted from the page, compiled against
 * build/libpbdiff.a and run on the demo payloads: the documentation's
 * program and its printed output must both hold. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/pbdiff.h"
#include "testutil.h"

START_TEST(library_example) {
  char cmd[4096], *out, *err;
  const char *root = tu_root();
  /* the archive next to the binary under test: build/ or build-asan/ */
  char lib[2048];
  snprintf(lib, sizeof lib, "%s", tu_pbdiff());
  char *slash = strrchr(lib, '/');
  ck_assert_ptr_nonnull(slash);
  strcpy(slash + 1, "libpbdiff.a");
  const char *san = strstr(lib, "build-asan") ? "-fsanitize=address,undefined" : "";
  snprintf(cmd, sizeof cmd,
           "set -e; d=$(mktemp -d); "
           "awk '/^```c$/{on=1; next} /^```$/{on=0} on' %s/docs/library.md > $d/compare.c; "
           "cc -std=c11 -Wall -Wextra -Werror %s -I%s/include $d/compare.c %s -lxxhash -lz -lcrypto -lpthread -lm -o $d/compare; "
           "protoc --include_imports -I%s/testdata/demo -o $d/demo.desc demo.proto; "
           "$d/compare $d/demo.desc demo.Config %s/testdata/demo/left.pb %s/testdata/demo/right.pb "
           "|| test $? = 1; "
           "$d/compare $d/demo.desc demo.Config %s/testdata/demo/left.pb %s/testdata/demo/same.pb; "
           "rm -rf $d",
           root, san, root, lib, root, root, root, root, root);
  int rc = tu_run(cmd, &out, &err);
  ck_assert_msg(rc == 0, "status %d\nstdout: %s\nstderr: %s", rc, out, err);
  ck_assert_str_eq(out,
                   "changed version: 3 -> 4\n"
                   "changed labels[\"team\"]: \"web\" -> \"payments\"\n"
                   "changed servers[1].port: 443 -> 8443\n"
                   "different: 3 difference(s)\n"
                   "equal: 0 difference(s)\n");
  free(out), free(err);
}
END_TEST

static int count_edits(void *ctx, const pbd_Edit *e) {
  (void)e;
  ++*(int *)ctx;
  return 0;
}

/* pbd_Compare: verdicts, the callback, errors naming the input. */
START_TEST(compare_call) {
  pbd_CompareOptions o = pbd_CompareOptions_Default();
  pbd_CompareResult r;
  pbd_Status s;
  pbd_Status_Clear(&s);
  const uint8_t a[] = {0x08, 0x01, 0x10, 0x02}, b[] = {0x10, 0x02, 0x08, 0x01};
  const uint8_t c[] = {0x08, 0x03}, bad[] = {0x08, 0x01, 0x12, 0x05, 0x00};
  int n = 0;
  ck_assert_int_eq(pbd_Compare(a, sizeof a, b, sizeof b, &o, count_edits, &n, &r, &s), 0);
  ck_assert(r.equal && n == 0);
  ck_assert_int_eq(pbd_Compare(a, sizeof a, c, sizeof c, &o, count_edits, &n, &r, &s), 1);
  ck_assert(!r.equal && n == 2 && r.n_edits == 2);
  ck_assert_int_eq(pbd_Compare(a, sizeof a, c, sizeof c, &o, NULL, NULL, NULL, &s), 1);
  ck_assert_int_eq(pbd_Compare(a, sizeof a, bad, sizeof bad, &o, NULL, NULL, &r, &s), -1);
  ck_assert_int_eq(r.failed_input, 2);
  ck_assert(s.has_offset && s.offset == 3);
  ck_assert_int_eq(pbd_Compare(bad, sizeof bad, a, sizeof a, &o, NULL, NULL, &r, &s), -1);
  ck_assert_int_eq(r.failed_input, 1);
  ck_assert_int_eq(pbd_Compare(NULL, 0, NULL, 0, &o, NULL, NULL, &r, &s), 0);
  o.parallel = true; /* small inputs: the same verdicts */
  ck_assert_int_eq(pbd_Compare(a, sizeof a, b, sizeof b, &o, NULL, NULL, &r, &s), 0);
  ck_assert_int_eq(pbd_Compare(a, sizeof a, c, sizeof c, &o, NULL, NULL, &r, &s), 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("library");
  TCase *t = tcase_create("library");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, library_example);
  tcase_add_test(t, compare_call);
  suite_add_tcase(s, t);
  return tu_main(s);
}
