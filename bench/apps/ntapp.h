// ntapp.h -- what the bench/apps programs share: the command-line switch
// between the next-touch run and the baseline, the timer around the
// computation, and the report printed after it (libomp's next-touch counters,
// where the pages of each array are, and how many sit on the node of the
// thread that uses them under the program's static schedule).
//
// Output, one line per array and a summary line, fields "key=value":
//
//   NT_INFO    prog= variant= nodes= threads= thread_nodes=0,0,1,1 pagesize=
//   NT_ARRAY   prog= variant= array= pages= node0= node1= ... other=
//              min_share= max_share= owner_local=
//   NT_SUMMARY prog= variant= nodes= threads= pages_armed= pages_not_present=
//              faults= batches= pages_migrated= pages_already_local=
//              pages_disarmed= pages_touched_serial= pages_expired= fail=
//              pages_still_armed= handled= faults_per_page= data_pages=
//              owner_local= arm_ms= fault_ms= disarm_ms= startup_ms=
//              time_ms= result=VERIFIED|FAILED
//
// The counters are those at nt_app_stop(), right after the computation
// (time_ms: from nt_app_start to nt_app_stop, less the time nt_app_iter
// spent measuring placement);
// pages_still_armed = pages_armed minus the pages that reached a final
// counter (handled, disarmed, touched serially, expired, failed moves).
// handled = (pages_migrated + pages_already_local) / pages_armed: the share
// of armed pages that a thread's touch placed (counters missing from an older
// libomp's structure print as 0). faults_per_page = faults /
// (pages_migrated + pages_already_local). node<i> counts pages reported on
// node i by move_pages(2) with nodes=NULL; "other" counts pages it could not
// place (not present, or still inaccessible). owner_local: share of the
// array's pages that are on the node of the thread that works on them under
// schedule(static) ("-" for arrays without such an owner). A field that does
// not apply is "-". Ratios are printed with 4 decimals.
//
// Variants (--variant=NAME, for the solver comparison of bench/solvers.sh; the
// default is "nexttouch", --baseline is "baseline"):
//   none        serial initialisation, no placement (first touch by thread 0)
//   nexttouch   serial initialisation, '#pragma omp nexttouch' before the solver
//   interleave  serial initialisation under 'numactl --interleave=all' (the
//               program checks that its memory policy is MPOL_INTERLEAVE)
//   ideal       parallel initialisation by the solver's static schedule
//   autonuma    serial initialisation, no directive; the kernel's automatic
//               NUMA balancing must be on (checked: /proc/sys/kernel/numa_balancing)
//   oracle      serial initialisation, then in place of the directive the best
//               migration a program that knows its partition can do: every
//               page of the registered arrays goes to the node of the thread
//               that uses it under the static schedule (the rule owner_local
//               checks), by move_pages(2) in batches of NT_ORACLE_BATCH pages,
//               from one thread per node (the lowest-numbered thread on it)
//               moving its node's pages, all nodes at once (nt_app_place).
//               The page lists are made in nt_app_start, before the clock
//               starts: the oracle's knowledge costs it nothing.
// nt_app.use_nt says whether to issue the directive, nt_app.par_init whether
// to initialise in parallel. NT_INFO also prints mempolicy= and
// numa_balancing=.
//
// Per-iteration figures (nt_app_iter): NT_ITER prog= variant= iter= time_ms=
// solver_ms= (the iterations' time so far) wall_ms= (since nt_app_start) and,
// after the iterations 1, 2, 4, 8, ..., the last, and every NT_MEASURE_MS for
// the autonuma variant, owner_local= (as in NT_SUMMARY, over all arrays with
// an owner, thread nodes read again at that moment: with OMP_PROC_BIND=false
// threads may move; but among the pages whose node is known), unknown= (pages
// of all arrays without a node: see nt_app_placement) and thread_nodes=. The solvers also print
// NT_PHASE prog= variant= init_ms= directive_ms= start_ms= (nt_app_phase).
// The oracle variant prints NT_ORACLE prog= variant= pages= calls= on_node=
// failed= ms= max_thread_ms= (pages in its lists, move_pages calls, pages on
// their node after the call (moved or there already), pages not moved; its
// wall time and the slowest node's thread). NT_SUMMARY also carries the engine's timers
// (arm_ms= fault_ms= disarm_ms=, fault_ms summed over the threads) and
// startup_ms=: for nexttouch, the engine's start-up, if NT_APP_WARM=1 ("-"
// otherwise): in nt_app_start, before the clock starts, the process makes two
// requests of one page each, each followed by a one-iteration region over
// it; the start-up is what the first costs more than the second (the second
// is what every request costs, which the solver's own request pays again).
//
// Usage in a program:
//   nt_app_init("name", &argc, argv);   // strips --baseline from argv
//   (solvers: nt_app_init_variants, which also takes --variant= and
//   --seconds=; then nt_app_more, nt_app_phase and nt_app_iter per iteration)
//   ... allocate, initialise serially, nt_app_array(...) per array ...
//   nt_app_start();
//   if (nt_app.use_nt) {
//   #pragma omp nexttouch(...)
//   }
//   ... computation ...
//   nt_app_stop();
//   ... verification ...
//   return nt_app_report(ok);           // 0 if verified, 1 otherwise
#ifndef NTAPP_H
#define NTAPP_H
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

