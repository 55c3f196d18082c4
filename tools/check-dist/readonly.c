// make check-dist: the clause 'readonly(list)' compiled by the unpacked
// clang, run on its libomp (KMP_READONLY_FORCE=1 makes replicas on a
// one-node machine): each thread reads replicas of A and b, the answer is
// the serial one.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { N = 600 };
  double *A = malloc(N * N * sizeof *A), *b = malloc(N * sizeof *b),
         *y = malloc(N * sizeof *y), want = 0, got = 0;
  for (int i = 0; i < N; i++) {
    b[i] = i % 5;
    for (int j = 0; j < N; j++)
      A[i * N + j] = (i + 2 * j) % 7;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      want += A[i * N + j] * b[j];
#pragma omp parallel for readonly(A : N * N, b : N)
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += A[i * N + j] * b[j];
    y[i] = s;
  }
  for (int i = 0; i < N; i++)
    got += y[i];
  kmp_nexttouch_counters_t c = {.size = sizeof c};
  kmp_get_nexttouch_counters(&c);
  printf("readonly: %llu regions, %llu items, %llu replicas, sum %.0f (serial "
         "%.0f)\n",
         (unsigned long long)c.readonly_regions,
         (unsigned long long)c.readonly_items,
         (unsigned long long)c.readonly_replicas, got, want);
  int ok = c.readonly_regions == 1 && c.readonly_items == 2 &&
           c.readonly_replicas >= 2 && got == want;
  printf("readonly: %s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
