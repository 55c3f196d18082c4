// Next-touch in a process near vm.max_map_count: pages are armed, then the
// process uses up all but a few of its mappings (single pages that do not
// merge), and a region touches scattered pages, so that giving a page back
// its protection would split the mapping and fails with ENOMEM.  The engine
// then opens the whole segment: its other armed pages lose next-touch but
// keep their data, and they are counted (pages_disarmed) at once: at the
// join every armed page is accounted for.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' own mappings need the room this test uses up.)
// CHECK: map_count_counters: PASS
#include "nexttouch_test.h"

enum { PAGES = 256, SPARE = 2 };

int main(void) {
  long pg = nt_pagesize();
  char *a = nt_map(PAGES * pg);
  for (long b = 0; b < PAGES * pg; b++)
    a[b] = (char)(b * 7 + 1);
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, PAGES * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  { // arms; touches nothing
  }
  // Use up the mappings.
  long want;
  char *pool = nt_use_up_maps(SPARE, &want);
  long bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  {
#pragma omp for schedule(static, 1)
    for (long p = 0; p < PAGES; p += 7)
      bad += a[p * pg + 3] != (char)((p * pg + 3) * 7 + 1);
  }
  kmp_nexttouch_counters_t c = nt_counters();
  unsigned long long armed = c.pages_armed - c0.pages_armed;
  unsigned long long handled =
      (c.pages_migrated - c0.pages_migrated) +
      (c.pages_already_local - c0.pages_already_local) +
      (c.pages_disarmed - c0.pages_disarmed) +
      (c.pages_touched_serial - c0.pages_touched_serial);
  NT_CHECK(bad == 0, "%ld pages read wrong", bad);
  NT_CHECK(armed == PAGES, "armed %llu", armed);
  NT_CHECK(c.fail_restore > c0.fail_restore, "the map count was not reached");
  NT_CHECK(handled == armed, "at the join: %llu of %llu armed pages counted",
           handled, armed);
  if (pool)
    munmap(pool, want * pg);
  for (long b = 0; b < PAGES * pg; b++)
    if (a[b] != (char)(b * 7 + 1)) {
      NT_CHECK(0, "byte %ld", b);
      break;
    }
  return nt_done("map_count_counters");
}
