/* A record's hash under the ignore rules (lib/corpus/record_ignore.c) on
 * hand-made bytes of sem3.M: records that differ only in ignored fields
 * hash alike, wherever the rule reaches them (a sub-message, every element
 * of a repeated field, every map value, any depth for a field by name);
 * records that differ in anything else never do, nor a sub-message present
 * with only ignored fields against one absent; the rules the hash cannot
 * follow exactly are refused (then every pair is walked). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/corpus/records.h"
#include "testutil.h"

static pbd_ReadOptions read_options(void) {
  pbd_ReadOptions ro = {.pool = tu_type_pool("sem3.M"), .hash_seed = 7};
  return ro;
}

/* The hash of the record in hex under `ih`. */
static pbd_Hash128 hash_of(const pbd_IgnoreHash *ih, const char *hex) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  pbd_ReadOptions ro = read_options();
  pbd_Hasher *h = pbd_Hasher_New(b, &ro, NULL);
  pbd_Buf scratch = {0};
  pbd_Status st;
  pbd_Status_Clear(&st);
  pbd_Hash128 out = {0, 0};
  ck_assert_msg(pbd_IgnoreHash_Hash(ih, h, b, 0, n, &ro, &scratch, &out, &st), "%s: %s", hex, st.msg);
  pbd_Buf_Free(&scratch);
  pbd_Hasher_Free(h);
  free(b);
  return out;
}

static pbd_IgnoreHash *made(const char *const *patterns, size_t n, const pbd_FieldDef *field,
                            const char **why) {
  pbd_IgnoreRule rules[8];
  memset(rules, 0, sizeof rules);
  for (size_t i = 0; i < n; i++) rules[i].pattern = patterns[i];
  if (field) rules[n++].field = field;
  pbd_DiffOptions d = {.ignores = rules, .ignore_count = n};
  pbd_ReadOptions ro = read_options();
  return pbd_IgnoreHash_New(tu_type("sem3.M"), &d, &ro, why);
}

static void expect_same(const pbd_IgnoreHash *ih, const char *a, const char *b, bool same) {
  pbd_Hash128 x = hash_of(ih, a), y = hash_of(ih, b);
  ck_assert_msg(pbd_Hash128_Equal(x, y) == same, "%s vs %s: %s", a, b, same ? "differ" : "agree");
}

START_TEST(patterns_leave_out_what_they_name) {
  const char *why;
  const char *p[] = {"inner.a", "rm[*].a", "mi[*].a"};
  pbd_IgnoreHash *ih = made(p, 3, NULL, &why);
  ck_assert_msg(ih != NULL, "%s", why);
  /* inner {a, s}: a ignored, s not */
  expect_same(ih, "6a05 0801 120178", "6a05 0802 120178", true);
  expect_same(ih, "6a05 0801 120178", "6a05 0802 120179", false);
  /* a sub-message with only ignored fields is still there */
  expect_same(ih, "6a02 0801", "", false);
  expect_same(ih, "6a02 0801", "6a02 0809", true);
  /* the pattern names inner.a only, not inner.child.a */
  expect_same(ih, "6a04 22020801", "6a04 22020802", false);
  /* every element of rm, in order */
  expect_same(ih, "7a020801 7a050805 12016b", "7a020809 7a050807 12016b", true);
  expect_same(ih, "7a020801 7a050805 12016b", "7a050807 12016b 7a020809", false);
  expect_same(ih, "7a020801 7a050805 12016b", "7a020801 7a050805 12016c", false);
  /* every map value of mi, not its keys */
  expect_same(ih, "8a0106 0801 12020801", "8a0106 0801 12020802", true);
  expect_same(ih, "8a0106 0801 12020801", "8a0106 0802 12020801", false);
  /* the other fields as they are: i32, and a packed repeated */
  expect_same(ih, "0801 6a020801", "0802 6a020801", false);
  expect_same(ih, "7203010203", "7203010204", false);
  pbd_IgnoreHash_Free(ih);
}
END_TEST

