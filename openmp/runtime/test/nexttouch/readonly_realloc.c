// realloc() of cached readonly items that glibc serves with their own
// mapping (above the mmap threshold).  glibc resizes such a chunk with its
// internal mremap, not through the C library's mremap that libomp wraps:
// growing fails there with EFAULT while the item's protection splits the
// mapping in several (glibc then copies into a new chunk and unmaps the old
// one), shrinking works in place; free + malloc maps again.  Such an item
// fills a block of its own: its first page, with glibc's header, is
// write-protected too, and shrinking writes the header after unmapping the
// block's end (below one chunk of 32 pages: a hole in the chunk that the
// write opens).  After each step the program writes the whole buffer, and
// the next regions read the current content on every thread: no SIGSEGV, no
// stale replica.
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
//
// CHECK: readonly_realloc: PASS
#include "nexttouch_test.h"

static double sum(const double *p, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += p[i];
  return s;
}

// Every thread's sum of [p, p+n) in a region that lists it; -1 if the
// threads disagree.
static double region_sum(const double *p, long n) {
  double sums[64];
  int nth = 1;
#pragma omp parallel readonly(p : n)
  {
    sums[omp_get_thread_num()] = sum(p, n);
#pragma omp single
    nth = omp_get_num_threads();
  }
  for (int t = 1; t < nth; t++)
    if (sums[t] != sums[0])
      return -1;
  return sums[0];
}

static void fill(double *p, long n, double v) {
  for (long i = 0; i < n; i++)
    p[i] = v;
}

int main(void) {
  long n = 1 << 17; // 1 MiB: glibc maps it on its own
  double *p = malloc(n * sizeof *p);
  NT_CHECK(p != NULL, "malloc");
  fill(p, n, 1);
  for (int r = 0; r < 3; r++) // cached, with replicas when forced
    NT_CHECK(region_sum(p, n) == n, "first regions");

  for (int step = 0; step < 4; step++) {
    long m = step % 2 ? n / 2 : 4 * n; // grow (moves), then shrink, ...
    double *q = realloc(p, m * sizeof *q);
    NT_CHECK(q != NULL, "realloc to %ld", m);
    if (!q)
      break;
    // The kept prefix is the old content.
    long kept = m < n ? m : n;
    NT_CHECK(sum(q, kept) == kept, "step %d: kept prefix", step);
    fill(q, m, step + 2);
    NT_CHECK(region_sum(q, m) == (step + 2.0) * m, "step %d: region", step);
    NT_CHECK(region_sum(q, m) == (step + 2.0) * m, "step %d: cached", step);
    // Back to n elements of 1 for the next step.
    p = realloc(q, n * sizeof *p);
    NT_CHECK(p != NULL, "realloc back");
    if (!p)
      break;
    fill(p, n, 1);
    NT_CHECK(region_sum(p, n) == n, "step %d: back", step);
  }

  // Shrunk in place to 3 pages, less than a chunk.
  long small = 2 * 4096 / sizeof(double);
  double *q = realloc(p, small * sizeof *q);
  NT_CHECK(q != NULL, "realloc to %ld", small);
  if (q) {
    NT_CHECK(sum(q, small) == small, "shrunk: kept prefix");
    fill(q, small, 5);
    NT_CHECK(region_sum(q, small) == 5.0 * small, "shrunk: region");
    p = realloc(q, n * sizeof *p);
    NT_CHECK(p != NULL, "realloc back");
  }

  // free, then malloc of the same size (often the same address): the new
  // buffer's content is read, not the freed item's replica.
  free(p);
  double *f = malloc(n * sizeof *f);
  NT_CHECK(f != NULL, "malloc again");
  fill(f, n, 7);
  NT_CHECK(region_sum(f, n) == 7.0 * n, "free + malloc");
  free(f);
  return nt_done("readonly_realloc");
}
