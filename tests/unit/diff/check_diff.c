/* The walk of lib/diff/diff.h on trees built from hand-made bytes, checked
 * on the edit records themselves: kind, path, parent (path length and type),
 * values and the indices of repeated elements; the count, stopping by the
 * callback, the path prefix, ignore rules, moves under a key rule, streams
 * (pbd_Diff_RunStream) and the pairs of stream messages it tells
 * (stream_pair), map key segments and the kinds' names.  (The text of
 * edits over many inputs is tests/cases/semantics.cases'; matching rules
 * and alignment are check_match.c's and check_align.c's.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/diff/diff.h"
#include "cli.h" /* --key rules from text */
#include "testutil.h"
#include "pbdiff/tree/tree.h"

static pbd_Arena *arena;
static void setup(void) { arena = pbd_Arena_New(); }
static void teardown(void) { pbd_Arena_Free(arena); }

static const pbd_MessageDef *M(void) { return tu_type("sem3.M"); }
static pbd_Message *tree(const char *hex) { return tu_tree(M(), hex, NULL, arena); }

/* One edit as recorded: its path copied (it lives only during the call). */
typedef struct {
  pbd_EditKind kind;
  char path[128];
  size_t parent_count;
  const pbd_MessageDef *parent;
  pbd_Value left, right;
  int64_t left_index, right_index;
} Rec;

typedef struct {
  Rec e[16];
  size_t n;
  size_t stop_after; /* 0: never stop */
} Recs;

static int record(void *ctx, const pbd_Edit *e) {
  Recs *r = ctx;
  ck_assert_uint_lt(r->n, 16);
  Rec *x = &r->e[r->n++];
  x->kind = e->kind;
  pbd_Buf text = {0};
  pbd_Path_Format(&text, e->path, 0, e->path->count);
  ck_assert_uint_lt(text.len, sizeof x->path);
  strcpy(x->path, text.data);
  pbd_Buf_Free(&text);
  x->parent_count = e->parent_count;
  x->parent = e->parent;
  x->left = e->left;
  x->right = e->right;
  x->left_index = e->left_index;
  x->right_index = e->right_index;
  return r->stop_after && r->n == r->stop_after ? 7 : 0;
}

/* Diffs LEFT and RIGHT (hex, sem3.M) with options d (may be NULL). */
static Recs run(const char *l, const char *r, const pbd_DiffOptions *d) {
  Recs out;
  memset(&out, 0, sizeof out);
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 999;
  ck_assert_int_eq(pbd_Diff_Run(tree(l), tree(r), d, record, &out, &n, &s), 0);
  ck_assert_uint_eq(n, out.n);
  return out;
}

static void check_rec(const Rec *e, pbd_EditKind kind, const char *path, int64_t li, int64_t ri) {
  ck_assert_msg(e->kind == kind, "%s: kind %s, want %s", e->path, pbd_EditKind_String(e->kind),
                pbd_EditKind_String(kind));
  ck_assert_str_eq(e->path, path);
  ck_assert_msg(e->left_index == li && e->right_index == ri, "%s: indices %lld, %lld", path,
                (long long)e->left_index, (long long)e->right_index);
  if (kind == kPbd_Edit_Added) ck_assert_int_eq(e->left.kind, kPbd_Value_None);
  if (kind == kPbd_Edit_Removed) ck_assert_int_eq(e->right.kind, kPbd_Value_None);
  if (kind == kPbd_Edit_Changed)
    ck_assert(e->left.kind != kPbd_Value_None && e->right.kind != kPbd_Value_None);
}

