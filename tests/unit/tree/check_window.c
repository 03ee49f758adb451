/* Windows of large messages (pbd_Message_NarrowPair, lib/tree/tree_window.c):
 * the pipeline, which walks only the window where two large messages
 * differ, must report exactly what the walk over whole trees reports, with
 * the elements' indices as in the whole message; and where the window is
 * not safe (a singular field, packed scalars, a wire type that goes to the
 * unknown fields) it must not be used.  Inputs are built by loops, past the
 * 1 MiB below which levels are read whole. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/pbdiff.h"
#include "pbdiff/tree/tree.h"
#include "testutil.h"


/* The pipeline's edits of l vs r (type t, NULL: schemaless), checked equal
 * to the whole trees' edits and returned (malloc'd). */
static char *both_ways(const pbd_MessageDef *t, const tu_Bytes *l, const tu_Bytes *r) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = t ? tu_type_pool(t->full_name) : NULL;
  return tu_diff_both_ways(t, l->p, l->n, r->p, r->n, &o);
}

static void expect(const pbd_MessageDef *t, tu_Bytes *l, tu_Bytes *r, const char *want) {
  char *got = both_ways(t, l, r);
  ck_assert_msg(!strcmp(got, want), "got [%s]\nwant [%s]", got, want);
  free(got);
  free(l->p);
  free(r->p);
}

enum { kMany = 600000 }; /* 1.2 MB of two-byte elements */

/* Issue 16's case, smaller: empty sub-messages, the last one changed. */
START_TEST(schemaless_last_changed) {
  tu_Bytes l = {0}, r = {0};
  tu_bytes_put_hex(&l, "0a 00", kMany);
  tu_bytes_put_hex(&r, "0a 00", kMany - 1);
  tu_bytes_put_hex(&r, "0a 02 08 01", 1);
  expect(NULL, &l, &r, "removed 1[599999]: \"\" -> _\nadded 1[599999]: _ -> { 1: 1 }\n");
}
END_TEST

/* One element inserted in the middle: indices after the prefix's elements. */
START_TEST(schemaless_inserted) {
  tu_Bytes l = {0}, r = {0};
  tu_bytes_put_hex(&l, "0a 01 61", kMany / 2);
  tu_bytes_put_hex(&l, "0a 01 62", kMany / 2);
  tu_bytes_put_hex(&r, "0a 01 61", kMany / 2);
  tu_bytes_put_hex(&r, "0a 01 7a", 1);
  tu_bytes_put_hex(&r, "0a 01 62", kMany / 2);
  expect(NULL, &l, &r, "added 1[300000]: _ -> \"z\"\n");
}
END_TEST

/* Other fields before and after the window are the same on both sides. */
START_TEST(known_repeated_between_fields) {
  tu_Bytes l = {0}, r = {0};
  for (tu_Bytes *o = &l; o; o = o == &l ? &r : NULL) {
    tu_bytes_put_hex(o, "08 05", 1); /* i32 = 5 */
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
    tu_bytes_put_hex(o, o == &l ? "7a 02 08 02" : "7a 02 08 03", 1);
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
    tu_bytes_put_hex(o, "52 01 78", 1); /* str = "x" */
  }
  expect(tu_type("sem3.M"), &l, &r, "changed rm[300000].a: 2 -> 3\n");
}
END_TEST

/* A singular field in the window: last value wins, so the window is not
 * used (the first i32 is overridden only on one side). */
START_TEST(singular_field_in_window) {
  tu_Bytes l = {0}, r = {0};
  for (tu_Bytes *o = &l; o; o = o == &l ? &r : NULL) {
    tu_bytes_put_hex(o, "08 05", 1);
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
    if (o == &r) tu_bytes_put_hex(o, "08 07", 1);
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
  }
  expect(tu_type("sem3.M"), &l, &r, "changed i32: 5 -> 7\n");
}
END_TEST

