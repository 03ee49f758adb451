/* pbdiff — command-line front end: options, inputs, schema, then the
 * compare pipeline (tree -> diff -> reporter).  Exit status as diff(1):
 * 0 equal, 1 different, 2 trouble. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diff.h"
#include "explain.h"
#include "input.h"
#include "pbdiff.h"
#include "report.h"
#include "schema.h"
#include "tree.h"
#include "wire.h"


enum { kExitEqual = 0, kExitDifferent = 1, kExitTrouble = 2 };

typedef struct {
  const char **schemas;
  size_t nschemas;
  const char **protos;
  size_t nprotos;
  const char **includes;
  size_t nincludes;
  const char *type;
  bool quiet;
  pbd_ReportFormat format;
  pbd_ReportOptions report;
  const char *color;
  bool explain;
  bool delimited;
  pbd_TreeOptions tree;
  pbd_DiffOptions diff;
  /* matching rules as given, resolved against the schema once loaded */
  const char **sets, **keys, **ignores;
  size_t nsets, nkeys, nignores;
  pbd_MatchRule *rules;
  pbd_IgnoreRule *ignore_rules;
} Options;

static const char kUsage[] =
    "Usage: pbdiff [OPTIONS] LEFT RIGHT\n"
    "Compare two binary protobuf payloads by meaning, not by bytes.\n"
    "LEFT or RIGHT may be '-' for standard input.\n"
    "\n"
    "Schema (without one, fields are compared by number; see docs/semantics.md):\n"
    "  -s, --schema FILE      serialized FileDescriptorSet, as written by\n"
    "                         'protoc --include_imports -o FILE'; repeatable\n"
    "      --proto FILE       .proto source, compiled by running protoc; repeatable\n"
    "  -I, --proto-path DIR   import directory for --proto; repeatable\n"
    "                         (/usr/include is searched last, for the well-known types)\n"
    "  -t, --type NAME        fully qualified message type, e.g. onnx.ModelProto\n"
    "\n"
    "Comparison:\n"
    "      --equivalent       a field set to its default equals an unset field\n"
    "      --ignore-unknown   unknown fields take no part in the comparison\n"
    "      --strict           an unknown field is an error (exit 2)\n"
    "      --float-bits       compare floats by bit pattern (NaN != NaN, -0 != 0)\n"
    "      --delimited        inputs are streams of varint length-prefixed messages,\n"
    "                         compared message by message\n"
    "      --max-depth N      nesting limit for messages and groups (default 100)\n"
    "\n"
    "Matching (FIELD is a full field name, package.Message.field):\n"
    "      --key FIELD=SUB[+SUB...]  match the elements of a repeated message field\n"
    "                         by key subfields; paths name the key: node[name=\"conv1\"]\n"
    "      --repeated-as-set FIELD   elements of FIELD are a multiset (order ignored)\n"
    "      --report-moves     report keyed or set elements whose position changed\n"
    "      --ignore FIELD|PATTERN    leave out a field (full name) or a path pattern\n"
    "                         with [*] for any index or key: graph.node[*].doc_string\n"
    "      --partial          compare only the fields set in LEFT (the expected side)\n"
    "      --float-margin X   floats equal when |a-b| <= X\n"
    "      --float-fraction Y floats equal when |a-b| <= Y * max(|a|,|b|)\n"
    "\n"
    "Output:\n"
    "  -q, --quiet            print nothing; the exit status tells\n"
    "      --format FMT       'text' (default): one line per difference, grouped\n"
    "                         under a 'MESSAGE-PATH (Type):' header:\n"
    "                         'FIELD: LEFT -> RIGHT', 'FIELD: added VALUE',\n"
    "                         'FIELD: removed VALUE', 'FIELD: unset -> set to VALUE',\n"
    "                         'FIELD: moved [I] -> [J]'; 'json': one object, see\n"
    "                         docs/json-format.md\n"
    "      --color[=WHEN]     colour the text report: auto (default: when standard\n"
    "                         output is a terminal and NO_COLOR is unset), always, never\n"
    "      --max-diffs N      show the first N differences, then how many more\n"
    "      --stat             counts by kind and by top-level field instead of the list\n"
    "      --explain          when the inputs are equal but their bytes differ, list the\n"
    "                         encoding differences (field order, packed, varints, ...)\n"
    "  -h, --help             show this help and exit\n"
    "      --version          show the version and exit\n"
    "\n"
    "Exit status: 0 if the inputs are equal, 1 if they differ, 2 on trouble\n"
    "(bad option, unreadable file, malformed input, bad schema).\n"
    "\n"
    "Examples:\n"
    "  pbdiff --proto /usr/include/onnx/onnx.proto -t onnx.ModelProto a.onnx b.onnx\n"
    "  pbdiff -q -s api.desc -t acme.Reply expected.pb actual.pb && echo same\n";

