// The wrapped C library under load, randomized (seed in argv[1], rounds in
// argv[2]): while the team requests, arms and touches next-touch ranges
// (with unaligned edges) and reads a readonly item region after region,
// other threads of the program, outside the team, use the same memory
// through the wrappers:
//   io:     write() from armed pages into a pipe and read() into other armed
//           pages; every call moves every byte, the data arrive intact
//   signal: SIGUSR1 storms at every thread; the handler write()s armed
//           pages, blocks and unblocks SIGSEGV and looks at sigpending
//   masker: blocks and unblocks SIGSEGV around its reads of armed pages,
//           sends itself SIGSEGV while blocked (its handler must run once
//           per unblock, never while blocked)
//   spawn:  posix_spawn of a program whose path, arguments and environment
//           lie in requested pages, waitpid with the status in a requested
//           page, and fork() whose child reads armed pages; exit statuses
//           are exact
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run 1 | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=3 \
// RUN:   %libomp-run 2 | FileCheck %s
// RUN: %if numa-vm %{ %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- env \
// RUN:   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread %t 3 60 | FileCheck %s %}
// REQUIRES: linux
// UNSUPPORTED: tsan
// (TSan defers the signals the test counts in its handlers.)
// CHECK: wrapper_storm: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>

enum { N = 64 };
static long pg;
static char *B; // the team's range: byte i of page p is (p + i) & 0x7f
static char *C; // the I/O thread's target range
static char *S; // strings and status words for spawn
static volatile int stop;
static volatile long io_calls, sig_calls, spawns, masks;
static volatile int usr1_bad, segv_runs, segv_while_blocked;
static __thread int tls_blocked;
extern char **environ;

static int expect(long p, long i) { return (int)((p + i) & 0x7f); }

static int check_from(const char *src, const char *got, size_t n) {
  long off = src - B;
  for (size_t i = 0; i < n; i++)
    if (got[i] != expect((off + i) / pg, (off + i) % pg))
      return 0;
  return 1;
}

static void on_usr1(int sig) {
  int e = errno;
  static __thread unsigned r;
  r = r * 1103515245 + 12345;
  long off = (r >> 8) % (N * pg - 64);
  int fd = open("/dev/null", O_WRONLY);
  if (fd >= 0) {
    if (write(fd, B + off, 64) != 64)
      usr1_bad++;
    close(fd);
  }
  sigset_t s, p, old;
  sigemptyset(&s);
  sigaddset(&s, SIGSEGV);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  sigpending(&p);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  __atomic_fetch_add(&sig_calls, 1, __ATOMIC_RELAXED);
  errno = e;
}

static void on_segv(int sig, siginfo_t *si, void *uc) {
  if (si->si_code > 0)
    abort(); // a real fault no engine took
  if (tls_blocked)
    segv_while_blocked++;
  segv_runs++;
}

static void *io(void *arg) {
  unsigned r = (unsigned)(uintptr_t)arg;
  int fds[2];
  if (pipe(fds))
    return NULL;
  while (!stop) {
    r = r * 1103515245 + 12345;
    size_t n = 1 + (r >> 4) % (3 * pg);
    long off = (r >> 12) % (N * pg - n);
    long coff = (r >> 7) % (N * pg - n);
    ssize_t w = write(fds[1], B + off, n);
    size_t got = 0;
    while (w > 0 && got < (size_t)w) {
      ssize_t k = read(fds[0], C + coff + got, w - got);
      if (k <= 0)
        break;
      got += k;
    }
    NT_CHECK(w == (ssize_t)n && got == n, "io: wrote %zd read %zu of %zu", w,
             got, n);
    NT_CHECK(check_from(B + off, C + coff, n), "io: data at %ld", off);
    __atomic_fetch_add(&io_calls, 1, __ATOMIC_RELAXED);
  }
  close(fds[0]);
  close(fds[1]);
  return NULL;
}

