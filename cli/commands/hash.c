/* pbdiff hash [OPTIONS] FILE... — a semantic fingerprint per input (per
 * message with --delimited), one line each, as sha256sum writes them:
 *
 *   pbh1:<32 lowercase hex digits>  FILE
 *   pbh1:<32 lowercase hex digits>  FILE[N]        (--delimited, N from 0)
 *   pbh1:<32 lowercase hex digits>  FILE[N]  KEY   (--record-key: the record's key)
 *
 * The digits are the root message's canonical hash (lib/canon/canon.c) taken with
 * hash seed 0, the 128-bit value written high half first, big-endian (as
 * xxHash's canonical form).  Equal fingerprints mean equal meaning under the
 * same schema, type and options; docs/hash.md specifies the scheme, so that
 * fingerprints stored today still compare with those of later versions.
 *
 * With --sha256 the fingerprint is pbs1:<64 hex digits>, SHA-256 over the
 * canonical serialisation of the whole tree (lib/tree/tree_digest.c), for
 * uses where someone may try to forge a match (docs/security.md).
 *
 * An input that cannot be read or parsed gets one error line on stderr and
 * no fingerprint; the others are still hashed, and the exit status is 2. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pbdiff/corpus/records.h"
#include "pbdiff/pbdiff.h"

/* One output line: "FINGERPRINT  FILE[N]" or its JSON object; with a record
 * key, the key, and in JSON where the record is (offset and size of its
 * bytes in the input as read: after a whole file's gzip, within the
 * framing; a gRPC message sent compressed is its compressed body, with
 * "compressed": "gzip" and its "inflated_size") for drivers that cut
 * records out of shards (scripts/pbdiff-dask.py). */
static void print_fingerprint(const pbd_CliOptions *eff, const char *path, const pbd_CliInput *in,
                              size_t i, const char *fp, const pbd_Buf *key) {
  pbd_Buf b = {0};
  if (eff->json) { /* {"file": F[, "index": N], "fingerprint": H[, "key": K, ...]} */
    pbd_Buf_AppendStr(&b, "{\"file\": ");
    pbd_Format_JsonString(&b, path, strlen(path));
    if (eff->delimited) pbd_Buf_Printf(&b, ", \"index\": %zu", i);
    pbd_Buf_Printf(&b, ", \"fingerprint\": \"%s\"", fp);
    if (eff->record_key) {
      pbd_Buf_AppendStr(&b, ", \"key\": ");
      pbd_Format_JsonString(&b, key->data, key->len);
      const pbd_SourceSpan *src = in->meta.sources ? &in->meta.sources[i] : NULL;
      if (src) /* where it is in the file: inflated messages are not */
        pbd_Buf_Printf(&b, ", \"offset\": %zu, \"size\": %zu", src->begin, src->end - src->begin);
      else
        pbd_Buf_Printf(&b, ", \"offset\": %zu, \"size\": %zu", in->begin[i], in->end[i] - in->begin[i]);
      if (src && src->compressed)
        pbd_Buf_Printf(&b, ", \"compressed\": \"gzip\", \"inflated_size\": %zu",
                       in->end[i] - in->begin[i]);
    }
    pbd_Buf_AppendStr(&b, "}\n");
  } else {
    pbd_Buf_Printf(&b, "%s  ", fp);
    pbd_Cli_AppendName(&b, NULL, path); /* quoted as git quotes paths */
    if (eff->delimited) pbd_Buf_Printf(&b, "[%zu]", i);
    if (eff->record_key) {
      pbd_Buf_AppendStr(&b, "  ");
      pbd_Cli_AppendEscaped(&b, key->data ? key->data : "");
    }
    pbd_Buf_AppendChar(&b, '\n');
  }
  if (b.data) fputs(b.data, stdout);
  pbd_Buf_Free(&b);
}

/* The fingerprint of message i of `in` into fp: pbh1 from the hash pass
 * (the file's hasher), or pbs1 from its tree (read by pbd_Cli_ReadInput);
 * with a record key, its text into key (scratch: working memory for it). */
static bool fingerprint(const pbd_CliOptions *eff, const pbd_CliSchema *schema,
                        const pbd_CliInput *in, size_t i, const pbd_ReadOptions *topts,
                        pbd_Hasher *hasher, const pbd_RecordKey *rk, pbd_Arena *scratch,
                        char fp[80], pbd_Buf *key, pbd_Status *s) {
  pbd_Buf_Truncate(key, 0);
  pbd_Hash128 h;
  pbd_Part part = {in->data + in->begin[i], in->end[i] - in->begin[i]};
  const pbd_MessageDef *type = pbd_Cli_RecordType(in, schema, i);
  if ((rk || !eff->sha256) && !pbd_Hasher_HashParts(hasher, type, &part, 1, 0, &h, NULL, s))
    return false;
  pbd_StrView kafka;
  if (rk && !pbd_RecordKey_ReadWithKafkaKey(rk, type, in->data, in->begin[i], in->end[i],
                                            h, topts, pbd_Cli_KafkaKey(in, i, &kafka), scratch,
                                            key, s))
    return false;
  if (eff->sha256) {
    uint8_t d[32];
    if (!pbd_Tree_Sha256(in->roots[i], topts, d)) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "SHA-256 failed (libcrypto)");
      return false;
    }
    int k = snprintf(fp, 80, "%s:", PBDIFF_SHA256_SCHEME);
    for (int j = 0; j < 32; j++) k += snprintf(fp + k, (size_t)(80 - k), "%02x", d[j]);
    return true;
  }
  snprintf(fp, 80, "%s:%016" PRIx64 "%016" PRIx64, PBDIFF_HASH_SCHEME, h.hi, h.lo);
  return true;
}

