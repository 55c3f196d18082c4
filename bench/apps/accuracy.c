// accuracy.c -- placement accuracy of next-touch, per access pattern.
//
// For each pattern: a fresh array of doubles (mmap, MADV_NOHUGEPAGE: 4 KiB
// pages) is initialised by one thread (so every page is on that thread's
// node, node 0 with OMP_PROC_BIND=spread), '#pragma omp nexttouch(a : n)',
// then ONE parallel loop that touches every page once (a[i] += 1) with the
// pattern's schedule. Then move_pages(2) (nodes=NULL) says where each page
// is, and the program counts the pages that are on the node of the page's
// first toucher.
//
// First toucher: the thread that runs the loop iteration on the page's first
// element; the loop records it (owner[page] = thread, written when a thread
// handles element 0 of the page). Every pattern below gives whole pages to a
// thread (chunks are multiples of a page, the array is page-aligned and a
// whole number of pages), so each page is touched by exactly one thread: the
// first toucher is the only toucher, whatever the timing. The loop also
// records the thread of each page's last element, and the report counts the
// pages where the two differ (shared=, always 0 for these patterns); a
// pattern with shared pages would count them against the owner of element 0.
// The thread's node is its CPU's node (sched_getcpu + numa_node_of_cpu),
// read inside the same region, which is the node the engine migrates to for
// a thread whose place lies in one node.
//
// Patterns (P = elements per page = 512 doubles for 4 KiB pages):
//   block      schedule(static)              one contiguous block per thread
//   cyclicK    schedule(static, K*P)         K = 1, 2, 3, 64, 100 pages
//   dynamic1   schedule(dynamic, P)          one page per chunk, first come
//   irregular  pages in a random permutation (fixed seed); schedule(static)
//              over the permutation, so each thread takes a contiguous part
//              of it and touches its pages through the indirection, each
//              page's elements in order
//
// Output, one line per pattern (key=value):
//   NT_ACC nodes= threads= thread_nodes= window= pattern= pages= local=
//     pct_local= pre_pct_local= shared= untouched= not_placed= pages_armed=
//     faults= batches= pages_migrated= pages_already_local= pages_disarmed=
//     still_armed= faults_per_page= pages_per_batch= misplaced_by_thread=
//     target= target_met=yes|no time_ms= arm_ms= check=ok|FAILED
// pct_local: % of the pages on their first toucher's node after the loop;
// pre_pct_local: the same before the request (where serial init left them:
// 100/nodes); not_placed: pages move_pages could not place (not present,
// error); faults_per_page = faults / (pages_migrated + pages_already_local);
// pages_per_batch = (pages_migrated + pages_already_local) / batches;
// misplaced_by_thread: for each thread, pages it touched first that are not
// on its node. window: KMP_NEXTTOUCH_WINDOW as set in the environment
// ("default" when unset, "exact" for 1). Targets: 99 % for block,
// 95 % for the others. The counters are reset right before the directive
// and read right after the loop.
//
// Exit status: 0, or 1 if a pattern's data check failed (every element must
// be its initial value + 1 after the loop), 2 on a setup error. Missing a
// target does not change the exit status.
//
// With --map K, also one line per pattern with the first K pages:
//   NT_ACC_MAP window= pattern= runs= longest= first_runs=p:len,...
//              owner=0011.. node=0001..
// runs: maximal runs of consecutive misplaced pages (count, longest, the
// first 8 as first page:length), owner: the first toucher's node for each of
// the first K pages, node: where that page is after the loop ('?' unknown):
// a picture of where batches went wrong.
//
// usage: accuracy [--mib M (default 64)] [--patterns p1,p2,...] [--map K]
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAX_THREADS = 256, QCHUNK = 1024 };
enum { PAT_BLOCK, PAT_CYCLIC, PAT_DYNAMIC, PAT_IRREGULAR };

typedef struct {
  const char *name;
  int kind;
  long chunk_pages; // cyclic/dynamic chunk in pages
  double target;    // % of pages on the first toucher's node
} pattern_t;

static const pattern_t patterns[] = {
    {"block", PAT_BLOCK, 0, 99},        {"cyclic1", PAT_CYCLIC, 1, 95},
    {"cyclic2", PAT_CYCLIC, 2, 95},     {"cyclic3", PAT_CYCLIC, 3, 95},
    {"cyclic64", PAT_CYCLIC, 64, 95},   {"cyclic100", PAT_CYCLIC, 100, 95},
    {"dynamic1", PAT_DYNAMIC, 1, 95},   {"irregular", PAT_IRREGULAR, 0, 95},
};
enum { NPAT = sizeof patterns / sizeof patterns[0] };

static long pagesize, map_pages;
static int nthreads, nodes;
static int thread_node[MAX_THREADS];

static double init_value(size_t i) { return (double)(i % 1009) * 0.5; }

