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

/* Where the program's standard streams go; NULL members inherit ours. */
typedef struct {
  const char *stdin_path;   /* a file to read from, or NULL */
  const char *stdout_path;  /* a file to write to (truncated), or NULL */
  const char *stderr_path;  /* a file to write to (truncated), or NULL */
  pbd_Buf *capture;         /* standard output into this buffer (stdout_path NULL) */
  bool quiet;               /* standard error (unless stderr_path) and input to /dev/null */
} pbd_RunIo;

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
