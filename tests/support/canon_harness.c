/* pbdiff tests — the shared machinery of the canonical hash suites
 * (canon_harness.h): check_canon.c, check_canon_cache.c, check_canon_random.c.
 *
 * pbd_Canon_Hash must compute, straight from the wire, the very root hash
 * pbd_Tree_Parse stores (docs/hash.md), under every option and seed, and
 * fail where the tree builder fails, with the same error.  Every check
 * runs both on the same bytes and compares:
 *
 *   - both succeed and the hashes are equal, or
 *   - both fail with the same status: code, message, offset and path.
 *
 * One leniency, from lib/canon/canon.h: when an input holds several errors, the
 * canonical pass may report another one than the tree builder's first,
 * because it reads a singular message (which later parts may merge into)
 * when its parent ends.  So when the tree builder's error lies in a singular
 * message (its path goes through a non-repeated message or group field) and
 * the canonical pass reports an error that lies after the part of that
 * message holding the tree builder's error (found by walking the wire along
 * the error's path; an error at the end of a part has the offset of the next
 * field), the pair is counted as "tolerated" (the first few are listed on
 * stderr when $PBDIFF_VERBOSE is set), not as a disagreement.  Both must
 * still fail.
 *
 * Disagreements are grouped by kind (function, type, how the results
 * differ); a few examples of each are shrunk to a minimal input that still
 * disagrees the same way and listed (options, seed, hex, both results) on
 * stderr and in the failure message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon_harness.h"
#include "testutil.h"
#include "pbdiff/wire/wire.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define CANON_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define CANON_SANITIZED 1
#endif
#endif
#ifndef CANON_SANITIZED
#define CANON_SANITIZED 0
#endif

/* Whether the environment variable is set to something other than "" or "0". */
static bool env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

bool ch_quick(void) { return CANON_SANITIZED || env_on("PBDIFF_QUICK"); }

bool ch_verbose(void) { return env_on("PBDIFF_VERBOSE"); }

/* ---- Schemas ---------------------------------------------------------------- */

const pbd_MessageDef *ch_type_named(const char *name, const pbd_DefPool **pool) {
  if (!name) {
    *pool = NULL; /* schemaless: the pool is not used */
    return NULL;
  }
  *pool = tu_type_pool(name); /* testutil's schemas, by the type's package */
  return tu_type(name);
}

static const char *type_name(const pbd_MessageDef *t) { return t ? t->full_name : "(schemaless)"; }

/* ---- Options ------------------------------------------------------------------ */

const ch_OptSet ch_opt_sets[kCh_NumOptSets] = {
    {"default", 0, false, false, false, false},
    {"equivalent", 0, true, false, false, false},
    {"ignore_unknown", 0, false, true, false, false},
    {"float_bits", 0, false, false, true, false},
    {"strict", 0, false, false, false, true},
    {"max_depth=3", 3, false, false, false, false},
    {"max_depth=1", 1, false, false, false, false},
    {"equivalent+ignore_unknown+float_bits+max_depth=2", 2, true, true, true, false},
    {"strict+equivalent+max_depth=3", 3, true, false, false, true},
};
const uint64_t ch_seeds[kCh_NumSeeds] = {0, 12345};

pbd_ReadOptions ch_tree_opts(const ch_OptSet *os, uint64_t seed, const pbd_DefPool *pool) {
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.max_depth = os->max_depth;
  o.equivalent = os->equivalent;
  o.ignore_unknown = os->ignore_unknown;
  o.float_bits = os->float_bits;
  o.strict = os->strict;
  o.hash_seed = seed;
  o.pool = pool;
  return o;
}

/* ---- Running both ------------------------------------------------------------- */

ch_Result ch_result(void) {
  ch_Result r;
  memset(&r, 0, sizeof r);
  pbd_Status_Clear(&r.s);
  return r;
}

uint8_t *ch_copy(const uint8_t *b, size_t n) {
  uint8_t *copy = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(copy);
  if (n) memcpy(copy, b, n);
  return copy;
}

