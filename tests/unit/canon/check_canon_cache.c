/* pbdiff tests — the pbd_HashCache a canonical hash pass fills (lib/canon/canon.h),
 * against the tree builder (lib/tree/tree.h): every message it remembers has the
 * tree's hash and emptiness, whatever the budget; with a big enough budget
 * every big message is found, in any lookup order; later walks (HashParts,
 * a kept pbd_Hasher, TryHashUnknown) with the cache give the tree's hashes.
 *
 * Tests (CK_RUN_CASE=NAME runs one): cache, cache_order, cache_onnx (the
 * ONNX test data's tensors in a model), cache_add_order (adds by hand, in
 * every order a pass or a walk makes).  $PBDIFF_VERBOSE prints how many
 * lookups found something; problems are always printed.  The shared
 * machinery is canon_harness.c's. */
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon_harness.h"
#include "testutil.h"
#include "canon/canon_internal.h" /* pbd_HashCache_Add, to feed a cache by hand */
#include "pbdiff/wire/wire.h"

/* sem3.Inner of about `size` bytes: a, s (filler), r, and a child holding a
 * string of `child` bytes (none when 0). */
static void inner_of(ch_Bytes *el, int k, size_t size, size_t child) {
  ch_b_tag(el, 1, 0), ch_b_varint(el, (uint64_t)k);
  ch_b_fill(el, 2, (char)('a' + k % 26), size);
  ch_b_tag(el, 3, 2), ch_b_varint(el, 2), ch_b_byte(el, (uint8_t)(k & 0x7f)), ch_b_byte(el, 1);
  if (child) {
    ch_Bytes c = {0};
    ch_b_tag(&c, 1, 0), ch_b_varint(&c, (uint64_t)k + 1);
    ch_b_fill(&c, 2, 'C', child);
    ch_b_len(el, 4, &c);
    free(c.p);
  }
}

typedef struct {
  const uint8_t *data; /* payload of the (first part of the) message */
  const pbd_MessageDef *type;
  const pbd_Message *m;  /* the tree's message */
  size_t size;
  bool must_find;
  char what[48];
} Expect;

/* Problems found in the cache, collected so that one does not hide the
 * others; the test fails at its end when there are any. */
static pbd_Buf g_cache_problems;
static int g_cache_nproblems;

static void cache_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cache_problem(const char *fmt, ...) {
  if (++g_cache_nproblems > 30) return;
  char line[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  pbd_Buf_Printf(&g_cache_problems, "  %s\n", line);
  fprintf(stderr, "hash_cache: PROBLEM: %s\n", line);
}

static void cache_problems_finish(void) {
  int n = g_cache_nproblems;
  char head[3000];
  snprintf(head, sizeof head, "%s", g_cache_problems.data ? g_cache_problems.data : "");
  pbd_Buf_Free(&g_cache_problems);
  g_cache_nproblems = 0;
  ck_assert_msg(n == 0, "%d problems with the hash cache:\n%s", n, head);
}

static void check_cache_finds(const pbd_HashCache *cache, const Expect *e, size_t ne, bool must,
                              const char *label) {
  size_t found = 0;
  /* in byte order, then backwards (a walk asks for a level's fields by
   * number, not by where their bytes are) */
  for (size_t j = 0; j < 2 * ne; j++) {
    size_t i = j < ne ? j : 2 * ne - 1 - j;
    pbd_Hash128 h = {0, 0};
    bool empty = true;
    bool hit = pbd_HashCache_Find(cache, e[i].data, e[i].size, e[i].type, &h, &empty);
    if (must && e[i].must_find && !hit)
      cache_problem("%s: %s (%zu bytes) not found (lookup %zu of %zu: %s)", label, e[i].what,
                    e[i].size, j + 1, 2 * ne, j < ne ? "in byte order" : "backwards");
    if (hit) {
      found++;
      if (!pbd_Hash128_Equal(h, e[i].m->hash))
        cache_problem("%s: %s: the cache's hash %016" PRIx64 "%016" PRIx64
                      " is not the tree's %016" PRIx64 "%016" PRIx64,
                      label, e[i].what, h.hi, h.lo, e[i].m->hash.hi, e[i].m->hash.lo);
      if (empty != (pbd_Message_FieldCount(e[i].m) == 0))
        cache_problem("%s: %s: empty %d, tree has %u fields", label, e[i].what, empty,
                      pbd_Message_FieldCount(e[i].m));
    }
  }
  if (ch_verbose()) fprintf(stderr, "hash_cache: %s: %zu of %zu lookups found\n", label, found, 2 * ne);
}

/* The tree of buf[0, n) as t, in arena a; fails the test when it does not parse. */
static pbd_Message *parse(const pbd_MessageDef *t, const uint8_t *buf, size_t n,
                          const pbd_ReadOptions *o, pbd_Arena *a) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *m = pbd_Tree_Parse(t, buf, 0, n, o, a, &s);
  ck_assert_msg(m != NULL, "%s", s.msg);
  return m;
}

