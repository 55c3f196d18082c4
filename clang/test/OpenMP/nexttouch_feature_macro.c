// __OPENMP_NEXTTOUCH__ says that '#pragma omp nexttouch' and the clause
// 'readonly(list)' are available: defined where _OPENMP is, with the
// specification's year and month; not without -fopenmp, nor with
// -fopenmp-simd (where _OPENMP is not defined either), nor with
// -fno-openmp-extensions (which turns both off).  Guarded code builds
// either way.

// RUN: %clang_cc1 -fopenmp -E -dM %s | FileCheck %s --check-prefix=ON
// RUN: %clang_cc1 -fopenmp -fopenmp-version=60 -E -dM %s \
// RUN:   | FileCheck %s --check-prefix=ON
// RUN: %clang_cc1 -E -dM %s | FileCheck %s --check-prefix=OFF
// RUN: %clang_cc1 -fopenmp-simd -E -dM %s | FileCheck %s --check-prefix=OFF
// RUN: %clang_cc1 -fopenmp -fno-openmp-extensions -E -dM %s \
// RUN:   | FileCheck %s --check-prefix=NOEXT
// RUN: %clang_cc1 -fopenmp -verify -fsyntax-only %s
// RUN: %clang_cc1 -verify -fsyntax-only %s

// ON-DAG: #define __OPENMP_NEXTTOUCH__ 202611
// ON-DAG: #define _OPENMP 20
// OFF-NOT: {{_OPENMP|__OPENMP_NEXTTOUCH__}}
// NOEXT-NOT: __OPENMP_NEXTTOUCH__

// expected-no-diagnostics

#ifdef __OPENMP_NEXTTOUCH__
#define READONLY(...) readonly(__VA_ARGS__)
#else
#define READONLY(...)
#endif

void f(double *a, int n) {
#ifdef __OPENMP_NEXTTOUCH__
#pragma omp nexttouch(a[0 : n])
#endif
#pragma omp parallel for READONLY(a[0 : n]) schedule(static)
  for (int i = 0; i < n; i++)
    a[i] += 1;
}
