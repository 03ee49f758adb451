/* pbdiff — sequence alignment for repeated fields.
 *
 * Elements are compared by 128-bit keys (subtree hashes, or the canonical
 * value of a scalar), so an element equals another exactly when their keys
 * are equal.  The aligner finds a longest common subsequence the way git's
 * xdiff does it in practice: common prefix and suffix trimmed first, then
 * elements unique on both sides used as anchors (patience diff), then
 * Myers' O(ND) algorithm between anchors ("An O(ND) Difference Algorithm
 * and Its Variations", 1986).  A cost bound keeps the worst case near linear:
 * a region whose edit distance passes it is left unmatched (its elements
 * are then paired by position by the caller). */
#ifndef PBD_ALIGN_H_
#define PBD_ALIGN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbdiff/core/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matched pair: element a of the first sequence equals element b of the
 * second. */
typedef struct {
  uint32_t a, b;
} pbd_AlignPair;

/* Aligns a[0,n) with b[0,m).  On success *pairs (malloc'd; free it) holds
 * the matched pairs in increasing order of both a and b, *npairs of them.
 * Returns false only when out of memory. */
bool pbd_Align_Sequences(const pbd_Hash128 *a, size_t n, const pbd_Hash128 *b, size_t m,
                         pbd_AlignPair **pairs, size_t *npairs);

/* Longest increasing subsequence of v[0,n): sets keep[i] for the members of
 * one longest one.  Used for moves: of pairs matched out of order, those
 * outside the LIS are the ones that moved.  False when out of memory. */
bool pbd_Align_LongestIncreasing(const uint32_t *v, size_t n, bool *keep);

#ifdef __cplusplus
}
#endif
#endif
