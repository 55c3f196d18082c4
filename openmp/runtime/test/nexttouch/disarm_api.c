// kmp_nexttouch_disarm(ptr, len): pages of the range still pending or armed
// are left where they are and are ordinary memory again.
//   arguments: (NULL, n) is EINVAL, an overflowing length EOVERFLOW, a zero
//   length and a range nobody requested do nothing; before any request it is
//   a no-op;
//   pending part: a hole disarmed in a request before its fork is never
//   armed (and counts nothing: only armed pages are counted);
//   armed part: counted in pages_disarmed, accessible at once, no fault;
//   (NULL, 0): everything, pending requests included (the next fork arms
//   nothing);
//   from inside a region, while the other threads fault on the same pages:
//   every armed page ends up either touched or disarmed, exactly once, and
//   the data is intact (many rounds, adaptive and exact windows).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: disarm_api: PASS
#include "nexttouch_test.h"
#include <stdint.h>

#define U(x) ((unsigned long long)(x))

enum { N = 256 };
static long pg;
static int ipp;

int main(void) {
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;

  // Arguments, before the engine has seen any request.
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "(NULL, 0) first");
  NT_CHECK(kmp_nexttouch_disarm(a, N * pg) == 0, "nothing requested");
  NT_CHECK(kmp_nexttouch_disarm(NULL, 5) == EINVAL, "(NULL, 5)");
  NT_CHECK(kmp_nexttouch_disarm(a, SIZE_MAX) == EOVERFLOW, "SIZE_MAX");
  NT_CHECK(kmp_nexttouch_disarm((char *)UINTPTR_MAX - 100, 1000) == EOVERFLOW,
           "wraps");
  NT_CHECK(kmp_nexttouch_disarm(a, 0) == 0, "zero length");
  kmp_reset_nexttouch_counters();

  // A hole in a pending request: pages [16, 24) are never armed.
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
  NT_CHECK(kmp_nexttouch_disarm((char *)a + 16 * pg, 8 * pg) == 0,
           "disarm pending");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == 0 && c.pages_disarmed == 0,
           "pending: armed %llu disarmed %llu", U(c.pages_armed),
           U(c.pages_disarmed));
#pragma omp parallel
  {
#pragma omp single
    a[0] += 1;
  }
  c = nt_counters();
  NT_CHECK(c.arms == 1 && c.pages_armed == N - 8, "hole: armed %llu",
           U(c.pages_armed));
  NT_CHECK(nt_maps_prot((char *)a + 16 * pg) == (PROT_READ | PROT_WRITE) &&
               nt_maps_prot((char *)a + 15 * pg) == PROT_NONE &&
               nt_maps_prot((char *)a + 24 * pg) == PROT_NONE,
           "hole: %d %d %d", nt_maps_prot((char *)a + 15 * pg),
           nt_maps_prot((char *)a + 16 * pg),
           nt_maps_prot((char *)a + 24 * pg));
  unsigned long long handled = c.pages_already_local;
  NT_CHECK(handled >= 1 && c.pages_disarmed == 0, "handled %llu", handled);

  // Armed part, from serial code: no fault, counted as disarmed.
  unsigned long long f0 = c.faults;
  NT_CHECK(kmp_nexttouch_disarm((char *)a + 200 * pg, 56 * pg) == 0,
           "disarm armed");
  c = nt_counters();
  NT_CHECK(c.pages_disarmed == 56 && c.faults == f0,
           "disarmed %llu faults %llu", U(c.pages_disarmed), U(c.faults - f0));
  long long s = 0;
  for (long i = 200L * ipp; i < (long)N * ipp; i++)
    s += a[i] - i;
  c = nt_counters();
  NT_CHECK(s == 0 && c.faults == f0, "read disarmed pages: %lld, %llu faults",
           s, U(c.faults - f0));

  // (NULL, 0) with a pending request (b) and armed pages (the rest of a).
  int *b = (int *)nt_map(64 * pg);
  memset(b, 0, 64 * pg);
  NT_CHECK(kmp_nexttouch(b, 64 * pg) == 0, "request b");
  unsigned long long armed_left = (N - 8) - handled - 56;
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "(NULL, 0)");
  c = nt_counters();
  NT_CHECK(c.pages_disarmed == 56 + armed_left,
           "everything: disarmed %llu, want %llu", U(c.pages_disarmed),
           56 + armed_left);
  NT_CHECK(c.pages_already_local + c.pages_disarmed == c.pages_armed,
           "local %llu + disarmed %llu != armed %llu", U(c.pages_already_local),
           U(c.pages_disarmed), U(c.pages_armed));
#pragma omp parallel for
  for (int p = 0; p < 64; p++)
    b[p * ipp] += 1;
  kmp_nexttouch_counters_t d = nt_counters();
  NT_CHECK(d.arms == c.arms && d.pages_armed == c.pages_armed &&
               d.faults == c.faults,
           "pending b was armed: arms %llu faults %llu", U(d.arms - c.arms),
           U(d.faults - c.faults));
  s = 0;
  for (long i = 0; i < N * ipp; i++)
    s += a[i] - i;
  NT_CHECK(s == 1, "a: %lld", s);

  // From inside the region, racing with the faults of the other threads.
  enum { ROUNDS = 40 };
  unsigned long long raced = 0;
  for (int r = 0; r < ROUNDS; r++) {
    kmp_nexttouch_counters_t c0 = nt_counters();
    NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "round %d: request", r);
    int lo = (r * 37) % (N - 64), len = 16 + r % 48;
#pragma omp parallel
    {
      int tid = omp_get_thread_num(), mine = 0;
#pragma omp for schedule(dynamic, 3) nowait
      for (int p = 0; p < N; p++) {
        a[p * ipp + 1] += 1;
        if (tid == 0 && ++mine == 1 + r % 8) {
          int rc = r % 3 == 0
                       ? kmp_nexttouch_disarm(NULL, 0)
                       : kmp_nexttouch_disarm((char *)a + lo * pg, len * pg);
          if (rc)
            NT_CHECK(0, "round %d: disarm in region: %d", r, rc);
        }
      }
    }
    kmp_nexttouch_counters_t c1 = nt_counters();
    unsigned long long armed = c1.pages_armed - c0.pages_armed,
                       local = c1.pages_already_local - c0.pages_already_local,
                       dis = c1.pages_disarmed - c0.pages_disarmed;
    NT_CHECK(armed == N && local + dis == N && c1.pages_migrated == 0,
             "round %d: armed %llu, local %llu + disarmed %llu", r, armed,
             local, dis);
    raced += dis;
    NT_CHECK(c1.fail_restore == 0 && c1.fail_arm == 0, "round %d: failures", r);
  }
  NT_CHECK(raced > 0, "no round disarmed anything");
  for (long i = 0; i < N * ipp; i++) {
    int want = (int)i + (i == 0) + ((i % ipp) == 1) * ROUNDS;
    if (a[i] != want) {
      NT_CHECK(0, "a[%ld] = %d, want %d", i, a[i], want);
      break;
    }
  }
  return nt_done("disarm_api");
}