static void die_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "pbdiff: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'pbdiff --help' for more information.\n");
  exit(kExitTrouble);
}

static void push(const char ***list, size_t *n, const char *v) {
  const char **l = realloc((void *)*list, sizeof **list * (*n + 1));
  if (!l) {
    fprintf(stderr, "pbdiff: out of memory\n");
    exit(kExitTrouble);
  }
  l[(*n)++] = v;
  *list = l;
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

enum {
  kOptProto = 256, kOptFormat, kOptDelimited, kOptEquivalent, kOptIgnoreUnknown, kOptStrict,
  kOptFloatBits, kOptMaxDepth, kOptVersion, kOptKey, kOptSet, kOptMoves, kOptIgnore,
  kOptPartial, kOptMargin, kOptFraction, kOptColor, kOptMaxDiffs, kOptStat, kOptExplain,
};

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

static int parse_options(int argc, char **argv, Options *o) {
  static const struct option longopts[] = {
      {"schema", required_argument, NULL, 's'},
      {"proto", required_argument, NULL, kOptProto},
      {"proto-path", required_argument, NULL, 'I'},
      {"type", required_argument, NULL, 't'},
      {"quiet", no_argument, NULL, 'q'},
      {"format", required_argument, NULL, kOptFormat},
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
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, kOptVersion},
      {NULL, 0, NULL, 0},
  };
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":s:I:t:qh", longopts, NULL)) != -1) {
    switch (c) {
      case 's': push(&o->schemas, &o->nschemas, optarg); break;
      case kOptProto: push(&o->protos, &o->nprotos, optarg); break;
      case 'I': push(&o->includes, &o->nincludes, optarg); break;
      case 't': o->type = optarg; break;
      case 'q': o->quiet = true; break;
      case kOptFormat:
        if (strcmp(optarg, "text") == 0) o->format = kPbd_Report_Text;
        else if (strcmp(optarg, "json") == 0) o->format = kPbd_Report_Json;
        else die_usage("unknown format '%s' (use text or json)", optarg);
        break;
      case kOptDelimited: o->delimited = true; break;
      case kOptEquivalent: o->tree.equivalent = true; break;
      case kOptIgnoreUnknown: o->tree.ignore_unknown = true; break;
      case kOptStrict: o->tree.strict = true; break;
      case kOptFloatBits: o->tree.float_bits = o->diff.float_bits = true; break;
      case kOptKey: push(&o->keys, &o->nkeys, optarg); break;
      case kOptSet: push(&o->sets, &o->nsets, optarg); break;
      case kOptMoves: o->diff.report_moves = true; break;
      case kOptIgnore: push(&o->ignores, &o->nignores, optarg); break;
      case kOptPartial: o->diff.partial = true; break;
      case kOptMargin: o->diff.float_margin = parse_tolerance("--float-margin", optarg); break;
      case kOptFraction: o->diff.float_fraction = parse_tolerance("--float-fraction", optarg); break;
      case kOptColor:
        o->color = optarg ? optarg : "always"; /* --color alone, as git */
        if (!pbd_Report_ColorModeValid(o->color))
          die_usage("--color wants auto, always or never, not '%s'", o->color);
        break;
      case kOptMaxDiffs: {
        char *end;
        long long v = strtoll(optarg, &end, 10);
        if (*end || end == optarg || v < 1) die_usage("--max-diffs wants a number >= 1, not '%s'", optarg);
        o->report.max_diffs = (size_t)v;
        break;
      }
      case kOptStat: o->report.stat = true; break;
      case kOptExplain: o->explain = true; break;
      case kOptMaxDepth: {
        char *end;
        long v = strtol(optarg, &end, 10);
        if (*end || v < 1 || v > 10000) die_usage("--max-depth wants a number from 1 to 10000, not '%s'", optarg);
        o->tree.max_depth = (int)v;
        break;
      }
      case 'h': fputs(kUsage, stdout); exit_after_output();
      case kOptVersion: printf("pbdiff %s\n", PBDIFF_VERSION); exit_after_output();
      case ':': die_usage("option '%s' needs an argument", option_name(argv)); break;
      default: die_usage("unknown option '%s'", option_name(argv)); break;
    }
  }
  if (o->tree.strict && o->tree.ignore_unknown)
    die_usage("%s", "--strict and --ignore-unknown contradict each other");
  if (o->nincludes && !o->nprotos) die_usage("%s", "-I is for --proto");
  if (o->report.stat && o->format == kPbd_Report_Json)
    die_usage("%s", "--stat is a text report; it does not go with --format json");
  o->report.color = pbd_Report_ShouldColor(o->color ? o->color : "auto", STDOUT_FILENO) &&
                    o->format == kPbd_Report_Text;
  if (o->diff.float_bits && (o->diff.float_margin > 0 || o->diff.float_fraction > 0))
    die_usage("%s", "--float-bits and a float tolerance contradict each other");
  return optind;
}

