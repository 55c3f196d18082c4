// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -debug-info-kind=line-tables-only -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s --check-prefix=DEBUG

// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s --check-prefix=DECL
// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -O2 -emit-llvm %s -o - | FileCheck %s --check-prefix=O2

// -fopenmp-simd, and no OpenMP at all: no runtime call, nothing redirected.
// RUN: %clang_cc1 -verify -fopenmp-simd -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// RUN: %clang_cc1 -verify -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s --check-prefix=SIMD-ONLY0
// SIMD-ONLY0-NOT: {{__kmpc_readonly|omp.readonly}}
// expected-no-diagnostics

double garr[64];

double use(const double *);

// The items are the ranges of '#pragma omp nexttouch': one type for both.
// CHECK: %struct.kmp_memory_range = type { ptr, i64, i64 }
// CHECK-NOT: %struct.kmp_memory_range.
// The location is there without debug information (the runtime's message).
// CHECK-DAG: c";{{.*}}readonly_codegen.c;ptr;{{[0-9]+}};1;;\00"
// CHECK-DAG: @[[NAME_P:.+]] = private unnamed_addr constant [6 x i8] c"p : n\00"
// CHECK-DAG: @[[NAME_A:.+]] = private unnamed_addr constant [2 x i8] c"a\00"
// CHECK-DAG: @[[NAME_G:.+]] = private unnamed_addr constant [10 x i8] c"garr[4:8]\00"
// CHECK-DAG: @[[NAME_Q:.+]] = private unnamed_addr constant [7 x i8] c"q[2:n]\00"
// CHECK-DAG: @[[NAME_PP:.+]] = private unnamed_addr constant [8 x i8] c"*pp : n\00"

