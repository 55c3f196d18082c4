// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cc1 -verify -fopenmp -fopenmp-version=45 -x c -triple x86_64-unknown-unknown -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -O2 -emit-llvm %s -o - | FileCheck %s --check-prefix=O2
// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -debug-info-kind=line-tables-only -emit-llvm %s -o - | FileCheck %s --check-prefix=DEBUG

// -fopenmp-simd, and no OpenMP at all: no runtime call, nothing evaluated.
// RUN: %clang_cc1 -verify -fopenmp-simd -x c -triple x86_64-unknown-unknown -emit-llvm %s -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// RUN: %clang_cc1 -verify -x c -triple x86_64-unknown-unknown -emit-llvm %s -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// SIMD-ONLY0-NOT: {{__kmpc|__tgt}}
// SIMD-ONLY0-NOT: nt.ranges
// SIMD-ONLY0-NOT: call ptr @get_ptr
// expected-no-diagnostics

typedef __SIZE_TYPE__ size_t;

struct S {
  int a[8];
  double *p;
  long n;
};

int *get_ptr(void);
int get_len(void);

// The runtime's range descriptor, one named type for every list.
// CHECK: %struct.kmp_memory_range = type { ptr, i64, i64 }
// CHECK-NOT: %struct.kmp_memory_range.
// CHECK: @[[LOC:[0-9]+]] = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 {{[0-9]+}}, ptr @{{[0-9]+}} }

// 'ptr : len', int len: sign-extended count, element size 4.
void ptr_int(int *p, int n) {
#pragma omp nexttouch(p : n)
}
// DEBUG: c";{{.*}}nexttouch_codegen.c;ptr_int;[[@LINE-2]];1;;\00"
// CHECK-LABEL: define {{.*}}void @ptr_int(
// CHECK: %omp.ranges = alloca [1 x %struct.kmp_memory_range], align 8
// CHECK-NEXT: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
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
// CHECK-NEXT: ret void
// CHECK: declare i32 @__kmpc_nexttouch(ptr, i32, i32, ptr)
// O2-LABEL: define {{.*}}void @ptr_int(ptr noundef %p, i32 noundef %n)
// O2: %omp.ranges = alloca [1 x %struct.kmp_memory_range], align 8
// O2: [[GTID:%.+]] = tail call i32 @__kmpc_global_thread_num(
// O2: [[CNT:%.+]] = sext i32 %n to i64
// O2: store ptr %p, ptr %omp.ranges, align 8
// O2: [[F:%.+]] = getelementptr inbounds nuw i8, ptr %omp.ranges, i64 8
// O2-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// O2-NEXT: [[F:%.+]] = getelementptr inbounds nuw i8, ptr %omp.ranges, i64 16
// O2-NEXT: store i64 4, ptr [[F]], align 8
// O2-NEXT: call i32 @__kmpc_nexttouch(ptr nonnull @{{[0-9]+}}, i32 [[GTID]], i32 1, ptr nonnull %omp.ranges)

// size_t len: used as is; element size 8.
void ptr_size(double *p, size_t n) {
#pragma omp nexttouch(p : n)
}
// CHECK-LABEL: define {{.*}}void @ptr_size(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[N:%.+]] = load i64, ptr %n.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[N]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// Signed lengths are sign-extended, unsigned ones zero-extended.
void ptr_small(char *c, short s, int *p, unsigned u, long long *q, _Bool b) {
#pragma omp nexttouch(c : s, p : u, q : b)
}
// CHECK-LABEL: define {{.*}}void @ptr_small(
// CHECK: %omp.ranges = alloca [3 x %struct.kmp_memory_range], align 8
// CHECK-NEXT: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[C:%.+]] = load ptr, ptr %c.addr, align 8
// CHECK-NEXT: [[S:%.+]] = load i16, ptr %s.addr, align 2
// CHECK-NEXT: [[CNT0:%.+]] = sext i16 [[S]] to i64
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[U:%.+]] = load i32, ptr %u.addr, align 4
// CHECK-NEXT: [[CNT1:%.+]] = zext i32 [[U]] to i64
// CHECK-NEXT: [[Q:%.+]] = load ptr, ptr %q.addr, align 8
// CHECK-NEXT: [[B8:%.+]] = load i8, ptr %b.addr, align 1
// CHECK-NEXT: [[B:%.+]] = trunc i8 [[B8]] to i1
// CHECK-NEXT: [[CNT2:%.+]] = zext i1 [[B]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[C]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT0]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[Q]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT2]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 3, ptr [[ARG]])

