// A request may cover memory the runtime itself uses: here the whole main
// heap ([heap] in /proc/self/maps), which holds libomp's teams, threads'
// descriptors and barrier flags next to the program's data.  The fork that
// arms it, the region, the join and the fault path must all keep working
// (the fault path reads only memory of its own mappings).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' malloc does not use the [heap] segment.)
// CHECK: whole_heap: PASS
#include "nexttouch_test.h"

int main(void) {
  // Warm up: libomp's structures exist before the request.
  int warm = 0;
#pragma omp parallel reduction(+ : warm)
  warm += 1;
  enum { N = 100000 };
  long *data = (long *)malloc(N * sizeof(long));
  for (long i = 0; i < N; i++)
    data[i] = i;
  unsigned long lo = 0, hi = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "[heap]"))
      sscanf(line, "%lx-%lx", &lo, &hi);
  if (f)
    fclose(f);
  NT_CHECK(lo && hi > lo, "no [heap]");
  for (int r = 0; r < 3; r++) {
    NT_CHECK(kmp_nexttouch((void *)lo, hi - lo) == 0, "request the heap");
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 1000)
    for (long i = 0; i < N; i++)
      sum += data[i]++;
    NT_CHECK(sum == (long)N * (N - 1) / 2 + (long)r * N, "region %d: sum %ld",
             r, sum);
  }
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.arms == 3 && c.faults > 0, "arms %llu faults %llu",
           (unsigned long long)c.arms, (unsigned long long)c.faults);
  NT_CHECK(c.fail_restore == 0 && c.fail_move_other == 0, "failures");
  printf("heap %lu KiB, %llu pages armed, %llu faults, %d warm\n",
         (hi - lo) >> 10, (unsigned long long)c.pages_armed,
         (unsigned long long)c.faults, warm);
  return nt_done("whole_heap");
}
