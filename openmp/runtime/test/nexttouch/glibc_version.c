// The C library the tests run on in make check-glibc231 is Debian 11's
// (glibc 2.31), and libomp is the one built against it (make libomp-compat,
// which references no symbol version newer than GLIBC_2.31): natively and
// in a guest booting Debian 11's kernel.  Both engines work there.
// REQUIRES: glibc-2.31, linux
// RUN: %libomp-compile -ldl && env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 \
// RUN:   OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: %if numa-vm %{ %numa-vm --nodes 2 --cpus 2 -- env OMP_NUM_THREADS=2 \
// RUN:   OMP_PROC_BIND=spread %t | FileCheck %s --check-prefixes=CHECK,GUEST %}
// CHECK: glibc 2.31
// CHECK: libomp {{.*}}openmp-glibc231{{.*}}libomp.so
// GUEST: kernel 5.10.
// CHECK: glibc_version: PASS
#include "nexttouch_test.h"
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <sys/utsname.h>

int main(void) {
  printf("glibc %s\n", gnu_get_libc_version());
  Dl_info info;
  NT_CHECK(dladdr((void *)&kmp_nexttouch, &info) && info.dli_fname,
           "dladdr of kmp_nexttouch");
  printf("libomp %s\n", info.dli_fname);
  struct utsname u;
  if (uname(&u) == 0)
    printf("kernel %s\n", u.release);
  long pg = nt_pagesize();
  size_t n = 64 * pg;
  char *a = nt_map(n);
  memset(a, 1, n);
  NT_CHECK(kmp_nexttouch(a, n) == 0, "kmp_nexttouch");
  long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (size_t i = 0; i < n; i += pg)
    sum += a[i];
  NT_CHECK(sum == 64, "sum %ld", sum);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_migrated + c.pages_already_local == 64,
           "%llu pages moved or local",
           (unsigned long long)(c.pages_migrated + c.pages_already_local));
  const void *p = a;
  size_t len = n;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "readonly begin");
  long bad = 0;
#pragma omp parallel reduction(+ : bad)
  bad += memcmp(kmp_readonly_ptr(h, 0), a, n) != 0;
  kmp_readonly_end(h);
  NT_CHECK(bad == 0, "%ld threads read other data", bad);
  return nt_done("glibc_version");
}
