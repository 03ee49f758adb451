/* pbdiff CLI — the notes on Confluent record metadata (cli/record_notes.c):
 * a schema id, message-index list, value presence or Kafka key that differs
 * between two paired records is not a difference (docs/semantics.md rule
 * 14) but is said, once per distinct change with the number of records it
 * holds for (`note: schema id 7 -> 8 in 1000 records`), whether the records
 * were paired by position (cli/commands/compare.c) or by --record-key
 * (cli/commands/records.c). */
#ifndef PBD_CLI_RECORD_NOTES_H_
#define PBD_CLI_RECORD_NOTES_H_

#include <stdbool.h>
#include <stddef.h>

#include "pbdiff/core/base.h"
#include "pbdiff/inputs/framing.h"

typedef struct pbd_RecordNotes pbd_RecordNotes;

/* An empty collection, or NULL when out of memory. */
pbd_RecordNotes *pbd_RecordNotes_New(void);
void pbd_RecordNotes_Free(pbd_RecordNotes *n);

/* Counts the change between record i of l and record j of r, a pair the
 * comparison made (nothing when their metadata are the same or either
 * side's framing carries none: pbd_RecordMeta_Differ).  `where` names the
 * pair as the report does, without the brackets ("1", "1->2", `id="x"`);
 * the first pair of each kind is kept.  Two changes are one kind when they
 * read the same.  false when out of memory (then every later call fails
 * too). */
bool pbd_RecordNotes_Add(pbd_RecordNotes *n, const pbd_FramedMeta *l, size_t i,
                         const pbd_FramedMeta *r, size_t j, const char *where);

/* Whether any change was counted. */
bool pbd_RecordNotes_Any(const pbd_RecordNotes *n);

/* The notes: `text` gets one line per kind of change, the most frequent
 * first (ties by their text), at most max_lines of them (0: all) and then
 * `note: and K more kinds of record metadata change`.  A kind of one pair
 * names it (`note: [1->2]: schema id 7 -> 8`), a kind of more counts them
 * (`note: schema id 7 -> 8 in 1000 records`: the same lines whether the
 * records were paired by position or by key).  `json` gets the JSON
 * report's members for the same (`"schema_changes": [...]` and, when lines
 * were left out, `, "schema_changes_omitted": K`, docs/json-format.md).
 * Either may be NULL.  false when out of memory. */
bool pbd_RecordNotes_Write(const pbd_RecordNotes *n, size_t max_lines, pbd_Buf *text,
                           pbd_Buf *json);

#endif
