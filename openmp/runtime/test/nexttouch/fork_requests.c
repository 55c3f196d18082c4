// fork(2) while other threads are inside the engine: requests
// (kmp_nexttouch), disarming (kmp_nexttouch_disarm), arming at a fork and
// faults.  The child has one thread; every lock, claim and in-flight state
// of the engine must be reset or completed there, so that the child can make
// requests and run regions of its own.
//   threads: plain pthreads (not OpenMP threads) call the API in a loop, and
//            OpenMP regions arm and touch, while the main thread forks.
//   region:  the primary thread forks inside a region whose other threads
//            call the API and touch armed pages.
// Each child requests pages, runs a region that touches them, checks the
// data and exits through libomp's shutdown, within a timeout (SIGALRM: a
// hang is a failure).  Many forks: a race shows up in a few of them.  Both
// with the engine forced on and as it is on this machine (one node: requests
// are no-ops, but they take the engine's lock, which a thread that the
// child does not have may hold at the fork).
// RUN: %libomp-compile
// RUN: env OMP_NUM_THREADS=3 %libomp-run threads | FileCheck %s
// RUN: env OMP_NUM_THREADS=3 %libomp-run region | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=3 %libomp-run threads \
// RUN:   | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=3 %libomp-run region \
// RUN:   | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (TSan does not support threads started in the child of a multi-threaded
// fork.)
// CHECK: fork_requests: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

enum { NBUF = 8, PAGES = 16, TIMEOUT = 30, NTHREADS = 2 };
static long pg;
static char *bufs[NBUF];
static volatile int stop;
static int forks = 200;

// What the API threads and the workers do: requests, disarms, touches.
static void churn(unsigned *seed) {
  char *b = bufs[rand_r(seed) % NBUF];
  switch (rand_r(seed) % 4) {
  case 0:
  case 1:
    kmp_nexttouch(b, PAGES * pg);
    break;
  case 2:
    kmp_nexttouch_disarm(b, PAGES * pg);
    break;
  default:
    for (int p = 0; p < PAGES; p++)
      ((volatile char *)b)[p * pg] += 0;
  }
}

static void *api_thread(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
    churn(&seed);
  return NULL;
}

// The child: its own request and region, the data checked, libomp's
// shutdown on exit.
static void child(void) {
  alarm(TIMEOUT);
  char *c = nt_map(PAGES * pg);
  memset(c, 5, PAGES * pg);
  if (kmp_nexttouch(c, PAGES * pg) != 0)
    _exit(3);
  kmp_nexttouch(bufs[0], PAGES * pg);
  int bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (int p = 0; p < PAGES; p++) {
    bad += c[p * pg] != 5;
    c[p * pg] = 6;
    for (int b = 0; b < NBUF; b++)
      bad += ((volatile char *)bufs[b])[p * pg] != 1;
  }
  if (bad)
    _exit(4);
  exit(0);
}

static int wait_child(pid_t pid, int i) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) {
    NT_CHECK(0, "fork %d: waitpid", i);
    return 0;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 1;
  NT_CHECK(0, "fork %d: child %s %d", i,
           WIFSIGNALED(st) ? "killed by signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  return 0;
}

static void threads_case(void) {
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    pthread_create(&th[t], NULL, api_thread, (void *)(uintptr_t)(t + 1));
  unsigned seed = 7;
  for (int i = 0; i < forks && nt_failures < 5; i++) {
    // A region that arms what is pending and touches part of it.
#pragma omp parallel
    {
      unsigned s = seed + omp_get_thread_num();
      churn(&s);
    }
    seed += 11;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
      child();
    NT_CHECK(pid > 0, "fork %d", i);
    if (pid > 0)
      wait_child(pid, i);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  for (int t = 0; t < NTHREADS; t++)
    pthread_join(th[t], NULL);
}

static void region_case(void) {
  for (int i = 0; i < forks && nt_failures < 5; i++) {
    kmp_nexttouch(bufs[i % NBUF], PAGES * pg);
    pid_t pid = -1;
    volatile int started = 0;
#pragma omp parallel
    {
      int tid = omp_get_thread_num();
      if (tid == 0) {
        while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 1 + i % 5)
          sched_yield();
        fflush(stdout);
        pid = fork();
        if (pid == 0)
          child();
        __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
      } else {
        unsigned s = (unsigned)(i * 31 + tid);
        while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
          churn(&s);
          __atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
        }
      }
    }
    stop = 0;
    NT_CHECK(pid > 0, "fork %d", i);
    if (pid > 0)
      wait_child(pid, i);
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "threads";
  const char *scale = getenv("NT_STRESS_SCALE");
  if (scale && atoi(scale) > 1)
    forks *= atoi(scale);
  pg = nt_pagesize();
  signal(SIGALRM, SIG_DFL);
  for (int b = 0; b < NBUF; b++) {
    bufs[b] = nt_map(PAGES * pg);
    memset(bufs[b], 1, PAGES * pg);
  }
  if (!strcmp(mode, "region"))
    region_case();
  else
    threads_case();
  // Whatever the threads left armed is still the data.
  for (int b = 0; b < NBUF; b++)
    for (long i = 0; i < PAGES * pg; i += 97)
      NT_CHECK(bufs[b][i] == 1, "buffer %d byte %ld: %d", b, i, bufs[b][i]);
  return nt_done("fork_requests");
}
