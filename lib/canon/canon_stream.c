/* pbdiff — a message's record streamed into its digest as it is read
 * (canon_pass.h, pbd_CanonPass_StartStream).
 *
 * The pbh1 record of a message lists its fields in number order, each as
 * its tag, its count, then its values (docs/hash.md), and the hash pass
 * keeps a field's values until the message ends, because the count comes
 * first and a field's occurrences may be spread out.  For a field of 25
 * million elements that is hundreds of megabytes.  Most large messages are
 * one long run of one repeated field, or a few runs in number order: then a
 * first read of the tags alone gives every run's count, and the second read
 * feeds tag, count and values to the digest as they come, in the same bytes
 * the kept record would have had, so the hash is the same.
 *
 * Only values whose record is their occurrence in order qualify: elements
 * of repeated string, bytes, message and group fields of the wire type the
 * schema gives, and unknown fields (where they are kept).  Anything else (a
 * singular field, scalars, maps, an Any, a field that comes back after a
 * higher number) leaves the message to the usual reading. */
#include "canon/canon_pass.h"

/* Below this, keeping the record costs little. */
enum { kStreamBytes = 1 << 20, kSinkBytes = 4096 };

typedef struct {
  uint32_t number, count;
  const pbd_FieldDef *fd;
} Run;

struct Stream {
  XXH3_state_t *state;
  Run *runs;
  uint32_t nruns, next;  /* the runs, and the next one to start */
  Slot slot;             /* every value's slot: its record goes to the state */
  uint8_t buf[kSinkBytes];
};

/* Whether field f (fd its def, NULL when unknown) is recorded as its
 * occurrence in order. */
static bool occurrence_recorded(const Ctx *c, const pbd_MessageDef *def, const pbd_FieldDef *fd,
                                const pbd_WireField *f) {
  if (!fd) return !def || (!c->o->ignore_unknown && !c->o->strict); /* kept as they come */
  if (!fd->is_repeated || fd->is_map) return false;
  switch (fd->type) {
    case kPbd_Type_String:
    case kPbd_Type_Bytes:
    case kPbd_Type_Message: return f->wire_type == kPbd_WireType_Delimited;
    case kPbd_Type_Group: return f->wire_type == kPbd_WireType_StartGroup;
    default: return false;
  }
}

/* The runs of the message's fields, read from their tags; false when a field
 * does not qualify, comes out of number order or does not read (the usual
 * reading then says why). */
static bool plan_runs(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts, size_t nparts,
                      int depth, Run **runs, uint32_t *nruns) {
  uint32_t n = 0, cap = 0;
  Run *v = NULL;
  pbd_Status s;
  pbd_Status_Clear(&s);
  for (size_t i = 0; i < nparts; i++) {
    const uint8_t *p = parts[i].data, *end = p + parts[i].size;
    while (p < end) {
      pbd_WireField f;
      const uint8_t *q = pbd_Wire_ReadCommonField(p, end, &f); /* (most fields, inline) */
      p = q ? q : pbd_Wire_ReadField(p, end, c->buf, c->max_depth - depth, &f, &s);
      if (!p || f.wire_type == kPbd_WireType_EndGroup) return false;
      const pbd_FieldDef *fd = def ? pbd_MessageDef_FieldByNumber(def, f.number) : NULL;
      if (!occurrence_recorded(c, def, fd, &f)) return false;
      if (n && f.number == v[n - 1].number) {
        v[n - 1].count++;
        continue;
      }
      if (n && f.number < v[n - 1].number) return false;
      if (n == cap) {
        uint32_t want = cap ? cap * 2 : 16;
        Run *nv = pbd_Arena_Realloc(c->scratch, v, sizeof *v * cap, sizeof *v * want);
        if (!nv) return false;
        v = nv;
        cap = want;
      }
      v[n++] = (Run){f.number, 1, fd};
    }
  }
  *runs = v;
  *nruns = n;
  return n > 0;
}

bool pbd_CanonPass_StartStream(Ctx *c, Msg *m, const pbd_Part *parts, size_t nparts) {
  size_t total = 0;
  for (size_t i = 0; i < nparts; i++) total += parts[i].size;
  if (c->validate || total < kStreamBytes) return false;
  if (m->def && (m->def->is_map_entry || m->def == c->any)) return false;
  pbd_ArenaMark mark = pbd_Arena_Mark(c->scratch);
  void *raw = pbd_Arena_Malloc(c->scratch, sizeof(struct Stream) + 64);
  struct Stream *st = raw ? (struct Stream *)(((uintptr_t)raw + 63) & ~(uintptr_t)63) : NULL;
  void *sraw = st ? pbd_Arena_Malloc(c->scratch, sizeof(XXH3_state_t) + 64) : NULL;
  if (!sraw || !plan_runs(c, m->def, parts, nparts, m->depth, &st->runs, &st->nruns)) {
    pbd_Arena_Reset(c->scratch, mark);
    return false;
  }
  st->state = (XXH3_state_t *)(((uintptr_t)sraw + 63) & ~(uintptr_t)63);
  XXH3_INITSTATE(st->state);
  XXH3_128bits_reset_withSeed(st->state, c->o->hash_seed);
  st->next = 0;
  memset(&st->slot, 0, sizeof st->slot);
  st->slot.shape = kShape_Record;
  st->slot.rec = (Bytes){st->buf, 0, sizeof st->buf, false, st->state};
  m->stream = st;
  return true;
}

/* The slot of a value of field `number`: the record's own, which starts the
 * field's run (its tag and count) when the value is the run's first. */
Slot *pbd_CanonPass_StreamSlot(Ctx *c, Msg *m, uint32_t number, const pbd_FieldDef *fd) {
  struct Stream *st = m->stream;
  Slot *s = &st->slot;
  if (s->count && s->number == number) return s;
  if (st->next >= st->nruns || st->runs[st->next].number != number) {
    pbd_Status_SetError(c->s, kPbd_Status_Malformed,
                        "internal error: a field read again is not where its tags were");
    return NULL;
  }
  const Run *run = &st->runs[st->next++];
  Bytes *b = &s->rec;
  if (b->n + 16 > b->cap) {
    XXH3_128bits_update(st->state, b->p, b->n);
    b->n = 0;
  }
  uint8_t *w = put_u64(b->p + b->n, pbd_FieldRecordTag(number, fd, c->o->typed_fields));
  put_u64(w, run->count);
  b->n += 16;
  s->number = number;
  s->fd = fd;
  s->count = 0; /* counted again as values come; a run's first is value 0 */
  return s;
}

bool pbd_CanonPass_FinishStream(Ctx *c, Msg *m, Result *out) {
  struct Stream *st = m->stream;
  (void)c;
  XXH3_128bits_update(st->state, st->slot.rec.p, st->slot.rec.n);
  XXH128_hash_t h = XXH3_128bits_digest(st->state);
  out->hash = (pbd_Hash128){h.low64, h.high64};
  out->empty = false; /* it has runs */
  out->entry_unknown_enum = false;
  memset(&out->key, 0, sizeof out->key);
  return true;
}