START_TEST(equal_and_scalar_changes) {
  Recs r = run("08 01 10 05", "10 05 08 01", NULL);
  ck_assert_uint_eq(r.n, 0);
  r = run("08 01 52 01 78", "08 02 52 01 79", NULL);
  ck_assert_uint_eq(r.n, 2);
  check_rec(&r.e[0], kPbd_Edit_Changed, "i32", -1, -1);
  ck_assert_int_eq(r.e[0].left.i, 1);
  ck_assert_int_eq(r.e[0].right.i, 2);
  ck_assert_str_eq(r.e[0].left.field->name, "i32");
  ck_assert_uint_eq(r.e[0].parent_count, 0);
  ck_assert_ptr_eq(r.e[0].parent, M());
  check_rec(&r.e[1], kPbd_Edit_Changed, "str", -1, -1);
  ck_assert_uint_eq(r.e[1].right.s.size, 1);
  ck_assert_int_eq(r.e[1].right.s.data[0], 'y');
  /* proto3 implicit: set vs default is a change to the default value */
  r = run("08 05", "", NULL);
  check_rec(&r.e[0], kPbd_Edit_Changed, "i32", -1, -1);
  ck_assert_int_eq(r.e[0].right.i, 0);
  /* explicit presence: set to 0 vs unset */
  r = run("90 01 00", "", NULL);
  ck_assert_uint_eq(r.n, 1);
  check_rec(&r.e[0], kPbd_Edit_Presence, "oi", -1, -1);
  ck_assert_int_eq(r.e[0].right.kind, kPbd_Value_None);
}
END_TEST

START_TEST(nested_paths_and_parents) {
  /* inner { a: 1 child { s: "x" } } vs inner { a: 2 child { s: "y" } } */
  Recs r = run("6a 07 08 01 22 03 12 01 78", "6a 07 08 02 22 03 12 01 79", NULL);
  ck_assert_uint_eq(r.n, 2);
  check_rec(&r.e[0], kPbd_Edit_Changed, "inner.a", -1, -1);
  ck_assert_uint_eq(r.e[0].parent_count, 1); /* inner */
  ck_assert_ptr_eq(r.e[0].parent, tu_type("sem3.Inner"));
  check_rec(&r.e[1], kPbd_Edit_Changed, "inner.child.s", -1, -1);
  ck_assert_uint_eq(r.e[1].parent_count, 2); /* inner.child */
  /* a whole message added: one edit holding it */
  r = run("", "6a 02 08 01", NULL);
  ck_assert_uint_eq(r.n, 1);
  check_rec(&r.e[0], kPbd_Edit_Added, "inner", -1, -1);
  ck_assert_int_eq(r.e[0].right.kind, kPbd_Value_Message);
  ck_assert_uint_eq(pbd_Message_FieldCount(r.e[0].right.m), 1);
}
END_TEST

START_TEST(repeated_indices) {
  /* ri [1] vs [1, 2, 3]: two added, indices in RIGHT */
  Recs r = run("72 01 01", "72 03 01 02 03", NULL);
  ck_assert_uint_eq(r.n, 2);
  check_rec(&r.e[0], kPbd_Edit_Added, "ri[1]", -1, 1);
  check_rec(&r.e[1], kPbd_Edit_Added, "ri[2]", -1, 2);
  ck_assert_int_eq(r.e[1].right.i, 3);
  /* [5, 1, 2] vs [1, 2]: the first removed, index in LEFT */
  r = run("72 03 05 01 02", "72 02 01 02", NULL);
  ck_assert_uint_eq(r.n, 1);
  check_rec(&r.e[0], kPbd_Edit_Removed, "ri[0]", 0, -1);
  ck_assert_int_eq(r.e[0].left.i, 5);
  /* a changed element of a repeated message: both indices */
  r = run("7a 02 08 01 7a 02 08 02", "7a 02 08 01 7a 04 08 02 18 09", NULL);
  ck_assert_uint_eq(r.n, 1);
  ck_assert_str_eq(r.e[0].path, "rm[1].r[0]");
  ck_assert_int_eq(r.e[0].kind, kPbd_Edit_Added);
  ck_assert_uint_eq(r.e[0].parent_count, 2); /* rm[1] */
  /* map entries by key, with the key in the path */
  r = run("82 01 05 0a 01 61 10 01", "82 01 05 0a 01 61 10 02 82 01 05 0a 01 62 10 03", NULL);
  ck_assert_uint_eq(r.n, 2);
  check_rec(&r.e[0], kPbd_Edit_Changed, "ms[\"a\"]", -1, -1);
  check_rec(&r.e[1], kPbd_Edit_Added, "ms[\"b\"]", -1, -1);
  ck_assert_int_eq(r.e[1].right.i, 3);
}
END_TEST