/* Packed scalars count values, not occurrences: no window. */
START_TEST(packed_scalars_in_window) {
  tu_Bytes l = {0}, r = {0};
  for (tu_Bytes *o = &l; o; o = o == &l ? &r : NULL) {
    tu_bytes_put_hex(o, "72 02 01 01", kMany / 2); /* ri = [1, 1] each */
    tu_bytes_put_hex(o, o == &l ? "72 02 01 02" : "72 02 01 03", 1);
    tu_bytes_put_hex(o, "72 02 01 01", kMany / 2);
  }
  expect(tu_type("sem3.M"), &l, &r, "changed ri[600001]: 2 -> 3\n");
}
END_TEST

/* A known field written with another wire type is an unknown field of its
 * number: not an element of the window's field. */
START_TEST(wrong_wire_type_in_window) {
  tu_Bytes l = {0}, r = {0};
  for (tu_Bytes *o = &l; o; o = o == &l ? &r : NULL) {
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
    if (o == &r) tu_bytes_put_hex(o, "78 01", 1); /* field 15 as a varint */
    tu_bytes_put_hex(o, "7a 02 08 01", kMany / 2);
  }
  expect(tu_type("sem3.M"), &l, &r, "added 15[0]: _ -> 1\n");
}
END_TEST

/* ---- Windows by the elements' hashes (pbd_Message_NarrowByHash) ---------------
 * The other side is a re-encoding: its bytes differ all along, so only the
 * elements' hashes find the common ends. */

/* Two sequence fields interleaved on the left, grouped on the right, whose
 * elements are re-encoded (a non-minimal varint), one changed. */
START_TEST(reencoded_one_changed) {
  tu_Bytes l = {0}, r = {0};
  enum { k = kMany / 4 };
  for (int half = 0; half < 2; half++) {
    tu_bytes_put_hex(&l, "7a 02 08 01 ba 01 01 78", k); /* rm {a: 1}, rs "x" */
    if (!half) tu_bytes_put_hex(&l, "7a 02 08 02", 1);
  }
  tu_bytes_put_hex(&r, "7a 03 08 81 00", k);
  tu_bytes_put_hex(&r, "7a 03 08 83 00", 1);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", k);
  tu_bytes_put_hex(&r, "ba 01 01 78", 2 * k);
  expect(tu_type("sem3.M"), &l, &r, "changed rm[150000].a: 2 -> 3\n");
}
END_TEST

/* The common ends are found a block of elements at a time (blocks of 4096,
 * 8192, 16384, then 32768 from each end): a change just before, at and just
 * after a block's edge, from the front and from the back, and two changes
 * at once, are each found where they are. */
START_TEST(reencoded_change_at_block_edges) {
  enum { n = 270000 }; /* 1.08 MB of four-byte elements */
  const uint32_t at[] = {0, 4095, 4096, 12287, 12288, 28672, 61440, 94207, 94208,
                         n - 1 - 4096, n - 1 - 12288, n - 1 - 28671, n - 2, n - 1};
  for (size_t c = 0; c <= sizeof at / sizeof at[0]; c++) {
    bool two = c == sizeof at / sizeof at[0]; /* last: 4096 and n - 1 - 12288 together */
    uint32_t x = two ? 4096 : at[c], y = two ? n - 1 - 12288 : at[c];
    tu_Bytes l = {0}, r = {0};
    uint32_t from = 0;
    for (uint32_t i = x; i <= y; i = i == y ? y + 1 : y) { /* the changed ones: x, and y */
      tu_bytes_put_hex(&l, "7a 02 08 01", i - from);
      tu_bytes_put_hex(&r, "7a 03 08 81 00", i - from);
      tu_bytes_put_hex(&l, "7a 02 08 02", 1);
      tu_bytes_put_hex(&r, "7a 03 08 83 00", 1);
      from = i + 1;
    }
    tu_bytes_put_hex(&l, "7a 02 08 01", n - from);
    tu_bytes_put_hex(&r, "7a 03 08 81 00", n - from);
    char want[128];
    if (two) snprintf(want, sizeof want, "changed rm[%u].a: 2 -> 3\nchanged rm[%u].a: 2 -> 3\n", x, y);
    else snprintf(want, sizeof want, "changed rm[%u].a: 2 -> 3\n", x);
    expect(tu_type("sem3.M"), &l, &r, want);
  }
}
END_TEST

