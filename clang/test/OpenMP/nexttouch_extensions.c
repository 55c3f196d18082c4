// '#pragma omp nexttouch' and the clause 'readonly(list)' are extensions of
// this implementation, on by default (-fopenmp-extensions), like the ompx_
// ones.  With -fno-openmp-extensions they are what a stock compiler sees: the
// directive is not an OpenMP directive (an error), the clause is unknown
// (ignored, with what follows it, by a warning), and __OPENMP_NEXTTOUCH__ is
// not defined.  -fopenmp-simd drops them as it drops every construct that is
// not a simd one: no runtime call, no macro, no diagnostic.  With
// -fopenmp-enable-irbuilder both are emitted (a parallel region with the
// clause takes the classic path, which redirects the list items).

// RUN: %clang_cc1 -fopenmp -fno-openmp-extensions -triple x86_64-unknown-linux-gnu \
// RUN:   -fsyntax-only -verify=noext %s
// RUN: %clang_cc1 -fopenmp -triple x86_64-unknown-linux-gnu -DEXT \
// RUN:   -fsyntax-only -verify=ext %s
// RUN: %clang_cc1 -fopenmp-simd -triple x86_64-unknown-linux-gnu \
// RUN:   -emit-llvm -o - -verify=simd %s | FileCheck %s --check-prefix=SIMD
// RUN: %clang_cc1 -fopenmp -fopenmp-enable-irbuilder -DEXT \
// RUN:   -triple x86_64-unknown-linux-gnu -emit-llvm -o - -verify=ext %s \
// RUN:   | FileCheck %s --check-prefix=IRB

// ext-no-diagnostics
// simd-no-diagnostics

#if defined(__OPENMP_NEXTTOUCH__) != defined(EXT)
#error "__OPENMP_NEXTTOUCH__ with extensions only"
#endif

double a[1000];
void g(const double *, int);

// SIMD-LABEL: define {{.*}}@f(
// SIMD-NOT: __kmpc
// SIMD: ret void
// IRB-LABEL: define {{.*}}@f(
// IRB: call {{.*}}@__kmpc_nexttouch(
// IRB: call {{.*}}@__kmpc_readonly_begin(
// IRB: call {{.*}}@__kmpc_fork_call(
// IRB: call {{.*}}@__kmpc_readonly_end(
void f(int n) {
#pragma omp nexttouch(a) // noext-error {{expected an OpenMP directive}}
#pragma omp parallel readonly(a) num_threads(2) // noext-warning {{extra tokens at the end of '#pragma omp parallel' are ignored}}
  g(a, n);
}
