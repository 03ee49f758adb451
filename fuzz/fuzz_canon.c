/* libFuzzer harness: the canonical hash pass (lib/canon/canon.h) against the tree
 * builder (lib/tree/tree.h) on hostile bytes.
 *
 * The first byte picks a message type (bits 0-2: schemaless, sem3.M,
 * sem2.M, onnx.ModelProto, sem3.Inner, sem2.WithMap, onnx.TypeProto,
 * sem3.Rec; with bit 4 set, 0 is sem2.WithAlias, a closed enum with an
 * alias, and the rest are skipped) and the hash seed (bit 3); the second byte the tree options; the third where the input
 * is split in two parts.  The rest is the message.  The schemas come from
 * the descriptor set named by $PBDIFF_FUZZ_DESC (made by `make fuzz`).
 *
 * Checked, each against pbd_Tree_Parse on the same bytes:
 *   - pbd_Canon_Hash (with and without a pbd_HashCache) and
 *     pbd_Canon_HashParts (one part; two parts split at a top-level field
 *     boundary; at depth 1 against the tree with a limit one lower), also
 *     through a pbd_Hasher: both succeed with equal hashes, or both fail
 *     with the same status (code, message, offset, path);
 *   - pbd_Canon_Validate fails exactly when pbd_Canon_Hash fails, as the tree
 *     builder does;
 *   - pbd_Canon_TryHashUnknown of the bytes as a LEN field of a schemaless
 *     message: a message with the tree's hash exactly when the tree reads the
 *     field as one;
 *   - every message the cache remembers for an element of a repeated field
 *     of the root has the tree's hash.
 * One leniency, as lib/canon/canon.h documents: with several errors in the input
 * the hash pass, which reads a singular message when its parent ends, may
 * report one that lies after the part of that message holding the tree
 * builder's error (tests/support/canon_harness.c explains it).  Any other difference
 * is printed and aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/arena.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/schema/schema.h"
#include "fuzz_pool.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/wire/wire.h"

static pbd_DefPool *pool;
static const pbd_MessageDef *types[16];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  pool = fuzz_load_pool();
  if (!pool) return 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  static const char *const names[16] = {NULL,           "sem3.M",          "sem2.M",
                                        "onnx.ModelProto", "sem3.Inner",   "sem2.WithMap",
                                        "onnx.TypeProto", "sem3.Rec",     "sem2.WithAlias"};
  for (int i = 1; i < 16; i++)
    if (names[i]) types[i] = pbd_DefPool_FindMessageByName(pool, names[i]);
  return 0;
}

/* ---- Results and their comparison ------------------------------------------ */

typedef struct {
  bool ok;
  pbd_Hash128 hash;
  bool has_empty, empty;
  pbd_Status s;
} Result;

static Result result_new(void) {
  Result r;
  memset(&r, 0, sizeof r);
  pbd_Status_Clear(&r.s);
  return r;
}

static bool status_equal(const pbd_Status *a, const pbd_Status *b) {
  return a->code == b->code && a->has_offset == b->has_offset &&
         (!a->has_offset || a->offset == b->offset) && strcmp(a->msg, b->msg) == 0 &&
         strcmp(a->path, b->path) == 0;
}

