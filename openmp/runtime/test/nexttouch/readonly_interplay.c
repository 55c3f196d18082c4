// readonly and the rest of the program (host, KMP_READONLY_FORCE=1 and
// KMP_NEXTTOUCH_FORCE=1):
//  - next-touch: a pending request on an item is disarmed when its region
//    starts; a request on a cached item between regions drops the item
//    (next-touch then arms it); a request while a region holds it: EBUSY;
//  - the program unmaps a cached item and maps new data at its address, or
//    makes it writable itself: the next region reads the new data;
//  - an item on the stack: never protected between regions;
//  - fork(2): the child writes a cached item and reads it in a region.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 \
// RUN:   OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_interplay: PASS
#include "nexttouch_test.h"
#include <sys/wait.h>

#define U(x) ((unsigned long long)(x))
static long pg;

static void nexttouch(void) {
  char *a = nt_map(16 * pg);
  memset(a, 1, 16 * pg);
  kmp_nexttouch_counters_t c0 = nt_counters(), c;
  NT_CHECK(kmp_nexttouch(a, 16 * pg) == 0, "request");
  int rep = 0;
  NT_CHECK(nt_ro_region_sum(a, 16 * pg, &rep) == 16 * pg && rep, "pending");
  c = nt_counters();
  NT_CHECK(c.pages_armed == c0.pages_armed, "armed %llu",
           U(c.pages_armed - c0.pages_armed));
  // Cached between regions: a request drops it; next-touch arms it.
  NT_CHECK(kmp_nexttouch(a, 16 * pg) == 0, "request on a cached item");
  c = nt_counters();
  NT_CHECK(c.readonly_dropped - c0.readonly_dropped == 1, "dropped %llu",
           U(c.readonly_dropped - c0.readonly_dropped));
#pragma omp parallel
  a[omp_get_thread_num() * pg] += 1;
  c = nt_counters();
  NT_CHECK(c.pages_armed - c0.pages_armed == 16, "armed %llu",
           U(c.pages_armed - c0.pages_armed));
  kmp_nexttouch_disarm(NULL, 0);
  // In a region that lists it: EBUSY.
  const void *p = a;
  size_t len = 16 * pg;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
  int busy = 0;
#pragma omp parallel
#pragma omp single
  busy = kmp_nexttouch(a, 16 * pg);
  kmp_readonly_end(h);
  NT_CHECK(busy == EBUSY, "request in the region: %d", busy);
}

static void remapped(void) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  kmp_nexttouch_counters_t c0 = nt_counters(), c;
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 16 * pg, "first");
  munmap(x, 16 * pg);
  char *y = mmap(x, 16 * pg, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  NT_CHECK(y == x, "mapped again at %p", (void *)y);
  memset(y, 2, 16 * pg); // no fault: a new mapping
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 2 * 16 * pg,
           "new mapping's data");
  // The program makes it writable itself and writes.
  mprotect(x, 16 * pg, PROT_READ | PROT_WRITE);
  memset(x, 3, 16 * pg);
  NT_CHECK(nt_ro_region_sum(x, 16 * pg, NULL) == 3 * 16 * pg, "re-protected");
  c = nt_counters();
  NT_CHECK(c.readonly_dropped - c0.readonly_dropped == 2 &&
               c.readonly_serial_writes == c0.readonly_serial_writes,
           "dropped %llu serial %llu",
           U(c.readonly_dropped - c0.readonly_dropped),
           U(c.readonly_serial_writes - c0.readonly_serial_writes));
}

static void on_stack(void) {
  char local[12 * 4096];
  memset(local, 1, sizeof local);
  kmp_nexttouch_counters_t c0 = nt_counters(), c;
  int rep = 0;
  NT_CHECK(nt_ro_region_sum(local, sizeof local, &rep) == (long)sizeof local &&
               rep,
           "stack item");
  memset(local, 2, sizeof local); // not protected between regions
  NT_CHECK(nt_ro_region_sum(local, sizeof local, NULL) ==
               2 * (long)sizeof local,
           "stack item, new data");
  c = nt_counters();
  NT_CHECK(c.readonly_serial_writes == c0.readonly_serial_writes &&
               c.readonly_refreshes - c0.readonly_refreshes == 1,
           "serial %llu refreshes %llu",
           U(c.readonly_serial_writes - c0.readonly_serial_writes),
           U(c.readonly_refreshes - c0.readonly_refreshes));
}

static void forked(void) {
  char *a = nt_map(16 * pg);
  memset(a, 1, 16 * pg);
  NT_CHECK(nt_ro_region_sum(a, 16 * pg, NULL) == 16 * pg, "before fork");
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    a[5 * pg] = 11; // a serial write in the child
    long s = nt_ro_region_sum(a, 16 * pg, NULL);
    _exit(s == 16 * pg + 10 && nt_counters().readonly_serial_writes >= 1 ? 0
                                                                         : 3);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %#x", st);
  NT_CHECK(a[5 * pg] == 1, "the parent's copy is its own");
}

int main(void) {
  pg = nt_pagesize();
  nexttouch();
  remapped();
  on_stack();
  forked();
  return nt_done("readonly_interplay");
}
