// A write to a list item of the clause 'readonly(list)' inside its region
// stops the program with one message that names the item as written in the
// source and the construct's location (file, line, column, function), then
// SIGABRT.  Compiled by our Clang from the clause, without debug
// information: Clang gives the clause's ident_t its location anyway.
//   region    a worker writes the global array through the item's variable
//             (KMP_READONLY_FORCE: it designates the thread's replica)
//   call      a worker calls a function that writes the global (the
//             original: a called function is not redirected)
//   pointer   a worker writes through the pointer of 'p : n'
//   unforced  one node, no replica: the original, still trapped
//   status    the exit status is death by SIGABRT (in a child process)
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run region 2>&1 | FileCheck %s --check-prefixes=TRAP,G,REPL
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run call 2>&1 | FileCheck %s --check-prefixes=TRAP,G,ORIG
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run pointer 2>&1 | FileCheck %s --check-prefixes=TRAP,P,REPL
// RUN: env OMP_NUM_THREADS=2 %not --crash %libomp-run unforced 2>&1 | FileCheck %s --check-prefixes=TRAP,G,ORIG
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run status 2>&1 | FileCheck %s --check-prefix=STATUS
// REQUIRES: linux
//
// STATUS: readonly_clause_write status: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

enum { NG = 4096, NP = 10000 };
static double G[NG];

__attribute__((noinline)) static void poke(void) { G[NG / 2] = 1; }

static double region(const char *mode, double *p, int n) {
  double s = 0;
  // TRAP: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_clause_write.c:[[@LINE+8]]:1 (region): list item
  // G-SAME: 0 'G' (0x{{[0-9a-f]+}}, 32768 bytes) was written (address 0x{{[0-9a-f]+}}
  // P-SAME: 1 'p : n' (0x{{[0-9a-f]+}}, 80000 bytes) was written (address 0x{{[0-9a-f]+}}
  // ORIG-NOT: replica
  // REPL-SAME: in its replica on node 0
  // TRAP-SAME: , OS thread {{[0-9]+}}) while the region may only read it.
  // TRAP-NEXT: OMP: Hint KMP_READONLY_WRITES=warn
  // TRAP-NOT: NOT REACHED
#pragma omp parallel readonly(G, p : n) reduction(+ : s)
  {
    for (int i = 0; i < NG; i++)
      s += G[i];
#pragma omp barrier
    if (omp_get_thread_num() == 1) {
      if (!strcmp(mode, "call"))
        poke();
      else if (!strcmp(mode, "pointer"))
        p[n / 2] = 2;
      else
        G[NG / 2] = 1; // a page of G's own (the first and last are shared)
    }
#pragma omp barrier
  }
  return s;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "region";
  double *p = (double *)nt_map(NP * sizeof(double));
  for (int i = 0; i < NG; i++)
    G[i] = i % 3;
  if (!strcmp(mode, "status")) {
    fflush(stdout);
    pid_t pid = fork(); // libomp is not started yet in the parent
    if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 2);
      region("region", p, NP);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %#x", st);
    return nt_done("readonly_clause_write status");
  }
  region(mode, p, NP);
  printf("NOT REACHED\n");
  return 0;
}
