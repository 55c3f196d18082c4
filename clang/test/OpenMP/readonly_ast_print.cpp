// RUN: %clang_cc1 -verify -fopenmp -triple x86_64-unknown-unknown -std=c++14 -ast-print %s | FileCheck %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-print | FileCheck %s

// RUN: %clang_cc1 -verify -fopenmp-simd -triple x86_64-unknown-unknown -std=c++14 -ast-print %s | FileCheck %s
// RUN: %clang_cc1 -fopenmp-simd -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp-simd -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-print | FileCheck %s

// RUN: %clang_cc1 -verify -fopenmp -triple x86_64-unknown-unknown -std=c++14 -ast-dump %s | FileCheck %s --check-prefix=DUMP
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-dump-all | FileCheck %s --check-prefix=DUMP

// The printed constructs parse again to the same constructs.
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -ast-print %s -o %t.printed.cpp
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -x c++ -ast-print %t.printed.cpp | FileCheck %s
// expected-no-diagnostics

#ifndef HEADER
#define HEADER

double garr[16];

double foo(double *p, const double *cp, void *vp, long n) {
  double arr[10];
  double s = 0;
#pragma omp parallel readonly(p : n)
  s += p[0];
#pragma omp parallel shared(s) readonly(cp[1 : n - 1], vp : n * 8, arr, garr[:])
  s += cp[1] + arr[0] + garr[0];
#pragma omp parallel for reduction(+: s) readonly((p) : (n), arr[2 :])
  for (long i = 0; i < n; ++i)
    s += p[i] + arr[2];
#pragma omp parallel sections readonly(arr)
  {
    s += arr[0];
  }
  return s;
}
// CHECK-LABEL: double foo(
// CHECK:      #pragma omp parallel readonly(p : n){{$}}
// CHECK:      #pragma omp parallel shared(s) readonly(cp[1:n - 1], vp : n * 8, arr, garr[:]){{$}}
// CHECK:      #pragma omp parallel for reduction(+: s) readonly((p) : (n), arr[2:]){{$}}
// CHECK:      #pragma omp parallel sections readonly(arr){{$}}

template <typename T, int N> T tmpl(T *p, int n) {
  T a[N];
  T s = T();
#pragma omp parallel for readonly(p : n * N, a) reduction(+: s)
  for (int i = 0; i < n; ++i)
    s += p[i] + a[0];
  return s;
}
// CHECK-LABEL: template <typename T, int N> T tmpl(T *p, int n) {
// CHECK:      #pragma omp parallel for readonly(p : n * N, a) reduction(+: s){{$}}
// CHECK-LABEL: template<> float tmpl<float, 4>(float *p, int n) {
// CHECK:      #pragma omp parallel for readonly(p : n * 4, a) reduction(+: s){{$}}

float use(float *p, int n) { return tmpl<float, 4>(p, n); }

// DUMP-LABEL: FunctionDecl {{.*}} foo 'double (double *, const double *, void *, long)'
// DUMP:      OMPParallelDirective
// DUMP-NEXT:   OMPReadonlyClause
// DUMP-NEXT:     ArraySectionExpr
// DUMP:            DeclRefExpr {{.*}} 'p' 'double *'
// DUMP:            DeclRefExpr {{.*}} 'n' 'long'
// DUMP:        CapturedStmt
#endif
