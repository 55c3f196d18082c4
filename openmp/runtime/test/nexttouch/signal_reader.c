// A signal handler that reads armed memory (a fault inside another signal
// handler), while the region's threads fault on the same pages: a profiler's
// timer or a GC's stop-the-world signal can arrive at any time, also while a
// thread is inside the engine's fault path holding a claim on a page.  Every
// read returns the right data and the program neither dies nor hangs (the
// engine's handler runs with asynchronous signals blocked).
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 \
// RUN:   OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (The handler reads words the threads write at the same time, by design:
// a data race for TSan.)
// CHECK: signal_reader: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/time.h>

enum { N = 512, ROUNDS = 20 };
static long pg;
static int *volatile arr;
static volatile long seen, bad;
static volatile int next_page;

static void on_alarm(int sig) {
  (void)sig;
  int p = next_page;
  next_page = (p + 7) % N;
  // The page may be armed: this read faults inside this handler.
  int v = arr[p * (pg / sizeof(int))];
  if (v != p && v != p + 1)
    bad++;
  seen++;
}

int main(void) {
  pg = nt_pagesize();
  int *a = (int *)nt_map(N * pg);
  arr = a;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 200}, {0, 200}}; // every 200 us
  for (int r = 0; r < ROUNDS; r++) {
    for (int p = 0; p < N; p++)
      a[p * (pg / sizeof(int))] = p;
    NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
    setitimer(ITIMER_REAL, &it, NULL);
#pragma omp parallel for schedule(static, 3)
    for (int p = 0; p < N; p++)
      a[p * (pg / sizeof(int))] += 1;
    // Serial code with the timer still running: pages still armed (none
    // here, all were touched) and the signal's reads interleave.
    for (int p = 0; p < N; p++)
      a[p * (pg / sizeof(int))] -= 1;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
  }
  // Pages nobody touched in a region: the handler is the first to touch
  // some of them, from serial code.
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  a[omp_get_thread_num() * (pg / sizeof(int))] += 0;
  setitimer(ITIMER_REAL, &it, NULL);
  while (seen < 200 * ROUNDS)
    ;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(bad == 0, "%ld wrong reads in the signal handler", bad);
  NT_CHECK(c.faults > 0, "no fault");
  printf("signal_reader: %ld reads in the handler, %llu faults, %llu serial\n",
         seen, (unsigned long long)c.faults,
         (unsigned long long)c.pages_touched_serial);
  return nt_done("signal_reader");
}
