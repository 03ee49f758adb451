/* pbdiff CLI — options and usage texts, shared by every command. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff.h"

#define SCHEMA_HELP                                                                          \
  "Schema (without one, fields are compared by number; see docs/semantics.md):\n"           \
  "  -s, --schema FILE      serialized FileDescriptorSet, as written by\n"                  \
  "                         'protoc --include_imports -o FILE'; repeatable\n"               \
  "      --proto FILE       .proto source, compiled by running protoc; repeatable\n"        \
  "  -I, --proto-path DIR   import directory for --proto; repeatable\n"                     \
  "                         (/usr/include is searched last, for the well-known types)\n"    \
  "  -t, --type NAME        fully qualified message type, e.g. onnx.ModelProto\n"           \
  "      --config FILE      read per-path schemas and options from FILE instead of the\n"   \
  "                         first .pbdiff found from the current directory upwards\n"

#define INPUT_HELP                                                                           \
  "Inputs ('-' is standard input; gzip-compressed inputs are read transparently):\n"        \
  "      --delimited        inputs are streams of varint length-prefixed messages\n"        \
  "      --skip-prefix N    drop the first N bytes of each input (a fixed header)\n"        \
  "      --equivalent       a field set to its default equals an unset field\n"             \
  "      --ignore-unknown   unknown fields take no part\n"                                  \
  "      --strict           an unknown field is an error (exit 2)\n"                        \
  "      --max-depth N      nesting limit for messages and groups (default 100)\n"

#define FLOAT_BITS_HELP \
  "      --float-bits       floats by bit pattern (NaN payloads and the sign of zero count)\n"

static const char kCompareUsage[] =
    "Usage: pbdiff [OPTIONS] LEFT RIGHT\n"
    "       pbdiff -r [OPTIONS] DIR1 DIR2\n"
    "       pbdiff cat [OPTIONS] FILE          (pbdiff cat --help)\n"
    "       pbdiff hash [OPTIONS] FILE...      (pbdiff hash --help)\n"
    "Compare two protobuf payloads by meaning, not by bytes.\n"
    "\n" SCHEMA_HELP
    "      --left-schema FILE, --right-schema FILE\n"
    "                         a descriptor set (or .proto) for one side only: compare a\n"
    "                         message across two versions of its schema, by field number\n"
    "      --left-type NAME, --right-type NAME\n"
    "                         the type for one side only\n"
    "\n" INPUT_HELP
    "      --left-format F, --right-format F\n"
    "                         binary, textproto or json (default: from the extension:\n"
    "                         .textproto .txtpb .pbtxt -> textproto, .json -> json)\n"
    "\n"
    "Comparison:\n"
    "      --float-bits       compare floats by bit pattern (NaN != NaN, -0 != 0)\n"
    "      --float-margin X   floats equal when |a-b| <= X\n"
    "      --float-fraction Y floats equal when |a-b| <= Y * max(|a|,|b|)\n"
    "\n"
    "Matching (FIELD is a full field name, package.Message.field):\n"
    "      --key FIELD=SUB[+SUB...]  match the elements of a repeated message field\n"
    "                         by key subfields; paths name the key: node[name=\"conv1\"]\n"
    "      --repeated-as-set FIELD   elements of FIELD are a multiset (order ignored)\n"
    "      --report-moves     report keyed or set elements whose position changed\n"
    "      --ignore FIELD|PATTERN    leave out a field (full name) or a path pattern\n"
    "                         with [*] for any index or key: graph.node[*].doc_string\n"
    "      --partial          compare only the fields set in LEFT (the expected side)\n"
    "\n"
    "Output:\n"
    "  -q, --quiet            print nothing; the exit status tells\n"
    "      --format FMT       'text' (default): one line per difference, grouped\n"
    "                         under a 'MESSAGE-PATH (Type):' header:\n"
    "                         'FIELD: LEFT -> RIGHT', 'FIELD: added VALUE',\n"
    "                         'FIELD: removed VALUE', 'FIELD: unset -> set to VALUE',\n"
    "                         'FIELD: moved [I] -> [J]'; 'json': one object, see\n"
    "                         docs/json-format.md; 'junit': JUnit XML for CI\n"
    "                         servers, one test case per file, see docs/ci.md\n"
    "      --color[=WHEN]     colour the text report: auto (default: when standard\n"
    "                         output is a terminal and NO_COLOR is unset), always, never\n"
    "      --max-diffs N      show the first N differences, then how many more\n"
    "      --stat             counts by kind and by top-level field instead of the list\n"
    "      --explain          when the inputs are equal but their bytes differ, list the\n"
    "                         encoding differences (field order, packed, varints, ...)\n"
    "\n"
    "Directories:\n"
    "  -r, --recursive        compare DIR1 and DIR2 file by file (by relative path)\n"
    "  -j, --jobs N           compare N files at a time (default: the number of cores)\n"
    "      --summary          one line per file instead of the differences\n"
    "\n"
    "  -h, --help             show this help and exit\n"
    "      --version          show the version and the fingerprint scheme, and exit\n"
    "\n"
    "Called with git's seven external-diff arguments (PATH OLD-FILE OLD-HEX OLD-MODE\n"
    "NEW-FILE NEW-HEX NEW-MODE), pbdiff acts as a git diff driver (docs/git.md).\n"
    "\n"
    "Exit status: 0 if the inputs are equal, 1 if they differ, 2 on trouble\n"
    "(bad option, unreadable file, malformed input, bad schema).\n"
    "\n"
    "Examples:\n"
    "  pbdiff --proto /usr/include/onnx/onnx.proto -t onnx.ModelProto a.onnx b.onnx\n"
    "  pbdiff -q -s api.desc -t acme.Reply expected.pb actual.pb && echo same\n";

static const char kCatUsage[] =
    "Usage: pbdiff cat [OPTIONS] FILE\n"
    "Print a message in a canonical text form: text-format syntax, fields in number\n"
    "order, map entries by key, parts merged, defaults normalised as in a comparison.\n"
    "Two semantically equal inputs print the same bytes (for git textconv).\n"
    "\n" SCHEMA_HELP "\n" INPUT_HELP FLOAT_BITS_HELP
    "      --format F         the input's encoding: binary, textproto or json\n"
    "                         (default: from the extension)\n"
    "  -h, --help             show this help and exit\n";

static const char kHashUsage[] =
    "Usage: pbdiff hash [OPTIONS] FILE...\n"
    "Print a semantic fingerprint per input (per message with --delimited): two\n"
    "fingerprints are equal exactly when the messages are equal in meaning under the\n"
    "same options. Fingerprints start with their scheme, pbh1:, and stay stable\n"
    "across pbdiff versions of that scheme (docs/hash.md).\n"
    "\n" SCHEMA_HELP "\n" INPUT_HELP FLOAT_BITS_HELP
    "      --format F         the inputs' encoding: binary, textproto or json\n"
    "                         (default: from the extension)\n"
    "  -h, --help             show this help and exit\n";

const char *pbd_Cli_Usage(pbd_Command cmd) {
  return cmd == kPbd_Cmd_Cat ? kCatUsage : cmd == kPbd_Cmd_Hash ? kHashUsage : kCompareUsage;
}

static const char *command_name(pbd_Command cmd) {
  return cmd == kPbd_Cmd_Cat ? "pbdiff cat" : cmd == kPbd_Cmd_Hash ? "pbdiff hash" : "pbdiff";
}

static pbd_Command g_cmd;

static _Noreturn void die_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "pbdiff: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", command_name(g_cmd));
  exit(kExitTrouble);
}

static void push(pbd_StrList *l, const char *v) {
  const char **nv = realloc((void *)l->v, sizeof *l->v * (l->n + 1));
  if (!nv) {
    fprintf(stderr, "pbdiff: out of memory\n");
    exit(kExitTrouble);
  }
  nv[l->n++] = v;
  l->v = nv;
}

/* The option getopt just rejected: "-x" out of a cluster like "-qx", or
 * the long option as written. */