// How an array's elements map to the iterations of the static loops over it.
enum {
  NT_OWN_NONE,   // no single owner (read through an indirection, shared)
  NT_OWN_LINEAR, // element e belongs to iteration e / per_iter - off
  NT_OWN_CSR     // element e belongs to row r with rowstr[r] <= e < rowstr[r+1]
};

typedef struct {
  const char *name;
  const char *base;
  size_t bytes, elem;
  int own;
  long per_iter, off, iters; // iters: trip count of the static loop
  const int *rowstr;
} nt_array_t;

enum { NT_MAX_ARRAYS = 48, NT_MAX_THREADS = 256 };

// Not every program uses every helper.
#define NT_MAYBE_UNUSED __attribute__((unused))

enum {
  NT_V_NEXTTOUCH, // the directive (default)
  NT_V_BASELINE,  // --baseline: no directive (bench/apps.sh)
  NT_V_NONE,
  NT_V_INTERLEAVE,
  NT_V_IDEAL,
  NT_V_AUTONUMA,
  NT_V_ORACLE
};
static const char *const nt_variant_names[] = {
    "nexttouch", "baseline", "none", "interleave", "ideal", "autonuma", "oracle"};

enum { NT_ORACLE_BATCH = 1024 }; // pages per move_pages(2) call of the oracle

static struct {
  const char *prog;
  int variant, use_nt, par_init, nthreads, nodes;
  int mempolicy, numa_balancing;
  long pagesize;
  int thread_cpu[NT_MAX_THREADS], thread_node[NT_MAX_THREADS];
  nt_array_t arr[NT_MAX_ARRAYS];
  int narr;
  double t0, t1;
  kmp_nexttouch_counters_t c; // at nt_app_stop
  double seconds;             // --seconds=S: run the solver at least S s
  double solver_s;            // sum of the iteration times so far
  double last_measure;        // omp_get_wtime() of the last measurement
  void (*iter_extra)(void);   // prints more fields of a measured NT_ITER
  long unknown_pages;         // pages without a node in nt_app_placement
  double t_begin;             // omp_get_wtime() in nt_app_init
  double measure_s;           // time nt_app_iter spent measuring placement
  void **oracle_pages[64];    // oracle: the pages each node's thread moves
  long oracle_n[64];
  double startup_ms;          // NT_APP_WARM=1: the engine's start-up
  char oracle_line[256];      // NT_ORACLE, printed by nt_app_phase
} nt_app;

