// RUN: %clang_cc1 -verify -fopenmp -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cc1 -fopenmp -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -include-pch %t -verify %s -emit-llvm -o - | FileCheck %s

// -fopenmp-simd: no runtime call.
// RUN: %clang_cc1 -verify -fopenmp-simd -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -emit-llvm %s -o - | FileCheck --check-prefix SIMD-ONLY0 %s
// RUN: %clang_cc1 -fopenmp-simd -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -emit-pch -o %t %s
// RUN: %clang_cc1 -fopenmp-simd -x c++ -std=c++14 -triple x86_64-unknown-unknown -fexceptions -fcxx-exceptions -include-pch %t -verify %s -emit-llvm -o - | FileCheck --check-prefix SIMD-ONLY0 %s
// SIMD-ONLY0-NOT: {{__kmpc|__tgt}}
// SIMD-ONLY0-NOT: nt.ranges

// A device compilation generates nothing for the directive, even in a
// 'declare target' function that the host compiles with the call.
// RUN: %clang_cc1 -verify -fopenmp -x c++ -std=c++14 -triple x86_64-unknown-unknown -fopenmp-targets=x86_64-unknown-unknown,nvptx64-nvidia-cuda -emit-llvm-bc %s -o %t-host.bc
// RUN: %clang_cc1 -verify -fopenmp -x c++ -std=c++14 -triple x86_64-unknown-unknown -fopenmp-targets=x86_64-unknown-unknown -fopenmp-is-target-device -fopenmp-host-ir-file-path %t-host.bc -emit-llvm %s -o - | FileCheck --check-prefix DEVICE %s
// RUN: %clang_cc1 -verify -fopenmp -x c++ -std=c++14 -triple nvptx64-nvidia-cuda -aux-triple x86_64-unknown-unknown -fopenmp-is-target-device -fopenmp-host-ir-file-path %t-host.bc -emit-llvm %s -o - | FileCheck --check-prefix DEVICE %s
// DEVICE-NOT: __kmpc_nexttouch
// DEVICE: define {{.*}}void @_Z2dtPii(
// DEVICE-NOT: __kmpc_nexttouch
// DEVICE-NOT: nt.ranges
// expected-no-diagnostics

#ifndef HEADER
#define HEADER

// CHECK: @[[LOC:[0-9]+]] = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 {{[0-9]+}}, ptr @{{[0-9]+}} }

// A member function: an array member, a pointer member with a member length,
// a section of an array member, the object itself.
struct Buf {
  double data[16];
  int *ptr;
  int len;
  void touch();
};

void Buf::touch() {
#pragma omp nexttouch(data, ptr : len, data[2 : 4], this : 1)
}
// CHECK-LABEL: define {{.*}}void @_ZN3Buf5touchEv(
// CHECK: %omp.ranges = alloca [4 x %struct.kmp_memory_range], align 8
// CHECK-NEXT: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[THIS:%.+]] = load ptr, ptr %this.addr, align 8
// CHECK-NEXT: [[DATA:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 0
// CHECK-NEXT: [[PTRADDR:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 1
// CHECK-NEXT: [[PTR:%.+]] = load ptr, ptr [[PTRADDR]], align 8
// CHECK-NEXT: [[LENADDR:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 2
// CHECK-NEXT: [[LEN:%.+]] = load i32, ptr [[LENADDR]], align 8
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[LEN]] to i64
// CHECK-NEXT: [[DATA2:%.+]] = getelementptr inbounds nuw %struct.Buf, ptr [[THIS]], i32 0, i32 0
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr [[DATA2]], i64 16
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[DATA]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 128, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[PTR]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E3:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 3
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 0
// CHECK-NEXT: store ptr [[THIS]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 2
// CHECK-NEXT: store i64 144, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 4, ptr [[ARG]])
// CHECK: declare i32 @__kmpc_nexttouch(ptr, i32, i32, ptr)

// Templates: a dependent pointer type, a non-type parameter as the length,
// a reference to an array of dependent bound, sections of both.
template <class T, int N>
void tmpl(T *p, T (&a)[N], long n) {
#pragma omp nexttouch(p : N, a, a[1 :], p[0 : n])
}