static const char *option_name(char **argv) {
  static char shortopt[3] = "-?";
  if (optopt > 0 && optopt < 256) {
    shortopt[1] = (char)optopt;
    return shortopt;
  }
  return argv[optind - 1];
}

/* Exit 0 after --help or --version, unless writing them failed. */
static _Noreturn void exit_after_output(void) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "pbdiff: cannot write to standard output\n");
    exit(kExitTrouble);
  }
  exit(kExitEqual);
}

/* A float option's value: finite and not negative. */
static double parse_tolerance(const char *opt, const char *arg) {
  char *end;
  double v = strtod(arg, &end);
  if (*end || end == arg || !(v >= 0) || v > 1e300) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s wants a number >= 0, not '%%s'", opt);
    die_usage(msg, arg);
  }
  return v;
}

static long long parse_count(const char *opt, const char *arg, long long min, long long max) {
  char *end;
  long long v = strtoll(arg, &end, 10);
  if (*end || end == arg || v < min || v > max) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s wants a number from %lld to %lld, not '%%s'", opt, min, max);
    die_usage(msg, arg);
  }
  return v;
}

static pbd_InputFormat parse_input_format(const char *arg) {
  if (!strcmp(arg, "binary")) return kPbd_InputFormat_Binary;
  if (!strcmp(arg, "textproto")) return kPbd_InputFormat_TextProto;
  if (!strcmp(arg, "json")) return kPbd_InputFormat_Json;
  die_usage("unknown input format '%s' (use binary, textproto or json)", arg);
}

