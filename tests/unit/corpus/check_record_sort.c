/* The join's order (lib/corpus/record_join.c) held to a plain comparison
 * sort of the same records: bytewise by key, a key before its extensions,
 * then by source and index.  The index sorts by a radix sort on 8 bytes
 * after the prefix all keys share, then compares whole keys only where
 * those 8 bytes tie: keys that share long prefixes, empty keys, keys longer
 * than 8 bytes past the shared prefix, keys that hold NUL and 0xff bytes,
 * keys that are prefixes of others (a NUL-padded prefix ties with them). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/corpus/records.h"
#include "testutil.h"

typedef struct {
  char key[48];
  size_t len;
  uint32_t source;
  size_t index;
} Ref;

static int compare_refs(const void *pa, const void *pb) {
  const Ref *a = pa, *b = pb;
  int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
  if (c) return c;
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  if (a->source != b->source) return a->source < b->source ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

typedef struct {
  pbd_Buf out;
} Seen;

/* One line per record of LEFT, in the order the join hands them out. */
static int note_left(void *ctx, const pbd_RecordPair *p) {
  Seen *s = ctx;
  if (!p->left) return 0;
  pbd_Buf_Printf(&s->out, "%zu:", p->key_len);
  for (size_t i = 0; i < p->key_len; i++) pbd_Buf_Printf(&s->out, "%02x", (unsigned char)p->key[i]);
  pbd_Buf_Printf(&s->out, "@%u.%zu/%llx\n", p->left->source, p->left->index,
                 (unsigned long long)p->left->hash.lo);
  return 0;
}

/* The first line where got and want part, so that a failure stays short. */
static void expect_same_lines(const char *got, const char *want) {
  size_t i = 0, line = 0;
  while (got[i] && got[i] == want[i]) line = got[i++] == '\n' ? i : line;
  if (!got[i] && !want[i]) return;

  ck_abort_msg("join order differs at \"%.80s\", expected \"%.80s\"", got + line, want + line);
}

static void expect_join_order(Ref *refs, size_t n) {
  pbd_RecordIndex *l = pbd_RecordIndex_New(), *r = pbd_RecordIndex_New();
  for (size_t i = 0; i < n; i++) {
    pbd_Hash128 h = {i * 7919 + 1, i};
    ck_assert(pbd_RecordIndex_Add(l, refs[i].key, refs[i].len, refs[i].source, refs[i].index, h));
  }
  Seen got = {{0}}, want = {{0}};
  ck_assert_int_eq(pbd_Records_Join(l, r, note_left, &got), 0);
  /* the reference: the records sorted by a comparison sort, each with the
   * hash it was added with */
  size_t *pos = malloc(n * sizeof *pos);
  Ref *sorted = malloc(n * sizeof *sorted);
  memcpy(sorted, refs, n * sizeof *refs);
  qsort(sorted, n, sizeof *sorted, compare_refs);
  for (size_t k = 0; k < n; k++) {
    size_t i = 0;
    while (compare_refs(&refs[i], &sorted[k]) != 0) i++; /* refs are unique */
    pos[k] = i;
    pbd_Buf_Printf(&want.out, "%zu:", sorted[k].len);
    for (size_t b = 0; b < sorted[k].len; b++)
      pbd_Buf_Printf(&want.out, "%02x", (unsigned char)sorted[k].key[b]);
    pbd_Buf_Printf(&want.out, "@%u.%zu/%llx\n", sorted[k].source, sorted[k].index,
                   (unsigned long long)(pos[k] * 7919 + 1));
  }
  expect_same_lines(got.out.data ? got.out.data : "", want.out.data ? want.out.data : "");
  pbd_Buf_Free(&got.out);
  pbd_Buf_Free(&want.out);
  free(pos);
  free(sorted);
  pbd_RecordIndex_Free(l);
  pbd_RecordIndex_Free(r);
}

static void put(Ref *r, const void *key, size_t len, uint32_t source, size_t index) {
  memset(r, 0, sizeof *r);
  memcpy(r->key, key, len);
  r->len = len;
  r->source = source;
  r->index = index;
}

