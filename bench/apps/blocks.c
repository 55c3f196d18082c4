// blocks.c -- a block-structured mesh, as adaptive mesh refinement codes
// hold theirs (Berger & Colella's patches, the blocks of Chombo, AMReX or
// PARAMESH at one level): the unit square split into GX x GX blocks of
// BS x BS cells, each block a struct of its own with two fields of
// (BS + 2)^2 doubles (one ghost layer), every one of them a malloc() of its
// own (3 allocations per block, 3,072 for the default 32 x 32 blocks).
// Serial initialisation; then Jacobi sweeps for Laplace's equation: each
// sweep fills every block's ghost cells from its neighbours' edges (or the
// zero boundary), then updates the interiors; blocks are shared out by
// '#pragma omp for schedule(static)' over the block index.
//
// Verification: u0 = sin(pi x) sin(pi y) is an eigenfunction of the Jacobi
// sweep with eigenvalue cos(pi h) (h = 1 / (GX BS + 1)), so after K sweeps
// every cell holds cos(pi h)^K u0 (checked to 1e-9 of the peak).
//
// Variants (--variant=):
//   nexttouch  the directive, once per block, naming both fields (2 ranges
//              per block: what a program with a dynamic number of
//              allocations writes), before the sweeps (default)
//   oracle     in its place, every thread move_pages(2)s the pages of its
//              own blocks' fields to its node, 1024 per call (the lists are
//              made before the clock starts)
//   reference  in its place, the user-level next-touch of 2008 (bench/
//              reference_nexttouch.c): every field's whole pages
//              mprotect(PROT_NONE), one page opened and moved per fault
//   none       no placement (first touch by the initialising thread)
//
// The block list is too long for ntapp.h's array registry: the program
// reports for itself, one line after the computation, before the serial
// verification touches the data:
//   NT_BLOCKS prog=blocks variant= nodes= threads= blocks= ranges= pages=
//             owner_local= handled= pages_armed= fail_arm= faults=
//             place_ms= time_ms= result=VERIFIED|FAILED
// pages: the whole pages inside the fields (what next-touch may move);
// owner_local: the share of them on the node of the thread that sweeps
// their block; handled: (pages_migrated + pages_already_local) /
// pages_armed of libomp's counters (nexttouch; "-" otherwise); place_ms:
// the request (or the oracle's or the reference's placement) plus the first
// sweep; time_ms: placement and all sweeps.
//
// usage: blocks [--variant=V] [blocks per side (32)] [cells per block side
//        (62)] [sweeps (20)]
#define _GNU_SOURCE
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
  double *u, *v; // (BS + 2)^2 each, row-major, ghost layer included
  int bx, by;
} block_t;

static long GX, BS, W; // blocks per side, cells per block side, BS + 2
static block_t **blk;
static long pg;

// ---------------------------------------------------------------------------
// The reference (2008): PROT_NONE, one page per fault.

static uintptr_t *ref_lo, *ref_hi; // the protected ranges, sorted
static long ref_n;
static volatile unsigned long ref_faults;

static int my_node(void) {
  int cpu = sched_getcpu();
  return cpu < 0 ? 0 : numa_node_of_cpu(cpu);
}

static void ref_handler(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  uintptr_t a = (uintptr_t)si->si_addr;
  long lo = 0, hi = ref_n;
  while (lo < hi) { // the first range that ends after a
    long mid = (lo + hi) / 2;
    if (ref_hi[mid] <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo >= ref_n || ref_lo[lo] > a) { // not ours: die as usual
    signal(sig, SIG_DFL);
    return;
  }
  void *page = (void *)(a & ~(uintptr_t)(pg - 1));
  int node = my_node(), status;
  mprotect(page, pg, PROT_READ | PROT_WRITE);
  move_pages(0, 1, &page, &node, &status, MPOL_MF_MOVE);
  __atomic_fetch_add(&ref_faults, 1, __ATOMIC_RELAXED);
}

// The whole pages inside [p, p + bytes).
static int inner(const void *p, size_t bytes, uintptr_t *a, uintptr_t *e) {
  *a = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1);
  *e = ((uintptr_t)p + bytes) & ~(uintptr_t)(pg - 1);
  return *a < *e;
}

static int cmp_uintptr(const void *x, const void *y) {
  uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;
  return a < b ? -1 : a > b;
}

