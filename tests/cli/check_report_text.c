/* pbdiff tests — the text report of cli/report.c exactly: grouping headers,
 * every kind of edit, colour on and off, cut values, --max-diffs, --stat,
 * input names; the colour decision; the two-argument reporter. */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/format/format.h"
#include "report/report.h" /* linked from build/cli/report.o (see Makefile) */
#include "testutil.h"
#include "pbdiff/tree/tree.h"
#include "tu_json.h"
#include "tu_values.h"

/* ---- text: grouping ------------------------------------------------------------ */

START_TEST(text_grouping) {
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "ir_version", 0, &md_model, I(7), I(3)),
      E(kPbd_Edit_Changed, "graph.node[3].op_type", 13, &md_node, Str("Conv"), Str("Relu")),
      E(kPbd_Edit_Added, "graph.node[3].attribute[1]", 13, &md_node, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Changed, "graph.name", 5, &md_graph, Str("a"), Str("b")),
      /* the same parent again after another: a new header */
      E(kPbd_Edit_Changed, "graph.node[3].input[0]", 13, &md_node, Str("x"), Str("y")),
      /* schemaless: a header without a type */
      E(kPbd_Edit_Changed, "7[0].1[0].4[0]", 9, NULL, I(1), I(2)),
      /* back at the root: no header, no indent */
      E(kPbd_Edit_Changed, "opset", 0, &md_model, I(1), I(2)),
      /* a stream message's fields: the index is the parent */
      E(kPbd_Edit_Changed, "[1].name", 3, &md_rec, Str("bc"), Str("bd")),
      E(kPbd_Edit_Changed, "[1].n", 3, &md_rec, I(1), I(2)),
      /* an Any payload and an extension as parents */
      E(kPbd_Edit_Changed, "any.[type.googleapis.com/t.Node].a", 32, &md_node, I(5), I(6)),
      E(kPbd_Edit_Changed, "in.[t.ext].a", 10, &md_node, I(5), I(6)),
      /* a whole stream message: the root, named by its index */
      E(kPbd_Edit_Removed, "[2]", 0, NULL, Msg(&sub_msg), None()),
  };
  CHECK_REPORT(kPbd_Report_Text, NULL, e, N(e), false,
               "ir_version: 7 -> 3\n"
               "graph.node[3] (t.Node):\n"
               "  op_type: \"Conv\" -> \"Relu\"\n"
               "  attribute[1]: added { a: 1 }\n"
               "graph (t.Graph):\n"
               "  name: \"a\" -> \"b\"\n"
               "graph.node[3] (t.Node):\n"
               "  input[0]: \"x\" -> \"y\"\n"
               "7[0].1[0]:\n"
               "  4[0]: 1 -> 2\n"
               "opset: 1 -> 2\n"
               "[1] (t.Rec):\n"
               "  name: \"bc\" -> \"bd\"\n"
               "  n: 1 -> 2\n"
               "any.[type.googleapis.com/t.Node] (t.Node):\n"
               "  a: 5 -> 6\n"
               "in.[t.ext] (t.Node):\n"
               "  a: 5 -> 6\n"
               "[2]: removed { a: 1 }\n");
  /* the same parent path with another type (another stream message of a
   * schemaless side cannot, but a reporter must not merge them) */
  pbd_Edit f[] = {
      E(kPbd_Edit_Changed, "x.a", 1, &md_node, I(1), I(2)),
      E(kPbd_Edit_Changed, "x.b", 1, &md_graph, I(1), I(2)),
      /* an edit naming its own parent (no field part) */
      E(kPbd_Edit_Changed, "", 0, NULL, Msg(&sub_msg), Msg(NULL)),
      E(kPbd_Edit_Changed, "x", 1, &md_node, I(1), I(2)),
  };
  CHECK_REPORT(kPbd_Report_Text, NULL, f, N(f), false,
               "x (t.Node):\n"
               "  a: 1 -> 2\n"
               "x (t.Graph):\n"
               "  b: 1 -> 2\n"
               ".: { a: 1 } -> { }\n"
               "x (t.Node):\n"
               "  .: 1 -> 2\n");
  /* nothing at all when equal */
  CHECK_REPORT(kPbd_Report_Text, NULL, NULL, 0, true, "");
}
END_TEST

START_TEST(text_kinds) {
  size_t n = kinds_edits();
  CHECK_REPORT(kPbd_Report_Text, NULL, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "  c[1]: removed \"x\"\n"
               "  d: unset -> set to 0\n"
               "  e: set to false -> unset\n"
               "  attribute[\"x\"]: moved [2] -> [0]\n"
               "rm[5] (7): moved [5] -> [1]\n"
               "ms[\"k\"]: added { a: 1 }\n");
}
END_TEST