static int node_of_cpu(int cpu) {
  int n = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;
  return n < 0 ? 0 : n;
}

// Node of each page of [base, base + npages * pagesize), -errno if unknown.
static void query_nodes(char *base, long npages, int *node) {
  void *pages[QCHUNK];
  for (long p = 0; p < npages; p += QCHUNK) {
    long k = npages - p < QCHUNK ? npages - p : QCHUNK;
    for (long j = 0; j < k; j++)
      pages[j] = base + (p + j) * pagesize;
    if (syscall(SYS_move_pages, 0, k, pages, NULL, node + p, 0) != 0)
      for (long j = 0; j < k; j++)
        node[p + j] = -errno;
  }
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// a[i] += 1 over the pattern; owner[p] / last[p]: the thread that handled the
// first / last element of page p.
static void run_loop(const pattern_t *pt, double *a, size_t n, size_t epp,
                     const long *perm, long npages, int *owner, int *last) {
  long chunk = (long)(pt->chunk_pages * epp);
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    if (t < MAX_THREADS)
      thread_node[t] = node_of_cpu(sched_getcpu());
    switch (pt->kind) {
    case PAT_BLOCK:
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; i++) {
        if (i % epp == 0)
          owner[i / epp] = t;
        a[i] += 1.0;
        if (i % epp == epp - 1)
          last[i / epp] = t;
      }
      break;
    case PAT_CYCLIC:
#pragma omp for schedule(static, chunk)
      for (size_t i = 0; i < n; i++) {
        if (i % epp == 0)
          owner[i / epp] = t;
        a[i] += 1.0;
        if (i % epp == epp - 1)
          last[i / epp] = t;
      }
      break;
    case PAT_DYNAMIC:
#pragma omp for schedule(dynamic, chunk)
      for (size_t i = 0; i < n; i++) {
        if (i % epp == 0)
          owner[i / epp] = t;
        a[i] += 1.0;
        if (i % epp == epp - 1)
          last[i / epp] = t;
      }
      break;
    case PAT_IRREGULAR:
#pragma omp for schedule(static)
      for (long j = 0; j < npages; j++) {
        long p = perm[j];
        double *q = a + (size_t)p * epp;
        owner[p] = t;
        for (size_t e = 0; e < epp; e++)
          q[e] += 1.0;
        last[p] = t;
      }
      break;
    }
  }
}

