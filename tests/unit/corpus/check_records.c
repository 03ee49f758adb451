/* Records matched by key (lib/corpus/) on hand-made bytes: the key read as
 * the tree reads the field (last value, merged parts, defaults, enums by
 * name, several fields), the spec's errors, and the join's order and
 * pairing of duplicate keys.  (Whole corpora through the CLI are in
 * tests/cases/corpus.cases.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/corpus/records.h"
#include "testutil.h"

static pbd_DefPool *pool;

static const pbd_MessageDef *record_type(void) {
  return tu_message(&pool, "proto/corpus.proto", "corpus.Record");
}

/* The key text of the record in hex, as `spec` reads it. */
static char *key_of(const pbd_MessageDef *t, const char *spec, const char *hex) {
  pbd_RecordKey k;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_RecordKey_Parse(t, spec, &k, &s), "%s", s.msg);
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  pbd_ReadOptions o = {.hash_seed = 7, .pool = pool};
  pbd_Hash128 h;
  ck_assert_msg(pbd_Canon_Hash(t, b, 0, n, &o, NULL, &h, &s), "%s", s.msg);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Buf out = {0};
  ck_assert_msg(pbd_RecordKey_Read(&k, t, b, 0, n, h, &o, a, &out, &s), "%s", s.msg);
  pbd_Arena_Free(a);
  free(b);
  return out.data;
}

#define EXPECT_KEY(t, spec, hex, want)              \
  do {                                              \
    char *got_ = key_of((t), (spec), (hex));        \
    ck_assert_str_eq(got_, (want));                 \
    free(got_);                                     \
  } while (0)

START_TEST(key_reads_as_the_tree) {
  const pbd_MessageDef *t = record_type();
  EXPECT_KEY(t, "id", "0a0161", "id=\"a\"");
  EXPECT_KEY(t, "id", "0a0178 0a0161", "id=\"a\"");          /* the last value wins */
  EXPECT_KEY(t, "id", "2801", "id=\"\"");                     /* unset: the default */
  EXPECT_KEY(t, "shard", "2801", "shard=1");
  EXPECT_KEY(t, "shard", "28ffffffff0f", "shard=-1");        /* int32 as the schema reads it */
  EXPECT_KEY(t, "shard", "288100", "shard=1");               /* a non-minimal varint */
  /* a header in two parts is one header */
  EXPECT_KEY(t, "header.request_id", "12040a027131 12021002", "header.request_id=\"q1\"");
  EXPECT_KEY(t, "header.request_id", "12021002 12040a027131", "header.request_id=\"q1\"");
  EXPECT_KEY(t, "header.request_id", "2801", "header.request_id=\"\"");
  EXPECT_KEY(t, "id+shard", "2803 0a0162", "id=\"b\",shard=3");
  EXPECT_KEY(t, "price", "190000000000000440", "price=2.5");
  /* a key that needs escaping stays one line */
  EXPECT_KEY(t, "id", "0a020a22", "id=\"\\n\\\"\"");
  /* without a schema: field numbers, the value as the wire holds it */
  EXPECT_KEY(NULL, "5", "2807", "5=7");
  EXPECT_KEY(NULL, "2.1", "12040a027131", "2.1=\"q1\"");
  EXPECT_KEY(NULL, "9", "2807", "9=");
}
END_TEST

/* Keys of every kind, read from the wire or (enums, floats, oneof members)
 * through the tree: the same text either way as the comparison sees it. */
START_TEST(key_kinds_and_rules) {
  pbd_DefPool *p3 = NULL;
  const pbd_MessageDef *t = tu_message(&p3, "proto/sem3.proto", "sem3.M");
  EXPECT_KEY(t, "s32", "2803", "s32=-2");                      /* zigzag */
  EXPECT_KEY(t, "i32", "0a0178 0807", "i32=7");              /* LEN: not i32, an unknown field */
  EXPECT_KEY(t, "i32", "0a0178", "i32=0");
  EXPECT_KEY(t, "b", "3801", "b=true");
  EXPECT_KEY(t, "by", "5a0200ff", "by=\"\\000\\377\"");
  EXPECT_KEY(t, "fx32", "cd010a000000", "fx32=10");
  EXPECT_KEY(t, "u64", "20ffffffffffffffffff01", "u64=18446744073709551615");
  EXPECT_KEY(t, "inner.a", "6a020805 6a020807", "inner.a=7");  /* parts merged */
  EXPECT_KEY(t, "color", "6002", "color=GREEN");
  EXPECT_KEY(t, "d", "490000000000000000", "d=0");
  EXPECT_KEY(t, "c1", "9801 05", "c1=5");
  EXPECT_KEY(t, "c1", "9801 05 a201 0178", "c1=0");            /* cleared by c2, its oneof's */
  EXPECT_KEY(t, "c1+inner.s", "6a03120161 9801 05", "c1=5,inner.s=\"a\"");
  pbd_DefPool_Free(p3);
}
END_TEST

