/* pbdiff CLI — the one table of options.  Each row says a name, its
 * argument, which commands take it, where --help lists it and with what
 * text, whether .pbdiff has it as a key, and how its value is stored; the
 * getopt parser, every command's --help and the config file's keys are all
 * read from it (docs/architecture.md: a new option is a row here plus the
 * code that reads its field). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options_table.h"
#include "pbdiff/pbdiff.h"

static const char *const kSectionTitles[kSecCount] = {
    "Schema (without one, fields are compared by number; see docs/semantics.md):",
    "Inputs ('-' is standard input; gzip-compressed inputs are read transparently):",
    "Comparison:",
    "Matching (FIELD is a full field name, package.Message.field):",
    "Output:",
    "Corpora (records of files, of streams or of -r directories, paired by key):",
    "Directories:",
    NULL,
};

/* ---- The table ------------------------------------------------------------- */

#define FLAG(f) .set = opt_set_flag, .field = FIELD(f)
#define STRING(f) .set = opt_set_string, .field = FIELD(f)
#define LIST(f) .set = opt_set_list, .field = FIELD(f)

static const Option kOptions[] = {
    /* schema */
    {"schema", 's', "FILE", kAll, kSecSchema,
     "serialized FileDescriptorSet, as written by\n'protoc --include_imports -o FILE'; repeatable",
     NULL, LIST(schemas), .config_key = "schema", .config_file = true, .yields_to = "proto"},
    {"proto", 0, "FILE", kAll, kSecSchema, ".proto source, compiled by running protoc; repeatable",
     NULL, LIST(protos), .config_key = "proto", .config_file = true, .yields_to = "schema"},
    {"proto-path", 'I', "DIR", kAll, kSecSchema,
     "import directory for --proto; repeatable\n(/usr/include is searched last, for the "
     "well-known types)",
     NULL, LIST(includes), .config_key = "proto-path", .config_file = true,
     .yields_to = "schema proto"},
    {"type", 't', "NAME", kAll, kSecSchema, "fully qualified message type, e.g. onnx.ModelProto",
     NULL, STRING(type), .config_key = "type", .yields_to = "schema proto"},
    {"config", 0, "FILE", kAll, kSecSchema,
     "read per-path schemas and options from FILE instead of the\nfirst .pbdiff found from the "
     "current directory upwards",
     NULL, STRING(config)},
    {"no-config", 0, NULL, kAll, kSecSchema,
     "read no .pbdiff (for CI in a repository whose files\nyou do not control)", NULL,
     FLAG(no_config)},
    {"left-schema", 0, "FILE", kCompare, kSecSchema,
     "a descriptor set (or .proto) for one side only: compare a\nmessage across two versions of "
     "its schema, by field number",
     "--left-schema FILE, --right-schema FILE", LIST(left_schemas)},
    {"right-schema", 0, "FILE", kCompare, kSecSchema, NULL, NULL, LIST(right_schemas)},
    {"left-type", 0, "NAME", kCompare, kSecSchema, "the type for one side only",
     "--left-type NAME, --right-type NAME", STRING(left_type)},
    {"right-type", 0, "NAME", kCompare, kSecSchema, NULL, NULL, STRING(right_type)},
    /* inputs */
    {"delimited", 0, NULL, kAll, kSecInputs, "inputs are streams of varint length-prefixed messages",
     NULL, FLAG(delimited), .config_key = "delimited"},
    {"framing", 0, "NAME", kAll, kSecInputs,
     "inputs are streams of messages framed as NAME: delimited\n(as --delimited), tfrecord "
     "(TensorFlow's TFRecord, CRCs\nchecked), grpc (gRPC's 5-byte prefix; compressed\n"
     "messages are inflated), confluent (Kafka values in the\nConfluent Schema Registry "
     "format, each after a 4-byte\nbig-endian length, as kcat -f '%R%s' writes them;\n"
     "a tombstone, length -1, is a record without a value) or\n"
     "confluent-value (one such value, the whole input) or\nconfluent-keyed (Kafka records "
     "with their keys, as\nkcat -f '%K%k%R%s' writes them: --record-key kafka-key\n"
     "pairs records by it); a record's key, schema id and\nmessage indexes are shown, and "
     "where they differ\nnoted, not counted as differences",
     NULL, .set = opt_set_framing, .config_key = "framing", .values = opt_framing_values},
    {"input-compression", 0, "C", kAll, kSecInputs,
     "gzip, none or auto (the default: gzip where an input\nbegins with a whole, valid gzip "
     "header and inflates;\nelse its bytes as they are)",
     NULL, .set = opt_set_compression, .config_key = "input-compression",
     .values = opt_compression_values},
    {"skip-prefix", 0, "N", kAll, kSecInputs, "drop the first N bytes of each input (a fixed header)",
     NULL, .set = opt_set_count_ll, .field = FIELD(skip_prefix), .min = 0, .max = 1LL << 40,
     .config_key = "skip-prefix"},
    {"equivalent", 0, NULL, kAll, kSecInputs, "a field set to its default equals an unset field",
     NULL, FLAG(compare.read.equivalent), .config_key = "equivalent"},
    {"ignore-unknown", 0, NULL, kAll, kSecInputs, "unknown fields take no part", NULL,
     FLAG(compare.read.ignore_unknown), .config_key = "ignore-unknown"},
    {"strict", 0, NULL, kAll, kSecInputs, "an unknown field is an error (exit 2)", NULL,
     FLAG(compare.read.strict)},
    {"max-input-bytes", 0, "N", kAll, kSecInputs,
     "the most an input or schema file may hold, after\ndecompression (default 2 GiB, "
     "protobuf's own limit)",
     NULL, .set = opt_set_count_ll, .field = FIELD(max_input), .min = 1, .max = 1LL << 40},
    {"max-memory", 0, "N", kAll, kSecInputs,
     "the most memory, in bytes, for the trees of the parts\nthat differ (default 1 GiB + 32 per input byte); not a\ncap on the process: what grows linearly with the inputs\n(the hash pass, stream indexes, alignment) is apart,\ndocs/limits.md",
     NULL, .set = opt_set_count_size, .field = FIELD(compare.max_memory), .min = 1 << 20,
     .max = 1LL << 50},
    {"max-depth", 0, "N", kAll, kSecInputs, "nesting limit for messages and groups (default 100)",
     NULL, .set = opt_set_count_int, .field = FIELD(compare.read.max_depth), .min = 1,
     .max = kPbd_MaxDepthLimit},
    {"left-format", 0, "F", kCompare, kSecInputs,
     "binary, textproto or json (default: from the extension:\n.textproto .txtpb .pbtxt -> "
     "textproto, .json -> json)",
     "--left-format F, --right-format F", .set = opt_set_input_format, .field = FIELD(left_format),
     .values = opt_input_format_values},
    {"right-format", 0, "F", kCompare, kSecInputs, NULL, NULL, .set = opt_set_input_format,
     .field = FIELD(right_format), .values = opt_input_format_values},
    {"input-format", 0, "F", kAll, kSecInputs,
     "the inputs' encoding: binary, textproto or json\n(default: from the extension)", NULL,
     .set = opt_set_input_format, .field = FIELD(schemas) /* neither side: both */,
     .values = opt_input_format_values},
    {"textconv", 0, NULL, kCat, kSecInputs,
     "as git's textconv filter: a file that is not protobuf\n(a Git LFS pointer, a stray file) "
     "prints why and its\nbytes' digest, and is no error (docs/git.md)",
     NULL, FLAG(textconv)},
    {"input-format", 0, "F", 0 /* .pbdiff only */, kSecInputs, NULL, NULL,
     .set = opt_set_input_format, .field = FIELD(schemas), .config_key = "input-format"},
    {"format", 0, "F", 0 /* .pbdiff: input-format's old name */, kSecInputs, NULL, NULL,
     .set = opt_set_input_format, .field = FIELD(schemas), .config_key = "format"},
    /* comparison */
    {"float-bits", 0, NULL, kAll, kSecComparison,
     "compare floats by bit pattern (NaN != NaN, -0 != 0)", NULL, FLAG(compare.read.float_bits)},
    {"float-margin", 0, "X|SCOPE=X", kCompare, kSecComparison,
     "floats equal when |a-b| <= X; SCOPE=X sets X for\nthe floats at or under SCOPE, a field "
     "(full name)\nor a path pattern (as --ignore takes them):\n"
     "'graph.initializer[*].float_data=1e-6'; repeatable,\nthe last SCOPE that matches wins, "
     "else the plain X",
     NULL, .set = opt_set_tolerance, .field = FIELD(compare.diff.float_margin),
     .config_key = "float-margin"},
    {"float-fraction", 0, "Y|SCOPE=Y", kCompare, kSecComparison,
     "floats equal when |a-b| <= Y * max(|a|,|b|);\nSCOPE=Y as --float-margin's SCOPE=X",
     NULL, .set = opt_set_tolerance, .field = FIELD(compare.diff.float_fraction),
     .config_key = "float-fraction"},
    {"bytes-as", 0, "FIELD=KIND|none", kCompare | kHash, kSecComparison,
     "read a bytes field as little-endian numbers, compared\nelement by element (FIELD[i], "
     "tolerances apply):\nKIND float double float16 bfloat16 int8 uint8 int16\nuint16 int32 "
     "uint32 int64 uint64 bool; a view, not a\nprotobuf rule (docs/semantics.md).  With "
     "onnx.TensorProto\nin the schema, raw_data is read by data_type and equals\nfloat_data "
     "etc. of the same values (preset 'onnx');\n'none' turns every view off; repeatable",
     NULL, LIST(bytes_as), .config_key = "bytes-as", .values = opt_bytes_as_values},
    /* matching */
    {"key", 0, "FIELD=SUB[+SUB...]", kCompare, kSecMatching,
     "match the elements of a repeated message field\nby key subfields; paths name the key: "
     "node[name=\"conv1\"]\n(empty or repeated keys: aligned as a sequence,\n"
     "numbered node[name=\"x\"#2], and a warning)",
     NULL, LIST(keys), .config_key = "key"},
    {"repeated-as-set", 0, "FIELD", kCompare, kSecMatching,
     "elements of FIELD are a multiset (order ignored)", NULL, LIST(sets),
     .config_key = "repeated-as-set"},
    {"report-moves", 0, NULL, kCompare, kSecMatching,
     "report keyed or set elements whose position changed", NULL, FLAG(compare.diff.report_moves)},
    {"ignore", 0, "FIELD|PATTERN", kCompare, kSecMatching,
     "leave out a field (full name) or a path pattern\nwith [*] for any index or key: "
     "graph.node[*].doc_string",
     NULL, LIST(ignores), .config_key = "ignore"},
    {"partial", 0, NULL, kCompare, kSecMatching,
     "compare only the fields set in LEFT (the expected side)", NULL, FLAG(compare.diff.partial)},
    /* output */
    {"quiet", 'q', NULL, kCompare, kSecOutput, "print nothing; the exit status tells", NULL,
     FLAG(quiet)},
    {"format", 0, "FMT", kCompare, kSecOutput, NULL /* from the table of formats */, NULL,
     .set = opt_set_report_format, .help_of = opt_format_help, .values = opt_report_format_values},
    {"format", 0, "FMT", kCat | kHash, kSecOutput,
     "'text' (default) or 'json': cat prints the canonical\nform in text format or in the protobuf "
     "JSON mapping\n(one line per message); hash prints 'FINGERPRINT  FILE'\nlines or one JSON "
     "object per line; cat's 'binary' writes\nthe canonical protobuf bytes (a normaliser; with\n"
     "--delimited, each message after its varint length)",
     NULL, .set = opt_set_plain_format, .values = opt_plain_format_values},
    {"sha256", 0, NULL, kHash, kSecOutput,
     "the cryptographic fingerprint pbs1:<SHA-256> instead of\npbh1 (docs/security.md: which to "
     "use when)",
     NULL, FLAG(sha256)},
    {"color", 0, "[=WHEN]", kCompare, kSecOutput,
     "colour the text report: auto (default: when standard\noutput is a terminal and NO_COLOR is "
     "unset), always, never",
     NULL, .set = opt_set_color, .values = opt_color_values},
    {"colour", 0, "[=WHEN]", kCompare, kSecOutput, NULL, NULL, .set = opt_set_color,
     .values = opt_color_values},
    {"max-diffs", 0, "N", kCompare, kSecOutput, "show the first N differences, then how many more\n(html: 2000 by default)",
     NULL, .set = opt_set_count_size, .field = FIELD(report.max_diffs), .min = 1, .max = 1LL << 40},
    {"max-value-lines", 0, "N", kCompare, kSecOutput,
     "a message value too long for one line (an added or\nremoved element) is shown over "
     "several, at most N\n(default 40), then how many more lines it has",
     NULL, .set = opt_set_count_size, .field = FIELD(report.max_value_lines), .min = 1,
     .max = 1LL << 40},
    {"no-pager", 0, NULL, kCompare, kSecOutput,
     "do not send the text report through a pager ($PBDIFF_PAGER,\n$PAGER or less -FRX when "
     "standard output is a terminal)",
     NULL, FLAG(no_pager)},
    {"stat", 0, "[=DEPTH]", kCompare, kSecOutput,
     "counts by kind and by field instead of the list: by\ntop-level field, or by the first DEPTH "
     "fields of each\npath (--stat=2: graph.node, graph.initializer)",
     NULL, .set = opt_set_stat, .min = 1, .max = 100},
    {"label", 'L', "NAME", kCompare, kSecOutput,
     "name LEFT (the first -L) and RIGHT (the second) in the\nreport, as diff -L: "
     "'--- NAME' and '+++ NAME' lines before\nthe differences; JSON's left_name and right_name",
     NULL, .set = opt_set_label, .field = FIELD(labels)},
    {"explain", 0, NULL, kCompare, kSecOutput,
     "when the inputs are equal but their bytes differ, list the\nencoding differences (field "
     "order, packed, varints, ...)",
     NULL, FLAG(explain)},
    {"output", 'o', "OUT", kApply | kMerge, kSecOutput,
     "write the result to OUT ('-': standard output)\ninstead of over FILE (merge: over OURS)",
     NULL, STRING(output)},
    {"check", 0, NULL, kApply, kSecOutput, "only check that the patch applies; write nothing", NULL,
     FLAG(check)},
    {"reverse", 'R', NULL, kApply, kSecOutput, "undo the patch: apply its hunks backwards", NULL,
     FLAG(reverse)},
    {"path", 0, "NAME", kMerge, kSecOutput,
     "the file's name in the repository (git's %P): its .pbdiff\nsection, its encoding, messages",
     NULL, STRING(merge_path)},
    {"conflicts", 0, "FILE", kMerge, kSecOutput,
     "write the conflicts as a patch that takes THEIRS' side\n(pbdiff apply FILE OURS)",
     NULL, STRING(conflicts_file)},
    {"favor", 0, "SIDE", kMerge, kSecOutput,
     "resolve conflicts with ours or theirs (default: none;\nOURS' value stays and the merge exits 1)",
     NULL, .set = opt_set_favor},
    /* directories */
    {"record-key", 0, "PATH", kCompare | kHash, kSecCorpus,
     "records are known by this field (`id`,\n`header.request_id`, several joined by '+'): "
     "paired\nby it whatever their order and files, named by it\nin reports ([id=\"r-7\"].price) "
     "and by hash\n(docs/scale.md)",
     NULL, STRING(record_key), .config_key = "record-key"},
    {"examples", 0, "N", kCompare, kSecCorpus,
     "--stat with --record-key: the keys of up to N records\nper path (default 3)",
     NULL, .set = opt_set_count_size, .field = FIELD(examples), .min = 1, .max = 1000,
     .config_key = "examples"},
    {"section", 0, "GLOB", kNoise, kSecCorpus,
     "the [file \"GLOB\"] of the section written (default *)", NULL, STRING(section)},
    {"recursive", 'r', NULL, kCompare, kSecDirs,
     "compare DIR1 and DIR2 file by file (by relative path)", NULL, FLAG(recursive)},
    {"jobs", 'j', "N", kCompare, kSecDirs, "compare N files (-r) or records (--record-key) at a time (default: the number of cores)",
     NULL, .set = opt_set_count_int, .field = FIELD(jobs), .min = 1, .max = 1024},
    {"summary", 0, NULL, kCompare, kSecDirs, "one line per file instead of the differences", NULL,
     FLAG(summary)},
    /* the rest (handled by the parser itself) */
    {"help", 'h', NULL, kAll, kSecOther, "show this help and exit", NULL, .set = NULL},
    {"version", 0, NULL, kAll, kSecOther,
     "show the version and the fingerprint scheme, and exit", NULL, .set = NULL},
};

