/* pbdiff CLI — the text report and its --stat form (report.h), and the
 * text form of pbdiff -r (the file's report under ---/+++ lines, or one
 * summary line per file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"
#include "report/report_impl.h"

/* Strings and bytes longer than this are cut in text reports. */
enum { kPbd_Report_MaxBytes = 64 };
/* One-line message values longer than this are cut in text reports. */
enum { kPbd_Report_MaxMessage = 120 };

static void names_lines(pbd_Reporter *r, pbd_Buf *b);
static void append_counts(bool color, pbd_Buf *b, const size_t *counts);

/* ---- stat ---------------------------------------------------------------------- */

/* The top-level field of a path as report.h describes it, in r->path. */
static void top_field(pbd_Reporter *r, const pbd_Path *p, const char **name, size_t *len) {
  size_t n = p ? p->count : 0, first = 0;
  if (n > 0 && (p->segs[0].kind == kPbd_Seg_Index || p->segs[0].kind == kPbd_Seg_RecordKey)) {
    /* a stream's message, or a corpus's record */
    if (n == 1) {
      *name = "(messages)";
      *len = strlen(*name);
      return;
    }
    first = 1;
  }
  if (first == n) {
    *name = ".";
    *len = 1;
    return;
  }
  /* the first `depth` fields, indices and keys between them as [*] */
  size_t depth = r->o.stat_depth ? r->o.stat_depth : 1, fields = 0, end = first;
  for (size_t i = first; i < n && fields < depth; i++) {
    pbd_PathSegKind k = p->segs[i].kind;
    if (k == kPbd_Seg_Field || k == kPbd_Seg_Extension || k == kPbd_Seg_Any) fields++, end = i + 1;
  }
  pbd_Buf_Truncate(&r->path, 0);
  for (size_t i = first; i < end; i++) {
    pbd_PathSegKind k = p->segs[i].kind;
    if (k == kPbd_Seg_Index || k == kPbd_Seg_MapKey || k == kPbd_Seg_ElementKey)
      pbd_Buf_AppendStr(&r->path, "[*]");
    else
      pbd_Path_Format(&r->path, p, i, i + 1);
  }
  pbd_Buf_AppendStr(&r->path, "");
  if (!r->path.oom) { /* an Any's type URL is payload text: escaped */
    pbd_Buf raw = {0};
    pbd_Buf_AppendStr(&raw, r->path.data);
    pbd_Buf_Truncate(&r->path, 0);
    pbd_Cli_AppendEscaped(&r->path, raw.data ? raw.data : "");
    pbd_Buf_AppendStr(&r->path, "");
    pbd_Buf_Free(&raw);
  }
  const char *t = r->path.oom ? "" : r->path.data;
  if (*t == '.') t++;
  *name = t;
  *len = strlen(t);
}

/* The counts of a top-level field, added when new; NULL when out of memory. */
static StatField *stat_field(pbd_Reporter *r, const char *name, size_t len) {
  size_t i = rp_NameIndex_Find(&r->field_index, r->fields, sizeof *r->fields, r->nfields, name, len);
  if (i < r->nfields) return &r->fields[i];
  if (r->nfields == r->fields_cap) {
    size_t cap = r->fields_cap ? r->fields_cap * 2 : 16;
    StatField *nf = realloc(r->fields, cap * sizeof *nf);
    if (!nf) return NULL;
    r->fields = nf;
    r->fields_cap = cap;
  }
  StatField *f = &r->fields[r->nfields];
  memset(f, 0, sizeof *f);
  f->name = strndup(name, len);
  if (!f->name || !rp_NameIndex_Add(&r->field_index, r->fields, sizeof *r->fields, r->nfields)) {
    free(f->name);
    return NULL;
  }
  r->nfields++;
  return f;
}

static int stat_edit(pbd_Reporter *r, const pbd_Edit *e) {
  const char *name;
  size_t len;
  top_field(r, e->path, &name, &len);
  StatField *f = stat_field(r, name, len);
  if (!f) {
    r->failed = true;
    return 1;
  }
  if ((unsigned)e->kind < kKinds) f->counts[e->kind]++;
  return 0;
}

