/* pbdiff — running another program (protoc, git) without a shell: the one
 * place that forks, redirects, tells a program that could not start from
 * one that failed, and waits. */
#ifndef PBD_RUN_H_
#define PBD_RUN_H_

#include <stdbool.h>

#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the program's standard streams go; NULL or 0 members inherit ours.
 * Output goes to descriptors, never to files opened by name: a name in a
 * shared temporary directory can be a symbolic link planted by another
 * user (pbd_Run_TempFile makes a file that has no name at all). */
typedef struct {
  const char *stdin_path;   /* a file to read from, or NULL */
  int stdin_fd;             /* or a descriptor (> 0) to read from, from its offset */
  int stdout_fd;            /* a descriptor (> 0) to write to, or 0 */
  int stderr_fd;            /* a descriptor (> 0) to write to, or 0 */
  pbd_Buf *capture;         /* standard output into this buffer (stdout_fd 0) */
  bool quiet;               /* standard error (unless stderr_fd) and input to /dev/null */
  /* The most seconds the program may take; past them it is killed and
   * pbd_Run fails ("did not finish within N s").  0: no limit. */
  unsigned time_limit;
} pbd_RunIo;

/* The time limit of the protoc runs: $PBDIFF_PROTOC_TIMEOUT seconds, else
 * 120.  A .proto of a repository can import a FIFO or a device (a symbolic
 * link to /dev/tty), which protoc would wait on or read without end, and
 * git waits on pbdiff. */
unsigned pbd_Run_ProtocTimeLimit(void);

/* A new temporary file in $TMPDIR (else /tmp), open for reading and
 * writing, close-on-exec, and already unlinked: only its descriptor reaches
 * it.  -1 with an Io status when it cannot be made. */
int pbd_Run_TempFile(pbd_Status *s);
/* All of a file, from its start, appended to out (false on a read error or
 * out of memory). */
bool pbd_Run_ReadFd(int fd, pbd_Buf *out);

/* Runs argv[0], found on PATH, with argv and waits for it.  Returns its exit
 * status (0 to 255), or -1 with the status set when it could not be started
 * or did not exit: "cannot run protoc: No such file or directory", or, when
 * install_hint is given and the program is not there, "cannot run protoc
 * (install protobuf-compiler)". */
int pbd_Run(char *const argv[], const pbd_RunIo *io, const char *install_hint, pbd_Status *s);

#ifdef __cplusplus
}
#endif
#endif
