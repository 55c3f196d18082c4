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
// the solver loop. --variant=NAME (ntapp.h) selects the placement instead:
// none, nexttouch, interleave (run under numactl --interleave=all), ideal
// (the initialisation is a 'parallel for schedule(static)' over the rows, as
// the sweep: first touch by the thread that sweeps the row), autonuma (run
// with kernel.numa_balancing=1), oracle (in place of the directive, every
// page moved to its sweeping thread's node with batched move_pages, one
// thread per node: nt_app_place). Each sweep is timed on its own (NT_ITER
// lines; the residual, when due, counts in its sweep); --seconds=S goes on
// sweeping until the sweeps took S seconds.
//
// usage: jacobi [--baseline | --variant=NAME] [--seconds=S]
//        [N (interior points per side, default 1022)] [sweeps (default 100)]
#include "ntapp.h"

enum { CHECK_EVERY = 20 };

int main(int argc, char **argv) {
  nt_app_init_variants("jacobi", &argc, argv);
  long N = argc > 1 ? atol(argv[1]) : 1022;
  int sweeps = argc > 2 ? atoi(argv[2]) : 100;
  long M = N + 2, len = M * M; // rows of M points, boundary included
  double *u = nt_alloc(len * sizeof *u), *unew = nt_alloc(len * sizeof *unew),
         *f = nt_alloc(len * sizeof *f);
  if (!u || !unew || !f)
    return perror("mmap"), 2;
  const double pi = acos(-1.0), h = 1.0 / (N + 1), h2 = h * h;
  // u0 = A1 phi_11 + A2 phi_KL, f = C1 phi_11.
  const int K2 = 40, L2 = 25;
  const double A1 = 1.0, A2 = 0.5, C1 = 2.0;
  // phi_kl(i, j) from tables of sin(k pi i h) (the same values as computed
  // at each point, at a fraction of the cost under emulation).
  double *s1 = malloc(M * sizeof *s1), *sk = malloc(M * sizeof *sk),
         *sl = malloc(M * sizeof *sl);
  if (!s1 || !sk || !sl)
    return perror("malloc"), 2;
  for (long i = 0; i < M; i++)
    s1[i] = sin(pi * i * h), sk[i] = sin(K2 * pi * i * h), sl[i] = sin(L2 * pi * i * h);
#define PHI11(i, j) (s1[i] * s1[j])
#define PHIKL(i, j) (sk[i] * sl[j])

  // Initialisation (boundary rows and columns are 0 in both grids): serial,
  // or for the ideal variant by the sweep's static schedule over rows 1..N
  // (the threads of rows 1 and N also write rows 0 and N + 1).
  double tinit = omp_get_wtime();
#define INIT_ROW(i)                                                            \
  for (long j = 0; j < M; j++) {                                               \
    int inner = (i) > 0 && (i) < M - 1 && j > 0 && j < M - 1;                 \
    u[(i) * M + j] =                                                           \
        inner ? A1 * PHI11((i), j) + A2 * PHIKL((i), j) : 0;                   \
    unew[(i) * M + j] = 0;                                                     \
    f[(i) * M + j] = inner ? C1 * PHI11((i), j) : 0;                         \
  }
  if (nt_app.par_init) {
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= N; i++) {
      if (i == 1)
        INIT_ROW(0)
      INIT_ROW(i)
      if (i == N)
        INIT_ROW(N + 1)
    }
  } else {
    for (long i = 0; i < M; i++)
      INIT_ROW(i)
  }
  tinit = omp_get_wtime() - tinit;
  // The sweep is a static loop over rows 1..N: element e is in row e / M,
  // iteration row - 1.
  nt_app_array("u", u, len, sizeof *u, NT_OWN_LINEAR, M, 1, N, NULL);
  nt_app_array("unew", unew, len, sizeof *unew, NT_OWN_LINEAR, M, 1, N, NULL);
  nt_app_array("f", f, len, sizeof *f, NT_OWN_LINEAR, M, 1, N, NULL);

  double *res = NULL;
  int nres = 0, it;
  nt_app_start();
  double tdir = omp_get_wtime();
  if (nt_app.use_nt) {
#pragma omp nexttouch(u : len, unew : len, f : len)
  } else {
    nt_app_place(); // the oracle's move_pages
  }
  tdir = omp_get_wtime() - tdir;
  nt_app_phase(tinit, tdir);
  for (it = 1;; it++) {
    double tit = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= N; i++)
      for (long j = 1; j <= N; j++)
        unew[i * M + j] = 0.25 * (u[(i - 1) * M + j] + u[(i + 1) * M + j] +
                                  u[i * M + j - 1] + u[i * M + j + 1] +
                                  h2 * f[i * M + j]);
    double *t = u;
    u = unew;
    unew = t;
    int last = !nt_app_more(it, sweeps);
    if (it % CHECK_EVERY == 0 || last) {
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
      if (!(nres & (nres - 1)) &&
          !(res = realloc(res, 2 * (nres + 1) * sizeof *res)))
        return perror("realloc"), 2;
      res[nres++] = sqrt(r2);
    }
    tit = omp_get_wtime() - tit;
    nt_app_iter(it, tit, last);
    if (last)
      break;
  }
  nt_app_stop();
  sweeps = it;

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
      double e = fabs(u[i * M + j] - (a * PHI11(i, j) + b * PHIKL(i, j)));
      maxerr = e > maxerr ? e : maxerr;
    }
  if (!(maxerr < 1e-10))
    ok = 0;
  printf("jacobi: N=%ld sweeps=%d residual=%.6e max_error=%.2e "
         "(mode coefficients %.6f %.6f)\n",
         N, sweeps, res[nres - 1], maxerr, a, b);
  return nt_app_report(ok);
}
