/* pbdiff — a patch's paths followed in a canonical tree, and its edits made
 * copy-on-write: a new message for each one on the path from the root to the
 * edit, everything else shared with the old tree (which stays as it was).
 *
 * Paths are pbdiff's (diff/path.h): `a.b[3].c`, `m["k"]`, `node[name="x"]`,
 * `.[pkg.ext]`, `.[type.googleapis.com/T]`.  A key in brackets is matched by
 * writing each candidate's key as pbd_Path_Format writes it and comparing
 * the text, so a patch's paths mean what the diff's paths meant.
 *
 * The tree's messages are built here directly (tree.h makes the struct
 * visible): an edited message keeps its type and its Any payload; its hash
 * is the old one, stale, and nothing downstream reads it (the writer and the
 * guards read values, never hashes). */
#include <stdio.h>
#include <string.h>

#include "patch/patch_internal.h"
#include "pbdiff/diff/path.h"

typedef enum { kSeg_Field, kSeg_Ext, kSeg_Any, kSeg_Select } SegKind;

typedef struct {
  SegKind kind;
  const char *s; /* the name, or what is inside the brackets */
  size_t n;
} Seg;

enum { kMaxSegs = 256 };

typedef struct {
  Seg segs[kMaxSegs];
  size_t nsegs;
  const pbd_PatchOp *op;   /* NULL: only resolve */
  pbd_Target *target;
  bool has_context;          /* the deepest element by index so far */
  const pbd_Field *context_field;
  uint32_t context_index;
  bool context_is_target;
  size_t context_path_len;
  const char *path;
  pbd_Arena *a;
  char *why;
  size_t whyn;
} Ctx;

static bool fail(Ctx *c, const char *what, const Seg *s) {
  if (s) snprintf(c->why, c->whyn, "%s: %.*s", what, (int)s->n, s->s);
  else snprintf(c->why, c->whyn, "%s", what);
  return false;
}

/* The end of a bracket starting at p ('['), quotes and escapes skipped. */
static const char *bracket_end(const char *p, const char *end) {
  bool q = false;
  for (p++; p < end; p++) {
    if (q && *p == '\\') p++;
    else if (*p == '"') q = !q;
    else if (!q && *p == ']') return p;
  }
  return NULL;
}

static bool split(Ctx *c, const char *path, size_t n) {
  const char *p = path, *end = path + n;
  bool after_field = false;
  c->nsegs = 0;
  while (p < end) {
    if (c->nsegs == kMaxSegs) return fail(c, "path too deep", NULL);
    Seg *s = &c->segs[c->nsegs];
    if (*p == '.') {
      p++;
      after_field = false;
      if (p >= end) return fail(c, "path ends with '.'", NULL);
    }
    if (*p == '[') {
      const char *e = bracket_end(p, end);
      if (!e) return fail(c, "unclosed '[' in the path", NULL);
      s->s = p + 1;
      s->n = (size_t)(e - p - 1);
      s->kind = after_field ? kSeg_Select : memchr(s->s, '/', s->n) ? kSeg_Any : kSeg_Ext;
      p = e + 1;
      after_field = s->kind == kSeg_Ext; /* an extension is a field: [N] may follow */
    } else {
      s->s = p;
      while (p < end && *p != '.' && *p != '[') p++;
      s->n = (size_t)(p - s->s);
      if (s->n == 0) return fail(c, "empty segment in the path", NULL);
      s->kind = kSeg_Field;
      after_field = true;
    }
    c->nsegs++;
  }
  return c->nsegs > 0 || fail(c, "empty path", NULL);
}

static bool seg_is(const Seg *s, const char *str) { return s->n == strlen(str) && !memcmp(s->s, str, s->n); }

static const pbd_FieldDef *seg_field(Ctx *c, const pbd_MessageDef *t, const Seg *s) {
  for (uint32_t i = 0; t && i < t->field_count; i++) {
    const pbd_FieldDef *fd = t->fields[i];
    if (s->kind == kSeg_Field && !fd->is_extension && seg_is(s, fd->name)) return fd;
    if (s->kind == kSeg_Ext && fd->is_extension && seg_is(s, fd->full_name)) return fd;
  }
  fail(c, t ? "no such field in the schema" : "no schema to name fields by", s);
  return NULL;
}

/* The field of m that fd is (NULL when absent) and its index, or where it
 * would go (number order, a known field before an unknown one). */
