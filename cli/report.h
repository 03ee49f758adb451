/* pbdiff CLI — reporters: turn edits into text or JSON on an output stream.
 * They know the tree's values (lib/format.h), never the wire format. */
#ifndef PBD_CLI_REPORT_H_
#define PBD_CLI_REPORT_H_

#include <stdbool.h>
#include <stdio.h>

#include "diff.h"

typedef enum { kPbd_Report_Text, kPbd_Report_Json } pbd_ReportFormat;

typedef struct pbd_Reporter pbd_Reporter;

/* A reporter writing to `out` (not closed by the reporter).  NULL when out
 * of memory. */
pbd_Reporter *pbd_Reporter_New(pbd_ReportFormat fmt, FILE *out);
/* A pbd_EditFunc: pass the reporter as ctx.  Writes one difference.
 *   text: `PATH: LEFT -> RIGHT` for changed; `PATH: added RIGHT`,
 *         `PATH: removed LEFT`; presence: `PATH: unset -> set to VALUE`
 *         or `PATH: set to VALUE -> unset` (values in text-format syntax,
 *         messages on one line, strings and bytes cut at 64 bytes with their
 *         size noted).
 *   json: collected and written by pbd_Reporter_Finish. */
int pbd_Reporter_Edit(void *reporter, const pbd_Edit *e);
/* Ends the report: JSON writes {"equal": ..., "differences": [...]} with a
 * newline; text writes nothing more.  Returns false when writing failed. */
bool pbd_Reporter_Finish(pbd_Reporter *r, bool equal);
void pbd_Reporter_Free(pbd_Reporter *r);

#endif
