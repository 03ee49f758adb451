/* pbdiff tests — `pbdiff merge` (lib/patch: pbd_Patch_Merge), alone and as
 * git's merge driver in real repositories: changes on one side taken, the
 * same change on both taken once, both sides' insertions into one repeated
 * field kept (diff3's rule), conflicts listed with the three values and
 * OURS' value kept in a valid file, --conflicts and --favor, a file that is
 * not protobuf kept as OURS; and `git merge` of two branches that edit
 * different nodes of an ONNX model, different messages of a descriptor set,
 * and a text-format file, with the result checked; conflicting edits leave
 * git in a conflict with a valid file and the paths on stderr, and a
 * text-format file with git's markers around the conflicting lines.
 *
 * Commands run in a fresh directory with $P (the binary) and $R (the source
 * root), HOME in it, and git's system config off. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("merge", "proto/sem3.proto", "sem3.desc")

#define DEMO "--proto \"$R/testdata/demo/demo.proto\" -t demo.Config "
/* git with HOME here and no system or user config but what the test sets */
#define GIT_ENV                                                                             \
  "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CONFIG_PARAMETERS; export HOME=\"$PWD\" " \
  "XDG_CONFIG_HOME=\"$PWD/.config\" GIT_CONFIG_NOSYSTEM=1 GIT_PAGER=cat LC_ALL=C && "

/* Writes NAME from text format (FILE.txtpb through cat --format binary). */
#define ENCODE(schema, txt, out) "\"$P\" cat --format binary " schema txt " > " out

START_TEST(merge_alone) {
  EXPECT(tu_sh("cp \"$R/testdata/demo/left.pb\" base.pb && \"$P\" cat " DEMO "base.pb > b.txtpb && "
               "sed 's/name: \"shop\"/name: \"store\"/' b.txtpb > o.txtpb && "
               "sed 's/port: 443/port: 8443/; s/^version: 3/version: 4/' b.txtpb > t.txtpb && "
               ENCODE(DEMO, "o.txtpb", "ours.pb") " && " ENCODE(DEMO, "t.txtpb", "theirs.pb") " && "
               "sed 's/name: \"shop\"/name: \"store\"/' t.txtpb > want.txtpb && cp ours.pb ours0.pb"),
         0, "");
  /* one change each side: both taken */
  EXPECT(PB("merge " DEMO "base.pb ours.pb theirs.pb"), 0, "");
  EXPECT(PB("-q " DEMO "ours.pb want.txtpb"), 0, "");
  /* merge(A, B, B) and merge(A, A, B) are B */
  EXPECT(tu_sh("cp theirs.pb t2.pb && \"$P\" merge " DEMO "base.pb t2.pb theirs.pb && \"$P\" -q " DEMO
               "t2.pb theirs.pb && cp base.pb b2.pb && \"$P\" merge " DEMO "base.pb b2.pb theirs.pb && "
               "\"$P\" -q " DEMO "b2.pb theirs.pb && echo ok"), 0, "ok\n");
  /* -o: OURS stays */
  EXPECT(PB("merge -o out.pb " DEMO "base.pb ours0.pb theirs.pb"), 0, "");
  EXPECT(tu_sh("\"$P\" -q " DEMO "out.pb want.txtpb && \"$P\" -q " DEMO "ours0.pb o.txtpb && echo kept"),
         0, "kept\n");
}
END_TEST

