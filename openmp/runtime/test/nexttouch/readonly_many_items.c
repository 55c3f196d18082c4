// readonly with thousands of items (KMP_READONLY_FORCE=1: a replica for
// node 0 on this one-node host): ITEMS arrays of 1-3 pages, each on pages of
// its own, listed by one region through the API, REGIONS times.  Every
// item is cached and replicated (no eviction, no item read from the
// original for want of room), every thread reads through its pointer what
// the original holds, and what a serial write changes between two regions
// is what the next region reads, in the written items and no others.  The
// threads take their pointers one at a time (kmp_readonly_ptr) in even
// regions and all at once (kmp_readonly_ptrs) in odd ones, which must agree.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (Thousands of protected ranges and copies: the sanitizers' own mappings
// need the room.)
// CHECK: readonly_many_items: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))
enum { ITEMS = 5000, REGIONS = 4, WRITES = 97 };

static long pg;
static long *base[ITEMS];
static size_t len[ITEMS]; // bytes
static long version[ITEMS]; // what item i holds: i * 1000 + version

static long pages_of(int i) { return 1 + (i * 7) % 3; }

static void fill(int i) {
  size_t n = len[i] / sizeof(long);
  for (size_t k = 0; k < n; k++)
    base[i][k] = i * 1000 + version[i] + (long)k;
}

int main(void) {
  pg = nt_pagesize();
  long total = 0;
  for (int i = 0; i < ITEMS; i++)
    total += pages_of(i) + 1; // a page apart
  char *m = nt_map(total * pg);
  for (int i = 0, at = 0; i < ITEMS; i++) {
    base[i] = (long *)(m + (long)at * pg);
    len[i] = pages_of(i) * pg;
    at += pages_of(i) + 1;
    fill(i);
  }
  const void **ptrs = (const void **)malloc(sizeof(void *) * ITEMS);
  for (int i = 0; i < ITEMS; i++)
    ptrs[i] = base[i];
  kmp_nexttouch_counters_t c0 = nt_counters();
  srand(11);
  for (int r = 0; r < REGIONS; r++) {
    kmp_readonly_t h;
    int rc = kmp_readonly_begin(ITEMS, ptrs, len, NULL, &h);
    NT_CHECK(rc == 0, "region %d: begin %d", r, rc);
    long wrong = 0, copies = 0, disagree = 0;
#pragma omp parallel reduction(+ : wrong, copies, disagree)
    {
      const void *const *all = kmp_readonly_ptrs(h);
#pragma omp for schedule(dynamic, 64)
      for (int i = 0; i < ITEMS; i++) {
        const long *p = (const long *)(r % 2 ? all[i] : kmp_readonly_ptr(h, i));
        disagree += all[i] != kmp_readonly_ptr(h, i);
        copies += p != base[i];
        size_t n = len[i] / sizeof(long);
        for (size_t k = 0; k < n; k += 97)
          wrong += p[k] != i * 1000 + version[i] + (long)k;
      }
    }
    NT_CHECK(kmp_readonly_end(h) == 0, "end");
    NT_CHECK(wrong == 0, "region %d: %ld wrong reads", r, wrong);
    NT_CHECK(disagree == 0, "region %d: %ld pointers differ", r, disagree);
    NT_CHECK(copies == ITEMS, "region %d: %ld of %d items from a copy", r,
             copies, ITEMS);
    // Serial writes between regions, to a few items.
    for (int w = 0; w < WRITES; w++) {
      int i = rand() % ITEMS;
      version[i]++;
      fill(i);
    }
  }
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.readonly_items - c0.readonly_items == U(ITEMS) * REGIONS,
           "readonly_items %llu", U(c.readonly_items - c0.readonly_items));
  NT_CHECK(c.readonly_replicas - c0.readonly_replicas == U(ITEMS),
           "readonly_replicas %llu (one per item)",
           U(c.readonly_replicas - c0.readonly_replicas));
  NT_CHECK(c.readonly_dropped == c0.readonly_dropped &&
               c.readonly_fallback_budget == c0.readonly_fallback_budget,
           "dropped %llu, budget fallbacks %llu",
           U(c.readonly_dropped - c0.readonly_dropped),
           U(c.readonly_fallback_budget - c0.readonly_fallback_budget));
  NT_CHECK(c.readonly_refreshes > c0.readonly_refreshes, "no refresh");
  NT_CHECK(kmp_readonly_release(NULL, 0) == 0, "release");
  c = nt_counters();
  NT_CHECK(c.readonly_dropped - c0.readonly_dropped == U(ITEMS),
           "dropped %llu at the release",
           U(c.readonly_dropped - c0.readonly_dropped));
  for (int i = 0; i < ITEMS; i++) { // writable again, as before
    version[i]++;
    fill(i);
  }
  free(ptrs);
  return nt_done("readonly_many_items");
}
