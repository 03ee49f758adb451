/* pbdiff tests — `pbdiff --format patch` and `pbdiff apply` (lib/patch,
 * docs/patch.md) run as users run them: the exact patch of the demo pair,
 * applying it (over FILE, -o, --check, standard output), -R, a guard that
 * does not hold (nothing written, the hunk and what FILE has named), an
 * element's neighbours as context, a patch already applied, keyed elements
 * (--key), map entries, oneofs, groups and extensions, Any payloads, every
 * edit kind, real ONNX models, and a bad patch.
 *
 * Commands run in a fresh directory with $P (the binary) and $R (the source
 * root), and the descriptor sets ../sem3.desc and ../sem2.desc. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "tu_cathash.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("patch", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")

#define DEMO "--proto \"$R/testdata/demo/demo.proto\" -t demo.Config "

static const char kDemoPatch[] =
    "pbpatch 1\n"
    "type demo.Config\n"
    "@@ changed version\n"
    "- 3\n"
    "+ 4\n"
    "@@ changed labels[\"team\"]\n"
    "- \"web\"\n"
    "+ \"payments\"\n"
    "@@ changed servers[1].port\n"
    "^ { host: \"a.example\" port: 80 tags: \"edge\" }\n"
    "$ #none\n"
    "- 443\n"
    "+ 8443\n";

/* Copies the demo's left.pb and right.pb here. */
static void demo_files(void) {
  EXPECT(tu_sh("cp \"$R/testdata/demo/left.pb\" \"$R/testdata/demo/right.pb\" ."), 0, "");
}

START_TEST(demo_patch_and_apply) {
  demo_files();
  EXPECT(PB(DEMO "--format patch left.pb right.pb"), 1, kDemoPatch);
  EXPECT(PB(DEMO "--format patch left.pb right.pb > c.pbpatch"), 1, "");
  /* equal inputs: a patch without hunks, exit 0 */
  EXPECT(PB(DEMO "--format patch left.pb left.pb"), 0, "pbpatch 1\ntype demo.Config\n");
  /* --check writes nothing */
  EXPECT(tu_sh("cp left.pb l.pb && \"$P\" apply --check " DEMO "c.pbpatch l.pb && cmp l.pb left.pb && echo same"),
         0, "same\n");
  /* over FILE: equal in meaning to RIGHT, in canonical bytes */
  EXPECT(PB("apply " DEMO "c.pbpatch l.pb"), 0, "");
  EXPECT(PB("-q " DEMO "l.pb right.pb"), 0, "");
  EXPECT(tu_sh("\"$P\" cat --format binary " DEMO "right.pb | cmp - l.pb && echo canonical"), 0,
         "canonical\n");
  /* again: already applied, exit 1, FILE untouched */
  EXPECT(tu_sh("cp l.pb before.pb; \"$P\" apply " DEMO "c.pbpatch l.pb 2>/dev/null; echo $?; cmp l.pb before.pb && echo same"),
         0, "1\nsame\n");
  EXPECT2(PB("apply " DEMO "c.pbpatch l.pb"), 1, "",
          "pbdiff: c.pbpatch: the patch is already applied to l.pb (hunk 1 (version, line 3): "
          "patch expects 3, FILE has 4)\n");
  /* -R gives LEFT back; -o writes elsewhere and leaves FILE */
  EXPECT(PB("apply -R " DEMO "c.pbpatch l.pb -o back.pb"), 0, "");
  EXPECT(tu_sh("cmp l.pb before.pb && echo kept"), 0, "kept\n");
  EXPECT(PB("-q " DEMO "back.pb left.pb"), 0, "");
  /* -o -: standard output; FILE '-' reads standard input */
  EXPECT(tu_sh("\"$P\" apply " DEMO "-o - c.pbpatch - < left.pb | cmp - l.pb && echo stdout"), 0,
         "stdout\n");
  EXPECT_STDERR(PB("apply " DEMO "c.pbpatch -"),
                "pbdiff: FILE '-' (standard input) needs -o OUT or --check\n"
                "Try 'pbdiff apply --help' for more information.\n");
}
END_TEST

