/* The semantic cases of tests/cases/semantics.cases (its head says the
 * format): each line is one Check test, run in both directions through whole
 * trees and the pipeline by tu_expect_diff, which also checks that the roots'
 * hashes are equal exactly when the verdict is "equal".  A failure names the
 * file and line.  A malformed line fails the run before any test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "pbdiff/tree/tree.h"

#define CASES_FILE "tests/cases/semantics.cases"

typedef struct {
  int line;
  char *type; /* NULL: schemaless */
  bool equivalent, ignore_unknown, float_bits, partial;
  double float_margin, float_fraction;
  pbd_IgnoreRule ignores[4]; /* ignore=PATTERN, patterns owned */
  size_t ignore_count;
  bool onnx;                 /* the onnx.TensorProto preset */
  pbd_BytesView views[2];    /* bytes-as=FIELD=KIND (full field names) */
  char *view_names[2];
  size_t view_count;
  char *left, *right;     /* hex */
  char *want, *want_back; /* tu_diff_hex's form; want_back NULL: the mirror */
} Case;

static Case *cases;
static size_t ncases;

/* "-" is no bytes. */
static char *hex_field(const char *f) { return strdup(strcmp(f, "-") ? f : ""); }

/* "equal" is no edits; else edits separated by " ; ", one a line. */
static char *edits_field(const char *f) {
  if (!strcmp(f, "equal")) return strdup("");
  size_t n = strlen(f);
  char *out = malloc(n + 2), *o = out;
  for (const char *p = f; *p;) {
    if (!strncmp(p, " ; ", 3)) {
      *o++ = '\n';
      p += 3;
    } else {
      *o++ = *p++;
    }
  }
  *o++ = '\n';
  *o = '\0';
  return out;
}

