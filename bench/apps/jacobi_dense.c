// jacobi_dense.c -- the Jacobi solver of Lankes et al. (ROSS'12, "Node-Based
// Memory Management for Scalable NUMA Architectures"): a dense system
// A x = b, A (n x n, diagonally dominant) and b initialised once and then
// only read by the solver, x and xnew written in every iteration:
//
//   xnew_i = (b_i - sum_{j != i} a_ij x_j) / a_ii
//
// one '#pragma omp parallel' with a 'for schedule(static)' over the rows per
// iteration, as in their "while (!found_solution) parallel for" loop. One
// process runs one of four variants of how A and b reach the solver's
// threads:
//
//   seq        serial initialisation (every page on the master's node), no
//              help: the paper's "pinned threads, seq. initialization"
//   nexttouch  serial initialisation, then
//              '#pragma omp nexttouch(A[0 : n * n], b[0 : n])' before the
//              solver: the first iteration moves each page to its reader
//   readonly   serial initialisation; every iteration's region lists A and b
//              as readonly: each thread reads them from its node's replica
//              (made in the first region, kept across regions): the paper's
//              "page table per node". By default through the runtime API
//              (kmp_readonly_begin, kmp_readonly_ptr once per thread and
//              region, kmp_readonly_end); built with -DUSE_READONLY_CLAUSE,
//              through the clause
//              '#pragma omp parallel for readonly(A[0 : n * n], b[0 : n])'
//              (needs a clang that has it)
//   ideal      parallel initialisation with the solver's schedule (first
//              touch places each row on the node of the thread that reads
//              it): the paper's "ideal initialization"
//   oracle     serial initialisation, then the best migration a program
//              that knows its partition can do, in the first iteration
//              (timed with it, as nexttouch's faults are): every page of A
//              and b moved to the node of the thread that reads the row in
//              the middle of the page, by move_pages(2) in batches of 1024
//              pages from one thread per node (the page lists are made
//              before the clock starts)
//
// Verification: x_true is known and b = A x_true; with x_0 = 0 the error
// after K iterations is at most q^K ||x_true||_inf, q = max_i
// sum_{j != i} |a_ij| / a_ii (< 1/2 here). The program checks that bound, the
// residual ||b - A x_K||_inf / ||b||_inf and prints a checksum of x_K, which
// is the same bit for bit in every variant (same schedule, same arithmetic).
//
// What it prints (one process, one variant; fields "key=value"):
//
//   RO_INFO    variant= api=runtime|clause nodes= threads= thread_nodes=
//              n= iters= a_bytes= b_bytes= pagesize=
//   RO_ITER    variant= it= ms=                     (one per iteration)
//   RO_THREAD  variant= t= cpu= node= rows= a_ptr= a_bytes= a_local_bytes=
//              b_bytes= b_local_bytes= a_nodes=n0:pages,n1:pages,...
//   RO_RESULT  variant= nodes= threads= n= iters= init_ms= first_ms=
//              steady_ms= mean_ms= total_ms= local_reads= local_a= local_b=
//              rss_before= rss_after= rss_delta= (replicas etc., bytes)
//              ro_regions= ro_replicas= ro_bytes_replicated=
//              ro_bytes_first= ro_replicas_reused= ro_refreshes=
//              ro_serial_writes= ro_write_traps= ro_fallback_one_node=
//              ro_fallback_budget= ro_fallback_unreplicable= ro_replica_ns=
//              ro_ns_first= ro_us_per_page= ro_ms_per_mib=
//              floor_alloc_us_per_page= floor_copy_us_per_page= replica_bytes=
//              nt_pages_armed= nt_pages_migrated= nt_pages_already_local=
//              nt_faults= oracle_calls= oracle_on_node= oracle_ms= err= bound=
//              resid= checksum= result=VERIFIED|FAILED
//
// first_ms: the first iteration (it pays for the next-touch migration or the
// replication); steady_ms: median of the others; mean_ms: all of them.
// local_reads: bytes of A and b that the threads read from pages on their
// own node / all bytes of A and b they read, over one iteration (each thread
// reads its rows of A and its entries of b once per iteration): for each
// thread, move_pages(2) status (nodes=NULL) of the pages under the address
// it actually used in the last iteration (the replica's for readonly),
// weighted by the bytes of its rows on each page. ro_*: libomp's readonly
// counters (kmp_get_nexttouch_counters), reset before the solver;
// *_first: after the first iteration. ro_us_per_page / ro_ms_per_mib: time
// the runtime spent making the replicas (summed over the nodes, each copying
// into its own memory) per 4 KiB page / per MiB copied, first iteration.
// floor_*: the same work done plainly by the master thread after the solver
// (readonly variant only): a fresh mapping of up to 64 MiB populated with
// MADV_POPULATE_WRITE, then memcpy from A, per 4 KiB page; what a replica
// costs at least on this machine. replica_bytes: bytes the replicas hold
// (readonly_replicas x the item's pages). rss_delta: resident memory after the
// solver minus before it.
//
// oracle_*: the oracle's move_pages calls, the pages on their node after
// them, its time (part of first_ms); 0 for the other variants.
//
// usage: jacobi_dense --variant seq|nexttouch|readonly|ideal|oracle [n (default
//        8192)] [iterations (default 10)]
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAX_THREADS = 256, MAX_ITERS = 10000, MAX_NODES = 64 };
enum { V_SEQ, V_NEXTTOUCH, V_READONLY, V_IDEAL, V_ORACLE };
static const char *const variant_names[] = {"seq", "nexttouch", "readonly",
                                            "ideal", "oracle"};
