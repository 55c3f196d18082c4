// The usual pattern, a request before each phase, when some pages of the
// range are never touched (padding, a boundary): those stay armed from the
// first phase on, and the re-request must still re-arm the pages the
// previous phase touched.  Every phase's touches must fault and be handled
// (pages_already_local on one node), whether the re-request covers the whole
// range or a part of it.  With region-scoped arming this held trivially (the
// join disarmed everything); with arming that outlives the region, the pages
// still armed must not hide the rest of the range from a new request.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=3 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: rerequest: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))

enum { N = 64, PAD = 8, PHASES = 4 };

int main(void) {
  long pg = nt_pagesize();
  int ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg);
  memset(a, 0, N * pg);
  // The padding is the first PAD pages: no adaptive window reaches them.
  for (int ph = 0; ph < PHASES; ph++) {
    kmp_nexttouch_counters_t c0 = nt_counters();
    // Phases 0 and 1: the whole range; then only the part the phase uses.
    int rc = ph < 2 ? kmp_nexttouch(a, N * pg)
                    : kmp_nexttouch((char *)a + PAD * pg, (N - PAD) * pg);
    NT_CHECK(rc == 0, "phase %d: request %d", ph, rc);
#pragma omp parallel for schedule(static)
    for (int p = PAD; p < N; p++)
      a[p * ipp] += 1;
    kmp_nexttouch_counters_t c1 = nt_counters();
    unsigned long long handled =
        c1.pages_already_local - c0.pages_already_local;
    NT_CHECK(handled == N - PAD,
             "phase %d: %llu pages handled, want %d (armed %llu, faults %llu)",
             ph, handled, N - PAD, U(c1.pages_armed - c0.pages_armed),
             U(c1.faults - c0.faults));
    NT_CHECK(c1.arms - c0.arms == 1, "phase %d: arms %llu", ph,
             U(c1.arms - c0.arms));
    NT_CHECK(c1.pages_disarmed == c0.pages_disarmed, "phase %d: disarmed %llu",
             ph, U(c1.pages_disarmed - c0.pages_disarmed));
  }
  // The padding is still armed from phase 0: disarmed here, once (before the
  // data check reads it).
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm");
  kmp_nexttouch_counters_t d = nt_counters();
  NT_CHECK(d.pages_disarmed - c.pages_disarmed == PAD, "padding: %llu disarmed",
           U(d.pages_disarmed - c.pages_disarmed));
  for (long i = 0; i < N * ipp; i++) {
    int want = (i % ipp) == 0 && i / ipp >= PAD ? PHASES : 0;
    if (a[i] != want) {
      NT_CHECK(0, "a[%ld] = %d, want %d", i, a[i], want);
      break;
    }
  }
  return nt_done("rerequest");
}
