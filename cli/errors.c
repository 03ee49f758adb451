/* pbdiff CLI — errors on their way up to a command's top level, and the
 * one place they are printed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void pbd_CliError_Set(pbd_CliError *e, bool hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  e->hint = hint;
}

void pbd_CliError_FromStatus(pbd_CliError *e, const char *name, const pbd_Status *s) {
  char quoted[1024];
  pbd_Status_Format(s, name ? pbd_Cli_Name(name, quoted, sizeof quoted) : NULL, e->msg, sizeof e->msg);
  e->hint = false;
}

void pbd_CliError_Hint(pbd_CliError *e, const char *hint) {
  size_t n = strlen(e->msg);
  snprintf(e->msg + n, sizeof e->msg - n, " (%s)", hint);
}

void pbd_CliError_PrintNote(FILE *err, const pbd_CliError *e) {
  if (!e->note[0]) return;
  fputs("pbdiff: ", err);
  pbd_Cli_PutEscaped(err, e->note); /* one line, whatever a name in it holds */
  fputc('\n', err);
}

void pbd_CliError_Print(FILE *err, const pbd_CliError *e, const char *command) {
  fputs("pbdiff: ", err);
  pbd_Cli_PutEscaped(err, e->msg[0] ? e->msg : "failed"); /* one line, whatever a name in it holds */
  fputc('\n', err);
  if (e->hint) fprintf(err, "Try '%s --help' for more information.\n", command);
}

/* Loads descriptor sets (and .proto files among them, compiled by protoc)
 * into a new finalized pool. */
