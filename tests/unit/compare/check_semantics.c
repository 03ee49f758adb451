/* Semantic rules of docs/semantics.md, one test (or more) per rule, with
 * hand-written bytes.  Each case checks the verdict, the reported edits
 * (kind, path, values) in both directions, and that the root hashes agree
 * with the verdict (so that a hashing bug cannot hide behind the walk). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "format/format.h"
#include "testutil.h"
#include "canon/canon.h"
#include "pbdiff.h"
#include "tree/tree.h"



static pbd_TreeOptions opts_default(void) {
  pbd_TreeOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = tu_type_pool("sem3.");
  return o;
}

static char *diff_hex(const pbd_MessageDef *t, const char *lhex, const char *rhex,
                      const pbd_TreeOptions *o, bool *hash_equal) {
  pbd_DiffOptions d = {.float_bits = o->float_bits};
  return tu_diff_hex(t, lhex, rhex, o, &d, hash_equal);
}

/* The edits seen from the other side: added <-> removed, values swapped. */
static char *mirror(const char *edits) {
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "");
  const char *p = edits;
  while (*p) {
    const char *nl = strchr(p, '\n');
    char line[2048];
    size_t n = (size_t)(nl - p);
    ck_assert(n < sizeof line);
    memcpy(line, p, n);
    line[n] = '\0';
    char *sp = strchr(line, ' ');
    char *colon = strstr(line, ": ");
    char *arrow = strstr(line, " -> ");
    ck_assert(sp && colon && arrow);
    *sp = *colon = *arrow = '\0';
    const char *kind = line;
    if (!strcmp(kind, "added")) kind = "removed";
    else if (!strcmp(kind, "removed")) kind = "added";
    pbd_Buf_Printf(&out, "%s %s: %s -> %s\n", kind, sp + 1, arrow + 4, colon + 2);
    p = nl + 1;
  }
  return out.data;
}

/* Asserts LEFT vs RIGHT gives `expected` (and RIGHT vs LEFT its mirror). */
static void expect_o(const pbd_MessageDef *t, const pbd_TreeOptions *o, const char *lhex,
                     const char *rhex, const char *expected) {
  bool heq;
  char *got = diff_hex(t, lhex, rhex, o, &heq);
  ck_assert_msg(!strcmp(got, expected), "%s vs %s:\n got: [%s]\nwant: [%s]", lhex, rhex, got,
                expected);
  ck_assert_msg(heq == (expected[0] == '\0'), "%s vs %s: hash equality %d disagrees", lhex,
                rhex, heq);
  free(got);
  char *want_back = mirror(expected);
  got = diff_hex(t, rhex, lhex, o, &heq);
  ck_assert_msg(!strcmp(got, want_back), "%s vs %s (reversed):\n got: [%s]\nwant: [%s]", rhex,
                lhex, got, want_back);
  free(got);
  free(want_back);
}

/* As expect, with the reverse direction given: sequence alignment of equal
 * elements in another order is not symmetric (like diff, it reports what
 * goes first as removed and what comes after as added). */
static void expect_each(const pbd_MessageDef *t, const char *lhex, const char *rhex,
                        const char *want, const char *want_back) {
  pbd_TreeOptions o = opts_default();
  bool heq;
  char *got = diff_hex(t, lhex, rhex, &o, &heq);
  ck_assert_msg(!strcmp(got, want), "%s vs %s:\n got: [%s]\nwant: [%s]", lhex, rhex, got, want);
  free(got);
  got = diff_hex(t, rhex, lhex, &o, &heq);
  ck_assert_msg(!strcmp(got, want_back), "%s vs %s:\n got: [%s]\nwant: [%s]", rhex, lhex, got,
                want_back);
  free(got);
}

static void expect(const pbd_MessageDef *t, const char *lhex, const char *rhex, const char *want) {
  pbd_TreeOptions o = opts_default();
  expect_o(t, &o, lhex, rhex, want);
}

/* Parses hex that must fail; returns the status. */
static pbd_Status parse_fail(const pbd_MessageDef *t, const char *hex, const pbd_TreeOptions *o) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *m = pbd_Tree_Parse(t, b, 0, n, o, a, &s);
  ck_assert_msg(m == NULL, "%s parsed but should fail", hex);
  ck_assert(s.code != kPbd_Status_Ok);
  /* the hash pass fails the same way: code, message, offset and path */
  pbd_Status h;
  pbd_Status_Clear(&h);
  pbd_Hash128 ignored;
  ck_assert_msg(!pbd_Canon_Hash(t, b, 0, n, o, NULL, &ignored, &h), "%s hashed", hex);
  ck_assert_msg(h.code == s.code && !strcmp(h.msg, s.msg) && h.offset == s.offset &&
                    !strcmp(h.path, s.path),
                "%s: hash pass [%s at %zu in %s], tree [%s at %zu in %s]", hex, h.msg, h.offset,
                h.path, s.msg, s.offset, s.path);
  /* and so does the check of identical inputs */
  pbd_Status_Clear(&h);
  ck_assert_msg(!pbd_Canon_Validate(t, b, 0, n, o, &h), "%s checked clean", hex);
  ck_assert_msg(h.code == s.code && !strcmp(h.msg, s.msg) && h.offset == s.offset,
                "%s: check [%s at %zu], tree [%s at %zu]", hex, h.msg, h.offset, s.msg, s.offset);
  pbd_Arena_Free(a);
  free(b);
  return s;
}

