/* pbdiff — one job on each side at once: LEFT's on the calling thread,
 * RIGHT's on a second one.  The hash pass, the shallow trees, the narrowing
 * by hash and the views of tensors each work on two sides that share
 * nothing (arenas, hashers, caches), so their two halves run apart. */
#ifndef PBD_THREADS_H_
#define PBD_THREADS_H_

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs fn(left) and, when two_threads and a thread starts, fn(right) on a
 * thread of its own at the same time, and waits for both.  Returns whether
 * fn(right) ran: when not, the caller runs it (or not: after a failure on
 * LEFT, say). */
bool pbd_Threads_RunBoth(void *(*fn)(void *), void *left, void *right, bool two_threads);

#ifdef __cplusplus
}
#endif
#endif