static void stat_write(pbd_Reporter *r) {
  if (r->total == 0) return;
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  names_lines(r, b);
  for (size_t i = 0; i < r->nfields; i++) {
    pbd_Buf_Printf(b, "  %s: ", r->fields[i].name);
    append_counts(r->o.color, b, r->fields[i].counts);
    if (r->o.stat_out && !rp_stat_add(r->o.stat_out, r->fields[i].name, r->fields[i].counts))
      b->oom = true;
    pbd_Buf_AppendChar(b, '\n');
    if (b->len > 65536) {
      if (rp_flush_line(r, b)) return;
      pbd_Buf_Truncate(b, 0);
    }
  }
  pbd_Buf_Printf(b, "%zu difference%s: ", r->total, r->total == 1 ? "" : "s");
  append_counts(r->o.color, b, r->counts);
  pbd_Buf_AppendChar(b, '\n');
  rp_flush_line(r, b);
}


/* ---- differences ------------------------------------------------------------------ */


static void text_value(pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = kPbd_Report_MaxBytes,
                       .cut_hash = true,
                       .well_known = true,
                       .max_message = kPbd_Report_MaxMessage};
  pbd_Format_TextValue(b, v, &o);
}

/* Lines of a message value shown before `... (N more lines)`, when the
 * options give no number. */
enum { kDefaultValueLines = 40 };

/* A message too long for one line (an added or removed element, say), as
 * indented text format, whole up to the line limit. */
static void multiline_value(pbd_Reporter *r, pbd_Buf *b, const pbd_Value *v) {
  pbd_TextOptions o = {.max_bytes = kPbd_Report_MaxBytes, .cut_hash = true, .well_known = true,
                       .multiline = true, .indent = r->value_indent};
  size_t start = b->len, limit = r->o.max_value_lines ? r->o.max_value_lines : kDefaultValueLines;
  pbd_Format_TextValue(b, v, &o);
  if (b->oom) return;
  size_t lines = 0, cut = 0;
  for (size_t i = start; i < b->len; i++)
    if (b->data[i] == '\n' && ++lines == limit) cut = i + 1;
  if (!cut || lines <= limit) return;
  size_t more = lines - limit; /* the closing brace's line is not counted */
  pbd_Buf_Truncate(b, cut);
  for (int i = 0; i <= r->value_indent; i++) pbd_Buf_AppendStr(b, "  ");
  pbd_Buf_Printf(b, "... (%zu more line%s)\n", more, more == 1 ? "" : "s");
  for (int i = 0; i < r->value_indent; i++) pbd_Buf_AppendStr(b, "  ");
  pbd_Buf_AppendChar(b, '}');
}

static void colored_value(pbd_Reporter *r, pbd_Buf *b, const char *sgr, const char *word,
                          const pbd_Value *v) {
  rp_color_on(r, b, sgr);
  pbd_Buf_AppendStr(b, word);
  size_t start = b->len;
  text_value(b, v);
  bool message = v->kind == kPbd_Value_Message || v->kind == kPbd_Value_LenMessage ||
                 v->kind == kPbd_Value_Group;
  /* a message's line ends with its brace unless it was cut: too long for a
   * line, it goes over several */
  if (message && !b->oom && b->len > start && b->data[b->len - 1] != '}') {
    pbd_Buf_Truncate(b, start);
    multiline_value(r, b, v);
  }
  rp_color_off(r, b);
}

/* ---- the part of a long string that changed ------------------------------------ */

/* Bytes of context kept on each side of the part that differs. */
enum { kChangeContext = 16 };

static bool is_text_kind(pbd_ValueKind k) { return k == kPbd_Value_String || k == kPbd_Value_Bytes; }

/* One side of a changed long string: `...(P bytes) "MIDDLE" (S bytes)...`,
 * the elided runs being the same on both sides. */
static void middle_value(pbd_Reporter *r, pbd_Buf *b, const char *sgr, const pbd_Value *v,
                         size_t from, size_t to) {
  pbd_Value mid = *v;
  mid.s.data = v->s.data + from;
  mid.s.size = to - from;
  pbd_TextOptions o = {.max_bytes = 2 * kPbd_Report_MaxBytes, .cut_hash = true};
  if (from) pbd_Buf_Printf(b, "...(%zu bytes) ", from);
  rp_color_on(r, b, sgr);
  pbd_Format_TextValue(b, &mid, &o);
  rp_color_off(r, b);
  if (to < v->s.size) pbd_Buf_Printf(b, " (%zu bytes)...", v->s.size - to);
}

