// Where the kernel has written bits (Linux 6.7: userfaultfd's asynchronous
// write protection and PAGEMAP_SCAN), a write to a cached readonly item that
// nothing traps is found at the next region start, and every thread then
// reads the current content (host, KMP_READONLY_FORCE=1: real replicas):
//  - a raw pwrite64 system call to /proc/self/mem (no wrapper sees it; the
//    kernel writes whatever the protection) into a write-protected chunk;
//  - another process writing through /proc/<pid>/mem, into a chunk and into
//    an item's bytes on a page it shares with other data;
//  - a raw read(2) into an item's bytes on a shared page;
//  - a serial write to an item's bytes on a page a new item then shares;
//  - in a fork() child, whose memory the bits do not track: a raw write made
//    just before the fork is seen (the copies are made again), a program
//    write is seen (the fault path), the parent's items and the child's own
//    new ones are tracked again (a raw write of the child's is seen, and a
//    list of unchanged items is served as it was).
// Before Linux 6.7 (the test asks the kernel as the runtime does), and with
// KMP_READONLY_WRITTEN_BITS=false, the raw write is not seen: the replica
// keeps the old content, as the guide says.  On the host and in the 2-node
// guest (every kernel make check boots), where a kernel from 6.7 on must
// have the bits (Debian's are built with userfaultfd).
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run auto \
// RUN:   | FileCheck %s
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   KMP_READONLY_WRITTEN_BITS=false %libomp-run off | FileCheck %s
// RUN: %numa-vm --nodes 2 --cpus 2 -- env KMP_READONLY_FORCE=1 \
// RUN:   OMP_NUM_THREADS=2 %t auto guest | FileCheck %s
// REQUIRES: linux, numa-vm
// CHECK: readonly_written_bits: PASS
#define _GNU_SOURCE
#include "nexttouch_test.h"
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum { P = 64 };
static long pg;

static long raw_pwrite(int fd, const void *b, size_t n, uintptr_t off) {
  return syscall(SYS_pwrite64, fd, b, n, (long)off);
}

// Write n bytes of v at p of the process pid through its /proc/<pid>/mem,
// from another process.
static void other_process_writes(pid_t pid, char *p, size_t n, char v) {
  pid_t c = fork();
  NT_CHECK(c >= 0, "fork");
  if (c == 0) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    memset(buf, v, sizeof buf);
    int fd = open(path, O_RDWR);
    _exit(fd < 0 || n > sizeof buf ||
                  raw_pwrite(fd, buf, n, (uintptr_t)p) != (long)n
              ? 1
              : 0);
  }
  int st;
  NT_CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "the other process wrote");
}