// Fresh pages for an array (mmap): malloc may hand out heap memory that
// earlier code already touched, which would decide its node before the
// initialisation does.
NT_MAYBE_UNUSED static void *nt_alloc(size_t bytes) {
  void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static int nt_node_of_cpu(int cpu) {
  int n = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;
  return n < 0 ? 0 : n;
}

static const char *nt_variant(void) { return nt_variant_names[nt_app.variant]; }

static const char *nt_mempolicy_name(int m) {
  switch (m) {
  case MPOL_DEFAULT: return "default";
  case MPOL_PREFERRED: return "preferred";
  case MPOL_BIND: return "bind";
  case MPOL_INTERLEAVE: return "interleave";
  default: return "other";
  }
}

// Record each thread's CPU and node (in a parallel region: binds the threads
// as OMP_PROC_BIND says the first time).
static void nt_app_where(void) {
#pragma omp parallel
  {
    int t = omp_get_thread_num();
#pragma omp single
    nt_app.nthreads = omp_get_num_threads();
    if (t < NT_MAX_THREADS) {
      nt_app.thread_cpu[t] = sched_getcpu();
      nt_app.thread_node[t] = nt_node_of_cpu(nt_app.thread_cpu[t]);
    }
  }
}

static void nt_print_thread_nodes(void) {
  printf(" thread_nodes=");
  for (int t = 0; t < nt_app.nthreads && t < NT_MAX_THREADS; t++)
    printf("%s%d", t ? "," : "", nt_app.thread_node[t]);
}

// Parse (and remove) --baseline, and for solvers --variant=NAME and
// --seconds=S; check the variant's precondition; record each thread's CPU
// and node. The
// parallel region here also binds the threads (OMP_PROC_BIND) before the
// program initialises its data, so serial initialisation lands on the node of
// thread 0.
static void nt_app_init_common(const char *prog, int *argc, char **argv,
                               int variants) {
  nt_app.t_begin = omp_get_wtime();
  nt_app.prog = prog;
  nt_app.variant = NT_V_NEXTTOUCH;
  int k = 1;
  for (int i = 1; i < *argc; i++) {
    if (!strcmp(argv[i], "--baseline")) {
      nt_app.variant = NT_V_BASELINE;
    } else if (!strncmp(argv[i], "--variant=", 10)) {
      int v = -1;
      for (int j = 0; j < (int)(sizeof nt_variant_names / sizeof *nt_variant_names); j++)
        if (!strcmp(argv[i] + 10, nt_variant_names[j]))
          v = j;
      if (v < 0) {
        fprintf(stderr, "%s: unknown %s (none, nexttouch, interleave, ideal, "
                        "autonuma, oracle)\n", prog, argv[i]);
        exit(2);
      }
      if (!variants && v != NT_V_NEXTTOUCH && v != NT_V_BASELINE) {
        fprintf(stderr, "%s: %s: only solvers take --variant\n", prog, argv[i]);
        exit(2);
      }
      nt_app.variant = v;
    } else if (variants && !strncmp(argv[i], "--seconds=", 10)) {
      nt_app.seconds = atof(argv[i] + 10);
    } else {
      argv[k++] = argv[i];
    }
  }
  *argc = k;
  argv[k] = NULL;
  nt_app.use_nt = nt_app.variant == NT_V_NEXTTOUCH;
  nt_app.par_init = nt_app.variant == NT_V_IDEAL;
  nt_app.pagesize = sysconf(_SC_PAGESIZE);
  nt_app.nodes = numa_available() < 0 ? 1 : numa_max_node() + 1;
  nt_app.mempolicy = -1;
  if (get_mempolicy(&nt_app.mempolicy, NULL, 0, NULL, 0) != 0)
    nt_app.mempolicy = -1;
  nt_app.numa_balancing = -1;
  FILE *nb = fopen("/proc/sys/kernel/numa_balancing", "r");
  if (nb) {
    if (fscanf(nb, "%d", &nt_app.numa_balancing) != 1)
      nt_app.numa_balancing = -1;
    fclose(nb);
  }
  nt_app_where();
  printf("NT_INFO prog=%s variant=%s nodes=%d threads=%d", prog, nt_variant(),
         nt_app.nodes, nt_app.nthreads);
  nt_print_thread_nodes();
  printf(" pagesize=%ld mempolicy=%s numa_balancing=%d\n", nt_app.pagesize,
         nt_mempolicy_name(nt_app.mempolicy), nt_app.numa_balancing);
  fflush(stdout);
  // A variant whose precondition does not hold would measure something else.
  if (nt_app.variant == NT_V_INTERLEAVE && nt_app.mempolicy != MPOL_INTERLEAVE) {
    fprintf(stderr, "%s: --variant=interleave needs 'numactl --interleave=all'\n", prog);
    exit(2);
  }
  if (nt_app.variant == NT_V_AUTONUMA && nt_app.numa_balancing <= 0) {
    fprintf(stderr, "%s: --variant=autonuma needs kernel.numa_balancing=1\n", prog);
    exit(2);
  }
  if ((nt_app.variant == NT_V_NONE || nt_app.variant == NT_V_NEXTTOUCH ||
       nt_app.variant == NT_V_IDEAL || nt_app.variant == NT_V_ORACLE) &&
      nt_app.numa_balancing > 0)
    fprintf(stderr, "%s: warning: numa_balancing is on (variant %s)\n", prog,
            nt_variant());
}

// Programs with only --baseline.
NT_MAYBE_UNUSED static void nt_app_init(const char *prog, int *argc, char **argv) {
  nt_app_init_common(prog, argc, argv, 0);
}

// Solvers: also --variant=NAME and --seconds=S.
NT_MAYBE_UNUSED static void nt_app_init_variants(const char *prog, int *argc, char **argv) {
  nt_app_init_common(prog, argc, argv, 1);
}

// Whether the solver goes on after `done` iterations: at least `min`, and
// with --seconds=S until the iterations took S seconds in all.
NT_MAYBE_UNUSED static int nt_app_more(int done, int min) {
  return done < min || (nt_app.seconds > 0 && nt_app.solver_s < nt_app.seconds);
}

// Register an array for the report. own/per_iter/off/iters/rowstr describe
// the static loop that partitions it (see NT_OWN_*).
static void nt_app_array(const char *name, const void *base, size_t count,
                         size_t elem, int own, long per_iter, long off,
                         long iters, const int *rowstr) {
  if (nt_app.narr == NT_MAX_ARRAYS)
    return;
  nt_array_t *a = &nt_app.arr[nt_app.narr++];
  a->name = name;
  a->base = (const char *)base;
  a->bytes = count * elem;
  a->elem = elem;
  a->own = own;
  a->per_iter = per_iter > 0 ? per_iter : 1;
  a->off = off;
  a->iters = iters;
  a->rowstr = rowstr;
}

static void nt_oracle_plan(void);

// One request of one page and a one-iteration region over it: ms, or -1.
static double nt_app_warm_request(void) {
  char *p = nt_alloc(nt_app.pagesize);
  if (!p)
    return -1;
  p[0] = 1;
  double t = omp_get_wtime();
  kmp_nexttouch(p, nt_app.pagesize);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < 1; i++)
    p[i]++;
  t = (omp_get_wtime() - t) * 1e3;
  munmap(p, nt_app.pagesize);
  return t;
}

