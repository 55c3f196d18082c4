// A range freed between its request and the fork that arms it: malloc 64 MB
// (its own mapping), kmp_nexttouch it, free it (munmap), then a region with
// many threads.  The kernel puts the new workers' stacks (and whatever else
// libomp maps for them) into the hole, so the pending range now covers them.
// Arming must skip what is unmapped (fail_arm) and must never arm a libomp
// thread's stack -- a thread whose stack (with its TLS at the top) is armed
// cannot even run the fault handler.  Checked: the process survives, the
// counters show fail_arm or nothing armed, and no page of any thread's stack
// is PROT_NONE during the region (/proc/self/maps, guard pages aside) or
// still armed after it (kmp_nexttouch_disarm on each stack disarms nothing).
// Each attempt runs in a fresh process (the workers are new at the fork
// that arms): a cold start with 32 threads, and a warm start (8 workers
// exist already, 24 are new).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_STACKSIZE=1m \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers' free() does not unmap the buffer as glibc's does.)
// CHECK: freed_range: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#define U(x) ((unsigned long long)(x))

enum { T = 32, ATTEMPTS = 6, TIMEOUT = 60 };

struct range {
  unsigned long lo, hi, guard;
};

static int scenario(int warm) {
  long pg = nt_pagesize();
  if (warm) {
    int n = 0;
#pragma omp parallel num_threads(8) reduction(+ : n)
    n++;
  }
  size_t len = 64 << 20;
  char *p = (char *)malloc(len);
  NT_CHECK(p != NULL, "malloc");
  memset(p, 1, len);
  NT_CHECK(kmp_nexttouch(p, len) == 0, "request");
  free(p);
  kmp_nexttouch_counters_t c0 = nt_counters();
  static struct range stacks[T];
  int in_stack = 0, nth = 0;
#pragma omp parallel num_threads(T)
  {
    int tid = omp_get_thread_num();
    // Work on the stack.
    volatile char buf[32 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 512)
      buf[i] = (char)i;
    pthread_attr_t attr;
    void *st;
    size_t sz, guard = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &st, &sz) == 0) {
        pthread_attr_getguardsize(&attr, &guard);
        stacks[tid].lo = (unsigned long)st;
        stacks[tid].hi = (unsigned long)st + sz;
        stacks[tid].guard = guard;
      }
      pthread_attr_destroy(&attr);
    }
#pragma omp barrier
#pragma omp single
    {
      nth = omp_get_num_threads();
      // PROT_NONE VMAs inside a stack (above its guard, and not the main
      // thread's [stack], whose range pthread reports from the rlimit).
      FILE *f = fopen("/proc/self/maps", "r");
      char line[512], perm[8];
      unsigned long lo, hi;
      while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 ||
            strncmp(perm, "---", 3) || strstr(line, "[stack]"))
          continue;
        for (int t = 1; t < nth; t++)
          if (lo < stacks[t].hi && hi > stacks[t].lo + stacks[t].guard) {
            printf("thread %d's stack %lx-%lx: PROT_NONE at %lx-%lx\n", t,
                   stacks[t].lo, stacks[t].hi, lo, hi);
            in_stack++;
          }
      }
      if (f)
        fclose(f);
    }
    for (size_t i = 0; i < sizeof buf; i += 512)
      if (buf[i] != (char)i)
        NT_CHECK(0, "thread %d: stack data", tid);
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(nth == T, "team of %d", nth);
  NT_CHECK(in_stack == 0, "%d armed pieces in thread stacks", in_stack);
  NT_CHECK(c1.pages_armed - c0.pages_armed == 0 ||
               c1.fail_arm - c0.fail_arm > 0,
           "armed %llu, fail_arm %llu", U(c1.pages_armed - c0.pages_armed),
           U(c1.fail_arm - c0.fail_arm));
  // What is still armed in any worker's stack is disarmed here: nothing.
  for (int t = 1; t < nth; t++)
    if (stacks[t].hi)
      kmp_nexttouch_disarm((void *)stacks[t].lo, stacks[t].hi - stacks[t].lo);
  kmp_nexttouch_counters_t c2 = nt_counters();
  NT_CHECK(c2.pages_disarmed == c1.pages_disarmed,
           "%llu stack pages were still armed",
           U(c2.pages_disarmed - c1.pages_disarmed));
  printf("%s: armed %llu, fail_arm %llu, faults %llu\n", warm ? "warm" : "cold",
         U(c1.pages_armed - c0.pages_armed), U(c1.fail_arm - c0.fail_arm),
         U(c1.faults - c0.faults));
  // Another region with every thread: still alive.
  int n = 0;
#pragma omp parallel num_threads(T) reduction(+ : n)
  n++;
  NT_CHECK(n == T, "second region: %d", n);
  return nt_failures != 0;
}

int main(int argc, char **argv) {
  if (argc > 1) // one attempt, in this process: "cold" or "warm"
    return scenario(!strcmp(argv[1], "warm")) || nt_done("freed_range");
  // The parent never starts libomp: each attempt is a fresh runtime.
  for (int i = 0; i < 2 * ATTEMPTS; i++) {
    int warm = i % 2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(TIMEOUT);
      nt_failures = 0;
      int rc = scenario(warm);
      fflush(stdout);
      _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
      NT_CHECK(0, "attempt %d (%s): %s %d", i, warm ? "warm" : "cold",
               WIFSIGNALED(st) ? "killed by signal" : "exit status",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  }
  return nt_done("freed_range");
}
