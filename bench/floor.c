/* floor: the least work any schema-driven semantic comparer must do, as the
 * benchmark's floor (issue 20): pbdiff's time and instruction count are
 * reported as ratios to this program's.
 *
 *   floor DESC.pb TYPE LEFT RIGHT
 *     DESC.pb  a FileDescriptorSet (protoc --include_imports -o DESC.pb ...)
 *   exit 0 when the two combined hashes agree, 1 when not, 2 on trouble
 *   (unreadable file, unknown type, malformed wire bytes: one line on stderr
 *   naming the file and the byte offset).
 *
 * What it does:
 *   - loads the descriptor set with libpbdiff's loader (include/pbdiff/
 *     schema/schema.h: the same load pbdiff -s pays for) and looks TYPE up;
 *   - maps both files (mmap, read-only) and walks each once, front to back:
 *     every tag is read and its field looked up in the message's schema;
 *   - a length-delimited field whose schema type is a message, and a group,
 *     is walked recursively with its message type (at most 100 levels deep);
 *   - every other field value is a leaf: a varint (its decoded 64-bit value),
 *     a fixed32 / fixed64 (its bytes), a string, bytes or packed run (its
 *     payload bytes, whole), hashed with XXH3-64 seeded by the field's tag;
 *   - a message's hash is the sum (mod 2^64) of its fields' hashes, so the
 *     order of fields does not matter; a sub-message is a leaf of its parent
 *     whose bytes are the sub-message's sum;
 *   - compares the two roots' sums.
 * What it does not do (the semantic rules; the work it leaves out is what
 * pbdiff's ratio to it measures):
 *   - packed and unpacked repeated scalars hash differently (one leaf for the
 *     run against one leaf per element), and so do a sub-message written in
 *     two parts and the same message in one, a singular field given twice
 *     (last one wins) and given once, a default value written and left out
 *     (tags and varints are decoded, so non-minimal ones hash as minimal);
 *   - the other way, a sum forgets order: repeated elements in another order
 *     hash the same, which a comparer must tell apart (maps excepted);
 *   - no UTF-8 check, no enum, default or presence rule, no unknown-field
 *     rule (an unknown field is a leaf, never recursed into), no extension
 *     beyond the pool's own lookup by number, no report of what differs;
 *   - no allocation after the descriptor set is loaded, no copy of the input.
 * It is a floor of work, not a comparer: its verdict is right on the reorder
 * re-encodings and on byte copies, and may be wrong on the rest. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pbdiff/core/status.h"
#include "pbdiff/schema/schema.h"

enum { kMaxDepth = 100 };
enum { kVarint = 0, kFixed64 = 1, kDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

/* One input being walked: where it starts (for offsets in errors) and its name. */
typedef struct {
  const uint8_t *base;
  const char *name;
  size_t bad_offset; /* where the walk failed */
  const char *bad_what;
} Input;

/* A file mapped read-only; size 0 maps nothing. */
typedef struct {
  const uint8_t *data;
  size_t size;
} Mapped;

static bool map_file(const char *path, Mapped *out) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return false;
  }
  out->size = (size_t)st.st_size;
  out->data = (const uint8_t *)"";
  if (out->size > 0) {
    void *p = mmap(NULL, out->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return false;
    }
    out->data = p;
  }
  close(fd);
  return true;
}

static bool fail(Input *in, const uint8_t *at, const char *what) {
  in->bad_offset = (size_t)(at - in->base);
  in->bad_what = what;
  return false;
}

/* Reads a varint at *pp (before end) into *v and moves *pp past it. */
static inline bool read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v) {
  const uint8_t *p = *pp;
  if (p < end && *p < 0x80) { /* the usual one-byte tag or value */
    *v = *p;
    *pp = p + 1;
    return true;
  }
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    uint8_t b = *p++;
    r |= (uint64_t)(b & 0x7F) << shift;
    if (b < 0x80) {
      *v = r;
      *pp = p;
      return true;
    }
  }
  return false;
}

static inline const pbd_FieldDef *field_of(const pbd_MessageDef *m, uint32_t number) {
  if (m == NULL) return NULL;
  if (number < m->by_number_count) return m->by_number[number];
  return pbd_MessageDef_FindFieldByNumber(m, number);
}

static inline uint64_t leaf(const void *bytes, size_t n, uint64_t tag) {
  return XXH3_64bits_withSeed(bytes, n, tag);
}

/* Walks the fields in [*pp, end) of a message of type m (NULL: not known, so
 * every field is a leaf) and adds their hashes to *sum.  `group` is the field
 * number whose end-group tag closes this message, 0 for a length-delimited
 * one (which ends at `end`).  Moves *pp to where the message ended. */
