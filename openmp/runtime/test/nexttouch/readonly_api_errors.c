// Bad input to the readonly API and to the compiler's entry points: each
// gets its code (or a documented no-op), the item is then read from the
// original, the other items of the region still work; __kmpc_readonly_begin
// reports each bad item once on stderr with the construct's location and
// the item's source text.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run 2>&1 | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (The hole's fixed address 0x200000000000 is in TSan's shadow memory.)
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:7:3 (f): list item 0 ('nul', base (nil), 5 elements of 4 bytes) is read from the original, not protected: NULL, zero element size, or the runtime's own memory.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:7:3 (f): list item 1 ('neg', base 0x{{[0-9a-f]+}}, 18446744073709551615 elements of 8 bytes) is read from the original, not protected: the length overflows the address space.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:7:3 (f): list item 2 ('zero', base 0x{{[0-9a-f]+}}, 3 elements of 0 bytes) is read from the original, not protected: NULL, zero element size, or the runtime's own memory.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:7:3 (f): list item 3 ('hole', base 0x{{[0-9a-f]+}}, {{[0-9]+}} elements of 1 bytes) is read from the original, not protected: not mapped.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:7:3 (f): list item 4 ('code', base 0x{{[0-9a-f]+}}, 16 elements of 1 bytes) is read from the original, not protected: not readable data, or partly read-only.
// CHECK-DAG: OMP: Warning #{{[0-9]+}}: readonly at api.c:9:5 (g): list item 0 (base (nil), 7 elements of 4 bytes) is read from the original, not protected: NULL, zero element size, or the runtime's own memory.
// CHECK-NOT: list item 5
// CHECK-NOT: api.c:9:5 (g): list item 1
// CHECK: readonly_api_errors: PASS
#include "nexttouch_test.h"

static ident_t loc = {0, 2, 0, 0, ";api.c;f;7;3;;"};

static int begin1(const void *p, size_t len) {
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(1, &p, &len, NULL, &h);
  // A bad item is read from the original.
  NT_CHECK(h != NULL && (!rc || kmp_readonly_ptr(h, 0) == p), "handle %p",
           (void *)h);
  NT_CHECK(kmp_readonly_ptrs(h) &&
               kmp_readonly_ptrs(h)[0] == kmp_readonly_ptr(h, 0),
           "ptrs %p", (void *)kmp_readonly_ptrs(h));
  kmp_readonly_end(h);
  return rc;
}

int main(void) {
  long pg = nt_pagesize();
  char *a = nt_map(8 * pg), *mixed = nt_map(2 * pg);
  memset(a, 1, 8 * pg);
  // A hole far from the other mappings, so that no later mmap fills it.
  char *hole = mmap((void *)0x200000000000UL, 3 * pg, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(hole + pg, pg);
  mprotect(mixed + pg, pg, PROT_READ);
  char *none = nt_map(pg);
  mprotect(none, pg, PROT_NONE);
  kmp_readonly_t h = (kmp_readonly_t)1;
  const void *p = a;
  size_t len = pg;

  // The API.
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, NULL) == EINVAL, "no handle");
  NT_CHECK(kmp_readonly_begin(-1, &p, &len, NULL, &h) == EINVAL && h == NULL,
           "n < 0");
  NT_CHECK(kmp_readonly_begin(1, NULL, &len, NULL, &h) == EINVAL, "no ptrs");
  NT_CHECK(kmp_readonly_begin(0, NULL, NULL, NULL, &h) == 0 && h, "n == 0");
  NT_CHECK(kmp_readonly_ptr(h, 0) == NULL && kmp_readonly_ptrs(h) != NULL &&
               kmp_readonly_end(h) == 0,
           "empty region");
  NT_CHECK(begin1(NULL, 5) == EINVAL, "NULL");
  NT_CHECK(begin1(NULL, 0) == 0 && begin1(a, 0) == 0, "zero length");
  NT_CHECK(begin1(a, (size_t)-1) == EOVERFLOW, "overflow");
  NT_CHECK(begin1((char *)-4096, 100) == EOVERFLOW, "wraps");
  NT_CHECK(begin1(hole, 3 * pg) == EFAULT, "hole");
  NT_CHECK(begin1(none, pg) == EACCES, "PROT_NONE");
  NT_CHECK(begin1(mixed, 2 * pg) == EACCES, "partly read-only");
  NT_CHECK(begin1((const void *)main, 16) == EACCES, "code");
  NT_CHECK(kmp_readonly_ptr(NULL, 0) == NULL && kmp_readonly_ptrs(NULL) == NULL,
           "ptr(NULL), ptrs(NULL)");
  NT_CHECK(kmp_readonly_end(NULL) == EINVAL, "end(NULL)");
  NT_CHECK(kmp_readonly_release(NULL, 5) == EINVAL &&
               kmp_readonly_release(a, 0) == 0 &&
               kmp_readonly_release(a, (size_t)-1) == EOVERFLOW,
           "release");
  // The same bytes as another item while a region holds that one: EBUSY.
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
  NT_CHECK(kmp_readonly_ptr(h, 1) == NULL && kmp_readonly_ptr(h, -1) == NULL,
           "index out of range");
  NT_CHECK(begin1(a + 100, pg) == EBUSY, "overlapping a held item");
  NT_CHECK(kmp_readonly_release(a, pg) == EBUSY, "release a held item");
  kmp_readonly_end(h);
  NT_CHECK(begin1(a + 100, pg) == 0, "overlapping, once not held");

  // The compiler's entry point: bad items warned about, good ones used.
  kmp_memory_range_t items[6] = {{NULL, 5, 4},
                                 {a, (size_t)-1, 8},
                                 {a, 3, 0},
                                 {hole, 3 * (size_t)pg, 1},
                                 {(void *)main, 16, 1},
                                 {a + 2 * pg, 4 * pg, 1}};
  const char *const names[6] = {"nul", "neg", "zero", "hole", "code", "good"};
  void *hh = __kmpc_readonly_begin(&loc, 0, 6, items, names);
  int wrong = 0;
#pragma omp parallel reduction(+ : wrong)
  {
    void **q = __kmpc_readonly_ptrs(&loc, 0, hh);
    for (int i = 0; i < 5; i++)
      wrong += q[i] != items[i].base;
    wrong += q[5] == items[5].base || ((char *)q[5])[7] != 1;
  }
  __kmpc_readonly_end(&loc, 0, hh);
  NT_CHECK(wrong == 0, "%d wrong pointers", wrong);

  // No names (they are only for the messages).
  static ident_t loc2 = {0, 2, 0, 0, ";api.c;g;9;5;;"};
  kmp_memory_range_t two[2] = {{NULL, 7, 4}, {a + 2 * pg, 4 * pg, 1}};
  hh = __kmpc_readonly_begin(&loc2, 0, 2, two, NULL);
#pragma omp parallel reduction(+ : wrong)
  {
    void **q = __kmpc_readonly_ptrs(&loc2, 0, hh);
    wrong += q[0] != NULL;
    wrong += q[1] == two[1].base || ((char *)q[1])[7] != 1;
  }
  __kmpc_readonly_end(&loc2, 0, hh);
  NT_CHECK(wrong == 0, "%d wrong pointers without names", wrong);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.readonly_write_traps == 0 && c.readonly_replicas >= 1,
           "replicas %llu", (unsigned long long)c.readonly_replicas);
  return nt_done("readonly_api_errors");
}
