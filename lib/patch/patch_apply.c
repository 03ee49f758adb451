/* pbdiff — a patch read, its guards checked and its hunks applied
 * (patch.h, docs/patch.md).  Every hunk is checked against the tree as the
 * hunks before it left it; the first guard that does not hold refuses the
 * whole patch.  A guard holds when the value there means what the guard
 * says: both are written as canonical bytes (lib/write) and compared, or the
 * bytes' XXH3-64 and size compared with a `#xxh3:HEX/SIZE` guard. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "patch/patch_internal.h"
#include "pbdiff/format/format.h"
#include "pbdiff/write/write.h"

/* ---- Reading the patch ------------------------------------------------------- */

static bool starts(const char *l, size_t n, const char *p) {
  size_t k = strlen(p);
  return n >= k && !memcmp(l, p, k);
}

/* " at N" at the end of an @@ line, outside the path's brackets. */
static int64_t split_at(const char *l, size_t *n) {
  size_t k = *n;
  size_t d = k;
  while (d > 0 && l[d - 1] >= '0' && l[d - 1] <= '9') d--;
  if (d == k || d < 4 || memcmp(l + d - 4, " at ", 4)) return -1;
  int64_t v = 0;
  for (size_t i = d; i < k && v < INT32_MAX; i++) v = v * 10 + (l[i] - '0');
  *n = d - 4;
  return v;
}

static pbd_ApplyResult bad(pbd_ApplyCtx *c, int line, const char *what) {
  snprintf(c->why, c->whyn, "line %d: %s", line, what);
  return kPbd_Apply_BadPatch;
}

pbd_ApplyResult pbd_Patch_Read(pbd_ApplyCtx *c, const char *text, size_t n, pbd_Hunk **out,
                               size_t *nout) {
  const char *p = text, *end = text + n;
  int line = 0;
  bool version = false, type = false;
  size_t cap = 0;
  *out = NULL;
  *nout = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *l = p;
    size_t len = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
    line++;
    if (len && l[len - 1] == '\r') len--;
    if (len == 0 || l[0] == '#') continue;
    if (!version) {
      if (starts(l, len, "pbpatch ") && !(len == strlen(PBDIFF_PATCH_VERSION) && starts(l, len, PBDIFF_PATCH_VERSION)))
        return bad(c, line, "a patch of another version (this pbdiff reads pbpatch 1)");
      if (!starts(l, len, PBDIFF_PATCH_VERSION) || len != strlen(PBDIFF_PATCH_VERSION))
        return bad(c, line, "not a patch: it must start with 'pbpatch 1'");
      version = true;
      continue;
    }
    if (!type) {
      if (!starts(l, len, "type ")) return bad(c, line, "'type NAME' expected after 'pbpatch 1'");
      const char *want = c->schema->type ? c->schema->type->full_name : "-";
      if (len - 5 != strlen(want) || memcmp(l + 5, want, len - 5)) {
        char msg[512];
        snprintf(msg, sizeof msg, "the patch is for type %.*s, the file is read as %s", (int)(len - 5), l + 5, want);
        return bad(c, line, msg);
      }
      type = true;
      continue;
    }
    if (starts(l, len, "@@ ")) {
      if (*nout == cap) {
        cap = cap ? 2 * cap : 16;
        pbd_Hunk *h = realloc(*out, cap * sizeof *h);
        if (!h) return kPbd_Apply_OutOfMemory;
        *out = h;
      }
      pbd_Hunk *h = &(*out)[(*nout)++];
      memset(h, 0, sizeof *h);
      h->line = line;
      const char *k = l + 3, *sp = memchr(k, ' ', len - 3);
      if (!sp) return bad(c, line, "'@@ KIND PATH' expected");
      h->kind = k;
      h->kind_len = (size_t)(sp - k);
      h->path = sp + 1;
      h->path_len = len - (size_t)(h->path - l);
      h->at = split_at(h->path, &h->path_len);
      if (h->path_len == 0) return bad(c, line, "a hunk without a path");
      continue;
    }
    if (*nout == 0) return bad(c, line, "a line before the first hunk's '@@'");
    pbd_Hunk *h = &(*out)[*nout - 1];
    if (len < 2 || l[1] != ' ') return bad(c, line, "a hunk line is '^ ', '$ ', '- ' or '+ ' and a value");
    const char **slot = l[0] == '^' ? &h->before : l[0] == '$' ? &h->after : l[0] == '-' ? &h->old
                        : l[0] == '+' ? &h->new_ : NULL;
    size_t *slen = l[0] == '^' ? &h->before_len : l[0] == '$' ? &h->after_len
                   : l[0] == '-' ? &h->old_len : &h->new_len;
    if (!slot) return bad(c, line, "a hunk line is '^ ', '$ ', '- ' or '+ ' and a value");
    if (*slot) return bad(c, line, "a hunk has one line of each kind");
    *slot = l + 2;
    *slen = len - 2;
  }
  if (!version) return bad(c, line ? line : 1, "not a patch: it must start with 'pbpatch 1'");
  if (!type) return bad(c, line, "'type NAME' expected after 'pbpatch 1'");
  return kPbd_Apply_Applied;
}