void use_tmpl(short *s, short (&sa)[3], double *d, double (&da)[5], long n) {
  tmpl(s, sa, n);
  tmpl(d, da, n);
}
// CHECK-LABEL: define {{.*}}void @_Z4tmplIsLi3EEvPT_RAT0__S0_l(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[A:%.+]] = load ptr, ptr %a.addr, align 8
// CHECK-NEXT: [[A2:%.+]] = load ptr, ptr %a.addr, align 8
// CHECK-NEXT: [[BASE2:%.+]] = getelementptr i8, ptr [[A2]], i64 2
// CHECK-NEXT: [[P3:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[BASE3:%.+]] = getelementptr i8, ptr [[P3]], i64 0
// CHECK-NEXT: [[N:%.+]] = load i64, ptr %n.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 3, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 2, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[A]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 6, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE2]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 2, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 2, ptr [[F]], align 8
// CHECK-NEXT: [[E3:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 3
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE3]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 1
// CHECK-NEXT: store i64 [[N]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 2
// CHECK-NEXT: store i64 2, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 4, ptr [[ARG]])
// CHECK-LABEL: define {{.*}}void @_Z4tmplIdLi5EEvPT_RAT0__S0_l(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[A:%.+]] = load ptr, ptr %a.addr, align 8
// CHECK-NEXT: [[A2:%.+]] = load ptr, ptr %a.addr, align 8
// CHECK-NEXT: [[BASE2:%.+]] = getelementptr i8, ptr [[A2]], i64 8
// CHECK-NEXT: [[P3:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[BASE3:%.+]] = getelementptr i8, ptr [[P3]], i64 0
// CHECK-NEXT: [[N:%.+]] = load i64, ptr %n.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 5, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[A]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 40, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE2]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E3:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 3
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE3]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 1
// CHECK-NEXT: store i64 [[N]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E3]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [4 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 4, ptr [[ARG]])

// References: to a pointer, to an array, to a length.
void refs(int *&rp, int (&ra)[4], const int &rn) {
#pragma omp nexttouch(rp : rn, ra)
}
// CHECK-LABEL: define {{.*}}void @_Z4refsRPiRA4_iRKi(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[RP:%.+]] = load ptr, ptr %rp.addr, align 8
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr [[RP]], align 8
// CHECK-NEXT: [[RN:%.+]] = load ptr, ptr %rn.addr, align 8
// CHECK-NEXT: [[N:%.+]] = load i32, ptr [[RN]], align 4
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[N]] to i64
// CHECK-NEXT: [[RA:%.+]] = load ptr, ptr %ra.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[RA]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 16, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 2, ptr [[ARG]])

// Lambdas: captures by reference, and a generic lambda instantiated twice.
void lambdas(int *p, int n) {
  int arr[8];
  auto l = [&](long m) {
#pragma omp nexttouch(p : m, arr)
  };
  l(n);
  auto g = [](auto *q, auto len) {
#pragma omp nexttouch(q : len)
  };
  g(p, n);
  g(reinterpret_cast<char *>(p), static_cast<unsigned short>(n));
}
// CHECK-LABEL: define {{.*}}void @_Z7lambdasPii(
// CHECK-NOT: __kmpc_nexttouch
// CHECK: ret void
// CHECK-LABEL: define internal void @"_ZZ7lambdasPiiENK{{.*}}clEl"(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[THIS:%.+]] = load ptr, ptr %this.addr, align 8
// CHECK-NEXT: [[PREFADDR:%.+]] = getelementptr inbounds nuw %class.anon, ptr [[THIS]], i32 0, i32 0
// CHECK-NEXT: [[PREF:%.+]] = load ptr, ptr [[PREFADDR]], align 8
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr [[PREF]], align 8
// CHECK-NEXT: [[M:%.+]] = load i64, ptr %m.addr, align 8
// CHECK-NEXT: [[ARRADDR:%.+]] = getelementptr inbounds nuw %class.anon, ptr [[THIS]], i32 0, i32 1
// CHECK-NEXT: [[ARR:%.+]] = load ptr, ptr [[ARRADDR]], align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[M]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[ARR]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 32, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 2, ptr [[ARG]])
// CHECK-LABEL: define internal void @"_ZZ7lambdasPiiENK{{.*}}clIiiEEDaPT_T0_"(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[Q:%.+]] = load ptr, ptr %q.addr, align 8
// CHECK-NEXT: [[LEN:%.+]] = load i32, ptr %len.addr, align 4
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[LEN]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[Q]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])
// CHECK-LABEL: define internal void @"_ZZ7lambdasPiiENK{{.*}}clIctEEDaPT_T0_"(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[Q:%.+]] = load ptr, ptr %q.addr, align 8
// CHECK-NEXT: [[LEN:%.+]] = load i16, ptr %len.addr, align 2
// CHECK-NEXT: [[CNT:%.+]] = zext i16 [[LEN]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[Q]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// A 'declare target' function: the host version calls the runtime.
#pragma omp declare target
void dt(int *p, int n) {
#pragma omp nexttouch(p : n)
}
#pragma omp end declare target
// CHECK-LABEL: define {{.*}}void @_Z2dtPii(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[N:%.+]] = load i32, ptr %n.addr, align 4
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[N]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

#endif // HEADER
