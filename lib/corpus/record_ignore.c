/* pbdiff — a record's hash under the ignore rules (records.h,
 * pbd_IgnoreHash): the record with the fields the rules leave out taken out
 * of its wire bytes, then hashed as any record is.
 *
 * Two records whose hashes agree so are equal under those rules, and the
 * join need not walk them (issue 23: a corpus whose every record differs in
 * a timestamp that is ignored).  So the hash must never leave out what the
 * walk (lib/diff/diff.c) would compare.  It leaves a field out only where
 * the walk skips it whole, whatever the other side holds: a field the rules
 * name by full name (anywhere), or the last field of a pattern of field
 * names, `[*]` after a repeated or map field (`items[*].ts`, `m[*].ts`).
 * Whatever else could change what the walk sees is refused at the start
 * (then every pair whose hashes differ is walked, as without this):
 *
 *   - a member of a oneof: taken out of the bytes, it would no longer
 *     clear the member written before it;
 *   - a closed enum: its unknown values are unknown fields, which the
 *     rules do not name;
 *   - extensions, fields of map entries, other patterns (`*` for a name,
 *     literal indices and keys, an Any's payload, a pattern ending in `[*]`);
 *   - --equivalent: a message left empty would read as not set;
 *   - matching rules (--key, --repeated-as-set): elements are matched by
 *     their fields before they are compared.
 *
 * A sub-message on a pattern's way stays, emptied maybe, so its presence
 * is still hashed (a stricter hash only means more walks).  Fields of the
 * wrong wire type are unknown fields: kept. */
#include <stdlib.h>
#include <string.h>

#include "canon/canon_internal.h"
#include "pbdiff/corpus/records.h"
#include "pbdiff/wire/wire.h"

typedef struct Node Node;

/* What to do with one field of a message on a pattern's way. */
typedef struct {
  const pbd_FieldDef *fd;
  bool drop;            /* leave it out */
  Node *child;          /* else: rewrite its messages so (NULL: as they are) */
} Edge;

struct Node {
  Edge *edges;
  size_t nedges;
};

struct pbd_IgnoreHash {
  const pbd_MessageDef *type;
  Node root;
  const pbd_FieldDef **fields; /* left out wherever they are, sorted */
  size_t nfields;
  Node **nodes;                /* every node, to free them */
  size_t nnodes;
  bool oom;
};

/* ---- Compiling the rules ----------------------------------------------------- */

static Node *new_node(pbd_IgnoreHash *ih) {
  Node **nn = realloc(ih->nodes, (ih->nnodes + 1) * sizeof *nn);
  Node *n = calloc(1, sizeof *n);
  if (nn) ih->nodes = nn;
  if (!nn || !n) {
    free(n);
    ih->oom = true;
    return NULL;
  }
  ih->nodes[ih->nnodes++] = n;
  return n;
}

static Edge *edge_for(pbd_IgnoreHash *ih, Node *n, const pbd_FieldDef *fd) {
  for (size_t i = 0; i < n->nedges; i++)
    if (n->edges[i].fd == fd) return &n->edges[i];
  Edge *ne = realloc(n->edges, (n->nedges + 1) * sizeof *ne);
  if (!ne) {
    ih->oom = true;
    return NULL;
  }
  n->edges = ne;
  n->edges[n->nedges] = (Edge){fd, false, NULL};
  return &n->edges[n->nedges++];
}

/* Whether the walk skips fd whole where a rule names it (see the top). */
static bool can_leave_out(const pbd_FieldDef *fd, const char **why) {
  if (fd->oneof) *why = "a oneof member";
  else if (fd->is_extension) *why = "an extension";
  else if (fd->containing && fd->containing->is_map_entry) *why = "a map entry's field";
  else if (fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed)
    *why = "a closed enum";
  else return true;
  return false;
}

/* The next name of a pattern, and whether `[*]` follows it; NULL when the
 * pattern is not of names and `[*]`s. */
static const char *next_step(const char *p, char *name, size_t cap, bool *star) {
  size_t n = 0;
  while (*p && *p != '.' && *p != '[') {
    if (*p == '*' || *p == ']' || n + 1 >= cap) return NULL;
    name[n++] = *p++;
  }
  name[n] = '\0';
  *star = !strncmp(p, "[*]", 3);
  if (*star) p += 3;
  if (n == 0 || (*p && *p != '.')) return NULL;
  return *p ? p + 1 : p;
}

