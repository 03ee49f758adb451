/* pbdiff CLI — `--format html` (docs/html.md): one self-contained HTML
 * document.  The differences are shown as the message's tree, streamed as
 * the walk hands them out (depth first): a branch is opened (<details
 * open>) for each message or repeated field on the way to a difference,
 * with its path and type, and closed with one line saying how many of its
 * fields or elements did not change.  Each difference is a box with its
 * kind and LEFT | RIGHT side by side; a long numeric repeated field's
 * differences are one box that sums them up.  The header, written last but
 * placed first, names the inputs, the schema, the type and the options,
 * and counts the differences by kind and by top-level field, with links.
 * At most --max-diffs boxes (default kHtml_DefaultRows) and kHtml_MaxBody
 * bytes of them are written; the rest are counted.  The pieces: html_page.c
 * (page, styles, script), html_values.c (cells). */
#include <stdlib.h>
#include <string.h>

#include "report/html_impl.h"

/* Boxes written when --max-diffs is not given. */
enum { kHtml_DefaultRows = 2000 };
/* Bytes of differences (the tree and its boxes) one report holds at most. */
enum { kHtml_MaxBody = 8 << 20 };
/* A numeric repeated field this long (on either side) is summed up. */
enum { kHtml_LongNumeric = 32 };
/* Top-level fields counted by name; others go to "(other fields)". */
enum { kHtml_MaxTops = 1000 };
/* A path longer than this is cut in a box's heading. */
enum { kHtml_MaxPath = 4096 };

typedef enum { kBox_Root, kBox_Message, kBox_Group } BoxKind;

/* An open branch of the tree. */
typedef struct {
  BoxKind kind;
  size_t seg_end;   /* the path's segments up to it (a group's end with its field) */
  size_t text_len;  /* the length of its path's text */
  bool counted;     /* total is known (from the edit's frames) */
  size_t total;     /* message: its fields, on either side; group: elements in LEFT */
  size_t shown;     /* children with differences (group: those in LEFT) */
  pbd_Buf last;     /* the last such child's segment, as text */
  bool summary;     /* a long numeric field, summed up in one box */
  bool map;         /* a group of map entries */
  hv_NumSummary num;
} Box;

typedef struct {
  BoxKind kind;
  size_t seg_end;
} Step;

typedef struct {
  char *name;
  size_t counts[kKinds];
  size_t first; /* box number + 1 of its first shown difference */
} TopField;

typedef struct {
  size_t max_rows, rows, represented;
  size_t budget;           /* message text left (html_values.c) */
  bool full;               /* kHtml_MaxBody reached */
  pbd_Buf body;
  pbd_Buf open;            /* the path of the deepest open box */
  Box *boxes;
  size_t nboxes, boxes_cap;
  Step *chain;
  size_t chain_cap;
  pbd_Buf ptext;           /* the edit's path, and where each segment ends in it */
  size_t *off, off_cap;
  char idp[16];            /* id prefix: "" for a pair, "fXXXXXXXX-" for a file of -r */
  TopField *tops;
  size_t ntops, tops_cap;
  rp_NameIndex top_index;
  size_t other_tops[kKinds];
  size_t first_kind[kKinds];
  pbd_Buf cell_l, cell_r, name;
} Html;

static Html *html_of(pbd_Reporter *r) { return r->own; }

/* ---- paths ------------------------------------------------------------------------ */

/* The edit's path as text with the end of each segment (h->off). */
static bool path_offsets(Html *h, const pbd_Path *p) {
  size_t n = p ? p->count : 0;
  if (n + 1 > h->off_cap) {
    size_t cap = 2 * (n + 1);
    size_t *o = realloc(h->off, cap * sizeof *o);
    if (!o) return false;
    h->off = o;
    h->off_cap = cap;
  }
  pbd_Buf_Truncate(&h->ptext, 0);
  pbd_Buf_AppendStr(&h->ptext, "");
  h->off[0] = 0;
  for (size_t i = 0; i < n; i++) {
    pbd_Path_Format(&h->ptext, p, i, i + 1);
    h->off[i + 1] = h->ptext.len;
  }
  return !h->ptext.oom;
}

