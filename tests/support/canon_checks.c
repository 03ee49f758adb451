/* pbdiff tests — the HashParts, Hasher and TryHashUnknown checks of the
 * canonical hash suites, and the byte builder for inputs made by code
 * (canon_harness.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon_harness.h"
#include "pbdiff/wire/wire.h"

/* ---- HashParts and the hasher ----------------------------------------------- */

/* A scratch arena for the calls that take one, every other call (the
 * others pass NULL); what they take from it must be given back. */
static pbd_Arena *g_scratch;
static unsigned g_scratch_turn;

static pbd_Arena *next_scratch(void) {
  if (!g_scratch) g_scratch = pbd_Arena_New();
  ck_assert_ptr_nonnull(g_scratch);
  if (++g_scratch_turn % 2 == 0) return NULL;
  /* something of the caller's already in it */
  ck_assert_ptr_nonnull(pbd_Arena_Malloc(g_scratch, 1 + g_scratch_turn % 100));
  return g_scratch;
}

static bool scratch_given_back(const pbd_Arena *a, pbd_ArenaMark before) {
  pbd_ArenaMark after = pbd_Arena_Mark(a);
  return after.block == before.block && after.used == before.used;
}

ch_Result ch_via_parts(const pbd_MessageDef *t, const uint8_t *buf, const pbd_Part *parts,
                       size_t nparts, int depth, const pbd_ReadOptions *o,
                       const pbd_HashCache *cache) {
  ch_Result r = ch_result();
  pbd_Arena *scratch = next_scratch();
  pbd_ArenaMark mark = scratch ? pbd_Arena_Mark(scratch) : (pbd_ArenaMark){0};
  r.ok = pbd_Canon_HashParts(t, buf, parts, nparts, depth, o, cache, scratch, &r.hash, &r.empty,
                             &r.s);
  if (scratch && !scratch_given_back(scratch, mark)) r.scratch_kept = true;
  r.has_empty = r.ok;
  return r;
}

ch_Result ch_via_hasher(pbd_Hasher *h, const pbd_MessageDef *t, const pbd_Part *parts,
                        size_t nparts, int depth) {
  ch_Result r = ch_result();
  r.ok = pbd_Hasher_HashParts(h, t, parts, nparts, depth, &r.hash, &r.empty, &r.s);
  r.has_empty = r.ok;
  return r;
}

static int effective_max_depth(const pbd_ReadOptions *o) {
  return o->max_depth > 0 ? o->max_depth : kPbd_DefaultMaxDepth;
}

/* The offsets of the top-level field boundaries of buf[0, n) (0 and n
 * included); false when the top level does not read cleanly. */
static bool field_boundaries(const uint8_t *buf, size_t n, size_t **out, size_t *count) {
  size_t cap = 16, k = 0;
  size_t *v = malloc(cap * sizeof *v);
  ck_assert_ptr_nonnull(v);
  v[k++] = 0;
  const uint8_t *p = buf, *end = buf + n;
  pbd_Status s;
  pbd_Status_Clear(&s);
  while (p < end) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, end, buf, kPbd_DefaultMaxDepth, &f, &s);
    if (!q || f.wire_type == kPbd_WireType_EndGroup) {
      free(v);
      return false;
    }
    if (k == cap) {
      cap *= 2;
      v = realloc(v, cap * sizeof *v);
      ck_assert_ptr_nonnull(v);
    }
    v[k++] = (size_t)(q - buf);
    p = q;
  }
  *out = v;
  *count = k;
  return true;
}

/* One HashParts call checked both ways: pbd_Canon_HashParts, and the
 * hasher kept across the calls for this buffer. */
static void parts_both(ch_Report *r, const ch_Case *c0, pbd_Hasher *h, const uint8_t *copy,
                       size_t n, const ch_Result *tr, const pbd_Part *parts, size_t np, int depth,
                       const pbd_ReadOptions *o, const char *extra) {
  ch_Case c = *c0;
  ch_Result pr = ch_via_parts(c.type, copy, parts, np, depth, o, NULL);
  ch_note(r, &c, ch_compare(c.pool, c.type, copy, 0, n, tr, &pr), copy, n, tr, &pr, false, extra);
  if (h) {
    c.what = depth ? "Hasher_HashParts(depth d)" : "Hasher_HashParts(depth 0)";
    pr = ch_via_hasher(h, c.type, parts, np, depth);
    ch_note(r, &c, ch_compare(c.pool, c.type, copy, 0, n, tr, &pr), copy, n, tr, &pr, false, extra);
  }
}

/* HashParts against the tree (and Canon_Hash) for one input: the whole
 * buffer as one part; split in two at every top-level field boundary; every
 * field its own part, with empty parts between. */
