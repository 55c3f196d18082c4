// Placement in a NUMA guest (tools/numa-vm), 2 and 4 nodes.  Data is
// initialised serially and moved to the last node, a request covers it all,
// serial code touches it (nothing may move), then a parallel loop touches one
// int per page of [U, N).  The test records its own ground truth: the CPU of
// the thread that touched each page first, mapped to a node with libnuma.
// After the region (and kmp_nexttouch_disarm() for the pages nobody touched,
// which stay armed otherwise), move_pages() must report every touched page on
// that node, the untouched pages [0, U) where they were, the counters must
// agree page for page (per destination node), and the checksum must be
// unchanged.
//
// One guest boot runs every configuration, each in a fresh process:
// OMP_PROC_BIND=spread|close x OMP_PLACES=cores|numa_domains x
// schedule(static)|schedule(dynamic,3) x KMP_NEXTTOUCH_WINDOW=1 (exact) |
// adaptive.  The runs with OMP_PROC_BIND=close take the nodes with memory
// from libomp's hwloc topology (KMP_TOPOLOGY_METHOD=hwloc loads it at start),
// the others from the kernel's node files.  In adaptive mode a batch may claim
// untouched pages ahead of the faulting one; with schedule(static) each thread
// first touches the first page of its chunk (so no window can cross into a
// chunk that another thread owns) and the exact checks apply; with
// schedule(dynamic) the adaptive run checks everything but "the first toucher's
// node" (which it reports).
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all 2 2 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N2
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- %t all 4 4 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N4
//
// N2: guest_placement: 2 nodes, 2 cpus
// N4: guest_placement: 4 nodes, 4 cpus
// CHECK-COUNT-8: config bind=spread {{.*}} topology=sysfs: {{.*}}: PASS
// CHECK-COUNT-8: config bind=close {{.*}} topology=hwloc: {{.*}}: PASS
// CHECK: guest_placement: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

enum { N = 384, U = 40 };

