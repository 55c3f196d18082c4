// Lifetime in a NUMA guest (tools/numa-vm, 2 nodes, 2 CPUs, one thread per
// node with OMP_PROC_BIND=spread): an array is first used in the SECOND
// parallel region after a single request, and still moves.
//   The data, initialised serially, starts on the last node.  One request
//   covers the array a and a tail t (a separate VMA).  Region 1 (the arming
//   fork) does not touch them.  Serial code then touches a's first U pages:
//   they stay where they are (pages_touched_serial).  Region 2 touches the
//   rest of a in a static loop: each page goes to its first toucher's node
//   (recorded with sched_getcpu), so a ends up split across both nodes.  The
//   tail is never touched: kmp_nexttouch_disarm(NULL, 0) leaves it where it
//   is (pages_disarmed).  Then move_pages() must show every page where the
//   ground truth says, the counters must agree page for page, and the
//   checksum must be unchanged.  With region-scoped arming, region 1's join
//   would disarm a, and region 2 would move nothing.
// One guest boot runs both windows (exact, adaptive), each in a fresh
// process.  With the adaptive window each thread first touches the first page
// of its chunk, so no batch crosses into the other thread's chunk.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all | FileCheck %s
//
// CHECK: guest_lifetime: 2 nodes
// CHECK-COUNT-2: config {{.*}}: PASS
// CHECK: guest_lifetime: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#define U64(x) ((unsigned long long)(x))

enum { N = 256, U = 32, T = 16 }; // pages of a, serial pages, tail pages

static int child(int adaptive, const char *name) {
  long pg = nt_pagesize(), ipp = pg / sizeof(int);
  int nodes = numa_max_node() + 1, last = nodes - 1;
  // a, one PROT_NONE page (so t is a VMA of its own), t.
  int *a = (int *)nt_map((N + 1 + T) * pg);
  int *t = (int *)((char *)a + (N + 1) * pg);
  NT_CHECK(mprotect((char *)a + N * pg, pg, PROT_NONE) == 0, "gap");
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)(i * 5 + 1);
  for (long i = 0; i < T * ipp; i++)
    t[i] = (int)(i * 3 + 2);
  long long sum0 = 0;
  for (long i = 0; i < N * ipp; i++)
    sum0 += a[i];
  {
    void *pages[N + T];
    int target[N + T], st[N + T];
    for (int p = 0; p < N + T; p++) {
      pages[p] = p < N ? (char *)a + p * pg : (char *)t + (p - N) * pg;
      target[p] = last;
    }
    NT_CHECK(
        syscall(SYS_move_pages, 0, N + T, pages, target, st, MPOL_MF_MOVE) == 0,
        "initial move_pages");
  }
  int now[N], tnow[T], truth_cpu[N];
  nt_nodes_of((char *)a, N, now);
  nt_nodes_of((char *)t, T, tnow);
  for (int p = 0; p < N; p++) {
    NT_CHECK(now[p] == last, "page %d starts on %d", p, now[p]);
    truth_cpu[p] = -1;
  }
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0 && kmp_nexttouch(t, T * pg) == 0,
           "request");

  // Region 1 arms a and t, and touches neither.
  int team = 0;
#pragma omp parallel reduction(+ : team)
  team++;
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(team == nodes, "team of %d", team);
  NT_CHECK(c1.arms - c0.arms == 1 && c1.pages_armed - c0.pages_armed == N + T,
           "region 1: arms %llu, armed %llu", U64(c1.arms - c0.arms),
           U64(c1.pages_armed - c0.pages_armed));
  NT_CHECK(c1.pages_disarmed == c0.pages_disarmed &&
               c1.pages_expired == c0.pages_expired,
           "region 1's join disarmed %llu, expired %llu",
           U64(c1.pages_disarmed - c0.pages_disarmed),
           U64(c1.pages_expired - c0.pages_expired));

  // Serial code: a's first U pages, restored where they are.
  for (int p = 0; p < U; p++)
    a[p * ipp + 2] += 0;
  kmp_nexttouch_counters_t c2 = nt_counters();
  NT_CHECK(c2.pages_touched_serial - c1.pages_touched_serial == U,
           "serial: %llu pages",
           U64(c2.pages_touched_serial - c1.pages_touched_serial));
  NT_CHECK(c2.pages_migrated == c1.pages_migrated, "serial code migrated %llu",
           U64(c2.pages_migrated - c1.pages_migrated));

  // Region 2: the rest of a.
