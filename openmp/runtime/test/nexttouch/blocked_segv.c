// Threads that block SIGSEGV.  The kernel cannot deliver a fault's SIGSEGV to
// a thread that blocks it: it resets the action to SIG_DFL and the process
// dies without running the engine's handler.  libomp wraps the calls that
// change a thread's mask, so SIGSEGV stays deliverable while the program's
// view of the mask is kept (docs/NextTouch.rst, "Signals").  Each case
// touches armed pages from a thread that blocks SIGSEGV in its view:
//   created: a plain pthread created with every signal blocked (inherited);
//   attr:    a pthread whose attribute mask blocks every signal;
//   region:  a thread blocks SIGSEGV while a region runs, reads after it;
//   late:    a thread blocks SIGSEGV after the join that followed the
//            arming (the engine's own check of the threads' masks has run),
//            then reads;
//   worker:  the program blocks every signal before its first region, so
//            libomp's workers start with it blocked; they touch the pages;
//   handler: a SIGUSR1 handler installed with every signal in sa_mask reads
//            armed pages; sigaction reports the mask as given;
//   held:    a SIGSEGV sent with pthread_kill to a thread that blocks it
//            waits until the thread unblocks it, then runs the program's
//            handler once;
//   raw:     a thread blocks SIGSEGV with the raw system call, which no
//            wrapper sees: the engine's check at the first join after the
//            arming disarms in place and names the thread.
// Each case checks the data, the counters and the thread's view of its mask.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run created 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CREATED
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run attr 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ATTR
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run region 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REGION
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run late 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LATE
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run worker 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WORKER
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run handler 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HANDLER
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run held 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HELD
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run raw 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RAW
// The warning can be silenced; the protection cannot.
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_WARNINGS=off OMP_NUM_THREADS=2 \
// RUN:   %libomp-run raw 2>&1 | FileCheck %s --check-prefixes=QUIET
// REQUIRES: linux
// UNSUPPORTED: tsan, glibc-2.31
// (TSan: the first thread is created with every signal blocked: TSan starts
// its background thread then, which inherits that mask for good. glibc
// 2.31 has no pthread_attr_setsigmask_np, which the attr case uses.)
// CREATED-NOT: Warning
// CREATED: blocked_segv created: PASS
// ATTR-NOT: Warning
// ATTR: blocked_segv attr: PASS
// REGION-NOT: Warning
// REGION: blocked_segv region: PASS
// LATE-NOT: Warning
// LATE: blocked_segv late: PASS
// WORKER-NOT: Warning
// WORKER: blocked_segv worker: PASS
// HANDLER-NOT: Warning
// HANDLER: blocked_segv handler: PASS
// HELD-NOT: Warning
// HELD: blocked_segv held: PASS
// RAW: OMP: Warning #{{[0-9]+}}: nexttouch: OS thread {{[0-9]+}} (blocker) blocks SIGSEGV, {{.*}} (63 pages not armed or disarmed)
// RAW: blocked_segv raw: PASS
// QUIET-NOT: Warning
// QUIET: blocked_segv raw: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <signal.h>

enum { N = 64 };
static long pg;
static char *buf;
static const char *mode;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int phase; // 1: block SIGSEGV now, 2: blocked, 3: read, 4: done
static long sum;
static int view_blocked = -1;
static volatile int segv_handled;

static void set_phase(int p) {
  pthread_mutex_lock(&mu);
  phase = p;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}
static void wait_phase(int p) {
  pthread_mutex_lock(&mu);
  while (phase < p)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

static long read_all(void) {
  long t = 0;
  for (int p = 0; p < N; p++)
    t += ((volatile char *)buf)[p * pg];
  return t;
}

static long expected(void) {
  long t = 0;
  for (int p = 0; p < N; p++)
    t += (char)(p + 1);
  return t;
}

static int blocks_segv(void) {
  sigset_t s;
  pthread_sigmask(SIG_SETMASK, NULL, &s);
  return sigismember(&s, SIGSEGV);
}

// The other thread: blocks SIGSEGV when told (region, late, raw), then reads
// every page once told to (an armed page would kill the process).
static void *blocker(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "blocker");
  int late =
      !strcmp(mode, "region") || !strcmp(mode, "late") || !strcmp(mode, "raw");
  if (late) {
    wait_phase(1);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGSEGV);
    if (!strcmp(mode, "raw"))
      syscall(SYS_rt_sigprocmask, SIG_BLOCK, &s, NULL, 8);
    else
      pthread_sigmask(SIG_BLOCK, &s, NULL);
    set_phase(2);
  }
  wait_phase(3);
  view_blocked = blocks_segv();
  sum = read_all();
  set_phase(4);
  return NULL;
}

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  if (si->si_code == SI_TKILL || si->si_code == SI_USER)
    segv_handled++;
  else
    _exit(9); // a fault the engine did not handle
}

