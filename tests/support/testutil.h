/* pbdiff tests — helpers shared by the Check suites: hex to bytes, temp
 * files, protoc-compiled schemas, running the built CLI. */
#ifndef PBD_TESTUTIL_H_
#define PBD_TESTUTIL_H_

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/diff/diff.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

/* The installed ONNX schema and the ONNX test data's node cases. */
#define ONNX_PROTO "/usr/include/onnx/onnx.proto"
#define ONNX_NODE "/usr/share/libonnx-testdata/data/node/"

/* Parses hex digits ("08 01 0a02 6869"; spaces and newlines ignored) into a
 * malloc'd buffer of exactly that many bytes (one when none), so that
 * AddressSanitizer catches a read past the end; aborts the test on a bad
 * digit. */
uint8_t *tu_hex(const char *hex, size_t *len);
/* Root of the source tree ($PBDIFF_ROOT, else "."). */
const char *tu_root(void);
/* The pbdiff binary under test ($PBDIFF, else build/pbdiff). */
const char *tu_pbdiff(void);
/* Writes bytes to a new temporary file; returns its malloc'd path. */
char *tu_write_temp(const void *data, size_t n, const char *suffix);
/* Reads a whole file (malloc'd); NULL when it cannot be read. */
uint8_t *tu_read_file(const char *path, size_t *n);
/* Runs `sh -c cmd`, capturing stdout and stderr (malloc'd, NUL-terminated;
 * pass NULL to discard).  Returns the exit status, or -1 when it could not
 * run or was killed by a signal. */
int tu_run(const char *cmd, char **out, char **err);
/* Compiles a .proto (path relative to testdata/, or absolute) with
 *   protoc --include_imports -I testdata -I /usr/include -o TMP
 * and returns the malloc'd path of the descriptor set. */
char *tu_compile_proto(const char *proto);
/* Loads a finalized pool from a .proto as above; fails the test on error. */
pbd_DefPool *tu_load_pool(const char *proto);

/* Parses two hex payloads as type t (NULL: schemaless) with the tree
 * options (RIGHT sharing LEFT's elements, as the CLI does), diffs them with
 * the diff options, and returns the edits as text, one per line,
 * "KIND PATH: LEFT -> RIGHT" with "_" for a missing side and values in
 * text format ("" when equal; malloc'd).  Sets *hash_equal to whether the
 * roots hash equal.  Fails the test when a payload does not parse. */
char *tu_diff_hex(const pbd_MessageDef *t, const char *lhex, const char *rhex,
                  const pbd_ReadOptions *o, const pbd_DiffOptions *d, bool *hash_equal);

/* A path from its text (docs/json-format.md syntax: fields by name or
 * number, [N] indices, ["s"] and [true] map keys, [pkg.ext] extensions and
 * [host/pkg.T] Any payloads), for edits made by hand.  *parent_count (when
 * not NULL) gets how many segments lie in its first plen characters.  The
 * storage lives as long as the process. */
const pbd_Path *tu_path(const char *text, size_t plen, size_t *parent_count);

/* The message type `name` of the schema compiled from `proto` (see
 * tu_load_pool), loaded into *pool on first use; fails the test when the
 * type is not there. */
const pbd_MessageDef *tu_message(pbd_DefPool **pool, const char *proto, const char *name);

/* The tree of hex read as type t (NULL: schemaless), its bytes copied into
 * the arena so that they live as long as the tree.  opts NULL: hash seed
 * 12345 and, for a type of tu_type's schemas, that schema as the pool.
 * Fails the test when the bytes do not parse. */
pbd_Message *tu_tree(const pbd_MessageDef *t, const char *hex, const pbd_ReadOptions *opts,
                     pbd_Arena *arena);

/* A growing byte buffer for inputs built by loops (large messages). */
typedef struct {
  uint8_t *p;
  size_t n, cap;
} tu_Bytes;
void tu_bytes_put(tu_Bytes *o, const void *d, size_t n);
/* Appends the bytes of `hex` `times` times. */
void tu_bytes_put_hex(tu_Bytes *o, const char *hex, size_t times);

/* The edits of tu_diff_hex seen from the other side: added <-> removed,
 * LEFT and RIGHT swapped (malloc'd). */
char *tu_mirror_edits(const char *edits);

/* Asserts that LEFT vs RIGHT (hex, as type t, NULL: schemaless) gives exactly
 * the edits `want` (tu_diff_hex's form; "" when equal) and RIGHT vs LEFT
 * gives want_back (NULL: the mirror of want), with diff options that follow
 * o's float_bits; and that the roots' hashes are equal exactly when want is
 * "".  `where` (may be NULL) starts every failure message, e.g.
 * "tests/cases/semantics.cases:12". */
void tu_expect_diff(const char *where, const pbd_MessageDef *t, const pbd_ReadOptions *o,
                    const char *lhex, const char *rhex, const char *want, const char *want_back);
/* tu_expect_diff with these diff options (float_bits is taken from o).
 * Under ignores, tolerances or --partial equal content may hash apart, so
 * the hashes are then held only to "equal hashes: no edits". */
void tu_expect_diff_with(const char *where, const pbd_MessageDef *t, const pbd_ReadOptions *o,
                         const pbd_DiffOptions *d, const char *lhex, const char *rhex,
                         const char *want, const char *want_back);

