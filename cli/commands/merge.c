/* pbdiff merge [OPTIONS] BASE OURS THEIRS — a three-way merge by meaning
 * (lib/patch: pbd_Patch_Merge), as git's merge driver (docs/git.md):
 *
 *   [merge "pbdiff"]  driver = pbdiff merge --path %P %O %A %B
 *
 * The result is written over OURS (git reads it there; -o OUT elsewhere),
 * atomically, always a valid message: the canonical bytes of the merge, or
 * text format when the file is text format (.textproto, .txtpb, .pbtxt by
 * --path or OURS' name).  At a conflict OURS' value stays; each conflict is
 * one line on standard error with its path and the three values;
 * --conflicts FILE writes them as a patch that takes THEIRS' side, and
 * --favor ours|theirs resolves them.  Exit status as git expects of a
 * driver: 0 merged, 1 conflicts (or a file that is not protobuf: OURS kept,
 * one line says why, as git keeps a binary file), 2 trouble. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pbdiff/format/format.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/patch/patch.h"
#include "pbdiff/write/write.h"

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static pbd_InputFormat format_of(const pbd_CliOptions *o, const char *name) {
  if (o->left_format != kPbd_InputFormat_Guess) return o->left_format;
  if (ends_with(name, ".textproto") || ends_with(name, ".txtpb") || ends_with(name, ".pbtxt"))
    return kPbd_InputFormat_TextProto;
  if (ends_with(name, ".json")) return kPbd_InputFormat_Json;
  return kPbd_InputFormat_Binary;
}

static int merge_usage(const char *why) {
  fprintf(stderr, "pbdiff: %s\nTry 'pbdiff merge --help' for more information.\n", why);
  return kExitTrouble;
}

typedef struct {
  pbd_CliSchema schema;
  pbd_CliInput in[3];   /* BASE, OURS, THEIRS */
} Inputs;

/* The three trees; false with why (the file is not read as protobuf). */
static bool read_all(const pbd_CliOptions *o, const char *name, char **paths, Inputs *x, pbd_CliError *e) {
  if (!pbd_Cli_LoadSchema(o, 0, &x->schema, e)) return false;
  if (!x->schema.type) {
    pbd_CliError_Set(e, false, "no schema for it (a .pbdiff section, or --schema/--proto and --type)");
    return false;
  }
  pbd_ReadOptions topts = o->compare.read;
  topts.hash_seed = 0;
  topts.pool = x->schema.pool;
  static const char *const side[3] = {"base", "ours", "theirs"};
  for (int i = 0; i < 3; i++) {
    if (!pbd_Cli_ReadInput(o, &x->schema, 0, paths[i], NULL, format_of(o, name), &topts, &x->in[i], e))
      return false;
    if (x->in[i].nmsgs != 1) {
      pbd_CliError_Set(e, false, "%s (%s) is a stream; merge takes one message", paths[i], side[i]);
      return false;
    }
  }
  return true;
}

static void free_all(Inputs *x) {
  for (int i = 0; i < 3; i++) pbd_Cli_FreeInput(&x->in[i]);
  pbd_Cli_FreeSchema(&x->schema);
}

/* The merged message as the file's encoding: canonical bytes, or text format. */
static bool encode(const pbd_CliOptions *o, const char *name, const pbd_Message *m, pbd_Buf *out) {
  if (format_of(o, name) == kPbd_InputFormat_TextProto) {
    pbd_TextOptions to = {.multiline = true};
    pbd_Format_TextMessage(out, m, &to);
  } else {
    pbd_WriteOptions wo = {.float_bits = o->compare.read.float_bits};
    pbd_Write_Message(out, m, &wo);
  }
  return !out->oom;
}

static bool write_file(const char *path, const pbd_Buf *b, pbd_CliError *e) {
  if (!strcmp(path, "-")) {
    if (fwrite(b->data, 1, b->len, stdout) == b->len && fflush(stdout) == 0) return true;
    pbd_CliError_Set(e, false, "cannot write to standard output");
    return false;
  }
  return pbd_Cli_WriteAtomic(path, b->data ? b->data : "", b->len, e);
}

