/*
 * kmp_nexttouch_arm.cpp -- affinity-on-next-touch: arming the pending
 * requests at the fork of a team (re-validated against the VMAs, minus
 * libomp's stacks and the engines' own memory, THP blocks as units),
 * re-arming re-requested pages, and dropping units the program unmapped or
 * re-protected.  Ending arming is in kmp_nexttouch_disarm.cpp.
 *
 * Runs on the primary thread of a forking team, under __kmp_nt_lock; never
 * in a signal handler.  It publishes segments before it protects their
 * pages, so a fault always finds its segment.
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
#include <string.h>
#if KMP_PAGETRAP_SUPPORTED
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef MADV_COLD
#define MADV_COLD 20 // Linux 5.4
#endif
#endif

#if KMP_PAGETRAP_SUPPORTED

kmp_uint64 __kmp_nt_forks = 0;

// ---------------------------------------------------------------------------
// Segments, their items and their states: in a pool (the fault path reads
// them), under __kmp_nt_lock.

static kmp_pt_pool nt_pool;

// Once no reader can see seg (kmp_pt_index::update).
void __kmp_nt_free_segment(kmp_nt_segment *seg) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  nt_pool.free(seg->arena);
}

// Shutdown: an empty newest arena goes.
void __kmp_nt_free_arenas() {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  nt_pool.release();
}

// ---------------------------------------------------------------------------
// What is never armed: libomp's thread stacks and the engines' own memory.
// They are anonymous read-write memory that the kernel may have placed in the
// hole of a range freed since its request, or merged into the VMA of a heap
// buffer.

int __kmp_nt_segment_ranges(kmp_pt_range *out, int max) {
  int k = 0;
  kmp_pt_range r;
  auto add = [&](kmp_pt_range x) {
    if (k < max)
      out[k] = x;
    k++;
  };
  if (__kmp_nt_move_lists_range(&r))
    add(r);
  kmp_pt_range arrays[4];
  for (int i = 0, n = __kmp_nt_table.ranges(arrays); i < n; i++)
    add(arrays[i]);
  return k + nt_pool.ranges(out + (k < max ? k : max), k < max ? max - k : 0);
}

// Sorted, overlaps merged; *n receives the count (allocated with
// KMP_INTERNAL_MALLOC, not cleared: most of its capacity is never used).
// v, nv: the maps (the calling thread's stack; __kmp_pt_my_stack).
static kmp_pt_range *nt_exclusions(int *n, const kmp_pt_vma *v, int nv) {
  kmp_pt_range *priv = NULL;
  int npriv = __kmp_pt_private_ranges(__kmp_nt_engine_id, &priv);
  int nown = __kmp_nt_segment_ranges(NULL, 0);
  int cap = nown + __kmp_threads_capacity + npriv, k = 0;
  kmp_pt_range *x =
      (kmp_pt_range *)KMP_INTERNAL_MALLOC(sizeof(kmp_pt_range) * cap);
  if (!x)
    KMP_FATAL(MemoryAllocFailed);
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  for (int i = 0; i < __kmp_threads_capacity && k < cap; i++) {
    kmp_info_t *th = __kmp_threads ? __kmp_threads[i] : NULL;
    if (!th)
      continue;
    // A worker created by this very fork has not recorded its stack yet
    // (ds_stackbase is set when it starts running): ask its pthread.
    uintptr_t top = (uintptr_t)th->th.th_info.ds.ds_stackbase;
    uintptr_t bottom = top - th->th.th_info.ds.ds_stacksize;
    size_t guard = pg;
    pthread_attr_t attr;
    if (pthread_equal(th->th.th_info.ds.ds_thread, pthread_self())) {
      __kmp_pt_my_stack(&bottom, &top, v, nv);
      guard = 0; // included
    } else if (pthread_getattr_np(th->th.th_info.ds.ds_thread, &attr) == 0) {
      void *addr;
      size_t size;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        bottom = (uintptr_t)addr;
        top = bottom + size;
      }
      pthread_attr_getguardsize(&attr, &guard);
      pthread_attr_destroy(&attr);
    }
    if (top <= bottom)
      continue;
    // Include the guard pages and round to pages.
    x[k].start = (bottom & ~(pg - 1)) - ((guard + pg - 1) & ~(pg - 1));
    x[k++].end = (top + pg - 1) & ~(pg - 1);
  }
  k += __kmp_nt_segment_ranges(x + k, nown);
  // The layer's and the other engines' memory (readonly's fault path writes
  // its items and replicas).
  for (int i = 0; i < npriv && k < cap; i++) {
    x[k].start = priv[i].start;
    x[k++].end = priv[i].end;
  }
  KMP_INTERNAL_FREE(priv);
  *n = (int)__kmp_pt_ranges_merge(x, k);
  return x;
}

// ---------------------------------------------------------------------------
// Stale units: armed pages are PROT_NONE.  Where the VMA over an armed unit is
// now something else (the program unmapped it, mapped something new there,
// or changed its protection, with calls the wrappers of kmp_pagetrap_mm.cpp
// did not see), the unit is no longer the engine's: it is dropped without
// touching the mapping's protection, and counted in pages_disarmed (every
// armed page is counted once: migrated, local, touched serially, disarmed,
// expired or failed to move).  Checked
// whenever the engine reads the VMAs anyway (arming) and before it restores
// protections outside the fault path (disarming, shutdown).

static void nt_drop_stale(const kmp_pt_vma *v, int n) {
  int j = 0; // segments are disjoint and sorted: one walk through the VMAs
  for (int i = 0; i < __kmp_nt_table.size(); i++) {
    kmp_nt_segment *s = __kmp_nt_table.at(i);
    if (!__atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE))
      continue;
    int jm = -1, jmarked = 0;
    for (size_t u = 0; u < s->nunits; u++) {
      unsigned char st = __atomic_load_n(&s->state[u], __ATOMIC_ACQUIRE);
      if (!(st & KMP_NT_ARMED))
        continue;
      uintptr_t a = s->base + (u << s->shift);
      uintptr_t b = a + ((uintptr_t)1 << s->shift);
      while (j < n && v[j].end <= a)
        j++;
      // Ours only if one PROT_NONE VMA holds the whole unit, with the mark
      // if the segment is marked.  A VMA has one policy, so a unit found
      // marked vouches for the rest of its VMA.  An answer without the mark
      // vouches for nothing: the VMAs were read earlier, and since then a
      // fault may have claimed units of that VMA and begun to restore them
      // (the mark goes first), splitting it.  Such a unit fails the exchange
      // below; one still armed when asked has the mark unless it is not ours.
      if (j < n && v[j].start <= a && b <= v[j].end && v[j].prot == PROT_NONE) {
        if (!s->marked || (jm == j && jmarked))
          continue;
        jm = j;
        jmarked = __kmp_nt_marked(a);
        if (jmarked)
          continue;
      }
      if (__atomic_compare_exchange_n(&s->state[u], &st, KMP_NT_CLAIMED, false,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        // A mapping still there keeps its protection; the engine's mark
        // (if it is still on it) goes.
        if (s->marked && j < n && v[j].start <= a && __kmp_nt_marked(a))
          __kmp_nt_set_mark(a, b - a, 0);
        __kmp_nt_done(s, u, 1);
        KMP_NT_ADD(pages_disarmed, __kmp_nt_unit_pages(s));
      }
    }
  }
}

// Reads the VMAs and drops stale units; returns the VMAs (or NULL).
kmp_pt_vma *__kmp_nt_check_armed(int *n, int smaps) {
  kmp_pt_vma *vmas = NULL;
  *n = __kmp_pt_read_maps(&vmas, smaps);
  if (*n >= 0 && __kmp_nt_armed())
    nt_drop_stale(vmas, *n);
  return vmas;
}

// ---------------------------------------------------------------------------
// Arming

// Is transparent huge page support on at all (else smaps is not read, and
// no huge page is split)?
static int nt_thp_possible() {
  static int possible = -1;
  if (possible < 0) {
    char buf[128];
    possible = __kmp_pt_read_file("/sys/kernel/mm/transparent_hugepage/enabled",
                                  buf, sizeof buf) > 0 &&
               !strstr(buf, "[never]");
  }
  return possible;
}

// Has the kernel made a transparent huge page since it booted?  Without
// one, nothing can be behind the pages an arming protects: it neither reads
// smaps (a walk of the whole address space's page tables) nor splits
// anything.  /proc/vmstat counts them as they are made (thp_fault_alloc,
// thp_collapse_alloc, thp_file_alloc); /proc/meminfo's AnonHugePages would
// not do: it drops a huge page once its mapping is split into 4 KB entries,
// which the kernel still migrates whole.  Under THP "madvise" with nothing
// advised there are none.  A huge page that khugepaged makes after this is
// moved whole by the batch that takes it.  1 if not known.  The counters
// only grow: once one is not zero, the file is not read again.
static int nt_huge_made() {
  static int made = 0;
  if (made)
    return 1;
  char buf[16384];
  if (__kmp_pt_read_file("/proc/vmstat", buf, sizeof buf) < 0)
    return 1;
  static const char *const keys[] = {
      "\nthp_fault_alloc ", "\nthp_collapse_alloc ", "\nthp_file_alloc "};
  int seen = 0;
  for (const char *k : keys) {
    const char *v = strstr(buf, k);
    if (!v)
      continue;
    seen = 1;
    if (strtoul(v + strlen(k), NULL, 10) != 0)
      return made = 1;
  }
  return !seen;
}

// Does this arming split the huge pages behind base-page units?  Set at its
// start (__kmp_nt_arm_pending), under __kmp_nt_lock.
static int nt_split = 1;

// Split the transparent huge pages behind the base pages [a, e) of a segment
// of base-page units.  The kernel migrates a huge page whole, even where
// mprotect has split its mapping into base pages (mbind and move_pages take
// the compound page of any page they are given): a batch would carry the
// other pages of the huge page with it, pages that other threads have
// touched where they are or will touch later, and memory outside the request
// (a huge page that khugepaged made of a heap buffer, its neighbours and a
// thread's stack).  MADV_COLD splits a huge page that its range covers only in
// part, so each aligned block gets a call of its own that leaves out the last
// page of a whole block.  It also takes the pages off the active list (their
// next touch puts them back) and clears their accessed bits, so khugepaged
// does not collapse them again before they are protected (it never collapses
// PROT_NONE pages).  A huge page that another process maps too (copy-on-write
// after fork) is not split: neither mbind nor move_pages moves it.
// A huge page is split whole by one call over part of it: the other pieces
// of the same block that this arming protects next need none
// (*last_block: the block split last).
static int nt_split_calls; // this arming's (under __kmp_nt_lock)
static void nt_split_huge(uintptr_t a, uintptr_t e, uintptr_t *last_block) {
  uintptr_t huge = (uintptr_t)1 << __kmp_pt_thp_shift;
  while (a < e) {
    uintptr_t block = a & ~(huge - 1), next = block + huge;
    uintptr_t stop = next < e ? next : e;
    if (stop - a == huge)
      stop -= __kmp_pt_page;
    if (block != *last_block) {
      syscall(SYS_madvise, a, stop - a, MADV_COLD);
      nt_split_calls++;
    }
    *last_block = block;
    a = next;
  }
}

// The kernel's count of huge pages it could not split (/proc/vmstat), 0 if
// it cannot be read.
static kmp_uint64 nt_split_failures() {
  char buf[16384];
  if (__kmp_pt_read_file("/proc/vmstat", buf, sizeof buf) < 0)
    return 0;
  static const char key[] = "\nthp_split_page_failed ";
  const char *v = strstr(buf, key);
  return v ? strtoull(v + sizeof key - 1, NULL, 10) : 0;
}

// A split fails, and madvise says nothing, where another thread holds a
// reference to the huge page for a moment (a fault on another of its
// pages: a thread's stack in the same block, spinning at the fork
// barrier); the page stays whole behind its base-page mappings, and the
// first touch of any of them moves all of it.  So after an arming that
// split, the kernel's count of failed splits is read: if it rose since the
// last look, the requested pages are split again, up to three times (a
// rise by another process costs a needless pass).
static kmp_uint64 nt_split_seen = ~(kmp_uint64)0; // the count at the last look
static void nt_split_again() {
  kmp_uint64 &seen = nt_split_seen, now = nt_split_failures();
  for (int tries = 0; tries < 3 && now > seen; tries++) {
    KA_TRACE(20, ("nt_split_again: %llu failed splits, pass %d\n",
                  (unsigned long long)(now - seen), tries + 1));
    seen = now;
    sched_yield();
    uintptr_t last = 1;
    for (size_t r = 0; r < __kmp_nt_requests.nranges; r++) {
      uintptr_t start, end;
      if (__kmp_nt_inner_pages(__kmp_nt_requests.ranges[r].start,
                               __kmp_nt_requests.ranges[r].end, &start, &end))
        nt_split_huge(start, end, &last);
    }
    now = nt_split_failures();
  }
  seen = now;
}

// What an arming uses throughout: room for a chunk of pages and their
// status, /proc/self/pagemap, opened at its first use (-2: not yet, -1: it
// cannot be) and closed when the arming ends, the huge page split last, the
// memory policy of the VMA of the last piece, and the pages that the
// kernel's limit of mappings kept from being armed.
struct nt_arming {
  void **pages;
  int *status;
  int pagemap;
  uintptr_t last_block;
  const kmp_pt_vma *pol_vma;
  int pol_mode;
  unsigned long pol_mask[KMP_PT_MASK_WORDS];
  kmp_uint64 map_limit;
};

// Split the huge pages behind base-page units (if seg has them), mark (if
// seg is marked) and protect [a, a+len); 1 if done, else nothing is changed
// but the split.
static int nt_protect(const kmp_nt_segment *seg, uintptr_t a, size_t len,
                      nt_arming *w) {
  if (seg->shift == __kmp_pt_page_shift && nt_split)
    nt_split_huge(a, a + len, &w->last_block);
  int err = 0;
  if (seg->marked && !__kmp_nt_set_mark(a, len, 1)) {
    err = errno;
  } else if (__kmp_pt_mprotect((void *)a, len, PROT_NONE) == 0) {
    return 1;
  } else {
    err = errno;
    if (seg->marked)
      __kmp_nt_set_mark(a, len, 0);
  }
  // Out of mappings (vm.max_map_count): the caller counts them in fail_arm;
  // the arming says so once.
  if (err == ENOMEM)
    w->map_limit += len >> __kmp_pt_page_shift;
  return 0;
}

// Which of the k pages w->pages[0, k) another process maps too (shared
// copy-on-write after a fork of this process or of its parent, whether or
// not libomp ran then): bit 63 of a /proc/self/pagemap entry says present,
// bit 56 exclusively mapped.  Asked only where mbind moves the pages, or
// for whole huge pages (move_pages says which base pages it could not
// move).
static void nt_cow_pages(nt_arming *w, int k, unsigned char *cow) {
  memset(cow, 0, k);
  if (w->pagemap == -2)
    w->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  int fd = w->pagemap;
  if (fd < 0)
    return;
  void *const *pages = w->pages;
  enum { RUN = 512 };
  kmp_uint64 ent[RUN];
  for (int i = 0; i < k;) {
    uintptr_t pn = (uintptr_t)pages[i] >> __kmp_pt_page_shift;
    int e = i + 1;
    while (e < k && e - i < RUN &&
           ((uintptr_t)pages[e] >> __kmp_pt_page_shift) == pn + (e - i))
      e++;
    ssize_t r = pread(fd, ent, sizeof(kmp_uint64) * (e - i),
                      (off_t)(pn * sizeof(kmp_uint64)));
    for (int j = 0; j < e - i && (ssize_t)((j + 1) * sizeof(kmp_uint64)) <= r;
         j++)
      cow[i + j] = (ent[j] >> 63) & 1 && !((ent[j] >> 56) & 1);
    i = e;
  }
}

// The largest end of the requested items up to each one (the items are
// sorted by then): set at the start of an arming.
static uintptr_t *nt_item_reach;

// The requested items from the first that meets [start, end) to the last
// that does: *first, and their number.
static size_t nt_items_in(uintptr_t start, uintptr_t end, size_t *first) {
  const kmp_pt_range *it = __kmp_nt_requests.items;
  size_t lo = 0, hi = __kmp_nt_requests.nitems;
  while (lo < hi) { // the first whose reach passes start
    size_t mid = lo + (hi - lo) / 2;
    if (nt_item_reach[mid] <= start)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t f = lo;
  hi = __kmp_nt_requests.nitems;
  while (lo < hi) { // the first that starts at or after end
    size_t mid = lo + (hi - lo) / 2;
    if (it[mid].start < end)
      lo = mid + 1;
    else
      hi = mid;
  }
  // [f, lo) starts before end and reaches past start, but an item inside
  // may end before it: the span runs from the first to the last that meet.
  while (f < lo && it[f].end <= start)
    f++;
  while (lo > f && it[lo - 1].end <= start)
    lo--;
  *first = f;
  return lo - f;
}

// Units [u, e) of seg, claimed by the arming thread, hold the buffer of a
// system call in flight (kmp_pagetrap_io.cpp): protecting them would fail
// the call.
static bool nt_in_flight(const kmp_nt_segment *seg, size_t u, size_t e) {
  return __kmp_pt_io_busy(seg->base + (u << seg->shift),
                          seg->base + (e << seg->shift));
}

// The pieces an arming makes, built before any is published.
// Built before any is published; the list is private memory: the arming
// thread reads it while it protects the pieces, which may be heap.
struct nt_built {
  kmp_nt_segment **seg;
  size_t n, cap, map_bytes;
};

// Make the segment of [start, end) (unit aligned, read-write, part of VMA
// m): the segment, a copy of its items and its units' states, in an arena
// (the fault path reads them).  Which units are armed is found later
// (nt_locate), for every piece at once.
static void nt_build_piece(const kmp_pt_vma *m, uintptr_t start, uintptr_t end,
                           nt_arming *w, unsigned shift, nt_built *b) {
  KMP_DEBUG_ASSERT(start < end && m->start <= start && end <= m->end);
  KMP_DEBUG_ASSERT(!((start | end) & (((uintptr_t)1 << shift) - 1)));
  KMP_DEBUG_ASSERT(!b->n || b->seg[b->n - 1]->end <= start);
  size_t nunits = (end - start) >> shift;
  size_t first, nitems = nt_items_in(start, end, &first);
  size_t items_at = (sizeof(kmp_nt_segment) + alignof(kmp_pt_range) - 1) &
                    ~(alignof(kmp_pt_range) - 1);
  size_t state_at = items_at + sizeof(kmp_pt_range) * nitems;
  // After the states, the states the units get once protected: never in the
  // heap, which the piece may be part of.
  size_t bytes = state_at + 2 * nunits;
  if (b->n == b->cap) {
    size_t pg = (size_t)__kmp_pt_page;
    size_t mb =
        (sizeof(kmp_nt_segment *) * (b->cap ? 2 * b->cap : 512) + pg - 1) &
        ~(pg - 1);
    kmp_nt_segment **p = (kmp_nt_segment **)__kmp_pt_private_alloc(mb);
    if (!p) {
      KMP_NT_ADD(fail_arm, (end - start) >> __kmp_pt_page_shift);
      return;
    }
    if (b->seg) {
      memcpy(p, b->seg, sizeof(*p) * b->n);
      __kmp_pt_private_free(b->seg, b->map_bytes);
    }
    b->seg = p;
    b->cap = mb / sizeof(*p);
    b->map_bytes = mb;
  }
  kmp_pt_arena *arena;
  char *map = (char *)nt_pool.alloc(bytes, &arena);
  if (!map) {
    KMP_NT_ADD(fail_arm, (end - start) >> __kmp_pt_page_shift);
    return;
  }
  kmp_nt_segment *seg = (kmp_nt_segment *)map;
  seg->arena = arena;
  seg->base = start;
  seg->end = end;
  seg->shift = shift;
  seg->prot = m->prot;
  seg->shared = m->shared;
  seg->armed_at = __kmp_nt_forks;
  seg->nunits = nunits;
  seg->state = (unsigned char *)map + state_at;
  if (nitems) {
    seg->items = (kmp_pt_range *)(map + items_at);
    memcpy(seg->items, &__kmp_nt_requests.items[first],
           sizeof(kmp_pt_range) * nitems);
    seg->nitems = (int)nitems;
  }
  // A VMA has one policy: asked once for all of its pieces.
  if (w->pol_vma != m) {
    w->pol_vma = m;
    w->pol_mode = MPOL_DEFAULT;
    if (__kmp_pt_get_mempolicy(&w->pol_mode, w->pol_mask, KMP_PT_MAXNODE,
                               (void *)start, MPOL_F_ADDR) != 0)
      w->pol_mode = MPOL_DEFAULT;
  }
  seg->pol_mode = w->pol_mode;
  memcpy(seg->pol_mask, w->pol_mask, sizeof(seg->pol_mask));
  // A range with a policy of its own keeps it while armed (not marked).
  seg->marked = __kmp_nt_mark && seg->pol_mode == MPOL_DEFAULT && !seg->shared;
  b->seg[b->n++] = seg;
}

// Where is each unit of the built segments now?  One move_pages call per
// 1024 units, across segments.  Units not populated are left alone: their
// first touch allocates them on the toucher's node anyway.  A unit to arm
// gets its state once protected in `want` (after the states) and is CLAIMED
// (by the arming thread) until then: a thread outside the team that reads
// it through a system call meanwhile (__kmp_nt_buffer) waits instead of
// opening a page that is protected after it.
static void nt_locate(nt_built *b, nt_arming *w) {
  enum { CHUNK = 1024 };
  void **pages = w->pages;
  int *status = w->status;
  size_t absent = 0;
  size_t si = 0, su = 0; // the next unit to ask about
  while (si < b->n) {
    // Gather up to CHUNK units, of one or more segments.
    size_t s0 = si, u0 = su;
    int k = 0;
    int cow_wanted = __kmp_nt_mech == kmp_pt_mech_mbind;
    while (si < b->n && k < CHUNK) {
      kmp_nt_segment *seg = b->seg[si];
      cow_wanted |= seg->shift != __kmp_pt_page_shift;
      for (; su < seg->nunits && k < CHUNK; su++) {
        pages[k] = (void *)(seg->base + (su << seg->shift));
        status[k++] = -ENOENT;
      }
      if (su == seg->nunits) {
        si++;
        su = 0;
      }
    }
    if (__kmp_pt_move_pages(k, pages, NULL, status, 0) != 0)
      for (int i = 0; i < k; i++)
        status[i] = KMP_NT_NODE_UNKNOWN;
    unsigned char cow[CHUNK];
    memset(cow, 0, k);
    if (cow_wanted)
      nt_cow_pages(w, k, cow);
    // Hand the answers out.
    size_t ti = s0, tu = u0;
    for (int i = 0; i < k; i++) {
      kmp_nt_segment *seg = b->seg[ti];
      unsigned char *want = seg->state + seg->nunits;
      if (status[i] < 0) {
        want[tu] = seg->state[tu] = KMP_NT_DONE;
        absent += __kmp_nt_unit_pages(seg);
      } else {
        int nd =
            status[i] < KMP_NT_NODE_UNKNOWN ? status[i] : KMP_NT_NODE_UNKNOWN;
        // Only where mbind moves the pages, or whole huge pages.
        int c = cow[i] && (__kmp_nt_mech == kmp_pt_mech_mbind ||
                           seg->shift != __kmp_pt_page_shift);
        want[tu] = (unsigned char)(KMP_NT_ARMED | nd | (c ? KMP_NT_COW : 0));
        seg->state[tu] = KMP_NT_CLAIMED;
        seg->armed_units++;
      }
      if (++tu == seg->nunits) {
        ti++;
        tu = 0;
      }
    }
  }
  KMP_NT_ADD(pages_not_present, absent);
}

// Protect the units of a published segment that are to be armed, then arm
// them: nobody opens a unit before it is protected.
static void nt_protect_segment(kmp_nt_segment *seg, nt_arming *w) {
  unsigned char *want = seg->state + seg->nunits;
  size_t armed = seg->armed_units;
  KMP_DEBUG_ASSERT(armed > 0 && armed <= seg->nunits);
  for (size_t u = 0; u < seg->nunits;) {
    if (!(want[u] & KMP_NT_ARMED)) {
      u++;
      continue;
    }
    size_t e = u;
    while (e < seg->nunits && (want[e] & KMP_NT_ARMED))
      e++;
    if (nt_in_flight(seg, u, e)) // then unit by unit
      for (size_t i = u + 1; i < e; i++)
        if (nt_in_flight(seg, u, i + 1)) {
          e = i;
          break;
        }
    if (nt_in_flight(seg, u, u + 1)) { // a system call's buffer: left alone
      __kmp_nt_done(seg, u, 1);
      KMP_NT_ADD(fail_arm, __kmp_nt_unit_pages(seg));
      armed--;
      u++;
      continue;
    }
    if (!nt_protect(seg, seg->base + (u << seg->shift), (e - u) << seg->shift,
                    w)) {
      __kmp_nt_done(seg, u, e - u); // CLAIMED: given up where it is
      KMP_NT_ADD(fail_arm, (e - u) * __kmp_nt_unit_pages(seg));
      armed -= e - u;
    } else {
      for (size_t i = u; i < e; i++)
        __atomic_store_n(&seg->state[i], want[i], __ATOMIC_RELEASE);
    }
    u = e;
  }
  KMP_NT_ADD(pages_armed, armed * __kmp_nt_unit_pages(seg));
}

// Publish the built segments that have units to arm (all at once), then
// protect them.
static void nt_arm_built(nt_built *b, nt_arming *w) {
  if (!b->n)
    return;
  nt_locate(b, w);
  size_t k = 0;
  for (size_t i = 0; i < b->n; i++) {
    KMP_DEBUG_ASSERT(b->seg[i]->armed_units <= b->seg[i]->nunits);
    if (b->seg[i]->armed_units)
      b->seg[k++] = b->seg[i];
    else
      __kmp_nt_free_segment(b->seg[i]);
  }
  b->n = k;
  if (!k)
    return;
  // The pieces were built in address order, disjoint from the live segments
  // and from each other.
  if (__kmp_nt_table.publish(b->seg, (int)k) != 0) {
    for (size_t i = 0; i < k; i++) {
      KMP_NT_ADD(fail_arm,
                 b->seg[i]->armed_units * __kmp_nt_unit_pages(b->seg[i]));
      __kmp_nt_free_segment(b->seg[i]);
    }
    return;
  }
  __kmp_pt_set_watched(__kmp_nt_engine_id, 1);
  for (size_t i = 0; i < k; i++)
    nt_protect_segment(b->seg[i], w);
  // Not before: a reader that found a new segment waits for its units.
  __kmp_nt_table.settle();
}

// Does [a, b) meet one of the exclusions x[nx] (sorted, disjoint)?
static bool nt_excluded(const kmp_pt_range *x, int nx, uintptr_t a,
                        uintptr_t b) {
  int i = __kmp_pt_first_after(x, nx, a);
  return i < nx && x[i].start < b;
}

// Arm again the units of a live segment in [start, stop) that are done
// (touched, disarmed or dropped): those that lie in one VMA with the
// segment's protection, outside the exclusions, and are populated.
static void nt_rearm(kmp_nt_segment *seg, uintptr_t start, uintptr_t stop,
                     const kmp_pt_vma *v, int nv, const kmp_pt_range *x, int nx,
                     nt_arming *w) {
  uintptr_t usz = (uintptr_t)1 << seg->shift;
  size_t lo = (start - seg->base) >> seg->shift;
  size_t hi = (stop - seg->base + usz - 1) >> seg->shift;
  if (hi > seg->nunits)
    hi = seg->nunits;
  enum { CHUNK = 1024 };
  void **pages = w->pages;
  int *status = w->status;
  size_t cand[CHUNK];
  int j = 0;
  kmp_uint64 armed = 0;
  for (size_t u = lo; u < hi;) {
    int k = 0;
    for (; u < hi && k < CHUNK; u++) {
      if (__atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE) != KMP_NT_DONE)
        continue;
      uintptr_t a = seg->base + (u << seg->shift), b = a + usz;
      while (j < nv && v[j].end <= a)
        j++;
      if (j >= nv || v[j].start > a || v[j].end < b || v[j].prot != seg->prot ||
          v[j].stack)
        continue;
      if (nt_excluded(x, nx, a, b))
        continue;
      cand[k] = u;
      pages[k++] = (void *)a;
    }
    if (!k)
      continue;
    if (__kmp_pt_move_pages(k, pages, NULL, status, 0) != 0)
      for (int i = 0; i < k; i++)
        status[i] = KMP_NT_NODE_UNKNOWN;
    unsigned char cow[CHUNK];
    memset(cow, 0, k);
    if (__kmp_nt_mech == kmp_pt_mech_mbind || seg->shift != __kmp_pt_page_shift)
      nt_cow_pages(w, k, cow);
    unsigned char st[CHUNK]; // the states of the units once protected
    // Runs of consecutive populated units: state first, then one mprotect.
    for (int i = 0; i < k;) {
      if (status[i] < 0) { // not populated: its first touch is local anyway
        i++;
        continue;
      }
      // Claimed, protected, then armed: a thread outside the team that reads
      // a unit through a system call meanwhile waits for it (see
      // nt_locate).  Between the claim and the arming this thread reads
      // nothing but its stack and the segment: the request may cover the
      // heap (w->pages, w->status), whose claimed pages it would wait for.
      int e = i;
      for (; e < k && status[e] >= 0 && cand[e] == cand[i] + (e - i); e++) {
        int nd =
            status[e] < KMP_NT_NODE_UNKNOWN ? status[e] : KMP_NT_NODE_UNKNOWN;
        st[e] = (unsigned char)(KMP_NT_ARMED | nd | (cow[e] ? KMP_NT_COW : 0));
      }
      uintptr_t run = (uintptr_t)pages[i];
      for (int t = i; t < e; t++) {
        __atomic_fetch_add(&seg->armed_units, 1, __ATOMIC_ACQ_REL);
        __atomic_store_n(&seg->state[cand[t]], KMP_NT_CLAIMED,
                         __ATOMIC_SEQ_CST);
      }
      // A system call's buffer in flight is left alone this time.
      int busy = e;
      if (nt_in_flight(seg, cand[i], cand[e - 1] + 1))
        for (int t = i; t < e && busy == e; t++)
          if (nt_in_flight(seg, cand[t], cand[t] + 1))
            busy = t;
      if (busy == i) {
        // Left alone; the rest of the run was claimed and counted too: it
        // is released, and claimed again from the next unit on.
        for (int t = i; t < e; t++)
          __kmp_nt_done(seg, cand[t], 1);
        KMP_NT_ADD(fail_arm, __kmp_nt_unit_pages(seg));
        i++;
        continue;
      }
      for (int t = busy; t < e; t++) // armed again in the next run
        __kmp_nt_done(seg, cand[t], 1);
      e = busy;
      if (!nt_protect(seg, run, (e - i) * usz, w)) {
        for (int t = i; t < e; t++)
          __kmp_nt_done(seg, cand[t], 1);
        KMP_NT_ADD(fail_arm, (e - i) * __kmp_nt_unit_pages(seg));
      } else {
        for (int t = i; t < e; t++)
          __atomic_store_n(&seg->state[cand[t]], st[t], __ATOMIC_RELEASE);
        armed += e - i;
      }
      i = e;
    }
  }
  KMP_DEBUG_ASSERT(seg->armed_units <= seg->nunits);
  if (armed) {
    KA_TRACE(20,
             ("nt_rearm: %llu units of [%p, %p)\n", (unsigned long long)armed,
              (void *)seg->base, (void *)seg->end));
    seg->armed_at = __kmp_nt_forks;
    __atomic_store_n(&seg->faulters, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&seg->part_starters, 0, __ATOMIC_RELAXED);
    __kmp_pt_set_watched(__kmp_nt_engine_id, 1);
    KMP_NT_ADD(pages_armed, armed * __kmp_nt_unit_pages(seg));
  }
}

// Arm the part [at, e) of VMA m.  Where the VMA is backed by transparent huge
// pages (its AnonHugePages covers every huge block of it that lies inside the
// range), the aligned blocks are armed as units of their own: they are
// protected, migrated (mbind) and released whole, so the kernel keeps them
// huge.  Otherwise base pages, and the huge pages behind them are split when
// they are protected (nt_protect).
static void nt_arm_vma_piece(const kmp_pt_vma *m, uintptr_t at, uintptr_t e,
                             nt_arming *w, nt_built *bl) {
  unsigned shift = __kmp_pt_page_shift, hshift = __kmp_pt_thp_shift;
  uintptr_t huge = (uintptr_t)1 << hshift;
  uintptr_t a = (at + huge - 1) & ~(huge - 1), b = e & ~(huge - 1);
  uintptr_t va = (m->start + huge - 1) & ~(huge - 1), vb = m->end & ~(huge - 1);
  if (__kmp_nexttouch_thp && a < b && vb > va && m->thp_bytes >= vb - va) {
    if (at < a)
      nt_build_piece(m, at, a, w, shift, bl);
    nt_build_piece(m, a, b, w, hshift, bl);
    if (b < e)
      nt_build_piece(m, b, e, w, shift, bl);
    return;
  }
  nt_build_piece(m, at, e, w, shift, bl);
}

// Arm [at, stop) of VMA m minus the exclusions (sorted, disjoint).
static void nt_arm_in_vma(const kmp_pt_vma *m, uintptr_t at, uintptr_t stop,
                          const kmp_pt_range *x, int nx, nt_arming *w,
                          nt_built *bl) {
  for (int i = __kmp_pt_first_after(x, nx, at);
       i < nx && at < stop && x[i].start < stop; i++) {
    if (x[i].start > at)
      nt_arm_vma_piece(m, at, x[i].start, w, bl);
    uintptr_t skip_end = x[i].end < stop ? x[i].end : stop;
    KMP_NT_ADD(fail_arm, (skip_end - (x[i].start > at ? x[i].start : at)) >>
                             __kmp_pt_page_shift);
    at = skip_end;
  }
  if (at < stop)
    nt_arm_vma_piece(m, at, stop, w, bl);
}

// An arming ran out of mappings (each armed range is a VMA of its own, and
// one more for the gap to the next): said once per process, with the
// kernel's limit; the rest is counted in fail_arm.
static void nt_warn_map_limit(kmp_uint64 pages) {
  static int warned = 0;
  if (warned)
    return;
  warned = 1;
  char limit[32];
  int n = __kmp_pt_read_file("/proc/sys/vm/max_map_count", limit, sizeof limit);
  while (n > 0 && (limit[n - 1] == '\n' || limit[n - 1] == ' '))
    limit[--n] = 0;
  char num[32];
  KMP_SNPRINTF(num, sizeof num, "%llu", (unsigned long long)pages);
  KMP_WARNING(NextTouchMapLimit, n > 0 ? limit : "?", num);
}

// Arm the pending ranges, re-validated against the VMAs as they are now: a
// range unmapped, made read-only or re-mapped since its request is skipped
// (fail_arm), and so are libomp's stacks and the engine's memory in it.
// New segments are built first, published at once, then protected.
void __kmp_nt_arm_pending() {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  kmp_uint64 t0 = __kmp_pt_now_ns();
  KA_TRACE(10, ("__kmp_nt_arm_pending: %llu ranges, %llu items\n",
                (unsigned long long)__kmp_nt_requests.nranges,
                (unsigned long long)__kmp_nt_requests.nitems));
  __kmp_pt_install_handler();
  // Units are CLAIMED by this thread while they are armed: no signal handler
  // of the program may run here meanwhile (its read() of such a unit would
  // wait for this thread).
  sigset_t sigs;
  __kmp_pt_block_async(&sigs);
  __kmp_nt_request_sort();
  size_t nitems = __kmp_nt_requests.nitems;
  nt_item_reach = (uintptr_t *)__kmp_allocate(sizeof(uintptr_t) * (nitems + 1));
  for (size_t i = 0; i < nitems; i++)
    nt_item_reach[i] =
        i && nt_item_reach[i - 1] > __kmp_nt_requests.items[i].end
            ? nt_item_reach[i - 1]
            : __kmp_nt_requests.items[i].end;
  // smaps (AnonHugePages) only if some pending range holds two huge blocks.
  nt_split = nt_thp_possible() && nt_huge_made();
  nt_split_calls = 0;
  if (nt_split && nt_split_seen == ~(kmp_uint64)0)
    nt_split_seen = nt_split_failures(); // the first arming that splits
  int want_thp = 0;
  if (__kmp_nexttouch_thp && nt_split)
    for (size_t r = 0; r < __kmp_nt_requests.nranges; r++)
      if (__kmp_nt_requests.ranges[r].end - __kmp_nt_requests.ranges[r].start >=
          ((uintptr_t)2 << __kmp_pt_thp_shift))
        want_thp = 1;
  int nvmas;
  kmp_pt_vma *vmas = __kmp_nt_check_armed(&nvmas, want_thp);
  int nx = 0;
  kmp_pt_range *x = nt_exclusions(&nx, vmas, nvmas);
  nt_arming w;
  memset(&w, 0, sizeof w);
  w.pages = (void **)__kmp_allocate(sizeof(void *) * 1024);
  w.status = (int *)__kmp_allocate(sizeof(int) * 1024);
  w.pagemap = -2;
  w.last_block = 1; // no block
  nt_built built = {NULL, 0, 0, 0};
  // The live segments are sorted and disjoint (the index), the pending
  // ranges too, and what this arming makes for a range lies in it: one walk
  // through ranges, segments and VMAs together.
  int nlive = __kmp_nt_table.size(), j = 0, vi = 0;
  __kmp_nt_table.bump();
  for (size_t r = 0; r < __kmp_nt_requests.nranges; r++) {
    // Only whole requested pages: a page the program shares with bytes it
    // did not request (a neighbour variable, a stdio buffer, a string it
    // hands to the kernel) stays accessible.
    uintptr_t start, end;
    if (!__kmp_nt_inner_pages(__kmp_nt_requests.ranges[r].start,
                              __kmp_nt_requests.ranges[r].end, &start, &end))
      continue;
    // Pages of a live segment are armed again inside it (those touched
    // since, or dropped as stale); pages still armed stay as they are.
    while (start < end) {
      while (j < nlive && __kmp_nt_table.at(j)->end <= start)
        j++;
      while (vi < nvmas && vmas[vi].end <= start)
        vi++;
      uintptr_t stop = end;
      kmp_nt_segment *in = NULL;
      if (j < nlive && __kmp_nt_table.at(j)->base <= start) {
        in = __kmp_nt_table.at(j);
        stop = in->end < stop ? in->end : stop;
      } else if (j < nlive && __kmp_nt_table.at(j)->base < stop) {
        stop = __kmp_nt_table.at(j)->base;
      }
      if (in) {
        nt_rearm(in, start, stop, vmas, nvmas, x, nx, &w);
      } else {
        // Split the piece along the VMAs.
        uintptr_t at = start;
        for (int i = vi; i < nvmas && at < stop; i++) {
          if (vmas[i].end <= at)
            continue;
          if (vmas[i].start > at) {
            uintptr_t hole = vmas[i].start < stop ? vmas[i].start : stop;
            KMP_NT_ADD(fail_arm, (hole - at) >> __kmp_pt_page_shift);
            at = hole;
            if (at >= stop)
              break;
          }
          uintptr_t e = vmas[i].end < stop ? vmas[i].end : stop;
          if ((vmas[i].prot & (PROT_READ | PROT_WRITE)) ==
                  (PROT_READ | PROT_WRITE) &&
              !(vmas[i].prot & PROT_EXEC) && !vmas[i].stack)
            nt_arm_in_vma(&vmas[i], at, e, x, nx, &w, &built);
          else
            KMP_NT_ADD(fail_arm, (e - at) >> __kmp_pt_page_shift);
          at = e;
        }
        if (at < stop)
          KMP_NT_ADD(fail_arm, (stop - at) >> __kmp_pt_page_shift);
      }
      start = stop;
    }
  }
  nt_arm_built(&built, &w);
  if (nt_split && nt_split_calls)
    nt_split_again();
  KA_TRACE(10, ("__kmp_nt_arm_pending: %llu new segments, %d live before\n",
                (unsigned long long)built.n, nlive));
  if (built.seg)
    __kmp_pt_private_free(built.seg, built.map_bytes);
  __kmp_nt_request_clear();
  KMP_NT_ADD(arms, 1);
  __kmp_free(nt_item_reach);
  nt_item_reach = NULL;
  __kmp_free(w.pages);
  __kmp_free(w.status);
  if (w.pagemap >= 0)
    close(w.pagemap);
  KMP_INTERNAL_FREE(x);
  if (vmas)
    __kmp_pt_free_maps(vmas);
  __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
  KMP_NT_ADD(arm_ns, __kmp_pt_now_ns() - t0);
  if (w.map_limit)
    nt_warn_map_limit(w.map_limit);
}

#endif // KMP_PAGETRAP_SUPPORTED
