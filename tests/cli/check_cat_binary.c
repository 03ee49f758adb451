/* pbdiff tests — `pbdiff cat --format binary` (lib/write) run as users run
 * it: the exact canonical bytes of a hand-made input, two encodings of one
 * meaning giving one file (so `cmp` works after it), the output equal in
 * meaning to the input and parsed by libprotobuf (protoc --decode, and the
 * Python runtime of python3-protobuf, which compares the messages), real
 * ONNX models, --delimited streams, and the errors.
 *
 * Commands run in a fresh directory with $P (the binary) and $R (the
 * source root), and the descriptor sets ../sem3.desc and ../sem2.desc. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tu_cathash.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("catbin", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc")

/* The bytes of a command's standard output as hex, one line. */
#define HEX " | od -An -v -tx1 | tr -s ' \\n' ' ' | sed 's/^ //; s/ $//'"

START_TEST(exact_bytes) {
  /* str "a", then i32 1 with a padded tag and value, unpacked ri 1 2 */
  put("m.pb", "52 01 61  88 00 81 80 00  70 01 70 02");
  EXPECT(tu_sh("\"$P\" cat --format binary " S3 "m.pb" HEX), 0, "08 01 52 01 61 72 02 01 02");
  /* an empty message is no bytes */
  put("e.pb", "08 00");
  EXPECT(tu_sh("\"$P\" cat --format binary " S3 "e.pb | wc -c"), 0, "0\n");
}
END_TEST

/* python3 eq.py DESC TYPE A B: whether Python's protobuf runtime (python3-protobuf)
 * parses A and B to equal messages. */
static const char kPythonEqual[] =
    "import sys\n"
    "from google.protobuf import descriptor_pb2, descriptor_pool, message_factory\n"
    "s = descriptor_pb2.FileDescriptorSet()\n"
    "s.ParseFromString(open(sys.argv[1], 'rb').read())\n"
    "pool = descriptor_pool.DescriptorPool()\n"
    "for f in s.file: pool.Add(f)\n"
    "t = pool.FindMessageTypeByName(sys.argv[2])\n"
    "cls = message_factory.MessageFactory(pool).GetPrototype(t)\n"
    "a, b = cls(), cls()\n"
    "a.ParseFromString(open(sys.argv[3], 'rb').read())\n"
    "b.ParseFromString(open(sys.argv[4], 'rb').read())\n"
    "print('equal' if a == b else 'different')\n";

/* Two encodings of RICH3 (the second re-encoded by protoc from RICH3's
 * canonical text, which has no unknown fields): one canonical file. */
START_TEST(normalises) {
  put("a.pb", RICH3);
  EXPECT(tu_sh("\"$P\" cat --ignore-unknown " S3 "a.pb > a.txt && " ENC3 " < a.txt > b.pb && echo ok"),
         0, "ok\n");
  EXPECT(PB("cat --format binary " S3 "a.pb > a.canon"), 0, "");
  EXPECT(PB("cat --format binary " S3 "a.pb --ignore-unknown > a.known"), 0, "");
  EXPECT(PB("cat --format binary " S3 "b.pb > b.canon"), 0, "");
  EXPECT(tu_sh("cmp a.known b.canon && echo same"), 0, "same\n");
  EXPECT(PB("-q " S3 "a.pb a.canon"), 0, "");
  EXPECT(PB("-q " S3 "a.canon b.canon"), 1, "");
  /* written again: the same bytes */
  EXPECT(tu_sh("\"$P\" cat --format binary " S3 "a.canon | cmp - a.canon && echo stable"), 0,
         "stable\n");
  /* libprotobuf reads it: protoc --decode, and Python's runtime finds the
   * message equal to the input's */
  EXPECT(tu_sh("protoc --decode=sem3.M -I \"$R/testdata/proto\" -I /usr/include "
               "\"$R/testdata/proto/sem3.proto\" < a.canon > /dev/null && echo parsed"),
         0, "parsed\n");
  /* libprotobuf's text of protoc's encoding and of its canonical bytes are
   * one text (RICH3's NaN rules out a comparison of messages: NaN != NaN) */
  EXPECT(tu_sh("for f in b.pb b.canon; do protoc --decode=sem3.M -I \"$R/testdata/proto\" "
               "-I /usr/include \"$R/testdata/proto/sem3.proto\" < $f > $f.txt || exit 1; done; "
               "cmp b.pb.txt b.canon.txt && echo same"), 0, "same\n");
}
END_TEST

