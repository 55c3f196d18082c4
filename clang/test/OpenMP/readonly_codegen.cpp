// RUN: %clang_cc1 -verify -fopenmp -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cc1 -fopenmp -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -include-pch %t -verify %s -emit-llvm -o - | FileCheck %s

// -fopenmp-simd: no runtime call, nothing redirected.
// RUN: %clang_cc1 -verify -fopenmp-simd -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// RUN: %clang_cc1 -fopenmp-simd -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp-simd -x c++ -std=c++17 -triple x86_64-unknown-unknown -Wno-openmp-extensions -include-pch %t -verify %s -emit-llvm -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// SIMD-ONLY0-NOT: {{__kmpc|omp.readonly|\.readonly}}
// expected-no-diagnostics

#ifndef HEADER
#define HEADER

double garr[64];
double *gp;
struct Tab {
  static double tab[32];
};
double Tab::tab[32];

double use(const double *);

// A local array and a local pointer: the region's captures designate the
// replica of the array and this thread's copy of the pointer.
double locals(double *p, int n) {
  double a[8] = {};
  double s = 0;
#pragma omp parallel for reduction(+ : s) readonly(a, p : n)
  for (int i = 0; i < 8; ++i)
    s += a[i] + p[i] + use(a);
  return s;
}
// CHECK-LABEL: define {{.*}}double @_Z6localsPdi(
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 4, ptr @_Z6localsPdi.omp_outlined, ptr %s, ptr %a, ptr %p.addr, ptr %.omp.readonly.data)
// CHECK-LABEL: define internal void @_Z6localsPdi.omp_outlined(
// CHECK: [[AADDR:%.+]] = load ptr, ptr %a.addr
// CHECK: [[PADDR:%.+]] = load ptr, ptr %p.addr
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[DELTA_A:%omp.readonly.delta]] = sub i64
// CHECK-NEXT: [[A:%a.readonly]] = getelementptr i8, ptr [[AADDR]], i64 [[DELTA_A]]
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [2 x ptr], ptr [[PTRS]], i64 0, i64 1
// CHECK: [[DELTA_P:%omp.readonly.delta[0-9]+]] = sub i64
// CHECK-NEXT: [[PV:%.+]] = load ptr, ptr [[PADDR]]
// CHECK-NEXT: [[P:%p.readonly]] = getelementptr i8, ptr [[PV]], i64 [[DELTA_P]]
// CHECK-NEXT: store ptr [[P]], ptr [[SLOT]]
// CHECK: omp.inner.for.body:
// CHECK: getelementptr inbounds [8 x double], ptr [[A]], i64 0, i64
// CHECK: load ptr, ptr [[SLOT]]
// CHECK: [[DECAY:%.+]] = getelementptr inbounds [8 x double], ptr [[A]], i64 0, i64 0
// CHECK-NEXT: call noundef double @_Z3usePKd(ptr noundef [[DECAY]])

// Globals, a global pointer and a static data member are captured by the
// region like locals, also when they are listed 'shared' too.
double globals(int n) {
  double s = 0;
#pragma omp parallel shared(garr) readonly(garr, gp : n, Tab::tab)
  s += garr[1] + gp[2] + Tab::tab[3] + use(garr);
  return s;
}
// CHECK-LABEL: define {{.*}}double @_Z7globalsi(
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 5, ptr @_Z7globalsi.omp_outlined, ptr %s, ptr @garr, ptr @gp, ptr @_ZN3Tab3tabE, ptr %.omp.readonly.data)
// CHECK-LABEL: define internal void @_Z7globalsi.omp_outlined(
// CHECK: [[GADDR:%.+]] = load ptr, ptr %garr.addr
// CHECK: [[GPADDR:%.+]] = load ptr, ptr %gp.addr
// CHECK: [[TADDR:%.+]] = load ptr, ptr %tab.addr
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[G:%garr.readonly]] = getelementptr i8, ptr [[GADDR]], i64 %omp.readonly.delta
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [3 x ptr], ptr [[PTRS]], i64 0, i64 1
// CHECK: [[GPV:%.+]] = load ptr, ptr [[GPADDR]]
// CHECK-NEXT: [[GP:%gp.readonly]] = getelementptr i8, ptr [[GPV]], i64 %omp.readonly.delta{{[0-9]+}}
// CHECK-NEXT: store ptr [[GP]], ptr [[SLOT]]
// CHECK: [[T:%tab.readonly]] = getelementptr i8, ptr [[TADDR]], i64 %omp.readonly.delta{{[0-9]+}}
// CHECK-NEXT: getelementptr inbounds [64 x double], ptr [[G]], i64 0, i64 1
// CHECK: load ptr, ptr [[SLOT]]
// CHECK: getelementptr inbounds [32 x double], ptr [[T]], i64 0, i64 3
// CHECK: [[DECAY:%.+]] = getelementptr inbounds [64 x double], ptr [[G]], i64 0, i64 0
// CHECK-NEXT: call noundef double @_Z3usePKd(ptr noundef [[DECAY]])

