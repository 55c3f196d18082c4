// With libomp's debugging on (make check-debug: libomp-debug, assertions
// and KA_TRACE), the engines trace what they do at KMP_A_DEBUG=10: a
// request armed at a fork, a kmp_nexttouch_disarm, a readonly region's
// start and end.  Also checks that the tests run against that libomp.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 \
// RUN:   KMP_A_DEBUG=10 OMP_NUM_THREADS=2 %libomp-run 2>&1 | FileCheck %s
// REQUIRES: linux, debug-libomp
// CHECK: __kmp_nt_arm_pending: 1 ranges, 1 items
// CHECK: __kmp_nt_arm_pending: 1 new segments
// CHECK: kmp_nexttouch_disarm:
// CHECK: ro_begin: 1 of 1 items
// CHECK: ro_end: 1 items
// CHECK: debug_trace: PASS
#include "nexttouch_test.h"

int main(void) {
  long pg = nt_pagesize();
  char *a = nt_map(16 * pg);
  memset(a, 1, 16 * pg);
  NT_CHECK(kmp_nexttouch(a, 16 * pg) == 0, "request");
  long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (long i = 0; i < 16; i++)
    sum += a[i * pg];
  NT_CHECK(sum == 16, "sum %ld", sum);
  NT_CHECK(kmp_nexttouch_disarm(a, 16 * pg) == 0, "disarm");
  const void *p = a;
  size_t len = 16 * pg;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "readonly begin");
  NT_CHECK(kmp_readonly_end(h) == 0, "readonly end");
  return nt_done("debug_trace");
}