/* ---- Rule 1: field order ------------------------------------------------ */

START_TEST(rule1_field_order) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 10 02", "10 02 08 01", "");
  /* repeated elements interleaved with other fields keep their order */
  expect(M, "70 01 08 05 70 02", "70 01 70 02 08 05", "");
  expect_each(M, "70 02 70 01", "70 01 70 02", "removed ri[0]: 2 -> _\nadded ri[1]: _ -> 2\n",
              "removed ri[0]: 1 -> _\nadded ri[1]: _ -> 1\n");
}
END_TEST

/* ---- Rule 2: last value wins; oneofs ------------------------------------ */

START_TEST(rule2_last_value_wins) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 08 02", "08 02", "");               /* the seed's example */
  expect(M, "08 01 08 02", "08 01", "changed i32: 2 -> 1\n");
  expect(M, "52 01 61 52 01 62", "52 01 62", "");      /* strings too */
  expect(M, "5a 01 61 5a 00", "", "");                  /* last is empty: default */
}
END_TEST

START_TEST(rule2_oneof_last_member_wins) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "98 01 05 a2 01 01 78", "a2 01 01 78", "");
  expect(M, "a2 01 01 78 98 01 05", "98 01 05", "");
  /* the same message member twice merges */
  expect(M, "aa 01 02 08 01 aa 01 03 12 01 79", "aa 01 05 08 01 12 01 79", "");
  /* a member set again after another member starts afresh */
  expect(M, "aa 01 02 08 01 98 01 05 aa 01 03 12 01 79", "aa 01 03 12 01 79", "");
  expect(M, "aa 01 02 08 01 98 01 05 aa 01 03 12 01 79", "aa 01 05 08 01 12 01 79",
         "changed c3.a: 0 -> 1\n");
  expect(M, "98 01 05", "a2 01 01 78", "removed c1: 5 -> _\nadded c2: _ -> \"x\"\n");
}
END_TEST

/* ---- Rule 3: messages merge --------------------------------------------- */

START_TEST(rule3_messages_merge) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "6a 02 08 01 6a 03 12 01 78", "6a 05 08 01 12 01 78", "");
  /* scalars replaced */
  expect(M, "6a 02 08 01 6a 02 08 02", "6a 02 08 02", "");
  /* repeated fields joined */
  expect(M, "6a 02 18 01 6a 02 18 02", "6a 04 18 01 18 02", "");
  /* nested messages merge in turn */
  expect(M, "6a 04 22 02 08 01 6a 05 22 03 12 01 78", "6a 07 22 05 08 01 12 01 78", "");
  expect(M, "6a 04 22 02 08 01 6a 05 22 03 12 01 78", "6a 05 22 03 12 01 78",
         "changed inner.child.a: 1 -> 0\n");
}
END_TEST

START_TEST(rule3_concatenation_is_merge) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  /* A = {i32:1 inner{a:1} ri:[1]}, B = {i64:2 inner{s:"x"} ri:[2]};
   * A||B must equal their merge. */
  expect(M, "08 01 6a 02 08 01 72 01 01" "10 02 6a 03 12 01 78 72 01 02",
         "08 01 10 02 6a 05 08 01 12 01 78 72 02 01 02", "");
}
END_TEST

/* ---- Rule 4: packed == unpacked ----------------------------------------- */

START_TEST(rule4_packed_unpacked) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "72 03 01 02 03", "70 01 70 02 70 03", "");
  expect(M, "70 01 72 02 02 03", "72 03 01 02 03", "");
  expect(M, "c2 01 08 0000803f 00000040", "c5 01 0000803f c5 01 00000040", "");
  expect(M, "ea 01 08 000000000000f03f", "e9 01 000000000000f03f", "");
  expect(M, "72 02 01 02", "70 01 70 02 70 03", "added ri[2]: _ -> 3\n");
  /* proto2 repeated, unpacked by default, also reads packed */
  expect(tu_type("sem2.M"), "4a 02 01 02", "48 01 48 02", "");
  /* an empty packed run adds nothing */
  expect(M, "72 00", "", "");
}
END_TEST

