/*
 * kmp_pagetrap_sigmask.cpp -- the page-trap layer: SIGSEGV stays
 * deliverable in every thread.
 *
 * The engines find out about a touch through the SIGSEGV of a fault on a
 * protected page.  The kernel cannot deliver a fault's SIGSEGV to a thread
 * that blocks it: it resets the action to SIG_DFL and kills the process,
 * without running any handler.  Blocking SIGSEGV never holds back a fault's
 * signal anyway -- it only holds back one sent with kill(2) or tgkill(2) --
 * so libomp keeps it deliverable, as the sanitizers' runtimes keep the
 * signals they handle: it wraps the C library's calls that change a
 * thread's signal mask or give a new thread one.
 *
 *  - pthread_sigmask, sigprocmask: the mask given to the kernel never
 *    blocks SIGSEGV.  The thread's own view is kept (the old mask the calls
 *    return says SIGSEGV is blocked if the program blocked it), and a
 *    SIGSEGV sent to the thread while the program blocks it is held by the
 *    layer's handler and raised again when the program unblocks it
 *    (__kmp_pt_hold_segv).
 *  - pthread_create: a thread created by one that blocks SIGSEGV, or with
 *    an attribute mask that blocks it (pthread_attr_setsigmask_np), starts
 *    with SIGSEGV deliverable and blocked in its own view.
 *  - sigaction: a handler's sa_mask never blocks SIGSEGV while the handler
 *    runs (sigfillset(&sa.sa_mask) is common); the old action the call
 *    returns shows the mask as the program gave it.
 *
 * Active while KMP_NEXTTOUCH or KMP_READONLY is on (the default); then a
 * call that would block SIGSEGV puts the layer's handler in front, which
 * holds a SIGSEGV sent to a thread that blocks it.  Masks set by raw system
 * calls are not seen here: the check of every thread's mask when pages are
 * armed (kmp_nexttouch_guard.cpp) still covers them.
 *
 * Runs in the calling thread, also inside signal handlers (the calls are
 * async-signal-safe: no locks, no allocation but pthread_create's).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"

#if KMP_PAGETRAP_SUPPORTED
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

// Initial-exec TLS, as on the fault path.
#define PT_TLS __thread __attribute__((tls_model("initial-exec")))

// The program blocks SIGSEGV in this thread (its view; the kernel's mask
// does not), and a SIGSEGV sent to it meanwhile is held.
static PT_TLS int pt_tls_segv_blocked;
static PT_TLS int pt_tls_segv_held;

// sigaction: the signals whose handler the program gave a mask with SIGSEGV.
static volatile kmp_uint64 pt_sa_segv;

// Whenever the kernel is asked for a mask without SIGSEGV that the program
// wanted with it: the engines' handler is in front (one query when it is
// already), so that it holds a SIGSEGV sent meanwhile.
static void pt_handler_for_held() { __kmp_pt_install_handler(); }

int __kmp_pt_hold_segv(const siginfo_t *si) {
  if (!pt_tls_segv_blocked || !si || si->si_code > 0)
    return 0; // a fault, or the thread does not block it
  pt_tls_segv_held = 1;
  return 1;
}

typedef int (*pt_sigmask_fn)(int, const sigset_t *, sigset_t *);

// The mask change of pthread_sigmask/sigprocmask through `real`; returns its
// result (an error number or -1, as `real` does).
static int pt_sigmask(pt_sigmask_fn real, int how, const sigset_t *set,
                      sigset_t *old) {
  if (!__kmp_pt_enabled())
    return real(how, set, old);
  int was = pt_tls_segv_blocked, now = was;
  sigset_t mask;
  const sigset_t *pass = set;
  if (set) {
    int in = sigismember(set, SIGSEGV) == 1;
    if (how == SIG_BLOCK)
      now = was || in;
    else if (how == SIG_UNBLOCK)
      now = was && !in;
    else if (how == SIG_SETMASK)
      now = in;
    if (in && how != SIG_UNBLOCK) {
      mask = *set;
      sigdelset(&mask, SIGSEGV);
      pass = &mask;
      pt_handler_for_held();
    }
  }
  int rc = real(how, pass, old);
  if (rc != 0)
    return rc;
  if (old && was)
    sigaddset(old, SIGSEGV);
  pt_tls_segv_blocked = now;
  if (was && !now && pt_tls_segv_held) {
    pt_tls_segv_held = 0;
    syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), SIGSEGV);
  }
  return 0;
}

extern "C" int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  static void *volatile next;
  pt_sigmask_fn f = (pt_sigmask_fn)__kmp_pt_next(&next, "pthread_sigmask");
  return f ? pt_sigmask(f, how, set, old) : ENOSYS;
}

extern "C" int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  KMP_PT_NEXT(pt_sigmask_fn, "sigprocmask", -1)
  return pt_sigmask(f, how, set, old);
}

// A thread that starts blocking SIGSEGV in the program's view.
struct pt_start {
  void *(*fn)(void *);
  void *arg;
};

static void *pt_start_blocked(void *p) {
  pt_start s = *(pt_start *)p;
  free(p);
  static void *volatile next;
  pt_sigmask_fn f = (pt_sigmask_fn)__kmp_pt_next(&next, "pthread_sigmask");
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  if (f)
    f(SIG_UNBLOCK, &segv, NULL);
  pt_tls_segv_blocked = 1;
  return s.fn(s.arg);
}

extern "C" int pthread_create(pthread_t *th, const pthread_attr_t *attr,
                              void *(*fn)(void *), void *arg) {
  static void *volatile next;
  typedef int (*fn_t)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                      void *);
  fn_t f = (fn_t)__kmp_pt_next(&next, "pthread_create");
  if (!f)
    return ENOSYS;
  if (!__kmp_pt_enabled())
    return f(th, attr, fn, arg);
  int blocked = pt_tls_segv_blocked;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
  sigset_t am;
  if (attr && pthread_attr_getsigmask_np(attr, &am) == 0)
    blocked = sigismember(&am, SIGSEGV) == 1;
#endif
  if (!blocked)
    return f(th, attr, fn, arg);
  pt_handler_for_held();
  pt_start *s = (pt_start *)malloc(sizeof(pt_start));
  if (!s)
    return EAGAIN;
  s->fn = fn;
  s->arg = arg;
  int rc = f(th, attr, pt_start_blocked, s);
  if (rc)
    free(s);
  return rc;
}

extern "C" int sigaction(int sig, const struct sigaction *act,
                         struct sigaction *old) {
  typedef int (*fn_t)(int, const struct sigaction *, struct sigaction *);
  KMP_PT_NEXT(fn_t, "sigaction", -1)
  // SIGSEGV's own handler has it blocked while it runs, as the kernel does
  // for every handler (unless SA_NODEFER): its mask is left alone.
  if (!__kmp_pt_enabled() || sig == SIGSEGV || sig <= 0 || sig > 64)
    return f(sig, act, old);
  kmp_uint64 bit = (kmp_uint64)1 << (sig - 1);
  struct sigaction a;
  const struct sigaction *pass = act;
  int asked = act && sigismember(&act->sa_mask, SIGSEGV) == 1;
  if (asked) {
    a = *act;
    sigdelset(&a.sa_mask, SIGSEGV);
    pass = &a;
  }
  kmp_uint64 had = __atomic_load_n(&pt_sa_segv, __ATOMIC_ACQUIRE) & bit;
  int rc = f(sig, pass, old);
  if (rc != 0)
    return rc;
  if (old && had)
    sigaddset(&old->sa_mask, SIGSEGV);
  if (act) {
    if (asked)
      __atomic_fetch_or(&pt_sa_segv, bit, __ATOMIC_ACQ_REL);
    else
      __atomic_fetch_and(&pt_sa_segv, ~bit, __ATOMIC_ACQ_REL);
  }
  return 0;
}

#endif // KMP_PAGETRAP_SUPPORTED