static void *held_thread(void *arg) {
  (void)arg;
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGSEGV);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  NT_CHECK(!sigismember(&old, SIGSEGV), "held: blocked before");
  pthread_kill(pthread_self(), SIGSEGV);
  NT_CHECK(segv_handled == 0, "held: handled while blocked");
  NT_CHECK(blocks_segv() == 1, "held: view");
  sum = read_all(); // armed pages: the engine's handler still runs
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  NT_CHECK(segv_handled == 1, "held: handled %d times after unblocking",
           segv_handled);
  return NULL;
}

static void on_usr1(int sig) {
  (void)sig;
  sum = read_all();
}

static int done(void) {
  char name[64];
  snprintf(name, sizeof name, "blocked_segv %s", mode);
  return nt_done(name);
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "created";
  pg = nt_pagesize();
  buf = nt_map(N * pg);
  for (int p = 0; p < N; p++)
    buf[p * pg] = (char)(p + 1);

  if (!strcmp(mode, "worker")) {
    // Every signal blocked from now on, in this thread and in the workers
    // libomp creates at the first region.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
    long t = 0;
    int views = 0;
#pragma omp parallel for schedule(static) reduction(+ : t, views)
    for (int p = 0; p < N; p++) {
      t += buf[p * pg];
      views += blocks_segv() == 1;
    }
    NT_CHECK(t == expected(), "sum %ld, expected %ld", t, expected());
    NT_CHECK(views == N, "%d of %d reads saw SIGSEGV blocked", views, N);
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.pages_armed == N, "%llu pages armed",
             (unsigned long long)c.pages_armed);
    NT_CHECK(c.pages_already_local + c.pages_migrated == N,
             "%llu pages handled in the region",
             (unsigned long long)(c.pages_already_local + c.pages_migrated));
    return done();
  }

  if (!strcmp(mode, "handler") || !strcmp(mode, "held")) {
    NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0)
      ((volatile char *)buf)[0] += 0;
    if (!strcmp(mode, "handler")) {
      struct sigaction sa, got;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_usr1;
      sigfillset(&sa.sa_mask);
      sigaction(SIGUSR1, &sa, NULL);
      sigaction(SIGUSR1, NULL, &got);
      NT_CHECK(sigismember(&got.sa_mask, SIGSEGV) == 1,
               "sigaction reports the mask without SIGSEGV");
      raise(SIGUSR1);
    } else {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_segv;
      sa.sa_flags = SA_SIGINFO;
      sigaction(SIGSEGV, &sa, NULL);
      pthread_t th;
      pthread_create(&th, NULL, held_thread, NULL);
      pthread_join(th, NULL);
    }
    NT_CHECK(sum == expected(), "sum %ld, expected %ld", sum, expected());
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.pages_armed == N && c.pages_touched_serial == N - 1,
             "armed %llu, touched serially %llu",
             (unsigned long long)c.pages_armed,
             (unsigned long long)c.pages_touched_serial);
    return done();
  }

  pthread_t th;
  if (!strcmp(mode, "created")) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_create(&th, NULL, blocker, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  } else if (!strcmp(mode, "attr")) {
    pthread_attr_t attr;
    sigset_t all;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setsigmask_np(&attr, &all);
    pthread_create(&th, &attr, blocker, NULL);
    pthread_attr_destroy(&attr);
  } else {
    pthread_create(&th, NULL, blocker, NULL);
  }
  NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
  int in_region = !strcmp(mode, "region") || !strcmp(mode, "raw");
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      if (in_region) {
        set_phase(1); // the thread blocks SIGSEGV while pages are armed
        wait_phase(2);
      }
      // One page touched; the others stay armed.
      ((volatile char *)buf)[0] += 0;
    }
  }
  if (!strcmp(mode, "late")) {
    set_phase(1); // after the join and its check
    wait_phase(2);
  }
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == N, "%llu pages armed, expected %d",
           (unsigned long long)c.pages_armed, N);
  set_phase(3);
  wait_phase(4);
  pthread_join(th, NULL);
  NT_CHECK(sum == expected(), "sum %ld, expected %ld", sum, expected());
  NT_CHECK(view_blocked == 1, "the thread's view: SIGSEGV blocked %d",
           view_blocked);
  kmp_nexttouch_counters_t d = nt_counters();
  if (!strcmp(mode, "raw"))
    NT_CHECK(d.pages_disarmed == N - 1, "%llu pages disarmed, expected %d",
             (unsigned long long)d.pages_disarmed, N - 1);
  else
    NT_CHECK(d.pages_touched_serial == N - 1 && d.pages_disarmed == 0,
             "touched serially %llu, disarmed %llu",
             (unsigned long long)d.pages_touched_serial,
             (unsigned long long)d.pages_disarmed);
  return done();
}
