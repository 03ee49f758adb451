/* pbdiff cat [OPTIONS] FILE — a canonical text form of a message, for git's
 * textconv: two inputs equal in meaning (docs/semantics.md, under the same
 * options) print the same bytes, and inputs that differ print different
 * bytes, so a line diff of two canonical forms shows only semantic changes.
 *
 * The form is protobuf text format, multiline, two spaces per level, one
 * value per line, read off the canonical tree (lib/tree/tree.h), which already
 * has the fields in number order, parts merged, last values won, map entries
 * sorted by key and deduplicated, and defaults normalised:
 *
 *   - a field by its name; an extension as [full.name]; an unknown field by
 *     its number, its value by its wire type: varint `5: 150`, fixed32
 *     `5: 0x00000096`, fixed64 `5: 0x0000000000000096` (as protobuf's C++
 *     TextFormat prints unknown fields), LEN as bytes `5: "..."` or, when it
 *     parses as a message, `5 { ... }`, a group `5 {  # group`;
 *   - repeated values one per line, in order;
 *   - a map entry as `name {` `key: K` `value: V` `}`, key and value always
 *     written (the default where the entry leaves one out);
 *   - an Any whose type is in the schema as `[type.googleapis.com/T] { ... }`;
 *   - strings and bytes whole (never cut), escaped as text format does; a
 *     literal longer than 76 characters is folded into adjacent literals, one
 *     a line under the field ("a" "b" reads as "ab"), never inside an escape
 *     or a character, so that a textconv diff of large tensors is by line;
 *   - floats in the shortest form that reads back; all NaNs as `nan`; a zero
 *     as `0` whatever its sign, except where a zero is only present because
 *     its sign bit is set (a proto3 implicit field or a map entry's key or
 *     value, where +0 is absent): there `-0` (rule 10).  With --float-bits
 *     every -0 keeps its sign, and a NaN other than the quiet NaN is followed
 *     by its bits: `nan  # bits 0xffc00001`.
 *
 * With --delimited, each message comes after a line `# message N` (N from 0,
 * as in paths); with --framing confluent or confluent-value, the line also
 * gives the record's schema id and message indexes:
 * `# message 0: schema id 7, message indexes [0]`.  An empty message prints nothing.
 *
 * With --format binary, cat writes the canonical protobuf bytes instead
 * (lib/write/write.h): a normaliser, after which `cmp` tells meanings apart;
 * with --delimited each message follows its varint length.
 *
 * With --textconv (git's textconv filter, docs/git.md), a file that cannot
 * be read as protobuf (a Git LFS pointer, a corrupt or stray file) is not an
 * error, since git would stop the whole diff: it prints
 *   # not read as protobuf: WHY
 * then the file itself when it is short UTF-8 text (an LFS pointer's oid
 * and size show as lines), else `# N bytes, xxh3:HEX`, and exits 0. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "cli.h"
#include "pbdiff/format/format.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/write/write.h"

typedef struct {
  pbd_Buf buf;
  FILE *out;
  bool float_bits;
  bool write_failed;
} Printer;

/* Writes out what is buffered when it has grown large (inputs with large
 * bytes fields print much text). */
static void maybe_flush(Printer *p, bool force) {
  if (p->buf.len == 0 || (!force && p->buf.len < (1u << 16))) return;
  if (!p->buf.oom && fwrite(p->buf.data, 1, p->buf.len, p->out) != p->buf.len)
    p->write_failed = true;
  pbd_Buf_Truncate(&p->buf, 0);
}

static void indent(Printer *p, int level) {
  for (int i = 0; i < level; i++) pbd_Buf_Append(&p->buf, "  ", 2);
}

/* Whether a present zero in this field can only be -0: the tree drops the
 * +0 of a singular field without presence and of a map entry's key and
 * value (compared by bits), so what is left there is -0, which differs
 * from absent (rule 10). */
static bool zero_keeps_sign(const pbd_FieldDef *fd) {
  if (!fd || fd->is_repeated) return false;
  return !fd->has_presence || (fd->containing && fd->containing->is_map_entry);
}

