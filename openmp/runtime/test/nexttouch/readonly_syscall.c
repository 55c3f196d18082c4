// System calls that write into readonly list items, and genuine faults.
//  - read(2) into an item inside its region: the call fails with EFAULT and
//    the item is unchanged.  Between regions (the item stays
//    write-protected while it is cached) libomp's read() opens its pages
//    first and the call works; a raw syscall(SYS_read), which no wrapper
//    sees, fails with EFAULT.  After kmp_readonly_release() both work.
//  - A genuine fault still kills the program with SIGSEGV: a NULL write in
//    a region with protected items; a write to a read-only (const) item
//    outside its region; the program's own PROT_NONE page where a cached
//    item was unmapped.  Each case runs in a child process.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_syscall: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>

static volatile int *volatile null_ptr;
static const double table[8192] = {1, 2, 3}; // .rodata: 64 KB

static kmp_readonly_t begin1(const void *p, size_t len) {
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
  return h;
}

static void io(void) {
  long pg = nt_pagesize();
  char *buf = nt_map(8 * pg);
  memset(buf, 'a', 8 * pg);
  int fds[2];
  NT_CHECK(pipe(fds) == 0, "pipe");
  kmp_readonly_t h = begin1(buf, 8 * pg);
  int in_region = 0, err = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    NT_CHECK(write(fds[1], "xyz", 3) == 3, "write");
    errno = 0;
    in_region = (int)read(fds[0], buf + 2 * pg, 3);
    err = errno;
  }
  kmp_readonly_end(h);
  NT_CHECK(in_region == -1 && err == EFAULT && buf[2 * pg] == 'a',
           "read(2) in the region: %d, %s", in_region, strerror(err));
  errno = 0;
  ssize_t between = read(fds[0], buf + 2 * pg, 3);
  NT_CHECK(between == 3 && !memcmp(buf + 2 * pg, "xyz", 3),
           "read(2) between regions: %zd, %s", between, strerror(errno));
  // A later region protects the page again; a raw system call is not seen.
  kmp_readonly_end(begin1(buf, 8 * pg));
  NT_CHECK(write(fds[1], "uvw", 3) == 3, "write");
  errno = 0;
  long raw = syscall(SYS_read, fds[0], buf + 2 * pg, 3);
  NT_CHECK(raw == -1 && errno == EFAULT && buf[2 * pg] == 'x',
           "raw read between regions: %ld, %s", raw, strerror(errno));
  NT_CHECK(kmp_readonly_release(buf, 8 * pg) == 0, "release");
  long after = syscall(SYS_read, fds[0], buf + 2 * pg, 3);
  NT_CHECK(after == 3 && !memcmp(buf + 2 * pg, "uvw", 3),
           "raw read after release: %ld", after);
  close(fds[0]);
  close(fds[1]);
}

// Children: each must die by SIGSEGV.
static void null_in_region(void) {
  long pg = nt_pagesize();
  char *buf = nt_map(8 * pg);
  memset(buf, 1, 8 * pg);
  kmp_readonly_t h = begin1(buf, 8 * pg);
#pragma omp parallel
  {
    if (nt_counters().readonly_items != 1)
      _exit(4); // the engine must be there
#pragma omp barrier
    if (omp_get_thread_num() == 1)
      *null_ptr = 1;
#pragma omp barrier
  }
  kmp_readonly_end(h);
}

static void const_after_region(void) {
  kmp_readonly_t h = begin1(table, sizeof table);
  double s = 0;
#pragma omp parallel reduction(+ : s)
  s += ((const double *)kmp_readonly_ptr(h, 0))[1];
  kmp_readonly_end(h);
  if (s != 2 * omp_get_max_threads() || nt_counters().readonly_items != 1)
    _exit(4);
  ((volatile double *)table)[4096] = 1; // SEGV_ACCERR on the original
}

static void guard_where_item_was(void) {
  long pg = nt_pagesize();
  char *buf = nt_map(8 * pg);
  memset(buf, 1, 8 * pg);
  kmp_readonly_t h = begin1(buf, 8 * pg);
#pragma omp parallel
  ;
  kmp_readonly_end(h);
  munmap(buf, 8 * pg); // still cached, write-protected until its next use
  char *g = mmap(buf, 8 * pg, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (g != buf)
    _exit(4);
  ((volatile char *)g)[3 * pg] = 1; // the program's guard page
}

static void run(const char *name, void (*f)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0); // not reached if it dies
  }
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "%s: status %#x (%s %d)",
           name, st, WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(void) {
  // The parent never enters libomp before forking.
  run("NULL in a region", null_in_region);
  run("const item written after its region", const_after_region);
  run("PROT_NONE where an item was", guard_where_item_was);
  io();
  return nt_done("readonly_syscall");
}
