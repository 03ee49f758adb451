#include "pbdiff/inputs/input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kEmpty = 0, kMapped = 1, kMalloced = 2 };

/* ---- Files cut short while mapped ----------------------------------------------
 *
 * Inputs are mapped, not copied, for speed (an equal pair costs one hashing
 * read of each).  When another process truncates a mapped file (a log
 * rotated, an artifact rewritten), reading past its new end raises SIGBUS,
 * which would kill the process.  Each mapping is registered here; the
 * handler maps zero pages over the rest of a registered mapping (so the
 * faulting read goes on), marks the input as cut, and calls the program's
 * function (the CLI's says so and exits 2).  A fault anywhere else goes to
 * the handler that was there before, or kills as SIGBUS does.  Inputs that
 * find no free slot are read into memory instead. */

enum { kSlots = 4096 };

typedef struct {
  atomic_int claimed;        /* 0 free, 1 taken */
  atomic_uintptr_t begin;    /* 0 while being set up */
  atomic_uintptr_t end;
  const char *volatile name;
  atomic_int cut;            /* the handler found the file cut short */
} Slot;

static Slot g_slots[kSlots];
static struct sigaction g_previous;
static bool g_installed;
static uintptr_t g_page = 4096;
static void (*volatile g_on_cut)(const char *name);
static pthread_once_t g_install_once = PTHREAD_ONCE_INIT;

static void pass_on(int sig, siginfo_t *si, void *ctx) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, si, ctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else { /* as if no handler were there: the default action */
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx) {
  uintptr_t at = (uintptr_t)si->si_addr;
  for (int i = 0; i < kSlots; i++) {
    uintptr_t b = atomic_load(&g_slots[i].begin), e = atomic_load(&g_slots[i].end);
    if (!b || at < b || at >= e) continue;
    uintptr_t from = at & ~(g_page - 1), to = (e + g_page - 1) & ~(g_page - 1);
    if (mmap((void *)from, to - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
             0) == MAP_FAILED)
      break;
    atomic_store(&g_slots[i].cut, 1);
    void (*fn)(const char *) = g_on_cut;
    if (fn) fn(g_slots[i].name);
    return; /* the read is retried, and finds zeros */
  }
  pass_on(sig, si, ctx);
}

static void install(void) {
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0) g_page = (uintptr_t)page;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  g_installed = sigaction(SIGBUS, &sa, &g_previous) == 0;
}

/* A slot for the mapping [p, p + n), or -1 (then the caller reads instead). */
static int register_mapping(const void *p, size_t n, const char *name) {
  pthread_once(&g_install_once, install);
  if (!g_installed) return -1;
  for (int i = 0; i < kSlots; i++) {
    int free_slot = 0;
    if (!atomic_compare_exchange_strong(&g_slots[i].claimed, &free_slot, 1)) continue;
    g_slots[i].name = name;
    atomic_store(&g_slots[i].cut, 0);
    atomic_store(&g_slots[i].end, (uintptr_t)p + n);
    atomic_store(&g_slots[i].begin, (uintptr_t)p);
    return i;
  }
  return -1;
}

static void unregister_mapping(int i) {
  atomic_store(&g_slots[i].begin, 0);
  atomic_store(&g_slots[i].end, 0);
  atomic_store(&g_slots[i].claimed, 0);
}

void pbd_Input_OnTruncated(void (*fn)(const char *name)) { g_on_cut = fn; }

bool pbd_Input_WasTruncated(const pbd_Input *in) {
  return in->kind_ == kMapped && in->slot_ >= 0 && atomic_load(&g_slots[in->slot_].cut);
}

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
  in->slot_ = -1;
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
    int slot = p == MAP_FAILED ? -1 : register_mapping(p, (size_t)st.st_size, path);
    if (slot < 0) { /* not mapped, or no way to survive its truncation: read */
      if (p != MAP_FAILED) munmap(p, (size_t)st.st_size);
      ok = read_all(fd, in, max, s);
    } else {
      in->data = p;
      in->size = (size_t)st.st_size;
      in->kind_ = kMapped;
      in->slot_ = slot;
    }
  }
  close(fd);
  return ok;
}

void pbd_Input_Close(pbd_Input *in) {
  if (in->kind_ == kMapped) {
    munmap((void *)in->data, in->size);
    if (in->slot_ >= 0) unregister_mapping(in->slot_);
  }
  in->slot_ = -1;
  if (in->kind_ == kMalloced) free((void *)in->data);
  in->data = kNothing;
  in->size = 0;
  in->kind_ = kEmpty;
}

void pbd_Input_Release(const pbd_Input *in, size_t begin, size_t end) {
  if (in->kind_ != kMapped || end > in->size || begin >= end) return;
  uintptr_t base = (uintptr_t)in->data;
  uintptr_t from = (base + begin + g_page - 1) & ~(g_page - 1), to = (base + end) & ~(g_page - 1);
  if (end == in->size) to = (base + end + g_page - 1) & ~(g_page - 1); /* the last page's tail is the mapping's */
  if (from < to) (void)madvise((void *)from, to - from, MADV_DONTNEED); /* advice: may fail harmlessly */
}

const char *pbd_Input_DisplayName(const pbd_Input *in) {
  return strcmp(in->name, "-") == 0 ? "standard input" : in->name;
}