ch_Result ch_via_tree(const pbd_MessageDef *t, const uint8_t *buf, size_t begin, size_t end,
                      const pbd_ReadOptions *o) {
  ch_Result r = ch_result();
  pbd_Arena *a = pbd_Arena_New();
  ck_assert_ptr_nonnull(a);
  pbd_Message *m = pbd_Tree_Parse(t, buf, begin, end, o, a, &r.s);
  if (m) {
    r.ok = true;
    r.hash = m->hash;
    r.empty = pbd_Message_FieldCount(m) == 0;
    r.has_empty = true;
  }
  pbd_Arena_Free(a);
  return r;
}

ch_Result ch_via_canon(const pbd_MessageDef *t, const uint8_t *buf, size_t begin, size_t end,
                       const pbd_ReadOptions *o, pbd_HashCache *cache) {
  ch_Result r = ch_result();
  r.ok = pbd_Canon_Hash(t, buf, begin, end, o, cache, &r.hash, &r.s);
  return r;
}

/* ---- Comparing ---------------------------------------------------------------- */

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

/* The tree builder's error path, walked from `t` over the input buf[begin,
 * end) that failed: whether it goes through a singular message or group
 * field (the canonical pass reads those when their parent ends, so it may
 * meet another error of the input first), and the end offset of the
 * innermost part of such a message that holds the error's offset (0 when
 * the walk over the wire loses its way).  A path cut short ("...") counts
 * as singular. */
typedef struct {
  bool singular;
  size_t part_end;
} PathInfo;

static PathInfo walk_error_path(const pbd_DefPool *pool, const pbd_MessageDef *t,
                                const uint8_t *buf, size_t begin, size_t end,
                                const pbd_Status *err) {
  PathInfo info = {false, 0};
  if (strncmp(err->path, "...", 3) == 0) {
    info.singular = true;
    return info;
  }
  const pbd_MessageDef *cur = t;
  const uint8_t *p = buf + begin, *e = buf + end; /* the part the walk is in */
  bool wire = buf != NULL && err->has_offset;
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
      if (!close || n >= sizeof name) {
        info.singular = true;
        return info;
      }
      if (is_digits(s + 1, n)) { /* an index: the part holding the offset is found below */
        s = close + 1;
        continue;
      }
      memcpy(name, s + 1, n);
      name[n] = '\0';
      fd = pool ? pbd_DefPool_FindFieldByFullName(pool, name) : NULL;
      s = close + 1;
    } else {
      size_t n = strcspn(s, ".[");
      if (n >= sizeof name) {
        info.singular = true;
        return info;
      }
      memcpy(name, s, n);
      name[n] = '\0';
      s += n;
      if (is_digits(name, n)) number = (uint32_t)strtoul(name, NULL, 10);
      else if (cur) fd = pbd_MessageDef_FindFieldByName(cur, name);
    }
    if (fd) number = fd->number;
    bool singular = fd && (fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group) &&
                    !fd->is_repeated;
    info.singular |= singular;
    /* the occurrence of the field whose payload holds the error */
    bool found = false;
    if (wire && number) {
      pbd_Status ignored;
      pbd_Status_Clear(&ignored);
      const uint8_t *q = p;
      while (q < e) {
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
            if (singular) info.part_end = to;
            break;
          }
        }
        q = next;
      }
    }
    if (!found) wire = false; /* (an error at a field's tag: nothing to descend into) */
    cur = fd ? fd->message_type : NULL;
  }
  return info;
}

/* The verdict on the tree builder's result `tr` and the canonical pass's
 * `cr` for the same input buf[begin, end). */
