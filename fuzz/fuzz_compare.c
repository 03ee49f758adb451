/* libFuzzer harness: the whole compare pipeline on hostile bytes.
 *
 * The first byte picks a message type (schemaless, sem3.M, sem2.M,
 * onnx.ModelProto) and options; the rest is split in two at a point the
 * second byte picks.  Both halves are parsed (RIGHT sharing LEFT's elements,
 * as the CLI does), compared, and every edit formatted as text and JSON.
 * The schemas come from the descriptor set named by $PBDIFF_FUZZ_DESC (made
 * by `make fuzz`).  Besides the checks below (the pipeline reports what the
 * whole trees report, and the verdict alone what they find; different
 * hashes give an edit, equal hashes none; a swap of the sides gives the
 * same verdict; options that name nothing in the inputs leave the edits as
 * they are), any crash, leak or sanitizer report is a bug; errors are
 * fine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdiff/canon/canon.h"
#include "cli.h" /* --key and --repeated-as-set rules from text */
#include "pbdiff/diff/diff.h"
#include "pbdiff/explain/explain.h"
#include "pbdiff/format/format.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/pbdiff.h"
#include "pbdiff/schema/schema.h"
#include "fuzz_pool.h"
#include "pbdiff/tree/tree.h"

static pbd_DefPool *pool;
static const pbd_MessageDef *types[4];
static pbd_MatchRule rules[3];
static size_t nrules;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  pool = fuzz_load_pool();
  if (!pool) return 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  types[1] = pbd_DefPool_FindMessageByName(pool, "sem3.M");
  types[2] = pbd_DefPool_FindMessageByName(pool, "sem2.M");
  types[3] = pbd_DefPool_FindMessageByName(pool, "onnx.ModelProto");
  const char *keys[] = {"sem3.M.rm=s+a", "onnx.GraphProto.node=output"};
  for (size_t i = 0; i < 2; i++)
    if (pbd_Cli_ParseMatchRule(pool, kPbd_Match_Key, keys[i], &rules[nrules], &s)) nrules++;
  if (pbd_Cli_ParseMatchRule(pool, kPbd_Match_Set, "sem3.M.ri", &rules[nrules], &s)) nrules++;
  return 0;
}

static int format_edit(void *ctx, const pbd_Edit *e) {
  pbd_Buf *b = ctx;
  pbd_TextOptions o = {.max_bytes = 64};
  pbd_Path_Format(b, e->path, 0, e->path->count);
  pbd_Format_TextValue(b, &e->left, &o);
  pbd_Format_TextValue(b, &e->right, &o);
  pbd_Format_JsonValue(b, &e->left);
  pbd_Format_JsonValue(b, &e->right);
  pbd_Buf_Truncate(b, 0);
  return 0;
}

/* Appends the edit as a line: kind, path, both values. */
static int collect_edit(void *ctx, const pbd_Edit *e) {
  pbd_Buf *b = ctx;
  pbd_TextOptions o = {.max_bytes = 64};
  pbd_Buf_AppendStr(b, pbd_EditKind_String(e->kind));
  pbd_Buf_AppendStr(b, " ");
  pbd_Path_Format(b, e->path, 0, e->path->count);
  pbd_Buf_AppendStr(b, ": ");
  pbd_Format_TextValue(b, &e->left, &o);
  pbd_Buf_AppendStr(b, " -> ");
  pbd_Format_TextValue(b, &e->right, &o);
  pbd_Buf_AppendStr(b, "\n");
  return 0;
}

/* An option only removes the differences it names (docs/semantics.md,
 * "When a change of place is a difference"): options that switch the
 * hashes' pruning off but name nothing these inputs hold — an ignore
 * pattern of no field, a tolerance scoped to no field — give exactly the
 * edits of the walk without them, moves included.  (A global tolerance,
 * however small, names the values within it: the fuzzer finds subnormal
 * floats within 1e-300 of 0 at once.) */
