/* pbdiff — the side-by-side walk of two canonical trees.
 *
 * pbd_Diff_Run merges two trees field by field and hands each difference to
 * a callback as a pbd_Edit; it knows no output format.  Subtrees whose hashes
 * match are skipped without being walked. */
#ifndef PBD_DIFF_H_
#define PBD_DIFF_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/core/status.h"
#include "pbdiff/diff/path.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_Edit_Added,     /* only in RIGHT: `right` holds it, `left` is None */
  kPbd_Edit_Removed,   /* only in LEFT: `left` holds it, `right` is None */
  kPbd_Edit_Changed,   /* both sides hold a value and the values differ */
  kPbd_Edit_Presence,  /* one side sets a field with presence to its default,
                          the other leaves it unset (None) */
  kPbd_Edit_Moved,     /* a repeated element (matched by key or as a set) is at
                          another position: left_index -> right_index; both
                          values hold it (--report-moves) */
} pbd_EditKind;

/* "added", "removed", "changed", "presence", "moved" */
const char *pbd_EditKind_String(pbd_EditKind k);

typedef struct {
  pbd_EditKind kind;
  const pbd_Path *path; /* where: segments from the root; valid during the callback */
  /* path->segs[0, parent_count) is the path of the message that holds the
   * field (none for a field of the root), and `parent` its type (NULL
   * without a schema): reporters group edits by it. */
  size_t parent_count;
  const pbd_MessageDef *parent;
  pbd_Value left, right;
  /* Positions of a repeated element in LEFT and RIGHT (moved edits; also set
   * for added/removed/changed elements of repeated fields, else -1). */
  int64_t left_index, right_index;
} pbd_Edit;

/* Receives one edit; a non-zero return stops the walk (pbd_Diff_Run then
 * returns that value). */
typedef int pbd_EditFunc(void *ctx, const pbd_Edit *e);

/* How the elements of one repeated field are matched. */
typedef enum {
  kPbd_Match_Sequence = 0, /* aligned as sequences (the default) */
  kPbd_Match_Set,          /* a multiset: order ignored (--repeated-as-set) */
  kPbd_Match_Key,          /* matched by key subfields (--key) */
} pbd_MatchKind;

enum { kPbd_MaxKeyFields = 8 };

typedef struct {
  const pbd_FieldDef *field;   /* a repeated field */
  pbd_MatchKind kind;
  const pbd_FieldDef *key[kPbd_MaxKeyFields]; /* Key: scalar fields of the element type */
  size_t key_count;
} pbd_MatchRule;

/* A field or path to leave out of the comparison (--ignore). */
typedef struct {
  const pbd_FieldDef *field;   /* by full field name, or NULL */
  const char *pattern;         /* a path pattern ("graph.node[*].doc_string"), or NULL */
} pbd_IgnoreRule;

/* A float tolerance for part of the message (--float-margin SCOPE=X,
 * --float-fraction SCOPE=Y), as ProtoTruth's usingFloatToleranceForFields.
 * It holds for every float at or under what it names: a field, wherever it
 * occurs (its values, and every float inside a message field), or a path
 * pattern, as pbd_IgnoreRule's, that matches the float's path or a path
 * above it (`graph.initializer[*].float_data` covers float_data[7]).
 * Margin and fraction are looked up apart: each is the one of the LAST
 * rule that matches the float's path and sets it, else the global
 * float_margin or float_fraction.  A rule of 0 makes its scope exact under
 * a global tolerance. */
typedef struct {
  const pbd_FieldDef *field;   /* by full field name, or NULL */
  const char *pattern;         /* a path pattern, or NULL */
  double margin, fraction;     /* negative: this rule does not set it */
} pbd_ToleranceRule;

/* What a bytes field's bytes are read as under a typed view (--bytes-as):
 * little-endian elements of one type, as ONNX writes raw_data. */
typedef enum {
  kPbd_Elem_None = 0,
  kPbd_Elem_Float, kPbd_Elem_Double, kPbd_Elem_Float16, kPbd_Elem_BFloat16,
  kPbd_Elem_Int8, kPbd_Elem_UInt8, kPbd_Elem_Int16, kPbd_Elem_UInt16,
  kPbd_Elem_Int32, kPbd_Elem_UInt32, kPbd_Elem_Int64, kPbd_Elem_UInt64, kPbd_Elem_Bool,
} pbd_ElemKind;

/* "float", "double", "float16", "bfloat16", "int8", ... "bool" and back;
 * kPbd_Elem_None for a name that is none of them. */
