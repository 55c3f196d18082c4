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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef MADV_COLD
#define MADV_COLD 20 // Linux 5.4
#endif
#endif

#if KMP_PAGETRAP_SUPPORTED

kmp_uint64 __kmp_nt_forks = 0;

void __kmp_nt_free_segment(kmp_nt_segment *seg) {
  __kmp_pt_private_free(seg, seg->map_bytes);
}

// ---------------------------------------------------------------------------
// What is never armed: libomp's thread stacks and the engines' own memory.
// They are anonymous read-write memory that the kernel may have placed in the
// hole of a range freed since its request, or merged into the VMA of a heap
// buffer.

static int nt_cmp_interval(const void *a, const void *b) {
  uintptr_t x = ((const kmp_pt_range *)a)->start,
            y = ((const kmp_pt_range *)b)->start;
  return x < y ? -1 : x > y;
}

int __kmp_nt_segment_ranges(kmp_pt_range *out, int max) {
  int k = max > 0 ? __kmp_nt_move_lists_range(out) : 0;
  for (int i = 0; i < __kmp_nt_table.hwm && k < max; i++) {
    kmp_nt_segment *s = __kmp_nt_table.slot[i];
    if (s)
      out[k++] = {(uintptr_t)s, (uintptr_t)s + s->map_bytes};
  }
  return k;
}

