// SIGSEGV behaves as the C library and the kernel make it behave, whether
// the page-trap layer's handler is in front or not (docs/NextTouch.rst,
// "Signals").  Each case runs in a forked child (one thread) and the parent
// checks how it ended:
//   resethand: a SA_RESETHAND crash handler runs once; the fault then kills
//   nested:    a fault inside the crash handler (SIGSEGV blocked) kills
//   ignore:    SIG_IGN discards a sent SIGSEGV; a fault still kills
//   dfl:       SIG_DFL: a sent SIGSEGV kills
//   held:      a SIGSEGV sent while blocked is pending (sigpending), a
//              handler installed meanwhile does not run until the unblock,
//              then runs once with the sender's siginfo
//   ignheld:   a blocked one stays pending under SIG_IGN; SIG_IGN set while
//              it is pending discards it
//   wait:      sigwait, sigwaitinfo and sigtimedwait take a pending SIGSEGV,
//              also one sent by another thread while the caller waits
//   query:     sigaction and signal report the program's own action
//   view:      the mask the calls report, also inside the handler and after
//              a siglongjmp out of it
//   suspend:   sigsuspend with a mask that unblocks SIGSEGV delivers a
//              pending one
// Modes: "front" first arms a next-touch range and touches it (the layer's
// handler is in front, which the test checks with the raw system call);
// "plain" leaves the engines unused (the handler goes in front at the first
// block of SIGSEGV); "off" turns both engines off (the kernel's action and
// mask are the program's, checked with the raw system calls).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run front | FileCheck %s
// RUN: env OMP_NUM_THREADS=2 %libomp-run plain | FileCheck %s
// RUN: env KMP_NEXTTOUCH=false KMP_READONLY=false OMP_NUM_THREADS=2 \
// RUN:   %libomp-run off | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (TSan delivers signals to the program's handlers itself, deferred.)
// CHECK: signal_semantics: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>

static const char *mode;
static long pg;
static char *bad; // a PROT_NONE page
static volatile int calls, last_code, last_pid, seen_blocked;
static sigjmp_buf jb;

static void *kernel_handler(void) {
  void *k[4]; // the kernel's struct sigaction: handler first
  syscall(SYS_rt_sigaction, SIGSEGV, NULL, k, 8);
  return k[0];
}

static int kernel_blocks_segv(void) {
  unsigned long m = 0;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
  return (m >> (SIGSEGV - 1)) & 1;
}

static int view_blocks_segv(void) {
  sigset_t s;
  pthread_sigmask(SIG_BLOCK, NULL, &s);
  return sigismember(&s, SIGSEGV);
}

static void segv_set(sigset_t *s) {
  sigemptyset(s);
  sigaddset(s, SIGSEGV);
}

static void block(int how) {
  sigset_t s;
  segv_set(&s);
  pthread_sigmask(how, &s, NULL);
}

static void install(void (*h)(int, siginfo_t *, void *), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h;
  sa.sa_flags = SA_SIGINFO | flags;
  sigaction(SIGSEGV, &sa, NULL);
}

static void counting(int sig, siginfo_t *si, void *uc) {
  calls++;
  last_code = si->si_code;
  last_pid = si->si_pid;
  seen_blocked = view_blocks_segv();
}

static void nested(int sig, siginfo_t *si, void *uc) {
  calls++;
  bad[0] = 1; // SIGSEGV is blocked while this handler runs
}

static void jumping(int sig, siginfo_t *si, void *uc) {
  calls++;
  seen_blocked = view_blocks_segv();
  siglongjmp(jb, 1);
}

static void *sender(void *p) {
  struct timespec ts = {0, 50 * 1000 * 1000};
  nanosleep(&ts, NULL);
  pthread_kill(*(pthread_t *)p, SIGSEGV);
  return NULL;
}

