// Affinity-on-next-touch benchmark after Lankes' RFC: migrate an array
// (512 MB by default) with one int incremented per page by a parallel loop,
// first with libomp's engine (adaptive batches, then exact per-page mode),
// then with the naive user-level scheme (mprotect + SIGSEGV + move_pages per
// page), all in the same process on the same memory.  Before each variant the
// whole array is put back on node 0.  Prints times, ratios and placement.
//
// usage: nexttouch_512mb [MiB] [variants]   (variants: a=adaptive e=exact
//        n=naive, h=adaptive on transparent huge pages (the array is mapped
//        again with MADV_HUGEPAGE), default "aen"); run with OMP_NUM_THREADS=4 and
//        OMP_PROC_BIND=spread on >= 2 NUMA nodes (bench/dist.sh lankes).
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *array;
static size_t bytes, npages;
static long pg;
static int nodes;
static unsigned long node0_mask = 1;

static void put_on_node0(void) {
  // mbind with MPOL_MF_MOVE moves what is elsewhere, then drop the policy.
  if (mbind(array, bytes, MPOL_BIND, &node0_mask, 8 * sizeof(long),
            MPOL_MF_MOVE | MPOL_MF_STRICT) != 0)
    perror("mbind(node 0)");
  mbind(array, bytes, MPOL_DEFAULT, NULL, 0, 0);
}

static void placement(const char *name, long *per_node) {
  enum { CHUNK = 4096 };
  static void *pages[CHUNK];
  static int status[CHUNK];
  for (int n = 0; n <= nodes; n++)
    per_node[n] = 0;
  for (size_t i = 0; i < npages; i += CHUNK) {
    size_t k = npages - i < CHUNK ? npages - i : CHUNK;
    for (size_t j = 0; j < k; j++)
      pages[j] = array + (i + j) * pg;
    if (move_pages(0, k, pages, NULL, status, 0) != 0) {
      per_node[nodes] += k;
      continue;
    }
    for (size_t j = 0; j < k; j++)
      per_node[status[j] >= 0 && status[j] < nodes ? status[j] : nodes]++;
  }
  printf("  %-9s placement:", name);
  for (int n = 0; n < nodes; n++)
    printf(" node%d=%ld", n, per_node[n]);
  printf(" unknown=%ld\n", per_node[nodes]);
}

// --- the naive scheme --------------------------------------------------------
static volatile long naive_faults;
static int *cpu_node;
static int ncpus;

static void naive_handler(int sig, siginfo_t *si, void *uc) {
  char *a = (char *)si->si_addr;
  if (a < array || a >= array + bytes) {
    signal(SIGSEGV, SIG_DFL);
    return;
  }
  void *page = (void *)((unsigned long)a & ~(pg - 1));
  int cpu = sched_getcpu();
  int node = cpu >= 0 && cpu < ncpus ? cpu_node[cpu] : 0, status;
  // move_pages leaves PROT_NONE pages in place on some kernels: open first.
  mprotect(page, pg, PROT_READ | PROT_WRITE);
  move_pages(0, 1, &page, &node, &status, MPOL_MF_MOVE);
  __atomic_fetch_add(&naive_faults, 1, __ATOMIC_RELAXED);
}