START_TEST(radix_order_is_the_comparison_order) {
  enum { kN = 3000 };
  Ref *refs = malloc(kN * sizeof *refs);
  unsigned seed = 12345;
  size_t n = 0;
  /* keys with a long shared prefix, differing past 8 bytes after it */
  for (size_t i = 0; i < 600; i++) {
    char k[48];
    int len = snprintf(k, sizeof k, "id=\"r-%zu-0000000000-%zu\"", i % 37, i);
    put(&refs[n++], k, (size_t)len, 0, i);
  }
  /* binary keys: NUL and 0xff bytes, random lengths from 0 to 40 */
  for (size_t i = 0; i < 1500; i++) {
    unsigned char k[40];
    seed = seed * 1103515245u + 12345u;
    size_t len = (seed >> 16) % 41;
    for (size_t b = 0; b < len; b++) {
      seed = seed * 1103515245u + 12345u;
      unsigned v = (seed >> 16) % 4;
      k[b] = v == 0 ? 0x00 : v == 1 ? 0xff : v == 2 ? 'a' : (unsigned char)(seed >> 24);
    }
    put(&refs[n++], k, len, 1, i);
  }
  /* a key, its NUL-extended forms and its extensions; the empty key twice */
  static const char *const kFamily[] = {"ab", "ab\0", "ab\0\0", "abc", "a", "", "ab\xff"};
  static const size_t kLen[] = {2, 3, 4, 3, 1, 0, 3};
  for (size_t f = 0; f < 7; f++)
    for (uint32_t s = 0; s < 3; s++) put(&refs[n++], kFamily[f], kLen[f], 2 - s, 100000 + f);
  /* duplicates of one key from several sources, added out of order */
  for (size_t i = 0; i < 50; i++) put(&refs[n++], "dup-key-long-enough-to-pass", 27,
                                      (uint32_t)(i % 5), 1000 - i);
  expect_join_order(refs, n);
  free(refs);
}
END_TEST

START_TEST(radix_order_when_every_key_is_alike_or_empty) {
  Ref refs[64];
  for (size_t i = 0; i < 32; i++) put(&refs[i], "", 0, (uint32_t)(i % 3), 31 - i);
  for (size_t i = 32; i < 64; i++) put(&refs[i], "same-key-of-more-than-8", 23, 0, i);
  expect_join_order(refs, 32);      /* only empty keys */
  expect_join_order(refs + 32, 32); /* one key, 32 duplicates */
  expect_join_order(refs, 64);
  expect_join_order(refs, 1);
}
END_TEST

/* The join pairs by key after the sort: the k-th of LEFT with the k-th of
 * RIGHT, records on one side only alone. */
static int note_pairs(void *ctx, const pbd_RecordPair *p) {
  pbd_Buf *b = ctx;
  pbd_Buf_Printf(b, "[%.*s]#%zu ", (int)p->key_len, p->key, p->occurrence);
  if (p->left) pbd_Buf_Printf(b, "%zu", p->left->index);
  pbd_Buf_AppendStr(b, "/");
  if (p->right) pbd_Buf_Printf(b, "%zu", p->right->index);
  pbd_Buf_AppendStr(b, " ");
  return 0;
}

START_TEST(sorted_early_joins_the_same) {
  pbd_RecordIndex *l = pbd_RecordIndex_New(), *r = pbd_RecordIndex_New();
  pbd_Hash128 h = {1, 2};
  const char *lk[] = {"k-10", "k-9", "", "k-1", "k-10"}, *rk[] = {"k-9", "k-10", "k-2", ""};
  for (size_t i = 0; i < 5; i++) ck_assert(pbd_RecordIndex_Add(l, lk[i], strlen(lk[i]), 0, i, h));
  for (size_t i = 0; i < 4; i++) ck_assert(pbd_RecordIndex_Add(r, rk[i], strlen(rk[i]), 0, i, h));
  ck_assert(pbd_RecordIndex_Sort(l)); /* as a side's own thread does */
  ck_assert(!pbd_RecordIndex_Add(l, "late", 4, 0, 9, h)); /* sorted: closed */
  pbd_Buf b = {0};
  ck_assert_int_eq(pbd_Records_Join(l, r, note_pairs, &b), -1); /* the failed Add counts */
  pbd_RecordIndex_Free(l);
  l = pbd_RecordIndex_New();
  for (size_t i = 0; i < 5; i++) ck_assert(pbd_RecordIndex_Add(l, lk[i], strlen(lk[i]), 0, i, h));
  ck_assert(pbd_RecordIndex_Sort(l));
  ck_assert(pbd_RecordIndex_Sort(l)); /* twice: the same order */
  ck_assert_int_eq(pbd_Records_Join(l, r, note_pairs, &b), 0);
  ck_assert_str_eq(b.data, "[]#0 2/3 [k-1]#0 3/ [k-10]#0 0/1 [k-10]#1 4/ [k-2]#0 /2 [k-9]#0 1/0 ");
  pbd_Buf_Free(&b);
  pbd_RecordIndex_Free(l);
  pbd_RecordIndex_Free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("record_sort");
  TCase *t = tcase_create("record_sort");
  tcase_add_test(t, radix_order_is_the_comparison_order);
  tcase_add_test(t, radix_order_when_every_key_is_alike_or_empty);
  tcase_add_test(t, sorted_early_joins_the_same);
  suite_add_tcase(s, t);
  return tu_main(s);
}
