/* pbdiff — status object: an error code, a message, the byte offset where
 * the input went wrong and, where known, the path of the field being read.
 * Like upb_Status: setters accept NULL and then do nothing. */
#ifndef PBD_STATUS_H_
#define PBD_STATUS_H_

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_Status_Ok = 0,
  kPbd_Status_Malformed,        /* the wire bytes break the encoding */
  kPbd_Status_BadUtf8,          /* a proto3 string is not valid UTF-8 */
  kPbd_Status_MaxDepthExceeded, /* nesting over the limit */
  kPbd_Status_UnknownField,     /* --strict and an unknown field was met */
  kPbd_Status_BadSchema,        /* the descriptor set is malformed or inconsistent */
  kPbd_Status_Io,               /* reading a file failed */
  kPbd_Status_OutOfMemory,
  kPbd_Status_Usage,            /* bad option or argument */
  kPbd_Status_TooLarge,         /* a bound on size or memory was reached */
} pbd_StatusCode;

typedef struct {
  pbd_StatusCode code;
  bool has_offset;
  size_t offset;   /* byte offset in the input, when has_offset */
  char msg[512];   /* what went wrong, without file name or offset */
  char path[512];  /* field path where the error happened, "" if unknown */
} pbd_Status;

void pbd_Status_Clear(pbd_Status *s);
static inline bool pbd_Status_IsOk(const pbd_Status *s) { return s->code == kPbd_Status_Ok; }
void pbd_Status_SetError(pbd_Status *s, pbd_StatusCode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pbd_Status_SetErrorAt(pbd_Status *s, pbd_StatusCode code, size_t offset, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
/* Prepends one path segment while an error unwinds through nested messages.
 * A segment starting with '[' (an index or key) is glued on without a dot. */
void pbd_Status_PrependPath(pbd_Status *s, const char *segment);
const char *pbd_StatusCode_String(pbd_StatusCode code);
/* Writes the one-line form "INPUT: MSG at byte N (in PATH)" into buf. */
void pbd_Status_Format(const pbd_Status *s, const char *input_name, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