static void *masker(void *arg) {
  unsigned r = (unsigned)(uintptr_t)arg;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGSEGV);
  while (!stop) {
    r = r * 1103515245 + 12345;
    int before = segv_runs;
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    tls_blocked = 1;
    long off = (r >> 8) % (N * pg);
    volatile char c = B[off];
    NT_CHECK(c == expect(off / pg, off % pg), "masker: data at %ld", off);
    pthread_kill(pthread_self(), SIGSEGV);
    NT_CHECK(segv_runs == before, "masker: handler ran while blocked");
    tls_blocked = 0;
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    NT_CHECK(segv_runs == before + 1, "masker: %d runs after unblock",
             segv_runs - before);
    __atomic_fetch_add(&masks, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void *spawner(void *arg) {
  // S: the path and arguments, then status words, all in requested pages.
  char *path = S + 8, *a1 = S + 64, *a2 = S + 128;
  int *status = (int *)(S + pg + 100);
  char *argv[] = {path, a1, a2, NULL};
  while (!stop) {
    pid_t pid;
    int rc = posix_spawn(&pid, path, NULL, NULL, argv, environ);
    NT_CHECK(rc == 0, "spawn: %d", rc);
    if (rc == 0) {
      NT_CHECK(waitpid(pid, status, 0) == pid, "waitpid: errno %d", errno);
      NT_CHECK(WIFEXITED(*status) && WEXITSTATUS(*status) == 3,
               "spawn: status %#x", *status);
    }
    pid = fork();
    if (pid == 0) {
      long s = 0;
      for (long p = 0; p < N; p++)
        s += B[p * pg + 5] == expect(p, 5);
      _exit(s == N ? 4 : 5);
    }
    NT_CHECK(waitpid(pid, status, 0) == pid && WIFEXITED(*status) &&
                 WEXITSTATUS(*status) == 4,
             "fork: status %#x", *status);
    __atomic_fetch_add(&spawns, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void *storm(void *arg) {
  pthread_t *t = (pthread_t *)arg;
  while (!stop) {
    for (int i = 0; i < 4; i++)
      pthread_kill(t[i], SIGUSR1);
    usleep(1000);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "exit"))
    return atoi(argv[2]);
  unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
  int rounds = argc > 2 ? atoi(argv[2]) : 400;
  srandom(seed);
  alarm(120);
  pg = nt_pagesize();
  B = nt_map(N * pg);
  C = nt_map(N * pg);
  S = nt_map(2 * pg);
  for (long p = 0; p < N; p++)
    for (long i = 0; i < pg; i++)
      B[p * pg + i] = (char)expect(p, i);
  strcpy(S + 8, "/proc/self/exe"); // this program, as "exit 3"
  strcpy(S + 64, "exit");
  strcpy(S + 128, "3");
  long *table = (long *)nt_map(pg);
  for (int i = 0; i < 512; i++)
    table[i] = i;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  signal(SIGUSR1, on_usr1);

  pthread_t t[5];
  pthread_create(&t[0], NULL, io, (void *)(uintptr_t)seed);
  pthread_create(&t[1], NULL, masker, (void *)(uintptr_t)(seed * 7));
  pthread_create(&t[2], NULL, spawner, NULL);
  t[3] = pthread_self();
  pthread_create(&t[4], NULL, storm, t);
  for (int round = 0; round < rounds; round++) {
    long a = random() % (N * pg / 4), e = N * pg - random() % (N * pg / 4);
    NT_CHECK(kmp_nexttouch(B + a, e - a) == 0, "request B");
    NT_CHECK(kmp_nexttouch(C, N * pg) == 0, "request C");
    NT_CHECK(kmp_nexttouch(S, 2 * pg) == 0, "request S");
    long bad = 0, sum = 0;
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 3)
    for (long p = 0; p < N; p++)
      for (long i = 0; i < pg; i += 512)
        bad += B[p * pg + i] != expect(p, i);
    const long *tp = table;
    size_t tl = 512 * sizeof(long);
    kmp_readonly_t h;
    NT_CHECK(kmp_readonly_begin(1, (const void **)&tp, &tl, NULL, &h) == 0,
             "readonly begin");
#pragma omp parallel reduction(+ : sum)
    {
      const long *q = (const long *)kmp_readonly_ptr(h, 0);
#pragma omp for
      for (int i = 0; i < 512; i++)
        sum += q[i];
    }
    kmp_readonly_end(h);
    NT_CHECK(bad == 0, "round %d: %ld bad bytes", round, bad);
    NT_CHECK(sum == 511 * 512 / 2, "round %d: readonly sum %ld", round, sum);
  }
  stop = 1;
  for (int i = 0; i < 5; i++)
    if (i != 3)
      pthread_join(t[i], NULL);
  NT_CHECK(usr1_bad == 0, "%d handler writes failed", usr1_bad);
  NT_CHECK(segv_while_blocked == 0, "SIGSEGV handler ran while blocked");
  NT_CHECK(io_calls > 0 && sig_calls > 0 && spawns > 0 && masks > 0,
           "io %ld, signals %ld, spawns %ld, masks %ld", io_calls, sig_calls,
           spawns, masks);
  return nt_done("wrapper_storm");
}