enum { kOptionCount = sizeof kOptions / sizeof kOptions[0] };
_Static_assert(kOptionCount <= 128, "pbd_CliOptions.given has one bit per option");

static int option_index(const Option *opt) { return (int)(opt - kOptions); }

static void mark_given(pbd_CliOptions *o, size_t i) { o->given[i / 64] |= 1ull << (i % 64); }
static bool was_given(const pbd_CliOptions *o, size_t i) {
  return (o->given[i / 64] >> (i % 64)) & 1;
}

/* The row for a name and a command (--format is two rows). */
static const Option *find_option(const char *name, pbd_Command cmd) {
  const Option *any = NULL;
  for (size_t i = 0; i < kOptionCount; i++) {
    if (strcmp(kOptions[i].name, name)) continue;
    if (kOptions[i].commands & (1u << cmd)) return &kOptions[i];
    if (!any) any = &kOptions[i];
  }
  return any;
}


/* ---- --help ------------------------------------------------------------------ */

static const char *const kUsageHead[] = {
    [kPbd_Cmd_Compare] =
        "Usage: pbdiff [OPTIONS] LEFT RIGHT\n"
        "       pbdiff -r [OPTIONS] DIR1 DIR2\n"
        "       pbdiff cat [OPTIONS] FILE          (pbdiff cat --help)\n"
        "       pbdiff hash [OPTIONS] FILE...      (pbdiff hash --help)\n"
        "       pbdiff noise [OPTIONS] RUN1 RUN2   (pbdiff noise --help)\n"
        "       pbdiff apply [OPTIONS] PATCH FILE  (pbdiff apply --help)\n"
        "       pbdiff merge [OPTIONS] BASE OURS THEIRS  (pbdiff merge --help)\n"
        "Compare two protobuf payloads by meaning, not by bytes.\n",
    [kPbd_Cmd_Cat] =
        "Usage: pbdiff cat [OPTIONS] FILE\n"
        "Print a message in a canonical text form: text-format syntax, fields in number\n"
        "order, map entries by key, parts merged, defaults normalised as in a comparison.\n"
        "Two semantically equal inputs print the same bytes (for git textconv).\n"
        "A .pbdiff's matching rules (key, repeated-as-set, ignore) are for comparisons:\n"
        "cat does not apply them (docs/hash.md, \"One meaning per configuration\").\n",
    [kPbd_Cmd_Hash] =
        "Usage: pbdiff hash [OPTIONS] FILE...\n"
        "Print a semantic fingerprint per input (per message with --delimited): two\n"
        "fingerprints are equal exactly when the messages are equal in meaning under the\n"
        "same options. Fingerprints start with their scheme, pbh1:, and stay stable\n"
        "across pbdiff versions of that scheme (docs/hash.md). A .pbdiff's matching\n"
        "rules (key, repeated-as-set, ignore) are for comparisons: hash does not apply\n"
        "them, so a pair a comparison calls equal through an ignore rule hashes apart.\n"
        "Nor typed views of bytes (--bytes-as, the onnx.TensorProto preset): a tensor\n"
        "in raw_data and in float_data hash apart (a note says so under --bytes-as).\n",
    [kPbd_Cmd_Noise] =
        "Usage: pbdiff noise [OPTIONS] RUN1 RUN2\n"
        "       pbdiff noise -r [OPTIONS] DIR1 DIR2\n"
        "Compare two outputs of the same serialiser version on the same inputs and print\n"
        "the field paths that differ between them (timestamps, random ids) as a .pbdiff\n"
        "section of `ignore =` lines with their counts, ready for the comparison of\n"
        "version N with N+1 (docs/scale.md). Records pair by --record-key, else by\n"
        "position. Exit status: 0 when the section is written, 2 on trouble.\n",
    [kPbd_Cmd_Apply] =
        "Usage: pbdiff apply [OPTIONS] PATCH FILE\n"
        "Apply a patch written by 'pbdiff --format patch LEFT RIGHT' (docs/patch.md) to\n"
        "FILE, rewriting it atomically with the canonical bytes of the result. Every\n"
        "hunk's guard (the value it replaces, the neighbours of an element addressed by\n"
        "index) must hold, or nothing is written. Exit status: 0 applied, 1 a guard does\n"
        "not hold (or the patch is already applied), 2 on trouble.\n",
    [kPbd_Cmd_Merge] =
        "Usage: pbdiff merge [OPTIONS] BASE OURS THEIRS\n"
        "Merge THEIRS' changes since BASE into OURS by meaning and write the result over\n"
        "OURS, always a valid message; as git's merge driver (docs/git.md):\n"
        "  [merge \"pbdiff\"] driver = pbdiff merge --path %P %O %A %B\n"
        "A change on one side is taken, the same change on both once; maps and keyed\n"
        "elements merge per key, other repeated fields by their neighbours. At a\n"
        "conflict OURS' value stays and a line on standard error names its path and the\n"
        "three values. Exit status: 0 merged, 1 conflicts (or not protobuf: OURS kept),\n"
        "2 on trouble.\n",
};

