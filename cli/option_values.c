/* pbdiff CLI — how the option table's values are stored: the setters its
 * rows name (cli/options_table.h), and the words some options take. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options_table.h"
#include "pbdiff/pbdiff.h"

static bool *opt_bool_at(pbd_CliOptions *o, const Option *opt) { return (bool *)((char *)o + opt->field); }

bool opt_set_flag(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  if (!arg || !*arg || !strcmp(arg, "true") || !strcmp(arg, "yes") || !strcmp(arg, "on") ||
      !strcmp(arg, "1")) {
    *opt_bool_at(o, opt) = true;
  } else if (!strcmp(arg, "false") || !strcmp(arg, "no") || !strcmp(arg, "off") || !strcmp(arg, "0")) {
    *opt_bool_at(o, opt) = false;
  } else {
    snprintf(why, n, "%s wants true or false", opt->name);
    return false;
  }
  return true;
}

bool opt_set_string(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  (void)why, (void)n;
  *(const char **)((char *)o + opt->field) = arg;
  return true;
}

bool pbd_Cli_RoomFor(void *array, size_t n, size_t elem) {
  void **p = array;
  if (n & (n - 1)) return true; /* room up to the next power of two */
  size_t cap = n ? 2 * n : 1;
  if (cap > SIZE_MAX / elem) return false;
  void *np = realloc(*p, cap * elem);
  if (!np) return false;
  *p = np;
  return true;
}

bool opt_push(pbd_StrList *l, const char *v) {
  if (!pbd_Cli_RoomFor(&l->v, l->n, sizeof *l->v)) return false;
  l->v[l->n++] = v;
  return true;
}

bool opt_set_list(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  if (opt_push((pbd_StrList *)((char *)o + opt->field), arg)) return true;
  snprintf(why, n, "out of memory");
  return false;
}

static bool opt_parse_count(const Option *opt, const char *arg, long long *v, char *why, size_t n) {
  char *end;
  *v = strtoll(arg, &end, 10);
  if (*end || end == arg || *v < opt->min || *v > opt->max) {
    snprintf(why, n, "--%s wants a number from %lld to %lld, not '%s'", opt->name, opt->min,
             opt->max, arg);
    return false;
  }
  return true;
}

/* The counts are of three C types; the row's field says which by name. */
bool opt_set_count_ll(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  return opt_parse_count(opt, arg, (long long *)((char *)o + opt->field), why, n);
}

bool opt_set_count_int(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  long long v;
  if (!opt_parse_count(opt, arg, &v, why, n)) return false;
  *(int *)((char *)o + opt->field) = (int)v;
  return true;
}

bool opt_set_count_size(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  long long v;
  if (!opt_parse_count(opt, arg, &v, why, n)) return false;
  *(size_t *)((char *)o + opt->field) = (size_t)v;
  return true;
}

/* --framing NAME: the inputs are streams cut that way. */
bool opt_set_framing(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  pbd_Framing f;
  if (!pbd_Framing_FromName(arg, &f)) {
    snprintf(why, n, "--%s wants delimited, tfrecord, grpc, confluent, confluent-value or confluent-keyed, not '%s'", opt->name, arg);
    return false;
  }
  o->framing = f;
  o->delimited = true;
  return true;
}

/* The values of the options that take a word from a list (shell completion). */
const char *opt_framing_values(void) {
  static char names[128];
  if (!names[0])
    for (int f = kPbd_Framing_None + 1; f <= kPbd_Framing_ConfluentKeyed; f++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? " " : "",
               pbd_Framing_Name((pbd_Framing)f));
  return names;
}
const char *opt_input_format_values(void) { return "binary textproto json"; }
const char *opt_compression_values(void) { return "auto gzip none"; }
const char *opt_plain_format_values(void) { return "text json"; }
const char *opt_color_values(void) { return "auto always never"; }
const char *opt_report_format_values(void) {
  static char names[128]; /* "text, json, junit or paths" as words */
  if (!names[0]) {
    const char *p = pbd_Report_FormatNames();
    for (size_t n = 0; *p && n + 1 < sizeof names; p++) {
      if (*p == ',') continue;
      if (!strncmp(p, " or ", 4)) p += 3;
      names[n++] = *p;
    }
  }
  return names;
}

/* A tolerance's number: finite and not negative. */
static bool opt_parse_tolerance(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return !*end && end != s && *v >= 0 && *v <= 1e300;
}

bool pbd_Cli_ScopedTolerance(const char *spec, size_t *scope_len, double *value) {
  const char *eq = strrchr(spec, '=');
  if (!eq || eq == spec) return false;
  *scope_len = (size_t)(eq - spec);
  return opt_parse_tolerance(eq + 1, value);
}

/* A float tolerance: X, the global value, or SCOPE=X for a field or a path
 * pattern, kept as given until a schema resolves the scope (cli/rules.c). */
