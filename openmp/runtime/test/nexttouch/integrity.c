// Data integrity with many threads and several regions: threads race for the
// same armed pages (every thread touches every page, from different
// starting points), requests are partial pages (only their whole pages are
// armed), repeated and overlapping.
// Each armed page is handled exactly once per arming (exactly one thread
// migrates it), no update is lost, no byte outside the requests changes.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=8 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=8 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=64 OMP_NUM_THREADS=5 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: integrity: PASS
#include "nexttouch_test.h"

enum { N = 1024, REGIONS = 6 };

int main(void) {
  long pg = nt_pagesize();
  long ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg);
  unsigned long long *expect = calloc(N * ipp, sizeof *expect);
  for (long i = 0; i < N * ipp; i++)
    a[i] = expect[i] = (unsigned)(i * 2654435761u) >> 8;
  int nthreads = omp_get_max_threads();

  for (int r = 0; r < REGIONS; r++) {
    kmp_nexttouch_counters_t c0 = nt_counters();
    // Partial pages: from the middle of page r to the middle of page N-r-1,
    // a repeated request and an overlapping one.
    NT_CHECK(kmp_nexttouch((char *)a + r * pg + 123, (N - 2 * r - 1) * pg) == 0,
             "request");
    NT_CHECK(kmp_nexttouch((char *)a + r * pg + 123, 5 * pg) == 0, "again");
    NT_CHECK(kmp_nexttouch((char *)a + (N / 2) * pg, (N / 4) * pg) == 0,
             "overlap");
    long stride = 1 + 2 * (r % 3); // odd: a permutation of the pages
#pragma omp parallel
    {
      int t = omp_get_thread_num();
      // Every thread visits every page, starting at its own offset: many
      // threads fault on the same pages at the same time.
      for (long k = 0; k < N; k++) {
        long p = (k * stride + (long)t * N / nthreads) % N;
        __atomic_fetch_add(&a[p * ipp + (r % ipp)], 1, __ATOMIC_RELAXED);
      }
      // Reads of whole pages, too.
#pragma omp for schedule(dynamic, 7)
      for (long p = 0; p < N; p++) {
        long s = 0;
        for (long i = 1; i < ipp; i++)
          s += __atomic_load_n(&a[p * ipp + i], __ATOMIC_RELAXED) != 0;
        (void)s;
      }
    }
    for (long p = 0; p < N; p++)
      expect[p * ipp + (r % ipp)] += nthreads;
    kmp_nexttouch_counters_t c = nt_counters();
    unsigned long long armed = c.pages_armed - c0.pages_armed;
    unsigned long long handled =
        (c.pages_already_local - c0.pages_already_local) +
        (c.pages_migrated - c0.pages_migrated) +
        (c.pages_disarmed - c0.pages_disarmed);
    // The whole pages of the requests: r + 1 .. N - r - 2.
    NT_CHECK(armed == (unsigned long long)(N - 2 * r - 2),
             "region %d: armed %llu", r, armed);
    NT_CHECK(handled == armed, "region %d: %llu pages handled, %llu armed", r,
             handled, armed);
    NT_CHECK(c.pages_disarmed == c0.pages_disarmed, "all touched");
    NT_CHECK(
        c.fail_move_busy + c.fail_move_other + c.fail_restore + c.fail_arm == 0,
        "no failures");
    for (long i = 0; i < N * ipp; i++)
      if ((unsigned long long)a[i] != (unsigned)expect[i]) {
        NT_CHECK(0, "region %d: a[%ld] = %d, want %u", r, i, a[i],
                 (unsigned)expect[i]);
        break;
      }
  }
  return nt_done("integrity");
}
