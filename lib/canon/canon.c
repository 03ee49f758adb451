/* pbdiff — the canonical hash pass (canon.h).
 *
 * pbd_CanonPass_HashMessage reads the parts of one message and keeps, per present field,
 * a Slot in scratch memory: the last value of a singular scalar or string,
 * the byte ranges of a singular message (merged when its parent ends: later
 * parts may still come, rule 3), the record bytes of a repeated field's
 * values (each element message hashed as soon as its bytes end: nothing can
 * merge into it), a map's (key, entry hash) pairs, or, past 64 values, a
 * running digest of a repeated scalar.  When the parts are read, the slots
 * are put in field-number order and written as the pbh1 record of
 * docs/hash.md, which is hashed; the scratch memory of the message is then
 * released.  So memory is one message level per nesting level, whatever
 * the size of the input. */
#include "canon/canon_pass.h"

/* ---- Scratch arrays -------------------------------------------------------- */

static bool grow(Ctx *c, void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t want = *cap ? *cap : 4;
  while (want < need) want *= 2;
  if (want > UINT32_MAX) return oom(c);
  void *np = pbd_Arena_Realloc(c->scratch, *p, elem * *cap, elem * (size_t)want);
  if (!np) return oom(c);
  *p = np;
  *cap = (uint32_t)want;
  return true;
}

/* bytes_room when b is full: to the digest (a streamed record) or grown. */
static __attribute__((noinline)) uint8_t *bytes_room_full(Ctx *c, Bytes *b, size_t n) {
  if (b->sink) { /* a streamed record: full, to the digest */
    XXH3_128bits_update(b->sink, b->p, b->n);
    b->n = 0;
  }
  if (b->n + n > b->cap) {
    size_t want = b->cap ? b->cap * 2 : 64;
    while (want < b->n + n) want *= 2;
    uint8_t *np;
    if (b->heap) {
      np = realloc(b->p, want);
    } else if (want > kHeapBytes) {
      np = malloc(want);
      if (np && b->n) memcpy(np, b->p, b->n);
      b->heap = np != NULL;
    } else {
      np = pbd_Arena_Realloc(c->scratch, b->p, b->cap, want);
    }
    if (!np) {
      oom(c);
      return NULL;
    }
    b->p = np;
    b->cap = want;
  }
  uint8_t *w = b->p + b->n;
  b->n += n;
  return w;
}

/* Makes room for n more bytes at the end of b; NULL when out of memory.
 * Inline: it is asked for every value of a repeated field. */
static inline uint8_t *bytes_room(Ctx *c, Bytes *b, size_t n) {
  if (b->n + n > b->cap) return bytes_room_full(c, b, n);
  uint8_t *w = b->p + b->n;
  b->n += n;
  return w;
}

static bool bytes_u64(Ctx *c, Bytes *b, uint64_t v) {
  uint8_t *w = bytes_room(c, b, 8);
  return w && put_u64(w, v);
}

static bool bytes_hash(Ctx *c, Bytes *b, pbd_Hash128 h) {
  uint8_t *w = bytes_room(c, b, 16);
  return w && put_hash(w, h);
}

/* str(s) of docs/hash.md: the length, then the bytes or their digest. */
static bool bytes_str(Ctx *c, Bytes *b, const uint8_t *d, size_t n) {
  uint8_t *w = bytes_room(c, b, str_size(n));
  return w && put_str(c, w, (const char *)d, n);
}

/* ---- Slots ------------------------------------------------------------------ */

static Shape shape_of(const pbd_FieldDef *fd, pbd_ValueKind k) {
  if (!fd) return kShape_Record;
  if (fd->is_map) return kShape_Map;
  if (fd->is_repeated) return pbd_ValueKind_IsScalar(k) ? kShape_Scalars : kShape_Record;
  if (k == kPbd_Value_Message) return kShape_Message;
  return pbd_ValueKind_IsStr(k) ? kShape_Str : kShape_Scalar;
}

static Slot *new_slot(Ctx *c, Msg *m, uint32_t number, const pbd_FieldDef *fd) {
  Frame *f = m->frame;
  if (m->nslots == f->capslots) {
    uint32_t cap = f->capslots ? f->capslots * 2 : 16;
    Slot *ns = realloc(f->slots, sizeof *ns * cap);
    if (!ns) {
      oom(c);
      return NULL;
    }
    f->slots = m->slots = ns;
    f->capslots = cap;
  }
  Slot *s = &m->slots[m->nslots++];
  memset(s, 0, sizeof *s);
  s->number = number;
  s->fd = fd;
  s->kind = fd ? (uint8_t)pbd_ValueKindOf(fd->type) : 0;
  s->shape = (uint8_t)shape_of(fd, s->kind);
  return s;
}

