/* pbdiff — the walk's state and steps shared by its files: diff.c walks
 * messages and fields, diff_match.c pairs the elements of repeated fields
 * matched as sets or by key and the entries of maps.  Internal to lib/diff. */
#ifndef PBD_DIFF_WALK_H_
#define PBD_DIFF_WALK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/tree/tree.h"

/* Elements of a keyed field whose keys name nothing (empty, or repeated
 * within a side), aligned as a sequence among themselves (diff_match.c):
 * the sequence walks sub-fields of them, and at path depth `at` their
 * segments name each element by its key and occurrence, and the edits
 * carry its index in the whole field. */
typedef struct {
  size_t at;                     /* the path depth of the elements' segments */
  const pbd_MatchRule *rule;
  const pbd_Field *l, *r;        /* the whole fields */
  const uint32_t *lmap, *rmap;   /* a sub-field's index -> the whole field's */
  const uint32_t *locc, *rocc;   /* the whole field's index -> its occurrence */
} dw_Subset;

typedef struct {
  const pbd_DiffOptions *o;
  pbd_EditFunc *fn;
  void *ctx;
  size_t n;
  pbd_Path path;                  /* where the walk is */
  size_t parent_count;            /* segments of the message being walked */
  const pbd_MessageDef *parent;   /* and its type */
  bool fuzzy;                     /* tolerance, ignores or partial in force */
  bool patterns;                  /* some --ignore rule is a path pattern */
  bool stream;                    /* a stream's messages: patterns also match below each */
  bool tolerance_patterns;        /* some tolerance rule is a path pattern */
  pbd_Buf text;                   /* the path as text, to match patterns */
  pbd_PatternSet *ignore_set;     /* the --ignore patterns, indexed */
  pbd_Buf starred;                /* working memory of ignore_set */
  const pbd_FieldDef **ignored_fields; /* the --ignore fields, sorted */
  size_t nignored_fields;
  /* Walking a window of two messages (pbd_MessageWindow): an element index
   * pushed at path depth index_base_at is higher by its field's base in
   * window_fields (by the number of the field segment before it), or by
   * index_base when there are none (a stream's messages).  index_base_at is
   * SIZE_MAX when no window is walked. */
  uint32_t index_base;
  size_t index_base_at;
  const dw_Subset *subset;        /* a keyed field's leftovers being aligned, or NULL */
  const pbd_WindowField *window_fields;
  uint32_t nwindow_fields;
  pbd_PathFrame *frames;          /* the messages being walked, outermost first */
  size_t nframes, frames_cap;
  bool oom;
} Walk;

/* The absent value of an added or removed side. */
extern const pbd_Value kPbd_DiffNone;

/* diff.c: edits, paths, values. */
/* Hands one edit to the callback (indices of repeated elements, or -1). */
int dw_emit_at(Walk *w, pbd_EditKind kind, const pbd_Value *l, const pbd_Value *r, int64_t li,
               int64_t ri);
int dw_emit(Walk *w, pbd_EditKind kind, const pbd_Value *l, const pbd_Value *r);
/* Path segments: pushed on the way in, cut back to a mark on the way out.
 * An element's: LEFT's element i (dw_push_index), RIGHT's element j
 * (dw_push_right_index), a pair (dw_push_pair_index: both indices) — by
 * index, or by key where a dw_Subset is aligned. */
void dw_push_index(Walk *w, uint32_t i);
void dw_push_right_index(Walk *w, uint32_t j);
void dw_push_pair_index(Walk *w, uint32_t i, uint32_t j);
/* An element's index as paths give it (higher in a window's field). */
uint32_t dw_element_index(const Walk *w, uint32_t i);
void dw_push_map_key(Walk *w, const pbd_Value *key);
/* The current path matches an --ignore pattern. */
bool dw_path_ignored(Walk *w);
bool dw_is_message_kind(pbd_ValueKind k);
/* Whether two elements of the repeated field at the current path are equal
 * under the options (LEFT's at left_index, for scoped tolerances). */
bool dw_element_equal(Walk *w, const pbd_Value *a, const pbd_Value *b, uint32_t left_index);
/* A float or double value as a double. */
double dw_float_value(const pbd_Value *v);
/* A 128-bit key per value: equal for values equal under the options. */
pbd_Hash128 dw_element_key(const Walk *w, const pbd_Value *v);
/* Two values at the current path: messages walked, the rest compared. */
int dw_diff_values_at(Walk *w, const pbd_Value *l, const pbd_Value *r, int64_t li, int64_t ri);
int dw_diff_values(Walk *w, const pbd_Value *l, const pbd_Value *r);
/* How alike two elements of the repeated field at the current path are
 * (LEFT's at left_index, which the path takes when tolerances are scoped),
 * 0 to 1: scalars of one kind 1 (a replaced
 * value), messages the share of their fields that are equal (1 for two
 * empty ones).  They may be paired as one changed element from
 * kPbd_Similar (one half) up. */
