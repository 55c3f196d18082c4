// readonly(list) written as the clause, compiled by our Clang, on the host
// (one node; KMP_READONLY_FORCE=1 gives every node, the home node included,
// a replica, so that the redirection is visible).  Checked:
//   forms    a global array, a local array, a pointer 'p : n', a section of
//            a pointer 'q[2 : m]': inside the region each base variable
//            designates this thread's replica (another address, the same
//            offset in the page), a called function gets the replica's
//            address, every thread reads the original's data; after the
//            region the variables are the originals again
//   loop     100 regions of a 'parallel for' replicate once (counters)
//   refresh  a serial write between regions: the next region reads it
//   nested   an inner parallel region with its own list in an outer one
//   sections 'parallel sections' and 'parallel master taskloop'
//   tasks    tasks that share the pointer variable run after their creator
//            left the outlined function (at the final barrier); a global
//            read in a task of the region or in 'parallel master taskloop'
//            designates the replica too
//   unforced without KMP_READONLY_FORCE the one node reads the original
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run forced | FileCheck %s --check-prefix=FORCED
// RUN: env OMP_NUM_THREADS=4 %libomp-run unforced | FileCheck %s --check-prefix=UNFORCED
// REQUIRES: linux
//
// FORCED: readonly_clause forced: PASS
// UNFORCED: readonly_clause unforced: PASS
#include "nexttouch_test.h"

enum { NG = 4096, NL = 512, NP = 50000, NQ = 30000 };
static double G[NG];

static double sum(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i];
  return s;
}

static int same_page_offset(const void *a, const void *b) {
  return ((uintptr_t)a - (uintptr_t)b) % (uintptr_t)nt_pagesize() == 0;
}

