/*
 * kmp_pagetrap_fault.cpp -- the page-trap layer: the SIGSEGV handler.
 *
 * RUNS IN THE SIGSEGV HANDLER: async-signal-safe code only -- no locks, no
 * allocation, no stdio, no libomp data structures (an engine may have
 * protected the heap they live in).
 *
 * The handler asks the registered engines in turn whether a fault on a
 * protected page (SEGV_ACCERR) is theirs (kmp_pt_engine::fault): readonly's
 * write faults on list items, then next-touch's armed pages.  A fault no
 * engine takes goes to the handler that was installed before ours, or ends
 * the process as the default action would.  A SIGSEGV sent (not a fault) to
 * a thread that blocks it in the program's view is held until the thread
 * unblocks it (kmp_pagetrap_sigmask.cpp).
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
#include <string.h>
#include <ucontext.h>

// Initial-exec TLS: an access is one %fs-relative load, never
// __tls_get_addr (whose DTV lives in the heap, which an engine may protect).
#define PT_TLS __thread __attribute__((tls_model("initial-exec")))

// Every catchable signal but the synchronous ones, which are never blocked
// (the kernel would kill the process).
static void pt_async_signals(sigset_t *set) {
  sigfillset(set);
  sigdelset(set, SIGSEGV);
  sigdelset(set, SIGBUS);
  sigdelset(set, SIGILL);
  sigdelset(set, SIGFPE);
  sigdelset(set, SIGTRAP);
}

void __kmp_pt_block_async(sigset_t *old) {
  sigset_t all;
  pt_async_signals(&all);
  __kmp_pt_real_sigmask(SIG_BLOCK, &all, old);
}

// Set while a fault that is not ours runs the program's handler: if that
// handler calls ours again for the same fault (it chains to what it found,
// which may be us), the fault gets the default action.  A handler that leaves
// with siglongjmp never clears it; the frame address tells a call back (a
// deeper frame for the same siginfo) from a later fault.
static PT_TLS const siginfo_t *pt_tls_chain_si;
static PT_TLS uintptr_t pt_tls_chain_frame;

// The default action: die by the signal.  A fault re-executes the
// instruction once the handler returns; a signal sent with kill() is raised
// again.  The kernel's action is then the default for good, as the kernel
// leaves it after a fault it cannot deliver.
static void pt_die(int sig, siginfo_t *si) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  __kmp_pt_real_sigaction(sig, &dfl, NULL);
  if (si->si_code <= 0)
    raise(sig);
}

// A SIGSEGV no engine takes gets the program's action, as the kernel would
// have given it (kmp_pagetrap_sigmask.cpp keeps that action).
static void pt_chain(int sig, siginfo_t *si, void *uc) {
  struct sigaction prev;
  __kmp_pt_program_action(&prev);
  uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
  int fault = si->si_code > 0;
  // A fault in a thread that blocks SIGSEGV kills the process; so does the
  // same fault again from the handler we chained to.
  if ((fault && __kmp_pt_segv_blocked_view()) ||
      (pt_tls_chain_si == si && frame < pt_tls_chain_frame))
    return pt_die(sig, si);
  int info = (prev.sa_flags & SA_SIGINFO) != 0;
  if (!info && prev.sa_handler == SIG_IGN) {
    if (fault) // the kernel does not let a fault be ignored
      pt_die(sig, si);
    return; // a sent one is discarded
  }
  if (!info && prev.sa_handler == SIG_DFL)
    return pt_die(sig, si);
  // Run it as the kernel would: with the interrupted context's mask, its
  // own and the signal (unless SA_NODEFER), once only with SA_RESETHAND;
  // SIGSEGV blocked in the thread's view, not in the kernel.  It may
  // return, or leave with siglongjmp.
  if (prev.sa_flags & SA_RESETHAND)
    __kmp_pt_program_action_reset();
  sigset_t old, mask;
  if (uc)
    mask = ((ucontext_t *)uc)->uc_sigmask;
  else
    sigemptyset(&mask);
  sigorset(&mask, &mask, &prev.sa_mask);
  if (!(prev.sa_flags & SA_NODEFER))
    sigaddset(&mask, sig);
  int view = __kmp_pt_segv_blocked_view();
  __kmp_pt_set_segv_blocked_view(view || sigismember(&mask, SIGSEGV) == 1);
  sigdelset(&mask, SIGSEGV);
  __kmp_pt_real_sigmask(SIG_SETMASK, &mask, &old);
  const siginfo_t *saved_si = pt_tls_chain_si;
  uintptr_t saved_frame = pt_tls_chain_frame;
  pt_tls_chain_si = si;
  pt_tls_chain_frame = frame;
  if (info)
    prev.sa_sigaction(sig, si, uc);
  else
    prev.sa_handler(sig);
  pt_tls_chain_si = saved_si;
  pt_tls_chain_frame = saved_frame;
  __kmp_pt_real_sigmask(SIG_SETMASK, &old, NULL);
  __kmp_pt_set_segv_blocked_view(view);
}

// Inside the engines' part of the handler.  The handler runs with
// SA_NODEFER, so that the kernel never shows SIGSEGV blocked in a thread
// that only handles a fault (the check of every thread's mask at arming
// would take it for a thread that blocks SIGSEGV): a SIGSEGV sent meanwhile
// runs the handler again inside, and is held until the engines are done,
// as the kernel would hold it until the handler returns.
static PT_TLS int pt_tls_inside;

static void pt_handler(int sig, siginfo_t *si, void *uc) {
  int saved_errno = errno;
  if (pt_tls_inside && si->si_code <= 0) {
    __kmp_pt_hold_segv_inside(si);
    errno = saved_errno;
    return;
  }
  // A SIGSEGV sent (not a fault) to a thread that blocks it in the program's
  // view waits until the thread unblocks it (kmp_pagetrap_sigmask.cpp).
  if (sig == SIGSEGV && __kmp_pt_hold_segv(si, uc)) {
    errno = saved_errno;
    return;
  }
  // The engines in order (readonly, then next-touch): a page is never held
  // by both.
  int taken = 0;
  pt_tls_inside = 1;
  if (sig == SIGSEGV && si->si_code == SEGV_ACCERR)
    for (int id = 0; id < KMP_PT_MAX_ENGINES && !taken; id++) {
      const kmp_pt_engine *e =
          __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
      taken = e && e->fault && e->fault((uintptr_t)si->si_addr, uc);
    }
  pt_tls_inside = 0;
  siginfo_t held;
  if (__kmp_pt_take_held_inside(&held)) // as at the handler's return
    pt_chain(sig, &held, uc);
  errno = saved_errno;
  if (!taken)
    pt_chain(sig, si, uc);
}

// Put our handler first; the program's action becomes the layer's copy.
// The handler runs with every other catchable signal blocked: a signal
// handler that ran while this thread holds a claim, and touched the unit
// (or stopped the world until another thread finished), could never finish.
void __kmp_pt_install_handler() {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = pt_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
  pt_async_signals(&sa.sa_mask);
  __kmp_pt_handler_in_front(&sa);
}

#endif // KMP_PAGETRAP_SUPPORTED