/* Back to the start of a UTF-8 character (strings only). */
static size_t char_start(const pbd_Value *v, size_t i) {
  if (v->kind != kPbd_Value_String) return i;
  while (i > 0 && i < v->s.size && ((unsigned char)v->s.data[i] & 0xc0) == 0x80) i--;
  return i;
}

/* Two strings or bytes, one longer than a report shows, that share a start
 * or an end: only the part that differs is shown, with some context, and
 * the lengths of what is the same around it.  false: not such a pair. */
static bool changed_part(pbd_Reporter *r, pbd_Buf *b, const pbd_Value *l, const pbd_Value *rv) {
  if (!is_text_kind(l->kind) || l->kind != rv->kind) return false;
  size_t ln = l->s.size, rn = rv->s.size, min = ln < rn ? ln : rn;
  if (ln <= kPbd_Report_MaxBytes && rn <= kPbd_Report_MaxBytes) return false;
  size_t pre = 0, suf = 0;
  while (pre < min && l->s.data[pre] == rv->s.data[pre]) pre++;
  while (suf < min - pre && l->s.data[ln - 1 - suf] == rv->s.data[rn - 1 - suf]) suf++;
  if (pre + suf <= kChangeContext) return false; /* little in common: shown as they are */
  size_t from = char_start(l, pre > kChangeContext ? pre - kChangeContext : 0);
  size_t keep = suf > kChangeContext ? suf - kChangeContext : 0; /* elided at the end */
  size_t lto = ln - keep, rto = rn - keep;
  while (keep && lto < ln && char_start(l, lto) != lto) lto++, rto++; /* whole characters */
  if (lto - from > 2 * kPbd_Report_MaxBytes || rto - from > 2 * kPbd_Report_MaxBytes)
    return false; /* changed all over: cut as usual */
  middle_value(r, b, SGR_RED, l, from, lto);
  pbd_Buf_AppendStr(b, " -> ");
  middle_value(r, b, SGR_GREEN, rv, from, rto);
  return true;
}

/* `--- LEFT` and `+++ RIGHT`, once, before the first difference. */
static void names_lines(pbd_Reporter *r, pbd_Buf *b) {
  if (r->names_written || !r->o.left_name || !r->o.right_name) return;
  r->names_written = true;
  const char *names[2] = {r->o.left_name, r->o.right_name};
  const char *marks[2] = {"--- ", "+++ "};
  for (int i = 0; i < 2; i++) {
    rp_color_on(r, b, SGR_BOLD);
    pbd_Buf_AppendStr(b, marks[i]);
    pbd_Cli_AppendName(b, NULL, names[i]);
    rp_color_off(r, b);
    pbd_Buf_AppendChar(b, '\n');
  }
}

/* "3 changed, 1 added": nonzero counts in kPbd_KindOrder, removed, added
 * and moved coloured. */
static void append_counts(bool color, pbd_Buf *b, const size_t *counts) {
  bool first = true;
  for (int i = 0; i < kKinds; i++) {
    pbd_EditKind k = kPbd_KindOrder[i];
    if (!counts[k]) continue;
    if (!first) pbd_Buf_AppendStr(b, ", ");
    first = false;
    const char *sgr = k == kPbd_Edit_Added     ? SGR_GREEN
                      : k == kPbd_Edit_Removed ? SGR_RED
                      : k == kPbd_Edit_Moved   ? SGR_CYAN
                                               : NULL;
    if (sgr && color) pbd_Buf_AppendStr(b, sgr);
    pbd_Buf_Printf(b, "%zu %s", counts[k], pbd_EditKind_String(k));
    if (sgr && color) pbd_Buf_AppendStr(b, SGR_RESET);
  }
}

/* The type a changed value is read as, where the two sides read a field as
 * different types (a field retyped between --left-schema and
 * --right-schema): `s: string "hi" -> bytes "hi"`, so that a change of
 * type never reads as no change.  NULL where the types agree. */