// Sorted; *n receives the count (allocated with KMP_INTERNAL_MALLOC, not
// cleared: most of its capacity is never used).  v, nv:
// the maps (the calling thread's stack; __kmp_pt_my_stack).
static kmp_pt_range *nt_exclusions(int *n, const kmp_pt_vma *v, int nv) {
  kmp_pt_range *priv = NULL;
  int npriv = __kmp_pt_private_ranges(KMP_PT_NEXTTOUCH, &priv);
  int cap = KMP_NT_MAX_PRIVATE + __kmp_threads_capacity + npriv, k = 0;
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
  k += __kmp_nt_segment_ranges(x + k, cap - k);
  // The layer's and the other engines' memory (readonly's fault path writes
  // its items and replicas).
  for (int i = 0; i < npriv && k < cap; i++) {
    x[k].start = priv[i].start;
    x[k++].end = priv[i].end;
  }
  KMP_INTERNAL_FREE(priv);
  qsort(x, k, sizeof(kmp_pt_range), nt_cmp_interval);
  *n = k;
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
  for (int i = 0; i < __kmp_nt_table.hwm; i++) {
    kmp_nt_segment *s = __kmp_nt_table.slot[i];
    if (!s || !__atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE))
      continue;
    int j = 0, jm = -1, jmarked = 0;
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
        KMP_PT_ADD(pages_disarmed, __kmp_nt_unit_pages(s));
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

static int nt_cmp_range(const void *a, const void *b) {
  const kmp_pt_range *x = (const kmp_pt_range *)a, *y = (const kmp_pt_range *)b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

static int nt_cmp_segment(const void *a, const void *b) {
  uintptr_t x = (*(kmp_nt_segment *const *)a)->base,
            y = (*(kmp_nt_segment *const *)b)->base;
  return x < y ? -1 : x > y;
}

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
static void nt_split_huge(uintptr_t a, uintptr_t e) {
  uintptr_t huge = (uintptr_t)1 << __kmp_pt_thp_shift;
  while (a < e) {
    uintptr_t next = (a & ~(huge - 1)) + huge;
    uintptr_t stop = next < e ? next : e;
    if (stop - a == huge)
      stop -= __kmp_pt_page;
    syscall(SYS_madvise, a, stop - a, MADV_COLD);
    a = next;
  }
}

// Split the huge pages behind base-page units (if seg has them), mark (if
// seg is marked) and protect [a, a+len); 1 if done, else nothing is changed
// but the split.
static int nt_protect(const kmp_nt_segment *seg, uintptr_t a, size_t len) {
  if (seg->shift == __kmp_pt_page_shift && nt_split)
    nt_split_huge(a, a + len);
  if (seg->marked && !__kmp_nt_set_mark(a, len, 1))
    return 0;
  if (__kmp_pt_mprotect((void *)a, len, PROT_NONE) == 0)
    return 1;
  if (seg->marked)
    __kmp_nt_set_mark(a, len, 0);
  return 0;
}

// What an arming uses throughout: room for a chunk of pages and their
// status, and /proc/self/pagemap, opened at its first use (-2: not yet, -1:
// it cannot be) and closed when the arming ends.
struct nt_arming {
  void **pages;
  int *status;
  int pagemap;
};

// Which of the k pages of seg another process maps too (shared copy-on-write
// after a fork of this process or of its parent, whether or not libomp ran
// then): bit 63 of a /proc/self/pagemap entry says present, bit 56
// exclusively mapped.  Only where mbind moves the pages (move_pages says
// which it could not move).  The pages are w->pages[0, k).
static void nt_cow_pages(const kmp_nt_segment *seg, nt_arming *w, int k,
                         unsigned char *cow) {
  memset(cow, 0, k);
  if (__kmp_nt_mech != kmp_pt_mech_mbind && seg->shift == __kmp_pt_page_shift)
    return;
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

// The requested items that meet [start, end): *first, and their number
// (the requests' items are sorted by then).
static int nt_items_in(uintptr_t start, uintptr_t end, int *first) {
  int n = 0;
  *first = -1;
  for (int i = 0; i < __kmp_nt_requests.nitems; i++)
    if (__kmp_nt_requests.items[i].start < end &&
        __kmp_nt_requests.items[i].end > start) {
      if (*first < 0)
        *first = i;
      n = i - *first + 1;
    }
  return n;
}

// Units [u, e) of seg, claimed by the arming thread, hold the buffer of a
// system call in flight (kmp_pagetrap_io.cpp): protecting them would fail
// the call.
static bool nt_in_flight(const kmp_nt_segment *seg, size_t u, size_t e) {
  return __kmp_pt_io_busy(seg->base + (u << seg->shift),
                          seg->base + (e << seg->shift));
}

// Arm [start, end) (unit aligned, read-write, one VMA's worth at most).  The
// segment, a copy of its items and its units' states are one private
// mapping: the fault path reads them.
static void nt_arm_piece(uintptr_t start, uintptr_t end, int prot, int shared,
                         nt_arming *w, unsigned shift) {
  size_t nunits = (end - start) >> shift;
  int first, nitems = nt_items_in(start, end, &first);
  size_t items_at = (sizeof(kmp_nt_segment) + alignof(kmp_pt_range) - 1) &
                    ~(alignof(kmp_pt_range) - 1);
  size_t state_at = items_at + sizeof(kmp_pt_range) * nitems;
  // After the states, the states the units get once protected (below): in
  // this mapping, never in the heap, which the piece may be part of.
  size_t want_at = state_at + nunits;
  size_t bytes =
      (want_at + nunits + __kmp_pt_page - 1) & ~((size_t)__kmp_pt_page - 1);
  char *map = (char *)__kmp_pt_private_alloc(bytes);
  if (!map) {
    KMP_PT_ADD(fail_arm, (end - start) >> __kmp_pt_page_shift);
    return;
  }
  kmp_nt_segment *seg = (kmp_nt_segment *)map;
  seg->map_bytes = bytes;
  seg->base = start;
  seg->end = end;
  seg->shift = shift;
  seg->prot = prot;
  seg->shared = shared;
  seg->armed_at = __kmp_nt_forks;
  seg->nunits = nunits;
  seg->state = (unsigned char *)map + state_at;
  if (nitems) {
    seg->items = (kmp_pt_range *)(map + items_at);
    memcpy(seg->items, &__kmp_nt_requests.items[first],
           sizeof(kmp_pt_range) * nitems);
    seg->nitems = nitems;
  }
  seg->pol_mode = MPOL_DEFAULT;
  if (__kmp_pt_get_mempolicy(&seg->pol_mode, seg->pol_mask, KMP_PT_MAXNODE,
                             (void *)start, MPOL_F_ADDR) != 0)
    seg->pol_mode = MPOL_DEFAULT;
  // A range with a policy of its own keeps it while armed (not marked).
  seg->marked = __kmp_nt_mark && seg->pol_mode == MPOL_DEFAULT && !shared;

  // Where is each unit now?  Units not populated are left alone: their first
  // touch allocates them on the toucher's node anyway.
  enum { CHUNK = 1024 };
  void **pages = w->pages;
  int *status = w->status;
  size_t armed = 0, absent = 0;
  // The state each unit gets once it is protected; until then a unit to arm
  // is CLAIMED (by the arming thread): a thread outside the team that reads
  // it through a system call meanwhile (kmp_nt_buffer) waits instead of
  // opening a page that is protected after it.
  unsigned char *want = (unsigned char *)map + want_at;
  for (size_t u = 0; u < seg->nunits; u += CHUNK) {
    size_t k = seg->nunits - u < CHUNK ? seg->nunits - u : CHUNK;
    for (size_t i = 0; i < k; i++) {
      pages[i] = (void *)(start + ((u + i) << seg->shift));
      status[i] = -ENOENT;
    }
    if (__kmp_pt_move_pages(k, pages, NULL, status, 0) != 0)
      for (size_t i = 0; i < k; i++)
        status[i] = KMP_NT_NODE_UNKNOWN;
    unsigned char cow[CHUNK];
    nt_cow_pages(seg, w, (int)k, cow);
    for (size_t i = 0; i < k; i++) {
      if (status[i] < 0) {
        want[u + i] = seg->state[u + i] = KMP_NT_DONE;
        absent++;
      } else {
        int nd =
            status[i] < KMP_NT_NODE_UNKNOWN ? status[i] : KMP_NT_NODE_UNKNOWN;
        want[u + i] =
            (unsigned char)(KMP_NT_ARMED | nd | (cow[i] ? KMP_NT_COW : 0));
        seg->state[u + i] = KMP_NT_CLAIMED;
        armed++;
      }
    }
  }
  KMP_PT_ADD(pages_not_present, absent * __kmp_nt_unit_pages(seg));
  // Publish, then protect, then arm: a fault always finds its segment, and
  // nobody opens a unit before it is protected.
  seg->armed_units = armed;
  if (!armed || __kmp_nt_table.publish(seg) < 0) {
    KMP_PT_ADD(fail_arm, armed * __kmp_nt_unit_pages(seg));
    __kmp_nt_free_segment(seg);
    return;
  }
  __kmp_pt_set_watched(KMP_PT_NEXTTOUCH, 1);
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
      KMP_PT_ADD(fail_arm, __kmp_nt_unit_pages(seg));
      armed--;
      u++;
      continue;
    }
    if (!nt_protect(seg, start + (u << seg->shift), (e - u) << seg->shift)) {
      __kmp_nt_done(seg, u, e - u); // CLAIMED: given up where it is
      KMP_PT_ADD(fail_arm, (e - u) * __kmp_nt_unit_pages(seg));
      armed -= e - u;
    } else {
      for (size_t i = u; i < e; i++)
        __atomic_store_n(&seg->state[i], want[i], __ATOMIC_RELEASE);
    }
    u = e;
  }
  KMP_PT_ADD(pages_armed, armed * __kmp_nt_unit_pages(seg));
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
      int excluded = 0;
      for (int i = 0; i < nx && !excluded; i++)
        excluded = x[i].start < b && a < x[i].end;
      if (excluded)
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
    nt_cow_pages(seg, w, k, cow);
    unsigned char st[CHUNK]; // the states of the units once protected
    // Runs of consecutive populated units: state first, then one mprotect.
    for (int i = 0; i < k;) {
      if (status[i] < 0) { // not populated: its first touch is local anyway
        i++;
        continue;
      }
      // Claimed, protected, then armed: a thread outside the team that reads
      // a unit through a system call meanwhile waits for it (see
      // nt_arm_piece).  Between the claim and the arming this thread reads
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
        __kmp_nt_done(seg, cand[i], 1);
        KMP_PT_ADD(fail_arm, __kmp_nt_unit_pages(seg));
        i++;
        continue;
      }
      for (int t = busy; t < e; t++) // armed again in the next run
        __kmp_nt_done(seg, cand[t], 1);
      e = busy;
      if (!nt_protect(seg, run, (e - i) * usz)) {
        for (int t = i; t < e; t++)
          __kmp_nt_done(seg, cand[t], 1);
        KMP_PT_ADD(fail_arm, (e - i) * __kmp_nt_unit_pages(seg));
      } else {
        for (int t = i; t < e; t++)
          __atomic_store_n(&seg->state[cand[t]], st[t], __ATOMIC_RELEASE);
        armed += e - i;
      }
      i = e;
    }
  }
  if (armed) {
    seg->armed_at = __kmp_nt_forks;
    __atomic_store_n(&seg->faulters, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&seg->part_starters, 0, __ATOMIC_RELAXED);
    __kmp_pt_set_watched(KMP_PT_NEXTTOUCH, 1);
    KMP_PT_ADD(pages_armed, armed * __kmp_nt_unit_pages(seg));
  }
}

