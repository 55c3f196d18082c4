/*
 * kmp_nexttouch.h -- affinity-on-next-touch: the engine's internal interface.
 *
 * What the files of the engine share: the segment table and the page-state
 * encoding that the fault path reads without locks, the counters, the
 * topology, and the functions one file offers the others.  The runtime's
 * hooks, the settings and the compiler entry point are declared in kmp.h;
 * the user API (kmp_nexttouch, kmp_get_nexttouch_counters, ...) in omp.h.
 *
 *   kmp_nexttouch.cpp          requests and the API; settings; start-up
 *   kmp_nexttouch_counters.cpp the counters, their API and the exit report
 *   kmp_nexttouch_topology.cpp cpu -> node table, the migration probe
 *   kmp_nexttouch_maps.cpp     /proc/self/maps: which ranges can be armed
 *   kmp_nexttouch_arm.cpp      arming and disarming (fork, join, shutdown)
 *   kmp_nexttouch_fault.cpp    the SIGSEGV handler  [signal handler]
 *   kmp_nexttouch_migrate.cpp  moving and releasing pages  [signal handler]
 *   kmp_nexttouch_io.cpp       system calls on armed buffers (wrappers)
 *   kmp_nexttouch_sigmask.cpp  SIGSEGV stays deliverable (wrappers)
 *   kmp_nexttouch_mm.cpp       the program's mapping changes (wrappers)
 *   kmp_nexttouch_ftn.cpp      the entry points of omp_lib's Fortran interfaces
 *
 * The readonly(list) engine (kmp_readonly*.cpp, kmp_readonly.h) shares the
 * handler, the private mappings, the system calls, the topology and the
 * counters.
 *
 * The two files marked [signal handler] hold only async-signal-safe code:
 * no locks, no allocation, no stdio, no libomp data structures.
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

#ifndef __KMP_IMP
#define __KMP_IMP
#endif
#include "omp.h" // kmp_nexttouch_counters_t; first, as in kmp_csupport.cpp
#include "kmp.h"
#include "kmp_lock.h"

#if KMP_OS_LINUX
#define KMP_NEXTTOUCH_SUPPORTED 1
#include <signal.h>
#include <stdint.h>
#else
#define KMP_NEXTTOUCH_SUPPORTED 0
#endif

// ---------------------------------------------------------------------------
// Counters: the engine's own copy is a kmp_nexttouch_counters_t (omp.h).
// This list names every uint64 counter of that structure in order, except the
// per-node array; it drives the copy, the reset and the exit report, and a
// static_assert in kmp_nexttouch_counters.cpp ties it to omp.h.
#define KMP_NEXTTOUCH_FOREACH_COUNTER(X)                                       \
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
  X(pages_expired)                                                             \
  X(readonly_regions)                                                          \
  X(readonly_items)                                                            \
  X(readonly_replicas)                                                         \
  X(readonly_bytes_replicated)                                                 \
  X(readonly_replicas_reused)                                                  \
  X(readonly_refreshes)                                                        \
  X(readonly_serial_writes)                                                    \
  X(readonly_write_traps)                                                      \
  X(readonly_fallback_one_node)                                                \
  X(readonly_fallback_budget)                                                  \
  X(readonly_fallback_unreplicable)                                            \
  X(readonly_dropped)                                                          \
  X(readonly_replica_ns)

extern kmp_nexttouch_counters_t __kmp_nt_cnt;
#define KMP_NT_ADD(field, v)                                                   \
  __atomic_fetch_add(&__kmp_nt_cnt.field, (v), __ATOMIC_RELAXED)
// Pages moved to `node` (the last slot collects nodes past the array).
void __kmp_nt_count_moved(int node, kmp_uint64 pages);

// ---------------------------------------------------------------------------
// State set up once (kmp_nexttouch.cpp, kmp_nexttouch_topology.cpp)

enum kmp_nt_mech_t {
  kmp_nt_mech_none = 0,
  kmp_nt_mech_move_pages = 1,
  kmp_nt_mech_mbind = 2
};

extern int __kmp_nt_initialized;
extern int __kmp_nt_active; // requests are recorded and armed
extern int __kmp_nt_mech; // kmp_nt_mech_t in use
extern int __kmp_nt_num_nodes;
extern long __kmp_nt_page; // the base page size
extern unsigned __kmp_nt_page_shift; // log2(__kmp_nt_page)
extern unsigned __kmp_nt_thp_shift; // log2 of a PMD-mapped huge page
extern kmp_bootstrap_lock_t __kmp_nt_lock; // requests and the segment table

void __kmp_nt_initialize(); // once, before any request
const char *__kmp_nt_mech_name(int mech);

// For the warnings about a list item a compiler entry point ignores (here
// and in kmp_readonly.cpp): *where gets the source location of loc, *what
// the item (its source text if name is not NULL, base, count and element
// size).  The caller frees both.
struct kmp_str_buf;
void __kmp_nt_describe_item(struct kmp_str_buf *where, struct kmp_str_buf *what,
                            ident_t *loc, const char *name, const void *base,
                            size_t count, size_t elem_size);

// The cpu -> node table (kmp_nexttouch_topology.cpp).  Fills it, returns the
// number of NUMA nodes (1 if the topology is not known: *why says why).
int __kmp_nt_topology(const char **why);
// -1 if not known.  Async-signal-safe.
int __kmp_nt_node_of_current_cpu();
// What moves PROT_NONE pages on this kernel (kmp_nt_mech_t).
int __kmp_nt_probe_mechanism();

#if KMP_NEXTTOUCH_SUPPORTED

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

#define KMP_NT_MASK_WORDS 16 // nodemask of 1024 nodes for the policy calls
#define KMP_NT_MAXNODE (KMP_NT_MASK_WORDS * 8 * sizeof(unsigned long))
#define KMP_NT_MAX_SEGMENTS 1024

struct kmp_nt_range {
  uintptr_t start, end; // end exclusive; page aligned but in items
};

struct kmp_nt_segment {
  uintptr_t base, end; // unit aligned
  // The items requested in it, sorted by start: a batch stays inside one
  // item, and inside one part of the team's even partition of the item.
  kmp_nt_range *items;
  int nitems;
  size_t items_bytes;
  unsigned shift; // log2 of the unit: the page, or a THP block
  int prot; // protection to restore
  int pol_mode; // memory policy to restore after mbind
  int marked; // armed units carry the mark (MPOL_LOCAL; see below)
  // In a MAP_SHARED mapping: its pages may be mapped by other processes too
  // (MPI shared-memory windows, shm segments), which the kernel does not
  // move without MPOL_MF_MOVE_ALL, and a VMA policy set on it (mbind) is
  // the shared object's, seen by every process: neither mark nor mbind.
  int shared;
  unsigned long pol_mask[KMP_NT_MASK_WORDS];
  kmp_uint64 armed_at; // parallel regions forked before it was armed
  size_t nunits;
  size_t armed_units; // units still armed or claimed (atomic)
  unsigned char *state;
  size_t state_bytes;
};

// The table the fault path reads: slots are published with release stores
// and emptied under __kmp_nt_lock; a segment is freed only after the
// generation was bumped and no handler is inside the table.
extern kmp_nt_segment *volatile __kmp_nt_table[KMP_NT_MAX_SEGMENTS];
extern volatile int __kmp_nt_table_hwm;
extern volatile int __kmp_nt_handlers_active;
extern volatile kmp_uint64 __kmp_nt_gen; // bumped at every arm and disarm
// Teams of more than one thread running now: a fault while none runs is a
// touch by serial code, which restores the page where it is.
extern volatile int __kmp_nt_teams_running;
// Threads of the outermost team running now (or last run).
extern volatile int __kmp_nt_nproc;

// Pages of a unit of `seg`.
static inline kmp_uint64 __kmp_nt_unit_pages(const kmp_nt_segment *seg) {
  return (kmp_uint64)1 << (seg->shift - __kmp_nt_page_shift);
}

// Memory the fault path reads gets mappings of its own: heap memory could
// share a page with a user's range and be armed.
void *__kmp_nt_private_alloc(size_t bytes);
void __kmp_nt_private_free(void *p, size_t bytes);

// Raw system calls: async-signal-safe, and no libnuma state.
long __kmp_nt_move_pages(unsigned long count, void **pages, const int *nodes,
                         int *status, int flags);
long __kmp_nt_mbind(void *addr, unsigned long len, int mode,
                    const unsigned long *mask, unsigned long maxnode,
                    unsigned flags);
long __kmp_nt_get_mempolicy(int *mode, unsigned long *mask,
                            unsigned long maxnode, void *addr,
                            unsigned long flags);
// mprotect(2) without the C library: the engines' own protection changes do
// not go through the wrapper of kmp_nexttouch_mm.cpp.
int __kmp_nt_mprotect(void *addr, size_t len, int prot);
kmp_uint64 __kmp_nt_now_ns();

// The mark on the pages the engine protects (kmp_nexttouch_migrate.cpp): the
// VMA policy MPOL_LOCAL where the range had the default policy.  The kernel
// moves it with the mapping (mremap) and a new mapping does not have it, so
// in the fault path an inaccessible page is the engine's if and only if it
// has the mark.  __kmp_nt_mark: the kernel supports it (probed at start-up).
extern int __kmp_nt_mark;
void __kmp_nt_probe_mark();
int __kmp_nt_set_mark(uintptr_t a, size_t len, int on); // 1 if done
int __kmp_nt_marked(uintptr_t a);

// ---------------------------------------------------------------------------
// The VMAs (kmp_nexttouch_maps.cpp)

struct kmp_nt_vma {
  uintptr_t start, end;
  int prot;
  int stack; // the main thread's [stack]
  int shared; // MAP_SHARED ('s')
  kmp_uint64 offset, inode; // of a file mapping (inode 0: anonymous)
  uintptr_t thp_bytes; // AnonHugePages (read from smaps only when wanted)
};

// The process's VMAs, sorted, in *out (allocated with __kmp_allocate); their
// number, or -1.  With `smaps`, AnonHugePages too.
int __kmp_nt_read_maps(kmp_nt_vma **out, int smaps);
// Can [start, end) be armed?  0, EFAULT (a hole), EACCES (not read-write, or
// executable), EINVAL (the calling thread's stack or the main thread's
// [stack]; a heap buffer the kernel merged into one VMA with a thread's stack
// is fine).
int __kmp_nt_check_range(const kmp_nt_vma *v, int n, uintptr_t start,
                         uintptr_t end);

// The OS id of a thread of the process that blocks SIGSEGV (the first found),
// its name in name[len]; 0 if none.  A fault on an armed page kills such a
// thread's process: the kernel cannot deliver the signal to our handler.
int __kmp_nt_segv_blocker(char *name, size_t len);

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
kmp_nt_vma *__kmp_nt_check_armed(int *n, int smaps);
void __kmp_nt_free_segment(kmp_nt_segment *seg);
// Disarm the armed units [lo, hi) of seg where they are; the pages disarmed
// (the caller counts them).  Lock-free, async-signal-safe.
kmp_uint64 __kmp_nt_disarm_units(kmp_nt_segment *seg, size_t lo, size_t hi);

// ---------------------------------------------------------------------------
// Requests waiting to be armed (kmp_nexttouch.cpp), under __kmp_nt_lock.

extern kmp_nt_range *__kmp_nt_pending;
extern int __kmp_nt_npending;
// The same requests item by item (the list items of a directive, the ranges
// of API calls), as requested (not page aligned), not merged, at most
// KMP_NT_MAX_ITEMS: the pending list merges neighbours that share a page,
// the batch limit needs each one and where its bytes begin and end.
#define KMP_NT_MAX_ITEMS 4096
extern kmp_nt_range *__kmp_nt_items;
extern int __kmp_nt_nitems;

// ---------------------------------------------------------------------------
// Migration (kmp_nexttouch_migrate.cpp; async-signal-safe)

// Move the claimed units [u, u+n) of seg to `node`; old[i] is the state each
// had when claimed.  Returns KMP_NT_MIGRATE_FIXUP if part of the run must be
// finished by __kmp_nt_fixup() once the pages are accessible again, and
// KMP_NT_MIGRATE_UNMARKED if the run has lost the mark already (its policy
// was restored after mbind).
#define KMP_NT_MIGRATE_FIXUP 1
#define KMP_NT_MIGRATE_UNMARKED 2
int __kmp_nt_migrate(kmp_nt_segment *seg, size_t u, size_t n,
                     const unsigned char *old, int node);
void __kmp_nt_fixup(kmp_nt_segment *seg, size_t u, size_t n,
                    const unsigned char *old, int node);
// Give the claimed units back their protection (and remove the mark unless
// `unmarked`) / release them to waiters.
void __kmp_nt_restore(kmp_nt_segment *seg, size_t u, size_t n, int unmarked);
void __kmp_nt_done(kmp_nt_segment *seg, size_t u, size_t n);

// ---------------------------------------------------------------------------
// The fault path (kmp_nexttouch_fault.cpp)

// Put the engine's SIGSEGV handler first (under __kmp_nt_lock).
void __kmp_nt_install_handler();
// Can the page be read now (asked of the kernel, without faulting)?
int __kmp_nt_readable(uintptr_t page);
// Touch the armed units of [a, e) as the calling thread, through the fault
// path, before a system call copies into or out of them.
void __kmp_nt_touch_range(uintptr_t a, uintptr_t e);

// The C library's wrapped functions (kmp_nexttouch_io.cpp,
// kmp_nexttouch_sigmask.cpp): the next definition of `name`, looked up once
// into *cache; NULL if there is none.
void *__kmp_nt_next(void *volatile *cache, const char *name);
// The handler's first question (kmp_nexttouch_sigmask.cpp): 1 if the SIGSEGV
// described by si was sent to a thread that blocks SIGSEGV in the program's
// view; it is then held until the thread unblocks it.  Async-signal-safe.
int __kmp_nt_hold_segv(const siginfo_t *si);

// The engine's other mappings that arming must never protect
// (kmp_nexttouch_topology.cpp): 1 and the cpu -> node table's range, or 0.
int __kmp_nt_private_table(uintptr_t *start, uintptr_t *end);

// Requests (kmp_nexttouch.cpp) and arming (kmp_nexttouch_arm.cpp), under
// __kmp_nt_lock.
void __kmp_nt_remove_pending(uintptr_t start, uintptr_t end);
// The report at shutdown (kmp_nexttouch_counters.cpp).
void __kmp_nt_report();

// ---------------------------------------------------------------------------
// The readonly(list) engine's hooks (kmp_readonly*.cpp)

// Set once readonly list items may be write-protected.
extern volatile int __kmp_ro_live;
// The fault path: 1 if the fault at addr was a write to a list item's
// protected pages and was handled (retry the access); 0 if it is not the
// readonly engine's.  Does not return for a fatal write in a region.
// Async-signal-safe.
int __kmp_ro_fault(uintptr_t addr, void *uc);
// A next-touch request on [start, end), or the program's change of that
// mapping (kmp_nexttouch_mm.cpp): cached readonly items there are dropped
// (no region uses them) or keep it (EBUSY).
int __kmp_ro_yield_range(uintptr_t start, uintptr_t end);
// A system call is about to write into [a, e) (the I/O wrappers): the
// write-protected pages of cached readonly items there are opened as a
// serial write opens them.  EFAULT if a running region lists such an item
// (the call must fail before it writes any byte of it), else 0.
// Async-signal-safe.
int __kmp_ro_io_write(uintptr_t a, uintptr_t e);
// The kernel is about to write into [a, e) whatever its protection (a write
// to /proc/<pid>/mem, which copies-on-write even read-only pages): as
// __kmp_ro_io_write, and the items there that are not protected (the
// program's read-only memory, items smaller than a page) are marked stale.
// Async-signal-safe.
int __kmp_ro_forced_write(uintptr_t a, uintptr_t e);
// A write to the file with inode `ino` (0: to any file): the cached items in
// private mappings of it are marked stale (pages not yet copied on write
// show the file's page cache, which the write changes).  Async-signal-safe.
void __kmp_ro_file_write(kmp_uint64 ino);
// The readonly engine's own mappings, which arming must never protect: at
// most `max` ranges in out; their number.  Under __kmp_nt_lock.
int __kmp_ro_private_ranges(kmp_nt_range *out, int max);
int __kmp_ro_private_max();
// At shutdown: every item is dropped (protection restored).
void __kmp_ro_cleanup();
// fork(2), from __kmp_nexttouch_atfork: 0 prepare (take the readonly lock,
// after __kmp_nt_lock), 1 parent (release it), 2 child (reset).
void __kmp_ro_atfork(int phase);

#endif // KMP_NEXTTOUCH_SUPPORTED

#endif // KMP_NEXTTOUCH_H
