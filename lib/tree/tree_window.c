/* pbdiff — the window where two shallow messages differ (tree.h: by their
 * bytes, pbd_Message_NarrowPair, or by their elements' hashes,
 * pbd_Message_NarrowByHash, below).
 *
 * Two large messages that differ in a few places mostly share their bytes:
 * a serialiser's next version, or a file edited in one place, writes the
 * same bytes before and after the change.  When everything that differs
 * lies in the occurrences of one repeated field, the bytes before and after
 * are the same elements on both sides, and the messages differ exactly as
 * their windows do: the fields between the common prefix and the common
 * suffix, read as messages of their own.  Reading only the windows keeps
 * the cost of a level of 25 million elements to the few that differ.
 *
 * The window is safe only where order of occurrence is all that counts: a
 * repeated message, group, string or bytes field (not a map, not packable),
 * or an unknown field, whose elements the prefix and suffix hold equally.
 * A singular field (last value wins, parts merge), a map (keyed entries) or
 * packed scalars (values, not occurrences) in the window end the attempt,
 * and the level is read whole as before. */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/core/threads.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/wire/wire.h"
#include "tree/tree_build.h"

/* Below this many bytes a level is read whole: narrowing would save little. */
enum { kNarrowBytes = 1 << 20 };

static bool one_unread_part(const pbd_Message *m, pbd_Part *part) {
  if (!m->unread_ || m->building_ || m->unread_->nparts != 1) return false;
  *part = m->unread_->parts[0];
  return true;
}

/* Reads the field at *p; false when the bytes do not read (the level's own
 * reading reports that). */
static bool next_field(const uint8_t **p, const uint8_t *end, int depth_left, pbd_WireField *f) {
  const uint8_t *q = pbd_Wire_SkimField(*p, end, depth_left, f);
  if (q) *p = q;
  return q != NULL;
}

/* Whether the occurrences of field `number` of def may be compared by
 * their order alone (see the head of the file); *fd gets its def (NULL: an
 * unknown field, or no schema). */
static bool sequence_field(const pbd_MessageDef *def, uint32_t number, const pbd_FieldDef **fd) {
  *fd = def ? pbd_MessageDef_FieldByNumber(def, number) : NULL;
  if (!*fd) return true;
  const pbd_FieldDef *f = *fd;
  if (!f->is_repeated || f->is_map) return false;
  return f->type == kPbd_Type_Message || f->type == kPbd_Type_Group ||
         f->type == kPbd_Type_String || f->type == kPbd_Type_Bytes;
}

/* Whether a window's field is one occurrence of the window's field: the
 * same number and, for a known field, the wire type of its elements (any
 * other goes to the unknown fields, which the window does not cover). */
static bool in_field(const pbd_WireField *f, uint32_t number, const pbd_FieldDef *fd) {
  return f->number == number && (!fd || f->wire_type == pbd_FieldType_WireType(fd->type));
}

/* The first field boundary at or before the first differing byte: the
 * fields before it are the same bytes on both sides. */
static const uint8_t *prefix_end(pbd_Part a, pbd_Part b, int depth_left) {
  size_t n = a.size < b.size ? a.size : b.size, common = 0;
  while (common < n && a.data[common] == b.data[common]) common++;
  const uint8_t *p = a.data, *end = a.data + a.size;
  while (p < end) {
    const uint8_t *q = p;
    pbd_WireField f;
    if (!next_field(&q, end, depth_left, &f) || (size_t)(q - a.data) > common) break;
    p = q;
  }
  return p;
}

/* How many bytes at the end the two parts have in common. */
static size_t common_suffix(pbd_Part a, pbd_Part b, size_t limit) {
  size_t n = 0;
  while (n < limit && a.data[a.size - 1 - n] == b.data[b.size - 1 - n]) n++;
  return n;
}

typedef struct {
  uint32_t number;
  const pbd_FieldDef *fd;
  bool have, ok;
} WindowField;

static void see(WindowField *wf, const pbd_MessageDef *def, const pbd_WireField *f) {
  if (!wf->have) {
    wf->have = true;
    wf->number = f->number;
    wf->ok = sequence_field(def, f->number, &wf->fd);
  }
  if (!in_field(f, wf->number, wf->fd)) wf->ok = false;
}

