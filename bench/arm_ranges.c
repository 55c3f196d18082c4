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
// repetitions and in reverse in even ones. Before the request, the same
// layout on a mapping of its own gets mprotect(PROT_NONE) range by range,
// timed (mprotect_us): what one system call per armed mapping costs, the
// yardstick of arming (then opened again, untimed).
//
// One line per run:
//   AR_RUN where= nodes= threads= how= ranges= pages= rep= request_us=
//          arm_us= mprotect_us= fault_us= disarm_us= region_us= armed=
//          fail_arm= faults= batches= migrated= already_local= placed=
//          ok=yes|no
// request_us: the request (one call, or N); arm_us, fault_us, disarm_us:
// the engine's timers (arm_ns at the fork, fault_ns summed over the threads,
// disarm_ns); region_us: the region's wall time (fork, arming, loop,
// faults, join). armed + fail_arm: the pages requested (past the kernel's
// limit of mappings, vm.max_map_count, the rest count in fail_arm and stay
// where they are; each range and each gap is a mapping once armed). ok:
// every page was counted armed or fail_arm, every armed page was handled by
// its touch, and every page holds its value. placed: the share of the pages
// that are on the node of the thread that touched them (move_pages(2) asked
// after the region; "-" on one node). pages: a number, or LO-HI for
// sizes drawn at random (seeded) between the two, the same in every run.
//
// Natively (one node) it needs KMP_NEXTTOUCH_FORCE=1, or nothing is armed.
// With AR_RAISE_MAP_COUNT=1 (and the right to), a count that needs more
// mappings than vm.max_map_count allows raises it for the run and puts it
// back afterwards (AR_MAP_COUNT lines say so).
//
// usage: arm_ranges [counts (default 1,10,100,1000,10000)] [reps (3)]
//        [pages per range (1, or LO-HI)]
#define _GNU_SOURCE
#include <numa.h>
#include <numaif.h>
#include <sched.h>
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

static long lo_pages, hi_pages;

// The size of range r in pages.
static long pages_of(long r) {
  if (lo_pages == hi_pages)
    return lo_pages;
  unsigned long x = (unsigned long)r * 0x9e3779b97f4a7c15UL + 12345;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9UL;
  x ^= x >> 32;
  return lo_pages + (long)(x % (unsigned long)(hi_pages - lo_pages + 1));
}

// Where range r starts (in pages): one unrequested page after each range.
static long *starts;

// mprotect(PROT_NONE) of each range of a mapping of the same layout, timed.
static double time_mprotect(long n, size_t len, long pg) {
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  madvise(m, len, MADV_NOHUGEPAGE);
  memset(m, 1, len);
  double t0 = now_us();
  long done = 0;
  for (long r = 0; r < n; r++)
    done += mprotect(m + starts[r] * pg, pages_of(r) * pg, PROT_NONE) == 0;
  double t = now_us() - t0;
  munmap(m, len);
  return done == n ? t : -1;
}