static bool is_field_seg(const pbd_PathSeg *s) {
  return s->kind == kPbd_Seg_Field || s->kind == kPbd_Seg_Extension;
}
static bool is_element_seg(const pbd_PathSeg *s) {
  return s->kind == kPbd_Seg_Index || s->kind == kPbd_Seg_MapKey ||
         s->kind == kPbd_Seg_ElementKey;
}

static bool chain_add(Html *h, size_t *n, BoxKind kind, size_t seg_end) {
  if (*n == h->chain_cap) {
    size_t cap = h->chain_cap ? 2 * h->chain_cap : 16;
    Step *c = realloc(h->chain, cap * sizeof *c);
    if (!c) return false;
    h->chain = c;
    h->chain_cap = cap;
  }
  h->chain[(*n)++] = (Step){kind, seg_end};
  return true;
}

/* The branches from the root to the edit: a message for each frame (or the
 * parent, when the edit has no frames), and a group for a repeated field
 * or map between a message and its element.  Returns their number, 0 when
 * out of memory. */
static size_t edit_chain(Html *h, const pbd_Edit *e) {
  size_t n = 0, segs = e->path ? e->path->count : 0, prev = 0;
  if (!chain_add(h, &n, kBox_Root, 0)) return 0;
  size_t frames = e->path ? e->path->frame_count : 0, count = frames ? frames : 1;
  for (size_t i = 0; i <= count; i++) {
    size_t at = i == count ? segs
                : frames ? e->path->frames[i].path_count : e->parent_count;
    if (at <= prev || at > segs) continue;
    const pbd_PathSeg *s = e->path->segs;
    if (at - prev >= 2 && is_field_seg(&s[prev]) && is_element_seg(&s[prev + 1]) &&
        (at - prev == 2 || i == count) && !chain_add(h, &n, kBox_Group, prev + 1))
      return 0;
    if (i < count && !chain_add(h, &n, kBox_Message, at)) return 0;
    prev = at;
  }
  return n;
}

/* ---- counting what did not change ------------------------------------------------ */

static const pbd_PathFrame *frame_at(const pbd_Edit *e, size_t pc) {
  for (size_t i = 0; e->path && i < e->path->frame_count; i++)
    if (e->path->frames[i].path_count == pc) return &e->path->frames[i];
  return NULL;
}

/* Fields of two messages, counted once when both have them. */
static size_t union_fields(const pbd_Message *l, const pbd_Message *r) {
  size_t nl = pbd_Message_FieldCount(l), nr = pbd_Message_FieldCount(r), i = 0, j = 0, n = 0;
  const pbd_Field *lf = pbd_Message_Fields(l), *rf = pbd_Message_Fields(r);
  while (i < nl || j < nr) {
    uint64_t a = i < nl ? 2 * (uint64_t)lf[i].number + !lf[i].def : UINT64_MAX;
    uint64_t b = j < nr ? 2 * (uint64_t)rf[j].number + !rf[j].def : UINT64_MAX;
    i += a <= b;
    j += b <= a;
    n++;
  }
  return n;
}

static size_t field_len(const pbd_Message *m, uint32_t number) {
  const pbd_Field *f = m ? pbd_Message_FindField(m, number) : NULL;
  return f ? f->count : 0;
}

/* ---- boxes ---------------------------------------------------------------------- */

static void path_code(Html *h, pbd_Buf *b, size_t len) {
  pbd_Buf_AppendStr(b, "<code class=\"path\">");
  const char *t = h->ptext.data;
  if (len == 0) pbd_Buf_AppendStr(b, ".");
  else hp_escape(b, t, len > kHtml_MaxPath ? kHtml_MaxPath : len);
  if (len > kHtml_MaxPath) pbd_Buf_AppendStr(b, "...");
  pbd_Buf_AppendStr(b, "</code>");
}

