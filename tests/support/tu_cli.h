/* pbdiff tests — what the suites that run the built binary in the sandbox
 * of testutil.h share: the fixtures, the command, the test schemas and the
 * checks of a run's status, standard output and standard error. */
#ifndef PBD_TU_CLI_H_
#define PBD_TU_CLI_H_

#include <check.h>
#include <string.h>

#include "testutil.h"

typedef tu_Run Run;

/* The suite's fixtures: the sandbox named `name`, with the descriptor sets of
 * `descs` (proto, file name pairs, NULL-ended) compiled once. */
#define TU_CLI_FIXTURES(name, ...)                                   \
  static void suite_setup(void) {                                    \
    static const char *const descs[] = {__VA_ARGS__, NULL};          \
    tu_sandbox_open(name, descs);                                    \
  }                                                                  \
  static void suite_teardown(void) { tu_sandbox_close(); }           \
  static void test_setup(void) { tu_sandbox_test_begin(); }          \
  static void test_teardown(void) { tu_sandbox_test_end(); }

/* Files in the test's directory (testutil.h). */
#define put tu_put_hex
#define put_bytes tu_put_bytes

/* Writes junit.py to the test's directory: a Python check of a JUnit file
 * (python3 junit.py FILE [any]: well-formed, one testsuite whose counts match
 * its test cases, the cases printed one a line as "NAME OUTCOME"; with a
 * second argument, each failure's text too). */
void tu_put_junit_check(void);

/* Runs `pbdiff ARGS` (ARGS in shell syntax) in the test's directory. */
#define PB(...) tu_sh("\"$P\" " __VA_ARGS__)
/* As PB, with JUnit's time attributes left out of standard output. */
#define PB_NOTIME tu_pb_notime

/* Schema options for the sem3/sem2 test schemas (from the test directory). */
#define S3 "-s ../sem3.desc -t sem3.M "
#define S3REC "-s ../sem3.desc -t sem3.Rec "
#define S2 "-s ../sem2.desc -t sem2.M "
#define ONNX_MODEL "--proto " ONNX_PROTO " -t onnx.ModelProto "
/* protoc commands: text format to sem3.M bytes, and the ONNX schema */
#define ENC3 "protoc --encode=sem3.M -I \"$R/testdata/proto\" -I /usr/include \"$R/testdata/proto/sem3.proto\""
#define PROTOC_ONNX "protoc -I/usr/include " ONNX_PROTO

/* Status, exact stdout and exact stderr. */
#define EXPECT2(r, status, stdout_text, stderr_text)                                       \
  do {                                                                                    \
    const Run *r_ = (r);                                                                  \
    const char *o_ = (stdout_text), *e_ = (stderr_text);                                  \
    ck_assert_msg(r_->rc == (status) && strcmp(r_->out, o_) == 0 && strcmp(r_->err, e_) == 0, \
                  "status %d (want %d)\nstdout: [%.3000s]\n  want: [%.3000s]\n"          \
                  "stderr: [%.1500s]\n  want: [%.1500s]",                                 \
                  r_->rc, (status), r_->out, o_, r_->err, e_);                            \
  } while (0)

/* Status and exact stdout; stderr must be empty. */
#define EXPECT(r, status, stdout_text) EXPECT2(r, status, stdout_text, "")

/* Trouble: status 2, exact stdout and stderr. */
#define EXPECT_TROUBLE(r, stdout_text, stderr_text) EXPECT2(r, 2, stdout_text, stderr_text)

/* Trouble: status 2, nothing on stdout, stderr exactly the given text. */
#define EXPECT_STDERR(r, stderr_text) EXPECT2(r, 2, "", stderr_text)

#endif