static const char kCompareUsageTail[] =
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

enum { kHelpColumn = 25 };

/* One row: "  -s, --schema FILE      text", continuation lines indented. */
static void help_row(pbd_Buf *b, const Option *opt) {
  const char *help = opt->help_of ? opt->help_of() : opt->help;
  size_t start = b->len;
  if (opt->short_name) pbd_Buf_Printf(b, "  -%c, ", opt->short_name);
  else pbd_Buf_AppendStr(b, "      ");
  if (opt->shown_as) pbd_Buf_AppendStr(b, opt->shown_as);
  else if (!opt->arg) pbd_Buf_Printf(b, "--%s", opt->name);
  else pbd_Buf_Printf(b, "--%s%s%s", opt->name, opt->arg[0] == '[' ? "" : " ", opt->arg);
  size_t width = b->len - start;
  if (opt->shown_as) pbd_Buf_Printf(b, "\n%*s", kHelpColumn, "");
  else if (width >= kHelpColumn) pbd_Buf_AppendStr(b, "  ");
  else pbd_Buf_Printf(b, "%*s", (int)(kHelpColumn - width), "");
  for (const char *p = help; *p; p++) {
    pbd_Buf_AppendChar(b, *p);
    if (*p == '\n') pbd_Buf_Printf(b, "%*s", kHelpColumn, "");
  }
  pbd_Buf_AppendChar(b, '\n');
}

