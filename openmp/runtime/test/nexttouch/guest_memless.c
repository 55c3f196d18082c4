// A NUMA node without memory, in a guest (tools/numa-vm, 3 nodes, the last
// with a CPU but no memory: --memless 1).  The kernel lists node 2 online
// but not in has_memory; libomp's hwloc topology lists it with no memory.
// From both sources the engine counts 2 nodes, and a thread on node 2 has no
// node to move pages to: its touches leave them where they are.
//   Three threads (OMP_PROC_BIND=spread, one per node) each touch their
// third of an array initialised serially on node 0 and requested whole:
// thread 0's third stays on node 0 (already local), thread 1's moves to node
// 1, thread 2's stays on node 0 and is counted as not moved
// (fail_move_other); the checksum is unchanged.  One guest boot runs both
// sources, each in a fresh process.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 3 --cpus 3 --memless 1 --numa-balancing 0 -- %t all \
// RUN:   | FileCheck %s
//
// CHECK: guest_memless: has_memory 0-1, online 0-2
// CHECK: topology=sysfs: nodes=2 {{.*}}: PASS
// CHECK: topology=hwloc: nodes=2 {{.*}}: PASS
// CHECK: guest_memless: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

enum { PER = 64, T = 3 }; // pages per thread, threads

static void read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  buf[0] = 0;
  if (f) {
    if (!fgets(buf, (int)len, f))
      buf[0] = 0;
    fclose(f);
  }
  buf[strcspn(buf, "\n")] = 0;
}

static int child(const char *topology) {
  long pg = nt_pagesize();
  size_t npages = (size_t)T * PER;
  char *a = nt_map(npages * pg);
  unsigned long m0 = 1;
  // Serially initialised on node 0.
  NT_CHECK(syscall(SYS_mbind, a, npages * pg, MPOL_BIND, &m0, 64, 0) == 0,
           "mbind: %s", strerror(errno));
  long sum = 0;
  for (size_t i = 0; i < npages * pg; i++)
    a[i] = (char)(i % 97), sum += a[i];
  NT_CHECK(syscall(SYS_mbind, a, npages * pg, MPOL_DEFAULT, NULL, 0, 0) == 0,
           "mbind default: %s", strerror(errno));
  NT_CHECK(kmp_nexttouch(a, npages * pg) == 0, "kmp_nexttouch");
  int node_of[T];
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    node_of[t] = numa_node_of_cpu(sched_getcpu());
#pragma omp for schedule(static)
    for (int p = 0; p < T * PER; p++)
      a[(size_t)p * pg] += 1;
  }
  kmp_nexttouch_counters_t c = nt_counters();
  int *nodes = (int *)malloc(sizeof(int) * npages);
  nt_nodes_of(a, npages, nodes);
  for (int t = 0; t < T; t++) {
    int want = t == 1 ? 1 : 0, bad = 0;
    for (int i = 0; i < PER; i++)
      bad += nodes[t * PER + i] != want;
    NT_CHECK(node_of[t] == t, "%s: thread %d runs on node %d", topology, t,
             node_of[t]);
    NT_CHECK(!bad, "%s: thread %d: %d of %d pages not on node %d", topology, t,
             bad, PER, want);
  }
  long after = 0;
  for (size_t i = 0; i < npages * pg; i++)
    after += a[i];
  NT_CHECK(after == sum + (long)npages, "%s: checksum %ld, expected %ld",
           topology, after, sum + (long)npages);
  NT_CHECK(c.num_nodes == 2, "%s: nodes=%d", topology, c.num_nodes);
  NT_CHECK(c.pages_migrated == PER && c.pages_already_local == PER &&
               c.fail_move_other == PER,
           "%s: migrated %llu local %llu fail_move_other %llu", topology,
           (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local,
           (unsigned long long)c.fail_move_other);
  printf("topology=%s: nodes=%d migrated=%llu local=%llu fail_move_other=%llu"
         ": %s\n",
         topology, c.num_nodes, (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local,
         (unsigned long long)c.fail_move_other, nt_failures ? "FAIL" : "PASS");
  free(nodes);
  return nt_failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "child"))
    return child(argv[2]);
  if (argc != 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all\n", argv[0]);
    return 2;
  }
  char mem[64], online[64];
  read_line("/sys/devices/system/node/has_memory", mem, sizeof mem);
  read_line("/sys/devices/system/node/online", online, sizeof online);
  printf("guest_memless: has_memory %s, online %s\n", mem, online);
  const char *topologies[] = {"sysfs", "hwloc"};
  for (int k = 0; k < 2; k++) {
    char *args[] = {argv[0], "child", (char *)topologies[k], NULL};
    const char *env[][2] = {{"OMP_PROC_BIND", "spread"},
                            {"OMP_PLACES", "cores"},
                            {"OMP_NUM_THREADS", "3"},
                            {"KMP_TOPOLOGY_METHOD", k == 1 ? "hwloc" : NULL},
                            {NULL, NULL}};
    int rc = nt_run_self(args, env);
    NT_CHECK(rc == 0, "%s: exit status %d", topologies[k], rc);
  }
  return nt_done("guest_memless");
}
