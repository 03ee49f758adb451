/* pbdiff tests — the canonical hash pass (lib/canon/canon.h) against the tree
 * builder (lib/tree/tree.h) on written inputs: pbd_Canon_Hash and
 * pbd_Canon_Validate must do what pbd_Tree_Parse does (the same root hash,
 * or the same error), under every option set and seed; so must
 * pbd_Canon_HashParts (one part, split at every field boundary, at a
 * depth), the pbd_Hasher kept across calls, and pbd_Canon_TryHashUnknown.
 * The comparison, its one tolerated difference (several errors) and the
 * reporting are canon_harness.c's.
 *
 * Tests (CK_RUN_CASE=NAME runs one): table (the hex inputs of the semantic
 * cases and of the cat and hash suites, and more: canon_rows.h, under each
 * option set and seed, as its type, schemaless and as the other types),
 * prefixes, onnx (the ONNX test data; PBDIFF_QUICK=1 and sanitizer builds
 * take every 10th model), many_fields, parts, parts_table, unknown,
 * two_threads (the check on two threads against the check alone),
 * float_runs (packed against unpacked over many chunks).
 * check_canon_cache.c tests the pbd_HashCache, check_canon_random.c runs
 * generated inputs.  $PBDIFF_VERBOSE prints counts and tolerated pairs. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon_harness.h"
#include "canon_rows.h"
#include "testutil.h"

/* ---- The table ------------------------------------------------------------------- */

/* Inputs built by code (too long to write out). */
typedef struct {
  const char *type;
  uint8_t *b;
  size_t n;
  char label[64];
} Gen;