/* Loads every -s and --proto into one pool; NULL when no schema was given. */
static pbd_DefPool *load_schema(const Options *o) {
  if (!o->nschemas && !o->nprotos) {
    if (o->type) die_usage("%s", "--type needs a schema (-s or --proto)");
    return NULL;
  }
  if (!o->type) die_usage("%s", "a schema needs --type, e.g. -t onnx.ModelProto");
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  char msg[1200];
  if (!pool) {
    fprintf(stderr, "pbdiff: out of memory\n");
    exit(kExitTrouble);
  }
  for (size_t i = 0; i < o->nschemas; i++) {
    pbd_Input in;
    if (!pbd_Input_Open(&in, o->schemas[i], &s)) {
      pbd_Status_Format(&s, o->schemas[i], msg, sizeof msg);
      fprintf(stderr, "pbdiff: %s\n", msg);
      exit(kExitTrouble);
    }
    /* The loader's messages already start with the set's name. */
    if (!pbd_DefPool_AddFileDescriptorSet(pool, in.data, in.size, o->schemas[i], &s)) {
      pbd_Status_Format(&s, NULL, msg, sizeof msg);
      size_t n = strlen(o->schemas[i]);
      bool proto = n > 6 && strcmp(o->schemas[i] + n - 6, ".proto") == 0;
      fprintf(stderr, "pbdiff: %s%s\n", msg, proto ? " (-s wants a descriptor set; use --proto for .proto files)" : "");
      exit(kExitTrouble);
    }
    pbd_Input_Close(&in);
  }
  if (o->nprotos && !pbd_DefPool_AddProtoFiles(pool, o->protos, o->nprotos, o->includes,
                                               o->nincludes, &s)) {
    pbd_Status_Format(&s, NULL, msg, sizeof msg);
    fprintf(stderr, "pbdiff: %s\n", msg);
    exit(kExitTrouble);
  }
  if (!pbd_DefPool_Finalize(pool, &s)) {
    pbd_Status_Format(&s, "schema", msg, sizeof msg);
    fprintf(stderr, "pbdiff: %s\n", msg);
    exit(kExitTrouble);
  }
  return pool;
}

/* Prints "pbdiff: NAME: MSG at byte N (in PATH)". */
static void report_input_error(const pbd_Input *in, const pbd_Status *s) {
  char msg[1200];
  pbd_Status_Format(s, pbd_Input_DisplayName(in), msg, sizeof msg);
  fprintf(stderr, "pbdiff: %s\n", msg);
}

typedef struct {
  size_t begin, end; /* message bytes in the input */
} Span;