static void parse_options(Case *c, char *f) {
  if (!strcmp(f, "-")) return;
  for (char *save = NULL, *o = strtok_r(f, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
    o = tu_trim(o);
    if (!strcmp(o, "equivalent")) c->equivalent = true;
    else if (!strcmp(o, "ignore-unknown")) c->ignore_unknown = true;
    else if (!strcmp(o, "float-bits")) c->float_bits = true;
    else if (!strcmp(o, "partial")) c->partial = true;
    else if (!strncmp(o, "float-margin=", 13)) c->float_margin = atof(o + 13);
    else if (!strncmp(o, "float-fraction=", 15)) c->float_fraction = atof(o + 15);
    else if (!strcmp(o, "onnx")) c->onnx = true;
    else if (!strncmp(o, "bytes-as=", 9) && strrchr(o, '=') > o + 9 && c->view_count < 2) {
      char *eq = strrchr(o, '=');
      c->views[c->view_count].kind = pbd_ElemKind_FromName(eq + 1);
      if (!c->views[c->view_count].kind) tu_cases_error(CASES_FILE, c->line, "no element kind", o);
      c->view_names[c->view_count++] = strndup(o + 9, (size_t)(eq - o - 9));
    } else if (!strncmp(o, "ignore=", 7) && c->ignore_count < 4)
      c->ignores[c->ignore_count++].pattern = strdup(o + 7);
    else tu_cases_error(CASES_FILE, c->line, "unknown option", o);
  }
}

static void add_case(void *ctx, int line, char **f, int nf, const char *text) {
  (void)ctx;
  if (nf < 5) tu_cases_error(CASES_FILE, line, "fewer than five fields", text);
  cases = realloc(cases, (ncases + 1) * sizeof *cases);
  Case *c = &cases[ncases++];
  memset(c, 0, sizeof *c);
  c->line = line;
  c->type = strcmp(f[0], "-") ? strdup(f[0]) : NULL;
  parse_options(c, f[1]);
  c->left = hex_field(f[2]);
  c->right = hex_field(f[3]);
  c->want = edits_field(f[4]);
  c->want_back = nf == 6 ? edits_field(f[5]) : NULL;
}

static void load_cases(void) {
  tu_each_case_line(CASES_FILE, 6, add_case, NULL);
  if (ncases == 0) tu_cases_error(CASES_FILE, 0, "no cases", "");
}

START_TEST(semantic_case) {
  const Case *c = &cases[_i];
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = c->type ? tu_type_pool(c->type) : NULL;
  o.equivalent = c->equivalent;
  o.ignore_unknown = c->ignore_unknown;
  o.float_bits = c->float_bits;
  char where[256];
  snprintf(where, sizeof where, "%s:%d", CASES_FILE, c->line);
  pbd_BytesView views[2];
  for (size_t k = 0; k < c->view_count; k++) {
    views[k] = c->views[k];
    views[k].field = pbd_DefPool_FindFieldByFullName(o.pool, c->view_names[k]);
    ck_assert_msg(views[k].field, "%s: no field %s", where, c->view_names[k]);
  }
  pbd_DiffOptions d = {.partial = c->partial, .float_margin = c->float_margin,
                       .float_fraction = c->float_fraction, .ignores = c->ignores,
                       .ignore_count = c->ignore_count, .onnx_tensors = c->onnx,
                       .bytes_views = views, .bytes_view_count = c->view_count};
  tu_expect_diff_with(where, c->type ? tu_type(c->type) : NULL, &o, &d, c->left, c->right,
                      c->want, c->want_back);
}
END_TEST

/* The differential check of options (docs/semantics.md, "When a change of
 * place is a difference"): an option only removes the differences it names.
 * Each case with no diff option is run again under options that switch the
 * hashes' pruning off but name nothing the case holds — an ignore pattern of
 * no field, a tolerance scoped to no field, a tolerance no two distinct
 * values of these cases fall within — and must give exactly its edits, in
 * both directions. */
static const char kNoSuchPath[] = "no_such_field[*].nothing";

START_TEST(semantic_case_nameless_options) {
  const Case *c = &cases[_i];
  if (c->partial || c->float_margin > 0 || c->float_fraction > 0 || c->ignore_count || c->onnx ||
      c->view_count)
    return;
  pbd_ReadOptions o;
  memset(&o, 0, sizeof o);
  o.hash_seed = 12345;
  o.pool = c->type ? tu_type_pool(c->type) : NULL;
  o.equivalent = c->equivalent;
  o.ignore_unknown = c->ignore_unknown;
  o.float_bits = c->float_bits;
  pbd_IgnoreRule nothing = {.pattern = kNoSuchPath};
  pbd_ToleranceRule nowhere = {.pattern = "no_such_field[*]", .margin = 0.5, .fraction = 0.5};
  pbd_DiffOptions variants[4] = {{.ignores = &nothing, .ignore_count = 1},
                                 {.tolerances = &nowhere, .tolerance_count = 1},
                                 {.float_fraction = 1e-12},
                                 {.float_margin = 1e-300}};
  static const char *const names[4] = {"--ignore no_such_field[*].nothing",
                                       "--float-margin 'no_such_field[*]=0.5'",
                                       "--float-fraction 1e-12", "--float-margin 1e-300"};
  for (size_t v = 0; v < 4; v++) {
    if (c->float_bits && v > 0) continue; /* tolerances do not combine with --float-bits */
    char where[256];
    snprintf(where, sizeof where, "%s:%d under %s", CASES_FILE, c->line, names[v]);
    tu_expect_diff_with(where, c->type ? tu_type(c->type) : NULL, &o, &variants[v], c->left,
                        c->right, c->want, c->want_back);
  }
}
END_TEST

/* Unchecked fixture: each schema is compiled once, before the tests fork. */
static void load_schemas(void) {
  for (size_t i = 0; i < ncases; i++)
    if (cases[i].type) tu_type_pool(cases[i].type);
}

int main(void) {
  load_cases();
  Suite *s = suite_create("semantic_cases");
  TCase *t = tcase_create("cases");
  tcase_set_timeout(t, 60);
  tcase_add_unchecked_fixture(t, load_schemas, NULL);
  tcase_add_loop_test(t, semantic_case, 0, (int)ncases);
  tcase_add_loop_test(t, semantic_case_nameless_options, 0, (int)ncases);
  suite_add_tcase(s, t);
  int rc = tu_main(s);
  for (size_t i = 0; i < ncases; i++) {
    free(cases[i].type);
    free(cases[i].left);
    free(cases[i].right);
    free(cases[i].want);
    free(cases[i].want_back);
    for (size_t k = 0; k < cases[i].ignore_count; k++) free((char *)cases[i].ignores[k].pattern);
    for (size_t k = 0; k < cases[i].view_count; k++) free(cases[i].view_names[k]);
  }
  free(cases);
  return rc;
}