/* An element added on one side of one field, another removed from a
 * second field: each field keeps its own base. */
START_TEST(reencoded_added_and_removed) {
  tu_Bytes l = {0}, r = {0};
  enum { k = kMany / 4 };
  tu_bytes_put_hex(&l, "7a 02 08 01", 2 * k);
  tu_bytes_put_hex(&l, "ba 01 01 78", k);
  tu_bytes_put_hex(&l, "ba 01 01 79", 1);
  tu_bytes_put_hex(&l, "ba 01 01 78", 7);
  tu_bytes_put_hex(&r, "ba 01 01 78", k + 7);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", k);
  tu_bytes_put_hex(&r, "7a 02 08 05", 1);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", k);
  expect(tu_type("sem3.M"), &l, &r, "added rm[150000]: _ -> { a: 5 }\nremoved rs[150000]: \"y\" -> _\n");
}
END_TEST

/* The first element differs and the rest is common: the window begins
 * where the message does, whose remembered hash is not the window's (this
 * once ended in "a message read again hashes differently"). */
START_TEST(window_at_the_first_byte) {
  tu_Bytes l = {0}, r = {0};
  tu_bytes_put_hex(&l, "0a 01 61", 1);
  tu_bytes_put_hex(&r, "0a 01 62", 1);
  tu_bytes_put_hex(&l, "0a 01 78", kMany / 2);
  tu_bytes_put_hex(&r, "0a 01 78", kMany / 2);
  expect(NULL, &l, &r, "changed 1[0]: \"a\" -> \"b\"\n");
  tu_Bytes l2 = {0}, r2 = {0};
  tu_bytes_put_hex(&l2, "7a 02 08 01", 1);
  tu_bytes_put_hex(&r2, "7a 02 08 02", 1);
  tu_bytes_put_hex(&l2, "7a 02 08 01 ba 01 01 78", kMany / 4);
  tu_bytes_put_hex(&r2, "7a 03 08 81 00", kMany / 4);
  tu_bytes_put_hex(&r2, "ba 01 01 78", kMany / 4);
  expect(tu_type("sem3.M"), &l2, &r2, "changed rm[0].a: 1 -> 2\n");
}
END_TEST

/* Every other field stays whole: a singular field set twice (last wins), a
 * map and packed scalars between the sequences' elements. */
START_TEST(reencoded_other_fields_whole) {
  tu_Bytes l = {0}, r = {0};
  enum { k = kMany / 4 };
  tu_bytes_put_hex(&l, "08 05 72 02 01 02 82 01 05 0a 01 61 10 01", 1); /* i32 5, ri, ms {a: 1} */
  tu_bytes_put_hex(&l, "7a 02 08 01", k);
  tu_bytes_put_hex(&l, "08 06", 1); /* i32 6 wins */
  tu_bytes_put_hex(&l, "7a 02 08 01", k);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", 2 * k);
  tu_bytes_put_hex(&r, "82 01 05 0a 01 61 10 02 72 02 01 02 08 86 00", 1);
  expect(tu_type("sem3.M"), &l, &r, "changed ms[\"a\"]: 1 -> 2\n");
}
END_TEST

/* A known sequence field's number written as a varint is an unknown field
 * (rule 6), whole in the window, its index its own. */
START_TEST(reencoded_unknown_of_the_same_number) {
  tu_Bytes l = {0}, r = {0};
  tu_bytes_put_hex(&l, "7a 02 08 01", kMany / 2);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", kMany / 4);
  tu_bytes_put_hex(&r, "78 01", 1);
  tu_bytes_put_hex(&r, "7a 03 08 81 00", kMany / 4);
  expect(tu_type("sem3.M"), &l, &r, "added 15[0]: _ -> 1\n");
}
END_TEST