static __attribute__((noinline)) Slot *add_known_slot(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  Slot *s = new_slot(c, m, fd->number, fd);
  if (s) m->slot_of[fd->index] = m->nslots;
  return s;
}

/* The field's slot: found in one load for every value but its first. */
static inline Slot *known_slot(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  uint32_t k = m->slot_of[fd->index];
  return k ? &m->slots[k - 1] : add_known_slot(c, m, fd);
}

static uint32_t unk_hash(uint32_t number) { return number * 0x9E3779B1u; }

static void unk_insert(Msg *m, uint32_t idx1) {
  uint32_t j = unk_hash(m->slots[idx1 - 1].number) & m->unk_mask;
  while (m->unk_table[j]) j = (j + 1) & m->unk_mask;
  m->unk_table[j] = idx1;
}

/* Schemaless messages have only unknown fields, possibly very many numbers:
 * past a few, they are found through a table (built again, twice as big,
 * when half full). */
static bool unk_index_new_slot(Ctx *c, Msg *m) {
  if (m->unk_table && (size_t)m->nslots * 2 <= m->unk_mask) {
    unk_insert(m, m->nslots);
    return true;
  }
  uint32_t cap = 64;
  while (cap < m->nslots * 4u) cap *= 2;
  m->unk_table = pbd_Arena_Calloc(c->scratch, sizeof *m->unk_table * cap);
  if (!m->unk_table) return oom(c);
  m->unk_mask = cap - 1;
  for (uint32_t i = 0; i < m->nslots; i++)
    if (!m->slots[i].fd) unk_insert(m, i + 1);
  return true;
}

static Slot *unknown_slot(Ctx *c, Msg *m, uint32_t number) {
  if (m->stream) return pbd_CanonPass_StreamSlot(c, m, number, NULL);
  if (m->last_unknown && m->slots[m->last_unknown - 1].number == number)
    return &m->slots[m->last_unknown - 1];
  if (m->unk_table) {
    for (uint32_t j = unk_hash(number) & m->unk_mask; m->unk_table[j]; j = (j + 1) & m->unk_mask) {
      Slot *s = &m->slots[m->unk_table[j] - 1];
      if (s->number == number) {
        m->last_unknown = m->unk_table[j];
        return s;
      }
    }
  } else {
    for (uint32_t i = 0; i < m->nslots; i++) {
      if (!m->slots[i].fd && m->slots[i].number == number) {
        m->last_unknown = i + 1;
        return &m->slots[i];
      }
    }
  }
  Slot *s = new_slot(c, m, number, NULL);
  if (!s) return NULL;
  m->last_unknown = m->nslots;
  if ((m->unk_table || m->nslots > 8) && !unk_index_new_slot(c, m)) return NULL;
  return s;
}

/* A singular message's parts, merged and hashed (its errors are read now). */
static bool finish_child(Ctx *c, Msg *m, Slot *s) {
  if (!pbd_CanonPass_HashMessage(c, s->fd->message_type, s->parts, s->nparts, m->depth + 1, &(Result){0})) {
    pbd_FieldDef_PrependPath(s->fd, s->fd->number, 0, c->s);
    return false;
  }
  return true;
}

/* Rule 2 for oneofs: setting one member clears the others.  A cleared
 * message member is still read, so that its errors are errors. */
static bool clear_oneof_siblings(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  const pbd_OneofDef *o = fd->oneof;
  for (uint32_t i = 0; i < o->field_count; i++) {
    const pbd_FieldDef *sib = o->fields[i];
    uint32_t k = sib == fd ? 0 : m->slot_of[sib->index];
    if (!k) continue;
    Slot *s = &m->slots[k - 1];
    if (s->shape == kShape_Message) {
      if (s->nparts && !finish_child(c, m, s)) return false;
      s->nparts = 0;
    }
    s->count = 0;
  }
  return true;
}

