/* pbdiff CLI — the option table's rows and how their values are stored
 * (internal to cli/options.c and cli/option_values.c: the table is in the
 * first, the setters it names in the second). */
#ifndef PBD_CLI_OPTIONS_TABLE_H_
#define PBD_CLI_OPTIONS_TABLE_H_

#include <stddef.h>

#include "cli.h"

typedef struct Option Option;
/* Stores arg (NULL for a flag given on the command line) into o; false
 * with a reason in why for a bad value. */
typedef bool Setter(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);

/* pbdiff noise compares as pbdiff does: it takes every comparison option. */
enum { kNoise = 1 << kPbd_Cmd_Noise, kCompare = 1 << kPbd_Cmd_Compare | kNoise,
       kCat = 1 << kPbd_Cmd_Cat, kHash = 1 << kPbd_Cmd_Hash, kApply = 1 << kPbd_Cmd_Apply,
       kMerge = 1 << kPbd_Cmd_Merge, kAll = kCompare | kCat | kHash | kApply | kMerge };

typedef enum { kSecSchema, kSecInputs, kSecComparison, kSecMatching, kSecOutput, kSecCorpus,
               kSecDirs, kSecOther, kSecCount } Section;


struct Option {
  const char *name;      /* long name */
  char short_name;       /* or 0 */
  const char *arg;       /* argument name in --help; NULL: a flag; "[=WHEN]": optional */
  unsigned commands;     /* kCompare, kCat, kHash */
  Section section;
  const char *help;      /* --help text, lines split by '\n'; NULL: not listed */
  const char *shown_as;  /* --help's name column when not "--name ARG" */
  const char *(*help_of)(void); /* help text made elsewhere (NULL: help) */
  Setter *set;
  size_t field;          /* offsetof(pbd_CliOptions, ...) for the generic setters */
  long long min, max;    /* set_count's range */
  /* .pbdiff: the key (NULL: not a key), whether its value is a file name
   * (relative to the config's directory), and the options that, given on
   * the command line, win over it (space-separated; the key's own name
   * always does). */
  const char *config_key;
  bool config_file;
  const char *yields_to;
  /* the values the argument takes, space-separated, for shell completion
   * (pbdiff --complete-values); NULL: any */
  const char *(*values)(void);
};

#define FIELD(f) offsetof(pbd_CliOptions, f)

/* The setters and value lists the rows name (cli/option_values.c). */
bool opt_set_flag(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_string(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_push(pbd_StrList *l, const char *v);
bool opt_set_list(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_count_ll(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_count_int(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_count_size(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_framing(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
const char *opt_framing_values(void);
const char *opt_input_format_values(void);
const char *opt_compression_values(void);
const char *opt_plain_format_values(void);
const char *opt_color_values(void);
const char *opt_bytes_as_values(void);
const char *opt_report_format_values(void);
bool opt_set_tolerance(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_any_scoped_above_zero(const pbd_StrList *l);
bool opt_set_input_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_label(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_report_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_compression(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_plain_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_favor(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
const char *opt_format_help(void);
bool opt_set_stat(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);
bool opt_set_color(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n);

#endif