/* ---- Values ------------------------------------------------------------------ */

/* The message `bytes` of type t read as a tree (its bytes copied to the arena). */
static const pbd_Message *parse_bytes(pbd_ApplyCtx *c, const pbd_MessageDef *t, const pbd_Buf *b) {
  uint8_t *copy = pbd_Arena_Malloc(c->a, b->len + 1);
  if (!copy) return NULL;
  if (b->len) memcpy(copy, b->data, b->len);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_ReadOptions ro = *c->o->read;
  ro.hash_seed = 0;
  const pbd_Message *m = pbd_Tree_Parse(t, copy, 0, b->len, &ro, c->a, &s);
  if (!m) snprintf(c->why, c->whyn, "%s", s.msg);
  return m;
}

/* A value of fd from text, as a field of a message of fd's containing type
 * (NULL *field: it reads as the default, which that message leaves out). */
static bool field_from_text(pbd_ApplyCtx *c, const pbd_FieldDef *fd, const char *text, size_t n,
                            const pbd_Field **field) {
  pbd_Buf b = {0};
  char why[300];
  bool ok = pbd_PatchText_EncodeField(text, n, fd, c->schema->pool, &b, why, sizeof why);
  if (!ok) snprintf(c->why, c->whyn, "%s", why);
  const pbd_Message *m = ok ? parse_bytes(c, fd->containing, &b) : NULL;
  pbd_Buf_Free(&b);
  if (!m) return false;
  *field = NULL;
  const pbd_Field *fs = pbd_Message_Fields(m);
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++)
    if (fs[i].def == fd) *field = &fs[i];
  return true;
}

/* A map entry `{ key: KEY value: VALUE }` as the one entry of map field fd. */
static bool entry_from_text(pbd_ApplyCtx *c, const pbd_FieldDef *fd, const char *key, size_t kn,
                            const char *value, size_t vn, const pbd_Field **field) {
  pbd_Buf t = {0};
  pbd_Buf_AppendStr(&t, "{ key: ");
  pbd_Buf_Append(&t, key, kn);
  pbd_Buf_AppendStr(&t, " value: ");
  pbd_Buf_Append(&t, value, vn);
  pbd_Buf_AppendStr(&t, " }");
  pbd_Buf entry = {0};
  char why[300];
  bool ok = !t.oom && pbd_PatchText_EncodeMessage(t.data, t.len, fd->message_type, c->schema->pool,
                                                  &entry, why, sizeof why);
  pbd_Buf_Free(&t);
  if (!ok) {
    snprintf(c->why, c->whyn, "%s", why);
    pbd_Buf_Free(&entry);
    return false;
  }
  pbd_Buf holder = {0};
  pbd_Write_Varint(&holder, (uint64_t)fd->number << 3 | 2);
  pbd_Write_Varint(&holder, entry.len);
  pbd_Buf_Append(&holder, entry.data, entry.len);
  pbd_Buf_Free(&entry);
  const pbd_Message *m = parse_bytes(c, fd->containing, &holder);
  pbd_Buf_Free(&holder);
  if (!m) return false;
  *field = pbd_Message_FindField(m, fd->number);
  return *field != NULL;
}

