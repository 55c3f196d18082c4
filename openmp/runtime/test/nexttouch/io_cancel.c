// The I/O wrappers are cancellation points as the C library's functions are,
// and a cancelled thread unwinds through them: threads blocked in read(),
// readv(), recv() and write() (a full pipe), reached through libomp's
// wrappers after their first call, are cancelled; each runs its cleanup
// handler and ends PTHREAD_CANCELED.  The same once an engine watches (a
// next-touch request is armed).  Built with -fexceptions too, where the
// cleanup handlers run from the unwinder, which walks the wrapper's frame.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 %libomp-run | FileCheck %s
// RUN: %libomp-compile -fexceptions && env KMP_NEXTTOUCH_FORCE=1 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (ThreadSanitizer's interceptors do not end their ignores when a thread is
// cancelled inside the call: "finished with ignores enabled".)
// CHECK: io_cancel: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>

enum { READ, READV, RECV, WRITE, CALLS };
static const char *names[CALLS] = {"read", "readv", "recv", "write"};
static int fds[CALLS][2];
static volatile int cleaned[CALLS];

static void cleanup(void *arg) { cleaned[(intptr_t)arg] = 1; }

static void *blocker(void *arg) {
  int k = (int)(intptr_t)arg;
  char b[4096];
  memset(b, 'x', sizeof b);
  struct iovec iov = {b, sizeof b};
  pthread_cleanup_push(cleanup, arg);
  for (;;) {
    ssize_t r = k == READ    ? read(fds[k][0], b, sizeof b)
                : k == READV ? readv(fds[k][0], &iov, 1)
                : k == RECV  ? recv(fds[k][0], b, sizeof b, 0)
                             : write(fds[k][1], b, sizeof b);
    if (r < 0)
      break;
  }
  pthread_cleanup_pop(0);
  return NULL;
}

static void round_of(const char *when) {
  pthread_t t[CALLS];
  for (int k = 0; k < CALLS; k++) {
    if (k == RECV)
      NT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds[k]) == 0, "socketpair");
    else
      NT_CHECK(pipe(fds[k]) == 0, "pipe");
    cleaned[k] = 0;
    if (k != WRITE) // one call of each returns first: the next is looked up
      NT_CHECK(write(fds[k][1], "y", 1) == 1, "write");
    NT_CHECK(pthread_create(&t[k], NULL, blocker, (void *)(intptr_t)k) == 0,
             "create");
  }
  usleep(200000);
  for (int k = 0; k < CALLS; k++) {
    void *res = NULL;
    NT_CHECK(pthread_cancel(t[k]) == 0, "cancel");
    NT_CHECK(pthread_join(t[k], &res) == 0, "join");
    NT_CHECK(res == PTHREAD_CANCELED && cleaned[k],
             "%s: %s: cancelled %d, cleanup %d", when, names[k],
             res == PTHREAD_CANCELED, cleaned[k]);
    close(fds[k][0]);
    close(fds[k][1]);
  }
}

int main(void) {
  round_of("idle");
  long pg = nt_pagesize();
  char *armed = nt_map(4 * pg);
  memset(armed, 1, 4 * pg);
  NT_CHECK(kmp_nexttouch(armed, 4 * pg) == 0, "request");
#pragma omp parallel
  {
  }
  round_of("watching");
  return nt_done("io_cancel");
}