static const char *scalar_type_name(pbd_FieldType t) {
  static const char *const names[] = {
      [kPbd_Type_Double] = "double", [kPbd_Type_Float] = "float", [kPbd_Type_Int64] = "int64",
      [kPbd_Type_UInt64] = "uint64", [kPbd_Type_Int32] = "int32", [kPbd_Type_Fixed64] = "fixed64",
      [kPbd_Type_Fixed32] = "fixed32", [kPbd_Type_Bool] = "bool", [kPbd_Type_String] = "string",
      [kPbd_Type_Bytes] = "bytes", [kPbd_Type_UInt32] = "uint32", [kPbd_Type_SFixed32] = "sfixed32",
      [kPbd_Type_SFixed64] = "sfixed64", [kPbd_Type_SInt32] = "sint32", [kPbd_Type_SInt64] = "sint64"};
  return (unsigned)t < sizeof names / sizeof names[0] && names[t] ? names[t] : "?";
}

static void type_name(pbd_Buf *b, const pbd_FieldDef *f) {
  if (!f) pbd_Buf_AppendStr(b, "?");
  else if (f->message_type && f->message_type->full_name) hp_escape_str(b, f->message_type->full_name);
  else if (f->enum_type && f->enum_type->full_name) hp_escape_str(b, f->enum_type->full_name);
  else pbd_Buf_AppendStr(b, scalar_type_name(f->type));
}

/* `repeated onnx.NodeProto`, `map&lt;string, int32&gt;` */
static void field_type(pbd_Buf *b, const pbd_FieldDef *f) {
  if (!f) return;
  pbd_Buf_AppendStr(b, " <span class=\"t\">");
  if (f->is_map && f->message_type) {
    pbd_Buf_AppendStr(b, "map&lt;");
    type_name(b, pbd_MessageDef_FindFieldByNumber(f->message_type, 1));
    pbd_Buf_AppendStr(b, ", ");
    type_name(b, pbd_MessageDef_FindFieldByNumber(f->message_type, 2));
    pbd_Buf_AppendStr(b, "&gt;");
  } else {
    pbd_Buf_AppendStr(b, f->is_repeated ? "repeated " : "");
    type_name(b, f);
  }
  pbd_Buf_AppendStr(b, "</span>");
}

static void open_box(Html *h, Box *x, const pbd_Edit *e) {
  pbd_Buf *b = &h->body;
  const pbd_PathSeg *segs = e->path ? e->path->segs : NULL;
  if (x->kind == kBox_Root) {
    const pbd_PathFrame *f = frame_at(e, 0);
    if (f) x->counted = true, x->total = union_fields(f->left, f->right);
    pbd_Buf_AppendStr(b, "<div class=\"tree\">\n");
    return;
  }
  if (x->kind == kBox_Message) {
    const pbd_PathFrame *f = frame_at(e, x->seg_end);
    const pbd_MessageDef *type = f && f->left && f->left->def ? f->left->def
                                 : x->seg_end == e->parent_count ? e->parent : NULL;
    if (f) x->counted = true, x->total = union_fields(f->left, f->right);
    pbd_Buf_AppendStr(b, "<details class=\"b\" open><summary>");
    path_code(h, b, x->text_len);
    if (type && type->full_name) {
      pbd_Buf_AppendStr(b, " <span class=\"t\">");
      hp_escape_str(b, type->full_name);
      pbd_Buf_AppendStr(b, "</span>");
    }
    pbd_Buf_AppendStr(b, "</summary>\n");
    return;
  }
  const pbd_PathSeg *fs = &segs[x->seg_end - 1];
  const pbd_PathFrame *pf = frame_at(e, x->seg_end - 1);
  size_t lc = 0, rc = 0;
  if (pf) {
    x->counted = true;
    x->total = lc = field_len(pf->left, fs->number);
    rc = field_len(pf->right, fs->number);
  }
  x->map = fs->field && fs->field->is_map;
  x->summary = pf && hv_numeric_field(fs->field) && (lc >= kHtml_LongNumeric || rc >= kHtml_LongNumeric);
  if (x->summary) {
    x->num.left_len = lc, x->num.right_len = rc;
    pbd_Buf_Printf(b, "<div class=\"d k-changed num\" id=\"%sd%zu\" tabindex=\"-1\"><div class=\"dh\">"
                   "<span class=\"k\">elements differ</span>", h->idp, h->rows);
    h->rows++;
    if (!h->first_kind[kPbd_Edit_Changed]) h->first_kind[kPbd_Edit_Changed] = h->rows;
  } else {
    pbd_Buf_AppendStr(b, "<details class=\"b\" open><summary>");
  }
  path_code(h, b, x->text_len);
  field_type(b, fs->field);
  if (pf) {
    pbd_Buf_AppendStr(b, " <span class=\"t\">(");
    hp_count(b, lc);
    pbd_Buf_AppendStr(b, " in LEFT, ");
    hp_count(b, rc);
    pbd_Buf_AppendStr(b, " in RIGHT)</span>");
  }
  pbd_Buf_AppendStr(b, x->summary ? "</div>\n" : "</summary>\n");
}

