/*
 * kmp_nexttouch.h -- affinity-on-next-touch: the engine's internal interface.
 * The engine stands on the page-trap layer (kmp_pagetrap.h), registers its
 * hooks there, and never calls the readonly engine.
 *
 *   kmp_nexttouch.cpp          settings, start-up, the API and the compiler
 *                              entry point, the hooks it registers
 *   kmp_nexttouch_request.cpp  the requests waiting to be armed
 *   kmp_nexttouch_arm.cpp      arming at the fork of a team
 *   kmp_nexttouch_disarm.cpp   ending arming; freeing segments
 *   kmp_nexttouch_guard.cpp    nothing armed while a thread blocks SIGSEGV
 *   kmp_nexttouch_hooks.cpp    the runtime's fork, join and static-loop
 *                              hooks, fork(2), shutdown
 *   kmp_nexttouch_fault.cpp    a fault on an armed page  [signal handler]
 *   kmp_nexttouch_migrate.cpp  moving and releasing pages  [signal handler]
 *   kmp_nexttouch_ftn.cpp      the entry points of omp_lib's Fortran
 *                              interfaces of the engine's API
 *
 * The two files marked [signal handler] hold only async-signal-safe code:
 * no locks, no allocation, no stdio, no libomp data structures.  The others
 * run under __kmp_nt_lock in the thread that makes a request, forks or joins
 * a team, or calls the API, but for what the wrappers call (disarming on a
 * mapping change, kmp_nexttouch_disarm.cpp: lock-free, also in the
 * program's signal handlers) and the static-loop hooks (lock-free, in every
 * thread of the team).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef KMP_NEXTTOUCH_H
#define KMP_NEXTTOUCH_H

#include "kmp_pagetrap.h"

// ---------------------------------------------------------------------------
// State set up once (kmp_nexttouch.cpp)

extern int __kmp_nt_initialized;
extern int __kmp_nt_active; // requests are recorded and armed
extern int __kmp_nt_mech; // kmp_pt_mech_t in use
extern kmp_bootstrap_lock_t __kmp_nt_lock; // requests and the segment table

// The engine's counters; omp.h's kmp_nexttouch_counters_t shows them under
// the same names (kmp_nexttouch.cpp describes them to the layer).
#define KMP_NT_FOREACH_COUNTER(X)                                              \
  X(requests)                                                                  \
  X(noop_requests)                                                             \
  X(bad_requests)                                                              \
  X(arms)                                                                      \
  X(pages_armed)                                                               \
  X(pages_not_present)                                                         \
  X(faults)                                                                    \
  X(batches)                                                                   \
  X(pages_migrated)                                                            \
  X(pages_already_local)                                                       \
  X(pages_disarmed)                                                            \
  X(fail_arm)                                                                  \
  X(fail_move_busy)                                                            \
  X(fail_move_nomem)                                                           \
  X(fail_move_other)                                                           \
  X(fail_restore)                                                              \
  X(fault_ns)                                                                  \
  X(arm_ns)                                                                    \
  X(disarm_ns)                                                                 \
  X(pages_touched_serial)                                                      \
  X(pages_expired)
struct kmp_nt_counters {
#define KMP_NT_COUNTER_FIELD(f) kmp_uint64 f;
  KMP_NT_FOREACH_COUNTER(KMP_NT_COUNTER_FIELD)
#undef KMP_NT_COUNTER_FIELD
  // Pages moved to each node (the last slot collects the nodes past it).
  kmp_uint64 migrated_to_node[KMP_NEXTTOUCH_MAX_NODES];
};
// Updated with relaxed atomic adds from everywhere, the handler included.
extern kmp_nt_counters __kmp_nt_cnt;
#define KMP_NT_ADD(field, v) KMP_PT_COUNT(__kmp_nt_cnt, field, v)

void __kmp_nt_initialize(); // once, before any request

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// Segments: armed memory, one VMA's worth of one request at most.

// Per-unit state bytes.
#define KMP_NT_DONE 0x00 // not armed (never, touched, or disarmed)
#define KMP_NT_CLAIMED 0x40 // a thread is migrating / disarming it
#define KMP_NT_ARMED 0x80 // armed; low 6 bits: node at arming (0x3f unknown)
#define KMP_NT_NODE_UNKNOWN 0x3f
// With KMP_NT_ARMED: at arming another process mapped the page too (shared
// copy-on-write after fork): the kernel does not move it, and mbind does
// not say so.  (Alone, the same bit is KMP_NT_CLAIMED.)
#define KMP_NT_COW 0x40

struct kmp_nt_segment {
  uintptr_t base, end; // unit aligned
  // The items requested in it, sorted by start: a batch stays inside one
  // item, and inside one part of the team's even partition of the item.
  kmp_pt_range *items;
  int nitems;
  unsigned shift; // log2 of the unit: the page, or a THP block
  int prot; // protection to restore
  int pol_mode; // memory policy to restore after mbind
  int marked; // armed units carry the mark (MPOL_LOCAL; see below)
  // In a MAP_SHARED mapping: its pages may be mapped by other processes too
  // (MPI shared-memory windows, shm segments), which the kernel does not
  // move without MPOL_MF_MOVE_ALL, and a VMA policy set on it (mbind) is
  // the shared object's, seen by every process: neither mark nor mbind.
  int shared;
  unsigned long pol_mask[KMP_PT_MASK_WORDS];
  kmp_uint64 armed_at; // parallel regions forked before it was armed
  // Threads that have faulted in it since it was armed (atomic): until all
  // of the team has, a stream without a predicted end does not grow.
  int faulters;
  // Threads other than the team's primary whose first fault in an item of
  // it was where their own part of the item's even partition among the team
  // starts (atomic): the loop is split like the items (schedule(static)).
  // The primary's part starts where the item does, as under any schedule:
  // its stream there takes the largest window only once another thread's
  // has shown this.
  int part_starters;
  size_t nunits;
  size_t armed_units; // units still armed or claimed (atomic)
  unsigned char *state;
  kmp_pt_arena *arena; // which holds the segment, its items and its states
};

// The segments by address, as the fault path reads them (kmp_pt_index):
// replaced under __kmp_nt_lock; its generation is bumped at every arm and
// disarm.
extern kmp_pt_index<kmp_nt_segment> __kmp_nt_table;
// Segments whose last armed unit is done (atomic): the next sweep
// (__kmp_nt_sweep) has something to free.
extern volatile kmp_uint64 __kmp_nt_emptied;
// Teams of more than one thread running now: a fault while none runs is a
// touch by serial code, which restores the page where it is.
extern volatile int __kmp_nt_teams_running;
// Threads of the outermost team running now (or last run).
extern volatile int __kmp_nt_nproc;
// The threads of the outermost running team, by their number in it (the
// first __kmp_nt_team_size, at most KMP_NT_TEAM_MAX; set with
// __kmp_nt_nproc when the engine has requests or armed pages, else none):
// the fault path finds the calling thread's own part of an item's even
// partition.
#define KMP_NT_TEAM_MAX 256
extern kmp_thread_t __kmp_nt_team[KMP_NT_TEAM_MAX];
extern volatile int __kmp_nt_team_size;
// Whether the calling thread runs a loop with schedule(static) and no chunk
// (__kmp_nexttouch_loop_start): it touches one block of the iterations, its
// own part of what the loop walks.  Written by the thread, read by its fault
// handler (initial-exec TLS: one %fs-relative access).
extern __thread int __kmp_nt_tls_block_loop
    __attribute__((tls_model("initial-exec")));

// Pages of a unit of `seg`.
static inline kmp_uint64 __kmp_nt_unit_pages(const kmp_nt_segment *seg) {
  return (kmp_uint64)1 << (seg->shift - __kmp_pt_page_shift);
}

// Call fn(seg, lo, hi) for each segment with armed units that meets [a, e)
// ([lo, hi): the part of [a, e) in it), from inside the table, with every
// asynchronous signal blocked from the first call on: no signal handler may
// run while this thread holds claims.  Lock-free, async-signal-safe.
template <typename F>
static inline void __kmp_nt_each_armed(uintptr_t a, uintptr_t e, F fn) {
  sigset_t old;
  int blocked = 0;
  __kmp_nt_table.enter();
  kmp_pt_index<kmp_nt_segment>::each(
      __kmp_nt_table.get(), a, e, [&](kmp_nt_segment *s) {
        if (!__atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE))
          return;
        if (!blocked) {
          __kmp_pt_block_async(&old);
          blocked = 1;
        }
        fn(s, a > s->base ? a : s->base, e < s->end ? e : s->end);
      });
  __kmp_nt_table.leave();
  if (blocked)
    __kmp_pt_real_sigmask(SIG_SETMASK, &old, NULL);
}

// The engine's id with the page-trap layer (__kmp_nexttouch_register).
extern int __kmp_nt_engine_id;
// Something is armed: the layer's wrappers call the engine (the watch bit).
static inline int __kmp_nt_armed() {
  return __kmp_pt_watched(__kmp_nt_engine_id);
}

// The mark on the pages the engine protects (kmp_nexttouch_migrate.cpp): the
// VMA policy MPOL_LOCAL where the range had the default policy.  The kernel
// moves it with the mapping (mremap) and a new mapping does not have it, so
// in the fault path an inaccessible page is the engine's if and only if it
// has the mark.  __kmp_nt_mark: the kernel supports it (probed at start-up,
// kmp_nexttouch.cpp).
extern int __kmp_nt_mark;
int __kmp_nt_set_mark(uintptr_t a, size_t len, int on); // 1 if done
int __kmp_nt_marked(uintptr_t a);

// ---------------------------------------------------------------------------
// Requests waiting to be armed (kmp_nexttouch_request.cpp), under
// __kmp_nt_lock.  `ranges`: the requested bytes in the order requested;
// __kmp_nt_request_sort() sorts them and merges those that overlap or meet
// (the first `sorted` are so already): arming takes the whole pages inside
// each range, never a page the program shares with bytes it did not
// request.  `items`: the same requests item by item (the list items of a
// directive, the ranges of API calls), as requested (not page aligned), not
// merged: the batch limit needs each one and where its bytes begin and end.
struct kmp_nt_requests {
  kmp_pt_range *ranges;
  size_t nranges, cap, sorted;
  kmp_pt_range *items;
  size_t nitems, items_cap;
  volatile int any; // nranges != 0, read without the lock at a fork
};
extern kmp_nt_requests __kmp_nt_requests;

// Add the request for the bytes [start, end).
void __kmp_nt_request_add(uintptr_t start, uintptr_t end);
// Sort and merge the ranges, sort the items.
void __kmp_nt_request_sort();
// The whole pages inside the requested bytes [start, end): 0 if none.
static inline int __kmp_nt_inner_pages(uintptr_t start, uintptr_t end,
                                       uintptr_t *pstart, uintptr_t *pend) {
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  *pstart = (start + pg - 1) & ~(pg - 1);
  *pend = end & ~(pg - 1);
  return *pstart < *pend;
}
// Drop the pages [start, end) from the requests.
void __kmp_nt_request_remove(uintptr_t start, uintptr_t end);
// Drop every request; the pages they held.
kmp_uint64 __kmp_nt_request_clear();
// Can [start, end) be requested?  0, EFAULT (a hole, or the runtime's own
// memory), EACCES (not read-write, or executable), EINVAL (the calling
// thread's stack or the main thread's [stack]; a heap buffer the kernel
// merged into one VMA with a thread's stack is fine), ENOMEM (the mappings
// cannot be read).  Checked against a copy of the process's mappings that
// is read again whenever a mapping changed through a call libomp sees
// (__kmp_pt_maps_gen), or the range is not found in it as it is.
int __kmp_nt_check_range(uintptr_t start, uintptr_t end);
// Drop that copy.
void __kmp_nt_check_reset();

// ---------------------------------------------------------------------------
// Arming (kmp_nexttouch_arm.cpp) and ending it (kmp_nexttouch_disarm.cpp),
// under __kmp_nt_lock.

// Parallel regions (forks of teams of more than one thread) so far: the
// clock of KMP_NEXTTOUCH_LIFETIME.
extern kmp_uint64 __kmp_nt_forks;
// Arm the pending requests (at the fork of a team).
void __kmp_nt_arm_pending();
// Reads the VMAs (with AnonHugePages if smaps) and drops the armed units the
// program unmapped or re-protected; returns the VMAs (or NULL).
kmp_pt_vma *__kmp_nt_check_armed(int *n, int smaps);
// Once no reader can see it; its arena goes with its last segment.
void __kmp_nt_free_segment(kmp_nt_segment *seg);
// Shutdown: the newest arena, if empty.
void __kmp_nt_free_arenas();
// The engine's private mappings (the arenas, the index, the move_pages
// lists): at most max ranges in out; their number, which may be more.
int __kmp_nt_segment_ranges(kmp_pt_range *out, int max);
// Disarm the armed units [lo, hi) of seg where they are; the pages disarmed
// (the caller counts them).  Lock-free, async-signal-safe.
kmp_uint64 __kmp_nt_disarm_units(kmp_nt_segment *seg, size_t lo, size_t hi);
// Disarm what is armed in [start, end) (everything for start == end == 0;
// with `expired`, the segments KMP_NEXTTOUCH_LIFETIME ends), and free the
// segments nothing is armed in.
void __kmp_nt_disarm_range(uintptr_t start, uintptr_t end, int expired);
// Free the segments nothing is armed in.
void __kmp_nt_sweep();
// Disarm what is armed in [a, e) without the lock (the program changes that
// mapping; kmp_pagetrap_mm.cpp).  Async-signal-safe.
void __kmp_nt_mapping_change(uintptr_t a, uintptr_t e);

// Nothing is armed while a thread blocks SIGSEGV (kmp_nexttouch_guard.cpp):
// 1 if one does (requests dropped, armed pages disarmed, a warning).  At an
// arming, and at joins (rate-limited) while pages are armed.
int __kmp_nt_segv_guard();
int __kmp_nt_segv_guard_join();
// An arming happened: the next join checks again.
void __kmp_nt_segv_guard_armed();

// ---------------------------------------------------------------------------
// Migration (kmp_nexttouch_migrate.cpp; async-signal-safe)

// Move the claimed units [u, u+n) of seg to `node`; old[i] is the state each
// had when claimed.  Returns KMP_NT_MIGRATE_FIXUP if part of the run must be
// finished by __kmp_nt_fixup() once the pages are accessible again, and
// KMP_NT_MIGRATE_UNMARKED if the run has lost the mark already (its policy
// was restored after mbind).
#define KMP_NT_MIGRATE_FIXUP 1
#define KMP_NT_MIGRATE_UNMARKED 2
// The pool of move_pages page lists (kmp_nexttouch_migrate.cpp): made when
// the engine starts; its private range (0 or 1 in *out); fork's child.
void __kmp_nt_move_lists_init();
int __kmp_nt_move_lists_range(kmp_pt_range *out);
void __kmp_nt_move_lists_atfork_child();
int __kmp_nt_migrate(kmp_nt_segment *seg, size_t u, size_t n,
                     const unsigned char *old, int node);
void __kmp_nt_fixup(kmp_nt_segment *seg, size_t u, size_t n,
                    const unsigned char *old, int node);
// Give the claimed units back their protection (and remove the mark unless
// `unmarked`) / release them to waiters.
void __kmp_nt_restore(kmp_nt_segment *seg, size_t u, size_t n, int unmarked);
void __kmp_nt_done(kmp_nt_segment *seg, size_t u, size_t n);

// ---------------------------------------------------------------------------
// The fault path (kmp_nexttouch_fault.cpp; async-signal-safe), the engine's
// fault and buffer hooks.

int __kmp_nt_fault(uintptr_t addr, void *uc);
// Touch the armed units of [a, e) as the calling thread, through the fault
// path, before a system call copies into or out of them.
int __kmp_nt_buffer(uintptr_t a, uintptr_t e, int into);

// fork(2) and shutdown (kmp_nexttouch_hooks.cpp), the engine's hooks.
void __kmp_nt_atfork(int phase);
void __kmp_nt_cleanup();

#endif // KMP_PAGETRAP_SUPPORTED

#endif // KMP_NEXTTOUCH_H