/* A guard that does not hold refuses the whole patch and writes nothing. */
START_TEST(guards) {
  demo_files();
  EXPECT(PB(DEMO "--format patch left.pb right.pb > c.pbpatch"), 1, "");
  /* edited elsewhere at that element: servers[1].port is 444 */
  EXPECT(tu_sh("\"$P\" cat " DEMO "left.pb | sed 's/port: 443/port: 444/' > e.txtpb && "
               "\"$P\" cat --format binary " DEMO "e.txtpb > e.pb && cp e.pb e0.pb"), 0, "");
  EXPECT2(PB("apply " DEMO "c.pbpatch e.pb"), 1, "",
          "pbdiff: c.pbpatch: the patch does not apply to e.pb: hunk 3 (servers[1].port, line 9): "
          "patch expects 443, FILE has 444\n");
  EXPECT(tu_sh("cmp e.pb e0.pb && echo unchanged"), 0, "unchanged\n");
  /* a server inserted before: servers[1] is another element; its context
   * (the element before) tells */
  EXPECT(tu_sh("\"$P\" cat " DEMO "left.pb | sed '0,/^servers {/s//servers {\\n  host: \"new\"\\n  port: 443\\n}\\nservers {/' > i.txtpb && "
               "\"$P\" cat --format binary " DEMO "i.txtpb > i.pb && \"$P\" cat " DEMO "i.pb | grep -c '^servers'"),
         0, "3\n");
  const tu_Run *r = PB("apply " DEMO "c.pbpatch i.pb");
  ck_assert_int_eq(r->rc, 1);
  ck_assert_msg(strstr(r->err, "hunk 3 (servers[1].port, line 9): the element before servers[1] is not "
                               "what the patch expects ({ host: \"a.example\" port: 80 tags: \"edge\" }): "
                               "FILE has { host: \"new\" port: 443 }") != NULL, "%s", r->err);
  /* the reverse on LEFT: its guards (the new values) do not hold, and LEFT
   * is what the reverse makes */
  EXPECT2(PB("apply -R " DEMO "c.pbpatch left.pb"), 1, "",
          "pbdiff: c.pbpatch: the reverse of the patch is already applied to left.pb (hunk 3 "
          "(servers[1].port, line 9): patch expects 8443, FILE has 443)\n");
}
END_TEST

/* Round trip of hand-made pairs: patch LEFT RIGHT, apply to LEFT == RIGHT,
 * -R gives LEFT. */
static void round_trip(const char *schema, const char *lhex, const char *rhex, const char *want) {
  put("l.bin", lhex);
  put("r.bin", rhex);
  const tu_Run *p = tu_sh("\"$P\" --format patch %s l.bin r.bin", schema);
  ck_assert_msg(p->rc == 1, "patch: %d %s", p->rc, p->err);
  if (want) ck_assert_msg(strstr(p->out, want) != NULL, "patch lacks [%s]:\n%s", want, p->out);
  EXPECT(tu_sh("\"$P\" --format patch %s l.bin r.bin > p.pbpatch; cp l.bin x.bin && \"$P\" apply %s p.pbpatch x.bin && "
               "\"$P\" -q %s x.bin r.bin && \"$P\" apply -R %s p.pbpatch x.bin && \"$P\" -q %s x.bin l.bin && echo ok",
               schema, schema, schema, schema, schema),
         0, "ok\n");
}

/* Hex of sem3.M's rf (24): the floats 1 to 20 but the one at `skip`, the
 * one at `changed` 99 instead, packed or each after its tag. */
static void rf_hex(char *out, bool packed, size_t skip, size_t changed) {
  char *o = out;
  if (packed) o += sprintf(o, "c2 01 %02x ", 4 * (skip < 20 ? 19 : 20));
  for (size_t i = 0; i < 20; i++) {
    if (i == skip) continue;
    float x = i == changed ? 99.0f : (float)(i + 1);
    uint32_t u;
    memcpy(&u, &x, 4);
    o += sprintf(o, "%s%02x%02x%02x%02x ", packed ? "" : "c5 01 ", u & 0xff, u >> 8 & 0xff,
                 u >> 16 & 0xff, u >> 24);
  }
}

