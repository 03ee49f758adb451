/* pbdiff CLI — names and messages as they are printed (cli/names.c): what
 * the commands and every reporter write a file name or an error through. */
#ifndef PBD_CLI_NAMES_H_
#define PBD_CLI_NAMES_H_

#include <stdio.h>

#include "pbdiff/core/base.h"

/* PREFIX+NAME as git quotes paths (core.quotePath): as they are, or in
 * double quotes with C escapes when they hold a control character, `"`, `\`
 * or a byte above 0x7e (prefix may be NULL).  Every file name printed goes
 * through it. */
void pbd_Cli_AppendName(pbd_Buf *b, const char *prefix, const char *name);
/* The same into out (n > 0 bytes, cut to fit), for printf; returns out. */
const char *pbd_Cli_Name(const char *name, char *out, size_t n);
/* A message as it may stand on one line of a terminal: control characters,
 * C1 controls and bytes that are not UTF-8 C-escaped, the rest as it is
 * (a quoted name in it stays as it is). */
void pbd_Cli_AppendEscaped(pbd_Buf *b, const char *text);
void pbd_Cli_PutEscaped(FILE *f, const char *text);

#endif
