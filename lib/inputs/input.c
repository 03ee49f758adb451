#include "pbdiff/inputs/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kEmpty = 0, kMapped = 1, kMalloced = 2 };

static const uint8_t kNothing[1] = {0};

static bool too_big(size_t max, pbd_Status *s) {
  pbd_Status_SetError(s, kPbd_Status_Io,
                      "over %zu bytes, the most an input may hold (--max-input-bytes)", max);
  return false;
}

static bool read_all(int fd, pbd_Input *in, size_t max, pbd_Status *s) {
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory reading input");
      return false;
    }
    if (len == cap) { /* double, but never past what the bound lets through */
      size_t next = cap <= max / 2 ? cap * 2 : max + 1;
      uint8_t *nb = realloc(buf, next);
      if (!nb) free(buf);
      buf = nb;
      cap = next;
      continue;
    }
    ssize_t k = read(fd, buf + len, cap - len);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      pbd_Status_SetError(s, kPbd_Status_Io, "cannot read: %s", strerror(errno));
      free(buf);
      return false;
    }
    if (k == 0) break;
    len += (size_t)k;
    if (len > max) {
      free(buf);
      return too_big(max, s);
    }
  }
  in->data = buf;
  in->size = len;
  in->kind_ = kMalloced;
  return true;
}

bool pbd_Input_Open(pbd_Input *in, const char *path, pbd_Status *s) {
  return pbd_Input_OpenMax(in, path, PBD_DEFAULT_MAX_INPUT_BYTES, s);
}

bool pbd_Input_OpenMax(pbd_Input *in, const char *path, size_t max, pbd_Status *s) {
  memset(in, 0, sizeof *in);
  in->name = path;
  in->data = kNothing;
  if (strcmp(path, "-") == 0) return read_all(STDIN_FILENO, in, max, s);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot open: %s", strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    pbd_Status_SetError(s, kPbd_Status_Io, "cannot stat: %s", strerror(errno));
    close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    pbd_Status_SetError(s, kPbd_Status_Io, "is a directory");
    close(fd);
    return false;
  }
  bool ok = true;
  if (!S_ISREG(st.st_mode)) {
    ok = read_all(fd, in, max, s); /* pipes, /dev/stdin, process substitution */
  } else if ((uint64_t)st.st_size > max) {
    ok = too_big(max, s);
  } else if (st.st_size > 0) {
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ok = read_all(fd, in, max, s);
    } else {
      in->data = p;
      in->size = (size_t)st.st_size;
      in->kind_ = kMapped;
    }
  }
  close(fd);
  return ok;
}

void pbd_Input_Close(pbd_Input *in) {
  if (in->kind_ == kMapped) munmap((void *)in->data, in->size);
  if (in->kind_ == kMalloced) free((void *)in->data);
  in->data = kNothing;
  in->size = 0;
  in->kind_ = kEmpty;
}

const char *pbd_Input_DisplayName(const pbd_Input *in) {
  return strcmp(in->name, "-") == 0 ? "standard input" : in->name;
}
