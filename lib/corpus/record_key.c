/* pbdiff — a record's key (records.h): the spec read against the schema,
 * and the key's text read from a record through a shallow tree, so that it
 * means what the tree means (last value wins, parts merged, defaults). */
#include <stdlib.h>
#include <string.h>

#include "canon/canon_internal.h"
#include "pbdiff/corpus/records.h"
#include "pbdiff/format/format.h"
#include "pbdiff/tree/tree.h"
#include "pbdiff/wire/wire.h"

/* ---- The spec ------------------------------------------------------------- */

static bool is_key_leaf(const pbd_FieldDef *f) {
  return !f->is_repeated && f->type != kPbd_Type_Message && f->type != kPbd_Type_Group;
}

static bool parse_number(const char *s, size_t n, uint32_t *out) {
  uint64_t v = 0;
  if (n == 0 || n > 9) return false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v == 0 || v > 536870911u) return false;
  *out = (uint32_t)v;
  return true;
}

/* One step of a path: the field `name` of `*type` (which moves to its
 * message type), or a field number without a schema. */
static bool parse_step(const pbd_MessageDef **type, const char *name, size_t n, bool last,
                       pbd_RecordKeyPath *p, const char *spec, pbd_Status *s) {
  char buf[128];
  if (n == 0 || n >= sizeof buf) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--record-key '%s': an empty or too long field name",
                        spec);
    return false;
  }
  memcpy(buf, name, n);
  buf[n] = '\0';
  size_t d = p->depth;
  if (!*type) {
    p->fields[d] = NULL;
    if (!parse_number(buf, n, &p->numbers[d])) {
      pbd_Status_SetError(s, kPbd_Status_Usage,
                          "--record-key '%s': '%s' is not a field number (without a schema, "
                          "key fields are numbers: 1.3)", spec, buf);
      return false;
    }
    p->depth++;
    return true;
  }
  const pbd_FieldDef *f = pbd_MessageDef_FindFieldByName(*type, buf);
  if (!f) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--record-key '%s': %s has no field '%s'", spec,
                        (*type)->full_name, buf);
    return false;
  }
  bool ok = last ? is_key_leaf(f)
                 : !f->is_repeated && (f->type == kPbd_Type_Message || f->type == kPbd_Type_Group);
  if (!ok) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        last ? "--record-key '%s': %s is not a singular scalar, string or bytes field"
                             : "--record-key '%s': %s is not a singular message field",
                        spec, f->full_name);
    return false;
  }
  p->fields[d] = f;
  p->numbers[d] = f->number;
  p->depth++;
  *type = f->message_type;
  return true;
}

static bool parse_path(const pbd_MessageDef *type, const char *b, size_t n, pbd_RecordKeyPath *p,
                       const char *spec, pbd_Status *s) {
  memset(p, 0, sizeof *p);
  if (n == 9 && !memcmp(b, "kafka-key", 9)) {
    memcpy(p->name, b, n);
    p->kafka_key = true;
    return true;
  }
  if (n >= sizeof p->name) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--record-key '%s': a path too long", spec);
    return false;
  }
  memcpy(p->name, b, n);
  p->name[n] = '\0';
  const char *end = b + n;
  while (b <= end) {
    const char *dot = memchr(b, '.', (size_t)(end - b));
    const char *stop = dot ? dot : end;
    if (p->depth == kPbd_MaxRecordKeyDepth) {
      pbd_Status_SetError(s, kPbd_Status_Usage, "--record-key '%s': more than %d levels", spec,
                          kPbd_MaxRecordKeyDepth);
      return false;
    }
    if (!parse_step(&type, b, (size_t)(stop - b), !dot, p, spec, s)) return false;
    b = stop + 1;
  }
  return true;
}

bool pbd_RecordKey_Parse(const pbd_MessageDef *type, const char *spec, pbd_RecordKey *k,
                         pbd_Status *s) {
  memset(k, 0, sizeof *k);
  const char *b = spec, *end = spec + strlen(spec);
  while (b <= end) {
    const char *plus = memchr(b, '+', (size_t)(end - b));
    const char *stop = plus ? plus : end;
    if (k->count == kPbd_MaxRecordKeyFields) {
      pbd_Status_SetError(s, kPbd_Status_Usage, "--record-key '%s': more than %d fields", spec,
                          kPbd_MaxRecordKeyFields);
      return false;
    }
    if (!parse_path(type, b, (size_t)(stop - b), &k->paths[k->count], spec, s)) return false;
    k->count++;
    b = stop + 1;
  }
  return true;
}

