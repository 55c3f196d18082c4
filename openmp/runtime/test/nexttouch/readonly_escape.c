// A pointer into a readonly list item taken in its region (best = &a[i])
// and used after it: it either works and reads the current data, or the
// program stops with a message that names the item and the rule -- never
// stale data, never a plain SIGSEGV.  With replicas (KMP_READONLY_FORCE)
// such a pointer may point into the thread's node's copy: the parts of it
// the program wrote since are inaccessible (and between regions the pages
// that hold bytes of an item that shares pages with other data), and a
// dropped copy's addresses stay reserved.
//   stale     used after the region, after a write to the item: stopped
//   unchanged used after the region, nothing written: reads the data
//   heap      an item on the heap (shares its first and last page), used
//             after the region on its first page: stopped
//   heapmid   the same, in the middle of the item, nothing written: reads
//             the data (the pages it covers whole stay readable)
//   heapmidw  the same after a write there: stopped
//   filemid   an item in a read-only file mapping that shares its first
//             page, a pointer into its middle; the file is written while
//             the region runs (the kernel changes the item unseen): stopped
//   stack     an array on the stack (not protected between regions, so
//             written unseen), used after the region: stopped
//   dropped   used after kmp_readonly_release dropped the copy: stopped
//   write     a write through it after the region: stopped
//   writenew  a write through it after the region, the item unchanged (the
//             copy open and current): stopped, with the same message
//   again    used inside a later region that lists the item again, after a
//            serial write: reads the current value
//   home     no replica (one node, not forced): a pointer into the
//            original, current after the region
//   status   the exit status of "stale" is death by SIGABRT (a child)
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run stale 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run unchanged 2>&1 | FileCheck %s --check-prefix=UNCHANGED
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run heap 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run heapmid 2>&1 | FileCheck %s --check-prefix=HEAPMID
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run heapmidw 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run filemid 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run stack 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run dropped 2>&1 | FileCheck %s --check-prefixes=TRAP,DROPPED
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run write 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run writenew 2>&1 | FileCheck %s --check-prefixes=TRAP,STALE
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run again 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: env OMP_NUM_THREADS=2 %libomp-run home 2>&1 | FileCheck %s --check-prefix=HOME
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run status 2>&1 | FileCheck %s --check-prefix=STATUS
// REQUIRES: linux
//
// TRAP: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_escape.c:{{[0-9]+}}:{{[0-9]+}} (region): list item 0 'a[0:n]' (0x{{[0-9a-f]+}}, 409600 bytes) was used through a pointer into
// STALE-SAME: its copy (address 0x{{[0-9a-f]+}} in its replica on node 0, OS thread {{[0-9]+}}) after the region ended.
// DROPPED-SAME: a copy of it (address 0x{{[0-9a-f]+}} in its replica on node 0, OS thread {{[0-9]+}}) after the copy was dropped.
// TRAP-NEXT: OMP: Hint A pointer into a readonly list item taken in the region
// TRAP-NOT: NOT REACHED
// STACK: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_escape.c:{{[0-9]+}}:{{[0-9]+}} (on_stack): list item 0 's' {{.*}} after the region ended.
// STACK-NOT: NOT REACHED
//
// UNCHANGED: readonly_escape unchanged: PASS
// HEAPMID: readonly_escape heapmid: PASS
// AGAIN: readonly_escape again: PASS
// HOME: readonly_escape home: PASS
// STATUS: readonly_escape status: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>

enum { N = 51200 };
static double *a;
static long kept = 5; // the element whose address thread 0 keeps
static int file_fd = -1; // filemid: the file behind a (a[i] at (i + 1) * 8)
static unsigned long long migrated0; // pgmigrate_success at the start

// The kernel's page migrations so far (/proc/vmstat pgmigrate_success).
static unsigned long long migrations(void) {
  FILE *f = fopen("/proc/vmstat", "r");
  char name[64];
  unsigned long long v, n = 0;
  while (f && fscanf(f, "%63s %llu", name, &v) == 2)
    if (!strcmp(name, "pgmigrate_success"))
      n = v;
  if (f)
    fclose(f);
  return n;
}

// The /proc/self/pagemap entry of the page at p (0 if it cannot be read).
static unsigned long long pagemap_entry(const void *p) {
  unsigned long long e = 0;
  int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd >= 0) {
    off_t off = (off_t)((uintptr_t)p / sysconf(_SC_PAGESIZE)) * sizeof e;
    if (pread(fd, &e, sizeof e, off) != sizeof e)
      e = 0;
    close(fd);
  }
  return e;
}

// The address of a[kept] as thread 0 of a region listing a saw it, and the sum
// the region read.
static double *region(double *seen) {
  double *best = NULL;
  long n = N;
  double sum = 0;
#pragma omp parallel num_threads(2) readonly(a[0 : n]) reduction(+ : sum)
  {
    if (omp_get_thread_num() == 0) {
      best = &a[kept];
      if (file_fd >= 0) { // the item changes while the region reads it
        double v = 9;
        NT_CHECK(pwrite(file_fd, &v, sizeof v, (kept + 1) * sizeof v) ==
                     sizeof v,
                 "pwrite");
      }
    }
    sum += a[omp_get_thread_num()];
  }
  if (seen)
    *seen = sum;
  return best;
}

