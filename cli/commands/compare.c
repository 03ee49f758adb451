/* pbdiff LEFT RIGHT — the comparison of one pair of inputs (also each file
 * of -r and the git driver's pair): schemas and inputs loaded, the
 * library's pipeline run, the report written, --explain added. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record_notes.h"
#include "pbdiff/explain/explain.h"
#include "pbdiff/inputs/decode.h"
#include "pbdiff/wire/wire.h"
#include "pbdiff/pbdiff.h"

/* ---- Comparing a pair ------------------------------------------------------ */

static int stop_at_first(void *ctx, const pbd_Edit *e) {
  (void)e;
  ++*(size_t *)ctx;
  return 1; /* quiet: the first difference settles the verdict */
}

/* --explain: for each pair of messages equal in meaning whose bytes differ,
 * the encoding choices that differ (lib/explain/explain.h), as text lines and as
 * the JSON value of the report's "encoding" key. */
static void first_path(const pbd_MessageDef *type, const pbd_CliInput *in, size_t i,
                       const pbd_EncodingCount *c, char *out, size_t n) {
  out[0] = '\0';
  if (!c->count || c->first_offset < 0) return;
  pbd_Buf b = {0};
  pbd_Explain_PathAt(type, in->data, in->begin[i], in->end[i], (size_t)c->first_offset, &b);
  if (b.data && !b.oom) snprintf(out, n, "%s", b.data);
  pbd_Buf_Free(&b);
}

static bool explain(const pbd_CliInput *l, const pbd_CliInput *r, const pbd_CliSchema *ls,
                    const pbd_CliSchema *rs, const pbd_CliOptions *o, pbd_Buf *text, pbd_Buf *json,
                    pbd_CliError *e) {
  pbd_ReadOptions le = o->compare.read, re = o->compare.read;
  le.pool = ls->pool;
  re.pool = rs->pool;
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t differing = 0;
  pbd_Buf_AppendStr(json, "[");
  for (size_t i = 0; i < l->nmsgs && i < r->nmsgs; i++) {
    size_t ln = l->end[i] - l->begin[i], rn = r->end[i] - r->begin[i];
    if (ln == rn && memcmp(l->data + l->begin[i], r->data + r->begin[i], ln) == 0) continue;
    pbd_EncodingProfile lp, rp;
    if (!pbd_Explain_Profile(ls->type, l->data, l->begin[i], l->end[i], &le, &lp, &s) ||
        !pbd_Explain_Profile(rs->type, r->data, r->begin[i], r->end[i], &re, &rp, &s)) {
      pbd_CliError_Set(e, false, "--explain: %s", s.msg);
      return false;
    }
    pbd_EncodingDiff d[kPbd_Encoding_Count];
    size_t n = pbd_Explain_Compare(&lp, &rp, d);
    for (size_t k = 0; k < n; k++) { /* where each first occurrence is */
      first_path(ls->type, l, i, &d[k].left, d[k].left_path, sizeof d[k].left_path);
      first_path(rs->type, r, i, &d[k].right, d[k].right_path, sizeof d[k].right_path);
    }
    if (o->delimited) pbd_Buf_Printf(text, "[%zu] ", i);
    pbd_Buf_AppendStr(text, "equal in meaning, but the bytes differ:\n");
    pbd_Buf buf = {0};
    pbd_Explain_FormatText(&buf, d, n);
    for (const char *p = buf.data; p && *p;) { /* indent each line */
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
      pbd_Buf_AppendStr(text, "  ");
      pbd_Buf_Append(text, p, len);
      p += len;
    }
    if (n == 0) pbd_Buf_AppendStr(text, "  (in no encoding choice that --explain counts)\n");
    pbd_Buf_Truncate(&buf, 0);
    pbd_Explain_FormatJson(&buf, d, n);
    if (differing++) pbd_Buf_AppendStr(json, ", ");
    if (o->delimited) {
      pbd_Buf_Printf(json, "{\"message\": %zu, \"encoding\": %s}", i, buf.data);
    } else if (buf.len >= 2) { /* the array's items, without its brackets */
      pbd_Buf_Append(json, buf.data + 1, buf.len - 2);
    }
    pbd_Buf_Free(&buf);
  }
  pbd_Buf_AppendStr(json, "]");
  if (!differing && !o->report.quiet_identical) pbd_Buf_AppendStr(text, "identical bytes\n");
  return !text->oom && !json->oom;
}

/* Whether an input shares no field with its type: its first message has
 * fields at the top and none of their numbers is one of the type's (the
 * bytes read, at most, as unknown fields: likely the wrong schema or type). */
static bool no_field_in_schema(const pbd_CliInput *in, const pbd_MessageDef *type) {
  if (!type || in->nmsgs == 0) return false;
  const uint8_t *p = in->data + in->begin[0], *end = in->data + in->end[0];
  bool any = false;
  for (int k = 0; p < end && k < 64; k++) { /* the first fields tell */
    pbd_WireField f;
    p = pbd_Wire_ReadField(p, end, in->data, 100, &f, NULL);
    if (!p) break;
    if (f.wire_type == kPbd_WireType_EndGroup) break;
    if (pbd_MessageDef_FindFieldByNumber(type, f.number)) return false;
    any = true;
  }
  return any;
}