START_TEST(options_stop_prefix_ignore_moves) {
  /* the callback stops the walk: its value comes back */
  Recs r;
  memset(&r, 0, sizeof r);
  r.stop_after = 1;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_int_eq(pbd_Diff_Run(tree("08 01 10 01"), tree("08 02 10 02"), NULL, record, &r, NULL,
                                &s),
                   7);
  ck_assert_uint_eq(r.n, 1);
  /* an ignore pattern drops what it names */
  pbd_IgnoreRule ig = {.pattern = "inner.a"};
  pbd_DiffOptions di = {.ignores = &ig, .ignore_count = 1};
  r = run("08 01 6a 02 08 01", "08 02 6a 02 08 02", &di);
  ck_assert_uint_eq(r.n, 1);
  ck_assert_str_eq(r.e[0].path, "i32");
  /* rm keyed by s, with moves: one element moved, one changed */
  pbd_MatchRule rule;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_Cli_ParseMatchRule(tu_type_pool("sem3."), kPbd_Match_Key, "sem3.M.rm=s", &rule, &s),
                "%s", s.msg);
  pbd_DiffOptions dm = {.rules = &rule, .rule_count = 1, .report_moves = true};
  /* LEFT rm [{a 1 s "x"}, {a 2 s "y"}], RIGHT rm [{a 3 s "y"}, {a 1 s "x"}] */
  r = run("7a 05 08 01 12 01 78 7a 05 08 02 12 01 79", "7a 05 08 03 12 01 79 7a 05 08 01 12 01 78",
          &dm);
  bool moved = false, changed = false;
  for (size_t i = 0; i < r.n; i++) {
    if (r.e[i].kind == kPbd_Edit_Moved) {
      moved = true;
      ck_assert(r.e[i].left_index != r.e[i].right_index);
    }
    if (r.e[i].kind == kPbd_Edit_Changed) {
      changed = true;
      ck_assert_int_eq(r.e[i].left.i, 2);
      ck_assert_int_eq(r.e[i].right.i, 3);
    }
  }
  ck_assert(moved && changed);
}
END_TEST