/* From the prefix's end, both sides are read field by field, the one with
 * more bytes left first, until both stand at a field boundary the same
 * distance from their ends inside the common suffix: from there on the
 * bytes, and so the fields, are the same.  What was read on the way is the
 * windows; each field must be an occurrence of one sequence field. */
static bool find_windows(pbd_Part a, pbd_Part b, size_t start, const pbd_MessageDef *def,
                         int depth_left, pbd_Part *wa, pbd_Part *wb, WindowField *wf) {
  size_t limit = (a.size < b.size ? a.size : b.size) - start;
  size_t suffix = common_suffix(a, b, limit);
  const uint8_t *pa = a.data + start, *pb = b.data + start;
  const uint8_t *ea = a.data + a.size, *eb = b.data + b.size;
  for (;;) {
    size_t la = (size_t)(ea - pa), lb = (size_t)(eb - pb);
    if (la == lb && la <= suffix) break;
    pbd_WireField f;
    bool read_a = la >= lb;
    if (!next_field(read_a ? &pa : &pb, read_a ? ea : eb, depth_left, &f)) return false;
    see(wf, def, &f);
    if (!wf->ok) return false;
  }
  *wa = (pbd_Part){a.data + start, (size_t)(pa - (a.data + start))};
  *wb = (pbd_Part){b.data + start, (size_t)(pb - (b.data + start))};
  return true;
}

/* How many elements of the window's field the prefix holds. */
static bool count_before(pbd_Part a, const uint8_t *stop, const WindowField *wf, int depth_left,
                         uint32_t *count) {
  uint64_t n = 0;
  for (const uint8_t *p = a.data; p < stop;) {
    pbd_WireField f;
    if (!next_field(&p, stop, depth_left, &f)) return false;
    n += in_field(&f, wf->number, wf->fd);
  }
  if (n > UINT32_MAX) return false;
  *count = (uint32_t)n;
  return true;
}

pbd_Message *pbd_TreeBuild_WindowMessage(const pbd_Message *m, const pbd_Part *parts,
                                         uint32_t nparts) {
  Unread *u = m->unread_;
  pbd_LazyTree *t = u->tree;
  Ctx c = pbd_TreeBuild_NewCtx(m->def, t->buf, &t->o, t->arena, &t->status);
  c.lazy = t;
  c.schemaless = m->def == NULL;
  pbd_Message *w = pbd_TreeBuild_NewUnread(&c, m->def, u->depth, parts[0].data, parts[0].size);
  for (uint32_t i = 1; w && i < nparts; i++)
    if (!pbd_TreeBuild_AddUnreadPart(&c, w, parts[i].data, parts[i].size)) w = NULL;
  if (!w) return NULL;
  /* The window begins where the message may, whose remembered hash is the
   * message's, not the window's: hashed afresh. */
  pbd_Status s;
  pbd_Status_Clear(&s);
  Unread *wu = w->unread_;
  if (!pbd_Hasher_HashWindow(t->hasher, m->def, wu->parts, wu->nparts, wu->depth, &w->hash, &s))
    return NULL;
  w->building_ = false;
  return w;
}

bool pbd_Message_NarrowPair(const pbd_Message *a, const pbd_Message *b, pbd_MessageWindow *out) {
  pbd_Part pa, pb;
  if (!one_unread_part(a, &pa) || !one_unread_part(b, &pb) || a->def != b->def) return false;
  if (pa.size < kNarrowBytes || pb.size < kNarrowBytes) return false;
  if (a->def && (a->def->is_map_entry || !strcmp(a->def->full_name, "google.protobuf.Any")))
    return false;
  int depth_left = pbd_ReadOptions_MaxDepth(&a->unread_->tree->o) - a->unread_->depth;
  if (depth_left <= 0) return false;
  const uint8_t *stop = prefix_end(pa, pb, depth_left);
  size_t start = (size_t)(stop - pa.data);
  WindowField wf = {0};
  pbd_Part wa, wb;
  if (!find_windows(pa, pb, start, a->def, depth_left, &wa, &wb, &wf) || !wf.have) return false;
  if (wa.size == pa.size && wb.size == pb.size) return false; /* nothing in common: no window */
  uint32_t base;
  if (!count_before(pa, stop, &wf, depth_left, &base)) return false;
  pbd_Message *l = pbd_TreeBuild_WindowMessage(a, &wa, 1);
  pbd_Message *r = l ? pbd_TreeBuild_WindowMessage(b, &wb, 1) : NULL;
  pbd_WindowField *field = r ? pbd_Arena_Malloc(a->unread_->tree->arena, sizeof *field) : NULL;
  if (!field) return false;
  *field = (pbd_WindowField){wf.number, wf.fd, base};
  *out = (pbd_MessageWindow){l, r, field, 1};
  return true;
}

