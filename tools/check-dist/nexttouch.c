// make check-dist: '#pragma omp nexttouch' compiled by the unpacked clang,
// run on its libomp (KMP_NEXTTOUCH_FORCE=1 arms on a one-node machine):
// the pages of a serially initialised array are armed at the next fork and
// every one is touched by the team; the data is intact.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { N = 1 << 21 };
  double *a = malloc(N * sizeof *a);
  for (long i = 0; i < N; i++)
    a[i] = 1;
#pragma omp nexttouch(a : N)
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (long i = 0; i < N; i++)
    sum += a[i] * 2;
  kmp_nexttouch_counters_t c = {.size = sizeof c};
  kmp_get_nexttouch_counters(&c);
  unsigned long long armed = c.pages_armed,
                     handled = c.pages_migrated + c.pages_already_local;
  printf("nexttouch: %llu pages armed, %llu touched by the team, sum %.0f\n",
         armed, handled, sum);
  int ok = armed > 0 && handled == armed && sum == 2.0 * N;
  printf("nexttouch: %s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
