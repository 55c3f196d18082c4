// A readonly item on the stack of a thread other than the one that starts
// the region is never left protected after the region (host,
// KMP_READONLY_FORCE=1): the pages that hold it are writable again at the
// region's end, a read(2) into them works, and the next region reads the
// new data.  The stack is
//  - an OpenMP worker's (the master lists a worker's local array);
//  - a pthread's that started a parallel region of its own (a root thread),
//    listed by the initial thread.
// Each case runs in a child of a process that never entered libomp.
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: readonly_stacks: PASS
#include "nexttouch_test.h"
#include <pthread.h>
#include <sys/wait.h>

enum { BYTES = 12 * 4096 };
static long pg;

static long region_sum(const char *p, size_t len) {
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, (const void **)&p, &len, NULL, &h) == 0,
           "begin %p", (void *)p);
  long s = 0;
  const char *q = kmp_readonly_ptr(h, 0);
  NT_CHECK(q != p, "replicated");
  for (size_t i = 0; i < len; i++)
    s += q[i];
  kmp_readonly_end(h);
  return s;
}

// In the owner of buf, after a region of another thread listed it.
static void owner_checks(char *buf) {
  char *a = (char *)(((uintptr_t)buf + pg - 1) & ~(uintptr_t)(pg - 1));
  int ro = 0;
  for (char *p = a; p + pg <= buf + BYTES; p += pg)
    ro += nt_maps_prot(p) != (PROT_READ | PROT_WRITE);
  NT_CHECK(ro == 0, "%d pages of the stack item left read-only", ro);
  int fds[2];
  NT_CHECK(pipe(fds) == 0, "pipe");
  NT_CHECK(write(fds[1], "xyz", 3) == 3, "write");
  ssize_t n = read(fds[0], a + pg, 3);
  NT_CHECK(n == 3 && !memcmp(a + pg, "xyz", 3), "read(2) into it: %zd (%s)", n,
           n < 0 ? strerror(errno) : "");
  close(fds[0]);
  close(fds[1]);
}

static char *volatile shared_buf;

static void worker_stack(void) {
#pragma omp parallel num_threads(2)
  {
    char local[BYTES];
    if (omp_get_thread_num() == 1) {
      memset(local, 1, BYTES);
      shared_buf = local;
    }
#pragma omp barrier
    if (omp_get_thread_num() == 0)
      NT_CHECK(region_sum(shared_buf, BYTES) == BYTES, "worker's item");
#pragma omp barrier
    if (omp_get_thread_num() == 1) {
      owner_checks(local);
      memset(local, 2, BYTES);
    }
#pragma omp barrier
    if (omp_get_thread_num() == 0)
      NT_CHECK(region_sum(shared_buf, BYTES) == 2 * BYTES, "new data");
#pragma omp barrier
  }
}

static pthread_barrier_t bar;

static void *root_thread(void *arg) {
  (void)arg;
  char local[BYTES];
  memset(local, 1, BYTES);
  int nth = 0;
#pragma omp parallel num_threads(2) reduction(+ : nth)
  nth += 1; // this thread is now one of the runtime's roots
  NT_CHECK(nth == 2, "team of %d", nth);
  shared_buf = local;
  pthread_barrier_wait(&bar); // the initial thread lists local
  pthread_barrier_wait(&bar);
  owner_checks(local);
  memset(local, 2, BYTES);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar); // it reads the new data
  return NULL;
}

static void root_stack(void) {
  pthread_t t;
  pthread_barrier_init(&bar, NULL, 2);
  NT_CHECK(pthread_create(&t, NULL, root_thread, NULL) == 0, "pthread_create");
  pthread_barrier_wait(&bar);
  NT_CHECK(region_sum(shared_buf, BYTES) == BYTES, "root's item");
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  NT_CHECK(region_sum(shared_buf, BYTES) == 2 * BYTES, "new data");
  pthread_barrier_wait(&bar);
  pthread_join(t, NULL);
}

static void run(const char *name, void (*f)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
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
  run("a worker's stack", worker_stack);
  run("a root pthread's stack", root_stack);
  return nt_done("readonly_stacks");
}