/* The usage text of a command, built once from the table. */
const char *pbd_Cli_Usage(pbd_Command cmd) {
  static pbd_Buf texts[kPbd_Cmd_Count];
  pbd_Buf *b = &texts[cmd];
  if (b->len) return b->data;
  pbd_Buf_AppendStr(b, kUsageHead[cmd]);
  for (int sec = 0; sec < kSecCount; sec++) {
    bool first = true;
    for (size_t i = 0; i < kOptionCount; i++) {
      const Option *opt = &kOptions[i];
      bool listed = opt->help || opt->help_of;
      if (opt->section != (Section)sec || !listed || !(opt->commands & (1u << cmd))) continue;
      if (first) {
        pbd_Buf_AppendChar(b, '\n');
        if (kSectionTitles[sec]) pbd_Buf_Printf(b, "%s\n", kSectionTitles[sec]);
        first = false;
      }
      help_row(b, opt);
    }
  }
  if (cmd == kPbd_Cmd_Compare) pbd_Buf_AppendStr(b, kCompareUsageTail);
  return b->oom ? "pbdiff: out of memory\n" : b->data;
}

/* ---- Parsing the command line ----------------------------------------------- */

static const char *command_name(pbd_Command cmd) {
  return cmd == kPbd_Cmd_Cat ? "pbdiff cat" : cmd == kPbd_Cmd_Hash ? "pbdiff hash"
         : cmd == kPbd_Cmd_Noise ? "pbdiff noise" : cmd == kPbd_Cmd_Apply ? "pbdiff apply"
         : cmd == kPbd_Cmd_Merge ? "pbdiff merge" : "pbdiff";
}