double dw_similarity(Walk *w, const pbd_Value *a, const pbd_Value *b, uint32_t left_index);
extern const double kPbd_Similar;

/* Elements by key, for sorting (qsort with dw_compare_keyed: by key, then
 * index, so equal keys keep their order) and for finding the first of a key
 * (dw_first_keyed: in a sorted array of structs that start with a
 * dw_Keyed, each `size` bytes, the index of the first whose key is not
 * below `key`). */
typedef struct {
  pbd_Hash128 key;
  uint32_t index;
} dw_Keyed;
int dw_compare_keyed(const void *a, const void *b);
size_t dw_first_keyed(const void *sorted, size_t n, size_t size, pbd_Hash128 key);
/* Takes the first element of `key` not taken yet, in O(log n) however many
 * share the key: taken[first of the key] counts those taken (a zeroed
 * array of n), as the elements of a key are taken in their order.  Its
 * index, or n when none is left. */
size_t dw_take_keyed(const void *sorted, size_t n, size_t size, pbd_Hash128 key, uint32_t *taken);

/* diff_pair.c: leftovers paired by similarity, best first, within a window
 * of each other's place: l's elements li[0..nl) with r's rj[0..nr) (in
 * their order); partner[a] gets b (r's element rj[b]) or UINT32_MAX.  false
 * when out of memory. */
bool dw_pair_similar(Walk *w, const pbd_Field *l, const uint32_t *li, uint32_t nl,
                     const pbd_Field *r, const uint32_t *rj, uint32_t nr, uint32_t *partner);

/* diff.c, for diff_view.c: values equal under the options at the current
 * path; a field pushed on the path; a field left out by --ignore (by name
 * or, pushed, by pattern). */
bool dw_values_equal(Walk *w, const pbd_Value *a, const pbd_Value *b);
void dw_push_field(Walk *w, const pbd_Field *f);
bool dw_field_ignored(const Walk *w, const pbd_FieldDef *fd);

/* diff_view.c: typed views of bytes (pbd_BytesView, the ONNX preset). */
/* The view of a singular bytes field under --bytes-as, or None. */
pbd_ElemKind dv_field_view(const Walk *w, const pbd_FieldDef *fd);
/* Two values of such a field (its segment pushed) element by element; as
 * bytes, with a note, when a length is no whole number of elements. */
int dv_diff_bytes(Walk *w, const pbd_Value *l, const pbd_Value *r, pbd_ElemKind k);
/* Two onnx.TensorProto read as their elements: *lskip and *rskip get the
 * field numbers (bits) each side's elements came from, which the field
 * walk then passes over, and *at the lowest of them (where the walk
 * compares the elements, dv_diff_elements).  false: no view applies (the
 * fields are walked as they are). */
typedef struct {
  uint32_t lskip, rskip, at;
  const pbd_Message *l, *r;
} dv_TensorPair;
bool dv_tensor_pair(Walk *w, const pbd_Message *l, const pbd_Message *r, dv_TensorPair *t);
int dv_diff_tensor(Walk *w, const dv_TensorPair *t);
/* A repeated element's alignment key: a TensorProto under the preset keys
 * by its fields with its elements as typed values (so raw_data and
 * float_data of the same values key alike), anything else by its hash. */
pbd_Hash128 dv_message_key(const Walk *w, const pbd_Message *m);
/* How many elements dv_message_key reads to key m (0: it takes m's hash);
 * m is read, so that the key can then be made without reading. */
size_t dv_message_key_cost(const Walk *w, const pbd_Message *m);
/* Whether a repeated field's elements key by dv_message_key, not by their
 * hashes alone: TensorProto elements under the preset. */
bool dv_keys_by_view(const Walk *w, const pbd_FieldDef *fd);

/* diff_tolerance.c: the float margin and fraction at the current path (the
 * global ones unless a pbd_ToleranceRule covers it). */
void dw_tolerance_here(Walk *w, double *margin, double *fraction);

/* diff_seq.c: a repeated field aligned as a sequence (the default). */
int dw_diff_sequence(Walk *w, const pbd_Field *l, const pbd_Field *r);

/* diff_match.c: sets, keys, maps. */
/* A repeated element's path segment: its key under a rule, else its index. */
void dw_push_element(Walk *w, const pbd_MatchRule *rule, const pbd_Field *f, uint32_t i);
/* A repeated field matched by a rule (as a multiset or by key). */
int dw_diff_matched(Walk *w, const pbd_MatchRule *rule, const pbd_Field *l, const pbd_Field *r);
/* A map's entries paired by key. */
int dw_diff_map(Walk *w, const pbd_Field *l, const pbd_Field *r);

#endif