/* The slot a value of fd goes to, its oneof siblings cleared. */
static inline Slot *value_slot(Ctx *c, Msg *m, const pbd_FieldDef *fd) {
  if (m->stream) return pbd_CanonPass_StreamSlot(c, m, fd->number, fd);
  Slot *s = known_slot(c, m, fd);
  if (!s || (fd->oneof && !clear_oneof_siblings(c, m, fd))) return NULL;
  return s;
}

/* The canonical slots of n fixed-width values (pbd_FixedValues), in the
 * record's byte order. */
static void fixed_slots(pbd_FieldType t, bool float_bits, const uint8_t *p, size_t stride,
                        size_t n, uint64_t *out) {
  pbd_FixedValues(t, !float_bits, p, stride, n, out);
  for (size_t i = 0; kPbd_BigEndian && i < n; i++) out[i] = pbd_ToLe64(out[i]);
}

static bool push_chunk(Ctx *c, Slot *s);

/* n fixed-width values of fd into the slot (see fixed_slots). */
static bool push_fixed(Ctx *c, Slot *s, const pbd_FieldDef *fd, const uint8_t *p, size_t stride,
                       size_t n) {
  while (n) {
    if (s->vals && s->nvals == kChunkScalars && !push_chunk(c, s)) return false;
    if (!s->vals && !(s->vals = pbd_Arena_Malloc(c->scratch, sizeof(uint64_t) * kChunkScalars)))
      return oom(c);
    size_t k = kChunkScalars - s->nvals;
    if (k > n) k = n;
    __builtin_prefetch(p + 4096); /* (the hardware's own stops at each page) */
    fixed_slots(fd->type, c->o->float_bits, p, stride, k, s->vals + s->nvals);
    s->nvals += (uint32_t)k;
    s->count += (uint32_t)k;
    p += k * stride;
    n -= k;
  }
  return true;
}

/* A full chunk of slots to the running digest. */
static bool push_chunk(Ctx *c, Slot *s) {
  if (!s->digest) {
    void *raw = pbd_Arena_Malloc(c->scratch, sizeof(XXH3_state_t) + 64);
    if (!raw) return oom(c);
    s->digest = (XXH3_state_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    XXH3_INITSTATE(s->digest);
    XXH3_128bits_reset_withSeed(s->digest, c->o->hash_seed);
  }
  XXH3_128bits_update(s->digest, s->vals, sizeof(uint64_t) * s->nvals);
  s->nvals = 0;
  return true;
}

static bool push_scalar(Ctx *c, Slot *s, uint64_t v) {
  if (!s->vals) {
    s->vals = pbd_Arena_Malloc(c->scratch, sizeof(uint64_t) * kChunkScalars);
    if (!s->vals) return oom(c);
  }
  if (s->nvals == kChunkScalars && !push_chunk(c, s)) return false;
  s->vals[s->nvals++] = pbd_ToLe64(v);
  s->count++;
  return true;
}


/* ---- Reading fields -------------------------------------------------------- */

static bool add_unknown_value(Ctx *c, Msg *m, uint32_t number, pbd_ValueKind kind, uint64_t u) {
  if (c->validate) return true;
  Slot *s = unknown_slot(c, m, number);
  if (!s) return false;
  s->count++;
  s->has_varint |= kind == kPbd_Value_Varint;
  return bytes_u64(c, &s->rec, kind) && bytes_u64(c, &s->rec, u);
}

/* Rule 13: a LEN field no schema describes is a message when it parses as
 * one completely and is not empty, else bytes. */
bool pbd_CanonPass_TryUnknown(Ctx *c, const uint8_t *data, size_t size, int depth,
                                pbd_Hash128 *h, bool *failed) {
  *failed = false;
  if (size == 0 || depth >= c->max_depth) return false;
  pbd_Part part = {data, size};
  Result r;
  if (pbd_CanonPass_HashMessage(c, NULL, &part, 1, depth + 1, &r)) {
    *h = r.hash;
    return true;
  }
  if (c->s->code == kPbd_Status_OutOfMemory) *failed = true;
  else pbd_Status_Clear(c->s);
  return false;
}

static bool record_unknown(Ctx *c, Msg *m, const pbd_WireField *f) {
  /* --strict and --ignore-unknown concern a schema's messages; inside a
   * message no schema describes, every field is unknown by nature (and is
   * only reached when neither option stopped its parent field). */
  bool keep;
  if (!pbd_UnknownFieldAllowed(m->def != NULL, c->o, f, c->buf, &keep, c->s)) return false;
  if (!keep) return true;
  switch (f->wire_type) {
    case kPbd_WireType_Varint: return add_unknown_value(c, m, f->number, kPbd_Value_Varint, f->value);
    case kPbd_WireType_Fixed32: return add_unknown_value(c, m, f->number, kPbd_Value_Fixed32, f->value);
    case kPbd_WireType_Fixed64: return add_unknown_value(c, m, f->number, kPbd_Value_Fixed64, f->value);
    default: break;
  }
  pbd_Hash128 h = {0, 0};
  bool failed = false;
  pbd_ValueKind kind;
  if (f->wire_type == kPbd_WireType_Delimited) {
    if (c->validate) return true; /* bytes or a message, it cannot be an error */
    bool is_msg = pbd_CanonPass_TryUnknown(c, f->data, f->size, m->depth, &h, &failed);
    if (failed) return false;
    kind = is_msg ? kPbd_Value_LenMessage : kPbd_Value_Len;
  } else { /* a group */
    if (m->depth + 1 > c->max_depth) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                            "nesting deeper than %d", c->max_depth);
      return false;
    }
    pbd_Part part = {f->data, f->size};
    Result r;
    if (!pbd_CanonPass_HashMessage(c, NULL, &part, 1, m->depth + 1, &r)) {
      pbd_FieldDef_PrependPath(NULL, f->number, 0, c->s);
      return false;
    }
    if (c->validate) return true;
    h = r.hash;
    kind = kPbd_Value_Group;
  }
  Slot *s = unknown_slot(c, m, f->number);
  if (!s || !bytes_u64(c, &s->rec, kind)) return false;
  s->count++;
  if (kind == kPbd_Value_Len) return bytes_str(c, &s->rec, f->data, f->size);
  return bytes_hash(c, &s->rec, h);
}