static _Noreturn void die_usage(pbd_Command cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "pbdiff: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", command_name(cmd));
  exit(kExitTrouble);
}

/* The option getopt just rejected: "-x" out of a cluster like "-qx", or
 * the long option as written. */
static const char *rejected_option(char **argv) {
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

/* getopt's tables from ours: each name once (val = its first row), and the
 * short options with ':' after those that take an argument. */
static void getopt_tables(struct option *longopts, char *shortopts) {
  size_t n = 0, k = 0;
  shortopts[k++] = ':';
  for (size_t i = 0; i < kOptionCount; i++) {
    const Option *opt = &kOptions[i];
    int has_arg = !opt->arg ? no_argument : opt->arg[0] == '[' ? optional_argument : required_argument;
    bool seen = false; /* --format has a row per meaning; getopt gets the name once */
    for (size_t j = 0; j < i; j++) seen |= !strcmp(kOptions[j].name, opt->name);
    if (!seen) longopts[n++] = (struct option){opt->name, has_arg, NULL, 256 + (int)i};
    if (opt->short_name) {
      shortopts[k++] = opt->short_name;
      if (has_arg == required_argument) shortopts[k++] = ':';
    }
  }
  longopts[n] = (struct option){NULL, 0, NULL, 0};
  shortopts[k] = '\0';
}

static const Option *short_option(int c) {
  for (size_t i = 0; i < kOptionCount; i++)
    if (kOptions[i].short_name == c) return &kOptions[i];
  return NULL;
}

/* Combinations no single option can refuse on its own. */
static void check_combinations(pbd_Command cmd, const pbd_CliOptions *o) {
  const pbd_ReadOptions *r = &o->compare.read;
  const pbd_DiffOptions *d = &o->compare.diff;
  if (r->strict && r->ignore_unknown)
    die_usage(cmd, "%s", "--strict and --ignore-unknown contradict each other");
  if (o->includes.n && !o->protos.n && !o->left_schemas.n && !o->right_schemas.n)
    die_usage(cmd, "%s", "-I is for --proto");
  if (o->report.stat && !pbd_Report_HasStat(o->format) &&
      !(o->record_key && o->format == kPbd_Report_Json))
    die_usage(cmd, "--stat is a text report; it does not go with --format %s",
              pbd_Report_FormatName(o->format));
  if (r->float_bits && (d->float_margin > 0 || d->float_fraction > 0 ||
                        opt_any_scoped_above_zero(&o->scoped_margins) ||
                        opt_any_scoped_above_zero(&o->scoped_fractions)))
    die_usage(cmd, "%s", "--float-bits and a float tolerance contradict each other");
  if (o->config && o->no_config)
    die_usage(cmd, "%s", "--config and --no-config contradict each other");
  if (o->record_key && (o->explain || o->summary))
    die_usage(cmd, "%s", "--explain and --summary are for single comparisons and -r, not --record-key");
  if (o->patch && (o->recursive || o->record_key || o->quiet || o->explain || o->report.stat))
    die_usage(cmd, "%s", "--format patch writes one patch for two files: not with -r, --record-key, -q, --explain or --stat");
  if ((o->summary || (o->jobs && !o->record_key && !o->noise)) && !o->recursive)
    die_usage(cmd, "%s", "--summary and --jobs are for -r (directories) and --record-key");
}

/* What follows from the options rather than being one. */
static void derive(pbd_CliOptions *o) {
  o->report.color = pbd_Report_ShouldColor(o->color ? o->color : "auto", STDOUT_FILENO) &&
                    pbd_Report_HasColor(o->format);
}

static void defaults(pbd_CliOptions *o) {
  memset(o, 0, sizeof *o);
  o->skip_prefix = -1;
}

/* pbdiff [COMMAND] --complete-values: a line "--NAME VALUE..." for each of
 * the command's options whose argument is a word from a list ("--NAME= ..."
 * where the argument is optional, so only --NAME=VALUE takes it), for the
 * bash completion (scripts/pbdiff.bash-completion), so that it never lags
 * behind the table. */
static _Noreturn void print_values(pbd_Command cmd) {
  for (size_t i = 0; i < kOptionCount; i++) {
    const Option *opt = &kOptions[i];
    if (opt->values && (opt->commands & (1u << cmd)))
      printf("--%s%s %s\n", opt->name, opt->arg && opt->arg[0] == '[' ? "=" : "", opt->values());
  }
  exit_after_output();
}

int pbd_Cli_ParseOptions(int argc, char **argv, pbd_Command cmd, pbd_CliOptions *o) {
  if (argc == 2 && !strcmp(argv[1], "--complete-values")) print_values(cmd);
  struct option longopts[kOptionCount + 1];
  char shortopts[2 * kOptionCount + 2];
  getopt_tables(longopts, shortopts);
  defaults(o);
  int c, li = -1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
    if (c == ':') die_usage(cmd, "option '%s' needs an argument", rejected_option(argv));
    const Option *opt = c >= 256 ? find_option(kOptions[c - 256].name, cmd) : short_option(c);
    if (!opt) die_usage(cmd, "unknown option '%s'", rejected_option(argv));
    if (!(opt->commands & (1u << cmd))) {
      char name[64];
      if (li >= 0) snprintf(name, sizeof name, "--%s", opt->name);
      else snprintf(name, sizeof name, "-%c", c);
      unsigned for_ = opt->commands;
      char why[160];
      snprintf(why, sizeof why, "option '%s' is for %s", name,
               for_ == kNoise ? "'pbdiff noise'"
               : for_ & kCompare ? "comparisons"
               : (for_ & kCat) && (for_ & kHash) ? "'pbdiff cat' and 'pbdiff hash'"
               : for_ & kCat ? "'pbdiff cat'" : "'pbdiff hash'");
      die_usage(cmd, "%s", why);
    }
    li = -1;
    if (!strcmp(opt->name, "help")) {
      fputs(pbd_Cli_Usage(cmd), stdout);
      exit_after_output();
    }
    if (!strcmp(opt->name, "version")) {
      printf("pbdiff %s (fingerprints %s)\n", PBDIFF_VERSION, PBDIFF_HASH_SCHEME);
      exit_after_output();
    }
    char why[512];
    if (!opt->set(o, opt, optarg, why, sizeof why)) die_usage(cmd, "%s", why);
    mark_given(o, (size_t)option_index(opt));
  }
  check_combinations(cmd, o);
  derive(o);
  /* the options as given, for the reports that show them (--format html):
   * getopt has moved them before the operands */
  static pbd_Buf given;
  pbd_Buf_Truncate(&given, 0);
  for (int i = 1; i < optind; i++)
    pbd_Buf_Printf(&given, "%s%s", given.len ? " " : "", argv[i]);
  o->report.options_text = given.oom ? NULL : given.data;
  return optind;
}