/* Splits a delimited stream into message spans. */
static bool split_delimited(const pbd_Input *in, Span **spans, size_t *n, pbd_Status *s) {
  const uint8_t *p = in->data, *end = in->data + in->size;
  size_t cap = 0;
  *spans = NULL;
  *n = 0;
  while (p < end) {
    uint64_t len;
    const uint8_t *q = pbd_Wire_ReadVarint(p, end, &len);
    if (!q) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(p - in->data),
                            "%s in length prefix of message %zu", pbd_Wire_VarintError(p, end), *n);
      return false;
    }
    if (len > (uint64_t)(end - q)) {
      pbd_Status_SetErrorAt(s, kPbd_Status_Malformed, (size_t)(p - in->data),
                            "message %zu of %llu bytes runs past the end (only %zu left)", *n,
                            (unsigned long long)len, (size_t)(end - q));
      return false;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      Span *ns = realloc(*spans, sizeof *ns * cap);
      if (!ns) {
        pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
        return false;
      }
      *spans = ns;
    }
    (*spans)[(*n)++] = (Span){(size_t)(q - in->data), (size_t)(q - in->data + len)};
    p = q + len;
  }
  return true;
}

typedef struct {
  pbd_Input in;
  pbd_Arena *arena;
  Span *spans;
  size_t nspans;
  pbd_Message **roots;
} Side;

/* Opens and parses one input completely (so that a malformed input is an
 * error before anything is reported). */
static bool load_side(Side *sd, const char *path, const pbd_MessageDef *type, const Options *o,
                      const pbd_TreeOptions *topts) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  memset(sd, 0, sizeof *sd);
  if (!pbd_Input_Open(&sd->in, path, &s)) {
    report_input_error(&sd->in, &s);
    return false;
  }
  sd->arena = pbd_Arena_New();
  if (!sd->arena) {
    fprintf(stderr, "pbdiff: out of memory\n");
    return false;
  }
  if (o->delimited) {
    if (!split_delimited(&sd->in, &sd->spans, &sd->nspans, &s)) {
      report_input_error(&sd->in, &s);
      return false;
    }
  } else {
    sd->spans = malloc(sizeof *sd->spans);
    if (!sd->spans) return false;
    sd->spans[0] = (Span){0, sd->in.size};
    sd->nspans = 1;
  }
  sd->roots = calloc(sd->nspans ? sd->nspans : 1, sizeof *sd->roots);
  if (!sd->roots) return false;
  for (size_t i = 0; i < sd->nspans; i++) {
    sd->roots[i] = pbd_Tree_Parse(type, sd->in.data, sd->spans[i].begin, sd->spans[i].end,
                                  topts, sd->arena, &s);
    if (!sd->roots[i]) {
      if (o->delimited) {
        char seg[32];
        snprintf(seg, sizeof seg, "[%zu]", i);
        pbd_Status_PrependPath(&s, seg);
      }
      report_input_error(&sd->in, &s);
      return false;
    }
  }
  return true;
}

static void free_side(Side *sd) {
  pbd_Arena_Free(sd->arena);
  free(sd->spans);
  free(sd->roots);
  pbd_Input_Close(&sd->in);
}

static int count_edit(void *ctx, const pbd_Edit *e) {
  (void)e;
  ++*(size_t *)ctx;
  return 1; /* quiet: the first difference settles the verdict */
}

/* Compares the parsed sides; returns the number of differences or -1. */
static long compare(const Side *l, const Side *r, const Options *o, pbd_Reporter *rep) {
  size_t total = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = l->nspans < r->nspans ? l->nspans : r->nspans;
  size_t most = l->nspans > r->nspans ? l->nspans : r->nspans;
  for (size_t i = 0; i < most; i++) {
    char prefix[32] = "";
    if (o->delimited) snprintf(prefix, sizeof prefix, "[%zu]", i);
    if (i >= n) { /* a whole message only on one side */
      const pbd_Message *m = i < l->nspans ? l->roots[i] : r->roots[i];
      pbd_Value v = {.kind = kPbd_Value_Message, .m = m};
      pbd_Value none = {.kind = kPbd_Value_None};
      pbd_Edit e = {i < l->nspans ? kPbd_Edit_Removed : kPbd_Edit_Added, prefix, 0, NULL,
                    i < l->nspans ? v : none, i < l->nspans ? none : v,
                    i < l->nspans ? (int64_t)i : -1, i < l->nspans ? -1 : (int64_t)i};
      total++;
      if (o->quiet) return (long)total;
      pbd_Reporter_Edit(rep, &e);
      continue;
    }
    pbd_DiffOptions d = o->diff;
    d.path_prefix = prefix;
    size_t k = 0;
    int rc = o->quiet ? pbd_Diff_Run(l->roots[i], r->roots[i], &d, count_edit, &k, NULL, &s)
                      : pbd_Diff_Run(l->roots[i], r->roots[i], &d, pbd_Reporter_Edit, rep, &k, &s);
    if (rc < 0) {
      fprintf(stderr, "pbdiff: %s\n", s.msg);
      return -1;
    }
    total += k;
    if (o->quiet && total) return (long)total;
  }
  return (long)total;
}

