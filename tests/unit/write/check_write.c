/* The canonical binary writer (lib/write/write.h): hand-made inputs give
 * the exact canonical bytes (number order, minimal varints, packing as the
 * schema says, map entries by key with both parts, one NaN, one zero, Any
 * payloads re-encoded, unknown fields by number); and over every case of
 * tests/cases/semantics.cases and real ONNX files, the writer is a
 * normaliser: equal meanings give equal bytes, different meanings different
 * bytes, the bytes read back to the same meaning (same root hash), and
 * writing them again gives them again. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/write/write.h"

#define CASES_FILE "tests/cases/semantics.cases"

static pbd_Arena *arena;
static void setup(void) { arena = pbd_Arena_New(); }
static void teardown(void) { pbd_Arena_Free(arena); }

static pbd_ReadOptions opts_for(const char *type, bool float_bits) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = type ? tu_type_pool(type) : NULL;
  o.float_bits = float_bits;
  return o;
}

/* The canonical bytes of hex read as `type` (NULL: schemaless), as hex. */
static char *canonical_hex(const char *type, const char *hex, bool float_bits) {
  pbd_ReadOptions o = opts_for(type, float_bits);
  pbd_Message *m = tu_tree(type ? tu_type(type) : NULL, hex, &o, arena);
  pbd_Buf b = {0};
  pbd_WriteOptions wo = {.float_bits = float_bits};
  ck_assert(pbd_Write_Message(&b, m, &wo));
  pbd_Buf h = {0};
  for (size_t i = 0; i < b.len; i++) pbd_Buf_Printf(&h, "%s%02x", i ? " " : "", (uint8_t)b.data[i]);
  pbd_Buf_Free(&b);
  return h.data ? h.data : strdup("");
}

static void expect(const char *type, const char *in, const char *want) {
  char *got = canonical_hex(type, in, false);
  ck_assert_msg(!strcmp(got, want), "%s\n  in:   %s\n  want: %s\n  got:  %s", type ? type : "-",
                in, want, got);
  free(got);
}

START_TEST(number_order_and_minimal_varints) {
  /* str "a", then i32 1 with a padded tag and value: number order, minimal */
  expect("sem3.M", "52 01 61  88 00 81 80 00", "08 01 52 01 61");
  /* the last value wins; an int32 -1 in ten bytes stays ten bytes (as writers write it) */
  expect("sem3.M", "08 05 08 ff ff ff ff 0f", "08 ff ff ff ff ff ff ff ff ff 01");
  /* implicit defaults written out are dropped */
  expect("sem3.M", "08 00 52 00 38 00", "");
  /* sint32 -2 zigzagged, bool from any non-zero varint */
  expect("sem3.M", "38 05 28 03", "28 03 38 01");
}
END_TEST

START_TEST(packed_as_the_schema_says) {
  /* proto3 repeated int32 is packed: unpacked input is written packed */
  expect("sem3.M", "70 01 70 96 01", "72 03 01 96 01");
  /* repeated strings are never packed; the order within a field is kept */
  expect("sem3.M", "ba 01 01 62 ba 01 01 61", "ba 01 01 62 ba 01 01 61");
}
END_TEST

START_TEST(messages_merged_and_maps_by_key) {
  /* inner written in two parts: one, merged */
  expect("sem3.M", "6a 02 08 01 6a 03 12 01 78", "6a 05 08 01 12 01 78");
  /* ms {"b": 2} {"a": 1}: by key, key and value always written */
  expect("sem3.M", "82 01 05 0a 01 62 10 02  82 01 05 10 01 0a 01 61",
         "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02");
  /* an entry that leaves its value out gets it written */
  expect("sem3.M", "82 01 03 0a 01 61", "82 01 05 0a 01 61 10 00");
  /* a duplicate key keeps the last entry */
  expect("sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 61 10 07", "82 01 05 0a 01 61 10 07");
}
END_TEST

START_TEST(floats_as_they_compare) {
  /* repeated float: a signalling NaN is the quiet NaN, -0 is +0 */
  expect("sem3.M", "c2 01 08 01 00 c0 7f 00 00 00 80", "c2 01 08 00 00 c0 7f 00 00 00 00");
  /* an implicit float -0 is present only by its sign: it keeps it */
  expect("sem3.M", "45 00 00 00 80", "45 00 00 00 80");
  /* optional float: +0 and -0 are one value */
  expect("sem3.M", "85 02 00 00 00 80", "85 02 00 00 00 00");
  /* --float-bits keeps the bits */
  char *got = canonical_hex("sem3.M", "c2 01 04 01 00 c0 7f", true);
  ck_assert_str_eq(got, "c2 01 04 01 00 c0 7f");
  free(got);
}
END_TEST