/* ---- Rule 5: maps ------------------------------------------------------- */

START_TEST(rule5_map_order_and_duplicates) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  const char *a1 = "82 01 05 0a 01 61 10 01", *b2 = "82 01 05 0a 01 62 10 02";
  const char *a2 = "82 01 05 0a 01 61 10 02";
  char l[256], r[256];
  snprintf(l, sizeof l, "%s %s", a1, b2);
  snprintf(r, sizeof r, "%s %s", b2, a1);
  expect(M, l, r, "");
  snprintf(l, sizeof l, "%s %s", a1, a2);
  expect(M, l, a2, "");                                   /* last duplicate wins */
  expect(M, l, a1, "changed ms[\"a\"]: 2 -> 1\n");
  snprintf(r, sizeof r, "%s %s", a1, b2);
  expect(M, a1, r, "added ms[\"b\"]: _ -> 2\n");
  /* a message value is replaced whole, not merged */
  const char *e1 = "8a 01 06 08 01 12 02 08 01", *e2 = "8a 01 07 08 01 12 03 12 01 78";
  snprintf(l, sizeof l, "%s %s", e1, e2);
  expect(M, l, e2, "");
  expect(M, l, "8a 01 09 08 01 12 05 08 01 12 01 78", "changed mi[1].a: 0 -> 1\n");
}
END_TEST

START_TEST(rule5_map_entry_defaults_and_order) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "82 01 02 10 05", "82 01 04 0a 00 10 05", "");       /* missing key */
  expect(M, "82 01 03 0a 01 61", "82 01 05 0a 01 61 10 00", "");  /* missing value */
  expect(M, "82 01 05 10 01 0a 01 61", "82 01 05 0a 01 61 10 01", ""); /* order inside */
  expect(M, "8a 01 02 08 07", "8a 01 04 08 07 12 00", "");        /* empty message value */
  expect(M, "82 01 03 0a 01 61", "", "removed ms[\"a\"]: 0 -> _\n");
  /* bool and int keys sort by value */
  expect(M, "f2 01 02 08 01 f2 01 00", "f2 01 00 f2 01 02 08 01", "");
  expect(M, "8a 01 02 08 02 8a 01 0b 08 ff ff ff ff ff ff ff ff ff 01",
         "8a 01 0b 08 ff ff ff ff ff ff ff ff ff 01 8a 01 02 08 02", "");
}
END_TEST

/* ---- Rule 6: unknown fields --------------------------------------------- */

START_TEST(rule6_unknown_fields) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 01 f8 07 05", "08 01", "removed 127[0]: 5 -> _\n");
  expect_each(M, "f8 07 01 f8 07 02", "f8 07 02 f8 07 01",
              "removed 127[0]: 1 -> _\nadded 127[1]: _ -> 1\n",
              "removed 127[0]: 2 -> _\nadded 127[1]: _ -> 2\n");
  /* grouped by number, order kept within a number */
  expect(M, "f8 07 01 08 01 f8 07 02", "08 01 f8 07 01 f8 07 02", "");
  /* a wire type that does not match the schema makes an unknown field */
  expect(M, "0a 01 78", "", "removed 1[0]: \"x\" -> _\n");
  pbd_TreeOptions o = opts_default();
  o.ignore_unknown = true;
  expect_o(M, &o, "08 01 f8 07 05 0a 01 78", "08 01", "");
  o.ignore_unknown = false;
  o.strict = true;
  pbd_Status s = parse_fail(M, "08 01 f8 07 05", &o);
  ck_assert_int_eq(s.code, kPbd_Status_UnknownField);
  ck_assert_int_eq(s.offset, 2);
}
END_TEST

/* ---- Rule 7: defaults and presence -------------------------------------- */

START_TEST(rule7_implicit_default_is_absent) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 00 52 00 38 00 60 00", "", "");
  expect(M, "08 05", "", "changed i32: 5 -> 0\n");
}
END_TEST

START_TEST(rule7_presence) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "90 01 00", "", "presence oi: 0 -> _\n");
  expect(M, "90 01 03", "", "removed oi: 3 -> _\n");
  expect(M, "6a 00", "", "presence inner: { } -> _\n");
  expect(M, "98 01 00", "", "presence c1: 0 -> _\n");
  pbd_TreeOptions o = opts_default();
  o.equivalent = true;
  expect_o(M, &o, "90 01 00 6a 00 98 01 00", "", "");
  expect_o(M, &o, "90 01 03", "", "removed oi: 3 -> _\n");
  /* a sub-message holding only defaults is empty, so unset, under --equivalent */
  expect_o(M, &o, "6a 02 08 00", "", "");
}
END_TEST

