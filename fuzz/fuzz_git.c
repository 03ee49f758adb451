/* libFuzzer harness: the git diff driver's argument forms on hostile
 * strings.
 *
 * The input is split at NUL bytes into git's external-diff operands:
 * PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE [NEW-PATH MESSAGE]
 * (9 pieces for a rename, 1 for an unmerged path, else the first 7, padded
 * with empty ones).  They run through pbd_Cli_GitDriver in a directory
 * holding a .pbdiff (sem3.M for *.pb, from $PBDIFF_FUZZ_DESC) and files a
 * repository can hold: messages, a corrupt file, a Git LFS pointer, an empty
 * file and names that start with '-'.  Its reports go to /dev/null.  Any
 * crash, leak, hang or sanitizer report is a bug; a refused operand is fine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static pbd_CliOptions options;
static pbd_Config *config;
static char dir[] = "/tmp/pbdiff-fuzz-git-XXXXXX";
static const char *const kFiles[] = {".pbdiff", "a.pb", "b.pb", "-x.pb", "bad.pb", "empty.pb", "lfs.pb"};

/* The directory and its files go when the process ends. */
static void remove_dir(void) {
  for (size_t i = 0; i < sizeof kFiles / sizeof *kFiles; i++) {
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/%s", dir, kFiles[i]);
    unlink(path);
  }
  rmdir(dir);
}

static void put(const char *name, const char *data, size_t n) {
  FILE *f = fopen(name, "wb");
  if (!f) abort();
  if (n && fwrite(data, 1, n, f) != n) abort();
  fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *desc = getenv("PBDIFF_FUZZ_DESC");
  char abs[4096] = "";
  if (desc && !realpath(desc, abs)) abs[0] = '\0';
  if (!mkdtemp(dir) || chdir(dir) != 0) abort();
  atexit(remove_dir);
  char cfg[5000];
  int n = snprintf(cfg, sizeof cfg, "[file \"*.pb\"]\n%s%s%s\ttype = sem3.M\n",
                   abs[0] ? "\tschema = " : "", abs, abs[0] ? "\n" : "");
  put(".pbdiff", cfg, (size_t)n);
  put("a.pb", "\x08\x01\x52\x01x", 5);
  put("b.pb", "\x52\x01x\x08\x02", 5);
  put("-x.pb", "\x08\x01", 2);
  put("bad.pb", "\x08", 1);
  put("empty.pb", "", 0);
  static const char lfs[] = "version https://git-lfs.github.com/spec/v1\noid sha256:"
                            "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                            "size 12345\n";
  put("lfs.pb", lfs, sizeof lfs - 1);
  if (!freopen("/dev/null", "w", stdout)) abort();
  char arg0[] = "pbdiff", *args[] = {arg0, NULL};
  pbd_Cli_ParseOptions(1, args, kPbd_Cmd_Compare, &options);
  /* The operands may name devices (/dev/zero, /dev/full): they stop at the
   * input bound as they do for users, here 1 MiB, within libFuzzer's memory
   * limit (the 2 GiB default is protobuf's own, and test-sized elsewhere). */
  options.max_input = 1 << 20;
  pbd_CliError e = {0};
  config = pbd_Config_Load(&options, &e);
  if (!config) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  copy[size] = '\0';
  char *args[10] = {0};
  int n = 0;
  for (char *p = copy; n < 9;) {
    args[n++] = p;
    char *end = memchr(p, '\0', (size_t)(copy + size - p));
    if (!end || end == copy + size) break;
    p = end + 1;
  }
  static char empty[] = "";
  if (n != 1 && n != 9) {
    for (int k = n; k < 7; k++) args[k] = empty;
    args[7] = args[8] = NULL;
  }
  pbd_Cli_GitDriver(&options, config, NULL, args);
  free(copy);
  return 0;
}