#pragma omp parallel
  {
    if (adaptive) {
      int first = 1;
#pragma omp for schedule(static) nowait
      for (int p = U; p < N; p++)
        if (first) {
          first = 0;
          a[p * ipp] += 1;
          truth_cpu[p] = sched_getcpu();
        }
#pragma omp barrier
    }
#pragma omp for schedule(static)
    for (int p = U; p < N; p++) {
      if (truth_cpu[p] < 0) {
        a[p * ipp] += 1;
        truth_cpu[p] = sched_getcpu();
      } else {
        a[p * ipp] += 0; // touched by the prologue
      }
    }
  }
  kmp_nexttouch_counters_t c3 = nt_counters();
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm");
  kmp_nexttouch_counters_t c4 = nt_counters();
  nt_nodes_of((char *)a, N, now);
  nt_nodes_of((char *)t, T, tnow);

  unsigned long long want_migrated = 0, want_local = 0, on[2] = {0, 0};
  int wrong = 0;
  for (int p = 0; p < N; p++) {
    int want = p < U ? last : numa_node_of_cpu(truth_cpu[p]);
    if (p >= U) {
      if (want == last)
        want_local++;
      else
        want_migrated++;
      if (now[p] >= 0 && now[p] < 2)
        on[now[p]]++;
    }
    if (now[p] != want && wrong++ < 5)
      NT_CHECK(0, "page %d (%s): on node %d, want %d", p,
               p < U ? "serial" : "region 2", now[p], want);
  }
  for (int p = 0; p < T; p++)
    if (tnow[p] != last)
      NT_CHECK(0, "tail page %d: on node %d", p, tnow[p]);
  unsigned long long migrated = c3.pages_migrated - c2.pages_migrated,
                     local = c3.pages_already_local - c2.pages_already_local;
  NT_CHECK(migrated == want_migrated && local == want_local,
           "region 2: migrated %llu (truth %llu), local %llu (truth %llu)",
           migrated, want_migrated, local, want_local);
  NT_CHECK(on[0] > 0 && on[1] > 0, "a is not split: %llu on node 0, %llu on 1",
           on[0], on[1]);
  NT_CHECK(c4.pages_disarmed - c3.pages_disarmed == T &&
               c3.pages_disarmed == c0.pages_disarmed,
           "disarmed: %llu at the end, %llu before",
           U64(c4.pages_disarmed - c3.pages_disarmed),
           U64(c3.pages_disarmed - c0.pages_disarmed));
  NT_CHECK(c4.fail_move_busy + c4.fail_move_nomem + c4.fail_move_other +
                   c4.fail_restore + c4.fail_arm ==
               0,
           "failures");
  long long sum1 = 0, tsum = 0;
  for (long i = 0; i < N * ipp; i++)
    sum1 += a[i];
  for (long i = 0; i < T * ipp; i++)
    tsum += t[i] - (i * 3 + 2);
  NT_CHECK(sum1 - sum0 == N - U && tsum == 0, "checksum: +%lld, tail %lld",
           sum1 - sum0, tsum);
  printf("config %s: %llu serial pages stayed on node %d; region 2: %llu on "
         "node 0, %llu on node 1 (%llu migrated, %llu local); %llu tail pages "
         "disarmed: %s\n",
         name, U64(c2.pages_touched_serial - c1.pages_touched_serial), last,
         on[0], on[1], migrated, local,
         U64(c4.pages_disarmed - c3.pages_disarmed),
         nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "child"))
    return child(atoi(argv[2]), argv[3]);
  if (argc < 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all\n", argv[0]);
    return 2;
  }
  printf("guest_lifetime: %d nodes\n", numa_max_node() + 1);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == 2,
           "libnuma sees %d nodes", numa_max_node() + 1);
  for (int ad = 0; ad < 2; ad++) {
    const char *name = ad ? "adaptive" : "exact";
    char *args[] = {argv[0], "child", ad ? "1" : "0", (char *)name, NULL};
    const char *env[][2] = {{"OMP_PROC_BIND", "spread"},
                            {"OMP_PLACES", "cores"},
                            {"OMP_NUM_THREADS", "2"},
                            {"KMP_NEXTTOUCH_WINDOW", ad ? "adaptive" : "1"},
                            {NULL, NULL}};
    int rc = nt_run_self(args, env);
    NT_CHECK(rc == 0, "%s: exit status %d", name, rc);
  }
  return nt_done("guest_lifetime");
}