static const pbd_Field *find_field(const pbd_Message *m, const pbd_FieldDef *fd, uint32_t *at) {
  const pbd_Field *fs = m ? pbd_Message_Fields(m) : NULL;
  uint32_t n = m ? pbd_Message_FieldCount(m) : 0, i = 0;
  while (i < n && (fs[i].number < fd->number || (fs[i].number == fd->number && fs[i].def != fd && fs[i].def)))
    i++;
  *at = i;
  return i < n && fs[i].def == fd ? &fs[i] : NULL;
}

/* ---- Selecting an element or entry ------------------------------------------ */

static bool key_text_matches(const pbd_PathSeg *seg, const Seg *s) {
  pbd_Path p = {.segs = (pbd_PathSeg *)seg, .count = 1, .cap = 1};
  pbd_Buf b = {0};
  pbd_Path_Format(&b, &p, 0, 1);
  bool eq = !b.oom && b.len == s->n + 2 && !memcmp(b.data + 1, s->s, s->n);
  pbd_Buf_Free(&b);
  return eq;
}

/* A keyed selector's occurrence, `name="x"#2` (pbd_Path_AppendOccurrence):
 * cuts the `#N` off *s and returns N - 1 (0 without one).  A `#` inside a
 * quoted value is the key's, not a mark: the mark comes after its quote,
 * and an unquoted key value holds no `#`. */
static uint32_t key_occurrence(Seg *s) {
  size_t k = s->n;
  while (k > 0 && s->s[k - 1] >= '0' && s->s[k - 1] <= '9') k--;
  if (k == s->n || k < 2 || s->s[k - 1] != '#' || s->n - k > 9) return 0;
  uint32_t v = 0;
  for (size_t i = k; i < s->n; i++) v = v * 10 + (uint32_t)(s->s[i] - '0');
  if (v < 2) return 0;
  s->n = k - 1;
  return v - 1;
}

/* The key fields named in `name=v,name2=w` (values skipped, quotes respected). */
static size_t key_fields(const pbd_MessageDef *t, const Seg *s, const pbd_FieldDef **out) {
  size_t k = 0;
  const char *p = s->s, *end = s->s + s->n;
  while (p < end && k < kPbd_MaxKeyFields) {
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq) return 0;
    char name[128];
    size_t nl = (size_t)(eq - p);
    if (nl >= sizeof name) return 0;
    memcpy(name, p, nl);
    name[nl] = '\0';
    out[k] = t ? pbd_MessageDef_FindFieldByName(t, name) : NULL;
    if (!out[k]) return 0;
    k++;
    bool q = false;
    int depth = 0;
    for (p = eq + 1; p < end; p++) {
      if (q && *p == '\\') p++;
      else if (*p == '"') q = !q;
      else if (!q && *p == '[') depth++;
      else if (!q && *p == ']') depth--;
      else if (!q && depth == 0 && *p == ',') break;
    }
    if (p < end) p++;
  }
  return k;
}

/* Fills the target of a selector `[...]` on field f (may be NULL) of fd. */
static bool select(Ctx *c, const pbd_FieldDef *fd, const pbd_Field *f, const Seg *s, pbd_Target *t) {
  uint32_t count = f ? f->count : 0;
  t->field = f;
  t->found = false;
  if (fd->is_map) {
    t->kind = kPbd_Target_Entry;
    t->key_text = s->s;
    t->key_len = s->n;
    t->index = count;
    for (uint32_t i = 0; i < count; i++) {
      pbd_PathSeg seg = {.kind = kPbd_Seg_MapKey, .key = pbd_MapEntry_Part(f->v.msgs[i], 1)};
      if (key_text_matches(&seg, s)) {
        t->index = i;
        t->found = true;
        break;
      }
    }
    return true;
  }
  if (!fd->is_repeated) return fail(c, "an index or key after a field that is not repeated", s);
  t->kind = kPbd_Target_Element;
  if (s->n > 0 && s->s[0] >= '0' && s->s[0] <= '9') {
    uint64_t v = 0;
    for (size_t i = 0; i < s->n; i++) {
      if (s->s[i] < '0' || s->s[i] > '9' || v > UINT32_MAX / 10) return fail(c, "bad index", s);
      v = v * 10 + (uint64_t)(s->s[i] - '0');
    }
    t->by_index = true;
    t->index = (uint32_t)v;
    t->found = v < count;
    return true;
  }
  Seg key = *s;
  uint32_t wanted = key_occurrence(&key);
  const pbd_FieldDef *keys[kPbd_MaxKeyFields];
  size_t nk = fd->message_type ? key_fields(fd->message_type, &key, keys) : 0;
  if (nk == 0) return fail(c, "not an index nor key fields of the element", s);
  t->index = count;
  for (uint32_t i = 0, seen = 0; i < count; i++) {
    pbd_PathSeg seg = {.kind = kPbd_Seg_ElementKey, .key_fields = keys, .key_count = nk,
                       .element = f->v.msgs[i]};
    if (!key_text_matches(&seg, &key)) continue;
    if (seen++ < wanted) continue; /* `#N`: the N-th element with the key */
    t->index = i;
    t->found = true;
    break;
  }
  return true;
}

