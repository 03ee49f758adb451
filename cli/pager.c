/* pbdiff CLI — long reports through a pager, as git does: when standard
 * output is a terminal, the text report goes to $PAGER (a shell command;
 * `less -FRX` when unset: quit when it fits on one screen, keep colours,
 * leave the screen as it is), unless --no-pager, -q or a machine format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static FILE *g_pager;
static int g_saved_stdout = -1;

void pbd_Cli_StartPager(const pbd_CliOptions *o) {
  if (o->no_pager || o->quiet || !pbd_Report_HasColor(o->format) || !isatty(STDOUT_FILENO))
    return;
  const char *pager = getenv("PBDIFF_PAGER");
  if (!pager) pager = getenv("PAGER");
  if (!pager) pager = "less";
  if (!*pager || !strcmp(pager, "cat")) return;
  setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRX", 1);
  fflush(stdout);
  g_pager = popen(pager, "w");
  if (!g_pager) return; /* no pager: the report goes to the terminal itself */
  g_saved_stdout = dup(STDOUT_FILENO);
  if (g_saved_stdout < 0 || dup2(fileno(g_pager), STDOUT_FILENO) < 0) {
    pclose(g_pager);
    g_pager = NULL;
  }
}

void pbd_Cli_EndPager(void) {
  if (!g_pager) return;
  fflush(stdout);
  dup2(g_saved_stdout, STDOUT_FILENO); /* the pager sees the end of its input */
  close(g_saved_stdout);
  pclose(g_pager); /* wait until the reader quits it */
  g_pager = NULL;
}
