// readonly through the user API (kmp_readonly_begin/_ptr/_end), on the
// one-node host with KMP_READONLY_FORCE=1 (a replica for node 0): reads are
// right; 100 regions copy the item once; a serial write between regions
// opens one chunk and the next region sees the new data (refresh); a write
// to the item's bytes on a page it shares with other data is seen too
// (edge); combined and nested constructs and tasks; kmp_readonly_release.
// Without force, on one node: no replica, counted as a fallback.  A small
// item on pages shared with other data (3 pages from 100 bytes into a
// mapping) is read from the original unless forced (unreplicable).
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env OMP_NUM_THREADS=4 %libomp-run one-node | FileCheck %s --check-prefix=ONE
// REQUIRES: linux
// CHECK: readonly_replicas: PASS
// ONE: readonly_replicas one-node: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))
enum { PAGES = 80 };
static long pg;
static double *A; // PAGES pages from 100 bytes into a mapping: two edges
static size_t n;

static double serial_sum(const double *p) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return s;
}

// One region that sums the item through each thread's pointer; returns the
// number of threads whose sum was wrong, and the pointer thread 0 used.
static int region(const double *want_from, const double **used) {
  double want = serial_sum(want_from);
  const void *ptrs[1] = {A};
  size_t lens[1] = {n * sizeof *A};
  const char *names[1] = {"A"};
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, ptrs, lens, names, &h) == 0, "begin");
  int wrong = 0;
#pragma omp parallel reduction(+ : wrong)
  {
    const double *p = kmp_readonly_ptr(h, 0);
    if (omp_get_thread_num() == 0 && used)
      *used = p;
    wrong += serial_sum(p) != want;
  }
  NT_CHECK(kmp_readonly_end(h) == 0, "end");
  return wrong;
}

static void forced(void) {
  kmp_nexttouch_counters_t c0 = nt_counters(), c;
  const double *p = NULL;
  int wrong = 0;
  for (int r = 0; r < 100; r++)
    wrong += region(A, &p);
  c = nt_counters();
  NT_CHECK(wrong == 0, "%d wrong sums", wrong);
  NT_CHECK(p != A && ((uintptr_t)p - (uintptr_t)A) % pg == 0,
           "replica %p of %p", (void *)p, (void *)A);
  NT_CHECK(c.readonly_regions - c0.readonly_regions == 100 &&
               c.readonly_items - c0.readonly_items == 100,
           "regions %llu items %llu",
           U(c.readonly_regions - c0.readonly_regions),
           U(c.readonly_items - c0.readonly_items));
  NT_CHECK(c.readonly_replicas - c0.readonly_replicas == 1 &&
               c.readonly_replicas_reused - c0.readonly_replicas_reused == 99 &&
               c.readonly_refreshes == c0.readonly_refreshes &&
               c.readonly_bytes_replicated - c0.readonly_bytes_replicated ==
                   n * sizeof *A,
           "replicas %llu reused %llu refreshes %llu bytes %llu",
           U(c.readonly_replicas - c0.readonly_replicas),
           U(c.readonly_replicas_reused - c0.readonly_replicas_reused),
           U(c.readonly_refreshes - c0.readonly_refreshes),
           U(c.readonly_bytes_replicated - c0.readonly_bytes_replicated));

  // Serial writes: three chunks (32 pages each) opened by four writes.
  c0 = nt_counters();
  A[(2 * pg) / sizeof *A] = 1e6;
  A[(3 * pg) / sizeof *A] += 1; // the same chunk
  A[(40 * pg) / sizeof *A] = -5;
  A[n - 2 * pg / sizeof *A] = 7;
  c = nt_counters();
  NT_CHECK(c.readonly_serial_writes - c0.readonly_serial_writes == 3,
           "serial writes %llu",
           U(c.readonly_serial_writes - c0.readonly_serial_writes));
  NT_CHECK(region(A, NULL) == 0, "new data after serial writes");
  c = nt_counters();
  NT_CHECK(c.readonly_refreshes - c0.readonly_refreshes == 1 &&
               c.readonly_replicas == c0.readonly_replicas,
           "refreshes %llu", U(c.readonly_refreshes - c0.readonly_refreshes));
  size_t copied = c.readonly_bytes_replicated - c0.readonly_bytes_replicated;
  NT_CHECK(copied > 0 && copied <= 3 * 32 * (size_t)pg, "copied %zu", copied);
  // The item's bytes on the pages it shares (not protected): compared.
  c0 = nt_counters();
  A[0] = 42;
  A[n - 1] = 43;
  NT_CHECK(region(A, NULL) == 0, "new data at the edges");
  c = nt_counters();
  NT_CHECK(c.readonly_serial_writes == c0.readonly_serial_writes &&
               c.readonly_refreshes - c0.readonly_refreshes == 1,
           "edges: serial %llu refreshes %llu",
           U(c.readonly_serial_writes - c0.readonly_serial_writes),
           U(c.readonly_refreshes - c0.readonly_refreshes));

  // Combined constructs and tasks: parallel for, sections, a task reads
  // through the pointer of the thread that created it.
  double want = serial_sum(A), s_for = 0, s_sec = 0, s_task = 0;
  const void *ptrs[1] = {A};
  size_t lens[1] = {n * sizeof *A};
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, ptrs, lens, NULL, &h) == 0, "begin");
#pragma omp parallel
  {
    const double *q = kmp_readonly_ptr(h, 0);
#pragma omp for reduction(+ : s_for)
    for (size_t i = 0; i < n; i++)
      s_for += q[i];
#pragma omp sections reduction(+ : s_sec)
    {
#pragma omp section
      s_sec += serial_sum(q);
#pragma omp section
      s_sec += serial_sum(q);
    }
#pragma omp single
#pragma omp task shared(s_task)
    s_task = serial_sum(q);
  }
  NT_CHECK(kmp_readonly_end(h) == 0, "end");
  NT_CHECK(s_for == want && s_sec == 2 * want && s_task == want,
           "for %g sections %g task %g want %g", s_for, s_sec, s_task, want);

  // Nested: each thread of an outer team starts an inner region on A.
  omp_set_max_active_levels(2);
  c0 = nt_counters();
  int wrong_nested = 0;
