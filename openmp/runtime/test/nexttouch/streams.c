// The adaptive window follows several streams per thread: a thread walking
// two or three armed arrays at once (c[i] = a[i], d[i] = a[i] + b[i] in a
// static loop) grows a batch window on each of them, so the faults per page
// stay within 2x of a loop that streams through a single array.  (With one
// window per thread, every fault on one array would reset the window of the
// other, and each page would cost a fault.)  On one forced node nothing
// moves, but the batches form all the same.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_MAX_WINDOW=64 OMP_NUM_THREADS=3 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: streams: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))

enum { N = 2048 }; // pages per array
static long pg;
static long n; // ints per array

struct cost {
  unsigned long long faults, batches, pages;
};

static struct cost since(const kmp_nexttouch_counters_t *c0, int arrays) {
  kmp_nexttouch_counters_t c1 = nt_counters();
  struct cost k = {c1.faults - c0->faults, c1.batches - c0->batches,
                   (unsigned long long)arrays * N};
  NT_CHECK(c1.pages_armed - c0->pages_armed == k.pages, "armed %llu, want %llu",
           U(c1.pages_armed - c0->pages_armed), k.pages);
  NT_CHECK(c1.pages_already_local - c0->pages_already_local == k.pages,
           "handled %llu, want %llu",
           U(c1.pages_already_local - c0->pages_already_local), k.pages);
  NT_CHECK(c1.pages_migrated == 0 && c1.fail_move_other == 0, "one node");
  return k;
}

int main(void) {
  pg = nt_pagesize();
  n = N * pg / sizeof(int);
  int *a = (int *)nt_map(N * pg), *b = (int *)nt_map(N * pg),
      *c = (int *)nt_map(N * pg), *d = (int *)nt_map(N * pg);
  for (long i = 0; i < n; i++)
    a[i] = (int)i, b[i] = (int)(3 * i), c[i] = -1, d[i] = -2;

  // One stream per thread.
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request a");
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    a[i] += 1;
  struct cost one = since(&c0, 1);

  // Two streams per thread: c[i] = a[i].
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0 && kmp_nexttouch(c, N * pg) == 0,
           "request a, c");
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    c[i] = a[i];
  struct cost two = since(&c0, 2);

  // Three streams per thread: d[i] = a[i] + b[i].
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0 && kmp_nexttouch(b, N * pg) == 0 &&
               kmp_nexttouch(d, N * pg) == 0,
           "request a, b, d");
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    d[i] = a[i] + b[i];
  struct cost three = since(&c0, 3);

  printf("faults/pages: one array %llu/%llu, two %llu/%llu, three %llu/%llu; "
         "batches %llu, %llu, %llu\n",
         one.faults, one.pages, two.faults, two.pages, three.faults,
         three.pages, one.batches, two.batches, three.batches);
  // faults(k arrays) / (k N) <= 2 * faults(1 array) / N
  NT_CHECK(one.faults < N / 8, "one stream: %llu faults for %d pages",
           one.faults, N);
  NT_CHECK(two.faults <= 2 * 2 * one.faults,
           "two streams: %llu faults for %llu pages, one: %llu for %llu",
           two.faults, two.pages, one.faults, one.pages);
  NT_CHECK(three.faults <= 2 * 3 * one.faults,
           "three streams: %llu faults for %llu pages, one: %llu for %llu",
           three.faults, three.pages, one.faults, one.pages);
  NT_CHECK(two.batches <= 2 * 2 * one.batches &&
               three.batches <= 2 * 3 * one.batches,
           "batches: %llu, %llu, %llu", one.batches, two.batches,
           three.batches);
  NT_CHECK(two.batches < two.pages / 8 && three.batches < three.pages / 8,
           "batches: %llu, %llu", two.batches, three.batches);

  for (long i = 0; i < n; i++)
    if (c[i] != (int)i + 1 || d[i] != (int)(4 * i + 1)) {
      NT_CHECK(0, "i %ld: c %d d %d", i, c[i], d[i]);
      break;
    }
  return nt_done("streams");
}
