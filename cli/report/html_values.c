/* pbdiff CLI — the cells of the HTML report (docs/html.md): a value in text
 * format, HTML-escaped; a long message folded; the part of a long string
 * that changed, marked; a long numeric repeated field summed up. */
#include <math.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/html_impl.h"

static bool is_message(const pbd_Value *v) {
  return v->kind == kPbd_Value_Message || v->kind == kPbd_Value_LenMessage ||
         v->kind == kPbd_Value_Group;
}

static void escaped(pbd_Buf *b, const pbd_Buf *text) {
  if (text->oom) b->oom = true;
  else if (text->len) hp_escape(b, text->data, text->len);
}

/* A message over several lines, cut after kHv_MaxMessageText bytes (at a
 * line's end), folded when long. */
static void message_cell(pbd_Buf *b, const pbd_Value *v, size_t *budget) {
  pbd_TextOptions o = {.max_bytes = kHv_MaxBytes, .cut_hash = true, .well_known = true,
                       .multiline = true};
  pbd_Buf t = {0};
  pbd_Format_TextValue(&t, v, &o);
  size_t cap = kHv_MaxMessageText < *budget ? kHv_MaxMessageText : *budget;
  size_t lines = 0, shown_lines = 0, cut = 0;
  for (size_t i = 0; i < t.len; i++) {
    if (t.data[i] != '\n') continue;
    lines++;
    if (i + 1 <= cap) shown_lines = lines, cut = i + 1;
  }
  if (t.len && t.data[t.len - 1] != '\n') lines++; /* the closing brace */
  if (t.len <= cap) cut = t.len, shown_lines = lines;
  *budget -= cut;
  bool fold = lines > kHv_FoldLines;
  if (fold) {
    pbd_Buf_AppendStr(b, "<details class=\"msg\"><summary>message, ");
    hp_count(b, lines);
    pbd_Buf_AppendStr(b, " lines</summary>");
  }
  pbd_Buf_AppendStr(b, "<pre class=\"v\">");
  if (t.oom) b->oom = true;
  else hp_escape(b, t.data ? t.data : "", cut);
  if (cut < t.len) {
    pbd_Buf_AppendStr(b, "<span class=\"el\">... (");
    hp_count(b, lines - shown_lines);
    pbd_Buf_AppendStr(b, " more lines, ");
    hp_count(b, t.len - cut);
    pbd_Buf_AppendStr(b, " bytes)</span>");
  }
  pbd_Buf_AppendStr(b, "</pre>");
  if (fold) pbd_Buf_AppendStr(b, "</details>");
  pbd_Buf_Free(&t);
}

void hv_cell(pbd_Buf *b, const pbd_Value *v, size_t *budget) {
  pbd_TextOptions o = {.max_bytes = kHv_MaxBytes, .cut_hash = true, .well_known = true,
                       .max_message = 120};
  pbd_Buf t = {0};
  pbd_Format_TextValue(&t, v, &o);
  /* a message that does not fit one line is shown whole, while the
   * report's budget for them lasts */
  if (is_message(v) && !t.oom && t.len && t.data[t.len - 1] != '}' && *budget > 0) {
    pbd_Buf_Free(&t);
    message_cell(b, v, budget);
    return;
  }
  pbd_Buf_AppendStr(b, "<code class=\"v\">");
  escaped(b, &t);
  pbd_Buf_AppendStr(b, "</code>");
  pbd_Buf_Free(&t);
}

/* ---- the part of a long string that changed -------------------------------------- */

/* Bytes of context kept on each side of the part that differs; at most
 * this many bytes differing on a side are marked (else the values are cut
 * as usual). */
enum { kContext = 24, kMaxMarked = 512 };

static bool continuation(const pbd_Value *v, size_t i) {
  return v->kind == kPbd_Value_String && i < v->s.size &&
         ((unsigned char)v->s.data[i] & 0xc0) == 0x80;
}

/* v[from, to) in text-format escapes, without the quotes. */
static void piece(pbd_Buf *b, const pbd_Value *v, size_t from, size_t to) {
  pbd_Value p = *v;
  p.s.data = v->s.data + from;
  p.s.size = to - from;
  pbd_TextOptions o = {0};
  pbd_Buf t = {0};
  pbd_Format_TextValue(&t, &p, &o);
  if (t.oom) b->oom = true;
  else if (t.len >= 2) hp_escape(b, t.data + 1, t.len - 2);
  pbd_Buf_Free(&t);
}