static void close_box(Html *h, Box *x) {
  pbd_Buf *b = &h->body;
  if (x->summary) {
    hv_num_write(b, &x->num);
    pbd_Buf_AppendStr(b, "</div>\n");
  } else {
    if (x->counted && x->total > x->shown) {
      bool one = x->total - x->shown == 1;
      const char *what = x->kind != kBox_Group ? (one ? "field" : "fields")
                         : x->map ? (one ? "entry" : "entries") : (one ? "element" : "elements");
      pbd_Buf_AppendStr(b, "<div class=\"fold\">... ");
      hp_count(b, x->total - x->shown);
      pbd_Buf_Printf(b, " unchanged %s</div>\n", what);
    }
    pbd_Buf_AppendStr(b, x->kind == kBox_Root ? "</div>\n" : "</details>\n");
  }
  hv_num_free(&x->num);
  pbd_Buf_Free(&x->last);
  memset(x, 0, sizeof *x);
}

static void close_to(Html *h, size_t depth) {
  while (h->nboxes > depth) close_box(h, &h->boxes[--h->nboxes]);
  size_t len = h->nboxes ? h->boxes[h->nboxes - 1].text_len : 0;
  pbd_Buf_Truncate(&h->open, len);
}

static bool box_matches(const Html *h, const Box *x, const Step *s) {
  return x->kind == s->kind && x->seg_end == s->seg_end && h->off[s->seg_end] == x->text_len &&
         (x->text_len == 0 || memcmp(h->open.data, h->ptext.data, x->text_len) == 0);
}

/* Notes the child of box x that the edit goes through (a field of a
 * message, an element of a group), counting it when new. */
static void note_child(Html *h, Box *x, const pbd_Edit *e, size_t segs) {
  if (x->seg_end >= segs) return;
  const char *t = h->ptext.data + h->off[x->seg_end];
  size_t n = h->off[x->seg_end + 1] - h->off[x->seg_end];
  if (x->last.len == n && (n == 0 || memcmp(x->last.data, t, n) == 0) && x->last.data) return;
  pbd_Buf_Truncate(&x->last, 0);
  pbd_Buf_Append(&x->last, t, n);
  pbd_Buf_AppendStr(&x->last, "");
  /* an element added (only in RIGHT) is no element of LEFT */
  bool added_here = e->kind == kPbd_Edit_Added && x->seg_end + 1 == segs;
  if (x->kind != kBox_Group || !added_here) x->shown++;
}

/* ---- the boxes of differences ------------------------------------------------ */

static void side_cell(Html *h, pbd_Buf *c, const pbd_Edit *e, const pbd_Value *v) {
  if (v->kind == kPbd_Value_None)
    pbd_Buf_AppendStr(c, e->kind == kPbd_Edit_Presence ? "<span class=\"none\">(unset)</span>"
                                                       : "<span class=\"none\">(absent)</span>");
  else hv_cell(c, v, &h->budget);
}

