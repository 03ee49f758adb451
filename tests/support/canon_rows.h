/* pbdiff tests — the hand-written hex inputs of check_canon.c: the hex
 * inputs of the semantic cases (once in check_semantics.c, now
 * tests/cases/semantics.cases) and of the cat and hash suites, and more made
 * for the canonical hash suites (each with the type it is written for; NULL:
 * schemaless).  Data only, included by check_canon.c alone. */
#ifndef PBD_CANON_ROWS_H_
#define PBD_CANON_ROWS_H_

#include "tu_cathash.h"

/* "type.googleapis.com/sem3.M" (26 bytes) */
#define URL_M "74 79 70 65 2e 67 6f 6f 67 6c 65 61 70 69 73 2e 63 6f 6d 2f 73 65 6d 33 2e 4d"
/* "type.googleapis.com/nope.T" (26 bytes) */
#define URL_NOPE "74 79 70 65 2e 67 6f 6f 67 6c 65 61 70 69 73 2e 63 6f 6d 2f 6e 6f 70 65 2e 54"

/* URL_INNER, RICH3, RICH2 and ANY_A: the cat and hash suites' inputs */
/* check_semantics.c's any_hex(url, value) */
#define ANY_INNER(value, vlen, blen) "b2 01 " blen " 0a 1e " URL_INNER " 12 " vlen " " value
#define ANY_NOPE(value, vlen, blen) "b2 01 " blen " 0a 1a " URL_NOPE " 12 " vlen " " value
#define EVERY_PREFIX                                                                    \
  "08 96 01 6a 07 22 05 08 01 12 01 78 72 03 01 02 03 82 01 05 0a 01 61 10 01 "          \
  ANY_INNER("08 01 12 01 78", "05", "27") " c5 01 0000803f f8 07 05 0b 08 01 0c"

typedef struct {
  const char *type; /* NULL: schemaless */
  const char *hex;
} Row;