// The clock starts. Before it: the oracle's page lists; with NT_APP_WARM=1
// and the nexttouch variant, the engine's start-up (what its first request
// costs more than its second).
static void nt_app_start(void) {
  if (nt_app.variant == NT_V_ORACLE)
    nt_oracle_plan();
  nt_app.startup_ms = -1;
  const char *w = getenv("NT_APP_WARM");
  if (nt_app.use_nt && w && atoi(w) == 1) {
    double first = nt_app_warm_request(), second = nt_app_warm_request();
    // The difference of two emulated times can come out below zero: then
    // none is counted (never less).
    if (first >= 0 && second >= 0)
      nt_app.startup_ms = first > second ? first - second : 0;
  }
  kmp_reset_nexttouch_counters();
  nt_app.t0 = omp_get_wtime();
}

// The counters are read here, before the program's serial verification
// touches its data.
static void nt_app_stop(void) {
  nt_app.t1 = omp_get_wtime();
  memset(&nt_app.c, 0, sizeof nt_app.c);
  nt_app.c.size = sizeof nt_app.c;
  kmp_get_nexttouch_counters(&nt_app.c);
}

// The first and last iteration each thread gets from schedule(static) for a
// trip count, as this libomp runs it.
static void nt_static_ranges(long iters, long *lo, long *hi) {
  for (int t = 0; t < NT_MAX_THREADS; t++)
    lo[t] = 1, hi[t] = 0;
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    long l = -1, h = -2;
#pragma omp for schedule(static)
    for (long i = 0; i < iters; i++) {
      if (l < 0)
        l = i;
      h = i;
    }
    if (t < NT_MAX_THREADS && l >= 0)
      lo[t] = l, hi[t] = h;
  }
}

