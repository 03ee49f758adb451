/* Sequence alignment (lib/diff/align.c): the matched pairs are valid, optimal on
 * small inputs (checked against a dynamic-programming LCS), and near linear
 * on long lists with few edits. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pbdiff/diff/align.h"
#include "testutil.h"

static pbd_Hash128 h(uint64_t v) { return (pbd_Hash128){v * 0x9E3779B97F4A7C15ull + 1, v}; }

static size_t lcs_dp(const uint64_t *a, size_t n, const uint64_t *b, size_t m) {
  size_t *row = calloc((m + 1) * (n + 1), sizeof *row);
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t *c = &row[i * (m + 1) + j];
      if (a[i - 1] == b[j - 1]) *c = row[(i - 1) * (m + 1) + j - 1] + 1;
      else {
        size_t up = row[(i - 1) * (m + 1) + j], left = row[i * (m + 1) + j - 1];
        *c = up > left ? up : left;
      }
    }
  size_t r = row[n * (m + 1) + m];
  free(row);
  return r;
}

static void check_valid(const pbd_Hash128 *a, const pbd_Hash128 *b, const pbd_AlignPair *p,
                        size_t np) {
  for (size_t k = 0; k < np; k++) {
    ck_assert(pbd_Hash128_Equal(a[p[k].a], b[p[k].b]));
    if (k) ck_assert(p[k].a > p[k - 1].a && p[k].b > p[k - 1].b);
  }
}

START_TEST(align_optimal_small) {
  srand(42);
  for (int round = 0; round < 2000; round++) {
    size_t n = (size_t)(rand() % 30), m = (size_t)(rand() % 30);
    int alphabet = 1 + rand() % 6;
    uint64_t va[32], vb[32];
    pbd_Hash128 a[32], b[32];
    for (size_t i = 0; i < n; i++) a[i] = h(va[i] = (uint64_t)(rand() % alphabet));
    for (size_t i = 0; i < m; i++) b[i] = h(vb[i] = (uint64_t)(rand() % alphabet));
    pbd_AlignPair *p;
    size_t np;
    ck_assert(pbd_Align_Sequences(a, n, b, m, &p, &np));
    check_valid(a, b, p, np);
    ck_assert_uint_eq(np, lcs_dp(va, n, vb, m));
    free(p);
  }
}
END_TEST

/* Medium lists (patience anchors come into play): valid pairs, and with
 * unique elements (a permutation with edits) as many as the LCS. */
START_TEST(align_medium) {
  srand(7);
  for (int round = 0; round < 200; round++) {
    size_t n = 64 + (size_t)(rand() % 200), m = 0;
    uint64_t va[300], vb[600];
    pbd_Hash128 a[300], b[600];
    for (size_t i = 0; i < n; i++) a[i] = h(va[i] = i);
    for (size_t i = 0; i < n; i++) {
      int r = rand() % 20;
      if (r == 0) continue;                              /* delete */
      if (r == 1) b[m] = h(vb[m] = 1000 + i), m++;       /* insert */
      b[m] = h(vb[m] = r == 2 ? 5000 + i : va[i]), m++;  /* change or keep */
    }
    pbd_AlignPair *p;
    size_t np;
    ck_assert(pbd_Align_Sequences(a, n, b, m, &p, &np));
    check_valid(a, b, p, np);
    ck_assert_uint_eq(np, lcs_dp(va, n, vb, m));
    free(p);
  }
}
END_TEST

