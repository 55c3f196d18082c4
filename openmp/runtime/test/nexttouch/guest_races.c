// In a NUMA guest (tools/numa-vm, 4 nodes): races, mechanisms and huge pages.
//  race:  every thread touches every page at once (atomic increments, each
//         thread from its own starting page): each page is migrated exactly
//         once (migrated + already local == pages, no failure), ends on the
//         node of one of the team's threads, and no increment is lost; with
//         the probed mechanism, with move_pages and with mbind forced
//         (KMP_NEXTTOUCH_MECHANISM), exact and adaptive windows.  The
//         probed mechanism is move_pages where the kernel moves a PROT_NONE
//         page with it, mbind where it does not (asked here by a move).
//  mech:  exact placement (recorded first toucher's node) with each forced
//         mechanism: with move_pages forced on a kernel that cannot move
//         PROT_NONE pages the engine must still get every page right.
//  thp:   2 MB transparent huge pages, one per thread in turn: each huge page
//         ends up whole on its toucher's node and stays huge.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- %t all | FileCheck %s
//
// CHECK: guest_races: 4 nodes
// CHECK-COUNT-14: config {{.*}}: PASS
// CHECK: guest_races: PASS
#include "nexttouch_test.h"
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdint.h>

static long pg, ipp;
static int nodes;

static void to_last_node(char *a, size_t bytes) {
  unsigned long mask = 1UL << (nodes - 1);
  NT_CHECK(mbind(a, bytes, MPOL_BIND, &mask, 8 * sizeof mask,
                 MPOL_MF_MOVE | MPOL_MF_STRICT) == 0,
           "mbind to the last node: %s", strerror(errno));
  mbind(a, bytes, MPOL_DEFAULT, NULL, 0, 0);
}

// Does move_pages(MPOL_MF_MOVE) move a PROT_NONE page to another node?
static int moves_prot_none(void) {
  char *p = (char *)nt_map(pg);
  p[0] = 1;
  void *pages[1] = {p};
  int status = -1, target;
  NT_CHECK(move_pages(0, 1, pages, NULL, &status, 0) == 0 && status >= 0,
           "where is a touched page: %d", status);
  target = (status + 1) % nodes;
  mprotect(p, pg, PROT_NONE);
  status = -1;
  int moved = move_pages(0, 1, pages, &target, &status, MPOL_MF_MOVE) == 0 &&
              status == target;
  munmap(p, pg);
  return moved;
}

static int race(void) {
  enum { N = 256 };
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = 5;
  to_last_node((char *)a, N * pg);
  int team_node[256] = {0};
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
  int nthreads = 0;
#pragma omp parallel
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
#pragma omp single
    nthreads = T;
    team_node[numa_node_of_cpu(sched_getcpu()) & 255] = 1;
    for (int k = 0; k < N; k++) {
      int p = (k + t * N / T) % N;
      __atomic_fetch_add(&a[p * ipp], 1, __ATOMIC_RELAXED);
    }
  }
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == N, "armed %llu", (unsigned long long)c.pages_armed);
  NT_CHECK(c.pages_migrated + c.pages_already_local == N,
           "migrated %llu + local %llu", (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local);
  NT_CHECK(c.fail_move_busy + c.fail_move_nomem + c.fail_move_other +
                   c.fail_restore ==
               0,
           "failures");
  int now[N];
  nt_nodes_of((char *)a, N, now);
  for (int p = 0; p < N; p++) {
    if (now[p] < 0 || now[p] > 255 || !team_node[now[p]]) {
      NT_CHECK(0, "page %d on node %d, where no thread ran", p, now[p]);
      break;
    }
    if (a[p * ipp] != 5 + nthreads) {
      NT_CHECK(0, "page %d: %d increments", p, a[p * ipp] - 5);
      break;
    }
  }
  return 0;
}

static int mech(void) {
  enum { N = 256 };
  int *a = (int *)nt_map(N * pg);
  memset(a, 0, N * pg);
  to_last_node((char *)a, N * pg);
  int cpu[N];
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel for schedule(static)
  for (int p = 0; p < N; p++) {
    a[p * ipp] = 1;
    cpu[p] = sched_getcpu();
  }
  int now[N];
  nt_nodes_of((char *)a, N, now);
  for (int p = 0, bad = 0; p < N; p++)
    if (now[p] != numa_node_of_cpu(cpu[p]) && bad++ < 5)
      NT_CHECK(0, "page %d on node %d, toucher on cpu %d", p, now[p], cpu[p]);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_migrated + c.pages_already_local == N &&
               c.fail_move_busy + c.fail_move_other == 0,
           "migrated %llu local %llu", (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local);
  return 0;
}

