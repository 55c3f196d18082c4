// Small items move whole at their first fault: ITEMS ranges of PAGES pages
// each (an unrequested page between two, so that each is a segment of its
// own), one thread per item (a loop over the items, each walked from its
// start).  Each item is one batch, whichever thread touches it and however
// far apart the threads start; an item larger than the small-item limit
// (LARGE pages) is not taken whole.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=3 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: small_items: PASS
#include "nexttouch_test.h"

enum { ITEMS = 200, PAGES = 8, LARGE = 64 };

int main(void) {
  long pg = nt_pagesize();
  long stride = (PAGES + 1) * pg;
  char *a = nt_map(ITEMS * stride);
  for (long b = 0; b < ITEMS * stride; b++)
    a[b] = (char)(b % 97);
  kmp_nexttouch_counters_t c0 = nt_counters();
  for (long i = 0; i < ITEMS; i++)
    NT_CHECK(kmp_nexttouch(a + i * stride, PAGES * pg) == 0, "request %ld", i);
  long bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad)
  for (long i = 0; i < ITEMS; i++)
    for (long p = 0; p < PAGES; p++) {
      long b = i * stride + p * pg + 5;
      bad += a[b] != (char)(b % 97);
    }
  kmp_nexttouch_counters_t c = nt_counters();
  unsigned long long armed = c.pages_armed - c0.pages_armed;
  unsigned long long handled = (c.pages_migrated - c0.pages_migrated) +
                               (c.pages_already_local - c0.pages_already_local);
  unsigned long long batches = c.batches - c0.batches;
  NT_CHECK(bad == 0, "%ld pages read wrong", bad);
  NT_CHECK(armed == ITEMS * PAGES, "armed %llu", armed);
  NT_CHECK(handled == armed, "%llu of %llu handled", handled, armed);
  NT_CHECK(batches == ITEMS, "%llu batches for %d small items", batches, ITEMS);

  // A large item: the first fault of a thread there takes less than all.
  char *l = nt_map(LARGE * pg);
  memset(l, 3, LARGE * pg);
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(l, LARGE * pg) == 0, "request");
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long p = 0; p < LARGE; p++)
    bad += l[p * pg] != 3;
  c = nt_counters();
  batches = c.batches - c0.batches;
  NT_CHECK(bad == 0, "large item read wrong");
  NT_CHECK(batches > 1, "the large item moved in %llu batch", batches);
  return nt_done("small_items");
}
