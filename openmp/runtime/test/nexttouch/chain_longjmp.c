// A program's SIGSEGV handler, installed before the first request, recovers
// from genuine faults with siglongjmp (it never returns to the engine, which
// chained to it).  After each recovery the next fault on an armed page is
// still the engine's (handled, program goes on, data intact), and the next
// genuine fault reaches the program's handler again.  Rounds alternate: in
// serial code (the serial touch restores in place) and inside regions, on the
// primary thread and on workers; the genuine faults hit a PROT_NONE guard and
// a page of the armed array that the program protected itself after it was
// touched.  With "altstack", the primary thread has an alternate signal
// stack (the engine's handler, SA_ONSTACK, runs the program's handler there,
// and the program jumps off it).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=3 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run altstack | FileCheck %s
// REQUIRES: linux
// CHECK: chain_longjmp: PASS
#include "nexttouch_test.h"
#include <setjmp.h>
#include <signal.h>

#define U(x) ((unsigned long long)(x))

static long pg;
static char *guard, *own_lo, *own_hi;
static __thread sigjmp_buf *jump_to;
static volatile int genuine, foreign;

static void handler(int sig, siginfo_t *si, void *uc) {
  char *p = (char *)si->si_addr;
  if (jump_to &&
      ((p >= guard && p < guard + pg) || (p >= own_lo && p < own_hi))) {
    __atomic_fetch_add(&genuine, 1, __ATOMIC_RELAXED);
    siglongjmp(*jump_to, 1);
  }
  __atomic_fetch_add(&foreign, 1, __ATOMIC_RELAXED);
  signal(sig, SIG_DFL); // not ours: die at the retry
}

// A genuine fault at p, recovered by the handler; 1 if it was.
static int genuine_fault(volatile char *p) {
  sigjmp_buf env;
  if (sigsetjmp(env, 1) == 0) {
    jump_to = &env;
    *p = 1;
    jump_to = NULL;
    return 0; // not reached: p is not accessible
  }
  jump_to = NULL;
  return 1;
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  if (argc > 1 && !strcmp(argv[1], "altstack")) {
    size_t size = 64 * 1024;
    stack_t ss = {.ss_sp = nt_map(size), .ss_size = size, .ss_flags = 0};
    NT_CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
  }
  enum { N = 256, ROUNDS = 8 };
  int ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;
  guard = nt_map(pg);
  mprotect(guard, pg, PROT_NONE);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  NT_CHECK(genuine_fault(guard) && genuine == 1, "before any request");

  int expect = 1;
  for (int r = 0; r < ROUNDS; r++) {
    kmp_nexttouch_counters_t c0 = nt_counters();
    NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "round %d: request", r);
    // The arming region touches the first quarter; a genuine fault on the
    // primary thread and on one worker.
    int in_region = 0;
#pragma omp parallel reduction(+ : in_region)
    {
#pragma omp for schedule(static)
      for (int p = 0; p < N / 4; p++)
        a[p * ipp] += 1;
      int tid = omp_get_thread_num();
      if (tid == 0 || tid == omp_get_num_threads() - 1)
        in_region += genuine_fault(guard + 8 * tid);
    }
    expect += 2;
    NT_CHECK(in_region == 2 && genuine == expect,
             "round %d: %d recovered in region, %d in all", r, in_region,
             genuine);
    // Serial code: an engine fault right after the recovery, then another
    // genuine one, then the engine again (on the last two pages, out of
    // reach of the first region's adaptive windows).
    a[(N - 2) * ipp] += 1;
    NT_CHECK(genuine_fault(guard + 100) && genuine == ++expect,
             "round %d: serial", r);
    a[(N - 1) * ipp] += 1;
    kmp_nexttouch_counters_t c1 = nt_counters();
    NT_CHECK(c1.pages_touched_serial - c0.pages_touched_serial == 2,
             "round %d: serial touches %llu", r,
             U(c1.pages_touched_serial - c0.pages_touched_serial));
    // A page of the array, touched, then protected by the program itself:
    // a genuine fault inside the engine's range.
    own_lo = (char *)a + 3 * pg;
    own_hi = own_lo + pg;
    mprotect(own_lo, pg, PROT_READ);
    NT_CHECK(genuine_fault(own_lo + 16) && genuine == ++expect,
             "round %d: own protection", r);
    mprotect(own_lo, pg, PROT_READ | PROT_WRITE);
    own_lo = own_hi = NULL;
    // A later region touches the rest (armed since the first one's fork),
    // every thread recovering from a genuine fault first.
    int rec = 0, nth = 1;
#pragma omp parallel reduction(+ : rec)
    {
      rec += genuine_fault(guard + 16 + omp_get_thread_num());
#pragma omp single
      nth = omp_get_num_threads();
#pragma omp for schedule(dynamic, 5)
      for (int p = N / 4; p < N - 2; p++)
        a[p * ipp] += 1;
    }
    expect += nth;
    NT_CHECK(rec == nth && genuine == expect, "round %d: %d of %d threads", r,
             rec, nth);
    kmp_nexttouch_counters_t c2 = nt_counters();
    NT_CHECK(c2.pages_armed - c0.pages_armed == N &&
                 c2.pages_already_local - c0.pages_already_local == N - 2 &&
                 c2.pages_disarmed == c0.pages_disarmed,
             "round %d: armed %llu, local %llu, disarmed %llu", r,
             U(c2.pages_armed - c0.pages_armed),
             U(c2.pages_already_local - c0.pages_already_local),
             U(c2.pages_disarmed - c0.pages_disarmed));
  }
  NT_CHECK(foreign == 0, "the program's handler saw %d engine faults", foreign);
  for (long i = 0; i < N * ipp; i++) {
    int want = (int)i + ((i % ipp) == 0) * ROUNDS;
    if (a[i] != want) {
      NT_CHECK(0, "a[%ld] = %d, want %d", i, a[i], want);
      break;
    }
  }
  return nt_done("chain_longjmp");
}
