// A request over a hole the program unmapped is refused with EFAULT also
// when it is the first call into libomp: the runtime's initialisation maps
// memory of its own, which the kernel may place in that hole; a range over
// the runtime's own memory is not the program's, and nothing of it is
// armed (neither the runtime's page nor the program's pages around it).
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' own mappings may fill the hole: it is mapped memory then.)
// CHECK: hole_request: PASS
#include "nexttouch_test.h"

int main(void) {
  long pg = nt_pagesize();
  char *a = (char *)mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(a, 1, 3 * pg);
  munmap(a + pg, pg);
  int rc = kmp_nexttouch(a, 3 * pg); // the first call: libomp starts here
  NT_CHECK(rc == EFAULT, "first call over a hole: %d", rc);
  NT_CHECK(kmp_nexttouch(a, 3 * pg) == EFAULT, "again");
  kmp_nexttouch_counters_t c0 = nt_counters();
  long s = 0;
#pragma omp parallel reduction(+ : s)
  s += a[0] + a[2 * pg];
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == c0.pages_armed, "%llu pages armed",
           (unsigned long long)(c.pages_armed - c0.pages_armed));
  NT_CHECK(c.bad_requests >= 2, "bad requests %llu",
           (unsigned long long)c.bad_requests);
  return nt_done("hole_request");
}
