/* pbdiff --format patch LEFT RIGHT, and pbdiff apply [OPTIONS] PATCH FILE:
 * a difference written as a guarded patch (lib/patch, docs/patch.md) and
 * applied to a file.
 *
 * The patch is made from whole trees of both inputs (its context lines
 * name the neighbours of elements addressed by index), walked with the
 * matching rules of --key and .pbdiff so that keyed elements are addressed
 * by key.  apply reads FILE, applies every hunk or none, and writes the
 * canonical bytes (lib/write) of the result: over FILE through a temporary
 * file in its directory renamed over it (so FILE is the old or the new
 * message, never half of one), to -o OUT, or nowhere with --check.
 * Exit status: 0 applied (or applies, with --check), 1 a guard does not
 * hold (nothing written; already applied says so), 2 trouble. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/patch/patch.h"
#include "pbdiff/write/write.h"

/* Trees of one input with the options of a patch (fixed seed, the pool). */
static bool read_tree(const pbd_CliOptions *o, const pbd_CliSchema *schema, const char *path,
                      pbd_CliInput *in, pbd_CliError *e) {
  pbd_ReadOptions topts = o->compare.read;
  topts.hash_seed = 0;
  topts.pool = schema->pool;
  if (!pbd_Cli_ReadInput(o, schema, 0, path, NULL, o->left_format, &topts, in, e)) return false;
  if (in->nmsgs != 1) {
    pbd_CliError_Set(e, false, "%s: a patch is between two messages, not streams", path);
    return false;
  }
  return true;
}

static bool patch_options_ok(const pbd_CliOptions *o, pbd_CliError *e) {
  if (o->delimited) {
    pbd_CliError_Set(e, false, "patches are between two messages: --delimited and --framing are not for them");
    return false;
  }
  if (o->left_schemas.n || o->right_schemas.n || o->left_type || o->right_type) {
    pbd_CliError_Set(e, false, "a patch is read with one schema: --left-schema and --right-schema are not for it");
    return false;
  }
  return true;
}

int pbd_Cli_PatchPair(const pbd_CliOptions *o, const char *lpath, const char *rpath, FILE *out,
                      pbd_CliError *e) {
  if (!patch_options_ok(o, e)) return kExitTrouble;
  pbd_CliSchema schema;
  pbd_CliInput l, r;
  memset(&l, 0, sizeof l);
  memset(&r, 0, sizeof r);
  int status = kExitTrouble;
  if (!pbd_Cli_LoadSchema(o, 0, &schema, e)) goto done;
  if (!schema.type) {
    pbd_CliError_Set(e, true, "a patch needs a schema to name fields by (--schema or --proto, and --type)");
    goto done;
  }
  if (!read_tree(o, &schema, lpath, &l, e) || !read_tree(o, &schema, rpath, &r, e)) goto done;
  pbd_ReadOptions ro = o->compare.read;
  ro.pool = schema.pool;
  pbd_PatchSchema ps = {schema.type, schema.pool, &ro};
  pbd_Buf text = {0};
  pbd_Patch_WriteHeader(&text, &ps);
  pbd_PatchWriter *w = pbd_PatchWriter_New(&text, &ps, l.roots[0], r.roots[0]);
  if (!w) {
    pbd_CliError_Set(e, false, "out of memory");
    pbd_Buf_Free(&text);
    goto done;
  }
  pbd_DiffOptions d = schema.diff;
  d.report_moves = false; /* a patch places elements by their index or key */
  d.float_bits = o->compare.read.float_bits;
  pbd_Status s;
  pbd_Status_Clear(&s);
  size_t n = 0;
  int rc = pbd_Diff_Run(l.roots[0], r.roots[0], &d, pbd_PatchWriter_Edit, w, &n, &s);
  if (rc < 0) {
    pbd_CliError_Set(e, false, "%s", s.msg);
  } else if (!pbd_PatchWriter_Finish(w) || pbd_PatchWriter_Error(w)) {
    pbd_CliError_Set(e, false, "cannot write a patch: %s", pbd_PatchWriter_Error(w));
  } else if (text.oom) {
    pbd_CliError_Set(e, false, "out of memory");
  } else if (fwrite(text.data, 1, text.len, out) != text.len || fflush(out) != 0) {
    pbd_CliError_Set(e, false, "cannot write to standard output");
  } else {
    status = pbd_PatchWriter_Hunks(w) ? kExitDifferent : kExitEqual;
  }
  pbd_PatchWriter_Free(w);
  pbd_Buf_Free(&text);
done:
  pbd_Cli_FreeInput(&l);
  pbd_Cli_FreeInput(&r);
  pbd_Cli_FreeSchema(&schema);
  return status;
}

/* ---- pbdiff apply ------------------------------------------------------------ */

/* Writes bytes to path atomically: a temporary file next to it (same file
 * system, so rename is atomic), fsync'd, given path's mode, renamed over it. */
bool pbd_Cli_WriteAtomic(const char *path, const char *data, size_t n, pbd_CliError *e) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp) {
    pbd_CliError_Set(e, false, "out of memory");
    return false;
  }
  snprintf(tmp, len + 16, "%s.pbdiff-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    pbd_CliError_Set(e, false, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
    free(tmp);
    return false;
  }
  struct stat st;
  if (stat(path, &st) == 0) fchmod(fd, st.st_mode & 07777);
  bool ok = true;
  for (size_t done = 0; ok && done < n;) {
    ssize_t w = write(fd, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else done += (size_t)w;
  }
  ok = ok && fsync(fd) == 0;
  int err = errno;
  if (close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp, path) != 0) ok = false, err = errno;
  if (!ok) {
    unlink(tmp);
    pbd_CliError_Set(e, false, "%s: cannot write: %s", path, strerror(err));
  }
  free(tmp);
  return ok;
}