static bool walk(Input *in, const uint8_t **pp, const uint8_t *end, const pbd_MessageDef *m,
                 uint32_t group, int depth, uint64_t *sum) {
  const uint8_t *p = *pp;
  uint64_t acc = 0;
  while (p < end) {
    const uint8_t *at = p;
    uint64_t tag, v;
    if (!read_varint(&p, end, &tag)) return fail(in, at, "truncated or overlong tag");
    uint32_t number = (uint32_t)(tag >> 3);
    if (number == 0 || tag >> 32 != 0) return fail(in, at, "bad field number");
    switch (tag & 7) {
      case kVarint:
        if (!read_varint(&p, end, &v)) return fail(in, at, "truncated varint");
        acc += leaf(&v, sizeof v, tag);
        break;
      case kFixed64:
        if (end - p < 8) return fail(in, at, "truncated fixed64");
        acc += leaf(p, 8, tag);
        p += 8;
        break;
      case kFixed32:
        if (end - p < 4) return fail(in, at, "truncated fixed32");
        acc += leaf(p, 4, tag);
        p += 4;
        break;
      case kDelimited: {
        if (!read_varint(&p, end, &v) || v > (uint64_t)(end - p))
          return fail(in, at, "truncated length-delimited field");
        const pbd_FieldDef *fd = field_of(m, number);
        if (fd != NULL && fd->type == kPbd_Type_Message) {
          if (depth >= kMaxDepth) return fail(in, at, "nesting over 100 levels");
          const uint8_t *q = p;
          uint64_t child = 0;
          if (!walk(in, &q, p + v, fd->message_type, 0, depth + 1, &child)) return false;
          acc += leaf(&child, sizeof child, tag);
        } else {
          acc += leaf(p, (size_t)v, tag);
        }
        p += v;
        break;
      }
      case kStartGroup: {
        if (depth >= kMaxDepth) return fail(in, at, "nesting over 100 levels");
        const pbd_FieldDef *fd = field_of(m, number);
        const pbd_MessageDef *type = fd != NULL && fd->type == kPbd_Type_Group ? fd->message_type : NULL;
        uint64_t child = 0;
        if (!walk(in, &p, end, type, number, depth + 1, &child)) return false;
        acc += leaf(&child, sizeof child, tag);
        break;
      }
      case kEndGroup:
        if (number != group) return fail(in, at, "end-group tag without its start");
        *pp = p;
        *sum += acc;
        return true;
      default:
        return fail(in, at, "bad wire type");
    }
  }
  if (group != 0) return fail(in, p, "group without its end-group tag");
  *pp = p;
  *sum += acc;
  return true;
}

/* The combined hash of a whole file in *sum, or false with the reason on
 * stderr (the caller frees the schema and exits 2). */
static bool file_hash(const char *path, const pbd_MessageDef *root, uint64_t *sum) {
  Mapped f;
  if (!map_file(path, &f)) {
    fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
    return false;
  }
  Input in = {.base = f.data, .name = path};
  const uint8_t *p = f.data;
  *sum = 0;
  bool ok = walk(&in, &p, f.data + f.size, root, 0, 0, sum);
  if (!ok) fprintf(stderr, "floor: %s: offset %zu: %s\n", in.name, in.bad_offset, in.bad_what);
  if (f.size > 0) munmap((void *)f.data, f.size);
  return ok;
}

static pbd_DefPool *load_schema(const char *path) {
  Mapped d;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!map_file(path, &d)) {
    fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
    exit(2);
  }
  pbd_DefPool *pool = pbd_DefPool_New();
  if (pool == NULL || !pbd_DefPool_AddFileDescriptorSet(pool, d.data, d.size, path, &s) ||
      !pbd_DefPool_Finalize(pool, &s)) {
    char msg[1200];
    pbd_Status_Format(&s, path, msg, sizeof msg);
    fprintf(stderr, "floor: %s\n", pool == NULL ? "out of memory" : msg);
    pbd_DefPool_Free(pool);
    exit(2);
  }
  return pool; /* the pool may point into the mapping: it stays mapped */
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: floor DESC.pb TYPE LEFT RIGHT\n");
    return 2;
  }
  pbd_DefPool *pool = load_schema(argv[1]);
  const pbd_MessageDef *root = pbd_DefPool_FindMessageByName(pool, argv[2]);
  if (root == NULL) {
    fprintf(stderr, "floor: %s: no message type %s\n", argv[1], argv[2]);
    pbd_DefPool_Free(pool);
    return 2;
  }
  uint64_t a = 0, b = 0;
  bool ok = file_hash(argv[3], root, &a) && file_hash(argv[4], root, &b);
  pbd_DefPool_Free(pool);
  if (!ok) return 2;
  return a == b ? 0 : 1;
}