static const char *type_word(const pbd_Value *v) {
  if (v->field) return pbd_FieldType_Name(v->field->type);
  switch (v->kind) {
    case kPbd_Value_Varint: return "varint";
    case kPbd_Value_Fixed32: return "fixed32";
    case kPbd_Value_Fixed64: return "fixed64";
    case kPbd_Value_String: return "string";
    case kPbd_Value_Bytes:
    case kPbd_Value_Len: return "bytes";
    case kPbd_Value_Bool: return "bool";
    case kPbd_Value_Float: return "float";
    case kPbd_Value_Double: return "double";
    case kPbd_Value_Enum: return "enum";
    case kPbd_Value_LenMessage: return "message";
    case kPbd_Value_Group: return "group";
    default: return "value";
  }
}

static bool is_message_value(const pbd_Value *v) {
  return v->kind == kPbd_Value_Message || v->kind == kPbd_Value_LenMessage ||
         v->kind == kPbd_Value_Group;
}

/* What a moved element is, after its path: ` (op_type "Relu", name "n14")`,
 * its first two non-empty string fields, else a one-line form of it cut
 * short, so that `node[14]: moved [14] -> [15]` says which node.  Only for
 * an element named by its index: a key names it already. */
static void moved_element(pbd_Buf *b, const pbd_Edit *e) {
  const pbd_Path *p = e->path;
  if (!p->count || p->segs[p->count - 1].kind != kPbd_Seg_Index) return; /* named by key */
  const pbd_Value *v = &e->left;
  pbd_TextOptions o = {.max_bytes = 32, .max_message = 48, .well_known = true};
  if (!is_message_value(v) || !v->m) {
    pbd_Buf_AppendStr(b, " (");
    pbd_Format_TextValue(b, v, &o);
    pbd_Buf_AppendChar(b, ')');
    return;
  }
  const pbd_Field *f = pbd_Message_Fields(v->m);
  int shown = 0;
  for (uint32_t i = 0; i < pbd_Message_FieldCount(v->m) && shown < 2; i++) {
    if (!f[i].def || f[i].def->is_repeated || f[i].kind != kPbd_Value_String) continue;
    pbd_Value s = pbd_Field_Value(&f[i], 0);
    if (!s.s.size) continue;
    pbd_Buf_AppendStr(b, shown++ ? ", " : " (");
    pbd_Buf_AppendStr(b, f[i].def->name);
    pbd_Buf_AppendChar(b, ' ');
    pbd_Format_TextValue(b, &s, &o);
  }
  if (shown) {
    pbd_Buf_AppendChar(b, ')');
    return;
  }
  pbd_Buf_AppendStr(b, " (");
  pbd_Format_TextValue(b, v, &o);
  pbd_Buf_AppendChar(b, ')');
}

static bool types_differ(const pbd_Value *l, const pbd_Value *r) {
  if (l->kind == kPbd_Value_None || r->kind == kPbd_Value_None) return false;
  if (l->field && r->field) return l->field->type != r->field->type;
  return l->kind != r->kind;
}