enum { kLists = 12 };

/* The options' lists (each owns its array of pointers). */
static void option_lists(pbd_CliOptions *o, pbd_StrList *lists[kLists]) {
  pbd_StrList *all[kLists] = {&o->schemas, &o->protos, &o->includes, &o->left_schemas,
                              &o->right_schemas, &o->keys, &o->sets, &o->ignores, &o->labels,
                              &o->scoped_margins, &o->scoped_fractions, &o->bytes_as};
  memcpy(lists, all, sizeof all);
}

static void free_lists(pbd_CliOptions *o) {
  pbd_StrList *lists[kLists];
  option_lists(o, lists);
  for (size_t i = 0; i < kLists; i++) free((void *)lists[i]->v);
}

void pbd_Cli_FreeOptions(pbd_CliOptions *o) {
  free_lists(o);
  memset(o, 0, sizeof *o);
}

/* ---- .pbdiff keys -------------------------------------------------------------- */

int pbd_Cli_ConfigKey(const char *key) {
  for (size_t i = 0; i < kOptionCount; i++)
    if (kOptions[i].config_key && !strcmp(kOptions[i].config_key, key)) return (int)i;
  return -1;
}

const char *pbd_Cli_ConfigKeyClosest(const char *key) {
  const char *keys[kOptionCount];
  for (size_t i = 0; i < kOptionCount; i++) keys[i] = kOptions[i].config_key;
  return pbd_Cli_Closest(key, keys, kOptionCount);
}

