/* The core module (lib/core): the arena (alignment, zeroing, growth in place
 * and by copy, strndup, marks, fusing, large blocks), pbd_Buf (appends,
 * printf, truncation, growth, NUL termination), pbd_Status (errors with and
 * without offsets, path prefixing with dots and brackets, the cut of paths
 * too long to keep, the one-line form, NULL accepted) and the UTF-8
 * sequence check. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/core/base.h"
#include "pbdiff/core/status.h"
#include "testutil.h"

/* ---- arena ---------------------------------------------------------------- */

START_TEST(arena_alignment_and_zeroing) {
  pbd_Arena *a = pbd_Arena_New();
  ck_assert_ptr_nonnull(a);
  for (size_t size = 1; size < 100; size += 7) {
    uint8_t *p = pbd_Arena_Malloc(a, size);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 8, 0);
    memset(p, 0xab, size); /* the whole block is writable */
    uint8_t *z = pbd_Arena_Calloc(a, size);
    ck_assert_uint_eq((uintptr_t)z % 8, 0);
    for (size_t i = 0; i < size; i++) ck_assert_uint_eq(z[i], 0);
    ck_assert(z >= p + size || z + size <= p); /* no overlap */
  }
  /* allocations bigger than any block, and an absurd size */
  uint8_t *big = pbd_Arena_Malloc(a, 10u << 20);
  ck_assert_ptr_nonnull(big);
  big[0] = 1, big[(10u << 20) - 1] = 2;
  ck_assert_uint_ge(pbd_Arena_BytesReserved(a), 10u << 20);
  ck_assert_ptr_null(pbd_Arena_Malloc(a, SIZE_MAX - 4));
  pbd_Arena_Free(a);
  pbd_Arena_Free(NULL);
}
END_TEST

START_TEST(arena_realloc_and_strndup) {
  pbd_Arena *a = pbd_Arena_New();
  char *p = pbd_Arena_Malloc(a, 8);
  memcpy(p, "abcdefgh", 8);
  /* the last allocation grows in place when there is room */
  char *q = pbd_Arena_Realloc(a, p, 8, 16);
  ck_assert_ptr_eq(q, p);
  ck_assert(!memcmp(q, "abcdefgh", 8));
  /* not the last one: a copy keeps the content */
  char *other = pbd_Arena_Malloc(a, 8);
  char *r = pbd_Arena_Realloc(a, q, 16, 64);
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_ne(r, other);
  ck_assert(!memcmp(r, "abcdefgh", 8));
  /* much larger than a block */
  char *s = pbd_Arena_Realloc(a, r, 64, 1u << 20);
  ck_assert(!memcmp(s, "abcdefgh", 8));
  s[(1u << 20) - 1] = 'z';
  char *d = pbd_Arena_Strndup(a, "hello, world", 5);
  ck_assert_str_eq(d, "hello");
  d = pbd_Arena_Strndup(a, "", 0);
  ck_assert_str_eq(d, "");
  pbd_Arena_Free(a);
}
END_TEST

START_TEST(arena_mark_reset_fuse) {
  pbd_Arena *a = pbd_Arena_New();
  char *keep = pbd_Arena_Strndup(a, "kept", 4);
  pbd_ArenaMark m = pbd_Arena_Mark(a);
  char *first = pbd_Arena_Malloc(a, 32);
  for (int i = 0; i < 1000; i++) ck_assert_ptr_nonnull(pbd_Arena_Malloc(a, 1024)); /* new blocks */
  pbd_Arena_Reset(a, m);
  ck_assert_str_eq(keep, "kept");
  /* what came after the mark is released: the next allocation reuses it */
  char *again = pbd_Arena_Malloc(a, 32);
  ck_assert_ptr_eq(again, first);
  /* fusing: what `other` allocated lives as long as `a` */
  pbd_Arena *other = pbd_Arena_New();
  char *moved = pbd_Arena_Strndup(other, "moved", 5);
  size_t before = pbd_Arena_BytesReserved(a);
  pbd_Arena_Fuse(a, other);
  ck_assert_uint_gt(pbd_Arena_BytesReserved(a), before);
  ck_assert_str_eq(moved, "moved");
  ck_assert_str_eq(keep, "kept");
  pbd_Arena_Free(a); /* frees both (LeakSanitizer checks under make test-asan) */
}
END_TEST

