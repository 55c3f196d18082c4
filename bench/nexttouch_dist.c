// The distribution benchmark (Lankes' RFC): an array initialised serially
// (every page on node 0), then one pass of a parallel loop that touches each
// page once. Variants, each on a fresh array:
//
//   ours-default  kmp_nexttouch(array) before the loop (adaptive window, 4 KB)
//   ours-exact    the same with KMP_NEXTTOUCH_WINDOW=1 (one page per fault)
//   ours-thp      the same on transparent huge pages (madvise(MADV_HUGEPAGE))
//   oracle        no faults: in the loop's region each thread first moves its
//                 own pages (known in advance) with move_pages, in batches,
//                 to its node, then runs the loop
//   none          no migration: the loop alone, every page stays on node 0
//
// For profiling: ours-windowN (KMP_NEXTTOUCH_WINDOW=N, a fixed batch), and
// oracleN (the oracle with batches of N pages, N <= 1024), oracle-protN (the
// oracle plus mprotect: PROT_NONE before, each batch opened before its move).
//
// The time of a variant is its request (kmp_nexttouch; arming happens at the
// loop's fork) plus the loop. The user-level reference scheme is a separate
// program, bench/reference_nexttouch.c. One CSV row per variant and
// repetition (see bench_common.h); run by bench/dist.sh. In the CSV,
// fault_ms is the time in the fault path summed over threads (the engine's
// fault_ns), for the oracle the time in move_pages summed over threads.
//
// usage: nexttouch_dist MiB reps variant,variant,...
//   (odd repetitions run the variants in this order, even ones in reverse)
#include "bench_common.h"

enum { ORACLE_BATCH = 1024 }; // pages per move_pages call in the oracle

static void run_ours(const char *variant, int rep) {
  int huge = strcmp(variant, "ours-thp") == 0;
  char setting[64] = "KMP_NEXTTOUCH_WINDOW=adaptive";
  if (strcmp(variant, "ours-exact") == 0)
    strcpy(setting, "KMP_NEXTTOUCH_WINDOW=1");
  else if (strncmp(variant, "ours-window", 11) == 0) // ours-windowN: fixed N
    snprintf(setting, sizeof setting, "KMP_NEXTTOUCH_WINDOW=%s", variant + 11);
  kmp_set_defaults(setting);
  bench_map(huge);
  kmp_reset_nexttouch_counters();
  double t0 = now();
  int rc = kmp_nexttouch(array, bytes);
  touch_all(); // arming at this fork, faults during the loop, disarm at join
  double t = now() - t0;
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);
  if (rc != 0 || c.active != 1)
    printf("note: %s: kmp_nexttouch rc %d, active %d, forced %d\n", variant,
           rc, c.active, c.forced);
  unsigned long long failed = c.fail_arm + c.fail_move_busy +
                              c.fail_move_nomem + c.fail_move_other +
                              c.fail_restore;
  if (failed)
    printf("note: %s: %llu failures\n", variant, failed);
  csv_row(variant, rep, t * 1e3, c.arm_ns / 1e6, c.faults, c.batches,
          c.pages_migrated, c.pages_already_local, c.fault_ns / 1e6,
          c.disarm_ns / 1e6, local_percent(), checksum_ok(1));
  prof_row(variant, rep, t0);
  bench_unmap();
}

