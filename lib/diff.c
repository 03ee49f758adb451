/* pbdiff — side-by-side walk of two canonical trees.
 *
 * Both trees are canonical (fields sorted by number, map entries by key), so
 * the walk is a merge: fields paired by number, map entries by key,
 * repeated elements by index (alignment is a later refinement).  Equal
 * subtree hashes end the descent at once.  Edits go to the caller's
 * callback with the path built in one growing buffer. */
#include "diff.h"

#include <string.h>

#include "format.h"

typedef struct {
  const pbd_DiffOptions *o;
  pbd_EditFunc *fn;
  void *ctx;
  size_t n;
  pbd_Buf path;
  size_t parent_len;              /* path length of the message being walked */
  const pbd_MessageDef *parent;   /* and its type */
} Walk;

const char *pbd_EditKind_String(pbd_EditKind k) {
  switch (k) {
    case kPbd_Edit_Added: return "added";
    case kPbd_Edit_Removed: return "removed";
    case kPbd_Edit_Changed: return "changed";
    case kPbd_Edit_Presence: return "presence";
    case kPbd_Edit_Moved: return "moved";
  }
  return "?";
}

static const pbd_Value kNone = {.kind = kPbd_Value_None};

static int emit(Walk *w, pbd_EditKind kind, const pbd_Value *l, const pbd_Value *r) {
  pbd_Edit e = {kind, w->path.data ? w->path.data : "", w->parent_len, w->parent,
                l ? *l : kNone, r ? *r : kNone, -1, -1};
  w->n++;
  return w->fn(w->ctx, &e);
}

/* ---- Paths ---------------------------------------------------------------- */

static void push_name(Walk *w, const char *name) {
  if (w->path.len) pbd_Buf_AppendChar(&w->path, '.');
  pbd_Buf_AppendStr(&w->path, name);
}

static void push_field(Walk *w, const pbd_Field *f) {
  if (!f->def) {
    if (w->path.len) pbd_Buf_AppendChar(&w->path, '.');
    pbd_Buf_Printf(&w->path, "%u", f->number);
  } else if (f->def->is_extension) {
    if (w->path.len) pbd_Buf_AppendChar(&w->path, '.');
    pbd_Buf_Printf(&w->path, "[%s]", f->def->full_name);
  } else {
    push_name(w, f->def->name);
  }
}

static void push_index(Walk *w, uint32_t i) { pbd_Buf_Printf(&w->path, "[%u]", i); }

void pbd_Diff_AppendKeySegment(pbd_Buf *path, const pbd_Value *key) {
  pbd_Buf_AppendChar(path, '[');
  switch (key->kind) {
    case kPbd_Value_String:
    case kPbd_Value_Bytes:
      pbd_Format_JsonString(path, key->s.data, key->s.size);
      break;
    case kPbd_Value_Int:
    case kPbd_Value_Enum:
      pbd_Buf_Printf(path, "%lld", (long long)key->i);
      break;
    case kPbd_Value_Bool:
      pbd_Buf_AppendStr(path, key->u ? "true" : "false");
      break;
    default:
      pbd_Buf_Printf(path, "%llu", (unsigned long long)key->u);
      break;
  }
  pbd_Buf_AppendChar(path, ']');
}

/* ---- Values --------------------------------------------------------------- */

static bool float_equal(const Walk *w, pbd_ValueKind k, uint64_t a, uint64_t b) {
  if (w->o->float_bits || a == b) return a == b;
  return pbd_Value_FloatEqual(k, a, b); /* rule 10 */
}

static bool is_message_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Message || k == kPbd_Value_LenMessage || k == kPbd_Value_Group;
}

static bool values_equal(const Walk *w, const pbd_Value *a, const pbd_Value *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case kPbd_Value_None: return true;
    case kPbd_Value_Float:
    case kPbd_Value_Double: return float_equal(w, a->kind, a->u, b->u);
    case kPbd_Value_String:
    case kPbd_Value_Bytes:
    case kPbd_Value_Len:
      return a->s.size == b->s.size && (a->s.size == 0 || !memcmp(a->s.data, b->s.data, a->s.size));
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
    case kPbd_Value_Group:
      if (!a->m || !b->m) return (a->m ? a->m->field_count : 0) == (b->m ? b->m->field_count : 0);
      return pbd_Hash128_Equal(a->m->hash, b->m->hash);
    default: return a->u == b->u;
  }
}