// The node of the thread that owns element e of a, or -1.
static int nt_owner_node(const nt_array_t *a, size_t e, const long *lo,
                         const long *hi) {
  long it;
  if (a->own == NT_OWN_LINEAR) {
    it = (long)(e / a->per_iter) - a->off;
  } else { // CSR: last row r with rowstr[r] <= e
    long l = 0, h = a->iters; // rowstr has iters + 1 entries
    while (h - l > 1) {
      long m = (l + h) / 2;
      if ((size_t)a->rowstr[m] <= e)
        l = m;
      else
        h = m;
    }
    it = l;
  }
  if (it < 0)
    it = 0;
  if (it >= a->iters)
    it = a->iters - 1;
  for (int t = 0; t < nt_app.nthreads && t < NT_MAX_THREADS; t++)
    if (lo[t] <= it && it <= hi[t])
      return nt_app.thread_node[t];
  return -1;
}

static void nt_print_ratio(const char *key, double num, double den) {
  if (den > 0)
    printf(" %s=%.4f", key, num / den);
  else
    printf(" %s=-", key);
}

// The node of each page of [base, base + bytes) (move_pages(2) with
// nodes=NULL: a node, or a negative errno), into status[]; returns the number
// of pages. status may be NULL to count only.
static long nt_page_nodes(const void *base, size_t bytes, int *status) {
  long pg = nt_app.pagesize;
  uintptr_t first = (uintptr_t)base & ~(uintptr_t)(pg - 1);
  uintptr_t end = ((uintptr_t)base + bytes + pg - 1) & ~(uintptr_t)(pg - 1);
  long npages = (long)((end - first) / pg);
  if (!status)
    return npages;
  enum { CHUNK = 1024 };
  void *pages[CHUNK];
  for (long p = 0; p < npages; p += CHUNK) {
    long k = npages - p < CHUNK ? npages - p : CHUNK;
    for (long j = 0; j < k; j++)
      pages[j] = (void *)(first + (p + j) * pg);
    if (syscall(SYS_move_pages, 0, k, pages, NULL, status + p, 0) != 0)
      for (long j = 0; j < k; j++)
        status[p + j] = -errno;
  }
  return npages;
}