ch_Verdict ch_compare(const pbd_DefPool *pool, const pbd_MessageDef *t, const uint8_t *buf,
                      size_t begin, size_t end, const ch_Result *tr, const ch_Result *cr) {
  if (cr->scratch_kept) return kCh_Disagree;
  if (tr->ok != cr->ok) return kCh_Disagree;
  if (tr->ok) {
    if (!pbd_Hash128_Equal(tr->hash, cr->hash)) return kCh_Disagree;
    if (cr->s.code != kPbd_Status_Ok) return kCh_Disagree; /* success leaves no error behind */
    if (tr->has_empty && cr->has_empty && tr->empty != cr->empty) return kCh_Disagree;
    return kCh_Agree;
  }
  if (cr->s.code == kPbd_Status_Ok || !cr->s.msg[0]) return kCh_Disagree; /* a failure says why */
  if (status_equal(&tr->s, &cr->s)) return kCh_Agree;
  /* the same error (code, message, offset) must have the same path */
  if (tr->s.code == cr->s.code && tr->s.has_offset && cr->s.has_offset &&
      tr->s.offset == cr->s.offset && strcmp(tr->s.msg, cr->s.msg) == 0)
    return kCh_Disagree;
  /* Several errors: the canonical pass, reading a singular message when its
   * parent ends, may meet a later one first: one after the part of that
   * message which holds the tree builder's error. */
  PathInfo pi = walk_error_path(pool, t, buf, begin, end, &tr->s);
  if (!pi.singular) return kCh_Disagree;
  if (!tr->s.has_offset || !cr->s.has_offset) return kCh_Tolerated;
  size_t bound = pi.part_end > tr->s.offset ? pi.part_end : tr->s.offset;
  return cr->s.offset >= bound ? kCh_Tolerated : kCh_Disagree;
}

/* ---- Reporting ------------------------------------------------------------------ */

static void hex_append(pbd_Buf *b, const uint8_t *p, size_t n, size_t max) {
  for (size_t i = 0; i < n && i < max; i++) pbd_Buf_Printf(b, "%s%02x", i ? " " : "", p[i]);
  if (n > max) pbd_Buf_Printf(b, " ... (%zu bytes)", n);
  if (n == 0) pbd_Buf_AppendStr(b, "(empty)");
}

static void describe(pbd_Buf *b, const char *who, const ch_Result *r) {
  pbd_Buf_Printf(b, "    %-6s ", who);
  if (r->ok) {
    pbd_Buf_Printf(b, "ok, hash %016" PRIx64 "%016" PRIx64, r->hash.hi, r->hash.lo);
    if (r->has_empty) pbd_Buf_Printf(b, "%s", r->empty ? " (empty)" : "");
    if (r->s.code != kPbd_Status_Ok)
      pbd_Buf_Printf(b, " but status left as %s \"%s\"", pbd_StatusCode_String(r->s.code), r->s.msg);
  } else {
    pbd_Buf_Printf(b, "FAILS %s: \"%s\"", pbd_StatusCode_String(r->s.code), r->s.msg);
    if (r->s.has_offset) pbd_Buf_Printf(b, " at byte %zu", r->s.offset);
    else pbd_Buf_AppendStr(b, " (no offset)");
    pbd_Buf_Printf(b, " path \"%s\"", r->s.path);
  }
  if (r->scratch_kept) pbd_Buf_AppendStr(b, " -- and did not give its scratch memory back");
  pbd_Buf_AppendChar(b, '\n');
}

enum { kExamplesPerSignature = 3, kMaxToleratedListed = 10 };

void ch_report_init(ch_Report *r, const char *test) {
  memset(r, 0, sizeof *r);
  r->test = test;
  pbd_Buf_AppendStr(&r->text, "");
  pbd_Buf_AppendStr(&r->tol_text, "");
}

/* The counts and the tolerated pairs only when verbose; the disagreements
 * always, in full, on stderr and (as much as fits) in the failure message. */