/* An input built by code as an exact-size buffer (for ASan), and its tree. */
typedef struct {
  uint8_t *buf;
  size_t n;
  pbd_ReadOptions o;
  pbd_Arena *a;
  const pbd_Message *root;
} Built;

/* Takes x's bytes and parses them as t under the default options and seed. */
static Built build(ch_Bytes *x, const pbd_MessageDef *t, const pbd_DefPool *pool, uint64_t seed) {
  Built b;
  b.buf = ch_b_exact(x, &b.n);
  b.o = ch_tree_opts(&ch_opt_sets[0], seed, pool);
  b.a = pbd_Arena_New();
  b.root = parse(t, b.buf, b.n, &b.o, b.a);
  return b;
}

static void built_free(Built *b) {
  pbd_Arena_Free(b->a);
  free(b->buf);
}

START_TEST(hash_cache) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *M = ch_type_named("sem3.M", &pool);
  const pbd_MessageDef *Inner = ch_type_named("sem3.Inner", &pool);
  enum { kElems = 40 };
  ch_Bytes x = {0};
  size_t el_at[kElems], el_size[kElems];
  ch_b_tag(&x, 1, 0), ch_b_varint(&x, 7);
  size_t inner_at[2], inner_size[2], any_val_at = 0, unk_at = 0, any_val_size = 0, unk_size = 0;
  for (int k = 0; k < kElems; k++) {
    ch_Bytes el = {0};
    if (k == 5) { /* canonically empty: 300 times a = 0 */
      for (int i = 0; i < 300; i++) ch_b_tag(&el, 1, 0), ch_b_varint(&el, 0);
    } else if (k == 11) { /* the same bytes as element 10 */
      inner_of(&el, 10, 900, 320);
    } else {
      inner_of(&el, k, 700 + (size_t)k * 10, k % 3 ? 320 : 0);
    }
    el_at[k] = ch_b_len(&x, 15, &el);
    el_size[k] = el.n;
    free(el.p);
    if (k == 12 || k == 30) { /* the singular `inner` in two parts, between elements */
      ch_Bytes part = {0};
      if (k == 12) inner_of(&part, 99, 600, 0);
      else ch_b_tag(&part, 3, 0), ch_b_varint(&part, 77), ch_b_fill(&part, 2, 'S', 520);
      inner_at[k == 12 ? 0 : 1] = ch_b_len(&x, 13, &part);
      inner_size[k == 12 ? 0 : 1] = part.n;
      free(part.p);
    }
  }
  /* an Any with a big payload, and a big unknown LEN that parses */
  {
    ch_Bytes any = {0}, val = {0}, url = {0};
    inner_of(&val, 3, 600, 0);
    const char *u = "type.googleapis.com/sem3.Inner";
    ch_b_put(&url, u, strlen(u));
    ch_b_len(&any, 1, &url);
    ch_b_len(&any, 2, &val);
    any_val_at = ch_b_len(&x, 22, &any) + any.n - val.n;
    any_val_size = val.n;
    ch_Bytes unk = {0};
    ch_b_fill(&unk, 1, 'u', 700);
    unk_at = ch_b_len(&x, 99, &unk);
    unk_size = unk.n;
    free(any.p), free(val.p), free(url.p), free(unk.p);
  }
  size_t n;
  uint8_t *buf = ch_b_exact(&x, &n); /* exact size, for ASan */
  for (int si = 0; si < kCh_NumSeeds; si++) {
    for (int oi = 0; oi < 2; oi++) { /* default, equivalent */
      pbd_ReadOptions o = ch_tree_opts(&ch_opt_sets[oi], ch_seeds[si], pool);
      pbd_Arena *a = pbd_Arena_New();
      pbd_Message *root = parse(M, buf, n, &o, a);
      const pbd_Field *rm = pbd_Message_FindField(root, 15), *in = pbd_Message_FindField(root, 13);
      ck_assert(rm && rm->count == kElems && in && in->count == 1);
      Expect e[2 * kElems + 8];
      size_t ne = 0;
      for (int k = 0; k < kElems; k++) {
        const pbd_Message *m = rm->v.msgs[k];
        e[ne] = (Expect){buf + el_at[k], Inner, m, el_size[k], true, ""};
        snprintf(e[ne].what, sizeof e[ne].what, "rm[%d]", k);
        ne++;
        const pbd_Field *child = pbd_Message_FindField(m, 4);
        if (child) { /* the child: payload after its tag and length */
          const uint8_t *p = buf + el_at[k];
          const uint8_t *end = p + el_size[k];
          pbd_Status s;
          pbd_Status_Clear(&s);
          while (p < end) {
            pbd_WireField f;
            const uint8_t *q = pbd_Wire_ReadField(p, end, buf, 100, &f, &s);
            ck_assert_ptr_nonnull(q);
            if (f.number == 4) {
              e[ne] = (Expect){f.data, Inner, child->v.msgs[0], f.size, false, ""};
              snprintf(e[ne].what, sizeof e[ne].what, "rm[%d].child", k);
              ne++;
            }
            p = q;
          }
        }
      }
      /* a message in parts: by its first part, with the size of all its parts,
       * as the merged message */
      e[ne] = (Expect){buf + inner_at[0], Inner, in->v.msgs[0], inner_size[0] + inner_size[1], true,
                       "inner (in two parts)"};
      ne++;
      const pbd_Field *any = pbd_Message_FindField(root, 22);
      ck_assert(any && pbd_Message_AnyPayload(any->v.msgs[0]));
      e[ne] = (Expect){buf + any_val_at, Inner, pbd_Message_AnyPayload(any->v.msgs[0]), any_val_size,
                       false, "any's payload"};
      ne++;
      const pbd_Field *unk = pbd_Message_FindField(root, 99);
      ck_assert(unk && !unk->def && unk->v.unknowns[0].kind == kPbd_Value_LenMessage);
      e[ne] = (Expect){buf + unk_at, NULL, unk->v.unknowns[0].m, unk_size, false, "unknown LEN 99"};
      ne++;
      char label[96];
      /* 1 MB: every big element is found */
      pbd_HashCache *cache = pbd_HashCache_New(buf, 1 << 20);
      ck_assert_ptr_nonnull(cache);
      ch_Result cr = ch_via_canon(M, buf, 0, n, &o, cache);
      ck_assert_msg(cr.ok, "%s", cr.s.msg);
      ck_assert(pbd_Hash128_Equal(cr.hash, root->hash));
      snprintf(label, sizeof label, "budget 1 MB, %s, seed %" PRIu64, ch_opt_sets[oi].name,
               ch_seeds[si]);
      check_cache_finds(cache, e, ne, true, label);
      /* bytes not at a message's start are not found */
      pbd_Hash128 h;
      bool empty;
      ck_assert(!pbd_HashCache_Find(cache, buf + el_at[3] + 1, el_size[3] - 1, Inner, &h, &empty));
      /* a later walk with the cache: HashParts of an element, of the root */
      for (int k = 0; k < kElems; k += 7) {
        pbd_Part part = {buf + el_at[k], el_size[k]};
        ch_Result pr = ch_via_parts(Inner, buf, &part, 1, 1, &o, cache);
        ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, rm->v.msgs[k]->hash), "rm[%d] by parts", k);
        ck_assert(pr.empty == (pbd_Message_FieldCount(rm->v.msgs[k]) == 0));
      }
      pbd_Part whole = {buf, n};
      ch_Result pr = ch_via_parts(M, buf, &whole, 1, 0, &o, cache);
      ck_assert(pr.ok && pbd_Hash128_Equal(pr.hash, root->hash));
      /* a hasher kept for the buffer, with the cache: every message again */
      pbd_Hasher *hh = pbd_Hasher_New(buf, &o, cache);
      ck_assert_ptr_nonnull(hh);
      for (int round = 0; round < 2; round++) {
        for (int k = 0; k < kElems; k++) {
          pbd_Part part = {buf + el_at[k], el_size[k]};
          pr = ch_via_hasher(hh, Inner, &part, 1, 1);
          ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, rm->v.msgs[k]->hash),
                        "hasher: rm[%d]: %s", k, pr.s.msg);
          ck_assert(pr.empty == (pbd_Message_FieldCount(rm->v.msgs[k]) == 0));
        }
        for (size_t i = 0; i < ne; i++) {
          if (strstr(e[i].what, ".child")) {
            pbd_Part part = {e[i].data, e[i].size};
            pr = ch_via_hasher(hh, Inner, &part, 1, 2);
            ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, e[i].m->hash), "hasher: %s", e[i].what);
          }
        }
        pbd_Part two[2] = {{buf + inner_at[0], inner_size[0]}, {buf + inner_at[1], inner_size[1]}};
        pr = ch_via_hasher(hh, Inner, two, 2, 1);
        ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, in->v.msgs[0]->hash), "hasher: inner in parts");
        pr = ch_via_parts(Inner, buf, two, 2, 1, &o, cache);
        ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, in->v.msgs[0]->hash), "HashParts: inner in parts");
        pbd_Part ap = {buf + any_val_at, any_val_size};
        pr = ch_via_hasher(hh, Inner, &ap, 1, 2);
        ck_assert_msg(pr.ok && pbd_Hash128_Equal(pr.hash, pbd_Message_AnyPayload(any->v.msgs[0])->hash),
                      "hasher: any's payload");
        pbd_Hash128 uh;
        bool failed = true;
        pbd_Status us;
        pbd_Status_Clear(&us);
        ck_assert(pbd_Hasher_TryUnknown(hh, buf + unk_at, unk_size, 0, &uh, &failed, &us));
        ck_assert(!failed && pbd_Hash128_Equal(uh, unk->v.unknowns[0].m->hash));
        ck_assert(pbd_Canon_TryHashUnknown(buf, buf + unk_at, unk_size, 0, &o, cache, NULL, &uh,
                                           &failed, &us));
        ck_assert(!failed && pbd_Hash128_Equal(uh, unk->v.unknowns[0].m->hash));
        pr = ch_via_hasher(hh, M, &whole, 1, 0);
        ck_assert(pr.ok && pbd_Hash128_Equal(pr.hash, root->hash));
      }
      pbd_Hasher_Free(hh);
      pbd_HashCache_Free(cache);
      /* small budgets: the root hash stays right, and what is found is right */
      static const size_t kBudgets[] = {0, 1, 64, 200, 5000};
      for (size_t bi = 0; bi < sizeof kBudgets / sizeof kBudgets[0]; bi++) {
        cache = pbd_HashCache_New(buf, kBudgets[bi]);
        if (!cache) continue; /* a cache of nothing may be refused */
        cr = ch_via_canon(M, buf, 0, n, &o, cache);
        ck_assert_msg(cr.ok, "%s", cr.s.msg);
        ck_assert_msg(pbd_Hash128_Equal(cr.hash, root->hash), "budget %zu: wrong root hash", kBudgets[bi]);
        snprintf(label, sizeof label, "budget %zu, %s, seed %" PRIu64, kBudgets[bi], ch_opt_sets[oi].name,
                 ch_seeds[si]);
        check_cache_finds(cache, e, ne, false, label);
        pbd_HashCache_Free(cache);
      }
      pbd_Arena_Free(a);
    }
  }
  pbd_HashCache_Free(NULL);
  free(buf);
  cache_problems_finish();
}
END_TEST