// A pointer item: the region reads through a copy of 'p' moved by this
// thread's offset, kept in this thread's array of the region instance.
double ptr(double *p, int n) {
  double s = 0;
#pragma omp parallel readonly(p : n)
  s += p[1];
  return s;
}
// DEBUG: c";{{.*}}readonly_codegen.c;ptr;[[@LINE-4]];1;;\00"
// CHECK-LABEL: define {{.*}}double @ptr(
// CHECK: [[DATA:%.omp.readonly.data]] = alloca [2 x ptr]
// CHECK: [[ITEMS:%omp.ranges]] = alloca [1 x %struct.kmp_memory_range]
// CHECK: [[NAMES:%omp.readonly.names]] = alloca [1 x ptr]
// CHECK: [[GTID:%.+]] = call i32 @__kmpc_global_thread_num(
// CHECK: [[P:%.+]] = load ptr, ptr %p.addr
// CHECK: [[CNT:%.+]] = sext i32 {{%.+}} to i64
// CHECK: [[E0:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr [[ITEMS]], i64 0, i64 0
// CHECK: store ptr [[P]], ptr
// CHECK: store i64 [[CNT]], ptr
// CHECK: store i64 8, ptr
// CHECK-NEXT: [[IARG:%.+]] = getelementptr inbounds [1 x %struct.kmp_memory_range], ptr [[ITEMS]], i64 0, i64 0
// CHECK: [[N0:%.+]] = getelementptr inbounds [1 x ptr], ptr [[NAMES]], i64 0, i64 0
// CHECK-NEXT: store ptr @[[NAME_P]], ptr [[N0]]
// CHECK: [[B1:%.+]] = getelementptr inbounds [2 x ptr], ptr [[DATA]], i64 0, i64 1
// CHECK-NEXT: store ptr [[P]], ptr [[B1]]
// CHECK: [[NARG:%.+]] = getelementptr inbounds [1 x ptr], ptr [[NAMES]], i64 0, i64 0
// CHECK-NEXT: [[H:%omp.readonly.handle]] = call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 [[GTID]], i32 1, ptr [[IARG]], ptr [[NARG]])
// CHECK-NEXT: [[H0:%.+]] = getelementptr inbounds [2 x ptr], ptr [[DATA]], i64 0, i64 0
// CHECK-NEXT: store ptr [[H]], ptr [[H0]]
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 3, ptr @ptr.omp_outlined, ptr %s, ptr %p.addr, ptr [[DATA]])
// CHECK-NEXT: call void @__kmpc_readonly_end(ptr @{{[0-9]+}}, i32 [[GTID]], ptr [[H]])
//
// CHECK-LABEL: define internal void @ptr.omp_outlined(
// CHECK-SAME: ptr {{.*}}%p, ptr {{.*}}%.omp.readonly.data)
// CHECK: [[PADDR:%.+]] = load ptr, ptr %p.addr
// CHECK: [[D:%.+]] = load ptr, ptr %.omp.readonly.data.addr
// CHECK: [[H:%omp.readonly.handle]] = load ptr, ptr
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(ptr @{{[0-9]+}}, i32 {{%.+}}, ptr [[H]])
// CHECK: [[ORIG:%omp.readonly.orig]] = load ptr
// CHECK-NEXT: [[SLOT:%.+]] = getelementptr inbounds [1 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK-NEXT: [[MINE:%omp.readonly.ptr]] = load ptr, ptr [[SLOT]]
// CHECK-NEXT: [[M:%.+]] = ptrtoint ptr [[MINE]] to i64
// CHECK-NEXT: [[O:%.+]] = ptrtoint ptr [[ORIG]] to i64
// CHECK-NEXT: [[DELTA:%omp.readonly.delta]] = sub i64 [[M]], [[O]]
// CHECK-NEXT: [[PV:%.+]] = load ptr, ptr [[PADDR]]
// CHECK-NEXT: [[NEWP:%p.readonly]] = getelementptr i8, ptr [[PV]], i64 [[DELTA]]
// CHECK-NEXT: store ptr [[NEWP]], ptr [[SLOT]]
// The region's 'p[1]' reads through the copy.
// CHECK-NEXT: [[P1:%.+]] = load ptr, ptr [[SLOT]]
// CHECK-NEXT: getelementptr inbounds double, ptr [[P1]], i64 1
// O2-LABEL: define internal void @ptr.omp_outlined(
// O2: call ptr @__kmpc_readonly_ptrs(
// O2: [[NEWP:%p.readonly]] = getelementptr i8, ptr {{%.+}}, i64 %omp.readonly.delta
// O2: getelementptr inbounds nuw i8, ptr [[NEWP]], i64 8

// A local array, a global array, a section of a pointer, and an item that is
// not redirected.
double arrays(double *q, double **pp, int n) {
  double a[8];
  double s = 0;
#pragma omp parallel for reduction(+ : s) readonly(a, garr[4 : 8], q[2 : n], *pp : n)
  for (int i = 0; i < 8; ++i)
    s += a[i] + garr[4 + i] + q[2 + i] + use(a) + (*pp)[i];
  return s;
}
// CHECK-LABEL: define {{.*}}double @arrays(
// CHECK: [[DATA:%.omp.readonly.data]] = alloca [5 x ptr]
// CHECK: store ptr @[[NAME_A]], ptr
// CHECK: store ptr @[[NAME_G]], ptr
// CHECK: store ptr @[[NAME_Q]], ptr
// CHECK: store ptr @[[NAME_PP]], ptr
// CHECK: call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 4, ptr
// The region captures the global like the locals.
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 6, ptr @arrays.omp_outlined, ptr %s, ptr %a, ptr @garr, ptr %q.addr, ptr %pp.addr, ptr [[DATA]])
// CHECK-NEXT: call void @__kmpc_readonly_end(
//
// CHECK-LABEL: define internal void @arrays.omp_outlined(
// CHECK: [[AADDR:%.+]] = load ptr, ptr %a.addr
// CHECK: [[GADDR:%.+]] = load ptr, ptr %garr.addr
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[DELTA_A:%omp.readonly.delta]] = sub i64
// CHECK-NEXT: [[A:%a.readonly]] = getelementptr i8, ptr [[AADDR]], i64 [[DELTA_A]]
// CHECK: [[DELTA_G:%omp.readonly.delta[0-9]+]] = sub i64
// CHECK-NEXT: [[G:%garr.readonly]] = getelementptr i8, ptr [[GADDR]], i64 [[DELTA_G]]
// CHECK: [[QSLOT:%.+]] = getelementptr inbounds [4 x ptr], ptr [[PTRS]], i64 0, i64 2
// CHECK: [[DELTA_Q:%omp.readonly.delta[0-9]+]] = sub i64
// CHECK: [[Q:%q.readonly]] = getelementptr i8, ptr {{%.+}}, i64 [[DELTA_Q]]
// CHECK-NEXT: store ptr [[Q]], ptr [[QSLOT]]
// '*pp : n' is not redirected.
// CHECK-NOT: pp.readonly
// CHECK: call void @__kmpc_for_static_init_4(
// CHECK: omp.inner.for.body:
// CHECK: getelementptr inbounds [8 x double], ptr [[A]], i64 0, i64
// CHECK: getelementptr inbounds [64 x double], ptr [[G]], i64 0, i64
// CHECK: load ptr, ptr [[QSLOT]]
// The address passed to a function is the replica's.
// CHECK: [[DECAY:%.+]] = getelementptr inbounds [8 x double], ptr [[A]], i64 0, i64 0
// CHECK-NEXT: call double @use(ptr noundef [[DECAY]])
// DECL-DAG: declare ptr @__kmpc_readonly_begin(ptr, i32, i32, ptr, ptr)
// DECL-DAG: declare ptr @__kmpc_readonly_ptrs(ptr, i32, ptr)
// DECL-DAG: declare void @__kmpc_readonly_end(ptr, i32, ptr)

