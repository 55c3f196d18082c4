// Nothing the program did not request is made inaccessible: the first and
// last pages of a request that it shares with other data are not armed, so
// the kernel can still read and write those other bytes (a raw system call
// does not fault, it would fail with EFAULT).  Cases:
//   edges:    a request that starts and ends inside pages: only the whole
//             pages inside it are armed; data of the neighbours on the edge
//             pages stays usable by raw read/write, system() and stat()
//   adjacent: two requests that meet inside a page cover it together: that
//             page is armed
//   small:    a request inside one page arms nothing (a no-op)
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: partial_pages: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <sys/stat.h>

static long pg;

// The kernel reads and writes [p, p+n) without a fault: 1 if it could.
static int kernel_can_use(char *p, size_t n) {
  int fd = open("/dev/null", O_WRONLY);
  long w = syscall(SYS_write, fd, p, n);
  close(fd);
  fd = open("/dev/zero", O_RDONLY);
  char keep[64];
  memcpy(keep, p, n < sizeof keep ? n : sizeof keep);
  long r = syscall(SYS_read, fd, p, n);
  memcpy(p, keep, n < sizeof keep ? n : sizeof keep);
  close(fd);
  return w == (long)n && r == (long)n;
}

static long armed_after(char *base, size_t npages, void *p1, size_t l1,
                        void *p2, size_t l2) {
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(p1, l1) == 0, "request 1");
  if (p2)
    NT_CHECK(kmp_nexttouch(p2, l2) == 0, "request 2");
  long armed = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    armed = (long)nt_counters().pages_armed;
  }
  return armed;
}

int main(void) {
  pg = nt_pagesize();
  enum { N = 6 };
  char *b = nt_map(N * pg);
  memset(b, 7, N * pg);

  // edges: [100, 4 pages - 100): pages 1 and 2 are whole; 0 and 3 shared
  // with the program's "path" and "status" bytes.
  char *path = b + 16, *tail = b + 4 * pg - 64;
  strcpy(path, "/");
  long armed = armed_after(b, N, b + 100, 4 * pg - 200, NULL, 0);
  NT_CHECK(armed == 2, "edges: %ld pages armed", armed);
  NT_CHECK(kernel_can_use(path, 32) && kernel_can_use(tail, 32),
           "edges: the kernel cannot use the shared pages");
  struct stat st;
  NT_CHECK(stat(path, &st) == 0, "edges: stat: errno %d", errno);
  NT_CHECK(b[pg + 5] == 7 && b[2 * pg + 5] == 7, "edges: data");
  kmp_nexttouch_disarm(NULL, 0);

  // adjacent: [100, 2.5 pages) and [2.5 pages, 4 pages - 100) cover pages
  // 1 and 2 (page 2 only together).
  armed = armed_after(b, N, b + 100, 2 * pg + pg / 2 - 100, b + 2 * pg + pg / 2,
                      pg + pg / 2 - 100);
  NT_CHECK(armed == 2, "adjacent: %ld pages armed", armed);
  NT_CHECK(kernel_can_use(path, 32), "adjacent: the first page");
  kmp_nexttouch_disarm(NULL, 0);

  // small: inside page 4.
  armed = armed_after(b, N, b + 4 * pg + 10, pg - 20, NULL, 0);
  NT_CHECK(armed == 0, "small: %ld pages armed", armed);
  NT_CHECK(kernel_can_use(b + 4 * pg + 10, 32), "small: the page");
  for (int i = 0; i < N; i++)
    NT_CHECK(b[i * pg + 40] == 7, "page %d", i);
  return nt_done("partial_pages");
}
