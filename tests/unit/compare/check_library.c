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

/* Inputs of 1 MiB and more with o.parallel: the memcmp that finds byte
 * copies, and then the check of one of them, run on two threads, each on
 * half the bytes.  Schemaless, 2 MiB of a repeated bytes field 1 (a LEN
 * field every 256 bytes): copies are equal, a byte changed in either half
 * is not, a copy with a bad field in either half is an error. */
static uint8_t *big_input(size_t *n) {
  enum { kFields = 8192, kValue = 253 };
  *n = (size_t)kFields * (3 + kValue);
  uint8_t *b = malloc(*n), *p = b;
  ck_assert_ptr_nonnull(b);
  for (int i = 0; i < kFields; i++) {
    *p++ = 0x0a; /* field 1, LEN */
    *p++ = 0x80 | (kValue & 0x7f);
    *p++ = kValue >> 7;
    memset(p, 'a' + i % 26, kValue);
    p += kValue;
  }
  return b;
}

START_TEST(large_inputs_on_two_threads) {
  pbd_CompareOptions o = pbd_CompareOptions_Default();
  o.parallel = true;
  pbd_CompareResult r;
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n;
  uint8_t *a = big_input(&n), *b = big_input(&n);
  ck_assert_uint_ge(n, 2u << 20);
  ck_assert_int_eq(pbd_Compare(a, n, b, n, &o, NULL, NULL, &r, &s), 0);
  const size_t at[] = {100, n / 2 - 1, n / 2 + 7, n - 1}; /* inside values, both halves */
  for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
    b[at[k]] ^= 1;
    ck_assert_msg(pbd_Compare(a, n, b, n, &o, NULL, NULL, &r, &s) == 1, "byte %zu changed", at[k]);
    b[at[k]] ^= 1;
  }
  /* a field of wire type 7 in place of a tag, near the start and near the
   * end: identical bytes, and still an error naming where */
  const size_t tag_at[] = {256, n - 256};
  for (size_t k = 0; k < sizeof tag_at / sizeof *tag_at; k++) {
    a[tag_at[k]] = b[tag_at[k]] = 0x0f;
    pbd_Status_Clear(&s);
    ck_assert_int_eq(pbd_Compare(a, n, b, n, &o, NULL, NULL, &r, &s), -1);
    ck_assert_msg(s.has_offset && s.offset == tag_at[k], "error at %zu, not %zu", s.offset, tag_at[k]);
    a[tag_at[k]] = b[tag_at[k]] = 0x0a;
  }
  free(a), free(b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("library");
  TCase *t = tcase_create("library");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, library_example);
  tcase_add_test(t, compare_call);
  tcase_add_test(t, large_inputs_on_two_threads);
  suite_add_tcase(s, t);
  return tu_main(s);
}
