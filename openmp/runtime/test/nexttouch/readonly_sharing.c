// Readonly items next to other data and to each other (host,
// KMP_READONLY_FORCE=1, KMP_NEXTTOUCH_FORCE=1):
//  - a next-touch request on an array that shares a page (no byte) with an
//    item a running region holds succeeds; one on the pages the item covers
//    whole fails with EBUSY;
//  - a region nested in one that lists an item, listing the same item
//    through the pointer it was given (the replica), shares the item and
//    its replica: no replica of a replica; so does one that lists a part of
//    it;
//  - the replicas of an item the program unmapped are freed at the next
//    region start, whatever it lists, whether the C library's munmap
//    (wrapped: it takes no lock, it marks the item) or the raw system call
//    unmapped it.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 \
// RUN:   OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_sharing: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))
static long pg;

static kmp_readonly_t begin1(const void *p, size_t len) {
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(1, &p, &len, NULL, &h);
  NT_CHECK(rc == 0, "begin %p: %d", p, rc);
  return h;
}

static long region_sum(const char *p, size_t len) {
  kmp_readonly_t h = begin1(p, len);
  long s = 0;
  const char *q = kmp_readonly_ptr(h, 0);
  for (size_t i = 0; i < len; i++)
    s += q[i];
  kmp_readonly_end(h);
  return s;
}

static void page_neighbour(void) {
  char *m = nt_map(16 * pg);
  memset(m, 1, 16 * pg);
  char *item = m + 100, *array = m + 8 * pg + 200; // page 8 is shared
  kmp_readonly_t h = begin1(item, 8 * pg);
  int rc = 0, busy = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    rc = kmp_nexttouch(array, m + 16 * pg - array);
    busy = kmp_nexttouch(m + 3 * pg, pg);
  }
  kmp_readonly_end(h);
  NT_CHECK(rc == 0, "request beside the item: %d", rc);
  NT_CHECK(busy == EBUSY, "request on its pages: %d", busy);
  kmp_nexttouch_disarm(NULL, 0);
  NT_CHECK(region_sum(item, 8 * pg) == 8 * pg, "the item");
}

static void nested_same_item(void) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  kmp_nexttouch_counters_t c0 = nt_counters(), c;
  kmp_readonly_t h = begin1(x, 16 * pg);
  const char *q = NULL, *r = NULL, *r2 = NULL;
  long s = 0, s2 = 0;
#pragma omp parallel num_threads(2)
  {
    const char *mine = kmp_readonly_ptr(h, 0);
#pragma omp single
    {
      q = mine;
      kmp_readonly_t hi = begin1(q, 16 * pg);
      r = kmp_readonly_ptr(hi, 0);
      for (long i = 0; i < 16 * pg; i++)
        s += r[i];
      kmp_readonly_end(hi);
      hi = begin1(q + 2 * pg + 8, 4 * pg);
      r2 = kmp_readonly_ptr(hi, 0);
      for (long i = 0; i < 4 * pg; i++)
        s2 += r2[i];
      kmp_readonly_end(hi);
    }
  }
  kmp_readonly_end(h);
  c = nt_counters();
  NT_CHECK(q != x && r == q && r2 == q + 2 * pg + 8,
           "x %p outer %p inner %p part %p", (void *)x, (void *)q, (void *)r,
           (void *)r2);
  NT_CHECK(s == 16 * pg && s2 == 4 * pg, "sums %ld %ld", s, s2);
  NT_CHECK(c.readonly_replicas - c0.readonly_replicas == 1,
           "replicas made: %llu",
           U(c.readonly_replicas - c0.readonly_replicas));
}

// An item unmapped with the raw system call (no wrapper sees it) or through
// the C library (libomp's munmap marks it stale, lock-free) is dropped at the
// next region start.
static void gone(int raw) {
  char *x = nt_map(16 * pg), *y = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  memset(y, 1, 16 * pg);
  NT_CHECK(region_sum(x, 16 * pg) == 16 * pg, "x");
  kmp_nexttouch_counters_t c0 = nt_counters(), c1, c;
  if (raw)
    syscall(SYS_munmap, x, 16 * pg);
  else
    munmap(x, 16 * pg);
  c1 = nt_counters();
  NT_CHECK(region_sum(y, 16 * pg) == 16 * pg, "y");
  c = nt_counters();
  NT_CHECK(c1.readonly_dropped - c0.readonly_dropped == 0 &&
               c.readonly_dropped - c1.readonly_dropped == 1,
           "%s: dropped at the munmap %llu, at y's region %llu",
           raw ? "raw" : "libc", U(c1.readonly_dropped - c0.readonly_dropped),
           U(c.readonly_dropped - c1.readonly_dropped));
}

int main(void) {
  pg = nt_pagesize();
  page_neighbour();
  nested_same_item();
  gone(1);
  gone(0);
  return nt_done("readonly_sharing");
}
