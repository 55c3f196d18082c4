// The adaptive window follows several streams per thread: a thread walking
// two or three armed arrays at once (c[i] = a[i], d[i] = a[i] + b[i] in a
// static loop) grows a batch window on each of them, so the faults per page
// stay within 2x of a loop that streams through a single array.  (With one
// window per thread, every fault on one array would reset the window of the
// other, and each page would cost a fault.)  On one forced node nothing
// moves, but the batches form all the same.  In each loop the primary thread
// touches its first element after the workers have touched theirs, so that
// the three loops compare alike: outside a loop that libomp schedules
// statically, a primary that runs ahead of its workers cannot tell yet that
// the loop is split like the arrays, and grows its window from one page
// (kmp_nexttouch_fault.cpp).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_MAX_WINDOW=64 OMP_NUM_THREADS=3 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: streams: PASS
#include "nexttouch_test.h"
#include <sched.h>

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

// The workers that have made their first touch in the current loop.
static int started;

// A schedule(static) loop over the n elements, each thread's part walked
// from `shift` elements into it (wrapping at n), with `touch` applied to
// element j.  The primary's first touch waits for the workers' first ones.
#define LOOP(shift, touch)                                                     \
  do {                                                                         \
    started = 0;                                                               \
    _Pragma("omp parallel") {                                                  \
      int first = 1;                                                           \
      _Pragma("omp for schedule(static)") for (long i = 0; i < n; i++) {       \
        long j = (i + (shift)) % n;                                            \
        if (first && omp_get_thread_num() == 0)                                \
          while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) <                 \
                 omp_get_num_threads() - 1)                                    \
            sched_yield();                                                     \
        touch;                                                                 \
        if (first) {                                                           \
          first = 0;                                                           \
          if (omp_get_thread_num() != 0)                                       \
            __atomic_fetch_add(&started, 1, __ATOMIC_ACQ_REL);                 \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  } while (0)

static int *a, *b, *c, *d;

// One, two and three arrays per loop; shift as in LOOP.
static void streams(long shift) {
  // One stream per thread.
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request a");
  LOOP(shift, a[j] += 1);
  struct cost one = since(&c0, 1);

  // Two streams per thread: c[j] = a[j].
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0 && kmp_nexttouch(c, N * pg) == 0,
           "request a, c");
  LOOP(shift, c[j] = a[j]);
  struct cost two = since(&c0, 2);

  // Three streams per thread: d[j] = a[j] + b[j].
  c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0 && kmp_nexttouch(b, N * pg) == 0 &&
               kmp_nexttouch(d, N * pg) == 0,
           "request a, b, d");
  LOOP(shift, d[j] = a[j] + b[j]);
  struct cost three = since(&c0, 3);

  printf("shift %ld: faults/pages: one array %llu/%llu, two %llu/%llu, three "
         "%llu/%llu; batches %llu, %llu, %llu\n",
         shift, one.faults, one.pages, two.faults, two.pages, three.faults,
         three.pages, one.batches, two.batches, three.batches);
  // faults(k arrays) / (k N) <= 2 * faults(1 array) / N
  NT_CHECK(one.faults < N / 8, "one stream: %llu faults for %d pages",
           one.faults, N);
  if (shift == 0) {
    // In a schedule(static) loop a thread's stream takes the largest window
    // at its first fault, where its part starts: one fault per window, and
    // one more in each part that does not start on a multiple of the window
    // from the array's start (the batch stops there).  Taking it only at
    // the second fault would cost one more fault per thread.
    const char *mw = getenv("KMP_NEXTTOUCH_MAX_WINDOW");
    long p = omp_get_max_threads(), w = mw ? atol(mw) : 512;
    long part = (N + p - 1) / p;
    unsigned long long most = p * ((part + w - 1) / w) + (p - 1);
    NT_CHECK(one.faults <= most,
             "from the parts' starts: %llu faults, at most %llu", one.faults,
             most);
  }
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
}

int main(void) {
  pg = nt_pagesize();
  n = N * pg / sizeof(int);
  a = (int *)nt_map(N * pg), b = (int *)nt_map(N * pg),
  c = (int *)nt_map(N * pg), d = (int *)nt_map(N * pg);
  for (long i = 0; i < n; i++)
    a[i] = (int)i, b[i] = (int)(3 * i), c[i] = -1, d[i] = -2;

  // Each thread walks its part from its start: its streams take the largest
  // window at their first fault.  Then each walks from the middle of its
  // part into the next one: its windows grow from one page.
  streams(0);
  streams(n / omp_get_max_threads() / 2);

  for (long i = 0; i < n; i++)
    if (c[i] != (int)i + 2 || d[i] != (int)(4 * i + 2)) {
      NT_CHECK(0, "i %ld: c %d d %d", i, c[i], d[i]);
      break;
    }
  return nt_done("streams");
}
