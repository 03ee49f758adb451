/* pbdiff hash [OPTIONS] FILE... — a semantic fingerprint per input (per
 * message with --delimited), one line each, as sha256sum writes them:
 *
 *   pbh1:<32 lowercase hex digits>  FILE
 *   pbh1:<32 lowercase hex digits>  FILE[N]        (--delimited, N from 0)
 *
 * The digits are the root message's canonical hash (lib/canon/canon.c) taken with
 * hash seed 0, the 128-bit value written high half first, big-endian (as
 * xxHash's canonical form).  Equal fingerprints mean equal meaning under the
 * same schema, type and options; docs/hash.md specifies the scheme, so that
 * fingerprints stored today still compare with those of later versions.
 *
 * An input that cannot be read or parsed gets one error line on stderr and
 * no fingerprint; the others are still hashed, and the exit status is 2. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pbdiff/pbdiff.h"

/* Hashes one input; false with the error in e when it cannot. */
static bool hash_input(const pbd_CliOptions *eff, const char *path, pbd_CliError *e) {
  /* Matching rules and ignores (from a config) are for comparisons only. */
  pbd_CliOptions so = *eff;
  so.keys.n = so.sets.n = so.ignores.n = 0;
  pbd_CliSchema schema;
  pbd_CliInput in;
  memset(&in, 0, sizeof in);
  bool ok = false;
  if (pbd_Cli_LoadSchema(&so, 0, &schema, e)) {
    pbd_ReadOptions topts = eff->compare.read;
    topts.hash_seed = 0; /* the scheme's fixed seed (docs/hash.md) */
    topts.pool = schema.pool;
    ok = pbd_Cli_ReadInput(eff, &schema, 0, path, NULL, eff->left_format, NULL, &in, e);
    for (size_t i = 0; ok && i < in.nmsgs; i++) {
      pbd_Hash128 h;
      pbd_Status s;
      pbd_Status_Clear(&s);
      if (!pbd_Canon_Hash(schema.type, in.data, in.begin[i], in.end[i], &topts, NULL, &h, &s)) {
        if (eff->delimited) {
          char seg[32];
          snprintf(seg, sizeof seg, "[%zu]", i);
          pbd_Status_PrependPath(&s, seg);
        }
        pbd_CliError_FromStatus(e, in.name, &s);
        ok = false;
        break;
      }
      if (eff->json) { /* {"file": F[, "index": N], "fingerprint": H} */
        pbd_Buf b = {0};
        pbd_Buf_AppendStr(&b, "{\"file\": ");
        pbd_Format_JsonString(&b, path, strlen(path));
        if (eff->delimited) pbd_Buf_Printf(&b, ", \"index\": %zu", i);
        pbd_Buf_Printf(&b, ", \"fingerprint\": \"%s:%016" PRIx64 "%016" PRIx64 "\"}\n",
                       PBDIFF_HASH_SCHEME, h.hi, h.lo);
        if (b.data) fputs(b.data, stdout);
        pbd_Buf_Free(&b);
        continue;
      }
      printf("%s:%016" PRIx64 "%016" PRIx64 "  %s", PBDIFF_HASH_SCHEME, h.hi, h.lo, path);
      if (eff->delimited) printf("[%zu]", i);
      putchar('\n');
    }
  }
  pbd_Cli_FreeInput(&in);
  pbd_Cli_FreeSchema(&schema);
  return ok;
}

int pbd_Cli_Hash(int argc, char **argv) {
  pbd_CliOptions o;
  int first = pbd_Cli_ParseOptions(argc, argv, kPbd_Cmd_Hash, &o);
  if (first >= argc) {
    fprintf(stderr, "pbdiff: missing operand: need FILE\n"
                    "Try 'pbdiff hash --help' for more information.\n");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_Config *cfg = pbd_Config_LoadOrSay(&o, "pbdiff hash");
  if (!cfg) {
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  int status = kExitEqual;
  for (int i = first; i < argc; i++) {
    /* each input its own config section, by the path given */
    pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, argv[i]);
    pbd_CliError error = {0};
    if (!hash_input(&eff, argv[i], &error)) {
      fflush(stdout); /* lines in input order */
      pbd_CliError_Print(stderr, &error, "pbdiff hash");
      status = kExitTrouble;
    }
    pbd_Cli_FreeApplied(&eff);
    /* lines in input order, also when stdout and stderr are one stream */
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "pbdiff: cannot write to standard output\n");
      status = kExitTrouble;
      break;
    }
  }
  pbd_Config_Free(cfg);
  pbd_Cli_FreeOptions(&o);
  return status;
}
