/* pbdiff CLI — what the commands share: options, the config file, schema
 * loading, reading inputs, and comparing one pair of inputs.
 *
 * Commands (cli/main.c dispatches): compare (the default), cat, hash, the
 * git external-diff form, and -r for directories.  Errors are printed as
 * one line "pbdiff: ..." to the error stream given; exit statuses are
 * diff(1)'s: 0 equal, 1 different, 2 trouble. */
#ifndef PBD_CLI_H_
#define PBD_CLI_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pbdiff/corpus/records.h"
#include "pbdiff/diff/diff.h"
#include "pbdiff/pbdiff.h"
#include "pbdiff/inputs/decode.h"
#include "pbdiff/inputs/framing.h"
#include "names.h"
#include "report/report.h"
#include "pbdiff/schema/schema.h"
#include "pbdiff/tree/tree.h"

enum { kExitEqual = 0, kExitDifferent = 1, kExitTrouble = 2 };

/* An error on its way up: the functions below fill one and return false;
 * only a command's top level prints it (pbd_CliError_Print), as one line
 * "pbdiff: MESSAGE" and, for a usage error, the --help hint. */
typedef struct {
  char msg[1600];   /* "FILE: what went wrong at byte N (in PATH)" */
  bool hint;        /* a usage error: follow with "Try '... --help'" */
  char note[800];   /* a warning, whatever the outcome ("" for none) */
} pbd_CliError;

