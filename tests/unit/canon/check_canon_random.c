/* pbdiff tests — the canonical hash pass (lib/canon/canon.h) against the tree
 * builder (lib/tree/tree.h) on generated inputs: for each of a few types (and
 * schemaless), 20 000 inputs made from the schema (fields of the right and
 * the wrong wire types, packed runs, Any, groups, unknown fields, deep
 * nesting, non-minimal varints, bad UTF-8), now and then mutated, or random
 * bytes; each under every option set, through Canon_Hash, Canon_Validate,
 * HashParts, the Hasher and TryHashUnknown, compared as canon_harness.c
 * says.  Deterministic: the generator is seeded per type.
 *
 * Test (CK_RUN_CASE=random).  PBDIFF_QUICK=1 (and sanitizer builds) run
 * 1 500 inputs per type; PBDIFF_CANON_ITERS=N sets their number.
 * $PBDIFF_VERBOSE prints counts and tolerated pairs. */
#include <stdlib.h>
#include <string.h>

#include "canon_harness.h"
#include "pbdiff/wire/wire.h"

typedef struct {
  uint64_t s;
} Rng;

static uint64_t rnd(Rng *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t below(Rng *r, uint32_t n) { return n ? (uint32_t)(rnd(r) % n) : 0; }
static bool chance(Rng *r, unsigned pct) { return below(r, 100) < pct; }

static uint64_t gen_int(Rng *r) {
  switch (below(r, 12)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return below(r, 130);
    case 3: return UINT64_MAX;
    case 4: return 0xffffffffull;
    case 5: return 0x80000000ull;
    case 6: return (uint64_t)-2;
    case 7: return rnd(r);
    case 8: return 0x100000000ull | below(r, 4);
    default: return below(r, 5);
  }
}

static void gen_varint(Rng *r, ch_Bytes *b, uint64_t v) {
  if (chance(r, 6)) { /* non-minimal: padded with continuation bytes */
    int len = 1;
    for (uint64_t t = v; t >= 0x80; t >>= 7) len++;
    int extra = 1 + (int)below(r, 3);
    if (len + extra > 10) extra = 10 - len;
    if (extra > 0) {
      for (int i = 0; i < len - 1; i++) ch_b_byte(b, (uint8_t)((v >> (7 * i)) | 0x80));
      ch_b_byte(b, (uint8_t)(((v >> (7 * (len - 1))) & 0x7f) | 0x80));
      for (int i = 1; i < extra; i++) ch_b_byte(b, 0x80);
      ch_b_byte(b, 0x00);
      return;
    }
  }
  ch_b_varint(b, v);
}

static uint32_t gen_f32(Rng *r) {
  static const uint32_t k[] = {0, 0x80000000u, 0x7fc00000u, 0xffc00001u, 0x7f800000u,
                               0x3fc00000u, 0x7fc00001u, 0x3f800000u};
  return chance(r, 80) ? k[below(r, 8)] : (uint32_t)rnd(r);
}
static uint64_t gen_f64(Rng *r) {
  static const uint64_t k[] = {0, 0x8000000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000001ull,
                               0x3ff8000000000000ull, 0x7ff0000000000000ull, 0x3ff0000000000000ull};
  return chance(r, 80) ? k[below(r, 7)] : rnd(r);
}

static void gen_string(Rng *r, ch_Bytes *b) {
  size_t n = chance(r, 5) ? 60 + below(r, 10) : below(r, 6);
  for (size_t i = 0; i < n; i++) {
    switch (chance(r, 85) ? 0 : below(r, 6)) {
      case 0: ch_b_byte(b, (uint8_t)('a' + below(r, 3))); break;
      case 1: ch_b_put(b, "\xc3\xa9", 2); break;
      case 2: ch_b_put(b, "\xf0\x9f\x98\x80", 4); break;
      case 3: ch_b_byte(b, 0xff); break;
      case 4: ch_b_put(b, "\xed\xa0\x80", 3); break;
      default: ch_b_byte(b, 0x80); break;
    }
  }
}

typedef struct {
  Rng *r;
  const pbd_DefPool *pool;
  int budget; /* fields left */
} GenCtx;

static int natural_wire_type(pbd_FieldType t) {
  switch (t) {
    case kPbd_Type_Double: case kPbd_Type_Fixed64: case kPbd_Type_SFixed64: return 1;
    case kPbd_Type_Float: case kPbd_Type_Fixed32: case kPbd_Type_SFixed32: return 5;
    case kPbd_Type_String: case kPbd_Type_Bytes: case kPbd_Type_Message: return 2;
    case kPbd_Type_Group: return 3;
    default: return 0;
  }
}

static void gen_fields(GenCtx *g, ch_Bytes *b, const pbd_MessageDef *t, int depth);

static void gen_scalar(GenCtx *g, ch_Bytes *b, int wt, const pbd_FieldDef *fd) {
  Rng *r = g->r;
  if (wt == 0) {
    uint64_t v = fd && fd->type == kPbd_Type_Enum && chance(r, 70) ? below(r, 11) : gen_int(r);
    gen_varint(r, b, v);
  } else if (wt == 1) {
    ch_b_u64(b, gen_f64(r));
  } else {
    ch_b_u32(b, gen_f32(r));
  }
}

static void gen_any(GenCtx *g, ch_Bytes *b, int depth) {
  static const char *const kUrls[] = {
      "type.googleapis.com/sem3.Inner", "type.googleapis.com/sem3.M", "type.googleapis.com/sem3.Rec",
      "type.googleapis.com/google.protobuf.Any", "sem3.Inner", "/sem3.Inner", "x/y/sem3.Inner",
      "type.googleapis.com/nope.T", "", "type.googleapis.com/"};
  Rng *r = g->r;
  const char *url = kUrls[below(r, sizeof kUrls / sizeof kUrls[0])];
  const char *slash = strrchr(url, '/');
  const char *tn = slash ? slash + 1 : url;
  const pbd_MessageDef *vt = g->pool && *tn ? pbd_DefPool_FindMessageByName(g->pool, tn) : NULL;
  int n = 1 + (int)below(r, 3);
  for (int i = 0; i < n; i++) {
    int what = (int)below(r, 10);
    if (what < 4 || (i == 0 && what < 7)) {
      ch_Bytes u = {0};
      ch_b_put(&u, url, strlen(url));
      ch_b_len(b, 1, &u);
      free(u.p);
    } else if (what < 9) {
      ch_Bytes v = {0};
      if (vt && chance(r, 85)) gen_fields(g, &v, vt, depth + 1);
      else gen_string(r, &v);
      ch_b_len(b, 2, &v);
      free(v.p);
    } else {
      ch_b_tag(b, 3 + below(r, 3), 0), ch_b_varint(b, 1);
    }
  }
}

static void gen_field(GenCtx *g, ch_Bytes *b, const pbd_MessageDef *t, int depth) {
  Rng *r = g->r;
  uint32_t num;
  const pbd_FieldDef *fd = NULL;
  if (t && t->field_count && chance(r, 75)) {
    fd = t->fields[below(r, t->field_count)];
    num = fd->number;
  } else {
    num = chance(r, 94) ? 1 + below(r, 20)
                        : chance(r, 50) ? 1 + below(r, 300) : (uint32_t)kPbd_MaxFieldNumber - below(r, 2);
    fd = t ? pbd_MessageDef_FindFieldByNumber(t, num) : NULL;
  }
  int wt;
  bool packed = false;
  if (fd && chance(r, 85)) {
    wt = natural_wire_type(fd->type);
    if (fd->is_packable && chance(r, 35)) wt = 2, packed = true;
  } else {
    static const int kWt[] = {0, 0, 1, 2, 2, 2, 3, 5};
    wt = chance(r, 1) ? (int)(4 + below(r, 4)) : kWt[below(r, 8)];
  }
  if (depth >= 7 && (wt == 2 || wt == 3) && !packed && chance(r, 70)) wt = 0;
  ch_b_tag(b, num, wt);
  switch (wt) {
    case 0: case 1: case 5:
      gen_scalar(g, b, wt, fd && natural_wire_type(fd->type) == wt ? fd : NULL);
      break;
    case 2: {
      ch_Bytes sub = {0};
      if (packed) {
        int pw = natural_wire_type(fd->type);
        int count = chance(r, 3) ? 66 : (int)below(r, 6);
        for (int i = 0; i < count; i++) gen_scalar(g, &sub, pw, fd);
      } else if (fd && fd->type == kPbd_Type_Message && fd->message_type &&
                 strcmp(fd->message_type->full_name, "google.protobuf.Any") == 0 && chance(r, 80)) {
        gen_any(g, &sub, depth + 1);
      } else if (fd && (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group) && chance(r, 90)) {
        gen_fields(g, &sub, fd->message_type, depth + 1);
      } else if (fd && (fd->type == kPbd_Type_String || fd->type == kPbd_Type_Bytes)) {
        gen_string(r, &sub);
      } else {
        switch (below(r, 10)) {
          case 0: case 1: case 2: case 3: gen_fields(g, &sub, NULL, depth + 1); break;
          case 4: case 5: case 6: gen_string(r, &sub); break;
          case 7: case 8: {
            size_t k = below(r, 8);
            for (size_t i = 0; i < k; i++) ch_b_byte(&sub, (uint8_t)rnd(r));
            break;
          }
          default: break; /* empty */
        }
      }
      ch_b_varint(b, sub.n);
      ch_b_put(b, sub.p, sub.n);
      free(sub.p);
      break;
    }
    case 3: {
      const pbd_MessageDef *gt = NULL;
      if (fd && (fd->type == kPbd_Type_Group || (fd->type == kPbd_Type_Message && chance(r, 50))))
        gt = fd->message_type;
      gen_fields(g, b, gt, depth + 1);
      if (chance(r, 97)) ch_b_tag(b, num, 4);
      else if (chance(r, 50)) ch_b_tag(b, num + 1, 4);
      break;
    }
    default: /* a stray end group, or wire types 6 and 7 */
      break;
  }
}

static void gen_fields(GenCtx *g, ch_Bytes *b, const pbd_MessageDef *t, int depth) {
  int n = depth == 0 ? 1 + (int)below(g->r, 8) : (int)below(g->r, 5);
  if (chance(g->r, 4)) { /* now and then many fields in one message */
    n = 12 + (int)below(g->r, 40);
    g->budget += n;
  }
  for (int i = 0; i < n && g->budget > 0; i++) {
    g->budget--;
    gen_field(g, b, t, depth);
  }
}

static void mutate(Rng *r, ch_Bytes *b) {
  int k = 1 + (int)below(r, 3);
  for (int i = 0; i < k; i++) {
    if (b->n == 0) {
      ch_b_byte(b, (uint8_t)rnd(r));
      continue;
    }
    size_t at = below(r, (uint32_t)b->n);
    switch (below(r, 5)) {
      case 0: b->p[at] ^= (uint8_t)(1u << below(r, 8)); break;
      case 1: b->p[at] = (uint8_t)rnd(r); break;
      case 2:
        memmove(b->p + at, b->p + at + 1, b->n - at - 1);
        b->n--;
        break;
      case 3:
        ch_b_byte(b, 0);
        memmove(b->p + at + 1, b->p + at, b->n - at - 1);
        b->p[at] = (uint8_t)rnd(r);
        break;
      default: b->n = at; break;
    }
  }
}

static void gen_random_bytes(Rng *r, ch_Bytes *b) {
  static const uint8_t kAlphabet[] = {0x00, 0x01, 0x02, 0x08, 0x0a, 0x0b, 0x0c, 0x10, 0x12,
                                      0x1a, 0x22, 0x2a, 0x3b, 0x3c, 0x7a, 0x80, 0xff, 0x05};
  size_t n = below(r, 25);
  for (size_t i = 0; i < n; i++)
    ch_b_byte(b, chance(r, 70) ? kAlphabet[below(r, sizeof kAlphabet)] : (uint8_t)rnd(r));
}

static const char *const kRandomTypes[] = {NULL,           "sem3.M",       "sem3.Inner",
                                           "sem2.M",       "sem2.WithMap", "onnx.ModelProto",
                                           "onnx.TypeProto"};

START_TEST(random_differential) {
  int iters = ch_quick() ? 1500 : 20000;
  const char *env = getenv("PBDIFF_CANON_ITERS");
  if (env && atoi(env) > 0) iters = atoi(env);
  ch_Report r;
  ch_report_init(&r, "random_differential");
  for (size_t ti = 0; ti < sizeof kRandomTypes / sizeof kRandomTypes[0]; ti++) {
    const pbd_DefPool *pool;
    const pbd_MessageDef *t = ch_type_named(kRandomTypes[ti], &pool);
    Rng rng = {0x5eed0000ull + ti};
    for (int it = 0; it < iters; it++) {
      ch_Bytes b = {0};
      if (chance(&rng, 20)) {
        gen_random_bytes(&rng, &b);
      } else {
        GenCtx g = {&rng, pool, 6 + (int)below(&rng, 20)};
        gen_fields(&g, &b, t, 0);
        if (chance(&rng, 25)) mutate(&rng, &b);
      }
      for (int oi = 0; oi < kCh_NumOptSets; oi++) {
        ch_Case c = ch_make_case("Canon_Hash", t, pool, &ch_opt_sets[oi], ch_seeds[(it + oi) & 1]);
        ch_check_one(&r, &c, b.p, b.n);
        if (oi == 0 && it % 2 == 0) ch_check_parts(&r, &c, b.p, b.n);
        if (oi == 5 && it % 2 == 1) ch_check_parts_depth(&r, &c, b.p, b.n);
        if ((oi == 0 || oi == 5) && t == NULL && it % 4 == 1)
          ch_check_try_unknown(&r, &c, b.p, b.n, (int)below(&rng, 3));
      }
      free(b.p);
    }
  }
  ch_report_finish(&r);
}
END_TEST

int main(void) {
  const ch_Test tests[] = {{"random", random_differential}};
  return ch_run("canon_random", tests, 1);
}