START_TEST(rule7_proto2_defaults) {
  const pbd_MessageDef *M = tu_type("sem2.M");
  pbd_TreeOptions o = opts_default();
  expect(M, "08 00", "", "presence i: 0 -> _\n");
  expect(M, "10 07", "", "presence di: 7 -> _\n");            /* declared default */
  expect(M, "10 00", "", "removed di: 0 -> _\n");             /* not the default */
  expect(M, "1a 02 68 69", "", "presence ds: \"hi\" -> _\n");
  expect(M, "20 00", "", "presence k: ZERO -> _\n");          /* first enum value */
  expect(M, "60 02", "", "presence dk: TWO -> _\n");
  o.equivalent = true;
  expect_o(M, &o, "08 00 10 07 1a 02 68 69 20 00 60 02", "", "");
  expect_o(M, &o, "10 00", "", "removed di: 0 -> _\n");
}
END_TEST

START_TEST(rule7_onnx_empty_optional_value) {
  /* ONNX's test file for an empty optional value writes 10 00: OptionalProto
   * elem_type (field 2, proto2) set to 0.  Read the real file and compare it
   * with itself minus those two bytes. */
  const pbd_MessageDef *M = tu_type("onnxtest.OptionalProto");
  size_t n;
  uint8_t *file = tu_read_file("/usr/share/libonnx-testdata/data/node/"
                               "test_optional_has_element_empty/test_data_set_0/input_0.pb", &n);
  ck_assert_ptr_nonnull(file);
  ck_assert_uint_ge(n, 2);
  ck_assert(file[n - 2] == 0x10 && file[n - 1] == 0x00);
  char *full = malloc(n * 2 + 1), *cut;
  for (size_t i = 0; i < n; i++) sprintf(full + 2 * i, "%02x", file[i]);
  cut = strdup(full);
  cut[(n - 2) * 2] = '\0';
  pbd_TreeOptions o = opts_default();
  expect_o(M, &o, full, cut, "presence elem_type: 0 -> _\n");
  expect_o(M, &o, "10 00", "", "presence elem_type: 0 -> _\n");
  expect_o(M, &o, full, full, "");
  o.equivalent = true;
  expect_o(M, &o, full, cut, "");
  free(full);
  free(cut);
  free(file);
}
END_TEST

/* ---- Rule 8: integers ---------------------------------------------------- */

START_TEST(rule8_integers) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  expect(M, "08 81 80 00", "08 01", "");                          /* non-minimal */
  expect(M, "08 ff ff ff ff ff ff ff ff ff 01", "08 ff ff ff ff 0f", ""); /* int32 -1 */
  expect(M, "18 ff ff ff ff 1f", "18 ff ff ff ff 0f", "");       /* uint32 low 32 bits */
  expect(M, "10 ff ff ff ff 0f", "10 ff ff ff ff ff ff ff ff ff 01",
         "changed i64: 4294967295 -> -1\n");                       /* int64 keeps 64 */
  expect(M, "28 01", "28 02", "changed s32: -1 -> 1\n");           /* zigzag */
  expect(M, "30 03", "30 04", "changed s64: -2 -> 2\n");
  expect(M, "38 02", "38 01", "");                                  /* bool: non-zero */
  expect(M, "cd 01 ffffffff", "cd 01 feffffff", "changed fx32: 4294967295 -> 4294967294\n");
  expect(M, "dd 01 ffffffff", "", "changed sfx32: -1 -> 0\n");
  /* a missing required field is not an error */
  expect(tu_type("sem2.M"), "", "08 01", "added i: _ -> 1\n");
}
END_TEST

START_TEST(rule8_bad_field_numbers) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_TreeOptions o = opts_default();
  pbd_Status s = parse_fail(M, "08 01 00 01", &o);
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "80 80 80 80 10 01", &o); /* number 2^29 */
  ck_assert_int_eq(s.offset, 0);
  s = parse_fail(NULL, "00 01", &o);
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
}
END_TEST

/* ---- Rule 9: enums ------------------------------------------------------ */

START_TEST(rule9_enums) {
  const pbd_MessageDef *M3 = tu_type("sem3.M");
  expect(M3, "60 01", "60 02", "changed color: RED -> GREEN\n");
  expect(M3, "60 07", "", "changed color: 7 -> COLOR_UNSPECIFIED\n"); /* open enum */
  const pbd_MessageDef *M2 = tu_type("sem2.M");
  /* closed enum: an unknown value goes to unknown fields */
  expect(M2, "20 05", "", "removed 4[0]: 5 -> _\n");
  expect(M2, "20 01 20 05", "20 01", "removed 4[0]: 5 -> _\n");
  /* ... also out of a packed run */
  expect(M2, "2a 03 01 05 02", "2a 02 01 02 28 05", "");
  expect(M2, "2a 03 01 05 02", "2a 02 01 02", "removed 5[0]: 5 -> _\n");
  pbd_TreeOptions o = opts_default();
  o.ignore_unknown = true;
  expect_o(M2, &o, "2a 03 01 05 02 20 05", "2a 02 01 02", "");
  /* a map entry whose closed-enum value is unknown stays whole, as an
   * unknown field, not an entry with the default value */
  const pbd_MessageDef *W = tu_type("sem2.WithMap");
  expect(W, "0a 04 08 01 10 01", "0a 04 08 01 10 01", "");
  expect(W, "0a 04 08 01 10 07", "0a 02 08 01",
         "added kinds[1]: _ -> ZERO\nremoved 1[0]: { 1: 1 2: 7 } -> _\n");
  expect(W, "0a 04 08 01 10 07", "", "removed 1[0]: { 1: 1 2: 7 } -> _\n");
}
END_TEST

