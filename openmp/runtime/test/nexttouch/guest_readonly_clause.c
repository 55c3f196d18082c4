// readonly(list) written as the clause (compiled by our Clang) in a NUMA
// guest (tools/numa-vm), 2 and 4 nodes: inside the region every thread reads
// each list item through memory on its own node, and the data equals the
// original.  The address checked is the one the thread actually reads: what
// the item's base variable designates in the region.  Three items: A, a heap
// array moved to the last node ('A : NA'; that node's threads read the
// original, the others replicas); B, a heap array split between node 0 and
// the last node ('B[0 : NB]'; every node gets a replica); C, a global array
// ('C').  Each thread checks with move_pages() every page of each item, and
// sums the item through it, also in a called function.  Three regions per
// configuration: the first makes the replicas, the second reuses them (no
// copy), and before the third serial code writes A and the edge of B: the
// third sees the new data.
//
// One guest boot runs every configuration, each in a fresh process:
// OMP_PROC_BIND=spread with one thread per CPU, close with one per CPU,
// close with half as many (some nodes have no thread).
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all 2 2 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N2
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- %t all 4 4 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N4
//
// N2: guest_readonly_clause: 2 nodes, 2 cpus
// N4: guest_readonly_clause: 4 nodes, 4 cpus
// CHECK-COUNT-3: config {{.*}}: PASS
// CHECK: guest_readonly_clause: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <sys/wait.h>

enum { NA = 300000, NB = 100000, NC = 20000, NITEMS = 3 };
static double C[NC];

static double sum(const double *p, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += p[i];
  return s;
}

static void move_to(char *p, size_t bytes, int node) {
  long pg = nt_pagesize();
  char *s = (char *)((uintptr_t)p & ~(uintptr_t)(pg - 1));
  size_t n = (p + bytes - s + pg - 1) / pg;
  for (size_t i = 0; i < n; i++) {
    void *page = s + i * pg;
    int st;
    syscall(SYS_move_pages, 0, 1UL, &page, &node, &st, MPOL_MF_MOVE);
  }
}

// Pages of [p, p+bytes) not on `node` (move_pages status).
static int pages_off(const char *p, size_t bytes, int node) {
  long pg = nt_pagesize();
  const char *s = (const char *)((uintptr_t)p & ~(uintptr_t)(pg - 1));
  int n = (int)((p + bytes - s + pg - 1) / pg), off = 0;
  int *st = malloc(sizeof(int) * n);
  nt_nodes_of((char *)s, n, st);
  for (int i = 0; i < n; i++)
    off += st[i] != node;
  free(st);
  return off;
}

