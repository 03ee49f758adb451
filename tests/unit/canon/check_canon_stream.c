/* Streamed records (lib/canon/canon_stream.c): a large message whose fields
 * are runs of repeated string, bytes or message fields (or unknown fields)
 * in number order is hashed as it is read.  Its hash must be the one the
 * tree computes from its whole canonical form (pbd_Tree_Parse), whatever
 * the shape: one run, several in order, nested streamed messages, and the
 * shapes that must fall back to keeping the record (a number that comes
 * back, a singular field, scalars, a wrong wire type, unknown fields under
 * --ignore-unknown).  Inputs are built by loops, past the 1 MiB below which
 * records are kept. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/tree/tree.h"
#include "testutil.h"


/* A varint-length LEN field of number `tag_hex` holding o's bytes. */
static void put_len(tu_Bytes *o, const char *tag_hex, const tu_Bytes *payload) {
  size_t n;
  uint8_t *t = tu_hex(tag_hex, &n), len[10];
  tu_bytes_put(o, t, n);
  free(t);
  size_t k = 0;
  for (uint64_t v = payload->n;; v >>= 7) {
    len[k++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
    if (v < 0x80) break;
  }
  tu_bytes_put(o, len, k);
  tu_bytes_put(o, payload->p, payload->n);
}

/* The hash pass agrees with the tree on o (type t, NULL: schemaless). */
static void agrees(const char *type, tu_Bytes *o, bool ignore_unknown) {
  ck_assert(o->n > (1u << 20));
  pbd_ReadOptions ro;
  memset(&ro, 0, sizeof ro);
  ro.hash_seed = 12345;
  ro.pool = type ? tu_type_pool(type) : NULL;
  ro.ignore_unknown = ignore_unknown;
  tu_hash_agrees(type ? tu_type(type) : NULL, o->p, o->n, &ro);
  free(o->p);
}

enum { kMany = 800000 }; /* two-byte fields: 1.6 MB */

START_TEST(schemaless_one_run) {
  tu_Bytes o = {0};
  tu_bytes_put_hex(&o, "0a 00", kMany);
  tu_bytes_put_hex(&o, "0a 02 08 01", 3); /* messages among the bytes */
  agrees(NULL, &o, false);
}
END_TEST

START_TEST(schemaless_runs_in_order) {
  tu_Bytes o = {0};
  tu_bytes_put_hex(&o, "08 01", kMany / 2);          /* varints */
  tu_bytes_put_hex(&o, "12 01 78", kMany / 2);       /* bytes */
  tu_bytes_put_hex(&o, "1d 01000000", kMany / 4);    /* fixed32 */
  tu_bytes_put_hex(&o, "23 08 05 24", kMany / 4);    /* groups */
  agrees(NULL, &o, false);
}
END_TEST

START_TEST(schemaless_number_comes_back) {
  tu_Bytes o = {0};
  tu_bytes_put_hex(&o, "0a 00", kMany / 2);
  tu_bytes_put_hex(&o, "10 01", 5);
  tu_bytes_put_hex(&o, "0a 00", kMany / 2); /* 1 after 2: kept, sorted as before */
  agrees(NULL, &o, false);
}
END_TEST

/* sem3.M: rm (15) and rs (23) repeated, known; 99 unknown */
START_TEST(known_repeated_runs) {
  tu_Bytes o = {0};
  tu_bytes_put_hex(&o, "7a 02 08 01", kMany / 2);
  tu_bytes_put_hex(&o, "ba 01 02 68 69", kMany / 2); /* rs = "hi" */
  tu_bytes_put_hex(&o, "98 06 07", 1000);            /* 99: unknown varints */
  agrees("sem3.M", &o, false);
}
END_TEST

START_TEST(falls_back) {
  tu_Bytes o = {0};
  tu_bytes_put_hex(&o, "7a 02 08 01", kMany / 2);
  tu_bytes_put_hex(&o, "08 05", 3); /* a singular field after a higher number */
  agrees("sem3.M", &o, false);
  tu_Bytes p = {0};
  tu_bytes_put_hex(&p, "7a 02 08 01", kMany / 2);
  tu_bytes_put_hex(&p, "7d 01000000", 10); /* rm with a fixed32: an unknown of 15 */
  agrees("sem3.M", &p, false);
  tu_Bytes q = {0};
  tu_bytes_put_hex(&q, "70 01", kMany); /* repeated scalars: kept as values */
  agrees("sem3.M", &q, false);
  tu_Bytes r = {0};
  tu_bytes_put_hex(&r, "7a 02 08 01", kMany / 2);
  tu_bytes_put_hex(&r, "98 06 07", 1000); /* unknowns under --ignore-unknown */
  agrees("sem3.M", &r, true);
}
END_TEST

/* A streamed message inside a streamed message: schemaless field 1 holding
 * large messages of its own, each one long run. */
START_TEST(nested_streams) {
  tu_Bytes o = {0};
  for (int k = 0; k < 2; k++) {
    tu_Bytes inner = {0};
    tu_bytes_put_hex(&inner, "0a 00", 300000);
    tu_bytes_put_hex(&inner, k ? "10 01" : "10 02", 1);
    put_len(&o, "0a", &inner);
    free(inner.p);
  }
  tu_bytes_put_hex(&o, "10 01", 10);
  agrees(NULL, &o, false);
}
END_TEST

int main(void) {
  Suite *s = suite_create("canon_stream");
  TCase *t = tcase_create("stream");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, schemaless_one_run);
  tcase_add_test(t, schemaless_runs_in_order);
  tcase_add_test(t, schemaless_number_comes_back);
  tcase_add_test(t, known_repeated_runs);
  tcase_add_test(t, falls_back);
  tcase_add_test(t, nested_streams);
  suite_add_tcase(s, t);
  return tu_main(s);
}
