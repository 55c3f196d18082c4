/*
 * A lookup table that every thread reads at random places, for the whole
 * run, and nobody writes after setting it up: an interpolation table, a
 * cross-section library, a k-mer index.  Whichever node holds it, the
 * other nodes' threads read remote memory.  With 'readonly(table[0:n])' on
 * the parallel construct each node's threads read a replica in their own
 * node's memory, made at the first region and kept while the table does
 * not change; a write to the table inside the region stops the program
 * with a message naming it.
 *
 *   readonly_table [table megabytes (default 32)] [lookups per thread
 *                  (4000000)] [regions (5)]
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __OPENMP_NEXTTOUCH__
#define READONLY(...) readonly(__VA_ARGS__)
#else
#define READONLY(...)
#endif

int main(int argc, char **argv) {
  size_t n = (argc > 1 ? strtoul(argv[1], NULL, 10) : 32) << 20 >> 3;
  long lookups = argc > 2 ? atol(argv[2]) : 4000000;
  int regions = argc > 3 ? atoi(argv[3]) : 5;
  double *table = malloc(n * sizeof *table);
  if (!table)
    return 1;
  for (size_t i = 0; i < n; i++) /* serial set-up */
    table[i] = sin((double)i);

  double total = 0.0, t = omp_get_wtime();
  for (int r = 0; r < regions; r++) {
    double sum = 0.0;
#pragma omp parallel READONLY(table[0:n]) reduction(+ : sum)
    {
      unsigned long s = 12345u + 777u * (unsigned)omp_get_thread_num();
      for (long k = 0; k < lookups; k++) {
        s = s * 6364136223846793005ul + 1442695040888963407ul;
        sum += table[(s >> 17) % n];
      }
    }
    total += sum;
  }
  t = omp_get_wtime() - t;

  double want = 0.0; /* the same lookups, serially */
  for (int r = 0; r < regions; r++)
    for (int th = 0; th < omp_get_max_threads(); th++) {
      unsigned long s = 12345u + 777u * (unsigned)th;
      for (long k = 0; k < lookups; k++) {
        s = s * 6364136223846793005ul + 1442695040888963407ul;
        want += sin((double)((s >> 17) % n));
      }
    }
  printf("readonly_table: %d threads, %d regions, %.3f s\n",
         omp_get_max_threads(), regions, t);
#ifdef KMP_NEXTTOUCH_API
  kmp_nexttouch_counters_t c = {sizeof c};
  if (kmp_get_nexttouch_counters(&c) == 0)
    printf("readonly_table: %llu replicas made, %llu reused\n",
           (unsigned long long)c.readonly_replicas,
           (unsigned long long)c.readonly_replicas_reused);
#endif
  if (fabs(total - want) >
      1e-9 * (double)lookups * omp_get_max_threads() * regions) {
    printf("readonly_table: FAIL: sum %.10g, serial %.10g\n", total, want);
    return 1;
  }
  printf("readonly_table: OK\n");
  return 0;
}
