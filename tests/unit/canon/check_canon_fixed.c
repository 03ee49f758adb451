/* Runs of fixed-width repeated scalars (lib/canon/canon.c, push_fixed):
 * packed and unpacked floats and doubles are converted to their canonical
 * slots a chunk at a time.  Each shape must hash as the tree hashes it
 * (pbd_Tree_Parse), and packed, unpacked and mixed runs of the same values
 * alike: counts around the tags checked eight at a time, the blocks moved
 * together (64) and the chunk (256), -0, NaNs
 * of several payloads, subnormals, with and without --float-bits; tags of
 * one byte (onnx.TensorProto.float_data) and two (sem3.M.rf, rd). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "pbdiff/tree/tree.h"
#include "testutil.h"

static pbd_Hash128 hash_of(const char *type, const tu_Bytes *o, bool float_bits) {
  pbd_ReadOptions ro;
  memset(&ro, 0, sizeof ro);
  ro.hash_seed = 12345;
  ro.pool = tu_type_pool(type);
  ro.float_bits = float_bits;
  return tu_hash_agrees(tu_type(type), o->p, o->n, &ro);
}

/* The k-th test value of `width` bytes: mostly ordinary numbers, with -0,
 * +0, NaNs and subnormals among them. */
static void value(int k, size_t width, uint8_t *out) {
  if (width == 4) {
    static const uint32_t special[] = {0x80000000u, 0, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
                                       0x00000001u, 0x7f800000u};
    float f = (float)k * 0.37f - 100.0f;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (k % 11 == 3) b = special[(k / 11) % 7];
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(b >> (8 * i));
  } else {
    static const uint64_t special[] = {0x8000000000000000ull, 0, 0x7ff8000000000000ull,
                                       0xfff8000000000001ull, 0x0000000000000001ull};
    double d = (double)k * 0.37 - 100.0;
    uint64_t b;
    memcpy(&b, &d, 8);
    if (k % 7 == 2) b = special[(k / 7) % 5];
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(b >> (8 * i));
  }
}

static void put_varint(tu_Bytes *o, uint64_t v) {
  uint8_t b[10];
  size_t k = 0;
  for (;; v >>= 7) {
    b[k++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
    if (v < 0x80) break;
  }
  tu_bytes_put(o, b, k);
}

/* Values [from, to) of field `number`, packed (one LEN) or unpacked. */
static void put_run(tu_Bytes *o, uint32_t number, size_t width, int from, int to, bool packed) {
  uint8_t v[8];
  if (packed) {
    put_varint(o, (uint64_t)number << 3 | 2);
    put_varint(o, (uint64_t)(to - from) * width);
    for (int k = from; k < to; k++) value(k, width, v), tu_bytes_put(o, v, width);
    return;
  }
  for (int k = from; k < to; k++) {
    put_varint(o, (uint64_t)number << 3 | (width == 4 ? 5 : 1));
    value(k, width, v);
    tu_bytes_put(o, v, width);
  }
}

static void shapes_agree(const char *type, uint32_t number, size_t width) {
  /* (and around the unpacked tags' groups of eight and their blocks of 64) */
  static const int kCounts[] = {1, 7, 8, 9, 63, 64, 65, 71, 255, 256, 257, 1000};
  for (size_t ci = 0; ci < sizeof kCounts / sizeof kCounts[0]; ci++) {
    int n = kCounts[ci];
    for (int fb = 0; fb < 2; fb++) {
      tu_Bytes packed = {0}, unpacked = {0}, mixed = {0};
      put_run(&packed, number, width, 0, n, true);
      put_run(&unpacked, number, width, 0, n, false);
      put_run(&mixed, number, width, 0, n / 3, false); /* unpacked, packed, unpacked */
      put_run(&mixed, number, width, n / 3, 2 * n / 3, true);
      put_run(&mixed, number, width, 2 * n / 3, n, false);
      pbd_Hash128 a = hash_of(type, &packed, fb), b = hash_of(type, &unpacked, fb),
                  c = hash_of(type, &mixed, fb);
      ck_assert_msg(pbd_Hash128_Equal(a, b) && pbd_Hash128_Equal(a, c),
                    "%s field %u, %d values, float bits %d: packed, unpacked and mixed differ",
                    type, number, n, fb);
      free(packed.p), free(unpacked.p), free(mixed.p);
    }
  }
}

START_TEST(float_one_byte_tag) { shapes_agree("onnx.TensorProto", 4, 4); }
END_TEST

START_TEST(double_one_byte_tag) { shapes_agree("onnx.TensorProto", 10, 8); }
END_TEST

START_TEST(float_two_byte_tag) { shapes_agree("sem3.M", 24, 4); }
END_TEST

START_TEST(double_two_byte_tag) { shapes_agree("sem3.M", 29, 8); }
END_TEST

/* A value cut short at the end of an unpacked run is an error at its
 * first byte, as before. */
START_TEST(cut_short_value) {
  tu_Bytes o = {0};
  put_run(&o, 4, 4, 0, 10, false);
  tu_bytes_put_hex(&o, "25 00 00", 1);
  pbd_ReadOptions ro;
  memset(&ro, 0, sizeof ro);
  ro.pool = tu_type_pool("onnx.TensorProto");
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Hash128 h;
  ck_assert(!pbd_Canon_Hash(tu_type("onnx.TensorProto"), o.p, 0, o.n, &ro, NULL, &h, &s));
  ck_assert_msg(s.has_offset && s.offset == 51, "offset %zu: %s", s.offset, s.msg);
  free(o.p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("canon_fixed");
  TCase *t = tcase_create("fixed");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, float_one_byte_tag);
  tcase_add_test(t, double_one_byte_tag);
  tcase_add_test(t, float_two_byte_tag);
  tcase_add_test(t, double_two_byte_tag);
  tcase_add_test(t, cut_short_value);
  suite_add_tcase(s, t);
  return tu_main(s);
}
