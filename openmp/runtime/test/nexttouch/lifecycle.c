// Next-touch across the program's life: each case runs in a child
// process, so a crash or a hang is seen as such (the parent waits with a
// timeout and reports how the child ended).
//   dynamic: teams of one (num_threads(1), if(0)) are serial code: they do
//            not arm a pending request; then a region under OMP_DYNAMIC
//            (omp_set_dynamic(1)) arms it if its team has more than one
//            thread, and places what it touches; serial code opens the rest
//            in place;
//   exec:    execv() while pages are armed and a request is pending: the
//            new image starts clean and its own request works;
//   exit:    exit() from a worker inside a region while the other threads
//            fault on armed pages: the process ends with the status given
//            (libomp's shutdown runs, no crash, no hang);
//   armed:   return from main with pages still armed and a request pending.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: lifecycle: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define U(x) ((unsigned long long)(x))
enum { N = 64 };
static long pg, ipp;
static char *self;

static int *fresh(void) {
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < N * ipp; i++)
    a[i] = (int)i;
  return a;
}
static long long sum(const int *a) {
  long long s = 0;
  for (long i = 0; i < N * ipp; i++)
    s += a[i] - i;
  return s;
}

static int case_dynamic(void) {
  int *a = fresh();
  omp_set_dynamic(1);
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
  // A team of one (num_threads(1), if(0)) is serial code: its fork does not
  // arm, and its touches leave the request pending.
#pragma omp parallel num_threads(1)
  for (int p = 0; p < N / 4; p++)
    a[p * ipp] += 1;
#pragma omp parallel if (0)
  for (int p = N / 4; p < N / 2; p++)
    a[p * ipp] += 1;
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.arms == 0 && c.faults == 0, "team of one: arms %llu faults %llu",
           U(c.arms), U(c.faults));
  // With OMP_DYNAMIC the runtime picks the team's size: more than one thread
  // arms everything and places the second half; serial code then opens the
  // first half in place.  A team of one arms nothing.
  int nth = 0;
#pragma omp parallel
  {
#pragma omp single
    nth = omp_get_num_threads();
#pragma omp for
    for (int p = N / 2; p < N; p++)
      a[p * ipp] += 1;
  }
  for (int p = 0; p < N / 2; p++)
    a[p * ipp] += 1;
  c = nt_counters();
  if (nth > 1)
    NT_CHECK(c.arms == 1 && c.pages_armed == N &&
                 c.pages_migrated + c.pages_already_local == N / 2 &&
                 c.pages_touched_serial == N / 2,
             "dynamic team of %d: arms %llu placed %llu serial %llu", nth,
             U(c.arms), U(c.pages_migrated + c.pages_already_local),
             U(c.pages_touched_serial));
  else
    NT_CHECK(c.arms == 0, "dynamic team of one: arms %llu", U(c.arms));
  NT_CHECK(sum(a) == N / 2 * 2 + N / 2, "data %lld", sum(a));
  return nt_failures;
}

static int case_exec(void) {
  int *a = fresh();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel
  {
  }
  NT_CHECK(nt_maps_prot(a) == PROT_NONE, "armed before exec");
  int *b = fresh();
  NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "pending request");
  char *args[] = {self, (char *)"exec-image", NULL};
  execv(self, args);
  perror("execv");
  return 1;
}

static int case_exec_image(void) {
  int *a = fresh();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request after exec");
#pragma omp parallel for
  for (int p = 0; p < N; p++)
    a[p * ipp] += 1;
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.requests == 1 && c.arms == 1 && c.pages_armed == N,
           "after exec: requests %llu arms %llu armed %llu", U(c.requests),
           U(c.arms), U(c.pages_armed));
  NT_CHECK(sum(a) == N, "data %lld", sum(a));
  return nt_failures;
}

static int case_exit(void) {
  int *a = fresh();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    for (int p = t; p < N; p += omp_get_num_threads()) {
      a[p * ipp] += 1;
      if (t == 1 && p >= N / 2)
        exit(nt_failures ? 1 : 42);
    }
  }
  return 1; // not reached: thread 1 exits
}

static int case_armed(void) {
  int *a = fresh();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel
  {
  }
  int *b = fresh();
  NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "pending request");
  return nt_failures ? 1 : 43;
}

// Run one case in a child; 0 if it ended with `want`.
static int run(const char *name, int (*fn)(void), int want) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    nt_failures = 0;
    _exit(fn());
  }
  int st = 0;
  for (int ms = 0; ms < 60000; ms += 10) {
    if (waitpid(pid, &st, WNOHANG) == pid) {
      NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == want,
               "%s: child ended with %s %d, want exit %d", name,
               WIFEXITED(st) ? "exit" : "signal",
               WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), want);
      return 0;
    }
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  NT_CHECK(0, "%s: child hung (60 s)", name);
  return 1;
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  self = argv[0];
  if (argc > 1 && !strcmp(argv[1], "exec-image"))
    return case_exec_image();
  run("dynamic", case_dynamic, 0);
  run("exec", case_exec, 0);
  run("exit", case_exit, 42);
  run("armed", case_armed, 43);
  return nt_done("lifecycle");
}
