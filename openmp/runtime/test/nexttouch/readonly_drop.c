// Dropping a cached readonly item gives its pages back exactly the protection
// the program gave them, whatever the reason (host, KMP_READONLY_FORCE=1,
// KMP_NEXTTOUCH_FORCE=1, a budget of 96 KB: one 64 KB item fits, two do not):
//  - evicted for the budget by a later item of the same list: the item is
//    protected again in that region (a write there stops the program), and
//    a serial write after it works (no page is left read-only);
//  - the program made a page of it writable itself (mprotect): the next
//    region that lists it protects and replicates it again; released, the
//    whole item is writable;
//  - part of it unmapped and a page made PROT_NONE by the program, then
//    released or requested for next-touch: the rest is writable, the guard
//    stays PROT_NONE.
// Each case runs in a child of a process that never entered libomp.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 \
// RUN:   KMP_READONLY_BUDGET=96k OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_drop: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>

#define U(x) ((unsigned long long)(x))
static long pg;

// The pages [first, last) of p that /proc/self/maps does not show as `prot`.
static int pages_not(const char *p, int first, int last, int prot) {
  int bad = 0;
  for (int i = first; i < last; i++)
    bad += nt_maps_prot(p + i * pg) != prot;
  return bad;
}

// Evicted by B, listed before it in the same region.
static void evicted_by_same_list(int write_in_region) {
  char *x = nt_map(16 * pg), *b = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  memset(b, 2, 16 * pg);
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 16 * pg, "x alone");
  kmp_nexttouch_counters_t c0 = nt_counters();
  const void *ptrs[2] = {b, x};
  size_t lens[2] = {16 * pg, 16 * pg};
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(2, ptrs, lens, NULL, &h) == 0, "begin (b, x)");
  NT_CHECK(nt_counters().readonly_dropped - c0.readonly_dropped == 1,
           "x evicted");
  NT_CHECK(pages_not(x, 0, 16, PROT_READ) == 0, "x protected in its region");
  long sx = 0;
#pragma omp parallel reduction(+ : sx)
  {
    const char *q = kmp_readonly_ptr(h, 1);
    if (omp_get_thread_num() == 0) {
      for (long i = 0; i < 16 * pg; i++)
        sx += q[i];
      if (write_in_region)
        ((volatile char *)x)[5 * pg] = 9; // must stop the program
    }
  }
  kmp_readonly_end(h);
  if (write_in_region)
    _exit(5); // not trapped
  NT_CHECK(sx == 16 * pg, "x read in the region: %ld", sx);
  x[5 * pg] = 3; // a serial write works (x is cached again: it opens a chunk)
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 16 * pg + 2, "x's new data");
  NT_CHECK(kmp_readonly_release(x, 16 * pg) == 0 &&
               kmp_readonly_release(b, 16 * pg) == 0,
           "release");
  NT_CHECK(pages_not(x, 0, 16, PROT_READ | PROT_WRITE) == 0 &&
               pages_not(b, 0, 16, PROT_READ | PROT_WRITE) == 0,
           "released: writable");
}

static void evicted_and_written(void) { evicted_by_same_list(1); }
static void evicted(void) { evicted_by_same_list(0); }

// The program makes page 4 writable itself between regions.
static void partly_reprotected(void) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 16 * pg, "first");
  NT_CHECK(mprotect(x + 4 * pg, pg, PROT_READ | PROT_WRITE) == 0, "mprotect");
  x[4 * pg] = 7;
  int rep = 0;
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, &rep) == 16 * pg + 6 && rep,
           "replicated again, with the new data");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.readonly_items - c0.readonly_items == 1, "handled");
  x[10 * pg] = 2; // a serial write on a page the program never changed
  NT_CHECK(kmp_readonly_release(x, 16 * pg) == 0, "release");
  NT_CHECK(pages_not(x, 0, 16, PROT_READ | PROT_WRITE) == 0,
           "released: %d pages not writable",
           pages_not(x, 0, 16, PROT_READ | PROT_WRITE));
}

// Pages 12-15 unmapped, page 11 PROT_NONE (the program's guard).
static void partly_unmapped(int nexttouch) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 16 * pg, "first");
  NT_CHECK(munmap(x + 12 * pg, 4 * pg) == 0, "munmap");
  NT_CHECK(mprotect(x + 11 * pg, pg, PROT_NONE) == 0, "guard");
  int rc =
      nexttouch ? kmp_nexttouch(x, 11 * pg) : kmp_readonly_release(x, 16 * pg);
  NT_CHECK(rc == 0, "%s: %d", nexttouch ? "next-touch request" : "release", rc);
  NT_CHECK(pages_not(x, 0, 11, PROT_READ | PROT_WRITE) == 0,
           "%d pages not writable",
           pages_not(x, 0, 11, PROT_READ | PROT_WRITE));
  NT_CHECK(nt_maps_prot(x + 11 * pg) == 0, "the guard is PROT_NONE");
  for (int i = 0; i < 11; i++)
    x[i * pg] = 2;
}
static void released(void) { partly_unmapped(0); }
static void requested(void) { partly_unmapped(1); }

// f in a child: 0 if it passed, else its status.
static int run(const char *name, void (*f)(void), int want_signal) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    f();
    _exit(nt_failures ? 3 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  int ok = want_signal ? WIFSIGNALED(st) && WTERMSIG(st) == want_signal
                       : WIFEXITED(st) && WEXITSTATUS(st) == 0;
  NT_CHECK(ok, "%s: status %#x (%s %d)", name, st,
           WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  return !ok;
}

int main(void) {
  pg = nt_pagesize();
  // The parent never enters libomp.
  run("evicted by a later item of the same list", evicted, 0);
  run("written in its region after that eviction", evicted_and_written,
      SIGABRT);
  run("part made writable by the program", partly_reprotected, 0);
  run("part unmapped, released", released, 0);
  run("part unmapped, next-touch request", requested, 0);
  return nt_done("readonly_drop");
}
