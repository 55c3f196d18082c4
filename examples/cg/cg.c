/*
 * Conjugate gradients with a sparse matrix in CSR form: the 2-D Laplacian
 * on an m x m grid, assembled by one thread, as a reader or a mesh
 * generator would.  '#pragma omp nexttouch' on the matrix and the vectors
 * before the solver moves each page to the node of the thread whose rows
 * it holds (the first SpMV touches them), as Löf and Holmgren did by hand
 * with madvise(MADV_ACCESS_LWP) on Solaris.
 *
 *   cg [m (default 256)] [most iterations (1000)]
 *
 * b = A * 1, so the solution is all ones: the check is the residual, and
 * the error once it converged (CG needs about 2m iterations here).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/placement.h"

static void spmv(size_t n, const size_t *row, const int *col,
                 const double *val, const double *x, double *y) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    double s = 0.0;
    for (size_t k = row[i]; k < row[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}

static double dot(size_t n, const double *x, const double *y) {
  double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (size_t i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

int main(int argc, char **argv) {
  size_t m = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, n = m * m;
  int iters = argc > 2 ? atoi(argv[2]) : 1000;
  size_t *row = malloc((n + 1) * sizeof *row);
  int *col = malloc(5 * n * sizeof *col);
  double *val = malloc(5 * n * sizeof *val);
  double *x = malloc(n * sizeof *x), *b = malloc(n * sizeof *b),
         *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p),
         *q = malloc(n * sizeof *q);
  if (!row || !col || !val || !x || !b || !r || !p || !q)
    return 1;
  size_t nnz = 0; /* serial assembly */
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++) {
      row[i * m + j] = nnz;
      if (i > 0)
        col[nnz] = (int)((i - 1) * m + j), val[nnz++] = -1.0;
      if (j > 0)
        col[nnz] = (int)(i * m + j - 1), val[nnz++] = -1.0;
      col[nnz] = (int)(i * m + j), val[nnz++] = 4.0;
      if (j < m - 1)
        col[nnz] = (int)(i * m + j + 1), val[nnz++] = -1.0;
      if (i < m - 1)
        col[nnz] = (int)((i + 1) * m + j), val[nnz++] = -1.0;
    }
  row[n] = nnz;
  for (size_t i = 0; i < n; i++)
    x[i] = 1.0;
  spmv(n, row, col, val, x, b); /* b = A * 1 (serial placement kept) */
  for (size_t i = 0; i < n; i++)
    x[i] = 0.0, r[i] = b[i], p[i] = b[i], q[i] = 0.0;

#ifdef __OPENMP_NEXTTOUCH__
#pragma omp nexttouch(row[0:n + 1], col[0:nnz], val[0:nnz], x[0:n], b[0:n], \
                      r[0:n], p[0:n], q[0:n])
#endif

  double t = omp_get_wtime(), rr = dot(n, r, r), rr0 = rr;
  int it = 0;
  for (; it < iters && rr > 1e-20 * rr0; it++) {
    spmv(n, row, col, val, p, q);
    double alpha = rr / dot(n, p, q);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rr1 = dot(n, r, r);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
      p[i] = r[i] + rr1 / rr * p[i];
    rr = rr1;
  }
  t = omp_get_wtime() - t;
  double err = 0.0; /* against the exact solution; CG converges slowly */
  for (size_t i = 0; i < n; i++)
    err = fmax(err, fabs(x[i] - 1.0));
  double res = sqrt(rr / rr0);
  printf("cg: n=%zu, %d iterations, %.3f s, relative residual %.2e, max "
         "error %.2e, %.1f%% of matrix pages placed\n",
         n, it, t, res, err,
         100.0 * placed_fraction(val, sizeof *val, nnz));
  /* Converged (residual 1e-10): the error is small too; else it fell. */
  int converged = rr <= 1e-20 * rr0;
  if (!(res < 1.0) || (converged && !(err < 1e-6)) ||
      (it >= 2 * (int)m && !converged)) {
    printf("cg: FAIL: residual %g, error %g after %d iterations\n", res, err,
           it);
    return 1;
  }
  printf("cg: OK\n");
  return 0;
}