static void warn_wrong_schema(const pbd_CliInput *in, const pbd_MessageDef *type, pbd_CliError *e) {
  if (e->note[0] || !no_field_in_schema(in, type)) return;
  snprintf(e->note, sizeof e->note,
           "warning: %s: none of its fields is in %s; is that the right schema and --type?",
           in->name, type->full_name);
}

/* A hint for an input that did not parse: it reads as text format or as a
 * varint-delimited stream. */
static void hint_encoding(const pbd_CliInput *in, const pbd_CliOptions *o, pbd_CliError *e) {
  size_t n = in->size < 4096 ? in->size : 4096, printable = 0;
  bool text_marks = false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = in->data[i];
    printable += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r';
    text_marks |= c == ':' || c == '{';
  }
  if (n && printable == n && text_marks) {
    pbd_CliError_Hint(e, "it looks like text format: --input-format textproto");
    return;
  }
  size_t *begin = NULL, *end = NULL, count = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  /* Kafka values (kcat -f '%R%s') also split as a delimited stream (each
   * 4-byte length reads as empty messages): the stricter framing first */
  pbd_FramedMeta meta = {0};
  bool kafka = o->framing != kPbd_Framing_Confluent &&
               pbd_Input_SplitFramedMeta(kPbd_Framing_Confluent, in->data, in->size, 0, NULL,
                                         &begin, &end, &count, &meta, NULL, &s);
  size_t values = 0; /* zero bytes split as empty values: a value says more */
  for (size_t i = 0; kafka && i < count; i++) values += meta.records[i].value == kPbd_RecordValue_Present;
  pbd_FramedMeta_Free(&meta);
  if (values > 0) {
    char hint[160];
    snprintf(hint, sizeof hint, "it reads as a stream of %zu Kafka values in the Confluent "
             "Schema Registry format: --framing confluent", count);
    pbd_CliError_Hint(e, hint);
    free(begin);
    free(end);
    return;
  }
  free(begin), free(end);
  begin = end = NULL;
  count = 0;
  if (o->delimited) return;
  if (pbd_Input_SplitFramed(kPbd_Framing_Delimited, in->data, in->size, 0, NULL, &begin, &end,
                            &count, &s) &&
      count > 1) {
    char hint[128];
    snprintf(hint, sizeof hint, "it reads as a stream of %zu length-prefixed messages: --delimited",
             count);
    pbd_CliError_Hint(e, hint);
  }
  free(begin);
  free(end);
}

/* ---- A framing's record metadata (confluent) -------------------------------- */

/* The pairs of stream messages the comparison paired (pbd_DiffOptions
 * stream_pair), in the walk's order. */
typedef struct {
  size_t (*ij)[2];
  size_t n, cap;
  bool oom;
} Pairs;

static void collect_pair(void *ctx, size_t i, size_t j) {
  Pairs *p = ctx;
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    size_t(*n)[2] = realloc(p->ij, sizeof *n * cap);
    if (!n) {
      p->oom = true;
      return;
    }
    p->ij = n;
    p->cap = cap;
  }
  p->ij[p->n][0] = i;
  p->ij[p->n][1] = j;
  p->n++;
}

/* The notes on the paired records whose schema id, message indexes, value
 * or key differ: metadata, shown but not a difference (docs/semantics.md
 * rule 14), one line per kind of change as under --record-key. */
static bool note_metadata(const Pairs *p, const pbd_CliInput *l, const pbd_CliInput *r,
                          size_t max_lines, pbd_Reporter *rep) {
  pbd_RecordNotes *notes = pbd_RecordNotes_New();
  bool ok = notes != NULL;
  for (size_t k = 0; ok && k < p->n; k++) {
    size_t i = p->ij[k][0], j = p->ij[k][1];
    if (!pbd_RecordMeta_Differ(&l->meta, i, &r->meta, j)) continue;
    char where[48]; /* the pair as the report names a stream's messages */
    if (i == j) snprintf(where, sizeof where, "%zu", i);
    else snprintf(where, sizeof where, "%zu->%zu", i, j);
    ok = pbd_RecordNotes_Add(notes, &l->meta, i, &r->meta, j, where);
  }
  pbd_Buf text = {0}, json = {0};
  ok = ok && pbd_RecordNotes_Write(notes, max_lines, &text, &json);
  if (ok && text.len) pbd_Reporter_Note(rep, text.data, json.data);
  pbd_Buf_Free(&text);
  pbd_Buf_Free(&json);
  pbd_RecordNotes_Free(notes);
  return ok;
}

/* The schema files as given (--schema, --proto, and LEFT's and RIGHT's own),
 * space-separated, for the reports that name them. */
static void schema_names(const pbd_CliOptions *o, pbd_Buf *b) {
  const pbd_StrList *lists[] = {&o->schemas, &o->protos, &o->left_schemas, &o->right_schemas};
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    for (size_t j = 0; j < lists[i]->n; j++)
      pbd_Buf_Printf(b, "%s%s", b->len ? " " : "", lists[i]->v[j]);
}

