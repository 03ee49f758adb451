#include "testutil.h"
#include "pbdiff/canon/canon.h"
#include "pbdiff/pbdiff.h"

#include "pbdiff/format/format.h"
#include "report/report.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

uint8_t *tu_hex(const char *hex, size_t *len) {
  size_t n = 0;
  uint8_t *out = malloc(strlen(hex) / 2 + 1);
  ck_assert_ptr_nonnull(out);
  int hi = -1;
  for (const char *p = hex; *p; p++) {
    if (*p == ' ' || *p == '\n' || *p == '\t') continue;
    int v = hexval((unsigned char)*p);
    ck_assert_msg(v >= 0, "bad hex digit '%c' in \"%s\"", *p, hex);
    if (hi < 0) {
      hi = v;
    } else {
      out[n++] = (uint8_t)(hi << 4 | v);
      hi = -1;
    }
  }
  ck_assert_msg(hi < 0, "odd number of hex digits in \"%s\"", hex);
  /* exactly n bytes, so that AddressSanitizer sees any read past them */
  uint8_t *exact = realloc(out, n ? n : 1);
  ck_assert_ptr_nonnull(exact);
  *len = n;
  return exact;
}

const char *tu_root(void) {
  const char *r = getenv("PBDIFF_ROOT");
  return r && *r ? r : ".";
}

const char *tu_pbdiff(void) {
  static char buf[4096];
  const char *p = getenv("PBDIFF");
  if (p && *p) return p;
  snprintf(buf, sizeof buf, "%s/build/pbdiff", tu_root());
  return buf;
}

char *tu_write_temp(const void *data, size_t n, const char *suffix) {
  char *path = malloc(64);
  ck_assert_ptr_nonnull(path);
  snprintf(path, 64, "/tmp/pbdiff-test-XXXXXX%s", suffix ? suffix : "");
  int fd = mkstemps(path, suffix ? (int)strlen(suffix) : 0);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
  close(fd);
  return path;
}

uint8_t *tu_read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t k;
  while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
    len += k;
    if (len == cap) {
      cap *= 2;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  *n = len;
  return buf;
}

static char *slurp_fd(int fd) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  ssize_t k;
  while ((k = read(fd, buf + len, cap - len - 1)) > 0) {
    len += (size_t)k;
    if (len + 1 == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
  }
  buf[len] = '\0';
  return buf;
}

int tu_run(const char *cmd, char **out, char **err) {
  char outp[] = "/tmp/pbdiff-out-XXXXXX", errp[] = "/tmp/pbdiff-err-XXXXXX";
  int ofd = mkstemp(outp), efd = mkstemp(errp);
  ck_assert(ofd >= 0 && efd >= 0);
  size_t n = strlen(cmd) + 128;
  char *full = malloc(n);
  snprintf(full, n, "(%s) >%s 2>%s", cmd, outp, errp);
  int st = system(full);
  free(full);
  if (out) *out = slurp_fd(ofd);
  if (err) *err = slurp_fd(efd);
  close(ofd);
  close(efd);
  unlink(outp);
  unlink(errp);
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

char *tu_compile_proto(const char *proto) {
  char *path = tu_write_temp("", 0, ".desc");
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "protoc --include_imports -I%s/testdata -I/usr/include -o%s %s%s%s", tu_root(),
           path, proto[0] == '/' ? "" : tu_root(), proto[0] == '/' ? "" : "/testdata/", proto);
  char *err = NULL;
  int rc = tu_run(cmd, NULL, &err);
  ck_assert_msg(rc == 0, "protoc failed on %s: %s", proto, err);
  free(err);
  return path;
}

pbd_DefPool *tu_load_pool(const char *proto) {
  char *desc = tu_compile_proto(proto);
  size_t n;
  uint8_t *data = tu_read_file(desc, &n);
  ck_assert_ptr_nonnull(data);
  pbd_DefPool *pool = pbd_DefPool_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  ck_assert_msg(pbd_DefPool_AddFileDescriptorSet(pool, data, n, desc, &s), "load: %s", s.msg);
  ck_assert_msg(pbd_DefPool_Finalize(pool, &s), "finalize: %s", s.msg);
  free(data);
  unlink(desc);
  free(desc);
  return pool;
}