enum { ORACLE_BATCH = 1024 };

// What each thread used in the last iteration.
typedef struct {
  const double *a; // address of its first row of A as it read it
  const double *b; // address of its first entry of b as it read it
  long lo, hi;     // its rows, lo..hi (hi < lo: none)
  int cpu, node;
  int measured;  // la, lb and the nodes below are set (measure_used)
  size_t la, lb; // bytes of its rows of A and of b on its node
  long a_nodes[MAX_NODES + 1], b_nodes[MAX_NODES + 1]; // pages per node
  char pad[64];
} used_t;

static used_t used[MAX_THREADS];
static long pagesize;

// Element (i, j) of A off the diagonal, in [0, 1): a hash of i * n + j, so
// that every variant builds the same matrix in any order.
static inline double a_offdiag(uint64_t k) {
  k = (k + 1) * 0x9E3779B97F4A7C15ull;
  k ^= k >> 31;
  k *= 0xBF58476D1CE4E5B9ull;
  k ^= k >> 29;
  return (double)(k >> 11) * 0x1.0p-53;
}

static inline double x_true(long i) { return 1.0 + (double)(i % 17) / 16.0; }

// Row i of A and b_i = (A x_true)_i. a_ii = 2 * (sum of the row's
// off-diagonal elements) + 1, so q < 1/2.
static void init_row(double *A, double *b, long n, long i) {
  double *row = A + i * n, off = 0;
  for (long j = 0; j < n; j++) {
    double v = j == i ? 0 : a_offdiag((uint64_t)i * n + j);
    row[j] = v;
    off += v;
  }
  row[i] = 2 * off + 1;
  double s = 0;
  for (long j = 0; j < n; j++)
    s += row[j] * x_true(j);
  b[i] = s;
}

static int node_of_cpu(int cpu) {
  int n = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;
  return n < 0 ? 0 : n;
}

static long rss_bytes(void) {
  long size = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
      res = 0;
    fclose(f);
  }
  return res * pagesize;
}