static void write_float(Printer *p, const pbd_Value *v) {
  bool zero, nan, quiet_nan;
  if (v->kind == kPbd_Value_Float) {
    uint32_t b = (uint32_t)v->u;
    float x;
    memcpy(&x, &b, sizeof x);
    zero = x == 0;
    nan = isnan(x);
    quiet_nan = b == 0x7fc00000u;
  } else {
    double x;
    memcpy(&x, &v->u, sizeof x);
    zero = x == 0;
    nan = isnan(x);
    quiet_nan = v->u == 0x7ff8000000000000ull;
  }
  if (zero && !p->float_bits && !zero_keeps_sign(v->field)) {
    pbd_Buf_AppendChar(&p->buf, '0');
    return;
  }
  pbd_TextOptions o;
  memset(&o, 0, sizeof o);
  pbd_Format_TextValue(&p->buf, v, &o); /* shortest round trip; nan, inf, -inf, -0 */
  /* --float-bits tells NaNs apart: the bits of any but the quiet NaN */
  if (nan && p->float_bits && !quiet_nan) {
    if (v->kind == kPbd_Value_Float) pbd_Buf_Printf(&p->buf, "  # bits 0x%08" PRIx32, (uint32_t)v->u);
    else pbd_Buf_Printf(&p->buf, "  # bits 0x%016" PRIx64, v->u);
  }
}

static void write_body(Printer *p, const pbd_Message *m, int level);

/* `{` body `}` (or `{ }`), the opening brace already preceded by the name. */
static void write_braced(Printer *p, const pbd_Message *m, int level, const char *note) {
  if (!m || (pbd_Message_FieldCount(m) == 0 && !pbd_Message_AnyPayload(m))) {
    pbd_Buf_AppendStr(&p->buf, "{ }");
    if (note) pbd_Buf_AppendStr(&p->buf, note);
    pbd_Buf_AppendChar(&p->buf, '\n');
    return;
  }
  pbd_Buf_AppendChar(&p->buf, '{');
  if (note) pbd_Buf_AppendStr(&p->buf, note);
  pbd_Buf_AppendChar(&p->buf, '\n');
  write_body(p, m, level + 1);
  indent(p, level);
  pbd_Buf_AppendStr(&p->buf, "}\n");
}

/* The longest a string or bytes literal's line holds (between its quotes). */
enum { kFoldWidth = 76 };

/* The length of the escape or character at p (n bytes left): `\ooo`, `\c`,
 * a UTF-8 sequence (lead and continuation bytes), or one byte. */
static size_t literal_token(const char *p, size_t n) {
  if (p[0] == '\\') return n >= 4 && p[1] >= '0' && p[1] <= '7' ? 4 : n >= 2 ? 2 : 1;
  size_t k = 1;
  if ((unsigned char)p[0] >= 0xc0)
    while (k < n && ((unsigned char)p[k] & 0xc0) == 0x80) k++;
  return k;
}

/* A long string or bytes literal (the buffer from `start` on, `"..."`) folded
 * into adjacent literals of at most kFoldWidth characters, one a line at
 * `level` ("a" "b" reads as "ab" in text format): a large model's tensor
 * bytes then diff line by line, not as one line of megabytes.  Never inside
 * an escape or a UTF-8 character, so that the form stays canonical. */
static void fold_literal(Printer *p, size_t start, int level) {
  pbd_Buf *b = &p->buf;
  if (b->oom || b->len - start <= kFoldWidth + 2 || b->data[start] != '"' || b->data[b->len - 1] != '"')
    return;
  pbd_Buf body = {0};
  pbd_Buf_Append(&body, b->data + start + 1, b->len - start - 2);
  pbd_Buf_Truncate(b, start);
  pbd_Buf_AppendChar(b, '"');
  for (size_t i = 0, line = 0; i < body.len;) {
    size_t k = literal_token(body.data + i, body.len - i);
    if (line + k > kFoldWidth) {
      pbd_Buf_AppendStr(b, "\"\n");
      indent(p, level);
      pbd_Buf_AppendChar(b, '"');
      line = 0;
    }
    pbd_Buf_Append(b, body.data + i, k);
    line += k, i += k;
  }
  pbd_Buf_AppendChar(b, '"');
  if (body.oom) b->oom = true;
  pbd_Buf_Free(&body);
}