static int read_int(const char *path) {
  FILE *f = fopen(path, "r");
  int v = -1;
  if (f) {
    if (fscanf(f, "%d", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

static int child(const char *sched, int adaptive, const char *name) {
  long pg = nt_pagesize(), ipp = pg / sizeof(int);
  int nodes = numa_max_node() + 1;
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)(i * 7 + 3);
  long long sum0 = 0;
  for (long i = 0; i < N * ipp; i++)
    sum0 += a[i];
  // Start from a known place: everything on the last node.
  {
    void *pages[N];
    int target[N], st[N];
    for (int p = 0; p < N; p++)
      pages[p] = (char *)a + p * pg, target[p] = nodes - 1;
    NT_CHECK(syscall(SYS_move_pages, 0, N, pages, target, st, MPOL_MF_MOVE) ==
                 0,
             "initial move_pages");
  }
  int init_node[N], now[N], truth_cpu[N], truth_tid[N];
  nt_nodes_of((char *)a, N, init_node);
  for (int p = 0; p < N; p++) {
    NT_CHECK(init_node[p] == nodes - 1, "page %d starts on %d", p,
             init_node[p]);
    truth_cpu[p] = truth_tid[p] = -1;
  }
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
  // Serial code between the request and the region moves nothing.
  for (int p = 0; p < N; p++)
    a[p * ipp + 1] += 0;
  nt_nodes_of((char *)a, N, now);
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(c0.active == 1 && c0.faults == 0 && c0.pages_armed == 0,
           "serial code: active %d, %llu faults", c0.active,
           (unsigned long long)c0.faults);
  for (int p = 0; p < N; p++)
    if (now[p] != init_node[p]) {
      NT_CHECK(0, "serial code moved page %d to %d", p, now[p]);
      break;
    }
  int dynamic = !strcmp(sched, "dynamic");
  int exact_truth = !adaptive || !dynamic;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    if (adaptive && !dynamic) {
      int first = 1;
#pragma omp for schedule(static) nowait
      for (int p = U; p < N; p++)
        if (first) {
          first = 0;
          a[p * ipp] += 1;
          truth_cpu[p] = sched_getcpu();
          truth_tid[p] = tid;
        }
#pragma omp barrier
    }
    if (dynamic) {
#pragma omp for schedule(dynamic, 3)
      for (int p = U; p < N; p++) {
        a[p * ipp] += 1;
        truth_cpu[p] = sched_getcpu();
        truth_tid[p] = tid;
      }
    } else {
#pragma omp for schedule(static)
      for (int p = U; p < N; p++) {
        a[p * ipp] += 1;
        if (truth_tid[p] < 0) {
          truth_cpu[p] = sched_getcpu();
          truth_tid[p] = tid;
        }
      }
    }
  }
  // The untouched pages stay armed after the region: end their arming, so
  // they can be asked where they are (and must still be there).
  NT_CHECK(kmp_nexttouch_disarm(a, N * pg) == 0, "disarm");
  kmp_nexttouch_counters_t c1 = nt_counters();
  nt_nodes_of((char *)a, N, now);
  unsigned long long want_migrated = 0, want_local = 0;
  unsigned long long want_node[KMP_NEXTTOUCH_MAX_NODES] = {0};
  int wrong = 0, exact_hits = 0;
  for (int p = 0; p < N; p++) {
    if (p < U) {
      if (now[p] != init_node[p])
        NT_CHECK(0, "untouched page %d moved from %d to %d", p, init_node[p],
                 now[p]);
      continue;
    }
    int truth = numa_node_of_cpu(truth_cpu[p]);
    exact_hits += now[p] == truth;
    if (truth == init_node[p])
      want_local++;
    else
      want_migrated++, want_node[truth]++;
    if (exact_truth && now[p] != truth && wrong++ < 5)
      NT_CHECK(0,
               "page %d: on node %d, first touched by thread %d on cpu %d "
               "(node %d)",
               p, now[p], truth_tid[p], truth_cpu[p], truth);
    if (!exact_truth && (now[p] < 0 || now[p] >= nodes))
      NT_CHECK(0, "page %d: node %d", p, now[p]);
  }
  unsigned long long migrated = c1.pages_migrated - c0.pages_migrated;
  unsigned long long local = c1.pages_already_local - c0.pages_already_local;
  NT_CHECK(c1.pages_armed - c0.pages_armed == N, "armed %llu",
           (unsigned long long)(c1.pages_armed - c0.pages_armed));
  NT_CHECK(c1.pages_disarmed - c0.pages_disarmed == U, "disarmed %llu",
           (unsigned long long)(c1.pages_disarmed - c0.pages_disarmed));
  NT_CHECK(migrated + local == N - U, "migrated %llu + local %llu", migrated,
           local);
  NT_CHECK(c1.fail_move_busy + c1.fail_move_nomem + c1.fail_move_other +
                   c1.fail_restore + c1.fail_arm ==
               0,
           "failures");
  if (exact_truth) {
    NT_CHECK(migrated == want_migrated && local == want_local,
             "counters: migrated %llu (truth %llu), local %llu (truth %llu)",
             migrated, want_migrated, local, want_local);
    for (int n = 0; n < nodes && n < KMP_NEXTTOUCH_MAX_NODES; n++)
      NT_CHECK(
          c1.migrated_to_node[n] - c0.migrated_to_node[n] == want_node[n],
          "node %d: %llu migrated, truth %llu", n,
          (unsigned long long)(c1.migrated_to_node[n] - c0.migrated_to_node[n]),
          want_node[n]);
  }
  long long sum1 = 0;
  for (long i = 0; i < N * ipp; i++)
    sum1 += a[i];
  long long extra =
      (N - U) + (adaptive && !dynamic ? omp_get_max_threads() : 0);
  // (the static prologue touched one page per thread that had a chunk)
  if (adaptive && !dynamic)
    extra = sum1 - sum0 >= N - U && sum1 - sum0 <= N - U + omp_get_max_threads()
                ? sum1 - sum0
                : -1;
  NT_CHECK(sum1 - sum0 == extra, "checksum: +%lld", sum1 - sum0);
  printf("config %s: %d/%d touched pages on their first toucher's node, "
         "%llu migrated, %llu local, %llu batches, %llu faults: %s\n",
         name, exact_hits, N - U, migrated, local,
         (unsigned long long)(c1.batches - c0.batches),
         (unsigned long long)(c1.faults - c0.faults),
         nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 5 && !strcmp(argv[1], "child"))
    return child(argv[2], atoi(argv[3]), argv[4]);
  if (argc < 4 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all NODES CPUS\n", argv[0]);
    return 2;
  }
  int nodes = atoi(argv[2]), cpus = atoi(argv[3]);
  printf("guest_placement: %d nodes, %d cpus\n", nodes, cpus);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == nodes,
           "libnuma sees %d nodes", numa_max_node() + 1);
  NT_CHECK(read_int("/proc/sys/kernel/numa_balancing") == 0,
           "numa_balancing must be 0");
  const char *binds[] = {"spread", "close"};
  const char *places[] = {"cores", "numa_domains"};
  const char *scheds[] = {"static", "dynamic"};
  for (int b = 0; b < 2; b++)
    for (int pl = 0; pl < 2; pl++)
      for (int s = 0; s < 2; s++)
        for (int ad = 0; ad < 2; ad++) {
          char name[160], threads_s[16];
          int threads = b == 0 ? cpus : cpus + 1;
          const char *topology = b == 1 ? "hwloc" : "sysfs";
          snprintf(name, sizeof name,
                   "bind=%s places=%s %s %s threads=%d topology=%s", binds[b],
                   places[pl], scheds[s], ad ? "adaptive" : "exact", threads,
                   topology);
          snprintf(threads_s, sizeof threads_s, "%d", threads);
          char adarg[2] = {ad ? '1' : '0', 0};
          char *args[] = {argv[0], "child", (char *)scheds[s],
                          adarg,   name,    NULL};
          const char *env[][2] = {
              {"OMP_PROC_BIND", binds[b]},
              {"OMP_PLACES", places[pl]},
              {"OMP_NUM_THREADS", threads_s},
              {"KMP_NEXTTOUCH_WINDOW", ad ? "adaptive" : "1"},
              {"KMP_TOPOLOGY_METHOD",
               strcmp(topology, "hwloc") ? NULL : "hwloc"},
              {NULL, NULL}};
          int rc = nt_run_self(args, env);
          NT_CHECK(rc == 0, "%s: exit status %d", name, rc);
        }
  return nt_done("guest_placement");
}