// Where the registered arrays' pages are. print: one NT_ARRAY line per array.
// Returns the share of the pages of arrays with an owner that are on their
// owner's node (-1 if none); *data_pages: pages of all arrays; *known_local:
// the same share among the pages whose node move_pages(2) reports (with
// kernel.numa_balancing=1 it reports none for a page whose mapping the
// kernel has just made inaccessible to sample accesses: -ENOENT until the
// next touch; armed pages are the same). nt_app.unknown_pages counts the
// others.
static double nt_app_placement(int print, double *data_pages_out,
                               double *known_local) {
  long pg = nt_app.pagesize;
  int nodes = nt_app.nodes < 64 ? nt_app.nodes : 64;
  static long lo[NT_MAX_THREADS], hi[NT_MAX_THREADS];
  long cached_iters = -1;
  double own_local = 0, own_pages = 0, own_known = 0, data_pages = 0;
  for (int i = 0; i < nt_app.narr; i++) {
    nt_array_t *a = &nt_app.arr[i];
    if (a->own != NT_OWN_NONE && a->iters != cached_iters) {
      nt_static_ranges(a->iters, lo, hi);
      cached_iters = a->iters;
    }
    uintptr_t first = (uintptr_t)a->base & ~(uintptr_t)(pg - 1);
    long npages = nt_page_nodes(a->base, a->bytes, NULL);
    int *status = malloc((npages ? npages : 1) * sizeof *status);
    if (!status)
      return perror("malloc"), exit(2), 0;
    nt_page_nodes(a->base, a->bytes, status);
    long per_node[65] = {0}, local = 0;
    for (long j = 0; j < npages; j++) {
      int s = status[j];
      per_node[s >= 0 && s < nodes ? s : 64]++;
      nt_app.unknown_pages += s < 0;
      if (a->own == NT_OWN_NONE || s < 0)
        continue;
      own_known++;
      // The element in the middle of this page's part of the array.
      uintptr_t ps = first + j * pg, pe = ps + pg;
      uintptr_t b = (uintptr_t)a->base, e = b + a->bytes;
      uintptr_t mid = ((ps > b ? ps : b) + (pe < e ? pe : e)) / 2;
      size_t el = (mid - b) / a->elem;
      if (nt_owner_node(a, el, lo, hi) == s)
        local++;
    }
    free(status);
    if (a->own != NT_OWN_NONE)
      own_local += local, own_pages += npages;
    data_pages += npages;
    if (!print)
      continue;
    double minsh = 1, maxsh = 0;
    for (int n = 0; n < nodes; n++) {
      double sh = npages ? (double)per_node[n] / npages : 0;
      minsh = sh < minsh ? sh : minsh;
      maxsh = sh > maxsh ? sh : maxsh;
    }
    printf("NT_ARRAY prog=%s variant=%s array=%s pages=%ld", nt_app.prog,
           nt_variant(), a->name, npages);
    for (int n = 0; n < nodes; n++)
      printf(" node%d=%ld", n, per_node[n]);
    printf(" other=%ld min_share=%.4f max_share=%.4f", per_node[64], minsh,
           maxsh);
    if (a->own != NT_OWN_NONE)
      nt_print_ratio("owner_local", local, npages);
    else
      printf(" owner_local=-");
    printf("\n");
  }
  if (data_pages_out)
    *data_pages_out = data_pages;
  if (known_local)
    *known_local = own_known > 0 ? own_local / own_known : -1;
  return own_pages > 0 ? own_local / own_pages : -1;
}

// The oracle's plan: for every page of every registered array with an
// owner, the node of the thread that owns the element in the middle of the
// page's part of the array (as nt_app_placement checks it), appended to that
// node's list.
static void nt_oracle_plan(void) {
  long pg = nt_app.pagesize;
  static long lo[NT_MAX_THREADS], hi[NT_MAX_THREADS];
  long cached_iters = -1, total = 0;
  for (int i = 0; i < nt_app.narr; i++)
    total += nt_page_nodes(nt_app.arr[i].base, nt_app.arr[i].bytes, NULL);
  for (int n = 0; n < 64 && n < nt_app.nodes; n++) {
    nt_app.oracle_pages[n] = malloc((total ? total : 1) * sizeof(void *));
    if (!nt_app.oracle_pages[n])
      perror("malloc"), exit(2);
    nt_app.oracle_n[n] = 0;
  }
  for (int i = 0; i < nt_app.narr; i++) {
    nt_array_t *a = &nt_app.arr[i];
    if (a->own == NT_OWN_NONE)
      continue;
    if (a->iters != cached_iters) {
      nt_static_ranges(a->iters, lo, hi);
      cached_iters = a->iters;
    }
    uintptr_t first = (uintptr_t)a->base & ~(uintptr_t)(pg - 1);
    long npages = nt_page_nodes(a->base, a->bytes, NULL);
    uintptr_t b = (uintptr_t)a->base, e = b + a->bytes;
    for (long j = 0; j < npages; j++) {
      uintptr_t ps = first + j * pg, pe = ps + pg;
      uintptr_t mid = ((ps > b ? ps : b) + (pe < e ? pe : e)) / 2;
      int node = nt_owner_node(a, (mid - b) / a->elem, lo, hi);
      if (node >= 0 && node < 64 && node < nt_app.nodes)
        nt_app.oracle_pages[node][nt_app.oracle_n[node]++] = (void *)ps;
    }
  }
}

