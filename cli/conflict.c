/* pbdiff CLI — text inputs (text format, JSON) that a merge left with git's
 * conflict markers.  protoc would say `Expected identifier, got: <` and the
 * JSON reader an unexpected character; the user needs to hear that the file
 * is in the middle of a merge.  A line starting with seven `<` and then a
 * space or its end is never text format (seven message openings in a row
 * name no field) nor JSON (a line cannot start inside a string), so the
 * check cannot misread a valid input. */
#include <string.h>

#include "cli.h"

static const char kOurs[] = "<<<<<<<";

/* Whether the line at p (n bytes to the input's end) opens a conflict. */
static bool conflict_line(const uint8_t *p, size_t n) {
  size_t k = sizeof kOurs - 1;
  if (n < k || memcmp(p, kOurs, k) != 0) return false;
  return n == k || p[k] == ' ' || p[k] == '\n' || p[k] == '\r';
}

bool pbd_Cli_NoConflictMarkers(const char *name, const uint8_t *data, size_t size, pbd_CliError *e) {
  unsigned line = 1;
  for (size_t i = 0; i < size;) {
    if (conflict_line(data + i, size - i)) {
      pbd_CliError_Set(e, false,
                       "%s: line %u: holds git merge conflict markers (<<<<<<<); resolve the "
                       "merge first",
                       pbd_Cli_Name(name, (char[1024]){0}, 1024), line);
      return false;
    }
    const uint8_t *nl = memchr(data + i, '\n', size - i);
    if (!nl) break;
    i = (size_t)(nl - data) + 1;
    line++;
  }
  return true;
}