// Bytes of [p, p + len) on pages of node `node` (move_pages status); adds
// the pages per node to per_node (index MAX_NODES: not placed).
static size_t local_bytes(const void *p, size_t len, int node, long *per_node) {
  if (!len)
    return 0;
  uintptr_t s = (uintptr_t)p, e = s + len, pg = (uintptr_t)pagesize;
  uintptr_t first = s & ~(pg - 1);
  long npages = (long)((e - first + pg - 1) / pg);
  size_t local = 0;
  enum { CHUNK = 1024 };
  void *pages[CHUNK];
  int status[CHUNK];
  for (long q = 0; q < npages; q += CHUNK) {
    long k = npages - q < CHUNK ? npages - q : CHUNK;
    for (long j = 0; j < k; j++)
      pages[j] = (void *)(first + (q + j) * pg);
    if (syscall(SYS_move_pages, 0, k, pages, NULL, status, 0) != 0)
      for (long j = 0; j < k; j++)
        status[j] = -errno;
    for (long j = 0; j < k; j++) {
      uintptr_t ps = first + (q + j) * pg, pe = ps + pg;
      uintptr_t bs = ps > s ? ps : s, be = pe < e ? pe : e;
      int st = status[j];
      per_node[st >= 0 && st < MAX_NODES ? st : MAX_NODES]++;
      if (st == node)
        local += be - bs;
    }
  }
  return local;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif

// The floor for a replica's cost, in this process on the calling thread's
// node: allocate a fresh private mapping of up to 64 MiB
// (MADV_POPULATE_WRITE, as the runtime does), copy that much of src into it,
// free it. Sets the microseconds per 4 KiB page for the allocation and for
// the copy.
static void copy_floor(const void *src, size_t bytes, double *alloc_us,
                       double *copy_us) {
  size_t len = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20);
  len &= ~(size_t)(pagesize - 1);
  *alloc_us = *copy_us = -1;
  if (!len)
    return;
  double t0 = omp_get_wtime();
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (m == MAP_FAILED)
    return;
  if (madvise(m, len, MADV_POPULATE_WRITE) != 0)
    memset(m, 0, len);
  double t1 = omp_get_wtime();
  memcpy(m, src, len);
  double t2 = omp_get_wtime();
  munmap(m, len);
  *alloc_us = (t1 - t0) * 1e6 / (len / 4096.0);
  *copy_us = (t2 - t1) * 1e6 / (len / 4096.0);
}

// The oracle's plan: each page of [p, p + len) (an array of n rows of
// row_bytes) goes to the node of the thread that reads the row in the
// middle of the page's part of it under schedule(static); appended to
// list[node].
static void oracle_plan(const void *p, size_t len, size_t row_bytes,
                        const long *row_lo, const long *row_hi,
                        const int *tnode, int nthreads, void **list[],
                        long *count) {
  uintptr_t s = (uintptr_t)p, e = s + len, pg = (uintptr_t)pagesize;
  for (uintptr_t ps = s & ~(pg - 1); ps < e; ps += pg) {
    uintptr_t a = ps > s ? ps : s, b = ps + pg < e ? ps + pg : e;
    long row = (long)(((a + b) / 2 - s) / row_bytes);
    for (int t = 0; t < nthreads; t++)
      if (row_lo[t] <= row && row <= row_hi[t]) {
        list[tnode[t]][count[tnode[t]]++] = (void *)ps;
        break;
      }
  }
}