/* Turns --key, --repeated-as-set and --ignore into rules.  An --ignore that
 * names a field of the schema ignores that field everywhere; anything else
 * is a path pattern. */
static bool resolve_rules(Options *o, const pbd_DefPool *pool) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  if ((o->nkeys || o->nsets) && !pool) {
    fprintf(stderr, "pbdiff: --key and --repeated-as-set need a schema (-s or --proto)\n");
    return false;
  }
  o->rules = calloc(o->nkeys + o->nsets + 1, sizeof *o->rules);
  o->ignore_rules = calloc(o->nignores + 1, sizeof *o->ignore_rules);
  if (!o->rules || !o->ignore_rules) {
    fprintf(stderr, "pbdiff: out of memory\n");
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < o->nkeys + o->nsets; i++) {
    bool key = i < o->nkeys;
    const char *spec = key ? o->keys[i] : o->sets[i - o->nkeys];
    if (!pbd_MatchRule_Parse(pool, key ? kPbd_Match_Key : kPbd_Match_Set, spec, &o->rules[n], &s)) {
      fprintf(stderr, "pbdiff: %s: %s\n", key ? "--key" : "--repeated-as-set", s.msg);
      return false;
    }
    for (size_t k = 0; k < n; k++)
      if (o->rules[k].field == o->rules[n].field) {
        fprintf(stderr, "pbdiff: two matching rules for %s\n", o->rules[n].field->full_name);
        return false;
      }
    n++;
  }
  for (size_t i = 0; i < o->nignores; i++) {
    const pbd_FieldDef *fd = pool ? pbd_DefPool_FindFieldByFullName(pool, o->ignores[i]) : NULL;
    if (fd) o->ignore_rules[i].field = fd;
    else o->ignore_rules[i].pattern = o->ignores[i];
  }
  o->diff.rules = o->rules;
  o->diff.rule_count = n;
  o->diff.ignores = o->ignore_rules;
  o->diff.ignore_count = o->nignores;
  return true;
}

static void free_options(Options *o) {
  free(o->schemas);
  free(o->protos);
  free(o->includes);
  free(o->keys);
  free(o->sets);
  free(o->ignores);
  free(o->rules);
  free(o->ignore_rules);
}

/* --explain: for each pair of messages equal in meaning whose bytes differ,
 * the encoding choices that differ (lib/explain.h), as text lines and as
 * the JSON value of the report's "encoding" key. */
static bool explain(const Side *l, const Side *r, const pbd_MessageDef *type, const Options *o,
                    pbd_Buf *text, pbd_Buf *json) {
  pbd_ExplainOptions eo = {o->tree.max_depth, o->tree.pool, o->tree.equivalent,
                           o->tree.ignore_unknown};
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t differing = 0;
  pbd_Buf_AppendStr(json, "[");
  for (size_t i = 0; i < l->nspans && i < r->nspans; i++) {
    size_t ln = l->spans[i].end - l->spans[i].begin, rn = r->spans[i].end - r->spans[i].begin;
    const uint8_t *lp = l->in.data + l->spans[i].begin, *rp = r->in.data + r->spans[i].begin;
    if (ln == rn && memcmp(lp, rp, ln) == 0) continue;
    pbd_EncodingProfile lprof, rprof;
    if (!pbd_Explain_Profile(type, l->in.data, l->spans[i].begin, l->spans[i].end, &eo, &lprof, &s) ||
        !pbd_Explain_Profile(type, r->in.data, r->spans[i].begin, r->spans[i].end, &eo, &rprof, &s)) {
      fprintf(stderr, "pbdiff: --explain: %s\n", s.msg);
      return false;
    }
    pbd_EncodingDiff d[kPbd_Encoding_Count];
    size_t n = pbd_Explain_Compare(&lprof, &rprof, d);
    if (o->delimited) pbd_Buf_Printf(text, "[%zu] ", i);
    pbd_Buf_AppendStr(text, "equal in meaning, but the bytes differ:\n");
    pbd_Buf buf = {0};
    pbd_Explain_FormatText(&buf, d, n);
    for (const char *p = buf.data; p && *p;) { /* indent each line */
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
      pbd_Buf_AppendStr(text, "  ");
      pbd_Buf_Append(text, p, len);
      p += len;
    }
    if (n == 0) pbd_Buf_AppendStr(text, "  (in no encoding choice that --explain counts)\n");
    pbd_Buf_Truncate(&buf, 0);
    pbd_Explain_FormatJson(&buf, d, n);
    if (differing++) pbd_Buf_AppendStr(json, ", ");
    if (o->delimited) pbd_Buf_Printf(json, "{\"message\": %zu, \"encoding\": %s}", i, buf.data);
    else pbd_Buf_AppendStr(json, buf.data ? buf.data + 1 : "]"); /* the array's items */
    if (!o->delimited) pbd_Buf_Truncate(json, json->len - 1);   /* ... without its ']' */
    pbd_Buf_Free(&buf);
  }
  pbd_Buf_AppendStr(json, "]");
  if (!differing) pbd_Buf_AppendStr(text, "identical bytes\n");
  return !text->oom && !json->oom;
}