static int run(long n, int rep, long pg, int nodes, int api) {
  long total = 0;
  for (long r = 0; r < n; r++) {
    starts[r] = total + r;
    total += pages_of(r);
  }
  size_t len = (size_t)(total + n) * pg;
  double mprotect_us = time_mprotect(n, len, pg);
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return perror("mmap"), 2;
  madvise(m, len, MADV_NOHUGEPAGE);
  memset(m, 1, len);
  kmp_memory_range_t *rg = malloc(n * sizeof *rg);
  long *at = malloc(total * sizeof *at); // the page of each touch
  if (!rg || !at)
    return perror("malloc"), 2;
  for (long r = 0, k = 0; r < n; r++) {
    rg[r] = (kmp_memory_range_t){m + starts[r] * pg, pages_of(r) * pg, 1};
    for (long p = 0; p < pages_of(r); p++)
      at[k++] = (starts[r] + p) * pg;
  }
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
  unsigned char *who = malloc(total); // the node of each page's toucher
  if (!who)
    return perror("malloc"), 2;
#pragma omp parallel
  {
    int cpu = sched_getcpu(), nd = cpu < 0 ? 0 : numa_node_of_cpu(cpu);
#pragma omp for schedule(static)
    for (long p = 0; p < total; p++) {
      m[at[p]] += 1;
      who[p] = (unsigned char)(nd < 0 ? 0 : nd);
    }
  }
  double t2 = now_us();
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);
  int ok = !bad && c.pages_armed + c.fail_arm == (unsigned long long)total &&
           c.pages_migrated + c.pages_already_local == c.pages_armed;
  for (long p = 0; p < total && ok; p++)
    ok = m[at[p]] == 2;
  char placed[16] = "-";
  if (nodes > 1) {
    enum { Q = 1024 };
    void *q[Q];
    int st[Q];
    long on = 0;
    for (long p = 0; p < total; p += Q) {
      int k = total - p < Q ? (int)(total - p) : Q;
      for (int i = 0; i < k; i++)
        q[i] = m + at[p + i];
      if (move_pages(0, k, q, NULL, st, 0) == 0)
        for (int i = 0; i < k; i++)
          on += st[i] == who[p + i];
    }
    snprintf(placed, sizeof placed, "%.4f", (double)on / total);
  }
  free(who);
  free(at);
  char pages[48];
  if (lo_pages == hi_pages)
    snprintf(pages, sizeof pages, "%ld", lo_pages);
  else
    snprintf(pages, sizeof pages, "%ld-%ld", lo_pages, hi_pages);
  printf("AR_RUN where=%s nodes=%d threads=%d how=%s ranges=%ld pages=%s "
         "total_pages=%ld rep=%d request_us=%.1f arm_us=%.1f mprotect_us=%.1f "
         "fault_us=%.1f disarm_us=%.1f "
         "region_us=%.1f armed=%llu fail_arm=%llu faults=%llu batches=%llu "
         "migrated=%llu already_local=%llu placed=%s ok=%s\n",
         getenv("BENCH_WHERE") ? getenv("BENCH_WHERE") : "unknown", nodes,
         omp_get_max_threads(), api ? "api" : "directive", n, pages, total, rep,
         t1 - t0, c.arm_ns / 1e3, mprotect_us, c.fault_ns / 1e3,
         c.disarm_ns / 1e3, t2 - t1,
         (unsigned long long)c.pages_armed, (unsigned long long)c.fail_arm,
         (unsigned long long)c.faults,
         (unsigned long long)c.batches, (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local, placed, ok ? "yes" : "no");
  fflush(stdout);
  munmap(m, len);
  return ok ? 0 : 1;
}

static long read_map_count(void) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  long v = -1;
  if (f) {
    if (fscanf(f, "%ld", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

static int write_map_count(long v) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "w");
  if (!f)
    return -1;
  int rc = fprintf(f, "%ld\n", v) > 0 ? 0 : -1;
  return fclose(f) == 0 ? rc : -1;
}

int main(int argc, char **argv) {
  char *counts = strdup(argc > 1 ? argv[1] : "1,10,100,1000,10000");
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  const char *ps = argc > 3 ? argv[3] : "1";
  lo_pages = hi_pages = atol(ps);
  if (strchr(ps, '-'))
    hi_pages = atol(strchr(ps, '-') + 1);
  long pg = sysconf(_SC_PAGESIZE);
  int nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  long list[64];
  int k = 0;
  for (char *s = strtok(counts, ","); s && k < 64; s = strtok(NULL, ","))
    list[k++] = atol(s);
  long most = 0;
  for (int i = 0; i < k; i++)
    most = list[i] > most ? list[i] : most;
  starts = malloc((most + 1) * sizeof *starts);
  if (!k || reps < 1 || lo_pages < 1 || hi_pages < lo_pages || !starts)
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
  // Armed, each range and each gap is a mapping: room for twice the
  // ranges, and the program's own.
  long old_limit = read_map_count(), need = 2 * most + 1000;
  int raised = 0;
  if (old_limit > 0 && old_limit < need && getenv("AR_RAISE_MAP_COUNT") &&
      atoi(getenv("AR_RAISE_MAP_COUNT")) && write_map_count(need) == 0)
    raised = 1;
  if (old_limit > 0)
    printf("AR_MAP_COUNT limit=%ld needed=%ld raised=%s\n", old_limit, need,
           raised ? "yes" : "no");
  int rc = 0;
  for (int rep = 1; rep <= reps; rep++)
    for (int i = 0; i < k; i++)
      for (int api = 0; api < 2; api++)
        rc |= run(list[rep % 2 ? i : k - 1 - i], rep, pg, nodes,
                  rep % 2 ? api : !api);
  if (raised)
    write_map_count(old_limit);
  return rc;
}
