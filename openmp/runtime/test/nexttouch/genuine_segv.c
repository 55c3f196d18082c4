// A genuine segmentation fault still kills the program with SIGSEGV: a NULL
// dereference inside a region while pages are armed, a write to read-only
// memory after a region, and a fault with the program's own handler that
// gives up (resets SIG_DFL).  Each case runs in a child process.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: genuine_segv: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>

static volatile int *volatile null_ptr;

static void in_region(void) {
  long pg = nt_pagesize();
  int *a = (int *)nt_map(64 * pg);
  memset(a, 1, 64 * pg);
  if (kmp_nexttouch(a, 64 * pg) != 0)
    _exit(3);
#pragma omp parallel
  {
    a[omp_get_thread_num() * (pg / sizeof(int))]++;
#pragma omp barrier
    // The engine is really there: pages were armed and a fault taken.
    if (omp_get_thread_num() == 0 &&
        (nt_counters().pages_armed == 0 || nt_counters().faults == 0))
      _exit(4);
#pragma omp barrier
    if (omp_get_thread_num() == 1)
      *null_ptr = 1;
#pragma omp barrier
  }
}

static void after_region(void) {
  long pg = nt_pagesize();
  int *a = (int *)nt_map(64 * pg);
  memset(a, 1, 64 * pg);
  if (kmp_nexttouch(a, 64 * pg) != 0)
    _exit(3);
#pragma omp parallel
  a[omp_get_thread_num() * (pg / sizeof(int))]++;
  if (nt_counters().pages_armed == 0 || nt_counters().faults == 0)
    _exit(4);
  char *ro = nt_map(pg);
  mprotect(ro, pg, PROT_READ);
  ro[3] = 1; // SEGV_ACCERR, like the engine's own faults
}

static void give_up(int sig) { signal(sig, SIG_DFL); }

static void with_handler(void) {
  signal(SIGSEGV, give_up);
  in_region();
}

static void run(const char *name, void (*f)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0); // not reached if it dies
  }
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "%s: status %#x (%s %d)",
           name, st, WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(void) {
  // The parent never enters libomp before forking.
  run("NULL in a region", in_region);
  run("read-only after a region", after_region);
  run("own handler gives up", with_handler);
  return nt_done("genuine_segv");
}
