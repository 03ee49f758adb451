/* Replays fuzz inputs through a libFuzzer harness without libFuzzer, so
 * that `make test` (plain and under ASan+UBSan) runs every committed seed
 * and every regression input on each harness, with any compiler:
 *
 *   replay_HARNESS DIR_OR_FILE...
 *
 * Each file is passed once to LLVMFuzzerTestOneInput, after
 * LLVMFuzzerInitialize when the harness has one.  A harness reports a bug
 * by crashing or aborting (or through a sanitizer), so reaching the end is
 * the pass: the driver prints how many inputs it ran and exits 0. */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 4096;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) abort();
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  /* an exact-size copy, so that ASan sees reads past the input's end */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) abort();
  if (n) memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 1;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files, in name order, so runs are reproducible. */
static long run_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char **nn = realloc(names, sizeof *names * (n + 1));
    if (!nn) abort();
    names = nn;
    names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
    if (!names[n]) abort();
    sprintf(names[n], "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  long ran = 0;
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) ran += run_file(names[i]) > 0;
    free(names[i]);
  }
  free(names);
  return ran;
}

int main(int argc, char **argv) {
  /* absolute paths first: a harness may change directory as it starts */
  for (int i = 1; i < argc; i++) {
    char *abs = realpath(argv[i], NULL);
    if (!abs) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
    argv[i] = abs; /* kept to the end */
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  long ran = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
    long r = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
    if (r < 0) return 2;
    ran += r;
  }
  fprintf(stderr, "%s: %ld inputs replayed\n", argv[0], ran); /* stdout may be the harness's */
  return 0;
}
