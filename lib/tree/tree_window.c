/* pbdiff — the window where two shallow messages differ (tree.h,
 * pbd_Message_NarrowPair).
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
#include <string.h>

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
  pbd_Status s;
  pbd_Status_Clear(&s);
  const uint8_t *q = pbd_Wire_ReadField(*p, end, *p, depth_left, f, &s);
  if (!q || f->wire_type == kPbd_WireType_EndGroup) return false;
  *p = q;
  return true;
}

/* Whether the occurrences of field `number` of def may be compared by
 * their order alone (see the head of the file); *fd gets its def (NULL: an
 * unknown field, or no schema). */
static bool sequence_field(const pbd_MessageDef *def, uint32_t number, const pbd_FieldDef **fd) {
  *fd = def ? pbd_MessageDef_FindFieldByNumber(def, number) : NULL;
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

static pbd_Message *window_message(const pbd_Message *m, pbd_Part part) {
  Unread *u = m->unread_;
  pbd_LazyTree *t = u->tree;
  Ctx c = pbd_TreeBuild_NewCtx(m->def, t->buf, &t->o, t->arena, &t->status);
  c.lazy = t;
  c.schemaless = m->def == NULL;
  pbd_Message *w = pbd_TreeBuild_NewUnread(&c, m->def, u->depth, part.data, part.size);
  if (!w) return NULL;
  return pbd_TreeBuild_FinishUnread(&c, w) ? w : NULL;
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
  pbd_Message *l = window_message(a, wa), *r = l ? window_message(b, wb) : NULL;
  if (!l || !r) return false;
  *out = (pbd_MessageWindow){l, r, wf.number, wf.fd, base};
  return true;
}
