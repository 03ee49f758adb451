/* pbdiff CLI — the warning on --key fields whose keys name nothing
 * (cli.h: pbd_Cli_KeyTrouble, pbd_Cli_PrintKeyWarnings).
 *
 * The diff aligns a keyed field's elements whose key is empty or repeats
 * as a sequence instead of pairing them by key (pbd_DiffOptions
 * key_trouble), and says so for each occurrence of the field: every
 * graph of a model, every message of a stream, every file of -r.  The
 * counts are summed here per keyed field and said once, at the end of the
 * run, on standard error: a warning about the input, not a difference, so
 * the exit status and standard output stay as they are (and -q keeps it,
 * as --record-key's duplicate keys).  The comparison of a stream may run
 * on several threads: a mutex guards the table. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
  char *rule;      /* "onnx.GraphProto.node=name" */
  char *key_name;  /* "name", or "key" for several key fields */
  size_t left_empty, right_empty, repeated;
} KeyWarning;

static pthread_mutex_t warnings_lock = PTHREAD_MUTEX_INITIALIZER;
static KeyWarning *warnings;
static size_t nwarnings;

/* The rule as --key gives it. */
static char *rule_text(const pbd_MatchRule *rule) {
  pbd_Buf b = {0};
  pbd_Buf_Printf(&b, "%s=", rule->field->full_name);
  for (size_t k = 0; k < rule->key_count; k++)
    pbd_Buf_Printf(&b, "%s%s", k ? "+" : "", rule->key[k]->name);
  if (b.oom) {
    pbd_Buf_Free(&b);
    return NULL;
  }
  return b.data; /* the buffer's own allocation, NUL-terminated */
}

void pbd_Cli_KeyTrouble(void *ctx, const pbd_MatchRule *rule, size_t left_empty,
                        size_t right_empty, size_t repeated) {
  (void)ctx;
  char *text = rule_text(rule);
  if (!text) return; /* out of memory: the warning is lost, the comparison is not */
  pthread_mutex_lock(&warnings_lock);
  KeyWarning *w = NULL;
  for (size_t i = 0; i < nwarnings && !w; i++)
    if (!strcmp(warnings[i].rule, text)) w = &warnings[i];
  if (!w && pbd_Cli_RoomFor(&warnings, nwarnings, sizeof *warnings)) {
    w = &warnings[nwarnings++];
    *w = (KeyWarning){text, strdup(rule->key_count == 1 ? rule->key[0]->name : "key"), 0, 0, 0};
    text = NULL;
  }
  if (w) {
    w->left_empty += left_empty;
    w->right_empty += right_empty;
    w->repeated += repeated;
  }
  pthread_mutex_unlock(&warnings_lock);
  free(text);
}

void pbd_Cli_PrintKeyWarnings(FILE *err) {
  pthread_mutex_lock(&warnings_lock);
  for (size_t i = 0; i < nwarnings; i++) {
    const KeyWarning *w = &warnings[i];
    fprintf(err, "pbdiff: warning: --key %s: ", w->rule);
    if (w->left_empty || w->right_empty)
      fprintf(err, "%zu element%s of LEFT and %zu of RIGHT have an empty %s; ", w->left_empty,
              w->left_empty == 1 ? "" : "s", w->right_empty, w->key_name ? w->key_name : "key");
    if (w->repeated)
      fprintf(err, "%zu value%s of %s repeat%s; ", w->repeated, w->repeated == 1 ? "" : "s",
              w->key_name ? w->key_name : "the key", w->repeated == 1 ? "s" : "");
    fprintf(err, "those elements are aligned as a sequence, not paired by %s\n",
            w->key_name ? w->key_name : "key");
    free(w->rule);
    free(w->key_name);
  }
  free(warnings);
  warnings = NULL;
  nwarnings = 0;
  pthread_mutex_unlock(&warnings_lock);
}