static void edit_box(Html *h, const pbd_Edit *e) {
  pbd_Buf *b = &h->body;
  const char *kind = pbd_EditKind_String(e->kind);
  pbd_Buf_Printf(b, "<div class=\"d k-%s\" id=\"%sd%zu\" tabindex=\"-1\"><div class=\"dh\">"
                 "<span class=\"k\">%s</span>", kind, h->idp, h->rows, kind);
  path_code(h, b, h->ptext.len);
  if (e->left_index >= 0 && e->right_index >= 0 && e->left_index != e->right_index)
    pbd_Buf_Printf(b, " <span class=\"t\">[%lld] in LEFT &#8594; [%lld] in RIGHT</span>",
                   (long long)e->left_index, (long long)e->right_index);
  pbd_Buf_AppendStr(b, "</div>\n<div class=\"sbs\"><div class=\"l\"><span class=\"side\">LEFT</span>");
  pbd_Buf_Truncate(&h->cell_l, 0);
  pbd_Buf_Truncate(&h->cell_r, 0);
  if (!(e->kind == kPbd_Edit_Changed && hv_changed_part(&h->cell_l, &h->cell_r, &e->left, &e->right))) {
    side_cell(h, &h->cell_l, e, &e->left);
    side_cell(h, &h->cell_r, e, &e->right);
  }
  if (h->cell_l.oom || h->cell_r.oom) b->oom = true;
  if (h->cell_l.len) pbd_Buf_Append(b, h->cell_l.data, h->cell_l.len);
  pbd_Buf_AppendStr(b, "</div><div class=\"r\"><span class=\"side\">RIGHT</span>");
  if (h->cell_r.len) pbd_Buf_Append(b, h->cell_r.data, h->cell_r.len);
  pbd_Buf_AppendStr(b, "</div></div></div>\n");
  h->rows++;
  if ((unsigned)e->kind < kKinds && !h->first_kind[e->kind]) h->first_kind[e->kind] = h->rows;
}

/* ---- counts by top-level field --------------------------------------------------- */

/* The first field of the path, as --stat names it (report.h). */
static void top_name(Html *h, const pbd_Edit *e, const char **name, size_t *len) {
  size_t n = e->path ? e->path->count : 0, first = 0;
  while (first < n && (e->path->segs[first].kind == kPbd_Seg_Index ||
                       e->path->segs[first].kind == kPbd_Seg_RecordKey))
    first++;
  if (first == n) {
    *name = n ? "(messages)" : ".";
    *len = strlen(*name);
    return;
  }
  *name = h->ptext.data + h->off[first];
  *len = h->off[first + 1] - h->off[first];
  if (*len && **name == '.') (*name)++, (*len)--;
}

static TopField *top_field(Html *h, const pbd_Edit *e, bool *oom) {
  const char *name;
  size_t len;
  top_name(h, e, &name, &len);
  size_t i = rp_NameIndex_Find(&h->top_index, h->tops, sizeof *h->tops, h->ntops, name, len);
  if (i < h->ntops) return &h->tops[i];
  if (h->ntops == kHtml_MaxTops) return NULL;
  if (h->ntops == h->tops_cap) {
    size_t cap = h->tops_cap ? 2 * h->tops_cap : 16;
    TopField *t = realloc(h->tops, cap * sizeof *t);
    if (!t) return *oom = true, NULL;
    h->tops = t;
    h->tops_cap = cap;
  }
  TopField *t = &h->tops[h->ntops];
  memset(t, 0, sizeof *t);
  if (!(t->name = strndup(name, len)) ||
      !rp_NameIndex_Add(&h->top_index, h->tops, sizeof *h->tops, h->ntops)) {
    free(t->name);
    return *oom = true, NULL;
  }
  h->ntops++;
  return t;
}

