// A transparent huge page behind base-page units, in a 2-node guest.  The
// kernel migrates a huge page whole, even where mprotect has split its
// mapping into 4 KB entries: mbind or move_pages on one of its pages takes
// the other 511 along.  The engine splits such huge pages when it arms their
// pages, so each page moves on its own.  (Found with guest_gfortran_cg.f90:
// khugepaged had made a huge page of the ends of two heap vectors and a
// thread's stack; thread 0's first batch took thread 1's half of a vector,
// already counted as local, to node 0.)
//
// A huge page is made on node 1 (MADV_HUGEPAGE, moved with move_pages,
// which then says -EBUSY for a page it moved: the test asks where the pages
// are instead).  Two threads, one per node, touch the requested pages with
// schedule(static): each page must be on its toucher's node, the pages of
// the huge page outside the request must stay on node 1, the counters must
// say as much, the data must be intact.  Cases, each in a fresh process:
//   edge   the request is the middle half of a PMD-mapped huge page (its
//          edges are 4 KB units);
//   pte    the same, the huge page's mapping split beforehand (mprotect):
//          a compound page mapped by 4 KB entries;
//   whole  KMP_NEXTTOUCH_THP=false: the whole huge page, in 4 KB units;
// with mbind (the default on the guest's kernel) and with move_pages.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all \
// RUN:   | FileCheck %s
// CHECK-COUNT-6: guest_thp_split {{.*}}: PASS
// CHECK: guest_thp_split all: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdint.h>

enum { HP = 512 }; // pages of a huge page (4 KB pages, 2 MB huge pages)

// 1 if the page at p is part of a huge page (KPF_THP in /proc/kpageflags,
// root only: the guest runs the test as root), 0 if not, -1 if unknown.
static int is_thp(void *p) {
  long pg = nt_pagesize();
  uint64_t ent = 0, flags = 0;
  int pm = open("/proc/self/pagemap", O_RDONLY), kf = -1, r = -1;
  if (pm >= 0 && pread(pm, &ent, 8, (off_t)((uintptr_t)p / pg * 8)) == 8 &&
      (ent >> 63) && (ent & ((1ull << 55) - 1)) &&
      (kf = open("/proc/kpageflags", O_RDONLY)) >= 0 &&
      pread(kf, &flags, 8, (off_t)((ent & ((1ull << 55) - 1)) * 8)) == 8)
    r = (flags >> 22) & 1;
  if (pm >= 0)
    close(pm);
  if (kf >= 0)
    close(kf);
  return r;
}

