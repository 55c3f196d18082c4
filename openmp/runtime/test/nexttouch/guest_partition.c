// Batches respect the requested items and the team's partition of each, in
// a NUMA guest (tools/numa-vm, 2 nodes, 2 CPUs, one thread per node with
// OMP_PROC_BIND=spread), with the default (adaptive) window.
//   K arrays lie back to back as malloc's heap lays them out: each starts 16
// bytes after the previous one ends, so neighbours share a page.  They are
// initialised serially on the last node and requested item by item, as the
// list items of one directive are, before the first region.  Region k then
// runs schedule(static) over array k only, and one of the two threads starts
// late (it sleeps before the loop): the other one streams its half alone, and
// then its last batch must not take the start of the late thread's half (the
// partition), nor run on past the end of the array into the next one, which
// a later region splits (the item).  Every page that lies wholly in one
// thread's half must end on that thread's node; the checksum is unchanged.
//   With batches that stopped only at the ends of the merged range (one
// segment for all arrays, since they share pages), 381 (thread 1 late) and
// 378 (thread 0 late) of the 1016 pages checked ended on the wrong node.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all | FileCheck %s
//
// CHECK: guest_partition: 2 nodes
// CHECK-COUNT-2: late thread {{[01]}}: {{.*}} PASS
// CHECK: guest_partition: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#define U64(x) ((unsigned long long)(x))

enum { K = 4, HALF = 128 }; // arrays, pages per thread and array

static int child(int late) {
  long pg = nt_pagesize();
  int nodes = numa_max_node() + 1, last = nodes - 1;
  // Bytes of one array: 2 * HALF pages and a bit; arrays 16 bytes apart.
  size_t bytes = 2 * HALF * pg + 48, stride = bytes + 16;
  size_t n = bytes / sizeof(double);
  size_t total = K * stride + 2 * pg;
  char *map = nt_map(total);
  double *a[K];
  for (int k = 0; k < K; k++)
    a[k] = (double *)(map + 16 + k * stride);
  long npages = (long)(total / pg);
  double sum0 = 0;
  for (int k = 0; k < K; k++)
    for (size_t i = 0; i < n; i++)
      sum0 += a[k][i] = (double)(k * 1000003 + i % 977);
  {
    void **pages = malloc(sizeof(void *) * npages);
    int *target = malloc(sizeof(int) * npages),
        *st = malloc(sizeof(int) * npages);
    for (long p = 0; p < npages; p++)
      pages[p] = map + p * pg, target[p] = last;
    NT_CHECK(syscall(SYS_move_pages, 0, npages, pages, target, st,
                     MPOL_MF_MOVE) == 0,
             "initial move_pages");
    free(pages), free(target), free(st);
  }
  for (int k = 0; k < K; k++)
    NT_CHECK(kmp_nexttouch(a[k], n * sizeof(double)) == 0, "request %d", k);
  kmp_nexttouch_counters_t c0 = nt_counters();

  int thread_node[2] = {-1, -1};
  for (int k = 0; k < K; k++) {
#pragma omp parallel num_threads(2)
    {
      int t = omp_get_thread_num();
      thread_node[t] = numa_node_of_cpu(sched_getcpu());
      if (t == late)
        usleep(200 * 1000);
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++)
        a[k][i] += 1;
    }
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(thread_node[0] == 0 && thread_node[1] == 1,
           "threads on nodes %d and %d", thread_node[0], thread_node[1]);

  int *now = malloc(sizeof(int) * npages);
  nt_nodes_of(map, npages, now);
  int wrong = 0;
  long checked = 0;
  for (int k = 0; k < K; k++) {
    // schedule(static) with 2 threads: [0, ceil(n/2)) and the rest.
    size_t mid = (n + 1) / 2;
    uintptr_t lo = (uintptr_t)a[k], md = (uintptr_t)&a[k][mid],
              hi = (uintptr_t)&a[k][n];
    for (long p = 0; p < npages; p++) {
      uintptr_t s = (uintptr_t)map + p * pg, e = s + pg;
      int want = -1;
      if (s >= lo && e <= md)
        want = thread_node[0];
      else if (s >= md && e <= hi)
        want = thread_node[1];
      if (want < 0)
        continue;
      checked++;
      if (now[p] != want && wrong++ < 8)
        NT_CHECK(0, "array %d, page %ld of its %s half: on node %d, want %d", k,
                 (long)((s - (lo & ~(uintptr_t)(pg - 1))) / pg),
                 e <= md ? "first" : "second", now[p], want);
    }
  }
  NT_CHECK(wrong == 0, "%d pages on the wrong node", wrong);
  NT_CHECK(checked >= K * (2 * HALF - 2), "only %ld pages checked", checked);
  // Every whole page of an array is armed; a page it shares with its
  // neighbour (16 bytes apart) is not.
  NT_CHECK(c1.pages_armed - c0.pages_armed >=
               (unsigned long long)K * (2 * HALF - 2),
           "armed: %llu pages", U64(c1.pages_armed - c0.pages_armed));
  NT_CHECK(c1.pages_disarmed == c0.pages_disarmed &&
               c1.pages_touched_serial == c0.pages_touched_serial,
           "disarmed %llu, touched by serial code %llu",
           U64(c1.pages_disarmed - c0.pages_disarmed),
           U64(c1.pages_touched_serial - c0.pages_touched_serial));
  double sum1 = 0;
  for (int k = 0; k < K; k++)
    for (size_t i = 0; i < n; i++)
      sum1 += a[k][i];
  NT_CHECK(sum1 - sum0 == (double)(K * n), "checksum: +%.0f, want +%zu",
           sum1 - sum0, K * n);
  printf("late thread %d: %ld pages checked, %d on the wrong node, %llu "
         "faults, %llu batches, %llu migrated: %s\n",
         late, checked, wrong, U64(c1.faults), U64(c1.batches),
         U64(c1.pages_migrated), nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "child"))
    return child(atoi(argv[2]));
  if (argc < 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all\n", argv[0]);
    return 2;
  }
  printf("guest_partition: %d nodes\n", numa_max_node() + 1);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == 2,
           "libnuma sees %d nodes", numa_max_node() + 1);
  for (int late = 0; late < 2; late++) {
    char arg[2] = {(char)('0' + late), 0};
    char *args[] = {argv[0], "child", arg, NULL};
    const char *env[][2] = {{"OMP_PROC_BIND", "spread"},
                            {"OMP_PLACES", "cores"},
                            {"OMP_NUM_THREADS", "2"},
                            {NULL, NULL}};
    int rc = nt_run_self(args, env);
    NT_CHECK(rc == 0, "child (late thread %d): exit status %d", late, rc);
  }
  return nt_done("guest_partition");
}