int tu_edit_line(void *ctx, const pbd_Edit *e) {
  pbd_Buf *b = ctx;
  pbd_TextOptions o = {0};
  pbd_Buf_Printf(b, "%s ", pbd_EditKind_String(e->kind));
  pbd_Path_Format(b, e->path, 0, e->path->count);
  pbd_Buf_AppendStr(b, ": ");
  if (e->left.kind == kPbd_Value_None) pbd_Buf_AppendStr(b, "_");
  else pbd_Format_TextValue(b, &e->left, &o);
  pbd_Buf_AppendStr(b, " -> ");
  if (e->right.kind == kPbd_Value_None) pbd_Buf_AppendStr(b, "_");
  else pbd_Format_TextValue(b, &e->right, &o);
  pbd_Buf_AppendChar(b, '\n');
  return 0;
}

char *tu_diff_hex(const pbd_MessageDef *t, const char *lhex, const char *rhex,
                  const pbd_ReadOptions *o, const pbd_DiffOptions *d, bool *hash_equal) {
  size_t ln, rn;
  uint8_t *l = tu_hex(lhex, &ln), *r = tu_hex(rhex, &rn);
  pbd_Arena *a = pbd_Arena_New();
  pbd_Status s;
  pbd_Status_Clear(&s);
  /* the whole trees, as `cat` builds them */
  pbd_Message *lm = pbd_Tree_Parse(t, l, 0, ln, o, a, &s);
  ck_assert_msg(lm != NULL, "left %s: %s at %zu (%s)", lhex, s.msg, s.offset, s.path);
  pbd_Message *rm = pbd_Tree_Parse(t, r, 0, rn, o, a, &s);
  ck_assert_msg(rm != NULL, "right %s: %s at %zu (%s)", rhex, s.msg, s.offset, s.path);
  pbd_Buf whole = {0};
  pbd_Buf_AppendStr(&whole, "");
  ck_assert_int_eq(pbd_Diff_Run(lm, rm, d, tu_edit_line, &whole, NULL, &s), 0);
  if (hash_equal) *hash_equal = pbd_Hash128_Equal(lm->hash, rm->hash);
  /* the cryptographic fingerprint (pbs1) agrees with the hash on equality */
  uint8_t ls[32], rs[32];
  ck_assert(pbd_Tree_Sha256(lm, o, ls) && pbd_Tree_Sha256(rm, o, rs));
  ck_assert_msg((memcmp(ls, rs, 32) == 0) == pbd_Hash128_Equal(lm->hash, rm->hash),
                "%s vs %s: pbs1 and pbh1 disagree on equality", lhex, rhex);
  /* the hash pass, with no tree, agrees with the tree on both inputs */
  pbd_Hash128 lh, rh;
  ck_assert_msg(pbd_Canon_Hash(t, l, 0, ln, o, NULL, &lh, &s), "left %s: %s", lhex, s.msg);
  ck_assert_msg(pbd_Canon_Hash(t, r, 0, rn, o, NULL, &rh, &s), "right %s: %s", rhex, s.msg);
  ck_assert_msg(pbd_Hash128_Equal(lh, lm->hash), "hash pass disagrees with the tree on %s", lhex);
  ck_assert_msg(pbd_Hash128_Equal(rh, rm->hash), "hash pass disagrees with the tree on %s", rhex);
  /* the pipeline (hash pass, then shallow trees read where hashes differ)
   * reports exactly what the walk over whole trees reports */
  pbd_CompareOptions co = pbd_CompareOptions_Default();
  co.type = t;
  co.read = *o;
  if (!co.read.hash_seed) co.read.hash_seed = 1;
  if (d) co.diff = *d;
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "");
  pbd_CompareResult res;
  ck_assert_int_ge(pbd_Compare(l, ln, r, rn, &co, tu_edit_line, &out, &res, &s), 0);
  ck_assert_msg(!strcmp(out.data, whole.data), "%s vs %s: shallow walk\n[%s]\nwhole trees\n[%s]",
                lhex, rhex, out.data, whole.data);
  /* and the verdict alone (pbdiff -q), settled by the hashes where the
   * options let them, is the walk's */
  co.verdict_only = true;
  int verdict = pbd_Compare(l, ln, r, rn, &co, NULL, NULL, &res, &s);
  ck_assert_msg(verdict == (out.data[0] != '\0'), "%s vs %s: verdict alone %d, edits [%s]", lhex,
                rhex, verdict, out.data);
  pbd_Buf_Free(&whole);
  pbd_Arena_Free(a);
  free(l);
  free(r);
  return out.data;
}

