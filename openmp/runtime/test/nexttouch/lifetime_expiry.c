// KMP_NEXTTOUCH_LIFETIME=L: pages armed at a fork and still untouched at the
// join of the L-th parallel region after that fork are disarmed in place and
// counted in pages_expired (not pages_disarmed).  Until then every region
// touches pages of the arming and they are handled (already local on one
// node).  Each arming has its own clock: array b, requested one region later
// than array a, expires one region later.  One-thread teams are not regions
// (they neither arm nor advance the clock).  Expired pages are ordinary
// memory again: touching them faults no more.  With region-scoped arming the
// untouched pages would be disarmed at the arming region's join.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_LIFETIME=1 \
// RUN:   KMP_NEXTTOUCH_COUNTERS=1 OMP_NUM_THREADS=4 %libomp-run 1 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,L1
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_LIFETIME=3 \
// RUN:   KMP_NEXTTOUCH_COUNTERS=1 OMP_NUM_THREADS=4 %libomp-run 3 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,L3
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_LIFETIME=2 OMP_NUM_THREADS=3 \
// RUN:   OMP_DISPLAY_ENV=verbose %libomp-run 2 2>&1 | FileCheck %s --check-prefixes=CHECK,L2
// REQUIRES: linux
//
// L2: KMP_NEXTTOUCH_LIFETIME='2'
// CHECK: lifetime_expiry: PASS
// L1: nexttouch: {{.*}} pages_disarmed=0 {{.*}} pages_touched_serial=0 pages_expired=104
// L3: nexttouch: {{.*}} pages_disarmed=0 {{.*}} pages_touched_serial=0 pages_expired=88
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))

enum { N = 64, K = 8 }; // pages per array, pages touched per region
static long pg;
static int ipp;

// A region that touches pages [lo, lo + K) of x (x may be NULL: no touch).
static void region(int *x, int lo) {
#pragma omp parallel for schedule(static)
  for (int p = 0; p < K; p++)
    if (x)
      x[(lo + p) * ipp] += 1;
}

int main(int argc, char **argv) {
  int L = argc > 1 ? atoi(argv[1]) : 1;
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg), *b = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i, b[i] = (int)-i;
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request a");

  // Region 0 arms a and touches its first K pages.  Regions 1..L touch K more
  // pages of a each; b is requested before region 1 and armed there.
  region(a, 0);
  NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "request b");
  unsigned long long local = K;
  for (int r = 1; r <= L; r++) {
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.pages_expired == 0 && c.pages_disarmed == 0,
             "before region %d: expired %llu disarmed %llu", r,
             U(c.pages_expired), U(c.pages_disarmed));
    NT_CHECK(nt_maps_prot((char *)a + (N - 1) * pg) == PROT_NONE,
             "before region %d: a not armed", r);
    // Not a region: neither arms nor counts.
#pragma omp parallel num_threads(1)
    a[0] += 0;
    region(a, r * K);
    local += K;
    c = nt_counters();
    NT_CHECK(c.pages_already_local == local, "region %d: local %llu, want %llu",
             r, U(c.pages_already_local), local);
    NT_CHECK(c.arms == 2, "region %d: arms %llu", r, U(c.arms));
  }
  // At the join of region L, a's untouched pages expired; b has one more.
  kmp_nexttouch_counters_t c = nt_counters();
  unsigned long long a_left = N - (unsigned long long)(L + 1) * K;
  NT_CHECK(c.pages_expired == a_left && c.pages_disarmed == 0,
           "after region %d: expired %llu (want %llu), disarmed %llu", L,
           U(c.pages_expired), a_left, U(c.pages_disarmed));
  NT_CHECK(nt_maps_prot((char *)a + (N - 1) * pg) == (PROT_READ | PROT_WRITE),
           "a still armed after region %d: %d", L,
           nt_maps_prot((char *)a + (N - 1) * pg));
  NT_CHECK(nt_maps_prot((char *)b + (N - 1) * pg) == PROT_NONE,
           "b not armed after region %d: %d", L,
           nt_maps_prot((char *)b + (N - 1) * pg));
  unsigned long long faults = c.faults;
  long long sum = 0;
  for (long i = 0; i < N * ipp; i++)
    sum += a[i] - i;
  c = nt_counters();
  NT_CHECK(sum == (L + 1) * K && c.faults == faults,
           "expired a: sum %lld, %llu faults", sum, U(c.faults - faults));

  // Region L+1 touches b's first K pages, then b expires at its join.
  region(b, 0);
  c = nt_counters();
  NT_CHECK(c.pages_already_local == local + K, "b: local %llu",
           U(c.pages_already_local));
  NT_CHECK(c.pages_expired == a_left + N - K, "b: expired %llu, want %llu",
           U(c.pages_expired), a_left + N - K);
  NT_CHECK(c.pages_armed == 2 * N && c.pages_disarmed == 0 &&
               c.pages_touched_serial == 0,
           "armed %llu disarmed %llu serial %llu", U(c.pages_armed),
           U(c.pages_disarmed), U(c.pages_touched_serial));
  NT_CHECK(c.pages_already_local + c.pages_expired == 2 * N,
           "every page accounted for");
  sum = 0;
  for (long i = 0; i < N * ipp; i++)
    sum += b[i] + i;
  c = nt_counters();
  NT_CHECK(sum == K && c.faults == faults + K, "b: sum %lld, faults %llu", sum,
           U(c.faults - faults));
  // Nothing left: more regions change nothing.
  region(NULL, 0);
  region(NULL, 0);
  kmp_nexttouch_counters_t d = nt_counters();
  NT_CHECK(d.pages_expired == c.pages_expired && d.faults == c.faults,
           "after the end: expired %llu", U(d.pages_expired));
  return nt_done("lifetime_expiry");
}