/* ---- Rule 10: floats ---------------------------------------------------- */

START_TEST(rule10_floats) {
  const pbd_MessageDef *M3 = tu_type("sem3.M");
  expect(M3, "45 0000c07f", "45 0100c07f", "");                /* NaNs equal */
  expect(M3, "49 000000000000f87f", "49 010000000000f8ff", "");
  expect(M3, "45 0000803f", "45 00000040", "changed f: 1 -> 2\n");
  /* proto3 implicit -0.0 is not the default */
  expect(M3, "45 00000080", "", "changed f: -0 -> 0\n");
  /* -0.0 equals +0.0 where both are set */
  expect(M3, "85 02 00000080", "85 02 00000000", "");
  expect(tu_type("sem2.M"), "55 00000080", "55 00000000", "");
  expect(M3, "c2 01 08 0000c07f 00000080", "c2 01 08 0100c0ff 00000000", "");
  pbd_TreeOptions o = opts_default();
  o.float_bits = true;
  expect_o(M3, &o, "45 0000c07f", "45 0100c07f", "changed f: nan -> nan\n");
  expect_o(M3, &o, "85 02 00000080", "85 02 00000000", "changed of: -0 -> 0\n");
}
END_TEST

/* ---- Rule 11: Any ------------------------------------------------------- */

static char *any_hex(const char *url, const char *value_hex) {
  char *u = tu_hex_of(url);
  size_t vn;
  free(tu_hex(value_hex, &vn));
  size_t body = 2 + strlen(url) + 2 + vn;
  char *out = malloc(strlen(u) + strlen(value_hex) + 64);
  sprintf(out, "b2 01 %02zx 0a %02zx %s 12 %02zx %s", body, strlen(url), u, vn, value_hex);
  free(u);
  return out;
}

START_TEST(rule11_any) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  const char *url = "type.googleapis.com/sem3.Inner";
  char *a = any_hex(url, "08 01 12 01 78"), *b = any_hex(url, "12 01 78 08 01");
  char *c = any_hex(url, "08 02 12 01 78");
  expect(M, a, b, "");  /* payload bytes differ, meaning does not */
  expect(M, a, c, "changed any.[type.googleapis.com/sem3.Inner].a: 1 -> 2\n");
  /* a type not in the schema: compared as bytes */
  char *d = any_hex("type.googleapis.com/nope.T", "08 01"),
       *e = any_hex("type.googleapis.com/nope.T", "08 02");
  expect(M, d, e, "changed any.value: \"\\010\\001\" -> \"\\010\\002\"\n");
  free(a), free(b), free(c), free(d), free(e);
}
END_TEST

/* ---- Rule 12: groups and extensions -------------------------------------- */

START_TEST(rule12_groups_extensions) {
  const pbd_MessageDef *M = tu_type("sem2.M");
  expect(M, "3b 40 01 3c", "3b 40 02 3c", "changed g.ga: 1 -> 2\n");
  expect(M, "3b 40 01 3c 3b 3c", "3b 40 01 3c", "");   /* groups merge as messages */
  expect(M, "a0 06 05", "a0 06 06", "changed [sem2.ext_i]: 5 -> 6\n");
  expect(M, "aa 06 02 08 01", "aa 06 02 08 02", "changed [sem2.ext_m].a: 1 -> 2\n");
  expect(M, "aa 06 02 08 01 08 01", "08 01 aa 06 02 08 01", "");
  pbd_TreeOptions o = opts_default();
  pbd_Status s = parse_fail(M, "08 01 3c", &o);
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "3b 40 01 4c", &o); /* mismatched end group */
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  s = parse_fail(M, "3b 40 01", &o);    /* no end */
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
}
END_TEST

/* ---- Rule 13: schemaless ------------------------------------------------- */