/* One step into the message a repeated or map field's element (or a
 * singular message field) holds: the node for its fields, and their type.
 * A map's element is its entry's value (field 2). */
static Node *step_into(pbd_IgnoreHash *ih, Node *n, const pbd_FieldDef *fd, bool star,
                       const pbd_MessageDef **type, const char **why) {
  bool repeated = fd->is_repeated || fd->is_map;
  if (star != repeated || fd->type != kPbd_Type_Message) {
    *why = star ? "[*] after a field that is not a repeated message or map"
                : "a path through a repeated field, a group or a scalar";
    return NULL;
  }
  Edge *e = edge_for(ih, n, fd);
  if (!e) return NULL;
  if (e->drop) return NULL; /* already left out whole: nothing below to do */
  if (!e->child && !(e->child = new_node(ih))) return NULL;
  if (!fd->is_map) {
    *type = fd->message_type;
    return e->child;
  }
  const pbd_FieldDef *value = pbd_MessageDef_FindFieldByNumber(fd->message_type, 2);
  if (!value || value->type != kPbd_Type_Message) {
    *why = "[*] after a map whose values are not messages";
    return NULL;
  }
  return step_into(ih, e->child, value, false, type, why);
}

static bool add_pattern(pbd_IgnoreHash *ih, const char *pattern, const char **why) {
  const pbd_MessageDef *type = ih->type;
  Node *n = &ih->root;
  const char *p = pattern;
  for (;;) {
    char name[256];
    bool star;
    const char *rest = next_step(p, name, sizeof name, &star);
    if (!rest) {
      *why = "a pattern other than field names and [*]";
      return false;
    }
    const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByName(type, name);
    if (!fd) {
      *why = "a pattern that names no field of the schema";
      return false;
    }
    if (!*rest) { /* the field left out */
      if (star) {
        *why = "a pattern ending in [*]";
        return false;
      }
      if (!can_leave_out(fd, why)) return false;
      Edge *e = edge_for(ih, n, fd);
      if (!e) return false;
      e->drop = true;
      return true;
    }
    if (!(n = step_into(ih, n, fd, star, &type, why))) return !ih->oom && !*why;
    p = rest;
  }
}

static int compare_defs(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(const pbd_FieldDef *const *)a;
  uintptr_t y = (uintptr_t)*(const pbd_FieldDef *const *)b;
  return (x > y) - (x < y);
}

pbd_IgnoreHash *pbd_IgnoreHash_New(const pbd_MessageDef *type, const pbd_DiffOptions *d,
                                   const pbd_ReadOptions *ro, const char **why) {
  *why = NULL;
  if (!type || !d->ignore_count || d->rule_count || ro->equivalent) {
    *why = !type ? "no schema" : !d->ignore_count ? "no ignore rule"
         : d->rule_count ? "matching rules" : "--equivalent";
    return NULL;
  }
  pbd_IgnoreHash *ih = calloc(1, sizeof *ih);
  if (!ih) return NULL;
  ih->type = type;
  ih->fields = malloc(d->ignore_count * sizeof *ih->fields);
  ih->oom = !ih->fields;
  for (size_t i = 0; i < d->ignore_count && !ih->oom && !*why; i++) {
    const pbd_IgnoreRule *r = &d->ignores[i];
    if (r->field && can_leave_out(r->field, why)) ih->fields[ih->nfields++] = r->field;
    else if (!r->field && r->pattern) add_pattern(ih, r->pattern, why);
  }
  if (ih->oom || *why) {
    pbd_IgnoreHash_Free(ih);
    return NULL;
  }
  qsort(ih->fields, ih->nfields, sizeof *ih->fields, compare_defs);
  return ih;
}

void pbd_IgnoreHash_Free(pbd_IgnoreHash *ih) {
  if (!ih) return;
  free(ih->root.edges);
  for (size_t i = 0; i < ih->nnodes; i++) {
    free(ih->nodes[i]->edges);
    free(ih->nodes[i]);
  }
  free(ih->nodes);
  free(ih->fields);
  free(ih);
}

const pbd_MessageDef *pbd_IgnoreHash_Type(const pbd_IgnoreHash *ih) { return ih->type; }

/* ---- Rewriting a record --------------------------------------------------------- */