pbd_Message *tu_tree(const pbd_MessageDef *t, const char *hex, const pbd_ReadOptions *opts,
                     pbd_Arena *arena) {
  pbd_ReadOptions o;
  if (opts) {
    o = *opts;
  } else {
    memset(&o, 0, sizeof o);
    o.hash_seed = 12345;
    o.pool = t ? tu_type_pool(t->full_name) : NULL;
  }
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  uint8_t *copy = pbd_Arena_Malloc(arena, n ? n : 1);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, b, n);
  free(b);
  pbd_Status s;
  pbd_Status_Clear(&s);
  pbd_Message *m = pbd_Tree_Parse(t, copy, 0, n, &o, arena, &s);
  ck_assert_msg(m != NULL, "%s: %s at %zu (in %s)", hex, s.msg, s.offset, s.path);
  return m;
}

void tu_bytes_put(tu_Bytes *o, const void *d, size_t n) {
  if (o->n + n > o->cap) {
    o->cap = (o->n + n) * 2;
    o->p = realloc(o->p, o->cap);
    ck_assert_ptr_nonnull(o->p);
  }
  if (n) memcpy(o->p + o->n, d, n);
  o->n += n;
}

void tu_bytes_put_hex(tu_Bytes *o, const char *hex, size_t times) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  for (size_t i = 0; i < times; i++) tu_bytes_put(o, b, n);
  free(b);
}

char *tu_mirror_edits(const char *edits) {
  pbd_Buf out = {0};
  pbd_Buf_AppendStr(&out, "");
  const char *p = edits;
  while (*p) {
    const char *nl = strchr(p, '\n');
    ck_assert_msg(nl != NULL, "edits not ending in a newline: [%s]", edits);
    char line[2048];
    size_t n = (size_t)(nl - p);
    ck_assert(n < sizeof line);
    memcpy(line, p, n);
    line[n] = '\0';
    char *sp = strchr(line, ' ');
    char *colon = strstr(line, ": ");
    char *arrow = strstr(line, " -> ");
    ck_assert_msg(sp && colon && arrow, "not an edit: [%s]", line);
    *sp = *colon = *arrow = '\0';
    const char *kind = line;
    if (!strcmp(kind, "added")) kind = "removed";
    else if (!strcmp(kind, "removed")) kind = "added";
    pbd_Buf_Printf(&out, "%s %s: %s -> %s\n", kind, sp + 1, arrow + 4, colon + 2);
    p = nl + 1;
  }
  return out.data;
}

void tu_expect_diff(const char *where, const pbd_MessageDef *t, const pbd_ReadOptions *o,
                    const char *lhex, const char *rhex, const char *want, const char *want_back) {
  tu_expect_diff_with(where, t, o, NULL, lhex, rhex, want, want_back);
}

/* Whether hashes can prove a difference under these options. */
static bool options_are_fuzzy(const pbd_DiffOptions *d) {
  /* typed views of bytes too: raw_data and float_data of the same values
   * are equal and hash apart (docs/hash.md) */
  bool fuzzy = d->float_margin > 0 || d->float_fraction > 0 || d->ignore_count || d->partial ||
               d->bytes_view_count || d->onnx_tensors;
  for (size_t i = 0; i < d->tolerance_count; i++)
    fuzzy |= d->tolerances[i].margin > 0 || d->tolerances[i].fraction > 0;
  return fuzzy;
}

static void check_hash_verdict(const char *w, const char *sep, const char *lhex, const char *rhex,
                               const char *how, bool fuzzy, bool heq, bool equal) {
  if (fuzzy)
    ck_assert_msg(!heq || equal, "%s%s%s vs %s%s: equal hashes but edits", w, sep, lhex, rhex, how);
  else
    ck_assert_msg(heq == equal, "%s%s%s vs %s%s: hash equality %d disagrees", w, sep, lhex, rhex,
                  how, heq);
}

