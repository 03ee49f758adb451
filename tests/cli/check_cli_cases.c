/* The command-line cases of tests/cases/cli.cases (its head says the format)
 * and of the other files of kCaseFiles, in the same format:
 * each block is one Check test, run in a fresh directory of the sandbox
 * (tu_cli.h) with the files it writes; every command's exit status, standard
 * output and standard error are checked.  A failure names the file and the
 * line of the command.  A malformed line fails the run before any test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("cli_cases", "proto/sem3.proto", "sem3.desc", "proto/sem2.proto", "sem2.desc",
                "proto/corpus.proto", "corpus.desc")

/* The files of cases: the general ones, the corpus commands', and order under
 * every option's. */
static const char *const kCaseFiles[] = {"tests/cases/cli.cases", "tests/cases/corpus.cases",
                                         "tests/cases/order.cases", "tests/cases/window.cases",
                                         "tests/cases/options.cases", "tests/cases/bounds.cases",
                                         "tests/cases/sarif.cases", "tests/cases/merge.cases",
                                         "tests/cases/notes.cases", "tests/cases/keys.cases"};
static const char *cases_file; /* the file being read, or the case's own */

/* The shell variables every command sees (tu_cli.h's option strings). */
#define CASE_VARS                                                               \
  "S3='" S3 "' S3REC='" S3REC "' S2='" S2 "' ONNX_PROTO='" ONNX_PROTO "' "      \
  "ONNX_NODE='" ONNX_NODE "' ONNX_MODEL='" ONNX_MODEL "' "                      \
  "C='-s ../corpus.desc -t corpus.Record' W=\"/usr/bin/python3 $R/tests/support/write_corpus.py\"; "

typedef enum { kFile, kCommand } StepKind;

typedef struct {
  StepKind kind;
  int line;
  char *text;     /* the file's name, or the command */
  char *hex;      /* kFile: its bytes */
  int status;     /* kCommand: the expectations */
  pbd_Buf out, err;
  bool err_contains;
} Step;

typedef struct {
  const char *file;
  int line;
  char *name;
  Step *steps;
  size_t nsteps;
} Case;

static Case *cases;
static size_t ncases;

