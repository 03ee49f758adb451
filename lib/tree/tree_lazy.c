/* pbdiff — shallow trees (tree.h, pbd_LazyTree): a message is read one
 * level at a time when its fields are first asked for; until then it holds
 * its byte ranges and its hash, from the hash pass's cache or computed by
 * lib/canon/canon.c without a tree. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/threads.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/tree/tree.h"
#include "tree/tree_build.h"

/* ---- Shallow reading (pbd_LazyTree) ------------------------------------------ */

/* A message not read yet: its bytes (the first part) and depth.  It is
 * finished (hashed) by finish_unread. */
pbd_Message *pbd_TreeBuild_NewUnread(Ctx *c, const pbd_MessageDef *def, int depth, const uint8_t *p,
                               size_t n) {
  /* one allocation for both: a level of a million elements makes a million */
  struct {
    pbd_Message m;
    Unread u;
  } *mu = pbd_Arena_Malloc(c->a, sizeof *mu);
  if (!mu) return NULL;
  pbd_Message *m = &mu->m;
  Unread *u = &mu->u;
  memset(m, 0, sizeof *m);
  *u = (Unread){c->lazy, &u->first, 1, 1, depth, false, {p, n}};
  m->def = def;
  m->unread_ = u;
  m->building_ = true;
  return m;
}

/* Rule 3 while unread: a later part of the same singular message. */
bool pbd_TreeBuild_AddUnreadPart(Ctx *c, pbd_Message *m, const uint8_t *p, size_t n) {
  Unread *u = m->unread_;
  if (u->nparts == u->capparts) {
    pbd_Part *np = u->parts == &u->first ? pbd_Arena_Malloc(c->a, sizeof *np * 2)
                                          : pbd_Arena_Realloc(c->a, u->parts,
                                                              sizeof *np * u->capparts,
                                                              sizeof *np * u->capparts * 2);
    if (!np) return oom(c);
    if (u->parts == &u->first) np[0] = u->first;
    u->parts = np;
    u->capparts *= 2;
  }
  u->parts[u->nparts++] = (pbd_Part){p, n};
  return true;
}

/* The hash of an unread message: remembered by the hash pass, or computed
 * from its parts (which reads its sub-messages' hashes from the cache). */
bool pbd_TreeBuild_FinishUnread(Ctx *c, pbd_Message *m) {
  Unread *u = m->unread_;
  bool empty = false;
  size_t total = 0;
  for (uint32_t i = 0; i < u->nparts; i++) total += u->parts[i].size;
  if (!pbd_HashCache_Find(c->lazy->cache, u->parts[0].data, total, m->def, &m->hash, &empty) &&
      !pbd_HashCache_Find(c->lazy->recalled, u->parts[0].data, total, m->def, &m->hash, &empty) &&
      !pbd_Hasher_HashParts(c->lazy->hasher, m->def, u->parts, u->nparts, u->depth, &m->hash,
                            &empty, c->s))
    return false;
  u->empty = empty;
  m->building_ = false;
  return true;
}

/* An unread message whose hash is known already. */
pbd_Message *pbd_TreeBuild_NewUnreadHashed(Ctx *c, const pbd_MessageDef *def, int depth,
                                      const uint8_t *p, size_t n, pbd_Hash128 h, bool empty) {
  pbd_Message *m = pbd_TreeBuild_NewUnread(c, def, depth, p, n);
  if (!m) return NULL;
  m->hash = h;
  m->unread_->empty = empty;
  m->building_ = false;
  return m;
}

/* Rule 13, shallow: the hash pass decides whether the bytes are a message. */
bool pbd_TreeBuild_UnreadUnknownLen(Ctx *c, const pbd_WireField *f, int depth, pbd_UnknownValue *v) {
  pbd_Hash128 h;
  bool failed = false;
  if (pbd_Hasher_TryUnknown(c->lazy->hasher, f->data, f->size, depth, &h, &failed, c->s)) {
    v->kind = kPbd_Value_LenMessage;
    v->m = pbd_TreeBuild_NewUnreadHashed(c, NULL, depth + 1, f->data, f->size, h, false);
    return v->m != NULL || oom(c);
  }
  if (failed) return false;
  v->kind = kPbd_Value_Len;
  v->s.data = (const char *)f->data;
  v->s.size = f->size;
  return true;
}

/* ---- Shallow trees: reading a level on demand ------------------------------------ */

/* The hashes the walk computes itself (what the hash pass's cache had no
 * room for) are kept up to this many bytes (24 an entry), the shallowest
 * first: a level read after its parent then finds its children hashed. */
enum { kRecalledBytes = 8 << 20 };

pbd_LazyTree *pbd_LazyTree_New(const uint8_t *buf, const pbd_ReadOptions *o,
                               const pbd_HashCache *cache, pbd_Arena *arena) {
  pbd_LazyTree *t = pbd_Arena_Calloc(arena, sizeof *t);
  if (!t) return NULL;
  t->buf = buf;
  t->o = *o;
  t->cache = cache;
  t->arena = arena;
  t->scratch = pbd_Arena_New();
  if (t->scratch) pbd_Arena_SetBudget(t->scratch, pbd_Arena_Budget(arena)); /* one bound */
  t->hasher = pbd_Hasher_New(buf, o, cache);
  t->recalled = pbd_HashCache_New(buf, kRecalledBytes);
  if (t->hasher && t->recalled) pbd_Hasher_Remember(t->hasher, t->recalled);
  t->any = o->pool ? pbd_DefPool_FindMessageByName(o->pool, "google.protobuf.Any") : NULL;
  pbd_Status_Clear(&t->status);
  if (t->scratch && t->hasher && t->recalled) return t;
  pbd_LazyTree_Free(t);
  return NULL;
}