void ch_check_parts(ch_Report *r, const ch_Case *c0, const uint8_t *b, size_t n) {
  ch_Case c = *c0;
  c.what = "HashParts(depth 0)";
  uint8_t *copy = ch_copy(b, n);
  pbd_Hasher *h = pbd_Hasher_New(copy, &c.o, NULL);
  ck_assert_ptr_nonnull(h);
  ch_Result tr = ch_via_tree(c.type, copy, 0, n, &c.o);
  pbd_Part whole = {copy, n};
  parts_both(r, &c, h, copy, n, &tr, &whole, 1, 0, &c.o, "parts = {whole}");
  size_t *bound, nb;
  if (tr.ok && field_boundaries(copy, n, &bound, &nb)) {
    for (size_t i = 0; i < nb; i++) {
      pbd_Part two[2] = {{copy, bound[i]}, {copy + bound[i], n - bound[i]}};
      char extra[64];
      snprintf(extra, sizeof extra, "parts split at byte %zu", bound[i]);
      parts_both(r, &c, h, copy, n, &tr, two, 2, 0, &c.o, extra);
    }
    if (nb > 2) {
      pbd_Part *each = malloc(sizeof *each * 2 * nb);
      ck_assert_ptr_nonnull(each);
      size_t np = 0;
      for (size_t i = 0; i + 1 < nb; i++) {
        each[np++] = (pbd_Part){copy + bound[i], bound[i + 1] - bound[i]};
        each[np++] = (pbd_Part){copy + bound[i + 1], 0};
      }
      parts_both(r, &c, h, copy, n, &tr, each, np, 0, &c.o,
                 "every field its own part, empty parts between");
      free(each);
    }
    free(bound);
  }
  /* the hasher once more, after all that: the same as the first time */
  parts_both(r, &c, h, copy, n, &tr, &whole, 1, 0, &c.o, "parts = {whole}, again");
  pbd_Hasher_Free(h);
  free(copy);
}

/* HashParts of a message at depth d must be the tree's hash of the same
 * bytes as a root with the depth limit d lower (depth only counts against
 * the limit). */
void ch_check_parts_depth(ch_Report *r, const ch_Case *c0, const uint8_t *b, size_t n) {
  int max = effective_max_depth(&c0->o);
  for (int d = 1; d <= 2; d++) {
    if (max - d < 1) break;
    ch_Case c = *c0;
    c.what = "HashParts(depth d)";
    pbd_ReadOptions shallow = c.o;
    shallow.max_depth = max - d;
    uint8_t *copy = ch_copy(b, n);
    ch_Result tr = ch_via_tree(c.type, copy, 0, n, &shallow);
    pbd_Part whole = {copy, n};
    pbd_ReadOptions deep = c.o;
    deep.max_depth = max;
    /* the depth error names the limit: the tree's, as the real limit */
    char want[64];
    snprintf(want, sizeof want, "nesting deeper than %d", max - d);
    if (!tr.ok && strcmp(tr.s.msg, want) == 0)
      snprintf(tr.s.msg, sizeof tr.s.msg, "nesting deeper than %d", max);
    char extra[96];
    snprintf(extra, sizeof extra, "depth %d, max_depth %d (tree: root, max_depth %d)", d, max,
             max - d);
    pbd_Hasher *h = pbd_Hasher_New(copy, &deep, NULL);
    ck_assert_ptr_nonnull(h);
    parts_both(r, &c, h, copy, n, &tr, &whole, 1, d, &deep, extra);
    pbd_Hasher_Free(h);
    free(copy);
  }
}

/* TryHashUnknown of bytes P at depth d: P stands as the LEN field 2 of a
 * schemaless message nested in d groups (field 1); the tree reads it as a
 * message (its hash) or as bytes. */