// The oracle's migration, in place of the directive: one thread per node
// (the lowest-numbered thread on it) moves its node's pages there, batches
// of NT_ORACLE_BATCH pages per move_pages(2) call, every node at once.
// Prints NT_ORACLE.
NT_MAYBE_UNUSED static void nt_app_oracle_move(void) {
  long calls = 0, on_node = 0, failed = 0, pages = 0;
  double t0 = omp_get_wtime(), tmax = 0;
#pragma omp parallel reduction(+ : calls, on_node, failed, pages) \
    reduction(max : tmax)
  {
    int t = omp_get_thread_num();
    int node = nt_node_of_cpu(sched_getcpu()), leader = 1;
    if (t < NT_MAX_THREADS)
      nt_app.thread_node[t] = node; // read again: the leaders are by node
#pragma omp barrier
    for (int u = 0; u < t && u < NT_MAX_THREADS; u++)
      if (nt_app.thread_node[u] == node)
        leader = 0;
    if (leader && node < 64 && node < nt_app.nodes) {
      double m0 = omp_get_wtime();
      void **list = nt_app.oracle_pages[node];
      long n = nt_app.oracle_n[node];
      int dest[NT_ORACLE_BATCH], status[NT_ORACLE_BATCH];
      for (int j = 0; j < NT_ORACLE_BATCH; j++)
        dest[j] = node;
      for (long p = 0; p < n; p += NT_ORACLE_BATCH) {
        long k = n - p < NT_ORACLE_BATCH ? n - p : NT_ORACLE_BATCH;
        calls++;
        if (syscall(SYS_move_pages, 0, k, list + p, dest, status,
                    MPOL_MF_MOVE) < 0) {
          failed += k;
          continue;
        }
        for (long j = 0; j < k; j++)
          status[j] == node ? on_node++ : failed++;
      }
      pages += n;
      tmax = omp_get_wtime() - m0;
    }
  }
  // Printed by nt_app_phase, after the clock.
  snprintf(nt_app.oracle_line, sizeof nt_app.oracle_line,
           "NT_ORACLE prog=%s variant=%s pages=%ld calls=%ld on_node=%ld "
           "failed=%ld ms=%.3f max_thread_ms=%.3f",
           nt_app.prog, nt_variant(), pages, calls, on_node, failed,
           (omp_get_wtime() - t0) * 1e3, tmax * 1e3);
}

// The placement before the solver: the directive's replacement for the
// oracle variant. Programs call it where they have the directive:
//   if (nt_app.use_nt) { #pragma omp nexttouch(...) } else nt_app_place();
NT_MAYBE_UNUSED static void nt_app_place(void) {
  if (nt_app.variant == NT_V_ORACLE)
    nt_app_oracle_move();
}

// NT_PHASE: the initialisation's and the directive's time, and the time
// from nt_app_init to nt_app_start (the process's age when the solver starts:
// the kernel's NUMA balancing counts its scan delay from the process's start).
NT_MAYBE_UNUSED static void nt_app_phase(double init_s, double directive_s) {
  printf("NT_PHASE prog=%s variant=%s init_ms=%.3f directive_ms=%.3f "
         "start_ms=%.1f\n",
         nt_app.prog, nt_variant(), init_s * 1e3, directive_s * 1e3,
         (nt_app.t0 - nt_app.t_begin) * 1e3);
  if (nt_app.oracle_line[0])
    printf("%s\n", nt_app.oracle_line);
}

enum { NT_MEASURE_MS = 500 };

