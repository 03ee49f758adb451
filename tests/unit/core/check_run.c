/* core/run.h: running another program without a shell. */
#include <check.h>
#include <stdio.h>
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
  pbd_Status s;
  pbd_Status_Clear(&s);
  int in = pbd_Run_TempFile(&s), out = pbd_Run_TempFile(&s), err = pbd_Run_TempFile(&s);
  ck_assert_msg(in > 2 && out > 2 && err > 2, "%s", s.msg);
  ck_assert_int_eq(write(in, "hello\n", 6), 6);
  ck_assert_int_eq(lseek(in, 0, SEEK_SET), 0);
  pbd_RunIo io = {.stdin_fd = in, .stdout_fd = out, .stderr_fd = err};
  char *cat[] = {"sh", "-c", "cat; echo oops >&2", NULL};
  ck_assert_int_eq(pbd_Run(cat, &io, NULL, &s), 0);
  pbd_Buf got = {0};
  ck_assert(pbd_Run_ReadFd(out, &got));
  ck_assert(got.len == 6 && memcmp(got.data, "hello\n", 6) == 0);
  pbd_Buf_Truncate(&got, 0);
  ck_assert(pbd_Run_ReadFd(err, &got));
  ck_assert(got.len == 5 && memcmp(got.data, "oops\n", 5) == 0);
  pbd_Buf_Free(&got);
  close(in), close(out), close(err);
}
END_TEST

/* The program's output goes to a file that has no name: nothing another
 * user plants in a shared /tmp (a symbolic link to a file of ours) is ever
 * opened for writing (issue 21: protoc's stderr was opened by name, without
 * O_EXCL or O_NOFOLLOW). */
START_TEST(output_files_have_no_name) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  int err = pbd_Run_TempFile(&s);
  ck_assert_msg(err > 2, "%s", s.msg);
  pbd_Buf out = {0};
  pbd_RunIo io = {.stderr_fd = err, .capture = &out};
  char *where[] = {"sh", "-c", "readlink /proc/self/fd/2", NULL};
  ck_assert_int_eq(pbd_Run(where, &io, NULL, &s), 0);
  ck_assert_msg(out.data && strstr(out.data, " (deleted)"), "stderr is %s", out.data);
  pbd_Buf_Free(&out);
  /* and the descriptor does not leak into the program otherwise */
  char probe[64];
  snprintf(probe, sizeof probe, "test ! -e /proc/self/fd/%d", err);
  char *leak[] = {"sh", "-c", probe, NULL};
  pbd_RunIo plain = {0};
  ck_assert_int_eq(pbd_Run(leak, &plain, NULL, &s), 0);
  close(err);
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
  tcase_add_test(t, output_files_have_no_name);
  tcase_add_test(t, a_program_that_is_not_there);
  suite_add_tcase(su, t);
  return tu_main(su);
}
