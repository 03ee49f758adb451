/* Scoped float tolerances (pbd_ToleranceRule, --float-margin SCOPE=X and
 * --float-fraction SCOPE=Y) with hand-made inputs: a float within the
 * scoped tolerance under the scope is equal, the same difference outside
 * it is reported, and a larger one inside it too; scopes by field and by
 * pattern, at or under what they name; the last matching rule wins, else
 * the global value; repeated messages paired by likeness under a scope.
 * Every pair compared differs in its hashes, so an empty result shows the
 * walk went down where the hashes differ and the tolerance decided.  (The
 * same through the CLI and .pbdiff: tests/cases/cli.cases.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/diff/diff.h"
#include "testutil.h"

/* floats: 1 0000803f, 1.05 6666863f, 1.5 0000c03f, 2 00000040, 2.05 33330340,
 * 10 00002041, 11 00003041; doubles: 1 000000000000f03f, 1.05 cdccccccccccf03f */

static void check_in(const char *type, const pbd_DiffOptions *d, const char *l, const char *r,
                     const char *want) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 7;
  o.pool = tu_type_pool(type);
  bool hash_equal;
  char *got = tu_diff_hex(tu_type(type), l, r, &o, d, &hash_equal);
  ck_assert_msg(!strcmp(got, want), "%s vs %s:\n got: [%s]\nwant: [%s]", l, r, got, want);
  ck_assert_msg(!hash_equal, "%s vs %s: equal hashes; the walk is not put to the test", l, r);
  free(got);
}

static void check(const pbd_DiffOptions *d, const char *l, const char *r, const char *want) {
  check_in("sem3.M", d, l, r, want);
}

static void check_node(const pbd_DiffOptions *d, const char *l, const char *r, const char *want) {
  check_in("prop.Node", d, l, r, want);
}

static pbd_DiffOptions with(const pbd_ToleranceRule *rules, size_t n) {
  return (pbd_DiffOptions){.tolerances = rules, .tolerance_count = n};
}

static pbd_ToleranceRule margin_at(const char *pattern, double m) {
  return (pbd_ToleranceRule){.pattern = pattern, .margin = m, .fraction = -1};
}

static const pbd_FieldDef *field(const char *type, const char *name) {
  return tu_find_field(tu_type(type), name);
}

START_TEST(pattern_scope) {
  /* sem3.M: f (float, 8) and d (double, 9) */
  pbd_ToleranceRule r[] = {margin_at("f", 0.1)};
  pbd_DiffOptions d = with(r, 1);
  check(&d, "45 0000803f", "45 6666863f", "");                             /* within, in scope */
  check(&d, "49 000000000000f03f", "49 cdccccccccccf03f", "changed d: 1 -> 1.05\n"); /* outside */
  check(&d, "45 0000803f", "45 0000c03f", "changed f: 1 -> 1.5\n");        /* beyond, in scope */
  /* an implicit field near its default, in scope and out of it */
  check(&d, "45 cdcc4c3d", "", "");                                         /* f 0.05 */
  check(&d, "49 9a9999999999b93f", "", "changed d: 0.1 -> 0\n");
}
END_TEST

START_TEST(field_scope) {
  /* sem3.M.rf (repeated float, packed): its elements; f is not covered */
  pbd_ToleranceRule r[] = {{.field = field("sem3.M", "rf"), .margin = 0.1, .fraction = -1}};
  pbd_DiffOptions d = with(r, 1);
  check(&d, "c2 01 08 0000803f 00000040", "c2 01 08 6666863f 00000040", "");
  check(&d, "c2 01 08 0000803f 00000040", "c2 01 08 0000c03f 00000040",
        "changed rf[0]: 1 -> 1.5\n");
  check(&d, "45 0000803f", "45 6666863f", "changed f: 1 -> 1.05\n");
}
END_TEST

