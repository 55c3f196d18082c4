// Threads that block SIGSEGV.  The kernel cannot deliver a fault's SIGSEGV to
// a thread that blocks it: it resets the action to SIG_DFL and the process
// dies, without a word and without running the engine's handler.  So while a
// thread of the process blocks SIGSEGV nothing may stay armed: the engine
// checks at every fork that would arm and at the first join after it,
// disarms in place and says so (docs/NextTouch.rst, Guarantees and
// limitations).  Before that, each case below killed the process by SIGSEGV.
//   created: a plain pthread created with every signal blocked exists at the
//            fork; after the region it reads pages no thread of the team
//            touched.
//   region:  a thread blocks SIGSEGV (pthread_sigmask) while the region
//            runs; after the join it reads the untouched pages.
//   worker:  the program blocks every signal before its first region, so
//            libomp's workers are created with SIGSEGV blocked too; the
//            region's threads touch the pages.
// Each case checks the data, that nothing was left armed (counters), and
// the warning naming the thread.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run created 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,CREATED
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run region 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,REGION
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run worker 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,WORKER
// The warnings can be silenced; the protection cannot.
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_WARNINGS=off OMP_NUM_THREADS=2 \
// RUN:   %libomp-run created 2>&1 | FileCheck %s --check-prefixes=QUIET
// REQUIRES: linux
// UNSUPPORTED: tsan
// (The first thread is created with every signal blocked: TSan starts its
// background thread then, which inherits that mask for good, and the engine
// rightly keeps next-touch off while a thread blocks SIGSEGV.)
// CREATED: OMP: Warning #{{[0-9]+}}: nexttouch: OS thread {{[0-9]+}} (blocker) blocks SIGSEGV, {{.*}} (64 pages not armed or disarmed)
// REGION: OMP: Warning #{{[0-9]+}}: nexttouch: OS thread {{[0-9]+}} (blocker) blocks SIGSEGV, {{.*}} (63 pages not armed or disarmed)
// WORKER: OMP: Warning #{{[0-9]+}}: nexttouch: OS thread {{[0-9]+}} ({{.*}}) blocks SIGSEGV,
// CHECK: blocked_segv: PASS
// QUIET-NOT: Warning
// QUIET: blocked_segv: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <signal.h>

enum { N = 64 };
static long pg;
static char *buf;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int phase; // 1: block SIGSEGV now, 2: blocked, 3: read, 4: done
static long sum;

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

// The other thread: in "region" it blocks SIGSEGV when told, then reads
// every page (an armed one kills the process).
static void *blocker(void *arg) {
  int block_late = *(int *)arg;
  pthread_setname_np(pthread_self(), "blocker");
  if (block_late) {
    wait_phase(1);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    set_phase(2);
  }
  wait_phase(3);
  long t = 0;
  for (int p = 0; p < N; p++)
    t += buf[p * pg];
  sum = t;
  set_phase(4);
  return NULL;
}

static long expected(void) {
  long t = 0;
  for (int p = 0; p < N; p++)
    t += (char)(p + 1);
  return t;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "created";
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
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int p = 0; p < N; p++)
      t += buf[p * pg];
    NT_CHECK(t == expected(), "sum %ld, expected %ld", t, expected());
    kmp_nexttouch_counters_t c = nt_counters();
    NT_CHECK(c.pages_armed == 0, "%llu pages armed",
             (unsigned long long)c.pages_armed);
    NT_CHECK(c.fail_arm == N, "fail_arm %llu, expected %d",
             (unsigned long long)c.fail_arm, N);
    return nt_done("blocked_segv");
  }

  int block_late = !strcmp(mode, "region");
  pthread_t th;
  if (!block_late) {
    // A thread created with every signal blocked (it inherits the mask).
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_create(&th, NULL, blocker, &block_late);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  } else {
    pthread_create(&th, NULL, blocker, &block_late);
  }
  NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      if (block_late) {
        set_phase(1); // the thread blocks SIGSEGV while pages are armed
        wait_phase(2);
      }
      // One page touched; the others stay armed.
      ((volatile char *)buf)[0] += 0;
    }
  }
  kmp_nexttouch_counters_t c = nt_counters();
  if (block_late) {
    NT_CHECK(c.pages_armed == N, "%llu pages armed, expected %d",
             (unsigned long long)c.pages_armed, N);
    NT_CHECK(c.pages_disarmed == N - 1, "%llu pages disarmed, expected %d",
             (unsigned long long)c.pages_disarmed, N - 1);
  } else {
    NT_CHECK(c.pages_armed == 0, "%llu pages armed",
             (unsigned long long)c.pages_armed);
    NT_CHECK(c.fail_arm == N, "fail_arm %llu, expected %d",
             (unsigned long long)c.fail_arm, N);
  }
  // Nothing is PROT_NONE any more: the thread that blocks SIGSEGV reads.
  NT_CHECK(nt_maps_prot(buf + (N - 1) * pg) == (PROT_READ | PROT_WRITE),
           "last page still protected");
  set_phase(3);
  wait_phase(4);
  pthread_join(th, NULL);
  NT_CHECK(sum == expected(), "sum %ld, expected %ld", sum, expected());
  // A later request while the thread is gone arms again.
  NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  buf[omp_get_thread_num() * pg] += 0;
  kmp_nexttouch_counters_t d = nt_counters();
  NT_CHECK(d.pages_armed > c.pages_armed,
           "not armed again after the thread ended");
  return nt_done("blocked_segv");
}
