/* pbdiff — paths as segments (path.h): growing and cutting them, writing
 * them as text, matching them against --ignore patterns. */
#include "pbdiff/diff/path.h"

#include <stdlib.h>
#include <string.h>

#include "pbdiff/format/format.h"

bool pbd_Path_Push(pbd_Path *p, const pbd_PathSeg *seg) {
  if (p->count == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 16;
    pbd_PathSeg *segs = realloc(p->segs, cap * sizeof *segs);
    if (!segs) {
      p->oom = true;
      return false;
    }
    p->segs = segs;
    p->cap = cap;
  }
  p->segs[p->count++] = *seg;
  return true;
}

void pbd_Path_Truncate(pbd_Path *p, size_t count) {
  if (count < p->count) p->count = count;
}

void pbd_Path_Free(pbd_Path *p) {
  free(p->segs);
  memset(p, 0, sizeof *p);
}

/* ---- Text ------------------------------------------------------------------ */

/* A key value inside brackets: strings JSON-quoted, enums by name when
 * `enum_names` (element keys) or by number (map keys, as on the wire). */
static void format_key(pbd_Buf *out, const pbd_Value *key, bool enum_names) {
  switch (key->kind) {
    case kPbd_Value_String:
    case kPbd_Value_Bytes:
      pbd_Format_JsonString(out, key->s.data, key->s.size);
      return;
    case kPbd_Value_Enum: {
      const pbd_EnumValueDef *ev =
          enum_names && key->field && key->field->enum_type
              ? pbd_EnumDef_FindValueByNumber(key->field->enum_type, (int32_t)key->i)
              : NULL;
      if (ev) pbd_Buf_AppendStr(out, ev->name);
      else pbd_Buf_Printf(out, "%lld", (long long)key->i);
      return;
    }
    case kPbd_Value_Int:
      pbd_Buf_Printf(out, "%lld", (long long)key->i);
      return;
    case kPbd_Value_Bool:
      pbd_Buf_AppendStr(out, key->u ? "true" : "false");
      return;
    default:
      break;
  }
  if (!enum_names) { /* a map key of another kind: its bits as unsigned */
    pbd_Buf_Printf(out, "%llu", (unsigned long long)key->u);
    return;
  }
  pbd_TextOptions o = {.max_bytes = 32};
  pbd_Format_TextValue(out, key, &o);
}

/* `name="conv1"` for each key field, comma-separated; a repeated key field
 * with other than one value as a list: `output=["a","b"]`. */
static void format_element_key(pbd_Buf *out, const pbd_PathSeg *seg) {
  const pbd_Message *m = seg->element;
  for (size_t k = 0; k < seg->key_count; k++) {
    const pbd_FieldDef *kf = seg->key_fields[k];
    const pbd_Field *f = m ? pbd_Message_FindField(m, kf->number) : NULL;
    if (f && !f->def) f = NULL;
    if (k) pbd_Buf_AppendChar(out, ',');
    pbd_Buf_Printf(out, "%s=", kf->name);
    if (!kf->is_repeated || (f && f->count == 1)) {
      pbd_Value v = f ? pbd_Field_Value(f, 0) : pbd_FieldDef_DefaultValue(kf);
      format_key(out, &v, true);
      continue;
    }
    pbd_Buf_AppendChar(out, '[');
    for (uint32_t i = 0; f && i < f->count; i++) {
      pbd_Value v = pbd_Field_Value(f, i);
      if (i) pbd_Buf_AppendChar(out, ',');
      format_key(out, &v, true);
    }
    pbd_Buf_AppendChar(out, ']');
  }
}

void pbd_Path_AppendOccurrence(pbd_Buf *out, size_t occurrence) {
  if (occurrence) pbd_Buf_Printf(out, "#%zu", occurrence + 1);
}

static void format_segment(pbd_Buf *out, const pbd_PathSeg *seg, bool first, bool both) {
  bool named = seg->kind == kPbd_Seg_Field || seg->kind == kPbd_Seg_Extension ||
               seg->kind == kPbd_Seg_Any;
  if (named && !first) pbd_Buf_AppendChar(out, '.');
  switch (seg->kind) {
    case kPbd_Seg_Field:
      if (seg->field) pbd_Buf_AppendStr(out, seg->field->name);
      else pbd_Buf_Printf(out, "%u", seg->number);
      return;
    case kPbd_Seg_Extension:
      pbd_Buf_Printf(out, "[%s]", seg->field ? seg->field->full_name : "");
      return;
    case kPbd_Seg_Any:
      pbd_Buf_AppendChar(out, '[');
      pbd_Buf_Append(out, seg->type_url.data, seg->type_url.size);
      pbd_Buf_AppendChar(out, ']');
      return;
    case kPbd_Seg_Index:
      if (both && seg->paired && seg->right_number != seg->number)
        pbd_Buf_Printf(out, "[%u->%u]", seg->number, seg->right_number);
      else
        pbd_Buf_Printf(out, "[%u]", seg->number);
      return;
    case kPbd_Seg_MapKey:
      pbd_Buf_AppendChar(out, '[');
      format_key(out, &seg->key, false);
      pbd_Buf_AppendChar(out, ']');
      return;
    case kPbd_Seg_ElementKey:
      pbd_Buf_AppendChar(out, '[');
      format_element_key(out, seg);
      pbd_Path_AppendOccurrence(out, seg->occurrence);
      pbd_Buf_AppendChar(out, ']');
      return;
    case kPbd_Seg_RecordKey:
      pbd_Buf_AppendChar(out, '[');
      pbd_Buf_Append(out, seg->key_text.data, seg->key_text.size);
      pbd_Buf_AppendChar(out, ']');
      return;
  }
}

static void format_path(pbd_Buf *out, const pbd_Path *p, size_t begin, size_t end, bool both) {
  if (end > p->count) end = p->count;
  for (size_t i = begin; i < end; i++) format_segment(out, &p->segs[i], i == 0, both);
  pbd_Buf_AppendStr(out, ""); /* data never NULL */
}

void pbd_Path_Format(pbd_Buf *out, const pbd_Path *p, size_t begin, size_t end) {
  format_path(out, p, begin, end, false);
}

void pbd_Path_FormatBothIndices(pbd_Buf *out, const pbd_Path *p, size_t begin, size_t end) {
  format_path(out, p, begin, end, true);
}

/* ---- Patterns -------------------------------------------------------------- */

/* Glob match of a path against a pattern: `*` as a whole segment matches
 * one field name, `[*]` any one index or key (keys may hold dots). */
bool pbd_Path_PatternMatches(const char *p, const char *s) {
  while (*p) {
    if (p[0] == '[' && p[1] == '*' && p[2] == ']') {
      if (*s != '[') return false;
      /* skip the bracket, minding quoted keys */
      bool quoted = false;
      s++;
      while (*s && (quoted || *s != ']')) {
        if (*s == '\\' && quoted && s[1]) s++;
        else if (*s == '"') quoted = !quoted;
        s++;
      }
      if (*s != ']') return false;
      s++;
      p += 3;
    } else if (*p == '*') {
      while (*s && *s != '.' && *s != '[') s++;
      p++;
    } else {
      if (*p != *s) return false;
      p++, s++;
    }
  }
  return *s == '\0';
}