void ch_report_finish(ch_Report *r) {
  bool verbose = ch_verbose();
  if (verbose || r->disagreements)
    fprintf(stderr, "%s: %ld checks, %ld agreed, %ld tolerated (several errors), %ld disagreed\n",
            r->test, r->checks, r->agreed, r->tolerated, r->disagreements);
  if (verbose && r->tol_listed)
    fprintf(stderr, "%s: tolerated pairs (the first %d):\n%s", r->test, r->tol_listed,
            r->tol_text.data);
  pbd_Buf summary = {0};
  pbd_Buf_AppendStr(&summary, "");
  for (int i = 0; i < r->nsigs; i++)
    pbd_Buf_Printf(&summary, "  %6ld x %s\n", r->sigs[i].count, r->sigs[i].sig);
  if (r->disagreements)
    fprintf(stderr, "%s: DISAGREEMENTS by kind:\n%s%s: EXAMPLES:\n%s", r->test, summary.data, r->test,
            r->text.data);
  char head[3500];
  snprintf(head, sizeof head, "%s\n%s", summary.data, r->text.data);
  long d = r->disagreements;
  for (int i = 0; i < r->nsigs; i++) free(r->sigs[i].sig);
  pbd_Buf_Free(&summary);
  pbd_Buf_Free(&r->text);
  pbd_Buf_Free(&r->tol_text);
  ck_assert_msg(d == 0, "%s: %ld disagreements between pbd_Canon_* and pbd_Tree_Parse:\n%s", r->test, d,
                head);
}

/* pbd_Canon_Validate of copy[0, n) into *vr: it must fail exactly when
 * pbd_Canon_Hash (cr) does, and as the tree builder (tr) does.  When it
 * fails or succeeds unlike Canon_Hash, vr's path says so. */
static ch_Verdict run_validate(const ch_Case *c, const uint8_t *copy, size_t n, const ch_Result *tr,
                               const ch_Result *cr, ch_Result *vr) {
  *vr = ch_result();
  vr->ok = pbd_Canon_Validate(c->type, copy, 0, n, &c->o, &vr->s);
  /* the check on two threads: the same answer and the same error */
  pbd_Status s2;
  pbd_Status_Clear(&s2);
  bool ok2 = pbd_Canon_ValidateOnTwoThreads(c->type, copy, 0, n, &c->o, &s2);
  ck_assert_msg(ok2 == vr->ok && s2.code == vr->s.code && s2.has_offset == vr->s.has_offset &&
                    s2.offset == vr->s.offset && !strcmp(s2.msg, vr->s.msg) &&
                    !strcmp(s2.path, vr->s.path),
                "%s: pbd_Canon_ValidateOnTwoThreads says %d (%s) where pbd_Canon_Validate says %d (%s)",
                c->optname ? c->optname : "", ok2, s2.msg, vr->ok, vr->s.msg);
  ch_Verdict v;
  if (vr->ok != cr->ok) v = kCh_Disagree;
  else if (tr->ok) v = vr->ok && vr->s.code == kPbd_Status_Ok ? kCh_Agree : kCh_Disagree;
  else v = ch_compare(c->pool, c->type, copy, 0, n, tr, vr);
  if (v == kCh_Disagree && vr->ok != cr->ok)
    snprintf(vr->s.path, sizeof vr->s.path, "(and Canon_Hash %s)", cr->ok ? "succeeds" : "fails");
  return v;
}

ch_Verdict ch_run_pair(const ch_Case *c, const uint8_t *b, size_t n, ch_Result *tr, ch_Result *cr) {
  uint8_t *copy = ch_copy(b, n);
  *tr = ch_via_tree(c->type, copy, 0, n, &c->o);
  *cr = ch_via_canon(c->type, copy, 0, n, &c->o, NULL);
  ch_Verdict v;
  if (c->validate) {
    ch_Result vr;
    v = run_validate(c, copy, n, tr, cr, &vr);
    *cr = vr;
  } else {
    v = ch_compare(c->pool, c->type, copy, 0, n, tr, cr);
  }
  free(copy);
  return v;
}

static bool same_kind(const ch_Result *a, const ch_Result *b) {
  return a->ok == b->ok && a->s.code == b->s.code;
}

/* Shrinks a disagreeing input (Canon_Hash against the tree) to one that
 * still disagrees the same way (the same success or failure codes on either
 * side): greedy chunk and byte removal, then smaller byte values. */
