/* The explaining diff: alignment of repeated fields, matching rules
 * (--key, --repeated-as-set, --report-moves), --ignore, --partial and float
 * tolerances, with hand-made inputs.  The same through the CLI, and the
 * ONNX acceptance case: tests/cli/check_match_cli.c. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbdiff/diff/diff.h"
#include "cli.h" /* --key rules from text */
#include "testutil.h"
#include "pbdiff/tree/tree.h"

static const pbd_MessageDef *M(void) { return tu_type("sem3.M"); }

static pbd_ReadOptions topts(void) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 99;
  o.pool = tu_type_pool("sem3.");
  return o;
}

static void check(const pbd_DiffOptions *d, const char *l, const char *r, const char *want) {
  pbd_ReadOptions o = topts();
  char *got = tu_diff_hex(M(), l, r, &o, d, NULL);
  ck_assert_msg(!strcmp(got, want), "%s vs %s:\n got: [%s]\nwant: [%s]", l, r, got, want);
  free(got);
}

static pbd_MatchRule rule(pbd_MatchKind kind, const char *spec) {
  pbd_MatchRule r;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kind, spec, &r, &s), "%s: %s", spec, s.msg);
  return r;
}

/* rm element Inner { a: A s: "S" } */
static char *el(int a, const char *str) {
  char *out = malloc(256);
  size_t n = strlen(str);
  int k = sprintf(out, "7a %02zx 08 %02x 12 %02zx", n + 4, a, n);
  for (size_t i = 0; i < n; i++) k += sprintf(out + k, " %02x", (unsigned char)str[i]);
  return out;
}

static char *cat(int n, ...) {
  va_list ap;
  va_start(ap, n);
  char *out = calloc(1, 8192);
  for (int i = 0; i < n; i++) {
    char *p = va_arg(ap, char *);
    strcat(out, p);
    strcat(out, " ");
  }
  va_end(ap);
  return out;
}

/* ---- Alignment ------------------------------------------------------------ */

START_TEST(align_scalars) {
  pbd_DiffOptions d = {0};
  check(&d, "72 04 01 02 03 04", "72 05 09 01 02 03 04", "added ri[0]: _ -> 9\n");   /* front */
  check(&d, "72 04 01 02 03 04", "72 05 01 02 09 03 04", "added ri[2]: _ -> 9\n");   /* middle */
  check(&d, "72 04 01 02 03 04", "72 05 01 02 03 04 09", "added ri[4]: _ -> 9\n");   /* end */
  check(&d, "72 04 01 02 03 04", "72 03 01 03 04", "removed ri[1]: 2 -> _\n");       /* delete */
  check(&d, "72 04 01 02 03 04", "72 04 01 02 07 04", "changed ri[2]: 3 -> 7\n");    /* change */
  /* an element that left one place for another is moved */
  check(&d, "72 04 01 02 03 04", "72 04 02 03 04 01", "moved ri[0]: 1 -> 1\n");
  /* duplicates */
  check(&d, "72 04 05 05 05 06", "72 05 05 05 05 05 06", "added ri[3]: _ -> 5\n");
}
END_TEST

START_TEST(align_messages) {
  pbd_DiffOptions d = {0};
  char *A = el(1, "alpha"), *B = el(2, "beta"), *C = el(3, "gamma"), *X = el(9, "new"),
       *B2 = el(5, "beta");
  char *l = cat(3, A, B, C);
  char *r = cat(4, X, A, B, C);
  check(&d, l, r, "added rm[0]: _ -> { a: 9 s: \"new\" }\n");
  free(r);
  r = cat(2, A, C);
  check(&d, l, r, "removed rm[1]: { a: 2 s: \"beta\" } -> _\n");
  free(r);
  r = cat(3, A, B2, C); /* a changed element is compared field by field */
  check(&d, l, r, "changed rm[1].a: 2 -> 5\n");
  free(r);
  /* a run of 2 removed facing 1 added: the similar one is paired */
  r = cat(2, A, B2);
  check(&d, l, r, "changed rm[1].a: 2 -> 5\nremoved rm[2]: { a: 3 s: \"gamma\" } -> _\n");
  free(r);
  free(l);
  free(A), free(B), free(C), free(X), free(B2);
}
END_TEST

