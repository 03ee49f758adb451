/* pbdiff — input files: mapped read-only, never copied (standard input,
 * which cannot be mapped, is read into a buffer). */
#ifndef PBD_INPUT_H_
#define PBD_INPUT_H_

#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;     /* as given; "-" is standard input */
  const uint8_t *data;  /* size bytes; never NULL after a successful open */
  size_t size;
  int kind_;            /* internal: how to release */
  int slot_;            /* internal: the mapping's place in the SIGBUS registry */
} pbd_Input;

/* Opens `path` ("-" for standard input).  Returns false with an Io status
 * naming the system error. */
bool pbd_Input_Open(pbd_Input *in, const char *path, pbd_Status *s);
/* The most an input may hold by default: protobuf's own limit for one
 * message (2 GiB), so that /dev/zero or an endless pipe is refused, not
 * read until memory runs out (docs/limits.md). */
#define PBD_DEFAULT_MAX_INPUT_BYTES ((size_t)2 << 30)
/* pbd_Input_Open with a limit: an input over max_bytes is an error. */
bool pbd_Input_OpenMax(pbd_Input *in, const char *path, size_t max_bytes, pbd_Status *s);
void pbd_Input_Close(pbd_Input *in);
/* A regular file is mapped; if another process truncates it while it is
 * mapped, reading past its new end would raise SIGBUS.  pbdiff's handler
 * (installed by the first mapping) turns the rest of the mapping into zero
 * bytes instead and marks the input: the comparison then reads zeros,
 * so a caller checks pbd_Input_WasTruncated before trusting a result. */
bool pbd_Input_WasTruncated(const pbd_Input *in);
/* A function for the handler to call with the input's name when it finds
 * one cut short (NULL: none).  It runs in the signal handler, so it may only
 * do what is async-signal-safe (write(2), _exit(2)); the pbdiff command's
 * writes one line and exits with status 2. */
void pbd_Input_OnTruncated(void (*fn)(const char *name));
/* Gives back the pages that hold in's bytes [begin, end) to the operating
 * system (only pages wholly inside the range).  For a mapped file they
 * leave the process's memory but not the page cache: a later read maps
 * them again, unchanged, without reading the disk.  An input read into
 * memory (standard input, a pipe) keeps its bytes.  A corpus's key pass
 * calls it behind itself, so that its inputs are not held while its index
 * grows (docs/scale.md, "Corpora"). */
void pbd_Input_Release(const pbd_Input *in, size_t begin, size_t end);
/* The name to show in messages: the path, or "standard input" for "-". */
const char *pbd_Input_DisplayName(const pbd_Input *in);

#ifdef __cplusplus
}
#endif
#endif