static bool named_field(const pbd_IgnoreHash *ih, const pbd_FieldDef *fd) {
  return ih->nfields &&
         bsearch(&fd, ih->fields, ih->nfields, sizeof fd, compare_defs) != NULL;
}

static const Edge *find_edge(const Node *n, const pbd_FieldDef *fd) {
  for (size_t i = 0; n && i < n->nedges; i++)
    if (n->edges[i].fd == fd) return &n->edges[i];
  return NULL;
}

static void put_varint(pbd_Buf *out, uint64_t v) {
  char b[10];
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) b[n++] = (char)(v | 0x80);
  b[n++] = (char)v;
  pbd_Buf_Append(out, b, n);
}

static bool rewrite(const pbd_IgnoreHash *ih, const pbd_MessageDef *type, const Node *node,
                    const uint8_t *p, const uint8_t *end, const uint8_t *base, int depth_left,
                    pbd_Buf *out, pbd_Status *s);

/* A message field's bytes, rewritten: its tag, a 5-byte length (a varint
 * may be longer than it needs), its fields less the ones left out. */
static bool rewrite_message(const pbd_IgnoreHash *ih, const pbd_WireField *f,
                            const pbd_FieldDef *fd, const Node *child, const uint8_t *base,
                            int depth_left, pbd_Buf *out, pbd_Status *s) {
  put_varint(out, (uint64_t)f->number << 3 | kPbd_WireType_Delimited);
  size_t at = out->len;
  pbd_Buf_Append(out, "\x80\x80\x80\x80\x00", 5);
  if (!rewrite(ih, fd->message_type, child, f->data, f->data + f->size, base, depth_left - 1,
               out, s) || out->oom)
    return false;
  uint64_t len = out->len - at - 5;
  for (int i = 0; i < 5; i++, len >>= 7)
    out->data[at + (size_t)i] = (char)((len & 0x7f) | (i < 4 ? 0x80 : 0));
  return true;
}

static bool rewrite(const pbd_IgnoreHash *ih, const pbd_MessageDef *type, const Node *node,
                    const uint8_t *p, const uint8_t *end, const uint8_t *base, int depth_left,
                    pbd_Buf *out, pbd_Status *s) {
  while (p < end && !out->oom) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, end, base, depth_left, &f, s);
    if (!q) return false;
    const pbd_FieldDef *fd = pbd_MessageDef_FindFieldByNumber(type, f.number);
    bool fits = fd && (f.wire_type == pbd_WireTypeOf(fd->type) ||
                       (fd->is_packable && f.wire_type == kPbd_WireType_Delimited));
    const Edge *e = fits ? find_edge(node, fd) : NULL;
    if (fits && ((e && e->drop) || named_field(ih, fd))) {
      p = q; /* left out */
      continue;
    }
    bool message = fits && fd->type == kPbd_Type_Message && f.wire_type == kPbd_WireType_Delimited;
    const Node *child = e ? e->child : NULL;
    if (message && (child || ih->nfields) && depth_left > 0) {
      if (!rewrite_message(ih, &f, fd, child, base, depth_left, out, s)) return false;
    } else {
      pbd_Buf_Append(out, (const char *)p, (size_t)(q - p));
    }
    p = q;
  }
  return !out->oom;
}

bool pbd_IgnoreHash_Hash(const pbd_IgnoreHash *ih, pbd_Hasher *hasher, const uint8_t *buf,
                         size_t begin, size_t end, const pbd_ReadOptions *ro, pbd_Buf *scratch,
                         pbd_Hash128 *out, pbd_Status *s) {
  pbd_Buf_Truncate(scratch, 0);
  pbd_Status st;
  pbd_Status_Clear(&st);
  if (!rewrite(ih, ih->type, &ih->root, buf + begin, buf + end, buf,
               pbd_ReadOptions_MaxDepth(ro), scratch, &st) || scratch->oom) {
    if (scratch->oom || st.code == kPbd_Status_OutOfMemory) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
      return false;
    }
    return false; /* the record passed the hash pass: not expected; the caller keeps its hash */
  }
  pbd_Part part = {(const uint8_t *)(scratch->data ? scratch->data : ""), scratch->len};
  if (pbd_Hasher_HashParts(hasher, ih->type, &part, 1, 0, out, NULL, &st)) return true;
  if (st.code == kPbd_Status_OutOfMemory) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  return false;
}