static void expect_spec_error(const pbd_MessageDef *t, const char *spec, const char *want) {
  pbd_RecordKey k;
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(!pbd_RecordKey_Parse(t, spec, &k, &s), "%s parsed", spec);
  ck_assert_msg(strstr(s.msg, want), "%s: %s (want %s)", spec, s.msg, want);
}

START_TEST(key_spec_errors) {
  const pbd_MessageDef *t = record_type();
  expect_spec_error(t, "nope", "corpus.Record has no field 'nope'");
  expect_spec_error(t, "tags", "is not a singular scalar");
  expect_spec_error(t, "header", "is not a singular scalar");
  expect_spec_error(t, "id.x", "is not a singular message field");
  expect_spec_error(t, "id+", "an empty or too long field name");
  expect_spec_error(t, "", "an empty or too long field name");
  expect_spec_error(NULL, "id", "is not a field number");
  expect_spec_error(NULL, "0", "is not a field number");
  expect_spec_error(t, "id+id+id+id+id+id+id+id+id", "more than 8 fields");
}
END_TEST

/* The join, seen as text: "KEY:L/R" per pair, L and R "source.index" or "-". */
static int record_pair(void *ctx, const pbd_RecordPair *p) {
  pbd_Buf *b = ctx;
  pbd_Buf_Printf(b, "%.*s#%zu:", (int)p->key_len, p->key, p->occurrence);
  if (p->left) pbd_Buf_Printf(b, "%u.%zu", p->left->source, p->left->index);
  else pbd_Buf_AppendChar(b, '-');
  pbd_Buf_AppendChar(b, '/');
  if (p->right) pbd_Buf_Printf(b, "%u.%zu", p->right->source, p->right->index);
  else pbd_Buf_AppendChar(b, '-');
  pbd_Buf_Printf(b, "(%zu,%zu) ", p->left_count, p->right_count);
  return 0;
}

static void add(pbd_RecordIndex *x, const char *key, uint32_t src, size_t i) {
  pbd_Hash128 h = {i, src};
  ck_assert(pbd_RecordIndex_Add(x, key, strlen(key), src, i, h));
}

START_TEST(join_by_key) {
  pbd_RecordIndex *l = pbd_RecordIndex_New(), *r = pbd_RecordIndex_New();
  add(l, "b", 0, 0);
  add(l, "a", 0, 1);
  add(l, "d", 1, 0);
  add(l, "d", 0, 2);  /* a duplicate: pairs in (source, index) order */
  add(r, "d", 0, 0);
  add(r, "c", 0, 1);
  add(r, "a", 2, 0);
  add(r, "ab", 1, 5); /* a longer key after its prefix */
  pbd_Buf b = {0};
  ck_assert_int_eq(pbd_Records_Join(l, r, record_pair, &b), 0);
  ck_assert_str_eq(b.data, "a#0:0.1/2.0(1,1) ab#0:-/1.5(0,1) b#0:0.0/-(1,0) c#0:-/0.1(0,1) "
                           "d#0:0.2/0.0(2,1) d#1:1.0/-(2,1) ");
  ck_assert_uint_eq(pbd_RecordIndex_Count(l), 4);
  pbd_Buf_Free(&b);
  pbd_RecordIndex *e = pbd_RecordIndex_New();
  ck_assert_int_eq(pbd_Records_Join(e, e, record_pair, &b), 0); /* nothing at all */
  ck_assert_ptr_null(b.data);
  pbd_RecordIndex_Free(e);
  pbd_RecordIndex_Free(l);
  pbd_RecordIndex_Free(r);
}
END_TEST

static int stop_at_second(void *ctx, const pbd_RecordPair *p) {
  (void)p;
  return ++*(int *)ctx == 2 ? 9 : 0;
}

START_TEST(join_stops_when_asked) {
  pbd_RecordIndex *l = pbd_RecordIndex_New(), *r = pbd_RecordIndex_New();
  for (size_t i = 0; i < 5000; i++) { /* past the first growth of the index */
    char k[16];
    snprintf(k, sizeof k, "k%05zu", i);
    add(l, k, 0, i);
    add(r, k, 0, 4999 - i);
  }
  int n = 0;
  ck_assert_int_eq(pbd_Records_Join(l, r, stop_at_second, &n), 9);
  ck_assert_int_eq(n, 2);
  ck_assert_uint_gt(pbd_RecordIndex_Bytes(l), 5000 * sizeof(pbd_Record));
  pbd_RecordIndex_Free(l);
  pbd_RecordIndex_Free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("records");
  TCase *t = tcase_create("records");
  tcase_add_test(t, key_reads_as_the_tree);
  tcase_add_test(t, key_kinds_and_rules);
  tcase_add_test(t, key_spec_errors);
  tcase_add_test(t, join_by_key);
  tcase_add_test(t, join_stops_when_asked);
  suite_add_tcase(s, t);
  int rc = tu_main(s);
  pbd_DefPool_Free(pool);
  return rc;
}
