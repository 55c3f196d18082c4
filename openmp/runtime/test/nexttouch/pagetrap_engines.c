// The page-trap layer decides from the settings of the engines registered
// with it (docs/Design.rst, "The hooks"), never from one engine's variables:
//   both:    next-touch and readonly on (the default), next-touch forced:
//            pages move (active, forced), the wrappers keep SIGSEGV
//            deliverable;
//   ro:      only readonly on, and forced: nothing moves pages (active 0,
//            mechanism 0, and readonly's force is not next-touch's), the
//            wrappers still keep SIGSEGV deliverable (readonly traps
//            writes);
//   nt:      only next-touch on, forced: pages move, SIGSEGV kept;
//   none:    both off: the wrappers pass the program's masks through, so a
//            thread that blocks SIGSEGV has it blocked in the kernel too.
// The kernel's mask is read with the raw system call, which no wrapper sees.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 %libomp-run both \
// RUN:   | FileCheck %s --check-prefix=BOTH
// RUN: env KMP_NEXTTOUCH=false KMP_READONLY_FORCE=1 %libomp-run ro \
// RUN:   | FileCheck %s --check-prefix=RO
// RUN: env KMP_READONLY=false KMP_NEXTTOUCH_FORCE=1 %libomp-run nt \
// RUN:   | FileCheck %s --check-prefix=NT
// RUN: env KMP_NEXTTOUCH=false KMP_READONLY=false KMP_NEXTTOUCH_FORCE=1 \
// RUN:   %libomp-run none | FileCheck %s --check-prefix=NONE
// REQUIRES: linux
// BOTH: active=1 forced=1 kernel_blocks_segv=0 view_blocks_segv=1
// BOTH: pagetrap_engines both: PASS
// RO: active=0 forced=0 kernel_blocks_segv=0 view_blocks_segv=1
// RO: pagetrap_engines ro: PASS
// NT: active=1 forced=1 kernel_blocks_segv=0 view_blocks_segv=1
// NT: pagetrap_engines nt: PASS
// NONE: active=0 forced=0 kernel_blocks_segv=1 view_blocks_segv=1
// NONE: pagetrap_engines none: PASS
#include "nexttouch_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

// The kernel's mask of the calling thread.
static int kernel_blocks_segv(void) {
  unsigned long mask = 0;
  if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof mask) != 0)
    return -1;
  return (mask >> (SIGSEGV - 1)) & 1;
}

static void *blocker(void *arg) {
  int *out = (int *)arg;
  sigset_t s, view;
  sigemptyset(&s);
  sigaddset(&s, SIGSEGV);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
  out[0] = kernel_blocks_segv();
  pthread_sigmask(SIG_BLOCK, NULL, &view);
  out[1] = sigismember(&view, SIGSEGV);
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "both";
#pragma omp parallel num_threads(2)
  { // libomp has read its settings
  }
  kmp_nexttouch_counters_t c = nt_counters();
  int seen[2] = {-1, -1};
  pthread_t t;
  NT_CHECK(pthread_create(&t, NULL, blocker, seen) == 0, "pthread_create");
  pthread_join(t, NULL);
  printf("active=%d forced=%d kernel_blocks_segv=%d view_blocks_segv=%d\n",
         c.active, c.forced, seen[0], seen[1]);
  int moves = strcmp(mode, "both") == 0 || strcmp(mode, "nt") == 0;
  NT_CHECK(c.active == moves && c.forced == moves, "active %d forced %d",
           c.active, c.forced);
  if (!moves)
    NT_CHECK(c.mechanism == 0, "mechanism %d", c.mechanism);
  NT_CHECK(seen[0] == (strcmp(mode, "none") == 0), "kernel mask %d", seen[0]);
  NT_CHECK(seen[1] == 1, "the program's view %d", seen[1]);
  // Next-touch requests are checked, and no-ops where nothing moves pages.
  long pg = nt_pagesize();
  char *a = nt_map(2 * pg);
  memset(a, 1, 2 * pg);
  NT_CHECK(kmp_nexttouch(a, 2 * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1)
      a[pg] = 2;
  }
  NT_CHECK(a[0] == 1 && a[pg] == 2, "data");
  c = nt_counters();
  NT_CHECK(moves ? c.pages_armed == 2 : c.pages_armed == 0, "armed %llu",
           (unsigned long long)c.pages_armed);
  char name[64];
  snprintf(name, sizeof name, "pagetrap_engines %s", mode);
  return nt_done(name);
}
