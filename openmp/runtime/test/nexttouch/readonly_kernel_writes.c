// The kernel changes a cached readonly item between regions without a
// write fault: the next region that lists it reads the current content on
// every thread (host, KMP_READONLY_FORCE=1: real replicas).
//  - pwrite(2) to the file behind a read-only MAP_PRIVATE mapping (the
//    program's read-only memory, never protected by the engine);
//  - write(2) to the file behind a writable MAP_PRIVATE mapping whose pages
//    the program never wrote (they show the file's page cache);
//  - fwrite(3) + fflush(3) to that file;
//  - pwrite(2) to /proc/self/mem into an anonymous item (the kernel writes
//    whatever the protection) and into the read-only file mapping;
//  - process_vm_writev(2) on the calling process: it succeeds (no EFAULT on
//    the write-protected item) and the next region reads what it wrote.
// A /proc/self/mem write into an item a running region lists fails with
// EFAULT and writes nothing.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_kernel_writes: PASS
#define _GNU_SOURCE
#include "nexttouch_test.h"
#include <fcntl.h>
#include <sys/uio.h>

enum { P = 16 };
static long pg;

// [p, p+len) as a cached item with replicas whose bytes sum to `sum`.
static void cache(const char *p, size_t len, long sum) {
  int rep = 0;
  NT_CHECK(nt_ro_region_sum(p, len, &rep) == sum && rep, "cached item %p",
           (void *)p);
  NT_CHECK(nt_ro_region_sum(p, len, NULL) == sum, "reused %p", (void *)p);
}

// A temporary file of P pages of `v`, open read-write.
static int data_file(char v) {
  char path[] = "/tmp/readonly_kernel_writes.XXXXXX";
  int fd = mkstemp(path);
  NT_CHECK(fd >= 0, "mkstemp");
  unlink(path);
  char *buf = malloc(P * pg);
  memset(buf, v, P * pg);
  NT_CHECK(write(fd, buf, P * pg) == P * pg, "write the file");
  free(buf);
  return fd;
}

static void fill(char *buf, char v) { memset(buf, v, P * pg); }

int main(void) {
  pg = nt_pagesize();
  char *buf = malloc(P * pg);
  int mem = open("/proc/self/mem", O_RDWR);
  NT_CHECK(mem >= 0, "open /proc/self/mem");

  // The program's read-only memory: a read-only private file mapping.
  int fd = data_file(1);
  char *ro = mmap(NULL, P * pg, PROT_READ, MAP_PRIVATE, fd, 0);
  NT_CHECK(ro != MAP_FAILED, "mmap read-only");
  cache(ro, P * pg, 1L * P * pg);
  fill(buf, 2);
  NT_CHECK(pwrite(fd, buf, P * pg, 0) == P * pg, "pwrite the file");
  NT_CHECK(nt_ro_region_sum(ro, P * pg, NULL) == 2L * P * pg,
           "after pwrite to the read-only mapping's file: %ld",
           nt_ro_region_sum(ro, P * pg, NULL));
  // /proc/self/mem writes into it whatever the protection (copy on write).
  fill(buf, 3);
  NT_CHECK(pwrite(mem, buf, pg, (off_t)(uintptr_t)ro) == pg,
           "pwrite /proc/self/mem into the read-only mapping");
  NT_CHECK(nt_ro_region_sum(ro, P * pg, NULL) == 2L * (P - 1) * pg + 3L * pg,
           "after /proc/self/mem into the read-only mapping: %ld",
           nt_ro_region_sum(ro, P * pg, NULL));

  // A writable private file mapping the program never wrote.
  int fd2 = data_file(4);
  char *rw = mmap(NULL, P * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd2, 0);
  NT_CHECK(rw != MAP_FAILED, "mmap writable");
  cache(rw, P * pg, 4L * P * pg);
  fill(buf, 5);
  NT_CHECK(lseek(fd2, 0, SEEK_SET) == 0, "lseek");
  NT_CHECK(write(fd2, buf, P * pg) == P * pg, "write the file");
  NT_CHECK(nt_ro_region_sum(rw, P * pg, NULL) == 5L * P * pg,
           "after write to the writable mapping's file: %ld",
           nt_ro_region_sum(rw, P * pg, NULL));
  FILE *fp = fdopen(fd2, "r+");
  NT_CHECK(fp && fseek(fp, 0, SEEK_SET) == 0, "fdopen");
  fill(buf, 6);
  NT_CHECK(fwrite(buf, 1, P * pg, fp) == (size_t)(P * pg) && fflush(fp) == 0,
           "fwrite + fflush");
  NT_CHECK(nt_ro_region_sum(rw, P * pg, NULL) == 6L * P * pg,
           "after fwrite + fflush: %ld", nt_ro_region_sum(rw, P * pg, NULL));

  // An anonymous item, write-protected between regions.
  char *a = nt_map(P * pg);
  memset(a, 7, P * pg);
  cache(a, P * pg, 7L * P * pg);
  fill(buf, 8);
  NT_CHECK(pwrite(mem, buf, 2 * pg, (off_t)(uintptr_t)(a + pg)) == 2 * pg,
           "pwrite /proc/self/mem into the anonymous item");
  NT_CHECK(nt_ro_region_sum(a, P * pg, NULL) == 7L * (P - 2) * pg + 16L * pg,
           "after /proc/self/mem into the anonymous item: %ld",
           nt_ro_region_sum(a, P * pg, NULL));
  fill(buf, 9);
  struct iovec local = {buf, 3 * pg}, remote = {a + 4 * pg, 3 * pg};
  ssize_t n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
  NT_CHECK(n == 3 * pg, "process_vm_writev into the item: %zd (errno %d)", n,
           errno);
  NT_CHECK(nt_ro_region_sum(a, P * pg, NULL) ==
               7L * (P - 5) * pg + 16L * pg + 27L * pg,
           "after process_vm_writev: %ld", nt_ro_region_sum(a, P * pg, NULL));

  // In a region that lists the item: EFAULT, and no byte written.
  kmp_readonly_t h;
  const void *ap = a;
  size_t alen = P * pg;
  NT_CHECK(kmp_readonly_begin(1, &ap, &alen, NULL, &h) == 0, "begin");
  fill(buf, 10);
  errno = 0;
  n = pwrite(mem, buf, pg, (off_t)(uintptr_t)(a + 10 * pg));
  int err = errno;
  kmp_readonly_end(h);
  NT_CHECK(n == -1 && err == EFAULT, "in a region: %zd (errno %d)", n, err);
  NT_CHECK(a[10 * pg] == 7, "in a region: nothing written");

  fclose(fp);
  close(fd);
  close(mem);
  free(buf);
  return nt_done("readonly_kernel_writes");
}
