// batchwin.c -- the batch-window effect of the adaptive next-touch window.
// The engine grows a thread's batch when the same thread faults on the page
// right after its previous batch (a stream); any other fault resets it. A loop
// that streams two armed arrays at once (c[i] = a[i]) alternates its faults
// between them, which can keep the window at one page.
//
//   single:      a armed,        sum += a[i]   (one armed stream)
//   interleaved: a and c armed,  c[i] = a[i]   (two armed streams in step)
//
// Each case uses fresh arrays, initialised by one thread, one
// '#pragma omp nexttouch', then one '#pragma omp parallel for
// schedule(static)'. Both print the usual report (prog=batchwin-single and
// prog=batchwin-interleaved), then one line
//
//   NT_BATCH single_fpp= interleaved_fpp= ratio= target=2 target_met=yes|no
//
// fpp = faults / pages handled. The target: interleaved within 2x of
// single. The exit status reflects verification only, not the target.
//
// usage: batchwin [--baseline] [n (doubles per array, default 2000000)]
#include "ntapp.h"

static double fpp(void) { // counters of the last nt_app_start..stop
  kmp_nexttouch_counters_t c = nt_app.c;
  uint64_t handled = c.pages_migrated + c.pages_already_local;
  return handled ? (double)c.faults / handled : 0;
}

int main(int argc, char **argv) {
  nt_app_init("batchwin-single", &argc, argv);
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  int rc = 0;

  // --- single ---
  double *a = malloc(n * sizeof *a);
  if (!a)
    return perror("malloc"), 2;
  for (long i = 0; i < n; i++)
    a[i] = (double)(i % 1000);
  nt_app_array("a", a, n, sizeof *a, NT_OWN_LINEAR, 1, 0, n, NULL);
  double sum = 0;
  nt_app_start();
  if (nt_app.use_nt) {
#pragma omp nexttouch(a : n)
  }
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (long i = 0; i < n; i++)
    sum += a[i];
  nt_app_stop();
  double f1 = fpp();
  double expect = 0;
  for (long i = 0; i < n; i++)
    expect += (double)(i % 1000);
  rc |= nt_app_report(sum == expect);
  free(a);

  // --- interleaved ---
  nt_app.prog = "batchwin-interleaved";
  nt_app.narr = 0;
  a = malloc(n * sizeof *a);
  double *c = malloc(n * sizeof *c);
  if (!a || !c)
    return perror("malloc"), 2;
  for (long i = 0; i < n; i++)
    a[i] = (double)(i % 1000), c[i] = -1.0;
  nt_app_array("a", a, n, sizeof *a, NT_OWN_LINEAR, 1, 0, n, NULL);
  nt_app_array("c", c, n, sizeof *c, NT_OWN_LINEAR, 1, 0, n, NULL);
  nt_app_start();
  if (nt_app.use_nt) {
#pragma omp nexttouch(a : n, c : n)
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    c[i] = a[i];
  nt_app_stop();
  double f2 = fpp();
  int ok = 1;
  for (long i = 0; i < n; i++)
    ok &= c[i] == (double)(i % 1000) && a[i] == c[i];
  rc |= nt_app_report(ok);
  free(a), free(c);

  double ratio = f1 > 0 ? f2 / f1 : 0;
  printf("NT_BATCH single_fpp=%.4f interleaved_fpp=%.4f ratio=%.2f target=2 "
         "target_met=%s\n",
         f1, f2, ratio, f1 > 0 && ratio <= 2.0 ? "yes" : "no");
  return rc;
}