// After iteration `iter` of the solver, which took `seconds`: one NT_ITER
// line with the time and the solver's time so far (solver_ms); after the
// iterations 1, 2, 4, 8, ..., the last one, and for the autonuma variant
// also whenever NT_MEASURE_MS passed since the last measurement, also where
// the pages are now (thread nodes read again first; iter_extra adds fields).
// Call it outside the timed part. Returns owner_local (or -1 if not
// measured).
NT_MAYBE_UNUSED static double nt_app_iter(int iter, double seconds, int last) {
  double ol = -1, now = omp_get_wtime();
  nt_app.solver_s += seconds;
  int measure = last || (iter & (iter - 1)) == 0 ||
                (nt_app.variant == NT_V_AUTONUMA &&
                 now - nt_app.last_measure >= NT_MEASURE_MS * 1e-3);
  printf("NT_ITER prog=%s variant=%s iter=%d time_ms=%.3f solver_ms=%.1f "
         "wall_ms=%.1f",
         nt_app.prog, nt_variant(), iter, seconds * 1e3, nt_app.solver_s * 1e3,
         (now - nt_app.t0) * 1e3);
  if (measure) {
    nt_app_where();
    nt_app.unknown_pages = 0;
    nt_app_placement(0, NULL, &ol);
    printf(" owner_local=%.4f unknown=%ld", ol, nt_app.unknown_pages);
    nt_print_thread_nodes();
    if (nt_app.iter_extra)
      nt_app.iter_extra();
    nt_app.last_measure = omp_get_wtime();
    nt_app.measure_s += nt_app.last_measure - now;
  }
  printf("\n");
  fflush(stdout);
  return ol;
}

// Print the report; returns the exit status (0 verified, 1 not).
static int nt_app_report(int verified) {
  kmp_nexttouch_counters_t c = nt_app.c;
  double data_pages = 0;
  double owner_local = nt_app_placement(1, &data_pages, NULL);
  uint64_t handled = c.pages_migrated + c.pages_already_local;
  uint64_t fail = c.fail_arm + c.fail_move_busy + c.fail_move_nomem +
                  c.fail_move_other + c.fail_restore;
  printf("NT_SUMMARY prog=%s variant=%s nodes=%d threads=%d", nt_app.prog,
         nt_variant(), nt_app.nodes, nt_app.nthreads);
  printf(" pages_armed=%llu pages_not_present=%llu faults=%llu batches=%llu"
         " pages_migrated=%llu pages_already_local=%llu pages_disarmed=%llu"
         " pages_touched_serial=%llu pages_expired=%llu fail=%llu",
         (unsigned long long)c.pages_armed,
         (unsigned long long)c.pages_not_present,
         (unsigned long long)c.faults, (unsigned long long)c.batches,
         (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local,
         (unsigned long long)c.pages_disarmed,
         (unsigned long long)c.pages_touched_serial,
         (unsigned long long)c.pages_expired, (unsigned long long)fail);
  uint64_t settled = handled + c.pages_disarmed + c.pages_touched_serial +
                     c.pages_expired + c.fail_move_busy + c.fail_move_nomem +
                     c.fail_move_other;
  printf(" pages_still_armed=%llu",
         (unsigned long long)(c.pages_armed > settled ? c.pages_armed - settled
                                                      : 0));
  nt_print_ratio("handled", handled, c.pages_armed);
  nt_print_ratio("faults_per_page", c.faults, handled);
  printf(" data_pages=%.0f", data_pages);
  if (owner_local >= 0)
    printf(" owner_local=%.4f", owner_local);
  else
    printf(" owner_local=-");
  printf(" arm_ms=%.3f fault_ms=%.3f disarm_ms=%.3f", c.arm_ns / 1e6,
         c.fault_ns / 1e6, c.disarm_ns / 1e6);
  if (nt_app.startup_ms >= 0)
    printf(" startup_ms=%.3f", nt_app.startup_ms);
  else
    printf(" startup_ms=-");
  printf(" time_ms=%.1f result=%s\n",
         (nt_app.t1 - nt_app.t0 - nt_app.measure_s) * 1e3,
         verified ? "VERIFIED" : "FAILED");
  fflush(stdout);
  return verified ? 0 : 1;
}
#endif
