/* pbdiff CLI — the notes on Confluent record metadata, summed by kind of
 * change (record_notes.h).
 *
 * A routine schema id bump touches every record of a topic; a note per
 * record buried the report under a thousand equal lines.  Each pair's
 * change is cut into its parts — the value's (schema id, message indexes,
 * or whether there is a value at all) and the Kafka key's — and each part
 * is counted under its text, so the report holds one line per distinct
 * change.  The text is the whole identity of a kind: two records whose
 * schema ids both went 7 -> 8 are one kind whatever their index lists,
 * since the line would say the same of both. */
#include "record_notes.h"
#include "report/report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *text;     /* "schema id 7 -> 8": what the note line says */
  char *json;     /* "\"from\": {...}, \"to\": {...}" */
  char *first;    /* the first pair's name in the report: "1", "1->2", `id="x"`
                     (shown only for a kind of one pair: which pair comes first
                     under --record-key is the join's order, not the input's) */
  size_t records; /* how many pairs made this change */
} Kind;

struct pbd_RecordNotes {
  Kind *kinds;
  size_t n, cap;
  rp_NameIndex index; /* over the kinds' texts */
  bool oom;
};

pbd_RecordNotes *pbd_RecordNotes_New(void) { return calloc(1, sizeof(pbd_RecordNotes)); }

void pbd_RecordNotes_Free(pbd_RecordNotes *n) {
  if (!n) return;
  for (size_t k = 0; k < n->n; k++) {
    free(n->kinds[k].text);
    free(n->kinds[k].json);
    free(n->kinds[k].first);
  }
  free(n->kinds);
  rp_NameIndex_Free(&n->index);
  free(n);
}

bool pbd_RecordNotes_Any(const pbd_RecordNotes *n) { return n && n->n > 0; }

static char *copy_buf(const pbd_Buf *b) {
  char *s = malloc(b->len + 1);
  if (s) {
    if (b->len) memcpy(s, b->data, b->len);
    s[b->len] = '\0';
  }
  return s;
}

/* One more pair, named `where`, with the change `text` (its JSON in json). */
static bool count_kind(pbd_RecordNotes *n, const pbd_Buf *text, const pbd_Buf *json,
                       const char *where) {
  if (text->oom || json->oom) return false;
  size_t i = rp_NameIndex_Find(&n->index, n->kinds, sizeof *n->kinds, n->n, text->data, text->len);
  if (i < n->n) {
    n->kinds[i].records++;
    return true;
  }
  if (n->n == n->cap) {
    size_t cap = n->cap ? n->cap * 2 : 8;
    Kind *k = realloc(n->kinds, cap * sizeof *k);
    if (!k) return false;
    n->kinds = k;
    n->cap = cap;
  }
  Kind k = {copy_buf(text), copy_buf(json), strdup(where), 1};
  if (!k.text || !k.json || !k.first) {
    free(k.text);
    free(k.json);
    free(k.first);
    return false;
  }
  n->kinds[n->n] = k;
  if (!rp_NameIndex_Add(&n->index, n->kinds, sizeof *n->kinds, n->n)) {
    free(k.text);
    free(k.json);
    free(k.first);
    return false;
  }
  n->n++;
  return true;
}

/* ---- A pair's change as text and JSON ---------------------------------------- */

static const pbd_RecordMeta *rec(const pbd_FramedMeta *m, size_t i) { return &m->records[i]; }

static void indexes_text(pbd_Buf *b, const pbd_FramedMeta *m, size_t i) {
  pbd_Buf_AppendChar(b, '[');
  for (size_t k = 0; k < rec(m, i)->index_count; k++)
    pbd_Buf_Printf(b, "%s%" PRIu32, k ? ", " : "", m->indexes[rec(m, i)->first_index + k]);
  pbd_Buf_AppendChar(b, ']');
}

static bool same_indexes(const pbd_FramedMeta *l, size_t i, const pbd_FramedMeta *r, size_t j) {
  const pbd_RecordMeta *x = rec(l, i), *y = rec(r, j);
  return x->index_count == y->index_count &&
         (!x->index_count || !memcmp(l->indexes + x->first_index, r->indexes + y->first_index,
                                     x->index_count * sizeof *l->indexes));
}