void tu_expect_diff_with(const char *where, const pbd_MessageDef *t, const pbd_ReadOptions *o,
                         const pbd_DiffOptions *opts, const char *lhex, const char *rhex,
                         const char *want, const char *want_back) {
  const char *w = where ? where : "", *sep = where ? ": " : "";
  pbd_DiffOptions d = {0};
  if (opts) d = *opts;
  d.float_bits = o->float_bits;
  bool heq, fuzzy = options_are_fuzzy(&d);
  char *got = tu_diff_hex(t, lhex, rhex, o, &d, &heq);
  ck_assert_msg(!strcmp(got, want), "%s%s%s vs %s:\n got: [%s]\nwant: [%s]", w, sep, lhex, rhex,
                got, want);
  check_hash_verdict(w, sep, lhex, rhex, "", fuzzy, heq, want[0] == '\0');
  free(got);
  char *mirrored = want_back ? NULL : tu_mirror_edits(want);
  const char *back = want_back ? want_back : mirrored;
  got = tu_diff_hex(t, rhex, lhex, o, &d, &heq);
  ck_assert_msg(!strcmp(got, back), "%s%s%s vs %s (reversed):\n got: [%s]\nwant: [%s]", w, sep,
                rhex, lhex, got, back);
  check_hash_verdict(w, sep, rhex, lhex, " (reversed)", fuzzy, heq, back[0] == '\0');
  free(got);
  free(mirrored);
}

/* ---- sandbox ------------------------------------------------------------------ */

static char sb_base[64], sb_dir[128], sb_bin[PATH_MAX], sb_root[PATH_MAX];
static tu_Run sb_last;

void tu_rm_rf(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
}

void tu_sandbox_open(const char *name, const char *const *descs) {
  snprintf(sb_base, sizeof sb_base, "/tmp/pbdiff-%s-XXXXXX", name);
  ck_assert_ptr_nonnull(mkdtemp(sb_base));
  ck_assert_msg(realpath(tu_pbdiff(), sb_bin) != NULL, "no pbdiff at %s", tu_pbdiff());
  ck_assert_msg(realpath(tu_root(), sb_root) != NULL, "no source root at %s", tu_root());
  for (size_t i = 0; descs && descs[i]; i += 2) {
    char *tmp = tu_compile_proto(descs[i]);
    char dst[256];
    snprintf(dst, sizeof dst, "%s/%s", sb_base, descs[i + 1]);
    ck_assert_int_eq(rename(tmp, dst), 0);
    free(tmp);
  }
  char path[256];
  snprintf(path, sizeof path, "%s/bin", sb_base);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/bin/pbdiff", sb_base);
  ck_assert_int_eq(symlink(sb_bin, path), 0);
}

void tu_sandbox_close(void) {
  if (sb_base[0]) tu_rm_rf(sb_base); /* also what failed tests left behind */
}

static void sb_free_last(void) {
  free(sb_last.out);
  free(sb_last.err);
  memset(&sb_last, 0, sizeof sb_last);
}

void tu_sandbox_test_begin(void) {
  snprintf(sb_dir, sizeof sb_dir, "%s/t-XXXXXX", sb_base);
  ck_assert_ptr_nonnull(mkdtemp(sb_dir));
}

void tu_sandbox_test_end(void) {
  sb_free_last();
  tu_rm_rf(sb_dir);
  sb_dir[0] = '\0';
}

const char *tu_sandbox_base(void) { return sb_base; }
const char *tu_sandbox_dir(void) { return sb_dir; }
const char *tu_sandbox_bin(void) { return sb_bin; }
const char *tu_sandbox_root(void) { return sb_root; }

static const tu_Run *sh_run(const char *user);

