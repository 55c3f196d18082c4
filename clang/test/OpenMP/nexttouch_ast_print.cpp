// RUN: %clang_cc1 -verify -fopenmp -triple x86_64-unknown-unknown -ast-print %s | FileCheck %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-print | FileCheck %s

// RUN: %clang_cc1 -verify -fopenmp-simd -triple x86_64-unknown-unknown -ast-print %s | FileCheck %s
// RUN: %clang_cc1 -fopenmp-simd -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp-simd -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-print | FileCheck %s

// RUN: %clang_cc1 -verify -fopenmp -triple x86_64-unknown-unknown -std=c++14 -ast-dump %s | FileCheck %s --check-prefix=DUMP
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -x c++ -std=c++14 -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -include-pch %t -verify %s -ast-dump-all | FileCheck %s --check-prefix=DUMP

// The printed directives parse again to the same directives.
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -ast-print %s -DPRINT_ONLY_FOO -o %t.printed.cpp
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-unknown -std=c++14 -x c++ -ast-print %t.printed.cpp | FileCheck %s --check-prefix=FOO
// expected-no-diagnostics

#ifndef HEADER
#define HEADER

void foo(int *p, void *vp, long n, int (&ra)[8]) {
  int arr[10];
  int a2[4][8];
#pragma omp nexttouch(p : n)
#pragma omp nexttouch(vp : n * 4, p + 1 : 2)
#pragma omp nexttouch(arr)
#pragma omp nexttouch(arr[2 : 3], arr[2 :], arr[: 4], arr[:])
#pragma omp nexttouch(a2[1 : 2], a2[3][1 : n], a2[1], ra)
#pragma omp nexttouch(p : n, arr, arr[1 : 2], (p) : (n), n ? p : arr : n)
}
// FOO-LABEL: void foo(
// FOO:      int a2[4][8];
// FOO-NEXT: #pragma omp nexttouch (p : n){{$}}
// FOO-NEXT: #pragma omp nexttouch (vp : n * 4, p + 1 : 2){{$}}
// FOO-NEXT: #pragma omp nexttouch (arr){{$}}
// FOO-NEXT: #pragma omp nexttouch (arr[2:3], arr[2:], arr[:4], arr[:]){{$}}
// FOO-NEXT: #pragma omp nexttouch (a2[1:2], a2[3][1:n], a2[1], ra){{$}}
// FOO-NEXT: #pragma omp nexttouch (p : n, arr, arr[1:2], (p) : (n), n ? p : arr : n){{$}}
// FOO-NEXT: }

#ifndef PRINT_ONLY_FOO
// CHECK-LABEL: void foo(
// CHECK:      int a2[4][8];
// CHECK-NEXT: #pragma omp nexttouch (p : n){{$}}
// CHECK-NEXT: #pragma omp nexttouch (vp : n * 4, p + 1 : 2){{$}}
// CHECK-NEXT: #pragma omp nexttouch (arr){{$}}
// CHECK-NEXT: #pragma omp nexttouch (arr[2:3], arr[2:], arr[:4], arr[:]){{$}}
// CHECK-NEXT: #pragma omp nexttouch (a2[1:2], a2[3][1:n], a2[1], ra){{$}}
// CHECK-NEXT: #pragma omp nexttouch (p : n, arr, arr[1:2], (p) : (n), n ? p : arr : n){{$}}
// CHECK-NEXT: }

// DUMP-LABEL: FunctionDecl {{.*}} foo 'void (int *, void *, long, int (&)[8])'
// 'p : n' is the section 'p[:n]', which has no brackets: it ends at 'n'.
// DUMP:      OMPNextTouchDirective
// DUMP-NEXT: OMPNexttouchClause
// DUMP-NEXT: ArraySectionExpr {{.*}} <col:23, col:27> '<array section type>' lvalue
// DUMP-NEXT: ImplicitCastExpr {{.*}} 'int *' <LValueToRValue>
// DUMP-NEXT: DeclRefExpr {{.*}} 'int *' lvalue ParmVar {{.*}} 'p' 'int *'
// DUMP-NEXT: <<<NULL>>>
// DUMP-NEXT: ImplicitCastExpr {{.*}} 'long' <LValueToRValue>
// DUMP-NEXT: DeclRefExpr {{.*}} 'long' lvalue ParmVar {{.*}} 'n' 'long'
// DUMP-NEXT: <<<NULL>>>