static const char *const kValueWord[] = {"present", "tombstone", "empty"};

/* One side whole: `schema id 7, message indexes [0]` or what stands for
 * no value; {"schema_id": 7, "indexes": [0]} or {"value": "tombstone"}. */
static void side_whole(pbd_Buf *text, pbd_Buf *json, const pbd_FramedMeta *m, size_t i) {
  const pbd_RecordMeta *x = rec(m, i);
  if (x->value != kPbd_RecordValue_Present) {
    pbd_Buf_AppendStr(text, x->value == kPbd_RecordValue_Tombstone ? "a tombstone (no value)"
                                                                   : "an empty value");
    pbd_Buf_Printf(json, "{\"value\": \"%s\"}", kValueWord[x->value]);
    return;
  }
  pbd_Buf_Printf(text, "schema id %" PRIu32 ", message indexes ", x->schema_id);
  indexes_text(text, m, i);
  pbd_Buf_Printf(json, "{\"schema_id\": %" PRIu32 ", \"indexes\": ", x->schema_id);
  indexes_text(json, m, i); /* `[1, 0]` is JSON as it is */
  pbd_Buf_AppendChar(json, '}');
}

/* The value's part of the change, empty when only the keys differ. */
static void value_change(pbd_Buf *text, pbd_Buf *json, const pbd_FramedMeta *l, size_t i,
                         const pbd_FramedMeta *r, size_t j) {
  const pbd_RecordMeta *x = rec(l, i), *y = rec(r, j);
  if (x->value != y->value) { /* a side without a value: each side whole */
    pbd_Buf_AppendStr(json, "\"from\": ");
    side_whole(text, json, l, i);
    pbd_Buf_AppendStr(text, " -> ");
    pbd_Buf_AppendStr(json, ", \"to\": ");
    side_whole(text, json, r, j);
    return;
  }
  bool ids = x->schema_id != y->schema_id, paths = !same_indexes(l, i, r, j);
  if (x->value != kPbd_RecordValue_Present || (!ids && !paths)) return;
  pbd_Buf from = {0}, to = {0};
  if (ids) {
    pbd_Buf_Printf(text, "schema id %" PRIu32 " -> %" PRIu32, x->schema_id, y->schema_id);
    pbd_Buf_Printf(&from, "\"schema_id\": %" PRIu32, x->schema_id);
    pbd_Buf_Printf(&to, "\"schema_id\": %" PRIu32, y->schema_id);
  }
  if (paths) {
    pbd_Buf_AppendStr(text, ids ? ", message indexes " : "message indexes ");
    indexes_text(text, l, i);
    pbd_Buf_AppendStr(text, " -> ");
    indexes_text(text, r, j);
    pbd_Buf_AppendStr(&from, ids ? ", \"indexes\": " : "\"indexes\": ");
    indexes_text(&from, l, i);
    pbd_Buf_AppendStr(&to, ids ? ", \"indexes\": " : "\"indexes\": ");
    indexes_text(&to, r, j);
  }
  pbd_Buf_Printf(json, "\"from\": {%s}, \"to\": {%s}", from.data ? from.data : "",
                 to.data ? to.data : "");
  if (from.oom || to.oom) json->oom = true;
  pbd_Buf_Free(&from);
  pbd_Buf_Free(&to);
}

/* A Kafka key as a JSON string, each byte the character of its code
 * (printable ASCII as it is, the others \u00XX), or null. */
static void key_json(pbd_Buf *json, const pbd_FramedMeta *m, size_t i) {
  const pbd_RecordMeta *x = rec(m, i);
  if (!x->has_key) {
    pbd_Buf_AppendStr(json, "null");
    return;
  }
  const uint8_t *p = m->base + x->key_begin;
  pbd_Buf_AppendChar(json, '"');
  for (size_t k = 0; k < x->key_size; k++) {
    if (p[k] == '"' || p[k] == '\\') pbd_Buf_Printf(json, "\\%c", p[k]);
    else if (p[k] >= 0x20 && p[k] < 0x7f) pbd_Buf_AppendChar(json, (char)p[k]);
    else pbd_Buf_Printf(json, "\\u%04x", p[k]);
  }
  pbd_Buf_AppendChar(json, '"');
}