int main(int argc, char **argv) {
  int forced = argc > 1 && !strcmp(argv[1], "forced");
  double L[NL];
  double *p = malloc(NP * sizeof *p), *q = malloc(NQ * sizeof *q);
  double *const p0 = p, *const q0 = q, *const G0 = G;
  for (long i = 0; i < NG; i++)
    G[i] = i % 7;
  for (long i = 0; i < NL; i++)
    L[i] = i % 5;
  for (long i = 0; i < NP; i++)
    p[i] = i % 11;
  for (long i = 0; i < NQ; i++)
    q[i] = i % 3;
  const long m = NQ - 2;
  const double wantG = sum(G, NG), wantL = sum(L, NL), wantP = sum(p, NP),
               wantQ = sum(q + 2, m);

  // forms
  int moved = 0, kept = 0, offsets = 0, wrong = 0, threads = 0;
#pragma omp parallel readonly(G, L, p : NP, q[2 : m])                          \
    reduction(+ : moved, kept, offsets, wrong, threads)
  {
    threads++;
    const void *mine[4] = {G, L, p, &q[2]};
    const void *orig[4] = {G0, NULL, p0, q0 + 2};
    for (int i = 0; i < 4; i++) {
      if (!orig[i])
        continue; // L: its original address is not known here
      moved += mine[i] != orig[i];
      kept += mine[i] == orig[i];
      offsets += !same_page_offset(mine[i], orig[i]);
    }
    wrong += sum(G, NG) != wantG; // G passed to a function: the replica
    wrong += sum(L, NL) != wantL;
    wrong += sum(p, NP) != wantP;
    wrong += sum(&q[2], m) != wantQ;
  }
  NT_CHECK(threads == 4, "%d threads", threads);
  NT_CHECK(wrong == 0, "%d sums differ", wrong);
  NT_CHECK(offsets == 0, "%d items moved within their page", offsets);
  if (forced)
    NT_CHECK(moved == 3 * threads, "%d of %d items read from a replica", moved,
             3 * threads);
  else
    NT_CHECK(kept == 3 * threads, "%d of %d items read from the original", kept,
             3 * threads);
  NT_CHECK(p == p0 && q == q0, "the pointers changed after the region");

  // loop: 100 regions, one copy per item
  kmp_nexttouch_counters_t c0 = nt_counters();
  double total = 0;
  for (int r = 0; r < 100; r++) {
    double s = 0;
#pragma omp parallel for readonly(p : NP, G) reduction(+ : s)
    for (long i = 0; i < NP; i++)
      s += p[i] + G[i % NG];
    total += s;
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  double want_loop = 0;
  for (long i = 0; i < NP; i++)
    want_loop += p[i] + G[i % NG];
  NT_CHECK(total == 100 * want_loop, "loop sums %.17g, want %.17g", total,
           100 * want_loop);
  NT_CHECK(c1.readonly_regions - c0.readonly_regions == 100, "%llu regions",
           (unsigned long long)(c1.readonly_regions - c0.readonly_regions));
  if (forced)
    // Made by the first region above (the same items), reused since.
    NT_CHECK(c1.readonly_replicas == c0.readonly_replicas &&
                 c1.readonly_replicas_reused - c0.readonly_replicas_reused >=
                     200,
             "%llu replicas made, %llu reused in 100 regions",
             (unsigned long long)(c1.readonly_replicas - c0.readonly_replicas),
             (unsigned long long)(c1.readonly_replicas_reused -
                                  c0.readonly_replicas_reused));
  else
    NT_CHECK(c1.readonly_replicas == 0, "%llu replicas on one node",
             (unsigned long long)c1.readonly_replicas);

  // refresh: a serial write between regions
  p[NP / 2] += 1000;
  G[7] += 1000;
  double s2 = 0;
#pragma omp parallel for readonly(p : NP, G) reduction(+ : s2)
  for (long i = 0; i < NP; i++)
    s2 += p[i] + G[i % NG];
  double want2 = 0;
  for (long i = 0; i < NP; i++)
    want2 += p[i] + G[i % NG];
  NT_CHECK(s2 == want2, "after a serial write: %.17g, want %.17g", s2, want2);
  kmp_nexttouch_counters_t c2 = nt_counters();
  if (forced)
    NT_CHECK(c2.readonly_refreshes > c1.readonly_refreshes,
             "no refresh after a serial write");

  // nested
  omp_set_max_active_levels(2);
  int nwrong = 0;
#pragma omp parallel num_threads(2) readonly(G) reduction(+ : nwrong)
  {
    double g = sum(G, NG);
#pragma omp parallel num_threads(2) readonly(p : NP) reduction(+ : nwrong)
    nwrong += sum(p, NP) != sum(p0, NP) || sum(G, NG) != g;
  }
  NT_CHECK(nwrong == 0, "nested: %d wrong sums", nwrong);

  // sections, master taskloop ('parallel masked taskloop' runs no iteration
  // in Clang 19.1.7, with or without readonly: not used here)
  double a = 0, b = 0, t = 0;
  double *out = malloc(NP * sizeof *out);
#pragma omp parallel sections readonly(L, q[2 : m])
  {
    a = sum(L, NL);
#pragma omp section
    b = sum(&q[2], m);
  }
#pragma omp parallel master taskloop readonly(p : NP) grainsize(1000)
  for (long i = 0; i < NP; i++)
    out[i] = p[i];
  t = sum(out, NP);
  NT_CHECK(a == wantL && b == wantQ, "sections: %g %g", a, b);
  NT_CHECK(t == sum(p0, NP), "taskloop: %g, want %g", t, sum(p0, NP));

  // tasks: created by one thread, run by the others at the region's final
  // barrier, after the creator's outlined function returned; they share the
  // pointer variable of 'p : n' (its thread-local copy).
  enum { NT = 16 };
  double part[NT];
#pragma omp parallel num_threads(4) readonly(p : NP) shared(part)
#pragma omp masked
  for (int k = 0; k < NT; k++) {
#pragma omp task firstprivate(k)
    part[k] = sum(p + (long)k * (NP / NT), NP / NT);
  }
  int bad_parts = 0;
  for (int k = 0; k < NT; k++)
    bad_parts += part[k] != sum(p0 + (long)k * (NP / NT), NP / NT);
  NT_CHECK(bad_parts == 0, "tasks: %d parts differ", bad_parts);

  // A task captures the region's redirected global.
  const double nowG = sum(G, NG);
  int gmoved = -1, gwrong = -1, tlmoved = -1;
#pragma omp parallel num_threads(4) readonly(G) shared(gmoved, gwrong)
#pragma omp masked
#pragma omp task
  {
    gmoved = G != G0;
    gwrong = sum(G, NG) != nowG;
  }
#pragma omp parallel master taskloop readonly(G) grainsize(512) shared(tlmoved)
  for (long i = 0; i < NG; i++) {
    out[i] = G[i];
    if (i == 0)
      tlmoved = G != G0;
  }
  NT_CHECK(gwrong == 0 && sum(out, NG) == nowG, "global in tasks: %d, %g",
           gwrong, sum(out, NG));
  NT_CHECK(gmoved == forced && tlmoved == forced,
           "global in tasks: task %d, taskloop %d read from a replica", gmoved,
           tlmoved);

  return nt_done(forced ? "readonly_clause forced"
                        : "readonly_clause unforced");
}