static void check_nameless_options(const pbd_Message *lm, const pbd_Message *rm,
                                   const pbd_DiffOptions *plain) {
  static const pbd_IgnoreRule nothing = {NULL, "no_such_field[*].nothing"};
  static const pbd_ToleranceRule nowhere = {NULL, "no_such_field[*]", 0.5, 0.5};
  pbd_Buf want = {0};
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Buf_AppendStr(&want, "");
  if (pbd_Diff_Run(lm, rm, plain, collect_edit, &want, NULL, &s) < 0) abort();
  for (int v = 0; v < 2; v++) {
    pbd_DiffOptions d = *plain;
    if (v == 0) d.ignores = &nothing, d.ignore_count = 1;
    else if (plain->float_bits) continue; /* tolerances do not combine with --float-bits */
    else d.tolerances = &nowhere, d.tolerance_count = 1;
    pbd_Buf got = {0};
    pbd_Buf_AppendStr(&got, "");
    if (pbd_Diff_Run(lm, rm, &d, collect_edit, &got, NULL, &s) < 0) abort();
    if (strcmp(got.data, want.data) != 0) {
      fprintf(stderr, "an option that names nothing changed the edits (variant %d):\n"
              "without:\n%s\nwith:\n%s\n", v, want.data, got.data);
      abort();
    }
    pbd_Buf_Free(&got);
  }
  pbd_Buf_Free(&want);
}

static int no_op(void *ctx, const pbd_Edit *e) {
  (void)ctx, (void)e;
  return 0;
}

/* Swapping LEFT and RIGHT gives the same verdict.  (The edits themselves
 * mirror exactly only where no sequence alignment had a choice: of several
 * longest common subsequences, the aligner takes one by a rule of order, as
 * diff(1) does, and the swapped run may take another.  The pairing after
 * the alignment is symmetric: tests/cases/semantics.cases checks every case
 * both ways.) */
