/* pbdiff — one job on each side at once (threads.h). */
#include "pbdiff/core/threads.h"

#include <pthread.h>

bool pbd_Threads_RunBoth(void *(*fn)(void *), void *left, void *right, bool two_threads) {
  pthread_t th;
  bool threaded = two_threads && pthread_create(&th, NULL, fn, right) == 0;
  fn(left);
  if (threaded) pthread_join(th, NULL);
  return threaded;
}
