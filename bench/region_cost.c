// region_cost.c -- what readonly costs per parallel region once its items
// are cached and unchanged (bench/readonly.sh and bench/curves.sh;
// docs/Benchmarks.rst). K items of ITEM_PAGES pages each (separate
// page-aligned mappings, written once by the master thread) are listed in
// every region through kmp_readonly_begin / kmp_readonly_ptrs /
// kmp_readonly_end (the clause's calls, __kmpc_readonly_*, do the same
// work); the first region makes the replicas, every later region finds them
// cached and unchanged. Each thread of a region takes its node's pointers to
// all items in one call (kmp_readonly_ptrs, the lookup __kmpc_readonly_ptrs
// makes for the clause) and reads one double through each. The reference is
// the same region without readonly, reading the originals through the
// program's own array of pointers.
//
// For each thread count T and item count K: BLOCKS blocks of R regions,
// alternating plain and readonly (plain, readonly, readonly, plain, ...),
// after one warm-up block of each. Two figures per block pair, per region:
//   cost  the time spent in readonly's calls: kmp_readonly_begin and
//         kmp_readonly_end (the master, outside the region) plus the slowest
//         thread's loop of lookups, less the slowest thread's loop over the
//         originals in the plain block;
//   wall  the whole region's time, readonly less plain: what the calls cost
//         plus whatever they cause elsewhere, but also the noise of the
//         region's fork and barriers, which in a guest with more vCPUs than
//         host cores (a barrier waits for a descheduled vCPU) is larger than
//         the cost itself.
// Each is the median over the block pairs, with the min and max over the
// pairs. Between two K the items are released (kmp_readonly_release(NULL,
// 0)).
//
// One line per (T, K):
//   RC_RESULT where= nodes= threads= items= item_pages= regions= blocks=
//             plain_us= readonly_us= cost_us= cost_min_us= cost_max_us=
//             wall_us= wall_min_us= wall_max_us= reused= refreshes=
//             replicas= ok=yes|no
// plain_us, readonly_us: the regions' medians over the blocks, per region;
// reused, refreshes, replicas: the readonly counters over the measured
// regions (unchanged items: every item x node reused, no refresh, no new
// replica); ok: every region read the right values and the counters say so.
//
// Natively (one node) it needs KMP_READONLY_FORCE=true, or no replica is
// made (the items are then read from the originals: still the per-region
// cost of the bookkeeping).
//
// usage: region_cost [threads (default 2, e.g. 1,2,4)] [items (1,16,256)]
//        [regions per block (200)] [blocks (10)] [item pages (4)]
#define _GNU_SOURCE
#include <numa.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MAX_BLOCKS = 200 };

static double **item;
static const void **ptrs;
static size_t *lens;
static long bad_reads;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// R regions of T threads, without or with readonly; seconds per region, and
// in *calls the seconds per region in begin, end and the slowest thread's
// loop.
static double block(int T, int K, int R, int ro, double *calls) {
  double t0 = omp_get_wtime(), in_calls = 0;
  long bad = 0;
  for (int r = 0; r < R; r++) {
    kmp_readonly_t h = NULL;
    double b0 = omp_get_wtime();
    if (ro && kmp_readonly_begin(K, ptrs, lens, NULL, &h) != 0)
      bad++;
    double b1 = omp_get_wtime(), slowest = 0;
#pragma omp parallel num_threads(T) reduction(+ : bad) reduction(max : slowest)
    {
      double l0 = omp_get_wtime();
      const void *const *rp = ro ? kmp_readonly_ptrs(h) : NULL;
      for (int i = 0; i < K; i++) { // each thread: every item's pointer
        const double *p = ro ? (const double *)rp[i] : item[i];
        bad += p[1] != (double)i;
      }
      slowest = omp_get_wtime() - l0;
    }
    double e0 = omp_get_wtime();
    if (ro)
      kmp_readonly_end(h);
    in_calls += (b1 - b0) + slowest + (omp_get_wtime() - e0);
  }
  bad_reads += bad;
  *calls = in_calls / R;
  return (omp_get_wtime() - t0) / R;
}

static void min_max(const double *v, int n, double *lo, double *hi) {
  *lo = *hi = v[0];
  for (int i = 1; i < n; i++)
    *lo = v[i] < *lo ? v[i] : *lo, *hi = v[i] > *hi ? v[i] : *hi;
}