void ch_check_try_unknown(ch_Report *r, const ch_Case *c0, const uint8_t *p, size_t n, int d) {
  ch_Case c = *c0;
  c.what = "TryHashUnknown";
  c.type = NULL;
  size_t cap = n + 2 * (size_t)d + 16, k = 0;
  uint8_t *w = malloc(cap);
  ck_assert_ptr_nonnull(w);
  for (int i = 0; i < d; i++) w[k++] = 0x0b;
  w[k++] = 0x12;
  for (uint64_t v = n;; v >>= 7) {
    if (v < 0x80) {
      w[k++] = (uint8_t)v;
      break;
    }
    w[k++] = (uint8_t)(v | 0x80);
  }
  size_t at = k;
  if (n) memcpy(w + k, p, n);
  k += n;
  for (int i = 0; i < d; i++) w[k++] = 0x0c;
  pbd_Status ts;
  pbd_Status_Clear(&ts);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Message *m = pbd_Tree_Parse(NULL, w, 0, k, &c.o, a, &ts);
  if (m) { /* else the wrapping itself is too deep: nothing to compare */
    for (int i = 0; i < d; i++) {
      ck_assert(pbd_Message_FieldCount(m) == 1 && pbd_Message_Fields(m)[0].number == 1);
      ck_assert(pbd_Message_Fields(m)[0].v.unknowns[0].kind == kPbd_Value_Group);
      m = pbd_Message_Fields(m)[0].v.unknowns[0].m;
    }
    ck_assert(pbd_Message_FieldCount(m) == 1 && pbd_Message_Fields(m)[0].number == 2);
    const pbd_UnknownValue *v = &pbd_Message_Fields(m)[0].v.unknowns[0];
    ch_Result tr = ch_result(), cr = ch_result();
    bool failed = true;
    pbd_Arena *scratch = next_scratch();
    pbd_ArenaMark mark = scratch ? pbd_Arena_Mark(scratch) : (pbd_ArenaMark){0};
    cr.ok = pbd_Canon_TryHashUnknown(w, w + at, n, d, &c.o, NULL, scratch, &cr.hash, &failed,
                                     &cr.s);
    if (scratch && !scratch_given_back(scratch, mark)) cr.scratch_kept = true;
    /* the hasher kept for a buffer says the same */
    pbd_Hasher *hs = pbd_Hasher_New(w, &c.o, NULL);
    ck_assert_ptr_nonnull(hs);
    ch_Result hr = ch_result();
    bool hfailed = true;
    for (int again = 0; again < 2; again++)
      hr.ok = pbd_Hasher_TryUnknown(hs, w + at, n, d, &hr.hash, &hfailed, &hr.s);
    pbd_Hasher_Free(hs);
    if (hr.ok != cr.ok || hfailed != failed || (hr.ok && !pbd_Hash128_Equal(hr.hash, cr.hash)) ||
        hr.s.code != cr.s.code) {
      cr.ok = !cr.ok; /* shown as a disagreement below */
      snprintf(cr.s.path, sizeof cr.s.path, "(Hasher_TryUnknown: %s, failed %d; TryHashUnknown: %s)",
               hr.ok ? "true" : "false", hfailed, cr.ok ? "false" : "true");
    }
    ch_Verdict ver;
    if (v->kind == kPbd_Value_LenMessage) {
      tr.ok = true;
      tr.hash = v->m->hash;
      ver = cr.ok && pbd_Hash128_Equal(tr.hash, cr.hash) && cr.s.code == kPbd_Status_Ok &&
                    !cr.scratch_kept
                ? kCh_Agree
                : kCh_Disagree;
    } else {
      /* bytes: false, not failed, status untouched (tr stands for "bytes") */
      tr.ok = false;
      snprintf(tr.s.msg, sizeof tr.s.msg, "(bytes: false, failed false, status untouched)");
      ver = !cr.ok && !failed && cr.s.code == kPbd_Status_Ok && !cr.scratch_kept ? kCh_Agree
                                                                                 : kCh_Disagree;
      if (!cr.ok && failed && !cr.s.msg[0])
        snprintf(cr.s.msg, sizeof cr.s.msg, "(false with *failed set)");
      else if (!cr.ok && !failed && cr.s.code == kPbd_Status_Ok)
        snprintf(cr.s.msg, sizeof cr.s.msg, "(bytes)");
    }
    char extra[64];
    snprintf(extra, sizeof extra, "depth %d", d);
    ch_note(r, &c, ver, p, n, &tr, &cr, false, extra);
  }
  pbd_Arena_Free(a);
  free(w);
}

/* ---- Building inputs ------------------------------------------------------------ */

void ch_b_put(ch_Bytes *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n) cap *= 2;
    b->p = realloc(b->p, cap);
    ck_assert_ptr_nonnull(b->p);
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
}
void ch_b_byte(ch_Bytes *b, uint8_t x) { ch_b_put(b, &x, 1); }
void ch_b_varint(ch_Bytes *b, uint64_t v) {
  while (v >= 0x80) {
    ch_b_byte(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  ch_b_byte(b, (uint8_t)v);
}
void ch_b_tag(ch_Bytes *b, uint32_t number, int wt) {
  ch_b_varint(b, (uint64_t)number << 3 | (unsigned)wt);
}
size_t ch_b_len(ch_Bytes *b, uint32_t number, const ch_Bytes *payload) {
  ch_b_tag(b, number, 2);
  ch_b_varint(b, payload->n);
  size_t at = b->n;
  ch_b_put(b, payload->p, payload->n);
  return at;
}
void ch_b_fill(ch_Bytes *b, uint32_t number, char c, size_t n) {
  ch_b_tag(b, number, 2);
  ch_b_varint(b, n);
  for (size_t i = 0; i < n; i++) ch_b_byte(b, (uint8_t)(0x21 + ((unsigned)c + i % 7 - 0x21) % 94));
}
void ch_b_u32(ch_Bytes *b, uint32_t v) {
  for (int i = 0; i < 4; i++) ch_b_byte(b, (uint8_t)(v >> (8 * i)));
}
void ch_b_u64(ch_Bytes *b, uint64_t v) {
  for (int i = 0; i < 8; i++) ch_b_byte(b, (uint8_t)(v >> (8 * i)));
}
uint8_t *ch_b_exact(ch_Bytes *b, size_t *n) {
  uint8_t *p = ch_copy(b->p, b->n);
  *n = b->n;
  free(b->p);
  *b = (ch_Bytes){0};
  return p;
}
