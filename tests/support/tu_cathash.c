/* pbdiff tests — what the suites of `pbdiff cat` and `pbdiff hash` share
 * (tu_cathash.h). */
#include "tu_cathash.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tu_cli.h"

/* `pbdiff cat OPTS FILE`, which must succeed; its output (malloc'd). */
char *tu_cat_of(const char *opts, const char *file) {
  const Run *r = PB("cat %s %s", opts, file);
  ck_assert_msg(r->rc == 0 && r->err[0] == '\0', "cat %s %s: status %d, stderr [%s]", opts,
                file, r->rc, r->err);
  return strdup(r->out);
}

/* The fingerprint `pbdiff hash OPTS FILE` prints (malloc'd "pbh1:<32 hex>"),
 * checking the line's form. */
char *tu_hash_of(const char *opts, const char *file) {
  const Run *r = PB("hash %s %s", opts, file);
  ck_assert_msg(r->rc == 0 && r->err[0] == '\0', "hash %s %s: status %d, stderr [%s]", opts,
                file, r->rc, r->err);
  size_t n = strlen(r->out);
  ck_assert_msg(n == 37 + 2 + strlen(file) + 1 && strncmp(r->out, "pbh1:", 5) == 0 &&
                    strspn(r->out + 5, "0123456789abcdef") == 32 && r->out[37] == ' ' &&
                    r->out[38] == ' ' && strncmp(r->out + 39, file, strlen(file)) == 0 &&
                    r->out[n - 1] == '\n',
                "bad fingerprint line [%s]", r->out);
  return strndup(r->out, 37);
}
