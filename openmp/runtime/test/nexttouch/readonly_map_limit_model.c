// Randomized model of readonly(list) a few mappings below vm.max_map_count
// (host, KMP_READONLY_FORCE=1: real replicas).  Thirteen items: malloc'ed
// blocks of 1 byte to 100 pages (some on no whole page of their own, so that
// nothing else stands between their copies), and one item over two mappings
// that differ only in their memory policy.  The process then uses up its
// mappings and gives one back at a time: at each margin from 0 to 24 spare
// mappings, rounds of serial writes of random bytes and regions over random
// lists of items, every thread comparing every item with its shadow.  A
// copy that merged with its neighbour could not be opened again there: the
// region read an inaccessible copy (SIGSEGV) or refreshed a read-only one
// (a false "was written ... in its replica").  No region reads stale data,
// nothing crashes.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run 1 | FileCheck %s
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run 4 | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' own mappings need the room this test uses up.)
// CHECK: readonly_map_limit_model: PASS
#include "nexttouch_test.h"
#include <linux/mempolicy.h>
#include <sys/syscall.h>

enum { ITEMS = 13, LEVELS = 24, ROUNDS = 8 };

static char *items[ITEMS], *shadow[ITEMS];
static size_t size[ITEMS];
static unsigned long long seed;
static long pg;

static unsigned rnd(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(seed >> 33);
}

// A region over the items in `mask`: how many reads differ from the shadow.
static long region(unsigned mask) {
  const void *p[ITEMS];
  size_t len[ITEMS];
  int idx[ITEMS], n = 0;
  for (int i = 0; i < ITEMS; i++)
    if (mask >> i & 1) {
      p[n] = items[i];
      len[n] = size[i];
      idx[n++] = i;
    }
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(n, p, len, NULL, &h);
  if (rc != 0) { // no room for an item's table entry: documented
    NT_CHECK(rc == ENOMEM, "begin: %d", rc);
    return 0;
  }
  long bad = 0;
#pragma omp parallel reduction(+ : bad)
  for (int k = 0; k < n; k++)
    bad += memcmp(kmp_readonly_ptr(h, k), shadow[idx[k]], size[idx[k]]) != 0;
  kmp_readonly_end(h);
  return bad;
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  for (int i = 0; i < ITEMS - 1; i++) {
    unsigned kind = rnd() % 4;
    size[i] = kind == 0   ? 1 + rnd() % 200
              : kind == 1 ? 1 + rnd() % (8 * pg)
                          : 1 + rnd() % (100 * pg);
    items[i] = (char *)malloc(size[i]);
  }
  char *two = nt_map(80 * pg);
  unsigned long node0 = 1;
  NT_CHECK(syscall(SYS_mbind, two + 40 * pg, 40 * pg, MPOL_PREFERRED, &node0,
                   8 * sizeof node0, 0UL) == 0,
           "mbind: %s", strerror(errno));
  items[ITEMS - 1] = two + 3 * pg + 100;
  size[ITEMS - 1] = 73 * pg;
  for (int i = 0; i < ITEMS; i++) {
    shadow[i] = (char *)malloc(size[i]);
    for (size_t b = 0; b < size[i]; b++)
      items[i][b] = shadow[i][b] = (char)rnd();
  }
  NT_CHECK(region((1u << ITEMS) - 1) == 0, "first region");
  // Use up the mappings: single readable pages in a reserved range, apart.
  long want = nt_max_map_count() - nt_map_count();
  char *pool = (char *)mmap(NULL, want * pg, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  NT_CHECK(pool != MAP_FAILED, "pool");
  long top = 1;
  while (top < want && mprotect(pool + top * pg, pg, PROT_READ) == 0)
    top += 2;
  NT_CHECK(nt_max_map_count() - nt_map_count() <= 2, "not near the limit");
  long bad = 0;
  for (int level = 0; level <= LEVELS && !nt_failures; level++) {
    for (int r = 0; r < ROUNDS; r++) {
      for (int w = rnd() % 6; w > 0; w--) {
        int i = rnd() % ITEMS;
        size_t at = rnd() % size[i], room = size[i] - at;
        size_t len = 1 + rnd() % (room < 3 * (size_t)pg ? room : 3 * pg);
        for (size_t b = at; b < at + len; b++)
          items[i][b] = shadow[i][b] = (char)rnd();
      }
      bad += region(rnd() & ((1u << ITEMS) - 1));
      for (int i = 0; i < ITEMS; i++)
        NT_CHECK(memcmp(items[i], shadow[i], size[i]) == 0,
                 "margin %d: item %d differs serially", level, i);
    }
    top -= 2; // one readable page between two inaccessible ones
    munmap(pool + top * pg, pg);
  }
  NT_CHECK(bad == 0, "%ld reads in regions differ from the shadow", bad);
  return nt_done("readonly_map_limit_model");
}