START_TEST(any_and_unknown_fields) {
  /* Any{url sem3.Inner, value: b "x" then a 1}: the payload in number order */
  const char *url = "0a 1e 74 79 70 65 2e 67 6f 6f 67 6c 65 61 70 69 73 2e 63 6f 6d 2f 73 65 6d"
                    " 33 2e 49 6e 6e 65 72";
  char in[512], want[512];
  snprintf(in, sizeof in, "b2 01 27 %s 12 05 12 01 78 08 01", url);
  snprintf(want, sizeof want, "b2 01 27 %s 12 05 08 01 12 01 78", url);
  expect("sem3.M", in, want);
  /* unknown 100 (varint) after unknown 99 (LEN): by number, each kept */
  expect("sem3.M", "a0 06 07 9a 06 01 7a", "9a 06 01 7a a0 06 07");
  /* schemaless: a LEN read as a message is written by its meaning */
  expect(NULL, "0a 04 10 02 08 01", "0a 04 08 01 10 02");
}
END_TEST

/* ---- the writer as a normaliser, over the semantic cases --------------------- */

typedef struct {
  int line;
  char *type, *left, *right;
  bool equal, equivalent, ignore_unknown, float_bits;
} Case;

static Case *cases;
static size_t ncases;

static void add_case(void *ctx, int line, char **f, int nf, const char *text) {
  (void)ctx;
  if (nf < 5) tu_cases_error(CASES_FILE, line, "fewer than five fields", text);
  const char *o = f[1];
  /* diff options (ignores, tolerances, --partial, typed views of bytes)
   * make a pair equal without making it one meaning: such a case says
   * nothing of bytes */
  if (strstr(o, "ignore=") || strstr(o, "partial") || strstr(o, "float-margin") ||
      strstr(o, "float-fraction") || strstr(o, "bytes-as") || strstr(o, "onnx"))
    return;
  cases = realloc(cases, (ncases + 1) * sizeof *cases);
  Case *c = &cases[ncases++];
  memset(c, 0, sizeof *c);
  c->line = line;
  c->type = strcmp(f[0], "-") ? strdup(f[0]) : NULL;
  c->equivalent = strstr(o, "equivalent") != NULL;
  c->ignore_unknown = strstr(o, "ignore-unknown") != NULL;
  c->float_bits = strstr(o, "float-bits") != NULL;
  c->left = strdup(strcmp(f[2], "-") ? f[2] : "");
  c->right = strdup(strcmp(f[3], "-") ? f[3] : "");
  c->equal = !strcmp(f[4], "equal");
}

/* The cases of semantics.cases (the parser of check_semantic_cases.c's
 * lines, tu_each_case_line, with only what the writer needs). */
static void load_cases(void) { tu_each_case_line(CASES_FILE, 6, add_case, NULL); }

/* The canonical bytes of a tree, and the tree they read back to. */
static pbd_Buf write_tree(const pbd_Message *m, bool float_bits) {
  pbd_Buf b = {0};
  pbd_WriteOptions wo = {.float_bits = float_bits};
  ck_assert(pbd_Write_Message(&b, m, &wo));
  return b;
}

static pbd_Message *reread(const pbd_MessageDef *t, const pbd_Buf *b, const pbd_ReadOptions *o) {
  uint8_t *copy = pbd_Arena_Malloc(arena, b->len + 1);
  if (b->len) memcpy(copy, b->data, b->len);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *m = pbd_Tree_Parse(t, copy, 0, b->len, o, arena, &s);
  ck_assert_msg(m != NULL, "canonical bytes do not parse: %s", s.msg);
  return m;
}

/* Writes m, reads it back (same hash), writes that (same bytes). */
static pbd_Buf check_roundtrip(const char *where, const pbd_MessageDef *t, const pbd_Message *m,
                               const pbd_ReadOptions *o) {
  pbd_Buf b = write_tree(m, o->float_bits);
  pbd_Message *back = reread(t, &b, o);
  ck_assert_msg(pbd_Hash128_Equal(back->hash, m->hash), "%s: canonical bytes mean something else",
                where);
  pbd_Buf again = write_tree(back, o->float_bits);
  ck_assert_msg(again.len == b.len && (b.len == 0 || !memcmp(again.data, b.data, b.len)),
                "%s: writing the canonical bytes again changes them", where);
  pbd_Buf_Free(&again);
  return b;
}

