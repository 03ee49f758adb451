/* inputs/input.h: files mapped, and what happens when another process
 * truncates one while it is mapped (issue 21: SIGBUS killed pbdiff). */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
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

/* The resident memory of the mapping that holds p, in KiB, from
 * /proc/self/smaps; -1 if not found. */
static long mapping_rss_kib(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  bool in_it = false;
  long rss = -1;
  while (rss < 0 && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line: LO-HI perms ... */
      in_it = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    } else if (in_it && strncmp(line, "Rss:", 4) == 0) {
      rss = strtol(line + 4, NULL, 10);
    }
  }
  fclose(f);
  return rss;
}

static uint8_t pattern(size_t i) { return (uint8_t)(i * 7 + i / 4096); }

/* A corpus's key pass gives back the pages it has read (the pairs that
 * differ read them again): they leave the process's memory, whole pages
 * only, and read back as they were. */
START_TEST(released_pages_leave_memory_and_read_back) {
  long page = sysconf(_SC_PAGESIZE);
  size_t n = 64 * (size_t)page + 100; /* a last page not whole */
  uint8_t *data = malloc(n);
  ck_assert_ptr_nonnull(data);
  for (size_t i = 0; i < n; i++) data[i] = pattern(i);
  char *path = tu_write_temp((char *)data, n, ".pb");
  pbd_Input in;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_Open(&in, path, &s));
  ck_assert_int_eq(memcmp(in.data, data, n), 0); /* every page read */
  long kib = page / 1024, all = mapping_rss_kib(in.data);
  ck_assert_int_eq(all, 65 * kib);
  /* pages 4 to 9: the range starts 5 bytes into page 3 and ends where page 10 starts */
  pbd_Input_Release(&in, 3 * (size_t)page + 5, 10 * (size_t)page);
  ck_assert_int_eq(mapping_rss_kib(in.data), all - 6 * kib);
  pbd_Input_Release(&in, 64 * (size_t)page, n); /* the mapping's last page, to its end */
  ck_assert_int_eq(mapping_rss_kib(in.data), all - 7 * kib);
  pbd_Input_Release(&in, 20 * (size_t)page + 1, 21 * (size_t)page + 4095); /* no whole page */
  ck_assert_int_eq(mapping_rss_kib(in.data), all - 7 * kib);
  pbd_Input_Release(&in, 0, n + 1); /* past the end: nothing */
  ck_assert_int_eq(mapping_rss_kib(in.data), all - 7 * kib);
  ck_assert_int_eq(memcmp(in.data, data, n), 0); /* read again from the page cache */
  ck_assert_int_eq(mapping_rss_kib(in.data), all);
  pbd_Input_Close(&in);
  unlink(path);
  free(path);
  free(data);
}
END_TEST

/* An input read from a pipe is the process's only copy: released, it keeps
 * its bytes. */
START_TEST(released_pipe_input_keeps_its_bytes) {
  enum { kPipeBytes = 60000 }; /* under a pipe's buffer: written before it is read */
  uint8_t *data = malloc(kPipeBytes);
  ck_assert_ptr_nonnull(data);
  for (size_t i = 0; i < kPipeBytes; i++) data[i] = pattern(i);
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  ck_assert_int_eq(write(fds[1], data, kPipeBytes), kPipeBytes);
  close(fds[1]);
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  pbd_Input in;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Input_Open(&in, path, &s));
  ck_assert_uint_eq(in.size, kPipeBytes);
  pbd_Input_Release(&in, 0, in.size);
  ck_assert_int_eq(memcmp(in.data, data, kPipeBytes), 0);
  pbd_Input_Close(&in);
  close(fds[0]);
  free(data);
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
  tcase_add_test(t, released_pages_leave_memory_and_read_back);
  tcase_add_test(t, released_pipe_input_keeps_its_bytes);
  suite_add_tcase(su, t);
  return tu_main(su);
}
