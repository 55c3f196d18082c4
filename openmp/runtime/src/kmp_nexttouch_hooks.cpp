/*
 * kmp_nexttouch_hooks.cpp -- affinity-on-next-touch: the runtime's hooks at
 * the fork and the join of a team and at the start and end of a static loop
 * (kmp.h), and the engine's hooks for fork(2) and shutdown (called by the
 * page-trap layer).
 *
 * Runs on the primary thread of a forking or joining team, on each thread
 * of a team as it starts and ends a loop, in libomp's pthread_atfork
 * handlers, or in __kmp_cleanup; never in a signal handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"

#if KMP_PAGETRAP_SUPPORTED

volatile int __kmp_nt_teams_running = 0;
volatile int __kmp_nt_nproc = 1;
kmp_thread_t __kmp_nt_team[KMP_NT_TEAM_MAX];
volatile int __kmp_nt_team_size = 0;
__thread int __kmp_nt_tls_block_loop __attribute__((tls_model("initial-exec")));

// fork(2) (kmp_pagetrap.cpp says in which order the engines' locks are
// taken).  The child has one thread: a unit that a thread the child does not
// have had claimed is released where it is.
void __kmp_nt_atfork(int phase) {
  if (phase == 0) {
    __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
    return;
  }
  if (phase == 1) {
    __kmp_release_bootstrap_lock(&__kmp_nt_lock);
    return;
  }
  for (int i = 0; i < __kmp_nt_table.size(); i++) {
    kmp_nt_segment *s = __kmp_nt_table.at(i);
    for (size_t u = 0; u < s->nunits; u++)
      if (s->state[u] == KMP_NT_CLAIMED) {
        __kmp_nt_restore(s, u, 1, 0);
        __kmp_nt_done(s, u, 1);
      }
  }
  __kmp_nt_table.atfork_child();
  __kmp_nt_move_lists_atfork_child();
  __kmp_nt_teams_running = 0;
  __kmp_init_bootstrap_lock(&__kmp_nt_lock);
}

// Shutdown: the program is done with its regions, so what is still armed
// goes back where it is.
void __kmp_nt_cleanup() {
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  __kmp_nt_request_clear();
  if (__kmp_nt_armed())
    __kmp_nt_disarm_range(0, 0, 0);
  __kmp_nt_check_reset();
  __kmp_nt_free_arenas();
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
}

#endif // KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The runtime's hooks

void __kmp_nexttouch_fork(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
#if KMP_PAGETRAP_SUPPORTED
  // The hidden helper team forks once and joins at shutdown: it is not a
  // region of the program; requests wait for the program's next one.
  if (!team || team->t.t_nproc <= 1 || KMP_HIDDEN_HELPER_THREAD(gtid))
    return;
  if (__atomic_fetch_add(&__kmp_nt_teams_running, 1, __ATOMIC_ACQ_REL) == 0) {
    // Read by the workers once the fork barrier releases them; only while
    // a fault in an armed unit may come (requests are armed below).
    int n = 0;
    if (TCR_4(__kmp_nt_requests.any) || __kmp_nt_armed()) {
      n = team->t.t_nproc < KMP_NT_TEAM_MAX ? team->t.t_nproc : KMP_NT_TEAM_MAX;
      for (int i = 0; i < n; i++)
        __atomic_store_n(&__kmp_nt_team[i],
                         team->t.t_threads[i]->th.th_info.ds.ds_thread,
                         __ATOMIC_RELAXED);
    }
    __atomic_store_n(&__kmp_nt_team_size, n, __ATOMIC_RELAXED);
    __atomic_store_n(&__kmp_nt_nproc, team->t.t_nproc, __ATOMIC_RELEASE);
  }
  __atomic_fetch_add(&__kmp_nt_forks, 1, __ATOMIC_RELAXED);
  if (!TCR_4(__kmp_nt_requests.any))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  if (__kmp_nt_requests.nranges && !__kmp_nt_segv_guard()) {
    __kmp_nt_arm_pending();
    __kmp_nt_segv_guard_armed();
  }
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
#else
  (void)gtid;
  (void)team;
#endif
}

void __kmp_nexttouch_join(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
#if KMP_PAGETRAP_SUPPORTED
  if (!team || team->t.t_nproc <= 1 || KMP_HIDDEN_HELPER_THREAD(gtid))
    return;
  int running =
      __atomic_sub_fetch(&__kmp_nt_teams_running, 1, __ATOMIC_ACQ_REL);
  KMP_DEBUG_ASSERT(running >= 0);
  (void)running;
  // The region's faults, as the counters have them (the fault path itself
  // runs in a signal handler: no trace there).
  KA_TRACE(20, ("__kmp_nexttouch_join: T#%d, %llu faults, %llu batches so "
                "far\n",
                gtid, (unsigned long long)__kmp_nt_cnt.faults,
                (unsigned long long)__kmp_nt_cnt.batches));
  if (!__kmp_nt_armed())
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  __kmp_nt_sweep(); // frees what the region touched; most joins end here
  if (__kmp_nt_armed() && !__kmp_nt_segv_guard_join() &&
      __kmp_nexttouch_lifetime > 0)
    __kmp_nt_disarm_range(0, 0, 1);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
#else
  (void)gtid;
  (void)team;
#endif
}

// A loop with schedule(static) and no chunk gives each thread one block of
// its iterations: the fault path may then take the thread's whole part of an
// item at the first fault where the part starts (nt_stream_for).  Other
// schedules, and code outside loops, leave it to the adaptive window.
void __kmp_nexttouch_loop_start(enum sched_type schedule) {
#if KMP_PAGETRAP_SUPPORTED
  __kmp_nt_tls_block_loop = schedule == kmp_sch_static;
#else
  (void)schedule;
#endif
}

void __kmp_nexttouch_loop_end() {
#if KMP_PAGETRAP_SUPPORTED
  __kmp_nt_tls_block_loop = 0;
#endif
}