/* Two arenas share one bound: together they get no block past it, the
 * refusal is remembered and named, and freed blocks give their bytes back. */
START_TEST(arena_budget_bounds_arenas_together) {
  pbd_MemBudget *b = pbd_MemBudget_New(1 << 20);
  pbd_Arena *x = pbd_Arena_New(), *y = pbd_Arena_New();
  pbd_Arena_SetBudget(x, b);
  pbd_Arena_SetBudget(y, b);
  ck_assert_ptr_eq(pbd_Arena_Budget(y), b);
  ck_assert_ptr_nonnull(pbd_Arena_Malloc(x, 600 << 10));
  ck_assert(!pbd_MemBudget_Exceeded(b));
  ck_assert_ptr_null(pbd_Arena_Malloc(y, 600 << 10)); /* x holds 600 KiB of the 1 MiB */
  ck_assert(pbd_MemBudget_Exceeded(b));
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Status_SetErrorAt(&s, kPbd_Status_OutOfMemory, 42, "out of memory");
  pbd_MemBudget_SayExceeded(b, &s);
  ck_assert_int_eq(s.code, kPbd_Status_TooLarge);
  ck_assert_str_eq(s.msg, "memory bound of 1 MiB reached reading the message at byte 42 "
                          "(--max-memory N raises it)");
  ck_assert(!s.has_offset); /* said once, in the message */
  pbd_Arena_Free(x); /* its bytes return to the budget */
  ck_assert_ptr_nonnull(pbd_Arena_Malloc(y, 600 << 10));
  /* a mark/reset releases blocks (one is kept as spare, still counted) */
  pbd_ArenaMark m = pbd_Arena_Mark(y);
  ck_assert_ptr_nonnull(pbd_Arena_Malloc(y, 100 << 10));
  pbd_Arena_Reset(y, m);
  /* fusing into an arena with no bound moves the bytes off the budget */
  pbd_Arena *z = pbd_Arena_New();
  pbd_Arena_Fuse(z, y);
  pbd_Arena *w = pbd_Arena_New();
  pbd_Arena_SetBudget(w, b);
  ck_assert_ptr_nonnull(pbd_Arena_Malloc(w, 900 << 10));
  pbd_Arena_Free(w);
  pbd_Arena_Free(z);
  pbd_MemBudget_Free(b);
}
END_TEST

/* A large request gets a block of its own, asked for in huge pages: the
 * whole of it is there to write, the allocations around it are untouched,
 * and the budget counts it like any block. */
START_TEST(arena_large_block_is_whole) {
  pbd_MemBudget *b = pbd_MemBudget_New(64u << 20);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Arena_SetBudget(a, b);
  uint8_t *before = pbd_Arena_Malloc(a, 100);
  memset(before, 0x11, 100);
  size_t n = (9u << 20) + 123; /* not a whole number of huge pages */
  uint8_t *big = pbd_Arena_Malloc(a, n);
  ck_assert_ptr_nonnull(big);
  for (size_t i = 0; i < n; i++) big[i] = (uint8_t)(i * 31);
  uint8_t *after = pbd_Arena_Malloc(a, 100);
  memset(after, 0x22, 100);
  for (size_t i = 0; i < n; i += 4093) ck_assert_uint_eq(big[i], (uint8_t)(i * 31));
  ck_assert_uint_eq(big[n - 1], (uint8_t)((n - 1) * 31));
  for (int i = 0; i < 100; i++) ck_assert_uint_eq(before[i], 0x11);
  ck_assert_uint_ge(pbd_Arena_BytesReserved(a), n);
  ck_assert_ptr_null(pbd_Arena_Malloc(a, 60u << 20)); /* past the bound, large or not */
  pbd_Arena_Free(a);
  pbd_MemBudget_Free(b);
}
END_TEST

/* ---- pbd_Buf --------------------------------------------------------------- */

