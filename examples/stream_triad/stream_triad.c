/*
 * STREAM triad, a[i] = b[i] + s * c[i], with arrays that one thread
 * initialises (as when they are read from a file): first touch puts every
 * page on that thread's node, and every other node's threads then stream
 * from remote memory.  One '#pragma omp nexttouch' before the compute loop
 * moves each page to the node of the thread that touches it next.
 *
 *   stream_triad [megabytes per array (default 64)] [repetitions (10)]
 *
 * Prints the bandwidth and the share of pages on their thread's node.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/placement.h"

int main(int argc, char **argv) {
  size_t n = (argc > 1 ? strtoul(argv[1], NULL, 10) : 64) << 20 >> 3;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
         *c = malloc(n * sizeof *c), s = 3.0;
  if (!a || !b || !c)
    return 1;
  for (size_t i = 0; i < n; i++) { /* serial initialisation */
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }

#ifdef __OPENMP_NEXTTOUCH__
#pragma omp nexttouch(a[0:n], b[0:n], c[0:n])
#endif

  double best = 0.0;
  for (int r = 0; r < reps; r++) {
    double t = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
    t = omp_get_wtime() - t;
    double gbs = 3.0 * n * sizeof(double) / t / 1e9;
    if (gbs > best)
      best = gbs;
  }
  for (size_t i = 0; i < n; i++)
    if (a[i] != 7.0) {
      printf("stream_triad: FAIL: a[%zu] = %g\n", i, a[i]);
      return 1;
    }
  printf("stream_triad: %d threads, %.2f GB/s best, %.1f%% of pages placed\n",
         omp_get_max_threads(), best,
         100.0 * placed_fraction(a, sizeof *a, n));
  printf("stream_triad: OK\n");
  return 0;
}
