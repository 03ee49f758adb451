/* pbdiff — the canonical binary writer (write.h): a canonical tree written
 * as protobuf bytes, one encoding per meaning.  It reads only the tree, so
 * every semantic rule it follows is the tree's (lib/tree/tree.c); what it
 * adds is one choice per encoding freedom: number order, packing as the
 * schema says, minimal varints, both parts of every map entry, one form of
 * NaN and of zero. */
#include <math.h>
#include <string.h>

#include "pbdiff/write/write.h"
#include "pbdiff/wire/wire.h"

typedef struct {
  pbd_Buf *out;
  const pbd_WriteOptions *o;
} Writer;

static void write_message(Writer *w, const pbd_Message *m);

void pbd_Write_Varint(pbd_Buf *out, uint64_t v) {
  char b[10];
  size_t n = 0;
  while (v >= 0x80) {
    b[n++] = (char)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (char)v;
  pbd_Buf_Append(out, b, n);
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static void write_tag(Writer *w, uint32_t number, int wire_type) {
  pbd_Write_Varint(w->out, (uint64_t)number << 3 | (uint64_t)wire_type);
}

static void write_fixed32(Writer *w, uint32_t v) {
  char b[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
  pbd_Buf_Append(w->out, b, 4);
}

static void write_fixed64(Writer *w, uint64_t v) {
  write_fixed32(w, (uint32_t)v);
  write_fixed32(w, (uint32_t)(v >> 32));
}

/* A length-delimited body is written after a one-byte length, then moved
 * up when its length needs more bytes: most bodies are short, and a long
 * one moves once per level. */
static size_t begin_len(Writer *w) {
  pbd_Buf_AppendChar(w->out, 0);
  return w->out->len;
}

static void end_len(Writer *w, size_t body) {
  pbd_Buf *b = w->out;
  if (b->oom) return;
  size_t len = b->len - body, n = varint_size(len);
  if (n > 1) {
    char pad[9] = {0};
    pbd_Buf_Append(b, pad, n - 1);
    if (b->oom) return;
    memmove(b->data + body + n - 1, b->data + body, len);
  }
  for (size_t i = 0; i < n; i++) {
    uint8_t byte = (uint8_t)(len & 0x7f);
    len >>= 7;
    b->data[body - 1 + i] = (char)(i + 1 < n ? byte | 0x80 : byte);
  }
}

static void write_bytes(Writer *w, pbd_StrView s) {
  pbd_Write_Varint(w->out, s.size);
  pbd_Buf_Append(w->out, s.data, s.size);
}

/* Whether a present zero in this field can only be -0: the tree drops the
 * +0 of a singular field without presence and of a map entry's value, so a
 * zero left there keeps its sign (rule 10); as cli/commands/cat.c prints it. */
static bool zero_keeps_sign(const pbd_FieldDef *fd) {
  if (!fd || fd->is_repeated) return false;
  return !fd->has_presence || (fd->containing && fd->containing->is_map_entry);
}

/* Rule 10 in bits: all NaNs are the quiet NaN, -0 is +0 where the two
 * mean the same. */
static uint64_t float_bits_canonical(const Writer *w, const pbd_FieldDef *fd, bool is_double,
                                     uint64_t bits) {
  if (w->o && w->o->float_bits) return bits;
  if (is_double) {
    double x;
    memcpy(&x, &bits, sizeof x);
    if (isnan(x)) return 0x7ff8000000000000ull;
    if (x == 0 && !zero_keeps_sign(fd)) return 0;
    return bits;
  }
  uint32_t b = (uint32_t)bits;
  float x;
  memcpy(&x, &b, sizeof x);
  if (isnan(x)) return 0x7fc00000u;
  if (x == 0 && !zero_keeps_sign(fd)) return 0;
  return b;
}

/* A scalar of a schema field from the tree's 64-bit slot (values.h) back to
 * its wire form, without the tag. */
static void write_scalar(Writer *w, const pbd_FieldDef *fd, uint64_t u) {
  switch (fd->type) {
    case kPbd_Type_Double:
      write_fixed64(w, float_bits_canonical(w, fd, true, u));
      break;
    case kPbd_Type_Float:
      write_fixed32(w, (uint32_t)float_bits_canonical(w, fd, false, u));
      break;
    case kPbd_Type_Fixed64:
    case kPbd_Type_SFixed64:
      write_fixed64(w, u);
      break;
    case kPbd_Type_Fixed32:
    case kPbd_Type_SFixed32:
      write_fixed32(w, (uint32_t)u);
      break;
    case kPbd_Type_SInt32: {
      int32_t v = (int32_t)(int64_t)u;
      pbd_Write_Varint(w->out, (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31)));
      break;
    }
    case kPbd_Type_SInt64: {
      int64_t v = (int64_t)u;
      pbd_Write_Varint(w->out, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
      break;
    }
    case kPbd_Type_Bool:
      pbd_Write_Varint(w->out, u != 0);
      break;
    case kPbd_Type_UInt32:
      pbd_Write_Varint(w->out, (uint32_t)u);
      break;
    default: /* int32, int64, uint64, enum: int32 and enum sign-extended, as writers do */
      pbd_Write_Varint(w->out, u);
      break;
  }
}

/* A message value under its tag: a group between its start and end tags,
 * else length-delimited. */
static void write_message_value(Writer *w, uint32_t number, bool group, const pbd_Message *m) {
  if (group) {
    write_tag(w, number, kPbd_WireType_StartGroup);
    write_message(w, m);
    write_tag(w, number, kPbd_WireType_EndGroup);
    return;
  }
  write_tag(w, number, kPbd_WireType_Delimited);
  size_t body = begin_len(w);
  write_message(w, m);
  end_len(w, body);
}

/* One part (1 key, 2 value) of a map entry, always written: the default
 * where the entry leaves it out (rule 5). */
static void write_entry_part(Writer *w, const pbd_Message *entry, const pbd_FieldDef *fd) {
  pbd_Value v = pbd_MapEntry_Part(entry, fd->number);
  if (v.kind == kPbd_Value_Message) {
    write_message_value(w, fd->number, fd->type == kPbd_Type_Group, v.m);
  } else if (v.kind == kPbd_Value_String || v.kind == kPbd_Value_Bytes) {
    write_tag(w, fd->number, kPbd_WireType_Delimited);
    write_bytes(w, v.s);
  } else if (v.kind != kPbd_Value_None) {
    write_tag(w, fd->number, pbd_FieldType_WireType(fd->type));
    write_scalar(w, fd, v.u);
  }
}

static void write_map_entry(Writer *w, uint32_t number, const pbd_FieldDef *map,
                            const pbd_Message *entry) {
  const pbd_MessageDef *et = map->message_type;
  write_tag(w, number, kPbd_WireType_Delimited);
  size_t body = begin_len(w);
  for (uint32_t n = 1; n <= 2; n++) {
    const pbd_FieldDef *part = pbd_MessageDef_FindFieldByNumber(et, n);
    if (part) write_entry_part(w, entry, part);
  }
  end_len(w, body);
}

/* One value of an unknown field (or of schemaless input), by its wire kind. */
static void write_unknown(Writer *w, uint32_t number, const pbd_Value *v) {
  switch (v->kind) {
    case kPbd_Value_Varint:
      write_tag(w, number, kPbd_WireType_Varint);
      pbd_Write_Varint(w->out, v->u);
      break;
    case kPbd_Value_Fixed32:
      write_tag(w, number, kPbd_WireType_Fixed32);
      write_fixed32(w, (uint32_t)v->u);
      break;
    case kPbd_Value_Fixed64:
      write_tag(w, number, kPbd_WireType_Fixed64);
      write_fixed64(w, v->u);
      break;
    case kPbd_Value_Len:
      write_tag(w, number, kPbd_WireType_Delimited);
      write_bytes(w, v->s);
      break;
    case kPbd_Value_LenMessage: /* read as a message: written as its meaning */
      write_message_value(w, number, false, v->m);
      break;
    case kPbd_Value_Group:
      write_message_value(w, number, true, v->m);
      break;
    default:
      break;
  }
}

bool pbd_Write_FieldValue(pbd_Buf *out, uint32_t number, const pbd_Value *v,
                          const pbd_WriteOptions *o) {
  Writer w = {out, o};
  const pbd_FieldDef *fd = v->field;
  if (!fd) {
    write_unknown(&w, number, v);
  } else if (fd->is_map) {
    write_map_entry(&w, number, fd, v->m);
  } else if (v->kind == kPbd_Value_Message) {
    write_message_value(&w, number, fd->type == kPbd_Type_Group, v->m);
  } else if (v->kind == kPbd_Value_String || v->kind == kPbd_Value_Bytes) {
    write_tag(&w, number, kPbd_WireType_Delimited);
    write_bytes(&w, v->s);
  } else if (v->kind != kPbd_Value_None) {
    write_tag(&w, number, pbd_FieldType_WireType(fd->type));
    write_scalar(&w, fd, v->u);
  }
  return !out->oom;
}

static bool is_scalar_kind(pbd_ValueKind k) {
  return k == kPbd_Value_Int || k == kPbd_Value_UInt || k == kPbd_Value_Bool ||
         k == kPbd_Value_Enum || k == kPbd_Value_Float || k == kPbd_Value_Double;
}

/* A packed run: one tag, the length, the values. */
static void write_packed(Writer *w, const pbd_Field *f) {
  write_tag(w, f->number, kPbd_WireType_Delimited);
  size_t body = begin_len(w);
  for (uint32_t i = 0; i < f->count; i++) write_scalar(w, f->def, pbd_Field_Scalar(f, i));
  end_len(w, body);
}

static void write_field(Writer *w, const pbd_Field *f) {
  if (f->def && f->def->is_packed && f->count > 0 && is_scalar_kind(f->kind)) {
    write_packed(w, f);
    return;
  }
  for (uint32_t i = 0; i < f->count; i++) {
    pbd_Value v = pbd_Field_Value(f, i);
    pbd_Write_FieldValue(w->out, f->number, &v, w->o);
  }
}

static void write_message(Writer *w, const pbd_Message *m) {
  if (!m) return;
  const pbd_Message *payload = pbd_Message_AnyPayload(m);
  if (payload) { /* rule 11: an Any is its type URL and its payload's meaning */
    pbd_StrView url = pbd_Message_AnyTypeUrl(m);
    write_tag(w, 1, kPbd_WireType_Delimited);
    write_bytes(w, url);
    write_message_value(w, 2, false, payload);
    return;
  }
  const pbd_Field *fields = pbd_Message_Fields(m);
  for (uint32_t i = 0; i < pbd_Message_FieldCount(m); i++) write_field(w, &fields[i]);
}

bool pbd_Write_Message(pbd_Buf *out, const pbd_Message *m, const pbd_WriteOptions *o) {
  Writer w = {out, o};
  write_message(&w, m);
  return !out->oom;
}
