// stream.c -- a bandwidth kernel set after McCalpin's STREAM: Copy, Scale,
// Add and Triad over three double arrays, each kernel its own
// '#pragma omp parallel for schedule(static)', repeated NTIMES times, and
// STREAM's own check (the expected values follow from the same recurrence on
// scalars). Unlike STREAM, the arrays are initialised by one thread, as a
// program that reads its input serially would, so without next-touch every
// page sits on one node; '#pragma omp nexttouch(a : n, b : n, c : n)' right
// before the kernels asks for each page to move to the node of the thread
// that touches it next.
//
// usage: stream [--baseline] [n (elements per array, default 2000000)]
//        [ntimes (default 10)]
#include "ntapp.h"

int main(int argc, char **argv) {
  nt_app_init("stream", &argc, argv);
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  int ntimes = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
         *c = malloc(n * sizeof *c);
  if (!a || !b || !c)
    return perror("malloc"), 2;

  // Serial initialisation: every page on the node of thread 0.
  for (long j = 0; j < n; j++) {
    a[j] = 1.0;
    b[j] = 2.0;
    c[j] = 0.0;
  }
  // Every kernel is a static loop over 0..n-1: element j, iteration j.
  nt_app_array("a", a, n, sizeof *a, NT_OWN_LINEAR, 1, 0, n, NULL);
  nt_app_array("b", b, n, sizeof *b, NT_OWN_LINEAR, 1, 0, n, NULL);
  nt_app_array("c", c, n, sizeof *c, NT_OWN_LINEAR, 1, 0, n, NULL);

  const double scalar = 3.0;
  double t[4] = {0, 0, 0, 0};
  nt_app_start();
  if (nt_app.use_nt) {
#pragma omp nexttouch(a : n, b : n, c : n)
  }
  for (int k = 0; k < ntimes; k++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) // Copy
      c[j] = a[j];
    double t1 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) // Scale
      b[j] = scalar * c[j];
    double t2 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) // Add
      c[j] = a[j] + b[j];
    double t3 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) // Triad
      a[j] = b[j] + scalar * c[j];
    double t4 = omp_get_wtime();
    t[0] += t1 - t0, t[1] += t2 - t1, t[2] += t3 - t2, t[3] += t4 - t3;
  }
  nt_app_stop();

  // STREAM's check: run the recurrence on scalars, compare the mean error.
  double aj = 1.0, bj = 2.0, cj = 0.0;
  for (int k = 0; k < ntimes; k++) {
    cj = aj;
    bj = scalar * cj;
    cj = aj + bj;
    aj = bj + scalar * cj;
  }
  double ea = 0, eb = 0, ec = 0;
  for (long j = 0; j < n; j++) {
    ea += fabs(a[j] - aj);
    eb += fabs(b[j] - bj);
    ec += fabs(c[j] - cj);
  }
  ea /= n, eb /= n, ec /= n;
  const double eps = 1e-13;
  int ok = ea / fabs(aj) <= eps && eb / fabs(bj) <= eps && ec / fabs(cj) <= eps;
  printf("stream: n=%ld ntimes=%d copy_ms=%.1f scale_ms=%.1f add_ms=%.1f "
         "triad_ms=%.1f rel_err=%.2e,%.2e,%.2e\n",
         n, ntimes, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3,
         ea / fabs(aj), eb / fabs(bj), ec / fabs(cj));
  return nt_app_report(ok);
}
