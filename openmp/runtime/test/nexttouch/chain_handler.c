// The engine's SIGSEGV handler chains to the program's own handlers:
// installed before the first request (the engine chains to it), and installed
// after the engine's (the engine puts itself in front again at the next
// arming).  The program's handlers see only their own faults.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: chain_handler: PASS
#include "nexttouch_test.h"
#include <signal.h>

static char *guard1, *guard2;
static long pg;
static volatile int h1_calls, h1_foreign, h2_calls, h2_foreign;
static struct sigaction h2_prev;

static void h1(int sig, siginfo_t *si, void *uc) {
  char *a = (char *)si->si_addr;
  if (a >= guard1 && a < guard1 + pg) {
    __atomic_fetch_add(&h1_calls, 1, __ATOMIC_RELAXED);
    mprotect(guard1, pg, PROT_READ | PROT_WRITE);
    return;
  }
  __atomic_fetch_add(&h1_foreign, 1, __ATOMIC_RELAXED);
  signal(sig, SIG_DFL);
}

// A plain (non-SA_SIGINFO) style would not see the address; this one does and
// chains to whatever it found, like well-behaved libraries do.
static void h2(int sig, siginfo_t *si, void *uc) {
  char *a = (char *)si->si_addr;
  if (a >= guard2 && a < guard2 + pg) {
    __atomic_fetch_add(&h2_calls, 1, __ATOMIC_RELAXED);
    mprotect(guard2, pg, PROT_READ | PROT_WRITE);
    return;
  }
  __atomic_fetch_add(&h2_foreign, 1, __ATOMIC_RELAXED);
  if (h2_prev.sa_flags & SA_SIGINFO)
    h2_prev.sa_sigaction(sig, si, uc);
}

static void region(int *a, int n, char *guard) {
  int ipp = pg / sizeof(int);
  NT_CHECK(kmp_nexttouch(a, n * pg) == 0, "request");
#pragma omp parallel
  {
#pragma omp for
    for (int p = 0; p < n; p++)
      a[p * ipp] += 1;
#pragma omp single
    guard[5] = 42; // the program's own fault, inside the region
  }
}

int main(void) {
  pg = nt_pagesize();
  enum { N = 64 };
  int *a = (int *)nt_map(N * pg);
  memset(a, 0, N * pg);
  guard1 = nt_map(pg);
  guard2 = nt_map(pg);
  mprotect(guard1, pg, PROT_NONE);
  mprotect(guard2, pg, PROT_NONE);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h1;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);

  region(a, N, guard1);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(h1_calls == 1 && h1_foreign == 0, "h1: %d own, %d foreign", h1_calls,
           h1_foreign);
  NT_CHECK(c.faults >= 1 && c.pages_already_local == N, "engine: %llu pages",
           (unsigned long long)c.pages_already_local);
  NT_CHECK(guard1[5] == 42, "guard1 written");

  // A handler installed after the engine's, chaining to it.
  sa.sa_sigaction = h2;
  sigaction(SIGSEGV, &sa, &h2_prev);
  region(a, N, guard2);
  c = nt_counters();
  NT_CHECK(h2_calls == 1, "h2: %d own", h2_calls);
  NT_CHECK(h2_foreign == 0, "h2 saw %d engine faults", h2_foreign);
  NT_CHECK(h1_calls == 1 && h1_foreign == 0, "h1 untouched");
  NT_CHECK(c.pages_already_local == 2 * N, "engine: %llu pages",
           (unsigned long long)c.pages_already_local);
  for (int p = 0; p < N; p++)
    NT_CHECK(a[p * (pg / sizeof(int))] == 2, "page %d", p);
  return nt_done("chain_handler");
}
