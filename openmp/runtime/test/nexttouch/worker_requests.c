// Requests made by the workers of a region, for heap buffers they allocated
// themselves (small, medium and mmap-sized malloc blocks, in the threads'
// own malloc arenas, which the kernel may place right next to, or merge
// with, thread stacks): 16 threads, many requests each, none may fail (in
// particular never EINVAL).  A request on the calling thread's own stack is
// still EINVAL, on a worker as on the primary thread.  The requests are armed
// at the next fork, where each thread checks its buffers (data intact).
// First, a buffer mapped before the workers exist, like their stacks without
// transparent huge pages: the kernel places the first worker's stack right
// below it and merges the two into one VMA (the test says whether it did);
// every thread requests its slice of it.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=16 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=16 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: worker_requests: PASS
#include "nexttouch_test.h"
#include <pthread.h>

#define U(x) ((unsigned long long)(x))

enum { T = 16, PER = 48 }; // threads, buffers per thread per round

static size_t size_of(int tid, int k) {
  static const size_t sizes[] = {48, 700, 5000, 40000, 150000, 600000};
  return sizes[(tid + k) % 6] + 8 * k;
}

static int stack_request(void) {
  char buf[3 * 4096];
  memset(buf, 1, sizeof buf);
  int rc = kmp_nexttouch(buf + 100, 2 * 4096);
  __asm__ volatile("" : : "r"(buf) : "memory");
  return rc;
}

// The VMA of /proc/self/maps holding p.
static void vma_of(const void *p, unsigned long *lo, unsigned long *hi) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  unsigned long a = (unsigned long)p, l, h;
  *lo = *hi = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%lx-%lx", &l, &h) == 2 && l <= a && a < h) {
      *lo = l, *hi = h;
      break;
    }
  if (f)
    fclose(f);
}

int main(void) {
  static unsigned char *bufs[T][PER];
  long pg = nt_pagesize();
  kmp_nexttouch_counters_t c0 = nt_counters();
  enum { BIG = 64 }; // pages per thread
  unsigned char *big = (unsigned char *)nt_map(T * BIG * pg);
  memset(big, 3, T * BIG * pg);
  int merged = 0, bad_big = 0;
#pragma omp parallel num_threads(T) reduction(+ : merged, bad_big)
  {
    int tid = omp_get_thread_num();
    pthread_attr_t attr;
    void *st;
    size_t sz;
    unsigned long lo, hi;
    vma_of(big, &lo, &hi);
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &st, &sz) == 0 &&
          (unsigned long)st < hi && (unsigned long)st + sz > lo)
        merged++;
      pthread_attr_destroy(&attr);
    }
    int rc = kmp_nexttouch(big + tid * BIG * pg, BIG * pg);
    if (rc) {
      bad_big++;
      printf("thread %d: its slice of the early buffer: %s\n", tid,
             strerror(rc));
    }
  }
  printf("early buffer %s a thread's stack\n",
         merged ? "shares a VMA with" : "does not share a VMA with");
  NT_CHECK(bad_big == 0, "%d slices of the early buffer failed", bad_big);
  long bad_bytes = 0;
#pragma omp parallel for num_threads(T) reduction(+ : bad_bytes)
  for (long i = 0; i < T * BIG * pg; i++)
    bad_bytes += big[i] != 3;
  NT_CHECK(bad_bytes == 0, "early buffer: %ld bytes changed", bad_bytes);
  int bad_heap = 0, bad_stack = 0, errors[T] = {0};
  NT_CHECK(stack_request() == EINVAL, "primary thread's stack");
  for (int round = 0; round < 3; round++) {
    int nth = 0;
#pragma omp parallel num_threads(T) reduction(+ : bad_heap, bad_stack)
    {
      int tid = omp_get_thread_num();
#pragma omp single
      nth = omp_get_num_threads();
      // Buffers of the previous round: armed at this fork, touched here.
      if (round > 0)
        for (int k = 0; k < PER; k++) {
          size_t n = size_of(tid, k);
          for (size_t i = 0; i < n; i++)
            if (bufs[tid][k][i] != (unsigned char)(tid * 7 + k + round - 1)) {
              errors[tid]++;
              break;
            }
          free(bufs[tid][k]);
        }
      for (int k = 0; k < PER; k++) {
        size_t n = size_of(tid, k);
        bufs[tid][k] = (unsigned char *)malloc(n);
        memset(bufs[tid][k], tid * 7 + k + round, n);
        int rc = kmp_nexttouch(bufs[tid][k], n);
        if (rc) {
          bad_heap++;
          if (bad_heap <= 3)
            printf("thread %d, buffer %d (%zu bytes at %p): %s\n", tid, k, n,
                   (void *)bufs[tid][k], strerror(rc));
        }
        if (k % 16 == 0)
          bad_stack += stack_request() != EINVAL;
      }
    }
    NT_CHECK(nth == T, "team of %d", nth);
    NT_CHECK(bad_heap == 0, "round %d: %d heap requests failed", round,
             bad_heap);
    NT_CHECK(bad_stack == 0, "round %d: %d stack requests not EINVAL", round,
             bad_stack);
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  // Stack requests: 1 + 3 rounds x T threads x 3.
  NT_CHECK(c1.bad_requests - c0.bad_requests == 1 + 3 * T * 3,
           "bad requests %llu", U(c1.bad_requests - c0.bad_requests));
  NT_CHECK(c1.requests - c0.requests == 3 * T * PER + T, "requests %llu",
           U(c1.requests - c0.requests));
  NT_CHECK(c1.arms - c0.arms >= 2 && c1.pages_armed > c0.pages_armed,
           "arms %llu, pages %llu", U(c1.arms - c0.arms),
           U(c1.pages_armed - c0.pages_armed));
  for (int t = 0; t < T; t++)
    NT_CHECK(errors[t] == 0, "thread %d: %d buffers changed", t, errors[t]);
  printf("%llu pages armed, %llu faults, %llu fail_arm\n",
         U(c1.pages_armed - c0.pages_armed), U(c1.faults - c0.faults),
         U(c1.fail_arm - c0.fail_arm));
  NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm");
  return nt_done("worker_requests");
}
