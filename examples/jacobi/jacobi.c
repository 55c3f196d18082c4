/*
 * Jacobi iterations for Laplace's equation on an n x n grid (a 5-point
 * stencil), with grids that one thread allocates and initialises.  After
 * '#pragma omp nexttouch' the first sweep moves each page of both grids to
 * the node of the thread whose rows it holds; later sweeps read and write
 * local memory.
 *
 *   jacobi [n (default 1024)] [sweeps (200)]
 *
 * The boundary is 1 on the top row and 0 elsewhere; the check compares the
 * result with a serial run of the same sweeps on a coarse part.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/placement.h"

static void sweep(size_t n, const double *u, double *v) {
#pragma omp parallel for schedule(static)
  for (size_t i = 1; i < n - 1; i++)
    for (size_t j = 1; j < n - 1; j++)
      v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                             u[i * n + j - 1] + u[i * n + j + 1]);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  int sweeps = argc > 2 ? atoi(argv[2]) : 200;
  size_t cells = n * n;
  double *u = malloc(cells * sizeof *u), *v = malloc(cells * sizeof *v);
  if (!u || !v || n < 3)
    return 1;
  memset(u, 0, cells * sizeof *u); /* serial initialisation */
  for (size_t j = 0; j < n; j++)
    u[j] = 1.0;
  memcpy(v, u, cells * sizeof *u);

#ifdef __OPENMP_NEXTTOUCH__
#pragma omp nexttouch(u[0:cells], v[0:cells])
#endif

  double t = omp_get_wtime();
  for (int s = 0; s < sweeps; s++) {
    sweep(n, u, v);
    double *w = u;
    u = v;
    v = w;
  }
  t = omp_get_wtime() - t;

  /* The same sweeps serially on a copy of the initial grid. */
  double *x = calloc(cells, sizeof *x), *y = calloc(cells, sizeof *y);
  for (size_t j = 0; j < n; j++)
    x[j] = y[j] = 1.0;
  for (int s = 0; s < sweeps; s++) {
    for (size_t i = 1; i < n - 1; i++)
      for (size_t j = 1; j < n - 1; j++)
        y[i * n + j] = 0.25 * (x[(i - 1) * n + j] + x[(i + 1) * n + j] +
                               x[i * n + j - 1] + x[i * n + j + 1]);
    double *w = x;
    x = y;
    y = w;
  }
  for (size_t k = 0; k < cells; k++)
    if (fabs(u[k] - x[k]) > 1e-12) {
      printf("jacobi: FAIL: cell %zu: %g, serial %g\n", k, u[k], x[k]);
      return 1;
    }
  printf("jacobi: n=%zu, %d sweeps, %.3f s, %.1f%% of pages placed\n", n,
         sweeps, t, 100.0 * placed_fraction(u, sizeof *u, cells));
  printf("jacobi: OK\n");
  return 0;
}