static void check_mirror(const pbd_Message *lm, const pbd_Message *rm, const pbd_DiffOptions *d,
                         size_t n) {
  size_t back = 0;
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Diff_Run(rm, lm, d, no_op, NULL, &back, &s);
  if ((back == 0) != (n == 0)) {
    fprintf(stderr, "verdict not mirrored: %zu edits one way, %zu the other\n", n, back);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  uint8_t sel = data[0], cut = data[1];
  data += 2;
  size -= 2;
  size_t mid = size ? (size * cut) / 255 : 0;
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.pool = pool;
  o.hash_seed = 1;
  o.equivalent = sel & 4;
  o.ignore_unknown = sel & 8;
  o.float_bits = sel & 16;
  o.max_depth = sel & 32 ? 5 : 0;
  const pbd_MessageDef *t = types[sel & 3];
  /* sel & 128: RIGHT read as another type, as across schema versions */
  const pbd_MessageDef *rt = sel & 128 ? types[(sel + 1) & 3] : t;
  pbd_Arena *la = pbd_Arena_New(), *ra = pbd_Arena_New();
  pbd_ReadOptions lo = o, ro = o;
  pbd_Status s;
  pbd_Status_Clear(&s);
  /* exact-size copies so that ASan sees any over-read */
  uint8_t *l = malloc(mid ? mid : 1), *r = malloc(size - mid ? size - mid : 1);
  memcpy(l, data, mid);
  memcpy(r, data + mid, size - mid);
  pbd_Message *lm = pbd_Tree_Parse(t, l, 0, mid, &lo, la, &s);
  pbd_Message *rm = lm ? pbd_Tree_Parse(rt, r, 0, size - mid, &ro, ra, &s) : NULL;
  /* the check of identical inputs and the hash pass accept exactly what the
   * tree accepts */
  {
    pbd_Status vs;
    pbd_Status_Clear(&vs);
    pbd_Hash128 h;
    if (pbd_Canon_Validate(t, l, 0, mid, &o, &vs) != (lm != NULL)) abort();
    pbd_Status_Clear(&vs);
    if (pbd_Canon_Hash(t, l, 0, mid, &o, NULL, &h, &vs) != (lm != NULL)) abort();
    if (lm && !pbd_Hash128_Equal(h, lm->hash)) abort();
  }
  if (lm && rm) {
    pbd_Buf b = {0};
    pbd_DiffOptions d = {.float_bits = o.float_bits};
    /* the second byte's low bits pick the explaining options */
    static const pbd_IgnoreRule ig[] = {{NULL, "rm[*].s"}, {NULL, "graph.node[*].doc_string"}};
    if (cut & 1) d.rules = rules, d.rule_count = nrules;
    if (cut & 2) d.report_moves = true;
    if (cut & 4) d.ignores = ig, d.ignore_count = 2;
    if ((cut & 8) && !o.float_bits) d.float_margin = 0.5, d.float_fraction = 0.01;
    if (sel & 64) d.partial = true;
    size_t n = 0;
    pbd_Diff_Run(lm, rm, &d, format_edit, &b, &n, &s);
    /* the pipeline (hash pass, then shallow trees) reports the same edits */
    pbd_CompareOptions co = pbd_CompareOptions_Default();
    co.type = t;
    co.right_schema = true;
    co.right_type = rt;
    co.right_pool = pool;
    co.read = o;
    co.read.pool = pool;
    co.diff = d;
    pbd_Buf b2 = {0};
    size_t n2 = 0;
    pbd_CompareResult res;
    if (pbd_Compare(l, mid, r, size - mid, &co, format_edit, &b2, &res, &s) < 0) abort();
    n2 = res.n_edits;
    if (n2 != n || (n && strcmp(b.data, b2.data) != 0)) {
      fprintf(stderr, "whole trees (%zu):\n%s\npipeline (%zu):\n%s\n", n, b.data ? b.data : "",
              n2, b2.data ? b2.data : "");
      abort();
    }
    pbd_Buf_Free(&b2);
    /* the verdict alone (pbdiff -q: settled by the hashes where the options
     * let them) is the walk's */
    co.verdict_only = true;
    int verdict = pbd_Compare(l, mid, r, size - mid, &co, NULL, NULL, &res, &s);
    if (verdict != (n != 0)) {
      fprintf(stderr, "verdict alone %d, whole trees %zu edits\n", verdict, n);
      abort();
    }
    /* never a wrong "equal": without options that relax the comparison,
     * a walk that finds nothing means the hashes agree */
    bool relaxed = d.rule_count || d.ignore_count || d.float_margin > 0 || d.partial;
    if (n == 0 && !relaxed && !pbd_Hash128_Equal(lm->hash, rm->hash)) abort();
    /* and the other way: equal hashes, no edit (whatever the options) */
    if (n != 0 && rt == t && pbd_Hash128_Equal(lm->hash, rm->hash)) abort();
    /* a swap gives the same verdict (partial scope and relative tolerances
     * are one-sided by design) */
    if (rt == t && !d.partial && d.float_fraction == 0) check_mirror(lm, rm, &d, n);
    /* options that name nothing change nothing */
    if (!relaxed) check_nameless_options(lm, rm, &d);
    /* a tree always equals itself */
    size_t self = 0;
    pbd_Diff_Run(lm, lm, &d, format_edit, &b, &self, &s);
    if (self != 0) abort();
    pbd_Buf_Free(&b);
    if (n == 0 && rt == t) { /* equal: the explanation must not fail on parsed input */
      pbd_ReadOptions eo = o;
      eo.pool = pool;
      pbd_EncodingProfile lp, rp;
      if (!pbd_Explain_Profile(t, l, 0, mid, &eo, &lp, &s) ||
          !pbd_Explain_Profile(t, r, 0, size - mid, &eo, &rp, &s)) {
        /* bad UTF-8 is the tree's check alone; anything else is a bug */
        if (s.code != kPbd_Status_BadUtf8) abort();
      } else {
        pbd_EncodingDiff ed[kPbd_Encoding_Count];
        pbd_Explain_Compare(&lp, &rp, ed);
      }
    }
  } else if (s.code == kPbd_Status_Ok || !s.msg[0]) {
    abort(); /* a failed parse must say why */
  }
  pbd_Arena_Free(ra);
  pbd_Arena_Free(la);
  free(l);
  free(r);
  return 0;
}