START_TEST(a_field_by_name_is_left_out_everywhere) {
  const char *why;
  const pbd_FieldDef *a = pbd_MessageDef_FindFieldByName(tu_type("sem3.Inner"), "a");
  ck_assert_ptr_nonnull(a);
  pbd_IgnoreHash *ih = made(NULL, 0, a, &why);
  ck_assert_msg(ih != NULL, "%s", why);
  expect_same(ih, "6a04 22020801", "6a04 22020802", true);   /* inner.child.a */
  expect_same(ih, "7a020801", "7a020809", true);             /* rm[0].a */
  expect_same(ih, "8a0106 0801 12020801", "8a0106 0801 12020805", true);
  expect_same(ih, "0801", "0802", false);                    /* M.i32, another field 1 */
  expect_same(ih, "6a04 22020801", "6a04 22021801", false);  /* inner.child.r */
  pbd_IgnoreHash_Free(ih);
}
END_TEST

START_TEST(rules_it_cannot_follow_are_refused) {
  static const char *const kRefused[] = {
      "c1",          /* a oneof member: taken out, it would not clear c2 */
      "c3.a",        /* through one: fine, but... */
      "ms[*]",       /* ending in [*] */
      "rm.a",        /* a repeated field without [*] */
      "inner[*].a",  /* [*] after a singular field */
      "*.a",         /* a name wildcard */
      "rm[0].a",     /* a literal index */
      "nosuch",      /* no field of the schema */
      "ms[*].x",     /* [*] after a map of scalars */
      "color",       /* an open enum: fine */
  };
  /* c3.a goes through a oneof member message (it stays): taken; an open
   * enum: taken */
  static const bool kTaken[] = {false, true, false, false, false, false, false, false, false, true};
  for (size_t i = 0; i < sizeof kRefused / sizeof *kRefused; i++) {
    const char *why = NULL;
    pbd_IgnoreHash *ih = made(&kRefused[i], 1, NULL, &why);
    ck_assert_msg((ih != NULL) == kTaken[i], "%s: %s", kRefused[i], why ? why : "taken");
    if (!ih) ck_assert_ptr_nonnull(why);
    pbd_IgnoreHash_Free(ih);
  }
  const char *why;
  const pbd_FieldDef *c1 = pbd_MessageDef_FindFieldByName(tu_type("sem3.M"), "c1");
  ck_assert_ptr_null(made(NULL, 0, c1, &why));
  /* matching rules and --equivalent */
  pbd_IgnoreRule r = {.pattern = "inner.a"};
  pbd_MatchRule m = {.field = pbd_MessageDef_FindFieldByName(tu_type("sem3.M"), "rm"),
                     .kind = kPbd_Match_Set};
  pbd_DiffOptions d = {.ignores = &r, .ignore_count = 1, .rules = &m, .rule_count = 1};
  pbd_ReadOptions ro = read_options();
  ck_assert_ptr_null(pbd_IgnoreHash_New(tu_type("sem3.M"), &d, &ro, &why));
  d.rule_count = 0;
  ro.equivalent = true;
  ck_assert_ptr_null(pbd_IgnoreHash_New(tu_type("sem3.M"), &d, &ro, &why));
  ro.equivalent = false;
  ck_assert_ptr_null(pbd_IgnoreHash_New(NULL, &d, &ro, &why)); /* no schema */
  pbd_IgnoreHash *ih = pbd_IgnoreHash_New(tu_type("sem3.M"), &d, &ro, &why);
  ck_assert_ptr_nonnull(ih);
  ck_assert_ptr_eq(pbd_IgnoreHash_Type(ih), tu_type("sem3.M"));
  pbd_IgnoreHash_Free(ih);
}
END_TEST

int main(void) {
  Suite *s = suite_create("record_ignore");
  TCase *t = tcase_create("record_ignore");
  tcase_add_test(t, patterns_leave_out_what_they_name);
  tcase_add_test(t, a_field_by_name_is_left_out_everywhere);
  tcase_add_test(t, rules_it_cannot_follow_are_refused);
  suite_add_tcase(s, t);
  return tu_main(s);
}
