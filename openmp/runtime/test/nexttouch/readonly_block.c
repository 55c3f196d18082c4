// A readonly list item that is a block of its own from glibc's malloc (a
// large request: a mapping with malloc's header in front of the block): its
// first and last pages hold nothing else of the program's, so they are
// write-protected like the rest, and its copies stay readable between
// regions (KMP_READONLY_FORCE=1: replicas on this machine).
//   kept    a pointer into the copy's first page, kept from a region and
//           used after it, nothing written: reads the data; the original's
//           first and last pages are read-only between regions
//   serial  the same after a serial write to the item's first page:
//           stopped (that part of the copy is out of date)
//   again   after that serial write the next region reads the new value
//   head    a write to the item's first bytes in the region: trapped
//   rest    the item leaves out the block's last element: the region writes
//           it (a store, and read(2) into it), no trap, and read(2) into the
//           item's first bytes fails with EFAULT; the next region reads
//           current data
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run kept 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run serial 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run again 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run head 2>&1 | FileCheck %s --check-prefix=HEAD
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run rest 2>&1 | FileCheck %s --check-prefix=REST
// REQUIRES: linux
// The sanitizers' allocators do not make such blocks.
// UNSUPPORTED: asan, tsan
//
// KEPT: readonly_block kept: PASS
// SERIAL: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_block.c:{{[0-9]+}}:{{[0-9]+}} (region): list item 0 'a[0:n]' (0x{{[0-9a-f]+}}, 409600 bytes) was used through a pointer into its copy {{.*}} after the region ended.
// SERIAL-NOT: NOT REACHED
// AGAIN: readonly_block again: PASS
// HEAD: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_block.c:{{[0-9]+}}:{{[0-9]+}} (region): list item 0 'a[0:n]' (0x{{[0-9a-f]+}}, 409600 bytes) was written (address 0x{{[0-9a-f]+}}, OS thread {{[0-9]+}}) while the region may only read it.
// HEAD-NOT: NOT REACHED
// REST: readonly_block rest: PASS
#include "nexttouch_test.h"
#include <errno.h>

enum { N = 51200 }; // 400 KiB: glibc maps it on its own
static double *a;

// One region listing a[0:n]; thread 0 keeps &a[5] and, per mode, writes
// the original (in the region `a` is the thread's copy).  Returns the kept
// pointer; *sum: what thread 1 read.
static double *region(long n, const char *mode, double *sum) {
  double *best = NULL, s1 = 0, *orig = a;
  int fds[2] = {-1, -1};
  if (!strcmp(mode, "rest")) {
    double v = 42;
    NT_CHECK(pipe(fds) == 0 && write(fds[1], &v, sizeof v) == sizeof v &&
                 write(fds[1], &v, sizeof v) == sizeof v,
             "pipe");
  }
#pragma omp parallel num_threads(2) readonly(a[0 : n])
  {
    if (omp_get_thread_num() == 0) {
      best = &a[5];
      if (!strcmp(mode, "head"))
        orig[0] = 1; // an item byte on its first page
      if (!strcmp(mode, "rest")) {
        orig[N - 1] = 2; // the block's, not the item's
        NT_CHECK(read(fds[0], &orig[N - 1], sizeof(double)) == sizeof(double),
                 "read(2) into the rest of the block: %s", strerror(errno));
        errno = 0;
        NT_CHECK(read(fds[0], &orig[1], sizeof(double)) == -1 &&
                     errno == EFAULT,
                 "read(2) into the item in its region: %s", strerror(errno));
      }
    } else {
      for (long i = 0; i < n; i++)
        s1 += a[i];
    }
  }
  if (fds[0] >= 0) {
    close(fds[0]);
    close(fds[1]);
  }
  if (sum)
    *sum = s1;
  return best;
}

static double serial_sum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i];
  return s;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "kept";
  long pg = nt_pagesize();
  a = malloc(N * sizeof(double));
  NT_CHECK(a && ((uintptr_t)a & (pg - 1)) == 2 * sizeof(size_t),
           "not a block of its own from glibc's malloc: %p", (void *)a);
  for (long i = 0; i < N; i++)
    a[i] = i % 7;
  long n = !strcmp(mode, "rest") ? N - 1 : N;
  double got = 0;
  double *p = region(n, mode, NULL);
  NT_CHECK(p != &a[5], "forced: thread 0 read a replica");
  if (!strcmp(mode, "kept")) {
    NT_CHECK(nt_maps_prot(a) == PROT_READ &&
                 nt_maps_prot(&a[N - 1]) == PROT_READ,
             "first and last pages read-only between regions");
    NT_CHECK(*p == 5, "read %g through the kept pointer, want 5", *p);
    region(n, mode, &got);
    NT_CHECK(*p == 5, "after a second region: read %g", *p);
    return nt_done("readonly_block kept");
  }
  if (!strcmp(mode, "rest")) {
    NT_CHECK(a[N - 1] == 42, "the rest of the block: %g, want 42", a[N - 1]);
    region(n, "", &got);
    NT_CHECK(got == serial_sum(n), "next region read %g, want %g", got,
             serial_sum(n));
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.readonly_write_traps == 0, "%llu traps",
             (unsigned long long)c.readonly_write_traps);
    return nt_done("readonly_block rest");
  }
  a[5] = 3; // a serial write on the item's first page
  if (!strcmp(mode, "again")) {
    region(n, mode, &got);
    NT_CHECK(got == serial_sum(n), "read %g, want %g", got, serial_sum(n));
    return nt_done("readonly_block again");
  }
  printf("read %g\n", *p);
  printf("NOT REACHED\n");
  return 0;
}
