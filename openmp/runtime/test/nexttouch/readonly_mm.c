// The program changes a cached readonly item's memory between regions
// without writing to it from user space: the next region that lists it
// reads the current content on every thread (host, KMP_READONLY_FORCE=1:
// real replicas).
//  - madvise(MADV_DONTNEED): the item reads as zeros;
//  - munmap, then mmap at the same address with new content;
//  - mprotect(PROT_READ | PROT_WRITE), a write, mprotect(PROT_READ) again;
//  - mremap to a new address, written there, and back.
// libomp's wrappers of these calls drop the cached item first.  A raw
// munmap (syscall(2), as the C library's own calls are) of a page in the
// middle of an item of 3 chunks is not seen: the writes that follow, before
// and after the hole, go on (the first opens every chunk, around the hole).
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_mm: PASS
#define _GNU_SOURCE
#include "nexttouch_test.h"
#include <sys/syscall.h>

enum { P = 16 };
static long pg;

// A fresh cached item of P pages of `v`.
static char *cached(char v) {
  char *a = nt_map(P * pg);
  memset(a, v, P * pg);
  int rep = 0;
  NT_CHECK(nt_ro_region_sum(a, P * pg, &rep) == (long)v * P * pg && rep,
           "cached item");
  NT_CHECK(nt_ro_region_sum(a, P * pg, NULL) == (long)v * P * pg, "reused");
  return a;
}

int main(void) {
  pg = nt_pagesize();

  char *a = cached(1);
  NT_CHECK(madvise(a, P * pg, MADV_DONTNEED) == 0, "madvise");
  NT_CHECK(nt_ro_region_sum(a, P * pg, NULL) == 0, "after MADV_DONTNEED: %ld",
           nt_ro_region_sum(a, P * pg, NULL));

  char *b = cached(2);
  NT_CHECK(munmap(b, P * pg) == 0, "munmap");
  char *b2 = (char *)mmap(b, P * pg, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  NT_CHECK(b2 == b, "mmap at the same address");
  memset(b2, 3, P * pg);
  NT_CHECK(nt_ro_region_sum(b, P * pg, NULL) == 3L * P * pg,
           "after munmap + mmap: %ld", nt_ro_region_sum(b, P * pg, NULL));

  char *c = cached(4);
  NT_CHECK(mprotect(c, P * pg, PROT_READ | PROT_WRITE) == 0, "mprotect RW");
  memset(c, 5, P * pg);
  NT_CHECK(mprotect(c, P * pg, PROT_READ) == 0, "mprotect R");
  NT_CHECK(nt_ro_region_sum(c, P * pg, NULL) == 5L * P * pg,
           "after mprotect + write: %ld", nt_ro_region_sum(c, P * pg, NULL));
  NT_CHECK(nt_maps_prot(c) == PROT_READ, "the program's PROT_READ");

  char *d = cached(6);
  char *far =
      (char *)mmap(NULL, P * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *moved =
      (char *)mremap(d, P * pg, P * pg, MREMAP_MAYMOVE | MREMAP_FIXED, far);
  NT_CHECK(moved == far, "mremap away");
  NT_CHECK(nt_maps_prot(moved) == (PROT_READ | PROT_WRITE),
           "moved item writable");
  memset(moved, 7, P * pg);
  NT_CHECK(mremap(moved, P * pg, P * pg, MREMAP_MAYMOVE | MREMAP_FIXED, d) == d,
           "mremap back");
  NT_CHECK(nt_ro_region_sum(d, P * pg, NULL) == 7L * P * pg,
           "after mremap and back: %ld", nt_ro_region_sum(d, P * pg, NULL));

  long q = 3 * 32; // pages: 3 chunks
  char *e = nt_map(q * pg);
  memset(e, 8, q * pg);
  NT_CHECK(nt_ro_region_sum(e, q * pg, NULL) == 8L * q * pg,
           "cached, 3 chunks");
  NT_CHECK(syscall(SYS_munmap, e + 10 * pg, pg) == 0, "raw munmap");
  e[5 * pg] = 9; // chunk 0, before the hole
  e[40 * pg] = 9; // chunk 1, after it
  e[90 * pg] = 9; // chunk 2
  e[20 * pg] = 9; // chunk 0, after the hole
  NT_CHECK(e[5 * pg] + e[20 * pg] + e[40 * pg] + e[90 * pg] == 36,
           "writes around the hole");
  return nt_done("readonly_mm");
}
