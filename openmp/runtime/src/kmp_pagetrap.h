/*
 * kmp_pagetrap.h -- the page-trap layer: what the next-touch engine
 * (kmp_nexttouch*.cpp) and the readonly(list) engine (kmp_readonly*.cpp)
 * stand on.  The layer is mechanism: it owns the SIGSEGV handler, the
 * tables the handler reads without locks, the raw system calls, the
 * process's mappings as /proc/self/maps lists them, the topology, the
 * counters' API and the C library's wrapped calls.  The engines are policy:
 * they decide what to protect and what a fault on it means, and register hooks
 * that the layer calls.  Neither engine calls the other; the layer reaches
 * an engine only through its hooks.
 *
 *   kmp_pagetrap.cpp          start-up, the engines' registration and the
 *                             dispatch of their hooks (yield, fork(2),
 *                             shutdown), argument checks, the warnings,
 *                             pools
 *   kmp_pagetrap_fault.cpp    the SIGSEGV handler, chaining  [signal handler]
 *   kmp_pagetrap_sys.cpp      raw system calls, private mappings, the
 *                             readability probe, the engines' buffer hooks
 *                             and the buffers in flight, the handler's own
 *                             maps walks, the C library's next definitions
 *                             [signal handler]
 *   kmp_pagetrap_maps.cpp     /proc/self/maps; threads that block SIGSEGV
 *   kmp_pagetrap_topology.cpp nodes with memory, the toucher's node, the
 *                             migration mechanism
 *   kmp_pagetrap_counters.cpp the API over the engines' counters
 *                             (kmp_get_nexttouch_counters, ...), the report
 *   kmp_pagetrap_io.cpp       system calls that copy into or out of memory
 *   kmp_pagetrap_mm.cpp       the program's own mapping changes
 *   kmp_pagetrap_sigmask.cpp  SIGSEGV stays deliverable in every thread
 *   kmp_pagetrap_written.cpp  the kernel's written bits (Linux 6.7+)
 *
 * The files marked [signal handler] hold only async-signal-safe code: no
 * locks, no allocation, no stdio, no libomp data structures.  The wrappers
 * (io, mm, sigmask) run in the program's threads, also inside its signal
 * handlers, and are lock-free up to the engines' hooks.  The runtime's
 * hooks and the settings are declared in kmp.h; the user API in omp.h.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef KMP_PAGETRAP_H
#define KMP_PAGETRAP_H

#ifndef __KMP_IMP
#define __KMP_IMP
#endif
#include "omp.h" // kmp_nexttouch_counters_t; first, as in kmp_csupport.cpp
#include "kmp.h"
#include "kmp_i18n.h"
#include "kmp_lock.h"

#if KMP_OS_LINUX
#define KMP_PAGETRAP_SUPPORTED 1
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#else
#define KMP_PAGETRAP_SUPPORTED 0
#endif

// ---------------------------------------------------------------------------
// Counters.  Each engine owns its counters: it keeps them in a structure of
// its own, adds to them with KMP_PT_COUNT (relaxed atomic adds, from
// anywhere, the signal handler included), and describes them to the layer
// in a kmp_pt_counter_set: each counter's name, where the engine keeps it,
// and where omp.h's kmp_nexttouch_counters_t shows it.  The layer fills
// that structure's header (the layer's state) and copies, clears and
// reports the registered engines' sets without knowing what they count
// (kmp_pagetrap_counters.cpp).
struct kmp_pt_counter {
  const char *name; // in the report: the field's name in omp.h, or an
                    // array's (its nodes follow)
  size_t own; // offset in the engine's structure
  size_t pub; // offset in kmp_nexttouch_counters_t
  int count; // 1, or the length of a per-node array
};
struct kmp_pt_counter_set {
  void *values; // the engine's structure: kmp_uint64 fields only
  const kmp_pt_counter *list;
  int n;
};
#define KMP_PT_COUNT(counters, field, v)                                       \
  __atomic_fetch_add(&(counters).field, (v), __ATOMIC_RELAXED)
// A counter of the engine's structure `type` shown as omp.h's field f.
#define KMP_PT_COUNTER(type, f)                                                \
  {#f, offsetof(type, f), offsetof(kmp_nexttouch_counters_t, f), 1}
#define KMP_PT_COUNTER_ARRAY(type, f, name)                                    \
  {name, offsetof(type, f), offsetof(kmp_nexttouch_counters_t, f),             \
   (int)(sizeof(((type *)0)->f) / sizeof(kmp_uint64))}
// The report at shutdown, with KMP_NEXTTOUCH_COUNTERS=true
// (__kmp_pagetrap_report; kmp_pagetrap_counters.cpp).
void __kmp_pt_report();

// ---------------------------------------------------------------------------
// Start-up (kmp_pagetrap.cpp, kmp_pagetrap_topology.cpp)

extern int __kmp_pt_initialized;
extern int __kmp_pt_num_nodes; // 1 if the topology is not known
extern long __kmp_pt_page; // the base page size
extern unsigned __kmp_pt_page_shift; // log2(__kmp_pt_page)
extern unsigned __kmp_pt_thp_shift; // log2 of a PMD-mapped huge page
// The layer's lock (start-up).  Taken after the engines' locks, never while
// the layer calls an engine's hook.
extern kmp_bootstrap_lock_t __kmp_pt_lock;
// Is the bootstrap lock held (by some thread)?  For KMP_DEBUG_ASSERT: a
// bootstrap lock does not know its owner.
static inline bool __kmp_pt_held(kmp_bootstrap_lock_t *l) {
  return l->lk.next_ticket.load(std::memory_order_relaxed) !=
         l->lk.now_serving.load(std::memory_order_relaxed);
}

// Page sizes, the topology and the mechanism, once, from the registered
// engines' settings; warns if the topology is not known (unless an engine
// is forced).  Every engine calls it before its first use.
void __kmp_pt_initialize();

// Reads the kernel's list of nodes with memory, or loads libomp's hwloc
// topology if nobody has and the list cannot be read (takes
// __kmp_initz_lock: not under the layer's or an engine's lock).
void __kmp_pt_load_topology();
// The table of nodes with memory.  Fills it, returns their number (1 if the
// topology is not known: *why says why).
int __kmp_pt_topology(const char **why);
// Where the table came from: "hwloc", "sysfs" or "none".
extern const char *__kmp_pt_topology_source;
// The node of the CPU the thread runs on, if that node has memory; -1 if
// not, or not known.  Async-signal-safe.
int __kmp_pt_node_of_current_cpu();

// What moves PROT_NONE pages on this kernel.
enum kmp_pt_mech_t {
  kmp_pt_mech_none = 0,
  kmp_pt_mech_move_pages = 1,
  kmp_pt_mech_mbind = 2
};
int __kmp_pt_probe_mechanism();
const char *__kmp_pt_mech_name(int mech);
// The mechanism in use (what the engine that moves pages asks for, else
// probed), whether pages are to be moved at all (more than one node with a
// mechanism, or that engine is forced), and whether it is forced.
extern int __kmp_pt_mech;
extern int __kmp_pt_moves;
extern int __kmp_pt_forced;

#define KMP_PT_MASK_WORDS 16 // nodemask of 1024 nodes for the policy calls
#define KMP_PT_MAXNODE (KMP_PT_MASK_WORDS * 8 * sizeof(unsigned long))

struct kmp_pt_range {
  uintptr_t start, end; // end exclusive
};

// The first of the n ranges of v (sorted, disjoint; T has `end`) that ends
// after a (n if none).  Async-signal-safe.
template <typename T>
static inline int __kmp_pt_first_after(const T *v, int n, uintptr_t a) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (v[mid].end <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The Fortran side (kmp_pagetrap_ftn.cpp).  The byte range [*ptr, *ptr +
// *len) covering every element of the array a Fortran C descriptor
// (CFI_cdesc_t) describes: 0, or EINVAL (a bad descriptor, an assumed-size
// array but from gfortran 11 and older), EOVERFLOW.
int __kmp_pt_cfi_range(const void *desc, void **ptr, size_t *len);
// An optional stat argument: rc stored if it is present.
static inline void __kmp_pt_set_stat(int *stat, int rc) {
  if (stat)
    *stat = rc;
}

// Sort r[0, n) by start and merge, in place, the ranges that overlap or
// meet: returns how many are left.  Not in the signal handler (qsort).
size_t __kmp_pt_ranges_merge(kmp_pt_range *r, size_t n);

// ---------------------------------------------------------------------------
// Arguments and warnings (kmp_pagetrap.cpp)

// A byte range given by the program: -1 for a no-op (zero length), 0 with
// its pages [*start, *end), or EINVAL (NULL), EOVERFLOW (past the address
// space).
int __kmp_pt_check_args(const void *ptr, size_t len, uintptr_t *start,
                        uintptr_t *end);
// The bytes of a compiler's list item (count elements of elem_size): 0,
// EINVAL (elements without a size) or EOVERFLOW.
int __kmp_pt_item_bytes(size_t count, size_t elem_size, size_t *bytes);
// The warning `msg` (a catalog message with the arguments where, index,
// what, reason) about list item idx of the construct at loc that a compiler
// entry point ignores: at most 20 per *count.  name: the item's source
// text, or NULL.
void __kmp_pt_warn_item(volatile int *count, kmp_i18n_id_t msg, ident_t *loc,
                        int idx, const char *name, const void *base,
                        size_t count_elems, size_t elem_size,
                        kmp_i18n_id_t reason);

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// What the fault path reads without locks

// Memory the fault path reads gets mappings of its own: heap memory could
// share a page with a program's range and be protected
// (kmp_pagetrap_sys.cpp; async-signal-safe).
void *__kmp_pt_private_alloc(size_t bytes);
void __kmp_pt_private_free(void *p, size_t bytes);

// Memory the fault path reads, for many small objects (next-touch's
// segments, readonly's items): arenas, private mappings of 1 MiB (or what
// one object needs) that alloc() fills one after the other, each unmapped
// when the last object in it is freed -- but for the newest of the usual
// size, which the next alloc() fills again.  The owner serialises the calls
// (its lock); free() only once no reader can see the object.
struct kmp_pt_arena {
  kmp_pt_arena *next; // the pool's arenas, newest first
  size_t map_bytes; // of its mapping, which starts with this
  size_t used; // bytes handed out, this header included
  size_t live; // objects not freed
};
struct kmp_pt_pool {
  kmp_pt_arena *arenas;
  // `bytes` of zeroes, and the arena that holds them; NULL if there is no
  // memory.
  void *alloc(size_t bytes, kmp_pt_arena **owner);
  void free(kmp_pt_arena *a);
  // Unmap the newest arena if it is empty (shutdown).
  void release();
  // The arenas' mappings: at most max in out; their number, which may be
  // more.
  int ranges(kmp_pt_range *out, int max) const;
};

// An index the fault path reads without locks, for any number of disjoint
// address ranges (T has `base` and `end`): an array of entries sorted by
// address, which the owner replaces as a whole (read-copy-update) under its
// lock.  A reader enter()s, loads the array once (get()), looks up by binary
// search, and leave()s after its last use of an entry.  There are two arrays
// of one capacity, in private mappings: the owner writes the one readers do
// not see, publishes it with a release store, and writes the other next time
// once no reader is inside.  Removing entries never needs memory (an
// engine's drop cannot fail); adding may (ENOMEM: nothing changed).
template <typename T> struct kmp_pt_index {
  struct snap {
    int n;
    T *e[1]; // n of them, sorted by base, disjoint
  };
  snap *volatile cur; // what readers see; NULL while empty
  snap *buf[2]; // the two arrays (cur is one of them, or NULL)
  size_t map_bytes; // of each array's mapping
  int cap; // entries each array holds
  bool spare_seen; // a reader may still be in the array cur is not
  volatile int readers; // inside the index now
  volatile kmp_uint64 gen = 1; // bumped whenever protections change

  void enter() { __atomic_fetch_add(&readers, 1, __ATOMIC_SEQ_CST); }
  void leave() { __atomic_fetch_sub(&readers, 1, __ATOMIC_SEQ_CST); }
  const snap *get() const { return __atomic_load_n(&cur, __ATOMIC_ACQUIRE); }
  kmp_uint64 generation() const {
    return __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
  }
  void bump() { __atomic_fetch_add(&gen, 1, __ATOMIC_ACQ_REL); }

  // The first entry of s that ends after a (s->n if none).
  static int lower(const snap *s, uintptr_t a) {
    int lo = 0, hi = s ? s->n : 0;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (s->e[mid]->end <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
  // The entry of s that holds a, or NULL.
  static T *find(const snap *s, uintptr_t a) {
    int i = lower(s, a);
    return s && i < s->n && s->e[i]->base <= a ? s->e[i] : NULL;
  }
  // f(entry) for each entry of s that meets [a, e), in address order.
  template <typename F>
  static void each(const snap *s, uintptr_t a, uintptr_t e, F f) {
    for (int i = lower(s, a); s && i < s->n && s->e[i]->base < e; i++)
      f(s->e[i]);
  }
  // Are the n entries of e sorted and disjoint?  For KMP_DEBUG_ASSERT.
  static bool ordered(T *const *e, int n) {
    for (int i = 1; i < n; i++)
      if (e[i - 1]->end > e[i]->base || e[i]->base >= e[i]->end)
        return false;
    return true;
  }

  // Under the owner's lock.  The entries now.
  int size() const { return cur ? cur->n : 0; }
  T *at(int i) const { return cur->e[i]; }

  // The array readers do not see, with room for `need` entries; NULL if
  // there is no memory for it (nothing changed).
  snap *spare(int need) {
    settle(); // a reader may still be in it
    if (need <= cap)
      return buf[0] == cur ? buf[1] : buf[0];
    int c = need > 2 * cap ? need : 2 * cap;
    c = c < 64 ? 64 : c;
    size_t pg = (size_t)__kmp_pt_page;
    size_t bytes = offsetof(snap, e) + sizeof(T *) * c;
    bytes = (bytes + pg - 1) & ~(pg - 1);
    snap *a = (snap *)__kmp_pt_private_alloc(bytes);
    snap *b = a ? (snap *)__kmp_pt_private_alloc(bytes) : NULL;
    if (!b) {
      if (a)
        __kmp_pt_private_free(a, bytes);
      return NULL;
    }
    // The old arrays go once no reader is in them (settle()): the caller
    // publishes the new one first.
    old_buf[0] = buf[0];
    old_buf[1] = buf[1];
    old_bytes = map_bytes;
    buf[0] = a;
    buf[1] = b;
    map_bytes = bytes;
    cap = (int)((bytes - offsetof(snap, e)) / sizeof(T *));
    return a;
  }
  snap *old_buf[2];
  size_t old_bytes;
  // Publish s (filled with n entries; NULL when n is 0).
  void show(snap *s, int n) {
    if (s)
      s->n = n;
    KMP_DEBUG_ASSERT(!s || ordered(s->e, n));
    __atomic_store_n(&cur, n ? s : (snap *)NULL, __ATOMIC_RELEASE);
    spare_seen = true;
  }

  // Add the nadd entries of add (sorted, disjoint from the others) without
  // waiting for readers of the array they replace: a reader may wait for
  // what the owner does next with the new entries (settle() waits, before
  // the owner relies on no reader seeing the old array).  0, or ENOMEM
  // (nothing changed).
  int publish(T *const *add, int nadd) {
    KMP_DEBUG_ASSERT(ordered(add, nadd));
    if (!nadd)
      return 0;
    const snap *last = cur;
    int n = last ? last->n : 0;
    snap *s = spare(n + nadd);
    if (!s)
      return ENOMEM;
    int i = 0, j = 0, k = 0;
    while (i < n || j < nadd)
      s->e[k++] = j >= nadd || (i < n && last->e[i]->base < add[j]->base)
                      ? last->e[i++]
                      : add[j++];
    show(s, k);
    return 0;
  }
  // Wait until no reader is in an array that cur is not (and free the
  // arrays a growth replaced).  Not while a reader may wait for the owner.
  void settle() {
    if (spare_seen) {
      retire();
      spare_seen = false;
    }
    if (old_buf[0]) {
      __kmp_pt_private_free(old_buf[0], old_bytes);
      __kmp_pt_private_free(old_buf[1], old_bytes);
      old_buf[0] = old_buf[1] = NULL;
    }
  }
  // Keep the entries for which keep(entry) holds; gone(entry) is called for
  // each entry left out, once no reader can see it.  Never fails.
  template <typename Keep, typename Gone> void update(Keep keep, Gone gone) {
    const snap *last = cur;
    int n = last ? last->n : 0, k = 0;
    if (!n)
      return;
    snap *s = spare(n); // no more than now: never allocates
    KMP_DEBUG_ASSERT(s);
    // keep() is asked once per entry (its answer may change meanwhile): the
    // entries left out are collected at the end of s, behind the kept ones.
    int out = n;
    for (int i = 0; i < n; i++) {
      if (keep(last->e[i]))
        s->e[k++] = last->e[i];
      else
        s->e[--out] = last->e[i];
    }
    if (k == n) {
      spare_seen = false; // written, not shown: nobody reads it
      return;
    }
    show(s, k);
    settle();
    for (int i = out; i < n; i++)
      gone(s->e[i]);
  }
  // Remove one entry.
  void remove(T *x) {
    update([=](T *e) { return e != x; }, [](T *) {});
  }
  // The private mappings of the arrays (and of those a growth replaced, not
  // freed yet): up to 4 in out; their number.
  int ranges(kmp_pt_range *out) const {
    int k = 0;
    for (int i = 0; i < 2; i++) {
      if (buf[i])
        out[k++] = {(uintptr_t)buf[i], (uintptr_t)buf[i] + map_bytes};
      if (old_buf[i])
        out[k++] = {(uintptr_t)old_buf[i], (uintptr_t)old_buf[i] + old_bytes};
    }
    return k;
  }
  // A reader that loaded an array or an entry before may still use it:
  // wait until none is inside.
  void retire() {
    bump();
    while (__atomic_load_n(&readers, __ATOMIC_SEQ_CST))
      KMP_CPU_PAUSE();
  }
  // fork(2), in the child: the readers were other threads.
  void atfork_child() { readers = 0; }
};

// Bumped after every mapping change libomp sees while somebody keeps a copy
// of the process's mappings (__kmp_pt_maps_watched): the program's calls
// through the wrappers of kmp_pagetrap_mm.cpp, the runtime's private
// mappings.  A copy read at one value still shows what libomp can see.
// Lock-free, async-signal-safe.
extern volatile kmp_uint64 __kmp_pt_maps_gen;
extern volatile int __kmp_pt_maps_watched;
static inline void __kmp_pt_maps_changed() {
  if (__atomic_load_n(&__kmp_pt_maps_watched, __ATOMIC_ACQUIRE))
    __atomic_fetch_add(&__kmp_pt_maps_gen, 1, __ATOMIC_ACQ_REL);
}

// ---------------------------------------------------------------------------
// The engines and their hooks (kmp_pagetrap.cpp)

// Up to KMP_PT_MAX_ENGINES engines register; each gets the id of its slot,
// in the order they register, and the layer asks them about a fault or a
// system call in that order (libomp registers an engine that may refuse a
// call, EFAULT, before one that would act on the buffer).  At fork their
// locks are taken the other way round.  KMP_PT_NO_ENGINE: the id of an
// engine before it registers (never watched).
enum { KMP_PT_MAX_ENGINES = 2, KMP_PT_NO_ENGINE = KMP_PT_MAX_ENGINES };

// Every hook is optional (NULL).
struct kmp_pt_engine {
  // [read at any time, also by the wrappers] The engine's settings that
  // concern the layer: whether it may trap pages at all (KMP_NEXTTOUCH,
  // KMP_READONLY), whether it acts as on several nodes (..._FORCE), and,
  // for an engine that moves pages, the kmp_pt_mech_t that moves them
  // (none: the layer asks the kernel; KMP_NEXTTOUCH_MECHANISM), NULL for
  // one that moves none.
  const int *enabled;
  const int *forced;
  const int *mechanism;
  // [signal handler] A SEGV_ACCERR fault at addr (uc: the context): 1 if it
  // was the engine's and the access can be retried, 0 to ask the next
  // engine or chain.  May not return (a fatal write to a readonly item).
  int (*fault)(uintptr_t addr, void *uc);
  // [lock-free; also in signal handlers] The kernel is about to copy into
  // (`into`) or out of [a, e) for a system call: EFAULT fails the call
  // before any byte is copied, 0 lets it go on.
  int (*buffer)(uintptr_t a, uintptr_t e, int into);
  // [as buffer] The kernel is about to write [a, e) whatever its protection
  // (/proc/<pid>/mem): EFAULT fails the call.
  int (*forced_write)(uintptr_t a, uintptr_t e);
  // [as buffer] A write to the file with inode `ino` (0: any file).
  void (*file_write)(kmp_uint64 ino);
  // [as buffer: lock-free, also in signal handlers and in allocator
  // callbacks made while the engine holds its lock] The program is about to
  // change the mapping or the content of [a, e) (page aligned).
  void (*mapping_change)(uintptr_t a, uintptr_t e);
  // [not in a signal handler] Another engine takes [a, e): the engine gives
  // up what it holds there, or EBUSY.
  int (*yield)(uintptr_t a, uintptr_t e);
  // [not in a signal handler] The engine's own mappings, which no engine may
  // protect: at most max ranges in out; their number, which may be more
  // (then the layer asks again with room for them).
  int (*private_ranges)(kmp_pt_range *out, int max);
  // fork(2): 0 prepare (take the engine's locks), 1 parent, 2 child.
  void (*atfork)(int phase);
  // Shutdown, while no region runs: everything given back.
  void (*cleanup)();
  // [data] The engine's counters (kmp_get_nexttouch_counters and the report
  // at exit show them; kmp_reset_nexttouch_counters clears them).
  const kmp_pt_counter_set *counters;
};

// Once per engine, while libomp initialises (__kmp_do_serial_initialize,
// after the settings are read), through the engine's __kmp_*_register in
// kmp.h; e lives as long as the process.  Returns the engine's id (the same
// again for an engine registered before), which it passes to the calls
// below; KMP_PT_NO_ENGINE if every slot is taken.
int __kmp_pt_register(const kmp_pt_engine *e);
// Whether a registered engine may trap pages (before libomp has read its
// settings: yes).  Lock-free.
int __kmp_pt_enabled();
extern const kmp_pt_engine *volatile __kmp_pt_engines[KMP_PT_MAX_ENGINES];

// The engines that want the wrappers' calls now (bit 1 << id): one load in
// a wrapper while none does.  An engine sets its bit before it protects
// anything; next-touch clears its bit when nothing is left, readonly keeps
// it (its cached items stay protected between regions).
extern volatile int __kmp_pt_watch;
// The engines with a forced_write or file_write hook (bit 1 << id).
extern volatile int __kmp_pt_file_engines;
// The engines whose file_write hook can matter now (they hold something a
// write to a file may change: bit 1 << id).  While none does, and the
// process never opened a procfs mem file (forced_write), the wrappers of
// write() and its kin make no per-call system call.
extern volatile int __kmp_pt_file_watch;
static inline void __kmp_pt_set_file_watched(int id, int on) {
  KMP_DEBUG_ASSERT(id >= 0 && id < KMP_PT_MAX_ENGINES);
  if (on)
    __atomic_fetch_or(&__kmp_pt_file_watch, 1 << id, __ATOMIC_ACQ_REL);
  else
    __atomic_fetch_and(&__kmp_pt_file_watch, ~(1 << id), __ATOMIC_ACQ_REL);
}
static inline int __kmp_pt_watched(int id) {
  return (__atomic_load_n(&__kmp_pt_watch, __ATOMIC_ACQUIRE) >> id) & 1;
}
static inline void __kmp_pt_set_watched(int id, int on) {
  KMP_DEBUG_ASSERT(id >= 0 && id < KMP_PT_MAX_ENGINES);
  if (on)
    __atomic_fetch_or(&__kmp_pt_watch, 1 << id, __ATOMIC_ACQ_REL);
  else
    __atomic_fetch_and(&__kmp_pt_watch, ~(1 << id), __ATOMIC_ACQ_REL);
}

// Engine `self` takes [a, e): the other engines' yield hooks; the first
// error.
int __kmp_pt_yield(int self, uintptr_t a, uintptr_t e);
// The private mappings of the layer and of the engines other than `self`,
// which `self` must never protect: *out allocated with KMP_INTERNAL_MALLOC
// (free it with KMP_INTERNAL_FREE); their number.
int __kmp_pt_private_ranges(int self, kmp_pt_range **out);

// ---------------------------------------------------------------------------
// System calls and memory of its own (kmp_pagetrap_sys.cpp; async-signal-safe)

// (__kmp_pt_private_alloc and __kmp_pt_private_free: above.)
// Replace the private mapping [p, p+bytes) by an inaccessible reservation
// without memory: the addresses stay the engine's (a fault there is its),
// the pages are freed.  Free it with __kmp_pt_private_free.
void __kmp_pt_private_retire(void *p, size_t bytes);

// Raw system calls: no libnuma state, and the engines' own mapping changes
// do not go through the wrappers of kmp_pagetrap_mm.cpp.
long __kmp_pt_move_pages(unsigned long count, void **pages, const int *nodes,
                         int *status, int flags);
long __kmp_pt_mbind(void *addr, unsigned long len, int mode,
                    const unsigned long *mask, unsigned long maxnode,
                    unsigned flags);
long __kmp_pt_get_mempolicy(int *mode, unsigned long *mask,
                            unsigned long maxnode, void *addr,
                            unsigned long flags);
int __kmp_pt_mprotect(void *addr, size_t len, int prot);
kmp_uint64 __kmp_pt_now_ns();

// Can the page be read now (asked of the kernel, without faulting)?
int __kmp_pt_readable(uintptr_t page);
// Was the fault with context uc a write?  1 yes, 0 no, -1 not known (only
// x86-64's page-fault error code says).
int __kmp_pt_fault_is_write(const void *uc);
// The bounds of the VMA that holds addr if it is private and inaccessible
// ("---p"), read from /proc/self/maps through a small buffer.  1 if so.
int __kmp_pt_none_vma(uintptr_t addr, uintptr_t *lo, uintptr_t *hi);
// The start of the file at path in buf[size], NUL-terminated (a file of
// /proc or /sys on the stack, never in the heap an engine may protect):
// its length, or -1 if it cannot be opened.  Not in a signal handler: the C
// library's open and read (kmp_pagetrap_maps.cpp).
int __kmp_pt_read_file(const char *path, char *buf, size_t size);
// Give the mapped pages of [start, end) the protection prot, VMA by VMA as
// /proc/self/maps shows them (mprotect stops at the first hole).  0 if every
// call succeeded.
int __kmp_pt_mprotect_mapped(uintptr_t start, uintptr_t end, int prot);

// ---------------------------------------------------------------------------
// The kernel's written bits (kmp_pagetrap_written.cpp; Linux 6.7 and later;
// but for untracking, not in the signal handler; the caller serialises)

// Can ranges be tracked (probed at the first call)?
int __kmp_pt_written_available();
// Track the pages [s, e): from now on a write to one, by anybody, is
// recorded; those of [ps, pe) start afresh, the others are tracked already
// (their bits may hold writes not yet scanned).  0, or an errno (EBUSY: the
// program's own userfaultfd has them; ENOMEM: out of VMAs, the range's ends
// split mappings).
int __kmp_pt_written_track(uintptr_t s, uintptr_t e, uintptr_t ps,
                           uintptr_t pe);
// Stop tracking [s, e).  Async-signal-safe (one raw system call).
void __kmp_pt_written_untrack(uintptr_t s, uintptr_t e);
// f(arg, s, e) for each run of tracked pages in [s, e) written since they
// were tracked or last scanned; they are recorded afresh from now on.  0,
// or -1 if the scan failed (what it did not report may have been written).
int __kmp_pt_written_scan(uintptr_t s, uintptr_t e,
                          void (*f)(void *arg, uintptr_t s, uintptr_t e),
                          void *arg);
// Are the tracked ranges r[0, n) (sorted, disjoint, page-aligned) all still
// tracked (not unmapped or mapped anew since: a mapping replaced is not
// registered) and none of their pages written since the last scan?  One
// PAGEMAP_SCAN that changes nothing; 0 if not, or not known.
int __kmp_pt_written_quiet(const kmp_pt_range *r, int n);
// Bumped in a fork() child, where nothing tracked before is tracked.
extern kmp_uint64 __kmp_pt_written_epoch;
void __kmp_pt_written_atfork_child();

// The next definition of a wrapped C library function `name`, looked up once
// into *cache; NULL if there is none.
void *__kmp_pt_next(void *volatile *cache, const char *name);
// In a wrapper: `f`, the next definition of `name` (a string) of type
// `fn_type`; without one the wrapper fails with ENOSYS, returning `failed`.
// The cached pointer is read inline: a wrapper's idle path is one load more
// than the C library's call.
#define KMP_PT_NEXT(fn_type, name, failed)                                     \
  static void *volatile next;                                                  \
  void *next_fn = __atomic_load_n(&next, __ATOMIC_ACQUIRE);                    \
  if (!next_fn)                                                                \
    next_fn = __kmp_pt_next(&next, name);                                      \
  fn_type f = (fn_type)next_fn;                                                \
  if (!f) {                                                                    \
    errno = ENOSYS;                                                            \
    return failed;                                                             \
  }

// The buffers that wrapped system calls hand to the kernel now (listed by
// kmp_pagetrap_io.cpp, kept in kmp_pagetrap_sys.cpp): an engine that has
// claimed pages it is about to protect asks __kmp_pt_io_busy first and
// leaves alone what is in flight.
#define KMP_PT_IO_SLOTS 64
struct kmp_pt_io_slot {
  volatile uintptr_t start, end; // start 0: free, 1: being filled
};
extern kmp_pt_io_slot __kmp_pt_io_slots[KMP_PT_IO_SLOTS];
extern volatile int __kmp_pt_io_used;
// 1 if [a, e) meets a buffer in flight.  Async-signal-safe, lock-free.
int __kmp_pt_io_busy(uintptr_t a, uintptr_t e);

// A system call is about to copy into (`into`) or out of [a, e): the
// engines that watch touch or open it first (their buffer hooks); EFAULT if
// one refuses.  Lock-free, async-signal-safe (kmp_pagetrap_sys.cpp).
int __kmp_pt_buffer(uintptr_t a, uintptr_t e, int into);

// The layer's own mapping (the table of nodes with memory), or 0
// (kmp_pagetrap_topology.cpp).
int __kmp_pt_private_table(uintptr_t *start, uintptr_t *end);

// ---------------------------------------------------------------------------
// The fault path (kmp_pagetrap_fault.cpp, kmp_pagetrap_sigmask.cpp)

// Put the layer's SIGSEGV handler first.  Idempotent and lock-free: the
// engines call it before they protect anything, the sigmask wrappers
// whenever a thread would block SIGSEGV.
void __kmp_pt_install_handler();
// Block every signal but the synchronous ones in *old's place, as the
// handler runs: no signal handler may run while a thread holds a claim.
// Undo it with __kmp_pt_real_sigmask(SIG_SETMASK, old, NULL).
void __kmp_pt_block_async(sigset_t *old);

// SIGSEGV as the program sees it (kmp_pagetrap_sigmask.cpp).
// The C library's sigaction, past the wrapper.
int __kmp_pt_real_sigaction(int sig, const struct sigaction *act,
                            struct sigaction *old);
// Puts `ours` in the kernel; the action found there becomes the program's
// copy, which the sigaction and signal wrappers read and set from then on.
// Idempotent; 1 if ours is in front.
int __kmp_pt_handler_in_front(const struct sigaction *ours);
// [signal handler] The program's action for SIGSEGV, and the reset of a
// SA_RESETHAND one as the kernel delivers it.
void __kmp_pt_program_action(struct sigaction *out);
void __kmp_pt_program_action_reset();
// The C library's pthread_sigmask, past the wrapper.
int __kmp_pt_real_sigmask(int how, const sigset_t *set, sigset_t *old);
// [signal handler] Does the thread block SIGSEGV in the program's view?
// The handler sets the view while the program's handler runs.
int __kmp_pt_segv_blocked_view();
void __kmp_pt_set_segv_blocked_view(int blocked);
// [signal handler] The handler's first question: 1 if the SIGSEGV described
// by si was sent to a thread that blocks SIGSEGV in the program's view; it
// is then held until the thread unblocks it or waits for it.  uc: the
// handler's context.  (A sent SIGSEGV the program ignores is discarded when
// it is chained.)
int __kmp_pt_hold_segv(const siginfo_t *si, void *uc);
// [signal handler] A SIGSEGV sent while the engines handle a fault in this
// thread is held until they are done; then taken (1) unless the thread
// blocks SIGSEGV in its view.
void __kmp_pt_hold_segv_inside(const siginfo_t *si);
int __kmp_pt_take_held_inside(siginfo_t *si);

// ---------------------------------------------------------------------------
// The VMAs (kmp_pagetrap_maps.cpp; not in a signal handler)

struct kmp_pt_vma {
  uintptr_t start, end;
  int prot;
  int stack; // the main thread's [stack]
  int shared; // MAP_SHARED ('s')
  kmp_uint64 offset, inode; // of a file mapping (inode 0: anonymous)
  uintptr_t thp_bytes; // AnonHugePages (read from smaps only when wanted)
};

// The process's VMAs, sorted, in *out (free it with __kmp_pt_free_maps);
// their number, or -1 if the file cannot be read or there is no memory for
// it (a process at vm.max_map_count: malloc cannot map more).  With `smaps`,
// AnonHugePages too.
int __kmp_pt_read_maps(kmp_pt_vma **out, int smaps);
void __kmp_pt_free_maps(kmp_pt_vma *v);
// The calling thread's stack, guard pages included, in [*lo, *hi).  v: the
// maps of __kmp_pt_read_maps, n of them: the initial thread's is their
// [stack] VMA (the C library would read /proc/self/maps again).
void __kmp_pt_my_stack(uintptr_t *lo, uintptr_t *hi, const kmp_pt_vma *v,
                       int n);

// The OS id of a thread of the process that blocks SIGSEGV (the first found),
// its name in name[len]; 0 if none.  A fault on a protected page kills such
// a thread's process: the kernel cannot deliver the signal to the handler.
int __kmp_pt_segv_blocker(char *name, size_t len);

#endif // KMP_PAGETRAP_SUPPORTED

#endif // KMP_PAGETRAP_H