static size_t shrink(const ch_Case *c, uint8_t *b, size_t n, const ch_Result *tr0,
                     const ch_Result *cr0) {
  int budget = 4000;
  bool progress = true;
  uint8_t *t = malloc(n + 1);
  ck_assert_ptr_nonnull(t);
  while (progress && budget > 0) {
    progress = false;
    for (size_t chunk = n > 1 ? n / 2 : 1; chunk >= 1 && budget > 0; chunk /= 2) {
      for (size_t i = 0; i + chunk <= n && budget > 0;) {
        memcpy(t, b, i);
        memcpy(t + i, b + i + chunk, n - i - chunk);
        ch_Result tr, cr;
        budget--;
        if (ch_run_pair(c, t, n - chunk, &tr, &cr) == kCh_Disagree && same_kind(&tr, tr0) &&
            same_kind(&cr, cr0)) {
          memcpy(b, t, n - chunk);
          n -= chunk;
          progress = true;
        } else {
          i++;
        }
      }
      if (chunk == 1) break;
    }
    for (size_t i = 0; i < n && budget > 0; i++) {
      static const uint8_t kTry[] = {0x00, 0x01, 0x08};
      for (size_t k = 0; k < sizeof kTry && budget > 0; k++) {
        if (b[i] <= kTry[k]) break;
        memcpy(t, b, n);
        t[i] = kTry[k];
        ch_Result tr, cr;
        budget--;
        if (ch_run_pair(c, t, n, &tr, &cr) == kCh_Disagree && same_kind(&tr, tr0) &&
            same_kind(&cr, cr0)) {
          b[i] = kTry[k];
          progress = true;
          break;
        }
      }
    }
  }
  free(t);
  return n;
}

/* "a[1].b" and "a[0].b": the same but for the numbers inside brackets. */
static bool paths_differ_in_indices_only(const char *a, const char *b) {
  while (*a && *b) {
    if (*a == '[' && *b == '[' && a[1] >= '0' && a[1] <= '9' && b[1] >= '0' && b[1] <= '9') {
      a += 1 + strspn(a + 1, "0123456789");
      b += 1 + strspn(b + 1, "0123456789");
      continue;
    }
    if (*a++ != *b++) return false;
  }
  return *a == *b;
}

/* Records one verdict.  `input` is the input the functions were given
 * (shown in full up to 200 bytes); `shrinkable` says whether it is the
 * Canon_Hash-against-tree check on the plain bytes (so it can be shrunk). */
