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
/* The name to show in messages: the path, or "standard input" for "-". */
const char *pbd_Input_DisplayName(const pbd_Input *in);

#ifdef __cplusplus
}
#endif
#endif