// A length wider than size_t is not truncated: a value that does not fit
// (or a negative one) becomes SIZE_MAX, which the runtime reports.
void ptr_wide(int *p, __int128 n) {
#pragma omp nexttouch(p : n, p : (unsigned __int128)1 << 70, p : (unsigned __int128)5)
}
// CHECK-LABEL: define {{.*}}void @ptr_wide(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[N:%.+]] = load i128, ptr %n.addr, align 16
// CHECK-NEXT: [[FITS:%.+]] = icmp ule i128 [[N]], 18446744073709551615
// CHECK-NEXT: [[TRUNC:%.+]] = trunc i128 [[N]] to i64
// CHECK-NEXT: [[CNT:%.+]] = select i1 [[FITS]], i64 [[TRUNC]], i64 -1
// CHECK-NEXT: [[P1:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[P2:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 -1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P2]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 5, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 3, ptr [[ARG]])

// 'void *': the length is in bytes.
void ptr_void(void *vp, long n) {
#pragma omp nexttouch(vp : n)
}
// CHECK-LABEL: define {{.*}}void @ptr_void(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %vp.addr, align 8
// CHECK-NEXT: [[N:%.+]] = load i64, ptr %n.addr, align 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[N]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// 'a[lb : len]' with constants: base &a[2], 5 elements of 4 bytes.
void section_const(void) {
  int arr[10];
#pragma omp nexttouch(arr[2 : 5])
}
// CHECK-LABEL: define {{.*}}void @section_const(
// CHECK: %arr = alloca [10 x i32], align 16
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr %arr, i64 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 5, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// 'p[lb : len]' on a pointer: base p + lb * 4 bytes; count len.
void section_var(int *p, long lb, int len) {
#pragma omp nexttouch(p[lb : len])
}
// CHECK-LABEL: define {{.*}}void @section_var(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[LB:%.+]] = load i64, ptr %lb.addr, align 8
// CHECK-NEXT: [[OFF:%.+]] = mul i64 [[LB]], 4
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr [[P]], i64 [[OFF]]
// CHECK-NEXT: [[LEN:%.+]] = load i32, ptr %len.addr, align 4
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[LEN]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// 'a[lb :]' runs to the end of the array: 10 - lb elements; 'a[: len]'
// starts at a[0], the array itself.
void section_open(int lb) {
  double arr[10];
#pragma omp nexttouch(arr[3 :], arr[lb :], arr[: lb])
}
// CHECK-LABEL: define {{.*}}void @section_open(
// CHECK: %arr = alloca [10 x double], align 16
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[BASE0:%.+]] = getelementptr i8, ptr %arr, i64 24
// CHECK-NEXT: [[LB:%.+]] = load i32, ptr %lb.addr, align 4
// CHECK-NEXT: [[LB64:%.+]] = sext i32 [[LB]] to i64
// CHECK-NEXT: [[OFF1:%.+]] = mul i64 [[LB64]], 8
// CHECK-NEXT: [[BASE1:%.+]] = getelementptr i8, ptr %arr, i64 [[OFF1]]
// CHECK-NEXT: [[CNT1:%.+]] = sub i64 10, [[LB64]]
// CHECK-NEXT: [[LEN:%.+]] = load i32, ptr %lb.addr, align 4
// CHECK-NEXT: [[CNT2:%.+]] = sext i32 [[LEN]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE0]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 7, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr %arr, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT2]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 3, ptr [[ARG]])

// 'a[lb :]' on a VLA: the bound is the VLA's.
void section_vla(int n, int lb) {
  int vla[n];
#pragma omp nexttouch(vla[lb :])
}
// CHECK-LABEL: define {{.*}}void @section_vla(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[NUM:%.+]] = zext i32 {{%.+}} to i64
// CHECK: %vla = alloca i32, i64 [[NUM]], align 16
// CHECK: [[LB:%.+]] = load i32, ptr %lb.addr, align 4
// CHECK-NEXT: [[LB64:%.+]] = sext i32 [[LB]] to i64
// CHECK-NEXT: [[OFF:%.+]] = mul i64 [[LB64]], 4
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr %vla, i64 [[OFF]]
// CHECK-NEXT: [[CNT:%.+]] = sub i64 [[NUM]], [[LB64]]
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// On a two-dimensional VLA, 'm[lb :]' counts rows: n - lb rows of k ints.
void section_vla2(int n, int k, int lb) {
  int m[n][k];
#pragma omp nexttouch(m[lb :])
}
// CHECK-LABEL: define {{.*}}void @section_vla2(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[N:%.+]] = zext i32 {{%.+}} to i64
// CHECK: [[K:%.+]] = zext i32 {{%.+}} to i64
// CHECK: %vla = alloca i32, i64 {{%.+}}, align 16
// CHECK: [[ROW:%.+]] = mul nuw i64 [[K]], 4
// CHECK-NEXT: [[LB:%.+]] = load i32, ptr %lb.addr, align 4
// CHECK-NEXT: [[LB64:%.+]] = sext i32 [[LB]] to i64
// CHECK-NEXT: [[OFF:%.+]] = mul i64 [[LB64]], [[ROW]]
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr %vla, i64 [[OFF]]
// CHECK-NEXT: [[CNT:%.+]] = sub i64 [[N]], [[LB64]]
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 [[ROW]], ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])