void ch_note(ch_Report *r, const ch_Case *c, ch_Verdict v, const uint8_t *input, size_t n,
             const ch_Result *tr, const ch_Result *cr, bool shrinkable, const char *extra) {
  r->checks++;
  if (v == kCh_Agree) {
    r->agreed++;
    return;
  }
  if (v == kCh_Tolerated) {
    r->tolerated++;
    if (r->tol_listed < kMaxToleratedListed) {
      r->tol_listed++;
      pbd_Buf *b = &r->tol_text;
      pbd_Buf_Printf(b, "  - %s %s, %s, seed %" PRIu64 "%s%s: ", c->what, type_name(c->type),
                     c->optname, c->o.hash_seed, extra ? ", " : "", extra ? extra : "");
      hex_append(b, input, n, 200);
      pbd_Buf_AppendChar(b, '\n');
      describe(b, "tree", tr);
      describe(b, "canon", cr);
    }
    return;
  }
  r->disagreements++;
  /* the signature */
  char sig[256];
  const char *how;
  if (cr->scratch_kept) how = "scratch memory not given back";
  else if (tr->ok && cr->ok && !pbd_Hash128_Equal(tr->hash, cr->hash)) how = "both ok, hashes differ";
  else if (tr->ok && cr->ok && cr->s.code != kPbd_Status_Ok) how = "both ok, status left set";
  else if (tr->ok && cr->ok) how = "both ok, empty differs";
  else if (tr->ok) how = "tree ok, canon fails";
  else if (cr->ok) how = "tree fails, canon ok";
  else if (cr->s.code == kPbd_Status_Ok || !cr->s.msg[0]) how = "canon fails without saying why";
  else if (tr->s.code != cr->s.code) how = "both fail, other codes";
  else if (strcmp(tr->s.msg, cr->s.msg) != 0 || tr->s.has_offset != cr->s.has_offset ||
           tr->s.offset != cr->s.offset)
    how = "both fail, same code, another error (msg/offset)";
  else if (paths_differ_in_indices_only(tr->s.path, cr->s.path))
    how = "both fail, the same error, its path differs only in an index";
  else how = "both fail, the same error, another path";
  snprintf(sig, sizeof sig, "%s, type %s: %s (tree %s, canon %s)", c->what, type_name(c->type), how,
           tr->ok ? "ok" : pbd_StatusCode_String(tr->s.code),
           cr->ok ? "ok" : pbd_StatusCode_String(cr->s.code));
  ch_Signature *g = NULL;
  for (int i = 0; i < r->nsigs && !g; i++)
    if (strcmp(r->sigs[i].sig, sig) == 0) g = &r->sigs[i];
  if (!g && r->nsigs < kCh_MaxSignatures) {
    g = &r->sigs[r->nsigs++];
    g->sig = strdup(sig);
  }
  if (!g) return;
  g->count++;
  if (g->examples >= kExamplesPerSignature) return;
  int ex = ++g->examples;
  uint8_t *small = NULL;
  size_t sn = n;
  ch_Result str = *tr, scr = *cr;
  if (shrinkable) {
    small = ch_copy(input, n);
    sn = shrink(c, small, n, tr, cr);
    ch_run_pair(c, small, sn, &str, &scr);
  }
  pbd_Buf *b = &r->text;
  pbd_Buf_Printf(b, "  [%s #%d] options %s, seed %" PRIu64 "%s%s\n", sig, ex, c->optname,
                 c->o.hash_seed, extra ? ", " : "", extra ? extra : "");
  pbd_Buf_AppendStr(b, "    input  ");
  hex_append(b, input, n, 200);
  pbd_Buf_AppendChar(b, '\n');
  describe(b, "tree", tr);
  describe(b, "canon", cr);
  if (small && (sn != n || memcmp(small, input, n) != 0)) {
    pbd_Buf_AppendStr(b, "    minimal ");
    hex_append(b, small, sn, 200);
    pbd_Buf_AppendChar(b, '\n');
    describe(b, "tree", &str);
    describe(b, "canon", &scr);
  }
  free(small);
}

/* Canon_Hash, and Canon_Validate, against the tree for one input, type and
 * options. */
void ch_check_one(ch_Report *r, const ch_Case *c, const uint8_t *b, size_t n) {
  uint8_t *copy = ch_copy(b, n);
  ch_Result tr = ch_via_tree(c->type, copy, 0, n, &c->o);
  ch_Result cr = ch_via_canon(c->type, copy, 0, n, &c->o, NULL);
  ch_Result vr;
  ch_Verdict v = ch_compare(c->pool, c->type, copy, 0, n, &tr, &cr);
  ch_Verdict vv = run_validate(c, copy, n, &tr, &cr, &vr);
  free(copy);
  ch_note(r, c, v, b, n, &tr, &cr, true, NULL);
  ch_Case cv = *c;
  cv.what = "Validate";
  cv.validate = true;
  ch_note(r, &cv, vv, b, n, &tr, &vr, true, NULL);
}

ch_Case ch_make_case(const char *what, const pbd_MessageDef *t, const pbd_DefPool *pool,
                     const ch_OptSet *os, uint64_t seed) {
  ch_Case c = {what, t, pool, ch_tree_opts(os, seed, pool), os->name, false};
  return c;
}

/* ---- Suites --------------------------------------------------------------------- */

int ch_run(const char *suite, const ch_Test *tests, size_t n) {
  Suite *s = suite_create(suite);
  for (size_t i = 0; i < n; i++) {
    TCase *t = tcase_create(tests[i].name);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, tests[i].test);
    suite_add_tcase(s, t);
  }
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