// An array on this thread's stack, listed by a region; a pointer into it
// kept, the array written after the region, then read through the pointer.
static void on_stack(void) {
  double s[512] __attribute__((aligned(4096))); // whole pages: no edges
  double *best = NULL;
  for (int i = 0; i < 512; i++)
    s[i] = i;
#pragma omp parallel num_threads(2) readonly(s)
  {
    if (omp_get_thread_num() == 0)
      best = &s[5];
  }
  s[5] = 3;
  printf("read %g\n", *best);
  printf("NOT REACHED\n");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "stale";
  migrated0 = migrations();
  if (!strcmp(mode, "stack")) {
    on_stack();
    return 0;
  }
  // "heap": not page-aligned whatever the allocator gives (a sanitizer's
  // may give whole pages).
  int heap = !strncmp(mode, "heap", 4), file = !strcmp(mode, "filemid");
  if (file) {
    char path[] = "/tmp/readonly_escape.XXXXXX";
    file_fd = mkstemp(path);
    NT_CHECK(file_fd >= 0, "mkstemp");
    unlink(path);
    for (long i = 0; i < N + 1; i++) {
      double v = i ? (i - 1) % 7 : 0;
      NT_CHECK(write(file_fd, &v, sizeof v) == sizeof v, "write");
    }
    void *m = mmap(NULL, (N + 1) * sizeof(double), PROT_READ, MAP_PRIVATE,
                   file_fd, 0);
    NT_CHECK(m != MAP_FAILED, "mmap");
    a = (double *)m + 1;
  } else {
    a = heap ? (double *)malloc((N + 1) * sizeof(double)) + 1
             : (double *)nt_map(N * sizeof(double));
  }
  if (!strncmp(mode, "heapmid", 7) || file)
    kept = N / 2;
  for (long i = 0; i < N && !file; i++)
    a[i] = i % 7;
  if (!strcmp(mode, "status")) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      double *p = region(NULL);
      a[5] = 3;
      printf("%g\n", *p);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %d", st);
    return nt_done("readonly_escape status");
  }
  double *p = region(NULL);
  if (!strcmp(mode, "again") || !strcmp(mode, "home")) {
    a[5] = 11; // a serial write between regions
    double *q = NULL;
    if (!strcmp(mode, "again")) {
      // Inside a region that lists the item again the copy is current.
      double got = 0;
      long n = N;
#pragma omp parallel num_threads(2) readonly(a[0 : n])
      {
#pragma omp master
        got = *p;
      }
      NT_CHECK(got == 11, "read %g through the kept pointer, want 11", got);
    } else {
      q = region(NULL);
      NT_CHECK(p == q && p == &a[5], "no replica: pointers into the original");
      NT_CHECK(*p == 11, "read %g, want 11", *p);
    }
    return nt_done(!strcmp(mode, "again") ? "readonly_escape again"
                                          : "readonly_escape home");
  }
  NT_CHECK(p != &a[kept], "forced: thread 0 read a replica");
  if (!strcmp(mode, "unchanged") || !strcmp(mode, "heapmid")) {
    NT_CHECK(*p == kept % 7, "read %g through the kept pointer, want %ld", *p,
             kept % 7);
    return nt_done(!strcmp(mode, "heapmid") ? "readonly_escape heapmid"
                                            : "readonly_escape unchanged");
  }
  if (strcmp(mode, "heap") && strcmp(mode, "writenew") && !file)
    a[kept] = 3; // the original changes: the copy would be stale
  if (!strcmp(mode, "dropped"))
    NT_CHECK(kmp_readonly_release(a, N * sizeof(double)) == 0, "release");
  if (!strcmp(mode, "write") || !strcmp(mode, "writenew"))
    *p = 4;
  else
    printf("read %g\n", *p);
  // Reached only on failure: what the runtime and the kernel saw, for the
  // report.  The original's value says whether the write landed; its page's
  // pagemap entry (bit 57: userfaultfd write-protected, 56: exclusive, 55:
  // soft-dirty), and the migrations since the start, whether the kernel
  // moved or changed the page meanwhile.
  kmp_nexttouch_counters_t c = nt_counters();
  fprintf(stderr,
          "NOT REACHED: serial writes %llu, replicas %llu, lists reused %llu, "
          "dropped %llu; original prot %d value %g pagemap %#llx, copy prot "
          "%d; migrations %llu\n",
          (unsigned long long)c.readonly_serial_writes,
          (unsigned long long)c.readonly_replicas,
          (unsigned long long)c.readonly_lists_reused,
          (unsigned long long)c.readonly_dropped, nt_maps_prot(&a[kept]),
          a[kept], (unsigned long long)pagemap_entry(&a[kept]), nt_maps_prot(p),
          (unsigned long long)(migrations() - migrated0));
  printf("NOT REACHED\n");
  return 0;
}