/* The message `name` of pool / the field `name` of m; fail the test when it
 * is not there. */
const pbd_MessageDef *tu_find_message(const pbd_DefPool *pool, const char *name);
const pbd_FieldDef *tu_find_field(const pbd_MessageDef *m, const char *name);

/* The message type `name` of one of the test schemas, chosen by the name's
 * package: sem3.* (testdata/proto/sem3.proto), sem2.* (proto/sem2.proto),
 * onnxtest.* (proto/onnx_optional.proto), onnx.* (the installed onnx.proto).
 * Each schema is compiled once per process; fails the test on an unknown
 * package or type. */
const pbd_MessageDef *tu_type(const char *name);
/* The pool of that schema (loading it on first use). */
pbd_DefPool *tu_type_pool(const char *name);

/* A pbd_DiffEmitFn that appends the edit to the pbd_Buf ctx as one line,
 * "KIND PATH: LEFT -> RIGHT" (the form of tu_diff_hex). */
int tu_edit_line(void *buf, const pbd_Edit *e);

/* The bytes of a C string as hex digits (malloc'd). */
char *tu_hex_of(const char *s);
/* Writes v as a base-128 varint at p; returns its length (at most 10). */
size_t tu_varint(uint8_t *p, uint64_t v);

/* For the data files of tests/cases, read before any test runs: the text
 * of `rel` under the source root (malloc'd, NUL-terminated), and an error
 * in it ("FILE:LINE: WHY: [TEXT]" on stderr, then exit(EXIT_FAILURE)). */
char *tu_read_cases(const char *rel);
_Noreturn void tu_cases_error(const char *rel, int line, const char *why, const char *text);
/* Each case line of `rel` (neither blank nor a # comment), trimmed and cut
 * at " | " into fields (trimmed), at most max_fields of them (more is an
 * error): fn(ctx, line number, fields, their count, the line's text). */
typedef void tu_CaseLineFunc(void *ctx, int line, char **fields, int n, const char *text);
void tu_each_case_line(const char *rel, int max_fields, tu_CaseLineFunc *fn, void *ctx);
/* s without its leading and trailing blanks (in place). */
char *tu_trim(char *s);

/* Runs the suite (CK_NORMAL output, forking as CK_FORK says) and returns
 * main's exit status: 0 when every test passed. */
int tu_main(Suite *s);

/* Feeds edits to a new reporter (cli/report/report.h; fmt is a pbd_ReportFormat,
 * opts a pbd_ReportOptions or NULL) and returns what it wrote (malloc'd);
 * fails the test when the reporter does. */
char *tu_report(int fmt, const void *opts, const pbd_Edit *edits, size_t n, bool equal);

/* ---- The sandbox of the suites that run the built binary -------------------
 *
 * One base directory per run, /tmp/pbdiff-NAME-XXXXXX, holding descriptor sets
 * compiled once and bin/pbdiff (a link to the binary, for recipes that call
 * plain `pbdiff`), and one fresh directory per test in which commands run
 * with the shell variables $P (the binary) and $R (the source root) set and
 * bin/ first on PATH. */
typedef struct {
  int rc;
  char *out, *err;
} tu_Run;

/* Unchecked suite fixture: descs lists (proto, file name) pairs, NULL-ended:
 * each testdata .proto is compiled into that file of the base directory. */
void tu_sandbox_open(const char *name, const char *const *descs);
void tu_sandbox_close(void);
/* Checked test fixture: the test's own directory. */
void tu_sandbox_test_begin(void);
void tu_sandbox_test_end(void);
const char *tu_sandbox_base(void);
const char *tu_sandbox_dir(void);  /* the test's directory */
const char *tu_sandbox_bin(void);  /* the binary, absolute */
const char *tu_sandbox_root(void); /* the source root, absolute */
/* Runs the shell command (printf-formatted) in the test's directory (in the
 * base directory outside a test, e.g. in an unchecked fixture); the result
 * stays valid until the next call. */
const tu_Run *tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs `pbdiff ARGS` (printf-formatted) as tu_sh does, with JUnit's time
 * attributes, which differ from run to run, left out of standard output
 * (the exit status is pbdiff's). */
const tu_Run *tu_pb_notime(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes bytes (or the bytes given in hex) to NAME in the test's directory,
 * making its parent directories; fails the test when it cannot. */
void tu_put_bytes(const char *name, const void *data, size_t n);
void tu_put_hex(const char *name, const char *hex);
/* rm -rf, also of directories a test made unreadable. */
void tu_rm_rf(const char *dir);

/* tests/support/tu_agree.c.  The hash pass and the tree agree on the hash of
 * P (type t, NULL: schemaless) read under o: asserted; returns it. */
pbd_Hash128 tu_hash_agrees(const pbd_MessageDef *t, const uint8_t *p, size_t n,
                           const pbd_ReadOptions *o);
/* The pipeline (pbd_Compare on two threads) reports exactly what diffing the
 * two whole trees reports, and finds them different: asserted; returns the
 * edits, one line each (tu_edit_line), to free. */
char *tu_diff_both_ways(const pbd_MessageDef *t, const uint8_t *l, size_t ln, const uint8_t *r,
                        size_t rn, const pbd_ReadOptions *o);

#endif