static int thp(void) {
  const size_t H = 2 << 20, NH = 8;
  char *raw = (char *)mmap(NULL, (NH + 1) * H, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *a = (char *)(((uintptr_t)raw + H - 1) & ~(H - 1));
  NT_CHECK(madvise(a, NH * H, MADV_HUGEPAGE) == 0, "MADV_HUGEPAGE");
  unsigned long mask = 1UL << (nodes - 1);
  mbind(a, NH * H, MPOL_BIND, &mask, 8 * sizeof mask, 0);
  for (size_t i = 0; i < NH * H; i += 64)
    a[i] = (char)(i >> 6);
  mbind(a, NH * H, MPOL_DEFAULT, NULL, 0, 0);
  long before = nt_anon_huge_kb(a);
  NT_CHECK(before == (long)(NH * H >> 10), "AnonHugePages %ld kB before",
           before);
  int cpu[NH];
  NT_CHECK(kmp_nexttouch(a, NH * H) == 0, "request");
#pragma omp parallel for schedule(static, 1)
  for (size_t h = 0; h < NH; h++) {
    cpu[h] = sched_getcpu();
    for (size_t i = 0; i < H; i += pg)
      a[h * H + i + 1] += 1;
  }
  long after = nt_anon_huge_kb(a);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(after == before, "AnonHugePages %ld kB -> %ld kB", before, after);
  NT_CHECK(c.faults == NH && c.batches == NH, "faults %llu batches %llu",
           (unsigned long long)c.faults, (unsigned long long)c.batches);
  NT_CHECK(c.pages_migrated + c.pages_already_local == NH * H / pg,
           "pages %llu + %llu", (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local);
  int *now = (int *)malloc(sizeof(int) * NH * H / pg);
  nt_nodes_of(a, NH * H / pg, now);
  for (size_t h = 0; h < NH; h++) {
    int want = numa_node_of_cpu(cpu[h]);
    for (size_t i = 0; i < H / pg; i++)
      if (now[h * (H / pg) + i] != want) {
        NT_CHECK(0, "huge page %zu, page %zu on node %d, toucher's node %d", h,
                 i, now[h * (H / pg) + i], want);
        break;
      }
  }
  for (size_t i = 0; i < NH * H; i += 64)
    if (a[i] != (char)(i >> 6) || (i % pg == 0 && a[i + 1] != 1)) {
      NT_CHECK(0, "byte %zu", i);
      break;
    }
  return 0;
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  nodes = numa_max_node() + 1;
  if (argc >= 3 && !strcmp(argv[1], "child")) {
    if (!strcmp(argv[2], "race"))
      race();
    else if (!strcmp(argv[2], "mech"))
      mech();
    else
      thp();
    kmp_nexttouch_counters_t c = nt_counters();
    if (!strcmp(getenv("KMP_NEXTTOUCH_MECHANISM"), "auto")) {
      int want = moves_prot_none() ? 1 : 2; // move_pages, mbind
      NT_CHECK(c.mechanism == want, "probed mechanism %d, want %d", c.mechanism,
               want);
    }
    printf("config %s %s: mechanism %d, %llu faults, %llu batches, "
           "%llu migrated, %llu local: %s\n",
           argv[2], argv[3], c.mechanism, (unsigned long long)c.faults,
           (unsigned long long)c.batches, (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local,
           nt_failures ? "FAILED" : "PASS");
    fflush(stdout);
    return nt_failures != 0;
  }
  printf("guest_races: %d nodes\n", nodes);
  struct {
    const char *test, *mech, *window, *bind;
  } cfg[] = {
      {"race", "auto", "adaptive", "spread"},
      {"race", "auto", "1", "spread"},
      {"race", "auto", "adaptive", "close"},
      {"race", "move_pages", "adaptive", "spread"},
      {"race", "move_pages", "1", "spread"},
      {"race", "mbind", "adaptive", "spread"},
      {"race", "mbind", "1", "spread"},
      {"mech", "move_pages", "1", "spread"},
      {"mech", "move_pages", "adaptive", "spread"},
      {"mech", "mbind", "1", "spread"},
      {"mech", "mbind", "adaptive", "spread"},
      {"thp", "auto", "1", "spread"},
      {"thp", "auto", "adaptive", "spread"},
      {"thp", "auto", "adaptive", "close"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++) {
    char name[128];
    snprintf(name, sizeof name, "mechanism=%s,window=%s,bind=%s", cfg[i].mech,
             cfg[i].window, cfg[i].bind);
    char *args[] = {argv[0], "child", (char *)cfg[i].test, name, NULL};
    const char *env[][2] = {{"KMP_NEXTTOUCH_MECHANISM", cfg[i].mech},
                            {"KMP_NEXTTOUCH_WINDOW", cfg[i].window},
                            {"OMP_PROC_BIND", cfg[i].bind},
                            {"OMP_PLACES", "cores"},
                            {"OMP_NUM_THREADS", "4"},
                            {NULL, NULL}};
    int rc = nt_run_self(args, env);
    NT_CHECK(rc == 0, "%s %s: exit status %d", cfg[i].test, name, rc);
  }
  return nt_done("guest_races");
}