int main(int argc, char **argv) {
  Options o;
  memset(&o, 0, sizeof o);
  o.tree.hash_seed = pbd_RandomSeed(); /* crafted collisions cannot pass a CI gate */
  int first = parse_options(argc, argv, &o);
  if (argc - first != 2)
    die_usage("%s", argc - first < 2 ? "missing operand: need LEFT and RIGHT"
                                     : "too many operands: need LEFT and RIGHT");
  const char *lpath = argv[first], *rpath = argv[first + 1];
  if (strcmp(lpath, "-") == 0 && strcmp(rpath, "-") == 0)
    die_usage("%s", "only one of LEFT and RIGHT can be standard input");

  pbd_DefPool *pool = load_schema(&o);
  const pbd_MessageDef *type = NULL;
  if (pool) {
    type = pbd_DefPool_FindMessageByName(pool, o.type);
    if (!type) {
      fprintf(stderr, "pbdiff: message type '%s' is not in the schema\n", o.type);
      pbd_DefPool_Free(pool);
      free_options(&o);
      return kExitTrouble;
    }
  }
  o.tree.pool = pool;
  if (!resolve_rules(&o, pool)) {
    pbd_DefPool_Free(pool);
    free_options(&o);
    return kExitTrouble;
  }

  Side l = {0}, r = {0};
  int status = kExitTrouble;
  /* RIGHT shares every element whose bytes it has in common with LEFT. */
  pbd_ElementIndex *idx = pbd_ElementIndex_New();
  pbd_TreeOptions lopts = o.tree, ropts = o.tree;
  lopts.record = idx;
  ropts.reuse = idx;
  bool ok = load_side(&l, lpath, type, &o, &lopts);
  ok = ok && load_side(&r, rpath, type, &o, &ropts);
  if (ok) {
    pbd_Reporter *rep = o.quiet ? NULL : pbd_Reporter_New(o.format, stdout, &o.report);
    if (!o.quiet && !rep) {
      fprintf(stderr, "pbdiff: out of memory\n");
    } else {
      long n = compare(&l, &r, &o, rep);
      if (n == 0 && rep && o.explain) {
        pbd_Buf text = {0}, json = {0};
        if (explain(&l, &r, type, &o, &text, &json)) pbd_Reporter_Explain(rep, text.data, json.data);
        else n = -1;
        pbd_Buf_Free(&text);
        pbd_Buf_Free(&json);
      }
      if (n >= 0) {
        status = n ? kExitDifferent : kExitEqual;
        if (rep && !pbd_Reporter_Finish(rep, n == 0)) {
          fprintf(stderr, "pbdiff: cannot write the report\n");
          status = kExitTrouble;
        }
      }
      pbd_Reporter_Free(rep);
    }
  }
  free_side(&r);
  free_side(&l);
  pbd_ElementIndex_Free(idx);
  pbd_DefPool_Free(pool);
  free_options(&o);
  if (fflush(stdout) != 0 && status != kExitTrouble) {
    fprintf(stderr, "pbdiff: cannot write to standard output\n");
    status = kExitTrouble;
  }
  return status;
}