START_TEST(conflicts) {
  EXPECT(tu_sh("cp \"$R/testdata/demo/left.pb\" base.pb && \"$P\" cat " DEMO "base.pb > b.txtpb && "
               "sed 's/port: 443/port: 444/; s/^version: 3/version: 4/' b.txtpb > o.txtpb && "
               "sed 's/port: 443/port: 8443/; s/^version: 3/version: 4/' b.txtpb > t.txtpb && "
               ENCODE(DEMO, "o.txtpb", "ours.pb") " && " ENCODE(DEMO, "t.txtpb", "theirs.pb") " && "
               "cp ours.pb ours0.pb"),
         0, "");
  /* version: the same change, taken once; port: a conflict, OURS' value stays */
  EXPECT2(PB("merge --conflicts c.pbpatch " DEMO "base.pb ours.pb theirs.pb"), 1, "",
          "pbdiff merge: ours.pb: conflict at servers[1].port: base 443, ours 444, theirs 8443\n");
  EXPECT(PB("-q " DEMO "ours.pb o.txtpb"), 0, "");
  EXPECT(tu_sh("cat c.pbpatch"), 0,
         "pbpatch 1\ntype demo.Config\n@@ changed servers[1].port\n- 444\n+ 8443\n");
  /* the conflicts patch takes THEIRS' side */
  EXPECT(tu_sh("\"$P\" apply " DEMO "c.pbpatch ours.pb && \"$P\" -q " DEMO "ours.pb theirs.pb && echo theirs"),
         0, "theirs\n");
  /* --favor */
  EXPECT(tu_sh("cp ours0.pb f.pb && \"$P\" merge --favor theirs " DEMO "base.pb f.pb theirs.pb && \"$P\" -q "
               DEMO "f.pb theirs.pb && cp ours0.pb f.pb && \"$P\" merge --favor ours " DEMO
               "base.pb f.pb theirs.pb && \"$P\" -q " DEMO "f.pb o.txtpb && echo favoured"),
         0, "favoured\n");
  EXPECT_STDERR(PB("merge --favor mine " DEMO "base.pb f.pb theirs.pb"),
                "pbdiff: --favor wants ours or theirs, not 'mine'\n"
                "Try 'pbdiff merge --help' for more information.\n");
  /* not protobuf: OURS kept, exit 1, one line */
  put("junk.pb", "ff ff ff");
  EXPECT(tu_sh("cp ours0.pb k.pb && \"$P\" merge " DEMO "base.pb k.pb junk.pb 2>/dev/null; echo $?; cmp k.pb ours0.pb && echo kept"),
         0, "1\nkept\n");
  const tu_Run *r = PB("merge " DEMO "base.pb k.pb junk.pb");
  ck_assert_msg(!strncmp(r->err, "pbdiff merge: k.pb: not merged, ours kept: junk.pb: ", 52) &&
                    strchr(r->err, '\n') == r->err + strlen(r->err) - 1,
                "%s", r->err);
  /* a change in an unknown field: no patch carries it; OURS kept, exit 1 */
  put("u0.pb", "98 06 01");
  put("u1.pb", "98 06 02");
  put("u2.pb", "98 06 03");
  EXPECT2(tu_sh("\"$P\" merge -s ../sem3.desc -t sem3.M u0.pb u1.pb u2.pb; echo $?; "
                "\"$P\" cat -s ../sem3.desc -t sem3.M u1.pb"),
          0, "1\n99: 2\n",
          "pbdiff merge: u1.pb: not merged, ours kept: 99[0]: a patch names fields by the schema; unknown "
          "fields have none\n");
  EXPECT_STDERR(PB("merge " DEMO "base.pb k.pb"),
                "pbdiff: missing operand: need BASE, OURS and THEIRS\n"
                "Try 'pbdiff merge --help' for more information.\n");
}
END_TEST

/* Both sides insert into one repeated field, and one changes an element:
 * all stand, as diff3 merges lines. */
START_TEST(insertions_both_sides) {
  EXPECT(tu_sh("cp \"$R/testdata/demo/left.pb\" base.pb && \"$P\" cat " DEMO "base.pb > b.txtpb && "
               "sed '0,/^servers {/s//servers {\\n  host: \"new\"\\n  port: 1\\n}\\nservers {/' b.txtpb > o.txtpb && "
               "{ sed 's/port: 443/port: 8443/' b.txtpb; printf 'servers {\\n  host: \"last\"\\n}\\n'; } > t.txtpb && "
               "sed '0,/^servers {/s//servers {\\n  host: \"new\"\\n  port: 1\\n}\\nservers {/' t.txtpb > want.txtpb && "
               ENCODE(DEMO, "o.txtpb", "ours.pb") " && " ENCODE(DEMO, "t.txtpb", "theirs.pb")),
         0, "");
  EXPECT(PB("merge " DEMO "base.pb ours.pb theirs.pb"), 0, "");
  EXPECT(PB(DEMO "ours.pb want.txtpb"), 0, "");
}
END_TEST