static int run_pattern(const pattern_t *pt, long npages, const char *window) {
  size_t bytes = (size_t)npages * pagesize, epp = pagesize / sizeof(double);
  size_t n = (size_t)npages * epp;
  double *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int *owner = malloc(npages * sizeof *owner);
  int *last = malloc(npages * sizeof *last);
  int *pre = malloc(npages * sizeof *pre);
  int *post = malloc(npages * sizeof *post);
  long *perm = malloc(npages * sizeof *perm);
  if (a == MAP_FAILED || !owner || !last || !pre || !post || !perm) {
    perror("accuracy: allocation");
    exit(2);
  }
  madvise(a, bytes, MADV_NOHUGEPAGE); // 4 KiB pages whatever the THP mode
  for (long p = 0; p < npages; p++)
    owner[p] = last[p] = -1, perm[p] = p;
  uint64_t seed = 20261123;
  for (long p = npages - 1; p > 0; p--) { // Fisher-Yates
    long q = (long)(splitmix(&seed) % (uint64_t)(p + 1));
    long x = perm[p];
    perm[p] = perm[q], perm[q] = x;
  }
  for (size_t i = 0; i < n; i++) // serial: every page on this thread's node
    a[i] = init_value(i);
  query_nodes((char *)a, npages, pre);

  kmp_reset_nexttouch_counters();
#pragma omp nexttouch(a : n)
  double t0 = omp_get_wtime();
  run_loop(pt, a, n, epp, perm, npages, owner, last);
  double t1 = omp_get_wtime();
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);

  query_nodes((char *)a, npages, post);
  long local = 0, pre_local = 0, shared = 0, untouched = 0, not_placed = 0;
  long misplaced[MAX_THREADS] = {0};
  for (long p = 0; p < npages; p++) {
    int t = owner[p];
    if (t < 0 || t >= MAX_THREADS) {
      untouched++;
      continue;
    }
    if (last[p] != t)
      shared++;
    int want = thread_node[t];
    pre_local += pre[p] == want;
    if (post[p] < 0)
      not_placed++;
    if (post[p] == want)
      local++;
    else
      misplaced[t]++;
  }
  if (map_pages > 0) {
    long k = map_pages < npages ? map_pages : npages;
    long runs = 0, longest = 0, len = 0;
    printf("NT_ACC_MAP window=%s pattern=%s", window, pt->name);
    char buf[256] = "";
    for (long p = 0; p <= npages; p++) {
      int bad = p < npages && owner[p] >= 0 && owner[p] < MAX_THREADS &&
                post[p] != thread_node[owner[p]];
      if (bad) {
        len++;
        continue;
      }
      if (len) {
        if (runs < 8)
          snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%ld:%ld",
                   runs ? "," : "", p - len, len);
        runs++;
        longest = len > longest ? len : longest;
        len = 0;
      }
    }
    printf(" runs=%ld longest=%ld first_runs=%s owner=", runs, longest,
           runs ? buf : "-");
    for (long p = 0; p < k; p++) {
      int t = owner[p];
      putchar(t >= 0 && t < MAX_THREADS ? '0' + thread_node[t] % 10 : '?');
    }
    printf(" node=");
    for (long p = 0; p < k; p++)
      putchar(post[p] >= 0 ? '0' + post[p] % 10 : '?');
    printf("\n");
  }
  int ok = 1;
  for (size_t i = 0; i < n; i++)
    if (a[i] != init_value(i) + 1.0) {
      ok = 0;
      break;
    }

  uint64_t handled = c.pages_migrated + c.pages_already_local;
  uint64_t settled = handled + c.pages_disarmed + c.pages_touched_serial +
                     c.pages_expired + c.fail_move_busy + c.fail_move_nomem +
                     c.fail_move_other;
  double pct = 100.0 * local / npages;
  printf("NT_ACC nodes=%d threads=%d thread_nodes=", nodes, nthreads);
  for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
    printf("%s%d", t ? "," : "", thread_node[t]);
  printf(" window=%s pattern=%s pages=%ld local=%ld pct_local=%.2f"
         " pre_pct_local=%.2f shared=%ld untouched=%ld not_placed=%ld",
         window, pt->name, npages, local, pct, 100.0 * pre_local / npages,
         shared, untouched, not_placed);
  printf(" pages_armed=%llu faults=%llu batches=%llu pages_migrated=%llu"
         " pages_already_local=%llu pages_disarmed=%llu still_armed=%llu",
         (unsigned long long)c.pages_armed, (unsigned long long)c.faults,
         (unsigned long long)c.batches, (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local,
         (unsigned long long)c.pages_disarmed,
         (unsigned long long)(c.pages_armed > settled ? c.pages_armed - settled
                                                      : 0));
  if (handled)
    printf(" faults_per_page=%.4f", (double)c.faults / handled);
  else
    printf(" faults_per_page=-");
  if (c.batches)
    printf(" pages_per_batch=%.1f", (double)handled / c.batches);
  else
    printf(" pages_per_batch=-");
  printf(" misplaced_by_thread=");
  for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
    printf("%s%ld", t ? "," : "", misplaced[t]);
  printf(" target=%.0f target_met=%s time_ms=%.1f arm_ms=%.1f check=%s\n",
         pt->target, pct >= pt->target ? "yes" : "no", (t1 - t0) * 1e3,
         c.arm_ns / 1e6, ok ? "ok" : "FAILED");
  fflush(stdout);

  munmap(a, bytes);
  free(owner), free(last), free(pre), free(post), free(perm);
  return ok;
}

int main(int argc, char **argv) {
  long mib = 64;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--mib") && i + 1 < argc)
      mib = atol(argv[++i]);
    else if (!strcmp(argv[i], "--map") && i + 1 < argc)
      map_pages = atol(argv[++i]);
    else if (!strcmp(argv[i], "--patterns") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr,
              "usage: accuracy [--mib M] [--patterns block,cyclic1,...] "
              "[--map K]\n");
      return 2;
    }
  }
  pagesize = sysconf(_SC_PAGESIZE);
  nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  const char *w = getenv("KMP_NEXTTOUCH_WINDOW");
  const char *window = !w || !*w || !strcmp(w, "adaptive") ? "default"
                       : !strcmp(w, "1")                    ? "exact"
                                                            : w;
  // Bind the team (OMP_PROC_BIND) before the serial initialisations, so that
  // they put the pages on the master thread's node.
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
  }
  long npages = mib * (1024 * 1024 / pagesize);
  if (npages < 1 || nthreads > MAX_THREADS) {
    fprintf(stderr, "accuracy: bad size or too many threads\n");
    return 2;
  }
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);
  printf("NT_ACC_INFO nodes=%d threads=%d window=%s mib=%ld pages=%ld "
         "pagesize=%ld mechanism=%d\n",
         nodes, nthreads, window, mib, npages, pagesize, c.mechanism);
  fflush(stdout);
  int ok = 1;
  for (int i = 0; i < NPAT; i++) {
    if (only) {
      size_t l = strlen(patterns[i].name);
      const char *s = only;
      int found = 0;
      while (*s && !found) {
        found = !strncmp(s, patterns[i].name, l) && (s[l] == ',' || !s[l]);
        s = strchr(s, ',');
        s = s ? s + 1 : "";
      }
      if (!found)
        continue;
    }
    ok &= run_pattern(&patterns[i], npages, window);
  }
  return ok ? 0 : 1;
}
