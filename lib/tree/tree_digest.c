/* pbdiff — the cryptographic fingerprint (pbs1, docs/hash.md): SHA-256 over
 * one canonical serialisation of a whole tree.
 *
 * pbh1 is a Merkle tree of 128-bit XXH3 values, fast and fine against
 * accidents but forgeable by anyone who wants two inputs to collide.  pbs1
 * uses no intermediate digest at all: the tree is written out as a
 * self-delimiting byte string (every count and length before what it counts)
 * and that string goes through SHA-256 in one stream.  The serialisation
 * applies exactly the normalisations of the hash record (tree_values.c):
 * fields by number with their record tags, canonical floats, an Any as its
 * type URL and payload meaning — so two inputs have the same pbs1 exactly
 * when they have the same pbh1 (barring an XXH3 collision), and finding two
 * meanings with one pbs1 is finding a SHA-256 collision. */
#include <openssl/evp.h>
#include <string.h>

#include "canon/canon_internal.h"
#include "pbdiff/tree/tree.h"

typedef struct {
  EVP_MD_CTX *md;
  const pbd_ReadOptions *o;
  uint8_t buf[4096]; /* pieces are small: gathered before each update */
  size_t n;
  bool ok;
} Digest;

static void put_bytes(Digest *d, const void *p, size_t n) {
  if (d->n + n > sizeof d->buf) {
    d->ok = d->ok && EVP_DigestUpdate(d->md, d->buf, d->n) == 1;
    d->n = 0;
    if (n > sizeof d->buf) { /* a long string goes through as it is */
      d->ok = d->ok && EVP_DigestUpdate(d->md, p, n) == 1;
      return;
    }
  }
  if (n) memcpy(d->buf + d->n, p, n);
  d->n += n;
}

static void put_u64(Digest *d, uint64_t v) {
  v = pbd_ToLe64(v);
  put_bytes(d, &v, sizeof v);
}

static void put_str(Digest *d, pbd_StrView s) {
  put_u64(d, s.size);
  put_bytes(d, s.data, s.size);
}

static void put_message(Digest *d, const pbd_Message *m);

static void put_field(Digest *d, const pbd_Field *f) {
  put_u64(d, pbd_FieldRecordTag(f->number, f->def, d->o->typed_fields));
  put_u64(d, f->count);
  for (uint32_t i = 0; i < f->count; i++) {
    if (!f->def) {
      const pbd_UnknownValue *v = &f->v.unknowns[i];
      put_u64(d, v->kind);
      if (v->kind == kPbd_Value_Len) put_str(d, v->s);
      else if (v->kind == kPbd_Value_LenMessage || v->kind == kPbd_Value_Group) put_message(d, v->m);
      else put_u64(d, v->u);
    } else if (pbd_ValueKind_IsScalar(f->kind)) {
      put_u64(d, pbd_HashBits(d->o->float_bits, f->kind, pbd_Field_Scalar(f, i)));
    } else if (pbd_ValueKind_IsStr(f->kind)) {
      put_str(d, f->v.strs[i]);
    } else {
      put_message(d, f->v.msgs[i]);
    }
  }
}

/* 'M', the field count and the fields; or 'A', an Any's type URL and its
 * payload.  The tree's depth is bounded by --max-depth, as every reader's. */
static void put_message(Digest *d, const pbd_Message *m) {
  const pbd_Message *payload = pbd_Message_AnyPayload(m);
  if (payload) {
    put_u64(d, 'A');
    put_str(d, pbd_Message_AnyTypeUrl(m));
    put_message(d, payload);
    return;
  }
  const pbd_Field *fields = pbd_Message_Fields(m);
  uint32_t n = pbd_Message_FieldCount(m);
  put_u64(d, 'M');
  put_u64(d, n);
  for (uint32_t i = 0; i < n; i++) put_field(d, &fields[i]);
}

bool pbd_Tree_Sha256(const pbd_Message *root, const pbd_ReadOptions *o, uint8_t out[32]) {
  Digest d = {EVP_MD_CTX_new(), o, {0}, 0, true};
  d.ok = d.md && EVP_DigestInit_ex(d.md, EVP_sha256(), NULL) == 1;
  static const char kScheme[] = "pbs1"; /* the scheme's name opens the stream */
  put_bytes(&d, kScheme, 4);
  if (d.ok) put_message(&d, root);
  unsigned len = 0;
  d.ok = d.ok && EVP_DigestUpdate(d.md, d.buf, d.n) == 1 &&
         EVP_DigestFinal_ex(d.md, out, &len) == 1 && len == 32;
  EVP_MD_CTX_free(d.md);
  return d.ok;
}