START_TEST(text_color) {
  size_t n = kinds_edits();
  pbd_ReportOptions o = {.color = true};
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "\033[1mg (t.Node):\033[m\n"
               "  a: \033[31m1\033[m -> \033[32m2\033[m\n"
               "  b[0]: \033[32madded 3\033[m\n"
               "  c[1]: \033[31mremoved \"x\"\033[m\n"
               "  d: unset -> \033[32mset to 0\033[m\n"
               "  e: \033[31mset to false\033[m -> unset\n"
               "  attribute[\"x\"]: \033[36mmoved [2] -> [0]\033[m\n"
               "rm[5] (7): \033[36mmoved [5] -> [1]\033[m\n"
               "ms[\"k\"]: \033[32madded { a: 1 }\033[m\n");
  /* off: not one escape byte, whatever the options */
  pbd_ReportOptions off = {.color = false, .left_name = "a", .right_name = "b", .max_diffs = 3};
  char *t = tu_report(kPbd_Report_Text, &off, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  free(t);
  off.stat = true;
  t = tu_report(kPbd_Report_Text, &off, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  free(t);
  /* JSON is never coloured */
  t = tu_report(kPbd_Report_Json, &o, g_kinds, n, false);
  ck_assert_ptr_null(strchr(t, '\033'));
  CHECK_JSON_SHAPE(t, n);
  free(t);
}
END_TEST

/* Long strings and bytes: cut at 64 bytes with their size and a hash. */
START_TEST(text_cut_values) {
  static char big[1000];
  memset(big, 'a', sizeof big);
  memcpy(big + 990, "0123456789", 10);
  pbd_Value l = mk_u(kPbd_Value_String, 0, NULL);
  l.s.data = big;
  l.s.size = sizeof big;
  pbd_Value r = l;
  r.kind = l.kind; /* one type on both sides: a change of type would say so */
  r.s.size = 65;
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "blob", 0, NULL, l, r),
                  E(kPbd_Edit_Changed, "ok", 0, NULL, Str("short"), r)};
  e[1].right.s.size = 64; /* exactly 64: whole */
  char a64[65];
  memset(a64, 'a', 64);
  a64[64] = '\0';
  char want[1024];
  snprintf(want, sizeof want,
           "blob: \"%s...\" (1000 bytes, xxh3:%08x) -> \"%s...\" (65 bytes, xxh3:%08x)\n"
           "ok: \"short\" -> \"%s\"\n",
           a64, (unsigned)(XXH3_64bits(big, 1000) >> 32), a64,
           (unsigned)(XXH3_64bits(big, 65) >> 32), a64);
  CHECK_REPORT(kPbd_Report_Text, NULL, e, N(e), false, want);
  /* a message value too long for a line: indented text format over several,
   * whole up to the line limit, then how many lines more; under a group
   * header one level deeper */
  static pbd_StrView names[] = {{"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 52}};
  static pbd_FieldDef fd_name = {.name = "name", .json_name = "name", .number = 1,
                                 .type = kPbd_Type_String};
  static pbd_Field nf = {.number = 1, .kind = kPbd_Value_String, .def = &fd_name, .count = 1,
                         .v.strs = names};
  static pbd_Message named = {.fields_ = &nf, .field_count_ = 1};
  static pbd_Message *three[] = {&named, &named, &named};
  static pbd_FieldDef fd_sub = {.name = "sub", .json_name = "sub", .number = 2,
                                .type = kPbd_Type_Message, .is_repeated = true};
  static pbd_Field sf = {.number = 2, .kind = kPbd_Value_Message, .def = &fd_sub, .count = 3,
                         .v.msgs = three};
  static pbd_Message outer = {.fields_ = &sf, .field_count_ = 1};
  pbd_Edit m[] = {E(kPbd_Edit_Added, "x", 0, NULL, None(), Msg(&outer))};
#define SUB(ind) ind "sub {\n" ind "  name: \"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"\n" ind "}\n"
  CHECK_REPORT(kPbd_Report_Text, NULL, m, N(m), false,
               "x: added {\n" SUB("  ") SUB("  ") SUB("  ") "}\n");
  pbd_ReportOptions lim = {.max_value_lines = 4};
  CHECK_REPORT(kPbd_Report_Text, &lim, m, N(m), false,
               "x: added {\n" SUB("  ") "  ... (6 more lines)\n}\n");
  pbd_Edit g[] = {E(kPbd_Edit_Removed, "g.x", 1, NULL, Msg(&outer), None())};
  CHECK_REPORT(kPbd_Report_Text, NULL, g, N(g), false,
               "g:\n  x: removed {\n" SUB("    ") SUB("    ") SUB("    ") "  }\n");
#undef SUB
}
END_TEST

/* ---- text: --max-diffs ------------------------------------------------------------ */

START_TEST(text_max_diffs) {
  size_t n = kinds_edits(); /* 8 */
  pbd_ReportOptions o = {.max_diffs = 2};
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "... and 6 more differences\n");
  o.max_diffs = 7;
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false,
               "g (t.Node):\n"
               "  a: 1 -> 2\n"
               "  b[0]: added 3\n"
               "  c[1]: removed \"x\"\n"
               "  d: unset -> set to 0\n"
               "  e: set to false -> unset\n"
               "  attribute[\"x\"]: moved [2] -> [0]\n"
               "rm[5] (7): moved [5] -> [1]\n"
               "... and 1 more difference\n");
  o.max_diffs = 8; /* exactly all: no tail */
  char *all = tu_report(kPbd_Report_Text, NULL, g_kinds, n, false);
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false, all);
  o.max_diffs = 0; /* unlimited */
  CHECK_REPORT(kPbd_Report_Text, &o, g_kinds, n, false, all);
  free(all);
  /* a header only for what is shown */
  o.max_diffs = 1;
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "a", 0, NULL, I(1), I(2)),
                  E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2))};
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, "a: 1 -> 2\n... and 1 more difference\n");
  /* JSON: the first N, and how many were left out */
  o.max_diffs = 1;
  CHECK_REPORT(kPbd_Report_Json, &o, e, N(e), false,
               "{\"equal\": false, \"differences\": [\n"
               "  {\"path\": \"a\", \"kind\": \"changed\", \"left\": 1, \"right\": 2, "
               "\"parent\": \"\", \"type\": null}\n"
               "], \"omitted\": 1}\n");
  char *t = tu_report(kPbd_Report_Json, &o, g_kinds, n, false);
  CHECK_JSON_SHAPE(t, 1);
  ck_assert_ptr_nonnull(strstr(t, "], \"omitted\": 7}\n"));
  free(t);
}
END_TEST

