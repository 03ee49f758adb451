#include "pbdiff/core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pbd_Status_Clear(pbd_Status *s) {
  if (!s) return;
  s->code = kPbd_Status_Ok;
  s->has_offset = false;
  s->offset = 0;
  s->msg[0] = '\0';
  s->path[0] = '\0';
}

static void set_va(pbd_Status *s, pbd_StatusCode code, const char *fmt, va_list ap) {
  s->code = code;
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  s->path[0] = '\0';
}

void pbd_Status_SetError(pbd_Status *s, pbd_StatusCode code, const char *fmt, ...) {
  if (!s) return;
  va_list ap;
  va_start(ap, fmt);
  set_va(s, code, fmt, ap);
  va_end(ap);
  s->has_offset = false;
}

void pbd_Status_SetErrorAt(pbd_Status *s, pbd_StatusCode code, size_t offset, const char *fmt,
                           ...) {
  if (!s) return;
  va_list ap;
  va_start(ap, fmt);
  set_va(s, code, fmt, ap);
  va_end(ap);
  s->has_offset = true;
  s->offset = offset;
}

void pbd_Status_PrependPath(pbd_Status *s, const char *seg) {
  if (!s) return;
  size_t sl = strlen(seg), pl = strlen(s->path);
  if (strncmp(s->path, "...", 3) == 0) return; /* already cut: the start is lost */
  bool dot = pl > 0 && s->path[0] != '[';
  size_t need = sl + (dot ? 1 : 0);
  if (need + pl + 1 > sizeof s->path) {
    /* Too deep to show whole: keep the innermost part, marked as cut. */
    if (pl + 4 > sizeof s->path) { /* make room: drop the outermost segment kept */
      char *dot_at = strchr(s->path, '.');
      if (!dot_at) return;
      pl -= (size_t)(dot_at - s->path);
      memmove(s->path, dot_at, pl + 1);
    }
    if (pl + 4 > sizeof s->path) return;
    memmove(s->path + 3, s->path, pl + 1);
    memcpy(s->path, "...", 3);
    if (s->path[3] == '.') memmove(s->path + 3, s->path + 4, pl); /* "...a", not "....a" */
    return;
  }
  memmove(s->path + need, s->path, pl + 1);
  memcpy(s->path, seg, sl);
  if (dot) s->path[sl] = '.';
}

const char *pbd_StatusCode_String(pbd_StatusCode code) {
  switch (code) {
    case kPbd_Status_Ok: return "ok";
    case kPbd_Status_Malformed: return "malformed input";
    case kPbd_Status_BadUtf8: return "invalid UTF-8";
    case kPbd_Status_MaxDepthExceeded: return "nesting too deep";
    case kPbd_Status_UnknownField: return "unknown field";
    case kPbd_Status_BadSchema: return "bad schema";
    case kPbd_Status_Io: return "I/O error";
    case kPbd_Status_OutOfMemory: return "out of memory";
    case kPbd_Status_Usage: return "usage error";
    case kPbd_Status_TooLarge: return "over a size bound";
  }
  return "error";
}

void pbd_Status_Format(const pbd_Status *s, const char *input_name, char *buf, size_t n) {
  int k = snprintf(buf, n, "%s%s%s", input_name ? input_name : "", input_name ? ": " : "",
                   s->msg[0] ? s->msg : pbd_StatusCode_String(s->code));
  if (k < 0 || (size_t)k >= n) return;
  if (s->has_offset) k += snprintf(buf + k, n - (size_t)k, " at byte %zu", s->offset);
  if (k < 0 || (size_t)k >= n) return;
  if (s->path[0]) snprintf(buf + k, n - (size_t)k, " (in %s)", s->path);
}