bool opt_set_tolerance(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  double v;
  size_t scope_len;
  if (!strchr(arg, '=') && opt_parse_tolerance(arg, &v)) {
    *(double *)((char *)o + opt->field) = v;
    return true;
  }
  if (strchr(arg, '=') && pbd_Cli_ScopedTolerance(arg, &scope_len, &v)) {
    bool margin = opt->field == FIELD(compare.diff.float_margin);
    if (opt_push(margin ? &o->scoped_margins : &o->scoped_fractions, arg)) return true;
    snprintf(why, n, "out of memory");
    return false;
  }
  snprintf(why, n,
           "--%s wants a number >= 0, or FIELD=NUMBER or PATTERN=NUMBER for part of the "
           "message, not '%s'",
           opt->name, arg);
  return false;
}

/* Whether a scoped tolerance (checked when given) is above 0. */
bool opt_any_scoped_above_zero(const pbd_StrList *l) {
  for (size_t i = 0; i < l->n; i++) {
    size_t scope_len;
    double v;
    if (pbd_Cli_ScopedTolerance(l->v[i], &scope_len, &v) && v > 0) return true;
  }
  return false;
}

bool opt_set_input_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why,
                             size_t n) {
  pbd_InputFormat f;
  if (!strcmp(arg, "binary")) f = kPbd_InputFormat_Binary;
  else if (!strcmp(arg, "textproto")) f = kPbd_InputFormat_TextProto;
  else if (!strcmp(arg, "json")) f = kPbd_InputFormat_Json;
  else {
    snprintf(why, n, "unknown input format '%s' (use binary, textproto or json)", arg);
    return false;
  }
  /* --left-format, --right-format, or both (cat's and hash's --format);
   * .pbdiff's format fills the sides the command line left to the guess */
  if (opt->field == FIELD(left_format) || opt->field == FIELD(right_format)) {
    *(pbd_InputFormat *)((char *)o + opt->field) = f;
  } else if (opt->commands) {
    o->left_format = o->right_format = f;
  } else {
    if (o->left_format == kPbd_InputFormat_Guess) o->left_format = f;
    if (o->right_format == kPbd_InputFormat_Guess) o->right_format = f;
  }
  return true;
}

bool opt_set_label(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  if (o->labels.n < 2) return opt_set_list(o, opt, arg, why, n);
  snprintf(why, n, "-L is given at most twice (LEFT, then RIGHT)");
  return false;
}

bool opt_set_report_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why,
                              size_t n) {
  (void)opt;
  o->patch = !strcmp(arg, "patch"); /* not a report: the patch's own writer */
  if (o->patch || pbd_Report_FormatByName(arg, &o->format)) return true;
  snprintf(why, n, "unknown format '%s' (use %s, or patch)", arg, pbd_Report_FormatNames());
  return false;
}

/* --input-compression auto|gzip|none. */
bool opt_set_compression(pbd_CliOptions *o, const Option *opt, const char *arg, char *why,
                            size_t n) {
  if (pbd_Compression_FromName(arg, &o->compression)) return true;
  snprintf(why, n, "--%s wants auto, gzip or none, not '%s'", opt->name, arg);
  return false;
}

/* cat's and hash's --format: text or JSON (the input's is --input-format). */
bool opt_set_plain_format(pbd_CliOptions *o, const Option *opt, const char *arg, char *why,
                             size_t n) {
  (void)opt;
  if (!strcmp(arg, "text") || !strcmp(arg, "json") || !strcmp(arg, "binary")) {
    o->json = arg[0] == 'j';
    o->binary = arg[0] == 'b';
    return true;
  }
  snprintf(why, n,
           "unknown format '%s' (use text, json or binary; the inputs' encoding is --input-format)",
           arg);
  return false;
}

bool opt_set_favor(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  (void)opt;
  if (!strcmp(arg, "ours") || !strcmp(arg, "theirs")) {
    o->favor = arg[0] == 'o' ? 1 : 2; /* kPbd_Favor_Ours, kPbd_Favor_Theirs */
    return true;
  }
  snprintf(why, n, "--favor wants ours or theirs, not '%s'", arg);
  return false;
}

/* The report formats' help, and the patch. */
const char *opt_format_help(void) {
  static pbd_Buf help;
  if (!help.len)
    pbd_Buf_Printf(&help, "%s;\n'patch': a guarded patch for pbdiff apply\n(docs/patch.md)",
                   pbd_Report_FormatHelp());
  return help.oom ? "" : help.data;
}

bool opt_set_stat(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  o->report.stat = true;
  if (!arg) return true;
  long long depth;
  if (!opt_parse_count(opt, arg, &depth, why, n)) return false;
  o->report.stat_depth = (size_t)depth;
  return true;
}

bool opt_set_color(pbd_CliOptions *o, const Option *opt, const char *arg, char *why, size_t n) {
  (void)opt;
  o->color = arg ? arg : "always"; /* --color alone, as git */
  if (pbd_Report_ColorModeValid(o->color)) return true;
  snprintf(why, n, "--color wants auto, always or never, not '%s'", o->color);
  return false;
}


/* --bytes-as takes FIELD=KIND, whose FIELD the schema names: completion
 * offers the one word that stands alone. */
const char *opt_bytes_as_values(void) { return "none"; }