static size_t make_generated(Gen *g, size_t cap) {
  size_t k = 0;
#define ADD(T, LABEL)                                                    \
  do {                                                                   \
    ck_assert(k < cap);                                                  \
    g[k].type = (T);                                                     \
    g[k].b = x.p;                                                        \
    g[k].n = x.n;                                                        \
    snprintf(g[k].label, sizeof g[k].label, "%s", (LABEL));              \
    k++;                                                                 \
  } while (0)
  ch_Bytes x;
  /* 65 packed int32 values (a digest), and 64 (inline) */
  for (int count = 64; count <= 65; count++) {
    x = (ch_Bytes){0};
    ch_Bytes run = {0};
    for (int i = 0; i < count; i++) ch_b_varint(&run, (uint64_t)i);
    ch_b_len(&x, 14, &run);
    free(run.p);
    ADD("sem3.M", count == 64 ? "64 packed ints" : "65 packed ints");
  }
  /* 65 floats with -0.0 and NaNs (canonical slots, a digest); 65 doubles */
  x = (ch_Bytes){0};
  {
    ch_Bytes run = {0};
    for (int i = 0; i < 65; i++)
      ch_b_u32(&run, i == 3 ? 0x80000000u : i == 9 ? 0xffc00001u : i == 20 ? 0x7fc00000u : 0x3f800000u + (uint32_t)i);
    ch_b_len(&x, 24, &run);
    free(run.p);
  }
  ADD("sem3.M", "65 packed floats");
  x = (ch_Bytes){0};
  for (int i = 0; i < 65; i++) {
    ch_b_tag(&x, 29, 1);
    ch_b_u64(&x, i == 7 ? 0x8000000000000000ull : i == 8 ? 0xfff8000000000001ull : 0x3ff0000000000000ull + (uint64_t)i);
  }
  ADD("sem3.M", "65 unpacked doubles");
  x = (ch_Bytes){0};
  for (int i = 0; i < 65; i++) {
    ch_b_tag(&x, 24, 5);
    ch_b_u32(&x, 0x3f800000u + (uint32_t)i);
  }
  ADD("sem3.M", "65 unpacked floats, canonical");
  /* 600 values each way, across the 256-value chunks the gathering and
   * the slots are made in, with -0 and NaNs on both sides of a boundary */
  for (int packed = 0; packed <= 1; packed++) {
    x = (ch_Bytes){0};
    ch_Bytes run = {0};
    for (int i = 0; i < 600; i++) {
      uint32_t w = i % 255 == 0 ? 0x80000000u : i % 256 == 1 ? 0x7f800001u : 0x40000000u + (uint32_t)i;
      if (!packed) ch_b_tag(&x, 24, 5);
      ch_b_u32(packed ? &run : &x, w);
    }
    if (packed) ch_b_len(&x, 24, &run);
    free(run.p);
    ch_b_tag(&x, 1, 0), ch_b_varint(&x, 3); /* another field after the run */
    ADD("sem3.M", packed ? "600 packed floats" : "600 unpacked floats");
    x = (ch_Bytes){0};
    run = (ch_Bytes){0};
    for (int i = 0; i < 600; i++) {
      uint64_t v = i % 256 == 255 ? 0x8000000000000000ull : i % 256 == 0 ? 0xfff0000000000002ull
                                                                          : 0x4000000000000000ull + (uint64_t)i;
      if (!packed) ch_b_tag(&x, 29, 1);
      ch_b_u64(packed ? &run : &x, v);
    }
    if (packed) ch_b_len(&x, 29, &run);
    free(run.p);
    ADD("sem3.M", packed ? "600 packed doubles" : "600 unpacked doubles");
  }
  /* 65 unknown varints; 65 values of a closed enum that are unknown */
  x = (ch_Bytes){0};
  for (int i = 0; i < 65; i++) ch_b_tag(&x, 1, 0), ch_b_varint(&x, (uint64_t)i * 1000);
  ADD(NULL, "65 unknown varints");
  x = (ch_Bytes){0};
  {
    ch_Bytes run = {0};
    for (int i = 0; i < 70; i++) ch_b_varint(&run, (uint64_t)(i % 4 == 0 ? 9 : i % 3));
    ch_b_len(&x, 5, &run);
    free(run.p);
  }
  ADD("sem2.M", "70 packed closed-enum values");
  /* strings of 64, 65 and 100 bytes (inline up to 64) */
  for (size_t len = 64; len <= 66; len++) {
    x = (ch_Bytes){0};
    ch_b_fill(&x, 10, 'a', len == 66 ? 100 : len);
    ch_b_fill(&x, 23, 'k', len == 66 ? 100 : len);
    ch_b_fill(&x, 11, 'z', len);
    ADD("sem3.M", len == 64 ? "64-byte strings" : len == 65 ? "65-byte strings" : "100-byte strings");
  }
  x = (ch_Bytes){0};
  ch_b_fill(&x, 3, 'q', 65);
  ch_b_fill(&x, 3, 'r', 64);
  ADD(NULL, "unknown LEN of 64 and 65 bytes");
  /* check_semantics.c's shared elements: rm and c3 of 60-byte strings */
  x = (ch_Bytes){0};
  for (int e = 0; e < 3; e++) {
    ch_Bytes el = {0};
    ch_b_tag(&el, 1, 0), ch_b_varint(&el, (uint64_t)e + 1);
    ch_b_fill(&el, 2, (char)('a' + e), 60);
    ch_b_len(&x, 15, &el);
    free(el.p);
  }
  ADD("sem3.M", "three rm elements");
  x = (ch_Bytes){0};
  for (int e = 0; e < 2; e++) {
    ch_Bytes el = {0};
    ch_b_tag(&el, 1, 0), ch_b_varint(&el, 1);
    ch_b_fill(&el, 2, 'a', 60);
    ch_b_len(&x, 21, &el);
    free(el.p);
  }
  ADD("sem3.M", "c3 twice");
  /* Inner.child nested 100 deep (fits) and 101 deep (over the default limit) */
  for (int depth = 100; depth <= 101; depth++) {
    ch_Bytes cur = {0};
    for (int i = 0; i < depth; i++) {
      ch_Bytes next = {0};
      ch_b_len(&next, 4, &cur);
      free(cur.p);
      cur = next;
    }
    x = cur;
    ADD("sem3.Inner", depth == 100 ? "child nested 100 deep" : "child nested 101 deep");
  }
  /* schemaless groups nested 99, 100, 101 and 150 deep; LEN nested 120 deep */
  static const int kGroupDepths[] = {99, 100, 101, 150};
  for (int gi = 0; gi < 4; gi++) {
    x = (ch_Bytes){0};
    for (int i = 0; i < kGroupDepths[gi]; i++) ch_b_byte(&x, 0x0b);
    ch_b_tag(&x, 2, 0), ch_b_varint(&x, 5);
    for (int i = 0; i < kGroupDepths[gi]; i++) ch_b_byte(&x, 0x0c);
    char label[64];
    snprintf(label, sizeof label, "groups nested %d deep", kGroupDepths[gi]);
    ADD(NULL, label);
  }
  {
    ch_Bytes cur = {0};
    ch_b_tag(&cur, 1, 0), ch_b_varint(&cur, 1);
    for (int i = 0; i < 120; i++) {
      ch_Bytes next = {0};
      ch_b_len(&next, 1, &cur);
      free(cur.p);
      cur = next;
    }
    x = cur;
    ADD(NULL, "LEN nested 120 deep");
  }
  /* large repeated messages (like check_semantics.c's big_input), 20 elements */
  x = (ch_Bytes){0};
  ch_b_tag(&x, 1, 0), ch_b_varint(&x, 7);
  for (int e = 0; e < 20; e++) {
    ch_Bytes el = {0};
    ch_b_tag(&el, 1, 0), ch_b_varint(&el, (uint64_t)e);
    ch_b_fill(&el, 2, (char)('a' + e), 1000);
    ch_b_tag(&el, 3, 2), ch_b_varint(&el, 1), ch_b_byte(&el, (uint8_t)e);
    ch_b_len(&x, 15, &el);
    free(el.p);
  }
  ADD("sem3.M", "20 elements of 1 KB");
  /* strings of every length up to 20, each byte distinct (the short ones
   * are copied into the record in fixed-size moves: canon_pass.h) */
  x = (ch_Bytes){0};
  for (size_t len = 0; len <= 20; len++) {
    ch_b_tag(&x, 23, 2), ch_b_varint(&x, len);
    for (size_t i = 0; i < len; i++) ch_b_byte(&x, (uint8_t)('A' + (len + 3 * i) % 58));
  }
  ch_b_tag(&x, 11, 2), ch_b_varint(&x, 3), ch_b_byte(&x, 1), ch_b_byte(&x, 2), ch_b_byte(&x, 3);
  ADD("sem3.M", "strings of 0 to 20 bytes");
#undef ADD
  return k;
}

