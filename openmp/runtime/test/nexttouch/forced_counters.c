// Arming on a forced single node: the fault path runs for real, and the
// counters say exactly what happened.
//   exact mode (KMP_NEXTTOUCH_WINDOW=1): one fault and one batch per page;
//   adaptive mode: fewer batches than pages, each page handled once;
// pages nobody touched stay armed after the region, and serial code that
// touches them later gets them back where they are (pages_touched_serial);
// serial code between the request and the region arms nothing;
// KMP_NEXTTOUCH_COUNTERS prints at exit, with where the table of nodes came
// from (the kernel's node list, or libomp's hwloc topology when
// KMP_TOPOLOGY_METHOD=hwloc has loaded one).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_COUNTERS=1 \
// RUN:   OMP_NUM_THREADS=4 %libomp-run exact 2>&1 | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_COUNTERS=1 OMP_NUM_THREADS=4 \
// RUN:   KMP_TOPOLOGY_METHOD=hwloc %libomp-run adaptive 2>&1 | FileCheck %s --check-prefixes=CHECK,ADAPT
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=16 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run fixed16 2>&1 | FileCheck %s
// REQUIRES: linux
//
// CHECK: forced_counters: PASS
// EXACT: OMP: Info #{{[0-9]+}}: nexttouch: active=1 mechanism={{move_pages|mbind}} nodes=1 topology=sysfs forced=1
// EXACT-SAME: requests=2 noop_requests=0 bad_requests=0 arms=1 pages_armed=256
// EXACT-SAME: faults=256 batches=192 pages_migrated=0 pages_already_local=192 pages_disarmed=0
// EXACT-SAME: fail_arm=0 fail_move_busy=0 fail_move_nomem=0 fail_move_other=0 fail_restore=0
// EXACT-SAME: pages_touched_serial=64 pages_expired=0 readonly_regions=0
// EXACT-SAME: readonly_dropped=0 readonly_replica_ns=0 readonly_lists_reused=0 migrated_to: none
// ADAPT: OMP: Info #{{[0-9]+}}: nexttouch: {{.*}} topology=hwloc forced=1 requests=2 noop_requests=0 bad_requests=0 arms=1 pages_armed=256
// ADAPT-SAME: pages_touched_serial=64
#include "nexttouch_test.h"

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "exact";
  long pg = nt_pagesize();
  enum { N = 256, TOUCHED = 192 };
  int *a = (int *)nt_map(N * pg);
  int ipp = pg / sizeof(int);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(a, 100 * pg) == 0, "request 1");
  NT_CHECK(kmp_nexttouch((char *)a + 100 * pg, (N - 100) * pg) == 0,
           "request 2");
  // Serial code between the request and the region: nothing armed yet.
  for (long i = 0; i < N * ipp; i += ipp)
    a[i] += 0;
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == 0 && c.faults == 0, "serial code");
  // A one-thread team does not arm either.
#pragma omp parallel num_threads(1)
  a[0] += 0;
  c = nt_counters();
  NT_CHECK(c.arms == 0 && c.pages_armed == 0, "one-thread team");

  // Pages [N-TOUCHED, N) are touched, one int each; the first ones are not
  // (windows only grow forward, so in every mode they stay untouched).
#pragma omp parallel for schedule(static)
  for (int p = N - TOUCHED; p < N; p++)
    a[p * ipp] += 1;
  c = nt_counters();
  NT_CHECK(c.arms == 1 && c.pages_armed == N, "armed %llu",
           (unsigned long long)c.pages_armed);
  NT_CHECK(c.pages_already_local == TOUCHED && c.pages_disarmed == 0,
           "local %llu (want %d), disarmed %llu (want 0): untouched pages "
           "stay armed after the region",
           (unsigned long long)c.pages_already_local, TOUCHED,
           (unsigned long long)c.pages_disarmed);
  NT_CHECK(c.pages_migrated == 0 && c.fail_move_other == 0, "one node");
  if (!strcmp(mode, "exact")) {
    NT_CHECK(c.faults == TOUCHED && c.batches == TOUCHED, "faults %llu",
             (unsigned long long)c.faults);
  } else {
    NT_CHECK(c.batches < TOUCHED / 4, "batches %llu",
             (unsigned long long)c.batches);
  }
  NT_CHECK(c.fault_ns > 0, "fault-path time");
  // Data intact, everything accessible again; serial code takes the
  // untouched pages back where they are, one fault each.
  kmp_nexttouch_counters_t before = nt_counters();
  for (long i = 0; i < N * ipp; i++) {
    int want = (int)i + ((i % ipp) == 0 && i / ipp >= N - TOUCHED);
    if (a[i] != want) {
      NT_CHECK(0, "a[%ld] = %d, want %d", i, a[i], want);
      break;
    }
  }
  c = nt_counters();
  NT_CHECK(c.pages_touched_serial == N - TOUCHED &&
               c.faults - before.faults == N - TOUCHED &&
               c.batches == before.batches && c.pages_already_local == TOUCHED,
           "serial touches: %llu pages, %llu faults",
           (unsigned long long)c.pages_touched_serial,
           (unsigned long long)(c.faults - before.faults));
  // Counter struct versioning: a short struct is filled up to its size.
  kmp_nexttouch_counters_t s;
  memset(&s, 0xff, sizeof s);
  s.size = offsetof(kmp_nexttouch_counters_t, arms);
  NT_CHECK(kmp_get_nexttouch_counters(&s) == 0 && s.requests == 2 &&
               s.arms == ~0ull,
           "short struct");
  s.size = 4;
  NT_CHECK(kmp_get_nexttouch_counters(&s) == EINVAL, "too short");
  NT_CHECK(kmp_get_nexttouch_counters(NULL) == EINVAL, "NULL");
  fflush(stdout);
  return nt_done("forced_counters");
}
