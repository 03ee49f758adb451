/* pbdiff — command-line entry: picks the command (compare, the git
 * external-diff form, ...) and runs it.  Exit status as diff(1): 0 equal,
 * 1 different, 2 trouble. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pbdiff/inputs/input.h"
#include "pbdiff/pbdiff.h"


/* The path whose .pbdiff section applies: under `git difftool -x` the path
 * in the repository (git's BASE), else LEFT's, else RIGHT's when LEFT is
 * standard input or /dev/null (a file git shows as added). */
static const char *config_path(const char *lpath, const char *rpath) {
  const char *base = getenv("BASE");
  if (getenv("GIT_DIFF_PATH_TOTAL") && base && *base) return base;
  bool left_real = strcmp(lpath, "-") && strcmp(lpath, "/dev/null");
  return left_real ? lpath : rpath;
}

/* A failed comparison as a report, for formats whose readers want one
 * (JUnit: a test case with an <error>, not an empty file). */
static void trouble_report(const pbd_CliOptions *o, const char *rpath, const pbd_CliError *e) {
  if (!pbd_Report_ReportsTrouble(o->format)) return;
  pbd_FilesOptions fo = {.dir1 = "", .dir2 = ""};
  pbd_FilesReporter *rep = pbd_FilesReporter_New(o->format, stdout, &fo);
  if (!rep) return;
  pbd_FileResult f = {.rel = rpath, .side = kPbd_File_Both, .status = kExitTrouble, .error = e->msg};
  pbd_FilesReporter_File(rep, &f);
  pbd_FilesReporter_Finish(rep, false);
  pbd_FilesReporter_Free(rep);
}

/* Under git (GIT_DIFF_PATH_COUNTER set), how many of the last arguments are
 * git's external-diff operands (9 for a rename, else 7; 0: not that form,
 * as for difftool's two files), so that none of them is read as an option:
 * git passes a file named `-dash.pb` as it is. */
static int git_operands(int argc, char **argv) {
  if (!getenv("GIT_DIFF_PATH_COUNTER")) return 0;
  static const int kForms[] = {9, 7};
  for (size_t i = 0; i < 2; i++) {
    int k = kForms[i];
    if (argc - 1 < k) continue;
    char **a = argv + argc - k; /* PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE */
    if (pbd_Cli_GitIdOrGone(a[2]) && pbd_Cli_GitModeOrGone(a[3]) && pbd_Cli_GitIdOrGone(a[5]) &&
        pbd_Cli_GitModeOrGone(a[6]))
      return k;
  }
  return 0;
}

/* Whether the .pbdiff section for the operands sets record-key (then they
 * are corpora, as with --record-key). */
static bool config_gives_record_key(const pbd_CliOptions *o, const char *lpath, const char *rpath) {
  if (o->no_config) return false;
  pbd_CliError e = {0};
  pbd_Config *cfg = pbd_Config_Load(o, &e);
  if (!cfg) return false; /* the command says why when it loads it again */
  pbd_CliOptions eff = pbd_Config_Apply(cfg, o, config_path(lpath, rpath));
  bool keyed = eff.record_key != NULL;
  pbd_Cli_FreeApplied(&eff);
  pbd_Config_Free(cfg);
  return keyed;
}

/* Two corpora, records paired by key (pbdiff --record-key, pbdiff noise). */
static int corpus_command(pbd_CliOptions *o, const char *lpath, const char *rpath) {
  pbd_Config *cfg = pbd_Config_LoadOrSay(o, o->noise ? "pbdiff noise" : "pbdiff");
  int status = kExitTrouble;
  if (cfg) {
    o->report.test_name = rpath; /* --format junit: the test case is named after RIGHT */
    pbd_CliOptions eff = pbd_Config_Apply(cfg, o, config_path(lpath, rpath));
    if (!eff.noise) pbd_Cli_StartPager(&eff);
    pbd_CliError error = {0};
    status = pbd_Cli_CompareRecords(&eff, lpath, rpath, &error);
    pbd_Cli_EndPager();
    pbd_CliError_PrintNote(stderr, &error);
    if (status == kExitTrouble) pbd_CliError_Print(stderr, &error, eff.noise ? "pbdiff noise" : "pbdiff");
    if (status == kExitTrouble && !eff.quiet && !eff.noise) trouble_report(&eff, rpath, &error);
    pbd_Cli_FreeApplied(&eff);
    pbd_Config_Free(cfg);
  }
  pbd_Cli_FreeOptions(o);
  return status;
}

