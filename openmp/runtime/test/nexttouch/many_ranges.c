// Next-touch with many ranges: far more than fit in a fixed table, requested
// out of order, with repeats, overlaps and neighbours that meet; then the
// same near vm.max_map_count, where arming runs out of mappings part-way.
//   1. RANGES one-page ranges with an unrequested page after each, asked in
//      a shuffled order, each third one twice, plus pairs that overlap or
//      meet (they merge): every page is armed at the next fork, none fails,
//      and the region's touches handle every armed page; the data stay.
//      kmp_nexttouch_disarm of a stretch in the middle then takes back the
//      pages of a second request of the same ranges.
//   2. The process uses up all but SPARE of its mappings (single pages that
//      do not merge), then asks for LIMITED one-page ranges: each armed one
//      is two mappings more, so arming stops part-way.  It says so once,
//      counts the rest in fail_arm, and every page is accounted for and
//      keeps its data.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run 2>&1 | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' own mappings need the room part 2 uses up.)
// CHECK: limit of mappings
// CHECK-NOT: limit of mappings
// CHECK: many_ranges: PASS
#include "nexttouch_test.h"

enum { RANGES = 5000, LIMITED = 1000, SPARE = 400 };

static char value(long b) { return (char)(b * 13 + 5); }

static void fill(char *a, long bytes) {
  for (long b = 0; b < bytes; b++)
    a[b] = value(b);
}

static long wrong(const char *a, long bytes) {
  for (long b = 0; b < bytes; b++)
    if (a[b] != value(b))
      return b + 1;
  return 0;
}

int main(void) {
  long pg = nt_pagesize();

  // 1.
  long bytes = 2 * RANGES * pg;
  char *a = nt_map(bytes);
  fill(a, bytes);
  long *order = (long *)malloc(sizeof(long) * RANGES);
  for (long r = 0; r < RANGES; r++)
    order[r] = r;
  srand(7);
  for (long r = RANGES - 1; r > 0; r--) {
    long k = rand() % (r + 1), t = order[r];
    order[r] = order[k];
    order[k] = t;
  }
  kmp_nexttouch_counters_t c0 = nt_counters();
  int rc = 0;
  for (long i = 0; i < RANGES; i++) {
    char *p = a + 2 * order[i] * pg;
    rc |= kmp_nexttouch(p, pg);
    if (i % 3 == 0)
      rc |= kmp_nexttouch(p, pg); // again
    if (i % 7 == 0) // two halves that meet
      rc |= kmp_nexttouch(p, pg / 2) | kmp_nexttouch(p + pg / 2, pg / 2);
    if (i % 11 == 0) // overlapping
      rc |= kmp_nexttouch(p + 100, pg - 200) | kmp_nexttouch(p + 50, pg - 50);
  }
  NT_CHECK(rc == 0, "a request failed: %d", rc);
  long bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long r = 0; r < RANGES; r++)
    bad += a[2 * r * pg + 17] != value(2 * r * pg + 17);
  kmp_nexttouch_counters_t c = nt_counters();
  unsigned long long armed = c.pages_armed - c0.pages_armed;
  unsigned long long handled = (c.pages_migrated - c0.pages_migrated) +
                               (c.pages_already_local - c0.pages_already_local);
  NT_CHECK(bad == 0, "%ld pages read wrong in the region", bad);
  NT_CHECK(armed == RANGES, "armed %llu of %d", armed, RANGES);
  NT_CHECK(c.fail_arm == c0.fail_arm, "fail_arm %llu",
           (unsigned long long)(c.fail_arm - c0.fail_arm));
  NT_CHECK(handled == armed, "%llu of %llu armed pages handled", handled,
           armed);
  NT_CHECK(wrong(a, bytes) == 0, "byte %ld", wrong(a, bytes) - 1);

  // The same ranges again, and a stretch in the middle taken back.
  c0 = nt_counters();
  for (long r = 0; r < RANGES; r++)
    rc |= kmp_nexttouch(a + 2 * r * pg, pg);
  long d0 = RANGES / 4, d1 = RANGES / 2; // ranges [d0, d1) disarmed
  rc |= kmp_nexttouch_disarm(a + 2 * d0 * pg, 2 * (d1 - d0) * pg);
  NT_CHECK(rc == 0, "a request failed: %d", rc);
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long r = 0; r < RANGES; r++)
    bad += a[2 * r * pg + 17] != value(2 * r * pg + 17);
  c = nt_counters();
  armed = c.pages_armed - c0.pages_armed;
  NT_CHECK(bad == 0, "%ld pages read wrong after the disarm", bad);
  NT_CHECK(armed == RANGES - (d1 - d0), "armed %llu of %ld", armed,
           RANGES - (d1 - d0));
  NT_CHECK(wrong(a, bytes) == 0, "byte %ld", wrong(a, bytes) - 1);
  munmap(a, bytes);

  // 2.
  bytes = 2 * LIMITED * pg;
  char *b = nt_map(bytes);
  fill(b, bytes);
  long want;
  char *pool = nt_use_up_maps(SPARE, &want);
  c0 = nt_counters();
  for (long r = 0; r < LIMITED; r++)
    rc |= kmp_nexttouch(b + 2 * r * pg, pg);
  NT_CHECK(rc == 0, "a request failed: %d", rc);
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long r = 0; r < LIMITED; r++)
    bad += b[2 * r * pg + 17] != value(2 * r * pg + 17);
  c = nt_counters();
  armed = c.pages_armed - c0.pages_armed;
  unsigned long long failed = c.fail_arm - c0.fail_arm;
  handled = (c.pages_migrated - c0.pages_migrated) +
            (c.pages_already_local - c0.pages_already_local) +
            (c.pages_disarmed - c0.pages_disarmed);
  NT_CHECK(bad == 0, "%ld pages read wrong near the limit", bad);
  NT_CHECK(armed > 0 && failed > 0, "armed %llu, fail_arm %llu", armed, failed);
  NT_CHECK(armed + failed == LIMITED, "armed %llu + fail_arm %llu != %d", armed,
           failed, LIMITED);
  NT_CHECK(handled == armed, "%llu of %llu armed pages handled", handled,
           armed);
  if (pool)
    munmap(pool, want * pg);
  NT_CHECK(wrong(b, bytes) == 0, "byte %ld", wrong(b, bytes) - 1);
  // A second arming at the limit says nothing more (FileCheck).
  pool = nt_use_up_maps(SPARE, &want);
  for (long r = 0; r < LIMITED; r++)
    rc |= kmp_nexttouch(b + 2 * r * pg, pg);
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long r = 0; r < LIMITED; r++)
    bad += b[2 * r * pg + 17] != value(2 * r * pg + 17);
  NT_CHECK(bad == 0 && rc == 0, "second arming at the limit");
  if (pool)
    munmap(pool, want * pg);
  NT_CHECK(wrong(b, bytes) == 0, "byte %ld", wrong(b, bytes) - 1);
  munmap(b, bytes);
  return nt_done("many_ranges");
}