static void count_top(Html *h, const pbd_Edit *e, size_t shown_as, bool *oom) {
  TopField *t = top_field(h, e, oom);
  size_t *counts = t ? t->counts : h->other_tops;
  if ((unsigned)e->kind < kKinds) counts[e->kind]++;
  if (t && !t->first && shown_as) t->first = shown_as;
}

/* ---- one difference ------------------------------------------------------------- */

static int html_edit(pbd_Reporter *r, const pbd_Edit *e) {
  Html *h = html_of(r);
  size_t segs = e->path ? e->path->count : 0;
  size_t n = path_offsets(h, e->path) ? edit_chain(h, e) : 0;
  bool oom = n == 0;
  size_t shown_as = 0; /* the box (number + 1) that shows the edit */
  if (!oom) {
    size_t depth = 0;
    while (depth < h->nboxes && depth < n && box_matches(h, &h->boxes[depth], &h->chain[depth]))
      depth++;
    Box *top = h->nboxes ? &h->boxes[h->nboxes - 1] : NULL;
    bool in_summary = top && top->summary && depth == h->nboxes && n == h->nboxes;
    bool room = h->rows < h->max_rows && !h->full;
    if (in_summary) {
      note_child(h, top, e, segs);
      hv_num_add(&top->num, e);
      h->represented++;
      shown_as = h->rows;
    } else if (room) {
      close_to(h, depth);
      for (size_t i = 0; i < h->nboxes; i++) note_child(h, &h->boxes[i], e, segs);
      while (h->nboxes < n && h->rows < h->max_rows) {
        if (h->nboxes == h->boxes_cap) {
          size_t cap = h->boxes_cap ? 2 * h->boxes_cap : 16;
          Box *nb = realloc(h->boxes, cap * sizeof *nb);
          if (!nb) return r->failed = true, 1;
          h->boxes = nb;
          h->boxes_cap = cap;
        }
        Box *x = &h->boxes[h->nboxes++];
        memset(x, 0, sizeof *x);
        x->kind = h->chain[h->nboxes - 1].kind;
        x->seg_end = h->chain[h->nboxes - 1].seg_end;
        x->text_len = h->off[x->seg_end];
        pbd_Buf_Truncate(&h->open, 0);
        pbd_Buf_Append(&h->open, h->ptext.data, x->text_len);
        open_box(h, x, e);
        note_child(h, x, e, segs);
      }
      top = &h->boxes[h->nboxes - 1];
      if (h->nboxes == n && top->summary) hv_num_add(&top->num, e), h->represented++, shown_as = h->rows;
      else if (h->nboxes == n && h->rows < h->max_rows) edit_box(h, e), h->represented++, shown_as = h->rows;
      if (h->body.len > kHtml_MaxBody) h->full = true;
    } else {
      /* not shown, but a difference of the open branches it goes through:
       * their folded counts say what did not change */
      for (size_t i = 0; i < depth; i++) note_child(h, &h->boxes[i], e, segs);
    }
  }
  count_top(h, e, shown_as, &oom);
  if (oom || h->body.oom || h->open.oom) return r->failed = true, 1;
  return 0;
}

/* ---- the header ------------------------------------------------------------------- */

static void meta_row(pbd_Buf *b, const char *what, const char *value) {
  pbd_Buf_Printf(b, "<tr><th>%s</th><td><code class=\"path\">", what);
  hp_escape_str(b, value);
  pbd_Buf_AppendStr(b, "</code></td></tr>\n");
}

static void kind_link(pbd_Buf *b, const char *idp, size_t first, pbd_EditKind k, size_t n) {
  if (first) pbd_Buf_Printf(b, "<a class=\"k-%s\" href=\"#%sd%zu\">", pbd_EditKind_String(k), idp, first - 1);
  else pbd_Buf_Printf(b, "<span class=\"k-%s\">", pbd_EditKind_String(k));
  hp_count(b, n);
  pbd_Buf_Printf(b, " %s%s", pbd_EditKind_String(k), first ? "</a>" : "</span>");
}

