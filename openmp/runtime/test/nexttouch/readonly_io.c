// System calls that write into cached readonly items (host,
// KMP_READONLY_FORCE=1), through libomp's I/O wrappers:
//  - between regions they work as without the runtime: the program frees
//    a heap block that was an item, mallocs the same size again (the same
//    address) and read(2)s and fread(3)s a file into it; the next region
//    reads the new data;
//  - in a region that lists the item, a read(2) into it (from its first
//    bytes, on a page it shares with other data, over its protected pages)
//    fails with EFAULT and writes no byte of the item; the data stays in
//    the pipe.
// Under ASan (make check-sanitizers), whose allocator keeps a freed block
// in quarantine, malloc() does not give the block back: the calls then
// write into the cached item itself.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_io: PASS
#include "nexttouch_test.h"

enum { BYTES = 100 * 1024 }; // below malloc's mmap threshold: in the heap
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NT_ASAN 1
#endif
#endif
static long pg;

static long region_sum(const char *p, size_t len) {
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, (const void **)&p, &len, NULL, &h) == 0,
           "begin %p", (void *)p);
  long s = 0;
#pragma omp parallel reduction(+ : s)
  {
    const char *q = kmp_readonly_ptr(h, 0);
    if (omp_get_thread_num() == 0)
      for (size_t i = 0; i < len; i++)
        s += q[i];
  }
  kmp_readonly_end(h);
  return s;
}

static FILE *file_of(char c) {
  FILE *f = tmpfile();
  NT_CHECK(f != NULL, "tmpfile");
  char *b = malloc(BYTES);
  memset(b, c, BYTES);
  NT_CHECK(fwrite(b, 1, BYTES, f) == BYTES && fflush(f) == 0, "fwrite");
  free(b);
  rewind(f);
  return f;
}

static void free_malloc_read(void) {
  char *p = malloc(BYTES);
  memset(p, 1, BYTES);
  NT_CHECK(region_sum(p, BYTES) == BYTES, "first");
#ifdef NT_ASAN
  char *q = p;
#else
  free(p);
  char *q = malloc(BYTES);
  NT_CHECK(q == p, "malloc gave %p, not %p (the test needs the same block)",
           (void *)q, (void *)p);
#endif
  FILE *f = file_of(2);
  ssize_t n = read(fileno(f), q, BYTES);
  NT_CHECK(n == BYTES, "read(2) into the new block: %zd (%s)", n,
           n < 0 ? strerror(errno) : "");
  NT_CHECK(region_sum(q, BYTES) == 2 * BYTES, "the data read");
  fclose(f);
  f = file_of(3);
  size_t k = fread(q, 1, BYTES, f);
  NT_CHECK(k == BYTES, "fread(3) into it: %zu", k);
  NT_CHECK(region_sum(q, BYTES) == 3 * BYTES, "the data fread");
  fclose(f);
  free(q);
}

static void in_region(void) {
  char *m = nt_map(16 * pg);
  memset(m, 1, 16 * pg);
  char *item = m + pg - 64; // 64 bytes on a shared page, then whole pages
  size_t len = 8 * pg;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, (const void **)&item, &len, NULL, &h) == 0,
           "begin");
  int fds[2];
  NT_CHECK(pipe(fds) == 0, "pipe");
  static char data[2 * 4096];
  memset(data, 'z', sizeof data);
  NT_CHECK(write(fds[1], data, sizeof data) == (ssize_t)sizeof data, "write");
  ssize_t n = 0;
  int err = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    errno = 0;
    n = read(fds[0], item, sizeof data);
    err = errno;
  }
  kmp_readonly_end(h);
  int changed = 0;
  for (size_t i = 0; i < len; i++)
    changed += item[i] != 1;
  NT_CHECK(n == -1 && err == EFAULT, "read(2) in the region: %zd (%s)", n,
           strerror(err));
  NT_CHECK(changed == 0, "%d bytes of the item written", changed);
  NT_CHECK(kmp_readonly_release(item, len) == 0, "release");
  n = read(fds[0], item, sizeof data);
  NT_CHECK(n == (ssize_t)sizeof data && item[0] == 'z',
           "the data is still in the pipe: %zd", n);
  close(fds[0]);
  close(fds[1]);
}

int main(void) {
  pg = nt_pagesize();
  free_malloc_read();
  in_region();
  return nt_done("readonly_io");
}