START_TEST(rule13_schemaless) {
  expect(NULL, "08 01 08 02", "08 02", "removed 1[0]: 1 -> _\n");
  expect(NULL, "08 01 10 02", "10 02 08 01", "");
  expect(NULL, "12 02 08 01", "12 02 08 02", "changed 2[0].1[0]: 1 -> 2\n");
  expect(NULL, "12 04 08 01 10 02", "12 04 10 02 08 01", ""); /* nested order too */
  expect(NULL, "12 01 78", "12 01 79", "changed 2[0]: \"x\" -> \"y\"\n"); /* bytes */
  expect(NULL, "1d 01000000", "1d 02000000", "changed 3[0]: 1 -> 2\n");
  expect(NULL, "0b 08 01 0c", "0b 08 02 0c", "changed 1[0].1[0]: 1 -> 2\n");
}
END_TEST

/* ---- Errors --------------------------------------------------------------- */

START_TEST(errors_malformed) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_TreeOptions o = opts_default();
  pbd_Status s = parse_fail(M, "08", &o);
  ck_assert_int_eq(s.offset, 1);
  ck_assert_ptr_nonnull(strstr(s.msg, "truncated varint"));
  s = parse_fail(M, "08 ff ff ff ff ff ff ff ff ff ff 01", &o);
  ck_assert_int_eq(s.offset, 1);
  ck_assert_ptr_nonnull(strstr(s.msg, "longer than 10 bytes"));
  s = parse_fail(M, "08 01 0e", &o);
  ck_assert_int_eq(s.offset, 2);
  ck_assert_ptr_nonnull(strstr(s.msg, "wire type 6"));
  s = parse_fail(M, "0f", &o);
  ck_assert_ptr_nonnull(strstr(s.msg, "wire type 7"));
  s = parse_fail(M, "52 05 61", &o);
  ck_assert_int_eq(s.offset, 1);
  ck_assert_ptr_nonnull(strstr(s.msg, "past the end"));
  s = parse_fail(M, "6a 03 08 05 6a", &o); /* nested truncation names the path */
  ck_assert_int_eq(s.offset, 2 + 2 + 1);
  ck_assert_str_eq(s.path, "inner");
  s = parse_fail(M, "c5 01 0000", &o);
  ck_assert_ptr_nonnull(strstr(s.msg, "truncated fixed32"));
  s = parse_fail(M, "c2 01 03 000000", &o); /* packed fixed32 of 3 bytes */
  ck_assert_ptr_nonnull(strstr(s.msg, "multiple of 4"));
  s = parse_fail(M, "72 01 80", &o); /* a packed run of one continuation byte */
  ck_assert_ptr_nonnull(strstr(s.msg, "truncated varint"));
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "72 02 01 ff", &o);
  ck_assert_ptr_nonnull(strstr(s.msg, "truncated varint"));
  ck_assert_int_eq(s.offset, 3);
}
END_TEST

START_TEST(errors_utf8) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_TreeOptions o = opts_default();
  pbd_Status s = parse_fail(M, "52 01 ff", &o);
  ck_assert_int_eq(s.code, kPbd_Status_BadUtf8);
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "6a 05 12 03 61 c0 80", &o); /* overlong NUL, nested */
  ck_assert_int_eq(s.offset, 5);
  ck_assert_str_eq(s.path, "inner.s");
  s = parse_fail(M, "ba 01 01 61 ba 01 03 ed a0 80", &o); /* surrogate, 2nd element */
  ck_assert_str_eq(s.path, "rs[1]");
  s = parse_fail(M, "82 01 03 0a 01 ff", &o);     /* map key */
  ck_assert_int_eq(s.code, kPbd_Status_BadUtf8);
  /* valid multi-byte UTF-8 passes; proto2 strings are not checked */
  expect(M, "52 04 f0 9f 98 80", "52 04 f0 9f 98 80", "");
  expect(tu_type("sem2.M"), "72 01 ff", "72 01 ff", "");
}
END_TEST

