/*
 * kmp_readonly.h -- readonly(list): the internal interface of the readonly
 * engine.  The engine stands on the page-trap layer (kmp_pagetrap.h: the
 * SIGSEGV handler, tables, private mappings, raw system calls, the maps, the
 * topology, the counters), registers its hooks there, and never calls the
 * next-touch engine.
 *
 *   kmp_readonly.cpp          the entry points and the API, settings,
 *                             start-up, the hooks it registers
 *   kmp_readonly_region.cpp   region start and end, the threads' pointers,
 *                             the lists remembered across regions
 *   kmp_readonly_items.cpp    the item cache: checks against the maps,
 *                             protection at region starts, budget, drops
 *   kmp_readonly_replica.cpp  per-node replicas: made, refreshed, freed
 *   kmp_readonly_fault.cpp    write faults on list items, and system calls
 *                             about to write into them  [signal handler]
 *
 * A list item of a region is kept in a cache (the item table) keyed by its
 * byte range.  The pages it covers whole (all its pages if it fills a block
 * of its own from malloc) are write-protected from the start of the first
 * region that lists it until the program writes them between regions (a
 * chunk of KMP_RO_CHUNK_PAGES pages is opened per fault), the item is
 * released or dropped.  Its replicas (one per NUMA node that reads it) are
 * kept with it; a chunk opened between regions is copied again into each
 * replica before that replica's next use.  See docs/Design.rst, "The
 * readonly engine".
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef KMP_READONLY_H
#define KMP_READONLY_H

#include "kmp_pagetrap.h"

#define KMP_RO_MAX_NODES KMP_NEXTTOUCH_MAX_NODES // replicas per item

// The engine's counters; omp.h's kmp_nexttouch_counters_t shows them under
// the same names (kmp_readonly.cpp describes them to the layer).
#define KMP_RO_FOREACH_COUNTER(X)                                              \
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
  X(readonly_replica_ns)                                                       \
  X(readonly_lists_reused)
struct kmp_ro_counters {
#define KMP_RO_COUNTER_FIELD(f) kmp_uint64 f;
  KMP_RO_FOREACH_COUNTER(KMP_RO_COUNTER_FIELD)
#undef KMP_RO_COUNTER_FIELD
};
// Updated with relaxed atomic adds from everywhere, the handler included.
extern kmp_ro_counters __kmp_ro_cnt;
#define KMP_RO_ADD(field, v) KMP_PT_COUNT(__kmp_ro_cnt, field, v)
#define KMP_RO_CHUNK_PAGES 32 // opened by one write between regions

// The state of a chunk of the pages an item covers whole.
#define KMP_RO_CLOSED 0 // write-protected; replicas hold its data
#define KMP_RO_OPENING 1 // a thread is opening it (fault path, region end)
#define KMP_RO_OPEN 2 // writable; replicas must copy it before their next use

// Item kinds (flags).
// Read-only memory of the program (a read-only file mapping, or read-only
// anonymous memory, which is NOKEEP too): never (un)protected.
#define KMP_RO_IMMUTABLE 1
// On a stack, anonymous read-only memory, or not protectable: opened at the end
// of every region, replicas copied again at every region.
#define KMP_RO_NOKEEP 2
// A shared mapping: never replicated.
#define KMP_RO_SHARED 4
// Written in a region with KMP_READONLY_WRITES=warn: writable from then on,
// never protected again.
#define KMP_RO_DEMOTED 8
// Changed without a fault (a write to its file or to /proc/<pid>/mem, a
// change of its mapping by the program, an engine mapping placed where it
// was freed unseen): dropped at its next region start, and copied afresh.
#define KMP_RO_STALE 16
// A region start could not protect some of its chunks (out of VMAs, hugetlb
// memory): written unseen between regions.
#define KMP_RO_UNPROTECTED 32
// Fills a block of its own from malloc: its first and last pages are protected
// too.
#define KMP_RO_BLOCK 64

struct kmp_ro_item;
// Where a replica's mapping is, for the fault path and for region starts
// that list bytes of a copy: an entry of __kmp_ro_copies.
struct kmp_ro_copy {
  uintptr_t base, end; // the whole mapping: dirty bytes, copy, last page
  kmp_ro_item *item;
  int node;
};

// A replica: a private mapping of dirty bytes (one per chunk: 1 = copy it
// again) followed by the copy of the item's pages, read-only.
struct kmp_ro_replica {
  char *volatile map; // the copy of [mbase, mend); NULL: none
  unsigned char *dirty; // per chunk, in front of the copy in the same mapping
  size_t map_bytes; // of the whole mapping, dirty bytes included
  volatile int busy; // a thread is preparing it for a region
  volatile kmp_uint64 ready; // the region (activation) it is prepared for
  volatile int usable; // for that region; 0: the region reads the original
  // Where the copy may be out of date it is inaccessible: a pointer into it
  // kept from a region and used now is stopped with a message, not served
  // stale data.  The chunks written since its region (dirty) always; between
  // regions, for an item with edges, the pages that hold them
  // (KMP_RO_COPY_EDGES: the program may change those bytes unseen); all of
  // it (KMP_RO_COPY_CLOSED) after the kernel changed the item unseen, or
  // between regions for an item whose pages are not all protected.
  volatile int closed; // KMP_RO_COPY_*
  // The kernel's written bits found the item's edges written since this
  // copy last compared them (only for an item they track).
  volatile int edges_written;
  kmp_ro_copy where; // in __kmp_ro_copies while the mapping exists
};
enum { KMP_RO_COPY_OPEN, KMP_RO_COPY_EDGES, KMP_RO_COPY_CLOSED };

// A cached list item, followed by its chunk states, in the engine's pool
// (private mappings); read without locks by the fault path.
struct kmp_ro_item {
  uintptr_t base, end; // its bytes: the key
  uintptr_t mbase, mend; // the pages that hold it (what a replica copies)
  // The pages that are protected: those it covers whole; all of [mbase,
  // mend) for a block of its own from malloc (its first and last pages hold
  // only the allocator's bytes besides: kmp_readonly_items.cpp).
  uintptr_t pbase, pend;
  int prot; // of the original's pages
  volatile int kind; // KMP_RO_* flags
  int home; // the node that holds every page of the original, or -1
  // A serial write opened chunks since its last region start: the kernel
  // may have moved their pages off home (ro_close moves them back).
  volatile int written;
  // __kmp_pt_written_epoch when the kernel's written bits started tracking
  // [mbase, mend) (KMP_READONLY_WRITTEN_BITS), else 0: a write nothing
  // traps (another process's, through /proc/<pid>/mem or ptrace; to its
  // edges) is found at the next region start.  KMP_RO_RETRACK in a fork(2)
  // child for an item the parent tracked: copied again and tracked anew at
  // its next region start.
  kmp_uint64 tracked;
  int replicable; // budget reserved: replicas may be made
  size_t reserved; // bytes of the budget reserved for its replicas
  kmp_uint64 inode, off_delta; // file identity of an immutable item
  volatile int users; // regions running with it, but through a list
  // The remembered lists that hold it (bit b: slot b of ro_lists in
  // kmp_readonly_region.cpp): it is in use while one of them is
  // (__kmp_ro_lists_active).
  volatile kmp_uint32 lists;
  volatile int warned; // KMP_READONLY_WRITES=warn said so once
  kmp_uint64 last_use; // activation of its last region (LRU)
  size_t nchunks;
  unsigned char *chunks; // KMP_RO_CLOSED / _OPENING / _OPEN per chunk
  kmp_pt_arena *arena; // of the pool, which holds this and the chunks
  // The last region that listed it, for the fault path's message.
  const char *volatile psource; // ident_t's ";file;func;line;col;;"
  const char *volatile name; // the list item as written, or NULL
  volatile int index; // its position in the list (from 0)
  kmp_ro_replica rep[KMP_RO_MAX_NODES]; // by OS node number
};

static inline size_t __kmp_ro_chunk_bytes() {
  return (size_t)KMP_RO_CHUNK_PAGES << __kmp_pt_page_shift;
}
// Chunk c of it: [*s, *e).
static inline void __kmp_ro_chunk_range(const kmp_ro_item *it, size_t c,
                                        uintptr_t *s, uintptr_t *e) {
  *s = it->pbase + c * __kmp_ro_chunk_bytes();
  *e = *s + __kmp_ro_chunk_bytes() < it->pend ? *s + __kmp_ro_chunk_bytes()
                                              : it->pend;
}

// Does it have edges: bytes on pages that are not protected (pages it shares
// with other data)?  The program may change them unseen.
static inline int __kmp_ro_has_edges(const kmp_ro_item *it) {
  return it->pbase >= it->pend || it->pbase != it->mbase ||
         it->pend != it->mend;
}

// A copy of at most this many pages is closed whole between regions: one
// call, one round of TLB shoot-down interrupts, as for one page of it.
#define KMP_RO_SMALL_COPY_PAGES 32

// Is it small and with edges?  Its copies would be closed at every region
// end (a round of TLB shoot-down interrupts per copy) to spare remote reads
// that a node's caches serve after the first: it is read from the original
// (unless KMP_READONLY_FORCE).
static inline int __kmp_ro_small_with_edges(const kmp_ro_item *it) {
  return __kmp_ro_has_edges(it) &&
         (it->pbase >= it->pend ||
          it->mend - it->mbase <= (uintptr_t)KMP_RO_SMALL_COPY_PAGES
                                      << __kmp_pt_page_shift);
}

#if KMP_PAGETRAP_SUPPORTED

// Give the pages of the copy m of it that hold its edges (its bytes outside
// the pages it covers whole) the protection prot.  Async-signal-safe.
// Returns 0, or -1 if a call failed (out of VMAs: a page in the middle of a
// mapping splits it).
static inline int __kmp_ro_protect_edges(const kmp_ro_item *it, char *m,
                                         int prot) {
  int rc = 0;
  if (it->mbase < it->pbase &&
      __kmp_pt_mprotect(m, it->pbase - it->mbase, prot) != 0)
    rc = -1;
  if (it->pend < it->mend && __kmp_pt_mprotect(m + (it->pend - it->mbase),
                                               it->mend - it->pend, prot) != 0)
    rc = -1;
  return rc;
}

// Bumped (__kmp_ro_changed) by whatever changes a cached item or what its
// replicas must copy: a chunk opened, a chunk marked for copying, an item
// marked stale, an item dropped.  A list remembered at an epoch is served as
// it was while the epoch, the fork(2) count (__kmp_ro_forks) and the
// written bits' epoch stay (kmp_readonly_region.cpp).
extern volatile kmp_uint64 __kmp_ro_epoch;
static inline void __kmp_ro_changed() {
  __atomic_fetch_add(&__kmp_ro_epoch, 1, __ATOMIC_SEQ_CST);
}
// The remembered lists that a running region uses (bit b: slot b).
extern volatile kmp_uint32 __kmp_ro_lists_active;
// Does a running region use it?  Async-signal-safe.  A thread that changes
// the item calls __kmp_ro_changed first and then asks this: a region start
// that marks its list in use and then finds the epoch unchanged is seen.
static inline int __kmp_ro_in_use(const kmp_ro_item *it) {
  return __atomic_load_n(&it->users, __ATOMIC_SEQ_CST) != 0 ||
         (__atomic_load_n(&it->lists, __ATOMIC_ACQUIRE) &
          __atomic_load_n(&__kmp_ro_lists_active, __ATOMIC_SEQ_CST)) != 0;
}

// The cached items by their bytes, as the fault path reads them
// (kmp_pt_index): replaced under __kmp_ro_lock; its generation is bumped
// when protections change and at drops.
extern kmp_pt_index<kmp_ro_item> __kmp_ro_table;
// The replicas' mappings (kmp_pt_index): replaced under
// __kmp_ro_copies_lock (a replica is made in a region, by a thread of its
// node, without __kmp_ro_lock; dropped under both locks, that one second).
extern kmp_pt_index<kmp_ro_copy> __kmp_ro_copies;
extern kmp_bootstrap_lock_t __kmp_ro_copies_lock;
// f(it) for each cached item whose pages may meet [a, e) (its bytes meet
// [a - page, e + page)), from inside the index; the caller checks the
// pages it means.  Lock-free, async-signal-safe.
template <typename F>
static inline void __kmp_ro_each_near(uintptr_t a, uintptr_t e, F f) {
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  kmp_pt_index<kmp_ro_item>::each(__kmp_ro_table.get(), a > pg ? a - pg : 0,
                                  e < UINTPTR_MAX - pg ? e + pg : UINTPTR_MAX,
                                  f);
}
// The pool that holds the items: its mappings (at most max in out; their
// number, which may be more).  Under __kmp_ro_lock.
int __kmp_ro_pool_ranges(kmp_pt_range *out, int max);
// The engine's id with the page-trap layer (__kmp_readonly_register).
extern int __kmp_ro_engine_id;
// Items may be write-protected: the layer's wrappers call the engine (the
// watch bit).
static inline int __kmp_ro_live() {
  return __kmp_pt_watched(__kmp_ro_engine_id);
}
extern volatile int __kmp_ro_node_hwm; // 1 + the highest node with a replica
extern kmp_bootstrap_lock_t __kmp_ro_lock; // the table and the budget
// The messages of a write in a region, prepared outside the handler from the
// i18n catalog ("%1$s".."%4$s" left in): fatal + hint, and warning; and of a
// pointer into a copy used after its region, or after the copy was dropped.
extern const char *__kmp_ro_msg_fatal;
extern const char *__kmp_ro_msg_warn;
extern const char *__kmp_ro_msg_stale;
extern const char *__kmp_ro_msg_dropped;

// What the fault path says about an item: kept with a dropped item's
// copies (a grave), whose addresses stay reserved and inaccessible so that
// a pointer into them is explained, not a plain SIGSEGV.
struct kmp_ro_desc {
  const char *psource; // ident_t's, or NULL
  char name[64]; // the list item as written ("" if not known)
  int index;
  uintptr_t base, end;
};
#define KMP_RO_GRAVES 64
struct kmp_ro_grave {
  volatile uintptr_t start, end; // the copy's addresses; end 0: free slot
  size_t map_bytes; // of the reserved mapping
  uintptr_t map_start;
  int node;
  kmp_ro_desc desc;
};
// In a private mapping (the handler reads it); under __kmp_ro_lock.
extern kmp_ro_grave *__kmp_ro_graves;
void __kmp_ro_describe(const kmp_ro_item *it, kmp_ro_desc *d);

// Open the closed chunks [lo, hi) of it: writable again, replicas marked to
// copy them.  Async-signal-safe (the fault path uses it).  Returns 0, or -1
// if mprotect failed (then the whole item was opened).
int __kmp_ro_open_chunks(kmp_ro_item *it, size_t lo, size_t hi);

// The chunks [lo, hi) of it are written or unprotected: each replica copies
// them again before its next use.  Async-signal-safe.
void __kmp_ro_mark_dirty(kmp_ro_item *it, size_t lo, size_t hi);

// The hooks the engine registers (kmp_readonly_fault.cpp; async-signal-safe).
// A write fault on a list item's protected pages: 1 if handled (retry the
// access), 0 if it is not the engine's.  Does not return for a fatal write
// in a region or through a replica, nor for any access to a closed, out of
// date or dropped copy.
int __kmp_ro_fault(uintptr_t addr, void *uc);
// A system call is about to write into [a, e): the write-protected pages of
// cached items there are opened as a serial write opens them.  EFAULT if a
// running region lists such an item and the call writes bytes of it (the
// call must fail before it writes any), else 0.
int __kmp_ro_io_write(uintptr_t a, uintptr_t e);
// The kernel is about to write into [a, e) whatever its protection (a write
// to /proc/<pid>/mem, which copies-on-write even read-only pages): as
// __kmp_ro_io_write, and the items there that are not protected (the
// program's read-only memory, items smaller than a page) are marked stale.
int __kmp_ro_forced_write(uintptr_t a, uintptr_t e);
// A write to the file with inode `ino` (0: to any file): the cached items in
// private mappings of it are marked stale (pages not yet copied on write
// show the file's page cache, which the write changes).
void __kmp_ro_file_write(kmp_uint64 ino);
// The engine's mapping_change hook (lock-free; kmp_readonly_fault.cpp).
void __kmp_ro_mapping_change(uintptr_t a, uintptr_t e);

// The item cache (kmp_readonly_items.cpp), under __kmp_ro_lock.
extern size_t __kmp_ro_reserved; // bytes of the budget held by items
// Items dropped so far: a drop changes the protection of pages, so maps read
// before it are out of date (read without the lock to know that).
extern volatile kmp_uint64 __kmp_ro_drops;
// The cached item for [*base, *end) of a region starting now (v: the maps;
// stacks: the stacks of the threads the runtime knows), its users raised
// and its chunks closed; NULL with *err if none (EAGAIN: it dropped items:
// read the maps again and retry).  A range in a replica is translated to
// the original's bytes in *base, *end; the item returned may be a larger
// one a running region holds that contains them.
kmp_ro_item *__kmp_ro_enter(uintptr_t *base, uintptr_t *end,
                            const kmp_pt_vma *v, int nv,
                            const kmp_pt_range *stacks, int nstacks, int *err);
// May it have replicas?  Reserves the budget (evicting unused items).
int __kmp_ro_reserve(kmp_ro_item *it, const kmp_pt_vma *v, int nv);
// Drop the items that no region uses and whose bytes (with `pages`: whose
// write-protected pages) meet [start, end) (all if start == end); EBUSY if
// some are in use.
int __kmp_ro_release(uintptr_t start, uintptr_t end, int pages);
// Drop the items no region uses that are no longer all mapped (v: the maps).
void __kmp_ro_drop_gone(const kmp_pt_vma *v, int nv);
#define KMP_RO_RETRACK (~(kmp_uint64)0) // kmp_ro_item::tracked
// Is it tracked by the kernel's written bits in this process?
static inline int __kmp_ro_tracked(const kmp_ro_item *it) {
  return it->tracked && it->tracked == __kmp_pt_written_epoch;
}
// What the kernel's written bits saw written in [lo, hi) since the last
// scan: the chunks of the tracked items there marked dirty, their edges
// marked written (a region start, for the span of its tracked items).
void __kmp_ro_scan_written(uintptr_t lo, uintptr_t hi);

// Replicas (kmp_readonly_replica.cpp; in regions, never in the handler;
// closing them is kmp_readonly_fault.cpp's, below).
// The calling thread's node (-1: none known; 0 when forced and unknown).
int __kmp_ro_thread_node();
// Node `node`'s replica of it, made or refreshed for activation `act`
// (once per node and activation); NULL if it could not be made.
char *__kmp_ro_replica(kmp_ro_item *it, int node, kmp_uint64 act);
// Under __kmp_ro_lock, with no region using it and no handler inside: the
// copies' memory is freed, their addresses are kept in a grave.
void __kmp_ro_free_replicas(kmp_ro_item *it);
// The copies become inaccessible (at the end of the last region using an
// item whose pages are not all protected, under __kmp_ro_lock; when the
// kernel changed the item unseen, async-signal-safe).
void __kmp_ro_close_replicas(kmp_ro_item *it);
// At the end of the last region using it, under __kmp_ro_lock: what its
// copies hide until the next region.  A copy with chunks written while the
// region ran: all of it; else the pages that hold its edges, if it has any.
void __kmp_ro_close_between(kmp_ro_item *it);
// fork(2): in the child, preparations of absent threads are forgotten.
void __kmp_ro_replicas_atfork_child(kmp_ro_item *it);

// fork(2) while a region used it: in the child, its replicas are made
// writable and left to the child's code, which may hold pointers into them;
// the item forgets them (the child's next region makes new ones).
void __kmp_ro_replicas_disown(kmp_ro_item *it);

// Region start and end (kmp_readonly_region.cpp), for the entry points and
// the API.  Start-up, before the first item (kmp_readonly.cpp).
void __kmp_ro_initialize();
// fork(2)s this process descends through (the child's atfork handler).
extern kmp_uint64 __kmp_ro_forks;
// No remembered list is in use any more (a fork(2) child, shutdown; under
// __kmp_ro_lock).
void __kmp_ro_lists_idle();
// The items of the remembered lists get their lists' last use (before an
// eviction picks the least recently used; under __kmp_ro_lock).
void __kmp_ro_lists_touch();

#endif // KMP_PAGETRAP_SUPPORTED

struct kmp_readonly_region;
// The first nonzero of codes[0, n), or 0.  An OR over all of them first: the
// compiler vectorises it, where a loop that stops at the first would take a
// cycle per item (a list of 10,000 items is looked at twice per region).
static inline int __kmp_ro_first_code(const int *codes, int n) {
  int any = 0;
  for (int i = 0; i < n; i++)
    any |= codes[i];
  for (int i = 0; i < n && any; i++)
    if (codes[i])
      return codes[i];
  return 0;
}
// Start a region with n items (codes[i]: an error found by the caller, or
// 0; receives each item's result).  Always returns a handle.
kmp_readonly_region *__kmp_ro_begin(ident_t *loc, int n, void *const *ptrs,
                                    const size_t *lens,
                                    const char *const *names, int *codes);
// The calling thread's pointers to h's items: a copy of its own in memory h
// owns (freed when it ends; the clause's code may write it); the array its
// node's threads share, not to be written (NULL if h is NULL); or its
// pointer to item i (NULL if h is NULL or i is out of range).
void **__kmp_ro_ptrs(kmp_readonly_region *h);
void *const *__kmp_ro_node_ptrs(kmp_readonly_region *h);
void *__kmp_ro_ptr(kmp_readonly_region *h, int i);
void __kmp_ro_end(kmp_readonly_region *h);

#endif // KMP_READONLY_H
