/* pbdiff — base types shared by every module: byte views, 128-bit hashes,
 * a growable output buffer.  No allocation policy lives here except the
 * buffer's own (plain malloc, freed with pbd_Buf_Free). */
#ifndef PBD_BASE_H_
#define PBD_BASE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A view of bytes owned by someone else (usually the mapped input). */
typedef struct {
  const char *data;
  size_t size;
} pbd_StrView;

/* A 128-bit subtree hash (XXH3-128). */
typedef struct {
  uint64_t lo, hi;
} pbd_Hash128;

static inline bool pbd_Hash128_Equal(pbd_Hash128 a, pbd_Hash128 b) {
  return a.lo == b.lo && a.hi == b.hi;
}

/* Length (1..4) of the well-formed UTF-8 sequence at p[0..n), or 0 when the
 * bytes there are not one: stray continuation bytes, truncated sequences,
 * overlong forms, surrogates and code points above U+10FFFF are rejected
 * (RFC 3629). */
size_t pbd_Utf8_SequenceLength(const unsigned char *p, size_t n);

/* 64 random bits from the system (getrandom), for per-run hash seeds; falls
 * back to time and process id when the system has none to give. */
uint64_t pbd_RandomSeed(void);

/* A growable, NUL-terminated byte buffer.  Zero-initialise it ({0}) before
 * use.  On allocation failure `oom` is set and further appends are ignored,
 * so callers check once at the end. */
typedef struct {
  char *data;
  size_t len, cap;
  bool oom;
} pbd_Buf;

void pbd_Buf_Append(pbd_Buf *b, const char *s, size_t n);
void pbd_Buf_AppendStr(pbd_Buf *b, const char *s);
void pbd_Buf_AppendChar(pbd_Buf *b, char c);
void pbd_Buf_Printf(pbd_Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Truncates to `len` bytes (len <= b->len). */
void pbd_Buf_Truncate(pbd_Buf *b, size_t len);
void pbd_Buf_Free(pbd_Buf *b);

#ifdef __cplusplus
}
#endif
#endif