/* One line `name: value` (or `name {` ... `}`) at `level`; the name is
 * already written. */
static void write_value(Printer *p, const pbd_Value *v, int level) {
  switch (v->kind) {
    case kPbd_Value_Message:
    case kPbd_Value_LenMessage:
      pbd_Buf_AppendChar(&p->buf, ' ');
      write_braced(p, v->m, level, NULL);
      return;
    case kPbd_Value_Group:
      pbd_Buf_AppendChar(&p->buf, ' ');
      write_braced(p, v->m, level, "  # group");
      return;
    case kPbd_Value_Float:
    case kPbd_Value_Double:
      pbd_Buf_AppendStr(&p->buf, ": ");
      write_float(p, v);
      break;
    case kPbd_Value_Fixed32:
      pbd_Buf_Printf(&p->buf, ": 0x%08" PRIx32, (uint32_t)v->u);
      break;
    case kPbd_Value_Fixed64:
      pbd_Buf_Printf(&p->buf, ": 0x%016" PRIx64, v->u);
      break;
    default: {
      pbd_TextOptions o;
      memset(&o, 0, sizeof o); /* no cutting, plain text format */
      pbd_Buf_AppendStr(&p->buf, ": ");
      size_t start = p->buf.len;
      pbd_Format_TextValue(&p->buf, v, &o);
      if (v->kind == kPbd_Value_String || v->kind == kPbd_Value_Bytes || v->kind == kPbd_Value_Len)
        fold_literal(p, start, level + 1);
      break;
    }
  }
  pbd_Buf_AppendChar(&p->buf, '\n');
}

static void write_name(Printer *p, const pbd_Field *f) {
  if (!f->def) {
    pbd_Buf_Printf(&p->buf, "%" PRIu32, f->number);
  } else if (f->def->is_extension) {
    pbd_Buf_AppendChar(&p->buf, '[');
    pbd_Buf_AppendStr(&p->buf, f->def->full_name);
    pbd_Buf_AppendChar(&p->buf, ']');
  } else {
    pbd_Buf_AppendStr(&p->buf, f->def->name);
  }
}

/* A map entry: key and value always written, the default where the entry
 * leaves one out (rule 5). */
static void write_entry(Printer *p, const pbd_Message *e, int level) {
  pbd_Buf_AppendStr(&p->buf, " {\n");
  static const char *const names[2] = {"key", "value"};
  for (uint32_t n = 1; n <= 2; n++) {
    pbd_Value v = pbd_MapEntry_Part(e, n);
    indent(p, level + 1);
    pbd_Buf_AppendStr(&p->buf, names[n - 1]);
    if (v.kind == kPbd_Value_None) { /* not in the schema: cannot happen for a map */
      pbd_Buf_AppendStr(&p->buf, " { }\n");
      continue;
    }
    write_value(p, &v, level + 1);
  }
  indent(p, level);
  pbd_Buf_AppendStr(&p->buf, "}\n");
}

static void write_body(Printer *p, const pbd_Message *m, int level) {
  if (!m) return;
  if (pbd_Message_AnyPayload(m)) { /* rule 11: the payload by meaning, under its type URL */
    pbd_StrView url = pbd_Message_AnyTypeUrl(m);
    indent(p, level);
    pbd_Buf_AppendChar(&p->buf, '[');
    pbd_Buf_Append(&p->buf, url.data, url.size);
    pbd_Buf_AppendStr(&p->buf, "] ");
    write_braced(p, pbd_Message_AnyPayload(m), level, NULL);
    return;
  }
  for (uint32_t fi = 0; fi < pbd_Message_FieldCount(m); fi++) {
    const pbd_Field *f = &pbd_Message_Fields(m)[fi];
    for (uint32_t i = 0; i < f->count; i++) {
      indent(p, level);
      write_name(p, f);
      if (f->def && f->def->is_map) {
        write_entry(p, f->v.msgs[i], level);
      } else {
        pbd_Value v = pbd_Field_Value(f, i);
        write_value(p, &v, level);
      }
      maybe_flush(p, false);
    }
  }
}