/* ---- Windows by the elements' hashes ------------------------------------------
 *
 * A re-encoding shares no bytes with its original, but a one-change pair
 * still shares nearly every element: each repeated message, string or
 * bytes field ("sequence field") is cut to the elements between its
 * common prefix and its common suffix, compared by the hash pass's hashes
 * (strings by their bytes).  Every other field stays in the windows whole,
 * in the order of its occurrences.  The elements are kept as 12 bytes each
 * (where the field and its payload begin, and the payload's size: each is
 * read from the wire once) while the prefix and suffix are found, then
 * dropped: the window messages are byte ranges of the inputs. */

enum { kMaxWindowParts = 1 << 16 };

/* The two sides' offsets are listed on two threads at once: each side's
 * is padded to lie in cache lines of its own, else every element listed
 * would move a line between the cores. */
typedef struct {
  uint32_t at;   /* where the element's field begins, from the message's first byte */
  uint32_t body; /* where its payload does, counted the same way */
  uint32_t size; /* the payload's bytes */
} Element;

typedef struct {
  Element *at;
  uint32_t n, cap;
  char pad_[128 - sizeof(Element *) - 2 * sizeof(uint32_t)];
} Offsets;

typedef struct {
  Offsets side[2];
  uint32_t prefix, suffix;
  bool decided, narrowed;
} Sequence;

/* Where one side's sequence elements lie: runs of elements of one sequence
 * with no other field between them (an ONNX graph's nodes are one).  A
 * window is cut at the runs' ends rather than by reading every field again;
 * a message whose sequences interleave has too many runs to keep, and is
 * read again field by field. */
enum { kMaxRuns = 1 << 12 };

typedef struct {
  uint32_t seq;          /* its sequence, by field index */
  uint32_t first, count; /* its elements, as the sequence counts them */
  uint32_t end;          /* the offset after its last element */
} Run;

typedef struct { /* (padded as Offsets is: the sides are listed at once) */
  Run *v;
  uint32_t n;
  bool over; /* more than kMaxRuns: not kept */
  char pad_[128 - sizeof(Run *) - sizeof(uint32_t) - sizeof(bool)];
} Runs;

/* A message's parts (rule 3: read as one), offsets counting along them. */
typedef struct {
  const pbd_Part *parts;
  uint32_t nparts;
  pbd_LazyTree *t;
  int depth;    /* the message's; its elements are one deeper */
} Side;

typedef struct {
  const pbd_MessageDef *def;
  bool (*keep_whole)(void *, const pbd_FieldDef *);
  void *ctx;
  int depth_left;
  Sequence *seq; /* by field index */
  Runs runs[2];
} Narrowing;

/* Whether fd's elements are narrowed: a repeated message, string or bytes
 * field no rule keeps whole. */
static bool narrowed(const Narrowing *nw, const pbd_FieldDef *fd) {
  if (!fd->is_repeated || fd->is_map) return false;
  if (fd->type != kPbd_Type_Message && fd->type != kPbd_Type_String && fd->type != kPbd_Type_Bytes)
    return false;
  return !nw->keep_whole || !nw->keep_whole(nw->ctx, fd);
}

/* The field's sequence, when its occurrence f is one of its elements (the
 * decision is made once per field). */
static Sequence *sequence_of(const Narrowing *nw, const pbd_WireField *f) {
  const pbd_FieldDef *fd = pbd_MessageDef_FieldByNumber(nw->def, f->number);
  if (!fd || f->wire_type != kPbd_WireType_Delimited) return NULL;
  Sequence *q = &nw->seq[fd->index];
  if (!q->decided) {
    q->decided = true;
    q->narrowed = narrowed(nw, fd);
  }
  return q->narrowed ? q : NULL;
}