START_TEST(edit_kinds) {
  /* changed, and an implicit field to its default (removed) */
  round_trip(S3, "08 05 10 07", "08 06", "@@ changed i32\n- 5\n+ 6\n@@ changed i64\n- 7\n+ 0\n");
  /* presence: optional set to 0 vs unset */
  round_trip(S3, "", "90 01 00", "@@ presence oi\n+ 0\n");
  /* elements added and removed by index, with context */
  round_trip(S3, "72 03 01 02 03", "72 03 01 09 03", "@@ changed ri[1]\n^ 1\n$ 3\n- 2\n+ 9\n");
  round_trip(S3, "72 03 01 02 03", "72 02 01 03", "@@ removed ri[1]\n^ 1\n$ 3\n- 2\n");
  round_trip(S3, "72 02 01 03", "72 04 07 01 02 03", "@@ added ri[0]\n^ #none\n$ 1\n+ 7\n");
  /* moved: removed and added */
  round_trip(S3, "70 02 70 01", "70 01 70 02", NULL);
  /* map entries by key, string and message values */
  round_trip(S3, "82 01 05 0a 01 61 10 01", "82 01 05 0a 01 62 10 02",
             "@@ removed ms[\"a\"]\n- 1\n@@ added ms[\"b\"]\n+ 2\n");
  round_trip(S3, "8a 01 06 08 03 12 02 08 07", "8a 01 06 08 03 12 02 08 08", "@@ changed mi[3].a\n- 7\n+ 8\n");
  /* a oneof member for another */
  round_trip(S3, "98 01 05", "a2 01 01 78", "@@ removed c1\n- 5\n@@ added c2\n+ \"x\"\n");
  /* a set empty member unset for another: the unset goes first, so -R restores it */
  round_trip(S3, "aa 01 00", "a2 01 01 61", "@@ presence c3\n- { }\n@@ added c2\n+ \"a\"\n");
  /* nested messages, strings with escapes, bytes, floats, enums */
  round_trip(S3, "6a 02 08 01", "6a 07 08 01 12 03 0a 22 5c", "@@ changed inner.s\n+ \"\\n\\\"\\\\\"\n");
  round_trip(S3, "5a 02 00 ff 45 00 00 c0 7f 60 01", "5a 01 41 45 00 00 80 7f 60 02", "+ GREEN\n");
  /* an Any's payload */
  round_trip(S3, ANY_A, "b2 01 27 0a 1e " URL_INNER " 12 05 08 05 12 01 79",
             "@@ changed any.[type.googleapis.com/sem3.Inner].a\n- 4\n+ 5\n");
  /* 20 floats, read where they are in the input: one changed, one removed, one added */
  char v20[512], c20[512], u20[512], v19[512];
  rf_hex(v20, true, SIZE_MAX, SIZE_MAX);
  rf_hex(c20, false, SIZE_MAX, 17);
  rf_hex(u20, false, SIZE_MAX, SIZE_MAX);
  rf_hex(v19, true, 5, SIZE_MAX);
  round_trip(S3, v20, c20, "@@ changed rf[17]\n");
  round_trip(S3, u20, v19, "@@ removed rf[5]\n");
  round_trip(S3, v19, v20, "@@ added rf[5]\n");
  /* proto2: a group, an extension, a closed enum */
  round_trip(S2, "58 00 3b 40 03 3c", "58 00 3b 40 04 3c a0 06 05", "@@ changed g.ga\n- 3\n+ 4\n");
}
END_TEST

/* --key: elements by key, whatever their index. */
START_TEST(keyed_elements) {
  put("l.bin", "7a 04 08 01 12 00  7a 06 08 02 12 02 61 61");
  put("r.bin", "7a 06 08 09 12 02 62 62  7a 06 08 03 12 02 61 61  7a 04 08 01 12 00");
  /* the element of s "" on each side has no name: aligned apart, and said */
  EXPECT2(PB(S3 "--key sem3.M.rm=s --format patch l.bin r.bin"), 1,
          "pbpatch 1\ntype sem3.M\n"
          "@@ changed rm[s=\"aa\"].a\n- 2\n+ 3\n"
          "@@ added rm[s=\"bb\"] at 0\n+ { a: 9 s: \"bb\" }\n",
          "pbdiff: warning: --key sem3.M.rm=s: 1 element of LEFT and 1 of RIGHT have an empty s; "
          "those elements are aligned as a sequence, not paired by s\n");
  /* applied, equal by key (the order is not the key's business); -R undoes */
  EXPECT(tu_sh("\"$P\" " S3 "--key sem3.M.rm=s --format patch l.bin r.bin > k.pbpatch 2> /dev/null; "
               "cp l.bin x.bin && \"$P\" apply " S3 "k.pbpatch x.bin && "
               "\"$P\" -q --key sem3.M.rm=s " S3 "x.bin r.bin 2> /dev/null && \"$P\" apply -R " S3
               "k.pbpatch x.bin && \"$P\" -q --key sem3.M.rm=s " S3 "x.bin l.bin 2> /dev/null && echo ok"),
         0, "ok\n");
  /* a key the file lacks is refused */
  EXPECT(tu_sh("sed 's/aa/ab/' k.pbpatch > k2.pbpatch; \"$P\" apply " S3 "k2.pbpatch l.bin 2>&1; echo $?"), 0,
         "pbdiff: k2.pbpatch: the patch does not apply to l.bin: hunk 1 (rm[s=\"ab\"].a, line 3): FILE has no "
         "such place (no such element or entry: s=\"ab\")\n1\n");
}
END_TEST

