/*
 * kmp_readonly_items.cpp -- readonly(list): the cache of list items.
 *
 * An item is found by its byte range, checked against /proc/self/maps (new:
 * what memory it is; cached: whether the program unmapped, re-mapped or
 * re-protected it since), write-protected at a region start (its open
 * chunks closed), given the budget for its replicas, and dropped (released,
 * replaced by an overlapping item, evicted, stale, unmapped).  A drop gives
 * back their protection to exactly the pages the engine holds read-only and
 * leaves the rest as the program made them.
 *
 * Runs under __kmp_ro_lock in the thread that starts a region, releases
 * items or shuts the runtime down; never in a signal handler.  It frees an
 * item only after bumping the generation and waiting until no handler is
 * inside the table.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_readonly.h"

#if KMP_PAGETRAP_SUPPORTED
#include <errno.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

size_t __kmp_ro_reserved = 0; // budget reserved by cached items
volatile kmp_uint64 __kmp_ro_drops = 0; // items dropped so far
static kmp_pt_pool ro_pool; // the items and their chunk states

int __kmp_ro_pool_ranges(kmp_pt_range *out, int max) {
  return ro_pool.ranges(out, max);
}

// The cached items that pick(it) selects, collected (allocated with
// __kmp_allocate, *n of them): dropping one replaces the index, which a
// walk through it must not see.
template <typename Pick>
static kmp_ro_item **ro_collect(uintptr_t a, uintptr_t e, int *n, Pick pick) {
  int k = 0, cap = 0;
  kmp_ro_item **out = NULL;
  kmp_pt_index<kmp_ro_item>::each(
      __kmp_ro_table.get(), a, e, [&](kmp_ro_item *it) {
        if (!pick(it))
          return;
        if (k == cap) {
          cap = cap ? 2 * cap : 16;
          kmp_ro_item **m =
              (kmp_ro_item **)__kmp_allocate(sizeof(kmp_ro_item *) * cap);
          if (out) {
            memcpy(m, out, sizeof(kmp_ro_item *) * k);
            __kmp_free(out);
          }
          out = m;
        }
        out[k++] = it;
      });
  *n = k;
  return out;
}

// The VMA holding a, from v[*j] on (sorted); NULL if a is in a hole.
static const kmp_pt_vma *ro_vma(const kmp_pt_vma *v, int n, int *j,
                                uintptr_t a) {
  while (*j < n && v[*j].end <= a)
    (*j)++;
  return *j < n && v[*j].start <= a ? &v[*j] : NULL;
}

// The VMA holding a (binary search); NULL if a is in a hole.  *j: the first
// VMA that ends above a.
static const kmp_pt_vma *ro_vma_find(const kmp_pt_vma *v, int n, int *j,
                                     uintptr_t a) {
  *j = __kmp_pt_first_after(v, n, a);
  return *j < n && v[*j].start <= a ? &v[*j] : NULL;
}

// Is the VMA m the same kind of memory as it was when it was first seen (a
// new mapping at its address may not be)?
static int ro_same_memory(const kmp_ro_item *it, const kmp_pt_vma *m) {
  return m->inode == it->inode && !m->shared == !(it->kind & KMP_RO_SHARED) &&
         (!m->inode || m->offset - m->start == it->off_delta);
}

// Is the cached it still what the maps show: its pages mapped, each chunk
// protected as its state says, an immutable item's file the same?
static int ro_still_ours(const kmp_ro_item *it, const kmp_pt_vma *v, int n) {
  int j;
  ro_vma_find(v, n, &j, it->mbase); // then forwards from there
  for (uintptr_t a = it->mbase; a < it->mend;) {
    const kmp_pt_vma *m = ro_vma(v, n, &j, a);
    if (!m ||
        ((it->kind & KMP_RO_IMMUTABLE) &&
         (m->inode != it->inode || m->offset - m->start != it->off_delta)))
      return 0;
    a = m->end;
  }
  // A closed chunk must be read-only; an open one writable, or read-only if
  // a serial write opened it after the maps were read (chunks are opened
  // without the lock, closed only under it).
  ro_vma_find(v, n, &j, it->mbase);
  for (size_t c = 0; c < it->nchunks; c++) {
    unsigned char s = __atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE);
    uintptr_t a, e;
    __kmp_ro_chunk_range(it, c, &a, &e);
    while (a < e) {
      const kmp_pt_vma *m = ro_vma(v, n, &j, a);
      if (!m || (s == KMP_RO_CLOSED && m->prot != PROT_READ) ||
          (s != KMP_RO_CLOSED && m->prot != it->prot && m->prot != PROT_READ))
        return 0;
      a = m->end;
    }
  }
  return 1;
}

// Is [base, end) a block of its own from glibc's malloc, whose first and
// last pages hold nothing but the allocator's bytes besides?  A large
// request (M_MMAP_THRESHOLD, from 128 KiB) gets a mapping of its own: a
// header of two words in front of the block (the gap from the mapping's
// start to the header, for an aligned block; the size of the rest with
// IS_MMAPPED, 2, and no other flag), and the block's end rounded up to a
// page.  For an item that starts at such a block and ends in its last page,
// these pages are protected too: nothing of it can change unseen, and its
// copies need not be closed between regions (a TLB shoot-down per copy and
// region).  A write to the other bytes there opens the chunk, in a region
// too (the fault path).  The header is read on the item's first page; a
// program's own data that looks like one is only protected longer.
static int ro_malloc_block(uintptr_t base, uintptr_t end) {
#if defined(__GLIBC__)
  const uintptr_t pg = (uintptr_t)__kmp_pt_page, hdr = 2 * sizeof(size_t);
  if ((base & (pg - 1)) < hdr)
    return 0; // no header on the item's first page
  const size_t *h = (const size_t *)(base - hdr);
  uintptr_t chunk = base - hdr, gap = h[0], size = h[1] & ~(size_t)7;
  if ((h[1] & 7) != 2 || gap > chunk || size > UINTPTR_MAX - chunk)
    return 0;
  uintptr_t start = chunk - gap, stop = chunk + size;
  return !(start & (pg - 1)) && !(stop & (pg - 1)) && end <= stop &&
         stop - end < pg;
#else
  return 0;
#endif
}

// glibc's realloc() grows such a block with its own mremap(), not the one
// libomp wraps.  Its mapping, one VMA once every page is read-only, would
// move with its protection, and the header be written at the new address
// on a read-only page nobody knows.  So the block's first page gets a memory
// policy of its own -- preferred: the node it is on, which changes nothing
// for a page that is there -- and stays a VMA of its own: that mremap()
// fails, and realloc() copies into a new block, as for any mapping split by
// protections.  Only where the program set no policy (it gets it back when
// the item is dropped).  Returns 1 if done.
static int ro_split_block(uintptr_t page) {
  int mode = -1, node = -1;
  if (__kmp_pt_get_mempolicy(&mode, NULL, 0, (void *)page, MPOL_F_ADDR) != 0 ||
      mode != MPOL_DEFAULT ||
      __kmp_pt_get_mempolicy(&node, NULL, 0, (void *)page,
                             MPOL_F_NODE | MPOL_F_ADDR) != 0 ||
      node < 0 || node >= (int)KMP_PT_MAXNODE)
    return 0;
  unsigned long mask[KMP_PT_MASK_WORDS];
  memset(mask, 0, sizeof mask);
  mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
  return __kmp_pt_mbind((void *)page, __kmp_pt_page, MPOL_PREFERRED, mask,
                        KMP_PT_MAXNODE, 0) == 0;
}

// The policy of the block's first page back to the default, if it still
// has ours (an item dropped after the program freed the block and mapped
// memory of its own there keeps what the program gave it, unless it is the
// same).
static void ro_unsplit_block_at(uintptr_t page) {
  int mode = -1;
  if (__kmp_pt_get_mempolicy(&mode, NULL, 0, (void *)page, MPOL_F_ADDR) == 0 &&
      mode == MPOL_PREFERRED)
    __kmp_pt_mbind((void *)page, __kmp_pt_page, MPOL_DEFAULT, NULL, 0, 0);
}
static void ro_unsplit_block(const kmp_ro_item *it) {
  if (it->kind & KMP_RO_BLOCK)
    ro_unsplit_block_at(it->mbase);
}

// Give the pages the engine holds read-only (those of its closed chunks)
// their protection back, where the maps v show them still mapped as the
// item's memory and read-only (or as the program had them, if v is older
// than a region start that closed them).  Pages the program unmapped, mapped
// anew as other memory or gave another protection keep what the program
// gave them; the rest of the item is restored all the same.  Without maps
// (v NULL: no memory to read them), every closed chunk is restored.
static void ro_restore(kmp_ro_item *it, const kmp_pt_vma *v, int nv) {
  if (it->kind & KMP_RO_IMMUTABLE)
    return; // read-only memory of the program: never protected by us
  uintptr_t rs = 0, re = 0; // the run of pages to restore so far
  int j = -1;
  for (size_t c = 0; c < it->nchunks; c++) {
    if (__atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE) != KMP_RO_CLOSED)
      continue; // open (or being opened): as the program had it
    uintptr_t a, e;
    __kmp_ro_chunk_range(it, c, &a, &e);
    while (a < e) {
      uintptr_t b = e;
      int ours = 1;
      if (v) {
        const kmp_pt_vma *m =
            j < 0 ? ro_vma_find(v, nv, &j, a) : ro_vma(v, nv, &j, a);
        if (m) {
          b = m->end < e ? m->end : e;
          ours = ro_same_memory(it, m) &&
                 (m->prot == PROT_READ || m->prot == it->prot);
        } else { // a hole up to the next VMA
          b = j < nv && v[j].start < e ? v[j].start : e;
          ours = 0;
        }
      }
      if (ours && re == a) {
        re = b;
      } else {
        if (rs < re)
          __kmp_pt_mprotect((void *)rs, re - rs, it->prot);
        rs = ours ? a : 0;
        re = ours ? b : 0;
      }
      a = b;
    }
  }
  if (rs < re)
    __kmp_pt_mprotect((void *)rs, re - rs, it->prot);
}

// Items in a private file mapping, which a write to the file changes where
// their pages were never copied on write; how many are cached.
static int ro_file_items;
static int ro_file_backed(const kmp_ro_item *it) {
  return it->inode && !(it->kind & KMP_RO_SHARED);
}

// The pages of it that no other tracked item holds: [*s, *e), its first or
// last page left out where another tracked item has it too (a write there
// not yet scanned is that item's).
static void ro_own_pages(const kmp_ro_item *it, uintptr_t *s, uintptr_t *e) {
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  *s = it->mbase;
  *e = it->mend;
  __kmp_ro_each_near(it->mbase, it->mend, [&](const kmp_ro_item *o) {
    if (o == it || !__kmp_ro_tracked(o))
      return;
    if (o->mbase <= it->mbase && o->mend > it->mbase)
      *s = it->mbase + pg;
    if (o->mbase < it->mend && o->mend >= it->mend)
      *e = it->mend - pg;
  });
}

// Track its pages with the kernel's written bits, where they exist.  Not a
// read-only file mapping (its file changes unseen all the same), a shared
// one (never replicated) or an item copied at every region anyway.
static void ro_track(kmp_ro_item *it) {
  if (!__kmp_readonly_written_bits ||
      (it->kind & (KMP_RO_IMMUTABLE | KMP_RO_SHARED | KMP_RO_NOKEEP)) ||
      !__kmp_pt_written_available())
    return;
  // Only the pages no other tracked item holds have their bits reset.
  uintptr_t ps, pe;
  ro_own_pages(it, &ps, &pe);
  int rc = __kmp_pt_written_track(it->mbase, it->mend, ps, pe);
  if (rc == 0)
    it->tracked = __kmp_pt_written_epoch;
  KA_TRACE(20, ("ro_track: [%p, %p) %s (%d)\n", (void *)it->mbase,
                (void *)it->mend, rc ? "untracked" : "tracked", rc));
}

// Stop tracking its pages, but for a first or last page another tracked
// item shares.
static void ro_untrack(kmp_ro_item *it) {
  if (!__kmp_ro_tracked(it))
    return;
  it->tracked = 0;
  uintptr_t s, e;
  ro_own_pages(it, &s, &e);
  if (s < e)
    __kmp_pt_written_untrack(s, e);
}

// Drop it: its pages given their protection back (ro_restore; before it is
// unpublished, so that a serial write meanwhile still finds it), unpublished,
// replicas freed.  v: the maps, NULL if they could not be read.
static void ro_drop(kmp_ro_item *it, const kmp_pt_vma *v, int nv) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock));
  KMP_DEBUG_ASSERT(!__kmp_ro_in_use(it) && __kmp_ro_reserved >= it->reserved);
  KA_TRACE(20, ("ro_drop: item [%p, %p)\n", (void *)it->base, (void *)it->end));
  if (ro_file_backed(it) && --ro_file_items == 0)
    __kmp_pt_set_file_watched(__kmp_ro_engine_id, 0);
  ro_restore(it, v, nv);
  ro_unsplit_block(it);
  ro_untrack(it);
  // Maps read before this are out of date for its pages (region starts
  // read them again before they look at another item).
  __atomic_fetch_add(&__kmp_ro_drops, 1, __ATOMIC_ACQ_REL);
  __kmp_ro_changed();
  __kmp_ro_table.remove(it); // and no reader sees it any more
  __kmp_ro_free_replicas(it);
  __kmp_ro_reserved -= it->reserved;
  KMP_RO_ADD(readonly_dropped, 1);
  ro_pool.free(it->arena);
}

// The least recently used item no region uses, with budget reserved if
// `budget`; NULL if none.
static kmp_ro_item *ro_lru(int budget, const kmp_ro_item *keep) {
  kmp_ro_item *v = NULL;
  for (int i = 0; i < __kmp_ro_table.size(); i++) {
    kmp_ro_item *it = __kmp_ro_table.at(i);
    if (it != keep && !__kmp_ro_in_use(it) && (!budget || it->reserved) &&
        (!v || it->last_use < v->last_use))
      v = it;
  }
  return v;
}

// Which node holds every page of [mbase, mend) (pages never touched do not
// count), or -1.
static int ro_home(uintptr_t mbase, uintptr_t mend) {
  enum { CHUNK = 512 };
  void *pages[CHUNK];
  int status[CHUNK], home = -2;
  for (uintptr_t a = mbase; a < mend && home != -1;) {
    int k = 0;
    for (; k < CHUNK && a < mend; k++, a += __kmp_pt_page)
      pages[k] = (void *)a;
    if (__kmp_pt_move_pages(k, pages, NULL, status, 0) != 0)
      return -1;
    for (int i = 0; i < k; i++)
      if (status[i] >= 0)
        home = home == -2 || home == status[i] ? status[i] : -1;
  }
  return home < 0 ? -1 : home;
}

// A new item for [base, end), published with every chunk open (the region
// start closes them); NULL if there is no memory for it.
static kmp_ro_item *ro_new(uintptr_t base, uintptr_t end, int prot, int kind,
                           const kmp_pt_vma *v) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && base < end);
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  uintptr_t pbase = (base + pg - 1) & ~(pg - 1), pend = end & ~(pg - 1);
  if (pbase > pend)
    pbase = pend;
  if (!kind && !v->inode && ro_malloc_block(base, end) &&
      ro_split_block(base & ~(pg - 1))) {
    kind |= KMP_RO_BLOCK;
    pbase = base & ~(pg - 1);
    pend = (end + pg - 1) & ~(pg - 1);
  }
  size_t nchunks =
      (pend - pbase + __kmp_ro_chunk_bytes() - 1) / __kmp_ro_chunk_bytes();
  kmp_pt_arena *arena;
  kmp_ro_item *it =
      (kmp_ro_item *)ro_pool.alloc(sizeof(kmp_ro_item) + nchunks, &arena);
  if (!it) {
    if (kind & KMP_RO_BLOCK)
      ro_unsplit_block_at(base & ~(pg - 1));
    return NULL;
  }
  it->arena = arena;
  it->lists = 0;
  it->base = base;
  it->end = end;
  it->mbase = base & ~(pg - 1);
  it->mend = (end + pg - 1) & ~(pg - 1);
  it->pbase = pbase;
  it->pend = pend;
  it->prot = prot;
  it->kind = kind;
  it->inode = v->inode;
  it->off_delta = v->offset - v->start;
  it->nchunks = nchunks;
  it->chunks = (unsigned char *)(it + 1);
  memset(it->chunks, (kind & KMP_RO_IMMUTABLE) ? KMP_RO_CLOSED : KMP_RO_OPEN,
         nchunks);
  KMP_DEBUG_ASSERT(it->mbase <= it->pbase && it->pbase <= it->pend &&
                   it->pend <= it->mend);
  KMP_DEBUG_ASSERT(nchunks * __kmp_ro_chunk_bytes() >= it->pend - it->pbase);
  it->home = __kmp_pt_num_nodes > 1 ? ro_home(it->mbase, it->mend) : 0;
  // A write to its file changes it (__kmp_ro_file_write): the I/O wrappers
  // look at what a write() writes to only while such an item is cached.
  ro_track(it);
  if (__kmp_ro_table.publish(&it, 1) != 0) { // no memory: not cached
    ro_untrack(it);
    ro_unsplit_block(it);
    ro_pool.free(it->arena);
    return NULL;
  }
  __kmp_ro_table.settle();
  if (ro_file_backed(it) && ro_file_items++ == 0)
    __kmp_pt_set_file_watched(__kmp_ro_engine_id, 1);
  return it;
}

// What [base, end) is: 0 with *prot, *kind and its first VMA, or an errno.
// stacks: the calling thread's stack and those of the threads the runtime
// knows.
static int ro_classify(uintptr_t base, uintptr_t end, const kmp_pt_vma *v,
                       int n, const kmp_pt_range *stacks, int nstacks,
                       int *prot, int *kind, const kmp_pt_vma **first) {
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  uintptr_t mb = base & ~(pg - 1), me = (end + pg - 1) & ~(pg - 1);
  int j = 0, w = 0, r = 0, file = 1;
  *kind = 0;
  *first = NULL;
  for (uintptr_t a = mb; a < me;) {
    const kmp_pt_vma *m = ro_vma(v, n, &j, a);
    if (!m)
      return EFAULT;
    if (!*first)
      *first = m;
    if (!(m->prot & PROT_READ) || (m->prot & PROT_EXEC))
      return EACCES;
    (m->prot & PROT_WRITE ? w : r) = 1;
    file &= m->inode != 0;
    if (m->shared)
      *kind |= KMP_RO_SHARED;
    if (m->stack)
      *kind |= KMP_RO_NOKEEP;
    a = m->end;
  }
  if (w && r)
    return EACCES; // partly read-only: not one kind of memory
  // Pages of the engine's own (the items, which the fault path writes, and
  // the replicas; a range inside a replica was translated by the caller):
  // never protected.
  for (const kmp_pt_arena *a = ro_pool.arenas; a; a = a->next)
    if (mb < (uintptr_t)a + a->map_bytes && me > (uintptr_t)a)
      return EINVAL;
  int mine = 0;
  __kmp_ro_copies.enter();
  kmp_pt_index<kmp_ro_copy>::each(__kmp_ro_copies.get(), mb, me,
                                  [&](kmp_ro_copy *) { mine = 1; });
  __kmp_ro_copies.leave();
  if (mine)
    return EINVAL;
  // On a thread's stack, its pages are reused by other frames later: only
  // protected while a region lists it.
  for (int i = 0; i < nstacks; i++)
    if (mb < stacks[i].end && me > stacks[i].start)
      *kind |= KMP_RO_NOKEEP;
  *prot = w ? PROT_READ | PROT_WRITE : PROT_READ;
  if (!w)
    *kind |= file ? KMP_RO_IMMUTABLE : KMP_RO_IMMUTABLE | KMP_RO_NOKEEP;
  return 0;
}

// Move the pages of [s, e) that left the item's home node back there (pages
// already there stay; pages never touched are not made).  A write may move
// a page of the original: a kernel that copies an exclusively owned page at
// a write fault (Linux 5.10 copies one that still has an extra reference,
// e.g. from a per-CPU LRU batch after a migration) allocates the copy on the
// writer's node, and the home node's threads would read it remotely.
static void ro_rehome(const kmp_ro_item *it, uintptr_t s, uintptr_t e) {
  enum { CHUNK = 512 };
  void *pages[CHUNK];
  int nodes[CHUNK], status[CHUNK];
  for (uintptr_t a = s; a < e;) {
    int k = 0;
    for (; k < CHUNK && a < e; k++, a += __kmp_pt_page) {
      pages[k] = (void *)a;
      nodes[k] = it->home;
    }
    __kmp_pt_move_pages(k, pages, nodes, status, MPOL_MF_MOVE);
  }
}

// Close the open chunks of it (a region starts): write-protected.  Pages a
// serial write opened go back to the home node.
static void ro_close(kmp_ro_item *it) {
  int rehome = it->home >= 0 && __kmp_pt_num_nodes > 1 &&
               __atomic_exchange_n(&it->written, 0, __ATOMIC_ACQ_REL);
  for (size_t c = 0; c < it->nchunks;) {
    while (__atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE) == KMP_RO_OPENING)
      sched_yield(); // a serial write's fault is opening it
    if (__atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE) != KMP_RO_OPEN) {
      c++;
      continue;
    }
    size_t e = c;
    while (e < it->nchunks &&
           __atomic_load_n(&it->chunks[e], __ATOMIC_ACQUIRE) == KMP_RO_OPEN)
      __atomic_store_n(&it->chunks[e++], KMP_RO_CLOSED, __ATOMIC_SEQ_CST);
    uintptr_t s0, e0, s1, e1;
    __kmp_ro_chunk_range(it, c, &s0, &e0);
    __kmp_ro_chunk_range(it, e - 1, &s1, &e1);
    int rc = __kmp_pt_mprotect((void *)s0, e1 - s0, PROT_READ);
    if (rc == 0 && rehome)
      ro_rehome(it, s0, e1);
    if (rc != 0) {
      // Out of VMAs, or memory protected only in larger units (hugetlb):
      // not trapped, so written unseen, and copied again at every region.
      // A call over several mappings may have protected the first ones
      // before a split failed: those are opened again (merging, so this
      // cannot run out of VMAs), or a write to them would find an open
      // chunk and fault for ever.
      if (__kmp_pt_mprotect((void *)s0, e1 - s0, it->prot) != 0)
        __kmp_pt_mprotect_mapped(s0, e1, it->prot);
      for (size_t k = c; k < e; k++)
        __atomic_store_n(&it->chunks[k], KMP_RO_OPEN, __ATOMIC_RELEASE);
      __kmp_ro_mark_dirty(it, c, e);
      __atomic_fetch_or(&it->kind, KMP_RO_NOKEEP | KMP_RO_UNPROTECTED,
                        __ATOMIC_ACQ_REL);
    }
    c = e;
  }
}

// May it have replicas?  Reserves the budget for one per node that may
// need one, evicting the least recently used items if that makes room.
int __kmp_ro_reserve(kmp_ro_item *it, const kmp_pt_vma *v, int nv) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && it->users > 0);
  KMP_DEBUG_ASSERT(!it->replicable == !it->reserved);
  if (it->replicable)
    return 1;
  size_t nodes = __kmp_pt_num_nodes > 1 ? __kmp_pt_num_nodes : 1;
  if (nodes > 1 && it->home >= 0 && !__kmp_readonly_force)
    nodes--;
  size_t need = (it->mend - it->mbase) * nodes,
         budget = __kmp_readonly_budget_bytes();
  if (need / nodes != it->mend - it->mbase || need > budget)
    return 0;
  if (__kmp_ro_reserved + need > budget)
    __kmp_ro_lists_touch();
  while (__kmp_ro_reserved + need > budget) {
    kmp_ro_item *old = ro_lru(1, it);
    if (!old)
      return 0;
    ro_drop(old, v, nv);
  }
  __kmp_ro_reserved += need;
  it->reserved = need;
  it->replicable = 1;
  return 1;
}

// The original's bytes that [*base, *end) shows if it lies in a replica of
// a cached item (a nested region lists what its enclosing region gave it):
// *base and *end translated.
static void ro_translate(uintptr_t *base, uintptr_t *end) {
  __kmp_ro_copies.enter();
  kmp_ro_copy *c =
      kmp_pt_index<kmp_ro_copy>::find(__kmp_ro_copies.get(), *base);
  if (c) {
    kmp_ro_item *it = c->item;
    uintptr_t m = (uintptr_t)it->rep[c->node].map;
    if (m && *base >= m && *end <= m + (it->mend - it->mbase)) {
      *base = it->mbase + (*base - m);
      *end = it->mbase + (*end - m);
    }
  }
  __kmp_ro_copies.leave();
}

// The cached item of exactly [base, end), or NULL.
static kmp_ro_item *ro_cached(uintptr_t base, uintptr_t end) {
  kmp_ro_item *it = kmp_pt_index<kmp_ro_item>::find(__kmp_ro_table.get(), base);
  return it && it->base == base && it->end == end ? it : NULL;
}

kmp_ro_item *__kmp_ro_enter(uintptr_t *pbase, uintptr_t *pend,
                            const kmp_pt_vma *v, int nv,
                            const kmp_pt_range *stacks, int nstacks, int *err) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && *pbase < *pend);
  // An item cached as it is given is an original (no item lies in the
  // engine's memory): only other ranges are looked for in the replicas, a
  // walk over every replica of every item.
  kmp_ro_item *it = ro_cached(*pbase, *pend);
  if (!it) {
    ro_translate(pbase, pend);
    it = ro_cached(*pbase, *pend);
  }
  uintptr_t base = *pbase, end = *pend;
  if (it && !__kmp_ro_in_use(it) &&
      ((__atomic_load_n(&it->kind, __ATOMIC_ACQUIRE) & KMP_RO_STALE) ||
       !ro_still_ours(it, v, nv))) {
    // Changed by the kernel without a fault, unmapped, re-mapped or
    // re-protected since: dropped; the maps may have changed then (the
    // caller reads them again).
    ro_drop(it, v, nv);
    *err = EAGAIN;
    return NULL;
  }
  // Inside an item a running region holds (a nested region lists part of
  // it): that item serves it.
  if (!it) {
    kmp_ro_item *o =
        kmp_pt_index<kmp_ro_item>::find(__kmp_ro_table.get(), base);
    if (o && __kmp_ro_in_use(o) && o->base <= base && end <= o->end)
      it = o;
  }
  if (!it) {
    // A different item over the same bytes: dropped, unless a region uses
    // it.  The maps have changed then: the caller reads them again.
    int n, busy = 0;
    kmp_ro_item **over = ro_collect(base, end, &n, [&](kmp_ro_item *o) {
      busy |= __kmp_ro_in_use(o);
      return true;
    });
    for (int i = 0; i < n && !busy; i++)
      ro_drop(over[i], v, nv);
    if (over)
      __kmp_free(over);
    if (busy) {
      *err = EBUSY;
      return NULL;
    }
    if (n) {
      *err = EAGAIN;
      return NULL;
    }
    int prot, kind;
    const kmp_pt_vma *first;
    *err = ro_classify(base, end, v, nv, stacks, nstacks, &prot, &kind, &first);
    if (*err)
      return NULL;
    it = ro_new(base, end, prot, kind, first);
    if (!it) {
      *err = ENOMEM;
      return NULL;
    }
  }
  // Tracked in the parent of this fork(2) child: what was written unseen
  // since the parent last asked its written bits cannot be known here, so
  // every replica copies all of it again, and the item is tracked anew with
  // the child's own descriptor.
  if (it->tracked == KMP_RO_RETRACK) {
    it->tracked = 0;
    if (it->nchunks)
      __kmp_ro_mark_dirty(it, 0, it->nchunks);
    for (int n = 0; n < KMP_RO_MAX_NODES; n++)
      __atomic_store_n(&it->rep[n].edges_written, 1, __ATOMIC_RELEASE);
    ro_track(it);
  }
  __atomic_fetch_add(&it->users, 1, __ATOMIC_SEQ_CST);
  if (!(it->kind & KMP_RO_DEMOTED))
    ro_close(it);
  return it;
}

// Drop the cached items that no region uses and whose bytes (or, with
// `pages`, protected pages) meet [start, end) (everything if start == end).
// EBUSY if some were in use.  Under __kmp_ro_lock.
int __kmp_ro_release(uintptr_t start, uintptr_t end, int pages) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && start <= end);
  int rc = 0;
  kmp_pt_vma *v = NULL;
  int nv = -1, n;
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  kmp_ro_item **its = ro_collect(
      start == end ? 0 : (start > pg ? start - pg : 0),
      start == end ? UINTPTR_MAX
                   : (end < UINTPTR_MAX - pg ? end + pg : UINTPTR_MAX),
      &n, [&](kmp_ro_item *it) {
        uintptr_t s = pages ? it->pbase : it->base,
                  e = pages ? it->pend : it->end;
        if (start != end && (e <= start || s >= end || s == e))
          return false;
        if (__kmp_ro_in_use(it)) {
          rc = EBUSY;
          return false;
        }
        return true;
      });
  for (int i = 0; i < n; i++) {
    if (nv < 0)
      nv = __kmp_pt_read_maps(&v, 0);
    ro_drop(its[i], nv < 0 ? NULL : v, nv);
  }
  if (its)
    __kmp_free(its);
  if (v)
    __kmp_pt_free_maps(v);
  return rc;
}

// Drop the items no region uses whose pages are no longer all mapped (the
// program unmapped them, or free() gave them back to the system): their
// replicas are freed now rather than when the budget or the table needs
// room.  v: the maps of a region start.
void __kmp_ro_drop_gone(const kmp_pt_vma *v, int nv) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock));
  int n;
  kmp_ro_item **gone = ro_collect(0, UINTPTR_MAX, &n, [&](kmp_ro_item *it) {
    if (__kmp_ro_in_use(it))
      return false;
    int j;
    uintptr_t a = it->mbase;
    const kmp_pt_vma *m = ro_vma_find(v, nv, &j, a);
    while (m && m->end < it->mend) {
      a = m->end;
      m = ro_vma(v, nv, &j, a);
    }
    return !m;
  });
  for (int i = 0; i < n; i++)
    ro_drop(gone[i], v, nv);
  if (gone)
    __kmp_free(gone);
}

// A run [s, e) of pages the kernel's written bits found written: the
// chunks of each tracked item there are copied again before a replica's next
// use, and its edges compared (a write by the program to a closed chunk
// faulted and opened it already: marked dirty again, nothing more).
static void ro_written(void *arg, uintptr_t s, uintptr_t e) {
  (void)arg;
  __kmp_ro_each_near(s, e, [&](kmp_ro_item *it) {
    if (!__kmp_ro_tracked(it) || it->mend <= s || it->mbase >= e)
      return;
    uintptr_t cs = s > it->pbase ? s : it->pbase,
              ce = e < it->pend ? e : it->pend;
    if (cs < ce)
      __kmp_ro_mark_dirty(it, (cs - it->pbase) / __kmp_ro_chunk_bytes(),
                          (ce - it->pbase - 1) / __kmp_ro_chunk_bytes() + 1);
    if (it->pbase >= it->pend || s < it->pbase || e > it->pend) {
      int nodes = __atomic_load_n(&__kmp_ro_node_hwm, __ATOMIC_ACQUIRE);
      for (int n = 0; n < nodes; n++)
        __atomic_store_n(&it->rep[n].edges_written, 1, __ATOMIC_RELEASE);
    }
    KA_TRACE(30, ("ro_written: [%p, %p) in item [%p, %p)\n", (void *)s,
                  (void *)e, (void *)it->base, (void *)it->end));
  });
}

void __kmp_ro_scan_written(uintptr_t lo, uintptr_t hi) {
  KMP_DEBUG_ASSERT(lo < hi);
  if (__kmp_pt_written_scan(lo, hi, ro_written, NULL) != 0)
    ro_written(NULL, lo, hi); // not known: all of it may have been written
}

#endif // KMP_PAGETRAP_SUPPORTED