static bool push_element(Offsets *o, Element e) {
  if (o->n == o->cap) {
    uint32_t cap = o->cap ? o->cap * 2 : 256;
    Element *n = cap > o->cap ? realloc(o->at, sizeof *n * cap) : NULL;
    if (!n) return false;
    o->at = n;
    o->cap = cap;
  }
  o->at[o->n++] = e;
  return true;
}

/* Element e of sequence seq ends at `end`: it extends the current run, or
 * starts one (*cur NULL: the field before was no element of a sequence, or
 * the part began). */
static void note_run(Runs *rs, Run **cur, uint32_t seq, uint32_t e, uint32_t end) {
  if (rs->over) return;
  if (*cur && (*cur)->seq == seq) {
    (*cur)->count++;
    (*cur)->end = end;
    return;
  }
  if (!rs->v) rs->v = malloc(sizeof *rs->v * kMaxRuns);
  if (!rs->v || rs->n == kMaxRuns) {
    rs->over = true;
    return;
  }
  *cur = &rs->v[rs->n++];
  **cur = (Run){seq, e, 1, end};
}

/* Every element of every sequence field of one side, in order, and the
 * runs they make. */
static bool list_elements(Narrowing *nw, const Side *sd, int k) {
  size_t base = 0;
  for (uint32_t i = 0; i < sd->nparts; base += sd->parts[i++].size) {
    const uint8_t *first = sd->parts[i].data, *p = first, *end = p + sd->parts[i].size;
    Run *cur = NULL; /* (no run spans two parts) */
    Sequence *last = NULL;
    uint32_t last_number = 0;
    while (p < end) {
      const uint8_t *start = p;
      pbd_WireField f;
      if (!next_field(&p, end, nw->depth_left, &f)) return false;
      /* (the last element's field usually comes next) */
      Sequence *q = last && f.number == last_number && f.wire_type == kPbd_WireType_Delimited
                        ? last
                        : sequence_of(nw, &f);
      if (!q) {
        cur = NULL;
        continue;
      }
      last = q;
      last_number = f.number;
      uint32_t e = q->side[k].n;
      Element el = {(uint32_t)(base + (size_t)(start - first)),
                    (uint32_t)(base + (size_t)(f.data - first)), (uint32_t)f.size};
      if (!push_element(&q->side[k], el)) return false;
      note_run(&nw->runs[k], &cur, (uint32_t)(q - nw->seq), e, (uint32_t)(base + (size_t)(p - first)));
    }
  }
  return true;
}

/* An element's payload (no field spans two parts: each is a whole run of
 * fields, so the payload lies in its field's part). */
static pbd_Part element(const Side *sd, const Element *e) {
  uint32_t i = 0;
  size_t off = e->at, body = e->body - e->at;
  while (i + 1 < sd->nparts && off >= sd->parts[i].size) off -= sd->parts[i++].size;
  return (pbd_Part){sd->parts[i].data + off + body, e->size};
}

static bool element_hash(const Side *sd, const pbd_FieldDef *fd, pbd_Part part, pbd_Hash128 *h) {
  bool empty;
  const pbd_LazyTree *t = sd->t;
  if (pbd_HashCache_Find(t->cache, part.data, part.size, fd->message_type, h, &empty) ||
      pbd_HashCache_Find(t->recalled, part.data, part.size, fd->message_type, h, &empty))
    return true;
  pbd_Status s;
  pbd_Status_Clear(&s);
  return pbd_Hasher_HashParts(t->hasher, fd->message_type, &part, 1, sd->depth + 1, h, &empty, &s);
}

/* Whether LEFT's element i and RIGHT's element j of the sequence are
 * equal; false also when one cannot be read or hashed (then the window
 * only ends sooner). */
static bool elements_equal(const Narrowing *nw, const Side sd[2], const Sequence *q, uint32_t i,
                           uint32_t j) {
  pbd_Part a = element(&sd[0], &q->side[0].at[i]), b = element(&sd[1], &q->side[1].at[j]);
  const pbd_FieldDef *fd = nw->def->fields[q - nw->seq];
  if (fd->type != kPbd_Type_Message)
    return a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
  pbd_Hash128 ha, hb;
  return element_hash(&sd[0], fd, a, &ha) && element_hash(&sd[1], fd, b, &hb) &&
         pbd_Hash128_Equal(ha, hb);
}

