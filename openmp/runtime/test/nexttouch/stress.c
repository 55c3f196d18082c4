// Stress: many threads, many regions, overlapping requests from several
// threads at once, readers racing for the same armed pages, and fork() in
// between.  Every region each thread requests an overlapping window of A
// (pending for the next region) and the primary requests B; the region
// increments every page of A once (schedule(dynamic)) while all threads read
// random pages of B; every FORK_EVERY regions a child process runs a region
// of its own over A and B and checks every byte.  At the end: every counter
// equals the number of regions and every other byte is intact (zero
// corrupted bytes).  The last region follows one request of all of A: with
// the exact window each page must then be on its toucher's node (checked
// where pages can move, i.e. in the NUMA guest).
//
// Usage: stress REGIONS SCALE [check-nodes]: SCALE times REGIONS regions
// (%nt-stress-scale: 1, or NT_STRESS_SCALE from make check-stress);
// guest_stress.c checks the nodes.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=8 \
// RUN:   %libomp-run 60 %nt-stress-scale | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=5 \
// RUN:   %libomp-run 40 %nt-stress-scale | FileCheck %s
// REQUIRES: linux
// CHECK: stress: PASS
#include "nexttouch_test.h"
#include <stdint.h>
#include <sys/wait.h>

enum { NA = 1024, NB = 128, FORK_EVERY = 15 };
static long pg;
static unsigned char *A, *B;

static unsigned char pat(long page, long off) {
  return (unsigned char)(page * 31 + off * 13 + (off >> 7));
}

// Bytes 8.. of every page hold the pattern; A's first 8 bytes a counter.
static long check(unsigned char *buf, long npages, long want_count) {
  long bad = 0;
  for (long p = 0; p < npages; p++) {
    unsigned char *a = buf + p * pg;
    uint64_t c;
    memcpy(&c, a, 8);
    if (want_count >= 0 && c != (uint64_t)want_count)
      bad += 8;
    for (long i = 8; i < pg; i++)
      bad += a[i] != pat(p, i);
  }
  return bad;
}

static unsigned rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (unsigned)*s;
}

static int cur_node(void) {
  unsigned cpu, node;
  return syscall(SYS_getcpu, &cpu, &node, NULL) == 0 ? (int)node : -1;
}

int main(int argc, char **argv) {
  long regions = argc > 1 ? atol(argv[1]) : 60;
  if (argc > 2)
    regions *= atol(argv[2]);
  int check_nodes = argc > 3 && !strcmp(argv[3], "check-nodes");
  pg = nt_pagesize();
  A = (unsigned char *)nt_map(NA * pg);
  B = (unsigned char *)nt_map(NB * pg);
  for (long p = 0; p < NA; p++)
    for (long i = 8; i < pg; i++)
      A[p * pg + i] = pat(p, i);
  for (long p = 0; p < NB; p++)
    for (long i = 0; i < pg; i++)
      B[p * pg + i] = pat(p, i);
  for (long p = 0; p < NB; p++) // B's counters are never written: zero
    memset(B + p * pg, 0, 8);
  static int node_of_touch[NA];
  long bad_reads = 0, children = 0, child_fail = 0, req_fail = 0;
  for (long r = 0; r < regions; r++) {
    int last = r == regions - 1;
    if (last)
      req_fail += kmp_nexttouch(A, NA * pg) != 0;
    else if (r % 3 == 0)
      req_fail += kmp_nexttouch(B, NB * pg) != 0;
#pragma omp parallel reduction(+ : bad_reads, req_fail)
    {
      uint64_t s = 0x9e3779b97f4a7c15ull * (r * 64 + omp_get_thread_num() + 1);
      if (!last) {
        // Overlapping windows of A from every thread, for the next region.
        long at = rnd(&s) % NA, len = 1 + rnd(&s) % (NA / 4);
        if (at + len > NA)
          len = NA - at;
        req_fail +=
            kmp_nexttouch(A + at * pg + rnd(&s) % 64, len * pg - 64) != 0;
      }
#pragma omp for schedule(dynamic, 3) nowait
      for (long p = 0; p < NA; p++) {
        uint64_t c;
        memcpy(&c, A + p * pg, 8);
        c++;
        memcpy(A + p * pg, &c, 8);
        node_of_touch[p] = cur_node();
        // Readers race for the same armed pages of B.
        long q = rnd(&s) % NB, i = 8 + rnd(&s) % (pg - 8);
        bad_reads += B[q * pg + i] != pat(q, i);
      }
    }
    if (r % FORK_EVERY == FORK_EVERY - 1) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) {
        long bad = 0;
#pragma omp parallel for schedule(static, 7) reduction(+ : bad)
        for (long p = 0; p < NA; p++) {
          uint64_t c;
          memcpy(&c, A + p * pg, 8);
          bad += c != (uint64_t)(r + 1);
          bad += A[p * pg + 100] != pat(p, 100);
        }
        bad += check(A, NA, r + 1) + check(B, NB, 0);
        _exit(bad ? 1 : 0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      children++;
      child_fail += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
  }
  long bad = check(A, NA, regions) + check(B, NB, 0);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(bad == 0, "%ld corrupted bytes", bad);
  NT_CHECK(bad_reads == 0, "%ld wrong reads of B in regions", bad_reads);
  NT_CHECK(child_fail == 0, "%ld of %ld children saw wrong data", child_fail,
           children);
  NT_CHECK(req_fail == 0, "%ld requests failed", req_fail);
  NT_CHECK(c.faults > 0 && c.pages_armed > 0, "the engine did nothing");
  long misplaced = 0;
  if (check_nodes) {
    int *nodes = (int *)malloc(sizeof(int) * NA);
    nt_nodes_of((char *)A, NA, nodes);
    for (long p = 0; p < NA; p++)
      misplaced += nodes[p] != node_of_touch[p];
    free(nodes);
    NT_CHECK(misplaced == 0, "%ld of %d pages not on their toucher's node",
             misplaced, NA);
  }
  printf("stress: %ld regions, %d threads, %ld children, %llu pages armed, "
         "%llu faults, %llu migrated, %llu serial, %llu fail_move, %ld "
         "misplaced%s\n",
         regions, omp_get_max_threads(), children,
         (unsigned long long)c.pages_armed, (unsigned long long)c.faults,
         (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_touched_serial,
         (unsigned long long)(c.fail_move_busy + c.fail_move_nomem +
                              c.fail_move_other),
         misplaced, check_nodes ? "" : " (nodes not checked)");
  return nt_done("stress");
}