// The oracle's migration: the lowest-numbered thread of each node moves
// its node's list there, ORACLE_BATCH pages per move_pages call.
static void oracle_move(void **list[], const long *count, int nodes,
                        long *calls, long *on_node) {
  long c = 0, ok = 0;
#pragma omp parallel reduction(+ : c, ok)
  {
    int node = node_of_cpu(sched_getcpu()), t = omp_get_thread_num();
    static int tn[MAX_THREADS];
    if (t < MAX_THREADS)
      tn[t] = node;
#pragma omp barrier
    int leader = node < nodes && node < MAX_NODES;
    for (int u = 0; u < t && u < MAX_THREADS; u++)
      if (tn[u] == node)
        leader = 0;
    if (leader) {
      int dest[ORACLE_BATCH], status[ORACLE_BATCH];
      for (int j = 0; j < ORACLE_BATCH; j++)
        dest[j] = node;
      for (long p = 0; p < count[node]; p += ORACLE_BATCH) {
        long k =
            count[node] - p < ORACLE_BATCH ? count[node] - p : ORACLE_BATCH;
        c++;
        if (syscall(SYS_move_pages, 0, k, list[node] + p, dest, status,
                    MPOL_MF_MOVE) == 0)
          for (long j = 0; j < k; j++)
            ok += status[j] == node;
      }
    }
  }
  *calls = c, *on_node = ok;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

// Record what the calling thread reads row i from (its first row's
// addresses, its range of rows).
static void record_row(const double *arow, const double *bi, long i) {
  used_t *u = &used[omp_get_thread_num()];
  if (u->hi < u->lo) {
    u->a = arow;
    u->b = bi;
    u->lo = i;
    u->cpu = sched_getcpu();
    u->node = node_of_cpu(u->cpu);
  }
  u->hi = i;
}

// Where the calling thread's recorded rows (record_row) are, measured by the
// thread itself while the region that gave it their addresses still runs:
// a readonly replica can be read only then (between regions it is
// protected, and move_pages reports no node for its pages).
static void measure_used_of(used_t *u, long n) {
  long rows = u->hi >= u->lo ? u->hi - u->lo + 1 : 0;
  memset(u->a_nodes, 0, sizeof u->a_nodes);
  memset(u->b_nodes, 0, sizeof u->b_nodes);
  u->la = rows ? local_bytes(u->a, (size_t)rows * n * sizeof(double), u->node,
                             u->a_nodes)
               : 0;
  u->lb = rows ? local_bytes(u->b, (size_t)rows * sizeof(double), u->node,
                             u->b_nodes)
               : 0;
  u->measured = 1;
}
static void measure_used(long n) {
  measure_used_of(&used[omp_get_thread_num()], n);
}

// One row of the iteration through the pointers a and bb; returns
// |xnew_i - x_i|.
static inline double jacobi_row(const double *restrict a,
                                const double *restrict bb,
                                const double *restrict x, double *restrict xnew,
                                long n, long i, int rec) {
  const double *row = a + i * n;
  double s = 0;
  for (long j = 0; j < n; j++)
    s += row[j] * x[j];
  double xi = (bb[i] - (s - row[i] * x[i])) / row[i];
  xnew[i] = xi;
  if (rec)
    record_row(row, &bb[i], i);
  return fabs(xi - x[i]);
}

int main(int argc, char **argv) {
  int variant = -1;
  int k = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--variant") && i + 1 < argc) {
      const char *v = argv[++i];
      for (int j = 0; j < 5; j++)
        if (!strcmp(v, variant_names[j]))
          variant = j;
    } else {
      argv[k++] = argv[i];
    }
  }
  argc = k;
  if (variant < 0) {
    fprintf(stderr,
            "usage: %s --variant seq|nexttouch|readonly|ideal|oracle [n] "
            "[iterations]\n",
            argv[0]);
    return 2;
  }
  const char *vname = variant_names[variant];
  long n = argc > 1 ? atol(argv[1]) : 8192;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 2 || iters < 2 || iters > MAX_ITERS)
    return fprintf(stderr, "jacobi_dense: bad n or iterations\n"), 2;
  pagesize = sysconf(_SC_PAGESIZE);
  int nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;

  // Bind the team (OMP_PROC_BIND) before the data exists, so that serial
  // initialisation lands on the master's node.
  int nthreads = 1, thread_node[MAX_THREADS];
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
    int t = omp_get_thread_num();
    if (t < MAX_THREADS)
      thread_node[t] = node_of_cpu(sched_getcpu());
  }
  if (nthreads > MAX_THREADS)
    return fprintf(stderr, "jacobi_dense: too many threads\n"), 2;
  size_t a_bytes = (size_t)n * n * sizeof(double), b_bytes = n * sizeof(double);
  printf("RO_INFO variant=%s api=%s nodes=%d threads=%d thread_nodes=", vname,
#ifdef USE_READONLY_CLAUSE
         "clause",
#else
         "runtime",
#endif
         nodes, nthreads);
  for (int t = 0; t < nthreads; t++)
    printf("%s%d", t ? "," : "", thread_node[t]);
  printf(" n=%ld iters=%d a_bytes=%zu b_bytes=%zu pagesize=%ld\n", n, iters,
         a_bytes, b_bytes, pagesize);
  fflush(stdout);

  // A program's arrays, from malloc (not page-aligned: the runtime handles
  // the partial first and last pages).
  double *A = malloc(a_bytes), *b = malloc(b_bytes);
  double *x = malloc(b_bytes), *xnew = malloc(b_bytes);
  if (!A || !b || !x || !xnew)
    return perror("malloc"), 2;

  double t0 = omp_get_wtime();
  if (variant == V_IDEAL) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      init_row(A, b, n, i);
  } else {
    for (long i = 0; i < n; i++)
      init_row(A, b, n, i);
  }
  // x and xnew: written by the solver's threads anyway (not the subject).
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    x[i] = xnew[i] = 0;
  double init_ms = (omp_get_wtime() - t0) * 1e3;

  static double iter_ms[MAX_ITERS];
  kmp_nexttouch_counters_t c1, c2;
  memset(&c1, 0, sizeof c1);
  memset(&c2, 0, sizeof c2);
  c1.size = c2.size = sizeof c1;
  long rss_before = rss_bytes();
  kmp_reset_nexttouch_counters();
  if (variant == V_NEXTTOUCH) {
#pragma omp nexttouch(A[0 : n * n], b[0 : n])
  }
  // The oracle's plan, before the clock: each thread's rows under
  // schedule(static), each node's pages.
  void **olist[MAX_NODES] = {0};
  long ocount[MAX_NODES] = {0}, ocalls = 0, oon = 0;
  double oms = 0;
  if (variant == V_ORACLE) {
    long lo[MAX_THREADS], hi[MAX_THREADS];
    int tnode[MAX_THREADS];
#pragma omp parallel
    {
      int t = omp_get_thread_num();
      long l = -1, h = -2;
#pragma omp for schedule(static)
      for (long i = 0; i < n; i++) {
        if (l < 0)
          l = i;
        h = i;
      }
      lo[t] = l, hi[t] = h;
      tnode[t] = node_of_cpu(sched_getcpu());
    }
    size_t cap = (a_bytes + b_bytes) / pagesize + 4;
    for (int q = 0; q < nodes && q < MAX_NODES; q++)
      if (!(olist[q] = malloc(cap * sizeof(void *))))
        return perror("malloc"), 2;
    oracle_plan(A, a_bytes, n * sizeof(double), lo, hi, tnode, nthreads, olist,
                ocount);
    oracle_plan(b, b_bytes, sizeof(double), lo, hi, tnode, nthreads, olist,
                ocount);
  }
  double diff = 0, tsolve = omp_get_wtime();
  for (int it = 0; it < iters; it++) {
    int rec = it == iters - 1;
    if (rec)
      for (int t = 0; t < nthreads; t++)
        used[t].lo = 0, used[t].hi = -1;
    double ti = omp_get_wtime();
    if (variant == V_ORACLE && it == 0) {
      oracle_move(olist, ocount, nodes, &ocalls, &oon);
      oms = (omp_get_wtime() - ti) * 1e3;
    }
    diff = 0;
    if (variant == V_READONLY) {
#ifdef USE_READONLY_CLAUSE
      // Inside the region, A[...] and b[...] are the executing thread's
      // node's replica.
#pragma omp parallel for schedule(static) readonly(A[0 : n * n], b[0 : n])     \
    reduction(max : diff)
      for (long i = 0; i < n; i++) {
        double s = 0;
        for (long j = 0; j < n; j++)
          s += A[i * n + j] * x[j];
        double xi = (b[i] - (s - A[i * n + i] * x[i])) / A[i * n + i];
        xnew[i] = xi;
        if (rec) // &A[i * n]: the address of the replica this thread reads
          record_row(&A[i * n], &b[i], i);
        double d = fabs(xi - x[i]);
        diff = d > diff ? d : diff;
      }
#else
      const void *items[2] = {A, b};
      size_t lens[2] = {a_bytes, b_bytes};
      const char *names[2] = {"A[0 : n * n]", "b[0 : n]"};
      kmp_readonly_t h;
      int rc = kmp_readonly_begin(2, items, lens, names, &h);
      if (rc)
        fprintf(stderr, "jacobi_dense: kmp_readonly_begin: %s\n", strerror(rc));
#pragma omp parallel
      {
        // Once per thread and region: this thread's node's copies.
        const double *ra = kmp_readonly_ptr(h, 0), *rb = kmp_readonly_ptr(h, 1);
#pragma omp for schedule(static) reduction(max : diff)
        for (long i = 0; i < n; i++) {
          double d = jacobi_row(ra, rb, x, xnew, n, i, rec);
          diff = d > diff ? d : diff;
        }
      }
#endif
      iter_ms[it] = (omp_get_wtime() - ti) * 1e3;
#ifndef USE_READONLY_CLAUSE
      kmp_readonly_end(h);
#endif
    } else {
#pragma omp parallel
      {
#pragma omp for schedule(static) reduction(max : diff)
        for (long i = 0; i < n; i++) {
          double d = jacobi_row(A, b, x, xnew, n, i, rec);
          diff = d > diff ? d : diff;
        }
      }
      iter_ms[it] = (omp_get_wtime() - ti) * 1e3;
    }
    if (it == 0)
      kmp_get_nexttouch_counters(&c1);
    double *t = x;
    x = xnew;
    xnew = t;
  }
  double total_ms = (omp_get_wtime() - tsolve) * 1e3;
  kmp_get_nexttouch_counters(&c2);
  long rss_after = rss_bytes();

  // readonly: the addresses and their pages again, in one more region with
  // the same items (its replicas are the solver's, kept across regions), in
  // which every thread measures its own rows; not timed or counted.
  if (variant == V_READONLY) {
    for (int t = 0; t < nthreads; t++)
      used[t].lo = 0, used[t].hi = -1;
#ifdef USE_READONLY_CLAUSE
#pragma omp parallel readonly(A[0 : n * n], b[0 : n])
    {
#pragma omp for schedule(static)
      for (long i = 0; i < n; i++)
        record_row(&A[i * n], &b[i], i);
      measure_used(n);
    }
#else
    const void *items[2] = {A, b};
    size_t lens[2] = {a_bytes, b_bytes};
    kmp_readonly_t h;
    if (kmp_readonly_begin(2, items, lens, NULL, &h) == 0) {
#pragma omp parallel
      {
        const double *ra = kmp_readonly_ptr(h, 0), *rb = kmp_readonly_ptr(h, 1);
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++)
          record_row(&ra[i * n], &rb[i], i);
        measure_used(n);
      }
      kmp_readonly_end(h);
    }
