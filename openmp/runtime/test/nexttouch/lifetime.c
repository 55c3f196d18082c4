// Lifetime of an arming: pages armed at a fork stay armed across parallel
// regions until a thread touches them.  One request, then:
//   region 1 (the arming fork) touches pages [0, 16): already local;
//   the untouched pages are still armed after its join (PROT_NONE in
//   /proc/self/maps, nothing counted as disarmed);
//   serial code touches [16, 20): restored in place (pages_touched_serial);
//   a one-thread team touches page 20: no team of more than one thread runs,
//   so it is serial too;
//   region 2 touches nothing, region 3 touches [24, 40): already local;
//   kmp_nexttouch_disarm() on [40, 48): disarmed, accessible again;
//   [48, N) stays armed until shutdown, which disarms it (the report at exit).
// With region-scoped arming, region 1's join would have disarmed everything.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_COUNTERS=1 \
// RUN:   OMP_NUM_THREADS=4 %libomp-run 2>&1 | FileCheck %s
// REQUIRES: linux
//
// CHECK: lifetime: PASS
// CHECK: OMP: {{.*}}nexttouch: active=1 {{.*}} requests=1 {{.*}} pages_armed=64 {{.*}} pages_already_local=32 pages_disarmed=27 {{.*}} pages_touched_serial=5 pages_expired=0
#include "nexttouch_test.h"

// The protection /proc/self/maps shows for the page at p (PROT_* bits), or -1.
#define U(x) ((unsigned long long)(x))

int main(void) {
  long pg = nt_pagesize();
  enum { N = 64 };
  int ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");

  // Region 1: the arming fork.
#pragma omp parallel for schedule(static)
  for (int p = 0; p < 16; p++)
    a[p * ipp] += 1;
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.arms == 1 && c.pages_armed == N, "armed %llu", U(c.pages_armed));
  NT_CHECK(c.pages_already_local == 16 && c.faults == 16,
           "local %llu faults %llu", U(c.pages_already_local), U(c.faults));
  NT_CHECK(c.pages_disarmed == 0 && c.pages_expired == 0,
           "region 1's join disarmed %llu, expired %llu", U(c.pages_disarmed),
           U(c.pages_expired));
  NT_CHECK(nt_maps_prot((char *)a + 16 * pg) == PROT_NONE &&
               nt_maps_prot((char *)a + (N - 1) * pg) == PROT_NONE,
           "untouched pages not armed after the join: %d %d",
           nt_maps_prot((char *)a + 16 * pg),
           nt_maps_prot((char *)a + (N - 1) * pg));
  NT_CHECK(nt_maps_prot(a) == (PROT_READ | PROT_WRITE), "touched page: %d",
           nt_maps_prot(a));

  // Serial code: each touch restores its page in place.
  for (int p = 16; p < 20; p++)
    a[p * ipp] += 1;
  c = nt_counters();
  NT_CHECK(c.pages_touched_serial == 4 && c.faults == 20,
           "serial: %llu pages, %llu faults", U(c.pages_touched_serial),
           U(c.faults));
  NT_CHECK(c.pages_already_local == 16 && c.batches == 16 &&
               c.pages_migrated == 0,
           "serial touches migrate nothing: local %llu batches %llu",
           U(c.pages_already_local), U(c.batches));
  NT_CHECK(nt_maps_prot((char *)a + 19 * pg) == (PROT_READ | PROT_WRITE) &&
               nt_maps_prot((char *)a + 20 * pg) == PROT_NONE,
           "serial touch: %d %d", nt_maps_prot((char *)a + 19 * pg),
           nt_maps_prot((char *)a + 20 * pg));

  // A one-thread team is no team: serial too.
#pragma omp parallel num_threads(1)
  a[20 * ipp] += 1;
  c = nt_counters();
  NT_CHECK(c.pages_touched_serial == 5 && c.arms == 1,
           "one-thread team: %llu serial, %llu arms", U(c.pages_touched_serial),
           U(c.arms));

  // Region 2 touches nothing: nothing changes.
  int team = 0;
#pragma omp parallel
  {
#pragma omp atomic
    team++;
  }
  c = nt_counters();
  NT_CHECK(team > 1, "team of %d", team);
  NT_CHECK(c.faults == 21 && c.pages_disarmed == 0 && c.arms == 1,
           "region 2: faults %llu disarmed %llu arms %llu", U(c.faults),
           U(c.pages_disarmed), U(c.arms));
  NT_CHECK(nt_maps_prot((char *)a + 24 * pg) == PROT_NONE, "page 24 not armed");

  // Region 3 touches [24, 40), armed since region 1's fork.
#pragma omp parallel for schedule(static)
  for (int p = 24; p < 40; p++)
    a[p * ipp] += 1;
  c = nt_counters();
  NT_CHECK(c.pages_already_local == 32 && c.faults == 37 && c.batches == 32,
           "region 3: local %llu faults %llu batches %llu",
           U(c.pages_already_local), U(c.faults), U(c.batches));
  NT_CHECK(c.pages_disarmed == 0, "region 3: disarmed %llu",
           U(c.pages_disarmed));

  // The API: [40, 48) (a range starting mid-page and ending mid-page).
  NT_CHECK(kmp_nexttouch_disarm((char *)a + 40 * pg + 8, 8 * pg - 16) == 0,
           "disarm");
  c = nt_counters();
  NT_CHECK(c.pages_disarmed == 8 && c.faults == 37,
           "disarmed %llu, faults %llu", U(c.pages_disarmed), U(c.faults));
  for (int p = 40; p < 48; p++)
    NT_CHECK(nt_maps_prot((char *)a + p * pg) == (PROT_READ | PROT_WRITE),
             "page %d after disarm: %d", p, nt_maps_prot((char *)a + p * pg));
  NT_CHECK(nt_maps_prot((char *)a + 48 * pg) == PROT_NONE,
           "page 48 disarmed too");
  long long s40 = 0;
  for (long i = 40L * ipp; i < 48L * ipp; i++)
    s40 += a[i] - i;
  c = nt_counters();
  NT_CHECK(s40 == 0 && c.faults == 37, "disarmed pages: sum %lld faults %llu",
           s40, U(c.faults));
  // Pages 20..23 (one touched by the one-thread team) and [48, N) untouched.
  for (int p = 0; p < 48; p++) {
    int want = p * ipp + (p < 21 || (p >= 24 && p < 40));
    if (p >= 21 && p < 24)
      continue; // still armed: not read here
    if (a[p * ipp] != want)
      NT_CHECK(0, "page %d: %d, want %d", p, a[p * ipp], want);
  }
  // What is left armed ([21, 24) and [48, N)) is disarmed at shutdown.
  return nt_done("lifetime");
}
