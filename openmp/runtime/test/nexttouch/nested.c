// When requests are armed and disarmed:
//  1. a request executed inside a parallel region is armed at the next fork
//     (here: the next top-level region), not in the region that made it;
//  2. nested regions inside the region that armed a request neither re-arm
//     nor disarm it, and neither does the outer join: untouched pages stay
//     armed until kmp_nexttouch_disarm();
//  3. a request made inside a region is armed by a nested region's fork when
//     nested parallelism is active; its join does not disarm it either.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: nested: PASS
#include "nexttouch_test.h"

enum { N = 64 };
static long pg, ipp;

static void touch(int *a, int from, int to) {
  for (int p = from; p < to; p++)
    a[p * ipp] += 1;
}

int main(void) {
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg), *b = (int *)nt_map(N * pg),
      *c = (int *)nt_map(N * pg);
  memset(a, 0, N * pg);
  memset(b, 0, N * pg);
  memset(c, 0, N * pg);
  omp_set_max_active_levels(2);

  // 1. Request inside a region.
  kmp_nexttouch_counters_t c0 = nt_counters(), c1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request in a region");
    touch(a, omp_get_thread_num() * N / 2, (omp_get_thread_num() + 1) * N / 2);
  }
  c1 = nt_counters();
  NT_CHECK(c1.pages_armed == c0.pages_armed && c1.faults == c0.faults,
           "armed in the region that made the request");
#pragma omp parallel num_threads(2)
  touch(a, omp_get_thread_num() * N / 2, (omp_get_thread_num() + 1) * N / 2);
  c0 = c1;
  c1 = nt_counters();
  NT_CHECK(c1.pages_armed - c0.pages_armed == N && c1.faults - c0.faults == N,
           "armed at the next fork: %llu pages, %llu faults",
           (unsigned long long)(c1.pages_armed - c0.pages_armed),
           (unsigned long long)(c1.faults - c0.faults));

  // 2. Nested regions inside the arming region.
  kmp_nexttouch_counters_t mid;
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "request b");
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
    {
      // Inner threads touch the first half of b (quarters by outer thread).
      int q = outer * 2 + omp_get_thread_num();
      touch(b, q * N / 8, (q + 1) * N / 8);
    }
#pragma omp barrier
#pragma omp single
    mid = nt_counters();
  }
  c1 = nt_counters();
  NT_CHECK(mid.arms == c0.arms + 1 && mid.pages_armed - c0.pages_armed == N,
           "armed once, at the outer fork");
  NT_CHECK(mid.pages_disarmed == c0.pages_disarmed,
           "inner joins disarmed %llu pages",
           (unsigned long long)(mid.pages_disarmed - c0.pages_disarmed));
  NT_CHECK(c1.pages_disarmed == c0.pages_disarmed,
           "outer join disarmed %llu pages",
           (unsigned long long)(c1.pages_disarmed - c0.pages_disarmed));
  NT_CHECK(c1.faults - c0.faults == N / 2, "faults");
  NT_CHECK(kmp_nexttouch_disarm(b, N * pg) == 0, "disarm b");
  c1 = nt_counters();
  NT_CHECK(c1.pages_disarmed - c0.pages_disarmed == N / 2,
           "kmp_nexttouch_disarm: %llu pages",
           (unsigned long long)(c1.pages_disarmed - c0.pages_disarmed));

  // 3. A request inside a region, armed by a nested fork.
  kmp_nexttouch_counters_t in0, in1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
      in0 = nt_counters();
      NT_CHECK(kmp_nexttouch(c, N * pg) == 0, "request c");
#pragma omp parallel num_threads(2)
      touch(c, omp_get_thread_num() * N / 8,
            (omp_get_thread_num() + 1) * N / 8);
      in1 = nt_counters();
    }
  }
  NT_CHECK(in1.pages_armed - in0.pages_armed == N, "armed by the nested fork");
  NT_CHECK(in1.pages_disarmed == in0.pages_disarmed,
           "disarmed at the nested join: %llu",
           (unsigned long long)(in1.pages_disarmed - in0.pages_disarmed));
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm all");
  in1 = nt_counters();
  NT_CHECK(in1.pages_disarmed - in0.pages_disarmed == N - N / 4,
           "kmp_nexttouch_disarm(NULL, 0): %llu",
           (unsigned long long)(in1.pages_disarmed - in0.pages_disarmed));

  for (int p = 0; p < N; p++) {
    NT_CHECK(a[p * ipp] == 2, "a page %d", p);
    NT_CHECK(b[p * ipp] == (p < N / 2), "b page %d", p);
    NT_CHECK(c[p * ipp] == (p < N / 4), "c page %d", p);
  }
  return nt_done("nested");
}