int main(int argc, char **argv) {
  char *threads = strdup(argc > 1 ? argv[1] : "2");
  char *items = strdup(argc > 2 ? argv[2] : "1,16,256");
  int R = argc > 3 ? atoi(argv[3]) : 200;
  int B = argc > 4 ? atoi(argv[4]) : 10;
  long ipages = argc > 5 ? atol(argv[5]) : 4;
  long pg = sysconf(_SC_PAGESIZE);
  int nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  if (R < 1 || B < 2 || B > MAX_BLOCKS || ipages < 1)
    return fprintf(stderr, "region_cost: bad arguments\n"), 2;
  int most = 1; // the largest item count asked for
  {
    char *l = strdup(items), *save = NULL;
    for (char *ks = strtok_r(l, ",", &save); ks;
         ks = strtok_r(NULL, ",", &save))
      most = atoi(ks) > most ? atoi(ks) : most;
    free(l);
  }
  item = malloc(most * sizeof *item);
  ptrs = malloc(most * sizeof *ptrs);
  lens = malloc(most * sizeof *lens);
  if (!item || !ptrs || !lens)
    return perror("malloc"), 2;
  for (int i = 0; i < most; i++) {
    lens[i] = ipages * pg;
    item[i] = mmap(NULL, lens[i], PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (item[i] == MAP_FAILED)
      return perror("mmap"), 2;
    for (size_t j = 0; j < lens[i] / sizeof(double); j++)
      item[i][j] = (double)i;
    ptrs[i] = item[i];
  }
  const char *where = getenv("BENCH_WHERE") ? getenv("BENCH_WHERE") : "unknown";
  int rc = 0;
  for (char *ts = strtok(threads, ","); ts; ts = strtok(NULL, ",")) {
    int T = atoi(ts);
    char *ilist = strdup(items), *save = NULL;
    for (char *ks = strtok_r(ilist, ",", &save); ks;
         ks = strtok_r(NULL, ",", &save)) {
      int K = atoi(ks);
      if (T < 1 || K < 1 || K > most)
        return fprintf(stderr, "region_cost: bad T %d or K %d\n", T, K), 2;
      kmp_readonly_release(NULL, 0);
      bad_reads = 0;
      double unused;
      block(T, K, R, 0, &unused); // warm-up: the team, the replicas
      block(T, K, R, 1, &unused);
      kmp_reset_nexttouch_counters();
      double plain[MAX_BLOCKS], ro[MAX_BLOCKS], wall[MAX_BLOCKS],
          cost[MAX_BLOCKS];
      for (int b = 0; b < B; b++) {
        int ro_first = b % 2; // plain ro, ro plain, ...
        double cx, cy;
        double x = block(T, K, R, ro_first, &cx);
        double y = block(T, K, R, !ro_first, &cy);
        plain[b] = (ro_first ? y : x) * 1e6;
        ro[b] = (ro_first ? x : y) * 1e6;
        wall[b] = ro[b] - plain[b];
        cost[b] = (ro_first ? cx - cy : cy - cx) * 1e6;
      }
      kmp_nexttouch_counters_t c;
      memset(&c, 0, sizeof c);
      c.size = sizeof c;
      kmp_get_nexttouch_counters(&c);
      double wmin, wmax, cmin, cmax;
      min_max(wall, B, &wmin, &wmax);
      min_max(cost, B, &cmin, &cmax);
      // Every region listed K items; each node's threads used their node's
      // replica, kept: no refresh, no new replica.
      int ok = !bad_reads && c.readonly_regions == (unsigned long long)R * B &&
               c.readonly_refreshes == 0 && c.readonly_replicas == 0;
      printf(
          "RC_RESULT where=%s nodes=%d threads=%d items=%d item_pages=%ld "
          "regions=%d blocks=%d plain_us=%.3f readonly_us=%.3f cost_us=%.3f "
          "cost_min_us=%.3f cost_max_us=%.3f wall_us=%.3f wall_min_us=%.3f "
          "wall_max_us=%.3f reused=%llu refreshes=%llu replicas=%llu ok=%s\n",
          where, nodes, T, K, ipages, R, B, median(plain, B), median(ro, B),
          median(cost, B), cmin, cmax, median(wall, B), wmin, wmax,
          (unsigned long long)c.readonly_replicas_reused,
          (unsigned long long)c.readonly_refreshes,
          (unsigned long long)c.readonly_replicas, ok ? "yes" : "no");
      fflush(stdout);
      rc |= !ok;
    }
    free(ilist);
  }
  return rc;
}