static int run_merge(const pbd_CliOptions *o, const char *name, char **paths, pbd_CliError *e) {
  Inputs x;
  memset(&x, 0, sizeof x);
  int status = kExitTrouble;
  pbd_Arena *arena = NULL;
  pbd_MergeResult r;
  memset(&r, 0, sizeof r);
  if (!read_all(o, name, paths, &x, e)) {
    /* as git does with a binary file: OURS stays, and the merge conflicts */
    fprintf(stderr, "pbdiff merge: %s: not merged, ours kept: %s\n", name, e->msg);
    e->msg[0] = '\0';
    if (o->output && strcmp(o->output, paths[1])) {
      pbd_Input in;
      pbd_Status s;
      pbd_Status_Clear(&s);
      if (pbd_Input_Open(&in, paths[1], &s)) {
        pbd_Buf b = {0};
        pbd_Buf_Append(&b, (const char *)in.data, in.size);
        bool ok = !b.oom && write_file(o->output, &b, e);
        pbd_Buf_Free(&b);
        pbd_Input_Close(&in);
        if (!ok) goto done;
      }
    }
    status = kExitDifferent;
    goto done;
  }
  arena = pbd_Arena_New();
  if (!arena) {
    pbd_CliError_Set(e, false, "out of memory");
    goto done;
  }
  pbd_ReadOptions ro = o->compare.read;
  ro.hash_seed = 0;
  ro.pool = x.schema.pool;
  pbd_PatchSchema ps = {x.schema.type, x.schema.pool, &ro};
  pbd_MergeOptions mo = {.favor = o->favor, .diff = &x.schema.diff};
  char why[1024];
  if (!pbd_Patch_Merge(x.in[0].roots[0], x.in[1].roots[0], x.in[2].roots[0], &ps, &mo, arena, &r, why,
                       sizeof why)) {
    pbd_CliError_Set(e, false, "%s: %s", name, why);
    goto done;
  }
  pbd_Buf out = {0};
  bool ok = encode(o, name, r.merged, &out) && write_file(o->output ? o->output : paths[1], &out, e);
  pbd_Buf_Free(&out);
  if (ok && o->conflicts_file) ok = write_file(o->conflicts_file, &r.patch, e);
  if (!ok) {
    if (!e->msg[0]) pbd_CliError_Set(e, false, "out of memory");
    goto done;
  }
  /* each conflict a line: "pbdiff merge: NAME: conflict at PATH: base ..., ours ..., theirs ..." */
  for (const char *p = r.report.data; p && *p;) {
    const char *nl = strchr(p, '\n');
    fprintf(stderr, "pbdiff merge: %s: conflict at %.*s\n", name, (int)(nl ? nl - p : (long)strlen(p)), p);
    p = nl ? nl + 1 : p + strlen(p);
  }
  status = r.conflicts ? kExitDifferent : kExitEqual;
done:
  pbd_Buf_Free(&r.report);
  pbd_Buf_Free(&r.patch);
  pbd_Arena_Free(arena);
  free_all(&x);
  return status;
}

int pbd_Cli_Merge(int argc, char **argv) {
  pbd_CliOptions o;
  int first = pbd_Cli_ParseOptions(argc, argv, kPbd_Cmd_Merge, &o);
  if (argc - first != 3) {
    pbd_Cli_FreeOptions(&o);
    return merge_usage(argc - first < 3 ? "missing operand: need BASE, OURS and THEIRS"
                                        : "too many operands: need BASE, OURS and THEIRS");
  }
  char **paths = argv + first;
  for (int i = 0; i < 3; i++) {
    if (!strcmp(paths[i], "-")) {
      pbd_Cli_FreeOptions(&o);
      return merge_usage("merge reads files, not standard input");
    }
  }
  const char *name = o.merge_path ? o.merge_path : paths[1];
  pbd_Config *cfg = pbd_Config_LoadOrSay(&o, "pbdiff merge");
  if (!cfg) {
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, name);
  pbd_CliError error = {0};
  int status = run_merge(&eff, name, paths, &error);
  if (status == kExitTrouble) pbd_CliError_Print(stderr, &error, "pbdiff merge");
  pbd_Cli_FreeApplied(&eff);
  pbd_Config_Free(cfg);
  pbd_Cli_FreeOptions(&o);
  return status;
}
