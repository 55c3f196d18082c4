// jacobi.c -- a 2-D Poisson solver, Jacobi iteration on the 5-point stencil
// (-Laplace(u) = f on the unit square, u = 0 on the boundary, h = 1/(N+1)):
//   unew[i][j] = (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] + h^2 f[i][j]) / 4
// with two grids swapped after each sweep; each sweep is its own
// '#pragma omp parallel for schedule(static)' over the rows, and every
// CHECK_EVERY sweeps a parallel reduction computes the residual norm
// ||f + Laplace_h(u)||, as a solver checking convergence would.
//
// Verification is exact: u0 and f are combinations of the discrete
// eigenfunctions phi_kl(i,j) = sin(k pi i h) sin(l pi j h) of the stencil, for
// which one sweep multiplies a mode's coefficient by
// lambda_kl = (cos(k pi h) + cos(l pi h)) / 2 (plus h^2 c / 4 for a source
// term c phi_kl). So after K sweeps u is known in closed form at every point,
// and so is the residual norm (the modes are orthogonal, sum over the grid of
// phi_kl^2 = ((N+1)/2)^2). Both are checked.
//
// The three grids (u, unew, f) are initialised by one thread;
// '#pragma omp nexttouch(u : len, unew : len, f : len)' comes right before
// the solver loop.
//
// usage: jacobi [--baseline] [N (interior points per side, default 1022)]
//        [sweeps (default 100)]
#include "ntapp.h"

enum { CHECK_EVERY = 20 };

int main(int argc, char **argv) {
  nt_app_init("jacobi", &argc, argv);
  long N = argc > 1 ? atol(argv[1]) : 1022;
  int sweeps = argc > 2 ? atoi(argv[2]) : 100;
  long M = N + 2, len = M * M; // rows of M points, boundary included
  double *u = malloc(len * sizeof *u), *unew = malloc(len * sizeof *unew),
         *f = malloc(len * sizeof *f);
  if (!u || !unew || !f)
    return perror("malloc"), 2;
  const double pi = acos(-1.0), h = 1.0 / (N + 1), h2 = h * h;
  // u0 = A1 phi_11 + A2 phi_KL, f = C1 phi_11.
  const int K2 = 40, L2 = 25;
  const double A1 = 1.0, A2 = 0.5, C1 = 2.0;
#define PHI(k, l, i, j) (sin((k) * pi * (i) * h) * sin((l) * pi * (j) * h))

  // Serial initialisation (boundary rows and columns are 0 in both grids).
  for (long i = 0; i < M; i++)
    for (long j = 0; j < M; j++) {
      int inner = i > 0 && i < M - 1 && j > 0 && j < M - 1;
      u[i * M + j] = inner ? A1 * PHI(1, 1, i, j) + A2 * PHI(K2, L2, i, j) : 0;
      unew[i * M + j] = 0;
      f[i * M + j] = inner ? C1 * PHI(1, 1, i, j) : 0;
    }
  // The sweep is a static loop over rows 1..N: element e is in row e / M,
  // iteration row - 1.
  nt_app_array("u", u, len, sizeof *u, NT_OWN_LINEAR, M, 1, N, NULL);
  nt_app_array("unew", unew, len, sizeof *unew, NT_OWN_LINEAR, M, 1, N, NULL);
  nt_app_array("f", f, len, sizeof *f, NT_OWN_LINEAR, M, 1, N, NULL);

  double res[64];
  int nres = 0;
  nt_app_start();
  if (nt_app.use_nt) {
#pragma omp nexttouch(u : len, unew : len, f : len)
  }
  for (int it = 1; it <= sweeps; it++) {
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= N; i++)
      for (long j = 1; j <= N; j++)
        unew[i * M + j] = 0.25 * (u[(i - 1) * M + j] + u[(i + 1) * M + j] +
                                  u[i * M + j - 1] + u[i * M + j + 1] +
                                  h2 * f[i * M + j]);
    double *t = u;
    u = unew;
    unew = t;
    if (it % CHECK_EVERY == 0 || it == sweeps) {
      double r2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : r2)
      for (long i = 1; i <= N; i++)
        for (long j = 1; j <= N; j++) {
          double r = f[i * M + j] -
                     (4 * u[i * M + j] - u[(i - 1) * M + j] -
                      u[(i + 1) * M + j] - u[i * M + j - 1] - u[i * M + j + 1]) /
                         h2;
          r2 += r * r;
        }
      if (nres < 64)
        res[nres++] = sqrt(r2);
    }
  }
  nt_app_stop();

  // Closed form after `sweeps` sweeps.
  double l1 = (cos(pi * h) + cos(pi * h)) / 2;
  double l2 = (cos(K2 * pi * h) + cos(L2 * pi * h)) / 2;
  double a = A1, b = A2, maxerr = 0;
  int ok = 1, r = 0;
  for (int it = 1; it <= sweeps; it++) {
    a = l1 * a + h2 * C1 / 4;
    b = l2 * b;
    if (it % CHECK_EVERY == 0 || it == sweeps) {
      double m1 = C1 + a * (4 * l1 - 4) / h2, m2 = b * (4 * l2 - 4) / h2;
      double expect = sqrt(m1 * m1 + m2 * m2) * (N + 1) / 2;
      double rel = fabs(res[r] - expect) / expect;
      if (rel > 1e-6) {
        printf("jacobi: residual after %d sweeps %.12e, expected %.12e\n", it,
               res[r], expect);
        ok = 0;
      }
      r++;
    }
  }
  for (long i = 1; i <= N; i++)
    for (long j = 1; j <= N; j++) {
      double e = fabs(u[i * M + j] - (a * PHI(1, 1, i, j) + b * PHI(K2, L2, i, j)));
      maxerr = e > maxerr ? e : maxerr;
    }
  if (!(maxerr < 1e-10))
    ok = 0;
  printf("jacobi: N=%ld sweeps=%d residual=%.6e max_error=%.2e "
         "(mode coefficients %.6f %.6f)\n",
         N, sweeps, res[nres - 1], maxerr, a, b);
  return nt_app_report(ok);
}