/* Appends field `number` (LEN) holding v. */
static void put_len_field(tu_Bytes *o, uint32_t number, const tu_Bytes *v) {
  uint8_t head[20];
  size_t n = 0;
  for (uint64_t x = (uint64_t)number << 3 | 2; ; x >>= 7) {
    head[n++] = (uint8_t)(x < 0x80 ? x : (x & 0x7f) | 0x80);
    if (x < 0x80) break;
  }
  for (uint64_t x = v->n; ; x >>= 7) {
    head[n++] = (uint8_t)(x < 0x80 ? x : (x & 0x7f) | 0x80);
    if (x < 0x80) break;
  }
  tu_bytes_put(o, head, n);
  tu_bytes_put(o, v->p, v->n);
}

/* A graph split in two parts on one side (rule 3): the elements are
 * counted across the parts. */
START_TEST(reencoded_split_message) {
  tu_Bytes l = {0}, r = {0}, g = {0}, g1 = {0}, g2 = {0};
  enum { k = 60000 }; /* nodes of 20 bytes: 1.2 MB */
  tu_bytes_put_hex(&g, "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e", 2 * k);
  tu_bytes_put_hex(&g1, "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e", k);
  tu_bytes_put_hex(&g2, "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6d", 1);
  tu_bytes_put_hex(&g2, "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e", k - 1);
  put_len_field(&l, 7, &g);   /* graph */
  put_len_field(&r, 7, &g1);  /* graph, first part */
  tu_bytes_put_hex(&r, "08 08", 1); /* ir_version between the parts */
  put_len_field(&r, 7, &g2);  /* graph, second part */
  tu_bytes_put_hex(&l, "08 08", 1);
  expect(tu_type("onnx.ModelProto"), &l, &r,
         "changed graph.node[60000].name: \"nnnnnnnnnnnnnnnn\" -> \"nnnnnnnnnnnnnnnm\"\n");
  free(g.p), free(g1.p), free(g2.p);
}
END_TEST

/* Both sides' graphs in two parts, cut at different nodes, the right's
 * nodes re-encoded, one changed: in the left's second part, the right's
 * first.  Each side's window is cut in the part that holds the change. */
START_TEST(reencoded_split_both_sides) {
  enum { k = 40000 }; /* 3 k nodes of 20 or 21 bytes: 2.4 MB */
  static const char node[] = "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e";
  static const char changed[] = "0a 12 1a 10 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6d";
  static const char again[] = "0a 13 1a 90 00 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e 6e";
  tu_Bytes l = {0}, r = {0}, l1 = {0}, l2 = {0}, r1 = {0}, r2 = {0};
  tu_bytes_put_hex(&l1, node, k); /* left: nodes [0, k), then [k, 3k) with 2k - 10 changed */
  tu_bytes_put_hex(&l2, node, k - 10);
  tu_bytes_put_hex(&l2, changed, 1);
  tu_bytes_put_hex(&l2, node, k + 9);
  tu_bytes_put_hex(&r1, again, 2 * k + 5); /* right: [0, 2k + 5), then [2k + 5, 3k) */
  tu_bytes_put_hex(&r2, again, k - 5);
  put_len_field(&l, 7, &l1);
  tu_bytes_put_hex(&l, "08 08", 1);
  put_len_field(&l, 7, &l2);
  put_len_field(&r, 7, &r1);
  tu_bytes_put_hex(&r, "08 08", 1);
  put_len_field(&r, 7, &r2);
  expect(tu_type("onnx.ModelProto"), &l, &r,
         "changed graph.node[79990].name: \"nnnnnnnnnnnnnnnm\" -> \"nnnnnnnnnnnnnnnn\"\n");
  free(l1.p), free(l2.p), free(r1.p), free(r2.p);
}
END_TEST

/* ---- Random pairs ------------------------------------------------------------
 * Levels of 1.2 MB made of runs of two sequences (rm messages, rs strings)
 * with a singular field now and then between them, long runs in some pairs
 * and runs of a few elements (too many to keep) in others; the right side
 * re-encoded (non-minimal varints) and changed in one to three places (a
 * value changed, an element removed or added).  The pipeline must report
 * what the walk over the whole trees reports. */

typedef struct {
  uint8_t kind; /* 0: rm {a: v}, 1: rs "v", 2: i32 v */
  uint8_t v;    /* below 0x80 */
} RandomField;

