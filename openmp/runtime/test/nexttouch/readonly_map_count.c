// readonly(list) in a process near vm.max_map_count: the process first uses
// up all but a few of its mappings (single pages that do not merge), so the
// engine's protection changes, which split mappings, fail with ENOMEM.  The
// items are then served without that protection (copied again at every
// region) or with the whole item opened, never stale: every region reads
// what the program wrote last (serial writes into the middle of chunks, a
// read(2) into an item), and nothing crashes.  Next-touch requests there
// fail to arm instead (fail_arm), and the data stays.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 \
// RUN:   OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' own mappings need the room this test uses up.)
// CHECK: readonly_map_count: PASS
#include "nexttouch_test.h"

enum { ITEMS = 3, PAGES = 256, SPARE = 6 };

static char *items[ITEMS], *shadow[ITEMS];
static long pg;

static long region(void) {
  const void *p[ITEMS];
  size_t len[ITEMS];
  for (int i = 0; i < ITEMS; i++) {
    p[i] = items[i];
    len[i] = PAGES * pg;
  }
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(ITEMS, p, len, NULL, &h);
  NT_CHECK(rc == 0 || rc == ENOMEM, "begin: %d", rc);
  long bad = 0;
#pragma omp parallel reduction(+ : bad)
  for (int i = 0; i < ITEMS; i++)
    bad += memcmp(kmp_readonly_ptr(h, i), shadow[i], PAGES * pg) != 0;
  kmp_readonly_end(h);
  return bad;
}

int main(void) {
  pg = nt_pagesize();
  for (int i = 0; i < ITEMS; i++) {
    items[i] = nt_map(PAGES * pg);
    shadow[i] = (char *)malloc(PAGES * pg);
    for (long b = 0; b < PAGES * pg; b++)
      items[i][b] = shadow[i][b] = (char)(b * 7 + i);
  }
  NT_CHECK(region() == 0, "first region");
  // Use up the mappings.
  long want;
  char *pool = nt_use_up_maps(SPARE, &want);
  long spare = nt_max_map_count() - nt_map_count();
  long bad = 0;
  for (int r = 0; r < 40 && !nt_failures; r++) {
    // Serial writes into the middle of chunks: each opens a chunk (a split).
    for (int i = 0; i < ITEMS; i++) {
      long at = ((r * 37 + i * 11) % PAGES) * pg + 100;
      items[i][at] = shadow[i][at] = (char)(r + i);
    }
    if (r % 5 == 0) { // a kernel write into an item
      int fd[2];
      NT_CHECK(pipe(fd) == 0, "pipe");
      char buf[64];
      memset(buf, 'k' + r, sizeof buf);
      long at = ((r * 13) % PAGES) * pg + 7;
      if (write(fd[1], buf, sizeof buf) == (ssize_t)sizeof buf &&
          read(fd[0], items[1] + at, sizeof buf) == (ssize_t)sizeof buf)
        memcpy(shadow[1] + at, buf, sizeof buf);
      close(fd[0]);
      close(fd[1]);
    }
    if (r == 20) { // next-touch where no mapping can be split
      NT_CHECK(kmp_nexttouch(items[2], PAGES * pg) == 0 ||
                   kmp_nexttouch(items[2], PAGES * pg) == EBUSY,
               "request");
    }
    bad += region();
    for (int i = 0; i < ITEMS; i++)
      NT_CHECK(memcmp(items[i], shadow[i], PAGES * pg) == 0,
               "round %d: item %d differs serially", r, i);
  }
  NT_CHECK(bad == 0, "%ld reads in regions differ (spare maps %ld)", bad,
           spare);
  NT_CHECK(spare <= SPARE + 2, "near the limit: %ld spare", spare);
  munmap(pool, want * pg);
  NT_CHECK(region() == 0, "after the pool is gone");
  return nt_done("readonly_map_count");
}