/* What a test does with one table row, given the row's bytes b[0, n). */
typedef void RowCheck(ch_Report *r, const Row *row, const uint8_t *b, size_t n);

/* Runs check on every table row, in order. */
static void each_row(ch_Report *r, RowCheck *check) {
  for (int i = 0; i < kNumRows; i++) {
    size_t n;
    uint8_t *b = tu_hex(kRows[i].hex, &n);
    check(r, &kRows[i], b, n);
    free(b);
  }
}

/* A test of its own: check on every table row, under one report. */
static void rows_test(const char *test, RowCheck *check) {
  ch_Report r;
  ch_report_init(&r, test);
  each_row(&r, check);
  ch_report_finish(&r);
}

/* All the checks on one input under one type: every option set and seed,
 * Canon_Hash against the tree, also at an offset into a bigger buffer;
 * HashParts whole, split, and at depth; TryHashUnknown. */
static void check_input(ch_Report *r, const char *tname, const uint8_t *b, size_t n, bool parts) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *t = ch_type_named(tname, &pool);
  for (int oi = 0; oi < kCh_NumOptSets; oi++) {
    for (int si = 0; si < kCh_NumSeeds; si++) {
      ch_Case c = ch_make_case("Canon_Hash", t, pool, &ch_opt_sets[oi], ch_seeds[si]);
      ch_check_one(r, &c, b, n);
      if (oi == 0) { /* at an offset: errors count from buf */
        uint8_t *big = malloc(n + 5);
        ck_assert_ptr_nonnull(big);
        memset(big, 0xff, 5);
        if (n) memcpy(big + 5, b, n);
        ch_Result tr = ch_via_tree(t, big, 5, n + 5, &c.o);
        ch_Result cr = ch_via_canon(t, big, 5, n + 5, &c.o, NULL);
        ch_Case cb = c;
        cb.what = "Canon_Hash(begin 5)";
        ch_note(r, &cb, ch_compare(pool, t, big, 5, n + 5, &tr, &cr), b, n, &tr, &cr, false,
                "buf[5, 5+n) after 5 bytes ff");
        free(big);
      }
      if (parts && si == 1) {
        ch_check_parts(r, &c, b, n);
        ch_check_parts_depth(r, &c, b, n);
      }
      if (parts && si == 0 && t == NULL && (oi == 0 || oi == 3 || oi == 5))
        for (int d = 0; d <= 2; d++) ch_check_try_unknown(r, &c, b, n, d);
    }
  }
}