bool pbd_RecordNotes_Add(pbd_RecordNotes *n, const pbd_FramedMeta *l, size_t i,
                         const pbd_FramedMeta *r, size_t j, const char *where) {
  if (n->oom) return false;
  if (!l->records || !r->records || !pbd_RecordMeta_Differ(l, i, r, j)) return true;
  pbd_Buf text = {0}, json = {0};
  bool ok = true;
  value_change(&text, &json, l, i, r, j);
  if (text.len) ok = count_kind(n, &text, &json, where);
  if (ok && pbd_RecordMeta_KeysDiffer(l, i, r, j)) { /* the keys' part: a kind of its own */
    pbd_Buf_Truncate(&text, 0);
    pbd_Buf_Truncate(&json, 0);
    pbd_RecordMeta_FormatKey(&text, l, i);
    pbd_Buf_AppendStr(&text, " -> ");
    pbd_RecordMeta_FormatKey(&text, r, j);
    pbd_Buf_AppendStr(&json, "\"from\": {\"key\": ");
    key_json(&json, l, i);
    pbd_Buf_AppendStr(&json, "}, \"to\": {\"key\": ");
    key_json(&json, r, j);
    pbd_Buf_AppendChar(&json, '}');
    ok = count_kind(n, &text, &json, where);
  }
  pbd_Buf_Free(&text);
  pbd_Buf_Free(&json);
  if (!ok) n->oom = true;
  return ok;
}

/* ---- The notes ---------------------------------------------------------------------- */

/* A record's name as JSON: `[` NAME `]`, quotes and backslashes escaped
 * (a record key's text is already printable: cli/commands/records.c). */
static void json_string(pbd_Buf *json, const char *name) {
  pbd_Buf_AppendStr(json, "\"[");
  for (const char *p = name; *p; p++) {
    if (*p == '"' || *p == '\\') pbd_Buf_AppendChar(json, '\\');
    if ((unsigned char)*p < 0x20) pbd_Buf_Printf(json, "\\u%04x", (unsigned char)*p);
    else pbd_Buf_AppendChar(json, *p);
  }
  pbd_Buf_AppendStr(json, "]\"");
}

static int by_records_then_text(const void *a, const void *b) {
  const Kind *x = *(const Kind *const *)a, *y = *(const Kind *const *)b;
  if (x->records != y->records) return x->records > y->records ? -1 : 1;
  return strcmp(x->text, y->text);
}

bool pbd_RecordNotes_Write(const pbd_RecordNotes *n, size_t max_lines, pbd_Buf *text,
                           pbd_Buf *json) {
  if (n->oom) return false;
  if (!n->n) return true;
  /* a total order (the texts are distinct), so the same kinds give the same
   * lines whichever order the pairs came in: by position or by key */
  const Kind **order = malloc(n->n * sizeof *order);
  if (!order) return false;
  for (size_t k = 0; k < n->n; k++) order[k] = &n->kinds[k];
  qsort(order, n->n, sizeof *order, by_records_then_text);
  size_t shown = max_lines && max_lines < n->n ? max_lines : n->n;
  if (json) pbd_Buf_AppendStr(json, "\"schema_changes\": [");
  for (size_t k = 0; k < shown; k++) {
    const Kind *x = order[k];
    if (text && x->records == 1) pbd_Buf_Printf(text, "note: [%s]: %s\n", x->first, x->text);
    else if (text) pbd_Buf_Printf(text, "note: %s in %zu records\n", x->text, x->records);
    if (json) {
      pbd_Buf_Printf(json, "%s{%s, \"records\": %zu", k ? ",\n  " : "\n  ", x->json,
                     x->records);
      if (x->records == 1) {
        pbd_Buf_AppendStr(json, ", \"record\": ");
        json_string(json, x->first);
      }
      pbd_Buf_AppendChar(json, '}');
    }
  }
  size_t more = n->n - shown;
  if (text && more)
    pbd_Buf_Printf(text, "note: and %zu more kind%s of record metadata change\n", more,
                   more == 1 ? "" : "s");
  if (json) {
    pbd_Buf_AppendStr(json, "\n]");
    if (more) pbd_Buf_Printf(json, ", \"schema_changes_omitted\": %zu", more);
  }
  free(order);
  return !(text && text->oom) && !(json && json->oom);
}