static void ref_next_touch(void) {
  long nb = GX * GX;
  size_t bytes = (size_t)W * W * sizeof(double);
  ref_lo = malloc(2 * nb * sizeof *ref_lo);
  ref_hi = malloc(2 * nb * sizeof *ref_hi);
  uintptr_t *pairs = malloc(4 * nb * sizeof *pairs);
  long k = 0;
  for (long b = 0; b < nb; b++)
    for (int f = 0; f < 2; f++) {
      uintptr_t a, e;
      if (inner(f ? blk[b]->v : blk[b]->u, bytes, &a, &e)) {
        pairs[2 * k] = a;
        pairs[2 * k + 1] = e;
        k++;
      }
    }
  qsort(pairs, k, 2 * sizeof *pairs, cmp_uintptr);
  for (long i = 0; i < k; i++) {
    ref_lo[i] = pairs[2 * i];
    ref_hi[i] = pairs[2 * i + 1];
  }
  ref_n = k;
  free(pairs);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ref_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGSEGV, &sa, NULL);
  for (long i = 0; i < ref_n; i++)
    mprotect((void *)ref_lo[i], ref_hi[i] - ref_lo[i], PROT_NONE);
}

// ---------------------------------------------------------------------------
// The oracle: each thread moves its own blocks' pages.

static void **oracle_pages[256];
static long oracle_n[256];

static void oracle_plan(int nthreads) {
  long nb = GX * GX;
  size_t bytes = (size_t)W * W * sizeof(double);
  for (int t = 0; t < nthreads; t++) {
    long lo = nb * t / nthreads, hi = nb * (t + 1) / nthreads, k = 0;
    oracle_pages[t] = malloc(((hi - lo) * 2 * (bytes / pg + 2)) * sizeof(void *));
    for (long b = lo; b < hi; b++)
      for (int f = 0; f < 2; f++) {
        uintptr_t p = (uintptr_t)(f ? blk[b]->v : blk[b]->u);
        for (uintptr_t a = p & ~(uintptr_t)(pg - 1); a < p + bytes; a += pg)
          oracle_pages[t][k++] = (void *)a;
      }
    oracle_n[t] = k;
  }
}

static void oracle_place(void) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), node = my_node();
    enum { BATCH = 1024 };
    int nodes[BATCH], status[BATCH];
    for (int i = 0; i < BATCH; i++)
      nodes[i] = node;
    for (long i = 0; i < oracle_n[t]; i += BATCH) {
      long n = oracle_n[t] - i < BATCH ? oracle_n[t] - i : BATCH;
      move_pages(0, n, oracle_pages[t] + i, nodes, status, MPOL_MF_MOVE);
    }
  }
}

// ---------------------------------------------------------------------------
// The sweep

static double at(const block_t *b, long i, long j) { return b->u[i * W + j]; }

static void sweep(void) {
  long nb = GX * GX;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long k = 0; k < nb; k++) { // ghosts from the neighbours
      block_t *b = blk[k];
      const block_t *n = b->bx > 0 ? blk[k - GX] : NULL, // x - 1
          *s = b->bx < GX - 1 ? blk[k + GX] : NULL,      // x + 1
              *w = b->by > 0 ? blk[k - 1] : NULL,         // y - 1
                  *e = b->by < GX - 1 ? blk[k + 1] : NULL; // y + 1
      for (long j = 1; j <= BS; j++) {
        b->u[0 * W + j] = n ? at(n, BS, j) : 0;
        b->u[(BS + 1) * W + j] = s ? at(s, 1, j) : 0;
      }
      for (long i = 1; i <= BS; i++) {
        b->u[i * W + 0] = w ? at(w, i, BS) : 0;
        b->u[i * W + BS + 1] = e ? at(e, i, 1) : 0;
      }
    }
#pragma omp for schedule(static)
    for (long k = 0; k < nb; k++) {
      block_t *b = blk[k];
      for (long i = 1; i <= BS; i++)
        for (long j = 1; j <= BS; j++)
          b->v[i * W + j] = 0.25 * (b->u[(i - 1) * W + j] + b->u[(i + 1) * W + j] +
                                    b->u[i * W + j - 1] + b->u[i * W + j + 1]);
      double *t = b->u;
      b->u = b->v;
      b->v = t;
    }
  }
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
  const char *variant = "nexttouch";
  int k = 1;
  for (int i = 1; i < argc; i++)
    if (!strncmp(argv[i], "--variant=", 10))
      variant = argv[i] + 10;
    else
      argv[k++] = argv[i];
  argc = k;
  int v_nt = !strcmp(variant, "nexttouch"), v_or = !strcmp(variant, "oracle"),
      v_ref = !strcmp(variant, "reference"), v_none = !strcmp(variant, "none");
  if (!v_nt && !v_or && !v_ref && !v_none)
    return fprintf(stderr, "blocks: unknown --variant=%s\n", variant), 2;
  GX = argc > 1 ? atol(argv[1]) : 32;
  BS = argc > 2 ? atol(argv[2]) : 62;
  int sweeps = argc > 3 ? atoi(argv[3]) : 20;
  if (GX < 1 || BS < 2 || sweeps < 1)
    return fprintf(stderr, "usage: blocks [--variant=V] [GX] [BS] [sweeps]\n"), 2;
  W = BS + 2;
  pg = sysconf(_SC_PAGESIZE);
  long nb = GX * GX;
  int nthreads = omp_get_max_threads(), nodes = numa_max_node() + 1;
  if (nthreads > 256)
    return fprintf(stderr, "blocks: at most 256 threads\n"), 2;
  int thread_node[256];
