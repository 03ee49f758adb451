/* pbdiff CLI — "did you mean ...?": the closest of some names to a word
 * that names nothing, by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each cost one). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Optimal string alignment distance, capped: anything at or over `cap` is cap. */
static size_t distance(const char *a, const char *b, size_t cap) {
  size_t n = strlen(a), m = strlen(b);
  if ((n > m ? n - m : m - n) >= cap) return cap;
  size_t *rows = calloc(3 * (m + 1), sizeof *rows); /* two rows back, one back, this one */
  if (!rows) return cap;
  size_t *prev2 = rows, *prev = rows + (m + 1), *cur = prev + (m + 1);
  for (size_t j = 0; j <= m; j++) prev[j] = j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t d = prev[j - 1] + cost;
      if (prev[j] + 1 < d) d = prev[j] + 1;
      if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
        d = prev2[j - 2] + 1;
      cur[j] = d;
    }
    size_t *t = prev2;
    prev2 = prev, prev = cur, cur = t;
  }
  size_t d = prev[m];
  free(rows);
  return d < cap ? d : cap;
}

const char *pbd_Cli_Closest(const char *word, const char *const *names, size_t n) {
  /* a name further than about a third of the word away is no suggestion */
  size_t cap = strlen(word) / 3 + 2, best = cap;
  const char *found = NULL;
  for (size_t i = 0; i < n; i++) {
    if (!names[i]) continue;
    size_t d = distance(word, names[i], best);
    if (d < best) best = d, found = names[i];
  }
  return found;
}