START_TEST(errors_depth) {
  const pbd_MessageDef *I = tu_type("sem3.Inner");
  /* 101 nested `child` messages: over the default limit of 100 */
  uint8_t buf[1024];
  size_t n = 0;
  uint8_t tmp[1024];
  for (int i = 0; i < 101; i++) { /* wrap from the inside out */
    tmp[0] = 0x22;
    size_t len = n;
    size_t k = 1;
    tmp[k++] = (uint8_t)(len < 128 ? len : (len & 0x7f) | 0x80);
    if (len >= 128) tmp[k++] = (uint8_t)(len >> 7);
    memcpy(tmp + k, buf, n);
    n += k;
    memcpy(buf, tmp, n);
  }
  pbd_TreeOptions o = opts_default();
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_ptr_null(pbd_Tree_Parse(I, buf, 0, n, &o, a, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  ck_assert_ptr_nonnull(strstr(s.path, "child.child.child"));
  ck_assert_msg(strncmp(s.path, "...child.", 9) == 0, "a cut path is marked: %s", s.path);
  o.max_depth = 200;
  pbd_Status_Clear(&s);
  ck_assert_ptr_nonnull(pbd_Tree_Parse(I, buf, 0, n, &o, a, &s));
  /* groups nested past the limit, schemaless */
  uint8_t g[512];
  size_t gn = 0;
  for (int i = 0; i < 150; i++) g[gn++] = 0x0b;
  for (int i = 0; i < 150; i++) g[gn++] = 0x0c;
  o.max_depth = 0;
  pbd_Status_Clear(&s);
  ck_assert_ptr_null(pbd_Tree_Parse(NULL, g, 0, gn, &o, a, &s));
  ck_assert_int_eq(s.code, kPbd_Status_MaxDepthExceeded);
  pbd_Arena_Free(a);
}
END_TEST

/* Every prefix of a valid message parses cleanly or fails cleanly. */
START_TEST(errors_every_prefix) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  size_t n;
  char *any = any_hex("type.googleapis.com/sem3.Inner", "08 01 12 01 78");
  char hex[1024];
  snprintf(hex, sizeof hex,
           "08 96 01 6a 07 22 05 08 01 12 01 78 72 03 01 02 03 82 01 05 0a 01 61 10 01 %s "
           "c5 01 0000803f f8 07 05 0b 08 01 0c", any);
  free(any);
  uint8_t *b = tu_hex(hex, &n);
  pbd_TreeOptions o = opts_default();
  for (size_t k = 0; k <= n; k++) {
    pbd_Arena *a = pbd_Arena_New();
    pbd_Status s;
    pbd_Status_Clear(&s);
    uint8_t *copy = malloc(k ? k : 1); /* exact-size copy so ASan sees over-reads */
    memcpy(copy, b, k);
    pbd_Message *m = pbd_Tree_Parse(M, copy, 0, k, &o, a, &s);
    ck_assert(m != NULL || (s.code != kPbd_Status_Ok && s.msg[0]));
    if (!m) ck_assert(s.has_offset && s.offset <= k);
    pbd_Hash128 h;
    pbd_Status hs;
    pbd_Status_Clear(&hs);
    bool hashed = pbd_Canon_Hash(M, copy, 0, k, &o, NULL, &h, &hs);
    ck_assert_int_eq(hashed, m != NULL);
    if (m) ck_assert(pbd_Hash128_Equal(h, m->hash));
    else ck_assert(hs.code == s.code && hs.offset == s.offset && !strcmp(hs.msg, s.msg));
    /* the check of identical inputs says the same, with and without --strict */
    pbd_Status vs;
    pbd_Status_Clear(&vs);
    ck_assert_int_eq(pbd_Canon_Validate(M, copy, 0, k, &o, &vs), m != NULL);
    pbd_TreeOptions strict = o;
    strict.strict = true;
    pbd_Status_Clear(&vs);
    pbd_Status_Clear(&hs);
    ck_assert_int_eq(pbd_Canon_Validate(M, copy, 0, k, &strict, &vs),
                     pbd_Canon_Hash(M, copy, 0, k, &strict, NULL, &h, &hs));
    m = pbd_Tree_Parse(NULL, copy, 0, k, &o, a, &s);
    pbd_Status_Clear(&hs);
    ck_assert_int_eq(pbd_Canon_Hash(NULL, copy, 0, k, &o, NULL, &h, &hs), m != NULL);
    if (m) ck_assert(pbd_Hash128_Equal(h, m->hash));
    free(copy);
    pbd_Arena_Free(a);
  }
  free(b);
}
END_TEST


/* Large inputs (megabytes: the walk reads both sides' levels on two
 * threads, the hash cache is filled and used): the pipeline reports exactly
 * what the walk over whole trees reports, for one changed element in the
 * middle, first and last, with RIGHT written another way (each element's
 * fields in reverse order, its packed field unpacked). */
/* sem3.M with `count` rm elements {a: i, s: "name-i", r: [i, i+1]}; element
 * `changed` gets a = -1; reversed writes each element's fields backwards and
 * r unpacked. */
static uint8_t *big_m(size_t count, size_t changed, bool reversed, size_t *len) {
  uint8_t *b = malloc(count * 40 + 16), *p = b;
  for (size_t i = 0; i < count; i++) {
    uint8_t el[40];
    size_t n = 0;
    char name[16];
    int nl = snprintf(name, sizeof name, "name-%zu", i);
    uint64_t a = i == changed ? (uint64_t)-1 : i;
    if (!reversed) {
      el[n++] = 0x08, n += tu_varint(el + n, a);
      el[n++] = 0x12, el[n++] = (uint8_t)nl, memcpy(el + n, name, (size_t)nl), n += (size_t)nl;
      size_t pl = tu_varint(el + n + 2, i);
      pl += tu_varint(el + n + 2 + pl, i + 1);
      el[n++] = 0x1a, el[n++] = (uint8_t)pl, n += pl;
    } else {
      el[n++] = 0x18, n += tu_varint(el + n, i);
      el[n++] = 0x18, n += tu_varint(el + n, i + 1);
      el[n++] = 0x12, el[n++] = (uint8_t)nl, memcpy(el + n, name, (size_t)nl), n += (size_t)nl;
      el[n++] = 0x08, n += tu_varint(el + n, a);
    }
    *p++ = 0x7a; /* field 15, LEN */
    p += tu_varint(p, n);
    memcpy(p, el, n);
    p += n;
  }
  *len = (size_t)(p - b);
  return b;
}

START_TEST(large_inputs_walk_as_whole_trees) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_TreeOptions o = opts_default();
  size_t cases[][2] = {{60000, 31234}, {60000, 0}, {60000, 59999}};
  for (size_t k = 0; k < 3; k++) {
    size_t ln, rn;
    uint8_t *l = big_m(cases[k][0], (size_t)-1, false, &ln);
    uint8_t *r = big_m(cases[k][0], cases[k][1], true, &rn);
    ck_assert(ln > (1u << 20) && rn > (1u << 20)); /* past the two-thread floor */
    pbd_Arena *a = pbd_Arena_New();
    pbd_Status s;
    pbd_Status_Clear(&s);
    pbd_Message *lm = pbd_Tree_Parse(M, l, 0, ln, &o, a, &s);
    pbd_Message *rm = pbd_Tree_Parse(M, r, 0, rn, &o, a, &s);
    ck_assert(lm && rm);
    pbd_Buf whole = {0}, piped = {0};
    pbd_Buf_AppendStr(&whole, "");
    pbd_Buf_AppendStr(&piped, "");
    ck_assert_int_eq(pbd_Diff_Run(lm, rm, NULL, tu_edit_line, &whole, NULL, &s), 0);
    pbd_CompareOptions co = pbd_CompareOptions_Default();
    co.type = M;
    co.pool = o.pool;
    co.parallel = true;
    co.hash_seed = o.hash_seed;
    ck_assert_int_eq(pbd_Compare(l, ln, r, rn, &co, tu_edit_line, &piped, NULL, &s), 1);
    ck_assert_str_eq(piped.data, whole.data);
    ck_assert_ptr_nonnull(strstr(whole.data, "changed rm["));
    pbd_Buf_Free(&whole);
    pbd_Buf_Free(&piped);
    pbd_Arena_Free(a);
    free(l);
    free(r);
  }
}
END_TEST

