// Shared by bench/nexttouch_dist.c and bench/reference_nexttouch.c: the
// array, its serial initialisation on node 0, the one-pass parallel loop, the
// placement check and the CSV line. Uses no next-touch code (the reference
// program must not depend on our engine).
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static char *array;           // the benchmark's array, page-aligned
static size_t bytes, npages;  // its size
static long pg;               // base page size
static int nodes;             // NUMA nodes
static int *cpu_node;         // CPU -> node, filled before any fault
static int ncpus;
static int *toucher_node;     // per page: node of the thread that touched it

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench_setup(size_t mib) {
  pg = sysconf(_SC_PAGESIZE);
  bytes = mib << 20;
  npages = bytes / pg;
  nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  ncpus = numa_num_configured_cpus();
  cpu_node = malloc(sizeof(int) * ncpus);
  for (int c = 0; c < ncpus; c++)
    cpu_node[c] = nodes > 1 ? numa_node_of_cpu(c) : 0;
  toucher_node = malloc(sizeof(int) * npages);
#pragma omp parallel // start (and bind) the team before timing anything
  ;
}

static const char *bench_where(void) {
  return getenv("BENCH_WHERE") ? getenv("BENCH_WHERE") : "unknown";
}

static int my_node(void) {
  int c = sched_getcpu();
  return c >= 0 && c < ncpus ? cpu_node[c] : 0;
}

// A fresh array, 2 MB aligned, initialised serially on node 0 (mbind during
// the memset), with 4 KB pages (huge = 0) or transparent huge pages.
static void bench_map(int huge) {
  size_t align = 2UL << 20;
  char *raw = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  array = (char *)(((unsigned long)raw + align - 1) & ~(align - 1));
  madvise(array, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  unsigned long node0 = 1;
  if (nodes > 1)
    mbind(array, bytes, MPOL_BIND, &node0, 8 * sizeof(long), 0);
  memset(array, 1, bytes);
  if (nodes > 1)
    mbind(array, bytes, MPOL_DEFAULT, NULL, 0, 0);
}

static void bench_unmap(void) {
  // the 2 MB-aligned array lies inside the raw mapping; unmap a superset
  munmap(array, bytes);
}

// The benchmark's parallel loop (Lankes' RFC): one int incremented per page,
// schedule(static), and the node of the thread that did it noted per page.
// Phases, for profiling: when each thread entered the region and finished
// its part of the loop (before the join barrier), and when the join ended.
enum { MAX_THREADS = 256 };
static double t_enter[MAX_THREADS], t_done[MAX_THREADS], t_joined;

static void touch_all(void) {
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    if (t < MAX_THREADS)
      t_enter[t] = now();
    int me = my_node();
#pragma omp for schedule(static) nowait
    for (size_t p = 0; p < npages; p++) {
      ((int *)(array + p * pg))[0]++;
      toucher_node[p] = me;
    }
    if (t < MAX_THREADS)
      t_done[t] = now();
  }
  t_joined = now();
}

// One "prof," line: from t0 (before the request) to the first thread in the
// region (the fork: arming happens there), each thread's loop (its faults),
// and from the last thread's end to after the join (disarming).
static void prof_row(const char *variant, int rep, double t0) {
  int nt = omp_get_max_threads() < MAX_THREADS ? omp_get_max_threads() : MAX_THREADS;
  double first = t_enter[0], last = t_done[0];
  for (int t = 1; t < nt; t++) {
    if (t_enter[t] < first)
      first = t_enter[t];
    if (t_done[t] > last)
      last = t_done[t];
  }
  const char *off = getenv("BENCH_REP_OFFSET");
  printf("prof,%s,%s,%d,fork_ms=%.1f", bench_where(), variant,
         rep + (off ? atoi(off) : 0), (first - t0) * 1e3);
  for (int t = 0; t < nt; t++)
    printf(",loop%d_ms=%.1f", t, (t_done[t] - t_enter[t]) * 1e3);
  printf(",join_ms=%.1f\n", (t_joined - last) * 1e3);
}

// Percent of pages on the node of the thread that touched them, and whether
// every page's first int is 0x01010101 + increments.
static double local_percent(void) {
  enum { CHUNK = 1024 };
  void *pages[CHUNK];
  int status[CHUNK];
  size_t local = 0;
  for (size_t i = 0; i < npages; i += CHUNK) {
    size_t k = npages - i < CHUNK ? npages - i : CHUNK;
    for (size_t j = 0; j < k; j++)
      pages[j] = array + (i + j) * pg;
    if (move_pages(0, k, pages, NULL, status, 0) != 0)
      continue;
    for (size_t j = 0; j < k; j++)
      local += status[j] == toucher_node[i + j];
  }
  return 100.0 * local / npages;
}

static int checksum_ok(int increments) {
  for (size_t p = 0; p < npages; p++)
    if (((int *)(array + p * pg))[0] != 0x01010101 + increments)
      return 0;
  return 1;
}

// One CSV row (the host script greps lines that start with "csv,").
#define CSV_HEADER                                                             \
  "csv,where,variant,rep,mib,pages,threads,nodes,time_ms,arm_ms,faults,"       \
  "batches,migrated,already_local,fault_ms,disarm_ms,local_pct,checksum"
static void csv_row(const char *variant, int rep, double t_ms, double arm_ms,
                    unsigned long long faults, unsigned long long batches,
                    unsigned long long migrated, unsigned long long local,
                    double fault_ms, double disarm_ms, double local_pct,
                    int ok) {
  // BENCH_REP_OFFSET: runs of one repetition each, numbered by the script
  const char *off = getenv("BENCH_REP_OFFSET");
  printf("csv,%s,%s,%d,%zu,%zu,%d,%d,%.3f,%.3f,%llu,%llu,%llu,%llu,%.3f,%.3f,%.2f,%s\n",
         bench_where(), variant, rep + (off ? atoi(off) : 0), bytes >> 20, npages, omp_get_max_threads(),
         nodes, t_ms, arm_ms, faults, batches, migrated, local, fault_ms,
         disarm_ms, local_pct, ok ? "ok" : "WRONG");
  fflush(stdout);
}
#endif