#endif
  }

  // Where each thread read A and b from (the pages under the addresses it
  // used in the last iteration), weighted by the bytes it read there.
  double rd_a = 0, rd_b = 0, loc_a = 0, loc_b = 0;
  for (int t = 0; t < nthreads; t++) {
    used_t *u = &used[t];
    long rows = u->hi >= u->lo ? u->hi - u->lo + 1 : 0;
    size_t ab = (size_t)rows * n * sizeof(double), bb = rows * sizeof(double);
    if (!u->measured)
      measure_used_of(u, n);
    long *per_node = u->a_nodes;
    size_t la = u->la, lb = u->lb;
    rd_a += ab, rd_b += bb, loc_a += la, loc_b += lb;
    printf("RO_THREAD variant=%s t=%d cpu=%d node=%d rows=%ld a_ptr=%s "
           "a_bytes=%zu a_local_bytes=%zu b_bytes=%zu b_local_bytes=%zu "
           "a_nodes=",
           vname, t, u->cpu, u->node, rows,
           rows && u->a != A + u->lo * n ? "replica" : "original", ab, la, bb,
           lb);
    int first = 1;
    for (int q = 0; q <= MAX_NODES; q++)
      if (per_node[q]) {
        printf("%s%s%d:%ld", first ? "" : ",", q == MAX_NODES ? "x" : "",
               q == MAX_NODES ? 0 : q, per_node[q]);
        first = 0;
      }
    printf("\n");
  }

  double floor_alloc = -1, floor_copy = -1;
  if (variant == V_READONLY)
    copy_floor(A, a_bytes, &floor_alloc, &floor_copy);

  // Verification (serial, after the measurements).
  double q = 0, xmax = 0, err = 0, resid = 0, bmax = 0, checksum = 0;
  for (long i = 0; i < n; i++) {
    const double *row = A + i * n;
    double off = 0, s = 0;
    for (long j = 0; j < n; j++) {
      off += j == i ? 0 : fabs(row[j]);
      s += row[j] * x[j];
    }
    q = fmax(q, off / fabs(row[i]));
    xmax = fmax(xmax, fabs(x_true(i)));
    err = fmax(err, fabs(x[i] - x_true(i)));
    resid = fmax(resid, fabs(b[i] - s));
    bmax = fmax(bmax, fabs(b[i]));
    checksum += x[i] * (double)((i % 1000) + 1);
  }
  double bound = pow(q, iters) * xmax;
  int ok = q < 1 && err <= bound * (1 + 1e-6) + 1e-9 * xmax &&
           resid / bmax <= 2 * bound / xmax + 1e-9;
  // The readonly variant measures nothing unless every region listed the
  // items (a clang without the clause ignores it with a warning;
  // KMP_READONLY=false turns the engine off).
  if (variant == V_READONLY && c2.readonly_regions != (uint64_t)iters) {
    printf("jacobi_dense: readonly: %llu of %d regions used readonly items\n",
           (unsigned long long)c2.readonly_regions, iters);
    ok = 0;
  }

  for (int it = 0; it < iters; it++)
    printf("RO_ITER variant=%s it=%d ms=%.3f\n", vname, it, iter_ms[it]);
  qsort(iter_ms + 1, iters - 1, sizeof *iter_ms, cmp_double);
  int m = iters - 1; // iterations 1 .. iters-1, sorted
  double steady =
      m % 2 ? iter_ms[1 + m / 2] : (iter_ms[m / 2] + iter_ms[m / 2 + 1]) / 2;
  uintptr_t pg = (uintptr_t)pagesize;
  uint64_t a_pages = ((uintptr_t)A + a_bytes + pg - 1) / pg - (uintptr_t)A / pg,
           b_pages = ((uintptr_t)b + b_bytes + pg - 1) / pg - (uintptr_t)b / pg;
  // Replicas of A and b: each holds the pages under its item.  b, small and
  // on pages shared with x and xnew, is read from the original
  // (readonly_fallback_unreplicable) unless KMP_READONLY_FORCE: then
  // readonly_replicas counts A's alone, else two per node that got them.
  uint64_t replica_bytes =
      c2.readonly_fallback_unreplicable
          ? c2.readonly_replicas * a_pages * pg
          : c2.readonly_replicas / 2 * (a_pages + b_pages) * pg;
  double first_pages = (double)c1.readonly_bytes_replicated / 4096;
  double first_mib = (double)c1.readonly_bytes_replicated / (1 << 20);
  double lr = rd_a + rd_b > 0 ? (loc_a + loc_b) / (rd_a + rd_b) : 0;
  printf("RO_RESULT variant=%s nodes=%d threads=%d n=%ld iters=%d "
         "init_ms=%.1f first_ms=%.2f steady_ms=%.2f mean_ms=%.2f "
         "total_ms=%.1f local_reads=%.4f local_a=%.4f local_b=%.4f "
         "rss_before=%ld rss_after=%ld rss_delta=%ld",
         vname, nodes, nthreads, n, iters, init_ms, iter_ms[0], steady,
         total_ms / iters, total_ms, lr, rd_a > 0 ? loc_a / rd_a : 0,
         rd_b > 0 ? loc_b / rd_b : 0, rss_before, rss_after,
         rss_after - rss_before);