static const char *const kCrossTypes[] = {NULL, "sem3.M", "sem2.M", "sem3.Inner", "onnx.ModelProto"};

/* A row as its type, and the same bytes as every other type and schemaless. */
static void table_row(ch_Report *r, const Row *row, const uint8_t *b, size_t n) {
  check_input(r, row->type, b, n, true);
  for (size_t k = 0; k < sizeof kCrossTypes / sizeof kCrossTypes[0]; k++) {
    const char *ct = kCrossTypes[k];
    if ((ct == NULL && row->type == NULL) || (ct && row->type && !strcmp(ct, row->type))) continue;
    check_input(r, ct, b, n, ct == NULL);
  }
}

START_TEST(table_canon_equals_tree) {
  ch_Report r;
  ch_report_init(&r, "table");
  each_row(&r, table_row);
  Gen g[64];
  size_t ng = make_generated(g, 64);
  for (size_t i = 0; i < ng; i++) {
    check_input(&r, g[i].type, g[i].b, g[i].n, true);
    if (g[i].type) check_input(&r, NULL, g[i].b, g[i].n, true);
    free(g[i].b);
  }
  ch_report_finish(&r);
}
END_TEST

/* Every prefix, and every byte changed, of the rich inputs. */
START_TEST(prefixes_and_byte_flips) {
  static const Row kBase[] = {{"sem3.M", RICH3}, {"sem2.M", RICH2}, {"sem3.M", EVERY_PREFIX},
                              {NULL, "08 96 01 12 03 61 62 63 1a 02 08 01 25 01 00 00 00 2b 08 01 2c"},
                              {"sem3.M", "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00"}};
  static const uint8_t kFlip[] = {0x00, 0x01, 0x80, 0xff, 0x0c, 0x7f};
  ch_Report r;
  ch_report_init(&r, "prefixes_and_byte_flips");
  for (size_t i = 0; i < sizeof kBase / sizeof kBase[0]; i++) {
    size_t n;
    uint8_t *b = tu_hex(kBase[i].hex, &n);
    const pbd_DefPool *pool;
    const pbd_MessageDef *t = ch_type_named(kBase[i].type, &pool);
    const pbd_DefPool *npool;
    const pbd_MessageDef *nt = ch_type_named(NULL, &npool);
    uint8_t *m = malloc(n);
    ck_assert_ptr_nonnull(m);
    for (int oi = 0; oi < kCh_NumOptSets; oi++) {
      ch_Case c = ch_make_case("Canon_Hash", t, pool, &ch_opt_sets[oi], ch_seeds[oi & 1]);
      ch_Case cn = ch_make_case("Canon_Hash", nt, npool, &ch_opt_sets[oi], ch_seeds[oi & 1]);
      for (size_t k = 0; k <= n; k++) {
        ch_check_one(&r, &c, b, k);
        if (t) ch_check_one(&r, &cn, b, k);
      }
      for (size_t k = 0; k < n; k++) {
        for (size_t f = 0; f < sizeof kFlip; f++) {
          memcpy(m, b, n);
          if (m[k] == kFlip[f]) continue;
          m[k] = kFlip[f];
          ch_check_one(&r, &c, m, n);
        }
      }
    }
    free(m);
    free(b);
  }
  ch_report_finish(&r);
}
END_TEST