static const Row kRows[] = {
    /* ---- check_semantics.c ---- */
    /* rule 1 */
    {"sem3.M", "08 01 10 02"}, {"sem3.M", "10 02 08 01"}, {"sem3.M", "70 01 08 05 70 02"},
    {"sem3.M", "70 01 70 02 08 05"}, {"sem3.M", "70 02 70 01"}, {"sem3.M", "70 01 70 02"},
    /* rule 2 */
    {"sem3.M", "08 01 08 02"}, {"sem3.M", "08 02"}, {"sem3.M", "08 01"},
    {"sem3.M", "52 01 61 52 01 62"}, {"sem3.M", "52 01 62"}, {"sem3.M", "5a 01 61 5a 00"},
    {"sem3.M", ""}, {"sem3.M", "98 01 05 a2 01 01 78"}, {"sem3.M", "a2 01 01 78"},
    {"sem3.M", "a2 01 01 78 98 01 05"}, {"sem3.M", "98 01 05"},
    {"sem3.M", "aa 01 02 08 01 aa 01 03 12 01 79"}, {"sem3.M", "aa 01 05 08 01 12 01 79"},
    {"sem3.M", "aa 01 02 08 01 98 01 05 aa 01 03 12 01 79"}, {"sem3.M", "aa 01 03 12 01 79"},
    /* rule 3 */
    {"sem3.M", "6a 02 08 01 6a 03 12 01 78"}, {"sem3.M", "6a 05 08 01 12 01 78"},
    {"sem3.M", "6a 02 08 01 6a 02 08 02"}, {"sem3.M", "6a 02 08 02"},
    {"sem3.M", "6a 02 18 01 6a 02 18 02"}, {"sem3.M", "6a 04 18 01 18 02"},
    {"sem3.M", "6a 04 22 02 08 01 6a 05 22 03 12 01 78"}, {"sem3.M", "6a 07 22 05 08 01 12 01 78"},
    {"sem3.M", "6a 05 22 03 12 01 78"},
    {"sem3.M", "08 01 6a 02 08 01 72 01 01 10 02 6a 03 12 01 78 72 01 02"},
    {"sem3.M", "08 01 10 02 6a 05 08 01 12 01 78 72 02 01 02"},
    /* rule 4 */
    {"sem3.M", "72 03 01 02 03"}, {"sem3.M", "70 01 70 02 70 03"}, {"sem3.M", "70 01 72 02 02 03"},
    {"sem3.M", "c2 01 08 0000803f 00000040"}, {"sem3.M", "c5 01 0000803f c5 01 00000040"},
    {"sem3.M", "ea 01 08 000000000000f03f"}, {"sem3.M", "e9 01 000000000000f03f"},
    {"sem3.M", "72 02 01 02"}, {"sem2.M", "4a 02 01 02"}, {"sem2.M", "48 01 48 02"},
    {"sem3.M", "72 00"},
    /* rule 5 */
    {"sem3.M", "82 01 05 0a 01 61 10 01"}, {"sem3.M", "82 01 05 0a 01 62 10 02"},
    {"sem3.M", "82 01 05 0a 01 61 10 02"},
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02"},
    {"sem3.M", "82 01 05 0a 01 62 10 02 82 01 05 0a 01 61 10 01"},
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 61 10 02"},
    {"sem3.M", "8a 01 06 08 01 12 02 08 01"}, {"sem3.M", "8a 01 07 08 01 12 03 12 01 78"},
    {"sem3.M", "8a 01 06 08 01 12 02 08 01 8a 01 07 08 01 12 03 12 01 78"},
    {"sem3.M", "8a 01 09 08 01 12 05 08 01 12 01 78"},
    {"sem3.M", "82 01 02 10 05"}, {"sem3.M", "82 01 04 0a 00 10 05"}, {"sem3.M", "82 01 03 0a 01 61"},
    {"sem3.M", "82 01 05 0a 01 61 10 00"}, {"sem3.M", "82 01 05 10 01 0a 01 61"},
    {"sem3.M", "8a 01 02 08 07"}, {"sem3.M", "8a 01 04 08 07 12 00"},
    {"sem3.M", "f2 01 02 08 01 f2 01 00"}, {"sem3.M", "f2 01 00 f2 01 02 08 01"},
    {"sem3.M", "8a 01 02 08 02 8a 01 0b 08 ff ff ff ff ff ff ff ff ff 01"},
    {"sem3.M", "8a 01 0b 08 ff ff ff ff ff ff ff ff ff 01 8a 01 02 08 02"},
    /* rule 6 */
    {"sem3.M", "08 01 f8 07 05"}, {"sem3.M", "f8 07 01 f8 07 02"}, {"sem3.M", "f8 07 02 f8 07 01"},
    {"sem3.M", "f8 07 01 08 01 f8 07 02"}, {"sem3.M", "08 01 f8 07 01 f8 07 02"},
    {"sem3.M", "0a 01 78"}, {"sem3.M", "08 01 f8 07 05 0a 01 78"},
    /* rule 7 */
    {"sem3.M", "08 00 52 00 38 00 60 00"}, {"sem3.M", "08 05"}, {"sem3.M", "90 01 00"},
    {"sem3.M", "90 01 03"}, {"sem3.M", "6a 00"}, {"sem3.M", "90 01 00 6a 00 98 01 00"},
    {"sem3.M", "6a 02 08 00"},
    {"sem2.M", "08 00"}, {"sem2.M", "10 07"}, {"sem2.M", "10 00"}, {"sem2.M", "1a 02 68 69"},
    {"sem2.M", "20 00"}, {"sem2.M", "60 02"}, {"sem2.M", "08 00 10 07 1a 02 68 69 20 00 60 02"},
    {"onnxtest.OptionalProto", "10 00"}, {"onnxtest.OptionalProto", ""},
    /* rule 8 */
    {"sem3.M", "08 81 80 00"}, {"sem3.M", "08 ff ff ff ff ff ff ff ff ff 01"},
    {"sem3.M", "08 ff ff ff ff 0f"}, {"sem3.M", "18 ff ff ff ff 1f"}, {"sem3.M", "18 ff ff ff ff 0f"},
    {"sem3.M", "10 ff ff ff ff 0f"}, {"sem3.M", "10 ff ff ff ff ff ff ff ff ff 01"},
    {"sem3.M", "28 01"}, {"sem3.M", "28 02"}, {"sem3.M", "30 03"}, {"sem3.M", "30 04"},
    {"sem3.M", "38 02"}, {"sem3.M", "38 01"}, {"sem3.M", "cd 01 ffffffff"},
    {"sem3.M", "cd 01 feffffff"}, {"sem3.M", "dd 01 ffffffff"}, {"sem2.M", ""}, {"sem2.M", "08 01"},
    {"sem3.M", "08 01 00 01"}, {"sem3.M", "80 80 80 80 10 01"}, {NULL, "00 01"},
    /* rule 9 */
    {"sem3.M", "60 01"}, {"sem3.M", "60 02"}, {"sem3.M", "60 07"},
    {"sem2.M", "20 05"}, {"sem2.M", "20 01 20 05"}, {"sem2.M", "20 01"},
    {"sem2.M", "2a 03 01 05 02"}, {"sem2.M", "2a 02 01 02 28 05"}, {"sem2.M", "2a 02 01 02"},
    {"sem2.M", "2a 03 01 05 02 20 05"},
    {"sem2.WithMap", "0a 04 08 01 10 01"}, {"sem2.WithMap", "0a 04 08 01 10 07"},
    {"sem2.WithMap", "0a 02 08 01"}, {"sem2.WithMap", ""},
    /* rule 10 */
    {"sem3.M", "45 0000c07f"}, {"sem3.M", "45 0100c07f"}, {"sem3.M", "49 000000000000f87f"},
    {"sem3.M", "49 010000000000f8ff"}, {"sem3.M", "45 0000803f"}, {"sem3.M", "45 00000040"},
    {"sem3.M", "45 00000080"}, {"sem3.M", "85 02 00000080"}, {"sem3.M", "85 02 00000000"},
    {"sem2.M", "55 00000080"}, {"sem2.M", "55 00000000"},
    {"sem3.M", "c2 01 08 0000c07f 00000080"}, {"sem3.M", "c2 01 08 0100c0ff 00000000"},
    /* rule 11 */
    {"sem3.M", ANY_INNER("08 01 12 01 78", "05", "27")},
    {"sem3.M", ANY_INNER("12 01 78 08 01", "05", "27")},
    {"sem3.M", ANY_INNER("08 02 12 01 78", "05", "27")},
    {"sem3.M", ANY_NOPE("08 01", "02", "20")}, {"sem3.M", ANY_NOPE("08 02", "02", "20")},
    /* rule 12 */
    {"sem2.M", "3b 40 01 3c"}, {"sem2.M", "3b 40 02 3c"}, {"sem2.M", "3b 40 01 3c 3b 3c"},
    {"sem2.M", "a0 06 05"}, {"sem2.M", "a0 06 06"}, {"sem2.M", "aa 06 02 08 01"},
    {"sem2.M", "aa 06 02 08 02"}, {"sem2.M", "aa 06 02 08 01 08 01"},
    {"sem2.M", "08 01 aa 06 02 08 01"}, {"sem2.M", "08 01 3c"}, {"sem2.M", "3b 40 01 4c"},
    {"sem2.M", "3b 40 01"},
    /* rule 13 */
    {NULL, "08 01 08 02"}, {NULL, "08 02"}, {NULL, "08 01 10 02"}, {NULL, "10 02 08 01"},
    {NULL, "12 02 08 01"}, {NULL, "12 02 08 02"}, {NULL, "12 04 08 01 10 02"},
    {NULL, "12 04 10 02 08 01"}, {NULL, "12 01 78"}, {NULL, "12 01 79"}, {NULL, "1d 01000000"},
    {NULL, "1d 02000000"}, {NULL, "0b 08 01 0c"}, {NULL, "0b 08 02 0c"},
    /* errors */
    {"sem3.M", "08"}, {"sem3.M", "08 ff ff ff ff ff ff ff ff ff ff 01"}, {"sem3.M", "08 01 0e"},
    {"sem3.M", "0f"}, {"sem3.M", "52 05 61"}, {"sem3.M", "6a 03 08 05 6a"}, {"sem3.M", "c5 01 0000"},
    {"sem3.M", "c2 01 03 000000"}, {"sem3.M", "72 01 80"}, {"sem3.M", "72 02 01 ff"},
    {"sem3.M", "52 01 ff"}, {"sem3.M", "6a 05 12 03 61 c0 80"},
    {"sem3.M", "ba 01 01 61 ba 01 03 ed a0 80"}, {"sem3.M", "82 01 03 0a 01 ff"},
    {"sem3.M", "52 04 f0 9f 98 80"}, {"sem2.M", "72 01 ff"},
    {"sem3.M", EVERY_PREFIX},
    {"sem3.M", "08 01 52 01 78"},

    /* ---- check_cathash.c ---- */
    {"sem3.M", RICH3}, {"sem2.M", RICH2}, {NULL, RICH3},
    {NULL, "08 96 01  1d 01 00 00 00  21 02 00 00 00 00 00 00 00  2a 03 68 69 21  32 02 08 05  3b 08 01 3c  2a 00  08 01"},
    /* variants_scalars */
    {"sem3.M", "08 01 20 05 52 01 78"}, {"sem3.M", "52 01 78 20 05 08 01"},
    {"sem3.M", "08 81 80 80 00 20 85 80 00 52 01 78"}, {"sem3.M", "08 07 52 01 79 20 05 08 01 52 01 78"},
    {"sem3.M", "08 01 10 00 18 00 20 05 38 00 52 01 78 5a 00 60 00 45 00 00 00 00 49 00 00 00 00 00 00 00 00"},
    {"sem3.M", "08 01 20 06 52 01 78"}, {"sem3.M", "08 01 20 05 52 01 79"}, {"sem3.M", "08 01 20 05"},
    {"sem3.M", "08 01 20 05 52 01 78 45 00 00 00 80"},
    {"sem3.M", "08 ff ff ff ff 0f 28 03"}, {"sem3.M", "08 ff ff ff ff ff ff ff ff ff 01 28 03"},
    {"sem3.M", "08 fe ff ff ff 0f 28 03"}, {"sem3.M", "08 ff ff ff ff 0f 28 04"},
    {"sem3.M", "85 02 00 00 00 00 45 00 00 c0 7f"}, {"sem3.M", "85 02 00 00 00 80 45 01 00 c0 ff"},
    {"sem3.M", "45 00 00 c0 7f"}, {"sem3.M", "85 02 00 00 80 3f 45 00 00 c0 7f"},
    {"sem3.M", "85 02 00 00 00 80 c2 01 04 01 00 c0 ff"}, {"sem3.M", "c5 01 01 00 c0 ff 85 02 00 00 00 80"},
    {"sem3.M", "85 02 00 00 00 00 c2 01 04 01 00 c0 ff"}, {"sem3.M", "85 02 00 00 00 80 c2 01 04 00 00 c0 7f"},
    {"sem3.M", "38 02"}, {"sem3.M", "38 ff ff ff ff ff ff ff ff ff 01"}, {"sem3.M", "38 00"},
    /* variants_repeated */
    {"sem3.M", "08 09 72 03 01 02 03 c2 01 08 00 00 c0 3f 00 00 00 00"},
    {"sem3.M", "70 01 08 09 70 02 70 03 c5 01 00 00 c0 3f c5 01 00 00 00 00"},
    {"sem3.M", "72 01 01 70 02 72 01 03 c2 01 04 00 00 c0 3f c5 01 00 00 00 80 08 09"},
    {"sem3.M", "72 00 08 09 72 03 01 02 03 c2 01 08 00 00 c0 3f 00 00 00 00"},
    {"sem3.M", "08 09 72 03 01 03 02 c2 01 08 00 00 c0 3f 00 00 00 00"},
    {"sem3.M", "08 09 72 02 01 02 c2 01 08 00 00 c0 3f 00 00 00 00"},
    {"sem3.M", "08 09 72 03 01 02 03 c2 01 04 00 00 c0 3f"},
    {"sem3.M", "7a 02 08 01 7a 02 08 02 ba 01 01 61 ba 01 00"},
    {"sem3.M", "7a 02 08 01 ba 01 01 61 7a 03 08 82 00 ba 01 00"},
    {"sem3.M", "7a 02 08 02 7a 02 08 01 ba 01 01 61 ba 01 00"},
    {"sem3.M", "7a 02 08 01 7a 02 08 02 ba 01 00 ba 01 01 61"},
    /* variants_maps */
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02 82 01 03 0a 01 63 8a 01 06 08 03 12 02 08 01"},
    {"sem3.M", "8a 01 06 08 03 12 02 08 01 82 01 03 0a 01 63 82 01 05 0a 01 62 10 02 82 01 05 0a 01 61 10 01"},
    {"sem3.M", "82 01 05 10 01 0a 01 61 82 01 05 10 02 0a 01 62 82 01 05 10 00 0a 01 63 8a 01 06 12 02 08 01 08 03"},
    {"sem3.M", "82 01 05 0a 01 61 10 09 8a 01 09 08 03 12 05 08 05 12 01 71 82 01 05 0a 01 62 10 02 "
               "82 01 03 0a 01 63 82 01 05 0a 01 61 10 01 8a 01 06 08 03 12 02 08 01"},
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 03 82 01 03 0a 01 63 8a 01 06 08 03 12 02 08 01"},
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02 8a 01 06 08 03 12 02 08 01"},
    {"sem3.M", "82 01 05 0a 01 61 10 01 82 01 05 0a 01 62 10 02 82 01 03 0a 01 63 8a 01 06 08 03 12 02 08 02"},
    {"sem3.M", "8a 01 04 12 02 08 01 f2 01 03 12 01 74 f2 01 04 08 01 12 00"},
    {"sem3.M", "8a 01 06 08 00 12 02 08 01 f2 01 05 08 00 12 01 74 f2 01 02 08 01"},
    {"sem3.M", "8a 01 06 08 01 12 02 08 01 f2 01 03 12 01 74 f2 01 04 08 01 12 00"},
    /* variants_merge */
    {"sem3.M", "6a 0d 08 01 12 01 78 1a 02 01 02 22 02 08 02 7a 02 08 01"},
    {"sem3.M", "6a 04 08 01 18 01 7a 02 08 01 6a 09 12 01 78 18 02 22 02 08 02"},
    {"sem3.M", "6a 06 08 01 22 02 08 07 7a 02 08 01 6a 0b 12 01 78 1a 02 01 02 22 02 08 02"},
    {"sem3.M", "6a 0d 08 01 12 01 78 1a 02 02 01 22 02 08 02 7a 02 08 01"},
    {"sem3.M", "6a 0d 08 01 12 01 78 1a 02 01 02 22 02 08 03 7a 02 08 01"},
    {"sem3.M", "6a 0b 08 01 12 01 78 1a 02 01 02 22 00 7a 02 08 01"},
    {"sem3.M", "6a 00 08 01"}, {"sem3.M", "08 01 6a 00 6a 00"},
    /* variants_oneof_any_unknown */
    {"sem3.M", "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "98 01 05 aa 01 02 08 01 a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "a2 01 01 7a 90 01 00 b2 01 28 12 06 12 01 79 08 84 00 0a 1e " URL_INNER
               " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "98 06 07 a2 01 01 7a a5 06 01 00 00 00 90 01 00 98 06 08 " ANY_A},
    {"sem3.M", "a2 01 01 7a 90 01 00 " ANY_A " 98 06 08 98 06 07 a5 06 01 00 00 00"},
    {"sem3.M", "a2 01 01 7a " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "98 01 00 90 01 00 " ANY_A " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a0 06 01"},
    {"sem3.M", "a2 01 01 7a 90 01 00 " ANY_A " 98 06 07 98 06 08 a9 06 01 00 00 00 00 00 00 00"},
    {"sem3.M", "a2 01 01 7a 90 01 00 b2 01 25 0a 1e " URL_INNER " 12 03 12 01 79"
               " 98 06 07 98 06 08 a5 06 01 00 00 00"},
    {"sem3.M", "ba 06 02 08 05"}, {"sem3.M", "ba 06 03 08 85 00"}, {"sem3.M", "bb 06 08 05 bc 06"},
    {"sem3.M", "ba 06 02 08 06"}, {"sem3.M", "ba 06 01 08"},
    /* variants_proto2_and_schemaless */
    {"sem2.M", "2a 03 01 09 02 3b 40 03 3c a0 06 05"},
    {"sem2.M", "28 01 28 09 28 02 3b 3c a0 06 01 3b 40 03 3c a0 06 05"},
    {"sem2.M", "a0 06 05 3b 40 03 3c 2a 02 01 02 28 09"},
    {"sem2.M", "2a 03 01 09 02 3b 40 04 3c a0 06 05"}, {"sem2.M", "2a 02 01 02 3b 40 03 3c a0 06 05"},
    {"sem2.M", "2a 03 01 09 02 3b 40 03 3c a0 06 05 10 07"},
    {NULL, "08 01 12 04 08 02 10 03 1d 01 00 00 00"}, {NULL, "1d 01 00 00 00 12 04 08 02 10 03 08 01"},
    {NULL, "08 81 80 00 1d 01 00 00 00 12 04 08 02 10 03"}, {NULL, "08 01 12 04 10 03 08 02 1d 01 00 00 00"},
    {NULL, "08 01 12 04 08 02 10 04 1d 01 00 00 00"}, {NULL, "08 01 12 02 08 02 12 02 10 03 1d 01 00 00 00"},
    {NULL, "08 01 08 01 12 04 08 02 10 03 1d 01 00 00 00"}, {NULL, "08 01 12 04 08 02 10 03 25 01 00 00 00"},
    /* cat_delimited, hash_delimited: the streams and their messages */
    {"sem3.Rec", "05 0a 01 61 10 01  00  02 10 07"},
    {"sem3.Rec", "07 10 05 10 01 0a 01 61  02 10 00  04 10 87 80 00"},
    {"sem3.Rec", "05 0a 01 61 10 01  01 08"}, {"sem3.Rec", "05 0a 01 61 10"},
    {"sem3.Rec", "0a 01 61 10 01"}, {"sem3.Rec", "10 07"}, {"sem3.Rec", "10 05 10 01 0a 01 61"},
    {"sem3.Rec", "10 00"}, {"sem3.Rec", "10 87 80 00"}, {"sem3.Rec", ""},
    /* cat_errors */
    {"sem3.M", "52 02 c3 28"}, {"sem3.M", "08 01 98 06 07"},
    /* hash_pinned */
    {NULL, ""}, {NULL, "08 96 01 12 03 61 62 63 1a 02 08 01 25 01 00 00 00 2b 08 01 2c"},
    /* hash_scheme_recomputed */
    {NULL, "08 96 01"}, {"sem3.M", "08 96 01"}, {"sem3.M", "08 fd ff ff ff 0f  a5 06 fe ff ff ff"},
    {"sem3.M", "6a 02 08 01"}, {"sem3.M", "c2 01 0c 00 00 00 80 00 00 c0 3f 01 00 c0 ff"},
    {"sem3.M", "82 01 05 0a 01 62 10 02  82 01 03 0a 01 61"},
    {"sem3.M", "b2 01 24 0a 1e " URL_INNER " 12 02 08 04"}, {NULL, "0a 02 08 05 13 08 01 14"},
    /* hash_equivalent */
    {"sem3.M", "08 01 20 05 52 01 78 72 02 01 02 90 01 01 6a 02 08 01"},
    {"sem3.M", "85 02 00 00 00 80"}, {"sem3.M", "a2 01 00"},
    {"sem2.M", "10 07 20 00 60 02"}, {"sem2.M", "10 08"},
    /* hash_several_and_errors */
    {"sem3.M", "52 01 78 08 01"}, {"sem3.M", "08 01 0a 05 01"},

    /* ---- more, made for this suite ---- */
    /* a oneof message member that does not parse, then cleared by another member */
    {"sem3.M", "aa 01 01 80 98 01 05"}, {"sem3.M", "98 01 05 aa 01 01 80"},
    {"sem3.M", "aa 01 03 12 01 ff a2 01 01 78"},
    /* a singular message whose first or last part is broken */
    {"sem3.M", "6a 01 80 6a 02 08 01"}, {"sem3.M", "6a 02 08 01 08 01 6a 01 80"},
    {"sem3.M", "6a 03 12 01 ff"}, {"sem3.M", "6a 02 08 01 6a 03 12 01 ff 08 05"},
    {"sem3.M", "6a 04 22 02 08 80"}, {"sem3.M", "6a 02 22 00 6a 04 22 02 12 80"},
    /* two errors: in a singular message, and in the root after it */
    {"sem3.M", "6a 03 12 01 ff 52 01 ff"}, {"sem3.M", "6a 03 12 01 ff 08"},
    /* errors in repeated elements and map entries */
    {"sem3.M", "7a 03 12 01 ff"}, {"sem3.M", "7a 02 08 01 7a 02 22 80"},
    {"sem3.M", "82 01 03 0a 01 ff 82 01 03 0a 01 61"}, {"sem3.M", "8a 01 07 08 03 12 03 12 01 ff"},
    {"sem3.M", "8a 01 05 08 03 12 01 80"},
    /* map entries: a value in two parts, unknown fields, a key of another wire type */
    {"sem3.M", "8a 01 0a 08 03 12 02 08 01 12 02 18 05"}, {"sem3.M", "82 01 07 0a 01 61 10 01 18 05"},
    {"sem3.M", "82 01 07 0d 01 00 00 00 10 01"}, {"sem3.M", "f2 01 02 08 02"},
    {"sem3.M", "82 01 00 82 01 00"}, {"sem3.M", "8a 01 00"}, {"sem3.M", "8a 01 02 12 00"},
    {"sem3.M", "f2 01 04 08 01 12 00 f2 01 03 12 01 61"},
    /* Any: in two parts, a payload that does not parse, value only, URL only,
     * a URL without '/', unknown fields, an empty payload, an Any in an Any */
    {"sem3.M", ANY_INNER("08 01 12 01 78", "05", "27") " b2 01 04 12 02 08 02"},
    {"sem3.M", ANY_INNER("80", "01", "23")}, {"sem3.M", "b2 01 04 12 02 08 01"},
    {"sem3.M", "b2 01 20 0a 1e " URL_INNER}, {"sem3.M", "b2 01 10 0a 0a 73 65 6d 33 2e 49 6e 6e 65 72 12 02 08 01"},
    {"sem3.M", "b2 01 26 0a 1e " URL_INNER " 12 02 08 04 18 05"},
    {"sem3.M", ANY_INNER("12 01 ff", "03", "25")}, {"sem3.M", ANY_INNER("", "00", "22")},
    {"sem3.M", "b2 01 45 0a 1a " URL_M " 12 27 b2 01 24 0a 1e " URL_INNER " 12 02 08 04"},
    {"sem3.M", "b2 01 3e 0a 1a " URL_M " 12 20 6a 1e 22 1c 22 1a 22 18 22 16 22 14 22 12 22 10 22 0e 22 0c 22 0a 22 08 22 06 22 04 22 02 08 01"},
    {"sem3.M", ANY_INNER("08 01", "02", "22") " " ANY_INNER("10 01", "02", "22")},
    {"sem3.M", "b2 01 02 0a 00"}, {"sem3.M", "b2 01 05 0a 01 2f 12 00"},
    /* unknown LEN fields: a message holding a group, broken, a group holding a LEN */
    {"sem3.M", "ba 06 04 0b 08 01 0c"}, {"sem3.M", "ba 06 02 08 80"}, {"sem3.M", "bb 06 0a 02 08 01 bc 06"},
    {"sem3.M", "bb 06 bc 06"}, {NULL, "0b 0c"}, {NULL, "0b 0b 0b 0c 0c 0c"},
    {NULL, "0b 13 1b 1c 14 0c"}, {NULL, "0a 04 0a 02 0a 00"}, {NULL, "0a 06 0a 04 0a 02 08 01"},
    {NULL, "0c"}, {"sem2.M", "3c"}, {NULL, "0b 0c 0c"}, {NULL, "0b 14"},
    {NULL, "f8 ff ff ff 0f 01"}, {"sem3.M", "f8 ff ff ff 0f 01"}, {"sem3.M", "0d 01 00 00 00"},
    {"sem3.M", "fa 01 03 01 05 02"}, {"sem3.M", "f8 01 07"},
    /* sem2: groups in parts, a group with an unknown field, a group as LEN,
     * an extension in parts or broken, strings unchecked, required */
    {"sem2.M", "3b 40 01 3c 3b 40 02 3c"}, {"sem2.M", "3b 48 05 3c"}, {"sem2.M", "3a 02 40 01"},
    {"sem2.M", "3b 40 00 3c"}, {"sem2.M", "3b 40 01 3c 3b 40 80 3c"}, {"sem2.M", "3b 44 3c"},
    {"sem2.M", "aa 06 02 08 01 aa 06 02 10 05"}, {"sem2.M", "aa 06 01 80"}, {"sem2.M", "6a 01 ff"},
    {"sem2.M", "58 00"}, {"sem2.M", "1a 02 68 69 60 02 10 07"}, {"sem2.M", "32 02 08 00"},
    {"sem2.M", "32 00"}, {"sem2.M", "20 05 20 01"}, {"sem2.M", "28 05"}, {"sem2.M", "2a 01 05"},
    {"sem2.M", "a0 06 05 a0 06 00"}, {"sem2.M", "aa 06 00"}, {"sem2.M", "ab 06 ac 06"},
    {"sem2.M", "0d 05 00 00 00 55 00 00 c0 7f"},
    {"sem2.WithMap", "0a 04 08 01 10 07 0a 04 08 01 10 01"},
    {"sem2.WithMap", "0a 04 08 01 10 01 0a 04 08 01 10 07"}, {"sem2.WithMap", "0a 02 10 07"},
    {"sem2.WithMap", "0a 06 08 01 10 07 18 01"},
    /* found by random_differential: a packed closed enum with a value the
     * schema does not know, read when the message's field slots are full:
     * the values after it were lost (lib/canon/canon.c add_packed keeps a Slot
     * pointer across add_scalar, which may grow the slots array).  With 4
     * slots at first (5e5f514) the 4th field; with 16 (3c02681) the 16th:
     * 14 unknown fields, then rk packed [8 (unknown), 0]. */
    {"sem2.M", "08 00 10 00 20 00 2a 02 08 00"}, {"sem2.M", "08 00 10 00 20 00 2a 03 01 09 02"},
    {"sem2.M", "08 00 55 00 00 00 00 58 00 2a 03 00 08 00"},
    {"sem2.M", "08 00 10 00 20 00 2a 0a 08 01 09 02 0a 00 0b 01 0c 02"},
    {"sem2.M", "08 00 78 00 80 01 00 88 01 00 90 01 00 98 01 00 a0 01 00 a8 01 00 b0 01 00 b8 01 00"
               " c0 01 00 c8 01 00 d0 01 00 d8 01 00 e0 01 00 2a 02 08 00"},
    {"sem2.M", "08 00 78 00 80 01 00 88 01 00 90 01 00 98 01 00 a0 01 00 a8 01 00 b0 01 00 b8 01 00"
               " c0 01 00 c8 01 00 d0 01 00 d8 01 00 e0 01 00 2a 05 08 00 01 09 02"},
    /* found by random_differential: pbd_Canon_Validate checks each part of
     * a singular message on its own, so the index of a repeated field in an
     * error path starts again at 0 in a later part (tree and Canon_Hash:
     * graph.output[1]) */
    {"onnx.ModelProto", "3a 02 62 00 3a 03 62 01 08"},
    {"onnx.ModelProto", "3a 04 62 00 62 00 3a 03 62 01 08"},
    {"onnx.ModelProto", "3a 02 62 00 3a 04 62 02 08 00"},
    /* onnx */
    {"onnx.ModelProto", "08 07 3a 02 0a 00"}, {"onnx.ModelProto", "3a 06 0a 04 0a 02 61 62"},
    {"onnx.ModelProto", "3a 04 2a 02 08 01 3a 04 2a 02 10 01"},
    /* the fast path's own reader (lib/canon/canon_fast.c): tags of one and
     * two bytes read there, others (overlong, or with nothing after) the
     * long way; values by kind; packed runs checked as they are read */
    {"sem3.M", "88 80 00 05"}, {"sem3.M", "88 00 05"}, {"sem3.M", "08 05 88 80 80 00 06"},
    {"sem3.M", "08 05 10"}, {"sem3.M", "08 05 98 01"}, {"sem3.M", "98"}, {"sem3.M", "08"},
    {"sem3.M", "52 81 80 80 80 00 61"}, {"sem3.M", "52 81 80 80 80 80 00 61"},
    {"sem3.M", "52 05 61"}, {"sem3.M", "4d 00 00 80"}, {"sem3.M", "49 00 00 00 00 00 00 f0"},
    {"sem3.M", "c2 01 06 00 00 80 3f 00 00"}, {"sem3.M", "72 02 01 80"},
    {"sem3.M", "72 0c 96 01 ff ff ff ff ff ff ff ff ff 01"},
    {"sem3.M", "72 0b ff ff ff ff ff ff ff ff ff ff 01"},
    {"sem3.M", "ea 01 10 00 00 00 00 00 00 f0 3f 00 00 00 00 00 00 00 40"},
    {"sem3.M", "ea 01 0c 00 00 00 00 00 00 f0 3f 00 00 00 00"},
    {"sem3.M", "92 02 08 ff ff ff ff 01 00 00 00"}, {"sem3.M", "08 01 72 00 10 02"},
    {"sem3.M", "72 41 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01"}, {"sem3.M", "70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01"}, {"sem3.M", "10 02 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 70 01 08 01"},
    {"sem2.M", "2a 03 01 02 00 2a 01 01"}, {"sem2.M", "2a 02 01 96 01"},
};
enum { kNumRows = sizeof kRows / sizeof kRows[0] };

#endif
