/* pbdiff tests — hand-made values, field and message defs, messages and edits
 * shared by the suites of the text and JSON writers (tests/unit/format) and
 * of the reporters (tests/cli/check_report_*.c, check_reporters.c).  No
 * schema is loaded: the defs are filled in by hand (tu_values.c). */
#ifndef PBD_TU_VALUES_H_
#define PBD_TU_VALUES_H_

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "pbdiff/diff/diff.h"
#include "pbdiff/format/format.h"
#include "testutil.h"
#include "pbdiff/tree/tree.h"

/* ---- values ---- */
pbd_Value mk_u(pbd_ValueKind k, uint64_t u, const pbd_FieldDef *f);
pbd_Value mk_i(pbd_ValueKind k, int64_t i, const pbd_FieldDef *f);
pbd_Value mk_s(pbd_ValueKind k, const char *data, size_t n);
pbd_Value mk_m(pbd_ValueKind k, const pbd_Message *m);
#define S(lit) mk_s(kPbd_Value_String, lit, sizeof(lit) - 1)
#define B(lit) mk_s(kPbd_Value_Bytes, lit, sizeof(lit) - 1)
uint64_t fbits(float f);  /* a float's bits, as a Float value holds them */
uint64_t dbits(double d);
pbd_Value I(int64_t i);   /* an int32 of fd_i32 */
pbd_Value Str(const char *s);
pbd_Value Msg(const pbd_Message *m);
pbd_Value None(void);     /* the missing side of an edit */

/* ---- the text format and JSON of a value (malloc'd) ---- */
/* The buffer's text, handed over ("" when empty); fails the test when it ran
 * out of memory. */
char *take(pbd_Buf *b);
char *text_of(const pbd_Value *v, size_t max_bytes, bool multiline, int indent);
char *json_of(const pbd_Value *v);
#define CHECK_TEXT_OPT(v, max, ml, ind, expected) \
  do {                                            \
    pbd_Value v_ = (v);                           \
    char *s_ = text_of(&v_, max, ml, ind);        \
    ck_assert_str_eq(s_, expected);               \
    free(s_);                                     \
  } while (0)
#define CHECK_TEXT(v, expected) CHECK_TEXT_OPT(v, 0, false, 0, expected)
#define CHECK_JSON(v, expected)  \
  do {                           \
    pbd_Value v_ = (v);          \
    char *s_ = json_of(&v_);     \
    ck_assert_str_eq(s_, expected); \
    free(s_);                    \
  } while (0)

/* ---- defs: scalar fields 1..8 (i32, i64, u32, u64, s64 sint64, f64 fixed64,
 * sf64 sfixed64, f32 fixed32), 9 color (enum t.Color: RED 0, GREEN 1,
 * MINUS -1); a message's parent types for edits ---- */
extern pbd_FieldDef fd_i32, fd_i64, fd_u32, fd_u64, fd_s64, fd_f64, fd_sf64, fd_f32, fd_color;
/* of main_msg: string name = 1; repeated int32 ids = 2; t.Sub sub_msg = 3 */
extern pbd_FieldDef fd_name, fd_ids, fd_sub;
/* the value field of a map<string, int32> entry */
extern pbd_FieldDef fd_value;
extern pbd_MessageDef md_model, md_graph, md_node, md_rec;

/* ---- messages ----
 *   sub_msg   { a: 1 }
 *   unk_sub   the unknown sub-message { 1: 7 }
 *   main_msg  name "x", ids [1, 2], sub_msg { a: 1 }, unknown 5 (varint 3,
 *             then a LEN message), extension t.ext = 9
 *   map_msg   labels {"a": 1, "b\"": 2}, counts {-5: 10}
 *   any_msg   an Any of type.googleapis.com/t.Sub holding sub_msg */
extern pbd_Message sub_msg, unk_sub, main_msg, map_msg, any_msg;

/* ---- edits ---- */
pbd_Edit E(pbd_EditKind k, const char *path, size_t plen, const pbd_MessageDef *parent,
           pbd_Value l, pbd_Value r);
/* A moved element (values I(7) on both sides). */
pbd_Edit Moved(const char *path, size_t plen, const pbd_MessageDef *parent, int64_t li,
               int64_t ri);

/* Fills g_kinds with one edit of every kind, under a header (g, t.Node) and
 * at the root (t.Model); returns how many. */
extern pbd_Edit g_kinds[8];
size_t kinds_edits(void);

#define N(a) (sizeof(a) / sizeof *(a))

/* The report of edits by a new reporter (tu_report) is exactly `expected`. */
#define CHECK_REPORT(fmt, opts, edits, n, equal, expected) \
  do {                                                     \
    char *t_ = tu_report(fmt, opts, edits, n, equal);      \
    ck_assert_str_eq(t_, expected);                        \
    free(t_);                                              \
  } while (0)

#endif
