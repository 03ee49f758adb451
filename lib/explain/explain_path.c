/* pbdiff — the field path at a byte offset of an encoded message, for
 * --explain's "first at byte N, in PATH" (explain.h).
 *
 * From the root, the field whose bytes hold the offset is found and, while
 * it is a message field of the schema, its payload is searched the same
 * way.  Segments read as in reports: a field by name (by number when the
 * schema has none), a repeated message element by its occurrence among
 * the message's fields of that number (`node[3]`), a map entry by its key
 * when the key is a string or an integer (`labels["env"]`, `m[5]`). */
#include <stdlib.h>
#include <string.h>

#include "pbdiff/explain/explain.h"
#include "pbdiff/format/format.h"
#include "pbdiff/wire/wire.h"

/* How many fields numbered `number` come before p in [begin, p). */
static uint32_t occurrence(const uint8_t *buf, const uint8_t *begin, const uint8_t *p,
                           uint32_t number) {
  uint32_t n = 0;
  pbd_WireField f;
  for (const uint8_t *q = begin; q && q < p;) {
    q = pbd_Wire_ReadField(q, p, buf, 100, &f, NULL);
    if (q && f.number == number) n++;
  }
  return n;
}

/* A map entry's key as a path segment, when it is a string or an integer. */
static bool map_key(pbd_Buf *out, const pbd_FieldDef *fd, const pbd_WireField *entry,
                    const uint8_t *buf) {
  const pbd_FieldDef *kf = fd->message_type ? pbd_MessageDef_FindFieldByNumber(fd->message_type, 1)
                                            : NULL;
  if (!kf) return false;
  pbd_WireField f;
  const uint8_t *end = entry->data + entry->size;
  for (const uint8_t *q = entry->data; q && q < end;) {
    q = pbd_Wire_ReadField(q, end, buf, 100, &f, NULL);
    if (!q || f.number != 1) continue;
    if (kf->type == kPbd_Type_String && f.wire_type == kPbd_WireType_Delimited) {
      pbd_Buf_AppendChar(out, '[');
      pbd_Format_JsonString(out, (const char *)f.data, f.size);
      pbd_Buf_AppendChar(out, ']');
      return true;
    }
    if (f.wire_type == kPbd_WireType_Varint) {
      pbd_Value v = {.kind = kPbd_Value_Int, .field = kf,
                     .u = pbd_FieldType_DecodeScalar(kf->type, f.value)};
      pbd_Buf_AppendChar(out, '[');
      pbd_Format_TextValue(out, &v, NULL);
      pbd_Buf_AppendChar(out, ']');
      return true;
    }
  }
  return false;
}

void pbd_Explain_PathAt(const pbd_MessageDef *type, const uint8_t *buf, size_t begin, size_t end,
                        size_t offset, pbd_Buf *out) {
  const uint8_t *p = buf + begin, *stop = buf + end, *target = buf + offset;
  const pbd_MessageDef *m = type;
  for (int depth = 0; depth < 100 && p < stop;) {
    const uint8_t *from = p;
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadField(p, stop, buf, 100, &f, NULL);
    if (!q) return;
    if (target >= q) {
      p = q;
      continue;
    }
    /* this field holds the offset */
    const pbd_FieldDef *fd = m ? pbd_MessageDef_FindFieldByNumber(m, f.number) : NULL;
    if (out->len) pbd_Buf_AppendChar(out, '.');
    if (fd) pbd_Buf_AppendStr(out, fd->name);
    else pbd_Buf_Printf(out, "%u", f.number);
    bool message = fd && fd->message_type &&
                   (f.wire_type == kPbd_WireType_Delimited || f.wire_type == kPbd_WireType_StartGroup);
    if (!message || target < f.data) return; /* a scalar, or the field's own tag */
    if (fd->is_map) {
      if (!map_key(out, fd, &f, buf)) return;
      return; /* an entry's key and value are the entry */
    }
    if (fd->is_repeated)
      pbd_Buf_Printf(out, "[%u]", occurrence(buf, buf + begin, from, f.number));
    m = fd->message_type;
    p = f.data;
    stop = f.data + f.size;
    begin = (size_t)(f.data - buf);
    depth++;
  }
}
