// fork(2) while a readonly region runs (host, KMP_READONLY_FORCE=1): the
// region does not exist in the child, whose memory is its own.  The child
// writes the item through the original and through the replica pointer it
// had in the region, reads back what it wrote, ends the region's handle and
// starts a region of its own that reads its new data; the parent's item and
// region are unchanged.  Forked from serial code between
// kmp_readonly_begin and _end, and from a thread of a team.
// Each case runs in a child of a process that never entered libomp.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_fork: PASS
#include "nexttouch_test.h"
#include <sys/wait.h>

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

// In the child: x is the item, q the pointer the region gave.
static int child_writes(char *x, char *q) {
  alarm(60);
  x[3 * pg] = 5;
  q[4 * pg] = 6;
  x[8 * pg + 17] = 7;
  return x[3 * pg] == 5 && q[4 * pg] == 6 && x[8 * pg + 17] == 7;
}

static int wait_ok(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %#x (%s %d)",
           st, WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void from_serial(void) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  const void *p = x;
  size_t len = 16 * pg;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
  char *q = (char *)kmp_readonly_ptr(h, 0);
  NT_CHECK(q != x, "replicated");
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int ok = child_writes(x, q);
    ok &= kmp_readonly_end(h) == 0;
    ok &= region_sum(x, 16 * pg) == 16 * pg + 4 + 6;
    _exit(ok && !nt_failures ? 0 : 3);
  }
  wait_ok(pid);
  NT_CHECK(x[3 * pg] == 1 && q[4 * pg] == 1, "the parent's item and replica");
  NT_CHECK(kmp_readonly_end(h) == 0, "end");
  NT_CHECK(region_sum(x, 16 * pg) == 16 * pg, "the parent's data");
}

static void from_team(void) {
  char *x = nt_map(16 * pg);
  memset(x, 1, 16 * pg);
  const void *p = x;
  size_t len = 16 * pg;
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
#pragma omp parallel num_threads(2)
  {
    char *q = (char *)kmp_readonly_ptr(h, 0);
#pragma omp single
    {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0)
        _exit(child_writes(x, q) ? 0 : 3);
      wait_ok(pid);
      NT_CHECK(x[3 * pg] == 1 && q[4 * pg] == 1,
               "the parent's item and replica");
    }
  }
  NT_CHECK(kmp_readonly_end(h) == 0, "end");
  NT_CHECK(region_sum(x, 16 * pg) == 16 * pg, "the parent's data");
}

static void run(const char *name, void (*f)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(120);
    f();
    _exit(nt_failures ? 3 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x (%s %d)",
           name, st, WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(void) {
  pg = nt_pagesize();
  run("fork from serial code in a region", from_serial);
  run("fork from a thread of the team", from_team);
  return nt_done("readonly_fork");
}
