// Bad input to kmp_nexttouch() and __kmpc_nexttouch(): every case gives its
// documented code (or is a documented no-op), never a crash, and armed
// neighbours keep their data.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 %libomp-run 2>&1 \
// RUN:   | FileCheck %s
// Without KMP_NEXTTOUCH_FORCE on a one-node host every check still applies.
// RUN: env KMP_NEXTTOUCH_FORCE=0 %libomp-run noop 2>&1 | FileCheck %s --check-prefix=NOOP
// REQUIRES: linux
//
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: nexttouch at {{.*}}api_errors.c:42:7 (kmpc_calls): range 1 ({{.*}}) ignored: the length overflows the address space.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: nexttouch at {{.*}}api_errors.c:42:7 (kmpc_calls): range 2 ({{.*}}) ignored: not mapped.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: nexttouch at {{.*}}api_errors.c:42:7 (kmpc_calls): range 3 ({{.*}}) ignored: NULL, zero element size, or a thread{{.}}s stack.
// CHECK-NOT: range 0
// CHECK: api_errors: PASS
// NOOP: api_errors noop: PASS
#include "nexttouch_test.h"
#include <stdint.h>

static const char rodata[8192] = {1};

static void kmpc_calls(char *ok) {
  static ident_t loc = {0, 2, 0, 0, ";api_errors.c;kmpc_calls;42;7;;"};
  long pg = nt_pagesize();
  kmp_memory_range_t r[5] = {
      {ok, 4, sizeof(int)}, // fine
      {ok, (size_t)-5, sizeof(int)}, // negative length: count*size overflows
      {(void *)(uintptr_t)pg, 1, 1}, // page 1 is never mapped
      {ok, 1, 0}, // zero element size
      {ok, 0, 4}, // empty: no-op
  };
  int rc = __kmpc_nexttouch(&loc, 0, 5, r);
  NT_CHECK(rc == EOVERFLOW, "first failing range's code, got %d", rc);
  NT_CHECK(__kmpc_nexttouch(&loc, 0, 0, NULL) == 0, "no ranges");
  NT_CHECK(__kmpc_nexttouch(&loc, 0, -1, r) == EINVAL, "negative count");
}