// Arm the part [at, e) of VMA m.  Where the VMA is backed by transparent huge
// pages (its AnonHugePages covers every huge block of it that lies inside the
// range), the aligned blocks are armed as units of their own: they are
// protected, migrated (mbind) and released whole, so the kernel keeps them
// huge.  Otherwise base pages, and the huge pages behind them are split when
// they are protected (nt_protect).
static void nt_arm_vma_piece(const kmp_pt_vma *m, uintptr_t at, uintptr_t e,
                             nt_arming *w) {
  unsigned shift = __kmp_pt_page_shift, hshift = __kmp_pt_thp_shift;
  uintptr_t huge = (uintptr_t)1 << hshift;
  uintptr_t a = (at + huge - 1) & ~(huge - 1), b = e & ~(huge - 1);
  uintptr_t va = (m->start + huge - 1) & ~(huge - 1), vb = m->end & ~(huge - 1);
  if (__kmp_nexttouch_thp && a < b && vb > va && m->thp_bytes >= vb - va) {
    if (at < a)
      nt_arm_piece(at, a, m->prot, m->shared, w, shift);
    nt_arm_piece(a, b, m->prot, m->shared, w, hshift);
    if (b < e)
      nt_arm_piece(b, e, m->prot, m->shared, w, shift);
    return;
  }
  nt_arm_piece(at, e, m->prot, m->shared, w, shift);
}