/* Real inputs: ONNX models and tensors of the ONNX test data. */
START_TEST(onnx_files) {
  glob_t models, tensors;
  memset(&models, 0, sizeof models);
  memset(&tensors, 0, sizeof tensors);
  ck_assert_int_eq(glob("/usr/share/libonnx-testdata/data/*/*/model.onnx", 0, NULL, &models), 0);
  int tg = glob("/usr/share/libonnx-testdata/data/*/*/test_data_set_0/input_0.pb", 0, NULL, &tensors);
  ck_assert_uint_gt(models.gl_pathc, 100);
  ch_Report r;
  ch_report_init(&r, "onnx_files");
  size_t step = ch_quick() ? 10 : 1;
  const pbd_DefPool *pool;
  const pbd_MessageDef *model = ch_type_named("onnx.ModelProto", &pool);
  const pbd_MessageDef *tensor = ch_type_named("onnx.TensorProto", &pool);
  for (size_t i = 0; i < models.gl_pathc; i += step) {
    size_t n;
    uint8_t *b = tu_read_file(models.gl_pathv[i], &n);
    ck_assert_ptr_nonnull(b);
    for (int oi = 0; oi < kCh_NumOptSets; oi++) {
      uint64_t seed = ch_seeds[(i + (size_t)oi) & 1];
      ch_Case c = ch_make_case("Canon_Hash", model, pool, &ch_opt_sets[oi], seed);
      ch_Result tr, cr;
      ch_Verdict v = ch_run_pair(&c, b, n, &tr, &cr);
      if (oi == 0) ck_assert_msg(tr.ok, "%s: %s", models.gl_pathv[i], tr.s.msg);
      ch_note(&r, &c, v, b, n, &tr, &cr, n < 2048, models.gl_pathv[i]);
      if (oi == 0 && i % 7 == 0) ch_check_parts(&r, &c, b, n);
    }
    free(b);
  }
  for (size_t i = 0; tg == 0 && i < tensors.gl_pathc; i += step * 3) {
    size_t n;
    uint8_t *b = tu_read_file(tensors.gl_pathv[i], &n);
    ck_assert_ptr_nonnull(b);
    for (int oi = 0; oi < 2; oi++) {
      ch_Case c =
          ch_make_case("Canon_Hash", oi ? NULL : tensor, pool, &ch_opt_sets[0], ch_seeds[i & 1]);
      ch_Result tr, cr;
      ch_Verdict v = ch_run_pair(&c, b, n, &tr, &cr);
      ch_note(&r, &c, v, b, n, &tr, &cr, n < 2048, tensors.gl_pathv[i]);
    }
    free(b);
  }
  /* check_semantics.c's rule7_onnx_empty_optional_value file */
  {
    size_t n;
    uint8_t *b = tu_read_file("/usr/share/libonnx-testdata/data/node/test_optional_has_element_empty/"
                              "test_data_set_0/input_0.pb", &n);
    if (b) {
      const pbd_DefPool *opool;
      const pbd_MessageDef *ot = ch_type_named("onnxtest.OptionalProto", &opool);
      for (int oi = 0; oi < kCh_NumOptSets; oi++) {
        ch_Case c = ch_make_case("Canon_Hash", ot, opool, &ch_opt_sets[oi], ch_seeds[oi & 1]);
        ch_check_one(&r, &c, b, n);
      }
      free(b);
    }
  }
  globfree(&models);
  if (tg == 0) globfree(&tensors);
  ch_report_finish(&r);
}
END_TEST

/* Every table row after k distinct unknown fields (numbers 300 and up), for k
 * around the sizes where per-message arrays of field slots grow: a pointer
 * into such an array kept across a call that adds a slot goes stale. */
static void many_fields_row(ch_Report *r, const Row *row, const uint8_t *b, size_t n) {
  static const int kCounts[] = {3, 4, 7, 8, 14, 15, 16, 30, 31, 32, 62, 63, 64};
  if (!row->type) return;
  const pbd_DefPool *pool;
  const pbd_MessageDef *t = ch_type_named(row->type, &pool);
  for (size_t ki = 0; ki < sizeof kCounts / sizeof kCounts[0]; ki++) {
    ch_Bytes x = {0};
    for (int f = 0; f < kCounts[ki]; f++) ch_b_tag(&x, 300 + (uint32_t)f, 0), ch_b_varint(&x, 1);
    ch_b_put(&x, b, n);
    for (int oi = 0; oi < kCh_NumOptSets; oi++) {
      const ch_OptSet *os = &ch_opt_sets[oi];
      if (os->strict || os->ignore_unknown) continue; /* no slots for them */
      ch_Case c = ch_make_case("Canon_Hash", t, pool, os, ch_seeds[(ki + (size_t)oi) & 1]);
      ch_check_one(r, &c, x.p, x.n);
    }
    free(x.p);
  }
}

START_TEST(many_fields_before_each_row) {
  rows_test("many_fields_before_each_row", many_fields_row);
}
END_TEST

/* ---- HashParts ----------------------------------------------------------------- */

