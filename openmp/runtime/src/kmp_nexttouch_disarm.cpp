/*
 * kmp_nexttouch_disarm.cpp -- affinity-on-next-touch: ending arming
 * (KMP_NEXTTOUCH_LIFETIME at a join, kmp_nexttouch_disarm, shutdown),
 * freeing the segments nothing is armed in, fork(2), and the runtime's hooks
 * at the fork and the join of a team.
 *
 * Runs on the primary thread of a forking/joining team or in the calling
 * thread of the API, under __kmp_nt_lock; never in a signal handler.  It
 * frees a segment only once no handler is inside the table.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"
#include "kmp_i18n.h"

#include <errno.h>
#if KMP_NEXTTOUCH_SUPPORTED
#include <pthread.h>
#endif

#if KMP_NEXTTOUCH_SUPPORTED

// ---------------------------------------------------------------------------
// Ending arming

// Claim what is still armed in [lo, hi) of seg so that no fault migrates it
// meanwhile, give it its protection back where it is, and release it.
// Returns the pages disarmed.  Lock-free and async-signal-safe (the
// wrappers of kmp_nexttouch_mm.cpp call it outside __kmp_nt_lock).
kmp_uint64 __kmp_nt_disarm_units(kmp_nt_segment *seg, size_t lo, size_t hi) {
  kmp_uint64 left = 0;
  for (size_t u = lo; u < hi;) {
    unsigned char s = __atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE);
    if (!(s & KMP_NT_ARMED) ||
        !__atomic_compare_exchange_n(&seg->state[u], &s, KMP_NT_CLAIMED, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      u++;
      continue;
    }
    size_t e = u + 1;
    for (; e < hi; e++) {
      unsigned char t = __atomic_load_n(&seg->state[e], __ATOMIC_ACQUIRE);
      if (!(t & KMP_NT_ARMED) ||
          !__atomic_compare_exchange_n(&seg->state[e], &t, KMP_NT_CLAIMED,
                                       false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        break;
    }
    left += e - u;
    __kmp_nt_restore(seg, u, e - u, 0);
    __kmp_nt_done(seg, u, e - u);
    u = e;
  }
  return left * __kmp_nt_unit_pages(seg);
}

// Free the segments that have nothing armed left (touched or disarmed), so
// the table does not fill up in long runs.
static void nt_sweep() {
  kmp_nt_segment **gone = NULL;
  int ngone = 0, remaining = 0;
  for (int i = 0; i < __kmp_nt_table_hwm; i++) {
    kmp_nt_segment *s = __kmp_nt_table[i];
    if (!s)
      continue;
    if (__atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE)) {
      remaining++;
      continue;
    }
    if (!gone)
      gone = (kmp_nt_segment **)__kmp_allocate(sizeof(*gone) *
                                               KMP_NT_MAX_SEGMENTS);
    __atomic_store_n(&__kmp_nt_table[i], (kmp_nt_segment *)NULL,
                     __ATOMIC_RELEASE);
    gone[ngone++] = s;
  }
  if (ngone) {
    // A handler that looked a segment up before the store may still use it:
    // bump the generation and wait until none is inside the table.
    __atomic_fetch_add(&__kmp_nt_gen, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&__kmp_nt_handlers_active, __ATOMIC_SEQ_CST))
      KMP_CPU_PAUSE();
    for (int j = 0; j < ngone; j++)
      __kmp_nt_free_segment(gone[j]);
    __kmp_free(gone);
  }
  while (__kmp_nt_table_hwm > 0 && !__kmp_nt_table[__kmp_nt_table_hwm - 1])
    __kmp_nt_table_hwm--;
  if (!remaining)
    TCW_4(__kmp_nexttouch_armed, 0);
}

// Disarm what is armed in [start, end) (everything for start == end == 0);
// the pages are counted in pages_disarmed or pages_expired.
static void nt_disarm_range(uintptr_t start, uintptr_t end, int expired) {
  kmp_uint64 t0 = __kmp_nt_now_ns(), pages = 0;
  int all = start == 0 && end == 0;
  if (expired) { // anything to do?  Most joins have nothing.
    int any = 0;
    for (int i = 0; i < __kmp_nt_table_hwm && !any; i++)
      any = __kmp_nt_table[i] &&
            __kmp_nt_forks - __kmp_nt_table[i]->armed_at >=
                (kmp_uint64)__kmp_nexttouch_lifetime;
    if (!any)
      return nt_sweep();
  }
  int nvmas;
  kmp_nt_vma *vmas = __kmp_nt_check_armed(&nvmas, 0);
  if (vmas)
    __kmp_free(vmas);
  for (int i = 0; i < __kmp_nt_table_hwm; i++) {
    kmp_nt_segment *s = __kmp_nt_table[i];
    if (!s)
      continue;
    if (expired) {
      if (__kmp_nt_forks - s->armed_at < (kmp_uint64)__kmp_nexttouch_lifetime)
        continue;
    } else if (!all && (s->end <= start || s->base >= end)) {
      continue;
    }
    uintptr_t a = all || expired || start < s->base ? s->base : start;
    uintptr_t b = all || expired || end > s->end ? s->end : end;
    size_t lo = (a - s->base) >> s->shift;
    size_t hi = (b - s->base + ((uintptr_t)1 << s->shift) - 1) >> s->shift;
    pages += __kmp_nt_disarm_units(s, lo, hi);
  }
  if (expired)
    KMP_NT_ADD(pages_expired, pages);
  else
    KMP_NT_ADD(pages_disarmed, pages);
  nt_sweep();
  KMP_NT_ADD(disarm_ns, __kmp_nt_now_ns() - t0);
}

// ---------------------------------------------------------------------------
// Threads that block SIGSEGV: the kernel kills the process when one of them
// touches an armed page (no handler runs; see __kmp_nt_segv_blocker).  At
// every fork that would arm and at joins while pages are armed (see
// nt_segv_guard_join), the engine looks for such a thread; while one exists nothing is armed: the pending
// requests are dropped (fail_arm) and what is armed is disarmed in place
// (pages_disarmed), with a warning naming the thread.  Returns 1 then.

static int nt_segv_guard() {
  char name[32];
  int tid = __kmp_nt_segv_blocker(name, sizeof name);
  if (!tid)
    return 0;
  kmp_uint64 pending = 0;
  for (int i = 0; i < __kmp_nt_npending; i++)
    pending += (__kmp_nt_pending[i].end - __kmp_nt_pending[i].start) >>
               __kmp_nt_page_shift;
  KMP_NT_ADD(fail_arm, pending);
  __kmp_nt_npending = 0;
  __kmp_nt_nitems = 0;
  TCW_4(__kmp_nexttouch_pending, 0);
  kmp_uint64 before = __kmp_nt_cnt.pages_disarmed;
  if (TCR_4(__kmp_nexttouch_armed))
    nt_disarm_range(0, 0, 0);
  kmp_uint64 pages = pending + (__kmp_nt_cnt.pages_disarmed - before);
  // One warning per thread (the last few remembered), at most 16.
  static int warned[4], nwarned = 0, warnings = 0;
  for (int i = 0; i < 4; i++)
    if (warned[i] == tid)
      return 1;
  warned[nwarned++ % 4] = tid;
  if (warnings++ < 16) {
    char num[32];
    KMP_SNPRINTF(num, sizeof num, "%" KMP_UINT64_SPEC, pages);
    KMP_WARNING(NextTouchSegvBlocked, tid, name[0] ? name : "?", num);
  }
  return 1;
}

// At a join the check costs a read of every thread's status (10-20 us each),
// which would dominate short regions while pages stay armed.  So it runs at
// the first join after each arming (the region that armed may have blocked
// SIGSEGV in a thread), then at most every KMP_NT_SEGV_RECHECK_NS.
#define KMP_NT_SEGV_RECHECK_NS 10000000ULL
static kmp_uint64 nt_arm_epoch = 1, nt_segv_epoch = 0, nt_segv_ns = 0;

static int nt_segv_guard_join() {
  kmp_uint64 now = __kmp_nt_now_ns();
  if (nt_segv_epoch == nt_arm_epoch &&
      now - nt_segv_ns < KMP_NT_SEGV_RECHECK_NS)
    return 0;
  nt_segv_epoch = nt_arm_epoch;
  nt_segv_ns = now;
  return nt_segv_guard();
}

#endif // KMP_NEXTTOUCH_SUPPORTED

// ---------------------------------------------------------------------------
// fork(2), from libomp's own pthread_atfork handlers (z_Linux_util.cpp), which
// are registered at libomp's initialisation, before anything can take the
// engines' locks.  The locks are taken in the order libomp's code takes
// them: libomp's (__kmp_initz_lock, __kmp_forkjoin_lock; shutdown holds them
// when it disarms), then __kmp_nt_lock, then the readonly engine's (a thread
// in a next-touch request may wait for it while holding ours).  The child
// has one thread: nobody else is in the locks, and a unit that a thread the
// child does not have had claimed is released where it is.

void __kmp_nexttouch_atfork(int phase) {
#if KMP_NEXTTOUCH_SUPPORTED
  if (phase == 0) { // prepare
    __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
    __kmp_ro_atfork(0);
    return;
  }
  if (phase == 1) { // parent
    __kmp_ro_atfork(1);
    __kmp_release_bootstrap_lock(&__kmp_nt_lock);
    return;
  }
  for (int i = 0; i < __kmp_nt_table_hwm; i++) {
    kmp_nt_segment *s = __kmp_nt_table[i];
    if (!s)
      continue;
    for (size_t u = 0; u < s->nunits; u++)
      if (s->state[u] == KMP_NT_CLAIMED) {
        __kmp_nt_restore(s, u, 1, 0);
        __kmp_nt_done(s, u, 1);
      }
  }
  __kmp_nt_handlers_active = 0;
  __kmp_nt_teams_running = 0;
  __kmp_ro_atfork(2);
  __kmp_init_bootstrap_lock(&__kmp_nt_lock);
#else
  (void)phase;
#endif
}

// ---------------------------------------------------------------------------
// The runtime's hooks and the API

void __kmp_nexttouch_fork(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
#if KMP_NEXTTOUCH_SUPPORTED
  // The hidden helper team forks once and joins at shutdown: it is not a
  // region of the program; requests wait for the program's next one.
  if (!team || team->t.t_nproc <= 1 || KMP_HIDDEN_HELPER_THREAD(gtid))
    return;
  if (__atomic_fetch_add(&__kmp_nt_teams_running, 1, __ATOMIC_ACQ_REL) == 0)
    __atomic_store_n(&__kmp_nt_nproc, team->t.t_nproc, __ATOMIC_RELEASE);
  __atomic_fetch_add(&__kmp_nt_forks, 1, __ATOMIC_RELAXED);
  if (!TCR_4(__kmp_nexttouch_pending))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  if (__kmp_nt_npending && !nt_segv_guard()) {
    __kmp_nt_arm_pending();
    nt_arm_epoch++;
  }
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
#else
  (void)gtid;
  (void)team;
#endif
}

void __kmp_nexttouch_join(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
#if KMP_NEXTTOUCH_SUPPORTED
  if (!team || team->t.t_nproc <= 1 || KMP_HIDDEN_HELPER_THREAD(gtid))
    return;
  __atomic_fetch_sub(&__kmp_nt_teams_running, 1, __ATOMIC_ACQ_REL);
  if (!TCR_4(__kmp_nexttouch_armed))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  nt_sweep(); // frees what the region touched; most joins end here
  if (TCR_4(__kmp_nexttouch_armed) && !nt_segv_guard_join() &&
      __kmp_nexttouch_lifetime > 0)
    nt_disarm_range(0, 0, 1);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
#else
  (void)gtid;
  (void)team;
#endif
}

// Called first in __kmp_cleanup: the program is done with its regions, so
// what is still armed goes back where it is, and the counters are reported.
void __kmp_nexttouch_cleanup(void) {
  if (!TCR_4(__kmp_nt_initialized))
    return;
#if KMP_NEXTTOUCH_SUPPORTED
  __kmp_ro_cleanup(); // readonly items: writable again, replicas freed
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  __kmp_nt_npending = 0;
  TCW_4(__kmp_nexttouch_pending, 0);
  if (TCR_4(__kmp_nexttouch_armed))
    nt_disarm_range(0, 0, 0);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  __kmp_nt_report();
#endif
}

extern "C" int kmp_nexttouch_disarm(void *ptr, size_t len) {
#if KMP_NEXTTOUCH_SUPPORTED
  uintptr_t start = 0, end = 0;
  if (ptr || len) {
    uintptr_t p = (uintptr_t)ptr, pg = (uintptr_t)__kmp_nt_page;
    if (!ptr)
      return EINVAL;
    if (len > (size_t)PTRDIFF_MAX || p > UINTPTR_MAX - len - pg)
      return EOVERFLOW;
    if (!len)
      return 0;
    start = p & ~(pg - 1);
    end = (p + len + pg - 1) & ~(pg - 1);
  }
  if (!TCR_4(__kmp_nt_initialized))
    return 0;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  if (start == end)
    __kmp_nt_npending = 0, TCW_4(__kmp_nexttouch_pending, 0);
  else
    __kmp_nt_remove_pending(start, end);
  if (TCR_4(__kmp_nexttouch_armed))
    nt_disarm_range(start, end, 0);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  return 0;
#else
  (void)ptr;
  (void)len;
  return 0;
#endif
}