int pbd_Cli_CatWrite(FILE *out, pbd_Message *const *roots, size_t n, bool delimited,
                     const pbd_FramedMeta *meta, bool float_bits, bool json) {
  Printer p = {.out = out, .float_bits = float_bits};
  for (size_t i = 0; i < n; i++) {
    if (json) { /* the JSON mapping of the canonical tree, a line each */
      pbd_Value v = {.kind = kPbd_Value_Message, .field = NULL, .m = roots[i]};
      pbd_Format_JsonValue(&p.buf, &v);
      pbd_Buf_AppendChar(&p.buf, '\n');
      maybe_flush(&p, false);
      continue;
    }
    if (delimited) pbd_Buf_Printf(&p.buf, "# message %zu", i);
    if (delimited && meta) { /* a changed schema id shows in a line diff */
      pbd_Buf_AppendStr(&p.buf, ": ");
      pbd_RecordMeta_Format(&p.buf, meta, i);
    }
    if (delimited) pbd_Buf_AppendChar(&p.buf, '\n');
    write_body(&p, roots[i], 0);
    maybe_flush(&p, false);
  }
  bool oom = p.buf.oom;
  maybe_flush(&p, true);
  pbd_Buf_Free(&p.buf);
  return oom ? -1 : p.write_failed ? 0 : 1;
}

/* --format binary: the canonical bytes (lib/write), after their varint
 * length in a stream (--delimited). */
static void write_binary(Printer *p, const pbd_Message *m, bool delimited, bool float_bits) {
  pbd_WriteOptions wo = {.float_bits = float_bits};
  if (!delimited) {
    pbd_Write_Message(&p->buf, m, &wo);
  } else {
    pbd_Buf one = {0};
    pbd_Write_Message(&one, m, &wo);
    if (one.oom) p->buf.oom = true;
    pbd_Write_Varint(&p->buf, one.len);
    pbd_Buf_Append(&p->buf, one.data, one.len);
    pbd_Buf_Free(&one);
  }
  maybe_flush(p, false);
}

/* Text that can stand in a line diff: UTF-8 without control characters
 * other than tab and line ends, not too long. */
static bool is_short_text(const uint8_t *p, size_t n) {
  if (n > (64u << 10)) return false;
  for (size_t i = 0; i < n;) {
    if (p[i] == 0 || (p[i] < 0x20 && !strchr("\t\n\r", p[i])) || p[i] == 0x7f) return false;
    size_t k = p[i] < 0x80 ? 1 : pbd_Utf8_SequenceLength(p + i, n - i);
    if (k == 0) return false;
    i += k;
  }
  return true;
}

/* --textconv: what stands for a file that is not read as protobuf. */
static void not_protobuf(const char *path, const pbd_CliError *e) {
  /* without the file's name: git's temporary names would differ each run */
  const char *why = e->msg;
  char quoted[1024];
  const char *names[2] = {path, pbd_Cli_Name(path, quoted, sizeof quoted)};
  for (int i = 0; i < 2 && why == e->msg; i++) {
    size_t n = strlen(names[i]);
    if (!strncmp(why, names[i], n) && why[n] == ':' && why[n + 1] == ' ') why += n + 2;
  }
  fputs("# not read as protobuf: ", stdout);
  pbd_Cli_PutEscaped(stdout, why); /* one line, whatever a name or payload put in it */
  putchar('\n');
  pbd_Input in;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!pbd_Input_Open(&in, path, &s)) return;
  if (is_short_text(in.data, in.size)) {
    fwrite(in.data, 1, in.size, stdout);
    if (in.size && in.data[in.size - 1] != '\n') putchar('\n');
  } else {
    printf("# %zu bytes, xxh3:%016llx\n", in.size, (unsigned long long)XXH3_64bits(in.data, in.size));
  }
  pbd_Input_Close(&in);
}

/* As git's textconv filter, the file is the last argument, whatever it
 * reads (git passes a work-tree file named `-dash.pb` as it is): with
 * --textconv before it, the last argument is never an option. */
static bool textconv_form(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--textconv")) return true;
  return false;
}

