// The user-level next-touch of 2008 (Terboven et al., "Data and Thread
// Affinity in OpenMP Programs"; Löf and Holmgren), as the reference for
// bench/nexttouch_dist.c. It does not use libomp's engine (no kmp_nexttouch):
//
//   next_touch(range): mprotect(range, PROT_NONE)
//   SIGSEGV handler:   page = fault address rounded down; node = node of the
//                      faulting thread's CPU; make the page accessible and
//                      move_pages() it, one page per fault
//
// The handler opens the page before moving it: on Debian's 6.1 kernel
// move_pages() leaves PROT_NONE pages where they are (status -ENOENT), so the
// 2008 order (move, then mprotect) would move nothing here. The time of a
// run is next_touch() plus the loop (like the engine's request + arming).
//
// usage: reference_nexttouch MiB reps [nomove]   (CSV rows, bench_common.h)
//   nomove: the handler only opens the page (no move_pages): on one node,
//   the cost of fault + mprotect alone, for the native comparison.
#include "bench_common.h"
#include <signal.h>

// faults taken; pages that were on the toucher's node after move_pages
static volatile unsigned long faults, moved;
static int no_move; // "nomove": fault + mprotect only (the native cost split)

static void handler(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  char *a = (char *)si->si_addr;
  if (a < array || a >= array + bytes) { // not ours: die as usual
    signal(sig, SIG_DFL);
    return;
  }
  void *page = (void *)((unsigned long)a & ~(unsigned long)(pg - 1));
  int node = my_node(), status = -1;
  mprotect(page, pg, PROT_READ | PROT_WRITE);
  if (!no_move)
    move_pages(0, 1, &page, &node, &status, MPOL_MF_MOVE);
  __atomic_fetch_add(&faults, 1, __ATOMIC_RELAXED);
  if (status == node)
    __atomic_fetch_add(&moved, 1, __ATOMIC_RELAXED);
}

static void next_touch(void *p, size_t len) { mprotect(p, len, PROT_NONE); }

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  no_move = argc > 3 && strcmp(argv[3], "nomove") == 0;
  const char *name = no_move ? "reference-nomove" : "reference";
  bench_setup(mib);
  printf("reference_nexttouch: %zu MiB, %zu pages, %d threads, %d nodes\n",
         mib, npages, omp_get_max_threads(), nodes);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  for (int rep = 1; rep <= reps; rep++) {
    bench_map(0);
    faults = moved = 0;
    double t0 = now();
    next_touch(array, bytes);
    double t1 = now();
    touch_all();
    double t = now() - t0;
    csv_row(name, rep, t * 1e3, (t1 - t0) * 1e3, faults, faults,
            moved, 0, 0, 0, local_percent(), checksum_ok(1));
    prof_row(name, rep, t1);
    bench_unmap();
  }
  return 0;
}
