/* pbdiff — the hash pass's record (canon_pass.h): a finished message's slots
 * in field-number order, defaults dropped, map entries sorted and deduped,
 * an Any by its payload's meaning, written as docs/hash.md's pbh1 record at
 * its exact size and hashed in one call. */
#include "canon/canon_pass.h"

/* ---- The record ---------------------------------------------------------------- */

static int compare_keys_stable(const Entry *a, const Entry *b) {
  return pbd_Value_CompareKeys(&a->key, &b->key);
}

/* Stable merge sort of map entries by key: among equal keys the order
 * decides which duplicate wins. */
static void sort_entries(Entry *v, Entry *tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_entries(v, tmp, h);
  sort_entries(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = compare_keys_stable(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* Rule 5: entries by key, the last of duplicate keys kept. */
static bool canonicalize_map(Ctx *c, Slot *s) {
  if (s->nentries >= 2) {
    Entry *tmp = pbd_Arena_Malloc(c->scratch, sizeof(Entry) * s->nentries);
    if (!tmp) return oom(c);
    sort_entries(s->entries, tmp, s->nentries);
    uint32_t out = 0;
    for (uint32_t i = 0; i < s->nentries; i++) {
      if (i + 1 < s->nentries && compare_keys_stable(&s->entries[i], &s->entries[i + 1]) == 0)
        continue;
      s->entries[out++] = s->entries[i];
    }
    s->nentries = out;
  }
  s->count = s->nentries;
  return true;
}

static bool drop_as_default(const Ctx *c, const Msg *m, const Slot *s) {
  if (s->fd->is_repeated) return false;
  return pbd_CanonPass_DropsAsDefault(c, m->def && m->def->is_map_entry, s->fd, s->scalar, s->str,
                                      s->child_empty);
}

/* Known fields before unknown ones of the same number. */
static int slot_order(const Slot *a, const Slot *b) {
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return (a->fd == NULL) - (b->fd == NULL);
}

static void sort_slots(Slot **v, Slot **tmp, size_t n) {
  if (n < 2) return;
  if (n <= 16) {
    for (size_t i = 1; i < n; i++) {
      Slot *t = v[i];
      size_t j = i;
      for (; j > 0 && slot_order(v[j - 1], t) > 0; j--) v[j] = v[j - 1];
      v[j] = t;
    }
    return;
  }
  size_t h = n / 2;
  sort_slots(v, tmp, h);
  sort_slots(v + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = slot_order(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* ---- Writing the record ---------------------------------------------------- */

/* The size of a slot's values in the record. */
static size_t values_size(const Slot *s) {
  switch (s->shape) {
    case kShape_Record: return s->rec.n;
    case kShape_Map: return 16 * (size_t)s->nentries;
    case kShape_Scalars: return s->count <= kPbd_InlineScalars ? 8 * (size_t)s->count : 16;
    case kShape_Message: return 16;
    case kShape_Str: return str_size(s->str.size);
    default: return 8;
  }
}

/* Writes a slot's values as the record has them. */
static uint8_t *put_values(const Ctx *c, uint8_t *w, Slot *s) {
  switch (s->shape) {
    case kShape_Record:
      if (s->rec.n) memcpy(w, s->rec.p, s->rec.n);
      return w + s->rec.n;
    case kShape_Map:
      for (uint32_t i = 0; i < s->nentries; i++) w = put_hash(w, s->entries[i].hash);
      return w;
    case kShape_Scalars:
      if (s->count <= kPbd_InlineScalars) {
        memcpy(w, s->vals, 8 * (size_t)s->count);
        return w + 8 * (size_t)s->count;
      }
      if (!s->digest) return put_hash(w, digest(c, s->vals, 8 * (size_t)s->nvals));
      XXH3_128bits_update(s->digest, s->vals, sizeof(uint64_t) * s->nvals);
      XXH128_hash_t h = XXH3_128bits_digest(s->digest);
      return put_hash(w, (pbd_Hash128){h.low64, h.high64});
    case kShape_Message: return put_hash(w, s->child);
    case kShape_Str: return put_str(c, w, s->str.data, s->str.size);
    default: return put_u64(w, pbd_HashBits(c->o->float_bits, s->kind, s->scalar));
  }
}

/* The value of a known singular slot (a map entry's key, an Any's parts). */
static pbd_Value slot_value(const Slot *s) {
  pbd_Value v;
  memset(&v, 0, sizeof v);
  v.field = s->fd;
  v.kind = pbd_ValueKindOf(s->fd->type);
  if (pbd_ValueKind_IsStr(v.kind)) v.s = s->str;
  else v.u = s->scalar;
  return v;
}

/* Rule 11: an Any whose type the schema has is its URL and its payload's
 * meaning: *payload is set when its payload parses as that type. */
static bool any_payload(Ctx *c, const Msg *m, Slot **present, uint32_t n, const Slot **url,
                        pbd_Hash128 *payload, bool *resolved) {
  *resolved = false;
  const Slot *val = NULL;
  *url = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (present[i]->fd && present[i]->number == 1) *url = present[i];
    if (present[i]->fd && present[i]->number == 2) val = present[i];
  }
  if (!*url || (*url)->kind != kPbd_Value_String) return true;
  const pbd_MessageDef *type = pbd_AnyPayloadType(c->o->pool, (*url)->str);
  if (!type || m->depth + 1 > c->max_depth) return true;
  pbd_Part part = {(const uint8_t *)"", 0};
  if (val && val->kind == kPbd_Value_Bytes)
    part = (pbd_Part){(const uint8_t *)val->str.data, val->str.size};
  Result pr;
  if (!pbd_CanonPass_HashMessage(c, type, &part, 1, m->depth + 1, &pr)) {
    if (c->s->code == kPbd_Status_OutOfMemory) return false;
    pbd_Status_Clear(c->s); /* stays bytes, compared as bytes */
    return true;
  }
  *resolved = true;
  *payload = pr.hash;
  return true;
}

/* Whether a map entry's value is a closed enum value the schema does not
 * know (it went to the entry's unknown fields as a varint). */
static bool entry_has_unknown_enum(const Msg *m) {
  const pbd_FieldDef *v = pbd_MessageDef_FindFieldByNumber(m->def, 2);
  if (!v || v->type != kPbd_Type_Enum || !v->enum_type || !v->enum_type->is_closed) return false;
  for (uint32_t i = 0; i < m->nslots; i++)
    if (!m->slots[i].fd && m->slots[i].number == 2 && m->slots[i].has_varint) return true;
  return false;
}

/* A big record (a level of many elements) goes to the digest slot by slot,
 * the largest values straight from where they were gathered. */
static bool hash_in_pieces(Ctx *c, Slot **present, uint32_t n, Result *out) {
  void *raw = pbd_Arena_Malloc(c->scratch, sizeof(XXH3_state_t) + 64);
  if (!raw) return oom(c);
  XXH3_state_t *st = (XXH3_state_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  XXH3_INITSTATE(st);
  XXH3_128bits_reset_withSeed(st, c->o->hash_seed);
  uint8_t buf[1024]; /* a slot's header and small values; map entry hashes in batches */
  for (uint32_t i = 0; i < n; i++) {
    Slot *s = present[i];
    uint8_t *w = put_u64(put_u64(buf, pbd_FieldRecordTag(s->number, s->fd, c->o->typed_fields)), s->count);
    if (s->shape == kShape_Record) {
      XXH3_128bits_update(st, buf, (size_t)(w - buf));
      XXH3_128bits_update(st, s->rec.p, s->rec.n);
      continue;
    }
    if (s->shape == kShape_Map) {
      for (uint32_t k = 0; k < s->nentries; k++) {
        if ((size_t)(w - buf) + 16 > sizeof buf) {
          XXH3_128bits_update(st, buf, (size_t)(w - buf));
          w = buf;
        }
        w = put_hash(w, s->entries[k].hash);
      }
    } else {
      w = put_values(c, w, s); /* at most 64 scalars or one string: it fits */
    }
    XXH3_128bits_update(st, buf, (size_t)(w - buf));
  }
  XXH128_hash_t h = XXH3_128bits_digest(st);
  out->hash = (pbd_Hash128){h.low64, h.high64};
  out->empty = n == 0;
  return true;
}

bool pbd_CanonPass_Finish(Ctx *c, Msg *m, Result *out) {
  bool entry = m->def && m->def->is_map_entry;
  Slot *few[64]; /* most messages have a few fields: no allocation */
  Slot **present = m->nslots <= 32 ? few
                                   : pbd_Arena_Malloc(c->scratch, sizeof(Slot *) * m->nslots * 2);
  if (!present) return oom(c);
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->nslots; i++) {
    Slot *s = &m->slots[i];
    if (s->count == 0 || (entry && !s->fd)) continue;
    if (s->shape == kShape_Message) {
      Result r;
      if (!pbd_CanonPass_HashMessage(c, s->fd->message_type, s->parts, s->nparts, m->depth + 1, &r)) {
        pbd_FieldDef_PrependPath(s->fd, s->fd->number, 0, c->s);
        return false;
      }
      s->child = r.hash;
      s->child_empty = r.empty;
    }
    if (s->shape == kShape_Map && !canonicalize_map(c, s)) return false;
    if (s->fd && drop_as_default(c, m, s)) continue;
    present[n++] = s;
  }
  sort_slots(present, present + n, n);
  if (entry) {
    out->entry_unknown_enum = entry_has_unknown_enum(m);
    const pbd_FieldDef *kf = pbd_MessageDef_FindFieldByNumber(m->def, 1);
    memset(&out->key, 0, sizeof out->key);
    if (kf) out->key = pbd_FieldDef_DefaultValue(kf);
    for (uint32_t i = 0; i < n; i++)
      if (present[i]->number == 1) out->key = slot_value(present[i]);
  }
  const Slot *url = NULL;
  pbd_Hash128 payload;
  bool resolved = false;
  if (c->any && m->def == c->any && !any_payload(c, m, present, n, &url, &payload, &resolved))
    return false;
  size_t size = resolved ? 8 + str_size(url->str.size) + 16 : 0;
  for (uint32_t i = 0; i < n && !resolved; i++) size += 16 + values_size(present[i]);
  if (size > kHeapBytes) return hash_in_pieces(c, present, n, out);
  uint8_t small[1024];
  uint8_t *rec = size <= sizeof small ? small : pbd_Arena_Malloc(c->scratch, size);
  if (!rec) return oom(c);
  uint8_t *w = rec;
  if (resolved) {
    w = put_hash(put_str(c, put_u64(w, 0xA11), url->str.data, url->str.size), payload);
  } else {
    for (uint32_t i = 0; i < n; i++) {
      Slot *s = present[i];
      w = put_u64(w, pbd_FieldRecordTag(s->number, s->fd, c->o->typed_fields));
      w = put_values(c, put_u64(w, s->count), s);
    }
  }
  out->hash = digest(c, rec, (size_t)(w - rec));
  out->empty = n == 0;
  return true;
}
