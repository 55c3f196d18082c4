/*
 * MPI + OpenMP: each rank owns a block of a global vector, initialised by
 * the rank's main thread (as after an MPI receive or a file read), then
 * computed on by the rank's OpenMP threads.  '#pragma omp nexttouch' moves
 * the block's pages to its threads' nodes; ranks pinned one per node keep
 * their data on their node anyway, ranks spanning nodes need this.  The
 * result is reduced across ranks and checked.
 *
 *   mpirun -np 2 mpi_hybrid [megabytes per rank (default 32)] [repetitions]
 */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/placement.h"

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = (argc > 1 ? strtoul(argv[1], NULL, 10) : 32) << 20 >> 3;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  double *x = malloc(n * sizeof *x);
  if (!x)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < n; i++) /* the main thread's initialisation */
    x[i] = (double)(rank * n + i) / (double)(size * n);

#ifdef __OPENMP_NEXTTOUCH__
#pragma omp nexttouch(x[0:n])
#endif

  double local = 0.0;
  for (int r = 0; r < reps; r++) {
    local = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : local)
    for (size_t i = 0; i < n; i++) {
      x[i] = x[i] * 0.5 + 0.25; /* stays in [0.25, 0.75) */
      local += x[i];
    }
  }
  double placed = placed_fraction(x, sizeof *x, n), global, worst;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&placed, &worst, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);

  /* The same updates serially, for the whole vector (rank 0). */
  int ok = 1;
  if (rank == 0) {
    double want = 0.0;
    for (size_t g = 0; g < n * size; g++) {
      double v = (double)g / (double)(size * n);
      for (int r = 0; r < reps; r++)
        v = v * 0.5 + 0.25;
      want += v;
    }
    ok = fabs(global - want) <= 1e-9 * (double)(n * size);
    printf("mpi_hybrid: %d ranks x %d threads, sum %.6f (serial %.6f), "
           "%.1f%% of pages placed (worst rank)\n",
           size, omp_get_max_threads(), global, want, 100.0 * worst);
    printf("mpi_hybrid: %s\n", ok ? "OK" : "FAIL");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