/* pbdiff noise [OPTIONS] RUN1 RUN2 */
static int noise_command(int argc, char **argv) {
  pbd_CliOptions o;
  int first = pbd_Cli_ParseOptions(argc, argv, kPbd_Cmd_Noise, &o);
  if (argc - first != 2) {
    fprintf(stderr, "pbdiff noise: %s\nTry 'pbdiff noise --help' for more information.\n",
            argc - first < 2 ? "missing operand: need RUN1 and RUN2" : "too many operands: need RUN1 and RUN2");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  o.noise = true;
  return corpus_command(&o, argv[first], argv[first + 1]);
}

/* pbdiff [OPTIONS] LEFT RIGHT */
static int compare_command(int argc, char **argv) {
  pbd_CliOptions o;
  int tail = git_operands(argc, argv); /* operands that are not options, whatever they read */
  int first = pbd_Cli_ParseOptions(argc - tail, argv, kPbd_Cmd_Compare, &o);
  if (tail) first = argc - tail; /* (options after them are git's operands too) */
  int nargs = argc - first;
  /* git's external-diff forms: 7 operands, 9 for a rename or copy, and 1
   * (the path alone) for an unmerged path */
  bool git = !o.recursive && (nargs == 7 || nargs == 9 || (nargs == 1 && getenv("GIT_DIFF_PATH_COUNTER")));
  if (nargs != 2 && !git) {
    fprintf(stderr, "pbdiff: %s\nTry 'pbdiff --help' for more information.\n",
            nargs < 2 ? "missing operand: need LEFT and RIGHT" : "too many operands: need LEFT and RIGHT");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  pbd_Config *cfg = NULL;
  if (git) { /* git diff driver: PATH OLD HEX MODE NEW HEX MODE [NEW-PATH MESSAGE] */
    /* a bad .pbdiff is shown as an unreadable file is: git goes on */
    pbd_CliError config_error = {0};
    cfg = pbd_Config_Load(&o, &config_error);
    int status = pbd_Cli_GitDriver(&o, cfg, cfg ? NULL : &config_error, argv + first);
    pbd_Config_Free(cfg);
    pbd_Cli_FreeOptions(&o);
    return status;
  }
  const char *lpath = argv[first], *rpath = argv[first + 1];
  if (o.record_key || config_gives_record_key(&o, lpath, rpath))
    return corpus_command(&o, lpath, rpath);
  if (o.recursive && nargs == 2) {
    cfg = pbd_Config_LoadOrSay(&o, "pbdiff");
    if (cfg) pbd_Cli_StartPager(&o);
    int status = cfg ? pbd_Cli_CompareDirs(&o, cfg, lpath, rpath) : kExitTrouble;
    pbd_Cli_EndPager();
    pbd_Config_Free(cfg);
    pbd_Cli_FreeOptions(&o);
    return status;
  }
  if (!strcmp(lpath, "-") && !strcmp(rpath, "-")) {
    fprintf(stderr, "pbdiff: only one of LEFT and RIGHT can be standard input\n"
                    "Try 'pbdiff --help' for more information.\n");
    pbd_Cli_FreeOptions(&o);
    return kExitTrouble;
  }
  cfg = pbd_Config_LoadOrSay(&o, "pbdiff");
  int status = kExitTrouble;
  if (cfg) {
    o.report.test_name = rpath; /* --format junit: the test case is named after RIGHT */
    if (o.labels.n) { /* -L: the names the report gives the two sides */
      o.report.left_name = o.labels.v[0];
      o.report.right_name = o.labels.v[o.labels.n > 1];
    } else if (pbd_Report_NamesInputs(o.format)) {
      o.report.left_name = lpath;
      o.report.right_name = rpath;
    }
    pbd_CliOptions eff = pbd_Config_Apply(cfg, &o, config_path(lpath, rpath));
    pbd_CliError error = {0};
    if (eff.patch) {
      status = pbd_Cli_PatchPair(&eff, lpath, rpath, stdout, &error);
    } else {
      pbd_Cli_StartPager(&eff);
      status = pbd_Cli_ComparePair(&eff, lpath, rpath, NULL, NULL, stdout, &error);
    }
    pbd_Cli_EndPager();
    pbd_CliError_PrintNote(stderr, &error);
    if (status == kExitTrouble) pbd_CliError_Print(stderr, &error, "pbdiff");
    if (status == kExitTrouble && !eff.quiet) trouble_report(&eff, rpath, &error);
    pbd_Cli_FreeApplied(&eff);
    pbd_Config_Free(cfg);
  }
  pbd_Cli_FreeOptions(&o);
  return status;
}

/* An input truncated by another process while it was mapped: one line and
 * exit status 2 at once, from the SIGBUS handler (so write(2) and _exit(2)
 * only); what was read of it can no longer be trusted. */
static void input_cut_short(const char *name) {
  static const char kHead[] = "pbdiff: ", kTail[] = ": the file was truncated while being read "
                                                     "(another process changed it)\n";
  if (write(STDERR_FILENO, kHead, sizeof kHead - 1) < 0 ||
      write(STDERR_FILENO, name, strlen(name)) < 0 ||
      write(STDERR_FILENO, kTail, sizeof kTail - 1) < 0)
    _exit(kExitTrouble);
  _exit(kExitTrouble);
}

int main(int argc, char **argv) {
  int status;
  pbd_Input_OnTruncated(input_cut_short);
  if (argc > 1 && !strcmp(argv[1], "cat")) status = pbd_Cli_Cat(argc - 1, argv + 1);
  else if (argc > 1 && !strcmp(argv[1], "hash")) status = pbd_Cli_Hash(argc - 1, argv + 1);
  else if (argc > 1 && !strcmp(argv[1], "noise")) status = noise_command(argc - 1, argv + 1);
  else if (argc > 1 && !strcmp(argv[1], "apply")) status = pbd_Cli_Apply(argc - 1, argv + 1);
  else if (argc > 1 && !strcmp(argv[1], "merge")) status = pbd_Cli_Merge(argc - 1, argv + 1);
  else status = compare_command(argc, argv);
  pbd_Cli_ClearSchemaCache();
  if (fflush(stdout) != 0 && status != kExitTrouble) {
    fprintf(stderr, "pbdiff: cannot write to standard output\n");
    status = kExitTrouble;
  }
  pbd_Cli_PrintKeyWarnings(stderr); /* after the report */
  return status;
}