/* ---- text: --stat ------------------------------------------------------------------ */

START_TEST(text_stat) {
  pbd_Edit e[] = {
      E(kPbd_Edit_Changed, "graph.node[3].op_type", 13, &md_node, Str("a"), Str("b")),
      E(kPbd_Edit_Added, "graph.node[3].attribute[1]", 13, &md_node, None(), I(1)),
      E(kPbd_Edit_Changed, "ir_version", 0, &md_model, I(1), I(2)),
      E(kPbd_Edit_Changed, "graph.name", 5, &md_graph, Str("a"), Str("b")),
      E(kPbd_Edit_Removed, "labels[\"env\"]", 0, &md_model, Str("a"), None()),
      E(kPbd_Edit_Presence, "[t.ext].a", 7, &md_node, None(), I(0)),
      Moved("graph.input[0]", 5, &md_graph, 0, 1),
      E(kPbd_Edit_Changed, "5[0].1[0]", 4, NULL, I(1), I(2)),
  };
  pbd_ReportOptions o = {.stat = true};
  const char *want =
      "  graph: 2 changed, 1 added, 1 moved\n"
      "  ir_version: 1 changed\n"
      "  labels: 1 removed\n"
      "  [t.ext]: 1 presence\n"
      "  5: 1 changed\n"
      "8 differences: 4 changed, 1 added, 1 removed, 1 presence, 1 moved\n";
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, want);
  /* --max-diffs does not limit the counts */
  o.max_diffs = 1;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false, want);
  /* colour: removed red, added green, moved cyan */
  o.color = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false,
               "  graph: 2 changed, \033[32m1 added\033[m, \033[36m1 moved\033[m\n"
               "  ir_version: 1 changed\n"
               "  labels: \033[31m1 removed\033[m\n"
               "  [t.ext]: 1 presence\n"
               "  5: 1 changed\n"
               "8 differences: 4 changed, \033[32m1 added\033[m, \033[31m1 removed\033[m, "
               "1 presence, \033[36m1 moved\033[m\n");
  /* one difference; none */
  o = (pbd_ReportOptions){.stat = true};
  CHECK_REPORT(kPbd_Report_Text, &o, e + 2, 1, false,
               "  ir_version: 1 changed\n1 difference: 1 changed\n");
  CHECK_REPORT(kPbd_Report_Text, &o, NULL, 0, true, "");
  /* streams: the message index is skipped; whole messages together */
  pbd_Edit s[] = {
      E(kPbd_Edit_Changed, "[0].name", 3, &md_rec, Str("a"), Str("b")),
      E(kPbd_Edit_Changed, "[1].name", 3, &md_rec, Str("a"), Str("b")),
      E(kPbd_Edit_Changed, "[1].n", 3, &md_rec, I(1), I(2)),
      E(kPbd_Edit_Added, "[2]", 0, NULL, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Added, "[3]", 0, NULL, None(), Msg(&sub_msg)),
      E(kPbd_Edit_Changed, "[4].tags[0]", 3, &md_rec, I(1), I(2)),
      E(kPbd_Edit_Changed, "", 0, NULL, I(1), I(2)),
  };
  CHECK_REPORT(kPbd_Report_Text, &o, s, N(s), false,
               "  name: 2 changed\n"
               "  n: 1 changed\n"
               "  (messages): 2 added\n"
               "  tags: 1 changed\n"
               "  .: 1 changed\n"
               "7 differences: 5 changed, 2 added\n");
  /* many distinct fields (the lookup table grows) */
  enum { kMany = 3000 };
  pbd_Edit *many = calloc(kMany * 2, sizeof *many);
  char(*paths)[16] = calloc(kMany, sizeof *paths);
  for (int i = 0; i < kMany; i++) snprintf(paths[i], sizeof paths[i], "%d[0]", i + 1);
  for (int i = 0; i < kMany; i++) {
    many[i] = E(kPbd_Edit_Changed, paths[i], 0, NULL, I(1), I(2));
    many[kMany + i] = E(kPbd_Edit_Added, paths[kMany - 1 - i], 0, NULL, None(), I(2));
  }
  char *t = tu_report(kPbd_Report_Text, &o, many, kMany * 2, false);
  size_t lines = 0;
  for (char *p = t; *p; p++) lines += *p == '\n';
  ck_assert_uint_eq(lines, kMany + 1);
  ck_assert(strncmp(t, "  1: 1 changed, 1 added\n  2: 1 changed, 1 added\n", 48) == 0);
  ck_assert_ptr_nonnull(strstr(t, "\n  3000: 1 changed, 1 added\n6000 differences: 3000 changed, "
                                  "3000 added\n"));
  free(t);
  free(many);
  free(paths);
  /* JSON ignores stat */
  o.stat = true;
  char *j1 = tu_report(kPbd_Report_Json, &o, e, N(e), false);
  char *j2 = tu_report(kPbd_Report_Json, NULL, e, N(e), false);
  ck_assert_str_eq(j1, j2);
  CHECK_JSON_SHAPE(j1, N(e));
  free(j1);
  free(j2);
}
END_TEST

