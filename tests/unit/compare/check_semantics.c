/* Semantic rules of docs/semantics.md that need code: inputs that must fail
 * (tree, hash pass and check alike), payloads built at run time (the real
 * ONNX file, Any, depth, every prefix, megabyte inputs) and hash seeds.  The
 * cases that are just bytes and a verdict are lines of
 * tests/cases/semantics.cases (check_semantic_cases.c).  Each comparison
 * checks the verdict, the reported edits (kind, path, values) in both
 * directions, and that the root hashes agree with the verdict (so that a
 * hashing bug cannot hide behind the walk). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/diff/diff.h"
#include "pbdiff/format/format.h"
#include "testutil.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/pbdiff.h"
#include "pbdiff/tree/tree.h"



static pbd_ReadOptions opts_default(void) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = tu_type_pool("sem3.");
  return o;
}

/* LEFT vs RIGHT gives `want` (tu_diff_hex's form), RIGHT vs LEFT its mirror. */
static void expect_o(const pbd_MessageDef *t, const pbd_ReadOptions *o, const char *lhex,
                     const char *rhex, const char *want) {
  tu_expect_diff(NULL, t, o, lhex, rhex, want, NULL);
}

static void expect(const pbd_MessageDef *t, const char *lhex, const char *rhex, const char *want) {
  pbd_ReadOptions o = opts_default();
  expect_o(t, &o, lhex, rhex, want);
}

/* Parses hex that must fail; returns the status. */
static pbd_Status parse_fail(const pbd_MessageDef *t, const char *hex, const pbd_ReadOptions *o) {
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

/* ---- Rule 6: unknown fields --------------------------------------------- */

/* (The verdicts on unknown fields are cases in semantics.cases.) */
START_TEST(rule6_unknown_fields) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_ReadOptions o = opts_default();
  o.strict = true;
  pbd_Status s = parse_fail(M, "08 01 f8 07 05", &o);
  ck_assert_int_eq(s.code, kPbd_Status_UnknownField);
  ck_assert_int_eq(s.offset, 2);
}
END_TEST

/* ---- Rule 7: defaults and presence -------------------------------------- */

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
  pbd_ReadOptions o = opts_default();
  expect_o(M, &o, full, cut, "presence elem_type: 0 -> _\n");
  expect_o(M, &o, full, full, "");
  o.equivalent = true;
  expect_o(M, &o, full, cut, "");
  free(full);
  free(cut);
  free(file);
}
END_TEST

/* ---- Rule 8: integers ---------------------------------------------------- */

START_TEST(rule8_bad_field_numbers) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_ReadOptions o = opts_default();
  pbd_Status s = parse_fail(M, "08 01 00 01", &o);
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "80 80 80 80 10 01", &o); /* number 2^29 */
  ck_assert_int_eq(s.offset, 0);
  s = parse_fail(NULL, "00 01", &o);
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
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
  pbd_ReadOptions o = opts_default();
  pbd_Status s = parse_fail(M, "08 01 3c", &o);
  ck_assert_int_eq(s.offset, 2);
  s = parse_fail(M, "3b 40 01 4c", &o); /* mismatched end group */
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
  s = parse_fail(M, "3b 40 01", &o);    /* no end */
  ck_assert_int_eq(s.code, kPbd_Status_Malformed);
}
END_TEST

/* ---- Errors --------------------------------------------------------------- */

START_TEST(errors_malformed) {
  const pbd_MessageDef *M = tu_type("sem3.M");
  pbd_ReadOptions o = opts_default();
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
  pbd_ReadOptions o = opts_default();
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
  /* valid multi-byte UTF-8 passes, proto2 strings are not checked: cases in
   * semantics.cases */
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
  pbd_ReadOptions o = opts_default();
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
  pbd_ReadOptions o = opts_default();
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
    pbd_ReadOptions strict = o;
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
  pbd_ReadOptions o = opts_default();
  size_t cases[][2] = {{60000, 31234}, {60000, 0}, {60000, 59999}};
  for (size_t k = 0; k < 3; k++) {
    size_t ln, rn;
    uint8_t *l = big_m(cases[k][0], (size_t)-1, false, &ln);
    uint8_t *r = big_m(cases[k][0], cases[k][1], true, &rn);
    ck_assert(ln > (1u << 20) && rn > (1u << 20)); /* past the two-thread floor */
    char *edits = tu_diff_both_ways(M, l, ln, r, rn, &o);
    ck_assert_ptr_nonnull(strstr(edits, "changed rm["));
    free(edits);
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
  pbd_ReadOptions o = opts_default();
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
  tcase_set_timeout(t, 180); /* the large inputs under ASan on a loaded machine, as check_window's */
  tcase_add_test(t, rule6_unknown_fields);
  tcase_add_test(t, rule7_onnx_empty_optional_value);
  tcase_add_test(t, rule8_bad_field_numbers);
  tcase_add_test(t, rule11_any);
  tcase_add_test(t, rule12_groups_extensions);
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
