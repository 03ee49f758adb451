/* pbdiff — the entry points of the hash pass (canon.h). */
#include "canon/canon_pass.h"

/* ---- Public ------------------------------------------------------------------ */

static Ctx new_ctx(const uint8_t *buf, const pbd_ReadOptions *o, pbd_Arena *scratch,
                   pbd_Status *s) {
  Ctx c;
  memset(&c, 0, sizeof c);
  c.buf = buf;
  c.o = o;
  c.scratch = scratch;
  c.s = s;
  c.max_depth = pbd_ReadOptions_MaxDepth(o);
  c.any = o->pool ? pbd_DefPool_FindMessageByName(o->pool, "google.protobuf.Any") : NULL;
  return c;
}

/* One whole message buf[begin, end), hashed (into a cache when given) or
 * only checked, with working memory of its own. */
static bool read_root(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                      const pbd_ReadOptions *o, pbd_HashCache *cache, bool validate,
                      pbd_Hash128 *out, pbd_Status *s) {
  pbd_Arena *scratch = pbd_Arena_New();
  if (!scratch) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  Ctx c = new_ctx(buf, o, scratch, s);
  c.record = cache;
  c.validate = validate;
  pbd_Part part = {buf + begin, end - begin};
  Result r;
  bool ok = pbd_CanonPass_HashMessage(&c, type, &part, 1, 0, &r);
  pbd_CanonPass_FreeFrames(&c);
  pbd_Arena_Free(scratch);
  if (ok && out) *out = r.hash;
  return ok;
}

bool pbd_Canon_Hash(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                    const pbd_ReadOptions *o, pbd_HashCache *cache, pbd_Hash128 *out,
                    pbd_Status *s) {
  return read_root(type, buf, begin, end, o, cache, false, out, s);
}

bool pbd_Canon_Validate(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                        const pbd_ReadOptions *o, pbd_Status *s) {
  if (pbd_Canon_QuickCheck(type, buf + begin, buf + end, o)) return true;
  /* an error is possible: the careful reading finds it and says where */
  return read_root(type, buf, begin, end, o, NULL, true, NULL, s);
}

bool pbd_Canon_ValidateOnTwoThreads(const pbd_MessageDef *type, const uint8_t *buf, size_t begin,
                                    size_t end, const pbd_ReadOptions *o, pbd_Status *s) {
  if (pbd_Canon_QuickCheckOnTwoThreads(type, buf + begin, buf + end, o)) return true;
  return read_root(type, buf, begin, end, o, NULL, true, NULL, s);
}

/* ---- A hasher kept for many calls (shallow trees) ---------------------------- */

struct pbd_Hasher {
  Ctx c;  /* its frames and scratch memory outlive each call */
};

pbd_Hasher *pbd_Hasher_New(const uint8_t *buf, const pbd_ReadOptions *o,
                           const pbd_HashCache *cache) {
  pbd_Hasher *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->c = new_ctx(buf, o, pbd_Arena_New(), NULL);
  h->c.lookup = cache;
  if (!h->c.scratch) {
    free(h);
    return NULL;
  }
  return h;
}

void pbd_Hasher_Remember(pbd_Hasher *h, pbd_HashCache *cache) {
  h->c.record = cache;
  h->c.recalled = cache;
}

void pbd_Hasher_Free(pbd_Hasher *h) {
  if (!h) return;
  pbd_CanonPass_FreeFrames(&h->c);
  pbd_Arena_Free(h->c.scratch);
  free(h);
}

bool pbd_Hasher_HashParts(pbd_Hasher *h, const pbd_MessageDef *type, const pbd_Part *parts,
                          size_t nparts, int depth, pbd_Hash128 *out, bool *empty,
                          pbd_Status *s) {
  h->c.s = s;
  Result r;
  if (!pbd_CanonPass_HashMessage(&h->c, type, parts, nparts, depth, &r)) return false;
  *out = r.hash;
  if (empty) *empty = r.empty;
  return true;
}

bool pbd_Hasher_HashWindow(pbd_Hasher *h, const pbd_MessageDef *type, const pbd_Part *parts,
                           size_t nparts, int depth, pbd_Hash128 *out, pbd_Status *s) {
  h->c.fresh = true;
  return pbd_Hasher_HashParts(h, type, parts, nparts, depth, out, NULL, s);
}

bool pbd_Hasher_TryUnknown(pbd_Hasher *h, const uint8_t *data, size_t size, int depth,
                           pbd_Hash128 *out, bool *failed, pbd_Status *s) {
  h->c.s = s;
  return pbd_CanonPass_TryUnknown(&h->c, data, size, depth, out, failed);
}

/* A context for one call with the caller's scratch memory, or its own. */
static bool begin_call(Ctx *c, const uint8_t *buf, const pbd_ReadOptions *o,
                       const pbd_HashCache *cache, pbd_Arena *scratch, int depth,
                       pbd_Status *s) {
  *c = new_ctx(buf, o, scratch ? scratch : pbd_Arena_New(), s);
  c->lookup = cache;
  c->base_depth = depth;
  if (!c->scratch) return oom(c);
  return true;
}

static void end_call(Ctx *c, pbd_Arena *scratch) {
  pbd_CanonPass_FreeFrames(c);
  if (!scratch) pbd_Arena_Free(c->scratch);
}

bool pbd_Canon_HashParts(const pbd_MessageDef *type, const uint8_t *buf, const pbd_Part *parts,
                         size_t nparts, int depth, const pbd_ReadOptions *o,
                         const pbd_HashCache *cache, pbd_Arena *scratch, pbd_Hash128 *out,
                         bool *empty, pbd_Status *s) {
  Ctx c;
  if (!begin_call(&c, buf, o, cache, scratch, depth, s)) return false;
  Result r;
  bool ok = pbd_CanonPass_HashMessage(&c, type, parts, nparts, depth, &r);
  end_call(&c, scratch);
  if (ok) {
    *out = r.hash;
    if (empty) *empty = r.empty;
  }
  return ok;
}

bool pbd_Canon_TryHashUnknown(const uint8_t *buf, const uint8_t *data, size_t size, int depth,
                              const pbd_ReadOptions *o, const pbd_HashCache *cache,
                              pbd_Arena *scratch, pbd_Hash128 *out, bool *failed, pbd_Status *s) {
  Ctx c;
  *failed = false;
  if (!begin_call(&c, buf, o, cache, scratch, depth + 1, s)) {
    *failed = true;
    return false;
  }
  bool ok = pbd_CanonPass_TryUnknown(&c, data, size, depth, out, failed);
  end_call(&c, scratch);
  return ok;
}
