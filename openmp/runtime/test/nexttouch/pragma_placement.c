// End to end: '#pragma omp nexttouch' compiled by our clang drives our libomp.
// Three list-item forms in one directive: 'ptr : len', an array section and a
// whole array. Data is initialised serially and moved to the last node; after
// the directive, a parallel loop (schedule(static)) touches every page; the
// test records the node of the thread that touched each page and checks that
// the page is reported there (move_pages query), that the pragma armed exactly
// the pages of the three ranges, and that the data is intact.
//
// On the one-node host (forced arming) this checks the ranges the compiler
// computed; in the guest it checks placement on 2 and 4 nodes.
//
// REQUIRES: linux
// RUN: %libomp-compile -lnuma
// RUN: env KMP_NEXTTOUCH_FORCE=1 %libomp-run | FileCheck %s --check-prefixes=CHECK,HOST
// RUN: %if numa-vm %{ %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- env \
// RUN:   OMP_PROC_BIND=spread OMP_PLACES=cores KMP_NEXTTOUCH_WINDOW=1 %t \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N4 %}
// RUN: %if numa-vm %{ %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- env \
// RUN:   OMP_PROC_BIND=close OMP_PLACES=numa_domains KMP_NEXTTOUCH_WINDOW=1 %t \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N2 %}
//
// CHECK: pragma_placement: armed 784 pages
// HOST: placement: not checked (one node)
// N4: placement: checked on 4 nodes
// N2: placement: checked on 2 nodes
// CHECK: pragma_placement: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

enum { N = 384, G = 16 };
// A whole array: G pages, page-aligned.
static int garr[G * 1024] __attribute__((aligned(4096)));

int main(void) {
  long pg = nt_pagesize();
  if (pg != 4096) {
    printf("pragma_placement: needs 4 KiB pages\n");
    return 1;
  }
  long ipp = pg / sizeof(int), dpp = pg / sizeof(double);
  int nodes = numa_max_node() + 1;
  int *a = (int *)nt_map(N * pg);
  double *b = (double *)nt_map(N * pg);
  long long sum0 = 0;
  for (long i = 0; i < N * ipp; i++)
    sum0 += a[i] = (int)(i % 1000);
  for (long i = 0; i < N * dpp; i++)
    b[i] = (double)i;
  for (long i = 0; i < G * 1024; i++)
    garr[i] = 1;

  // Everything starts on the last node.
  char *base[3] = {(char *)a, (char *)b, (char *)garr};
  int npages[3] = {N, N, G};
  for (int r = 0; r < 3; r++) {
    void *pages[N];
    int target[N], st[N];
    for (int p = 0; p < npages[r]; p++)
      pages[p] = base[r] + p * pg, target[p] = nodes - 1;
    NT_CHECK(syscall(SYS_move_pages, 0, npages[r], pages, target, st,
                     MPOL_MF_MOVE) == 0,
             "initial move_pages");
  }

  kmp_nexttouch_counters_t c0 = nt_counters();
  long n = N * ipp;
#pragma omp nexttouch(a : n, b[0 : N * dpp], garr)
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(c1.requests - c0.requests >= 1, "the directive made no request");
  NT_CHECK(c1.bad_requests == c0.bad_requests, "bad request");

  // Which node touched each page first: the thread's CPU, through libnuma.
  static int truth[3][N];
  for (int r = 0; r < 3; r++)
    for (int p = 0; p < npages[r]; p++)
      truth[r][p] = -1;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int p = 0; p < N; p++) {
      a[p * ipp] += 1;
      truth[0][p] = numa_node_of_cpu(sched_getcpu());
    }
#pragma omp for schedule(static)
    for (int p = 0; p < N; p++) {
      b[p * dpp] += 1;
      truth[1][p] = numa_node_of_cpu(sched_getcpu());
    }
#pragma omp for schedule(static)
    for (int p = 0; p < G; p++) {
      garr[p * 1024] += 1;
      truth[2][p] = numa_node_of_cpu(sched_getcpu());
    }
  }
  kmp_nexttouch_counters_t c2 = nt_counters();
  unsigned long long armed = c2.pages_armed - c0.pages_armed;
  printf("pragma_placement: armed %llu pages\n", armed);
  NT_CHECK(armed == 2 * N + G, "armed %llu, want %d", armed, 2 * N + G);
  NT_CHECK(c2.pages_migrated + c2.pages_already_local -
                   (c0.pages_migrated + c0.pages_already_local) ==
               2 * N + G,
           "pages handled");

  // On one node every page is on node 0 whoever touches it: nothing to see.
  if (nodes > 1)
    printf("placement: checked on %d nodes\n", nodes);
  else
    printf("placement: not checked (one node)\n");
  int wrong = 0;
  for (int r = 0; r < 3 && nodes > 1; r++) {
    int now[N];
    nt_nodes_of(base[r], npages[r], now);
    for (int p = 0; p < npages[r]; p++)
      if (now[p] != truth[r][p] && wrong++ < 5)
        NT_CHECK(0, "range %d page %d: on node %d, first touched on node %d", r,
                 p, now[p], truth[r][p]);
  }

  long long sum1 = 0;
  for (long i = 0; i < N * ipp; i++)
    sum1 += a[i];
  NT_CHECK(sum1 == sum0 + N, "checksum of a");
  for (long i = 0; i < N * dpp; i++)
    if (b[i] != (double)i + (i % dpp == 0)) {
      NT_CHECK(0, "b[%ld] = %f", i, b[i]);
      break;
    }
  for (long i = 0; i < G * 1024; i++)
    if (garr[i] != 1 + (i % 1024 == 0)) {
      NT_CHECK(0, "garr[%ld] = %d", i, garr[i]);
      break;
    }
  printf("pragma_placement: %d nodes, %d threads\n", nodes,
         omp_get_max_threads());
  return nt_done("pragma_placement");
}