template <class T, int N>
T tmain(T *p, T (&a)[N], int n) {
  static T s[N];
#pragma omp nexttouch(p : n)
#pragma omp nexttouch(p : N, a, a[1 : N - 1], s[n :], s)
#pragma omp parallel
  {
#pragma omp nexttouch(a[0 : n], p[n : N])
  }
  return a[0];
}
// CHECK-LABEL: template <class T, int N> T tmain(T *p, T (&a)[N], int n) {
// CHECK-NEXT: static T s[N];
// CHECK-NEXT: #pragma omp nexttouch (p : n){{$}}
// CHECK-NEXT: #pragma omp nexttouch (p : N, a, a[1:N - 1], s[n:], s){{$}}
// CHECK-NEXT: #pragma omp parallel{{$}}
// CHECK-NEXT: {
// CHECK-NEXT: #pragma omp nexttouch (a[0:n], p[n:N]){{$}}
// CHECK-NEXT: }
// CHECK-LABEL: template<> int tmain<int, 4>(int *p, int (&a)[4], int n) {
// CHECK-NEXT: static int s[4];
// CHECK-NEXT: #pragma omp nexttouch (p : n){{$}}
// CHECK-NEXT: #pragma omp nexttouch (p : 4, a, a[1:4 - 1], s[n:], s){{$}}
// CHECK-NEXT: #pragma omp parallel{{$}}
// CHECK-NEXT: {
// CHECK-NEXT: #pragma omp nexttouch (a[0:n], p[n:4]){{$}}
// CHECK-NEXT: }
// CHECK-LABEL: template<> double tmain<double, 2>(double *p, double (&a)[2], int n) {
// CHECK-NEXT: static double s[2];
// CHECK-NEXT: #pragma omp nexttouch (p : n){{$}}
// CHECK-NEXT: #pragma omp nexttouch (p : 2, a, a[1:2 - 1], s[n:], s){{$}}

// DUMP-LABEL: FunctionTemplateDecl {{.*}} tmain
// DUMP:      FunctionDecl {{.*}} tmain 'T (T *, T (&)[N], int)'
// DUMP:      OMPNextTouchDirective
// DUMP-NEXT: OMPNexttouchClause
// DUMP-NEXT: ArraySectionExpr {{.*}} <col:23, col:27> '<dependent type>' lvalue
// DUMP-NEXT: DeclRefExpr {{.*}} 'T *' lvalue ParmVar {{.*}} 'p' 'T *'
// DUMP-NEXT: <<<NULL>>>
// DUMP-NEXT: DeclRefExpr {{.*}} 'int' lvalue ParmVar {{.*}} 'n' 'int'
// DUMP-NEXT: <<<NULL>>>
// DUMP:      FunctionDecl {{.*}} used tmain 'int (int *, int (&)[4], int)'
// DUMP:      OMPNextTouchDirective
// DUMP-NEXT: OMPNexttouchClause
// DUMP-NEXT: ArraySectionExpr {{.*}} <col:23, col:27> '<array section type>' lvalue
// DUMP-NEXT: ImplicitCastExpr {{.*}} 'int *' <LValueToRValue>
// DUMP-NEXT: DeclRefExpr {{.*}} 'int *' lvalue ParmVar {{.*}} 'p' 'int *'
// DUMP-NEXT: <<<NULL>>>
// DUMP-NEXT: ImplicitCastExpr {{.*}} 'int' <LValueToRValue>
// DUMP-NEXT: DeclRefExpr {{.*}} 'int' lvalue ParmVar {{.*}} 'n' 'int'
// DUMP-NEXT: <<<NULL>>>

struct S {
  int buf[16];
  int *data;
  int size;
  void touch() {
#pragma omp nexttouch(buf, data : size, this->buf[1 : 2], this : 1)
  }
};
// CHECK-LABEL: struct S {
// CHECK:      void touch() {
// CHECK-NEXT: #pragma omp nexttouch (this->buf, this->data : this->size, this->buf[1:2], this : 1){{$}}

// 'ptr : len' is printed as written, in the template and once instantiated
// (with 'void *', where a written section 'p[:n]' would be an error).
template <class T> void tvoid(T *p, long n) {
#pragma omp nexttouch(p : n, (p) : 2 * n)
}
// CHECK-LABEL: template <class T> void tvoid(T *p, long n) {
// CHECK-NEXT: #pragma omp nexttouch (p : n, (p) : 2 * n){{$}}
// CHECK-NEXT: }
// CHECK-LABEL: template<> void tvoid<void>(void *p, long n) {
// CHECK-NEXT: #pragma omp nexttouch (p : n, (p) : 2 * n){{$}}
// CHECK-NEXT: }

int main(int argc, char **argv) {
  int a[4];
  double d[2];
  auto l = [&](int *q) {
#pragma omp nexttouch(q : argc, a)
  };
  l(a);
  S s;
  s.touch();
  tvoid(static_cast<void *>(a), argc);
  return tmain(a, a, argc) + tmain(d, d, argc);
}
// CHECK-LABEL: int main(int argc, char **argv) {
// CHECK:      auto l = [&](int *q) {
// CHECK-NEXT: #pragma omp nexttouch (q : argc, a){{$}}
// CHECK-NEXT: };
#endif // PRINT_ONLY_FOO

#endif // HEADER