/* The field whose values a target's value is: the map's value part for an
 * entry. */
static const pbd_FieldDef *value_field(const pbd_Target *t) {
  if (t->kind == kPbd_Target_Entry) return pbd_MessageDef_FindFieldByNumber(t->fd->message_type, 2);
  return t->fd;
}

/* Whether v means what guard says (a value's text, or #xxh3:HEX/SIZE);
 * false with c->why set when the guard cannot be read. */
static bool guard_holds(pbd_ApplyCtx *c, const pbd_FieldDef *fd, const char *g, size_t n, const pbd_Value *v,
                        bool *holds) {
  pbd_Buf have = {0};
  pbd_Patch_ValueBytes(&have, v);
  if (starts(g, n, "#xxh3:")) {
    char hex[17] = {0};
    const char *slash = memchr(g, '/', n);
    if (!slash || slash - g != 6 + 16) {
      pbd_Buf_Free(&have);
      snprintf(c->why, c->whyn, "a hash guard is #xxh3:16 HEX DIGITS/SIZE");
      return false;
    }
    memcpy(hex, g + 6, 16);
    unsigned long long h = strtoull(hex, NULL, 16), size = strtoull(slash + 1, NULL, 10);
    *holds = v->kind != kPbd_Value_None && XXH3_64bits(have.data, have.len) == h && have.len == size;
    pbd_Buf_Free(&have);
    return true;
  }
  const pbd_Field *f;
  if (!field_from_text(c, fd, g, n, &f)) {
    pbd_Buf_Free(&have);
    return false;
  }
  pbd_Value want;
  if (f) want = pbd_Field_Value(f, 0);
  else if (fd->containing && fd->containing->is_map_entry) want = pbd_FieldDef_DefaultValue(fd);
  else memset(&want, 0, sizeof want);
  pbd_Buf wb = {0};
  pbd_Patch_ValueBytes(&wb, &want);
  /* a value the guard names is there: absent and default differ only for a
   * field with presence, and then the guard's value is kept by the parse */
  *holds = (want.kind == kPbd_Value_None) == (v->kind == kPbd_Value_None) && wb.len == have.len &&
           (wb.len == 0 || !memcmp(wb.data, have.data, wb.len));
  pbd_Buf_Free(&wb);
  pbd_Buf_Free(&have);
  return true;
}

/* ---- pbd_Hunks ------------------------------------------------------------------- */

static void found_text(pbd_Buf *b, const pbd_Value *v) {
  if (v->kind == kPbd_Value_None) {
    pbd_Buf_AppendStr(b, "nothing there");
    return;
  }
  pbd_TextOptions o = {.max_bytes = 64, .max_message = 120};
  pbd_Format_TextValue(b, v, &o);
}

