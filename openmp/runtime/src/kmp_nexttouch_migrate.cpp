/*
 * kmp_nexttouch_migrate.cpp -- affinity-on-next-touch: moving claimed pages
 * to a node and giving them back their protection.
 *
 * RUNS IN THE SIGSEGV HANDLER (kmp_nexttouch_fault.cpp calls it on every
 * fault on an armed page): async-signal-safe code only -- raw system calls,
 * atomics on the counters, no locks, no allocation, no stdio, no libomp data
 * structures.  Arming and disarming use it too, and the start-up probe of
 * the mark (kmp_nexttouch.cpp).
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
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Failed moves by reason: [0] busy, [1] out of memory, [2] other.
enum { NT_FAIL_BUSY, NT_FAIL_NOMEM, NT_FAIL_OTHER, NT_FAIL_KINDS };
// Pages moved to `node` (the last slot collects nodes past the array).
static void nt_count_moved(int node, kmp_uint64 pages) {
  if (!pages)
    return;
  KMP_NT_ADD(pages_migrated, pages);
  if (node >= KMP_NEXTTOUCH_MAX_NODES)
    node = KMP_NEXTTOUCH_MAX_NODES - 1;
  KMP_NT_ADD(migrated_to_node[node], pages);
}

static int nt_move_error_kind(int err) {
  // EACCES: move_pages() on a page that another process maps too.
  if (err == EBUSY || err == EAGAIN || err == EIO || err == EPERM ||
      err == EACCES)
    return NT_FAIL_BUSY;
  if (err == ENOMEM || err == ENOSPC)
    return NT_FAIL_NOMEM;
  return NT_FAIL_OTHER;
}

static void nt_count_move_errors(const kmp_uint64 *fails) {
  if (fails[NT_FAIL_BUSY])
    KMP_NT_ADD(fail_move_busy, fails[NT_FAIL_BUSY]);
  if (fails[NT_FAIL_NOMEM])
    KMP_NT_ADD(fail_move_nomem, fails[NT_FAIL_NOMEM]);
  if (fails[NT_FAIL_OTHER])
    KMP_NT_ADD(fail_move_other, fails[NT_FAIL_OTHER]);
}

static void nt_count_move_error(int err, kmp_uint64 pages) {
  kmp_uint64 fails[NT_FAIL_KINDS] = {0, 0, 0};
  fails[nt_move_error_kind(err)] = pages;
  nt_count_move_errors(fails);
}

// The page lists of move_pages.  One call over many pages lets the kernel
// batch the TLB flushes of the whole migration (Linux 6.3 and later), so a
// fault takes a list of NT_MOVE_MAX pages from a pool made when the engine
// starts (private memory: the handler may run on a small sigaltstack).  If
// every list is in use (more threads in the fault path than lists), a list
// of NT_CHUNK pages on the stack.
enum { NT_CHUNK = 32, NT_MOVE_MAX = 512, NT_MOVE_LISTS = 16 };
struct kmp_nt_move_lists {
  volatile int busy[NT_MOVE_LISTS];
  void *pages[NT_MOVE_LISTS][NT_MOVE_MAX];
  int nodes[NT_MOVE_LISTS][NT_MOVE_MAX];
  int status[NT_MOVE_LISTS][NT_MOVE_MAX];
};
static kmp_nt_move_lists *nt_lists;

struct kmp_nt_move_list {
  void **pages;
  int *nodes, *status;
  int cap, slot;
  void *stack_pages[NT_CHUNK];
  int stack_nodes[NT_CHUNK], stack_status[NT_CHUNK];

  // Every entry of nodes is `node`.
  explicit kmp_nt_move_list(int node) : slot(-1) {
    kmp_nt_move_lists *l = __atomic_load_n(&nt_lists, __ATOMIC_ACQUIRE);
    for (int i = 0; l && i < NT_MOVE_LISTS && slot < 0; i++) {
      int idle = 0;
      if (!__atomic_load_n(&l->busy[i], __ATOMIC_RELAXED) &&
          __atomic_compare_exchange_n(&l->busy[i], &idle, 1, false,
                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        slot = i;
    }
    if (slot >= 0) {
      pages = l->pages[slot];
      nodes = l->nodes[slot];
      status = l->status[slot];
      cap = NT_MOVE_MAX;
    } else {
      pages = stack_pages;
      nodes = stack_nodes;
      status = stack_status;
      cap = NT_CHUNK;
    }
    for (int j = 0; j < cap; j++)
      nodes[j] = node;
  }
  ~kmp_nt_move_list() {
    if (slot >= 0)
      __atomic_store_n(&nt_lists->busy[slot], 0, __ATOMIC_RELEASE);
  }
};

// Once, when the engine starts (not in the handler); NULL-safe without it.
void __kmp_nt_move_lists_init() {
  if (!nt_lists)
    __atomic_store_n(
        &nt_lists,
        (kmp_nt_move_lists *)__kmp_pt_private_alloc(sizeof(kmp_nt_move_lists)),
        __ATOMIC_RELEASE);
}

int __kmp_nt_move_lists_range(kmp_pt_range *out) {
  if (!nt_lists)
    return 0;
  out->start = (uintptr_t)nt_lists;
  out->end = out->start + sizeof(kmp_nt_move_lists);
  return 1;
}

// fork(2), in the child: the lists of the threads that are not there.
void __kmp_nt_move_lists_atfork_child() {
  for (int i = 0; nt_lists && i < NT_MOVE_LISTS; i++)
    nt_lists->busy[i] = 0;
}

// Collects into l (at most its capacity) the addresses of the claimed units
// from *i on, of [u, u+n), that were not on `node` when claimed; advances *i.
static int nt_gather(const kmp_nt_segment *seg, size_t u, size_t *i, size_t n,
                     const unsigned char *old, int node, kmp_nt_move_list &l) {
  int k = 0;
  for (; *i < n && k < l.cap; ++*i)
    if ((old[*i] & KMP_NT_NODE_UNKNOWN) != node)
      l.pages[k++] = (void *)(seg->base + ((u + *i) << seg->shift));
  return k;
}

// Migrate the claimed units [u, u+n) of seg to `node`; old[i] is the state
// each had when it was claimed.  Returns KMP_NT_MIGRATE_FIXUP if mbind
// failed for part of the run (__kmp_nt_fixup() then finishes the job once
// the pages are accessible), and KMP_NT_MIGRATE_UNMARKED if restoring the
// range's policy after mbind removed the mark (so __kmp_nt_restore need not).
int __kmp_nt_migrate(kmp_nt_segment *seg, size_t u, size_t n,
                     const unsigned char *old, int node) {
  kmp_uint64 unit_pages = __kmp_nt_unit_pages(seg);
  kmp_uint64 local = 0, want = 0;
  for (size_t i = 0; i < n; i++) {
    int was = old[i] & KMP_NT_NODE_UNKNOWN;
    if (node >= 0 && was == node)
      local++;
    else
      want++;
  }
  if (local)
    KMP_NT_ADD(pages_already_local, local * unit_pages);
  if (!want || node < 0) {
    if (want)
      KMP_NT_ADD(fail_move_other, want * unit_pages);
    return 0;
  }
  kmp_uint64 moved = 0;
  // A shared mapping: mbind would set the policy of the shared object and
  // silently skip the pages that other processes map (MPOL_MF_STRICT does
  // not report them): __kmp_nt_fixup() moves them once they are accessible,
  // with move_pages(), which says which could not move.
  if (seg->shared)
    return KMP_NT_MIGRATE_FIXUP;
  if (__kmp_nt_mech == kmp_pt_mech_mbind || seg->shift > __kmp_pt_page_shift) {
    // One call for the run: the kernel moves only the pages that are not on
    // `node` already.  It leaves MPOL_BIND behind: restore the range's policy.
    unsigned long mask[KMP_PT_MASK_WORDS];
    for (int w = 0; w < KMP_PT_MASK_WORDS; w++)
      mask[w] = 0;
    mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
    void *a = (void *)(seg->base + (u << seg->shift));
    size_t len = n << seg->shift;
    long r = __kmp_pt_mbind(a, len, MPOL_BIND, mask, KMP_PT_MAXNODE,
                            MPOL_MF_MOVE | MPOL_MF_STRICT);
    if (r) // a page may be transiently busy (e.g. still in a per-CPU LRU list)
      r = __kmp_pt_mbind(a, len, MPOL_BIND, mask, KMP_PT_MAXNODE,
                         MPOL_MF_MOVE | MPOL_MF_STRICT);
    // In a marked segment this also removes the mark from the run.
    int unmarked = 0;
    if (seg->pol_mode == MPOL_DEFAULT)
      unmarked =
          __kmp_pt_mbind(a, len, MPOL_DEFAULT, NULL, 0, 0) == 0 && seg->marked;
    else
      __kmp_pt_mbind(a, len, seg->pol_mode, seg->pol_mask, KMP_PT_MAXNODE, 0);
    // Which pages moved is only known once they are accessible: where mbind
    // failed, and where it skipped pages another process maps too.
    int cow = 0;
    for (size_t i = 0; i < n; i++)
      cow |= old[i] & KMP_NT_COW;
    if (r || cow)
      return KMP_NT_MIGRATE_FIXUP | (unmarked ? KMP_NT_MIGRATE_UNMARKED : 0);
    nt_count_moved(node, want * unit_pages);
    return unmarked ? KMP_NT_MIGRATE_UNMARKED : 0;
  } else {
    // Per page.  A kernel that does not move PROT_NONE pages says -ENOENT
    // (only if KMP_NEXTTOUCH_MECHANISM forces move_pages there): leave the
    // whole run to __kmp_nt_fixup(), which counts it once the pages are
    // accessible.
    kmp_nt_move_list l(node);
    int *status = l.status;
    // Failures are counted at the end: if the run goes to __kmp_nt_fixup(), it
    // counts them there, once.
    kmp_uint64 fails[NT_FAIL_KINDS] = {0, 0, 0};
    size_t i = 0;
    while (i < n) {
      int k = nt_gather(seg, u, &i, n, old, node, l);
      if (!k)
        continue;
      long r = __kmp_pt_move_pages(k, l.pages, l.nodes, status, MPOL_MF_MOVE);
      if (r < 0) {
        if (errno == ENOENT)
          return KMP_NT_MIGRATE_FIXUP;
        fails[NT_FAIL_OTHER] += k;
        continue;
      }
      for (int j = 0; j < k; j++) {
        if (status[j] == node)
          moved++;
        else if (status[j] == -ENOENT)
          return KMP_NT_MIGRATE_FIXUP;
        else
          fails[nt_move_error_kind(-status[j])]++;
      }
    }
    nt_count_move_errors(fails);
  }
  nt_count_moved(node, moved);
  return 0;
}

// After a failed mbind: the run is accessible again but not yet released to
// other threads' faults.  Ask where each page is, move the others with
// move_pages (which works on accessible pages on every kernel), count.
void __kmp_nt_fixup(kmp_nt_segment *seg, size_t u, size_t n,
                    const unsigned char *old, int node) {
  kmp_nt_move_list l(node);
  void **pages = l.pages;
  int *status = l.status;
  kmp_uint64 unit_pages = __kmp_nt_unit_pages(seg);
  kmp_uint64 moved = 0;
  size_t i = 0;
  while (i < n) {
    // Units already on `node` were counted as local by __kmp_nt_migrate().
    int k = nt_gather(seg, u, &i, n, old, node, l);
    if (!k)
      continue;
    if (__kmp_pt_move_pages(k, pages, NULL, status, 0) != 0) {
      nt_count_move_error(errno, k * unit_pages);
      continue;
    }
    int m = 0; // keep the pages that are not on `node` yet
    for (int j = 0; j < k; j++) {
      if (status[j] == node)
        moved += unit_pages;
      else
        pages[m++] = pages[j];
    }
    if (!m)
      continue;
    if (__kmp_pt_move_pages(m, pages, l.nodes, status, MPOL_MF_MOVE) < 0) {
      nt_count_move_error(errno, m * unit_pages);
      continue;
    }
    for (int j = 0; j < m; j++) {
      if (status[j] == node)
        moved += unit_pages;
      else if (status[j] < 0)
        nt_count_move_error(-status[j], unit_pages);
      else
        KMP_NT_ADD(fail_move_other, unit_pages);
    }
  }
  nt_count_moved(node, moved);
}

// ---------------------------------------------------------------------------
// The mark on armed pages.  Where a range has the default memory policy, the
// engine gives the pages it protects the VMA policy MPOL_LOCAL as well, and
// the default back when it restores them.  MPOL_LOCAL allocates on the node
// of the allocating thread, as the default does, and armed pages are present
// anyway: it changes no placement.  But the kernel keeps a VMA's policy when
// the program moves the mapping (mremap), and a mapping the program makes
// there anew has its own.  So an inaccessible page with the mark is one the
// engine protected, wherever it is now, and one without it is not.

int __kmp_nt_mark = 0;

int __kmp_nt_set_mark(uintptr_t a, size_t len, int on) {
  return __kmp_pt_mbind((void *)a, len, on ? MPOL_LOCAL : MPOL_DEFAULT, NULL, 0,
                        0) == 0;
}

int __kmp_nt_marked(uintptr_t a) {
  int mode = -1;
  if (__kmp_pt_get_mempolicy(&mode, NULL, 0, (void *)a, MPOL_F_ADDR) != 0)
    return 0;
  return mode == MPOL_LOCAL;
}

// Give the claimed units [u, u+n) back their protection (and their policy,
// unless `unmarked` says the mark is gone already).
void __kmp_nt_restore(kmp_nt_segment *seg, size_t u, size_t n, int unmarked) {
  // The units are claimed: other threads' faults there wait for them.
  uintptr_t a = seg->base + (u << seg->shift);
  size_t len = n << seg->shift;
  if (seg->marked && !unmarked)
    __kmp_nt_set_mark(a, len, 0);
  if (__kmp_pt_mprotect((void *)a, len, seg->prot) == 0)
    return;
  KMP_NT_ADD(fail_restore, 1);
  // Most likely the VMA limit (vm.max_map_count): open the whole segment;
  // its other armed pages lose next-touch but stay correct.
  if (__kmp_pt_mprotect((void *)seg->base, seg->end - seg->base, seg->prot) ==
      0) {
    if (seg->marked)
      __kmp_nt_set_mark(seg->base, seg->end - seg->base, 0);
    // Its other armed units are open now: disarmed where they are, counted
    // at once (the counters add up at any quiet point).
    kmp_uint64 opened = 0;
    for (size_t v = 0; v < seg->nunits; v++) {
      unsigned char st = __atomic_load_n(&seg->state[v], __ATOMIC_ACQUIRE);
      if ((st & KMP_NT_ARMED) && __atomic_compare_exchange_n(
                                     &seg->state[v], &st, KMP_NT_CLAIMED, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __kmp_nt_done(seg, v, 1);
        opened++;
      }
    }
    KMP_NT_ADD(pages_disarmed, opened * __kmp_nt_unit_pages(seg));
    return;
  }
  // A unit whose page the program unmapped or moved away (a hole: the kernel
  // changed only part of the run): unit by unit, so that no page is left
  // inaccessible without the mark.
  size_t usz = (size_t)1 << seg->shift;
  for (size_t i = 0; i < n; i++) {
    uintptr_t p = a + i * usz;
    if (__kmp_pt_mprotect((void *)p, usz, seg->prot) != 0)
      continue;
    if (seg->marked)
      __kmp_nt_set_mark(p, usz, 0);
  }
}

// Release them: threads waiting in the fault path may go on.
void __kmp_nt_done(kmp_nt_segment *seg, size_t u, size_t n) {
  for (size_t i = 0; i < n; i++)
    __atomic_store_n(&seg->state[u + i], KMP_NT_DONE, __ATOMIC_RELEASE);
  if (__atomic_sub_fetch(&seg->armed_units, n, __ATOMIC_ACQ_REL) == 0)
    __atomic_fetch_add(&__kmp_nt_emptied, 1, __ATOMIC_RELEASE);
}

#endif // KMP_PAGETRAP_SUPPORTED