/* ---- input names ---------------------------------------------------------------------- */

START_TEST(report_names) {
  char l[] = "old/model.onnx", r[] = "new/model.onnx";
  pbd_ReportOptions o = {.left_name = l, .right_name = r};
  pbd_Edit e[] = {E(kPbd_Edit_Changed, "a", 0, NULL, I(1), I(2)),
                  E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2))};
  /* the names are copied: scribble over them after New */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *rep = pbd_Reporter_New(kPbd_Report_Text, out, &o);
  strcpy(l, "gone");
  strcpy(r, "gone");
  for (size_t i = 0; i < N(e); i++) ck_assert_int_eq(pbd_Reporter_Edit(rep, &e[i]), 0);
  ck_assert(pbd_Reporter_Finish(rep, false));
  pbd_Reporter_Free(rep);
  fclose(out);
  ck_assert_str_eq(text,
                   "--- old/model.onnx\n"
                   "+++ new/model.onnx\n"
                   "a: 1 -> 2\n"
                   "b (t.Node):\n"
                   "  c: 1 -> 2\n");
  free(text);
  o.left_name = "x.pb";
  o.right_name = "y.pb";
  /* nothing when equal */
  CHECK_REPORT(kPbd_Report_Text, &o, NULL, 0, true, "");
  /* bold when coloured */
  o.color = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, 1, false,
               "\033[1m--- x.pb\033[m\n\033[1m+++ y.pb\033[m\na: \033[31m1\033[m -> \033[32m2\033[m\n");
  /* with --stat */
  o.color = false;
  o.stat = true;
  CHECK_REPORT(kPbd_Report_Text, &o, e, N(e), false,
               "--- x.pb\n+++ y.pb\n  a: 1 changed\n  b: 1 changed\n2 differences: 2 changed\n");
  /* one name alone: no lines */
  o = (pbd_ReportOptions){.left_name = "x.pb"};
  CHECK_REPORT(kPbd_Report_Text, &o, e, 1, false, "a: 1 -> 2\n");
  /* JSON: top-level keys, also when equal */
  o = (pbd_ReportOptions){.left_name = "x\".pb", .right_name = "y.pb"};
  CHECK_REPORT(kPbd_Report_Json, &o, NULL, 0, true,
               "{\"equal\": true, \"left_name\": \"x\\\".pb\", \"right_name\": \"y.pb\", "
               "\"differences\": []}\n");
  char *t = tu_report(kPbd_Report_Json, &o, e, N(e), false);
  CHECK_JSON_SHAPE(t, 2);
  free(t);
}
END_TEST