int main(int argc, char **argv) {
  int on = argc > 1 && !strcmp(argv[1], "auto") && nt_kernel_has_written_bits();
  struct utsname u;
  int major = 0, minor = 0;
  NT_CHECK(uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2,
           "uname");
  printf("kernel %s %s written bits\n", u.release, on ? "with" : "without");
  if (argc > 2 && !strcmp(argv[2], "guest") &&
      (major > 6 || (major == 6 && minor >= 7)))
    NT_CHECK(on, "Linux %s has no written bits", u.release);
  pg = nt_pagesize();
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY); // Yama: let a child write
  int mem = open("/proc/self/mem", O_RDWR);
  NT_CHECK(mem >= 0, "open /proc/self/mem");

  // A mapping of its own: every page protected between regions.
  char *a = nt_map(P * pg);
  memset(a, 1, P * pg);
  int rep = 0;
  NT_CHECK(nt_ro_region_sum(a, P * pg, &rep) == 1L * P * pg && rep,
           "cached with replicas");
  char v = 3;
  NT_CHECK(raw_pwrite(mem, &v, 1, (uintptr_t)(a + 40 * pg + 5)) == 1,
           "raw pwrite64 to /proc/self/mem");
  long want = on ? 1L * P * pg + 2 : 1L * P * pg;
  long got = nt_ro_region_sum(a, P * pg, NULL);
  NT_CHECK(got == want, "after a raw write (%s): %ld, want %ld",
           on ? "seen" : "not seen without the bits", got, want);
  if (!on) {
    close(mem);
    return nt_done("readonly_written_bits");
  }

  // Another process, into a chunk.
  other_process_writes(getpid(), a + 3 * pg, 100, 2);
  want += 100;
  got = nt_ro_region_sum(a, P * pg, NULL);
  NT_CHECK(got == want, "after another process: %ld, want %ld", got, want);

  // An item that shares its first and last pages with other data.
  char *b = nt_map(8 * pg);
  memset(b, 1, 8 * pg);
  char *item = b + pg / 2;
  size_t len = 6 * pg;
  want = (long)len;
  NT_CHECK(nt_ro_region_sum(item, len, &rep) == want && rep, "edged item");
  b[10] = 9; // its neighbour on the first page: not the item
  NT_CHECK(nt_ro_region_sum(item, len, NULL) == want, "neighbour written");
  other_process_writes(getpid(), item + 8, 16, 4); // its bytes, first page
  want += 16 * 3;
  got = nt_ro_region_sum(item, len, NULL);
  NT_CHECK(got == want, "after another process on an edge: %ld, want %ld", got,
           want);
  int zero = open("/dev/zero", O_RDONLY);
  NT_CHECK(syscall(SYS_read, zero, item + len - 4, 4) == 4, "raw read");
  want -= 4;
  got = nt_ro_region_sum(item, len, NULL);
  NT_CHECK(got == want, "after a raw read on the last edge: %ld, want %ld", got,
           want);

  // A new item on the item's last page: tracking it does not forget the
  // write to the item's bytes there, not scanned yet.
  item[len - 1] = 7;
  want += 7;
  char *next = item + len + 100;
  NT_CHECK(nt_ro_region_sum(next, pg, NULL) == pg, "the neighbour item");
  got = nt_ro_region_sum(item, len, NULL);
  NT_CHECK(got == want, "after a neighbour was tracked: %ld, want %ld", got,
           want);

  // A fork() child: the parent's tracking is not inherited.  A raw write
  // just before the fork, not asked about yet: the parent's bits hold it,
  // the child cannot ask them, and its copies are made again.
  NT_CHECK(raw_pwrite(mem, &v, 1, (uintptr_t)(a + 50 * pg)) == 1, "pwrite");
  pid_t c = fork();
  NT_CHECK(c >= 0, "fork");
  if (c == 0) {
    long w = 1L * P * pg + 2 + 100 + 2;
    a[7 * pg] = 5; // a program write: the fault path sees it
    w += 4;
    long g = nt_ro_region_sum(a, P * pg, NULL);
    if (g != w)
      _exit(2);
    // The parent's item is tracked again here: a raw write of the child's is
    // seen, and the item's list is served as it was when nothing changed.
    int cm = open("/proc/self/mem", O_RDWR);
    if (cm < 0 || raw_pwrite(cm, &v, 1, (uintptr_t)(a + 20 * pg)) != 1)
      _exit(6);
    w += 2;
    if (nt_ro_region_sum(a, P * pg, NULL) != w)
      _exit(7);
    kmp_nexttouch_counters_t c0 = nt_counters();
    for (int k = 0; k < 3; k++)
      if (nt_ro_region_sum(a, P * pg, NULL) != w)
        _exit(8);
    if (nt_counters().readonly_lists_reused == c0.readonly_lists_reused)
      _exit(9);
    char *d = nt_map(4 * pg); // a new item of the child's
    memset(d, 1, 4 * pg);
    if (nt_ro_region_sum(d, 4 * pg, NULL) != 4 * pg)
      _exit(3);
    int m = open("/proc/self/mem", O_RDWR);
    if (m < 0 || raw_pwrite(m, &v, 1, (uintptr_t)(d + pg)) != 1)
      _exit(4);
    _exit(nt_ro_region_sum(d, 4 * pg, NULL) == 4 * pg + 2 ? 0 : 5);
  }
  int st;
  NT_CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "fork child: status %d", st);
  // The parent still tracks its items.
  NT_CHECK(raw_pwrite(mem, &v, 1, (uintptr_t)(a + 60 * pg)) == 1, "pwrite");
  want = 1L * P * pg + 2 + 100 + 2 + 2;
  got = nt_ro_region_sum(a, P * pg, NULL);
  NT_CHECK(got == want, "parent after the fork: %ld, want %ld", got, want);

  close(zero);
  close(mem);
  return nt_done("readonly_written_bits");
}