// default(none): shared explicitly.
double none(int n) {
  double s = 0;
#pragma omp parallel default(none) shared(garr, s) readonly(garr)
  s += garr[5];
  return s;
}
// CHECK-LABEL: define internal void @_Z4nonei.omp_outlined(
// CHECK: [[GADDR:%.+]] = load ptr, ptr %garr.addr
// CHECK: [[G:%garr.readonly]] = getelementptr i8, ptr [[GADDR]], i64 %omp.readonly.delta
// CHECK-NEXT: getelementptr inbounds [64 x double], ptr [[G]], i64 0, i64 5

// Members of 'this': the region reads them through references to them that
// it captures, which designate the replica and this thread's copy.
struct Buf {
  double a[16];
  double *p;
  int n;
  double sum();
  double task();
};
double Buf::sum() {
  double s = 0;
#pragma omp parallel readonly(a, this->p : n)
  s += a[1] + p[2];
  return s;
}
// Before the fork, the references to the members: 'this->a', 'this->p'.
// CHECK-LABEL: define {{.*}}double @_ZN3Buf3sumEv(
// CHECK: [[RA:%a]] = alloca ptr
// CHECK: [[RP:%p]] = alloca ptr
// CHECK: [[THIS:%this1]] = load ptr, ptr %this.addr
// CHECK: [[MA:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 0
// CHECK-NEXT: store ptr [[MA]], ptr [[RA]]
// CHECK-NEXT: [[MP:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 1
// CHECK-NEXT: store ptr [[MP]], ptr [[RP]]
// CHECK: call ptr @__kmpc_readonly_begin(
// CHECK: [[A:%.+]] = load ptr, ptr [[RA]]
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr [[RP]]
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 5, ptr @_ZN3Buf3sumEv.omp_outlined, ptr %s, ptr [[THIS]], ptr [[A]], ptr [[P]], ptr %.omp.readonly.data)
// CHECK-LABEL: define internal void @_ZN3Buf3sumEv.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[MA:%.+]] = load ptr, ptr [[RA:%tmp[0-9]*]]
// CHECK: [[A:%a.readonly]] = getelementptr i8, ptr [[MA]], i64 %omp.readonly.delta
// CHECK-NEXT: store ptr [[A]], ptr [[RA2:%tmp[0-9]*]]
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [2 x ptr], ptr [[PTRS]], i64 0, i64 1
// CHECK: [[P:%p.readonly]] = getelementptr i8, ptr {{%.+}}, i64 %omp.readonly.delta{{[0-9]+}}
// CHECK-NEXT: store ptr [[P]], ptr [[SLOT]]
// CHECK-NEXT: store ptr [[SLOT]], ptr [[RP2:%tmp[0-9]*]]
// The region's 'a[1]' and 'p[2]' read through the references.
// CHECK-NEXT: [[A2:%.+]] = load ptr, ptr [[RA2]]
// CHECK-NEXT: getelementptr inbounds [16 x double], ptr [[A2]], i64 0, i64 1
// CHECK: [[S2:%.+]] = load ptr, ptr [[RP2]]
// CHECK-NEXT: [[P2:%.+]] = load ptr, ptr [[S2]]
// CHECK-NEXT: getelementptr inbounds double, ptr [[P2]], i64 2