static int child(const char *cas, const char *name) {
  long pg = nt_pagesize();
  size_t H = (size_t)HP * pg;
  char *raw = (char *)mmap(NULL, 2 * H, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *h = (char *)(((uintptr_t)raw + H - 1) & ~(H - 1));
  madvise(h, H, MADV_HUGEPAGE);
  int threads = 0;
#pragma omp parallel
#pragma omp single
  threads = omp_get_num_threads(); // the initial thread is bound from here
  for (size_t i = 0; i < H; i++)
    h[i] = (char)(i * 7 + 3);
  // The whole huge page to node 1; ask where its pages are.
  void *pages[HP];
  int to[HP], now[HP], st[HP];
  for (int p = 0; p < HP; p++)
    pages[p] = h + p * pg, to[p] = 1;
  move_pages(0, HP, pages, to, st, MPOL_MF_MOVE);
  nt_nodes_of(h, HP, now);
  for (int p = 0; p < HP; p++)
    if (now[p] != 1) {
      NT_CHECK(0, "page %d on %d before the request", p, now[p]);
      break;
    }
  if (!strcmp(cas, "pte")) {
    // Split the mapping, not the page: a compound page mapped by 4 KB
    // entries (AnonHugePages no longer counts it).
    mprotect(h + 100 * pg, pg, PROT_READ);
    mprotect(h + 100 * pg, pg, PROT_READ | PROT_WRITE);
    NT_CHECK(nt_anon_huge_kb(h) == 0, "PMD still mapped: %ld kB",
             nt_anon_huge_kb(h));
  } else {
    NT_CHECK(nt_anon_huge_kb(h) >= (long)(H >> 10), "no huge page: %ld kB",
             nt_anon_huge_kb(h));
  }
  NT_CHECK(is_thp(h + 200 * pg) != 0, "page 200 is not in a huge page");
  // Requested pages [lo, hi) of the huge page.
  int lo = HP / 4, hi = 3 * HP / 4;
  if (!strcmp(cas, "whole"))
    lo = 0, hi = HP;
  NT_CHECK(kmp_nexttouch(h + lo * pg, (size_t)(hi - lo) * pg) == 0, "request");
  kmp_nexttouch_counters_t c0 = nt_counters();
  int owner[HP];
#pragma omp parallel for schedule(static)
  for (int p = lo; p < hi; p++) {
    h[p * pg + 1] += 1;
    owner[p] = numa_node_of_cpu(sched_getcpu());
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  nt_nodes_of(h, HP, now);
  int wrong = 0;
  unsigned long long want_migrated = 0, want_local = 0;
  for (int p = 0; p < HP; p++) {
    int want = p >= lo && p < hi ? owner[p] : 1;
    if (p >= lo && p < hi)
      owner[p] == 1 ? want_local++ : want_migrated++;
    if (now[p] != want && wrong++ < 5)
      NT_CHECK(0, "page %d (%s) on node %d, not %d", p,
               p >= lo && p < hi ? "requested" : "not requested", now[p], want);
  }
  unsigned long long migrated = c1.pages_migrated - c0.pages_migrated,
                     local = c1.pages_already_local - c0.pages_already_local;
  NT_CHECK(c1.pages_armed - c0.pages_armed == (unsigned)(hi - lo), "armed %llu",
           (unsigned long long)(c1.pages_armed - c0.pages_armed));
  NT_CHECK(migrated == want_migrated && local == want_local,
           "migrated %llu (want %llu), local %llu (want %llu)", migrated,
           want_migrated, local, want_local);
  NT_CHECK(want_migrated > 0 && want_local > 0, "both nodes touched");
  NT_CHECK(c1.fail_move_busy + c1.fail_move_nomem + c1.fail_move_other +
                   c1.fail_restore + c1.fail_arm ==
               0,
           "failures");
  for (size_t i = 0; i < H; i++) {
    char want =
        (char)(i * 7 + 3 +
               (i % pg == 1 && i / pg >= (size_t)lo && i / pg < (size_t)hi));
    if (h[i] != want) {
      NT_CHECK(0, "byte %zu", i);
      break;
    }
  }
  printf("guest_thp_split %s: %d threads, %d pages wrong, %llu migrated, "
         "%llu local: %s\n",
         name, threads, wrong, migrated, local,
         nt_failures ? "FAILED" : "PASS");
  fflush(stdout);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "child"))
    return child(argv[2], argv[3]);
  if (argc < 2 || strcmp(argv[1], "all")) {
    fprintf(stderr, "usage: %s all\n", argv[0]);
    return 2;
  }
  NT_CHECK(numa_available() >= 0 && numa_max_node() == 1, "2 nodes");
  const char *cases[] = {"edge", "pte", "whole"};
  const char *mechs[] = {"mbind", "move_pages"};
  for (int c = 0; c < 3; c++)
    for (int m = 0; m < 2; m++) {
      char name[64];
      snprintf(name, sizeof name, "%s %s", cases[c], mechs[m]);
      char *args[] = {argv[0], "child", (char *)cases[c], name, NULL};
      const char *env[][2] = {
          {"OMP_PROC_BIND", "spread"},
          {"OMP_NUM_THREADS", "2"},
          {"KMP_NEXTTOUCH_MECHANISM", mechs[m]},
          {"KMP_NEXTTOUCH_THP", strcmp(cases[c], "whole") ? NULL : "false"},
          {NULL, NULL}};
      int rc = nt_run_self(args, env);
      NT_CHECK(rc == 0, "%s: exit status %d", name, rc);
    }
  return nt_done("guest_thp_split all");
}