/* ---- Reading a key ---------------------------------------------------------- */

/* The last value of field `number` of m (the one the tree keeps), or None. */
static pbd_Value last_value(const pbd_Message *m, uint32_t number, const pbd_FieldDef *def) {
  pbd_Value none;
  memset(&none, 0, sizeof none);
  const pbd_Field *f = m ? pbd_Message_FindField(m, number) : NULL;
  if (!f || f->count == 0 || (def && f->def != def)) return none;
  return pbd_Field_Value(f, f->count - 1);
}

/* The value at the end of the path; a field not set reads as its default
 * (schemaless: None, written as nothing). */
static pbd_Value path_value(const pbd_Message *root, const pbd_RecordKeyPath *p) {
  const pbd_Message *m = root;
  pbd_Value v;
  memset(&v, 0, sizeof v);
  for (size_t d = 0; d < p->depth; d++) {
    v = last_value(m, p->numbers[d], p->fields[d]);
    if (d + 1 == p->depth) break;
    bool sub = v.kind == kPbd_Value_Message || v.kind == kPbd_Value_LenMessage ||
               v.kind == kPbd_Value_Group;
    m = sub ? v.m : NULL;
  }
  const pbd_FieldDef *leaf = p->fields[p->depth - 1];
  if (v.kind == kPbd_Value_None && leaf) v = pbd_FieldDef_DefaultValue(leaf);
  return v;
}

/* ---- The wire's way, for the common keys ------------------------------------------- */

/* Whether the wire alone reads this path as the tree does: every field a
 * plain one (a oneof member can be cleared by a later member, an enum or a
 * float has rules of its own), the leaf an integer, bool, string or bytes. */
static bool wire_readable(const pbd_RecordKeyPath *p) {
  if (p->kafka_key) return true;
  for (size_t d = 0; d < p->depth; d++) {
    const pbd_FieldDef *f = p->fields[d];
    if (!f || f->oneof || f->is_extension) return false;
  }
  pbd_ValueKind k = pbd_ValueKindOf(p->fields[p->depth - 1]->type);
  return k == kPbd_Value_Int || k == kPbd_Value_UInt || k == kPbd_Value_Bool ||
         k == kPbd_Value_String || k == kPbd_Value_Bytes;
}

/* The last occurrence of the path's field d.. in data[b, e), parts of a
 * sub-message in the order they come (rule 3: merged, the last value wins);
 * a field of another wire type than its own is an unknown field, as the tree
 * has it.  The record passed the hash pass, so it reads. */
static void wire_last(const pbd_RecordKeyPath *p, size_t d, const uint8_t *base, const uint8_t *b,
                      const uint8_t *e, pbd_WireField *last, bool *found) {
  const pbd_FieldDef *fd = p->fields[d];
  int want = pbd_WireTypeOf(fd->type);
  while (b && b < e) {
    pbd_WireField f;
    b = pbd_Wire_ReadField(b, e, base, kPbd_MaxDepthLimit, &f, NULL);
    if (!b || f.number != fd->number || f.wire_type != want) continue;
    if (d + 1 == p->depth) {
      *last = f;
      *found = true;
    } else {
      wire_last(p, d + 1, base, f.data, f.data + f.size, last, found);
    }
  }
}

static pbd_Value wire_value(const pbd_RecordKeyPath *p, const uint8_t *buf, size_t begin,
                            size_t end) {
  const pbd_FieldDef *leaf = p->fields[p->depth - 1];
  pbd_WireField f;
  bool found = false;
  wire_last(p, 0, buf, buf + begin, buf + end, &f, &found);
  if (!found) return pbd_FieldDef_DefaultValue(leaf);
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.field = leaf;
  v.kind = pbd_ValueKindOf(leaf->type);
  if (v.kind == kPbd_Value_String || v.kind == kPbd_Value_Bytes) {
    v.s.data = (const char *)f.data;
    v.s.size = f.size;
  } else {
    v.u = pbd_FieldType_DecodeScalar(leaf->type, f.value);
  }
  return v;
}