START_TEST(hash_parts_merge_is_concatenation) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *M = ch_type_named("sem3.M", &pool);
  /* check_semantics.c rule3_concatenation_is_merge: A || B == merge(A, B) */
  size_t n;
  uint8_t *b = tu_hex("08 01 6a 02 08 01 72 01 01" "10 02 6a 03 12 01 78 72 01 02", &n);
  pbd_ReadOptions o = ch_tree_opts(&ch_opt_sets[0], 12345, pool);
  ch_Result whole = ch_via_canon(M, b, 0, n, &o, NULL);
  ch_Result tree = ch_via_tree(M, b, 0, n, &o);
  ck_assert(whole.ok && tree.ok);
  ck_assert(pbd_Hash128_Equal(whole.hash, tree.hash));
  pbd_Part one = {b, n};
  ch_Result p1 = ch_via_parts(M, b, &one, 1, 0, &o, NULL);
  ck_assert_msg(p1.ok, "%s", p1.s.msg);
  ck_assert(pbd_Hash128_Equal(p1.hash, whole.hash));
  ck_assert(!p1.empty);
  pbd_Part two[2] = {{b, 9}, {b + 9, n - 9}}; /* A, then B */
  ch_Result p2 = ch_via_parts(M, b, two, 2, 0, &o, NULL);
  ck_assert_msg(p2.ok, "%s", p2.s.msg);
  ck_assert(pbd_Hash128_Equal(p2.hash, whole.hash));
  /* the merged form written out */
  size_t mn;
  uint8_t *mb = tu_hex("08 01 10 02 6a 05 08 01 12 01 78 72 02 01 02", &mn);
  ch_Result merged = ch_via_canon(M, mb, 0, mn, &o, NULL);
  ck_assert(merged.ok && pbd_Hash128_Equal(merged.hash, whole.hash));
  /* an empty message: empty, the hash of the empty record */
  ch_Result e = ch_via_parts(M, b, NULL, 0, 0, &o, NULL);
  ch_Result et = ch_via_tree(M, b, 0, 0, &o);
  ck_assert_msg(e.ok && e.empty, "no parts: %s", e.s.msg);
  ck_assert(pbd_Hash128_Equal(e.hash, et.hash));
  /* only defaults: empty too */
  size_t dn;
  uint8_t *db = tu_hex("08 00 52 00", &dn);
  pbd_Part dp = {db, dn};
  ch_Result d = ch_via_parts(M, db, &dp, 1, 0, &o, NULL);
  ck_assert(d.ok && d.empty && pbd_Hash128_Equal(d.hash, et.hash));
  /* an error in the second part counts its offset from buf */
  size_t en;
  uint8_t *eb = tu_hex("08 01 52 01 ff", &en);
  pbd_Part ep[2] = {{eb, 2}, {eb + 2, 3}};
  ch_Result pe = ch_via_parts(M, eb, ep, 2, 0, &o, NULL);
  ch_Result te = ch_via_tree(M, eb, 0, en, &o);
  ck_assert(!pe.ok && !te.ok);
  ck_assert_int_eq(pe.s.code, kPbd_Status_BadUtf8);
  ck_assert_uint_eq(pe.s.offset, te.s.offset);
  ck_assert_str_eq(pe.s.msg, te.s.msg);
  free(b), free(mb), free(db), free(eb);
}
END_TEST

static void parts_row(ch_Report *r, const Row *row, const uint8_t *b, size_t n) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *t = ch_type_named(row->type, &pool);
  for (int oi = 0; oi < kCh_NumOptSets; oi++) {
    ch_Case c = ch_make_case("HashParts", t, pool, &ch_opt_sets[oi], ch_seeds[oi & 1]);
    ch_check_parts(r, &c, b, n);
    ch_check_parts_depth(r, &c, b, n);
  }
}

/* Every table row valid under its type: split at every field boundary. */
START_TEST(hash_parts_table) {
  rows_test("hash_parts_table", parts_row);
}
END_TEST

/* ---- TryHashUnknown ------------------------------------------------------------ */

/* A row's bytes as an unknown LEN field at depths 0 to 3. */
static void unknown_row(ch_Report *r, const Row *row, const uint8_t *b, size_t n) {
  (void)row;
  const pbd_DefPool *np;
  const pbd_MessageDef *nt = ch_type_named(NULL, &np);
  for (int oi = 0; oi < kCh_NumOptSets; oi++) {
    ch_Case c = ch_make_case("TryHashUnknown", nt, np, &ch_opt_sets[oi], ch_seeds[oi & 1]);
    for (int d = 0; d <= 3; d++) ch_check_try_unknown(r, &c, b, n, d);
  }
}

