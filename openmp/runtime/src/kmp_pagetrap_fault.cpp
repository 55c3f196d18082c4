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
  pthread_sigmask(SIG_BLOCK, &all, old);
}

// Set while a fault that is not ours runs the previous handler: if that
// handler calls ours again for the same fault (it chains to what it found,
// which may be us), the fault gets the default action.  A handler that leaves
// with siglongjmp never clears it; the frame address tells a call back (a
// deeper frame for the same siginfo) from a later fault.
static PT_TLS const siginfo_t *pt_tls_chain_si;
static PT_TLS uintptr_t pt_tls_chain_frame;

static struct sigaction pt_prev_action;

static void pt_handler(int sig, siginfo_t *si, void *uc);

static void pt_chain(int sig, siginfo_t *si, void *uc) {
  struct sigaction prev = pt_prev_action;
  uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
  if (pt_tls_chain_si == si && frame < pt_tls_chain_frame) {
    // The handler we chained to called us back for the same fault.
    prev.sa_handler = SIG_DFL;
    prev.sa_flags = 0;
  }
  void (*call)(int, siginfo_t *, void *) = NULL;
  void (*call_plain)(int) = NULL;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction &&
      prev.sa_sigaction != pt_handler)
    call = prev.sa_sigaction;
  else if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL &&
           prev.sa_handler != SIG_IGN)
    call_plain = prev.sa_handler;
  if (call || call_plain) {
    // Run it as the kernel would: with its own mask (plus the signal, unless
    // SA_NODEFER).  It may return, or leave with siglongjmp.
    sigset_t old, mask = prev.sa_mask;
    if (!(prev.sa_flags & SA_NODEFER))
      sigaddset(&mask, sig);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    const siginfo_t *saved_si = pt_tls_chain_si;
    uintptr_t saved_frame = pt_tls_chain_frame;
    pt_tls_chain_si = si;
    pt_tls_chain_frame = frame;
    if (call)
      call(sig, si, uc);
    else
      call_plain(sig);
    pt_tls_chain_si = saved_si;
    pt_tls_chain_frame = saved_frame;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return;
  }
  // Default action: die by the signal.  A fault re-executes the instruction
  // once the handler returns; a signal sent with kill() is raised again.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  if (si->si_code <= 0)
    raise(sig);
}

static void pt_handler(int sig, siginfo_t *si, void *uc) {
  int saved_errno = errno;
  // A SIGSEGV sent (not a fault) to a thread that blocks it in the program's
  // view waits until the thread unblocks it (kmp_pagetrap_sigmask.cpp).
  if (sig == SIGSEGV && __kmp_pt_hold_segv(si)) {
    errno = saved_errno;
    return;
  }
  // The engines in order (readonly, then next-touch): a page is never held
  // by both.
  if (sig == SIGSEGV && si && si->si_code == SEGV_ACCERR)
    for (int id = 0; id < KMP_PT_NUM_ENGINES; id++) {
      const kmp_pt_engine *e =
          __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
      if (e && e->fault && e->fault((uintptr_t)si->si_addr, uc)) {
        errno = saved_errno;
        return;
      }
    }
  errno = saved_errno;
  pt_chain(sig, si, uc);
}

// Put our handler first; whatever was there becomes the one we chain to.
// The handler runs with every other catchable signal blocked: a signal
// handler that ran while this thread holds a claim, and touched the unit
// (or stopped the world until another thread finished), could never finish.
void __kmp_pt_install_handler() {
  struct sigaction cur;
  if (sigaction(SIGSEGV, NULL, &cur) != 0)
    return;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == pt_handler)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = pt_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  pt_async_signals(&sa.sa_mask);
  pt_prev_action = cur;
  KMP_MB();
  sigaction(SIGSEGV, &sa, NULL);
}

#endif // KMP_PAGETRAP_SUPPORTED
