// The C API from a program built by gcc -fopenmp with our omp.h (ahead of
// gcc's own), on this libomp, on the host with KMP_NEXTTOUCH_FORCE=1 and
// KMP_READONLY_FORCE=1: kmp_nexttouch arms at the fork of gcc's
// GOMP_parallel and the team's touches are counted; kmp_readonly_begin/
// _ptr/_end give every thread a replica that reads as the original, and the
// counters say so; kmp_readonly_release makes the item writable again.
//
// REQUIRES: gcc, linux
// RUN: %gcc-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %t \
// RUN:   | FileCheck %s
//
// CHECK: gcc_api: next-touch: every armed page touched by the team
// CHECK: gcc_api: readonly: replicas read, sum as expected
// CHECK: gcc_api: PASS
#include "nexttouch_test.h"

#if defined(__clang__) || !defined(__GNUC__)
#error "this test is compiled by gcc"
#endif
#ifndef KMP_NEXTTOUCH_MAX_NODES
#error "not our omp.h"
#endif

enum { PAGES = 64, N = 400 };

int main(void) {
  long pg = nt_pagesize();
  char *a = nt_map(PAGES * pg);
  memset(a, 1, PAGES * pg);
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(a, PAGES * pg) == 0, "kmp_nexttouch");
  long sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (long i = 0; i < PAGES * pg; i += 64)
    sum += a[i];
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(sum == PAGES * pg / 64, "sum %ld", sum);
  NT_CHECK(c.requests == 1 && c.pages_armed == PAGES, "armed %llu",
           (unsigned long long)c.pages_armed);
  NT_CHECK(c.pages_migrated + c.pages_already_local == PAGES,
           "migrated %llu + already local %llu",
           (unsigned long long)c.pages_migrated,
           (unsigned long long)c.pages_already_local);
  if (nt_failures == 0)
    printf("gcc_api: next-touch: every armed page touched by the team\n");

  double *m = (double *)malloc(N * N * sizeof *m), *v = malloc(N * sizeof *v);
  double want = 0;
  for (int i = 0; i < N; i++) {
    v[i] = i % 7;
    for (int j = 0; j < N; j++)
      m[i * N + j] = (i * 3 + j) % 5;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      want += m[i * N + j] * v[j];
  const void *ptrs[2] = {m, v};
  size_t lens[2] = {N * N * sizeof *m, N * sizeof *v};
  const char *names[2] = {"m", "v"};
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(2, ptrs, lens, names, &h) == 0, "begin");
  double got = 0;
  int replica = 1;
#pragma omp parallel reduction(+ : got) reduction(&& : replica)
  {
    const double *rm = kmp_readonly_ptr(h, 0), *rv = kmp_readonly_ptr(h, 1);
    replica = rm && rv && rm != m && rv != v;
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        got += rm[i * N + j] * rv[j];
  }
  NT_CHECK(kmp_readonly_end(h) == 0, "end");
  NT_CHECK(replica, "every thread reads a replica");
  NT_CHECK(got == want, "sum %g, want %g", got, want);
  c = nt_counters();
  NT_CHECK(c.readonly_regions == 1 && c.readonly_items == 2 &&
               c.readonly_replicas >= 2,
           "readonly counters: regions %llu items %llu replicas %llu",
           (unsigned long long)c.readonly_regions,
           (unsigned long long)c.readonly_items,
           (unsigned long long)c.readonly_replicas);
  NT_CHECK(kmp_readonly_release(NULL, 0) == 0, "release");
  m[0] = 42; // writable again
  if (replica && got == want)
    printf("gcc_api: readonly: replicas read, sum as expected\n");
  if (nt_failures == 0)
    printf("gcc_api: PASS\n");
  return nt_failures != 0;
}