const tu_Run *tu_sh(const char *fmt, ...) {
  char user[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(user, sizeof user, fmt, ap);
  va_end(ap);
  ck_assert(n >= 0 && (size_t)n < sizeof user);
  return sh_run(user);
}

const tu_Run *tu_pb_notime(const char *fmt, ...) {
  char args[8192], user[9000];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  ck_assert(n >= 0 && (size_t)n < sizeof args);
  n = snprintf(user, sizeof user,
               "\"$P\" %s > .out.notime; s=$?; sed -E 's/ time=\"[0-9.]+\"//g' .out.notime; "
               "rm -f .out.notime; exit $s", args);
  ck_assert(n >= 0 && (size_t)n < sizeof user);
  return sh_run(user);
}

static const tu_Run *sh_run(const char *user) {
  char cmd[16384];
  int n;
  n = snprintf(cmd, sizeof cmd, "cd '%s' && P='%s' && R='%s' && PATH='%s/bin':\"$PATH\" && %s",
               sb_dir[0] ? sb_dir : sb_base, sb_bin, sb_root, sb_base, user);
  ck_assert(n >= 0 && (size_t)n < sizeof cmd);
  sb_free_last();
  sb_last.rc = tu_run(cmd, &sb_last.out, &sb_last.err);
  return &sb_last;
}

const pbd_MessageDef *tu_message(pbd_DefPool **pool, const char *proto, const char *name) {
  if (!*pool) *pool = tu_load_pool(proto);
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(*pool, name);
  ck_assert_msg(m != NULL, "no message %s in %s", name, proto);
  return m;
}

const pbd_MessageDef *tu_find_message(const pbd_DefPool *pool, const char *name) {
  const pbd_MessageDef *m = pbd_DefPool_FindMessageByName(pool, name);
  ck_assert_msg(m != NULL, "message %s not found", name);
  return m;
}

const pbd_FieldDef *tu_find_field(const pbd_MessageDef *m, const char *name) {
  const pbd_FieldDef *f = pbd_MessageDef_FindFieldByName(m, name);
  ck_assert_msg(f != NULL, "field %s not found in %s", name, m->full_name);
  return f;
}

static const struct {
  const char *package, *proto;
} kSchemas[] = {
    {"sem3.", "proto/sem3.proto"},
    {"sem2.", "proto/sem2.proto"},
    {"prop.", "proto/prop.proto"},
    {"onnxtest.", "proto/onnx_optional.proto"},
    {"onnx.", "/usr/include/onnx/onnx.proto"},
};
static pbd_DefPool *schema_pools[sizeof kSchemas / sizeof kSchemas[0]];

static size_t schema_of(const char *name) {
  for (size_t i = 0; i < sizeof kSchemas / sizeof kSchemas[0]; i++)
    if (!strncmp(name, kSchemas[i].package, strlen(kSchemas[i].package))) return i;
  ck_abort_msg("no test schema for the type %s", name);
  return 0;
}

pbd_DefPool *tu_type_pool(const char *name) {
  size_t i = schema_of(name);
  if (!schema_pools[i]) schema_pools[i] = tu_load_pool(kSchemas[i].proto);
  return schema_pools[i];
}

const pbd_MessageDef *tu_type(const char *name) {
  size_t i = schema_of(name);
  return tu_message(&schema_pools[i], kSchemas[i].proto, name);
}

char *tu_hex_of(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n * 2 + 1);
  ck_assert_ptr_nonnull(out);
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
  out[2 * n] = '\0';
  return out;
}

size_t tu_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) p[n++] = (uint8_t)(v | 0x80);
  p[n++] = (uint8_t)v;
  return n;
}

void tu_cases_error(const char *rel, int line, const char *why, const char *text) {
  fprintf(stderr, "%s:%d: %s: [%s]\n", rel, line, why, text);
  exit(EXIT_FAILURE);
}

char *tu_read_cases(const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", tu_root(), rel);
  size_t n;
  char *text = (char *)tu_read_file(path, &n);
  if (!text) tu_cases_error(rel, 0, "cannot read", path);
  char *z = realloc(text, n + 1);
  if (!z) tu_cases_error(rel, 0, "out of memory reading", path);
  z[n] = '\0';
  return z;
}

char *tu_trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
  return s;
}

void tu_each_case_line(const char *rel, int max_fields, tu_CaseLineFunc *fn, void *ctx) {
  char *text = tu_read_cases(rel), *f[16];
  if (max_fields > 16) max_fields = 16;
  int line = 0;
  for (char *l = text; l && *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = '\0';
    line++;
    char *s = tu_trim(l);
    if (*s && *s != '#') {
      char *whole = strdup(s);
      int nf = 0;
      for (char *p = s;;) {
        char *bar = strstr(p, " | ");
        if (nf == max_fields) tu_cases_error(rel, line, "too many fields", whole);
        f[nf++] = p;
        if (!bar) break;
        *bar = '\0';
        p = bar + 3;
      }
      for (int i = 0; i < nf; i++) f[i] = tu_trim(f[i]);
      fn(ctx, line, f, nf, whole);
      free(whole);
    }
    l = nl ? nl + 1 : NULL;
  }
  free(text);
}

int tu_main(Suite *s) {
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

char *tu_report(int fmt, const void *opts, const pbd_Edit *edits, size_t n, bool equal) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  pbd_Reporter *r = pbd_Reporter_New((pbd_ReportFormat)fmt, out, opts);
  ck_assert_ptr_nonnull(r);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(pbd_Reporter_Edit(r, &edits[i]), 0);
  ck_assert(pbd_Reporter_Finish(r, equal));
  pbd_Reporter_Free(r);
  fclose(out);
  return text;
}

