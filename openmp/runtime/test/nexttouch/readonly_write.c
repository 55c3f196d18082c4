// A write to a readonly list item inside its region stops the program with
// one message that names the item (its position, its source text, its
// bytes) and the construct (ident_t), and SIGABRT; the list is given the
// way Clang gives it (__kmpc_readonly_begin with a location and names).
//   region    a worker writes the original (KMP_READONLY_FORCE: replicas)
//   replica   a thread writes through its replica pointer
//   nested    a write in nested regions that list the item
//   unforced  one node, no replica: still trapped
//   warn      KMP_READONLY_WRITES=warn: one warning per item, the writes
//             happen, the program goes on
//   serial    writes between regions are allowed
//   status    the exit status is death by SIGABRT (in a child process)
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %not --crash %libomp-run region 2>&1 | FileCheck %s --check-prefixes=TRAP,ORIG
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %not --crash %libomp-run replica 2>&1 | FileCheck %s --check-prefixes=TRAP,REPL
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run nested 2>&1 | FileCheck %s --check-prefixes=TRAP,ORIG
// RUN: env OMP_NUM_THREADS=4 %not --crash %libomp-run unforced 2>&1 | FileCheck %s --check-prefixes=TRAP,ORIG
// RUN: env KMP_READONLY_WRITES=warn KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run warn 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run serial 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run status 2>&1 | FileCheck %s --check-prefix=STATUS
// REQUIRES: linux
//
// TRAP: OMP: Error #{{[0-9]+}}: readonly at readonly_write.c:42:7 (main): list item 1 'data[0 : n]' (0x{{[0-9a-f]+}}, 819200 bytes) was written (address 0x{{[0-9a-f]+}}
// ORIG-NOT: replica
// REPL-SAME: in its replica on node 0
// TRAP-SAME: , OS thread {{[0-9]+}}) while the region may only read it.
// TRAP-NEXT: OMP: Hint KMP_READONLY_WRITES=warn
// TRAP-NOT: NOT REACHED
//
// WARN: OMP: Warning #{{[0-9]+}}: readonly at readonly_write.c:42:7 (main): list item 1 'data[0 : n]' {{.*}} it stays writable from now on.
// WARN-NOT: OMP: Warning
// WARN: readonly_write warn: PASS
// SERIAL: readonly_write serial: PASS
// STATUS: readonly_write status: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

static ident_t loc = {0, 2, 0, 0, ";readonly_write.c;main;42;7;;"};

enum { N = 100 * 1024 }; // 800 KB of doubles
static double small[4];
static double *data;

// A region over (small, data) in which thread `writer` runs f (if any).
static double region(void (*f)(double **), int writer) {
  kmp_memory_range_t items[2] = {{small, 4, sizeof(double)},
                                 {data, N, sizeof(double)}};
  const char *const names[2] = {"small", "data[0 : n]"};
  void *h = __kmpc_readonly_begin(&loc, 0, 2, items, names);
  double s = 0;
#pragma omp parallel reduction(+ : s)
  {
    void **p = __kmpc_readonly_ptrs(&loc, 0, h);
    const double *d = p[1];
#pragma omp for
    for (long i = 0; i < N; i++)
      s += d[i];
#pragma omp barrier
    if (f && omp_get_thread_num() == writer)
      f((double **)p);
#pragma omp barrier
  }
  __kmpc_readonly_end(&loc, 0, h);
  return s;
}

static void write_original(double **p) { data[N / 2] = 1; }
static void write_replica(double **p) { p[1][N / 3] = 1; }
static void write_twice(double **p) {
  data[N / 2] += 1;
  data[N / 4] += 1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "region";
  data = (double *)nt_map(N * sizeof(double));
  double want = 0;
  for (long i = 0; i < N; i++)
    want += data[i] = i % 17;
  if (!strcmp(mode, "region") || !strcmp(mode, "unforced"))
    region(write_original, 1);
  else if (!strcmp(mode, "replica"))
    region(write_replica, 2);
  else if (!strcmp(mode, "nested")) {
    // Each thread of an outer team starts a region that lists the items;
    // thread 1 of the inner teams writes.
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    region(write_original, 1);
  } else if (!strcmp(mode, "warn")) {
    double s1 = region(write_twice, 1), s2 = region(write_twice, 2);
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(s1 == want && s2 == want + 2, "sums %g %g want %g", s1, s2, want);
    NT_CHECK(data[N / 2] == N / 2 % 17 + 2 && data[N / 4] == N / 4 % 17 + 2,
             "the writes happened");
    NT_CHECK(c.readonly_write_traps == 1 && c.readonly_replicas == 0,
             "traps %llu (then writable) replicas %llu",
             (unsigned long long)c.readonly_write_traps,
             (unsigned long long)c.readonly_replicas);
    return nt_done("readonly_write warn");
  } else if (!strcmp(mode, "serial")) {
    double s1 = region(NULL, 0);
    data[N / 2] += 10;
    small[0] = 1;
    double s2 = region(NULL, 0);
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(s1 == want && s2 == want + 10, "sums %g %g", s1, s2);
    NT_CHECK(c.readonly_write_traps == 0 && c.readonly_serial_writes == 1,
             "traps %llu serial %llu",
             (unsigned long long)c.readonly_write_traps,
             (unsigned long long)c.readonly_serial_writes);
    return nt_done("readonly_write serial");
  } else if (!strcmp(mode, "status")) {
    fflush(stdout);
    pid_t pid = fork(); // libomp is not started yet in the parent
    if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 2);
      region(write_original, 1);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %#x", st);
    return nt_done("readonly_write status");
  }
  printf("NOT REACHED\n");
  return 0;
}