int main(int argc, char **argv) {
  long pg = nt_pagesize();
  int noop = argc > 1;
  char *a = nt_map(8 * pg);
  memset(a, 7, 8 * pg);
  kmp_nexttouch_counters_t c0 = nt_counters();

  // Always: zero length is a no-op (even at NULL), NULL and overflow fail.
  NT_CHECK(kmp_nexttouch(NULL, 0) == 0, "zero length at NULL");
  NT_CHECK(kmp_nexttouch(a, 0) == 0, "zero length");
  NT_CHECK(kmp_nexttouch(NULL, 10) == EINVAL, "NULL");
  NT_CHECK(kmp_nexttouch(a, (size_t)-1) == EOVERFLOW, "huge length");
  NT_CHECK(kmp_nexttouch(a, SIZE_MAX / 2 + 2) == EOVERFLOW, "> PTRDIFF_MAX");
  NT_CHECK(kmp_nexttouch((void *)(UINTPTR_MAX - 10), 5) == EOVERFLOW,
           "end of the address space");
  if (noop) {
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.active == 0, "one node, not forced: inactive");
    // The range is checked all the same: the codes of a machine where
    // requests are recorded.
    char *nh = nt_map(3 * pg);
    munmap(nh + pg, pg);
    NT_CHECK(kmp_nexttouch(nh, 3 * pg) == EFAULT, "no-op: hole");
    NT_CHECK(kmp_nexttouch((void *)rodata, sizeof rodata) == EACCES,
             "no-op: rodata");
    char nlocal[64];
    NT_CHECK(kmp_nexttouch(nlocal, sizeof nlocal) == EINVAL, "no-op: stack");
    NT_CHECK(kmp_nexttouch(a, pg) == 0, "no-op request");
    c = nt_counters();
    NT_CHECK(c.noop_requests == 1 && c.requests == 0, "noop %llu req %llu",
             (unsigned long long)c.noop_requests,
             (unsigned long long)c.requests);
#pragma omp parallel num_threads(2)
    a[omp_get_thread_num() * pg] += 1;
    c = nt_counters();
    NT_CHECK(c.pages_armed == 0 && c.faults == 0, "nothing armed");
    NT_CHECK(a[0] == 8 && a[pg] == 8, "data");
    return nt_done("api_errors noop");
  }
  NT_CHECK(c0.active == 1 && c0.forced == 1, "forced on");

  // Unmapped: a hole in the middle of a range, and freed (unmapped) memory.
  char *h = nt_map(3 * pg);
  munmap(h + pg, pg);
  NT_CHECK(kmp_nexttouch(h, 3 * pg) == EFAULT, "hole");
  NT_CHECK(kmp_nexttouch(h + pg, 1) == EFAULT, "unmapped page");
  munmap(h, 3 * pg);
  NT_CHECK(kmp_nexttouch(h, pg) == EFAULT, "munmapped memory");
  // Read-only data, code, PROT_NONE memory.
  NT_CHECK(kmp_nexttouch((void *)rodata, sizeof rodata) == EACCES, "rodata");
  NT_CHECK(kmp_nexttouch((void *)&main, 16) == EACCES, "code");
  char *ro = nt_map(pg);
  mprotect(ro, pg, PROT_READ);
  NT_CHECK(kmp_nexttouch(ro, pg) == EACCES, "PROT_READ");
  mprotect(ro, pg, PROT_NONE);
  NT_CHECK(kmp_nexttouch(ro, pg) == EACCES, "PROT_NONE");
  // The calling thread's stack.
  char local[64];
  NT_CHECK(kmp_nexttouch(local, sizeof local) == EINVAL, "stack");

  // Misaligned and overlapping requests merge; their whole pages are armed:
  // bytes 1.. of page 0 through byte 5 of page 3, and byte 100 of page 2
  // through byte 99 of page 4 -> pages 1-3; with the kmpc call's first 16
  // bytes of page 0, pages 0-3.
  NT_CHECK(kmp_nexttouch(a + 1, 3 * pg + 5 - 1) == 0, "misaligned");
  NT_CHECK(kmp_nexttouch(a + 2 * pg + 100, 2 * pg) == 0, "overlapping");
  NT_CHECK(kmp_nexttouch(a + 2 * pg + 100, 2 * pg) == 0, "repeated");
  kmpc_calls(a);

  // Freed heap memory that is still mapped is legal: it is data the
  // allocator owns; it moves like any other (it must not crash either).
  char *m = (char *)malloc(3 * pg);
  memset(m, 3, 3 * pg);
  free(m);
  NT_CHECK(kmp_nexttouch(m + pg, pg) == 0, "freed heap memory");

  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.bad_requests - c0.bad_requests == 15, "bad requests %llu",
           (unsigned long long)(c.bad_requests - c0.bad_requests));
  NT_CHECK(c.pages_armed == c0.pages_armed, "serial code armed nothing");
  // One region: pages 0-3 of a are armed, page 4 (partly requested) is not,
  // page 6 untouched and unrequested.
#pragma omp parallel num_threads(2)
  {
#pragma omp for
    for (int p = 0; p < 8; p++)
      a[p * pg + 17] += 1;
  }
  c = nt_counters();
  NT_CHECK(c.arms - c0.arms == 1, "one arming");
  NT_CHECK(c.pages_armed - c0.pages_armed >= 4, "armed %llu",
           (unsigned long long)(c.pages_armed - c0.pages_armed));
  for (int p = 0; p < 8; p++)
    for (int i = 0; i < pg; i++)
      if (a[p * pg + i] != (i == 17 ? 8 : 7)) {
        NT_CHECK(0, "page %d byte %d is %d", p, i, a[p * pg + i]);
        p = 8;
        break;
      }
  return nt_done("api_errors");
}