int rp_text_edit(pbd_Reporter *r, const pbd_Edit *e) {
  if (r->o.stat) return stat_edit(r, e);
  pbd_Buf *b = &r->line;
  pbd_Buf_Truncate(b, 0);
  size_t plen;
  const char *path = rp_path_shown(r, e, e->kind != kPbd_Edit_Moved, &plen);
  names_lines(r, b);
  if (!r->have_group || r->group.len != plen || memcmp(r->group.data, path, plen) != 0 ||
      r->group_type != e->parent) {
    pbd_Buf_Truncate(&r->group, 0);
    pbd_Buf_Append(&r->group, path, plen);
    pbd_Buf_AppendStr(&r->group, ""); /* data never NULL */
    r->group_type = e->parent;
    r->have_group = true;
    if (plen > 0) {
      rp_color_on(r, b, SGR_BOLD);
      pbd_Buf_Append(b, path, plen);
      if (e->parent && e->parent->full_name) pbd_Buf_Printf(b, " (%s)", e->parent->full_name);
      pbd_Buf_AppendChar(b, ':');
      rp_color_off(r, b);
      pbd_Buf_AppendChar(b, '\n');
    }
    if (r->group.oom) b->oom = true;
  }
  const char *field = path + plen;
  if (plen > 0 && *field == '.') field++;
  if (plen > 0) pbd_Buf_AppendStr(b, "  ");
  r->value_indent = plen > 0 ? 1 : 0;
  pbd_Buf_AppendStr(b, *field ? field : ".");
  if (e->kind == kPbd_Edit_Moved) moved_element(b, e);
  pbd_Buf_AppendStr(b, ": ");
  switch (e->kind) {
    case kPbd_Edit_Added:
      colored_value(r, b, SGR_GREEN, "added ", &e->right);
      break;
    case kPbd_Edit_Removed:
      colored_value(r, b, SGR_RED, "removed ", &e->left);
      break;
    case kPbd_Edit_Presence:
      if (e->left.kind == kPbd_Value_None) {
        pbd_Buf_AppendStr(b, "unset -> ");
        colored_value(r, b, SGR_GREEN, "set to ", &e->right);
      } else {
        colored_value(r, b, SGR_RED, "set to ", &e->left);
        pbd_Buf_AppendStr(b, " -> unset");
      }
      break;
    case kPbd_Edit_Moved:
      rp_color_on(r, b, SGR_CYAN);
      pbd_Buf_Printf(b, "moved [%lld] -> [%lld]", (long long)e->left_index,
                     (long long)e->right_index);
      rp_color_off(r, b);
      break;
    case kPbd_Edit_Changed:
    default:
      if (types_differ(&e->left, &e->right)) {
        char lw[32], rw[32];
        snprintf(lw, sizeof lw, "%s ", type_word(&e->left));
        snprintf(rw, sizeof rw, "%s ", type_word(&e->right));
        colored_value(r, b, SGR_RED, lw, &e->left);
        pbd_Buf_AppendStr(b, " -> ");
        colored_value(r, b, SGR_GREEN, rw, &e->right);
        break;
      }
      if (changed_part(r, b, &e->left, &e->right)) break;
      colored_value(r, b, SGR_RED, "", &e->left);
      pbd_Buf_AppendStr(b, " -> ");
      colored_value(r, b, SGR_GREEN, "", &e->right);
      break;
  }
  pbd_Buf_AppendChar(b, '\n');
  return rp_flush_line(r, b);
}

void rp_text_end(pbd_Reporter *r, bool equal) {
  (void)equal;
  if (r->o.stat) {
    stat_write(r);
  } else if (r->total > r->shown + r->summarised) {
    size_t k = r->total - r->shown - r->summarised;
    fprintf(r->out, "... and %zu more difference%s\n", k, k == 1 ? "" : "s");
  }
}

static void text_finish(pbd_Reporter *r, bool equal) {
  rp_text_end(r, equal);
  if (r->note_text.len) fwrite(r->note_text.data, 1, r->note_text.len, r->out);
  if (r->explain_text.len) fwrite(r->explain_text.data, 1, r->explain_text.len, r->out);
}


/* ---- pbdiff -r ------------------------------------------------------------------- */

/* "Only in DIR/sub: name", as diff -r says it (each name quoted). */
static void only_in(FILE *out, const char *root, const char *rel) {
  const char *slash = strrchr(rel, '/');
  pbd_Buf dir = {0}, line = {0};
  pbd_Buf_AppendStr(&dir, root);
  if (slash) {
    if (root[0] && root[strlen(root) - 1] != '/') pbd_Buf_AppendChar(&dir, '/');
    pbd_Buf_Append(&dir, rel, (size_t)(slash - rel));
  }
  pbd_Buf_AppendStr(&line, "Only in ");
  pbd_Cli_AppendName(&line, NULL, dir.data ? dir.data : "");
  pbd_Buf_AppendStr(&line, ": ");
  pbd_Cli_AppendName(&line, NULL, slash ? slash + 1 : rel);
  fprintf(out, "%s\n", line.oom || !line.data ? "Only in (out of memory)" : line.data);
  pbd_Buf_Free(&dir);
  pbd_Buf_Free(&line);
}