/* A list of 100 000 elements with 3 edits reports exactly those 3. */
START_TEST(align_long_list) {
  enum { N = 100000 };
  char *l = malloc(N * 9 + 128), *r = malloc(N * 9 + 128);
  /* packed run of 2-byte varints (values 128..), N elements */
  size_t ln = 0, rn = 0;
  int lcount = 0, rcount = 0;
  char *lb = malloc(N * 9 + 64), *rb = malloc(N * 9 + 64);
  for (int i = 0; i < N; i++) {
    int v = 128 + i; /* unique values, each written in 3 bytes */
    ln += (size_t)sprintf(lb + ln, " %02x %02x %02x", (v & 0x7f) | 0x80, ((v >> 7) & 0x7f) | 0x80, v >> 14);
    lcount++;
    if (i == 10) rn += (size_t)sprintf(rb + rn, " %02x %02x %02x", 0x81, 0x80, 0x7f), rcount++;
    if (i == 50000) continue;
    int w = i == 90000 ? 3 : v;
    rn += (size_t)sprintf(rb + rn, " %02x %02x %02x", (w & 0x7f) | 0x80, ((w >> 7) & 0x7f) | 0x80, w >> 14);
    rcount++;
  }
  /* LEN of lcount*3 bytes as a varint */
  size_t lbytes = (size_t)lcount * 3, rbytes = (size_t)rcount * 3;
  int k = sprintf(l, "72 %02zx %02zx %02zx", (lbytes & 0x7f) | 0x80, ((lbytes >> 7) & 0x7f) | 0x80, lbytes >> 14);
  memcpy(l + k, lb, ln + 1);
  k = sprintf(r, "72 %02zx %02zx %02zx", (rbytes & 0x7f) | 0x80, ((rbytes >> 7) & 0x7f) | 0x80, rbytes >> 14);
  memcpy(r + k, rb, rn + 1);
  pbd_DiffOptions d = {0};
  char want[256];
  snprintf(want, sizeof want, "added ri[10]: _ -> %d\nremoved ri[50000]: %d -> _\nchanged ri[90000]: %d -> 3\n",
           0x7f << 14 | 1, 128 + 50000, 128 + 90000);
  check(&d, l, r, want);
  free(l), free(r), free(lb), free(rb);
}
END_TEST

/* ---- Sets and keys -------------------------------------------------------- */

START_TEST(set_rule) {
  pbd_MatchRule rs[2] = {rule(kPbd_Match_Set, "sem3.M.ri"), rule(kPbd_Match_Set, "sem3.M.rm")};
  pbd_DiffOptions d = {.rules = rs, .rule_count = 2};
  check(&d, "72 03 01 02 03", "72 03 03 01 02", "");
  /* a multiset: counts matter */
  check(&d, "72 03 01 01 02", "72 03 01 02 02", "removed ri[1]: 1 -> _\nadded ri[2]: _ -> 2\n");
  char *A = el(1, "alpha"), *B = el(2, "beta"), *B2 = el(5, "beta"), *C = el(3, "gamma");
  char *l = cat(3, A, B, C), *r = cat(3, C, A, B2);
  /* leftovers that are similar are compared */
  check(&d, l, r, "changed rm[1].a: 2 -> 5\n");
  d.report_moves = true;
  free(r);
  r = cat(3, C, A, B);
  check(&d, l, r, "moved rm[2]: { a: 3 s: \"gamma\" } -> { a: 3 s: \"gamma\" }\n");
  free(l), free(r), free(A), free(B), free(B2), free(C);
}
END_TEST

START_TEST(key_rule) {
  pbd_MatchRule rk = rule(kPbd_Match_Key, "sem3.M.rm=s");
  pbd_DiffOptions d = {.rules = &rk, .rule_count = 1};
  char *A = el(1, "alpha"), *B = el(2, "beta"), *B2 = el(5, "beta"), *C = el(3, "gamma"),
       *X = el(7, "x");
  char *l = cat(3, A, B, C), *r = cat(4, C, X, B2, A);
  check(&d, l, r, "changed rm[s=\"beta\"].a: 2 -> 5\nadded rm[s=\"x\"]: _ -> { a: 7 s: \"x\" }\n");
  d.report_moves = true;
  check(&d, l, r,
        "moved rm[s=\"alpha\"]: { a: 1 s: \"alpha\" } -> { a: 1 s: \"alpha\" }\n"
        "moved rm[s=\"beta\"]: { a: 2 s: \"beta\" } -> { a: 5 s: \"beta\" }\n"
        "changed rm[s=\"beta\"].a: 2 -> 5\nadded rm[s=\"x\"]: _ -> { a: 7 s: \"x\" }\n");
  d.report_moves = false;
  free(r);
  r = cat(2, A, C);
  check(&d, l, r, "removed rm[s=\"beta\"]: { a: 2 s: \"beta\" } -> _\n");
  /* two key fields */
  pbd_MatchRule rk2 = rule(kPbd_Match_Key, "sem3.M.rm=s+a");
  d.rules = &rk2;
  free(r);
  r = cat(3, C, B2, A);
  check(&d, l, r, "removed rm[s=\"beta\",a=2]: { a: 2 s: \"beta\" } -> _\n"
                  "added rm[s=\"beta\",a=5]: _ -> { a: 5 s: \"beta\" }\n");
  free(l), free(r), free(A), free(B), free(B2), free(C), free(X);
  /* bad rules */
  pbd_MatchRule bad;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Key, "sem3.M.rm=nope", &bad, &s));
  ck_assert(!pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Key, "sem3.M.i32=a", &bad, &s));
  ck_assert(!pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Key, "sem3.M.rm", &bad, &s));
  ck_assert(!pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Set, "sem3.M.nope", &bad, &s));
  ck_assert(!pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Key, "sem3.M.rm=child", &bad, &s));
}
END_TEST