bool pbd_Cli_ConfigKeyIsFile(int key) { return kOptions[key].config_file; }

const char *pbd_Cli_ConfigKeyNames(void) {
  static char names[512];
  if (names[0]) return names;
  size_t k = 0;
  for (size_t i = 0; i < kOptionCount; i++) {
    if (!kOptions[i].config_key) continue;
    k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", k ? ", " : "", kOptions[i].config_key);
  }
  return names;
}

bool pbd_Cli_CheckConfigValue(int key, const char *value, char *why, size_t n) {
  pbd_CliOptions scratch;
  defaults(&scratch);
  bool ok = kOptions[key].set(&scratch, &kOptions[key], value, why, n);
  free_lists(&scratch);
  return ok;
}

/* Whether the command line gave the option itself or one it yields to. */
static bool command_line_wins(const pbd_CliOptions *base, const Option *opt) {
  if (was_given(base, (size_t)option_index(opt))) return true;
  const char *p = opt->yields_to ? opt->yields_to : "";
  while (*p) {
    size_t n = strcspn(p, " ");
    for (size_t i = 0; i < kOptionCount; i++)
      if (strlen(kOptions[i].name) == n && !strncmp(kOptions[i].name, p, n) &&
          was_given(base, i))
        return true;
    p += n + (p[n] == ' ');
  }
  return false;
}

pbd_CliOptions pbd_Cli_ApplyConfig(const pbd_CliOptions *base, const int *keys,
                                   const char *const *values, size_t n) {
  pbd_CliOptions o = *base;
  pbd_StrList *lists[kLists];
  option_lists(&o, lists);
  for (size_t i = 0; i < kLists; i++) { /* its own copies */
    pbd_StrList from = *lists[i];
    *lists[i] = (pbd_StrList){NULL, 0};
    for (size_t k = 0; k < from.n; k++) opt_push(lists[i], from.v[k]);
  }
  for (size_t i = 0; i < n; i++) {
    const Option *opt = &kOptions[keys[i]];
    char why[512];
    if (!command_line_wins(base, opt)) opt->set(&o, opt, values[i], why, sizeof why);
  }
  derive(&o);
  return o;
}