static double touch_all(void) {
  double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
  for (size_t p = 0; p < npages; p++)
    ((int *)(array + p * pg))[0]++;
  return omp_get_wtime() - t0;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
  const char *variants = argc > 2 ? argv[2] : "aen";
  pg = sysconf(_SC_PAGESIZE);
  bytes = mib << 20;
  npages = bytes / pg;
  nodes = numa_max_node() + 1;
  ncpus = numa_num_configured_cpus();
  cpu_node = malloc(sizeof(int) * ncpus);
  for (int c = 0; c < ncpus; c++)
    cpu_node[c] = numa_node_of_cpu(c);
  FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");
  int bal = -1;
  if (f) {
    if (fscanf(f, "%d", &bal) != 1)
      bal = -1;
    fclose(f);
  }
  printf("nexttouch benchmark: %zu MiB, %zu pages of %ld bytes, %d threads, "
         "%d nodes, %d cpus, numa_balancing=%d\n",
         mib, npages, pg, omp_get_max_threads(), nodes, ncpus, bal);
  long per_node[65];
  double t_adapt = 0, t_exact = 0, t_naive = 0, t_huge = 0;
  int expect = 0x01010101, huge = -1;
  char *raw = NULL;
  size_t rawlen = 0;

  for (const char *v = variants; *v; v++) {
    if (huge < 0 || (*v == 'h') != huge) { // (re)map with the page size wanted
      if (raw)
        munmap(raw, rawlen);
      huge = *v == 'h';
      rawlen = bytes + (huge ? 2 << 20 : 0); // room to align to 2 MB
      raw = mmap(NULL, rawlen, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED)
        return perror("mmap"), 1;
      array = huge ? (char *)(((unsigned long)raw + (2 << 20) - 1) &
                              ~((2UL << 20) - 1))
                   : raw;
      madvise(array, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
      mbind(array, bytes, MPOL_BIND, &node0_mask, 8 * sizeof(long), 0);
      memset(array, 1, bytes);
      mbind(array, bytes, MPOL_DEFAULT, NULL, 0, 0);
      expect = 0x01010101;
    }
    put_on_node0();
    if (*v == 'a' || *v == 'e' || *v == 'h') {
      kmp_set_defaults(*v != 'e' ? "KMP_NEXTTOUCH_WINDOW=adaptive"
                                 : "KMP_NEXTTOUCH_WINDOW=1");
      kmp_reset_nexttouch_counters();
      int rc = kmp_nexttouch(array, bytes);
      double t = touch_all(); // arming happens at this fork: included
      expect++;
      kmp_nexttouch_counters_t c;
      c.size = sizeof c;
      kmp_get_nexttouch_counters(&c);
      const char *name = *v == 'a' ? "adaptive" : *v == 'h' ? "thp" : "exact";
      printf("engine %-8s: %10.1f ms  (rc %d, mechanism %d, armed %llu, "
             "faults %llu, batches %llu, migrated %llu, local %llu, "
             "failures %llu, fault path %.1f ms, arming %.1f ms)\n",
             name, t * 1e3, rc, c.mechanism,
             (unsigned long long)c.pages_armed, (unsigned long long)c.faults,
             (unsigned long long)c.batches,
             (unsigned long long)c.pages_migrated,
             (unsigned long long)c.pages_already_local,
             (unsigned long long)(c.fail_move_busy + c.fail_move_nomem +
                                  c.fail_move_other + c.fail_restore +
                                  c.fail_arm),
             c.fault_ns / 1e6, c.arm_ns / 1e6);
      placement(name, per_node);
      if (*v == 'a')
        t_adapt = t;
      else if (*v == 'h')
        t_huge = t;
      else
        t_exact = t;
    } else if (*v == 'n') {
      struct sigaction sa, old;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = naive_handler;
      sa.sa_flags = SA_SIGINFO;
      sigaction(SIGSEGV, &sa, &old);
      naive_faults = 0;
      mprotect(array, bytes, PROT_NONE); // before the clock, as in the RFC
      double t = touch_all();
      expect++;
      sigaction(SIGSEGV, &old, NULL);
      printf("naive          : %10.1f ms  (faults %ld)\n", t * 1e3,
             (long)naive_faults);
      placement("naive", per_node);
      t_naive = t;
    }
  }
  size_t bad = 0;
  for (size_t p = 0; p < npages; p++)
    bad += ((int *)(array + p * pg))[0] != expect;
  printf("checksum: %s (%zu pages wrong)\n", bad ? "WRONG" : "ok", bad);
  if (t_naive > 0 && t_adapt > 0)
    printf("ratio naive/adaptive: %.2f\n", t_naive / t_adapt);
  if (t_naive > 0 && t_exact > 0)
    printf("ratio naive/exact: %.2f\n", t_naive / t_exact);
  if (t_naive > 0 && t_huge > 0)
    printf("ratio naive/thp: %.2f\n", t_naive / t_huge);
  return bad != 0;
}
