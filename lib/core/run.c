/* pbdiff — running another program (run.h). */
#include "pbdiff/core/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: the streams as io says; false when one cannot be opened. */
static bool redirect(const pbd_RunIo *io, int out_pipe) {
  int devnull = io->quiet ? open("/dev/null", O_RDWR) : -1;
  if (io->quiet && devnull < 0) return false;
  const char *paths[3] = {io->stdin_path, io->stdout_path, io->stderr_path};
  for (int fd = 0; fd < 3; fd++) {
    int src = -1;
    if (paths[fd]) src = open(paths[fd], fd == 0 ? O_RDONLY : O_WRONLY | O_TRUNC | O_CREAT, 0600);
    else if (fd == 1 && out_pipe >= 0) src = out_pipe;
    else if (fd != 1 && devnull >= 0) src = devnull;
    else continue;
    if (src < 0 || dup2(src, fd) < 0) return false;
  }
  return true;
}

/* Reads the child's standard output into the buffer until it closes it. */
static void drain(int fd, pbd_Buf *b) {
  char chunk[4096];
  ssize_t k;
  while ((k = read(fd, chunk, sizeof chunk)) != 0) {
    if (k < 0) {
      if (errno == EINTR) continue;
      break;
    }
    pbd_Buf_Append(b, chunk, (size_t)k);
  }
}

int pbd_Run(char *const argv[], const pbd_RunIo *io, const char *install_hint, pbd_Status *s) {
  static const pbd_RunIo kInherit = {0};
  if (!io) io = &kInherit;
  /* A close-on-exec pipe carries exec's errno back: a program that could
   * not start is told apart from one that failed. */
  int errpipe[2], outpipe[2] = {-1, -1};
  if (pipe(errpipe) != 0 || (io->capture && pipe(outpipe) != 0)) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s: %s", argv[0], strerror(errno));
    return -1;
  }
  fcntl(errpipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(errpipe[1], F_SETFD, FD_CLOEXEC);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(errpipe[0]);
    if (outpipe[0] >= 0) close(outpipe[0]);
    int e = EIO;
    if (redirect(io, outpipe[1])) {
      execvp(argv[0], argv);
      e = errno;
    }
    if (write(errpipe[1], &e, sizeof e) < 0) _exit(127);
    _exit(127);
  }
  int fork_errno = errno;
  close(errpipe[1]);
  if (outpipe[1] >= 0) close(outpipe[1]);
  if (pid < 0) {
    close(errpipe[0]);
    if (outpipe[0] >= 0) close(outpipe[0]);
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s: %s", argv[0], strerror(fork_errno));
    return -1;
  }
  if (outpipe[0] >= 0) {
    drain(outpipe[0], io->capture);
    close(outpipe[0]);
  }
  int exec_errno = 0;
  ssize_t k;
  do k = read(errpipe[0], &exec_errno, sizeof exec_errno);
  while (k < 0 && errno == EINTR);
  close(errpipe[0]);
  int status;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  if (k == (ssize_t)sizeof exec_errno) {
    if (exec_errno == ENOENT && install_hint)
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s (install %s)", argv[0], install_hint);
    else
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s: %s", argv[0], strerror(exec_errno));
    return -1;
  }
  if (w < 0 || !WIFEXITED(status)) {
    pbd_Status_SetError(s, kPbd_Status_Io, "%s did not exit", argv[0]);
    return -1;
  }
  return WEXITSTATUS(status);
}