/* A repository whose *.onnx, *.desc and *.txtpb files merge with pbdiff. */
#define REPO                                                                                      \
  GIT_ENV "git init -q r && cd r && git config user.name T && git config user.email t@example.com && " \
  "git config merge.pbdiff.name 'protobuf by meaning' && "                                      \
  "git config merge.pbdiff.driver \"'$P' merge --path %%P %%O %%A %%B\" && "                    \
  "printf '*.onnx merge=pbdiff\\n*.desc merge=pbdiff\\n*.txtpb merge=pbdiff\\n' > .gitattributes && " \
  "printf '[file \"*.onnx\"]\\n\\tproto = /usr/include/onnx/onnx.proto\\n\\ttype = onnx.ModelProto\\n"   \
  "[file \"*.desc\"]\\n\\tproto = /usr/include/google/protobuf/descriptor.proto\\n"             \
  "\\ttype = google.protobuf.FileDescriptorSet\\n"                                               \
  "[file \"*.txtpb\"]\\n\\tproto = '\"$R\"'/testdata/demo/demo.proto\\n\\ttype = demo.Config\\n' > .pbdiff && "

#define CELU ONNX_NODE "test_celu_expanded/model.onnx"

START_TEST(git_onnx_model) {
  /* a: node[1] Div -> Sub; b: node[3] Mul -> Add and a fifth node added */
  EXPECT(tu_sh(REPO "cp " CELU " m.onnx && \"$P\" cat m.onnx > m.txtpb.txt && git add . && "
               "git commit -qm base && git checkout -qb a && "
               "sed 's/op_type: \"Div\"/op_type: \"Sub\"/' m.txtpb.txt > a.txtpb && \"$P\" cat --format binary "
               ONNX_MODEL "a.txtpb > m.onnx && rm a.txtpb && git commit -qam a && git checkout -q - && "
               "git checkout -qb b && sed 's/op_type: \"Mul\"/op_type: \"Add\"/' m.txtpb.txt | "
               "sed '0,/^  name: /s//  node {\\n    input: \"Y\"\\n    output: \"Z\"\\n    op_type: \"Neg\"\\n  }\\n  name: /' > b.txtpb && "
               "\"$P\" cat --format binary " ONNX_MODEL "b.txtpb > m.onnx && rm b.txtpb && git commit -qam b && "
               "git checkout -q a && git merge -q --no-edit b > /dev/null && echo merged && "
               "sed 's/op_type: \"Div\"/op_type: \"Sub\"/; s/op_type: \"Mul\"/op_type: \"Add\"/' m.txtpb.txt | "
               "sed '0,/^  name: /s//  node {\\n    input: \"Y\"\\n    output: \"Z\"\\n    op_type: \"Neg\"\\n  }\\n  name: /' > want.txtpb && "
               "\"$P\" " ONNX_MODEL "m.onnx want.txtpb && echo as-expected && "
               PROTOC_ONNX " --decode=onnx.ModelProto < m.onnx > /dev/null && echo parsed"),
         0, "merged\nas-expected\nparsed\n");
}
END_TEST

START_TEST(git_conflict) {
  /* both change node[1]'s op_type: git stops, the file is valid (OURS'
   * value), the path and the three values on stderr */
  const tu_Run *r = tu_sh(REPO "cp " CELU " m.onnx && \"$P\" cat m.onnx > m.txt && git add . && "
                          "git commit -qm base && git checkout -qb a && "
                          "sed 's/op_type: \"Div\"/op_type: \"Sub\"/' m.txt > a.txtpb && \"$P\" cat --format binary "
                          ONNX_MODEL "a.txtpb > m.onnx && rm a.txtpb && git commit -qam a && git checkout -q - && "
                          "git checkout -qb b && sed 's/op_type: \"Div\"/op_type: \"Pow\"/' m.txt > b.txtpb && "
                          "\"$P\" cat --format binary " ONNX_MODEL "b.txtpb > m.onnx && rm b.txtpb && "
                          "git commit -qam b && git checkout -q a && git merge -q --no-edit b; echo \"merge $?\"; "
                          "git status --porcelain m.onnx; \"$P\" cat m.onnx | grep -c 'op_type: \"Sub\"'");
  ck_assert_msg(strstr(r->out, "merge 1\nUU m.onnx\n1\n") != NULL, "%s\n%s", r->out, r->err);
  ck_assert_msg(strstr(r->err, "pbdiff merge: m.onnx: conflict at graph.node[1].op_type: base \"Div\", ours "
                               "\"Sub\", theirs \"Pow\"\n") != NULL, "%s", r->err);
}
END_TEST

