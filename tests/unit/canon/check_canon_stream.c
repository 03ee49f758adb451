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

typedef struct {
  uint8_t *p;
  size_t n, cap;
} Out;

static void put(Out *o, const void *d, size_t n) {
  if (o->n + n > o->cap) {
    o->cap = (o->n + n) * 2;
    o->p = realloc(o->p, o->cap);
    ck_assert_ptr_nonnull(o->p);
  }
  memcpy(o->p + o->n, d, n);
  o->n += n;
}

static void put_times(Out *o, const char *hex, size_t times) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  for (size_t i = 0; i < times; i++) put(o, b, n);
  free(b);
}

/* A varint-length LEN field of number `tag_hex` holding o's bytes. */
static void put_len(Out *o, const char *tag_hex, const Out *payload) {
  size_t n;
  uint8_t *t = tu_hex(tag_hex, &n), len[10];
  put(o, t, n);
  free(t);
  size_t k = 0;
  for (uint64_t v = payload->n;; v >>= 7) {
    len[k++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
    if (v < 0x80) break;
  }
  put(o, len, k);
  put(o, payload->p, payload->n);
}

/* The hash pass agrees with the tree on o (type t, NULL: schemaless). */
static void agrees(const char *type, Out *o, bool ignore_unknown) {
  const pbd_MessageDef *t = type ? tu_type(type) : NULL;
  ck_assert(o->n > (1u << 20));
  pbd_ReadOptions ro;
  memset(&ro, 0, sizeof ro);
  ro.hash_seed = 12345;
  ro.pool = t ? tu_type_pool(type) : NULL;
  ro.ignore_unknown = ignore_unknown;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Hash128 h;
  ck_assert_msg(pbd_Canon_Hash(t, o->p, 0, o->n, &ro, NULL, &h, &s), "%s", s.msg);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Message *m = pbd_Tree_Parse(t, o->p, 0, o->n, &ro, a, &s);
  ck_assert_msg(m != NULL, "%s", s.msg);
  ck_assert_msg(pbd_Hash128_Equal(h, m->hash), "hash pass and tree disagree");
  pbd_Arena_Free(a);
  free(o->p);
}

enum { kMany = 800000 }; /* two-byte fields: 1.6 MB */

START_TEST(schemaless_one_run) {
  Out o = {0};
  put_times(&o, "0a 00", kMany);
  put_times(&o, "0a 02 08 01", 3); /* messages among the bytes */
  agrees(NULL, &o, false);
}
END_TEST

START_TEST(schemaless_runs_in_order) {
  Out o = {0};
  put_times(&o, "08 01", kMany / 2);          /* varints */
  put_times(&o, "12 01 78", kMany / 2);       /* bytes */
  put_times(&o, "1d 01000000", kMany / 4);    /* fixed32 */
  put_times(&o, "23 08 05 24", kMany / 4);    /* groups */
  agrees(NULL, &o, false);
}
END_TEST

START_TEST(schemaless_number_comes_back) {
  Out o = {0};
  put_times(&o, "0a 00", kMany / 2);
  put_times(&o, "10 01", 5);
  put_times(&o, "0a 00", kMany / 2); /* 1 after 2: kept, sorted as before */
  agrees(NULL, &o, false);
}
END_TEST

/* sem3.M: rm (15) and rs (23) repeated, known; 99 unknown */
START_TEST(known_repeated_runs) {
  Out o = {0};
  put_times(&o, "7a 02 08 01", kMany / 2);
  put_times(&o, "ba 01 02 68 69", kMany / 2); /* rs = "hi" */
  put_times(&o, "98 06 07", 1000);            /* 99: unknown varints */
  agrees("sem3.M", &o, false);
}
END_TEST

START_TEST(falls_back) {
  Out o = {0};
  put_times(&o, "7a 02 08 01", kMany / 2);
  put_times(&o, "08 05", 3); /* a singular field after a higher number */
  agrees("sem3.M", &o, false);
  Out p = {0};
  put_times(&p, "7a 02 08 01", kMany / 2);
  put_times(&p, "7d 01000000", 10); /* rm with a fixed32: an unknown of 15 */
  agrees("sem3.M", &p, false);
  Out q = {0};
  put_times(&q, "70 01", kMany); /* repeated scalars: kept as values */
  agrees("sem3.M", &q, false);
  Out r = {0};
  put_times(&r, "7a 02 08 01", kMany / 2);
  put_times(&r, "98 06 07", 1000); /* unknowns under --ignore-unknown */
  agrees("sem3.M", &r, true);
}
END_TEST

/* A streamed message inside a streamed message: schemaless field 1 holding
 * large messages of its own, each one long run. */
START_TEST(nested_streams) {
  Out o = {0};
  for (int k = 0; k < 2; k++) {
    Out inner = {0};
    put_times(&inner, "0a 00", 300000);
    put_times(&inner, k ? "10 01" : "10 02", 1);
    put_len(&o, "0a", &inner);
    free(inner.p);
  }
  put_times(&o, "10 01", 10);
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