/* ---- Walk ----------------------------------------------------------------- */

static int diff_message(Walk *w, const pbd_Message *l, const pbd_Message *r);

/* Compares two values at the current path: messages are walked, the rest
 * reported as changed when they differ. */
static int diff_values(Walk *w, const pbd_Value *l, const pbd_Value *r) {
  if (is_message_kind(l->kind) && l->kind == r->kind && l->m && r->m)
    return diff_message(w, l->m, r->m);
  if (values_equal(w, l, r)) return 0;
  return emit(w, kPbd_Edit_Changed, l, r);
}

static int diff_indexed(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  uint32_t n = l->count < r->count ? l->count : r->count;
  size_t mark = w->path.len;
  int rc = 0;
  bool index = !l->def || l->def->is_repeated;
  for (uint32_t i = 0; i < n && !rc; i++) {
    pbd_Value a = pbd_Field_Value(l, i), b = pbd_Field_Value(r, i);
    if (index) push_index(w, i);
    rc = diff_values(w, &a, &b);
    pbd_Buf_Truncate(&w->path, mark);
  }
  for (uint32_t i = n; i < l->count && !rc; i++) { /* tail only in LEFT */
    pbd_Value a = pbd_Field_Value(l, i);
    push_index(w, i);
    rc = emit(w, kPbd_Edit_Removed, &a, NULL);
    pbd_Buf_Truncate(&w->path, mark);
  }
  for (uint32_t i = n; i < r->count && !rc; i++) { /* tail only in RIGHT */
    pbd_Value b = pbd_Field_Value(r, i);
    push_index(w, i);
    rc = emit(w, kPbd_Edit_Added, NULL, &b);
    pbd_Buf_Truncate(&w->path, mark);
  }
  return rc;
}

/* Rule 5: entries paired by key; the path names the key, and a change
 * reports the values. */
static int diff_map(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  uint32_t i = 0, j = 0;
  size_t mark = w->path.len;
  int rc = 0;
  while ((i < l->count || j < r->count) && !rc) {
    const pbd_Message *le = i < l->count ? l->v.msgs[i] : NULL;
    const pbd_Message *re = j < r->count ? r->v.msgs[j] : NULL;
    pbd_Value lk = le ? pbd_MapEntry_Part(le, 1) : kNone, rk = re ? pbd_MapEntry_Part(re, 1) : kNone;
    int c = !le ? 1 : !re ? -1 : pbd_Value_CompareKeys(&lk, &rk);
    pbd_Diff_AppendKeySegment(&w->path, c <= 0 ? &lk : &rk);
    if (c == 0) {
      if (!pbd_Hash128_Equal(le->hash, re->hash)) {
        pbd_Value lv = pbd_MapEntry_Part(le, 2), rv = pbd_MapEntry_Part(re, 2);
        rc = diff_values(w, &lv, &rv);
      }
      i++, j++;
    } else if (c < 0) {
      pbd_Value lv = pbd_MapEntry_Part(le, 2);
      rc = emit(w, kPbd_Edit_Removed, &lv, NULL);
      i++;
    } else {
      pbd_Value rv = pbd_MapEntry_Part(re, 2);
      rc = emit(w, kPbd_Edit_Added, NULL, &rv);
      j++;
    }
    pbd_Buf_Truncate(&w->path, mark);
  }
  return rc;
}