/* fn on each side's job, RIGHT's on a thread of its own when the sides
 * are two trees (which share nothing: arenas, hashers, caches). */
static void both_sides(const Side sd[2], void *(*fn)(void *), void *left, void *right) {
  if (!pbd_Threads_RunBoth(fn, left, right, sd[0].t != sd[1].t)) fn(right);
}

/* A message sequence's common ends are found a block of elements at a
 * time, each side's hashes (a cache lookup each, a few hundred thousand
 * for an ONNX graph's nodes) looked up on its own thread while the other
 * side's are; then the blocks are compared.  Blocks grow from kFirstBlock
 * to kLastBlock elements, so a change near the ends costs little and one
 * far in costs at most a block more than it must. */
enum { kFirstBlock = 4096, kLastBlock = 32768 };

typedef struct {
  const Side *sd;
  const Offsets *o;
  const pbd_FieldDef *fd;
  uint32_t first; /* the block's first element: o->at[first], then on */
  int step;       /* +1 (a prefix) or -1 (a suffix, from the end) */
  uint32_t n;     /* elements wanted */
  uint32_t got;   /* read and hashed, from the first on */
  pbd_Hash128 *h;
} BlockJob;

static void *hash_block(void *p) {
  BlockJob *j = p;
  uint32_t got = 0; /* (a local: the two sides' jobs share a cache line) */
  for (; got < j->n; got++) {
    const Element *e = &j->o->at[j->first + (int64_t)j->step * got];
    if (!element_hash(j->sd, j->fd, element(j->sd, e), &j->h[got])) break;
  }
  j->got = got;
  return NULL;
}

/* How many elements of a message sequence, from the prefix or suffix
 * found so far inward, are equal on both sides (at most `limit`). */
static uint32_t equal_run(const Side sd[2], const Sequence *q,
                          const pbd_FieldDef *fd, bool suffix, uint32_t limit, pbd_Hash128 *h0,
                          pbd_Hash128 *h1) {
  uint32_t done = 0, block = kFirstBlock;
  while (done < limit) {
    uint32_t n = limit - done < block ? limit - done : block;
    BlockJob jobs[2];
    for (int k = 0; k < 2; k++) {
      const Offsets *o = &q->side[k];
      uint32_t first = suffix ? o->n - 1 - q->suffix - done : q->prefix + done;
      jobs[k] = (BlockJob){&sd[k], o, fd, first, suffix ? -1 : 1, n, 0, k ? h1 : h0};
    }
    both_sides(sd, hash_block, &jobs[0], &jobs[1]);
    uint32_t both = jobs[0].got < jobs[1].got ? jobs[0].got : jobs[1].got, i = 0;
    while (i < both && pbd_Hash128_Equal(h0[i], h1[i])) i++;
    done += i;
    if (i < n) break; /* a difference, or an element that does not read */
    if (block < kLastBlock) block *= 2;
  }
  return done;
}

/* The common prefix and suffix of each sequence; false when they are
 * empty everywhere (nothing to leave out), or out of memory. */
static bool find_common_ends(Narrowing *nw, const Side sd[2]) {
  bool any = false;
  pbd_Hash128 *h = malloc(sizeof *h * 2 * kLastBlock);
  if (!h) return false;
  for (uint32_t f = 0; f < nw->def->field_count; f++) {
    Sequence *q = &nw->seq[f];
    uint32_t na = q->side[0].n, nb = q->side[1].n, n = na < nb ? na : nb;
    const pbd_FieldDef *fd = nw->def->fields[f];
    if (n && fd->type == kPbd_Type_Message) {
      q->prefix = equal_run(sd, q, fd, false, n, h, h + kLastBlock);
      q->suffix = equal_run(sd, q, fd, true, n - q->prefix, h, h + kLastBlock);
    } else { /* strings and bytes (and unknown fields' elements) by their bytes */
      while (q->prefix < n && elements_equal(nw, sd, q, q->prefix, q->prefix)) q->prefix++;
      while (q->suffix < n - q->prefix &&
             elements_equal(nw, sd, q, na - 1 - q->suffix, nb - 1 - q->suffix))
        q->suffix++;
    }
    any |= q->prefix + q->suffix > 0;
  }
  free(h);
  return any;
}