/* --record-key read against the schema (nothing to do without one). */
static bool parse_key(const pbd_CliOptions *eff, const pbd_CliSchema *schema, pbd_RecordKey *rk,
                      pbd_CliError *e) {
  pbd_Status s;
  pbd_Status_Clear(&s);
  if (!eff->record_key) return true;
  if (pbd_RecordKey_Parse(schema->type, eff->record_key, rk, &s))
    return pbd_Cli_CheckKafkaKey(eff, rk, e);
  pbd_CliError_Set(e, true, "%s", s.msg);
  return false;
}

/* Fingerprints read the bytes as the encoding rules say, never through a
 * typed view (docs/hash.md): where --bytes-as asks for one (on the command
 * line or in .pbdiff), one note on standard error says that it does not
 * apply to the fingerprint.  The ONNX preset, which no one asked for by
 * name, goes without a note (hash --help and docs/hash.md say it). */
static void note_views(const pbd_CliOptions *eff, const pbd_CliSchema *schema) {
  static bool said;
  if (said || !eff->bytes_as.n || (!schema->diff.onnx_tensors && !schema->diff.bytes_view_count))
    return;
  said = true;
  fprintf(stderr, "pbdiff hash: note: --bytes-as does not apply to fingerprints: they hash the "
                  "bytes, so a tensor in raw_data and the same values in float_data hash apart "
                  "(docs/hash.md)\n");
}

/* Hashes one input; false with the error in e when it cannot. */
static bool hash_input(const pbd_CliOptions *eff, const char *path, pbd_CliError *e) {
  /* Matching rules, ignores and scoped tolerances (from a config) are for
   * comparisons only. */
  pbd_CliOptions so = *eff;
  so.keys.n = so.sets.n = so.ignores.n = so.scoped_margins.n = so.scoped_fractions.n = 0;
  pbd_CliSchema schema;
  pbd_CliInput in;
  memset(&in, 0, sizeof in);
  bool ok = false;
  pbd_RecordKey rk;
  pbd_Arena *scratch = pbd_Arena_New();
  pbd_Hasher *hasher = NULL;
  pbd_Buf key = {0};
  memset(&schema, 0, sizeof schema);
  if (!scratch) pbd_CliError_Set(e, false, "out of memory");
  else if (pbd_Cli_LoadSchema(&so, 0, &schema, e) && parse_key(eff, &schema, &rk, e)) {
    pbd_ReadOptions topts = eff->compare.read;
    topts.hash_seed = 0; /* the scheme's fixed seed (docs/hash.md) */
    topts.pool = schema.pool;
    note_views(eff, &schema);
    /* pbs1 needs each message's tree; pbh1 comes from the wire */
    ok = pbd_Cli_ReadInput(eff, &schema, 0, path, NULL, eff->left_format,
                           eff->sha256 ? &topts : NULL, &in, e);
    /* one hasher per input: its working memory serves every message */
    hasher = ok ? pbd_Hasher_New(in.data, &topts, NULL) : NULL;
    if (ok && !hasher) {
      pbd_CliError_Set(e, false, "out of memory");
      ok = false;
    }
    for (size_t i = 0; ok && i < in.nmsgs; i++) {
      char fp[80];
      pbd_Status s;
      pbd_Status_Clear(&s);
      if (!fingerprint(eff, &schema, &in, i, &topts, hasher, eff->record_key ? &rk : NULL, scratch,
                       fp, &key, &s)) {
        if (eff->delimited) {
          char seg[32];
          snprintf(seg, sizeof seg, "[%zu]", i);
          pbd_Status_PrependPath(&s, seg);
        }
        pbd_CliError_FromStatus(e, in.name, &s);
        ok = false;
        break;
      }
      print_fingerprint(eff, path, &in, i, fp, &key);
    }
  }
  pbd_Hasher_Free(hasher);
  pbd_Buf_Free(&key);
  pbd_Arena_Free(scratch);
  pbd_Cli_FreeInput(&in);
  pbd_Cli_FreeSchema(&schema);
  return ok;
}

int pbd_Cli_Hash(int argc, char **argv) {
  pbd_CliOptions o;
  int first = pbd_Cli_ParseOptions(argc, argv, kPbd_Cmd_Hash, &o);
  if (o.binary) {
    fprintf(stderr, "pbdiff: --format binary is cat's; hash prints text or json\n"
                    "Try 'pbdiff hash --help' for more information.\n");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
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
