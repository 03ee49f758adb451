/* pbdiff tests — what the suites of `pbdiff cat` and `pbdiff hash`
 * (tests/cli/check_cat*.c, check_hash.c) share: running them in the sandbox
 * of tu_cli.h, and rich hand-written inputs. */
#ifndef PBD_TU_CATHASH_H_
#define PBD_TU_CATHASH_H_

/* `pbdiff cat OPTS FILE`, which must succeed; its output (malloc'd). */
char *tu_cat_of(const char *opts, const char *file);
/* The fingerprint `pbdiff hash OPTS FILE` prints (malloc'd "pbh1:<32 hex>"),
 * checking the line's form. */
char *tu_hash_of(const char *opts, const char *file);

/* "type.googleapis.com/sem3.Inner" (30 bytes) */
#define URL_INNER "74 79 70 65 2e 67 6f 6f 67 6c 65 61 70 69 73 2e 63 6f 6d 2f 73 65 6d 33 2e 49 6e 6e 65 72"

/* A rich sem3.M: every kind of field, a oneof written twice, an Any, unknown
 * fields of every wire type (99 twice, around the known fields). */
#define RICH3                                                                           \
  "08 fd ff ff ff ff ff ff ff ff 01  98 06 07  28 03  38 01  45 00 00 00 80"             \
  "49 00 00 00 00 00 00 04 40  52 08 68 c3 a9 6c 6c 6f 0a 22  5a 03 00 ff 41  60 07"     \
  "6a 0e 08 01 12 02 69 6e 1a 02 01 02 22 02 08 02"                                      \
  "72 0b 03 ff ff ff ff ff ff ff ff ff 01  7a 02 08 05  7a 00"                           \
  "82 01 05 0a 01 62 10 02  82 01 03 0a 01 61"                                           \
  "8a 01 06 08 03 12 02 08 07  8a 01 02 08 01  90 01 00  98 01 04  aa 01 02 08 09"       \
  "b2 01 24 0a 1e " URL_INNER " 12 02 08 04  ba 01 01 78  ba 01 00"                      \
  "c2 01 0c 00 00 c0 3f 00 00 00 80 00 00 c0 7f  d1 01 01 00 00 00 00 00 00 00"          \
  "f2 01 05 08 01 12 01 74  fa 01 02 01 05  85 02 00 00 00 80"                           \
  "a5 06 01 00 00 00  a9 06 02 00 00 00 00 00 00 00  b2 06 03 68 69 21  ba 06 02 08 05"  \
  "c3 06 08 01 c4 06  98 06 08"

/* A sem2.M (proto2): declared default set, closed enum values the schema does
 * not know (alone and out of a packed run), a group, extensions, a set -0.0. */
#define RICH2 "08 01 10 07 20 05 3b 40 03 3c a0 06 05 aa 06 02 08 01 55 00 00 00 80 58 00 2a 03 01 09 02"

/* An Any of sem3.Inner { a: 4 s: "y" } */
#define ANY_A "b2 01 27 0a 1e " URL_INNER " 12 05 08 04 12 01 79"

#endif