START_TEST(align_long_few_edits) {
  enum { N = 100000 };
  pbd_Hash128 *a = malloc(sizeof *a * N), *b = malloc(sizeof *b * (N + 2));
  for (size_t i = 0; i < N; i++) a[i] = h(i);
  /* b: insert at 10, delete 50000, change 90000 */
  size_t m = 0;
  for (size_t i = 0; i < N; i++) {
    if (i == 10) b[m++] = h(1000000);
    if (i == 50000) continue;
    b[m++] = i == 90000 ? h(2000000) : h(i);
  }
  clock_t t0 = clock();
  pbd_AlignPair *p;
  size_t np;
  ck_assert(pbd_Align_Sequences(a, N, b, m, &p, &np));
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  check_valid(a, b, p, np);
  ck_assert_uint_eq(np, N - 2); /* all but the deleted and the changed */
  ck_assert_msg(secs < 5, "took %.2f s", secs); /* a hang guard, not a benchmark */
  free(p);
  /* many duplicates: no unique anchors, all-equal runs */
  for (size_t i = 0; i < N; i++) a[i] = h(i % 3);
  for (size_t i = 0; i < N; i++) b[i] = h((i + 1) % 3);
  ck_assert(pbd_Align_Sequences(a, N, b, N, &p, &np));
  check_valid(a, b, p, np);
  ck_assert_uint_eq(np, N - 1);
  free(p);
  /* totally different: the cost bound keeps it fast, nothing matched */
  for (size_t i = 0; i < N; i++) b[i] = h(N + i);
  t0 = clock();
  ck_assert(pbd_Align_Sequences(a, N, b, N, &p, &np));
  ck_assert_uint_eq(np, 0);
  ck_assert(((double)(clock() - t0) / CLOCKS_PER_SEC) < 10);
  free(p);
  free(a);
  free(b);
}
END_TEST

/* Long lists: one insertion at the front, middle or end, one deletion, one
 * move: the pairs leave out exactly the edited elements. */
START_TEST(align_long_edits) {
  enum { N = 20000 };
  pbd_Hash128 *a = malloc(sizeof *a * N), *b = malloc(sizeof *b * (N + 1));
  for (size_t i = 0; i < N; i++) a[i] = h(i);
  size_t where[] = {0, N / 2, N};
  for (int w = 0; w < 3; w++) {
    size_t m = 0;
    for (size_t i = 0; i <= N; i++) {
      if (i == where[w]) b[m++] = h(7777777);
      if (i < N) b[m++] = a[i];
    }
    pbd_AlignPair *p;
    size_t np;
    ck_assert(pbd_Align_Sequences(a, N, b, m, &p, &np));
    check_valid(a, b, p, np);
    ck_assert_uint_eq(np, N); /* every old element matched: one insertion */
    free(p);
    /* deletion at the same place */
    m = 0;
    for (size_t i = 0; i < N; i++)
      if (i != (where[w] < N ? where[w] : N - 1)) b[m++] = a[i];
    ck_assert(pbd_Align_Sequences(a, N, b, m, &p, &np));
    check_valid(a, b, p, np);
    ck_assert_uint_eq(np, N - 1);
    free(p);
  }
  /* a move: element 100 goes to the end; all but it stay matched */
  size_t m = 0;
  for (size_t i = 0; i < N; i++)
    if (i != 100) b[m++] = a[i];
  b[m++] = a[100];
  pbd_AlignPair *p;
  size_t np;
  ck_assert(pbd_Align_Sequences(a, N, b, m, &p, &np));
  check_valid(a, b, p, np);
  ck_assert_uint_eq(np, N - 1);
  free(p);
  free(a);
  free(b);
}
END_TEST

START_TEST(lis) {
  uint32_t v[] = {3, 1, 4, 1, 5, 9, 2, 6};
  bool keep[8];
  ck_assert(pbd_Align_LongestIncreasing(v, 8, keep));
  size_t n = 0;
  uint32_t last = 0;
  for (int i = 0; i < 8; i++)
    if (keep[i]) {
      ck_assert(n == 0 || v[i] > last);
      last = v[i];
      n++;
    }
  ck_assert_uint_eq(n, 4); /* e.g. 1 4 5 9 */
}
END_TEST

int main(void) {
  Suite *s = suite_create("align");
  TCase *t = tcase_create("align");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, align_optimal_small);
  tcase_add_test(t, align_medium);
  tcase_add_test(t, align_long_few_edits);
  tcase_add_test(t, align_long_edits);
  tcase_add_test(t, lis);
  suite_add_tcase(s, t);
  return tu_main(s);
}