static int child(const char *name) {
  int nodes = numa_max_node() + 1;
  double *A = malloc(NA * sizeof *A), *B = malloc(NB * sizeof *B);
  for (long i = 0; i < NA; i++)
    A[i] = i % 1000;
  for (long i = 0; i < NB; i++)
    B[i] = 2 * (i % 77);
  for (long i = 0; i < NC; i++)
    C[i] = i % 13;
  move_to((char *)A, sizeof *A * NA, nodes - 1);
  move_to((char *)B, sizeof *B * NB / 2, 0);
  move_to((char *)(B + NB / 2), sizeof *B * NB / 2, nodes - 1);
  move_to((char *)C, sizeof C, 0);
  kmp_nexttouch_counters_t c[4];
  int bad_node = 0, bad_sum = 0, misaligned = 0, threads = 0;
  long pg = nt_pagesize();
  double *const A0 = A, *const B0 = B;
  for (int r = 0; r < 3; r++) {
    c[r] = nt_counters();
    if (r == 2) { // serial writes between regions: a chunk of A, B's edge
      A[NA / 2] += 1;
      B[0] += 1;
    }
    double want[NITEMS] = {sum(A, NA), sum(B, NB), sum(C, NC)};
#pragma omp parallel readonly(A : NA, B[0 : NB], C)                             \
    reduction(+ : bad_node, bad_sum, misaligned, threads)
    {
      const double *p[NITEMS] = {A, B, C};
      const double *orig[NITEMS] = {A0, B0, NULL};
      long lens[NITEMS] = {NA, NB, NC};
      int me = numa_node_of_cpu(sched_getcpu());
      threads++;
      for (int i = 0; i < NITEMS; i++) {
        int off = pages_off((const char *)p[i], lens[i] * sizeof(double), me);
        if (off)
          printf("region %d thread %d (node %d): item %d: %d pages elsewhere\n",
                 r, omp_get_thread_num(), me, i, off);
        bad_node += off != 0;
        bad_sum += sum(p[i], lens[i]) != want[i];
        if (orig[i])
          misaligned += ((uintptr_t)p[i] - (uintptr_t)orig[i]) % pg != 0;
      }
      // Through the variables themselves, in the region's own code.
      double a = 0;
      for (long k = 0; k < NC; k++)
        a += C[k];
      bad_sum += a != want[2];
    }
  }
  c[3] = nt_counters();
  NT_CHECK(bad_node == 0, "%d (thread, item) pairs read remote memory",
           bad_node);
  NT_CHECK(bad_sum == 0, "%d (thread, item) pairs read other data", bad_sum);
  NT_CHECK(misaligned == 0, "%d pointers change the offset in the page",
           misaligned);
  unsigned long long made = c[1].readonly_replicas - c[0].readonly_replicas;
  NT_CHECK(made >= 1, "no replica made");
  NT_CHECK(c[3].readonly_replicas == c[1].readonly_replicas,
           "replicas made after the first region: %llu",
           (unsigned long long)(c[3].readonly_replicas - c[1].readonly_replicas));
  NT_CHECK(c[2].readonly_replicas_reused - c[1].readonly_replicas_reused ==
                   made &&
               c[2].readonly_refreshes == c[1].readonly_refreshes,
           "second region: %llu reused, %llu refreshed, want %llu reused",
           (unsigned long long)(c[2].readonly_replicas_reused -
                                c[1].readonly_replicas_reused),
           (unsigned long long)(c[2].readonly_refreshes - c[1].readonly_refreshes),
           made);
  NT_CHECK(c[3].readonly_refreshes > c[2].readonly_refreshes &&
               c[3].readonly_serial_writes - c[2].readonly_serial_writes == 1,
           "third region: %llu refreshes, %llu serial writes",
           (unsigned long long)(c[3].readonly_refreshes - c[2].readonly_refreshes),
           (unsigned long long)(c[3].readonly_serial_writes -
                                c[2].readonly_serial_writes));
  NT_CHECK(c[3].readonly_write_traps == 0 &&
               c[3].readonly_fallback_budget == 0 &&
               c[3].readonly_fallback_one_node == 0,
           "traps or fallbacks");
  printf("config %s: %d thread-regions, %llu replicas, %llu bytes: %s\n", name,
         threads, made, (unsigned long long)c[3].readonly_bytes_replicated,
         nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "child"))
    return child(argv[2]);
  if (argc < 4 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all NODES CPUS\n", argv[0]);
    return 2;
  }
  int nodes = atoi(argv[2]), cpus = atoi(argv[3]);
  printf("guest_readonly_clause: %d nodes, %d cpus\n", nodes, cpus);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == nodes,
           "libnuma sees %d nodes", numa_max_node() + 1);
  const char *binds[] = {"spread", "close", "close"};
  int threads[] = {cpus, cpus, cpus / 2 > 0 ? cpus / 2 : 1};
  for (int k = 0; k < 3; k++) {
    char name[96], t[16];
    snprintf(t, sizeof t, "%d", threads[k]);
    snprintf(name, sizeof name, "bind=%s threads=%d", binds[k], threads[k]);
    char *args[] = {argv[0], "child", name, NULL};
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      setenv("OMP_PROC_BIND", binds[k], 1);
      setenv("OMP_PLACES", "cores", 1);
      setenv("OMP_NUM_THREADS", t, 1);
      execv("/proc/self/exe", args);
      _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x", name, st);
  }
  return nt_done("guest_readonly_clause");
}
