/* Two ways to one answer: the hash pass against the tree's hash, and the
 * pipeline (pbd_Compare, which hashes, windows and materialises what
 * differs) against diffing two whole trees.  The fast paths of lib/canon
 * and lib/tree must give exactly what the slow ones give. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/pbdiff.h"
#include "testutil.h"

pbd_Hash128 tu_hash_agrees(const pbd_MessageDef *t, const uint8_t *p, size_t n,
                           const pbd_ReadOptions *o) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Hash128 h;
  ck_assert_msg(pbd_Canon_Hash(t, p, 0, n, o, NULL, &h, &s), "%s", s.msg);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Message *m = pbd_Tree_Parse(t, p, 0, n, o, a, &s);
  ck_assert_msg(m != NULL, "%s", s.msg);
  ck_assert_msg(pbd_Hash128_Equal(h, m->hash), "%s: hash pass and tree disagree",
                t ? t->full_name : "(schemaless)");
  pbd_Arena_Free(a);
  return h;
}

char *tu_diff_both_ways(const pbd_MessageDef *t, const uint8_t *l, size_t ln, const uint8_t *r,
                        size_t rn, const pbd_ReadOptions *o) {
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *lm = pbd_Tree_Parse(t, l, 0, ln, o, a, &s);
  pbd_Message *rm = pbd_Tree_Parse(t, r, 0, rn, o, a, &s);
  ck_assert_msg(lm && rm, "%s", s.msg);
  pbd_Buf whole = {0}, piped = {0};
  pbd_Buf_AppendStr(&whole, "");
  pbd_Buf_AppendStr(&piped, "");
  ck_assert_int_eq(pbd_Diff_Run(lm, rm, NULL, tu_edit_line, &whole, NULL, &s), 0);
  pbd_CompareOptions co = pbd_CompareOptions_Default();
  co.type = t;
  co.read = *o;
  co.parallel = true;
  ck_assert_int_eq(pbd_Compare(l, ln, r, rn, &co, tu_edit_line, &piped, NULL, &s), 1);
  ck_assert_msg(!strcmp(piped.data, whole.data), "pipeline\n[%s]\nwhole trees\n[%s]", piped.data,
                whole.data);
  pbd_Buf_Free(&whole);
  pbd_Arena_Free(a);
  return piped.data;
}
