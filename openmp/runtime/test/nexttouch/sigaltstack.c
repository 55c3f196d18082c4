// The fault path runs on an alternate signal stack when the thread has one
// (SA_ONSTACK): the primary thread's faults leave their mark on the altstack,
// with a stack as small as the system's minimum plus a little, and the data
// is intact.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: sigaltstack: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/auxv.h>

int main(void) {
  long pg = nt_pagesize();
  enum { N = 128 };
#ifdef _SC_MINSIGSTKSZ // glibc 2.34 and later: the CPU's signal frame size
  long min = sysconf(_SC_MINSIGSTKSZ);
#else
  long min = getauxval(AT_MINSIGSTKSZ);
#endif
  if (min < 2048)
    min = 2048;
  size_t size = min + 6144;
  unsigned char *alt = (unsigned char *)nt_map(size + pg);
  memset(alt, 0xa5, size);
  stack_t ss = {.ss_sp = alt, .ss_size = size, .ss_flags = 0};
  NT_CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");

  int *a = (int *)nt_map(N * pg);
  int ipp = pg / sizeof(int);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel
  {
    // Only the primary thread has an altstack: it touches the first half.
    int t = omp_get_thread_num();
    for (int p = t * N / 2; p < (t + 1) * N / 2; p++)
      a[p * ipp] += 1;
  }
  size_t used = 0;
  for (size_t i = 0; i < size; i++)
    used += alt[i] != 0xa5;
  NT_CHECK(used > 0, "the handler did not run on the altstack");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_already_local == N, "pages %llu",
           (unsigned long long)c.pages_already_local);
  for (long i = 0; i < N * ipp; i++)
    if (a[i] != (int)i + (i % ipp == 0)) {
      NT_CHECK(0, "a[%ld]", i);
      break;
    }
  printf("altstack bytes used: %zu of %zu\n", used, size);
  return nt_done("sigaltstack");
}
