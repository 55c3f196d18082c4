/*
 * kmp_nexttouch_fault.cpp -- affinity-on-next-touch: a fault on an armed
 * page (the engine's fault hook), and the buffers of system calls (its
 * buffer hook).
 *
 * RUNS IN THE SIGSEGV HANDLER: async-signal-safe code only -- no locks, no
 * allocation, no stdio, no libomp data structures (a request may have armed
 * the heap they live in).  Everything it reads lives in the engine's own
 * mappings (the segment table, state bytes, the table of nodes) or in
 * initial-exec TLS.
 *
 * A fault on an armed unit claims it with one CAS on its state byte (and the
 * untouched units after it that the window, adaptive or fixed, or a small
 * item's end takes into the batch), migrates the batch
 * to the faulting thread's node -- or, when no team is running, leaves it
 * where it is -- restores the protection and releases the units.  Threads
 * faulting on a claimed unit wait for its release.  Armed pages the program
 * moved (mremap) are known by the engine's mark and opened where they are.
 * Faults that are not ours (a unit whose page lacks the mark included) are
 * left to the page-trap layer's handler (kmp_pagetrap_fault.cpp), which
 * chains them.  The same path serves the buffers of system calls
 * (kmp_pagetrap_io.cpp), outside a fault.
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
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

kmp_pt_index<kmp_nt_segment> __kmp_nt_table;
volatile kmp_uint64 __kmp_nt_emptied;

// Initial-exec TLS: an access is one %fs-relative load, never
// __tls_get_addr (whose DTV lives in the heap, which a request may arm).
#define NT_TLS __thread __attribute__((tls_model("initial-exec")))

// The adaptive window follows a few sequential streams per thread, as
// readahead and hardware prefetchers do: a thread that walks two or three
// armed arrays at once (c[i] = a[i] + b[i]) grows a window on each.
#define NT_STREAMS 4
struct nt_stream {
  const kmp_nt_segment *seg;
  kmp_uint64 gen; // __kmp_nt_table.gen when it was last used
  size_t first; // the unit where it started
  size_t next; // the unit that continues the stream
  size_t stop; // where its chunk is expected to end (a unit), or 0
  int window; // pages of its last batch
  bool part_start; // it started where a part of the item's partition starts
  unsigned lru;
};
static NT_TLS nt_stream nt_tls_streams[NT_STREAMS];
// Where the thread's last stream started: the distance between the starts
// of two streams in one item is nproc chunks of schedule(static, k) (about
// as many with dynamic), which predicts where the new stream's chunk ends.
static NT_TLS const kmp_nt_segment *nt_tls_start_seg;
static NT_TLS kmp_uint64 nt_tls_start_gen;
static NT_TLS uintptr_t nt_tls_start_item;
static NT_TLS size_t nt_tls_start_unit;
static NT_TLS unsigned nt_tls_clock;
static NT_TLS uintptr_t nt_tls_last_page;
static NT_TLS kmp_uint64 nt_tls_last_gen;

// The next batch of a stream, as the kernel's readahead sizes its next
// window (get_next_ra_size): four times the last while that is small against
// the largest, then twice, then the largest.  Growing fast at first pays the
// fixed cost of a fault and of a migration call fewer times per stream.
static int nt_next_window(int last, int max) {
  if (last < max / 16)
    return 4 * last;
  if (last <= max / 2)
    return 2 * last;
  return max;
}

// The segments this thread has faulted in (since they were armed), and how
// often: a thread counts itself once in a segment's faulters.
#define NT_SEEN 8
#define NT_ALONE_FAULTS 4
struct nt_seen {
  const kmp_nt_segment *seg;
  kmp_uint64 armed_at;
  int faults;
};
static NT_TLS nt_seen nt_tls_seen[NT_SEEN];
static NT_TLS unsigned nt_tls_seen_next;

// The boundary b_k = rs + k * len / nproc of item `it`'s even partition
// among nproc threads (k <= nproc), computed without overflow: the first
// byte of thread k's part.
static uintptr_t nt_part_boundary(const kmp_pt_range &it, kmp_uint64 k,
                                  kmp_uint64 nproc) {
  kmp_uint64 len = it.end - it.start, q = len / nproc, m = len % nproc;
  return it.start + (uintptr_t)(q * k + m * k / nproc);
}

// Whether a stream of this thread in seg whose chunk is not known may grow.
// A thread that runs ahead of the others (the primary thread starts first,
// a worker is descheduled) cannot tell its own pages from those of threads
// that have not touched anything yet: on a stream that looks sequential, a
// window of 4 would take a cyclic neighbour's pages, and the next one the
// rest of the item.  So its streams move one unit per fault until every
// thread of the team has faulted in the segment -- by then a cyclic thread
// has started a second stream, which predicts where its chunks end -- or
// until it has faulted there NT_ALONE_FAULTS times (a team whose other
// threads do not touch the segment; a chunk of up to three pages is known
// by then).
static bool nt_team_started(kmp_nt_segment *seg) {
  nt_seen *e = NULL;
  for (int i = 0; i < NT_SEEN; i++)
    if (nt_tls_seen[i].seg == seg && nt_tls_seen[i].armed_at == seg->armed_at)
      e = &nt_tls_seen[i];
  if (!e) {
    e = &nt_tls_seen[nt_tls_seen_next++ % NT_SEEN];
    e->seg = seg;
    e->armed_at = seg->armed_at;
    e->faults = 0;
    __atomic_fetch_add(&seg->faulters, 1, __ATOMIC_ACQ_REL);
  }
  int nproc = __atomic_load_n(&__kmp_nt_nproc, __ATOMIC_ACQUIRE);
  return ++e->faults > NT_ALONE_FAULTS ||
         __atomic_load_n(&seg->faulters, __ATOMIC_ACQUIRE) >= nproc;
}

// The calling thread's number in the outermost running team (found in
// __kmp_nt_team once per fork), or -1.
static NT_TLS int nt_tls_tid;
static NT_TLS kmp_uint64 nt_tls_tid_fork; // __kmp_nt_forks + 1 then

static int nt_team_index() {
  kmp_uint64 f = __atomic_load_n(&__kmp_nt_forks, __ATOMIC_RELAXED) + 1;
  if (nt_tls_tid_fork != f) {
    int n = __atomic_load_n(&__kmp_nt_team_size, __ATOMIC_ACQUIRE);
    kmp_thread_t self = pthread_self();
    nt_tls_tid = -1;
    for (int i = 0; i < n; i++)
      if (__atomic_load_n(&__kmp_nt_team[i], __ATOMIC_RELAXED) == self) {
        nt_tls_tid = i;
        break;
      }
    nt_tls_tid_fork = f;
  }
  return nt_tls_tid;
}

// The items this thread has faulted in since their segment was armed, with
// the unit of its first fault there.
#define NT_ITEMS 8
struct nt_item_seen {
  const kmp_nt_segment *seg;
  kmp_uint64 armed_at;
  uintptr_t item;
  size_t first; // the unit of the thread's first fault in the item
  bool counted; // in seg->part_starters
};
static NT_TLS nt_item_seen nt_tls_items[NT_ITEMS];
static NT_TLS unsigned nt_tls_items_next;

// Whether a stream of this thread that starts at unit u of seg, in item
// `it`, starts its own part of the item: u holds b_t of nt_part_end, t the
// thread's number in the team, or u follows the unit that holds it (a
// stream restarts past its part's end there), and the thread's first fault
// in the item was no earlier than the unit before b_t's (a stencil reads
// its neighbour's last row first).  A loop whose parts are the item's, one
// per thread in order, is schedule(static); under other schedules a thread
// other than the primary starts there only by chance.  Counts the thread in
// seg->part_starters.
static bool nt_own_part_start(kmp_nt_segment *seg, size_t u,
                              const kmp_pt_range &it) {
  nt_item_seen *e = NULL;
  for (int i = 0; i < NT_ITEMS; i++)
    if (nt_tls_items[i].seg == seg && nt_tls_items[i].item == it.start &&
        nt_tls_items[i].armed_at == seg->armed_at)
      e = &nt_tls_items[i];
  if (!e) {
    e = &nt_tls_items[nt_tls_items_next++ % NT_ITEMS];
    e->seg = seg;
    e->armed_at = seg->armed_at;
    e->item = it.start;
    e->first = u;
    e->counted = false;
  }
  kmp_uint64 nproc =
      (kmp_uint64)__atomic_load_n(&__kmp_nt_nproc, __ATOMIC_ACQUIRE);
  int tid = nproc > 1 ? nt_team_index() : -1;
  if (tid < 0 || (kmp_uint64)tid >= nproc || it.end <= it.start || e->first > u)
    return false;
  uintptr_t b = nt_part_boundary(it, (kmp_uint64)tid, nproc);
  if (b < seg->base)
    return false;
  size_t ub = (size_t)((b - seg->base) >> seg->shift); // the unit of b_t
  if ((u != ub && u != ub + 1) || e->first + 1 < ub)
    return false;
  if (tid > 0 && !e->counted) {
    e->counted = true;
    __atomic_fetch_add(&seg->part_starters, 1, __ATOMIC_ACQ_REL);
  }
  return true;
}

// The window for a fault at unit u of seg, in the item that starts at
// item: grows on the stream it continues (once the team has started, see
// nt_team_started).  A new stream gets a predicted end (nt_tls_start_*); a
// thread that touches that unit itself goes on past it, and the stream then
// grows freely.
//
// A stream that started its thread's own part of the item
// (nt_own_part_start) takes the largest window at its second fault instead
// of growing to it: nt_batch_limit keeps it in the part.  The primary
// thread's does once another thread of the team has started its own part
// in the segment.  In a loop with schedule(static) and no chunk the part is
// the thread's own (__kmp_nt_tls_block_loop): the stream takes the largest
// window at its first fault (nt_first_window).
static int nt_first_window(bool part_start) {
  return part_start && __kmp_nt_tls_block_loop ? __kmp_nexttouch_max_window : 1;
}

static nt_stream *nt_stream_for(kmp_nt_segment *seg, size_t u,
                                const kmp_pt_range &it, kmp_uint64 gen,
                                int *w) {
  uintptr_t item = it.start;
  bool started = nt_team_started(seg);
  nt_stream *victim = &nt_tls_streams[0];
  for (int i = 0; i < NT_STREAMS; i++) {
    nt_stream *s = &nt_tls_streams[i];
    if (s->seg == seg && s->gen == gen && s->next == u) {
      if (s->stop && u >= s->stop)
        s->stop = 0;
      if (s->part_start && !s->stop &&
          (nt_tls_tid > 0 || __kmp_nt_tls_block_loop ||
           __atomic_load_n(&seg->part_starters, __ATOMIC_ACQUIRE) > 0))
        *w = __kmp_nexttouch_max_window;
      else
        *w = started || s->stop
                 ? nt_next_window(s->window, __kmp_nexttouch_max_window)
                 : s->window;
      return s;
    }
    if (s->lru < victim->lru)
      victim = s;
  }
  victim->first = u;
  victim->stop = 0;
  victim->part_start = nt_own_part_start(seg, u, it);
  *w = nt_first_window(victim->part_start);
  if (nt_tls_start_seg == seg && nt_tls_start_gen == gen &&
      nt_tls_start_item == item && u > nt_tls_start_unit) {
    size_t nproc = (size_t)__atomic_load_n(&__kmp_nt_nproc, __ATOMIC_ACQUIRE);
    size_t chunk = (u - nt_tls_start_unit) / (nproc > 1 ? nproc : 1);
    victim->stop = u + (chunk ? chunk : 1);
  }
  nt_tls_start_seg = seg;
  nt_tls_start_gen = gen;
  nt_tls_start_item = item;
  nt_tls_start_unit = u;
  return victim;
}

// The item of seg that holds the unit at a, in *it.  Returns 1, or 2 if the
// unit is where one item ends and another starts (arrays 16 bytes apart on
// the heap share a page).
static int nt_item_of(const kmp_nt_segment *seg, uintptr_t a, uintptr_t usz,
                      kmp_pt_range *it) {
  int lo = 0, hi = seg->nitems; // find the first item that starts above a
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (seg->items[mid].start <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  int found = 0, edge = 0;
  // Sorted by start; an earlier, longer item may hold a where the next one
  // does not, so look a few back.  Then an item that starts inside the unit
  // (THP units hold several pages).
  for (int i = lo - 1; i >= 0 && i >= lo - 8; i--)
    if (a < seg->items[i].end) {
      if (!found++)
        *it = seg->items[i];
      edge |= seg->items[i].start >= a || seg->items[i].end <= a + usz;
    }
  if (lo < seg->nitems && seg->items[lo].start < a + usz) {
    if (!found++)
      *it = seg->items[lo];
    edge = 1;
  }
  if (!found) {
    it->start = seg->base;
    it->end = seg->end;
  }
  return found > 1 && edge ? 2 : 1;
}

// The end (a unit, exclusive) of the part of item `it`'s even partition
// among the threads of the running team that holds a stream that started at
// unit `first` of seg: the boundaries b_k = rs + k * len / nproc are where
// the parts of the item's bytes meet (a loop's parts meet where its elements
// do, a few elements away).  The stream's part is the one that holds the
// last byte of its first unit (a unit that holds a boundary is the end of
// one part and the start of the next; a thread that goes on from it is in
// the next one), and the unit that holds the part's end is still in it.
static size_t nt_part_end(const kmp_nt_segment *seg, size_t first,
                          const kmp_pt_range &it) {
  kmp_uint64 nproc =
      (kmp_uint64)__atomic_load_n(&__kmp_nt_nproc, __ATOMIC_ACQUIRE);
  uintptr_t usz = (uintptr_t)1 << seg->shift, rs = it.start, re = it.end;
  if (nproc <= 1 || re <= rs)
    return seg->nunits;
  uintptr_t from = seg->base + (uintptr_t)first * usz + usz - 1;
  // The loop skips the b_k - rs <= k * (q + 1) <= off that lie below `from`.
  kmp_uint64 off = from > rs ? from - rs : 0, q = (re - rs) / nproc;
  for (kmp_uint64 k = off / (q + 1) + 1; k < nproc; k++) {
    uintptr_t b = nt_part_boundary(it, k, nproc);
    if (b <= from)
      continue;
    size_t ub = (size_t)((b - seg->base) >> seg->shift);
    if ((b - seg->base) & (usz - 1))
      ub++; // the unit that holds b
    return ub < seg->nunits ? ub : seg->nunits;
  }
  return seg->nunits;
}

// A small item -- at most NT_SMALL_ITEM_PAGES pages, all of them in seg --
// is taken whole from the fault to its end: programs that hold their data
// in many small allocations (the blocks of a block-structured mesh, the
// rows of a sparse matrix, one array per cell) give each to one thread, and
// for the few pages of one the partition of the team matters less than a
// fault per page.  The end (a unit, exclusive), or 0 for an item that is
// not small.
#define NT_SMALL_ITEM_PAGES 16
static size_t nt_small_item_end(const kmp_nt_segment *seg, size_t u,
                                const kmp_pt_range &it) {
  uintptr_t usz = (uintptr_t)1 << seg->shift, pg = (uintptr_t)__kmp_pt_page;
  if (it.end <= it.start ||
      it.end - it.start >
          ((uintptr_t)NT_SMALL_ITEM_PAGES << __kmp_pt_page_shift) ||
      it.start + pg < seg->base || it.end > seg->end + pg)
    return 0; // large, or partly in another segment
  uintptr_t re = it.end < seg->end ? it.end : seg->end;
  size_t ue = (size_t)((re - seg->base + usz - 1) >> seg->shift);
  if (ue > seg->nunits)
    ue = seg->nunits;
  if (ue > u + KMP_NEXTTOUCH_MAX_WINDOW)
    ue = u + KMP_NEXTTOUCH_MAX_WINDOW;
  return ue > u ? ue : 0;
}

// Where a batch of up to wu units from unit u of seg must end (exclusive).
// Taking pages ahead of the fault is right only for pages the same thread
// would touch first, so a batch stays inside the requested item `it` that
// holds the fault (a list item of the directive, the range of an API call;
// a unit that two items share is a batch of its own) and does not cross
//  - a multiple of its own size counted from the start of the item: the
//    chunks of schedule(static, k) and schedule(dynamic, k) start at such
//    multiples when they span a power of two of pages, so a batch does not
//    reach into the next chunk, which is another thread's;
//  - part_end, the end of the stream's part of the item's even partition
//    among the team (nt_part_end; the parts of schedule(static) over it):
//    a thread that finishes its part early does not take the start of its
//    neighbour's.
// A loop that partitions the data otherwise only gets smaller batches.  The
// adaptive window also stops at its stream's predicted end (nt_stream_for),
// for chunks that are not a power of two of pages.
static size_t nt_batch_limit(const kmp_nt_segment *seg, size_t u, size_t wu,
                             size_t part_end, const kmp_pt_range &it,
                             int shared) {
  if (shared)
    return u + 1; // the last unit of one item and the first of the next
  uintptr_t usz = (uintptr_t)1 << seg->shift;
  uintptr_t a = seg->base + (uintptr_t)u * usz;
  uintptr_t rs = it.start, re = it.end;
  size_t lim = part_end < seg->nunits ? part_end : seg->nunits;
  if (re < seg->end) { // the unit holding the item's end
    size_t ue = (size_t)((re - seg->base + usz - 1) >> seg->shift);
    if (ue < lim)
      lim = ue;
  }
  size_t r = (size_t)((a - (rs < a ? rs : a)) >> seg->shift);
  size_t aligned = u + (r / wu + 1) * wu - r;
  if (aligned < lim)
    lim = aligned;
  return lim > u ? lim : u + 1;
}

// A fault on a page that carries the engine's mark and cannot be read, where
// no unit is armed: armed pages the program moved (mremap; the units at the
// old address are dropped as stale at the next arming).  The new address is
// outside every segment, or in one where the unit is done (a range the
// program unmapped).  They are opened where they are, as a serial touch
// would open them: the run of the VMA around the fault that holds no armed
// or claimed unit gets its policy and protection back (armed ranges are
// read-write).  Called inside the table (__kmp_nt_table.readers).
// Returns 1 if it did.
static int nt_open_moved(uintptr_t page) {
  uintptr_t lo, hi;
  if (!__kmp_nt_mark || !__kmp_nt_marked(page) || __kmp_pt_readable(page) ||
      !__kmp_pt_none_vma(page, &lo, &hi))
    return 0;
  const kmp_pt_index<kmp_nt_segment>::snap *segs = __kmp_nt_table.get();
  for (int i = kmp_pt_index<kmp_nt_segment>::lower(segs, lo);
       segs && i < segs->n && segs->e[i]->base < hi; i++) {
    kmp_nt_segment *s = segs->e[i];
    uintptr_t usz = (uintptr_t)1 << s->shift;
    uintptr_t a = s->base > lo ? s->base : lo, b = s->end < hi ? s->end : hi;
    size_t u1 = (b - s->base + usz - 1) >> s->shift;
    for (size_t u = (a - s->base) >> s->shift; u < u1; u++) {
      if (__atomic_load_n(&s->state[u], __ATOMIC_ACQUIRE) == KMP_NT_DONE)
        continue;
      uintptr_t ua = s->base + (u << s->shift), ue = ua + usz;
      if (ue <= page) {
        lo = ue;
      } else if (ua > page) {
        hi = ua;
        break;
      } else {
        return 0; // the unit of the fault is armed: not moved memory
      }
    }
  }
  if (lo >= hi)
    return 0;
  // Protection first, then the mark: another thread faulting here meanwhile
  // must not find an inaccessible page without it (it would chain the fault
  // to the program's handler).
  if (__kmp_pt_mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0)
    return 0;
  __kmp_nt_set_mark(lo, hi - lo, 0);
  return 1;
}

// Returns 1 if the fault was ours (retry the access), 0 to chain.
int __kmp_nt_fault(uintptr_t addr, void *uc) {
  kmp_uint64 gen = __kmp_nt_table.generation();
  uintptr_t page = addr & ~((uintptr_t)__kmp_pt_page - 1);
  if (nt_tls_last_page == page && nt_tls_last_gen == gen)
    return 0; // the same fault again: not (or no longer) ours
  nt_tls_last_page = page;
  nt_tls_last_gen = gen;

  __kmp_nt_table.enter();
  kmp_nt_segment *seg =
      kmp_pt_index<kmp_nt_segment>::find(__kmp_nt_table.get(), addr);
  if (!seg) {
    int moved = nt_open_moved(page);
    __kmp_nt_table.leave();
    // A segment disarmed since the fault has its protection restored: retry
    // once.  Anything else faults again at the same page and is chained.
    return moved || gen > 1;
  }
  kmp_uint64 t0 = __kmp_pt_now_ns();
  size_t u = (addr - seg->base) >> seg->shift;
  int spins = 0;
  for (;;) {
    unsigned char s = __atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE);
    if (s & KMP_NT_ARMED) {
      if (!__atomic_compare_exchange_n(&seg->state[u], &s, KMP_NT_CLAIMED,
                                       false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        continue;
      // Not armed any more if the page can be read and this is a write, or
      // if the page lacks the mark (the program mapped something new here,
      // e.g. a PROT_NONE guard page): drop the unit without touching the
      // mapping, and chain.
      if ((__kmp_pt_fault_is_write(uc) == 1 && __kmp_pt_readable(page)) ||
          (seg->marked && !__kmp_nt_marked(page))) {
        __kmp_nt_done(seg, u, 1);
        KMP_NT_ADD(pages_disarmed, __kmp_nt_unit_pages(seg));
        __kmp_nt_table.leave();
        return 0;
      }
      // Ours.  Serial code (no team runs) gets the unit back where it is.
      if (!__atomic_load_n(&__kmp_nt_teams_running, __ATOMIC_ACQUIRE)) {
        __kmp_nt_restore(seg, u, 1, 0);
        __kmp_nt_done(seg, u, 1);
        KMP_NT_ADD(pages_touched_serial, __kmp_nt_unit_pages(seg));
        break;
      }
      // Extend the batch over the following untouched units.
      unsigned char old[KMP_NEXTTOUCH_MAX_WINDOW];
      old[0] = s;
      int unit_pages = (int)__kmp_nt_unit_pages(seg);
      uintptr_t usz = (uintptr_t)1 << seg->shift;
      kmp_pt_range it;
      int shared = nt_item_of(seg, seg->base + u * usz, usz, &it) > 1;
      int w = 1;
      nt_stream *st = NULL;
      size_t lim =
          shared || __kmp_nexttouch_window ? 0 : nt_small_item_end(seg, u, it);
      if (!lim) {
        if (__kmp_nexttouch_window)
          w = __kmp_nexttouch_window;
        else
          st = nt_stream_for(seg, u, it, gen, &w);
        size_t part_end = nt_part_end(seg, st ? st->first : u, it);
        if (st && u >= part_end) {
          // The stream went on past its part (a thread whose loop is not
          // split like the item, or a stencil reading its neighbour's first
          // row): it starts over here, from a window of one page (or the
          // largest, where its own part starts in a block-scheduled loop).
          st->first = u;
          st->part_start = nt_own_part_start(seg, u, it);
          w = nt_first_window(st->part_start);
          part_end = nt_part_end(seg, u, it);
        }
        size_t wu = (size_t)(w + unit_pages - 1) / unit_pages;
        if (wu > KMP_NEXTTOUCH_MAX_WINDOW)
          wu = KMP_NEXTTOUCH_MAX_WINDOW;
        lim = nt_batch_limit(seg, u, wu, part_end, it, shared);
        if (st && st->stop > u && st->stop < lim)
          lim = st->stop;
      }
      size_t n = 1;
      while (u + n < lim) {
        unsigned char t = __atomic_load_n(&seg->state[u + n], __ATOMIC_ACQUIRE);
        if (!(t & KMP_NT_ARMED) ||
            !__atomic_compare_exchange_n(&seg->state[u + n], &t, KMP_NT_CLAIMED,
                                         false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
          break;
        old[n++] = t;
      }
      int node = __kmp_pt_node_of_current_cpu();
      int mig = __kmp_nt_migrate(seg, u, n, old, node);
      __kmp_nt_restore(seg, u, n, mig & KMP_NT_MIGRATE_UNMARKED);
      if (mig & KMP_NT_MIGRATE_FIXUP)
        __kmp_nt_fixup(seg, u, n, old, node);
      __kmp_nt_done(seg, u, n);
      if (st) {
        st->seg = seg;
        st->gen = gen;
        st->next = u + n;
        st->window = w;
        st->lru = ++nt_tls_clock;
      }
      KMP_NT_ADD(batches, 1);
      break;
    }
    if (s == KMP_NT_CLAIMED) { // another thread migrates it: wait for it
      if (++spins < 1000)
        KMP_CPU_PAUSE();
      else
        sched_yield();
      continue;
    }
    // Released meanwhile (retry), or moved memory where a unit is done.
    nt_open_moved(page);
    break;
  }
  KMP_NT_ADD(faults, 1);
  KMP_NT_ADD(fault_ns, __kmp_pt_now_ns() - t0);
  __kmp_nt_table.leave();
  return 1;
}

// ---------------------------------------------------------------------------
// The buffer of a system call (kmp_pagetrap_io.cpp).  The kernel's own copy
// into or out of an armed page does not fault: the call fails with EFAULT,
// and a datagram read that way is lost.  So the armed units of [a, e) are
// touched first, by the calling thread, through the fault path: in a team
// they move to the caller's node (the caller is their next toucher), in
// serial code they are opened where they are.  Units that are not the
// engine's any more are left alone; the call then fails as it would have.
// Runs with the handler's signal mask; may run inside a signal handler
// (read() and write() are async-signal-safe).
int __kmp_nt_buffer(uintptr_t a, uintptr_t e, int into) {
  (void)into; // either way: the caller is the pages' next toucher
  if (e <= a || !__kmp_nt_armed())
    return 0;
  __kmp_nt_each_armed(a, e, [](kmp_nt_segment *s, uintptr_t lo, uintptr_t hi) {
    for (size_t u = (lo - s->base) >> s->shift; s->base + (u << s->shift) < hi;
         u++) {
      if (__atomic_load_n(&s->state[u], __ATOMIC_ACQUIRE) == KMP_NT_DONE)
        continue;
      uintptr_t at = s->base + (u << s->shift);
      __kmp_nt_fault(at < lo ? lo : at, NULL);
      nt_tls_last_page = 0; // not a fault: a real one here is new
    }
  });
  return 0;
}

#endif // KMP_PAGETRAP_SUPPORTED
