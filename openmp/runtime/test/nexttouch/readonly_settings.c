// The KMP_READONLY* settings: shown by OMP_DISPLAY_ENV=verbose, bad values
// warned about; KMP_READONLY=false makes readonly a no-op (no protection,
// no replica); KMP_READONLY_BUDGET bounds the replicas (an item over it is
// read from the original, counted; cached items are evicted, least recently
// used first, to make room); KMP_NEXTTOUCH_COUNTERS reports the counters.
// RUN: %libomp-compile
// RUN: env OMP_DISPLAY_ENV=verbose KMP_READONLY_FORCE=1 KMP_READONLY_BUDGET=3m \
// RUN:   KMP_NEXTTOUCH_COUNTERS=1 OMP_NUM_THREADS=2 %libomp-run budget 2>&1 | FileCheck %s
// RUN: env OMP_DISPLAY_ENV=verbose KMP_READONLY=false KMP_READONLY_FORCE=1 \
// RUN:   KMP_READONLY_WRITES=never KMP_READONLY_BUDGET=lots OMP_NUM_THREADS=2 \
// RUN:   %libomp-run off 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 %libomp-run default 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// REQUIRES: linux
// CHECK: OPENMP DISPLAY ENVIRONMENT BEGIN
// CHECK-DAG: [host] KMP_READONLY='TRUE'
// CHECK-DAG: [host] KMP_READONLY_BUDGET='3M'
// CHECK-DAG: [host] KMP_READONLY_FORCE='TRUE'
// CHECK-DAG: [host] KMP_READONLY_WRITES='fatal'
// CHECK: OPENMP DISPLAY ENVIRONMENT END
// CHECK: readonly_settings budget: PASS
// (dropped: d evicted b, and the 4 items left are dropped at shutdown)
// CHECK: OMP: Info #{{[0-9]+}}: nexttouch: {{.*}} readonly_regions=6 readonly_items=6 readonly_replicas=4 {{.*}} readonly_fallback_budget=1 {{.*}} readonly_dropped=5
// OFF-DAG: KMP_READONLY_WRITES: "never" is an invalid value; ignored.
// OFF-DAG: KMP_READONLY_BUDGET: "lots" is an invalid value; ignored.
// OFF-DAG: [host] KMP_READONLY='FALSE'
// OFF: readonly_settings off: PASS
// DEFAULT-DAG: [host] KMP_READONLY='TRUE'
// DEFAULT-DAG: [host] KMP_READONLY_FORCE='FALSE'
// DEFAULT-DAG: [host] KMP_READONLY_WRITES='fatal'
// DEFAULT-DAG: [host] KMP_READONLY_BUDGET='auto: {{[0-9]+[kKmMgGtT]?}} (a quarter of {{[0-9]+[kKmMgGtT]?}}, the {{memory of the machine|limit of its memory cgroup}}{{.*}})'
// DEFAULT: readonly_settings default: PASS
#include "nexttouch_test.h"

#define U(x) ((unsigned long long)(x))

// One region over [p, p+len): did the threads read a replica?
static int replicated(char *p, size_t len) {
  kmp_readonly_t h;
  const void *cp = p;
  NT_CHECK(kmp_readonly_begin(1, &cp, &len, NULL, &h) == 0, "begin");
  int copies = 0;
#pragma omp parallel reduction(+ : copies)
  {
    const char *q = kmp_readonly_ptr(h, 0);
    copies += q != p;
    if (q[len - 1] != p[len - 1])
      copies = -1000;
  }
  kmp_readonly_end(h);
  return copies > 0;
}

int main(int argc, char **argv) {
  long pg = nt_pagesize();
  size_t mb = 1 << 20;
  char *a = nt_map(mb), *b = nt_map(mb), *c = nt_map(mb), *big = nt_map(4 * mb);
  memset(a, 1, mb);
  memset(b, 2, mb);
  memset(c, 3, mb);
  memset(big, 4, 4 * mb);
  if (!strcmp(argv[1], "off")) {
    NT_CHECK(!replicated(a, mb), "replicated while off");
    kmp_readonly_t h;
    const void *p = a;
    size_t len = mb;
    NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
      a[5 * pg] = 9; // allowed: not protected
    kmp_readonly_end(h);
    kmp_nexttouch_counters_t k = nt_counters();
    NT_CHECK(a[5 * pg] == 9 && k.readonly_items == 0 &&
                 k.readonly_write_traps == 0 && k.readonly_regions == 0,
             "items %llu", U(k.readonly_items));
    return nt_done("readonly_settings off");
  }
  if (!strcmp(argv[1], "default")) { // one node, not forced: no replica
    NT_CHECK(!replicated(a, mb), "replicated on one node without force");
    NT_CHECK(nt_counters().readonly_fallback_one_node == 1, "fallback");
    return nt_done("readonly_settings default");
  }
  // Budget 3 MB, one node forced: one replica per item.
  kmp_reset_nexttouch_counters();
  NT_CHECK(replicated(a, mb) && replicated(b, mb) && replicated(c, mb),
           "three 1 MB items fit");
  NT_CHECK(!replicated(big, 4 * mb), "a 4 MB item does not");
  NT_CHECK(replicated(a, mb), "a is still cached");
  kmp_nexttouch_counters_t k = nt_counters();
  NT_CHECK(k.readonly_replicas == 3 && k.readonly_replicas_reused == 1 &&
               k.readonly_fallback_budget == 1 && k.readonly_dropped == 0,
           "replicas %llu reused %llu over budget %llu dropped %llu",
           U(k.readonly_replicas), U(k.readonly_replicas_reused),
           U(k.readonly_fallback_budget), U(k.readonly_dropped));
  // A fourth 1 MB item evicts the least recently used one: b.
  char *d = nt_map(mb);
  memset(d, 5, mb);
  NT_CHECK(replicated(d, mb), "d replaces the least recently used");
  k = nt_counters();
  NT_CHECK(k.readonly_dropped == 1 && k.readonly_replicas == 4,
           "dropped %llu replicas %llu", U(k.readonly_dropped),
           U(k.readonly_replicas));
  b[7 * pg] = 1; // b is not protected any more
  NT_CHECK(nt_counters().readonly_serial_writes == 0, "b still protected");
  a[7 * pg] = 1; // a is
  NT_CHECK(nt_counters().readonly_serial_writes == 1, "a not protected");
  return nt_done("readonly_settings budget");
}
