/* libFuzzer harness: the `.pbdiff` parser on hostile bytes.
 *
 * A `.pbdiff` comes with whatever repository pbdiff runs in.  The input is
 * written to a file of this process and loaded as the config
 * (pbd_Config_Load, as `--config FILE`), then applied to a few paths as
 * each command applies it.  Any crash, leak, hang or sanitizer report is a
 * bug; a refused config is fine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static char path[64];

static void remove_file(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  snprintf(path, sizeof path, "/tmp/pbdiff-fuzz-config-%ld", (long)getpid());
  atexit(remove_file);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  bool written = fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0 || !written) return 0;
  char arg0[] = "pbdiff", *argv[] = {arg0, NULL};
  pbd_CliOptions o;
  pbd_Cli_ParseOptions(1, argv, kPbd_Cmd_Compare, &o);
  o.config = path;
  pbd_CliError e = {0};
  pbd_Config *c = pbd_Config_Load(&o, &e);
  if (c) {
    const char *paths[] = {"a.pb", "x/y.onnx", "-", "/dev/null", "deep/er/z.bin", ""};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
      pbd_CliOptions eff = pbd_Config_Apply(c, &o, paths[i]);
      pbd_Cli_FreeApplied(&eff);
    }
    pbd_Config_Free(c);
  }
  o.config = NULL;
  pbd_Cli_FreeOptions(&o);
  return 0;
}