static void more_line(pbd_Reporter *r, Html *h, pbd_Buf *b) {
  if (r->total <= h->represented) return;
  pbd_Buf_AppendStr(b, "<p class=\"more\">");
  hp_count(b, r->total - h->represented);
  pbd_Buf_AppendStr(b, " more difference");
  if (r->total - h->represented != 1) pbd_Buf_AppendChar(b, 's');
  pbd_Buf_AppendStr(b, " not shown: the report shows ");
  hp_count(b, h->rows);
  pbd_Buf_Printf(b, " boxes (at most --max-diffs, now %zu, and %d MiB of them); the counts above "
                 "are of all of them.</p>\n", h->max_rows, kHtml_MaxBody >> 20);
}

static void header(pbd_Reporter *r, Html *h, pbd_Buf *b, bool equal) {
  pbd_Buf_AppendStr(b, r->o.fragment ? "<h2>" : "<header>\n<h1>");
  if (r->o.fragment && r->o.test_name) {
    pbd_Buf_AppendStr(b, "<code class=\"path\">");
    hp_escape_str(b, r->o.test_name);
    pbd_Buf_AppendStr(b, "</code>: ");
  } else {
    pbd_Buf_AppendStr(b, "pbdiff: ");
  }
  if (equal) {
    pbd_Buf_AppendStr(b, "equal");
  } else {
    hp_count(b, r->total);
    pbd_Buf_Printf(b, " difference%s", r->total == 1 ? "" : "s");
  }
  pbd_Buf_AppendStr(b, r->o.fragment ? "</h2>\n" : "</h1>\n");
  pbd_Buf_AppendStr(b, "<table class=\"meta\">\n");
  if (r->o.left_name) meta_row(b, "LEFT", r->o.left_name);
  if (r->o.right_name) meta_row(b, "RIGHT", r->o.right_name);
  meta_row(b, "schema", r->o.schema_text && *r->o.schema_text ? r->o.schema_text : "(none: fields by number)");
  if (r->o.type_name) meta_row(b, "type", r->o.type_name);
  if (!r->o.fragment) meta_row(b, "options", r->o.options_text && *r->o.options_text ? r->o.options_text : "(none)");
  pbd_Buf_AppendStr(b, "</table>\n");
  if (r->total) {
    pbd_Buf_AppendStr(b, "<p class=\"kinds\">");
    for (int i = 0; i < kKinds; i++) {
      pbd_EditKind k = kPbd_KindOrder[i];
      if (r->counts[k]) kind_link(b, h->idp, h->first_kind[k], k, r->counts[k]);
    }
    pbd_Buf_AppendStr(b, "</p>\n");
    hp_counts_head(b, "top-level field");
    for (size_t i = 0; i < h->ntops; i++) {
      pbd_Buf_AppendStr(b, "<tr><td>");
      if (h->tops[i].first) pbd_Buf_Printf(b, "<a href=\"#%sd%zu\">", h->idp, h->tops[i].first - 1);
      pbd_Buf_AppendStr(b, "<code class=\"path\">");
      hp_escape_str(b, h->tops[i].name);
      pbd_Buf_AppendStr(b, h->tops[i].first ? "</code></a></td>" : "</code></td>");
      hp_counts_cells(b, h->tops[i].counts);
      pbd_Buf_AppendStr(b, "</tr>\n");
    }
    size_t other = 0;
    for (int k = 0; k < kKinds; k++) other += h->other_tops[k];
    if (other) {
      pbd_Buf_AppendStr(b, "<tr><td>(other fields)</td>");
      hp_counts_cells(b, h->other_tops);
      pbd_Buf_AppendStr(b, "</tr>\n");
    }
    pbd_Buf_AppendStr(b, "</table>\n");
  }
  more_line(r, h, b);
  if (!r->o.fragment) pbd_Buf_AppendStr(b, "</header>\n");
}

static void pre_block(pbd_Buf *b, const char *title, const pbd_Buf *text) {
  if (!text->len) return;
  pbd_Buf_Printf(b, "<h2>%s</h2>\n<pre>", title);
  hp_escape(b, text->data, text->len);
  pbd_Buf_AppendStr(b, "</pre>\n");
}