// oracle: batches of ORACLE_BATCH pages; oracleN: batches of N pages.
// oracle-protN: the same, plus the protection changes of a user-level
// next-touch without its faults: the whole array PROT_NONE before the
// region, and each batch opened with mprotect before its move_pages.
static void run_oracle(const char *variant, int rep) {
  int prot = strncmp(variant, "oracle-prot", 11) == 0;
  const char *num = variant + (prot ? 11 : 6);
  size_t batch = *num ? strtoul(num, NULL, 10) : ORACLE_BATCH;
  if (batch < 1 || batch > ORACLE_BATCH)
    batch = ORACLE_BATCH;
  bench_map(0);
  unsigned long long moved = 0, calls = 0;
  double in_move = 0; // seconds in move_pages, summed over threads
  double t0 = now();
  t_joined = 0;
  if (prot)
    mprotect(array, bytes, PROT_NONE);
#pragma omp parallel reduction(+ : moved, calls, in_move)
  {
    // This thread's pages under schedule(static): the same partition as the
    // loop below (same trip count, same team).
    int t = omp_get_thread_num();
    if (t < MAX_THREADS)
      t_enter[t] = now();
    size_t lo = npages, hi = 0;
#pragma omp for schedule(static)
    for (size_t p = 0; p < npages; p++) {
      if (p < lo)
        lo = p;
      hi = p + 1;
    }
    int node = my_node();
    void *pages[ORACLE_BATCH];
    int dest[ORACLE_BATCH], status[ORACLE_BATCH];
    double m0 = now();
    for (size_t p = lo; p < hi; p += batch) {
      size_t k = hi - p < batch ? hi - p : batch;
      for (size_t j = 0; j < k; j++)
        pages[j] = array + (p + j) * pg, dest[j] = node;
      if (prot)
        mprotect(array + p * pg, k * pg, PROT_READ | PROT_WRITE);
      if (nodes > 1 || getenv("BENCH_ORACLE_FORCE"))
        move_pages(0, k, pages, dest, status, MPOL_MF_MOVE);
      moved += k, calls++;
    }
    in_move += now() - m0;
    int me = node;
#pragma omp for schedule(static) nowait
    for (size_t p = 0; p < npages; p++) {
      ((int *)(array + p * pg))[0]++;
      toucher_node[p] = me;
    }
    if (t < MAX_THREADS)
      t_done[t] = now();
  }
  t_joined = now();
  double t = now() - t0;
  csv_row(variant, rep, t * 1e3, 0, 0, calls, moved, 0, in_move * 1e3, 0,
          local_percent(), checksum_ok(1));
  prof_row(variant, rep, t0);
  bench_unmap();
}

static void run_none(int rep) {
  bench_map(0);
  double t0 = now();
  touch_all();
  double t = now() - t0;
  prof_row("none", rep, t0);
  csv_row("none", rep, t * 1e3, 0, 0, 0, 0, 0, 0, 0, local_percent(),
          checksum_ok(1));
  bench_unmap();
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  char *variants = strdup(argc > 3 ? argv[3]
                                   : "ours-default,ours-exact,ours-thp,oracle,none");
  bench_setup(mib);
  printf("nexttouch_dist: %zu MiB, %zu pages of %ld B, %d threads, %d nodes, "
         "%d cpus\n", mib, npages, pg, omp_get_max_threads(), nodes, ncpus);
  // The engine starts at the first request of the process (topology from
  // hwloc, a probe of the kernel's migration calls): once per process, not
  // per request. Do it here, on a small buffer, outside the timed runs.
  {
    size_t len = 64 * pg;
    char *warm = mmap(NULL, len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(warm, 1, len);
    double t0 = now();
    kmp_nexttouch(warm, len);
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < 64; p++)
      warm[p * pg]++;
    printf("note: engine start-up + first 64-page request: %.1f ms (once per "
           "process, not in the timed runs)\n", (now() - t0) * 1e3);
    munmap(warm, len);
  }
  printf(CSV_HEADER "\n");
  // The variants of one repetition run one after the other, in the given
  // order in odd repetitions and in reverse in even ones (A B, B A, A B ...):
  // a change of the host's load, and whatever a run leaves behind for the
  // next, falls on every variant alike.
  char *order[64];
  int nv = 0;
  char *save = NULL;
  for (char *v = strtok_r(variants, ",", &save); v && nv < 64;
       v = strtok_r(NULL, ",", &save))
    order[nv++] = v;
  for (int rep = 1; rep <= reps; rep++) {
    for (int i = 0; i < nv; i++) {
      const char *v = order[rep % 2 ? i : nv - 1 - i];
      if (strncmp(v, "ours-", 5) == 0)
        run_ours(v, rep);
      else if (strncmp(v, "oracle", 6) == 0)
        run_oracle(v, rep);
      else if (strcmp(v, "none") == 0)
        run_none(rep);
      else
        return fprintf(stderr, "unknown variant %s\n", v), 2;
    }
  }
  return 0;
}