// A member of a variable: 'm.a' designates the replica, 'm.p' a copy.
struct M {
  double a[16];
  double *p;
};
double member(struct M m, int n) {
  double s = 0;
#pragma omp parallel readonly(m.a, m.p : n)
  s += m.a[3] + m.p[2];
  return s;
}
// CHECK-LABEL: define internal void @member.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[MADDR:%.+]] = getelementptr inbounds nuw %struct.M, ptr {{%.+}}, i32 0, i32 0
// CHECK: [[MA:%a.readonly]] = getelementptr i8, ptr [[MADDR]], i64 %omp.readonly.delta
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [2 x ptr], ptr [[PTRS]], i64 0, i64 1
// CHECK: [[MP:%p.readonly]] = getelementptr i8, ptr {{%.+}}, i64 %omp.readonly.delta{{[0-9]+}}
// CHECK-NEXT: store ptr [[MP]], ptr [[SLOT]]
// CHECK: getelementptr inbounds [16 x double], ptr [[MA]], i64 0, i64 3
// CHECK: load ptr, ptr [[SLOT]]

// A task of the region that shares 'p' gets the address of this thread's
// copy in the region instance's array, which lives until the region ends.
double task(double *p, int n) {
  double s = 0;
#pragma omp parallel readonly(p : n) shared(s)
#pragma omp task shared(s)
  s += p[0];
  return s;
}
// CHECK-LABEL: define internal void @task.omp_outlined(
// CHECK: [[PTRS:%omp.readonly.ptrs]] = call ptr @__kmpc_readonly_ptrs(
// CHECK: [[SLOT:%.+]] = getelementptr inbounds [1 x ptr], ptr [[PTRS]], i64 0, i64 0
// CHECK: store ptr [[SLOT]], ptr
// CHECK: call ptr @__kmpc_omp_task_alloc(

// '#pragma omp nexttouch' and 'readonly' in one function: the same type.
void both(double *p, int n) {
#pragma omp nexttouch(p : n)
#pragma omp parallel readonly(p : n)
  use(p);
}
// CHECK-LABEL: define {{.*}}void @both(
// CHECK: %omp.ranges = alloca [1 x %struct.kmp_memory_range]
// CHECK: %omp.ranges{{[0-9]+}} = alloca [1 x %struct.kmp_memory_range]
// CHECK: call i32 @__kmpc_nexttouch(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
// CHECK: call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
