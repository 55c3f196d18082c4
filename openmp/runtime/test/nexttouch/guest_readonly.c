// readonly(list) in a NUMA guest (tools/numa-vm), 2 and 4 nodes: every
// thread of a region reads each list item through memory on its own node,
// and the data it reads equals the original.  Each configuration runs twice:
// with the clause compiled by our Clang ('clause': the address checked is
// what the item's variable designates in the region), and through the
// compiler's entry points called by hand ('api': __kmpc_readonly_begin/
// _ptrs/_end).  Three items: A, a heap array moved to the last node
// ('A : NA'; that node's threads read the original, the others replicas); B,
// a heap array split between node 0 and the last node ('B[0 : NB]'; every
// node gets a replica); C, a global array ('C').  Each thread checks with
// move_pages() every page it reads through its pointer or variable, and sums
// the item through it (in a called function, and for C in the region's own
// code).  Three regions per
// configuration: the first makes the replicas, the second reuses them (no
// copy), and before the third serial code writes A and B's first element
// (B fills a block of its own from malloc: its first page, shared only with
// malloc's header, is protected too): the third sees the new data.
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
// N2: guest_readonly: 2 nodes, 2 cpus
// N4: guest_readonly: 4 nodes, 4 cpus
// CHECK-COUNT-6: config {{.*}}: PASS
// CHECK: guest_readonly: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>

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

// One thread's checks of the items it reads at p[i] (orig[i]: the original,
// NULL if not known): pages on its node, sums, offsets in the page.
static void thread_check(const double *const p[NITEMS],
                         const double *const orig[NITEMS],
                         const double want[NITEMS], int r, int bad[3]) {
  static const long lens[NITEMS] = {NA, NB, NC};
  long pg = nt_pagesize();
  int me = numa_node_of_cpu(sched_getcpu());
  for (int i = 0; i < NITEMS; i++) {
    int off = pages_off((const char *)p[i], lens[i] * sizeof(double), me);
    if (off)
      printf("region %d thread %d (node %d): item %d: %d pages elsewhere\n", r,
             omp_get_thread_num(), me, i, off);
    bad[0] += off != 0;
    bad[1] += sum(p[i], lens[i]) != want[i];
    if (orig[i])
      bad[2] += ((uintptr_t)p[i] - (uintptr_t)orig[i]) % pg != 0;
  }
}

// The region with the clause; returns its number of threads.
static int region_clause(double *A, double *B, const double want[NITEMS], int r,
                         int bad[3]) {
  double *const A0 = A, *const B0 = B;
  int b0 = 0, b1 = 0, b2 = 0, threads = 0;
#pragma omp parallel readonly(A : NA, B[0 : NB], C)                            \
    reduction(+ : b0, b1, b2, threads)
  {
    const double *const p[NITEMS] = {A, B, C};
    const double *const orig[NITEMS] = {A0, B0, NULL};
    int mine[3] = {0, 0, 0};
    thread_check(p, orig, want, r, mine);
    double a = 0; // C through the variable, in the region's own code
    for (long k = 0; k < NC; k++)
      a += C[k];
    mine[1] += a != want[2];
    b0 += mine[0];
    b1 += mine[1];
    b2 += mine[2];
    threads++;
  }
  bad[0] += b0;
  bad[1] += b1;
  bad[2] += b2;
  return threads;
}

// The region through the entry points, as Clang calls them.
static int region_api(double *A, double *B, const double want[NITEMS], int r,
                      int bad[3]) {
  static ident_t loc = {0, 2, 0, 0, ";guest_readonly.c;region_api;1;1;;"};
  kmp_memory_range_t items[NITEMS] = {
      {A, NA, sizeof *A}, {B, NB, sizeof *B}, {C, 1, sizeof C}};
  const char *const names[NITEMS] = {"A", "B", "C"};
  int b0 = 0, b1 = 0, b2 = 0, threads = 0;
  void *h = __kmpc_readonly_begin(&loc, 0, NITEMS, items, names);
#pragma omp parallel reduction(+ : b0, b1, b2, threads)
  {
    void **q = __kmpc_readonly_ptrs(&loc, 0, h);
    const double *const p[NITEMS] = {q[0], q[1], q[2]};
    const double *const orig[NITEMS] = {A, B, C};
    int mine[3] = {0, 0, 0};
    thread_check(p, orig, want, r, mine);
    b0 += mine[0];
    b1 += mine[1];
    b2 += mine[2];
    threads++;
  }
  __kmpc_readonly_end(&loc, 0, h);
  bad[0] += b0;
  bad[1] += b1;
  bad[2] += b2;
  return threads;
}