static bool is_digits(const char *p, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

/* The tree builder's error path walked over the input: whether it goes
 * through a singular message or group field, and the end of the innermost
 * part of one holding the error's offset (0 when the walk loses its way). */
static bool error_in_singular(const pbd_MessageDef *t, const uint8_t *buf, size_t begin,
                              size_t end, const pbd_Status *err, size_t *part_end) {
  *part_end = 0;
  if (strncmp(err->path, "...", 3) == 0) return true;
  bool singular_seen = false;
  const pbd_MessageDef *cur = t;
  const uint8_t *p = buf + begin, *e = buf + end;
  bool wire = err->has_offset;
  const char *s = err->path;
  while (*s) {
    if (*s == '.') {
      s++;
      continue;
    }
    const pbd_FieldDef *fd = NULL;
    uint32_t number = 0;
    char name[512];
    if (*s == '[') {
      const char *close = strchr(s, ']');
      size_t n = close ? (size_t)(close - s - 1) : 0;
      if (!close || n >= sizeof name) return true;
      if (is_digits(s + 1, n)) {
        s = close + 1;
        continue;
      }
      memcpy(name, s + 1, n);
      name[n] = '\0';
      fd = pool ? pbd_DefPool_FindFieldByFullName(pool, name) : NULL;
      s = close + 1;
    } else {
      size_t n = strcspn(s, ".[");
      if (n >= sizeof name) return true;
      memcpy(name, s, n);
      name[n] = '\0';
      s += n;
      if (is_digits(name, n)) number = (uint32_t)strtoul(name, NULL, 10);
      else if (cur) fd = pbd_MessageDef_FindFieldByName(cur, name);
    }
    if (fd) number = fd->number;
    bool singular = fd && (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group) &&
                    !fd->is_repeated;
    singular_seen |= singular;
    bool found = false;
    if (wire && number) {
      pbd_Status ignored;
      pbd_Status_Clear(&ignored);
      for (const uint8_t *q = p; q < e;) {
        pbd_WireField f;
        const uint8_t *next = pbd_Wire_ReadField(q, e, buf, 1 << 20, &f, &ignored);
        if (!next) break;
        if (f.number == number && f.data && (f.wire_type == kPbd_WireType_Delimited ||
                                              f.wire_type == kPbd_WireType_StartGroup)) {
          size_t from = (size_t)(f.data - buf), to = from + f.size;
          if (err->offset >= from && err->offset <= to) {
            found = true;
            p = f.data;
            e = f.data + f.size;
            if (singular) *part_end = to;
            break;
          }
        }
        q = next;
      }
    }
    if (!found) wire = false;
    cur = fd ? fd->message_type : NULL;
  }
  return singular_seen;
}

/* The tree builder's result tr and the hash pass's cr on buf[begin, end). */
static bool agree(const pbd_MessageDef *t, const uint8_t *buf, size_t begin, size_t end,
                  const Result *tr, const Result *cr) {
  if (tr->ok != cr->ok) return false;
  if (tr->ok)
    return pbd_Hash128_Equal(tr->hash, cr->hash) && cr->s.code == kPbd_Status_Ok &&
           (!tr->has_empty || !cr->has_empty || tr->empty == cr->empty);
  if (cr->s.code == kPbd_Status_Ok || !cr->s.msg[0]) return false;
  if (status_equal(&tr->s, &cr->s)) return true;
  if (tr->s.code == cr->s.code && tr->s.has_offset && cr->s.has_offset &&
      tr->s.offset == cr->s.offset && strcmp(tr->s.msg, cr->s.msg) == 0)
    return false; /* the same error, another path */
  size_t part_end;
  if (!error_in_singular(t, buf, begin, end, &tr->s, &part_end)) return false;
  if (!tr->s.has_offset || !cr->s.has_offset) return true;
  return cr->s.offset >= (part_end > tr->s.offset ? part_end : tr->s.offset);
}

static void print_result(const char *who, const Result *r) {
  if (r->ok)
    fprintf(stderr, "  %-8s ok, hash %016llx%016llx%s\n", who, (unsigned long long)r->hash.hi,
            (unsigned long long)r->hash.lo, r->has_empty && r->empty ? " (empty)" : "");
  else
    fprintf(stderr, "  %-8s fails: %s \"%s\" at %s%zu, path \"%s\"\n", who,
            pbd_StatusCode_String(r->s.code), r->s.msg, r->s.has_offset ? "" : "(no offset) ",
            r->s.offset, r->s.path);
}

static void fail(const char *what, const pbd_MessageDef *t, const pbd_ReadOptions *o,
                 const uint8_t *b, size_t n, const Result *tr, const Result *cr) {
  fprintf(stderr,
          "fuzz_canon: %s disagrees with the tree\n  type %s, max_depth %d, equivalent %d, "
          "ignore_unknown %d, float_bits %d, strict %d, seed %llu\n  input (%zu bytes):",
          what, t ? t->full_name : "(schemaless)", o->max_depth, o->equivalent, o->ignore_unknown,
          o->float_bits, o->strict, (unsigned long long)o->hash_seed, n);
  for (size_t i = 0; i < n && i < 512; i++) fprintf(stderr, " %02x", b[i]);
  fprintf(stderr, "\n");
  print_result("tree", tr);
  print_result(what, cr);
  abort();
}

/* ---- The option sets of tests/unit/canon/check_canon.c----------------------------- */

typedef struct {
  int max_depth;
  bool equivalent, ignore_unknown, float_bits, strict;
} OptSet;

static const OptSet kOptSets[] = {
    {0, false, false, false, false}, {0, true, false, false, false},
    {0, false, true, false, false},  {0, false, false, true, false},
    {0, false, false, false, true},  {3, false, false, false, false},
    {1, false, false, false, false}, {2, true, true, true, false},
    {3, true, false, false, true},
};

static Result tree_result(const pbd_MessageDef *t, const uint8_t *b, size_t begin, size_t end,
                          const pbd_ReadOptions *o, pbd_Arena *a, const pbd_Message **root) {
  Result r = result_new();
  const pbd_Message *m = pbd_Tree_Parse(t, b, begin, end, o, a, &r.s);
  if (m) {
    r.ok = true;
    r.hash = m->hash;
    r.has_empty = true;
    r.empty = pbd_Message_FieldCount(m) == 0;
  }
  if (root) *root = m;
  return r;
}

/* The end of the top-level field that ends nearest after `want`; 0 when the
 * top level does not read cleanly. */
static size_t boundary_near(const uint8_t *b, size_t n, size_t want) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t at = 0;
  for (const uint8_t *p = b; p < b + n;) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, b + n, b, 1 << 20, &f, &s);
    if (!q || f.wire_type == kPbd_WireType_EndGroup) return 0;
    at = (size_t)(q - b);
    if (at >= want) return at;
    p = q;
  }
  return at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  uint8_t sel = data[0], opt = data[1], cut = data[2];
  data += 3;
  size -= 3;
  unsigned k = (sel & 7) | (sel & 16) >> 1;
  const pbd_MessageDef *t = types[k];
  if (k && !t) return 0; /* no schema loaded, or no such type */
  const OptSet *os = &kOptSets[opt % (sizeof kOptSets / sizeof kOptSets[0])];
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.max_depth = os->max_depth;
  o.equivalent = os->equivalent;
  o.ignore_unknown = os->ignore_unknown;
  o.float_bits = os->float_bits;
  o.strict = os->strict;
  o.hash_seed = sel & 8 ? 12345 : 0;
  o.pool = pool;
  /* an exact-size copy, so that ASan sees any over-read */
  uint8_t *b = malloc(size ? size : 1);
  if (size) memcpy(b, data, size);
  pbd_Arena *a = pbd_Arena_New();
  const pbd_Message *root = NULL;
  Result tr = tree_result(t, b, 0, size, &o, a, &root);

  /* Canon_Hash, without and with a cache */
  Result cr = result_new();
  cr.ok = pbd_Canon_Hash(t, b, 0, size, &o, NULL, &cr.hash, &cr.s);
  if (!agree(t, b, 0, size, &tr, &cr)) fail("Canon_Hash", t, &o, b, size, &tr, &cr);
  pbd_HashCache *cache = pbd_HashCache_New(b, 1 << 20);
  Result kr = result_new();
  kr.ok = pbd_Canon_Hash(t, b, 0, size, &o, cache, &kr.hash, &kr.s);
  if (!agree(t, b, 0, size, &tr, &kr)) fail("Canon_Hash(cache)", t, &o, b, size, &tr, &kr);

  /* Validate: fails exactly when the hash pass fails */
  Result vr = result_new();
  vr.ok = pbd_Canon_Validate(t, b, 0, size, &o, &vr.s);
  if (vr.ok != cr.ok || (!tr.ok && !agree(t, b, 0, size, &tr, &vr)))
    fail("Canon_Validate", t, &o, b, size, &tr, &vr);
  /* ... and on two threads, the same answer and error */
  Result wr = result_new();
  wr.ok = pbd_Canon_ValidateOnTwoThreads(t, b, 0, size, &o, &wr.s);
  if (wr.ok != vr.ok || !status_equal(&wr.s, &vr.s))
    fail("Canon_ValidateOnTwoThreads", t, &o, b, size, &vr, &wr);

  /* the cache's messages: the elements of the root's repeated message
   * fields, where it has them */
  if (tr.ok && t && cache) {
    pbd_Status s;
    pbd_Status_Clear(&s);
    uint32_t seen[512];
    memset(seen, 0, sizeof seen);
    for (const uint8_t *p = b; p < b + size;) {
      pbd_WireField f;
      const uint8_t *q = pbd_Wire_ReadField(p, b + size, b, 1 << 20, &f, &s);
      if (!q) break;
      const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(t, f.number);
      if (fd && fd->type == kPbd_Type_Message && fd->is_repeated && !fd->is_map &&
          f.wire_type == kPbd_WireType_Delimited && fd->index < 512) {
        uint32_t k = seen[fd->index]++;
        const pbd_Field *tf = pbd_Message_FindField(root, f.number);
        pbd_Hash128 h;
        bool empty;
        if (tf && tf->def == fd && k < tf->count &&
            pbd_HashCache_Find(cache, f.data, f.size, fd->message_type, &h, &empty) &&
            (!pbd_Hash128_Equal(h, tf->v.msgs[k]->hash) ||
             empty != (pbd_Message_FieldCount(tf->v.msgs[k]) == 0))) {
          Result er = result_new(), xr = result_new();
          er.ok = xr.ok = true;
          er.hash = tf->v.msgs[k]->hash;
          xr.hash = h;
          fprintf(stderr, "element %u of field %s\n", k, fd->name);
          fail("HashCache_Find", t, &o, b, size, &er, &xr);
        }
      }
      p = q;
    }
  }

  /* HashParts and a hasher: whole, split at a field boundary, at depth 1 */
  pbd_Hasher *h = pbd_Hasher_New(b, &o, cut & 1 ? cache : NULL);
  if (h) {
    pbd_Part whole = {b, size};
    Result pr = result_new();
    pr.ok = pbd_Canon_HashParts(t, b, &whole, 1, 0, &o, NULL, NULL, &pr.hash, &pr.empty, &pr.s);
    pr.has_empty = pr.ok;
    if (!agree(t, b, 0, size, &tr, &pr)) fail("Canon_HashParts", t, &o, b, size, &tr, &pr);
    size_t at = tr.ok ? boundary_near(b, size, size * cut / 255) : 0;
    if (at) {
      pbd_Part two[2] = {{b, at}, {b + at, size - at}};
      pr = result_new();
      pr.ok = pbd_Canon_HashParts(t, b, two, 2, 0, &o, NULL, NULL, &pr.hash, &pr.empty, &pr.s);
      pr.has_empty = pr.ok;
      if (!agree(t, b, 0, size, &tr, &pr)) fail("Canon_HashParts(split)", t, &o, b, size, &tr, &pr);
      pr = result_new();
      pr.ok = pbd_Hasher_HashParts(h, t, two, 2, 0, &pr.hash, &pr.empty, &pr.s);
      pr.has_empty = pr.ok;
      if (!agree(t, b, 0, size, &tr, &pr)) fail("Hasher_HashParts(split)", t, &o, b, size, &tr, &pr);
    }
    pr = result_new();
    pr.ok = pbd_Hasher_HashParts(h, t, &whole, 1, 0, &pr.hash, &pr.empty, &pr.s);
    pr.has_empty = pr.ok;
    if (!agree(t, b, 0, size, &tr, &pr)) fail("Hasher_HashParts", t, &o, b, size, &tr, &pr);
    pbd_Hasher_Free(h);
  }
  int max = o.max_depth > 0 ? o.max_depth : kPbd_DefaultMaxDepth;
  if (max > 1) { /* depth 1 with limit max == depth 0 with limit max - 1 */
    pbd_ReadOptions shallow = o;
    shallow.max_depth = max - 1;
    Result sr = tree_result(t, b, 0, size, &shallow, a, NULL);
    char want[64];
    snprintf(want, sizeof want, "nesting deeper than %d", max - 1);
    if (!sr.ok && strcmp(sr.s.msg, want) == 0)
      snprintf(sr.s.msg, sizeof sr.s.msg, "nesting deeper than %d", max);
    pbd_Part whole = {b, size};
    Result pr = result_new();
    pr.ok = pbd_Canon_HashParts(t, b, &whole, 1, 1, &o, NULL, a, &pr.hash, &pr.empty, &pr.s);
    pr.has_empty = pr.ok;
    if (!agree(t, b, 0, size, &sr, &pr)) fail("Canon_HashParts(depth 1)", t, &o, b, size, &sr, &pr);
  }

  /* TryHashUnknown: the bytes as LEN field 2 of a schemaless message */
  {
    size_t wn = 0;
    uint8_t *w = malloc(size + 16);
    w[wn++] = 0x12;
    for (uint64_t v = size;; v >>= 7) {
      if (v < 0x80) {
        w[wn++] = (uint8_t)v;
        break;
      }
      w[wn++] = (uint8_t)(v | 0x80);
    }
    size_t at = wn;
    if (size) memcpy(w + wn, b, size);
    wn += size;
    const pbd_Message *wm = NULL;
    Result wr = tree_result(NULL, w, 0, wn, &o, a, &wm);
    if (wr.ok) {
      const pbd_Field *f = &pbd_Message_Fields(wm)[0];
      const pbd_UnknownValue *v = &f->v.unknowns[0];
      Result ur = result_new(), want = result_new();
      bool failed = true;
      ur.ok = pbd_Canon_TryHashUnknown(w, w + at, size, 0, &o, NULL, NULL, &ur.hash, &failed,
                                       &ur.s);
      want.ok = v->kind == kPbd_Value_LenMessage;
      if (want.ok) want.hash = v->m->hash;
      if (ur.ok != want.ok || failed || (ur.ok && !pbd_Hash128_Equal(ur.hash, want.hash)) ||
          ur.s.code != kPbd_Status_Ok)
        fail("Canon_TryHashUnknown", NULL, &o, b, size, &want, &ur);
    }
    free(w);
  }

  pbd_HashCache_Free(cache);
  pbd_Arena_Free(a);
  free(b);
  return 0;
}