/* A repeated key field keys by its whole list (ONNX nodes by outputs). */
START_TEST(key_repeated_field) {
  pbd_MatchRule rk = rule(kPbd_Match_Key, "sem3.M.rm=r");
  pbd_DiffOptions d = {.rules = &rk, .rule_count = 1};
  /* rm { a: 1 r: [7] } rm { a: 2 r: [8, 9] } vs swapped, second changed */
  check(&d, "7a 05 08 01 1a 01 07 7a 06 08 02 1a 02 08 09",
        "7a 06 08 03 1a 02 08 09 7a 05 08 01 1a 01 07", "changed rm[r=[8,9]].a: 2 -> 3\n");
}
END_TEST

/* ---- Ignore, partial, tolerances ------------------------------------------ */

START_TEST(ignore_rules) {
  M();
  pbd_IgnoreRule ig[2] = {{pbd_DefPool_FindFieldByFullName(tu_type_pool("sem3."), "sem3.M.i32"), NULL},
                          {NULL, "rm[*].s"}};
  pbd_DiffOptions d = {.ignores = ig, .ignore_count = 2};
  check(&d, "08 01 10 05", "08 02 10 05", "");
  check(&d, "08 01 10 05", "08 02 10 06", "changed i64: 5 -> 6\n");
  char *A = el(1, "alpha"), *A2 = el(1, "other"), *A3 = el(4, "other");
  check(&d, A, A2, "");
  check(&d, A, A3, "changed rm[0].a: 1 -> 4\n");
  pbd_IgnoreRule star = {NULL, "inner.*"};
  d.ignores = &star;
  d.ignore_count = 1;
  check(&d, "6a 02 08 01", "6a 02 08 02", "");
  pbd_IgnoreRule map = {NULL, "ms[*]"};
  d.ignores = &map;
  check(&d, "82 01 05 0a 01 61 10 01", "82 01 05 0a 01 61 10 02", "");
  free(A), free(A2), free(A3);
}
END_TEST

START_TEST(partial_scope) {
  pbd_DiffOptions d = {.partial = true};
  check(&d, "08 01", "08 01 10 05 6a 02 08 01", "");                 /* RIGHT has more */
  check(&d, "08 01 10 05", "08 01", "changed i64: 5 -> 0\n");         /* LEFT's field differs */
  check(&d, "72 02 01 02", "72 03 01 02 03", "");                     /* extra element */
  check(&d, "82 01 05 0a 01 61 10 01", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02", "");
  check(&d, "6a 02 08 01", "6a 04 08 01 10 02", "");                  /* nested */
  check(&d, "6a 02 08 01", "6a 02 08 02", "changed inner.a: 1 -> 2\n");
}
END_TEST

START_TEST(float_tolerances) {
  /* f (float, field 8): 1.0 vs 1.05 */
  pbd_DiffOptions d = {.float_margin = 0.1};
  check(&d, "45 0000803f", "45 6666863f", "");
  d.float_margin = 0.01;
  check(&d, "45 0000803f", "45 6666863f", "changed f: 1 -> 1.05\n");
  d.float_margin = 0;
  d.float_fraction = 0.1;
  check(&d, "45 0000803f", "45 6666863f", "");
  check(&d, "45 00002041", "45 00003041", "");                           /* |10-11| <= 0.1*11 */
  check(&d, "45 00002041", "45 00004041", "changed f: 10 -> 12\n");   /* |10-12| > 0.1*12 */
  /* in repeated fields, values within tolerance are equal */
  check(&d, "c2 01 08 0000803f 00002041", "c2 01 08 6666863f 00002041", "");
  /* NaN still equals NaN, and not a number */
  check(&d, "45 0000c07f", "45 0100c07f", "");
  check(&d, "45 0000c07f", "45 0000803f", "changed f: nan -> 1\n");
  /* implicit field near its default */
  d.float_fraction = 0;
  d.float_margin = 0.5;
  check(&d, "45 0000003f", "", "");
}
END_TEST

/* ---- The ONNX acceptance case through the CLI ----------------------------- */

int main(void) {
  Suite *s = suite_create("match");
  TCase *t = tcase_create("match");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, align_scalars);
  tcase_add_test(t, align_messages);
  tcase_add_test(t, align_long_list);
  tcase_add_test(t, set_rule);
  tcase_add_test(t, key_rule);
  tcase_add_test(t, key_repeated_field);
  tcase_add_test(t, ignore_rules);
  tcase_add_test(t, partial_scope);
  tcase_add_test(t, float_tolerances);
  suite_add_tcase(s, t);
  return tu_main(s);
}