/* A remembered message is found whatever the order of the lookups. */
START_TEST(hash_cache_lookup_order) {
  const pbd_DefPool *pool;
  const pbd_MessageDef *M = ch_type_named("sem3.M", &pool);
  const pbd_MessageDef *Inner = ch_type_named("sem3.Inner", &pool);
  /* rm x 300, each with a child (entries of descendants lie between
   * siblings: a lookup gallops over them, forwards or backwards) */
  enum { kN = 300 };
  ch_Bytes x = {0};
  size_t at[kN], size[kN];
  for (int k = 0; k < kN; k++) {
    ch_Bytes el = {0};
    inner_of(&el, k, 20, (size_t)(k % 7) * 10);
    at[k] = ch_b_len(&x, 15, &el);
    size[k] = el.n;
    free(el.p);
  }
  Built in = build(&x, M, pool, 0);
  const pbd_Field *rm = pbd_Message_FindField(in.root, 15);
  int order[kN];
  static const char *const kOrders[] = {"forwards", "backwards", "shuffled", "from both ends"};
  for (size_t oi = 0; oi < 4; oi++) {
    for (int j = 0; j < kN; j++) order[j] = oi == 1 ? kN - 1 - j : oi == 3 ? (j % 2 ? kN - 1 - j / 2 : j / 2) : j;
    uint32_t seed = 7;
    for (int j = kN - 1; oi == 2 && j > 0; j--) {
      seed = seed * 1103515245u + 12345u;
      int r = (int)(seed % (uint32_t)(j + 1)), t = order[j];
      order[j] = order[r], order[r] = t;
    }
    pbd_HashCache *cache = pbd_HashCache_New(in.buf, 1 << 20);
    ch_Result cr = ch_via_canon(M, in.buf, 0, in.n, &in.o, cache);
    ck_assert(cr.ok && pbd_Hash128_Equal(cr.hash, in.root->hash));
    for (int j = 0; j < kN; j++) {
      int k = order[j];
      pbd_Hash128 h;
      bool empty;
      ck_assert_msg(pbd_HashCache_Find(cache, in.buf + at[k], size[k], Inner, &h, &empty),
                    "lookups %s: rm[%d] (lookup %d, at byte %zu) is not found", kOrders[oi], k,
                    j + 1, at[k]);
      ck_assert(pbd_Hash128_Equal(h, rm->v.msgs[k]->hash));
      ck_assert(!pbd_HashCache_Find(cache, in.buf + at[k] + 1, size[k] - 1, Inner, &h, &empty));
    }
    pbd_HashCache_Free(cache);
  }
  built_free(&in);
}
END_TEST