/* A field present in one tree only (rule 7 decides the kind of edit). */
static int field_only(Walk *w, const pbd_Field *f, bool in_left) {
  pbd_EditKind kind = in_left ? kPbd_Edit_Removed : kPbd_Edit_Added;
  size_t mark = w->path.len;
  int rc = 0;
  const pbd_FieldDef *fd = f->def;
  if (!fd || fd->is_repeated) {
    for (uint32_t i = 0; i < f->count && !rc; i++) {
      pbd_Value v = pbd_Field_Value(f, i);
      if (fd && fd->is_map) {
        pbd_Value k = pbd_MapEntry_Part(v.m, 1);
        pbd_Diff_AppendKeySegment(&w->path, &k);
        v = pbd_MapEntry_Part(v.m, 2);
      } else {
        push_index(w, i);
      }
      rc = in_left ? emit(w, kind, &v, NULL) : emit(w, kind, NULL, &v);
      pbd_Buf_Truncate(&w->path, mark);
    }
    return rc;
  }
  pbd_Value v = pbd_Field_Value(f, 0);
  if (!fd->has_presence) {
    /* Implicit presence: absent means the default, so this is a change. */
    pbd_Value d = pbd_FieldDef_DefaultValue(fd);
    return in_left ? emit(w, kPbd_Edit_Changed, &v, &d) : emit(w, kPbd_Edit_Changed, &d, &v);
  }
  bool at_default;
  if (v.kind == kPbd_Value_Message) {
    at_default = v.m->field_count == 0 && !v.m->any_payload;
  } else {
    pbd_Value d = pbd_FieldDef_DefaultValue(fd);
    Walk by_value = *w;
    pbd_DiffOptions o = *w->o;
    o.float_bits = false;
    by_value.o = &o;
    at_default = values_equal(&by_value, &v, &d);
  }
  if (at_default) kind = kPbd_Edit_Presence;
  return in_left ? emit(w, kind, &v, NULL) : emit(w, kind, NULL, &v);
}

static int diff_field(Walk *w, const pbd_Field *l, const pbd_Field *r) {
  if (l->def && l->def->is_map) return diff_map(w, l, r);
  return diff_indexed(w, l, r);
}

/* Fields pair up by number; at one number a known field sorts before an
 * unknown one and pairs only with its like. */
static int order_fields(const pbd_Field *a, const pbd_Field *b) {
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return (a->def == NULL) - (b->def == NULL);
}

static int diff_fields(Walk *w, const pbd_Message *l, const pbd_Message *r) {
  uint32_t i = 0, j = 0;
  size_t mark = w->path.len;
  int rc = 0;
  while ((i < l->field_count || j < r->field_count) && !rc) {
    const pbd_Field *lf = i < l->field_count ? &l->fields[i] : NULL;
    const pbd_Field *rf = j < r->field_count ? &r->fields[j] : NULL;
    int c = !lf ? 1 : !rf ? -1 : order_fields(lf, rf);
    push_field(w, c <= 0 ? lf : rf);
    if (c == 0) {
      rc = diff_field(w, lf, rf);
      i++, j++;
    } else if (c < 0) {
      rc = field_only(w, lf, true);
      i++;
    } else {
      rc = field_only(w, rf, false);
      j++;
    }
    pbd_Buf_Truncate(&w->path, mark);
  }
  return rc;
}

static int diff_message(Walk *w, const pbd_Message *l, const pbd_Message *r) {
  if (pbd_Hash128_Equal(l->hash, r->hash)) return 0;
  pbd_StrView lu = pbd_Message_AnyTypeUrl(l), ru = pbd_Message_AnyTypeUrl(r);
  if (l->any_payload && r->any_payload && lu.size == ru.size && !memcmp(lu.data, ru.data, lu.size)) {
    /* Rule 11: an Any is compared through its unpacked payload. */
    size_t mark = w->path.len;
    if (w->path.len) pbd_Buf_AppendChar(&w->path, '.');
    pbd_Buf_AppendChar(&w->path, '[');
    pbd_Buf_Append(&w->path, lu.data, lu.size);
    pbd_Buf_AppendChar(&w->path, ']');
    int rc = diff_message(w, l->any_payload, r->any_payload);
    pbd_Buf_Truncate(&w->path, mark);
    return rc;
  }
  size_t saved_len = w->parent_len;
  const pbd_MessageDef *saved = w->parent;
  w->parent_len = w->path.len;
  w->parent = l->def;
  int rc = diff_fields(w, l, r);
  w->parent_len = saved_len;
  w->parent = saved;
  return rc;
}

int pbd_Diff_Run(const pbd_Message *left, const pbd_Message *right, const pbd_DiffOptions *opts,
                 pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s) {
  static const pbd_DiffOptions kDefaults = {0};
  Walk w = {opts ? opts : &kDefaults, fn, ctx, 0, {0}, 0, NULL};
  if (w.o->path_prefix) pbd_Buf_AppendStr(&w.path, w.o->path_prefix);
  pbd_Buf_AppendStr(&w.path, ""); /* path.data is never NULL from here */
  int rc = diff_message(&w, left, right);
  bool oom = w.path.oom;
  pbd_Buf_Free(&w.path);
  if (n_edits) *n_edits = w.n;
  if (oom) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return -1;
  }
  return rc;
}