/* One side's window: its fields but the sequences' common ends, as byte
 * ranges in order (adjacent fields in one).  NULL when out of memory or
 * in too many pieces. */
static pbd_Message *side_window(Narrowing *nw, const pbd_Message *m, const Side *sd, int k) {
  pbd_Part *parts = malloc(sizeof *parts * kMaxWindowParts);
  uint32_t *seen = calloc(nw->def->field_count, sizeof *seen);
  pbd_Message *w = NULL;
  uint32_t n = 0;
  bool ok = parts && seen;
  for (uint32_t i = 0; ok && i < sd->nparts; i++) {
    const uint8_t *p = sd->parts[i].data, *end = p + sd->parts[i].size;
    while (ok && p < end) {
      const uint8_t *start = p;
      pbd_WireField f;
      if (!next_field(&p, end, nw->depth_left, &f)) {
        ok = false;
        break;
      }
      Sequence *q = sequence_of(nw, &f);
      if (q) {
        uint32_t e = seen[q - nw->seq]++;
        if (e < q->prefix || e >= q->side[k].n - q->suffix) continue;
      }
      if (n && parts[n - 1].data + parts[n - 1].size == start)
        parts[n - 1].size += (size_t)(p - start);
      else if (n < kMaxWindowParts)
        parts[n++] = (pbd_Part){start, (size_t)(p - start)};
      else
        ok = false;
    }
  }
  if (ok && n == 0) parts[n++] = (pbd_Part){sd->parts[0].data, 0}; /* only common ends */
  if (ok) w = pbd_TreeBuild_WindowMessage(m, parts, n);
  free(parts);
  free(seen);
  return w;
}

/* Appends part bytes [from, to) (offsets from the part's start at `base`)
 * to a window's parts, joined to the last when adjacent; false when there
 * are too many. */
static bool keep_range(pbd_Part *parts, uint32_t *n, const pbd_Part *part, size_t base, size_t from,
                       size_t to) {
  if (to <= from) return true;
  const uint8_t *p = part->data + (from - base);
  if (*n && parts[*n - 1].data + parts[*n - 1].size == p) parts[*n - 1].size += to - from;
  else if (*n < kMaxWindowParts) parts[(*n)++] = (pbd_Part){p, to - from};
  else return false;
  return true;
}

/* side_window from the runs: between runs, fields are kept whole; of a run,
 * the elements between its sequence's common ends. */
static pbd_Message *side_window_by_runs(Narrowing *nw, const pbd_Message *m, const Side *sd, int k) {
  const Runs *rs = &nw->runs[k];
  pbd_Part *parts = malloc(sizeof *parts * kMaxWindowParts);
  uint32_t n = 0, r = 0;
  bool ok = parts != NULL;
  size_t base = 0;
  for (uint32_t i = 0; ok && i < sd->nparts; base += sd->parts[i++].size) {
    size_t cursor = base, part_end = base + sd->parts[i].size;
    for (; ok && r < rs->n; r++) {
      const Run *run = &rs->v[r];
      const Sequence *q = &nw->seq[run->seq];
      const Offsets *o = &q->side[k];
      if (o->at[run->first].at >= part_end) break; /* the next part's */
      uint32_t lo = run->first > q->prefix ? run->first : q->prefix;
      uint32_t hi = run->first + run->count, keep_to = o->n - q->suffix;
      size_t hi_end = run->end;
      if (hi > keep_to) hi = keep_to, hi_end = o->at[keep_to].at; /* (the next element of this run) */
      ok = keep_range(parts, &n, &sd->parts[i], base, cursor, o->at[run->first].at);
      if (ok && lo < hi) ok = keep_range(parts, &n, &sd->parts[i], base, o->at[lo].at, hi_end);
      cursor = run->end;
    }
    ok = ok && keep_range(parts, &n, &sd->parts[i], base, cursor, part_end);
  }
  pbd_Message *w = NULL;
  if (ok && n == 0) parts[n++] = (pbd_Part){sd->parts[0].data, 0}; /* only common ends */
  if (ok) w = pbd_TreeBuild_WindowMessage(m, parts, n);
  free(parts);
  return w;
}

/* The window's fields: each sequence with a common prefix or suffix, its
 * elements' indices higher by the prefix. */