START_TEST(git_descriptor_set_and_text) {
  /* a descriptor set: a renames a message, b a field of another */
  EXPECT(tu_sh(REPO "protoc -I\"$R/testdata/demo\" -o d.desc demo.proto && \"$P\" cat d.desc > d.txt && "
               "cp \"$R/testdata/demo/left.txtpb\" c.txtpb && git add . && git commit -qm base && "
               "git checkout -qb a && sed 's/name: \"Server\"/name: \"Host\"/' d.txt > a.x && "
               "\"$P\" cat --format binary --proto /usr/include/google/protobuf/descriptor.proto "
               "-t google.protobuf.FileDescriptorSet --input-format textproto a.x > d.desc && "
               "sed 's/^version: 3/version: 5/' c.txtpb > c2 && mv c2 c.txtpb && git commit -qam a && "
               "git checkout -q - && git checkout -qb b && sed 's/name: \"debug\"/name: \"verbose\"/' d.txt > b.x && "
               "\"$P\" cat --format binary --proto /usr/include/google/protobuf/descriptor.proto "
               "-t google.protobuf.FileDescriptorSet --input-format textproto b.x > d.desc && "
               "sed 's/name: \"shop\"/name: \"store\"/' c.txtpb > c2 && mv c2 c.txtpb && git commit -qam b && "
               "git checkout -q a && git merge -q --no-edit b > /dev/null && echo merged && "
               "\"$P\" cat d.desc | grep -c 'name: \"Host\"\\|name: \"verbose\"' && "
               "grep -c 'version: 5\\|name: \"store\"' c.txtpb && \"$P\" cat c.txtpb > /dev/null && echo text-valid"),
         0, "merged\n3\n2\ntext-valid\n"); /* Host, verbose and its json_name */
}
END_TEST

START_TEST(git_text_format_markers) {
  const tu_Run *r = tu_sh(REPO "cp \"$R/testdata/demo/left.txtpb\" c.txtpb && git add . && git commit -qm base && "
                          "git checkout -qb a && sed 's/port: 443/port: 444/' c.txtpb > x && mv x c.txtpb && "
                          "git commit -qam a && git checkout -q - && git checkout -qb b && "
                          "sed 's/port: 443/port: 8443/; s/^version: 3/version: 9/' c.txtpb > x && mv x c.txtpb && "
                          "git commit -qam b && git checkout -q a && git merge -q --no-edit b > /dev/null; "
                          "echo \"merge $?\"; git status --porcelain c.txtpb; grep -c '^version: 9' c.txtpb; "
                          "sed -n '/^<<<<<<< ours/,/^>>>>>>> theirs/p' c.txtpb");
  ck_assert_msg(!strcmp(r->out, "merge 1\nUU c.txtpb\n1\n<<<<<<< ours\n  port: 444\n=======\n  port: 8443\n"
                                ">>>>>>> theirs\n"),
                "%s\n%s", r->out, r->err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("merge");
  TCase *t = tcase_create("merge");
  tcase_set_timeout(t, 180);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, merge_alone);
  tcase_add_test(t, conflicts);
  tcase_add_test(t, insertions_both_sides);
  tcase_add_test(t, git_onnx_model);
  tcase_add_test(t, git_conflict);
  tcase_add_test(t, git_descriptor_set_and_text);
  tcase_add_test(t, git_text_format_markers);
  suite_add_tcase(s, t);
  return tu_main(s);
}