static int child(const char *name, int clause) {
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
  int bad[3] = {0, 0, 0}, threads = 0; // node, sum, misaligned
  for (int r = 0; r < 3; r++) {
    c[r] = nt_counters();
    if (r == 2) { // serial writes between regions: a chunk of A, B's first
      A[NA / 2] += 1;
      B[0] += 1;
    }
    double want[NITEMS] = {sum(A, NA), sum(B, NB), sum(C, NC)};
    if (clause)
      threads += region_clause(A, B, want, r, bad);
    else
      threads += region_api(A, B, want, r, bad);
  }
  c[3] = nt_counters();
  NT_CHECK(bad[0] == 0, "%d (thread, item) pairs read remote memory", bad[0]);
  NT_CHECK(bad[1] == 0, "%d (thread, item) pairs read other data", bad[1]);
  NT_CHECK(bad[2] == 0, "%d pointers change the offset in the page", bad[2]);
  unsigned long long made = c[1].readonly_replicas - c[0].readonly_replicas;
  NT_CHECK(made >= 1, "no replica made");
  NT_CHECK(
      c[3].readonly_replicas == c[1].readonly_replicas,
      "replicas made after the first region: %llu",
      (unsigned long long)(c[3].readonly_replicas - c[1].readonly_replicas));
  NT_CHECK(
      c[2].readonly_replicas_reused - c[1].readonly_replicas_reused == made &&
          c[2].readonly_refreshes == c[1].readonly_refreshes,
      "second region: %llu reused, %llu refreshed, want %llu reused",
      (unsigned long long)(c[2].readonly_replicas_reused -
                           c[1].readonly_replicas_reused),
      (unsigned long long)(c[2].readonly_refreshes - c[1].readonly_refreshes),
      made);
  NT_CHECK(
      c[3].readonly_refreshes > c[2].readonly_refreshes &&
          c[3].readonly_serial_writes - c[2].readonly_serial_writes == 2,
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
  if (argc >= 4 && !strcmp(argv[1], "child"))
    return child(argv[2], !strcmp(argv[3], "clause"));
  if (argc < 4 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all NODES CPUS\n", argv[0]);
    return 2;
  }
  int nodes = atoi(argv[2]), cpus = atoi(argv[3]);
  printf("guest_readonly: %d nodes, %d cpus\n", nodes, cpus);
  NT_CHECK(numa_available() >= 0 && numa_max_node() + 1 == nodes,
           "libnuma sees %d nodes", numa_max_node() + 1);
  const char *binds[] = {"spread", "close", "close"};
  int threads[] = {cpus, cpus, cpus / 2 > 0 ? cpus / 2 : 1};
  for (int k = 0; k < 6; k++) {
    char name[96], t[16];
    char *path = k % 2 ? "api" : "clause";
    snprintf(t, sizeof t, "%d", threads[k / 2]);
    snprintf(name, sizeof name, "%s bind=%s threads=%d", path, binds[k / 2],
             threads[k / 2]);
    char *args[] = {argv[0], "child", name, path, NULL};
    const char *env[][2] = {{"OMP_PROC_BIND", binds[k / 2]},
                            {"OMP_PLACES", "cores"},
                            {"OMP_NUM_THREADS", t},
                            {NULL, NULL}};
    int rc = nt_run_self(args, env);
    NT_CHECK(rc == 0, "%s: exit status %d", name, rc);
  }
  return nt_done("guest_readonly");
}