int pbd_Cli_ComparePair(const pbd_CliOptions *o, const char *lpath, const char *rpath,
                        const char *lname, const char *rname, FILE *out, pbd_CliError *e) {
  pbd_CliSchema ls, rs;
  bool two = o->left_schemas.n || o->right_schemas.n || o->left_type || o->right_type;
  if (!pbd_Cli_LoadSchema(o, two ? 1 : 0, &ls, e)) {
    pbd_Cli_FreeSchema(&ls);
    return kExitTrouble;
  }
  if (!pbd_Cli_LoadSchema(o, two ? 2 : 0, &rs, e)) {
    pbd_Cli_FreeSchema(&ls);
    pbd_Cli_FreeSchema(&rs);
    return kExitTrouble;
  }
  pbd_CliInput l, r;
  memset(&l, 0, sizeof l);
  memset(&r, 0, sizeof r);
  int status = kExitTrouble;
  bool ok = pbd_Cli_ReadInput(o, &ls, two ? 1 : 0, lpath, lname, o->left_format, NULL, &l, e);
  ok = ok && pbd_Cli_ReadInput(o, &rs, two ? 2 : 0, rpath, rname, o->right_format, NULL, &r, e);
  if (ok) {
    warn_wrong_schema(&l, ls.type, e);
    warn_wrong_schema(&r, rs.type, e);
  }
  if (ok) {
    pbd_ReportOptions ro = o->report;
    pbd_Buf schema_text = {0}; /* the header of --format html names the schema and type */
    schema_names(o, &schema_text);
    ro.schema_text = schema_text.oom ? NULL : schema_text.data;
    ro.type_name = ls.type ? ls.type->full_name : NULL;
    pbd_Reporter *rep = o->quiet ? NULL : pbd_Reporter_New(o->format, out, &ro);
    if (!o->quiet && !rep) {
      pbd_CliError_Set(e, false, "out of memory");
    } else {
      size_t n = 0;
      pbd_Status s;
      pbd_Status_Clear(&s);
      pbd_CompareOptions co = o->compare; /* hash_seed 0: a random one per pair */
      co.type = ls.type;
      co.read.pool = ls.pool;
      co.right_schema = true;
      co.right_type = rs.type;
      co.right_pool = rs.pool;
      co.parallel = !o->recursive && sysconf(_SC_NPROCESSORS_ONLN) > 1;
      co.verdict_only = o->quiet;
      co.diff = ls.diff;
      co.left_types = l.types; /* Confluent records of several types */
      co.right_types = r.types;
      Pairs pairs = {0}; /* for the records' metadata, when both sides have some */
      if (rep && l.meta.records && r.meta.records) {
        co.diff.stream_pair = collect_pair;
        co.diff.stream_pair_ctx = &pairs;
      }
      pbd_CompareInput li = {l.data, l.size, o->delimited, l.begin, l.end, l.nmsgs};
      pbd_CompareInput ri = {r.data, r.size, o->delimited, r.begin, r.end, r.nmsgs};
      pbd_CompareResult res;
      int rc = pbd_Compare_Inputs(&li, &ri, &co, o->quiet ? stop_at_first : pbd_Reporter_Edit,
                                  o->quiet ? (void *)&n : (void *)rep, &res, &s);
      if (!o->quiet || rc == 1) n = res.n_edits; /* (settled by the hashes: no edit told) */
      if (rc < 0 && res.failed_input) {
        const pbd_CliInput *bad = res.failed_input == 1 ? &l : &r;
        pbd_CliError_FromStatus(e, bad->name, &s);
        if (s.code == kPbd_Status_Malformed) hint_encoding(bad, o, e);
      } else if (rc < 0) {
        pbd_CliError_Set(e, false, "%s", s.msg);

      } else {
        status = n ? kExitDifferent : kExitEqual;
        if (co.diff.stream_pair && (pairs.oom || !note_metadata(&pairs, &l, &r, o->report.max_diffs, rep))) {
          pbd_CliError_Set(e, false, "out of memory");
          status = kExitTrouble;
        }
        if (n == 0 && rep && o->explain) {
          pbd_Buf text = {0}, json = {0};
          if (explain(&l, &r, &ls, &rs, o, &text, &json, e)) pbd_Reporter_Explain(rep, text.data, json.data);
          else status = kExitTrouble;
          pbd_Buf_Free(&text);
          pbd_Buf_Free(&json);
        }
        if (rep && !pbd_Reporter_Finish(rep, n == 0)) {
          pbd_CliError_Set(e, false, "cannot write the report");
          status = kExitTrouble;
        }
      }
      free(pairs.ij);
      pbd_Reporter_Free(rep);
    }
    pbd_Buf_Free(&schema_text);
  }
  pbd_Cli_FreeInput(&r);
  pbd_Cli_FreeInput(&l);
  pbd_Cli_FreeSchema(&ls);
  pbd_Cli_FreeSchema(&rs);
  return status;
}