static bool add_scalar(Ctx *c, Msg *m, const pbd_FieldDef *fd, uint64_t raw) {
  if (pbd_EnumValueUnknown(fd, raw)) {
    bool keep;
    if (!pbd_UnknownEnumAllowed(true, c->o, fd, raw, &keep, c->s)) return false;
    /* in a map entry it makes the whole entry unknown (rule 9), which
     * --ignore-unknown then drops whole: keep it until the entry decides */
    if (m->def && m->def->is_map_entry) keep = true;
    return !keep ||
           add_unknown_value(c, m, fd->number, kPbd_Value_Varint, pbd_UnknownEnumVarint(raw));
  }
  if (c->validate) return true;
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  if (fd->is_repeated) return push_scalar(c, s, canonical_scalar(c, fd, raw));
  s->scalar = pbd_FieldType_DecodeScalar(fd->type, raw); /* last value wins */
  s->count = 1;
  return true;
}

/* Rule 4: a packed run, decoded in a tight loop into the field's values. */
static bool add_packed(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  const uint8_t *p = f->data, *end = f->data + f->size;
  size_t width;
  int64_t n = pbd_Packed_Count(fd, f, c->buf, &width, c->s);
  if (n <= 0) return n == 0; /* an empty run: repeated fields have no presence */
  Slot *s = known_slot(c, m, fd);
  if (!s) return false;
  if (width) return c->validate || push_fixed(c, s, fd, p, width, (size_t)n);
  bool check_enum = fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed;
  while (p < end) {
    uint64_t raw = 0;
    if (!width && *p < 0x80) /* the common one-byte varint */
      raw = *p++;
    else if (!(p = pbd_Packed_Next(fd, width, p, end, c->buf, &raw, c->s)))
      return false;
    if (check_enum && pbd_EnumValueUnknown(fd, raw)) {
      if (!add_scalar(c, m, fd, raw)) return false; /* goes to unknown fields */
      s = &m->slots[m->slot_of[fd->index] - 1]; /* that may have moved the slots */
      continue;
    }
    if (!c->validate && !push_scalar(c, s, canonical_scalar(c, fd, raw))) return false;
  }
  return true;
}

static bool add_string(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  uint32_t k = m->slot_of[fd->index];
  if (!pbd_StringValueOk(fd, f, c->buf, k ? m->slots[k - 1].count : 0, c->s)) return false;
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  if (fd->is_repeated) {
    s->count++;
    return c->validate || bytes_str(c, &s->rec, f->data, f->size);
  }
  s->str.data = (const char *)f->data;
  s->str.size = f->size;
  s->count = 1;
  return true;
}