void tu_put_bytes(const char *name, const void *data, size_t n) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", tu_sandbox_dir(), name);
  for (char *p = path + strlen(tu_sandbox_dir()) + 1; *p; p++) { /* mkdir -p */
    if (*p != '/') continue;
    *p = '\0';
    ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
    *p = '/';
  }
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

void tu_put_hex(const char *name, const char *hex) {
  size_t n;
  uint8_t *b = tu_hex(hex, &n);
  tu_put_bytes(name, b, n);
  free(b);
}

/* ---- Paths from text ------------------------------------------------------ */

/* What tu_path allocates, kept reachable until the process ends. */
static void **g_path_store;
static size_t g_path_stored;

static void *path_keep(void *p) {
  ck_assert_ptr_nonnull(p);
  g_path_store = realloc(g_path_store, (g_path_stored + 1) * sizeof *g_path_store);
  ck_assert_ptr_nonnull(g_path_store);
  g_path_store[g_path_stored++] = p;
  return p;
}

static const char *path_strdup(const char *s, size_t n) {
  char *c = path_keep(malloc(n + 1));
  memcpy(c, s, n);
  c[n] = '\0';
  return c;
}

/* One bracketed segment's content, s[0, n): where it stands decides its kind. */
static pbd_PathSeg bracket_segment(const char *s, size_t n, bool named_place) {
  pbd_PathSeg seg = {.kind = kPbd_Seg_Index};
  bool digits = n > 0 && strspn(s, "0123456789") >= n;
  if (digits) {
    seg.number = (uint32_t)strtoul(s, NULL, 10);
  } else if (named_place && memchr(s, '/', n)) {
    seg.kind = kPbd_Seg_Any;
    seg.type_url = (pbd_StrView){path_strdup(s, n), n};
  } else if (named_place) {
    pbd_FieldDef *fd = path_keep(calloc(1, sizeof *fd));
    fd->full_name = fd->name = path_strdup(s, n);
    fd->is_extension = true;
    seg.kind = kPbd_Seg_Extension;
    seg.field = fd;
  } else if (n >= 2 && s[0] == '"') {
    char *k = path_keep(malloc(n));
    size_t m = 0;
    for (size_t i = 1; i + 1 < n; i++) k[m++] = s[i] == '\\' ? s[++i] : s[i];
    seg.kind = kPbd_Seg_MapKey;
    seg.key = (pbd_Value){.kind = kPbd_Value_String, .s = {k, m}};
  } else {
    ck_assert_msg(n == 4 || n == 5, "tu_path: bad key %.*s", (int)n, s);
    seg.kind = kPbd_Seg_MapKey;
    seg.key = (pbd_Value){.kind = kPbd_Value_Bool, .u = n == 4};
  }
  return seg;
}

const pbd_Path *tu_path(const char *text, size_t plen, size_t *parent_count) {
  pbd_Path *path = path_keep(calloc(1, sizeof *path));
  const char *p = text;
  size_t pc = 0;
  while (*p) {
    if ((size_t)(p - text) <= plen) pc = path->count;
    bool named_place = p == text || *p == '.';
    if (*p == '.') p++;
    pbd_PathSeg seg;
    if (*p == '[') {
      bool quoted = false;
      const char *q = p + 1;
      while (*q && (quoted || *q != ']')) {
        if (*q == '\\' && quoted && q[1]) q++;
        else if (*q == '"') quoted = !quoted;
        q++;
      }
      ck_assert_msg(*q == ']', "tu_path: unclosed [ in %s", text);
      seg = bracket_segment(p + 1, (size_t)(q - p - 1), named_place);
      p = q + 1;
    } else {
      size_t n = strcspn(p, ".[");
      seg = (pbd_PathSeg){.kind = kPbd_Seg_Field};
      if (strspn(p, "0123456789") >= n) {
        seg.number = (uint32_t)strtoul(p, NULL, 10);
      } else {
        pbd_FieldDef *fd = path_keep(calloc(1, sizeof *fd));
        fd->full_name = fd->name = path_strdup(p, n);
        seg.field = fd;
      }
      p += n;
    }
    ck_assert(pbd_Path_Push(path, &seg));
    path_keep(path->segs); /* the latest array stays reachable */
  }
  if ((size_t)(p - text) <= plen) pc = path->count;
  pbd_Buf check = {0};
  pbd_Path_Format(&check, path, 0, path->count);
  ck_assert_msg(!strcmp(check.data, text), "tu_path: %s reads back as %s", text, check.data);
  pbd_Buf_Free(&check);
  if (parent_count) *parent_count = pc;
  return path;
}