/* Hash seeds: the same content hashes equal under one seed, and the seed
 * changes the hash (so crafted collisions do not carry across runs). */
START_TEST(hash_seeded) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  size_t n;
  uint8_t *b = tu_hex("08 01 52 01 78", &n);
  pbd_TreeOptions o = opts_default();
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *x = pbd_Tree_Parse(M, b, 0, n, &o, a, &s);
  o.hash_seed = 99;
  pbd_Message *y = pbd_Tree_Parse(M, b, 0, n, &o, a, &s);
  ck_assert(!pbd_Hash128_Equal(x->hash, y->hash));
  pbd_Arena_Free(a);
  free(b);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("semantics");
  TCase *t = tcase_create("rules");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, rule1_field_order);
  tcase_add_test(t, rule2_last_value_wins);
  tcase_add_test(t, rule2_oneof_last_member_wins);
  tcase_add_test(t, rule3_messages_merge);
  tcase_add_test(t, rule3_concatenation_is_merge);
  tcase_add_test(t, rule4_packed_unpacked);
  tcase_add_test(t, rule5_map_order_and_duplicates);
  tcase_add_test(t, rule5_map_entry_defaults_and_order);
  tcase_add_test(t, rule6_unknown_fields);
  tcase_add_test(t, rule7_implicit_default_is_absent);
  tcase_add_test(t, rule7_presence);
  tcase_add_test(t, rule7_proto2_defaults);
  tcase_add_test(t, rule7_onnx_empty_optional_value);
  tcase_add_test(t, rule8_integers);
  tcase_add_test(t, rule8_bad_field_numbers);
  tcase_add_test(t, rule9_enums);
  tcase_add_test(t, rule10_floats);
  tcase_add_test(t, rule11_any);
  tcase_add_test(t, rule12_groups_extensions);
  tcase_add_test(t, rule13_schemaless);
  tcase_add_test(t, errors_malformed);
  tcase_add_test(t, errors_utf8);
  tcase_add_test(t, errors_depth);
  tcase_add_test(t, errors_every_prefix);
  tcase_add_test(t, hash_seeded);
  tcase_add_test(t, large_inputs_walk_as_whole_trees);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return tu_main(suite());
}