// A whole array is one element of sizeof(array) bytes (a VLA's computed).
void whole(int n) {
  int arr[10];
  double m[4][8];
  int vla[n];
#pragma omp nexttouch(arr, m, vla)
}
// CHECK-LABEL: define {{.*}}void @whole(
// CHECK: %arr = alloca [10 x i32], align 16
// CHECK: %m = alloca [4 x [8 x double]], align 16
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[NUM:%.+]] = zext i32 {{%.+}} to i64
// CHECK: %vla = alloca i32, i64 [[NUM]], align 16
// CHECK: [[SIZE:%.+]] = mul nuw i64 [[NUM]], 4
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr %arr, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 40, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr %m, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 256, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr %vla, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 [[SIZE]], ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 3, ptr [[ARG]])

// Sections of a two-dimensional array: whole rows, or part of one row.
void rows(int i) {
  double m[4][8];
#pragma omp nexttouch(m[1 : 2], m[i][2 : 3])
}
// CHECK-LABEL: define {{.*}}void @rows(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[BASE0:%.+]] = getelementptr i8, ptr %m, i64 64
// CHECK-NEXT: [[I:%.+]] = load i32, ptr %i.addr, align 4
// CHECK-NEXT: [[I64:%.+]] = sext i32 [[I]] to i64
// CHECK-NEXT: [[ROW:%.+]] = getelementptr inbounds [4 x [8 x double]], ptr %m, i64 0, i64 [[I64]]
// CHECK-NEXT: [[BASE1:%.+]] = getelementptr i8, ptr [[ROW]], i64 16
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE0]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 2, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 64, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 3, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 2, ptr [[ARG]])

// Members: an array member, a pointer member with a member length, a section
// of an array member.
void members(struct S *s) {
#pragma omp nexttouch(s->a, s->p : s->n, s->a[2 : 3])
}
// CHECK-LABEL: define {{.*}}void @members(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[S0:%.+]] = load ptr, ptr %s.addr, align 8
// CHECK-NEXT: [[A:%.+]] = getelementptr inbounds nuw %struct.S, ptr [[S0]], i32 0, i32 0
// CHECK-NEXT: [[S1:%.+]] = load ptr, ptr %s.addr, align 8
// CHECK-NEXT: [[PADDR:%.+]] = getelementptr inbounds nuw %struct.S, ptr [[S1]], i32 0, i32 1
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr [[PADDR]], align 8
// CHECK-NEXT: [[S2:%.+]] = load ptr, ptr %s.addr, align 8
// CHECK-NEXT: [[NADDR:%.+]] = getelementptr inbounds nuw %struct.S, ptr [[S2]], i32 0, i32 2
// CHECK-NEXT: [[N:%.+]] = load i64, ptr [[NADDR]], align 8
// CHECK-NEXT: [[S3:%.+]] = load ptr, ptr %s.addr, align 8
// CHECK-NEXT: [[A3:%.+]] = getelementptr inbounds nuw %struct.S, ptr [[S3]], i32 0, i32 0
// CHECK-NEXT: [[BASE:%.+]] = getelementptr i8, ptr [[A3]], i64 8
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[A]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 1, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 32, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 [[N]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 8, ptr [[F]], align 8
// CHECK-NEXT: [[E2:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 2
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 0
// CHECK-NEXT: store ptr [[BASE]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 1
// CHECK-NEXT: store i64 3, ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E2]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [3 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 3, ptr [[ARG]])

// Side effects happen once, in list order: the first range is (p, n), the
// second (p + 1, n + 1); p and n end up incremented twice.
void side_effects(int *p, int n) {
#pragma omp nexttouch(p++ : n++, p++ : n++)
}
// CHECK-LABEL: define {{.*}}void @side_effects(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK: [[P0:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[P0INC:%.+]] = getelementptr inbounds nuw i32, ptr [[P0]], i32 1
// CHECK-NEXT: store ptr [[P0INC]], ptr %p.addr, align 8
// CHECK-NEXT: [[N0:%.+]] = load i32, ptr %n.addr, align 4
// CHECK-NEXT: [[N0INC:%.+]] = add nsw i32 [[N0]], 1
// CHECK-NEXT: store i32 [[N0INC]], ptr %n.addr, align 4
// CHECK-NEXT: [[CNT0:%.+]] = sext i32 [[N0]] to i64
// CHECK-NEXT: [[P1:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[P1INC:%.+]] = getelementptr inbounds nuw i32, ptr [[P1]], i32 1
// CHECK-NEXT: store ptr [[P1INC]], ptr %p.addr, align 8
// CHECK-NEXT: [[N1:%.+]] = load i32, ptr %n.addr, align 4
// CHECK-NEXT: [[N1INC:%.+]] = add nsw i32 [[N1]], 1
// CHECK-NEXT: store i32 [[N1INC]], ptr %n.addr, align 4
// CHECK-NEXT: [[CNT1:%.+]] = sext i32 [[N1]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P0]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT0]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[E1:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 1
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT1]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E1]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [2 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 2, ptr [[ARG]])
// O2-LABEL: define {{.*}}void @side_effects(ptr noundef %p, i32 noundef %n)
// O2: [[P1:%.+]] = getelementptr inbounds nuw i8, ptr %p, i64 4
// O2: [[N1:%.+]] = add nsw i32 %n, 1
// O2: [[CNT0:%.+]] = sext i32 %n to i64
// O2: [[CNT1:%.+]] = sext i32 [[N1]] to i64
// O2: store ptr %p, ptr %omp.ranges, align 8
// O2: store i64 [[CNT0]], ptr
// O2: store i64 4, ptr
// O2: store ptr [[P1]], ptr
// O2: store i64 [[CNT1]], ptr
// O2: store i64 4, ptr
// O2-NEXT: call i32 @__kmpc_nexttouch(ptr nonnull @{{[0-9]+}}, i32 {{%.+}}, i32 2, ptr nonnull %omp.ranges)