// In the child.  Returns normally when the case expects to survive.
static void run_case(const char *c) {
  sigset_t s;
  if (!strcmp(c, "resethand")) {
    install(counting, SA_RESETHAND);
    bad[0] = 1; // handler once, then the default action
    _exit(3);
  } else if (!strcmp(c, "nested")) {
    install(nested, 0);
    bad[0] = 1;
    _exit(3);
  } else if (!strcmp(c, "ignore")) {
    signal(SIGSEGV, SIG_IGN);
    raise(SIGSEGV);
    kill(getpid(), SIGSEGV);
    printf("ignored\n");
    fflush(stdout);
    bad[0] = 1; // a fault is never ignored
    _exit(3);
  } else if (!strcmp(c, "dfl")) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    _exit(3);
  } else if (!strcmp(c, "held")) {
    block(SIG_BLOCK);
    raise(SIGSEGV);
    sigpending(&s);
    NT_CHECK(sigismember(&s, SIGSEGV), "held: not pending");
    install(counting, 0);
    NT_CHECK(calls == 0, "held: handler ran while blocked");
    raise(SIGSEGV); // merges with the pending one
    block(SIG_UNBLOCK);
    NT_CHECK(calls == 1, "held: %d calls", calls);
    NT_CHECK(last_code <= 0 && last_pid == getpid(), "held: code %d pid %d",
             last_code, last_pid);
    NT_CHECK(seen_blocked, "held: SIGSEGV not blocked in its handler");
    sigpending(&s);
    NT_CHECK(!sigismember(&s, SIGSEGV), "held: still pending");
    // Sent to the process (kill), as the one thread blocks it.
    block(SIG_BLOCK);
    kill(getpid(), SIGSEGV);
    sigpending(&s);
    NT_CHECK(sigismember(&s, SIGSEGV), "held: kill not pending");
    NT_CHECK(calls == 1, "held: handler ran for kill while blocked");
    block(SIG_UNBLOCK);
    NT_CHECK(calls == 2, "held: %d calls after kill", calls);
  } else if (!strcmp(c, "ignheld")) {
    signal(SIGSEGV, SIG_IGN);
    block(SIG_BLOCK);
    raise(SIGSEGV);
    sigpending(&s);
    NT_CHECK(sigismember(&s, SIGSEGV), "ignheld: blocked one not pending");
    signal(SIGSEGV, SIG_IGN); // discards it
    sigpending(&s);
    NT_CHECK(!sigismember(&s, SIGSEGV), "ignheld: not discarded");
    install(counting, 0);
    block(SIG_UNBLOCK);
    NT_CHECK(calls == 0, "ignheld: %d calls", calls);
  } else if (!strcmp(c, "wait")) {
    install(counting, 0);
    block(SIG_BLOCK);
    segv_set(&s);
    int sig = 0;
    raise(SIGSEGV);
    NT_CHECK(sigwait(&s, &sig) == 0 && sig == SIGSEGV, "sigwait: %d", sig);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    raise(SIGSEGV);
    NT_CHECK(sigwaitinfo(&s, &si) == SIGSEGV && si.si_code <= 0 &&
                 si.si_pid == getpid(),
             "sigwaitinfo: code %d pid %d", si.si_code, si.si_pid);
    struct timespec zero = {0, 0};
    errno = 0;
    NT_CHECK(sigtimedwait(&s, &si, &zero) == -1 && errno == EAGAIN,
             "sigtimedwait: nothing pending, errno %d", errno);
    pthread_t me = pthread_self(), t;
    pthread_create(&t, NULL, sender, &me);
    struct timespec ten = {10, 0};
    NT_CHECK(sigtimedwait(&s, &si, &ten) == SIGSEGV && si.si_code <= 0,
             "sigtimedwait: sent while waiting, code %d", si.si_code);
    pthread_join(t, NULL);
    block(SIG_UNBLOCK);
    NT_CHECK(calls == 0, "wait: the handler ran %d times", calls);
  } else if (!strcmp(c, "query")) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = counting;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGSEGV, NULL, &old);
    NT_CHECK(old.sa_sigaction == counting &&
                 (old.sa_flags & (SA_SIGINFO | SA_RESETHAND)) ==
                     (SA_SIGINFO | SA_RESETHAND),
             "query: sigaction reports %p flags %#x", (void *)old.sa_sigaction,
             old.sa_flags);
    NT_CHECK(signal(SIGSEGV, SIG_IGN) == (sighandler_t)counting,
             "query: signal");
    NT_CHECK(signal(SIGSEGV, SIG_DFL) == SIG_IGN, "query: signal SIG_IGN");
    sigaction(SIGSEGV, NULL, &old);
    NT_CHECK(old.sa_handler == SIG_DFL, "query: SIG_DFL");
  } else if (!strcmp(c, "view")) {
    NT_CHECK(!view_blocks_segv(), "view: blocked at start");
    block(SIG_BLOCK);
    NT_CHECK(view_blocks_segv(), "view: not blocked");
    sigprocmask(SIG_BLOCK, NULL, &s);
    NT_CHECK(sigismember(&s, SIGSEGV), "view: sigprocmask");
    block(SIG_UNBLOCK);
    NT_CHECK(!view_blocks_segv(), "view: still blocked");
    install(jumping, 0);
    for (int i = 0; i < 3; i++)
      if (!sigsetjmp(jb, 1))
        bad[0] = 1;
    NT_CHECK(calls == 3, "view: %d recoveries", calls);
    NT_CHECK(seen_blocked, "view: SIGSEGV not blocked in its handler");
    NT_CHECK(!view_blocks_segv(), "view: blocked after siglongjmp");
  } else if (!strcmp(c, "suspend")) {
    install(counting, 0);
    block(SIG_BLOCK);
    raise(SIGSEGV);
    sigset_t none;
    sigemptyset(&none);
    errno = 0;
    NT_CHECK(sigsuspend(&none) == -1 && errno == EINTR, "suspend: errno %d",
             errno);
    NT_CHECK(calls == 1, "suspend: %d calls", calls);
    NT_CHECK(view_blocks_segv(), "suspend: mask not restored");
  }
  if (!strcmp(mode, "off")) {
    NT_CHECK(!kernel_blocks_segv() || view_blocks_segv(),
             "off: the kernel's mask differs from the program's");
  }
  exit(nt_failures ? 1 : 0);
}