#pragma omp parallel
  thread_node[omp_get_thread_num()] = my_node();

  // Allocation and serial initialisation: three malloc()s per block.
  size_t bytes = (size_t)W * W * sizeof(double);
  blk = malloc(nb * sizeof *blk);
  const double h = 1.0 / (GX * BS + 1), PI = acos(-1.0);
  for (long b = 0; b < nb; b++) {
    block_t *p = malloc(sizeof *p);
    p->u = malloc(bytes);
    p->v = malloc(bytes);
    if (!p->u || !p->v)
      return perror("malloc"), 2;
    p->bx = (int)(b / GX);
    p->by = (int)(b % GX);
    for (long i = 0; i < W; i++)
      for (long j = 0; j < W; j++) {
        long gi = p->bx * BS + i, gj = p->by * BS + j; // global, 1-based
        int in = i > 0 && i <= BS && j > 0 && j <= BS;
        p->u[i * W + j] = in ? sin(PI * gi * h) * sin(PI * gj * h) : 0;
        p->v[i * W + j] = 0;
      }
    blk[b] = p;
  }
  if (v_or)
    oracle_plan(nthreads);

  kmp_reset_nexttouch_counters();
  double t0 = omp_get_wtime();
  if (v_nt)
    for (long b = 0; b < nb; b++) {
      long n = W * W;
      double *u = blk[b]->u, *v = blk[b]->v;
#pragma omp nexttouch(u[0 : n], v[0 : n])
    }
  else if (v_or)
    oracle_place();
  else if (v_ref)
    ref_next_touch();
  sweep();
  double t1 = omp_get_wtime();
  for (int s = 1; s < sweeps; s++)
    sweep();
  double t2 = omp_get_wtime();
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  kmp_get_nexttouch_counters(&c);

  // Placement: the whole pages inside the fields, against the node of the
  // thread that sweeps their block, as the sweep's schedule(static) hands
  // them out.
  int *owner_of = malloc(nb * sizeof *owner_of);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nb; b++)
    owner_of[b] = omp_get_thread_num();
  long pages = 0, local = 0;
  enum { Q = 1024 };
  void *q[Q];
  int st[Q], qo[Q], nq = 0;
  for (long b = 0; b <= nb; b++) {
    if (nq == Q || (b == nb && nq)) {
      if (move_pages(0, nq, q, NULL, st, 0) == 0)
        for (int i = 0; i < nq; i++)
          local += st[i] == qo[i];
      nq = 0;
    }
    if (b == nb)
      break;
    int owner = thread_node[owner_of[b]];
    for (int f = 0; f < 2; f++) {
      uintptr_t a, e;
      if (!inner(f ? blk[b]->v : blk[b]->u, bytes, &a, &e))
        continue;
      for (; a < e; a += pg) {
        if (nq == Q) {
          if (move_pages(0, nq, q, NULL, st, 0) == 0)
            for (int i = 0; i < nq; i++)
              local += st[i] == qo[i];
          nq = 0;
        }
        q[nq] = (void *)a;
        qo[nq++] = owner;
        pages++;
      }
    }
  }

  // Verification: cos(pi h)^sweeps u0.
  double lam = pow(cos(PI * h), sweeps), err = 0;
  for (long b = 0; b < nb; b++)
    for (long i = 1; i <= BS; i++)
      for (long j = 1; j <= BS; j++) {
        long gi = blk[b]->bx * BS + i, gj = blk[b]->by * BS + j;
        double want = lam * sin(PI * gi * h) * sin(PI * gj * h);
        double d = fabs(at(blk[b], i, j) - want);
        err = d > err ? d : err;
      }
  int ok = err <= 1e-9 * lam;
  char handled[32] = "-";
  if (v_nt && c.pages_armed)
    snprintf(handled, sizeof handled, "%.4f",
             (double)(c.pages_migrated + c.pages_already_local) / c.pages_armed);
  printf("NT_BLOCKS prog=blocks variant=%s nodes=%d threads=%d blocks=%ld "
         "ranges=%ld pages=%ld owner_local=%.4f handled=%s pages_armed=%llu "
         "fail_arm=%llu faults=%lu place_ms=%.1f time_ms=%.1f error=%.3g "
         "result=%s\n",
         variant, nodes, nthreads, nb, 2 * nb, pages,
         pages ? (double)local / pages : 0.0, handled,
         (unsigned long long)c.pages_armed, (unsigned long long)c.fail_arm,
         v_ref ? ref_faults : (unsigned long)c.faults, (t1 - t0) * 1e3,
         (t2 - t0) * 1e3, err / lam, ok ? "VERIFIED" : "FAILED");
  return ok ? 0 : 1;
}