// An explicit task of the region captures the redirected variables: a local
// pointer, a global array, a member of 'this'.
double tasks(double *p, int n) {
  double s = 0;
#pragma omp parallel readonly(p : n, garr) shared(s)
#pragma omp single
#pragma omp task shared(s)
  s += p[0] + garr[0];
  return s;
}
// CHECK-LABEL: define internal void @_Z5tasksPdi.omp_outlined(
// CHECK: [[GADDR:%.+]] = load ptr, ptr %garr.addr
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [2 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK: store ptr %p.readonly, ptr [[SLOT]]
// CHECK: [[G:%garr.readonly]] = getelementptr i8, ptr [[GADDR]], i64 %omp.readonly.delta{{[0-9]+}}
// CHECK: call i32 @__kmpc_single(
// The task's shared 'p' and 'garr' are this thread's copy and replica.
// CHECK: [[F1:%.+]] = getelementptr inbounds nuw %struct.anon, ptr %agg.captured, i32 0, i32 1
// CHECK-NEXT: store ptr [[SLOT]], ptr [[F1]]
// CHECK-NEXT: [[F2:%.+]] = getelementptr inbounds nuw %struct.anon, ptr %agg.captured, i32 0, i32 2
// CHECK-NEXT: store ptr [[G]], ptr [[F2]]
// CHECK: call ptr @__kmpc_omp_task_alloc(
double Buf::task() {
  double s = 0;
#pragma omp parallel readonly(p : n) shared(s)
#pragma omp single
#pragma omp task shared(s)
  s += p[0];
  return s;
}
// CHECK-LABEL: define internal void @_ZN3Buf4taskEv.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [1 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK: store ptr %p.readonly, ptr [[SLOT]]
// CHECK-NEXT: store ptr [[SLOT]], ptr [[REF:%tmp[0-9]*]]
// CHECK: call i32 @__kmpc_single(
// CHECK: [[F2:%.+]] = getelementptr inbounds nuw %struct.anon.0, ptr %agg.captured, i32 0, i32 2
// CHECK-NEXT: [[V:%.+]] = load ptr, ptr
// CHECK-NEXT: store ptr [[V]], ptr [[F2]]
// CHECK: call ptr @__kmpc_omp_task_alloc(

// A template, instantiated twice: each instance redirects its own variable.
template <typename T> T tsum(T *q, int n) {
  T s = 0;
#pragma omp parallel readonly(q : n)
  s += q[n - 1];
  return s;
}
double inst(double *dq, float *fq, int n) {
  return tsum(dq, n) + tsum(fq, n);
}
// The instances in the order they are emitted.
// CHECK-LABEL: define {{.*}}double @_Z4tsumIdET_PS0_i(
// CHECK: call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 4, ptr @_Z4tsumIdET_PS0_i.omp_outlined, ptr %s, ptr %q.addr, ptr %n.addr, ptr %.omp.readonly.data)
// CHECK-LABEL: define {{.*}}float @_Z4tsumIfET_PS0_i(
// CHECK: call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 4, ptr @_Z4tsumIfET_PS0_i.omp_outlined, ptr %s, ptr %q.addr, ptr %n.addr, ptr %.omp.readonly.data)
// CHECK-LABEL: define internal void @_Z4tsumIdET_PS0_i.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [1 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK: [[Q:%q.readonly]] = getelementptr i8, ptr {{%.+}}, i64 %omp.readonly.delta
// CHECK-NEXT: store ptr [[Q]], ptr [[SLOT]]
// CHECK: [[QV:%.+]] = load ptr, ptr [[SLOT]]
// CHECK: getelementptr inbounds double, ptr [[QV]], i64
// CHECK-LABEL: define internal void @_Z4tsumIfET_PS0_i.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [1 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK: [[Q:%q.readonly]] = getelementptr i8, ptr {{%.+}}, i64 %omp.readonly.delta
// CHECK-NEXT: store ptr [[Q]], ptr [[SLOT]]
// CHECK: [[QV:%.+]] = load ptr, ptr [[SLOT]]
// CHECK: getelementptr inbounds float, ptr [[QV]], i64

#endif