static int apply_usage(const char *why) {
  fprintf(stderr, "pbdiff: %s\nTry 'pbdiff apply --help' for more information.\n", why);
  return kExitTrouble;
}

/* Reads PATCH, applies it to FILE's tree; the result's canonical bytes in out. */
static int apply_to(const pbd_CliOptions *o, const char *patch_path, const char *file, pbd_Buf *out,
                    pbd_CliError *e) {
  pbd_CliSchema schema;
  pbd_CliInput in;
  memset(&in, 0, sizeof in);
  pbd_Input patch;
  bool patch_open = false;
  int status = kExitTrouble;
  pbd_Arena *arena = NULL;
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!pbd_Cli_LoadSchema(o, 0, &schema, e)) goto done;
  if (!schema.type) {
    pbd_CliError_Set(e, true, "a patch needs a schema to name fields by (--schema or --proto, and --type)");
    goto done;
  }
  if (!pbd_Input_Open(&patch, patch_path, &s)) {
    pbd_CliError_FromStatus(e, patch_path, &s);
    goto done;
  }
  patch_open = true;
  if (!read_tree(o, &schema, file, &in, e)) goto done;
  arena = pbd_Arena_New();
  if (!arena) {
    pbd_CliError_Set(e, false, "out of memory");
    goto done;
  }
  pbd_ReadOptions ro = o->compare.read;
  ro.pool = schema.pool;
  pbd_PatchSchema ps = {schema.type, schema.pool, &ro};
  pbd_PatchApplyOptions ao = {.reverse = o->reverse, .read = &ro};
  const pbd_Message *result;
  char why[2048];
  pbd_ApplyResult r = pbd_Patch_Apply((const char *)patch.data, patch.size, in.roots[0], &ps, &ao, arena,
                                      &result, why, sizeof why);
  switch (r) {
    case kPbd_Apply_Applied: {
      pbd_WriteOptions wo = {.float_bits = o->compare.read.float_bits};
      if (pbd_Write_Message(out, result, &wo)) status = kExitEqual;
      else pbd_CliError_Set(e, false, "out of memory");
      break;
    }
    case kPbd_Apply_Refused:
      pbd_CliError_Set(e, false, "%s: %s does not apply to %s: %s", patch_path, o->reverse ? "the reverse of the patch" : "the patch", file, why);
      status = kExitDifferent;
      break;
    case kPbd_Apply_AlreadyApplied:
      pbd_CliError_Set(e, false, "%s: %s is already applied to %s (%s)", patch_path,
                       o->reverse ? "the reverse of the patch" : "the patch", file, why);
      status = kExitDifferent;
      break;
    case kPbd_Apply_BadPatch:
      pbd_CliError_Set(e, false, "%s: %s", patch_path, why);
      break;
    case kPbd_Apply_OutOfMemory:
      pbd_CliError_Set(e, false, "out of memory");
      break;
  }
done:
  pbd_Arena_Free(arena);
  if (patch_open) pbd_Input_Close(&patch);
  pbd_Cli_FreeInput(&in);
  pbd_Cli_FreeSchema(&schema);
  return status;
}

int pbd_Cli_Apply(int argc, char **argv) {
  pbd_CliOptions o;
  int first = pbd_Cli_ParseOptions(argc, argv, kPbd_Cmd_Apply, &o);
  if (argc - first != 2) {
    pbd_Cli_FreeOptions(&o);
    return apply_usage(argc - first < 2 ? "missing operand: need PATCH and FILE"
                                        : "too many operands: need PATCH and FILE");
  }
  const char *patch = argv[first], *file = argv[first + 1];
  if (!strcmp(file, "-") && !o.output && !o.check) {
    pbd_Cli_FreeOptions(&o);
    return apply_usage("FILE '-' (standard input) needs -o OUT or --check");
  }
  if (!strcmp(patch, "-") && !strcmp(file, "-")) {
    pbd_Cli_FreeOptions(&o);
    return apply_usage("only one of PATCH and FILE can be standard input");
  }
  pbd_Config *cfg = pbd_Config_LoadOrSay(&o, "pbdiff apply");
  if (!cfg) {
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, file);
  pbd_CliError error = {0};
  pbd_Buf out = {0};
  int status = patch_options_ok(&eff, &error) ? apply_to(&eff, patch, file, &out, &error) : kExitTrouble;
  if (status == kExitEqual && !eff.check) {
    const char *target = eff.output ? eff.output : file;
    bool ok = !strcmp(target, "-")
                  ? fwrite(out.data, 1, out.len, stdout) == out.len && fflush(stdout) == 0
                  : pbd_Cli_WriteAtomic(target, out.data ? out.data : "", out.len, &error);
    if (!ok && !error.msg[0]) pbd_CliError_Set(&error, false, "cannot write to standard output");
    if (!ok) status = kExitTrouble;
  }
  if (status != kExitEqual) pbd_CliError_Print(stderr, &error, "pbdiff apply");
  pbd_Buf_Free(&out);
  pbd_Cli_FreeApplied(&eff);
  pbd_Config_Free(cfg);
  pbd_Cli_FreeOptions(&o);
  return status;
}
