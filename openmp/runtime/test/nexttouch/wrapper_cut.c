// A write() that starts while no engine holds anything (the wrappers' idle
// path) and meets pages that a region's arming protects while the kernel
// copies: the kernel stops at the first of them.  The wrapper must still
// give what the C library gives: a write() to a blocking pipe moves every
// byte.  A thread outside the team writes 64 pages of B into a pipe of one
// page; when the kernel has copied the first pages and waits for the
// reader, the team requests and arms B (touching none of it); the reader
// then drains the pipe while B is armed.  Each round ends with the team
// touching B whole, so that the next write starts on the idle path again.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: wrapper_cut: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <pthread.h>

enum { N = 64, ROUNDS = 20 };
static long pg;
static char *B;
static int fds[2];
static volatile ssize_t written; // -1 while the write runs, -1 - errno
static volatile int round_no, writing, drained;

static char expect(long off) { return (char)((off / pg + off % pg) & 0x7f); }

static void *writer(void *arg) {
  (void)arg;
  for (int r = 0; r < ROUNDS; r++) {
    while (__atomic_load_n(&round_no, __ATOMIC_ACQUIRE) != r)
      usleep(100);
    __atomic_store_n(&writing, 1, __ATOMIC_RELEASE);
    ssize_t w = write(fds[1], B, (size_t)N * pg); // blocks on the reader
    __atomic_store_n(&written, w < 0 ? -1 - errno : w, __ATOMIC_RELEASE);
  }
  return NULL;
}

// Read the pipe into got until it holds n bytes in all (have so far), or
// fewer if the write has returned with fewer: the new total.
static size_t drain(char *got, size_t have, size_t n) {
  while (have < n) {
    ssize_t k = read(fds[0], got + have, n - have);
    if (k > 0) {
      have += k;
      continue;
    }
    if (k < 0 && errno != EAGAIN)
      break;
    ssize_t w = __atomic_load_n(&written, __ATOMIC_ACQUIRE);
    if (w != -1 && have >= (size_t)(w < 0 ? 0 : w))
      break; // the write returned: all it moved has been read
    usleep(50);
  }
  return have;
}

int main(void) {
  alarm(120);
  pg = nt_pagesize();
  B = nt_map(N * pg);
  for (long i = 0; i < N * pg; i++)
    B[i] = expect(i);
  NT_CHECK(pipe(fds) == 0, "pipe");
  NT_CHECK(fcntl(fds[1], F_SETPIPE_SZ, (int)pg) >= 0, "F_SETPIPE_SZ");
  fcntl(fds[0], F_SETFL, O_NONBLOCK); // the reader polls
  char *got = (char *)malloc((size_t)N * pg);
  long bytes = (long)N * pg;
  round_no = -1;
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  for (int r = 0; r < ROUNDS; r++) {
    written = -1;
    writing = 0;
    __atomic_store_n(&round_no, r, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&writing, __ATOMIC_ACQUIRE))
      usleep(100);
    // The writer is in the kernel once the pipe is full; take 2 pages, so
    // that it has copied 3 and waits.
    usleep(2000);
    size_t have = drain(got, 0, 2 * pg);
    usleep(2000);
#pragma omp nexttouch(B : bytes)
#pragma omp parallel
    {
#pragma omp master
      have = drain(got, have, (size_t)N * pg);
    }
    while (__atomic_load_n(&written, __ATOMIC_ACQUIRE) == -1)
      usleep(100); // the write has moved all: it returns
    ssize_t w = __atomic_load_n(&written, __ATOMIC_ACQUIRE);
    NT_CHECK(w == bytes && have == (size_t)bytes,
             "round %d: write() of %ld bytes returned %zd (%s), %zu read", r,
             bytes, w, w < 0 ? strerror((int)(-1 - w)) : "short", have);
    for (size_t i = 0; i < have; i++)
      if (got[i] != expect((long)i)) {
        NT_CHECK(0, "round %d: byte %zu", r, i);
        break;
      }
    // Touch B whole: the engine holds nothing before the next write.
#pragma omp parallel for
    for (long p = 0; p < N; p++)
      (void)*(volatile char *)(B + p * pg);
  }
  pthread_join(t, NULL);
  return nt_done("wrapper_cut");
}