static bool add_message(Ctx *c, Msg *m, const pbd_FieldDef *fd, const pbd_WireField *f) {
  if (m->depth + 1 > c->max_depth) {
    pbd_Status_SetErrorAt(c->s, kPbd_Status_MaxDepthExceeded, off(c, f->start),
                          "nesting deeper than %d", c->max_depth);
    pbd_FieldDef_PrependPath(fd, fd->number, 0, c->s);
    return false;
  }
  Slot *s = value_slot(c, m, fd);
  if (!s) return false;
  pbd_Part part = {f->data, f->size};
  if (!fd->is_repeated) { /* rule 3: read when the parent ends, all parts merged */
    if (s->count == 0) s->nparts = 0;
    if (!grow(c, (void **)&s->parts, &s->capparts, s->nparts + 1, sizeof(pbd_Part))) return false;
    s->parts[s->nparts++] = part;
    s->count = 1;
    return true;
  }
  Result r;
  if (!pbd_CanonPass_HashChild(c, fd->message_type, &part, m->depth + 1, &r)) {
    pbd_FieldDef_PrependPath(fd, fd->number, s->count, c->s);
    return false;
  }
  if (c->validate) {
    s->count++;
    return true;
  }
  if (!fd->is_map) {
    s->count++;
    return bytes_hash(c, &s->rec, r.hash);
  }
  /* an entry whose value is an unknown closed enum stays whole as an
   * unknown field (rule 9) */
  if (r.entry_unknown_enum) return record_unknown(c, m, f);
  if (!grow(c, (void **)&s->entries, &s->capentries, s->nentries + 1, sizeof(Entry))) return false;
  s->entries[s->nentries++] = (Entry){r.key, r.hash};
  s->count++;
  return true;
}

/* Routes one wire field to its schema field, or to unknown fields when the
 * number is not in the schema or the wire type does not fit (rule 6). */
static bool add_field(Ctx *c, Msg *m, const pbd_WireField *f) {
  const pbd_FieldDef *fd = m->def ? pbd_MessageDef_FieldByNumber(m->def, f->number) : NULL;
  if (!fd) return record_unknown(c, m, f);
  if (f->wire_type == pbd_WireTypeOf(fd->type)) {
    switch (fd->type) {
      case kPbd_Type_String:
      case kPbd_Type_Bytes:
        return add_string(c, m, fd, f);
      case kPbd_Type_Message:
      case kPbd_Type_Group:
        return add_message(c, m, fd, f);
      default:
        return add_scalar(c, m, fd, f->value);
    }
  }
  if (fd->is_packable && f->wire_type == kPbd_WireType_Delimited) return add_packed(c, m, fd, f);
  return record_unknown(c, m, f);
}


/* How many values of an unpacked run with a one-byte tag lie from r on,
 * `stride` bytes apart (at most `most`, and whole before end): the tags are
 * checked eight at a time, a byte each. */
static inline __attribute__((always_inline)) size_t tagged_values(const uint8_t *r,
                                                                  const uint8_t *end,
                                                                  size_t stride, uint8_t tag,
                                                                  size_t most) {
  size_t fit = (size_t)(end - r) / stride, n = 0;
  if (most > fit) most = fit;
  for (; n + 8 <= most; n += 8) {
    const uint8_t *b = r + n * stride;
    unsigned differ = 0;
    for (size_t i = 0; i < 8; i++) differ |= (unsigned)(b[i * stride] ^ tag);
    if (differ) break;
  }
  while (n < most && r[n * stride] == tag) n++;
  return n;
}

/* tagged_values with the stride a constant for the common ones (a float's
 * or a double's after its tag), so that it is worked out at compile time. */
static size_t one_byte_tag_run(const uint8_t *r, const uint8_t *end, size_t stride, uint8_t tag,
                               size_t most) {
  if (stride == 5) return tagged_values(r, end, 5, tag, most);
  if (stride == 9) return tagged_values(r, end, 9, tag, most);
  return tagged_values(r, end, stride, tag, most);
}

/* Rule 4, unpacked: the rest of a run of one repeated scalar field written
 * value after value (its tag repeated before each), gathered in a tight
 * loop.  Returns where the run ends; a value that needs more than a push
 * (a closed enum's unknown value, a malformed one) is left to the caller. */