/* ONNX: a model whose graph holds large initializers (the test data's
 * tensors), found in the cache at depth 2. */
START_TEST(hash_cache_onnx) {
  glob_t tensors;
  memset(&tensors, 0, sizeof tensors);
  if (glob("/usr/share/libonnx-testdata/data/pytorch-converted/*/test_data_set_0/input_0.pb", 0, NULL,
           &tensors) != 0)
    return;
  const pbd_DefPool *pool;
  const pbd_MessageDef *model = ch_type_named("onnx.ModelProto", &pool);
  const pbd_MessageDef *tensor = ch_type_named("onnx.TensorProto", &pool);
  ch_Bytes graph = {0};
  const char *name = "g";
  ch_b_tag(&graph, 2, 2), ch_b_varint(&graph, 1), ch_b_put(&graph, name, 1);
  size_t at[16], size[16], nt = 0;
  for (size_t i = 0; i < tensors.gl_pathc && nt < 16; i++) {
    size_t n;
    uint8_t *b = tu_read_file(tensors.gl_pathv[i], &n);
    if (!b) continue;
    if (n >= 4096 && n < (1 << 20)) {
      at[nt] = ch_b_len(&graph, 5, &(ch_Bytes){b, n, n}); /* relative to the graph's payload */
      size[nt++] = n;
    }
    free(b);
  }
  globfree(&tensors);
  if (nt == 0) {
    free(graph.p);
    return;
  }
  ch_Bytes m = {0};
  ch_b_tag(&m, 1, 0), ch_b_varint(&m, 7);
  size_t graph_at = ch_b_len(&m, 7, &graph);
  free(graph.p);
  Built in = build(&m, model, pool, 12345);
  const pbd_Message *g = pbd_Message_FindField(in.root, 7)->v.msgs[0];
  const pbd_Field *init = pbd_Message_FindField(g, 5);
  ck_assert(init && init->count == nt);
  pbd_HashCache *cache = pbd_HashCache_New(in.buf, 1 << 20);
  ch_Result cr = ch_via_canon(model, in.buf, 0, in.n, &in.o, cache);
  ck_assert_msg(cr.ok && pbd_Hash128_Equal(cr.hash, in.root->hash), "root: %s", cr.s.msg);
  Expect e[17];
  size_t ne = 0;
  for (size_t i = 0; i < nt; i++) {
    e[ne] = (Expect){in.buf + graph_at + at[i], tensor, init->v.msgs[i], size[i], true, ""};
    snprintf(e[ne].what, sizeof e[ne].what, "graph.initializer[%zu]", i);
    ne++;
  }
  e[ne++] = (Expect){in.buf + graph_at, pbd_MessageDef_FindFieldByNumber(model, 7)->message_type, g,
                     in.n - graph_at, true, "graph"};
  check_cache_finds(cache, e, ne, true, "onnx, budget 1 MB");
  pbd_HashCache_Free(cache);
  built_free(&in);
  cache_problems_finish();
}
END_TEST