static void elided(pbd_Buf *b, size_t n, bool before) {
  if (!n) return;
  pbd_Buf_AppendStr(b, before ? "<span class=\"el\">...(" : " <span class=\"el\">(");
  hp_count(b, n);
  pbd_Buf_AppendStr(b, before ? " bytes)</span> " : " bytes)...</span>");
}

static void side(pbd_Buf *b, const pbd_Value *v, size_t from, size_t pre, size_t suf_at,
                 size_t to) {
  pbd_Buf_AppendStr(b, "<code class=\"v\">");
  elided(b, from, true);
  pbd_Buf_AppendChar(b, '"');
  piece(b, v, from, pre);
  pbd_Buf_AppendStr(b, "<mark>");
  piece(b, v, pre, suf_at);
  pbd_Buf_AppendStr(b, "</mark>");
  piece(b, v, suf_at, to);
  pbd_Buf_AppendChar(b, '"');
  elided(b, v->s.size - to, false);
  pbd_Buf_AppendStr(b, "</code>");
}

bool hv_changed_part(pbd_Buf *lb, pbd_Buf *rb, const pbd_Value *l, const pbd_Value *r) {
  bool text = l->kind == kPbd_Value_String || l->kind == kPbd_Value_Bytes;
  if (!text || l->kind != r->kind) return false;
  size_t ln = l->s.size, rn = r->s.size, min = ln < rn ? ln : rn;
  if (ln <= kHv_MaxBytes && rn <= kHv_MaxBytes) return false; /* shown whole */
  size_t pre = 0, suf = 0;
  while (pre < min && l->s.data[pre] == r->s.data[pre]) pre++;
  while (suf < min - pre && l->s.data[ln - 1 - suf] == r->s.data[rn - 1 - suf]) suf++;
  /* whole characters on both sides */
  while (pre > 0 && (continuation(l, pre) || continuation(r, pre))) pre--;
  while (suf > 0 && (continuation(l, ln - suf) || continuation(r, rn - suf))) suf--;
  if (pre + suf <= kContext) return false; /* little in common */
  if (ln - suf - pre > kMaxMarked || rn - suf - pre > kMaxMarked) return false;
  size_t from = pre > kContext ? pre - kContext : 0;
  while (from > 0 && (continuation(l, from) || continuation(r, from))) from--;
  size_t keep = suf > kContext ? kContext : suf; /* context after the change */
  while (keep < suf && (continuation(l, ln - suf + keep) || continuation(r, rn - suf + keep)))
    keep++;
  side(lb, l, from, pre, ln - suf, ln - suf + keep);
  side(rb, r, from, pre, rn - suf, rn - suf + keep);
  return true;
}

/* ---- long numeric repeated fields ------------------------------------------------ */

bool hv_numeric_field(const pbd_FieldDef *f) {
  if (!f || !f->is_repeated || f->is_map) return false;
  switch (f->type) {
    case kPbd_Type_Double: case kPbd_Type_Float: case kPbd_Type_Int64: case kPbd_Type_UInt64:
    case kPbd_Type_Int32: case kPbd_Type_Fixed64: case kPbd_Type_Fixed32: case kPbd_Type_UInt32:
    case kPbd_Type_SFixed32: case kPbd_Type_SFixed64: case kPbd_Type_SInt32: case kPbd_Type_SInt64:
      return true;
    default:
      return false;
  }
}

static bool as_double(const pbd_Value *v, double *d) {
  switch (v->kind) {
    case kPbd_Value_Int: *d = (double)v->i; return true;
    case kPbd_Value_UInt: *d = (double)v->u; return true;
    case kPbd_Value_Float: {
      uint32_t bits = (uint32_t)v->u;
      float f;
      memcpy(&f, &bits, sizeof f);
      *d = f;
      return true;
    }
    case kPbd_Value_Double: memcpy(d, &v->u, sizeof *d); return true;
    default: return false;
  }
}