int pbd_Cli_Cat(int argc, char **argv) {
  pbd_CliOptions o;
  int tail = textconv_form(argc, argv) ? 1 : 0;
  int first = pbd_Cli_ParseOptions(argc - tail, argv, kPbd_Cmd_Cat, &o);
  if (tail && first == argc - tail) first = argc - 1;
  if (argc - first != 1) {
    fprintf(stderr, "pbdiff: %s\nTry 'pbdiff cat --help' for more information.\n",
            argc - first < 1 ? "missing operand: need FILE" : "too many operands: need one FILE");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  const char *path = argv[first];
  pbd_CliError error = {0};
  pbd_Config *cfg = pbd_Config_Load(&o, &error);
  if (!cfg && o.textconv) { /* as git's filter: shown as a file not read is, and git goes on */
    not_protobuf(path, &error);
    pbd_Cli_FreeOptions(&o);
    return fflush(stdout) == 0 && !ferror(stdout) ? kExitEqual : kExitTrouble;
  }
  if (!cfg) {
    pbd_CliError_Print(stderr, &error, "pbdiff cat");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, path);
  int status = kExitTrouble;
  pbd_CliSchema schema;
  pbd_CliInput in;
  memset(&in, 0, sizeof in);
  bool read = false; /* the input was read: what fails now is the output */
  /* Matching rules, ignores and scoped tolerances (from a config) are for
   * comparisons only. */
  if (eff.binary && eff.framing != kPbd_Framing_None && eff.framing != kPbd_Framing_Delimited) {
    pbd_CliError_Set(&error, false,
                     "--format binary writes varint length-prefixed messages, not --framing %s",
                     pbd_Framing_Name(eff.framing));
    pbd_CliError_Print(stderr, &error, "pbdiff cat");
    pbd_Cli_FreeApplied(&eff);
    pbd_Config_Free(cfg);
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_CliOptions so = eff;
  so.keys.n = so.sets.n = so.ignores.n = so.scoped_margins.n = so.scoped_fractions.n = 0;
  so.bytes_as.n = 0; /* views are the comparison's (a .pbdiff may set them) */
  if (pbd_Cli_LoadSchema(&so, 0, &schema, &error)) {
    pbd_ReadOptions topts = eff.compare.read;
    topts.hash_seed = 0; /* fixed: the output must not depend on the run */
    topts.pool = schema.pool;
    if (pbd_Cli_ReadInput(&eff, &schema, 0, path, NULL, eff.left_format, &topts, &in, &error)) {
      read = true;
      int wrote;
      if (eff.binary) {
        Printer p = {.out = stdout, .float_bits = eff.compare.read.float_bits};
        for (size_t i = 0; i < in.nmsgs; i++)
          write_binary(&p, in.roots[i], eff.delimited, eff.compare.read.float_bits);
        bool oom = p.buf.oom;
        maybe_flush(&p, true);
        pbd_Buf_Free(&p.buf);
        wrote = oom ? -1 : p.write_failed ? 0 : 1;
      } else {
        wrote = pbd_Cli_CatWrite(stdout, in.roots, in.nmsgs, eff.delimited,
                                 in.meta.records ? &in.meta : NULL, eff.compare.read.float_bits,
                                 eff.json);
      }
      if (wrote < 0) {
        pbd_CliError_Set(&error, false, "out of memory");
      } else if (wrote == 0 || fflush(stdout) != 0 || ferror(stdout)) {
        pbd_CliError_Set(&error, false, "cannot write to standard output");
      } else {
        status = kExitEqual;
      }
    }
  }
  if (status == kExitTrouble && eff.textconv && !read) { /* git goes on */
    not_protobuf(path, &error);
    status = fflush(stdout) == 0 && !ferror(stdout) ? kExitEqual : kExitTrouble;
  } else if (status == kExitTrouble) {
    pbd_CliError_Print(stderr, &error, "pbdiff cat");
  }
  pbd_Cli_FreeInput(&in);
  pbd_Cli_FreeSchema(&schema);
  pbd_Cli_FreeApplied(&eff);
  pbd_Config_Free(cfg);
  pbd_Cli_FreeOptions(&o);
  return status;
}
