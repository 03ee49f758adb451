/* core/run.h: running another program without a shell. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbdiff/core/run.h"
#include "testutil.h"

START_TEST(exit_status_and_capture) {
  pbd_Buf out = {0};
  pbd_RunIo io = {.capture = &out, .quiet = true};
  char *echo[] = {"sh", "-c", "printf 'a b'; echo err >&2; exit 3", NULL};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Run(echo, &io, NULL, &s), 3);
  ck_assert_uint_eq(out.len, 3);
  ck_assert(memcmp(out.data, "a b", 3) == 0); /* standard error not captured */
  pbd_Buf_Free(&out);
  char *ok[] = {"true", NULL};
  ck_assert_int_eq(pbd_Run(ok, NULL, NULL, &s), 0);
}
END_TEST

START_TEST(files_for_the_streams) {
  char *in = tu_write_temp("hello\n", 6, ".in");
  char *out = tu_write_temp("", 0, ".out"), *err = tu_write_temp("", 0, ".err");
  pbd_RunIo io = {in, out, err, NULL, false};
  char *cat[] = {"sh", "-c", "cat; echo oops >&2", NULL};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Run(cat, &io, NULL, &s), 0);
  size_t n;
  uint8_t *got = tu_read_file(out, &n);
  ck_assert(got && n == 6 && memcmp(got, "hello\n", 6) == 0);
  free(got);
  got = tu_read_file(err, &n);
  ck_assert(got && n == 5 && memcmp(got, "oops\n", 5) == 0);
  free(got);
  unlink(in), unlink(out), unlink(err);
  free(in), free(out), free(err);
}
END_TEST

START_TEST(a_program_that_is_not_there) {
  char *argv[] = {"pbdiff-no-such-program", NULL};
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Run(argv, NULL, "some-package", &s), -1);
  ck_assert_str_eq(s.msg, "cannot run pbdiff-no-such-program (install some-package)");
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Run(argv, NULL, NULL, &s), -1);
  ck_assert_ptr_nonnull(strstr(s.msg, "cannot run pbdiff-no-such-program: "));
  /* a stream that cannot be opened is a program that could not start */
  pbd_RunIo io = {.stdin_path = "/nonexistent/dir/in"};
  char *ok[] = {"true", NULL};
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Run(ok, &io, NULL, &s), -1);
}
END_TEST

int main(void) {
  Suite *su = suite_create("run");
  TCase *t = tcase_create("run");
  tcase_add_test(t, exit_status_and_capture);
  tcase_add_test(t, files_for_the_streams);
  tcase_add_test(t, a_program_that_is_not_there);
  suite_add_tcase(su, t);
  return tu_main(su);
}