START_TEST(semantic_case) {
  const Case *c = &cases[_i];
  /* Cases whose inputs only one side reads (strict errors) do not parse as trees here. */
  pbd_ReadOptions o = opts_for(c->type, c->float_bits);
  o.equivalent = c->equivalent;
  o.ignore_unknown = c->ignore_unknown;
  const pbd_MessageDef *t = c->type ? tu_type(c->type) : NULL;
  char where[128];
  snprintf(where, sizeof where, "%s:%d", CASES_FILE, c->line);
  pbd_Message *l = tu_tree(t, c->left, &o, arena), *r = tu_tree(t, c->right, &o, arena);
  pbd_Buf lb = check_roundtrip(where, t, l, &o), rb = check_roundtrip(where, t, r, &o);
  bool same = lb.len == rb.len && (lb.len == 0 || !memcmp(lb.data, rb.data, lb.len));
  ck_assert_msg(same == c->equal, "%s: canonical bytes %s, the case says %s", where,
                same ? "equal" : "differ", c->equal ? "equal" : "different");
  pbd_Buf_Free(&lb);
  pbd_Buf_Free(&rb);
}
END_TEST

/* Real models and tensors: read, written, read back to the same hash, and
 * written again to the same bytes. */
START_TEST(onnx_testdata) {
  DIR *d = opendir(ONNX_NODE);
  if (!d) return; /* libonnx-testdata is in scripts/deps.sh; absent only off a checked machine */
  const pbd_MessageDef *model = tu_type("onnx.ModelProto"), *tensor = tu_type("onnx.TensorProto");
  pbd_ReadOptions o = opts_for("onnx.ModelProto", false);
  size_t done = 0;
  struct dirent *e;
  while ((e = readdir(d)) && done < 120) {
    if (e->d_name[0] == '.') continue;
    const char *names[2] = {"model.onnx", "test_data_set_0/input_0.pb"};
    for (int k = 0; k < 2; k++) {
      char path[1024];
      snprintf(path, sizeof path, "%s%s/%s", ONNX_NODE, e->d_name, names[k]);
      size_t n;
      uint8_t *bytes = tu_read_file(path, &n);
      if (!bytes) continue;
      pbd_Status s;
      pbd_Status_Clear(&s);
      const pbd_MessageDef *t = k ? tensor : model;
      pbd_Message *m = pbd_Tree_Parse(t, bytes, 0, n, &o, arena, &s);
      ck_assert_msg(m != NULL, "%s: %s", path, s.msg);
      pbd_Buf b = check_roundtrip(path, t, m, &o);
      pbd_Buf_Free(&b);
      free(bytes);
      done++;
    }
  }
  closedir(d);
  ck_assert_uint_gt(done, 100);
}
END_TEST

static void load_schemas(void) {
  for (size_t i = 0; i < ncases; i++)
    if (cases[i].type) tu_type_pool(cases[i].type);
  tu_type_pool("onnx.ModelProto");
}

int main(void) {
  load_cases();
  Suite *s = suite_create("write");
  TCase *t = tcase_create("exact");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, number_order_and_minimal_varints);
  tcase_add_test(t, packed_as_the_schema_says);
  tcase_add_test(t, messages_merged_and_maps_by_key);
  tcase_add_test(t, floats_as_they_compare);
  tcase_add_test(t, any_and_unknown_fields);
  suite_add_tcase(s, t);
  TCase *n = tcase_create("normaliser");
  tcase_set_timeout(n, 120);
  tcase_add_unchecked_fixture(n, load_schemas, NULL);
  tcase_add_checked_fixture(n, setup, teardown);
  tcase_add_loop_test(n, semantic_case, 0, (int)ncases);
  tcase_add_test(n, onnx_testdata);
  suite_add_tcase(s, n);
  int rc = tu_main(s);
  for (size_t i = 0; i < ncases; i++) {
    free(cases[i].type);
    free(cases[i].left);
    free(cases[i].right);
  }
  free(cases);
  return rc;
}