#define U(f) (unsigned long long)(f)
  printf(" ro_regions=%llu ro_items=%llu ro_replicas=%llu "
         "ro_bytes_replicated=%llu ro_bytes_first=%llu ro_replicas_reused=%llu "
         "ro_refreshes=%llu ro_serial_writes=%llu ro_write_traps=%llu "
         "ro_fallback_one_node=%llu ro_fallback_budget=%llu "
         "ro_fallback_unreplicable=%llu ro_replica_ns=%llu ro_ns_first=%llu",
         U(c2.readonly_regions), U(c2.readonly_items), U(c2.readonly_replicas),
         U(c2.readonly_bytes_replicated), U(c1.readonly_bytes_replicated),
         U(c2.readonly_replicas_reused), U(c2.readonly_refreshes),
         U(c2.readonly_serial_writes), U(c2.readonly_write_traps),
         U(c2.readonly_fallback_one_node), U(c2.readonly_fallback_budget),
         U(c2.readonly_fallback_unreplicable), U(c2.readonly_replica_ns),
         U(c1.readonly_replica_ns));
  if (first_pages > 0)
    printf(" ro_us_per_page=%.3f ro_ms_per_mib=%.3f",
           c1.readonly_replica_ns / 1e3 / first_pages,
           c1.readonly_replica_ns / 1e6 / first_mib);
  else
    printf(" ro_us_per_page=- ro_ms_per_mib=-");
  if (floor_alloc >= 0)
    printf(" floor_alloc_us_per_page=%.3f floor_copy_us_per_page=%.3f",
           floor_alloc, floor_copy);
  else
    printf(" floor_alloc_us_per_page=- floor_copy_us_per_page=-");
  printf(" replica_bytes=%llu nt_pages_armed=%llu nt_pages_migrated=%llu "
         "nt_pages_already_local=%llu nt_faults=%llu",
         U(replica_bytes), U(c2.pages_armed), U(c2.pages_migrated),
         U(c2.pages_already_local), U(c2.faults));
  printf(" oracle_calls=%ld oracle_on_node=%ld oracle_ms=%.2f", ocalls, oon,
         oms);
  printf(" q=%.4f err=%.3e bound=%.3e resid=%.3e checksum=%.17g result=%s\n", q,
         err, bound, resid / bmax, checksum, ok ? "VERIFIED" : "FAILED");
  fflush(stdout);
  return ok ? 0 : 1;
}