START_TEST(buf_appends) {
  pbd_Buf b = {0};
  pbd_Buf_Append(&b, "ab", 2);
  pbd_Buf_AppendStr(&b, "cd");
  pbd_Buf_AppendChar(&b, 'e');
  pbd_Buf_Printf(&b, "[%d:%s]", 42, "x");
  ck_assert_uint_eq(b.len, 11);
  ck_assert_str_eq(b.data, "abcde[42:x]");
  pbd_Buf_Append(&b, "\0z", 2); /* bytes, NULs included */
  ck_assert_uint_eq(b.len, 13);
  ck_assert(!memcmp(b.data + 11, "\0z", 3)); /* and still NUL-terminated */
  pbd_Buf_Truncate(&b, 3);
  ck_assert_uint_eq(b.len, 3);
  ck_assert_str_eq(b.data, "abc");
  pbd_Buf_Truncate(&b, 10); /* longer than it is: nothing */
  ck_assert_uint_eq(b.len, 3);
  /* growth over many appends, and a long printf */
  for (int i = 0; i < 10000; i++) pbd_Buf_AppendChar(&b, (char)('a' + i % 26));
  ck_assert_uint_eq(b.len, 10003);
  ck_assert_uint_eq(strlen(b.data), 10003);
  ck_assert_int_eq(b.data[10002], 'a' + 9999 % 26);
  char big[5000];
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  pbd_Buf_Printf(&b, "<%s>", big);
  ck_assert_uint_eq(b.len, 10003 + 5001);
  ck_assert_int_eq(b.data[b.len - 1], '>');
  ck_assert(!b.oom);
  pbd_Buf_Free(&b);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
  /* empty appends still make a string */
  pbd_Buf e = {0};
  pbd_Buf_AppendStr(&e, "");
  ck_assert_ptr_nonnull(e.data);
  ck_assert_str_eq(e.data, "");
  pbd_Buf_Free(&e);
}
END_TEST

/* ---- pbd_Status ------------------------------------------------------------ */

static const char *formatted(const pbd_Status *s, const char *input) {
  static char buf[1200];
  pbd_Status_Format(s, input, buf, sizeof buf);
  return buf;
}

START_TEST(status_errors_and_format) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Status_IsOk(&s));
  ck_assert_str_eq(formatted(&s, NULL), "ok");
  pbd_Status_SetErrorAt(&s, kPbd_Status_Malformed, 17, "truncated varint (field %d)", 3);
  ck_assert(!pbd_Status_IsOk(&s));
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  ck_assert(s.has_offset);
  ck_assert_uint_eq(s.offset, 17);
  ck_assert_str_eq(formatted(&s, "in.pb"), "in.pb: truncated varint (field 3) at byte 17");
  pbd_Status_PrependPath(&s, "b");
  pbd_Status_PrependPath(&s, "a");
  ck_assert_str_eq(formatted(&s, "in.pb"), "in.pb: truncated varint (field 3) at byte 17 (in a.b)");
  ck_assert_str_eq(formatted(&s, NULL), "truncated varint (field 3) at byte 17 (in a.b)");
  /* a new error starts afresh: no offset, no path */
  pbd_Status_SetError(&s, kPbd_Status_Io, "cannot open");
  ck_assert(!s.has_offset);
  ck_assert_str_eq(s.path, "");
  ck_assert_str_eq(formatted(&s, "x"), "x: cannot open");
  /* no message: the code's name */
  pbd_Status_SetError(&s, kPbd_Status_OutOfMemory, "%s", "");
  ck_assert_str_eq(formatted(&s, "x"), "x: out of memory");
  /* a small buffer is cut, still terminated */
  pbd_Status_SetErrorAt(&s, kPbd_Status_BadUtf8, 5, "invalid UTF-8");
  char small[10];
  pbd_Status_Format(&s, "file.pb", small, sizeof small);
  ck_assert_str_eq(small, "file.pb: ");
  /* setters accept NULL */
  pbd_Status_Clear(NULL);
  pbd_Status_SetError(NULL, kPbd_Status_Usage, "x");
  pbd_Status_SetErrorAt(NULL, kPbd_Status_Usage, 1, "x");
  pbd_Status_PrependPath(NULL, "a");
  ck_assert_str_eq(pbd_StatusCode_String(kPbd_Status_MaxDepthExceeded), "nesting too deep");
  ck_assert_str_eq(pbd_StatusCode_String(kPbd_Status_UnknownField), "unknown field");
  ck_assert_str_eq(pbd_StatusCode_String((pbd_StatusCode)99), "error");
}
END_TEST

START_TEST(status_path_prefixing) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  /* fields join with dots; an index or key is glued on without one */
  pbd_Status_PrependPath(&s, "s");
  pbd_Status_PrependPath(&s, "inner");
  ck_assert_str_eq(s.path, "inner.s");
  pbd_Status_Clear(&s);
  pbd_Status_PrependPath(&s, "name");
  pbd_Status_PrependPath(&s, "[1]");
  pbd_Status_PrependPath(&s, "rs");
  ck_assert_str_eq(s.path, "rs[1].name");
  pbd_Status_Clear(&s);
  pbd_Status_PrependPath(&s, "[\"k\"]");
  pbd_Status_PrependPath(&s, "ms");
  ck_assert_str_eq(s.path, "ms[\"k\"]");
}
END_TEST