const char *pbd_ElemKind_Name(pbd_ElemKind k);
pbd_ElemKind pbd_ElemKind_FromName(const char *name);
/* Bytes per element (0 for None). */
size_t pbd_ElemKind_Size(pbd_ElemKind k);
/* Whether its elements are floats (tolerances reach them). */
bool pbd_ElemKind_IsFloat(pbd_ElemKind k);

/* A typed view of a bytes field (docs/semantics.md, "Typed views of
 * bytes"): a view the user chooses, not a protobuf rule.  The field's
 * bytes compare element by element as numbers (paths `field[i]`, values
 * as floats or integers, tolerances applying to floats); a length that is
 * not a whole number of elements compares as bytes (with a note). */
typedef struct {
  const pbd_FieldDef *field;   /* a singular bytes field */
  pbd_ElemKind kind;
} pbd_BytesView;

typedef struct {
  bool float_bits;     /* compare floats by bit pattern (tolerances do not apply) */
  /* Tolerances (as MessageDifferencer's SetFractionAndMargin): two floats
   * are equal when |a-b| <= float_margin or |a-b| <= float_fraction *
   * max(|a|,|b|).  Both 0: exact (rule 10).  These are the global values;
   * `tolerances` set them for parts of the message. */
  double float_margin, float_fraction;
  const pbd_ToleranceRule *tolerances;
  size_t tolerance_count;
  bool report_moves;   /* emit moved edits for keyed and set elements */
  bool partial;        /* compare only the fields set in LEFT */
  const pbd_MatchRule *rules;
  size_t rule_count;
  const pbd_IgnoreRule *ignores;
  size_t ignore_count;
  /* Typed views of bytes fields (pbd_BytesView), and the ONNX preset: in an
   * onnx.TensorProto, raw_data read as the elements its data_type names
   * and equal to the typed field (float_data, int32_data, ...) holding the
   * same values (docs/semantics.md). */
  const pbd_BytesView *bytes_views;
  size_t bytes_view_count;
  bool onnx_tensors;
  /* Told why a view did not apply where it would have (a length that is no
   * whole number of elements): the path and the reason, one line.  NULL:
   * not told. */
  void (*view_note)(void *ctx, const char *line);
  void *view_note_ctx;
  /* Streams only (pbd_Diff_RunStream): told each pair of messages the
   * alignment pairs, equal, changed or moved (i in LEFT, j in RIGHT), so a
   * caller can compare what it keeps beside each message (a framing's
   * metadata).  NULL: not told.  pbd_Compare_Inputs also tells every (i, i)
   * when the hashes alone find the streams equal. */
  void (*stream_pair)(void *ctx, size_t i, size_t j);
  void *stream_pair_ctx;
  /* Streams only: the index of the first message passed (the messages
   * before it are not walked: pbd_Compare_Inputs leaves out the common
   * start of two streams).  Paths and stream_pair count from it. */
  size_t stream_base;
  /* --key: a key is no name when it is empty (every key field unset, or an
   * empty string or bytes) or repeats within a side.  Those elements are
   * aligned among themselves as a sequence (the default matching), not
   * paired by key, and each keyed field compared where some are tells
   * key_trouble how many: LEFT's and RIGHT's elements with an empty key,
   * and the distinct keys that repeat.  NULL: not told.  It may be called
   * from several threads at once (pbd_CompareOptions parallel). */
  void (*key_trouble)(void *ctx, const pbd_MatchRule *rule, size_t left_empty,
                      size_t right_empty, size_t repeated);
  void *key_trouble_ctx;
} pbd_DiffOptions;

/* Walks two finished trees of the same type.  Returns 0 when the walk ran
 * to the end (the number of edits is in *n_edits when not NULL), the
 * callback's non-zero value when it stopped the walk, or -1 with the status
 * set when out of memory. */
int pbd_Diff_Run(const pbd_Message *left, const pbd_Message *right, const pbd_DiffOptions *opts,
                 pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s);

/* Compares two streams of messages (--delimited): the messages are aligned
 * as the elements of a repeated field are, so one message inserted in a
 * long stream is one `added` edit.  Paths start with the message's index:
 * `[3].name`, or `[3]` for a whole message added or removed.  Returns as
 * pbd_Diff_Run. */
int pbd_Diff_RunStream(const pbd_Message *const *left, size_t nleft,
                      const pbd_Message *const *right, size_t nright, const pbd_DiffOptions *opts,
                      pbd_EditFunc *fn, void *ctx, size_t *n_edits, pbd_Status *s);

#ifdef __cplusplus
}
#endif
#endif