// Runs a case in a child: -SIG if a signal ended it, else its exit status.
static int child(const char *c) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    nt_failures = 0;
    alarm(20);
    run_case(c);
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "plain";
  pg = nt_pagesize();
  bad = nt_map(pg);
  mprotect(bad, pg, PROT_NONE);
  if (!strcmp(mode, "front")) {
    enum { N = 16 };
    char *a = nt_map(N * pg);
    memset(a, 1, N * pg);
    NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int p = 0; p < N; p++)
      sum += a[p * pg];
    NT_CHECK(sum == N, "sum %ld", sum);
    NT_CHECK(nt_counters().faults > 0, "the engine took no fault");
  }
  struct sigaction mine;
  memset(&mine, 0, sizeof mine);
  mine.sa_sigaction = counting;
  mine.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &mine, NULL);
  void *k = kernel_handler();
  if (!strcmp(mode, "front"))
    NT_CHECK(k != (void *)counting, "front: the layer's handler not in front");
  else
    NT_CHECK(k == (void *)counting,
             "%s: the kernel's action is not the "
             "program's",
             mode);
  signal(SIGSEGV, SIG_DFL);

  static const struct {
    const char *name;
    int expect;
  } cases[] = {{"resethand", -SIGSEGV},
               {"nested", -SIGSEGV},
               {"ignore", -SIGSEGV},
               {"dfl", -SIGSEGV},
               {"held", 0},
               {"ignheld", 0},
               {"wait", 0},
               {"query", 0},
               {"view", 0},
               {"suspend", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int r = child(cases[i].name);
    NT_CHECK(r == cases[i].expect, "%s: ended with %d, expected %d",
             cases[i].name, r, cases[i].expect);
  }
  if (!strcmp(mode, "off")) {
    block(SIG_BLOCK);
    NT_CHECK(kernel_blocks_segv(), "off: SIGSEGV not blocked in the kernel");
    block(SIG_UNBLOCK);
  }
  return nt_done("signal_semantics");
}
