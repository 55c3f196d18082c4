/*
 * kmp_pagetrap_sigmask.cpp -- the page-trap layer: SIGSEGV stays
 * deliverable in every thread, and the program cannot tell.
 *
 * The engines find out about a touch through the SIGSEGV of a fault on a
 * protected page.  The kernel cannot deliver a fault's SIGSEGV to a thread
 * that blocks it: it resets the action to SIG_DFL and kills the process,
 * without running any handler.  Blocking SIGSEGV never holds back a fault's
 * signal anyway -- it only holds back one sent with kill(2) or tgkill(2) --
 * so libomp keeps it deliverable, as the sanitizers' runtimes keep the
 * signals they handle, and shows the program the C library's behaviour:
 *
 *  - The mask (pthread_sigmask, sigprocmask, sigsuspend, pthread_create,
 *    siglongjmp and longjmp, which restore a saved mask by an internal call):
 *    the mask given to the kernel never blocks SIGSEGV; the thread's view
 *    (pt_tls_blocked) is what the calls return.  A thread created by one
 *    that blocks SIGSEGV, or with an attribute mask that blocks it, starts
 *    with SIGSEGV deliverable and blocked in its view.
 *  - A SIGSEGV sent (not a fault) to a thread that blocks it in its view is
 *    held by the layer's handler, with its siginfo: a thread-directed one
 *    (tgkill) by the thread, a process-directed one (kill, sigqueue) by the
 *    process.  sigpending shows it; sigwait, sigwaitinfo and sigtimedwait
 *    take it; when the thread unblocks SIGSEGV it is queued again to the
 *    thread with the same siginfo (rt_tgsigqueueinfo), as the kernel would
 *    deliver a pending one.
 *  - The action (sigaction, signal): once the layer's handler is in front,
 *    SIGSEGV's action is the program's in the layer's copy, never the
 *    kernel's: the calls read and set the copy, and the handler gives every
 *    signal no engine takes to it as the kernel would (SA_RESETHAND,
 *    SA_NODEFER, SIG_IGN for a sent one, SIG_DFL; a fault while the thread
 *    blocks SIGSEGV in its view kills the process).  A handler's sa_mask
 *    for another signal never blocks SIGSEGV in the kernel; the old action
 *    the call returns shows the mask as the program gave it.
 *
 * When ours goes in front: the first time an engine protects a page, or a
 * thread blocks SIGSEGV in its view.  When the wrappers pass every call
 * through: while both engines are off (KMP_NEXTTOUCH=false and
 * KMP_READONLY=false, read from the environment when libomp is loaded, so
 * that no call before libomp's initialisation is changed either).  Masks
 * set by raw system calls are not seen here: the check of every thread's
 * mask when pages are armed (kmp_nexttouch_guard.cpp) still covers them.
 *
 * Runs in the calling thread, also inside signal handlers, and what the
 * SIGSEGV handler calls (holding a sent SIGSEGV, the thread's view of its
 * mask, the program's action and its SA_RESETHAND reset, the real
 * sigprocmask and sigaction) in the handler [signal handler]: no locks (the
 * program's action is read and written under a sequence count), no
 * allocation but pthread_create's.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"
#include "kmp_str.h"

#if KMP_PAGETRAP_SUPPORTED
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

// Initial-exec TLS, as on the fault path.
#define PT_TLS __thread __attribute__((tls_model("initial-exec")))

// The program blocks SIGSEGV in this thread (its view; the kernel's mask
// does not), and the SIGSEGV sent to the thread meanwhile.
static PT_TLS int pt_tls_blocked;
static PT_TLS int pt_tls_held;
static PT_TLS siginfo_t pt_tls_held_si;

// A process-directed SIGSEGV that a thread blocking it received: 0 none,
// 1 being written or taken, 2 held.
static volatile int pt_proc_held;
static siginfo_t pt_proc_held_si;

// ---------------------------------------------------------------------------
// Whether the wrappers act

// Both engines off in the environment: nothing is ever changed.
static int pt_env_off;

// Run when libomp is loaded, before the program's main: the settings the
// engines will read (kmp_settings.cpp parses the same variables).
__attribute__((constructor)) static void pt_read_env() {
  const char *nt = getenv("KMP_NEXTTOUCH"), *ro = getenv("KMP_READONLY");
  pt_env_off =
      nt && ro && __kmp_str_match_false(nt) && __kmp_str_match_false(ro);
}

static int pt_active() {
  if (!TCR_4(__kmp_init_serial))
    return !pt_env_off;
  return __kmp_pt_enabled();
}

typedef int (*pt_sigmask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*pt_sigaction_fn)(int, const struct sigaction *,
                               struct sigaction *);

static pt_sigmask_fn pt_real_sigmask() {
  static void *volatile next;
  return (pt_sigmask_fn)__kmp_pt_next(&next, "pthread_sigmask");
}

int __kmp_pt_real_sigmask(int how, const sigset_t *set, sigset_t *old) {
  pt_sigmask_fn f = pt_real_sigmask();
  return f ? f(how, set, old) : ENOSYS;
}

int __kmp_pt_real_sigaction(int sig, const struct sigaction *act,
                            struct sigaction *old) {
  static void *volatile next;
  pt_sigaction_fn f = (pt_sigaction_fn)__kmp_pt_next(&next, "sigaction");
  if (!f) {
    errno = ENOSYS;
    return -1;
  }
  return f(sig, act, old);
}

static void pt_segv_set(sigset_t *s) {
  sigemptyset(s);
  sigaddset(s, SIGSEGV);
}

// ---------------------------------------------------------------------------
// SIGSEGV's action as the program sees it

// 0: the kernel's action is the program's; 1: ours is being put in front;
// 2: ours is in front and pt_action is the program's.
static volatile int pt_state;
// The program's action, written under a sequence count (odd while written;
// writers block every signal, so no handler of the writing thread waits).
static struct sigaction pt_action;
static volatile unsigned pt_action_seq;
// What the C library adds to every action it gives the kernel.
static void (*pt_restorer)(void);
static int pt_restorer_flag;

static void pt_action_write(const struct sigaction *a) {
  sigset_t all, old;
  sigfillset(&all);
  pt_sigmask_fn mask = pt_real_sigmask();
  if (mask)
    mask(SIG_SETMASK, &all, &old);
  unsigned s;
  do {
    s = __atomic_load_n(&pt_action_seq, __ATOMIC_ACQUIRE);
    if (s & 1) {
      KMP_CPU_PAUSE(); // another thread writes
      continue;
    }
  } while (!__atomic_compare_exchange_n(&pt_action_seq, &s, s + 1, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  pt_action = *a;
  __atomic_store_n(&pt_action_seq, s + 2, __ATOMIC_RELEASE);
  if (mask)
    mask(SIG_SETMASK, &old, NULL);
}

void __kmp_pt_program_action(struct sigaction *out) {
  for (;;) {
    unsigned s = __atomic_load_n(&pt_action_seq, __ATOMIC_ACQUIRE);
    if (s & 1) {
      KMP_CPU_PAUSE();
      continue;
    }
    memcpy(out, &pt_action, sizeof *out);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&pt_action_seq, __ATOMIC_RELAXED) == s)
      return;
  }
}

// The kernel resets a SA_RESETHAND action as it delivers the signal.
void __kmp_pt_program_action_reset() {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  dfl.sa_flags = pt_restorer_flag;
  dfl.sa_restorer = pt_restorer;
  pt_action_write(&dfl);
}

int __kmp_pt_handler_in_front(const struct sigaction *ours) {
  if (__atomic_load_n(&pt_state, __ATOMIC_ACQUIRE) == 2)
    return 1;
  // The thread that changes it does so with every asynchronous signal
  // blocked: a handler of the program that ran meanwhile on that thread and
  // blocked SIGSEGV (which puts ours in front) would wait for the frame it
  // interrupted.
  sigset_t sigs;
  __kmp_pt_block_async(&sigs);
  int zero = 0;
  if (!__atomic_compare_exchange_n(&pt_state, &zero, 1, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
    int st;
    while ((st = __atomic_load_n(&pt_state, __ATOMIC_ACQUIRE)) == 1)
      KMP_CPU_PAUSE(); // another thread puts it in front (or back)
    return st == 2;
  }
  struct sigaction cur, mine;
  int rc = 0;
  if (__kmp_pt_real_sigaction(SIGSEGV, NULL, &cur) == 0) {
    pt_action_write(&cur);
    __kmp_pt_real_sigaction(SIGSEGV, ours, NULL);
    if (__kmp_pt_real_sigaction(SIGSEGV, NULL, &mine) == 0) {
      pt_restorer = mine.sa_restorer;
      pt_restorer_flag =
          mine.sa_flags & ~(SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER);
    }
    rc = 1;
  }
  __atomic_store_n(&pt_state, rc ? 2 : 0, __ATOMIC_RELEASE);
  __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
  return rc;
}

// Both engines turned out to be off (libomp's settings said so after a
// wrapper acted): the program's action goes back to the kernel.
static void pt_handler_back() {
  sigset_t sigs;
  __kmp_pt_block_async(&sigs);
  int two = 2;
  if (__atomic_compare_exchange_n(&pt_state, &two, 1, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    struct sigaction a;
    __kmp_pt_program_action(&a);
    __kmp_pt_real_sigaction(SIGSEGV, &a, NULL);
    __atomic_store_n(&pt_state, 0, __ATOMIC_RELEASE);
  }
  __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
}

static int pt_in_front() {
  return __atomic_load_n(&pt_state, __ATOMIC_ACQUIRE) != 0;
}

static int pt_action_ignores(const struct sigaction *a) {
  return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

// ---------------------------------------------------------------------------
// Held signals

static void pt_proc_discard() {
  int two = 2;
  if (__atomic_compare_exchange_n(&pt_proc_held, &two, 1, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    __atomic_store_n(&pt_proc_held, 0, __ATOMIC_RELEASE);
}

static PT_TLS int pt_tls_waiting;
static PT_TLS int pt_tls_wait_blocked;

int __kmp_pt_hold_segv(const siginfo_t *si, void *uc) {
  if (!pt_tls_blocked || !si || si->si_code > 0)
    return 0; // a fault, or the thread does not block it
  // Held also when ignored: the kernel never ignores a blocked signal (the
  // action may change before the unblock).
  if (pt_tls_waiting && uc) {
    // About to wait for it (pt_wait): pending again, blocked in the context
    // the handler returns to, so that the wait's system call takes it.
    sigaddset(&((ucontext_t *)uc)->uc_sigmask, SIGSEGV);
    pt_tls_wait_blocked = 1;
    syscall(SYS_rt_tgsigqueueinfo, (long)getpid(), (long)syscall(SYS_gettid),
            SIGSEGV, si);
    return 1;
  }
  if (si->si_code == SI_TKILL) {
    if (!pt_tls_held) { // standard signals do not queue
      pt_tls_held_si = *si;
      pt_tls_held = 1;
    }
    return 1;
  }
  int zero = 0;
  if (__atomic_compare_exchange_n(&pt_proc_held, &zero, 1, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    pt_proc_held_si = *si;
    __atomic_store_n(&pt_proc_held, 2, __ATOMIC_RELEASE);
  }
  return 1;
}

// A SIGSEGV sent while the engines handle a fault in this thread: held
// until they are done (the thread's slot; standard signals do not queue).
void __kmp_pt_hold_segv_inside(const siginfo_t *si) {
  if (!pt_tls_held) {
    pt_tls_held_si = *si;
    pt_tls_held = 1;
  }
}

int __kmp_pt_take_held_inside(siginfo_t *si) {
  if (!pt_tls_held || pt_tls_blocked)
    return 0; // none, or held on until the thread unblocks it
  *si = pt_tls_held_si;
  pt_tls_held = 0;
  return 1;
}

int __kmp_pt_segv_blocked_view() { return pt_tls_blocked; }
void __kmp_pt_set_segv_blocked_view(int blocked) { pt_tls_blocked = blocked; }

// Takes the signal this thread may receive: its own held one, else the
// process's.  1 if there was one (in *si).
static int pt_take_held(siginfo_t *si) {
  if (pt_tls_held) {
    // A handler of this thread may take it too (its own unblock): the take
    // runs with every signal blocked.
    sigset_t all, old;
    sigfillset(&all);
    __kmp_pt_real_sigmask(SIG_SETMASK, &all, &old);
    int had = pt_tls_held;
    if (had) {
      *si = pt_tls_held_si;
      pt_tls_held = 0;
    }
    __kmp_pt_real_sigmask(SIG_SETMASK, &old, NULL);
    if (had)
      return 1;
  }
  int two = 2;
  if (!__atomic_compare_exchange_n(&pt_proc_held, &two, 1, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return 0;
  *si = pt_proc_held_si;
  __atomic_store_n(&pt_proc_held, 0, __ATOMIC_RELEASE);
  return 1;
}

static int pt_any_held() {
  return pt_tls_held || __atomic_load_n(&pt_proc_held, __ATOMIC_ACQUIRE) == 2;
}

// The held signal, queued again to this thread with its siginfo: the kernel
// then delivers it as it delivers a pending one (or keeps it pending).
// Both, if the thread held one and the process another: each is delivered
// (or pending) before the next is queued, as the kernel's two queues would.
static void pt_requeue_held() {
  siginfo_t si;
  while (pt_take_held(&si))
    syscall(SYS_rt_tgsigqueueinfo, (long)getpid(), (long)syscall(SYS_gettid),
            SIGSEGV, &si);
}

// The wrappers act no more, but this thread's view still blocks SIGSEGV:
// the kernel blocks it from now on, and what was held is pending there.
static void pt_settle(pt_sigmask_fn real) {
  pt_handler_back();
  if (!pt_tls_blocked)
    return;
  sigset_t segv;
  pt_segv_set(&segv);
  real(SIG_BLOCK, &segv, NULL);
  pt_tls_blocked = 0;
  pt_requeue_held();
}

// ---------------------------------------------------------------------------
// The mask

// The mask change of pthread_sigmask/sigprocmask through `real`; returns its
// result (an error number or -1, as `real` does).
static int pt_sigmask(pt_sigmask_fn real, int how, const sigset_t *set,
                      sigset_t *old) {
  if (!pt_active()) {
    pt_sigmask_fn m = pt_real_sigmask();
    if (m)
      pt_settle(m);
    return real(how, set, old);
  }
  int was = pt_tls_blocked, now = was;
  sigset_t mask;
  const sigset_t *pass = set;
  if (set) {
    if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
      return real(how, set, old); // the C library's error
    int in = sigismember(set, SIGSEGV) == 1;
    if (how == SIG_BLOCK)
      now = was || in;
    else if (how == SIG_UNBLOCK)
      now = was && !in;
    else
      now = in;
    if (in && how != SIG_UNBLOCK) {
      mask = *set;
      sigdelset(&mask, SIGSEGV);
      pass = &mask;
      __kmp_pt_install_handler(); // it holds a SIGSEGV sent meanwhile
    }
  }
  // The view changes with the kernel's mask: a SIGSEGV sent in between is
  // held (blocked in both) or delivered (in neither).
  if (now && !was)
    pt_tls_blocked = 1;
  int rc = real(how, pass, old);
  if (rc != 0) {
    pt_tls_blocked = was;
    return rc;
  }
  if (old && was)
    sigaddset(old, SIGSEGV);
  pt_tls_blocked = now;
  if (was && !now)
    pt_requeue_held();
  return 0;
}

extern "C" int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  pt_sigmask_fn f = pt_real_sigmask();
  return f ? pt_sigmask(f, how, set, old) : ENOSYS;
}

extern "C" int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  KMP_PT_NEXT(pt_sigmask_fn, "sigprocmask", -1)
  return pt_sigmask(f, how, set, old);
}

extern "C" int sigpending(sigset_t *set) {
  typedef int (*fn_t)(sigset_t *);
  KMP_PT_NEXT(fn_t, "sigpending", -1)
  int rc = f(set);
  if (rc == 0 && pt_active() && pt_any_held())
    sigaddset(set, SIGSEGV);
  return rc;
}

// The thread waits with `mask` in its view; the kernel's never blocks
// SIGSEGV (a handler that runs meanwhile may touch a protected page).
extern "C" int sigsuspend(const sigset_t *mask) {
  typedef int (*fn_t)(const sigset_t *);
  KMP_PT_NEXT(fn_t, "sigsuspend", -1)
  const sigset_t *volatile given = mask; // NULL: the C library's EFAULT
  if (!given || !pt_active())
    return f(mask);
  sigset_t m = *mask;
  int was = pt_tls_blocked;
  int in = sigismember(&m, SIGSEGV) == 1;
  sigdelset(&m, SIGSEGV);
  // A held one is pending in the kernel, blocked there until the wait
  // starts: delivered as it starts.  The kernel blocks SIGSEGV only in this
  // wrapper, where nothing faults.
  pt_sigmask_fn real = pt_real_sigmask();
  int requeue = !in && real && pt_any_held();
  sigset_t segv;
  pt_segv_set(&segv);
  if (requeue) {
    real(SIG_BLOCK, &segv, NULL);
    pt_requeue_held();
  }
  pt_tls_blocked = in;
  int rc = f(&m);
  int e = errno;
  pt_tls_blocked = was;
  if (requeue)
    real(SIG_UNBLOCK, &segv, NULL);
  errno = e;
  return rc;
}

// sigwait, sigwaitinfo, sigtimedwait for a set with SIGSEGV: a held one is
// taken first; one sent while the thread waits is the kernel's to give to
// the wait.  One that reaches the handler between the check and the system
// call is made pending again there, with SIGSEGV blocked in the context the
// handler returns to (__kmp_pt_hold_segv), and unblocked after the wait.

template <typename Wait>
static int pt_wait(const sigset_t *set, siginfo_t *info, Wait wait) {
  if (!set || !pt_active() || sigismember(set, SIGSEGV) != 1)
    return wait();
  pt_tls_waiting = 1;
  siginfo_t si;
  int rc;
  if (pt_take_held(&si)) {
    if (info)
      *info = si;
    rc = SIGSEGV;
  } else {
    rc = wait();
  }
  int e = errno;
  pt_tls_waiting = 0;
  if (pt_tls_wait_blocked) {
    pt_tls_wait_blocked = 0;
    sigset_t segv;
    pt_segv_set(&segv);
    pt_sigmask_fn m = pt_real_sigmask();
    if (m)
      m(SIG_UNBLOCK, &segv, NULL); // still pending: held by the handler
  }
  errno = e;
  return rc;
}

// The signal is consumed before the kernel copies its siginfo out: the
// kernel writes the wrapper's own siginfo, copied out with ordinary stores
// (a readonly item a running region lists is refused first: EFAULT,
// nothing consumed).
template <typename Wait>
static int pt_wait_info(const sigset_t *set, siginfo_t *info, Wait wait) {
  if (!info || !pt_active())
    return pt_wait(set, info, [&] { return wait(info); });
  if (__kmp_pt_buffer((uintptr_t)info, (uintptr_t)(info + 1), 1)) {
    errno = EFAULT;
    return -1;
  }
  siginfo_t si;
  int rc = pt_wait(set, &si, [&] { return wait(&si); });
  if (rc > 0)
    *info = si;
  return rc;
}

extern "C" int sigtimedwait(const sigset_t *set, siginfo_t *info,
                            const struct timespec *timeout) {
  typedef int (*fn_t)(const sigset_t *, siginfo_t *, const struct timespec *);
  KMP_PT_NEXT(fn_t, "sigtimedwait", -1)
  return pt_wait_info(set, info,
                      [&](siginfo_t *to) { return f(set, to, timeout); });
}

extern "C" int sigwaitinfo(const sigset_t *set, siginfo_t *info) {
  typedef int (*fn_t)(const sigset_t *, siginfo_t *);
  KMP_PT_NEXT(fn_t, "sigwaitinfo", -1)
  return pt_wait_info(set, info, [&](siginfo_t *to) { return f(set, to); });
}

extern "C" int sigwait(const sigset_t *set, int *sig) {
  typedef int (*fn_t)(const sigset_t *, int *);
  static void *volatile next;
  fn_t f = (fn_t)__kmp_pt_next(&next, "sigwait");
  if (!f)
    return ENOSYS;
  int err = 0;
  int rc = pt_wait(set, NULL, [&] { return (err = f(set, sig)) ? -1 : 0; });
  if (rc == SIGSEGV)
    *sig = SIGSEGV;
  return rc == SIGSEGV ? 0 : err;
}

// siglongjmp and longjmp restore the mask sigsetjmp saved, by an internal
// call: the view follows it (a jump out of the program's SIGSEGV handler,
// which ran with SIGSEGV blocked in the view, unblocks it again).  Without a
// saved mask the view stays, as the kernel's mask would.
typedef void (*pt_jump_fn)(struct __jmp_buf_tag *, int);

static void pt_jump_view(struct __jmp_buf_tag *env) {
  if (!env->__mask_was_saved || !pt_active())
    return;
  int was = pt_tls_blocked;
  pt_tls_blocked = sigismember(&env->__saved_mask, SIGSEGV) == 1;
  if (was && !pt_tls_blocked)
    pt_requeue_held();
}

#define KMP_PT_JUMP(name)                                                      \
  extern "C" void name(struct __jmp_buf_tag env[1], int val) {                 \
    static void *volatile next;                                                \
    pt_jump_fn f = (pt_jump_fn)__kmp_pt_next(&next, #name);                    \
    if (!f)                                                                    \
      abort();                                                                 \
    pt_jump_view(env);                                                         \
    f(env, val);                                                               \
    __builtin_unreachable();                                                   \
  }
KMP_PT_JUMP(siglongjmp)
KMP_PT_JUMP(longjmp)
KMP_PT_JUMP(_longjmp)
KMP_PT_JUMP(__longjmp_chk)

// A thread that starts blocking SIGSEGV in the program's view.
struct pt_start {
  void *(*fn)(void *);
  void *arg;
};

static void *pt_start_blocked(void *p) {
  pt_start s = *(pt_start *)p;
  free(p);
  pt_sigmask_fn f = pt_real_sigmask();
  sigset_t segv;
  pt_segv_set(&segv);
  pt_tls_blocked = 1;
  if (f)
    f(SIG_UNBLOCK, &segv, NULL);
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
  if (!pt_active())
    return f(th, attr, fn, arg);
  int blocked = pt_tls_blocked;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
  sigset_t am;
  if (attr && pthread_attr_getsigmask_np(attr, &am) == 0)
    blocked = sigismember(&am, SIGSEGV) == 1;
#endif
  if (!blocked)
    return f(th, attr, fn, arg);
  __kmp_pt_install_handler();
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

// ---------------------------------------------------------------------------
// The action

// SIGSEGV's action while ours is in front: the layer's copy.
static int pt_segv_action(const struct sigaction *act, struct sigaction *old) {
  if (old)
    __kmp_pt_program_action(old);
  if (act) {
    struct sigaction a = *act;
    a.sa_flags |= pt_restorer_flag; // as the kernel would report it
    if (pt_restorer_flag)
      a.sa_restorer = pt_restorer;
    sigdelset(&a.sa_mask, SIGKILL); // the kernel never blocks these
    sigdelset(&a.sa_mask, SIGSTOP);
    pt_action_write(&a);
    if (pt_action_ignores(&a)) { // ignoring discards what is pending
      pt_tls_held = 0;
      pt_proc_discard();
    }
  }
  return 0;
}

// sigaction: the signals whose handler the program gave a mask with SIGSEGV.
static volatile kmp_uint64 pt_sa_segv;

extern "C" int sigaction(int sig, const struct sigaction *act,
                         struct sigaction *old) {
  if (sig == SIGSEGV) {
    if (pt_in_front() && !pt_active())
      pt_handler_back();
    while (__atomic_load_n(&pt_state, __ATOMIC_ACQUIRE) == 1)
      KMP_CPU_PAUSE(); // being put in front or taken back
    if (__atomic_load_n(&pt_state, __ATOMIC_ACQUIRE) == 2)
      return pt_segv_action(act, old);
    return __kmp_pt_real_sigaction(sig, act, old);
  }
  // SIGSEGV's own handler has it blocked while it runs, as the kernel does
  // for every handler (unless SA_NODEFER): its mask is left alone.
  if (!pt_active() || sig <= 0 || sig > 64)
    return __kmp_pt_real_sigaction(sig, act, old);
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
  int rc = __kmp_pt_real_sigaction(sig, pass, old);
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

// signal() is sigaction in the C library, by an internal call: the same
// copy while ours is in front (BSD semantics, as glibc's signal()).
extern "C" sighandler_t signal(int sig, sighandler_t handler) {
  typedef sighandler_t (*fn_t)(int, sighandler_t);
  static void *volatile next;
  fn_t f = (fn_t)__kmp_pt_next(&next, "signal");
  if (sig != SIGSEGV || !pt_in_front()) {
    if (!f) {
      errno = ENOSYS;
      return SIG_ERR;
    }
    return f(sig, handler);
  }
  if (handler == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, sig);
  act.sa_flags = SA_RESTART;
  if (sigaction(sig, &act, &old) < 0)
    return SIG_ERR;
  return old.sa_handler;
}

#endif // KMP_PAGETRAP_SUPPORTED
