// readonly(list): every instance of a construct reads its own items.  The
// copy of a list item's pointer variable belongs to the region instance and
// the thread, so
//   recursion  a function whose 'parallel readonly(p : n)' calls the same
//              function (a nested, serialized instance of the same construct
//              on the same thread, with another array) reads its own array
//              before and after the inner instance;
//   tasks      a task of the outer instance that shares 'p' and runs only
//              after its creating thread ran an inner instance with another
//              array reads the outer instance's array;
//   array      the same for an array item of a struct passed by value.
// Each with replicas (KMP_READONLY_FORCE=1), without (one node), and with
// KMP_READONLY=false (no protection, no replicas: still the right arrays).
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env KMP_READONLY=false OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
//
// CHECK: readonly_instances: PASS
#include "nexttouch_test.h"

enum { DEPTH = 3, N0 = 5000 };
static double *arrays[DEPTH + 1];

static long len(int depth) { return N0 + 1000L * depth; }

// Every element of arrays[d] is d + 1.
static double want(int depth) { return (depth + 1.0) * len(depth); }

static double sum(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i];
  return s;
}

// Recursion: the inner instance runs on the thread that reads p again after
// it.  Returns the number of wrong sums at this depth and below.
static int recurse(const double *p, long n, int depth) {
  int wrong = 0;
#pragma omp parallel readonly(p : n) reduction(+ : wrong)
  {
    wrong += sum(p, n) != want(depth);
    if (depth < DEPTH && omp_get_thread_num() == 0)
      wrong += recurse(arrays[depth + 1], len(depth + 1), depth + 1);
    wrong += sum(p, n) != want(depth);
  }
  return wrong;
}

// Tasks: the task of thread 0 in the outer instance starts only once its
// creator has run an inner instance of the same construct with another
// array (flag): at the final barrier, or on the other thread.
static int tasks(const double *p, long n, int depth) {
  int wrong = 0, flag = 0;
  double got = 0;
#pragma omp parallel readonly(p : n) shared(wrong, flag, got)
  {
    if (depth == 0 && omp_get_thread_num() == 0) {
#pragma omp task shared(flag, got)
      {
        double t0 = omp_get_wtime();
        while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE) &&
               omp_get_wtime() - t0 < 30)
          ;
        got = sum(p, n);
      }
      int w = tasks(arrays[1], len(1), 1);
#pragma omp atomic
      wrong += w;
      __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
    }
#pragma omp atomic
    wrong += sum(p, n) != want(depth);
  }
  return depth ? wrong : wrong + (got != want(0));
}

// An array item: a struct's array member, read before and after the inner
// instance.
struct vec {
  double a[2048];
};
static int array_item(struct vec v, int depth) {
  int wrong = 0;
  const double w = (depth + 1.0) * 2048;
#pragma omp parallel readonly(v.a) reduction(+ : wrong)
  {
    wrong += sum(v.a, 2048) != w;
    if (depth < 2 && omp_get_thread_num() == 0) {
      struct vec u;
      for (int i = 0; i < 2048; i++)
        u.a[i] = depth + 2;
      wrong += array_item(u, depth + 1);
    }
    wrong += sum(v.a, 2048) != w;
  }
  return wrong;
}

int main(void) {
  for (int d = 0; d <= DEPTH; d++) {
    size_t bytes = len(d) * sizeof(double);
    arrays[d] = aligned_alloc(nt_pagesize(), (bytes + nt_pagesize() - 1) /
                                                 nt_pagesize() * nt_pagesize());
    for (long i = 0; i < len(d); i++)
      arrays[d][i] = d + 1;
  }
  int w = recurse(arrays[0], len(0), 0);
  NT_CHECK(w == 0, "recursion: %d wrong sums", w);
  w = tasks(arrays[0], len(0), 0);
  NT_CHECK(w == 0, "tasks: %d wrong sums", w);
  struct vec v;
  for (int i = 0; i < 2048; i++)
    v.a[i] = 1;
  w = array_item(v, 0);
  NT_CHECK(w == 0, "array item: %d wrong sums", w);
  return nt_done("readonly_instances");
}