static pbd_WindowField *window_fields(const Narrowing *nw, pbd_Arena *arena, uint32_t *count) {
  uint32_t n = 0;
  for (uint32_t f = 0; f < nw->def->field_count; f++)
    n += nw->seq[f].prefix + nw->seq[f].suffix > 0;
  pbd_WindowField *v = pbd_Arena_Malloc(arena, sizeof *v * (n ? n : 1));
  if (!v) return NULL;
  *count = 0;
  for (uint32_t f = 0; f < nw->def->field_count; f++) {
    const Sequence *q = &nw->seq[f];
    if (q->prefix + q->suffix == 0) continue;
    const pbd_FieldDef *fd = nw->def->fields[f];
    v[(*count)++] = (pbd_WindowField){fd->number, fd, q->prefix};
  }
  return v;
}

/* The two sides are read at once: they share only nw, read-only by then
 * (each side's offsets are its own), and each its tree (arena, hasher). */
typedef struct {
  Narrowing *nw;
  const pbd_Message *m;
  const Side *sd;
  int k;
  bool ok;
  pbd_Message *window;
} SideJob;

static void *list_job(void *p) {
  SideJob *j = p;
  j->ok = list_elements(j->nw, j->sd, j->k);
  return NULL;
}

static void *window_job(void *p) {
  SideJob *j = p;
  j->window = j->nw->runs[j->k].over ? side_window(j->nw, j->m, j->sd, j->k)
                                     : side_window_by_runs(j->nw, j->m, j->sd, j->k);
  j->ok = j->window != NULL;
  return NULL;
}

static bool on_both_sides(SideJob jobs[2], const Side sd[2], void *(*fn)(void *)) {
  both_sides(sd, fn, &jobs[0], &jobs[1]);
  return jobs[0].ok && jobs[1].ok;
}

/* A shallow message's parts, when it is unread and big enough to narrow. */
static bool unread_parts(const pbd_Message *m, Side *sd) {
  if (!m->unread_ || m->building_) return false;
  const Unread *u = m->unread_;
  uint64_t size = 0;
  for (uint32_t i = 0; i < u->nparts; i++) size += u->parts[i].size;
  if (size < kNarrowBytes || size > UINT32_MAX) return false;
  *sd = (Side){u->parts, u->nparts, u->tree, u->depth};
  return true;
}

bool pbd_Message_NarrowByHash(const pbd_Message *a, const pbd_Message *b,
                              bool (*keep_whole)(void *ctx, const pbd_FieldDef *field),
                              void *ctx, pbd_MessageWindow *out) {
  Side sd[2];
  if (!unread_parts(a, &sd[0]) || !unread_parts(b, &sd[1]) || a->def != b->def || !a->def ||
      a->def->is_map_entry || !strcmp(a->def->full_name, "google.protobuf.Any"))
    return false;
  Narrowing nw = {.def = a->def, .keep_whole = keep_whole, .ctx = ctx,
                  .depth_left = pbd_ReadOptions_MaxDepth(&sd[0].t->o) - sd[0].depth,
                  .seq = calloc(a->def->field_count ? a->def->field_count : 1, sizeof(Sequence))};
  bool ok = nw.seq && nw.depth_left > 0;
  for (uint32_t f = 0; ok && f < a->def->field_count; f++) /* decided before the threads */
    nw.seq[f] = (Sequence){.decided = true, .narrowed = narrowed(&nw, a->def->fields[f])};
  SideJob jobs[2] = {{&nw, a, &sd[0], 0, false, NULL}, {&nw, b, &sd[1], 1, false, NULL}};
  ok = ok && on_both_sides(jobs, sd, list_job) && find_common_ends(&nw, sd);
  ok = ok && on_both_sides(jobs, sd, window_job);
  for (uint32_t f = 0; nw.seq && f < a->def->field_count; f++)
    free(nw.seq[f].side[0].at), free(nw.seq[f].side[1].at);
  free(nw.runs[0].v), free(nw.runs[1].v);
  pbd_Message *l = ok ? jobs[0].window : NULL, *r = ok ? jobs[1].window : NULL;
  uint32_t nfields = 0;
  pbd_WindowField *fields = r ? window_fields(&nw, sd[0].t->arena, &nfields) : NULL;
  free(nw.seq);
  if (!fields) return false;
  *out = (pbd_MessageWindow){l, r, fields, nfields};
  return true;
}