/* ---- Adds in any order ----------------------------------------------------- */

/* The entries of a cache fed by hand: message k at offset 64 * k, 20 bytes,
 * its hash made of k. */
enum { kAddN = 20000 };

static pbd_Hash128 hash_of(size_t k) { return (pbd_Hash128){k * 0x9e3779b97f4a7c15u + 1, k}; }

/* The order in which message k is added, by pattern: forwards; backwards;
 * blocks of 512 from both ends in turn (a walk narrowing a sequence from
 * both ends, then reading what is between), each block forwards; chains of
 * 50 where each message comes after the 49 that follow it (the deepest
 * first, as a pass adds descendants before their parent); shuffled. */
static void add_order(int pattern, size_t *order) {
  size_t n = 0;
  if (pattern == 2) {
    size_t lo = 0, hi = kAddN;
    for (bool front = true; lo < hi; front = !front) {
      size_t b = hi - lo < 512 ? hi - lo : 512, from = front ? lo : hi - b;
      for (size_t i = 0; i < b; i++) order[n++] = from + i;
      if (front) lo += b;
      else hi -= b;
    }
    return;
  }
  for (size_t k = 0; k < kAddN; k++)
    order[k] = pattern == 1 ? kAddN - 1 - k : pattern == 3 ? k / 50 * 50 + 49 - k % 50 : k;
  for (size_t j = kAddN - 1; pattern == 4 && j > 0; j--) {
    size_t r = (j * 2654435761u + 7) % (j + 1), t = order[j];
    order[j] = order[r], order[r] = t;
  }
}