START_TEST(nested_patterns) {
  /* prop.Node: fl (float, 12), child (17), rn (repeated Node, 24) */
  pbd_ToleranceRule r[] = {margin_at("rn[*].fl", 0.1)};
  pbd_DiffOptions d = with(r, 1);
  check_node(&d, "c2 01 05 65 0000803f", "c2 01 05 65 6666863f", "");
  check_node(&d, "8a 01 05 65 0000803f", "8a 01 05 65 6666863f", "changed child.fl: 1 -> 1.05\n");
  check_node(&d, "c2 01 05 65 0000803f", "c2 01 05 65 0000c03f", "changed rn[0].fl: 1 -> 1.5\n");
  /* a deeper fl is not rn[*].fl */
  check_node(&d, "c2 01 08 8a 01 05 65 0000803f", "c2 01 08 8a 01 05 65 6666863f",
             "changed rn[0].child.fl: 1 -> 1.05\n");
  /* a pattern covers what is under the path it matches */
  pbd_ToleranceRule under[] = {margin_at("rn[*]", 0.1)};
  d = with(under, 1);
  check_node(&d, "c2 01 08 8a 01 05 65 0000803f", "c2 01 08 8a 01 05 65 6666863f", "");
  check_node(&d, "8a 01 05 65 0000803f", "8a 01 05 65 6666863f", "changed child.fl: 1 -> 1.05\n");
  /* a message field by name: every float under it, wherever it occurs */
  pbd_ToleranceRule child[] = {{.field = field("prop.Node", "child"), .margin = 0.1, .fraction = -1}};
  d = with(child, 1);
  check_node(&d, "8a 01 05 65 0000803f", "8a 01 05 65 6666863f", "");
  check_node(&d, "c2 01 08 8a 01 05 65 0000803f", "c2 01 08 8a 01 05 65 6666863f", "");
  check_node(&d, "65 0000803f", "65 6666863f", "changed fl: 1 -> 1.05\n");
  /* map values: m_sf64 (34) map<sfixed64, float>, entry key 1 */
  pbd_ToleranceRule map[] = {margin_at("m_sf64[*]", 0.1)};
  d = with(map, 1);
  check_node(&d, "92 02 0e 09 0100000000000000 15 0000803f",
             "92 02 0e 09 0100000000000000 15 6666863f", "");
  check_node(&d, "92 02 0e 09 0100000000000000 15 0000803f",
             "92 02 0e 09 0100000000000000 15 0000c03f", "changed m_sf64[1]: 1 -> 1.5\n");
}
END_TEST

START_TEST(last_rule_wins) {
  /* a scoped 0 makes f exact under a global margin; d keeps the global one */
  pbd_ToleranceRule exact[] = {margin_at("f", 0)};
  pbd_DiffOptions d = with(exact, 1);
  d.float_margin = 0.1;
  check(&d, "45 0000803f 49 000000000000f03f", "45 6666863f 49 cdccccccccccf03f",
        "changed f: 1 -> 1.05\n");
  /* of two matching rules, the last given */
  pbd_ToleranceRule wide_last[] = {margin_at("f", 0.01), margin_at("f", 0.2)};
  d = with(wide_last, 2);
  check(&d, "45 0000803f", "45 6666863f", "");
  pbd_ToleranceRule narrow_last[] = {margin_at("f", 0.2), margin_at("f", 0.01)};
  d = with(narrow_last, 2);
  check(&d, "45 0000803f", "45 6666863f", "changed f: 1 -> 1.05\n");
  /* a field rule and a pattern rule: the last, whatever its kind */
  pbd_ToleranceRule mixed[] = {{.field = field("sem3.M", "f"), .margin = 0.2, .fraction = -1},
                               margin_at("*", 0.01)};
  d = with(mixed, 2);
  check(&d, "45 0000803f", "45 6666863f", "changed f: 1 -> 1.05\n");
  /* margin and fraction are looked up apart: a fraction rule leaves the margin */
  pbd_ToleranceRule apart[] = {margin_at("f", 0.2), {.pattern = "f", .margin = -1, .fraction = 0}};
  d = with(apart, 2);
  check(&d, "45 0000803f", "45 6666863f", "");
}
END_TEST

START_TEST(fraction_scope) {
  pbd_ToleranceRule r[] = {{.pattern = "f", .margin = -1, .fraction = 0.1}};
  pbd_DiffOptions d = with(r, 1);
  check(&d, "45 00002041", "45 00003041", "");                           /* |10-11| <= 0.1*11 */
  check(&d, "45 00002041", "45 00004041", "changed f: 10 -> 12\n");   /* |10-12| > 0.1*12 */
  check(&d, "49 0000000000002440", "49 0000000000002640", "changed d: 10 -> 11\n");
}
END_TEST

START_TEST(likeness_under_scope) {
  /* Two elements a side, none equal by hash: they pair by likeness, which
   * must weigh each float with the tolerance at its own path (rn[0].fl),
   * or they read as two removed and two added. */
  pbd_ToleranceRule r[] = {margin_at("rn[*].fl", 0.1)};
  pbd_DiffOptions d = with(r, 1);
  const char *l = "c2 01 05 65 0000803f c2 01 05 65 00000040";
  const char *rr = "c2 01 05 65 6666863f c2 01 05 65 33330340";
  check_node(&d, l, rr, "");
  /* the same as a multiset (--repeated-as-set) */
  pbd_MatchRule set = {.field = field("prop.Node", "rn"), .kind = kPbd_Match_Set};
  d.rules = &set;
  d.rule_count = 1;
  check_node(&d, l, rr, "");
}
END_TEST

int main(void) {
  Suite *s = suite_create("tolerance");
  TCase *t = tcase_create("tolerance");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, pattern_scope);
  tcase_add_test(t, field_scope);
  tcase_add_test(t, nested_patterns);
  tcase_add_test(t, last_rule_wins);
  tcase_add_test(t, fraction_scope);
  tcase_add_test(t, likeness_under_scope);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