/* A path too long for the status keeps its innermost part, marked "...". */
START_TEST(status_path_cut) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Status_PrependPath(&s, "leaf");
  for (int i = 0; i < 200; i++) pbd_Status_PrependPath(&s, "child");
  size_t n = strlen(s.path);
  ck_assert_uint_lt(n, sizeof s.path);
  ck_assert_msg(!strncmp(s.path, "...child.", 9), "%s", s.path);
  ck_assert_str_eq(s.path + n - 11, ".child.leaf");
  /* once cut, outer segments are not added (the start is lost) */
  char before[sizeof s.path];
  strcpy(before, s.path);
  pbd_Status_PrependPath(&s, "root");
  ck_assert_str_eq(s.path, before);
  /* one huge segment on a long path */
  pbd_Status_Clear(&s);
  char seg[300];
  memset(seg, 'x', sizeof seg - 1);
  seg[sizeof seg - 1] = '\0';
  pbd_Status_PrependPath(&s, seg);
  pbd_Status_PrependPath(&s, seg);
  ck_assert_uint_lt(strlen(s.path), sizeof s.path);
  ck_assert(!strncmp(s.path, "...", 3));
}
END_TEST

/* ---- UTF-8 ----------------------------------------------------------------- */

static size_t utf8_len(const char *hex) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  size_t k = pbd_Utf8_SequenceLength(b, n);
  free(b);
  return k;
}

START_TEST(utf8_sequences) {
  ck_assert_uint_eq(utf8_len("41"), 1);
  ck_assert_uint_eq(utf8_len("00"), 1);
  ck_assert_uint_eq(utf8_len("c3 a9"), 2);           /* é */
  ck_assert_uint_eq(utf8_len("e2 82 ac"), 3);        /* € */
  ck_assert_uint_eq(utf8_len("f0 9f 98 80"), 4);     /* U+1F600 */
  ck_assert_uint_eq(utf8_len("f4 8f bf bf"), 4);     /* U+10FFFF */
  ck_assert_uint_eq(utf8_len("c3 a9 41"), 2);        /* only the first sequence */
  ck_assert_uint_eq(utf8_len(""), 0);
  ck_assert_uint_eq(utf8_len("80"), 0);              /* stray continuation */
  ck_assert_uint_eq(utf8_len("c0 80"), 0);           /* overlong NUL */
  ck_assert_uint_eq(utf8_len("c1 bf"), 0);
  ck_assert_uint_eq(utf8_len("e0 80 80"), 0);        /* overlong 3-byte */
  ck_assert_uint_eq(utf8_len("f0 80 80 80"), 0);     /* overlong 4-byte */
  ck_assert_uint_eq(utf8_len("ed a0 80"), 0);        /* surrogate U+D800 */
  ck_assert_uint_eq(utf8_len("ed 9f bf"), 3);        /* U+D7FF */
  ck_assert_uint_eq(utf8_len("f4 90 80 80"), 0);     /* above U+10FFFF */
  ck_assert_uint_eq(utf8_len("f5 80 80 80"), 0);
  ck_assert_uint_eq(utf8_len("ff"), 0);
  ck_assert_uint_eq(utf8_len("c3"), 0);              /* truncated */
  ck_assert_uint_eq(utf8_len("e2 82"), 0);
  ck_assert_uint_eq(utf8_len("e2 28 a1"), 0);        /* bad continuation */
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("core");
  TCase *t = tcase_create("core");
  tcase_add_test(t, arena_alignment_and_zeroing);
  tcase_add_test(t, arena_realloc_and_strndup);
  tcase_add_test(t, arena_mark_reset_fuse);
  tcase_add_test(t, arena_budget_bounds_arenas_together);
  tcase_add_test(t, arena_large_block_is_whole);
  tcase_add_test(t, buf_appends);
  tcase_add_test(t, status_errors_and_format);
  tcase_add_test(t, status_path_prefixing);
  tcase_add_test(t, status_path_cut);
  tcase_add_test(t, utf8_sequences);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