static bool all_wire_readable(const pbd_RecordKey *k) {
  for (size_t i = 0; i < k->count; i++)
    if (!wire_readable(&k->paths[i])) return false;
  return true;
}

/* The record's Kafka key as a value: bytes, or absent (printed null). */
static pbd_Value kafka_value(const pbd_StrView *kafka_key) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  if (kafka_key) {
    v.kind = kPbd_Value_Bytes;
    v.s = *kafka_key;
  }
  return v;
}

static void put_kafka_key(pbd_Buf *out, size_t i, const pbd_RecordKeyPath *p,
                          const pbd_StrView *kafka_key, const pbd_TextOptions *text) {
  pbd_Buf_Printf(out, "%s%s=", i ? "," : "", p->name);
  if (!kafka_key) {
    pbd_Buf_AppendStr(out, "null");
    return;
  }
  pbd_Value v = kafka_value(kafka_key);
  pbd_Format_TextValue(out, &v, text);
}

bool pbd_RecordKey_UsesKafkaKey(const pbd_RecordKey *k) {
  for (size_t i = 0; i < k->count; i++)
    if (k->paths[i].kafka_key) return true;
  return false;
}

static bool read_from_wire(const pbd_RecordKey *k, const uint8_t *buf, size_t begin, size_t end,
                           const pbd_StrView *kafka_key, pbd_Buf *out, pbd_Status *s) {
  pbd_TextOptions text = {0};
  for (size_t i = 0; i < k->count; i++) {
    if (k->paths[i].kafka_key) {
      put_kafka_key(out, i, &k->paths[i], kafka_key, &text);
      continue;
    }
    pbd_Value v = wire_value(&k->paths[i], buf, begin, end);
    pbd_Buf_Printf(out, "%s%s=", i ? "," : "", k->paths[i].name);
    pbd_Format_TextValue(out, &v, &text);
  }
  if (out->oom) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  return !out->oom;
}

/* ---- The tree's way ------------------------------------------------------------------ */

bool pbd_RecordKey_Read(const pbd_RecordKey *k, const pbd_MessageDef *type, const uint8_t *buf,
                        size_t begin, size_t end, pbd_Hash128 hash, const pbd_ReadOptions *o,
                        pbd_Arena *scratch, pbd_Buf *out, pbd_Status *s) {
  return pbd_RecordKey_ReadWithKafkaKey(k, type, buf, begin, end, hash, o, NULL, scratch, out, s);
}

bool pbd_RecordKey_ReadWithKafkaKey(const pbd_RecordKey *k, const pbd_MessageDef *type,
                                    const uint8_t *buf, size_t begin, size_t end,
                                    pbd_Hash128 hash, const pbd_ReadOptions *o,
                                    const pbd_StrView *kafka_key, pbd_Arena *scratch,
                                    pbd_Buf *out, pbd_Status *s) {
  if (all_wire_readable(k)) return read_from_wire(k, buf, begin, end, kafka_key, out, s);
  pbd_ArenaMark mark = pbd_Arena_Mark(scratch);
  pbd_LazyTree *t = pbd_LazyTree_New(buf, o, NULL, scratch);
  pbd_Message *root = t ? pbd_LazyTree_Root(t, type, begin, end, hash) : NULL;
  pbd_TextOptions text = {0}; /* whole values: a cut key could match another */
  for (size_t i = 0; root && i < k->count; i++) {
    if (k->paths[i].kafka_key) {
      put_kafka_key(out, i, &k->paths[i], kafka_key, &text);
      continue;
    }
    pbd_Value v = path_value(root, &k->paths[i]);
    pbd_Buf_Printf(out, "%s%s=", i ? "," : "", k->paths[i].name);
    pbd_Format_TextValue(out, &v, &text);
  }
  bool ok = root && pbd_LazyTree_Ok(t, s) && !out->oom;
  if (!ok && pbd_Status_IsOk(s)) pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
  pbd_LazyTree_Free(t);
  pbd_Arena_Reset(scratch, mark);
  return ok;
}
