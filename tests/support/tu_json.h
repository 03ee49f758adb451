/* pbdiff tests — the check of a JSON report (pbdiff --format json, the JSON
 * reporter) against docs/json-format.md, by a strict JSON parser. */
#ifndef PBD_TU_JSON_H_
#define PBD_TU_JSON_H_

#include <check.h>
#include <stddef.h>

/* NULL when text is one valid JSON report of the documented shape (keys
 * known and in order, types right); else why not.  Sets *ndiff (when not
 * NULL) to its number of differences. */
const char *tu_json_check_report(const char *text, size_t *ndiff);

#define CHECK_JSON_SHAPE(text, n_expected)                                              \
  do {                                                                                  \
    size_t n_ = (size_t)-1;                                                             \
    const char *w_ = tu_json_check_report(text, &n_);                                      \
    ck_assert_msg(w_ == NULL, "%s in:\n%s", w_, text);                                  \
    ck_assert_msg(n_ == (size_t)(n_expected), "%zu differences, want %zu", n_,          \
                  (size_t)(n_expected));                                                \
  } while (0)

#endif