static void value_text(pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = 64};
  pbd_Buf t = {0};
  pbd_Format_TextValue(&t, v, &o);
  escaped(b, &t);
  pbd_Buf_Free(&t);
}

void hv_num_add(hv_NumSummary *s, const pbd_Edit *e) {
  s->edits++;
  if ((unsigned)e->kind < kKinds) s->by_kind[e->kind]++;
  else s->other_kinds++;
  int64_t at = e->left_index >= 0 ? e->left_index : e->right_index;
  double a, b;
  if (e->kind == kPbd_Edit_Changed && as_double(&e->left, &a) && as_double(&e->right, &b) &&
      !isnan(a) && !isnan(b)) {
    double abs_d = fabs(a - b), scale = fmax(fabs(a), fabs(b));
    if (!isnan(abs_d) && (!s->have_abs || abs_d > s->max_abs))
      s->max_abs = abs_d, s->max_abs_at = at, s->have_abs = true;
    double rel = scale > 0 && isfinite(scale) ? abs_d / scale : 0;
    if (scale > 0 && !isnan(rel) && (!s->have_rel || rel > s->max_rel))
      s->max_rel = rel, s->max_rel_at = at, s->have_rel = true;
  }
  if (s->nfirst >= kHv_FirstIndices) return;
  s->first_at[s->nfirst++] = at;
  pbd_Buf_Printf(&s->first, "<li><code>[%lld]</code> ", (long long)at);
  if (e->left.kind != kPbd_Value_None) value_text(&s->first, &e->left);
  else pbd_Buf_AppendStr(&s->first, "<span class=\"none\">(none)</span>");
  pbd_Buf_AppendStr(&s->first, " &#8594; ");
  if (e->right.kind != kPbd_Value_None) value_text(&s->first, &e->right);
  else pbd_Buf_AppendStr(&s->first, "<span class=\"none\">(none)</span>");
  pbd_Buf_Printf(&s->first, " <span class=\"t\">%s</span></li>", pbd_EditKind_String(e->kind));
}

void hv_num_write(pbd_Buf *b, const hv_NumSummary *s) {
  pbd_Buf_AppendStr(b, "<div class=\"sbs\"><div class=\"l\"><span class=\"side\">LEFT</span>");
  hp_count(b, s->left_len);
  pbd_Buf_AppendStr(b, " elements</div><div class=\"r\"><span class=\"side\">RIGHT</span>");
  hp_count(b, s->right_len);
  pbd_Buf_AppendStr(b, " elements</div></div>\n<p>");
  hp_count(b, s->edits);
  pbd_Buf_AppendStr(b, " element difference");
  if (s->edits != 1) pbd_Buf_AppendChar(b, 's');
  const char *sep = " (";
  for (int i = 0; i < kKinds; i++) {
    pbd_EditKind k = kPbd_KindOrder[i];
    if (!s->by_kind[k]) continue;
    pbd_Buf_AppendStr(b, sep);
    hp_count(b, s->by_kind[k]);
    pbd_Buf_Printf(b, " %s", pbd_EditKind_String(k));
    sep = ", ";
  }
  if (s->other_kinds) {
    pbd_Buf_AppendStr(b, sep);
    hp_count(b, s->other_kinds);
    pbd_Buf_AppendStr(b, " other");
    sep = ", ";
  }
  if (sep[0] == ',') pbd_Buf_AppendChar(b, ')');
  if (s->have_abs)
    pbd_Buf_Printf(b, "; largest absolute difference <code>%.9g</code> at <code>[%lld]</code>",
                   s->max_abs, (long long)s->max_abs_at);
  if (s->have_rel)
    pbd_Buf_Printf(b, "; largest relative difference <code>%.9g</code> at <code>[%lld]</code>",
                   s->max_rel, (long long)s->max_rel_at);
  pbd_Buf_AppendStr(b, "</p>\n<p>first differing indices:</p><ul class=\"first\">");
  if (s->first.oom) b->oom = true;
  else if (s->first.len) pbd_Buf_Append(b, s->first.data, s->first.len);
  pbd_Buf_AppendStr(b, "</ul>");
}

void hv_num_free(hv_NumSummary *s) { pbd_Buf_Free(&s->first); }