START_TEST(onnx_models) {
  const char *a = ONNX_NODE "test_conv_with_strides_padding/model.onnx",
             *b = ONNX_NODE "test_averagepool_2d_default/model.onnx";
  EXPECT(PB(ONNX_MODEL "--format patch %s %s > m.pbpatch", a, b), 1, "");
  EXPECT(tu_sh("cp %s m.onnx && \"$P\" apply " ONNX_MODEL "m.pbpatch m.onnx && \"$P\" -q " ONNX_MODEL
               "m.onnx %s && echo applied", a, b), 0, "applied\n");
  EXPECT(tu_sh(PROTOC_ONNX " --decode=onnx.ModelProto < m.onnx > /dev/null && echo parsed"), 0, "parsed\n");
  EXPECT(tu_sh("\"$P\" apply -R " ONNX_MODEL "m.pbpatch m.onnx && \"$P\" -q " ONNX_MODEL
               "m.onnx %s && echo undone", a), 0, "undone\n");
  /* the file keeps its mode through the rename */
  EXPECT(tu_sh("chmod 640 m.onnx && \"$P\" apply " ONNX_MODEL "m.pbpatch m.onnx && stat -c %%a m.onnx"), 0,
         "640\n");
}
END_TEST

START_TEST(bad_patches) {
  demo_files();
  put_bytes("v.pbpatch", "pbpatch 2\ntype demo.Config\n", 28);
  EXPECT_STDERR(PB("apply " DEMO "v.pbpatch left.pb"),
                "pbdiff: v.pbpatch: line 1: a patch of another version (this pbdiff reads pbpatch 1)\n");
  put_bytes("n.pbpatch", "hello\n", 6);
  EXPECT_STDERR(PB("apply " DEMO "n.pbpatch left.pb"),
                "pbdiff: n.pbpatch: line 1: not a patch: it must start with 'pbpatch 1'\n");
  put_bytes("t.pbpatch", "pbpatch 1\ntype sem3.M\n", 22);
  EXPECT_STDERR(PB("apply " DEMO "t.pbpatch left.pb"),
                "pbdiff: t.pbpatch: line 2: the patch is for type sem3.M, the file is read as demo.Config\n");
  const char bad_value[] = "pbpatch 1\ntype demo.Config\n@@ changed version\n- 3\n+ four\n";
  put_bytes("b.pbpatch", bad_value, sizeof bad_value - 1);
  const tu_Run *r = PB("apply " DEMO "b.pbpatch left.pb");
  ck_assert_int_eq(r->rc, 2);
  ck_assert_msg(strstr(r->err, "hunk 1 (version, line 3): the new value does not read as demo.Config.version") != NULL,
                "%s", r->err);
  const char bad_path[] = "pbpatch 1\ntype demo.Config\n@@ changed nope\n+ 1\n";
  put_bytes("p.pbpatch", bad_path, sizeof bad_path - 1);
  EXPECT2(PB("apply " DEMO "p.pbpatch left.pb"), 1, "",
          "pbdiff: p.pbpatch: the patch does not apply to left.pb: hunk 1 (nope, line 3): FILE has no "
          "such place (no such field in the schema: nope)\n");
  EXPECT_STDERR(PB("--format patch left.pb right.pb"),
                "pbdiff: a patch needs a schema to name fields by (--schema or --proto, and --type)\n"
                "Try 'pbdiff --help' for more information.\n");
  /* unknown fields have no schema to write them by */
  put("u1.bin", "98 06 01");
  put("u2.bin", "98 06 02");
  EXPECT_STDERR(PB(S3 "--format patch u1.bin u2.bin"),
                "pbdiff: cannot write a patch: 99[0]: a patch names fields by the schema; unknown fields "
                "have none\n");
  EXPECT_STDERR(PB("apply " DEMO "c.pbpatch"),
                "pbdiff: missing operand: need PATCH and FILE\nTry 'pbdiff apply --help' for more information.\n");
}
END_TEST

int main(void) {
  Suite *s = suite_create("patch");
  TCase *t = tcase_create("patch");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, demo_patch_and_apply);
  tcase_add_test(t, guards);
  tcase_add_test(t, edit_kinds);
  tcase_add_test(t, keyed_elements);
  tcase_add_test(t, onnx_models);
  tcase_add_test(t, bad_patches);
  suite_add_tcase(s, t);
  return tu_main(s);
}
