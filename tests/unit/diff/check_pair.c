/* Leftover messages paired by similarity, best first (lib/diff/diff_pair.c),
 * against the rule it implements, computed here the plain way: every
 * candidate pair within the window, sorted (most alike, then closest, then
 * earliest), taken greedily.  The library never holds or sorts all the
 * candidates (each element keeps its best few and looks again when they
 * are taken), so this is what shows it pairs the same.
 *
 * Elements are sem3.Inner { a s r: [id] child { a } } with a, s and child
 * from small sets, so that many are alike (2 or 3 of 4 fields equal: 0.5 or
 * 0.75) and contend for the same partners, and r an id that differs on
 * every pair (LEFT 1000 + i, RIGHT 5000 + j): no element is equal to one
 * of the other side, and each pair's report, "changed rm[i].r[0]: 1000+i
 * -> 5000+j", names both of its elements. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h" /* --key rules from text */
#include "pbdiff/diff/diff.h"
#include "pbdiff/tree/tree.h"
#include "testutil.h"

enum { kWindow = 64, kMaxSide = 400 };

typedef struct {
  int a, s, c;
} Elem;

typedef struct {
  int same; /* equal fields of the 4 (r always differs) */
  uint64_t skew;
  uint32_t a, b;
} Cand;

static int cand_order(const void *x, const void *y) {
  const Cand *p = x, *q = y;
  if (p->same != q->same) return p->same > q->same ? -1 : 1;
  if (p->skew != q->skew) return p->skew < q->skew ? -1 : 1;
  if (p->a + p->b != q->a + q->b) return p->a + p->b < q->a + q->b ? -1 : 1;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* The pairs of the plain greedy pass: partner[i] gets j or -1. */
static void reference_pairs(const Elem *l, uint32_t nl, const Elem *r, uint32_t nr, int *partner) {
  uint64_t reach = (uint64_t)kWindow / 2 * (nl > nr ? nl : nr);
  Cand *c = malloc((size_t)nl * nr * sizeof *c);
  size_t n = 0;
  for (uint32_t a = 0; a < nl; a++)
    for (uint32_t b = 0; b < nr; b++) {
      uint64_t at = (uint64_t)a * nr, place = (uint64_t)b * nl;
      uint64_t skew = place > at ? place - at : at - place;
      int same = (l[a].a == r[b].a) + (l[a].s == r[b].s) + (l[a].c == r[b].c);
      if (skew < reach && same >= 2) c[n++] = (Cand){same, skew, a, b};
    }
  qsort(c, n, sizeof *c, cand_order);
  bool *taken = calloc(nr, 1);
  for (uint32_t a = 0; a < nl; a++) partner[a] = -1;
  for (size_t k = 0; k < n; k++) {
    if (partner[c[k].a] >= 0 || taken[c[k].b]) continue;
    partner[c[k].a] = (int)c[k].b;
    taken[c[k].b] = true;
  }
  free(taken), free(c);
}

/* Inner { a: e.a s: "p"+e.s r: [id] child { a: e.c } } as an rm element. */
static size_t put_elem(char *out, Elem e, int id) {
  return (size_t)sprintf(out, "7a 0d 08 %02x 12 01 %02x 1a 02 %02x %02x 22 02 08 %02x ", e.a,
                         'p' + e.s, (id & 0x7f) | 0x80, id >> 7, e.c);
}

static char *payload(const Elem *e, uint32_t n, int first_id) {
  char *out = malloc((size_t)n * 64 + 1), *p = out;
  *p = '\0';
  for (uint32_t i = 0; i < n; i++) p += put_elem(p, e[i], first_id + (int)i);
  return out;
}

static void random_side(unsigned *seed, Elem *e, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    e[i] = (Elem){1 + rand_r(seed) % 3, rand_r(seed) % 3, 1 + rand_r(seed) % 3};
}

/* partner[i] from the report: j from "changed rm[i].r[0]: 1000+i -> 5000+j". */
static void reported_pairs(const char *report, uint32_t nl, int *partner) {
  for (uint32_t a = 0; a < nl; a++) partner[a] = -1;
  for (const char *p = report; (p = strstr(p, "changed rm[")); p++) {
    unsigned i, x, y;
    if (sscanf(p, "changed rm[%u].r[0]: %u -> %u", &i, &x, &y) == 3) {
      ck_assert_uint_lt(i, nl);
      ck_assert_uint_eq(x, 1000 + i);
      partner[i] = (int)(y - 5000);
    }
  }
}

static void check_pairs(const pbd_DiffOptions *d, unsigned seed, uint32_t nl, uint32_t nr) {
  Elem l[kMaxSide], r[kMaxSide];
  unsigned state = seed;
  random_side(&state, l, nl);
  random_side(&state, r, nr);
  char *lh = payload(l, nl, 1000), *rh = payload(r, nr, 5000);
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 99;
  o.pool = tu_type_pool("sem3.");
  char *got = tu_diff_hex(tu_type("sem3.M"), lh, rh, &o, d, NULL);
  int want[kMaxSide], seen[kMaxSide];
  reference_pairs(l, nl, r, nr, want);
  reported_pairs(got, nl, seen);
  uint32_t paired = 0;
  for (uint32_t a = 0; a < nl; a++) {
    ck_assert_msg(seen[a] == want[a], "seed %u, %u against %u (%s): LEFT's %u paired with %d, want %d",
                  seed, nl, nr, d->rule_count ? "set" : "sequence", a, seen[a], want[a]);
    paired += want[a] >= 0;
  }
  ck_assert_uint_gt(paired, nl / 4); /* the case pairs, it does not only remove and add */
  free(got), free(lh), free(rh);
}

static const uint32_t kSizes[][2] = {{5, 7}, {60, 60}, {150, 90}, {90, 150}, {300, 300}, {400, 250}};

START_TEST(set_leftovers_pair_as_sorted_greedy) {
  pbd_MatchRule rule;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Set, "sem3.M.rm", &rule, &s));
  pbd_DiffOptions d = {.rules = &rule, .rule_count = 1};
  for (unsigned seed = 1; seed <= 4; seed++)
    for (size_t k = 0; k < sizeof kSizes / sizeof *kSizes; k++)
      check_pairs(&d, seed * 7 + (unsigned)k, kSizes[k][0], kSizes[k][1]);
}
END_TEST

START_TEST(sequence_leftovers_pair_as_sorted_greedy) {
  pbd_DiffOptions d = {0};
  for (unsigned seed = 1; seed <= 4; seed++)
    for (size_t k = 0; k < sizeof kSizes / sizeof *kSizes; k++)
      check_pairs(&d, seed * 11 + (unsigned)k, kSizes[k][0], kSizes[k][1]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pair");
  TCase *t = tcase_create("pair");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, set_leftovers_pair_as_sorted_greedy);
  tcase_add_test(t, sequence_leftovers_pair_as_sorted_greedy);
  suite_add_tcase(s, t);
  return tu_main(s);
}