START_TEST(try_hash_unknown) {
  const pbd_DefPool *pool;
  (void)ch_type_named("sem3.M", &pool);
  pbd_ReadOptions o = ch_tree_opts(&ch_opt_sets[0], 0, pool);
  struct {
    const char *hex;
    bool message;
  } cases[] = {
      {"08 96 01", true},       {"0a 02 08 01", true},  {"0b 08 01 0c", true},
      {"12 03 61 62 63", true}, {"ff", false},          {"", false},
      {"08", false},            {"0c", false},          {"0b 08 01", false},
      {"00", false},            {"08 01 0f", false},    {"0a 05 01", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n;
    uint8_t *b = tu_hex(cases[i].hex, &n);
    for (uint64_t seed = 0; seed <= 12345; seed += 12345) {
      o.hash_seed = seed;
      pbd_Hash128 h = {1, 2};
      bool failed = true;
      pbd_Status s;
      pbd_Status_Clear(&s);
      bool ok = pbd_Canon_TryHashUnknown(b, b, n, 0, &o, NULL, NULL, &h, &failed, &s);
      ck_assert_msg(ok == cases[i].message, "%s: TryHashUnknown says %d", cases[i].hex, ok);
      if (ok) {
        ch_Result root = ch_via_tree(NULL, b, 0, n, &o);
        ck_assert(root.ok);
        ck_assert_msg(pbd_Hash128_Equal(h, root.hash), "%s: not the schemaless root hash", cases[i].hex);
        ch_Result cr = ch_via_canon(NULL, b, 0, n, &o, NULL);
        ck_assert(cr.ok && pbd_Hash128_Equal(h, cr.hash));
      } else {
        ck_assert_msg(!failed, "%s: *failed set", cases[i].hex);
        ck_assert_msg(s.code == kPbd_Status_Ok, "%s: status touched: %s", cases[i].hex, s.msg);
      }
    }
    free(b);
  }
  /* at the depth limit the bytes stay bytes: the field's message at depth
   * max_depth (the child would be deeper) */
  size_t n;
  uint8_t *b = tu_hex("08 96 01", &n);
  o.max_depth = 3;
  pbd_Hash128 h;
  bool failed = true;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert(!pbd_Canon_TryHashUnknown(b, b, n, 3, &o, NULL, NULL, &h, &failed, &s));
  ck_assert(!failed && s.code == kPbd_Status_Ok);
  ck_assert(pbd_Canon_TryHashUnknown(b, b, n, 2, &o, NULL, NULL, &h, &failed, &s));
  free(b);
  /* the wrapped comparison against the tree, for every table row */
  rows_test("try_hash_unknown", unknown_row);
}
END_TEST

/* Rule 4 with rule 10 over many chunks: n floats (and doubles) packed with
 * -0 and several NaNs hash as the same values unpacked with +0 and the one
 * NaN, and one value changed past the first chunk hashes apart.  600 values
 * are read by the fast path, 5000 (over 16 KiB) by the general reader. */
static void float_run(ch_Bytes *x, int n, bool is_double, bool packed, bool canonical, int changed) {
  ch_Bytes run = {0};
  uint32_t number = is_double ? 29 : 24;
  for (int i = 0; i < n; i++) {
    bool zero = i % 7 == 0, nan = i % 11 == 0 && !zero;
    if (!packed) ch_b_tag(x, number, is_double ? 1 : 5);
    ch_Bytes *to = packed ? &run : x;
    if (is_double)
      ch_b_u64(to, zero ? (canonical ? 0 : 0x8000000000000000ull)
                   : nan ? (canonical ? 0x7ff8000000000000ull : 0xfff0000000000000ull + (uint64_t)i)
                         : 0x3ff0000000000000ull + (uint64_t)(i + (i == changed)));
    else
      ch_b_u32(to, zero ? (canonical ? 0 : 0x80000000u)
                   : nan ? (canonical ? 0x7fc00000u : 0xff800000u + (uint32_t)i)
                         : 0x3f800000u + (uint32_t)(i + (i == changed)));
  }
  if (packed) ch_b_len(x, number, &run);
  free(run.p);
}

START_TEST(float_runs_across_chunks) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *m = ch_type_named("sem3.M", &pool);
  pbd_ReadOptions o = {.hash_seed = 7, .pool = pool};
  for (int t = 0; t < 4; t++) {
    int is_double = t & 1, n = t < 2 ? 600 : 5000;
    pbd_Hash128 h[3];
    for (int k = 0; k < 3; k++) {
      ch_Bytes x = {0};
      float_run(&x, n, is_double, k != 1, k == 1, k == 2 ? n - 200 : -1);
      pbd_Status st;
      pbd_Status_Clear(&st);
      ck_assert_msg(pbd_Canon_Hash(m, x.p, 0, x.n, &o, NULL, &h[k], &st), "%s", st.msg);
      free(x.p);
    }
    const char *what = is_double ? "doubles" : "floats";
    ck_assert_msg(pbd_Hash128_Equal(h[0], h[1]), "%d %s: packed and unpacked hash apart", n, what);
    ck_assert_msg(!pbd_Hash128_Equal(h[0], h[2]), "%d %s: one changed, same hash", n, what);
  }
}
END_TEST