enum {
  kOptProto = 256, kOptFormat, kOptDelimited, kOptEquivalent, kOptIgnoreUnknown, kOptStrict,
  kOptFloatBits, kOptMaxDepth, kOptVersion, kOptKey, kOptSet, kOptMoves, kOptIgnore,
  kOptPartial, kOptMargin, kOptFraction, kOptColor, kOptMaxDiffs, kOptStat, kOptExplain,
  kOptConfig, kOptSummary, kOptLeftFormat, kOptRightFormat, kOptSkipPrefix, kOptLeftSchema,
  kOptRightSchema, kOptLeftType, kOptRightType,
};

/* Options that only a comparison takes (cat and hash refuse them). */
static bool compare_only(int c) {
  switch (c) {
    case kOptKey: case kOptSet: case kOptMoves: case kOptIgnore: case kOptPartial:
    case kOptMargin: case kOptFraction: case kOptColor: case kOptMaxDiffs: case kOptStat:
    case kOptExplain: case kOptSummary: case kOptLeftFormat: case kOptRightFormat:
    case kOptLeftSchema: case kOptRightSchema: case kOptLeftType: case kOptRightType:
    case 'q': case 'r': case 'j':
      return true;
    default:
      return false;
  }
}

int pbd_Cli_ParseOptions(int argc, char **argv, pbd_Command cmd, pbd_CliOptions *o) {
  static const struct option longopts[] = {
      {"schema", required_argument, NULL, 's'},
      {"proto", required_argument, NULL, kOptProto},
      {"proto-path", required_argument, NULL, 'I'},
      {"type", required_argument, NULL, 't'},
      {"config", required_argument, NULL, kOptConfig},
      {"left-schema", required_argument, NULL, kOptLeftSchema},
      {"right-schema", required_argument, NULL, kOptRightSchema},
      {"left-type", required_argument, NULL, kOptLeftType},
      {"right-type", required_argument, NULL, kOptRightType},
      {"quiet", no_argument, NULL, 'q'},
      {"format", required_argument, NULL, kOptFormat},
      {"left-format", required_argument, NULL, kOptLeftFormat},
      {"right-format", required_argument, NULL, kOptRightFormat},
      {"skip-prefix", required_argument, NULL, kOptSkipPrefix},
      {"delimited", no_argument, NULL, kOptDelimited},
      {"equivalent", no_argument, NULL, kOptEquivalent},
      {"ignore-unknown", no_argument, NULL, kOptIgnoreUnknown},
      {"strict", no_argument, NULL, kOptStrict},
      {"float-bits", no_argument, NULL, kOptFloatBits},
      {"max-depth", required_argument, NULL, kOptMaxDepth},
      {"key", required_argument, NULL, kOptKey},
      {"repeated-as-set", required_argument, NULL, kOptSet},
      {"report-moves", no_argument, NULL, kOptMoves},
      {"ignore", required_argument, NULL, kOptIgnore},
      {"partial", no_argument, NULL, kOptPartial},
      {"float-margin", required_argument, NULL, kOptMargin},
      {"float-fraction", required_argument, NULL, kOptFraction},
      {"color", optional_argument, NULL, kOptColor},
      {"colour", optional_argument, NULL, kOptColor},
      {"max-diffs", required_argument, NULL, kOptMaxDiffs},
      {"stat", no_argument, NULL, kOptStat},
      {"explain", no_argument, NULL, kOptExplain},
      {"recursive", no_argument, NULL, 'r'},
      {"jobs", required_argument, NULL, 'j'},
      {"summary", no_argument, NULL, kOptSummary},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, kOptVersion},
      {NULL, 0, NULL, 0},
  };
  memset(o, 0, sizeof *o);
  o->skip_prefix = -1;
  g_cmd = cmd;
  int c, li = -1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":s:I:t:qhrj:", longopts, &li)) != -1) {
    if (cmd != kPbd_Cmd_Compare && compare_only(c)) {
      char name[64];
      if (li >= 0) snprintf(name, sizeof name, "--%s", longopts[li].name);
      else snprintf(name, sizeof name, "-%c", c);
      die_usage("option '%s' is for comparisons", name);
    }
    li = -1;
    switch (c) {
      case 's': push(&o->schemas, optarg); break;
      case kOptProto: push(&o->protos, optarg); break;
      case 'I': push(&o->includes, optarg); break;
      case 't': o->type = optarg; break;
      case kOptConfig: o->config = optarg; break;
      case kOptLeftSchema: push(&o->left_schemas, optarg); break;
      case kOptRightSchema: push(&o->right_schemas, optarg); break;
      case kOptLeftType: o->left_type = optarg; break;
      case kOptRightType: o->right_type = optarg; break;
      case 'q': o->quiet = true; break;
      case kOptFormat:
        if (cmd != kPbd_Cmd_Compare) {
          o->left_format = o->right_format = parse_input_format(optarg);
        } else if (!pbd_Report_FormatByName(optarg, &o->format)) {
          char msg[256];
          snprintf(msg, sizeof msg, "unknown format '%%s' (use %s)", pbd_Report_FormatNames());
          die_usage(msg, optarg);
        }
        break;
      case kOptLeftFormat: o->left_format = parse_input_format(optarg); break;
      case kOptRightFormat: o->right_format = parse_input_format(optarg); break;
      case kOptSkipPrefix: o->skip_prefix = parse_count("--skip-prefix", optarg, 0, 1LL << 40); break;
      case kOptDelimited: o->delimited = true; break;
      case kOptEquivalent: o->compare.read.equivalent = true; break;
      case kOptIgnoreUnknown: o->compare.read.ignore_unknown = true; break;
      case kOptStrict: o->compare.read.strict = true; break;
      case kOptFloatBits: o->compare.read.float_bits = true; break;
      case kOptKey: push(&o->keys, optarg); break;
      case kOptSet: push(&o->sets, optarg); break;
      case kOptMoves: o->compare.diff.report_moves = true; break;
      case kOptIgnore: push(&o->ignores, optarg); break;
      case kOptPartial: o->compare.diff.partial = true; break;
      case kOptMargin: o->compare.diff.float_margin = parse_tolerance("--float-margin", optarg); break;
      case kOptFraction: o->compare.diff.float_fraction = parse_tolerance("--float-fraction", optarg); break;
      case kOptColor:
        o->color = optarg ? optarg : "always"; /* --color alone, as git */
        if (!pbd_Report_ColorModeValid(o->color))
          die_usage("--color wants auto, always or never, not '%s'", o->color);
        break;
      case kOptMaxDiffs: o->report.max_diffs = (size_t)parse_count("--max-diffs", optarg, 1, 1LL << 40); break;
      case kOptStat: o->report.stat = true; break;
      case kOptExplain: o->explain = true; break;
      case kOptMaxDepth: o->compare.read.max_depth = (int)parse_count("--max-depth", optarg, 1, 10000); break;
      case 'r': o->recursive = true; break;
      case 'j': o->jobs = (int)parse_count("--jobs", optarg, 1, 1024); break;
      case kOptSummary: o->summary = true; break;
      case 'h': fputs(pbd_Cli_Usage(cmd), stdout); exit_after_output();
      case kOptVersion:
        printf("pbdiff %s (fingerprints %s)\n", PBDIFF_VERSION, PBDIFF_HASH_SCHEME);
        exit_after_output();
      case ':': die_usage("option '%s' needs an argument", option_name(argv));
      default: die_usage("unknown option '%s'", option_name(argv));
    }
  }
  if (o->compare.read.strict && o->compare.read.ignore_unknown)
    die_usage("%s", "--strict and --ignore-unknown contradict each other");
  if (o->includes.n && !o->protos.n && !o->left_schemas.n && !o->right_schemas.n)
    die_usage("%s", "-I is for --proto");
  if (o->report.stat && o->format != kPbd_Report_Text)
    die_usage("%s", "--stat is a text report; it does not go with --format json or junit");
  o->report.color = pbd_Report_ShouldColor(o->color ? o->color : "auto", STDOUT_FILENO) &&
                    o->format == kPbd_Report_Text;
  if (o->compare.read.float_bits && (o->compare.diff.float_margin > 0 || o->compare.diff.float_fraction > 0))
    die_usage("%s", "--float-bits and a float tolerance contradict each other");
  if ((o->summary || o->jobs) && !o->recursive)
    die_usage("%s", "--summary and --jobs are for -r (directories)");
  return optind;
}

void pbd_Cli_FreeOptions(pbd_CliOptions *o) {
  free((void *)o->schemas.v);
  free((void *)o->protos.v);
  free((void *)o->includes.v);
  free((void *)o->left_schemas.v);
  free((void *)o->right_schemas.v);
  free((void *)o->keys.v);
  free((void *)o->sets.v);
  free((void *)o->ignores.v);
  memset(o, 0, sizeof *o);
}
