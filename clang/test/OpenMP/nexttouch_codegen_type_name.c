// The program's own 'struct kmp_memory_range' does not change the layout of
// the runtime's ranges: they use the literal structure then.
// RUN: %clang_cc1 -verify -fopenmp -x c -triple x86_64-unknown-unknown -Wno-openmp-extensions -emit-llvm %s -o - | FileCheck %s
// expected-no-diagnostics

struct kmp_memory_range {
  int x;
};
struct kmp_memory_range mine = {1};

// CHECK: %struct.kmp_memory_range = type { i32 }
// CHECK: @mine = global %struct.kmp_memory_range { i32 1 }

double both(double *p, int n) {
  double s = 0;
#pragma omp nexttouch(p : n)
#pragma omp parallel readonly(p : n) reduction(+ : s)
  s += p[0];
  return s;
}
// CHECK-LABEL: define {{.*}}double @both(
// CHECK: %omp.ranges = alloca [1 x { ptr, i64, i64 }]
// CHECK: %omp.ranges{{[0-9]+}} = alloca [1 x { ptr, i64, i64 }]
// CHECK: getelementptr inbounds nuw { ptr, i64, i64 }, ptr {{%.+}}, i32 0, i32 2
// CHECK: call i32 @__kmpc_nexttouch(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
// CHECK: call ptr @__kmpc_readonly_begin(ptr @{{[0-9]+}}, i32 {{%.+}}, i32 1, ptr
