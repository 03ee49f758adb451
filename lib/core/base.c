#include "pbdiff/core/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static bool buf_reserve(pbd_Buf *b, size_t extra) {
  if (b->oom) return false;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void pbd_Buf_Append(pbd_Buf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void pbd_Buf_AppendStr(pbd_Buf *b, const char *s) { pbd_Buf_Append(b, s, strlen(s)); }

void pbd_Buf_AppendChar(pbd_Buf *b, char c) { pbd_Buf_Append(b, &c, 1); }

void pbd_Buf_Printf(pbd_Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[128];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    pbd_Buf_Append(b, small, (size_t)n);
    return;
  }
  if (!buf_reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void pbd_Buf_Truncate(pbd_Buf *b, size_t len) {
  if (len < b->len) {
    b->len = len;
    b->data[len] = '\0';
  }
}

void pbd_Buf_Free(pbd_Buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = false;
}

/* Unicode table 3-7: the allowed range of the second byte depends on the
 * first, which excludes overlongs, surrogates and values over U+10FFFF. */
size_t pbd_Utf8_SequenceLength(const unsigned char *p, size_t n) {
  if (n == 0) return 0;
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;      /* overlong */
    else if (c == 0xED) hi = 0x9F; /* surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;      /* overlong */
    else if (c == 0xF4) hi = 0x8F; /* > U+10FFFF */
  } else {
    return 0; /* continuation byte, C0/C1 (overlong), F5..FF */
  }
  if (n < len) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; i++) {
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  }
  return len;
}

uint64_t pbd_RandomSeed(void) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed) return seed;
  return (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}