#pragma omp parallel num_threads(2) reduction(+ : wrong_nested)
  {
    kmp_readonly_t hi;
    NT_CHECK(kmp_readonly_begin(1, ptrs, lens, NULL, &hi) == 0, "inner begin");
#pragma omp parallel num_threads(2) reduction(+ : wrong_nested)
    wrong_nested += serial_sum(kmp_readonly_ptr(hi, 0)) != want;
    NT_CHECK(kmp_readonly_end(hi) == 0, "inner end");
  }
  c = nt_counters();
  NT_CHECK(wrong_nested == 0, "nested: %d wrong", wrong_nested);
  NT_CHECK(c.readonly_regions - c0.readonly_regions == 2 &&
               c.readonly_replicas == c0.readonly_replicas,
           "nested: regions %llu, replicas %llu",
           U(c.readonly_regions - c0.readonly_regions),
           U(c.readonly_replicas - c0.readonly_replicas));

  // Released: writable, replica gone; the next region makes a new one.
  c0 = nt_counters();
  NT_CHECK(kmp_readonly_release(A, n * sizeof *A) == 0, "release");
  A[(10 * pg) / sizeof *A] = 3;
  c = nt_counters();
  NT_CHECK(c.readonly_dropped - c0.readonly_dropped == 1 &&
               c.readonly_serial_writes == c0.readonly_serial_writes,
           "release: dropped %llu, serial writes %llu",
           U(c.readonly_dropped - c0.readonly_dropped),
           U(c.readonly_serial_writes - c0.readonly_serial_writes));
  NT_CHECK(region(A, NULL) == 0, "after release");
  c = nt_counters();
  NT_CHECK(c.readonly_replicas - c0.readonly_replicas == 1, "new replica");
  NT_CHECK(c.readonly_write_traps == 0 && c.readonly_fallback_one_node == 0 &&
               c.readonly_fallback_budget == 0,
           "no trap, no fallback");
}

static void small_item(int force) {
  char *m = nt_map(4 * pg);
  memset(m, 1, 4 * pg);
  const char *s = m + 100;
  size_t len = 3 * pg;
  kmp_nexttouch_counters_t c0 = nt_counters();
  int rep = -1;
  NT_CHECK(nt_ro_region_sum(s, len, &rep) == (long)len, "small item: sum");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(
      rep == force &&
          c.readonly_fallback_unreplicable -
                  c0.readonly_fallback_unreplicable ==
              (unsigned)!force &&
          c.readonly_fallback_one_node == c0.readonly_fallback_one_node,
      "small item: replica %d, unreplicable %llu, one node %llu", rep,
      U(c.readonly_fallback_unreplicable - c0.readonly_fallback_unreplicable),
      U(c.readonly_fallback_one_node - c0.readonly_fallback_one_node));
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  char *m = nt_map((PAGES + 2) * pg);
  A = (double *)(m + 104); // 8-aligned, not page-aligned
  n = PAGES * pg / sizeof *A;
  for (size_t i = 0; i < n; i++)
    A[i] = (double)(i % 1000);
  if (argc > 1) { // one node, not forced: the original, no protection lost
    small_item(0);
    kmp_nexttouch_counters_t c0 = nt_counters();
    const double *p = NULL;
    NT_CHECK(region(A, &p) == 0 && p == A, "read %p, original %p", (void *)p,
             (void *)A);
    A[(20 * pg) / sizeof *A] = 9; // serial write: the chunk is opened
    NT_CHECK(region(A, &p) == 0, "new data");
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.readonly_fallback_one_node - c0.readonly_fallback_one_node ==
                     2 &&
                 c.readonly_replicas == 0 && c.readonly_serial_writes == 1,
             "one node %llu replicas %llu serial %llu",
             U(c.readonly_fallback_one_node - c0.readonly_fallback_one_node),
             U(c.readonly_replicas), U(c.readonly_serial_writes));
    return nt_done("readonly_replicas one-node");
  }
  forced();
  small_item(1);
  return nt_done("readonly_replicas");
}
