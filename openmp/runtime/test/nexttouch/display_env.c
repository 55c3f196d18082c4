// The KMP_NEXTTOUCH* variables are part of the runtime's settings: shown by
// OMP_DISPLAY_ENV=verbose (and KMP_SETTINGS), parsed with warnings for bad
// values; KMP_NEXTTOUCH=false makes requests no-ops.
// RUN: %libomp-compile
// RUN: env OMP_DISPLAY_ENV=verbose KMP_NEXTTOUCH_WINDOW=8 KMP_NEXTTOUCH_MECHANISM=mbind \
// RUN:   KMP_NEXTTOUCH_FORCE=1 %libomp-run 2>&1 | FileCheck %s
// RUN: env KMP_NEXTTOUCH=false KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=bogus \
// RUN:   %libomp-run off 2>&1 | FileCheck %s --check-prefix=OFF
// REQUIRES: linux
// CHECK: OPENMP DISPLAY ENVIRONMENT BEGIN
// CHECK-DAG: [host] KMP_NEXTTOUCH='TRUE'
// CHECK-DAG: [host] KMP_NEXTTOUCH_COUNTERS='FALSE'
// CHECK-DAG: [host] KMP_NEXTTOUCH_FORCE='TRUE'
// CHECK-DAG: [host] KMP_NEXTTOUCH_LIFETIME='unlimited'
// CHECK-DAG: [host] KMP_NEXTTOUCH_MAX_WINDOW='512'
// CHECK-DAG: [host] KMP_NEXTTOUCH_MECHANISM='mbind'
// CHECK-DAG: [host] KMP_NEXTTOUCH_THP='TRUE'
// CHECK-DAG: [host] KMP_NEXTTOUCH_WINDOW='8'
// CHECK: OPENMP DISPLAY ENVIRONMENT END
// CHECK: display_env: PASS
// OFF: KMP_NEXTTOUCH_WINDOW: "bogus" is an invalid value; ignored.
// OFF-NOT: will be used
// OFF: display_env off: PASS
#include "nexttouch_test.h"

int main(int argc, char **argv) {
  long pg = nt_pagesize();
  char *a = nt_map(4 * pg);
  memset(a, 1, 4 * pg);
  NT_CHECK(kmp_nexttouch(a, 4 * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  a[omp_get_thread_num() * pg]++;
  kmp_nexttouch_counters_t c = nt_counters();
  if (argc > 1) {
    NT_CHECK(c.active == 0 && c.noop_requests == 1 && c.pages_armed == 0,
             "off");
    return nt_done("display_env off");
  }
  NT_CHECK(c.active == 1 && c.mechanism == 2 && c.pages_armed == 4, "on");
  // Windows of 8 pages: the first fault may claim all 4 pages.
  NT_CHECK(c.batches >= 1 && c.batches <= 2, "windows of 8 pages: %llu",
           (unsigned long long)c.batches);
  return nt_done("display_env");
}
