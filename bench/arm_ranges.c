// arm_ranges.c -- how next-touch's costs grow with the number of ranges
// (bench/curves.sh, docs/Benchmarks.rst "Cost curves"). For each count N:
// N ranges of PAGES pages each, one unrequested page between two ranges (so
// that no two ranges merge), populated by the master thread; the request,
// then one parallel region whose fork arms them all and whose static loop
// touches every page of every range once (the faults), the join. The
// request is made two ways, each on its own fresh mapping:
//   directive  one __kmpc_nexttouch call with the N ranges, what
//              '#pragma omp nexttouch(r0 : m, r1 : m, ...)' compiles to
//   api        N calls of kmp_nexttouch(ptr, len), one per range
// Each count runs REPS times, the counts in the given order in odd
// repetitions and in reverse in even ones.
//
// One line per run:
//   AR_RUN where= nodes= threads= how= ranges= pages= rep= request_us=
//          arm_us= fault_us= disarm_us= region_us= armed= fail_arm=
//          faults= batches= migrated= already_local= ok=yes|no
// request_us: the request (one call, or N); arm_us, fault_us, disarm_us:
// the engine's timers (arm_ns at the fork, fault_ns summed over the threads,
// disarm_ns); region_us: the region's wall time (fork, arming, loop,
// faults, join). armed + fail_arm: the pages requested (the engine arms at
// most 1024 segments, one per disjoint range: docs/Design.rst, the rest
// count in fail_arm and stay where they are). ok: every page was counted
// armed or fail_arm, every armed page was handled by its touch, and every
// page holds its value.
//
// Natively (one node) it needs KMP_NEXTTOUCH_FORCE=1, or nothing is armed.
//
// usage: arm_ranges [counts (default 1,10,100,1000,10000)] [reps (3)]
//        [pages per range (1)]
#define _GNU_SOURCE
#include <numa.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static double now_us(void) { return omp_get_wtime() * 1e6; }

// What the directive compiles to (kmp.h): one call with every range.
typedef struct {
  int reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;
typedef struct {
  void *base;
  size_t count, elem_size;
} kmp_memory_range_t;
extern int __kmpc_global_thread_num(ident_t *);
extern int __kmpc_nexttouch(ident_t *, int, int, const kmp_memory_range_t *);
static ident_t loc = {0, 2, 0, 0, ";arm_ranges.c;run;1;1;;"};

static int run(long n, long pages, int rep, long pg, int nodes, int api) {
  long stride = pages + 1; // one unrequested page after each range
  size_t len = (size_t)n * stride * pg;
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return perror("mmap"), 2;
  madvise(m, len, MADV_NOHUGEPAGE);
  memset(m, 1, len);
  kmp_memory_range_t *rg = malloc(n * sizeof *rg);
  if (!rg)
    return perror("malloc"), 2;
  for (long r = 0; r < n; r++)
    rg[r] = (kmp_memory_range_t){m + r * stride * pg, pages * pg, 1};
  int gtid = __kmpc_global_thread_num(&loc);
  kmp_reset_nexttouch_counters();
  double t0 = now_us();
  int bad = 0;
  if (api)
    for (long r = 0; r < n; r++)
      bad += kmp_nexttouch(rg[r].base, rg[r].count) != 0;
  else
    bad = __kmpc_nexttouch(&loc, gtid, (int)n, rg) != 0;
  double t1 = now_us();
  free(rg);
  long total = n * pages;
#pragma omp parallel for schedule(static)
  for (long p = 0; p < total; p++)
    m[((p / pages) * stride + p % pages) * pg] += 1;
  double t2 = now_us();
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);
  int ok = !bad && c.pages_armed + c.fail_arm == (unsigned long long)total &&
           c.pages_migrated + c.pages_already_local == c.pages_armed;
  for (long p = 0; p < total && ok; p++)
    ok = m[((p / pages) * stride + p % pages) * pg] == 2;
  printf("AR_RUN where=%s nodes=%d threads=%d how=%s ranges=%ld pages=%ld "
         "rep=%d request_us=%.1f arm_us=%.1f fault_us=%.1f disarm_us=%.1f "
         "region_us=%.1f armed=%llu fail_arm=%llu faults=%llu batches=%llu "
         "migrated=%llu already_local=%llu ok=%s\n",
         getenv("BENCH_WHERE") ? getenv("BENCH_WHERE") : "unknown", nodes,
         omp_get_max_threads(), api ? "api" : "directive", n, pages, rep,
         t1 - t0, c.arm_ns / 1e3, c.fault_ns / 1e3, c.disarm_ns / 1e3, t2 - t1,
         (unsigned long long)c.pages_armed, (unsigned long long)c.fail_arm,
         (unsigned long long)c.faults,
         (unsigned long long)c.batches, (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local, ok ? "yes" : "no");
  fflush(stdout);
  munmap(m, len);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  char *counts = strdup(argc > 1 ? argv[1] : "1,10,100,1000,10000");
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  long pages = argc > 3 ? atol(argv[3]) : 1;
  long pg = sysconf(_SC_PAGESIZE);
  int nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  long list[64];
  int k = 0;
  for (char *s = strtok(counts, ","); s && k < 64; s = strtok(NULL, ","))
    list[k++] = atol(s);
  if (!k || reps < 1 || pages < 1)
    return fprintf(stderr, "usage: arm_ranges [counts] [reps] [pages]\n"), 2;
  // The engine's start-up (the process's first request), outside the runs.
  {
    char *w = mmap(NULL, pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    w[0] = 1;
    kmp_nexttouch(w, pg);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 1; i++)
      w[i]++;
    munmap(w, pg);
  }
  int rc = 0;
  for (int rep = 1; rep <= reps; rep++)
    for (int i = 0; i < k; i++)
      for (int api = 0; api < 2; api++)
        rc |= run(list[rep % 2 ? i : k - 1 - i], pages, rep, pg, nodes,
                  rep % 2 ? api : !api);
  return rc;
}