pbd_Value pbd_Target_Value(const pbd_Target *t) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  if (!t->found || !t->field) return v;
  if (t->kind == kPbd_Target_Entry) return pbd_MapEntry_Part(t->field->v.msgs[t->index], 2);
  return pbd_Field_Value(t->field, t->kind == kPbd_Target_Element ? t->index : 0);
}

/* ---- Copy-on-write ------------------------------------------------------------ */

static pbd_Message *new_message(Ctx *c, const pbd_Message *like, const pbd_MessageDef *def,
                                pbd_Field *fields, uint32_t n) {
  pbd_Message *m = pbd_Arena_Calloc(c->a, sizeof *m);
  if (!m) return NULL;
  m->def = like ? like->def : def;
  m->fields_ = fields;
  m->field_count_ = n;
  if (like) {
    m->hash = like->hash;
    m->any_payload_ = pbd_Message_AnyPayload(like);
  }
  return m;
}

/* m's fields with field `at` replaced by *nf (insert: put before it; nf
 * NULL: deleted), fields of the same real oneof as nf dropped. */
static pbd_Message *with_field(Ctx *c, const pbd_Message *m, const pbd_MessageDef *def, uint32_t at,
                               bool insert, const pbd_Field *nf) {
  uint32_t n = m ? pbd_Message_FieldCount(m) : 0;
  const pbd_Field *fs = m ? pbd_Message_Fields(m) : NULL;
  pbd_Field *out = pbd_Arena_Malloc(c->a, sizeof *out * (n + 1));
  if (!out) return NULL;
  uint32_t k = 0;
  const pbd_OneofDef *oneof = nf && nf->def ? nf->def->oneof : NULL;
  for (uint32_t i = 0; i <= n; i++) {
    if (i == at && nf) out[k++] = *nf;
    if (i == n) break;
    if (i == at && !insert) continue; /* replaced or deleted */
    if (oneof && fs[i].def && fs[i].def->oneof == oneof) continue;
    out[k++] = fs[i];
  }
  return new_message(c, m, def, out, k);
}

static size_t value_size(pbd_ValueKind k) {
  if (k == kPbd_Value_String || k == kPbd_Value_Bytes) return sizeof(pbd_StrView);
  if (k == kPbd_Value_Message) return sizeof(pbd_Message *);
  return sizeof(uint64_t);
}

/* A field's values as an array of value_size each: scalars still in the
 * input (pbd_Field.stride) copied out as slots; NULL when out of memory. */
static const void *values_of(Ctx *c, const pbd_Field *f) {
  if (!f->stride) return f->v.scalars;
  uint64_t *v = pbd_Arena_Malloc(c->a, sizeof *v * (f->count ? f->count : 1));
  if (v) pbd_Field_Scalars(f, 0, f->count, v);
  return v;
}

/* f (may be NULL: an empty field of nv's kind) with element i replaced by
 * nv's first value, nv's value inserted before i, or element i deleted
 * (nv NULL).  *out is the new field; count 0 means it is gone. */
static bool with_element(Ctx *c, const pbd_Field *f, const pbd_Field *nv, uint32_t i, bool insert,
                         pbd_Field *out) {
  const pbd_Field *like = f ? f : nv;
  size_t sz = value_size(like->kind);
  uint32_t count = f ? f->count : 0, n = count + (insert ? 1 : 0) - (nv ? 0 : 1);
  char *arr = pbd_Arena_Malloc(c->a, sz * (n ? n : 1));
  if (!arr) return false;
  const char *old = f ? values_of(c, f) : NULL, *first = nv ? values_of(c, nv) : NULL;
  if ((f && f->stride && !old) || (nv && nv->stride && !first)) return false; /* out of memory */
  size_t k = 0;
  for (uint32_t j = 0; j <= count; j++) {
    if (j == i && nv) memcpy(arr + sz * k++, first, sz);
    if (j == count) break;
    if (j == i && !insert) continue;
    memcpy(arr + sz * k++, old + sz * j, sz);
  }
  *out = *like;
  out->count = (uint32_t)k;
  out->stride = 0;
  out->v.scalars = (uint64_t *)(void *)arr;
  return true;
}