/* pbd_Canon_ValidateOnTwoThreads cuts the input at a field near its middle,
 * down through the sub-message that holds the middle: an error before the
 * cut, past it, in the parents' fields after it or in no half at all must
 * give Validate's answer and error.  A model of 64 nodes in its graph, with
 * a wire type 7 field put in one place at a time. */
static void model_with_error(ch_Bytes *model, int where, int node_at) {
  ch_Bytes graph = {0};
  for (int i = 0; i < 64; i++) {
    ch_Bytes node = {0};
    ch_b_fill(&node, 1, 'x', 5);     /* input */
    ch_b_fill(&node, 4, 'R', 4);     /* op_type */
    if (where == 0 && i == node_at) ch_b_byte(&node, 0x0f); /* field 1, wire type 7 */
    ch_b_len(&graph, 1, &node);
    free(node.p);
  }
  if (where == 1) ch_b_byte(&graph, 0x17); /* in the graph, after its nodes */
  ch_b_fill(&graph, 2, 'g', 3);           /* the graph's name */
  ch_b_tag(model, 1, 0);
  ch_b_varint(model, 7); /* ir_version */
  ch_b_len(model, 7, &graph);
  if (where == 2) ch_b_byte(model, 0x0f); /* in the model, after the graph */
  ch_b_fill(model, 2, 'p', 4);           /* producer_name */
  free(graph.p);
}

START_TEST(validate_on_two_threads) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *model = ch_type_named("onnx.ModelProto", &pool);
  pbd_ReadOptions o = {.hash_seed = 7, .pool = pool};
  const int node_at[] = {0, 20, 31, 32, 33, 50, 63};
  for (int where = -1; where <= 2; where++) {
    for (size_t k = 0; k < (where == 0 ? sizeof node_at / sizeof *node_at : 1); k++) {
      ch_Bytes m = {0};
      model_with_error(&m, where, node_at[k]);
      pbd_Status s1, s2;
      pbd_Status_Clear(&s1);
      pbd_Status_Clear(&s2);
      bool ok1 = pbd_Canon_Validate(model, m.p, 0, m.n, &o, &s1);
      bool ok2 = pbd_Canon_ValidateOnTwoThreads(model, m.p, 0, m.n, &o, &s2);
      ck_assert_msg(ok1 == (where < 0), "error %d at node %d: Validate says %d", where, node_at[k], ok1);
      ck_assert_msg(ok2 == ok1 && s2.code == s1.code && s2.offset == s1.offset &&
                        !strcmp(s2.msg, s1.msg) && !strcmp(s2.path, s1.path),
                    "error %d at node %d: on two threads %d (%s at %s), alone %d (%s at %s)", where,
                    node_at[k], ok2, s2.msg, s2.path, ok1, s1.msg, s1.path);
      free(m.p);
    }
  }
}
END_TEST

int main(void) {
  const ch_Test tests[] = {
      {"table", table_canon_equals_tree},
      {"prefixes", prefixes_and_byte_flips},
      {"onnx", onnx_files},
      {"many_fields", many_fields_before_each_row},
      {"parts", hash_parts_merge_is_concatenation},
      {"parts_table", hash_parts_table},
      {"unknown", try_hash_unknown},
      {"two_threads", validate_on_two_threads},
      {"float_runs", float_runs_across_chunks},
  };
  return ch_run("canon", tests, sizeof tests / sizeof tests[0]);
}
