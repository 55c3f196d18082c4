// fork(2) with next-touch pages armed.  The child inherits the armed pages
// (PROT_NONE) but has one thread and no running team:
//   serial: the parent forks between regions, with pages armed since the
//   previous fork.  The child touches half of them (restored in place,
//   pages_touched_serial), runs a region of its own that touches the rest
//   (handled by the engine), makes a request of its own, and exits (libomp's
//   shutdown in the child included).  The parent then touches the rest.
//   region: the primary thread forks in the middle of a region while the
//   other threads fault on armed pages (one page per fault), twenty times;
//   a unit some other thread had claimed at the fork is released in the
//   child.  The child reads and writes the whole array and leaves with
//   _exit.
// Each child must exit with status 0 within a timeout (alarm: a hang is a
// failure, not a hung test), and the data must be intact on both sides.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=3 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: fork: PASS
#include "nexttouch_test.h"
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#define U(x) ((unsigned long long)(x))

enum { N = 512, TIMEOUT = 30 };
static long pg;
static int ipp;

// Status of the child, described.
static int child_ok(pid_t pid, const char *what) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) {
    NT_CHECK(0, "%s: waitpid", what);
    return 0;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 1;
  NT_CHECK(0, "%s: child %s %d", what,
           WIFSIGNALED(st) ? "killed by signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
  return 0;
}

// Every int of a is its index, plus 0..max_extra on the first int of a page.
static int check_array(const int *a, int max_extra) {
  for (long i = 0; i < (long)N * ipp; i++) {
    int extra = a[i] - (int)i;
    if (extra < 0 || extra > ((i % ipp) == 0 ? max_extra : 0))
      return 0;
  }
  return 1;
}

static void serial_case(void) {
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < (long)N * ipp; i++)
    a[i] = (int)i;
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "serial: request");
#pragma omp parallel for schedule(static)
  for (int p = 0; p < N / 8; p++)
    a[p * ipp] += 1;
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(c1.pages_armed - c0.pages_armed == N, "serial: armed %llu",
           U(c1.pages_armed - c0.pages_armed));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(TIMEOUT);
    kmp_nexttouch_counters_t k0 = nt_counters();
    // Touch [N/2, N) from serial code, one int per page.
    for (int p = N / 2; p < N; p++)
      a[p * ipp] += 2;
    kmp_nexttouch_counters_t k1 = nt_counters();
    if (k1.pages_touched_serial - k0.pages_touched_serial == 0)
      _exit(3); // not the engine's serial path
    // A region of the child's own touches [N/8, N/2).
#pragma omp parallel for schedule(static)
    for (int p = N / 8; p < N / 2; p++)
      a[p * ipp] += 2;
    long long sum = 0;
    for (long i = 0; i < (long)N * ipp; i++)
      sum += a[i] - i;
    if (sum != N / 8 + 2LL * (N - N / 8))
      _exit(4);
    // A request in the child, armed at its next region.
    int *b = (int *)nt_map(64 * pg);
    memset(b, 7, 64 * pg);
    if (kmp_nexttouch(b, 64 * pg) != 0)
      _exit(5);
    int ok = 0;
#pragma omp parallel reduction(+ : ok)
    ok += b[omp_get_thread_num() * ipp] == 0x07070707;
    if (ok != omp_get_max_threads())
      _exit(6);
    exit(0); // through libomp's shutdown: disarms what is still armed
  }
  child_ok(pid, "serial");
  // The parent's copy: [N/8, N) still armed, untouched by the child's writes.
#pragma omp parallel for schedule(static)
  for (int p = N / 8; p < N; p++)
    a[p * ipp] += 1;
  kmp_nexttouch_counters_t c2 = nt_counters();
  NT_CHECK(c2.pages_already_local - c0.pages_already_local == N,
           "serial: parent handled %llu",
           U(c2.pages_already_local - c0.pages_already_local));
  long long sum = 0;
  for (long i = 0; i < (long)N * ipp; i++)
    sum += a[i] - i;
  NT_CHECK(sum == N && check_array(a, 1), "serial: parent's data: %lld", sum);
  munmap(a, N * pg);
}

static void region_case(int round) {
  int *a = (int *)nt_map(N * pg);
  for (long i = 0; i < (long)N * ipp; i++)
    a[i] = (int)i;
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "region %d: request", round);
  pid_t pid = -1;
  volatile int started = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    if (tid == 0) {
      // Fork once the others are well into the array.
      while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2 + round * 4)
        sched_yield();
      pid = fork();
      if (pid == 0) {
        alarm(TIMEOUT);
        // Only this thread exists now, inside what was a region.
        if (!check_array(a, 1))
          _exit(7);
        for (long i = 0; i < (long)N * ipp; i++)
          a[i] += 1;
        for (long i = 0; i < (long)N * ipp; i++) {
          int extra = a[i] - (int)i - 1;
          if (extra < 0 || extra > ((i % ipp) == 0))
            _exit(8);
        }
        _exit(0);
      }
    } else {
      for (int p = tid - 1; p < N; p += nth - 1) {
        a[p * ipp] += 1;
        __atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
      }
    }
  }
  char what[32];
  snprintf(what, sizeof what, "region %d", round);
  NT_CHECK(pid > 0, "%s: fork", what);
  if (pid > 0)
    child_ok(pid, what);
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(c1.pages_armed - c0.pages_armed == N &&
               c1.pages_already_local - c0.pages_already_local == N,
           "%s: armed %llu, handled %llu", what,
           U(c1.pages_armed - c0.pages_armed),
           U(c1.pages_already_local - c0.pages_already_local));
  long long sum = 0;
  for (long i = 0; i < (long)N * ipp; i++)
    sum += a[i] - i;
  NT_CHECK(sum == N && check_array(a, 1), "%s: parent's data: %lld", what, sum);
  munmap(a, N * pg);
}

int main(void) {
  pg = nt_pagesize();
  ipp = pg / sizeof(int);
  signal(SIGALRM, SIG_DFL);
  serial_case();
  for (int r = 0; r < 20; r++)
    region_case(r);
  return nt_done("fork");
}
