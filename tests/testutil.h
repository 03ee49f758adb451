/* pbdiff tests — helpers shared by the Check suites: hex to bytes, temp
 * files, protoc-compiled schemas, running the built CLI. */
#ifndef PBD_TESTUTIL_H_
#define PBD_TESTUTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "schema.h"
#include "tree.h"

/* Parses hex digits ("08 01 0a02 6869"; spaces and newlines ignored) into a
 * malloc'd buffer; aborts the test on a bad digit. */
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
                  const pbd_TreeOptions *o, const pbd_DiffOptions *d, bool *hash_equal);

#endif
