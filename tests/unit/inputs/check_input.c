/* inputs/input.h: files mapped, and what happens when another process
 * truncates one while it is mapped (issue 21: SIGBUS killed pbdiff). */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbdiff/inputs/input.h"
#include "testutil.h"

enum { kSize = 256 * 1024 }; /* many pages */

static char *big_file(void) {
  char *data = malloc(kSize);
  ck_assert_ptr_nonnull(data);
  memset(data, 'x', kSize);
  char *path = tu_write_temp(data, kSize, ".pb");
  free(data);
  return path;
}

static const char *g_cut_name;
static void note_cut(const char *name) { g_cut_name = name; }

START_TEST(truncated_while_mapped_reads_zeros_and_says_so) {
  char *path = big_file();
  pbd_Input in;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_Open(&in, path, &s));
  ck_assert_uint_eq(in.size, kSize);
  ck_assert(!pbd_Input_WasTruncated(&in));
  ck_assert_int_eq(in.data[kSize - 1], 'x');
  pbd_Input_OnTruncated(note_cut);
  ck_assert_int_eq(truncate(path, 100), 0); /* "another process" */
  ck_assert_int_eq(in.data[50], 'x');       /* still in the file */
  volatile uint8_t past = in.data[kSize / 2]; /* the first read past its new end */
  ck_assert_int_eq(past, 0);
  ck_assert_int_eq(in.data[kSize - 1], 0);
  ck_assert(pbd_Input_WasTruncated(&in));
  ck_assert_ptr_eq(g_cut_name, path);
  pbd_Input_OnTruncated(NULL);
  pbd_Input_Close(&in);
  /* the next file is not taken for cut */
  char *other = big_file();
  ck_assert(pbd_Input_Open(&in, other, &s));
  ck_assert_int_eq(in.data[kSize - 1], 'x');
  ck_assert(!pbd_Input_WasTruncated(&in));
  pbd_Input_Close(&in);
  unlink(path), unlink(other);
  free(path), free(other);
}
END_TEST

/* A SIGBUS that is no mapped input's still ends the process as SIGBUS does. */
START_TEST(other_sigbus_still_kills) {
  char *path = big_file();
  pbd_Input in;
  pbd_Status s;
  ck_assert(pbd_Input_Open(&in, path, &s)); /* the handler is installed */
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY); /* ASan's report of it is expected: not shown */
    if (null >= 0) dup2(null, STDERR_FILENO);
    raise(SIGBUS);
    _exit(0);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(!WIFEXITED(status) || WEXITSTATUS(status) != 0, "the process went on");
#ifndef __SANITIZE_ADDRESS__ /* ASan's own handler, next in line, reports and aborts */
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "status %d", status);
#endif
  pbd_Input_Close(&in);
  unlink(path);
  free(path);
}
END_TEST

int main(void) {
  Suite *su = suite_create("input");
  TCase *t = tcase_create("input");
  tcase_add_test(t, truncated_while_mapped_reads_zeros_and_says_so);
  tcase_add_test(t, other_sigbus_still_kills);
  suite_add_tcase(su, t);
  return tu_main(su);
}
