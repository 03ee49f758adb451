/* pbdiff — running another program (run.h). */
#include "pbdiff/core/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child: the streams as io says; false when one cannot be opened. */
static bool redirect(const pbd_RunIo *io, int out_pipe) {
  int devnull = io->quiet ? open("/dev/null", O_RDWR) : -1;
  if (io->quiet && devnull < 0) return false;
  const int given[3] = {io->stdin_fd, io->stdout_fd, io->stderr_fd};
  for (int fd = 0; fd < 3; fd++) {
    int src = -1;
    if (given[fd] > 0) src = given[fd];
    else if (fd == 0 && io->stdin_path) src = open(io->stdin_path, O_RDONLY);
    else if (fd == 1 && out_pipe >= 0) src = out_pipe;
    else if (fd != 1 && devnull >= 0) src = devnull;
    else continue;
    if (src < 0 || (src != fd && dup2(src, fd) < 0)) return false;
  }
  return true;
}

int pbd_Run_TempFile(pbd_Status *s) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  pbd_Buf path = {0};
  pbd_Buf_Printf(&path, "%s/pbdiff-XXXXXX", dir);
  /* mkstemp creates the name (O_EXCL, mode 0600); it is gone at once */
  int fd = path.oom ? -1 : mkstemp(path.data);
  if (fd >= 0) {
    unlink(path.data);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  } else {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot create a temporary file in %.300s: %s", dir,
                        path.oom ? "out of memory" : strerror(errno));
  }
  pbd_Buf_Free(&path);
  return fd;
}

bool pbd_Run_ReadFd(int fd, pbd_Buf *out) {
  if (lseek(fd, 0, SEEK_SET) != 0) return false;
  char chunk[1 << 16];
  for (;;) {
    ssize_t k = read(fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return false;
    if (k == 0) return !out->oom;
    pbd_Buf_Append(out, chunk, (size_t)k);
  }
}

unsigned pbd_Run_ProtocTimeLimit(void) {
  const char *v = getenv("PBDIFF_PROTOC_TIMEOUT");
  char *end;
  unsigned long n = v && *v ? strtoul(v, &end, 10) : 0;
  return v && *v && !*end && n > 0 && n < 86400 ? (unsigned)n : 120;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Milliseconds left before the deadline (0: none set: wait without end). */
static int ms_left(double deadline) {
  if (deadline == 0) return -1;
  double left = deadline - now_seconds();
  return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Reads the child's standard output into the buffer until it closes it;
 * false when the deadline passed first. */
static bool drain(int fd, pbd_Buf *b, double deadline) {
  char chunk[4096];
  for (;;) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ms = ms_left(deadline);
    if (ms == 0) return false;
    int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return false;
    ssize_t k = read(fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return true;
    pbd_Buf_Append(b, chunk, (size_t)k);
  }
}

/* Waits for the child; past the deadline it is killed (false). */
static bool reap(pid_t pid, int *status, double deadline) {
  for (;;) {
    pid_t w = waitpid(pid, status, deadline ? WNOHANG : 0);
    if (w == pid) return true;
    if (w < 0 && errno != EINTR) return false;
    if (deadline && now_seconds() > deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
      }
      return false;
    }
    if (w == 0) {
      struct timespec nap = {0, 5 * 1000 * 1000};
      nanosleep(&nap, NULL);
    }
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
  double deadline = io->time_limit ? now_seconds() + io->time_limit : 0;
  bool in_time = true;
  if (outpipe[0] >= 0) {
    in_time = drain(outpipe[0], io->capture, deadline);
    close(outpipe[0]);
  }
  if (!in_time) kill(pid, SIGKILL);
  int exec_errno = 0;
  ssize_t k;
  do k = read(errpipe[0], &exec_errno, sizeof exec_errno);
  while (k < 0 && errno == EINTR);
  close(errpipe[0]);
  int status;
  in_time = reap(pid, &status, in_time ? deadline : 0) && in_time;
  if (!in_time) {
    pbd_Status_SetError(s, kPbd_Status_Io,
                        "%s did not finish within %u s (stopped; a file it reads may be a FIFO "
                        "or a device)",
                        argv[0], io->time_limit);
    return -1;
  }
  if (k == (ssize_t)sizeof exec_errno) {
    if (exec_errno == ENOENT && install_hint)
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s (install %s)", argv[0], install_hint);
    else
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot run %s: %s", argv[0], strerror(exec_errno));
    return -1;
  }
  if (!WIFEXITED(status)) {
    pbd_Status_SetError(s, kPbd_Status_Io, "%s did not exit", argv[0]);
    return -1;
  }
  return WEXITSTATUS(status);
}