// Calls in the list are made once each, pointer before length.
void calls(void) {
#pragma omp nexttouch(get_ptr() : get_len())
}
// CHECK-LABEL: define {{.*}}void @calls(
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(ptr @[[LOC]])
// CHECK-NEXT: [[P:%.+]] = call ptr @get_ptr()
// CHECK-NEXT: [[N:%.+]] = call i32 @get_len()
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
// CHECK-NOT: call ptr @get_ptr()
// CHECK-NOT: call i32 @get_len()
// CHECK: ret void

// In a parallel region, the thread id comes from the outlined function.
void in_parallel(int *p, int n) {
#pragma omp parallel
  {
#pragma omp nexttouch(p : n)
  }
}
// CHECK-LABEL: define {{.*}}void @in_parallel(
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 2, ptr @in_parallel.omp_outlined, ptr %p.addr, ptr %n.addr)
// CHECK-NOT: __kmpc_nexttouch
// CHECK: ret void
// CHECK-LABEL: define internal void @in_parallel.omp_outlined(
// CHECK: [[PREF:%.+]] = load ptr, ptr %p.addr, align 8
// CHECK-NEXT: [[NREF:%.+]] = load ptr, ptr %n.addr, align 8
// CHECK-NEXT: [[P:%.+]] = load ptr, ptr [[PREF]], align 8
// CHECK-NEXT: [[N:%.+]] = load i32, ptr [[NREF]], align 4
// CHECK-NEXT: [[CNT:%.+]] = sext i32 [[N]] to i64
// CHECK-NEXT: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 0
// CHECK-NEXT: store ptr [[P]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 1
// CHECK-NEXT: store i64 [[CNT]], ptr [[F]], align 8
// CHECK-NEXT: [[F:%.+]] = getelementptr inbounds nuw %struct.kmp_memory_range, ptr [[E0]], i32 0, i32 2
// CHECK-NEXT: store i64 4, ptr [[F]], align 8
// CHECK-NEXT: [[ARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr %omp.ranges, i64 0, i64 0
// CHECK-NEXT: [[TIDADDR:%.+]] = load ptr, ptr %.global_tid..addr, align 8
// CHECK-NEXT: [[GTID:%.+]] = load i32, ptr [[TIDADDR]], align 4
// CHECK-NEXT: {{%.+}} = call i32 @__kmpc_nexttouch(ptr @[[LOC]], i32 [[GTID]], i32 1, ptr [[ARG]])