// Arm [at, stop) of VMA m minus the exclusions.
static void nt_arm_in_vma(const kmp_pt_vma *m, uintptr_t at, uintptr_t stop,
                          const kmp_pt_range *x, int nx, nt_arming *w) {
  for (int i = 0; i < nx && at < stop; i++) {
    if (x[i].end <= at || x[i].start >= stop)
      continue;
    if (x[i].start > at)
      nt_arm_vma_piece(m, at, x[i].start, w);
    uintptr_t skip_end = x[i].end < stop ? x[i].end : stop;
    KMP_PT_ADD(fail_arm, (skip_end - (x[i].start > at ? x[i].start : at)) >>
                             __kmp_pt_page_shift);
    at = skip_end;
  }
  if (at < stop)
    nt_arm_vma_piece(m, at, stop, w);
}

// Arm the pending ranges, re-validated against the VMAs as they are now: a
// range unmapped, made read-only or re-mapped since its request is skipped
// (fail_arm), and so are libomp's stacks and the engine's memory in it.
void __kmp_nt_arm_pending() {
  kmp_uint64 t0 = __kmp_pt_now_ns();
  __kmp_pt_install_handler();
  // Units are CLAIMED by this thread while they are armed: no signal handler
  // of the program may run here meanwhile (its read() of such a unit would
  // wait for this thread).
  sigset_t sigs;
  __kmp_pt_block_async(&sigs);
  qsort(__kmp_nt_requests.items, __kmp_nt_requests.nitems, sizeof(kmp_pt_range),
        nt_cmp_range);
  // smaps (AnonHugePages) only if some pending range holds two huge blocks.
  nt_split = nt_thp_possible() && nt_huge_made();
  int want_thp = 0;
  if (__kmp_nexttouch_thp && nt_split)
    for (int r = 0; r < __kmp_nt_requests.nranges; r++)
      if (__kmp_nt_requests.ranges[r].end - __kmp_nt_requests.ranges[r].start >=
          ((uintptr_t)2 << __kmp_pt_thp_shift))
        want_thp = 1;
  int nvmas;
  kmp_pt_vma *vmas = __kmp_nt_check_armed(&nvmas, want_thp);
  int nx = 0;
  kmp_pt_range *x = nt_exclusions(&nx, vmas, nvmas);
  nt_arming w = {(void **)__kmp_allocate(sizeof(void *) * 1024),
                 (int *)__kmp_allocate(sizeof(int) * 1024), -2};
  // The live segments by address.  They are disjoint, the pending ranges
  // are sorted and disjoint, and what this arming makes for a range lies in
  // it: one walk through ranges, segments and VMAs together.
  int nlive = 0, j = 0, vi = 0;
  kmp_nt_segment **live = (kmp_nt_segment **)__kmp_allocate(
      sizeof(kmp_nt_segment *) * (__kmp_nt_table.hwm + 1));
  for (int i = 0; i < __kmp_nt_table.hwm; i++)
    if (__kmp_nt_table.slot[i])
      live[nlive++] = __kmp_nt_table.slot[i];
  qsort(live, nlive, sizeof(*live), nt_cmp_segment);
  __kmp_nt_table.bump();
  for (int r = 0; r < __kmp_nt_requests.nranges; r++) {
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
      while (j < nlive && live[j]->end <= start)
        j++;
      while (vi < nvmas && vmas[vi].end <= start)
        vi++;
      uintptr_t stop = end;
      kmp_nt_segment *in = NULL;
      if (j < nlive && live[j]->base <= start) {
        in = live[j];
        stop = in->end < stop ? in->end : stop;
      } else if (j < nlive && live[j]->base < stop) {
        stop = live[j]->base;
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
            KMP_PT_ADD(fail_arm, (hole - at) >> __kmp_pt_page_shift);
            at = hole;
            if (at >= stop)
              break;
          }
          uintptr_t e = vmas[i].end < stop ? vmas[i].end : stop;
          if ((vmas[i].prot & (PROT_READ | PROT_WRITE)) ==
                  (PROT_READ | PROT_WRITE) &&
              !(vmas[i].prot & PROT_EXEC) && !vmas[i].stack)
            nt_arm_in_vma(&vmas[i], at, e, x, nx, &w);
          else
            KMP_PT_ADD(fail_arm, (e - at) >> __kmp_pt_page_shift);
          at = e;
        }
        if (at < stop)
          KMP_PT_ADD(fail_arm, (stop - at) >> __kmp_pt_page_shift);
      }
      start = stop;
    }
  }
  __kmp_nt_request_clear();
  KMP_PT_ADD(arms, 1);
  __kmp_free(live);
  __kmp_free(w.pages);
  __kmp_free(w.status);
  if (w.pagemap >= 0)
    close(w.pagemap);
  KMP_INTERNAL_FREE(x);
  if (vmas)
    __kmp_pt_free_maps(vmas);
  __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
  KMP_PT_ADD(arm_ns, __kmp_pt_now_ns() - t0);
}

#endif // KMP_PAGETRAP_SUPPORTED