void pbd_CliError_Set(pbd_CliError *e, bool hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The status as "NAME: MSG at byte N (in PATH)" (name may be NULL). */
void pbd_CliError_FromStatus(pbd_CliError *e, const char *name, const pbd_Status *s);
/* Adds " (HINT)": what to do about it. */
void pbd_CliError_Hint(pbd_CliError *e, const char *hint);
/* command: "pbdiff", "pbdiff cat", ... for the hint. */
void pbd_CliError_Print(FILE *err, const pbd_CliError *e, const char *command);
/* Prints the warning, when there is one: "pbdiff: warning: ...". */
void pbd_CliError_PrintNote(FILE *err, const pbd_CliError *e);

typedef struct {
  const char **v;
  size_t n;
} pbd_StrList;

/* Input encodings (--left-format/--right-format). */
typedef enum {
  kPbd_InputFormat_Guess = 0, /* from the extension; binary otherwise */
  kPbd_InputFormat_Binary,
  kPbd_InputFormat_TextProto,
  kPbd_InputFormat_Json,
} pbd_InputFormat;

typedef struct {
  /* schema */
  pbd_StrList schemas, protos, includes;
  const char *type;
  pbd_StrList left_schemas, right_schemas; /* --left-schema/--right-schema */
  const char *left_type, *right_type;
  /* inputs */
  bool delimited;                          /* inputs are streams (--delimited, --framing) */
  pbd_Framing framing;                     /* --framing; None with delimited: varint prefixes */
  long long skip_prefix;                   /* -1: not given */
  pbd_Compression compression;             /* --input-compression; auto by default */
  pbd_InputFormat left_format, right_format;
  /* comparison */
  pbd_CompareOptions compare;              /* the library's options (schema and
                                              rules filled in per pair) */
  pbd_StrList keys, sets, ignores;
  /* --float-margin, --float-fraction SCOPE=VALUE, as given (the global
   * values are in compare.diff) */
  pbd_StrList scoped_margins, scoped_fractions;
  pbd_StrList bytes_as;                    /* --bytes-as FIELD=KIND|none, as given */
  pbd_StrList labels;                      /* -L NAME: LEFT's, then RIGHT's */
  /* output */
  bool quiet;
  pbd_ReportFormat format;
  pbd_ReportOptions report;
  const char *color;
  bool explain;
  bool summary;
  /* modes */
  const char *config;                      /* --config FILE */
  bool no_config;                          /* --no-config: no .pbdiff is read */
  bool textconv;                           /* cat --textconv: not protobuf is no error */
  bool json;                               /* cat, hash --format json */
  bool binary;                             /* cat --format binary: canonical bytes */
  bool patch;                              /* --format patch: a patch for pbdiff apply */
  const char *output;                      /* apply -o OUT */
  bool check;                              /* apply --check: write nothing */
  bool reverse;                            /* apply -R */
  const char *merge_path;                  /* merge --path NAME (git's %P) */
  const char *conflicts_file;              /* merge --conflicts FILE */
  int favor;                               /* merge --favor: a pbd_MergeFavor */
  bool sha256;                             /* hash --sha256: pbs1 */
  bool no_pager;                           /* --no-pager */
  long long max_input;                     /* --max-input-bytes; 0: 2 GiB */
  bool recursive;                          /* -r */
  const char *record_key;                  /* --record-key: records paired by key */
  size_t examples;                         /* --examples N: keys per path in --stat */
  bool noise;                              /* pbdiff noise: a .pbdiff section of what differs */
  const char *section;                     /* noise --section GLOB */
  int jobs;                                /* -j N; 0: the number of cores */
  uint64_t given[2];                       /* the options the command line gave,
                                              one bit per row of cli/options.c */
} pbd_CliOptions;

/* Which command the options are parsed for (each accepts a subset). */
typedef enum { kPbd_Cmd_Compare, kPbd_Cmd_Cat, kPbd_Cmd_Hash, kPbd_Cmd_Noise, kPbd_Cmd_Apply,
               kPbd_Cmd_Merge, kPbd_Cmd_Count } pbd_Command;

/* Parses options; exits with status 2 and a usage message on a bad one,
 * and with 0 after --help/--version.  Returns the index of the first
 * operand.  Option lists point into argv. */
int pbd_Cli_ParseOptions(int argc, char **argv, pbd_Command cmd, pbd_CliOptions *o);
void pbd_Cli_FreeOptions(pbd_CliOptions *o);
/* The usage text of a command. */
const char *pbd_Cli_Usage(pbd_Command cmd);

/* The name of `names` closest to `word` (a typo's likely meaning), or NULL
 * when none is close (cli/suggest.c). */
const char *pbd_Cli_Closest(const char *word, const char *const *names, size_t n);

/* ---- .pbdiff keys: the option table's rows that are also config keys ------- */

/* The row a key sets, or -1 for an unknown key. */
int pbd_Cli_ConfigKey(const char *key);
/* Whether the key's value names a file (relative to the config's directory). */
bool pbd_Cli_ConfigKeyIsFile(int key);
/* The key closest to a misspelt one, or NULL. */
const char *pbd_Cli_ConfigKeyClosest(const char *key);
/* "schema, proto, ..." for messages. */
const char *pbd_Cli_ConfigKeyNames(void);
/* Whether a value suits the key; false with the reason in why. */
bool pbd_Cli_CheckConfigValue(int key, const char *value, char *why, size_t n);
/* base with the config's n key = value settings applied, except those the
 * command line overrides (it gave the option, or one that replaces it: a
 * --schema replaces the config's schema, proto, proto-path and type).  The
 * result owns its lists: free it with pbd_Cli_FreeApplied. */
pbd_CliOptions pbd_Cli_ApplyConfig(const pbd_CliOptions *base, const int *keys,
                                   const char *const *values, size_t n);

/* ---- Config file (.pbdiff, git-config syntax) ----------------------------- */

typedef struct pbd_Config pbd_Config;

/* Loads the config: --config FILE when given (missing: an error), else the
 * first `.pbdiff` found walking up from the current directory (none: an
 * empty config).  NULL with the error in e when the file is malformed. */
pbd_Config *pbd_Config_Load(const pbd_CliOptions *o, pbd_CliError *e);
/* A command's top level: the config, or NULL with the error printed
 * (command: "pbdiff", "pbdiff cat", ... for the hint). */
pbd_Config *pbd_Config_LoadOrSay(const pbd_CliOptions *o, const char *command);
void pbd_Config_Free(pbd_Config *c);
/* The options for an input at `path` (as the user or git names it): `base`
 * completed by the first [file "GLOB"] section whose glob matches the path;
 * what the command line set always wins.  The result shares memory with
 * base and the config (free it with pbd_Cli_FreeApplied). */
pbd_CliOptions pbd_Config_Apply(const pbd_Config *c, const pbd_CliOptions *base, const char *path);
void pbd_Cli_FreeApplied(pbd_CliOptions *o);

/* ---- Schemas and inputs ---------------------------------------------------- */

/* A loaded schema with the type and the matching rules resolved. */
typedef struct {
  pbd_DefPool *pool;          /* NULL: schemaless */
  const pbd_MessageDef *type;
  pbd_MatchRule *rules;
  pbd_IgnoreRule *ignores;
  pbd_ToleranceRule *tolerances;
  char *tolerance_scopes;     /* the strings the tolerances' patterns point into */
  pbd_BytesView *views;       /* --bytes-as, resolved */
  pbd_DiffOptions diff;       /* the options' diff options with the rules in */
} pbd_CliSchema;

/* Builds a match rule from its command-line form: for kPbd_Match_Set the
 * full name of a repeated field ("onnx.GraphProto.node"); for
 * kPbd_Match_Key "FIELD=SUBFIELD[+SUBFIELD...]" with scalar subfields of
 * the element type (a repeated one keys by its whole list of values, as
 * ONNX nodes are known by their outputs).  Usage errors name what is wrong
 * (cli/rules.c). */
bool pbd_Cli_ParseMatchRule(const pbd_DefPool *pool, pbd_MatchKind kind, const char *spec,
                            pbd_MatchRule *rule, pbd_Status *s);
/* Turns the options' --key, --repeated-as-set, --ignore and scoped
 * tolerances into the schema's rules and diff options (out->pool and type
 * already set). */
bool pbd_Cli_ResolveRules(const pbd_CliOptions *o, pbd_CliSchema *out, pbd_Status *s);
/* Splits a scoped tolerance, "SCOPE=VALUE" (at its last '=': a scope may
 * hold key="x"), into the scope's length and the value, a number >= 0.
 * false when it is no such thing (cli/options.c). */
bool pbd_Cli_ScopedTolerance(const char *spec, size_t *scope_len, double *value);

/* Loads (or finds in a cache shared by all threads) the schema named by the
 * options (schemas, protos, includes; `side` 1/2 uses --left-/--right-schema
 * and type when given), and resolves the type and rules.  false with the
 * error in e. */
bool pbd_Cli_LoadSchema(const pbd_CliOptions *o, int side, pbd_CliSchema *out, pbd_CliError *e);
void pbd_Cli_FreeSchema(pbd_CliSchema *s);
/* Frees every cached schema (at exit). */
void pbd_Cli_ClearSchemaCache(void);

/* One parsed input: its bytes (mapped, or decoded from gzip, text format or
 * JSON) and one tree per message. */
typedef struct {
  const char *name;           /* for messages */
  const uint8_t *data;
  size_t size;
  void *owned_;               /* internal */
  void *input_;               /* internal */
  pbd_Arena *arena;
  pbd_MemBudget *budget_;     /* internal: the bound on the trees' memory */
  size_t nmsgs;
  size_t *begin, *end;        /* message spans in data */
  pbd_FramedMeta meta;        /* each message's schema id and indexes (confluent
                                 framings), else meta.records is NULL */
  pbd_Message **roots;
  const pbd_MessageDef **types; /* each record's type by its Confluent message
                                   indexes, where they name one; else NULL */
} pbd_CliInput;

/* Record i's message type: the one its Confluent message indexes name, else
 * the schema's. */
const pbd_MessageDef *pbd_Cli_RecordType(const pbd_CliInput *in, const pbd_CliSchema *schema,
                                        size_t i);
/* Record i's Kafka key (--framing confluent-keyed) in *view, returning
 * view, or NULL when it has none. */
const pbd_StrView *pbd_Cli_KafkaKey(const pbd_CliInput *in, size_t i, pbd_StrView *view);
/* A --record-key naming kafka-key for a framing that carries no keys: a
 * usage error (false, with e set). */
bool pbd_Cli_CheckKafkaKey(const pbd_CliOptions *o, const pbd_RecordKey *k, pbd_CliError *e);


/* Reads and parses an input ("-" for standard input) as `format` for the
 * schema (side 1/2: LEFT/RIGHT, whose own --left-/--right-schema files turn
 * text format into binary; 0: the shared schema).  `display` names it in
 * errors (NULL: the path).  false with the error in e. */
bool pbd_Cli_ReadInput(const pbd_CliOptions *o, const pbd_CliSchema *schema, int side,
                       const char *path, const char *display, pbd_InputFormat format,
                       const pbd_ReadOptions *topts, pbd_CliInput *in, pbd_CliError *e);
/* pbd_Cli_ReadInput for a file of a corpus (--record-key): its records'
 * spans only, and the file's pages given back as the framing cuts them
 * (pbd_Input_Release; the key pass reads them again from the page cache),
 * so that a run does not hold its inputs. */
bool pbd_Cli_ReadCorpusInput(const pbd_CliOptions *o, const pbd_CliSchema *schema,
                             const char *path, pbd_InputFormat format, pbd_CliInput *in,
                             pbd_CliError *e);
void pbd_Cli_FreeInput(pbd_CliInput *in);
/* pbd_Input_Release for in's bytes [begin, end), where they are the file's
 * own (mapped, not inflated or decoded from text). */
void pbd_Cli_ReleaseInput(const pbd_CliInput *in, size_t begin, size_t end);
/* For a pass over in's bytes that will not come back: gives back
 * [*from, upto) once it is 4 MiB or more (few calls, each of many pages),
 * and moves *from to upto. */
void pbd_Cli_ReleaseBehind(const pbd_CliInput *in, size_t *from, size_t upto);

/* Compares LEFT and RIGHT with the options (config already applied) and
 * writes the report to out.  lname/rname are the names shown (NULL: the
 * paths).  Returns 0, 1 or 2 (with the error in e). */
int pbd_Cli_ComparePair(const pbd_CliOptions *o, const char *lpath, const char *rpath,
                        const char *lname, const char *rname, FILE *out, pbd_CliError *e);

/* ---- The pager (cli/pager.c) ----------------------------------------------------- */

/* Sends standard output through $PBDIFF_PAGER, $PAGER or `less` (with
 * LESS=FRX when unset) when it is a terminal, the report is text and
 * neither --no-pager nor -q is given; pbd_Cli_EndPager waits for it. */
void pbd_Cli_StartPager(const pbd_CliOptions *o);
void pbd_Cli_EndPager(void);

/* ---- Commands (each in its own file) ---------------------------------------- */

/* Text inputs (text format, JSON): false with "NAME: line N: a merge
 * conflict marker ..." when a line opens a git conflict (cli/conflict.c). */
bool pbd_Cli_NoConflictMarkers(const char *name, const uint8_t *data, size_t size, pbd_CliError *e);

/* pbdiff --format patch LEFT RIGHT: the patch from LEFT to RIGHT on out
 * (cli/commands/patch.c).  Returns 0 (no hunk), 1 or 2 (with the error in e). */
int pbd_Cli_PatchPair(const pbd_CliOptions *o, const char *lpath, const char *rpath, FILE *out,
                      pbd_CliError *e);
/* pbdiff apply [OPTIONS] PATCH FILE (cli/commands/patch.c); argv[0] is "apply". */
int pbd_Cli_Apply(int argc, char **argv);
/* pbdiff merge [OPTIONS] BASE OURS THEIRS (cli/commands/merge.c); argv[0] is "merge". */
int pbd_Cli_Merge(int argc, char **argv);
/* Writes data to path through a temporary file beside it, renamed over it
 * (path's mode kept); false with the error in e (cli/commands/patch.c). */
bool pbd_Cli_WriteAtomic(const char *path, const char *data, size_t n, pbd_CliError *e);
/* pbdiff cat [OPTIONS] FILE (cli/commands/cat.c); argv[0] is "cat". */
int pbd_Cli_Cat(int argc, char **argv);
/* Writes messages in cat's canonical text form to out (with delimited, each
 * after its `# message N` line, with the record's metadata from meta when
 * not NULL), or with json one line of the JSON mapping each (cat
 * --format json); the Python module's pbdiff.cat too.  1 when written, 0
 * when writing failed, -1 when out of memory. */
int pbd_Cli_CatWrite(FILE *out, pbd_Message *const *roots, size_t n, bool delimited,
                     const pbd_FramedMeta *meta, bool float_bits, bool json);
/* pbdiff hash [OPTIONS] FILE... (cli/commands/hash.c); argv[0] is "hash". */
int pbd_Cli_Hash(int argc, char **argv);
/* git's external-diff form: args are PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE
 * NEW-HEX NEW-MODE (cli/commands/git.c).  cfg NULL: the .pbdiff did not load,
 * for the reason in config_error, which is shown as a file that cannot be
 * read is (git goes on). */
int pbd_Cli_GitDriver(const pbd_CliOptions *o, const pbd_Config *cfg,
                      const pbd_CliError *config_error, char **args);
/* Whether a git external-diff operand reads as an object id or a file mode
 * ("." for a side that is not there). */
bool pbd_Cli_GitIdOrGone(const char *s);
bool pbd_Cli_GitModeOrGone(const char *s);
/* "a" + "/" + "b", malloc'd (no slash added after an empty a or one ending
 * in '/'); NULL when out of memory. */
char *pbd_Cli_JoinPath(const char *a, const char *b);
/* The regular files under root as paths relative to it, in byte order (a
 * malloc'd array of malloc'd strings); as -r walks a tree.  Returns 0, 1
 * when a subdirectory could not be read, 2 when root could not (each error
 * printed). */
int pbd_Cli_ListFiles(const char *root, char ***paths, size_t *n);
/* pbdiff [-r] --record-key KEY LEFT RIGHT, and pbdiff noise RUN1 RUN2: two
 * corpora (files or, with -r, directories of files; each file one record,
 * or a stream of records with --framing) compared record by record, paired
 * by key (cli/commands/records.c).  Returns 0, 1 or 2 (with the error in e). */
int pbd_Cli_CompareRecords(const pbd_CliOptions *o, const char *left, const char *right,
                           pbd_CliError *e);
/* pbdiff -r DIR1 DIR2 (cli/commands/dirs.c). */
int pbd_Cli_CompareDirs(const pbd_CliOptions *o, const pbd_Config *cfg, const char *dir1,
                        const char *dir2);

/* --key fields whose keys name nothing (cli/key_warnings.c): a
 * pbd_DiffOptions key_trouble that sums the counts per keyed field, safe
 * from several threads, and the warnings, one line per field, written at
 * the end of the run (then the counts start again). */
void pbd_Cli_KeyTrouble(void *ctx, const pbd_MatchRule *rule, size_t left_empty,
                        size_t right_empty, size_t repeated);
void pbd_Cli_PrintKeyWarnings(FILE *err);

/* Makes room for element n of a malloc'd array of n elements (*array),
 * doubling it at powers of two, so that n appends cost O(n) whatever the
 * allocator (a .pbdiff of 700 000 ignore lines).  false when out of memory
 * (the array is as it was). */
bool pbd_Cli_RoomFor(void *array, size_t n, size_t elem);

#endif