static const uint8_t *gather_run(Ctx *c, Msg *m, const pbd_WireField *f, const uint8_t *q,
                                 const uint8_t *end) {
  const pbd_FieldDef *fd = m->def ? pbd_MessageDef_FieldByNumber(m->def, f->number) : NULL;
  if (!fd || !fd->is_repeated || c->validate || f->wire_type != pbd_WireTypeOf(fd->type) ||
      (fd->type == kPbd_Type_Enum && fd->enum_type && fd->enum_type->is_closed))
    return q;
  Slot *s = known_slot(c, m, fd);
  if (!s || s->shape != kShape_Scalars) return q;
  uint8_t tag[5];
  size_t taglen = 0;
  for (uint32_t t = f->number << 3 | f->wire_type; ; t >>= 7) {
    tag[taglen++] = (uint8_t)(t < 0x80 ? t : (t & 0x7f) | 0x80);
    if (t < 0x80) break;
  }
  size_t width = f->wire_type == kPbd_WireType_Fixed32 ? 4 : f->wire_type == kPbd_WireType_Fixed64 ? 8 : 0;
  if (width) { /* whole values, counted then converted a chunk at a time (still in cache) */
    size_t stride = taglen + width, n;
    const uint8_t *r = q;
    do {
      q = r;
      n = 0;
      __builtin_prefetch(r + 4096); /* (the hardware's own stops at each page) */
      if (taglen == 1)
        r += stride * (n = one_byte_tag_run(r, end, stride, tag[0], kChunkScalars));
      else
        while (n < kChunkScalars && (size_t)(end - r) >= stride && memcmp(r, tag, taglen) == 0)
          r += stride, n++;
      if (n && !push_fixed(c, s, fd, q + taglen, stride, n)) return NULL;
    } while (n == kChunkScalars);
    return r;
  }
  while ((size_t)(end - q) > taglen && memcmp(q, tag, taglen) == 0) {
    const uint8_t *v = q + taglen;
    uint64_t raw = 0;
    const uint8_t *next;
    if (width == 4) {
      uint32_t r32;
      next = pbd_Wire_ReadFixed32(v, end, &r32);
      raw = r32;
    } else if (width == 8) {
      next = pbd_Wire_ReadFixed64(v, end, &raw);
    } else {
      next = pbd_Wire_ReadVarint(v, end, &raw);
    }
    if (!next || !push_scalar(c, s, canonical_scalar(c, fd, raw))) return next ? NULL : q;
    q = next;
  }
  return q;
}

static bool read_part(Ctx *c, Msg *m, const uint8_t *p, const uint8_t *end) {
  int group_depth_left = c->max_depth - m->depth;
  while (p < end) {
    pbd_WireField f;
    const uint8_t *q = pbd_Wire_ReadCommonField(p, end, &f);
    if (!q) q = pbd_Wire_ReadField(p, end, c->buf, group_depth_left, &f, c->s);
    if (!q) return false;
    if (f.wire_type == kPbd_WireType_EndGroup) {
      pbd_Status_SetErrorAt(c->s, kPbd_Status_Malformed, off(c, p),
                            "end group %u without a start group", f.number);
      return false;
    }
    if (!add_field(c, m, &f)) return false;
    if (f.wire_type != kPbd_WireType_Delimited && f.wire_type != kPbd_WireType_StartGroup &&
        !(q = gather_run(c, m, &f, q, end)))
      return false;
    p = q;
  }
  return true;
}

/* Checking only: the singular messages, each read once with all its parts
 * (so that the indices in an error's path are the hash pass's). */
static bool check_children(Ctx *c, Msg *m) {
  for (uint32_t i = 0; i < m->nslots; i++) {
    Slot *s = &m->slots[i];
    if (s->shape == kShape_Message && s->count && s->nparts && !finish_child(c, m, s))
      return false;
  }
  return true;
}