static uint32_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33);
}

static void put_random_field(tu_Bytes *o, RandomField f, bool reencoded) {
  uint8_t b[5] = {0x08, f.v}; /* i32 */
  size_t n = 2;
  if (f.kind == 0 && reencoded) memcpy(b, "\x7a\x03\x08\x80\x00", n = 5), b[3] |= f.v;
  else if (f.kind == 0) memcpy(b, "\x7a\x02\x08", 3), b[3] = f.v, n = 4;
  else if (f.kind == 1) memcpy(b, "\xba\x01\x01", 3), b[3] = f.v, n = 4;
  tu_bytes_put(o, b, n);
}

START_TEST(random_reencoded_pairs) {
  enum { n = 300000, kPairs = 8 };
  RandomField *l = malloc(sizeof *l * n), *r = malloc(sizeof *r * (n + 3));
  for (uint64_t pair = 0, state = 20261203; pair < kPairs; pair++) {
    bool short_runs = pair % 4 == 3;
    for (uint32_t i = 0; i < n;) { /* a run of one sequence, maybe a singular field after */
      uint32_t len = short_runs ? 1 + next_random(&state) % 3 : 1000 + next_random(&state) % 60000;
      uint8_t kind = (uint8_t)(next_random(&state) % 2);
      for (uint32_t k = 0; k < len && i < n; k++) l[i++] = (RandomField){kind, (uint8_t)(next_random(&state) % 4)};
      if (i < n && next_random(&state) % 3 == 0) l[i++] = (RandomField){2, (uint8_t)(next_random(&state) % 2)};
    }
    memcpy(r, l, sizeof *l * n);
    uint32_t m = n, edits = 1 + next_random(&state) % 3;
    for (uint32_t e = 0; e < edits; e++) {
      uint32_t at = next_random(&state) % m, what = next_random(&state) % 3;
      while (what < 2 && r[at].kind == 2) at = (at + 1) % m; /* (i32's last value alone counts) */
      if (what == 0) {
        r[at].v = (uint8_t)((r[at].v + 1) % 4 + 4); /* a value neither side had there */
      } else if (what == 1) {
        memmove(r + at, r + at + 1, sizeof *r * (m - at - 1)), m--;
      } else {
        memmove(r + at + 1, r + at, sizeof *r * (m - at)), m++;
        r[at] = (RandomField){(uint8_t)(next_random(&state) % 2), 9};
      }
    }
    tu_Bytes lb = {0}, rb = {0};
    for (uint32_t i = 0; i < n; i++) put_random_field(&lb, l[i], false);
    for (uint32_t i = 0; i < m; i++) put_random_field(&rb, r[i], true);
    pbd_ReadOptions o;
    memset(&o, 0, sizeof o);
    o.hash_seed = 7;
    o.pool = tu_type_pool("sem3.M");
    free(tu_diff_both_ways(tu_type("sem3.M"), lb.p, lb.n, rb.p, rb.n, &o));
    free(lb.p), free(rb.p);
  }
  free(l), free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("window");
  TCase *t = tcase_create("window");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, schemaless_last_changed);
  tcase_add_test(t, schemaless_inserted);
  tcase_add_test(t, known_repeated_between_fields);
  tcase_add_test(t, singular_field_in_window);
  tcase_add_test(t, packed_scalars_in_window);
  tcase_add_test(t, wrong_wire_type_in_window);
  tcase_add_test(t, reencoded_one_changed);
  tcase_add_test(t, reencoded_change_at_block_edges);
  tcase_add_test(t, reencoded_added_and_removed);
  tcase_add_test(t, window_at_the_first_byte);
  tcase_add_test(t, reencoded_other_fields_whole);
  tcase_add_test(t, reencoded_unknown_of_the_same_number);
  tcase_add_test(t, reencoded_split_message);
  tcase_add_test(t, reencoded_split_both_sides);
  tcase_add_test(t, random_reencoded_pairs);
  suite_add_tcase(s, t);
  return tu_main(s);
}
