// A program built by gcc -fopenmp (not our clang), linked against this
// libomp (its libgomp.so alias answers gcc's -lgomp, our omp.h ahead of
// gcc's), uses kmp_nexttouch: a Jacobi solver whose grids are initialised
// serially, in a NUMA guest (tools/numa-vm, 2 nodes, 2 CPUs, one thread per
// node with OMP_PROC_BIND=spread).  All pages start on the last node; after
// kmp_nexttouch on the three grids each row (one page) moves to the node of
// the thread that owns it in the sweeps (schedule(static)), and the answer
// after the sweeps is the serial one, bit for bit.
//
// On the host: the program runs on this libomp without LD_LIBRARY_PATH (its
// RPATH), without libgomp, and OMP_DISPLAY_ENV shows the next-touch settings
// only this libomp has.
//
// REQUIRES: gcc, numa-vm, linux
// RUN: %gcc-compile -lnuma
// RUN: env -u LD_LIBRARY_PATH ldd %t | FileCheck %s --check-prefix=LDD \
// RUN:   -DLIBDIR=%omp-library-dir --implicit-check-not=libgomp
// RUN: env -u LD_LIBRARY_PATH OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 \
// RUN:   %t env 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- \
// RUN:   env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread %t guest | FileCheck %s
//
// LDD: libomp.so => [[LIBDIR]]/libomp.so
//
// ENV: OPENMP DISPLAY ENVIRONMENT BEGIN
// ENV: [host] KMP_NEXTTOUCH='TRUE'
// ENV: guest_gcc_jacobi: env: built by gcc
//
// CHECK: guest_gcc_jacobi: 2 nodes, built by gcc
// CHECK: guest_gcc_jacobi: every row on its thread's node
// CHECK: guest_gcc_jacobi: answer equals the serial one
// CHECK: guest_gcc_jacobi: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#if defined(__clang__) || !defined(__GNUC__)
#error "this test is compiled by gcc"
#endif

enum { N = 128, M = 512, SWEEPS = 10 }; // interior rows, columns (one page)

// One Jacobi update of row i: the same code for the parallel and the serial
// sweeps, so the answers are equal bit for bit.
static void sweep_row(const double *u, double *un, const double *f, int i) {
  for (int j = 1; j < M - 1; j++)
    un[i * M + j] = 0.25 * (u[(i - 1) * M + j] + u[(i + 1) * M + j] +
                            u[i * M + j - 1] + u[i * M + j + 1] - f[i * M + j]);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "guest";
  if (strcmp(mode, "env") == 0) {
    int n = 0;
#pragma omp parallel
#pragma omp atomic
    n++;
    printf("guest_gcc_jacobi: env: built by gcc %d.%d, %d threads\n", __GNUC__,
           __GNUC_MINOR__, n);
    return 0;
  }
  long pg = nt_pagesize();
  NT_CHECK(M * (long)sizeof(double) == pg, "one row per page (page %ld)", pg);
  int nodes = numa_max_node() + 1, last = nodes - 1;
  printf("guest_gcc_jacobi: %d nodes, built by gcc\n", nodes);
  if (nodes < 2) {
    printf("FAIL: needs 2 nodes\n");
    return 1;
  }
  size_t bytes = (size_t)(N + 2) * M * sizeof(double);
  double *g[3], *ref[3];
  for (int k = 0; k < 3; k++) {
    g[k] = (double *)nt_map(bytes);
    ref[k] = (double *)nt_map(bytes);
  }
  double *u = g[0], *un = g[1], *f = g[2];
  // Serial initialisation, then every page to the last node.
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < M; j++) {
      double b = (i == 0 || i == N + 1 || j == 0 || j == M - 1) ? 1.0 : 0.0;
      u[i * M + j] = un[i * M + j] = b;
      f[i * M + j] = 1e-3 * ((i * 7 + j * 13) % 17);
    }
  for (int k = 0; k < 3; k++) {
    memcpy(ref[k], g[k], bytes);
    int n = N + 2, target[N + 2], st[N + 2];
    void *pages[N + 2];
    for (int p = 0; p < n; p++) {
      pages[p] = (char *)g[k] + p * pg;
      target[p] = last;
    }
    NT_CHECK(move_pages(0, n, pages, target, st, MPOL_MF_MOVE) == 0,
             "initial move_pages");
  }
  for (int k = 0; k < 3; k++)
    NT_CHECK(kmp_nexttouch(g[k], bytes) == 0, "kmp_nexttouch");

  // The rows of each thread (schedule(static)) and the node it runs on.
  int owner_node[N + 2];
  for (int i = 0; i < N + 2; i++)
    owner_node[i] = -1;
#pragma omp parallel
  {
    int node = numa_node_of_cpu(sched_getcpu());
    // The first touch of every interior row, by its owner: unew = u.
#pragma omp for schedule(static)
    for (int i = 1; i <= N; i++) {
      owner_node[i] = node;
      memcpy(un + i * M, u + i * M, M * sizeof(double));
      f[i * M] += 0.0; // f's rows are read in the sweeps: touch them here
    }
    for (int s = 0; s < SWEEPS; s++) {
      double *from = s % 2 ? un : u, *to = s % 2 ? u : un;
#pragma omp for schedule(static)
      for (int i = 1; i <= N; i++)
        sweep_row(from, to, f, i);
    }
  }
  for (int s = 0; s < SWEEPS; s++) {
    double *from = s % 2 ? ref[1] : ref[0], *to = s % 2 ? ref[0] : ref[1];
    for (int i = 1; i <= N; i++)
      sweep_row(from, to, ref[2], i);
  }

  int wrong = 0, moved_to[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    int where[N + 2];
    nt_nodes_of((char *)g[k], N + 2, where);
    for (int i = 1; i <= N; i++) {
      if (where[i] != owner_node[i]) {
        if (wrong++ < 5)
          printf("FAIL: grid %d row %d on node %d, its thread on %d\n", k, i,
                 where[i], owner_node[i]);
      } else if (where[i] >= 0 && where[i] < 2) {
        moved_to[where[i]]++;
      }
    }
  }
  NT_CHECK(wrong == 0, "%d rows not on their thread's node", wrong);
  NT_CHECK(moved_to[0] > 0 && moved_to[1] > 0, "rows on both nodes");
  if (wrong == 0)
    printf("guest_gcc_jacobi: every row on its thread's node\n");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_migrated + c.pages_already_local >= 3 * N &&
               c.pages_migrated >= 3 * N / 2,
           "pages migrated %llu, already local %llu",
           (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local);
  int same = memcmp(u, ref[0], bytes) == 0 && memcmp(un, ref[1], bytes) == 0;
  NT_CHECK(same, "the answer differs from the serial one");
  if (same)
    printf("guest_gcc_jacobi: answer equals the serial one\n");
  if (nt_failures == 0)
    printf("guest_gcc_jacobi: PASS\n");
  return nt_failures != 0;
}