/* pbd_CanonPass_FrameAt's first call at a level, or a bigger table. */
Frame *pbd_CanonPass_NewFrame(Ctx *c, int depth, uint32_t fields) {
  int i = depth - c->base_depth;
  if (i < 0) return NULL;
  if (i >= c->nframes) {
    int n = c->nframes ? c->nframes * 2 : 8;
    while (n <= i) n *= 2;
    Frame **nf = realloc(c->frames, sizeof *nf * (size_t)n);
    if (!nf) return NULL;
    memset(nf + c->nframes, 0, sizeof *nf * (size_t)(n - c->nframes));
    c->frames = nf;
    c->nframes = n;
  }
  if (!c->frames[i] && !(c->frames[i] = calloc(1, sizeof(Frame)))) return NULL;
  Frame *f = c->frames[i];
  if (fields > f->cap_slot_of) {
    uint32_t *t = calloc(fields, sizeof *t);
    if (!t) return NULL;
    free(f->slot_of);
    f->slot_of = t;
    f->cap_slot_of = fields;
  }
  return f;
}

void pbd_CanonPass_FreeFrames(Ctx *c) {
  for (int i = 0; i < c->nframes; i++) {
    if (!c->frames[i]) continue;
    free(c->frames[i]->slots);
    free(c->frames[i]->slot_of);
    free(c->frames[i]->rec);
    free(c->frames[i]->sorted);
    free(c->frames[i]->segs);
    free(c->frames[i]->seen);
    free(c->frames[i]->pending);
    free(c->frames[i]->extra);
    free(c->frames[i]);
  }
  free(c->frames);
  c->frames = NULL;
  c->nframes = 0;
}

/* Reads and hashes one message made of `nparts` parts at `depth`. */
bool pbd_CanonPass_HashMessage(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts, size_t nparts,
                         int depth, Result *out) {
  size_t total = 0;
  for (size_t i = 0; i < nparts; i++) total += parts[i].size;
  bool fresh = c->fresh;
  c->fresh = false;
  /* (a message too small for the caches is not looked for: most are) */
  bool cached = total >= kPbd_HashCacheMinBytes;
  if (nparts && cached && !fresh && !(def && def->is_map_entry) && (c->lookup || c->recalled) &&
      (pbd_HashCache_Find(c->lookup, parts[0].data, total, def, &out->hash, &out->empty) ||
       pbd_HashCache_Find(c->recalled, parts[0].data, total, def, &out->hash, &out->empty))) {
    out->entry_unknown_enum = false;
    return true;
  }
  Frame *frame = pbd_CanonPass_FrameAt(c, depth, def ? def->field_count : 0);
  if (!frame) return oom(c);
  if (nparts && def && !def->is_map_entry && def != c->any && !c->validate) {
    int fast = pbd_CanonPass_HashFast(c, frame, def, parts, nparts, depth, out); /* no scratch memory */
    if (fast > 0 && !fresh && cached && c->record)
      pbd_HashCache_Add(c->record, parts[0].data, total, depth, out->hash, out->empty);
    if (fast != 0) return fast > 0;
  }
  return pbd_CanonPass_HashSlow(c, def, parts, nparts, depth, frame, fresh, out);
}

bool pbd_CanonPass_HashSlow(Ctx *c, const pbd_MessageDef *def, const pbd_Part *parts,
                            size_t nparts, int depth, Frame *frame, bool fresh, Result *out) {
  size_t total = 0;
  for (size_t i = 0; i < nparts; i++) total += parts[i].size;
  pbd_ArenaMark mark = pbd_Arena_Mark(c->scratch);
  Msg m;
  memset(&m, 0, sizeof m);
  m.def = def;
  m.depth = depth;
  m.frame = frame;
  m.slots = m.frame->slots;
  m.slot_of = m.frame->slot_of;
  pbd_CanonPass_StartStream(c, &m, parts, nparts);
  bool ok = true;
  for (size_t i = 0; ok && i < nparts; i++)
    ok = read_part(c, &m, parts[i].data, parts[i].data + parts[i].size);
  ok = ok && (c->validate  ? check_children(c, &m)
              : m.stream ? pbd_CanonPass_FinishStream(c, &m, out)
                         : pbd_CanonPass_Finish(c, &m, out));
  for (uint32_t i = 0; i < m.nslots; i++) { /* the level's table, clean for the next */
    if (m.slots[i].fd) m.slot_of[m.slots[i].fd->index] = 0;
    if (m.slots[i].shape == kShape_Record && m.slots[i].rec.heap) free(m.slots[i].rec.p);
  }
  pbd_Arena_Reset(c->scratch, mark);
  if (ok && nparts && !c->validate && !fresh)
    pbd_HashCache_Add(c->record, parts[0].data, total, depth, out->hash, out->empty);
  return ok;
}