const char *rp_file_word(const pbd_FileResult *f) {
  if (f->side == kPbd_File_OnlyLeft) return "only-left";
  if (f->side == kPbd_File_OnlyRight) return "only-right";
  return f->status == 0 ? "equal" : f->status == 1 ? "differ" : "error";
}

static void text_file_options(const pbd_FilesReporter *s, const pbd_FileResult *f,
                              pbd_ReportOptions *ro) {
  (void)s, (void)f;
  ro->left_name = ro->right_name = NULL; /* the ---/+++ lines are ours */
  ro->quiet_identical = true;
}

static void text_file(pbd_FilesReporter *s, const pbd_FileResult *f) {
  if (s->o.summary) {
    pbd_Buf line = {0};
    pbd_Buf_Printf(&line, "%s ", rp_file_word(f));
    pbd_Cli_AppendName(&line, NULL, f->rel);
    if (f->side == kPbd_File_Both && f->status == 2) {
      pbd_Buf_AppendStr(&line, ": ");
      pbd_Cli_AppendEscaped(&line, f->error ? f->error : "");
    }
    fprintf(s->out, "%s\n", line.oom || !line.data ? "(out of memory)" : line.data);
    pbd_Buf_Free(&line);
  } else if (f->side == kPbd_File_OnlyLeft) {
    only_in(s->out, s->o.dir1, f->rel);
  } else if (f->side == kPbd_File_OnlyRight) {
    only_in(s->out, s->o.dir2, f->rel);
  } else if (f->report_len) {
    const char *bold = s->o.color ? SGR_BOLD : "", *off = s->o.color ? SGR_RESET : "";
    pbd_Buf names = {0};
    pbd_Buf_Printf(&names, "%s--- ", bold);
    pbd_Cli_AppendName(&names, NULL, f->left_path);
    pbd_Buf_Printf(&names, "%s\n%s+++ ", off, bold);
    pbd_Cli_AppendName(&names, NULL, f->right_path);
    pbd_Buf_Printf(&names, "%s\n", off);
    if (names.data && !names.oom) fputs(names.data, s->out);
    pbd_Buf_Free(&names);
    fwrite(f->report, 1, f->report_len, s->out);
  }
}

void rp_stat_lines(pbd_Buf *b, bool color, const pbd_StatTotals *t) {
  size_t total = 0;
  for (size_t i = 0; i < t->n; i++) {
    pbd_Buf_Printf(b, "  %s: ", t->fields[i].name);
    append_counts(color, b, t->fields[i].counts);
    pbd_Buf_AppendChar(b, '\n');
  }
  for (int k = 0; k < kKinds; k++) total += t->counts[k];
  pbd_Buf_Printf(b, "%zu difference%s: ", total, total == 1 ? "" : "s");
  append_counts(color, b, t->counts);
  pbd_Buf_AppendChar(b, '\n');
}

/* -r ends with the totals, unless every file is equal (then nothing at all
 * is written, as diff -r writes nothing); with --stat, first the counts by
 * field summed over the files. */
static void text_files_end(pbd_FilesReporter *s, bool equal) {
  (void)equal;
  if (s->equal == s->tests) return;
  pbd_Buf b = {0};
  if (s->stat && s->stat->n) {
    pbd_Buf_AppendStr(&b, "all files:\n");
    rp_stat_lines(&b, s->o.color, s->stat);
  }
  rp_files_totals_text(s, &b);
  if (b.oom) s->failed = true;
  else fputs(b.data, s->out);
  pbd_Buf_Free(&b);
}

const pbd_FormatDef kPbd_FormatDef_Text = {
    .name = "text",
    .help = "'text' (default): one line per difference, grouped\nunder a 'MESSAGE-PATH (Type):' "
            "header:\n'FIELD: LEFT -> RIGHT', 'FIELD: added VALUE',\n'FIELD: removed VALUE', "
            "'FIELD: unset -> set to VALUE',\n'FIELD: moved [I] -> [J]'",
    .stat = true, .color = true, .summary = true, .patch_header = true,
    .edit = rp_text_edit, .finish = text_finish, .close = rp_flush_out,
    .run_summary = rp_text_run_summary, .hides_runs = true,
    .file_options = text_file_options, .file = text_file, .files_end = text_files_end,
};
