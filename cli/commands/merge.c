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
 * --favor ours|theirs resolves them.  A text-format file with conflicts
 * gets git's markers around the lines where the two sides differ
 * (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`).  Exit status as git expects of a
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

/* ---- Conflict markers in a text-format file ------------------------------- */

enum { kMaxResync = 4096 };

typedef struct {
  const char **at;  /* line starts */
  size_t *len;      /* line lengths, the newline included */
  size_t n;
} Lines;

static bool split_lines(const pbd_Buf *b, Lines *l) {
  size_t n = 0;
  for (size_t i = 0; i < b->len; i++) n += b->data[i] == '\n';
  l->at = malloc(sizeof *l->at * (n + 1));
  l->len = malloc(sizeof *l->len * (n + 1));
  l->n = 0;
  if (!l->at || !l->len) return false;
  for (size_t i = 0; i < b->len;) {
    const char *nl = memchr(b->data + i, '\n', b->len - i);
    size_t k = nl ? (size_t)(nl - (b->data + i)) + 1 : b->len - i;
    l->at[l->n] = b->data + i;
    l->len[l->n++] = k;
    i += k;
  }
  return true;
}

static bool same_line(const Lines *a, size_t i, const Lines *b, size_t j) {
  return a->len[i] == b->len[j] && !memcmp(a->at[i], b->at[j], a->len[i]);
}

/* OURS' text with git's markers around each run of lines where THEIRS'
 * differs.  Both are the canonical text of the merge (THEIRS' with its side
 * of each conflict taken), so they differ only at the conflicts: after a
 * difference, the nearest pair of equal lines (fewest lines skipped) on
 * both sides is where they agree again. */
static bool write_markers(const pbd_Buf *ours, const pbd_Buf *theirs, pbd_Buf *out) {
  Lines a = {0}, b = {0};
  bool ok = split_lines(ours, &a) && split_lines(theirs, &b);
  size_t i = 0, j = 0;
  while (ok && (i < a.n || j < b.n)) {
    if (i < a.n && j < b.n && same_line(&a, i, &b, j)) {
      pbd_Buf_Append(out, a.at[i], a.len[i]);
      i++, j++;
      continue;
    }
    size_t di = a.n - i, dj = b.n - j; /* no resync: the rest of both */
    /* (a bound on the search: past it, the rest is one conflict) */
    for (size_t d = 1; d <= (a.n - i) + (b.n - j) && d <= kMaxResync && di + dj > d; d++) {
      for (size_t x = 0; x <= d; x++) {
        size_t y = d - x;
        if (i + x < a.n && j + y < b.n && same_line(&a, i + x, &b, j + y)) {
          di = x, dj = y;
          break;
        }
      }
      if (di + dj <= d) break;
    }
    pbd_Buf_AppendStr(out, "<<<<<<< ours\n");
    for (size_t k = 0; k < di; k++) pbd_Buf_Append(out, a.at[i + k], a.len[i + k]);
    pbd_Buf_AppendStr(out, "=======\n");
    for (size_t k = 0; k < dj; k++) pbd_Buf_Append(out, b.at[j + k], b.len[j + k]);
    pbd_Buf_AppendStr(out, ">>>>>>> theirs\n");
    i += di, j += dj;
  }
  free(a.at);
  free(a.len);
  free(b.at);
  free(b.len);
  return ok && !out->oom;
}

/* A text-format file with conflicts: THEIRS' side of them is the conflicts
 * patch applied to the merge; the file gets both, between markers. */
static bool encode_with_markers(const pbd_CliOptions *o, const pbd_PatchSchema *ps, const pbd_MergeResult *r,
                                pbd_Arena *arena, pbd_Buf *out) {
  pbd_PatchApplyOptions ao = {.reverse = false, .read = ps->read};
  const pbd_Message *theirs;
  char why[1024];
  if (pbd_Patch_Apply(r->patch.data, r->patch.len, r->merged, ps, &ao, arena, &theirs, why, sizeof why) !=
      kPbd_Apply_Applied)
    return encode(o, ".txtpb", r->merged, out); /* (their side cannot be placed: no markers) */
  pbd_TextOptions to = {.multiline = true};
  pbd_Buf a = {0}, b = {0};
  pbd_Format_TextMessage(&a, r->merged, &to);
  pbd_Format_TextMessage(&b, theirs, &to);
  bool ok = !a.oom && !b.oom && write_markers(&a, &b, out);
  pbd_Buf_Free(&a);
  pbd_Buf_Free(&b);
  return ok;
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
    if (strstr(why, "out of memory")) {
      pbd_CliError_Set(e, false, "%s: %s", name, why);
      goto done;
    }
    /* a change a patch cannot carry (an unknown field): OURS stays, as for
     * a file that is not protobuf; OURS' file is left as it is */
    fprintf(stderr, "pbdiff merge: %s: not merged, ours kept: %s\n", name, why);
    status = kExitDifferent;
    if (o->output && strcmp(o->output, paths[1])) {
      pbd_Buf b = {0};
      pbd_WriteOptions wo = {.float_bits = o->compare.read.float_bits};
      bool ok = pbd_Write_Message(&b, x.in[1].roots[0], &wo) && write_file(o->output, &b, e);
      pbd_Buf_Free(&b);
      if (!ok) status = kExitTrouble;
    }
    goto done;
  }
  pbd_Buf out = {0};
  bool markers = r.conflicts && format_of(o, name) == kPbd_InputFormat_TextProto;
  bool ok = (markers ? encode_with_markers(o, &ps, &r, arena, &out) : encode(o, name, r.merged, &out)) &&
            write_file(o->output ? o->output : paths[1], &out, e);
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