/* ---- colour decision ------------------------------------------------------------------ */

START_TEST(color_decision) {
  ck_assert(pbd_Report_ColorModeValid("auto"));
  ck_assert(pbd_Report_ColorModeValid("always"));
  ck_assert(pbd_Report_ColorModeValid("never"));
  ck_assert(!pbd_Report_ColorModeValid("yes"));
  ck_assert(!pbd_Report_ColorModeValid(""));
  ck_assert(!pbd_Report_ColorModeValid(NULL));
  ck_assert(!pbd_Report_ColorModeValid("Always"));

  int pipefd[2];
  ck_assert_int_eq(pipe(pipefd), 0);
  unsetenv("NO_COLOR");
  setenv("TERM", "xterm", 1);
  ck_assert(pbd_Report_ShouldColor("always", pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("never", pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("auto", pipefd[1])); /* not a terminal */
  ck_assert(!pbd_Report_ShouldColor(NULL, pipefd[1]));
  ck_assert(!pbd_Report_ShouldColor("bogus", pipefd[1]));
  setenv("NO_COLOR", "1", 1);
  ck_assert(pbd_Report_ShouldColor("always", pipefd[1])); /* the option wins */
  close(pipefd[0]);
  close(pipefd[1]);

  /* a terminal: a pseudo-terminal's slave side */
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    if (master >= 0) close(master);
    return; /* no pseudo-terminals here */
  }
  int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ck_assert_int_ge(tty, 0);
  unsetenv("NO_COLOR");
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor(NULL, tty));
  ck_assert(!pbd_Report_ShouldColor("never", tty));
  setenv("NO_COLOR", "", 1); /* empty: as if unset */
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  setenv("NO_COLOR", "1", 1);
  ck_assert(!pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor("always", tty));
  unsetenv("NO_COLOR");
  setenv("TERM", "dumb", 1);
  ck_assert(!pbd_Report_ShouldColor("auto", tty));
  ck_assert(pbd_Report_ShouldColor("always", tty));
  unsetenv("TERM");
  ck_assert(pbd_Report_ShouldColor("auto", tty));
  close(tty);
  close(master);
}
END_TEST

/* The two-argument form still compiles and means the defaults. */
START_TEST(reporter_new_two_args) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  pbd_Reporter *r = pbd_Reporter_New(kPbd_Report_Text, out, NULL);
  ck_assert_ptr_nonnull(r);
  pbd_Edit e = E(kPbd_Edit_Changed, "b.c", 1, &md_node, I(1), I(2));
  ck_assert_int_eq(pbd_Reporter_Edit(r, &e), 0);
  ck_assert(pbd_Reporter_Finish(r, false));
  pbd_Reporter_Free(r);
  fclose(out);
  ck_assert_str_eq(text, "b (t.Node):\n  c: 1 -> 2\n");
  free(text);
}
END_TEST


static Suite *suite(void) {
  Suite *s = suite_create("report_text");
  TCase *tc;
  tc = tcase_create("text");
  tcase_set_timeout(tc, 60); /* text_stat runs the CLI: slow under sanitizers on a busy machine */
  tcase_add_test(tc, text_grouping);
  tcase_add_test(tc, text_kinds);
  tcase_add_test(tc, text_color);
  tcase_add_test(tc, text_cut_values);
  tcase_add_test(tc, text_max_diffs);
  tcase_add_test(tc, text_stat);
  tcase_add_test(tc, report_names);
  tcase_add_test(tc, color_decision);
  tcase_add_test(tc, reporter_new_two_args);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main(suite()); }