/* Where a new map entry goes: the first entry whose key is not less. */
static uint32_t entry_position(const pbd_Field *f, const pbd_Message *entry) {
  pbd_Value k = pbd_MapEntry_Part(entry, 1);
  uint32_t i = 0;
  while (f && i < f->count) {
    pbd_Value e = pbd_MapEntry_Part(f->v.msgs[i], 1);
    if (pbd_Value_CompareKeys(&e, &k) >= 0) break;
    i++;
  }
  return i;
}

/* The holder m with the op applied to the selected element or entry. */
static const pbd_Message *edit_selected(Ctx *c, const pbd_Message *m, const pbd_MessageDef *def,
                                        const pbd_Target *t, uint32_t at) {
  const pbd_PatchOp *op = c->op;
  pbd_Field nf;
  bool ok;
  if (op->remove) {
    if (!t->found) return fail(c, "nothing to remove there", NULL), NULL;
    ok = with_element(c, t->field, NULL, t->index, false, &nf);
  } else {
    if (!op->value || op->value->count == 0) return fail(c, "no value to set", NULL), NULL;
    uint32_t i = t->index;
    bool insert = t->by_index ? op->insert : !t->found;
    if (t->kind == kPbd_Target_Entry) {
      if (!t->found) i = entry_position(t->field, op->value->v.msgs[0]);
    } else if (insert && !t->by_index) {
      i = op->at >= 0 && (uint64_t)op->at <= (t->field ? t->field->count : 0) ? (uint32_t)op->at
                                                                                : (t->field ? t->field->count : 0);
    } else if (insert && i > (t->field ? t->field->count : 0)) {
      return fail(c, "index past the end of the field", NULL), NULL;
    }
    ok = with_element(c, t->field, op->value, i, insert, &nf);
  }
  if (!ok) return fail(c, "out of memory", NULL), NULL;
  if (nf.count == 0) return t->field ? with_field(c, m, def, at, false, NULL) : m;
  return with_field(c, m, def, at, t->field == NULL, &nf);
}

/* The holder m with the op applied to singular field fd. */
static const pbd_Message *edit_singular(Ctx *c, const pbd_Message *m, const pbd_MessageDef *def,
                                        const pbd_Field *f, uint32_t at) {
  const pbd_PatchOp *op = c->op;
  if (op->remove || !op->value || op->value->count == 0) /* removed, or set to a default */
    return f ? with_field(c, m, def, at, false, NULL) : m;
  return with_field(c, m, def, at, f == NULL, op->value);
}

/* Follows segs[k...] from m (of type def); with an op, returns the new m
 * (NULL on failure); without, fills the target and returns m. */