START_TEST(streams_and_segments) {
  const pbd_MessageDef *rec = tu_type("sem3.Rec");
  /* LEFT [{name "a"}, {name "b"}], RIGHT [{name "a"}, {name "x"}, {name "b"}] */
  const pbd_Message *l[] = {tu_tree(rec, "0a 01 61", NULL, arena), tu_tree(rec, "0a 01 62", NULL, arena)};
  const pbd_Message *r[] = {tu_tree(rec, "0a 01 61", NULL, arena), tu_tree(rec, "0a 01 78", NULL, arena),
                            tu_tree(rec, "0a 01 62", NULL, arena)};
  Recs out;
  memset(&out, 0, sizeof out);
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 0;
  ck_assert_int_eq(pbd_Diff_RunStream(l, 2, r, 3, NULL, record, &out, &n, &s), 0);
  ck_assert_uint_eq(n, 1);
  check_rec(&out.e[0], kPbd_Edit_Added, "[1]", -1, 1);
  ck_assert_int_eq(out.e[0].right.kind, kPbd_Value_Message);
  /* paths as segments, written as text: fields, indices, map keys,
   * extensions, Any payloads; a part of a path keeps its dots */
  pbd_FieldDef f_m = {.name = "m"}, f_x = {.name = "x", .full_name = "p.x", .is_extension = true};
  pbd_PathSeg segs[] = {
      {.kind = kPbd_Seg_Field, .number = 1, .field = &f_m},
      {.kind = kPbd_Seg_MapKey, .key = {.kind = kPbd_Value_String, .s = {"a\"b", 3}}},
      {.kind = kPbd_Seg_MapKey, .key = {.kind = kPbd_Value_Int, .i = -5}},
      {.kind = kPbd_Seg_MapKey, .key = {.kind = kPbd_Value_Bool, .u = 1}},
      {.kind = kPbd_Seg_Index, .number = 7},
      {.kind = kPbd_Seg_Field, .number = 9},
      {.kind = kPbd_Seg_Extension, .number = 3, .field = &f_x},
      {.kind = kPbd_Seg_Any, .type_url = {"t/p.T", 5}},
  };
  pbd_Path path = {segs, 8, 8, false, NULL, 0};
  pbd_Buf b = {0};
  pbd_Path_Format(&b, &path, 0, 8);
  ck_assert_str_eq(b.data, "m[\"a\\\"b\"][-5][true][7].9.[p.x].[t/p.T]");
  pbd_Buf_Truncate(&b, 0);
  pbd_Path_Format(&b, &path, 0, 4);
  pbd_Path_Format(&b, &path, 4, 8);
  ck_assert_str_eq(b.data, "m[\"a\\\"b\"][-5][true][7].9.[p.x].[t/p.T]");
  ck_assert(pbd_Path_PatternMatches("m[*][*][*][*].*.[p.x].[*]", b.data));
  ck_assert(!pbd_Path_PatternMatches("m[*].9", b.data));
  pbd_Buf_Free(&b);
  ck_assert_str_eq(pbd_EditKind_String(kPbd_Edit_Added), "added");
  ck_assert_str_eq(pbd_EditKind_String(kPbd_Edit_Removed), "removed");
  ck_assert_str_eq(pbd_EditKind_String(kPbd_Edit_Changed), "changed");
  ck_assert_str_eq(pbd_EditKind_String(kPbd_Edit_Presence), "presence");
  ck_assert_str_eq(pbd_EditKind_String(kPbd_Edit_Moved), "moved");
}
END_TEST

/* The pairs stream_pair is told, as "0-0 1-2 ". */
static void note_pair(void *ctx, size_t i, size_t j) {
  char *out = ctx;
  snprintf(out + strlen(out), 64 - strlen(out), "%zu-%zu ", i, j);
}

START_TEST(stream_pairs) {
  const pbd_MessageDef *rec = tu_type("sem3.Rec");
  /* LEFT [a, b, c], RIGHT [a, x, b, c2]: a and b equal, c changed to c2, x added;
   * only the stream's messages are told, not repeated elements inside them */
  const pbd_Message *l[] = {tu_tree(rec, "0a 01 61", NULL, arena), tu_tree(rec, "0a 01 62", NULL, arena),
                            tu_tree(rec, "0a 01 63 10 01", NULL, arena)};
  const pbd_Message *r[] = {tu_tree(rec, "0a 01 61", NULL, arena), tu_tree(rec, "0a 01 78", NULL, arena),
                            tu_tree(rec, "0a 01 62", NULL, arena),
                            tu_tree(rec, "0a 01 63 10 02", NULL, arena)};
  char pairs[64] = "";
  pbd_DiffOptions o = {.stream_pair = note_pair, .stream_pair_ctx = pairs};
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 0;
  Recs out;
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(pbd_Diff_RunStream(l, 3, r, 4, &o, record, &out, &n, &s), 0);
  ck_assert_str_eq(pairs, "0-0 1-2 2-3 ");
  ck_assert_uint_eq(n, 2);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("diff");
  TCase *t = tcase_create("diff");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, equal_and_scalar_changes);
  tcase_add_test(t, nested_paths_and_parents);
  tcase_add_test(t, repeated_indices);
  tcase_add_test(t, options_stop_prefix_ignore_moves);
  tcase_add_test(t, streams_and_segments);
  tcase_add_test(t, stream_pairs);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_main(suite()); }
