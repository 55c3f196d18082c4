// Armed memory that the program unmaps between regions (free() of a large
// buffer does that), and a new mapping at the same address (here placed with
// MAP_FIXED_NOREPLACE; the kernel reuses such holes by itself).  Since armed
// pages outlive their region, whatever the engine still records for the old
// range must never act on the new mapping.  This file runs the cases where
// the program did nothing the guide forbids (a new buffer, requested anew);
// it also runs the cases where the program unmapped armed pages without
// kmp_nexttouch_disarm (free() of a large buffer does that without the
// program knowing); stale_protection.c runs "guard":
//   disarm: kmp_nexttouch_disarm(NULL, 0) must not make a read-only mapping
//           writable;
//   expiry: neither may KMP_NEXTTOUCH_LIFETIME's disarming at a join;
//   reuse:  a request for a new read-write buffer at that address is armed
//           like any other (its pages fault and are handled);
//   guard:  a page the program itself makes PROT_NONE there still faults
//           for real (SIGSEGV, or the program's handler), in serial code
//           and in a region, in a child process and in this one; it is not
//           "handled" and opened;
//   natural: without MAP_FIXED: a buffer mapped, requested, partly used in a
//           region and unmapped, twenty times (what malloc/free of a large
//           buffer does each time step): the kernel hands out the same
//           address again, and each new buffer must be armed in full.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run reuse | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run natural | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run disarm | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_LIFETIME=1 \
// RUN:   OMP_NUM_THREADS=2 %libomp-run expiry | FileCheck %s
// REQUIRES: linux
// CHECK: stale_range: PASS
#include "nexttouch_test.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define U(x) ((unsigned long long)(x))

enum { N = 64 };
static long pg;

// A write at p in a child process: 1 if it died of SIGSEGV.
static int write_faults(volatile char *p) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(30);
    *p = 1;
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

// A write at p in this process: 1 if the program's handler (installed
// before the first request, so the engine chains to it) saw the fault.
static sigjmp_buf jump_env;
static volatile int expecting, handler_saw;
static void on_segv(int sig, siginfo_t *si, void *uc) {
  if (expecting) {
    handler_saw = 1;
    siglongjmp(jump_env, 1);
  }
  signal(sig, SIG_DFL); // not expected: die at the retry
}
static int write_faults_here(volatile char *p) {
  handler_saw = 0;
  if (sigsetjmp(jump_env, 1) == 0) {
    expecting = 1;
    *p = 1;
  }
  expecting = 0;
  return handler_saw;
}

// Arm N pages, touch the first in a region, unmap them; return the address.
static char *armed_then_unmapped(void) {
  char *a = nt_map(N * pg);
  memset(a, 1, N * pg);
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0)
      a[0] += 1;
  }
  NT_CHECK(nt_maps_prot(a + pg) == PROT_NONE, "not armed");
  NT_CHECK(munmap(a, N * pg) == 0, "munmap");
  return a;
}

static char *map_at(char *at, int prot) {
  char *b =
      (char *)mmap(at, N * pg, prot,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (b != at) {
    printf("cannot test: no mapping at %p (got %p)\n", (void *)at, (void *)b);
    exit(nt_done("stale_range"));
  }
  return b;
}

static void check_read_only(const char *r, const char *when) {
  int bad = 0;
  for (int p = 0; p < N; p++)
    if (nt_maps_prot(r + p * pg) != PROT_READ && bad++ < 3)
      NT_CHECK(0, "%s: page %d of the read-only mapping has protection %d",
               when, p, nt_maps_prot(r + p * pg));
  NT_CHECK(write_faults((volatile char *)r + 5 * pg),
           "%s: a write to the read-only mapping succeeded", when);
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  const char *mode = argc > 1 ? argv[1] : "disarm";
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  if (!strcmp(mode, "natural")) {
    int reused = 0;
    char *prev = NULL;
    for (int it = 0; it < 20; it++) {
      char *b = nt_map(N * pg);
      memset(b, 1, N * pg);
      int same = b == prev;
      reused += same;
      prev = b;
      kmp_nexttouch_counters_t c0 = nt_counters();
      NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "iteration %d: request", it);
#pragma omp parallel
      {
        if (omp_get_thread_num() == 0)
          b[0] += 1;
      }
      kmp_nexttouch_counters_t c1 = nt_counters();
      if (c1.pages_armed - c0.pages_armed != N)
        NT_CHECK(0, "iteration %d (%s address): %llu pages armed, want %d", it,
                 same ? "same" : "new", U(c1.pages_armed - c0.pages_armed), N);
      munmap(b, N * pg);
    }
    printf("the same address came back %d times of 19\n", reused);
    return nt_done("stale_range");
  }
  char *a = armed_then_unmapped();
  if (!strcmp(mode, "disarm")) {
    char *r = map_at(a, PROT_READ);
    check_read_only(r, "before");
    NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm");
    check_read_only(r, "after kmp_nexttouch_disarm(NULL, 0)");
  } else if (!strcmp(mode, "expiry")) {
    char *r = map_at(a, PROT_READ);
    for (int i = 0; i < 2; i++) {
#pragma omp parallel
      (void)0;
    }
    kmp_nexttouch_counters_t c = nt_counters();
    printf("expired %llu\n", U(c.pages_expired));
    check_read_only(r, "after the lifetime's end");
  } else if (!strcmp(mode, "reuse")) {
    char *b = map_at(a, PROT_READ | PROT_WRITE);
    memset(b, 2, N * pg);
    kmp_nexttouch_counters_t c0 = nt_counters();
    NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "request the new buffer");
#pragma omp parallel for
    for (int p = 0; p < N; p++)
      b[p * pg] += 1;
    kmp_nexttouch_counters_t c1 = nt_counters();
    NT_CHECK(c1.pages_armed - c0.pages_armed == N && c1.faults - c0.faults == N,
             "new buffer: %llu pages armed, %llu faults, want %d",
             U(c1.pages_armed - c0.pages_armed), U(c1.faults - c0.faults), N);
    for (long i = 0; i < N * pg; i++)
      if (b[i] != 2 + (i % pg == 0)) {
        NT_CHECK(0, "b[%ld] = %d", i, b[i]);
        break;
      }
  } else if (!strcmp(mode, "guard")) {
    char *b = map_at(a, PROT_READ | PROT_WRITE);
    memset(b, 2, N * pg);
    NT_CHECK(mprotect(b + 10 * pg, pg, PROT_NONE) == 0, "mprotect");
    NT_CHECK(write_faults((volatile char *)b + 10 * pg + 1),
             "serial code: a write to the program's PROT_NONE page succeeded");
    int faulted = 0;
#pragma omp parallel
    {
#pragma omp single
      faulted = write_faults((volatile char *)b + 10 * pg + 2);
    }
    NT_CHECK(faulted, "in a region: a write to the program's PROT_NONE page "
                      "succeeded");
    // In this process, inside a region: the program's handler must see it.
#pragma omp parallel
    {
#pragma omp master
      faulted = write_faults_here((volatile char *)b + 10 * pg + 3);
    }
    NT_CHECK(faulted, "in this process, in a region: the fault on the "
                      "program's PROT_NONE page never reached its handler");
    NT_CHECK(nt_maps_prot(b + 10 * pg) == PROT_NONE, "the guard is open: %d",
             nt_maps_prot(b + 10 * pg));
  } else {
    NT_CHECK(0, "mode %s", mode);
  }
  return nt_done("stale_range");
}