void pbd_LazyTree_Free(pbd_LazyTree *t) {
  if (!t) return;
  pbd_Hasher_Free(t->hasher);
  pbd_HashCache_Free(t->recalled);
  pbd_Arena_Free(t->scratch);
}

bool pbd_LazyTree_Ok(const pbd_LazyTree *t, pbd_Status *s) {
  if (pbd_Status_IsOk(&t->status)) return true;
  if (s) *s = t->status;
  return false;
}

pbd_Message *pbd_LazyTree_Root(pbd_LazyTree *t, const pbd_MessageDef *type, size_t begin,
                               size_t end, pbd_Hash128 hash) {
  Ctx c = pbd_TreeBuild_NewCtx(type, t->buf, &t->o, t->arena, &t->status);
  c.lazy = t;
  /* whether the root is empty only matters to a parent, which it has not */
  return pbd_TreeBuild_NewUnreadHashed(&c, type, 0, t->buf + begin, end - begin, hash, false);
}

/* Reads one level of an unread message into it.  The bytes passed the hash
 * pass, so only memory can fail; a failure is kept in the tree's status
 * (the message then has no fields) for the caller to find. */
static void read_level(pbd_Message *m) {
  Unread *u = m->unread_;
  pbd_LazyTree *t = u->tree;
  Ctx c = pbd_TreeBuild_NewCtx(m->def, t->buf, &t->o, t->arena, &t->status);
  c.scratch = t->scratch;
  c.lazy = t;
  c.schemaless = m->def == NULL;
  pbd_Hash128 hash = m->hash;
  pbd_ArenaMark mark = pbd_Arena_Mark(t->scratch);
  pbd_Status s;
  pbd_Status_Clear(&s);
  c.s = &s;
  m->unread_ = NULL;
  m->any_payload_ = NULL;
  bool ok = pbd_TreeBuild_StartMessage(&c, m);
  for (uint32_t i = 0; ok && i < u->nparts; i++)
    ok = pbd_TreeBuild_ParseFields(&c, m, u->parts[i].data, u->parts[i].data + u->parts[i].size, u->depth);
  ok = ok && pbd_TreeBuild_FinishMessage(&c, m, u->depth);
  pbd_Arena_Reset(t->scratch, mark);
  if (ok && !pbd_Hash128_Equal(hash, m->hash)) {
    ok = false;
    pbd_Status_SetError(&s, kPbd_Status_Malformed,
                        "internal error: a message read again hashes differently");
  }
  if (!ok) {
    if (pbd_Status_IsOk(&s)) pbd_Status_SetError(&s, kPbd_Status_OutOfMemory, "out of memory");
    if (!s.has_offset && u->nparts) { /* where the message that found no memory starts */
      s.has_offset = true;
      s.offset = (size_t)(u->parts[0].data - t->buf);
    }
    if (pbd_Status_IsOk(&t->status)) t->status = s;
    m->fields_ = NULL;
    m->field_count_ = 0;
    m->any_payload_ = NULL;
    m->building_ = false;
  }
  m->hash = hash;
}

static void read_if_unread(const pbd_Message *m) {
  if (m->unread_ && !m->building_) read_level((pbd_Message *)m); /* a cache, as for a view */
}

static void *read_on_thread(void *m) {
  read_if_unread(m);
  return NULL;
}

/* Below this many bytes a level is read faster than a thread starts. */
enum { kPairThreadBytes = 1 << 20 };

size_t pbd_Message_UnreadBytes(const pbd_Message *m) {
  size_t n = 0;
  if (m->unread_ && !m->building_)
    for (uint32_t i = 0; i < m->unread_->nparts; i++) n += m->unread_->parts[i].size;
  return n;
}

const pbd_LazyTree *pbd_Message_UnreadTree(const pbd_Message *m) {
  return m->unread_ && !m->building_ ? m->unread_->tree : NULL;
}

void pbd_Message_ReadPair(const pbd_Message *a, const pbd_Message *b) {
  /* Two trees share nothing (arenas, hashers, caches): their levels can be
   * read at once. */
  bool apart = pbd_Message_UnreadBytes(a) >= kPairThreadBytes &&
               pbd_Message_UnreadBytes(b) >= kPairThreadBytes && a->unread_->tree != b->unread_->tree;
  if (!pbd_Threads_RunBoth(read_on_thread, (void *)a, (void *)b, apart)) read_if_unread(b);
}

const pbd_Field *pbd_Message_Fields(const pbd_Message *m) {
  read_if_unread(m);
  return m->fields_;
}

uint32_t pbd_Message_FieldCount(const pbd_Message *m) {
  read_if_unread(m);
  return m->field_count_;
}

const pbd_Message *pbd_Message_AnyPayload(const pbd_Message *m) {
  read_if_unread(m);
  return m->building_ ? NULL : m->any_payload_;
}

bool pbd_Message_IsEmpty(const pbd_Message *m) {
  return pbd_Message_FieldCount(m) == 0 && !pbd_Message_AnyPayload(m);
}