/* sem2: groups, extensions, closed-enum values kept as unknown varints */
START_TEST(proto2_groups_extensions) {
  put("m.pb", RICH2);
  EXPECT(PB("cat --format binary " S2 "m.pb > m.canon"), 0, "");
  EXPECT(PB("-q " S2 "m.pb m.canon"), 0, "");
  EXPECT(PB("cat " S2 "m.canon > canon.txt && \"$P\" cat " S2 "m.pb > in.txt"), 0, "");
  EXPECT(tu_sh("cmp in.txt canon.txt && echo same"), 0, "same\n");
  EXPECT(tu_sh("protoc --decode=sem2.M -I \"$R/testdata/proto\" -I /usr/include "
               "\"$R/testdata/proto/sem2.proto\" < m.canon > /dev/null && echo parsed"),
         0, "parsed\n");
}
END_TEST

/* A real model: the canonical bytes mean the model and protoc reads them. */
START_TEST(onnx_model) {
  const char *m = ONNX_NODE "test_conv_with_strides_padding/model.onnx";
  EXPECT(PB("cat --format binary " ONNX_MODEL "%s > m.canon", m), 0, "");
  EXPECT(PB("-q " ONNX_MODEL "%s m.canon", m), 0, "");
  EXPECT(tu_sh(PROTOC_ONNX " --decode=onnx.ModelProto < m.canon > /dev/null && echo parsed"), 0,
         "parsed\n");
  EXPECT(tu_sh(PROTOC_ONNX " --include_imports -o onnx.desc"), 0, "");
  put_bytes("eq.py", kPythonEqual, strlen(kPythonEqual));
  EXPECT(tu_sh("/usr/bin/python3 eq.py onnx.desc onnx.ModelProto %s m.canon", m), 0, "equal\n");
}
END_TEST

START_TEST(delimited_stream) {
  /* two Recs, the first with its fields backwards: each after its length */
  put("s.pb", "06 10 05 0a 02 61 62  02 10 07");
  EXPECT(tu_sh("\"$P\" cat --format binary --delimited " S3REC "s.pb" HEX), 0,
         "06 0a 02 61 62 10 05 02 10 07");
  EXPECT_STDERR(PB("cat --format binary --framing tfrecord " S3REC "s.pb"),
                "pbdiff: --format binary writes varint length-prefixed messages, not --framing "
                "tfrecord\n");
}
END_TEST

START_TEST(errors) {
  put("bad.pb", "08");
  EXPECT_STDERR(PB("cat --format binary " S3 "bad.pb"),
                "pbdiff: bad.pb: truncated varint (field 1) at byte 1\n");
  EXPECT_STDERR(PB("cat --format bin " S3 "bad.pb"),
                "pbdiff: unknown format 'bin' (use text, json or binary; the inputs' encoding is "
                "--input-format)\nTry 'pbdiff cat --help' for more information.\n");
  EXPECT_STDERR(PB("hash --format binary " S3 "bad.pb"),
                "pbdiff: --format binary is cat's; hash prints text or json\n"
                "Try 'pbdiff hash --help' for more information.\n");
}
END_TEST

int main(void) {
  Suite *s = suite_create("cat_binary");
  TCase *t = tcase_create("cat_binary");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, exact_bytes);
  tcase_add_test(t, normalises);
  tcase_add_test(t, proto2_groups_extensions);
  tcase_add_test(t, onnx_model);
  tcase_add_test(t, delimited_stream);
  tcase_add_test(t, errors);
  suite_add_tcase(s, t);
  return tu_main(s);
}