static void refuse(pbd_ApplyCtx *c, const pbd_Hunk *h, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(pbd_ApplyCtx *c, const pbd_Hunk *h, size_t i, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(c->why, c->whyn, "hunk %zu (%.*s, line %d): %s", i + 1, (int)h->path_len, h->path, h->line, msg);
}

/* What FILE has, for a message (cut when long). */
static const char *found(pbd_Buf *b, const pbd_Value *v) {
  pbd_Buf_Truncate(b, 0);
  found_text(b, v);
  return b->data ? b->data : "";
}

static bool short_text(const char *s, size_t n, char *out, size_t cap) {
  snprintf(out, cap, "%.*s", (int)n, s);
  return true;
}

/* Checks one context line against the element it names (None: none there). */
static int check_context(pbd_ApplyCtx *c, const pbd_Hunk *h, size_t hi, const pbd_FieldDef *fd,
                         const char *g, size_t n, const pbd_Value *v, const char *which) {
  char want[256];
  short_text(g, n, want, sizeof want);
  bool none = n == 5 && !memcmp(g, "#none", 5), holds = none && v->kind == kPbd_Value_None;
  if (!none && !guard_holds(c, fd, g, n, v, &holds)) return -1;
  if (holds) return 0;
  pbd_Buf b = {0};
  refuse(c, h, hi, "the element %s is not what the patch expects (%s): FILE has %s", which,
         none ? "none" : want, v->kind == kPbd_Value_None ? "none" : found(&b, v));
  pbd_Buf_Free(&b);
  return 1;
}

/* Checks hunk h (its old and new sides as given: swapped for -R) on root and
 * applies it; returns the new root, or NULL: *refused says whether a guard
 * failed (else the hunk could not be read; c->why says why). */
const pbd_Message *pbd_Patch_ApplyHunk(pbd_ApplyCtx *c, const pbd_Message *root, const pbd_Hunk *h,
                                       size_t hi, const char *old, size_t on, const char *nw,
                                       size_t nn, bool *refused) {
  *refused = false;
  pbd_Target t;
  char why[512];
  const pbd_MessageDef *type = c->schema->type;
  if (!pbd_PatchTree_Resolve(root, type, h->path, h->path_len, &t, why, sizeof why)) {
    *refused = true;
    refuse(c, h, hi, "FILE has no such place (%s)", why);
    return NULL;
  }
  pbd_Value have = pbd_Target_Value(&t);
  bool inserting = t.kind == kPbd_Target_Element && t.by_index && !old;
  if ((h->before || h->after) && !t.has_context && !c->unguarded) {
    *refused = true;
    refuse(c, h, hi, "the patch has context lines for an element addressed by index, and the path has none");
    return NULL;
  }
  if (t.has_context && (h->before || h->after) && !c->unguarded) {
    const pbd_Field *cf = t.context_field;
    uint32_t i = t.context_index, count = cf ? cf->count : 0;
    pbd_Value before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    if (i > 0 && i - 1 < count) before = pbd_Field_Value(cf, i - 1);
    uint32_t next = inserting && t.context_is_target ? i : i + 1;
    if (next < count) after = pbd_Field_Value(cf, next);
    const pbd_FieldDef *cfd = cf && cf->def ? cf->def : t.fd;
    char what_b[300], what_a[300];
    int pl = (int)(t.context_path_len < 200 ? t.context_path_len : 200);
    snprintf(what_b, sizeof what_b, t.context_is_target ? "before it" : "before %.*s", pl, h->path);
    snprintf(what_a, sizeof what_a, t.context_is_target ? "after it" : "after %.*s", pl, h->path);
    int r = h->before ? check_context(c, h, hi, cfd, h->before, h->before_len, &before, what_b) : 0;
    if (r == 0 && h->after) r = check_context(c, h, hi, cfd, h->after, h->after_len, &after, what_a);
    if (r) {
      *refused = r > 0;
      return NULL;
    }
    if (inserting && t.index > count) {
      *refused = true;
      refuse(c, h, hi, "FILE has %u elements there, fewer than the index", count);
      return NULL;
    }
  }
  const pbd_FieldDef *vfd = value_field(&t);
  if (c->unguarded) {
    /* no guard: only the place must be there */
  } else if (old) {
    bool holds;
    if (!guard_holds(c, vfd, old, on, &have, &holds)) return NULL;
    if (!holds) {
      char want[256];
      short_text(old, on, want, sizeof want);
      *refused = true;
      pbd_Buf b = {0};
      refuse(c, h, hi, "patch expects %s, FILE has %s", want, found(&b, &have));
      pbd_Buf_Free(&b);
      return NULL;
    }
  } else if (!inserting && t.found) {
    *refused = true;
    pbd_Buf b = {0};
    refuse(c, h, hi, "patch adds a value where FILE has none, FILE has %s", found(&b, &have));
    pbd_Buf_Free(&b);
    return NULL;
  }
  pbd_PatchOp op = {.remove = nw == NULL, .value = NULL, .at = h->at, .insert = inserting};
  if (nw) {
    bool ok = t.kind == kPbd_Target_Entry
                  ? entry_from_text(c, t.fd, t.key_text, t.key_len, nw, nn, &op.value)
                  : field_from_text(c, t.fd, nw, nn, &op.value);
    if (!ok) {
      char msg[600];
      snprintf(msg, sizeof msg, "the new value does not read as %s: %s", t.fd->full_name, c->why);
      snprintf(c->why, c->whyn, "hunk %zu (%.*s, line %d): %s", hi + 1, (int)h->path_len, h->path, h->line, msg);
      return NULL;
    }
    if (!op.value && t.kind != kPbd_Target_Field) op.remove = false;
  }
  const pbd_Message *nr = pbd_PatchTree_Edit(root, type, h->path, h->path_len, &op, c->a, why, sizeof why);
  if (!nr) snprintf(c->why, c->whyn, "hunk %zu (%.*s, line %d): %s", hi + 1, (int)h->path_len, h->path, h->line, why);
  return nr;
}

/* All hunks in order (reverse: undone in reverse order).  Returns the new
 * root, or NULL with *refused as in apply_hunk. */
static const pbd_Message *apply_all(pbd_ApplyCtx *c, const pbd_Message *root, const pbd_Hunk *hs, size_t n,
                                    bool reverse, bool *refused) {
  for (size_t k = 0; k < n; k++) {
    size_t i = reverse ? n - 1 - k : k;
    const pbd_Hunk *h = &hs[i];
    if (reverse && h->old && !strncmp(h->old, "#xxh3:", 6)) {
      *refused = false;
      snprintf(c->why, c->whyn, "hunk %zu (%.*s, line %d): cannot be undone: the patch gives the old value by its hash only",
               i + 1, (int)h->path_len, h->path, h->line);
      return NULL;
    }
    const char *old = reverse ? h->new_ : h->old, *nw = reverse ? h->old : h->new_;
    size_t on = reverse ? h->new_len : h->old_len, nn = reverse ? h->old_len : h->new_len;
    root = pbd_Patch_ApplyHunk(c, root, h, i, old, on, nw, nn, refused);
    if (!root) return NULL;
  }
  return root;
}

pbd_ApplyResult pbd_Patch_Apply(const char *patch, size_t n, const pbd_Message *root,
                                const pbd_PatchSchema *schema, const pbd_PatchApplyOptions *o,
                                pbd_Arena *arena, const pbd_Message **out, char *why,
                                size_t whyn) {
  pbd_ApplyCtx c = {schema, o, arena, why, whyn, false};
  pbd_Hunk *hs;
  size_t nh;
  *out = NULL;
  if (!schema->type) {
    snprintf(why, whyn, "a patch needs a schema (--schema or --proto, and --type)");
    return kPbd_Apply_BadPatch;
  }
  pbd_ApplyResult r = pbd_Patch_Read(&c, patch, n, &hs, &nh);
  if (r != kPbd_Apply_Applied) {
    free(hs);
    return r;
  }
  bool refused;
  const pbd_Message *res = apply_all(&c, root, hs, nh, o->reverse, &refused);
  if (res) {
    *out = res;
  } else if (refused) {
    /* Already applied: the hunks undo cleanly from here. */
    char saved[1024];
    snprintf(saved, sizeof saved, "%s", why);
    bool back_refused;
    pbd_ArenaMark mark = pbd_Arena_Mark(arena);
    bool back = nh > 0 && apply_all(&c, root, hs, nh, !o->reverse, &back_refused) != NULL;
    pbd_Arena_Reset(arena, mark);
    snprintf(why, whyn, "%s", saved);
    r = back ? kPbd_Apply_AlreadyApplied : kPbd_Apply_Refused;
  } else {
    r = kPbd_Apply_BadPatch;
  }
  free(hs);
  return r;
}
