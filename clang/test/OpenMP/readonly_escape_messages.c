// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=ext -fopenmp -ferror-limit 100 %s
// -fopenmp-simd reads the originals: no replica, nothing to warn about.
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=quiet -fopenmp-simd -ferror-limit 100 %s
// -Wno-openmp-extensions silences the warning.
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=quiet -fopenmp -Wno-openmp-extensions -ferror-limit 100 %s
// quiet-no-diagnostics

// An address derived from a redirected list item of 'readonly' may point
// into the thread's node's replica; stored where it outlives the region, it
// draws a warning.

struct Holder {
  double *p;
  double *v[2];
};
double *gbest;

void escapes(double *a, double *b, int n, struct Holder *hp) {
  double *best = 0, *keep = 0, *last = 0;
  struct Holder h;
  double arr[8];
#pragma omp parallel readonly(a : n, arr)
  {
    best = &a[2];   // ext-warning {{address derived from 'a', a list item of the 'readonly' clause, is stored in 'best', which outlives the region; in the region it may point into a node-local replica, which is not valid after the region}}
    keep = a + 3;   // ext-warning {{address derived from 'a'}}
    h.p = a;        // ext-warning {{is stored in 'h'}}
    h.v[1] = &arr[1]; // ext-warning {{address derived from 'arr'}}
    gbest = 1 + a;  // ext-warning {{is stored in 'gbest'}}
  }
#pragma omp parallel for readonly(a : n) lastprivate(last)
  for (int i = 0; i < n; ++i)
    last = &a[i];   // ext-warning {{is stored in 'last'}}
}

// Where the address does not outlive the region, or does not come from a
// redirected variable: no warning.
void stays(double *a, double *b, int n, struct Holder *hp) {
  double *best = 0;
  double x = 0;
#pragma omp parallel readonly(a : n) private(best)
  best = &a[2];
#pragma omp parallel readonly(a : n) firstprivate(best)
  best = a + 1;
#pragma omp parallel readonly(a : n)
  {
    double *mine = &a[1];
    mine = a + 2;
    best = b;        // not a list item
    hp->p = &a[1];   // through a pointer: not seen
    x = a[3];        // a value, not an address
    a = a + 1;       // the redirected variable itself
  }
  (void)x;
}