static const pbd_Message *step(Ctx *c, const pbd_Message *m, const pbd_MessageDef *def, size_t k) {
  const Seg *s = &c->segs[k];
  static const pbd_Message kEmpty; /* a message a path goes through but no value holds */
  if (!m && c->op) m = new_message(c, NULL, def, NULL, 0);
  if (!m && c->op) return fail(c, "out of memory", NULL), NULL;
  if (!m) m = &kEmpty;
  if (s->kind == kSeg_Select) return fail(c, "a selector without a field", s), NULL;
  if (s->kind == kSeg_Any) {
    const pbd_Message *payload = m ? pbd_Message_AnyPayload(m) : NULL;
    pbd_StrView url = m ? pbd_Message_AnyTypeUrl(m) : (pbd_StrView){"", 0};
    if (!payload || url.size != s->n || memcmp(url.data, s->s, s->n))
      return fail(c, "no Any payload of this type there", s), NULL;
    if (k + 1 == c->nsegs) return fail(c, "a path ends at an Any's payload", s), NULL;
    const pbd_Message *np = step(c, payload, payload->def, k + 1);
    if (!np) return NULL;
    if (!c->op) return m;
    pbd_Message *nm = new_message(c, m, def, (pbd_Field *)pbd_Message_Fields(m), pbd_Message_FieldCount(m));
    if (nm) nm->any_payload_ = np;
    return nm;
  }
  const pbd_FieldDef *fd = seg_field(c, def, s);
  if (!fd) return NULL;
  uint32_t at;
  const pbd_Field *f = find_field(m, fd, &at);
  pbd_Target *t = c->target;
  memset(t, 0, sizeof *t);
  t->holder = m;
  t->fd = fd;
  t->field = f;
  if (k + 1 < c->nsegs && c->segs[k + 1].kind == kSeg_Select) {
    if (!select(c, fd, f, &c->segs[k + 1], t)) return NULL;
    if (t->kind == kPbd_Target_Element && t->by_index) {
      c->has_context = true;
      c->context_field = f;
      c->context_index = t->index;
      c->context_is_target = k + 2 == c->nsegs;
      c->context_path_len = (size_t)(c->segs[k + 1].s + c->segs[k + 1].n + 1 - c->path);
    }
    if (k + 2 == c->nsegs) return c->op ? edit_selected(c, m, def, t, at) : m;
    if (!t->found) return fail(c, "no such element or entry", &c->segs[k + 1]), NULL;
    /* into the element, or the entry's value */
    const pbd_Message *child = f->v.msgs[t->index];
    const pbd_FieldDef *vfd = fd->is_map ? pbd_MessageDef_FindFieldByNumber(fd->message_type, 2) : NULL;
    const pbd_MessageDef *ct = fd->is_map ? (vfd ? vfd->message_type : NULL) : fd->message_type;
    if (!ct) return fail(c, "a path goes on below a value that is not a message", s), NULL;
    uint32_t index = t->index;
    if (fd->is_map) {
      pbd_Value part = pbd_MapEntry_Part(child, 2);
      const pbd_Message *vm = part.m;
      const pbd_Message *nv = step(c, vm, ct, k + 2);
      if (!nv) return NULL;
      if (!c->op) return m;
      uint32_t vat;
      const pbd_Field *vf = find_field(child, vfd, &vat);
      pbd_Field nvf = vf ? *vf : (pbd_Field){.number = 2, .kind = kPbd_Value_Message, .def = vfd, .count = 1};
      const pbd_Message **one = pbd_Arena_Malloc(c->a, sizeof *one);
      if (!one) return fail(c, "out of memory", NULL), NULL;
      *one = nv;
      nvf.count = 1;
      nvf.v.msgs = (pbd_Message **)one;
      const pbd_Message *ne = with_field(c, child, fd->message_type, vat, vf == NULL, &nvf);
      if (!ne) return fail(c, "out of memory", NULL), NULL;
      child = ne;
    } else {
      child = step(c, child, ct, k + 2);
      if (!child) return NULL;
      if (!c->op) return m;
    }
    pbd_Field one = *f, nf;
    one.count = 1;
    one.v.msgs = (pbd_Message **)&child;
    if (!with_element(c, f, &one, index, false, &nf)) return fail(c, "out of memory", NULL), NULL;
    return with_field(c, m, def, at, false, &nf);
  }
  t->kind = kPbd_Target_Field;
  t->found = f != NULL;
  if (fd->is_repeated && k + 1 == c->nsegs) return fail(c, "a path ends at a repeated field without an index", s), NULL;
  if (k + 1 == c->nsegs) return c->op ? edit_singular(c, m, def, f, at) : m;
  if (!fd->message_type) return fail(c, "a path goes on below a value that is not a message", s), NULL;
  if (!f) return fail(c, "no such message", s), NULL;
  const pbd_Message *child = step(c, f->v.msgs[0], fd->message_type, k + 1);
  if (!child) return NULL;
  if (!c->op) return m;
  pbd_Field nf = *f;
  const pbd_Message **one = pbd_Arena_Malloc(c->a, sizeof *one);
  if (!one) return fail(c, "out of memory", NULL), NULL;
  *one = child;
  nf.v.msgs = (pbd_Message **)one;
  return with_field(c, m, def, at, false, &nf);
}

bool pbd_PatchTree_Resolve(const pbd_Message *root, const pbd_MessageDef *type, const char *path,
                           size_t n, pbd_Target *t, char *why, size_t whyn) {
  Ctx c;
  memset(&c, 0, sizeof c);
  c.op = NULL;
  c.path = path;
  c.target = t;
  c.why = why;
  c.whyn = whyn;
  if (!split(&c, path, n) || !step(&c, root, type, 0)) return false;
  t->has_context = c.has_context;
  t->context_field = c.context_field;
  t->context_index = c.context_index;
  t->context_is_target = c.context_is_target;
  t->context_path_len = c.context_path_len;
  return true;
}

const pbd_Message *pbd_PatchTree_Edit(const pbd_Message *root, const pbd_MessageDef *type,
                                      const char *path, size_t n, const pbd_PatchOp *op,
                                      pbd_Arena *a, char *why, size_t whyn) {
  Ctx c;
  pbd_Target t;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.target = &t;
  c.a = a;
  c.why = why;
  c.whyn = whyn;
  if (!split(&c, path, n)) return NULL;
  return step(&c, root, type, 0);
}