static Step *add_step(Case *c, StepKind kind, int line, const char *text) {
  c->steps = realloc(c->steps, (c->nsteps + 1) * sizeof *c->steps);
  Step *s = &c->steps[c->nsteps++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->line = line;
  s->text = strdup(text);
  pbd_Buf_AppendStr(&s->out, "");
  pbd_Buf_AppendStr(&s->err, "");
  return s;
}

static Step *last_command(Case *c, int line, const char *l) {
  if (!c || !c->nsteps || c->steps[c->nsteps - 1].kind != kCommand)
    tu_cases_error(cases_file, line, "an expectation with no command before it", l);
  return &c->steps[c->nsteps - 1];
}

/* The text after a mark: "> x" is "x", ">" alone is "". */
static const char *after_mark(const char *l, size_t mark_len) {
  const char *p = l + mark_len;
  return *p == ' ' ? p + 1 : p;
}

static void load_file(void) {
  char *text = tu_read_cases(cases_file);
  Case *c = NULL; /* the block being read */
  int line = 0;
  for (char *l = text; l && *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = '\0';
    line++;
    if (l[0] == '\0') {
      c = NULL;
    } else {
      if (!c) {
        cases = realloc(cases, (ncases + 1) * sizeof *cases);
        c = &cases[ncases++];
        memset(c, 0, sizeof *c);
        c->file = cases_file;
        c->line = line;
      }
      if (l[0] == '#') {
        if (!c->name) c->name = strdup(after_mark(l, 1));
      } else if (l[0] == '<') {
        const char *p = after_mark(l, 1);
        const char *sp = strchr(p, ' ');
        char *name = sp ? strndup(p, (size_t)(sp - p)) : strdup(p);
        if (!*name) tu_cases_error(cases_file, line, "a file with no name", l);
        Step *s = add_step(c, kFile, line, name);
        s->hex = strdup(sp ? sp + 1 : "");
        free(name);
      } else if (l[0] == '$') {
        add_step(c, kCommand, line, after_mark(l, 1));
      } else if (l[0] == '?') {
        char *end;
        long st = strtol(after_mark(l, 1), &end, 10);
        if (*end || st < 0 || st > 255)
          tu_cases_error(cases_file, line, "not an exit status", l);
        last_command(c, line, l)->status = (int)st;
      } else if (l[0] == '>') {
        Step *s = last_command(c, line, l);
        pbd_Buf_Printf(&s->out, "%s\n", after_mark(l, 1));
      } else if (!strncmp(l, "!~", 2)) {
        Step *s = last_command(c, line, l);
        if (s->err.len) tu_cases_error(cases_file, line, "\"!~\" after \"!\" lines", l);
        s->err_contains = true;
        pbd_Buf_AppendStr(&s->err, after_mark(l, 2));
      } else if (l[0] == '!') {
        Step *s = last_command(c, line, l);
        if (s->err_contains) tu_cases_error(cases_file, line, "\"!\" after \"!~\"", l);
        pbd_Buf_Printf(&s->err, "%s\n", after_mark(l, 1));
      } else {
        tu_cases_error(cases_file, line, "a line with no mark (#, <, $, ?, >, !)", l);
      }
    }
    l = nl ? nl + 1 : NULL;
  }
  free(text);
}

static void load_cases(void) {
  for (size_t f = 0; f < sizeof kCaseFiles / sizeof *kCaseFiles; f++) {
    cases_file = kCaseFiles[f];
    load_file();
  }
  /* blocks of comments only (section titles) are not cases */
  size_t k = 0;
  for (size_t i = 0; i < ncases; i++) {
    bool has_command = false;
    for (size_t j = 0; j < cases[i].nsteps; j++) has_command |= cases[i].steps[j].kind == kCommand;
    if (has_command) cases[k++] = cases[i];
    else if (cases[i].nsteps)
      tu_cases_error(cases[i].file, cases[i].line, "a case with no command", cases[i].name);
    else free(cases[i].name);
  }
  ncases = k;
  if (ncases == 0) tu_cases_error(kCaseFiles[0], 0, "no cases", "");
}

START_TEST(cli_case) {
  const Case *c = &cases[_i];
  for (size_t i = 0; i < c->nsteps; i++) {
    const Step *s = &c->steps[i];
    if (s->kind == kFile) {
      tu_put_hex(s->text, s->hex);
      continue;
    }
    const Run *r = tu_sh(CASE_VARS "%s", s->text);
    bool err_ok = s->err_contains ? strstr(r->err, s->err.data) != NULL
                                  : strcmp(r->err, s->err.data) == 0;
    ck_assert_msg(r->rc == s->status && strcmp(r->out, s->out.data) == 0 && err_ok,
                  "%s:%d (%s): $ %s\nstatus %d (want %d)\nstdout: [%.3000s]\n  want: [%.3000s]\n"
                  "stderr: [%.1500s]\n  want%s: [%.1500s]",
                  c->file, s->line, c->name ? c->name : "", s->text, r->rc, s->status, r->out,
                  s->out.data, r->err, s->err_contains ? " (contains)" : "", s->err.data);
  }
}
END_TEST

int main(void) {
  load_cases();
  Suite *s = suite_create("cli_cases");
  TCase *t = tcase_create("cases");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_loop_test(t, cli_case, 0, (int)ncases);
  suite_add_tcase(s, t);
  int rc = tu_main(s);
  for (size_t i = 0; i < ncases; i++) {
    for (size_t j = 0; j < cases[i].nsteps; j++) {
      Step *st = &cases[i].steps[j];
      free(st->text);
      free(st->hex);
      pbd_Buf_Free(&st->out);
      pbd_Buf_Free(&st->err);
    }
    free(cases[i].steps);
    free(cases[i].name);
  }
  free(cases);
  return rc;
}