/* Every message added is found with its hash, after every add and at the
 * end, whatever the order; no other offset is found.  With a budget of a
 * tenth of them, what is found is never wrong. */
START_TEST(hash_cache_any_add_order) {
  static const char *const kPatterns[] = {"forwards", "backwards", "from both ends",
                                          "chains of 50", "shuffled"};
  uint8_t *base = calloc(64 * kAddN + 64, 1);
  size_t *order = malloc(kAddN * sizeof *order);
  for (int budget = 0; budget < 2; budget++) {
    for (int p = 0; p < 5; p++) {
      add_order(p, order);
      size_t bytes = budget ? kAddN / 10 * 24 : 64u * kAddN;
      pbd_HashCache *c = pbd_HashCache_New(base, bytes);
      for (size_t j = 0; j < kAddN; j++) {
        size_t k = order[j];
        pbd_HashCache_Add(c, base + 64 * k, 20, (int)(k % 3), hash_of(k), k % 5 == 0);
        /* a walk looks up as it adds: the one just added, and one before */
        size_t probe[2] = {k, order[j / 2]};
        for (int q = 0; q < 2; q++) {
          pbd_Hash128 h;
          bool empty;
          bool found = pbd_HashCache_Find(c, base + 64 * probe[q], 20, NULL, &h, &empty);
          ck_assert_msg(budget || found, "%s: message %zu not found after %zu adds", kPatterns[p],
                        probe[q], j + 1);
          ck_assert_msg(!found || (pbd_Hash128_Equal(h, hash_of(probe[q])) && empty == (probe[q] % 5 == 0)),
                        "%s: message %zu found with another's hash", kPatterns[p], probe[q]);
        }
      }
      for (size_t k = 0; k < kAddN; k++) {
        pbd_Hash128 h;
        bool empty;
        bool found = pbd_HashCache_Find(c, base + 64 * k, 20, NULL, &h, &empty);
        ck_assert_msg(budget || found, "%s: message %zu not found at the end", kPatterns[p], k);
        ck_assert_msg(!found || pbd_Hash128_Equal(h, hash_of(k)), "%s: message %zu: wrong hash",
                      kPatterns[p], k);
        ck_assert_msg(!pbd_HashCache_Find(c, base + 64 * k + 1, 20, NULL, &h, &empty),
                      "%s: an offset never added is found", kPatterns[p]);
      }
      pbd_HashCache_Free(c);
    }
  }
  free(order), free(base);
}
END_TEST

int main(void) {
  const ch_Test tests[] = {
      {"cache", hash_cache},
      {"cache_order", hash_cache_lookup_order},
      {"cache_onnx", hash_cache_onnx},
      {"cache_add_order", hash_cache_any_add_order},
  };
  return ch_run("canon_cache", tests, sizeof tests / sizeof tests[0]);
}
