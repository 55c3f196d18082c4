// Batches and the chunks of schedule(static, k), in a NUMA guest
// (tools/numa-vm, 2 nodes, 2 CPUs, one thread per node with
// OMP_PROC_BIND=spread), with the default (adaptive) window.
//   An array initialised serially on the last node is requested, and one
// region runs schedule(static, k) over it with k = 2, 3 and 100 pages' worth
// of elements (100 is not a power of two: a batch cut at a multiple of its
// own size does not stop at its chunks' ends).  One thread starts late (it
// sleeps before the loop), so the other one streams its chunks alone and
// could take the chunks in between, which are the late thread's: a window
// that grows on its first chunk (k = 2: pages 0, 1, then a batch of 4 to
// page 4, which the same thread touches next) would go on over the whole
// array.  At least 95 % of the pages must end on the node of the thread
// whose chunk holds them (the first chunk of each thread has no prediction
// yet: its last batch may still run into the next chunk); the checksum is
// unchanged.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all | FileCheck %s
//
// CHECK: guest_chunks: 2 nodes
// CHECK-COUNT-6: chunks of {{[0-9]+}} pages, late thread {{[01]}}: {{.*}} PASS
// CHECK: guest_chunks: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#define U64(x) ((unsigned long long)(x))

enum { NPAGES = 2400 };

static int child(int k, int late) {
  long pg = nt_pagesize();
  long per_page = pg / (long)sizeof(double);
  int last = numa_max_node();
  double *a = (double *)nt_map(NPAGES * pg);
  long n = NPAGES * per_page;
  double sum0 = 0;
  for (long i = 0; i < n; i++)
    sum0 += a[i] = (double)(i % 1013);
  {
    void **pages = malloc(sizeof(void *) * NPAGES);
    int *target = malloc(sizeof(int) * NPAGES),
        *st = malloc(sizeof(int) * NPAGES);
    for (long p = 0; p < NPAGES; p++)
      pages[p] = (char *)a + p * pg, target[p] = last;
    NT_CHECK(syscall(SYS_move_pages, 0, NPAGES, pages, target, st,
                     MPOL_MF_MOVE) == 0,
             "initial move_pages");
    free(pages), free(target), free(st);
  }
  NT_CHECK(kmp_nexttouch(a, n * sizeof(double)) == 0, "request");
  kmp_nexttouch_counters_t c0 = nt_counters();
  int thread_node[2] = {-1, -1};
  long chunk = k * per_page;
#pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    thread_node[t] = numa_node_of_cpu(sched_getcpu());
    if (t == late)
      usleep(200 * 1000);
#pragma omp for schedule(static, chunk)
    for (long i = 0; i < n; i++)
      a[i] += 1;
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(thread_node[0] == 0 && thread_node[1] == 1,
           "threads on nodes %d and %d", thread_node[0], thread_node[1]);
  int *now = malloc(sizeof(int) * NPAGES);
  nt_nodes_of((char *)a, NPAGES, now);
  long local = 0, wrong[2] = {0, 0};
  for (long p = 0; p < NPAGES; p++) {
    int owner = (int)((p / k) % 2); // chunk p / k is thread (p / k) % 2's
    if (now[p] == thread_node[owner])
      local++;
    else
      wrong[owner]++;
  }
  double share = 100.0 * local / NPAGES;
  NT_CHECK(share >= 95.0, "%.2f %% of the pages on their owner's node", share);
  double sum1 = 0;
  for (long i = 0; i < n; i++)
    sum1 += a[i];
  NT_CHECK(sum1 - sum0 == (double)n, "checksum: +%.0f, want +%ld", sum1 - sum0,
           n);
  NT_CHECK(c1.pages_armed - c0.pages_armed == NPAGES &&
               c1.pages_touched_serial == c0.pages_touched_serial,
           "armed %llu, touched by serial code %llu",
           U64(c1.pages_armed - c0.pages_armed),
           U64(c1.pages_touched_serial - c0.pages_touched_serial));
  printf("chunks of %d pages, late thread %d: %.2f %% on the owner's node "
         "(wrong: %ld of thread 0's, %ld of thread 1's), %llu faults: %s\n",
         k, late, share, wrong[0], wrong[1], U64(c1.faults - c0.faults),
         nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "child"))
    return child(atoi(argv[2]), atoi(argv[3]));
  if (argc < 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all\n", argv[0]);
    return 2;
  }
  printf("guest_chunks: %d nodes\n", numa_max_node() + 1);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == 2,
           "libnuma sees %d nodes", numa_max_node() + 1);
  static const int ks[] = {2, 3, 100};
  for (int i = 0; i < 3; i++)
    for (int late = 0; late < 2; late++) {
      char karg[8], larg[2] = {(char)('0' + late), 0};
      snprintf(karg, sizeof karg, "%d", ks[i]);
      char *args[] = {argv[0], "child", karg, larg, NULL};
      const char *env[][2] = {{"OMP_PROC_BIND", "spread"},
                              {"OMP_PLACES", "cores"},
                              {"OMP_NUM_THREADS", "2"},
                              {NULL, NULL}};
      int rc = nt_run_self(args, env);
      NT_CHECK(rc == 0, "child (k %d, late thread %d): exit status %d", ks[i],
               late, rc);
    }
  return nt_done("guest_chunks");
}
