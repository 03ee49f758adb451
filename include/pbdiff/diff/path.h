/* pbdiff — where a difference is: a path of segments from the root message.
 *
 * The walk pushes a segment as it steps into a field, an element, a map
 * entry or an Any's payload, and pops it on the way out; it writes no text.
 * Reporters render a path (or part of it) with pbd_Path_Format in the syntax
 * of docs/json-format.md:
 *
 *   graph.node[3].op_type     fields, and a repeated element by index
 *   labels["k"]  m[5]         a map entry by key
 *   attribute[name="x"]       a repeated element matched by --key
 *   ext.[pkg.ext_field]       an extension
 *   any.[type.googleapis.com/pkg.T].a   an Any's payload
 *   7[0].1[0]                 unknown fields, by number
 *   [id="r-1042"].price       a record of a corpus, by --record-key
 *
 * --ignore patterns are matched against that rendering
 * (pbd_Path_PatternMatches). */
#ifndef PBD_DIFF_PATH_H_
#define PBD_DIFF_PATH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"
#include "pbdiff/tree/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kPbd_Seg_Field,      /* a field: its name, or its number when unknown */
  kPbd_Seg_Extension,  /* an extension field: [full.name] */
  kPbd_Seg_Index,      /* a repeated element, or a message of a stream: [3] */
  kPbd_Seg_MapKey,     /* a map entry: ["a"], [5], [true] */
  kPbd_Seg_ElementKey, /* a repeated element named by its key fields: [name="x"] */
  kPbd_Seg_Any,        /* an Any's unpacked payload: [type.googleapis.com/pkg.T] */
  kPbd_Seg_RecordKey,  /* a record of a corpus named by its key (--record-key):
                          [id="r-1042"]; key_text holds `id="r-1042"` */
} pbd_PathSegKind;

typedef struct {
  pbd_PathSegKind kind;
  uint32_t number;               /* Field, Extension: field number; Index: the index
                                    (in LEFT for an element on both sides) */
  uint32_t right_number;         /* Index, when paired: the element's index in RIGHT */
  bool paired;
  const pbd_FieldDef *field;     /* Field, Extension: the field (NULL when unknown) */
  pbd_Value key;                 /* MapKey: the entry's key */
  const pbd_FieldDef *const *key_fields; /* ElementKey: the key fields ... */
  size_t key_count;
  const pbd_Message *element;    /* ... and the element holding their values */
  uint32_t occurrence;           /* ElementKey: where its key repeats on its side, the
                                    element's place among those with it (0 the first):
                                    `[name="x"#2]` for the second (pbd_Path_AppendOccurrence) */
  pbd_StrView type_url;          /* Any */
  pbd_StrView key_text;          /* RecordKey */
} pbd_PathSeg;

/* A message on the way along a path, as the walk sees it when it hands out
 * an edit: the first
 * path_count segments of the edit's path lead to it (the root message
 * has 0; an Any's payload counts as a message of its own), and left and
 * right are its two sides.  Reporters that show what did not change
 * (how many fields or elements a message holds beside the differing
 * ones) read them. */
typedef struct {
  size_t path_count;
  const pbd_Message *left, *right;
} pbd_PathFrame;

typedef struct {
  pbd_PathSeg *segs;
  size_t count, cap;
  bool oom;                      /* a push failed; the path is incomplete */
  /* The messages the path goes through, outermost first: set by the walk
   * for the edits it hands out (valid during the callback); none
   * (frame_count 0) on a path that another made, as a corpus's whole
   * record added. */
  const pbd_PathFrame *frames;
  size_t frame_count;
} pbd_Path;

/* Appends a segment; on allocation failure sets p->oom and returns false. */
bool pbd_Path_Push(pbd_Path *p, const pbd_PathSeg *seg);
void pbd_Path_Truncate(pbd_Path *p, size_t count);
void pbd_Path_Free(pbd_Path *p);

/* The mark of the occurrence-th (from 0) of several elements or records
 * that share one key: nothing for the first, `#2` for the second, as keyed
 * elements (`node[name="x"#2]`) and --record-key's records
 * (`[id="r-1"#2]`) are numbered. */
void pbd_Path_AppendOccurrence(pbd_Buf *out, size_t occurrence);

/* Appends segments [begin, end) of p to out as they read in the whole path:
 * Format(0, k) followed by Format(k, n) is Format(0, n), so a named segment
 * after the first keeps its leading dot (`graph.node[0]` + `.op_type`). */
void pbd_Path_Format(pbd_Buf *out, const pbd_Path *p, size_t begin, size_t end);
/* The same, but an element at another index in RIGHT reads `[2->3]` (for
 * people; paths in JSON and patterns keep LEFT's index alone). */
void pbd_Path_FormatBothIndices(pbd_Buf *out, const pbd_Path *p, size_t begin, size_t end);

/* Whether a path pattern matches a whole path written by pbd_Path_Format:
 * `*` stands for one field name, `[*]` for any index, key or bracketed name
 * (`graph.node[*].name`). */
bool pbd_Path_PatternMatches(const char *pattern, const char *path_text);

/* Many patterns matched at once (lib/diff/pattern_set.c): literal ones and
 * those whose only wildcards are `[*]` are found by hashing, so a path is
 * matched against hundreds of thousands of patterns in the time of one;
 * others are tried in turn.  The patterns (NULL entries skipped) must
 * outlive the set.  NULL when out of memory. */
typedef struct pbd_PatternSet pbd_PatternSet;
pbd_PatternSet *pbd_PatternSet_New(const char *const *patterns, size_t n);
void pbd_PatternSet_Free(pbd_PatternSet *s);
/* Whether one of the patterns matches the whole path text; scratch is
 * working memory (the path with its brackets starred). */
bool pbd_PatternSet_Matches(const pbd_PatternSet *s, const char *path_text, pbd_Buf *scratch);

#ifdef __cplusplus
}
#endif
#endif