static void html_finish(pbd_Reporter *r, bool equal) {
  Html *h = html_of(r);
  close_to(h, 0);
  pbd_Buf doc = {0};
  if (r->o.fragment) {
    pbd_Buf_Printf(&doc, "<section class=\"file\" id=\"%s\" data-counts=\"", h->idp);
    for (int k = 0; k < kKinds; k++) pbd_Buf_Printf(&doc, "%s%zu", k ? " " : "", r->counts[k]);
    pbd_Buf_AppendStr(&doc, "\">\n");
  } else {
    pbd_Buf_Truncate(&h->name, 0);
    if (r->o.left_name && r->o.right_name)
      pbd_Buf_Printf(&h->name, "%s vs %s", r->o.left_name, r->o.right_name);
    else pbd_Buf_AppendStr(&h->name, "report");
    hp_page_begin(&doc, h->name.oom ? "report" : h->name.data);
  }
  header(r, h, &doc, equal);
  if (h->body.len) {
    pbd_Buf_AppendStr(&doc, "<main>\n");
    pbd_Buf_Append(&doc, h->body.data, h->body.len);
    more_line(r, h, &doc);
    pbd_Buf_AppendStr(&doc, "</main>\n");
  }
  pre_block(&doc, "notes", &r->note_text);
  pre_block(&doc, "encoding (--explain)", &r->explain_text);
  if (r->o.fragment) pbd_Buf_AppendStr(&doc, "</section>\n");
  else hp_page_end(&doc);
  if (doc.oom || h->body.oom) r->failed = true;
  else fwrite(doc.data, 1, doc.len, r->out);
  pbd_Buf_Free(&doc);
}

static bool html_begin(pbd_Reporter *r) {
  Html *h = calloc(1, sizeof *h);
  if (!h) return false;
  r->own = h;
  /* the report counts every edit itself: the boxes are bounded here */
  h->max_rows = r->o.max_diffs ? r->o.max_diffs : kHtml_DefaultRows;
  r->o.max_diffs = 0;
  h->budget = kHv_MessageBudget;
  if (r->o.fragment && r->o.test_name)
    hp_file_id(h->idp, r->o.test_name);
  return true;
}

static void html_free(pbd_Reporter *r) {
  Html *h = html_of(r);
  if (!h) return;
  for (size_t i = 0; i < h->nboxes; i++) hv_num_free(&h->boxes[i].num), pbd_Buf_Free(&h->boxes[i].last);
  free(h->boxes);
  free(h->chain);
  free(h->off);
  for (size_t i = 0; i < h->ntops; i++) free(h->tops[i].name);
  free(h->tops);
  rp_NameIndex_Free(&h->top_index);
  pbd_Buf_Free(&h->body);
  pbd_Buf_Free(&h->open);
  pbd_Buf_Free(&h->ptext);
  pbd_Buf_Free(&h->cell_l);
  pbd_Buf_Free(&h->cell_r);
  pbd_Buf_Free(&h->name);
  free(h);
  r->own = NULL;
}

/* ---- pbdiff -r: html_files.c ---------------------------------------------------- */

void rp_html_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                          pbd_ReportOptions *ro);
void rp_html_file(pbd_FilesReporter *s, const pbd_FileResult *f);
void rp_html_files_end(pbd_FilesReporter *s, bool equal);
void rp_html_files_free(pbd_FilesReporter *s);

const pbd_FormatDef kPbd_FormatDef_Html = {
    .name = "html",
    .help = "'html': one self-contained HTML page (the tree\nof differences, n/p to move), "
            "see docs/html.md",
    .names_inputs = true,
    .begin = html_begin, .edit = html_edit, .finish = html_finish, .close = rp_flush_out,
    .free_own = html_free,
    .file_options = rp_html_file_options, .file = rp_html_file, .files_end = rp_html_files_end,
    .files_free = rp_html_files_free,
};
