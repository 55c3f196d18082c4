/*
 * kmp_readonly_replica.cpp -- readonly(list): the per-node replicas of list
 * items.
 *
 * Does not run in a signal handler.  __kmp_ro_replica runs in parallel
 * regions: the first thread of a node that asks for an item's pointer in a
 * region prepares the node's replica (makes it, or copies again what was
 * written since its last use) while the node's other threads wait; the
 * nodes prepare theirs in parallel, each copying into its own memory.
 * __kmp_ro_free_replicas runs under __kmp_ro_lock when an item is dropped;
 * the fork(2) functions in the child's atfork handler.
 *
 * A replica is one private mapping: a dirty byte per chunk of the item (set
 * by the fault path when a write between regions opens the chunk), then a
 * copy of the pages that hold the item (then a page that keeps it apart),
 * bound to the node (mbind MPOL_PREFERRED before the pages exist) and
 * read-only, so that a write through a replica pointer is trapped like a
 * write to the original.  The replica of byte b of the item is at
 * map + (b - mbase): same offset in the page as the original, so every
 * alignment up to a page is kept.  Between
 * regions what may change unseen is inaccessible in the copy (its edge
 * pages; all of it if it is small, was written in the region, or its item
 * is unprotected or stale; kmp_readonly_fault.cpp closes them), a chunk
 * written between regions is hidden in every copy, and a dropped copy's
 * addresses stay reserved (a grave): a pointer into a copy that the program
 * kept from a region is stopped with a message naming the item, never
 * served stale.
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
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif

int __kmp_ro_thread_node() {
  int n = __kmp_pt_node_of_current_cpu();
  if (n < 0 && __kmp_readonly_force)
    n = 0;
  return n < KMP_RO_MAX_NODES ? n : -1;
}

static size_t ro_round_page(size_t b) {
  return (b + __kmp_pt_page - 1) & ~((size_t)__kmp_pt_page - 1);
}

// Copy [s, e) of the original into the replica m, whose pages there are
// writable meanwhile.  Returns 0, or -1 if the pages could not be made
// writable (nothing is copied then: the copy is never written read-only).
static int ro_copy(const kmp_ro_item *it, char *m, uintptr_t s, uintptr_t e) {
  if (s >= e)
    return 0;
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  uintptr_t ps = s & ~(pg - 1), pe = (e + pg - 1) & ~(pg - 1);
  char *w = m + (ps - it->mbase);
  if (__kmp_pt_mprotect(w, pe - ps, PROT_READ | PROT_WRITE) != 0) {
    // Out of VMAs (vm.max_map_count): part of the copy would be a mapping
    // of its own.  The whole copy splits nothing: it is mappings of its own
    // already (ro_make).  What remains is the commit limit
    // (vm.overcommit_memory=2) refusing writable pages.
    w = m;
    ps = it->mbase;
    pe = it->mend;
    if (__kmp_pt_mprotect(w, pe - ps, PROT_READ | PROT_WRITE) != 0)
      return -1;
  }
  memcpy(m + (s - it->mbase), (const void *)s, e - s);
  __kmp_pt_mprotect(w, pe - ps, PROT_READ);
  return 0;
}

// A mapping of the engine's at [p, p + bytes) may lie where a cached item
// was unmapped unseen (the C library's free()): such an item is gone, and is
// marked stale, so that its next region start drops it rather than takes
// bytes of this mapping for it (__kmp_ro_enter looks for cached items
// before it looks in the replicas).
static void ro_mark_gone(const char *p, size_t bytes) {
  uintptr_t a = (uintptr_t)p, e = a + bytes;
  __kmp_ro_table.enter();
  kmp_pt_index<kmp_ro_item>::each(
      __kmp_ro_table.get(), a, e, [](kmp_ro_item *it) {
        __atomic_fetch_or(&it->kind, KMP_RO_STALE, __ATOMIC_ACQ_REL);
        __kmp_ro_changed();
      });
  __kmp_ro_table.leave();
}

// A new replica of it on node: NULL if there is no memory for it, or no
// mapping left (vm.max_map_count) for its copy to be one apart.
//
// The mapping is [dirty bytes][copy][one page], the pages around the copy
// never protected and without the copy's memory policy: so the copy never
// merges with a neighbouring mapping (another copy of the node, whose
// policy is the same), and a protection change over the whole copy never
// splits a mapping, also at vm.max_map_count.  The last page is never
// touched: address space, not memory.
static char *ro_make(kmp_ro_item *it, kmp_ro_replica *r, int node) {
  size_t db = ro_round_page(it->nchunks ? it->nchunks : 1),
         rb = it->mend - it->mbase, tail = __kmp_pt_page;
  char *p = (char *)__kmp_pt_private_alloc(db + rb + tail);
  if (!p)
    return NULL;
  ro_mark_gone(p, db + rb + tail);
  char *m = p + db;
  // The pages go to node whichever CPU the copying thread runs on; if the
  // node is full, elsewhere (MPOL_PREFERRED) rather than failing.
  unsigned long mask[KMP_PT_MASK_WORDS];
  memset(mask, 0, sizeof mask);
  mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
  if (__kmp_pt_mbind(m, rb, MPOL_PREFERRED, mask, KMP_PT_MAXNODE, 0) != 0 &&
      errno == ENOMEM) {
    __kmp_pt_private_free(p, db + rb + tail);
    return NULL;
  }
  // Allocate the pages in one call rather than one fault each.
  madvise(m, rb, MADV_POPULATE_WRITE);
  r->edges_written = 0;
  memcpy(m + (it->base - it->mbase), (const void *)it->base,
         it->end - it->base);
  // A copy that cannot be protected would not stop a write through it.
  if (__kmp_pt_mprotect(m, rb, PROT_READ) != 0) {
    __kmp_pt_private_free(p, db + rb + tail);
    return NULL;
  }
  // Where it is, before anybody may hold a pointer into it.
  r->where = {(uintptr_t)p, (uintptr_t)p + db + rb + tail, it, node};
  kmp_ro_copy *where = &r->where;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_copies_lock);
  int rc = __kmp_ro_copies.publish(&where, 1);
  __kmp_ro_copies.settle();
  __kmp_release_bootstrap_lock(&__kmp_ro_copies_lock);
  if (rc != 0) {
    __kmp_pt_private_free(p, db + rb + tail);
    return NULL;
  }
  r->dirty = (unsigned char *)p;
  r->map_bytes = db + rb + tail;
  // The fault path looks at nodes below __kmp_ro_node_hwm: raise it first.
  int hwm = __atomic_load_n(&__kmp_ro_node_hwm, __ATOMIC_ACQUIRE);
  while (hwm <= node &&
         !__atomic_compare_exchange_n(&__kmp_ro_node_hwm, &hwm, node + 1, false,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    ;
  __atomic_store_n(&r->map, m, __ATOMIC_SEQ_CST);
  // A chunk open now (opened in this region for a write to bytes of its
  // pages that are not the item's) may be written unseen until the next
  // region start closes it: stale in this copy from then on.  Its opener
  // marked the copies that existed (__kmp_ro_mark_dirty, after its claim);
  // this one is marked here, after it is published: one of the two sees
  // the other.
  for (size_t c = 0; c < it->nchunks; c++)
    if (__atomic_load_n(&it->chunks[c], __ATOMIC_SEQ_CST) != KMP_RO_CLOSED)
      __atomic_store_n(&r->dirty[c], 1, __ATOMIC_RELEASE);
  return m;
}

// Bring the replica r up to date: the chunks written since its last use,
// and the item's bytes on the pages it shares with other data (they are not
// protected: compared, copied if they differ; for an item the kernel's
// written bits track, only if those pages were written since).  Adds the
// bytes copied to *copied; returns -1 if a part could not be copied (it
// stays marked, for the next region to try again).
static int ro_refresh(kmp_ro_item *it, kmp_ro_replica *r, size_t *copied) {
  char *m = r->map;
  int rc = 0;
  for (size_t c = 0; c < it->nchunks;) {
    if (!__atomic_load_n(&r->dirty[c], __ATOMIC_ACQUIRE)) {
      c++;
      continue;
    }
    size_t e = c;
    while (e < it->nchunks && __atomic_load_n(&r->dirty[e], __ATOMIC_ACQUIRE))
      __atomic_store_n(&r->dirty[e++], 0, __ATOMIC_RELEASE);
    uintptr_t s0, e0, s1, e1;
    __kmp_ro_chunk_range(it, c, &s0, &e0);
    __kmp_ro_chunk_range(it, e - 1, &s1, &e1);
    if (ro_copy(it, m, s0, e1) == 0) {
      *copied += e1 - s0;
    } else {
      for (size_t k = c; k < e; k++)
        __atomic_store_n(&r->dirty[k], 1, __ATOMIC_RELEASE);
      rc = -1;
    }
    c = e;
  }
  uintptr_t edge[2][2] = {{it->base, it->pbase}, {it->pend, it->end}};
  if (it->pbase >= it->pend) { // no whole page: it is all edge
    edge[0][1] = it->end;
    edge[1][0] = edge[1][1] = 0;
  }
  if (__kmp_ro_tracked(it) &&
      !__atomic_exchange_n(&r->edges_written, 0, __ATOMIC_ACQ_REL))
    return rc;
  for (int i = 0; i < 2; i++) {
    uintptr_t s = edge[i][0], e = edge[i][1];
    if (s >= e || memcmp(m + (s - it->mbase), (const void *)s, e - s) == 0)
      continue;
    if (ro_copy(it, m, s, e) == 0) {
      *copied += e - s;
    } else {
      __atomic_store_n(&r->edges_written, 1, __ATOMIC_RELEASE);
      rc = -1;
    }
  }
  return rc;
}

// Make r ready for a region: 0, or -1 if the region reads the original
// (no memory for a copy, or the copy could not be made current).
static int ro_prepare(kmp_ro_item *it, kmp_ro_replica *r, int node) {
  kmp_uint64 t0 = __kmp_pt_now_ns();
  int closed =
      r->map ? __atomic_load_n(&r->closed, __ATOMIC_ACQUIRE) : KMP_RO_COPY_OPEN;
  int rc = 0;
  if (closed == KMP_RO_COPY_CLOSED)
    rc = __kmp_pt_mprotect(r->map, it->mend - it->mbase, PROT_READ);
  else if (closed == KMP_RO_COPY_EDGES)
    rc = __kmp_ro_protect_edges(it, r->map, PROT_READ);
  if (rc != 0) {
    // Opening pages of a copy changes protection over whole mappings of
    // its own (ro_make): refused only if the kernel is out of memory.  The
    // copy stays closed; this region reads the original.
    KMP_RO_ADD(readonly_fallback_budget, 1);
    return -1;
  }
  if (closed != KMP_RO_COPY_OPEN)
    __atomic_store_n(&r->closed, KMP_RO_COPY_OPEN, __ATOMIC_RELEASE);
  if (!r->map) {
    if (!ro_make(it, r, node)) {
      KMP_RO_ADD(readonly_fallback_budget, 1); // no memory: the original
      return -1;
    }
    KMP_RO_ADD(readonly_replicas, 1);
    KMP_RO_ADD(readonly_bytes_replicated, it->end - it->base);
  } else {
    size_t copied = 0;
    rc = ro_refresh(it, r, &copied);
    if (copied) {
      KMP_RO_ADD(readonly_refreshes, 1);
      KMP_RO_ADD(readonly_bytes_replicated, copied);
    } else if (rc == 0) {
      KMP_RO_ADD(readonly_replicas_reused, 1);
    }
    if (rc != 0)
      KMP_RO_ADD(readonly_fallback_budget, 1);
  }
  KMP_RO_ADD(readonly_replica_ns, __kmp_pt_now_ns() - t0);
  return rc;
}

char *__kmp_ro_replica(kmp_ro_item *it, int node, kmp_uint64 act) {
  KMP_DEBUG_ASSERT(node >= 0 && node < KMP_RO_MAX_NODES && __kmp_ro_in_use(it));
  KMP_DEBUG_ASSERT(it->replicable && !(it->kind & KMP_RO_SHARED));
  kmp_ro_replica *r = &it->rep[node];
  for (int spins = 0;;) {
    if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) == act)
      return __atomic_load_n(&r->usable, __ATOMIC_ACQUIRE) ? r->map : NULL;
    int idle = 0;
    if (__atomic_compare_exchange_n(&r->busy, &idle, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) != act) {
        int ok = ro_prepare(it, r, node) == 0;
        __atomic_store_n(&r->usable, ok, __ATOMIC_RELEASE);
        __atomic_store_n(&r->ready, act, __ATOMIC_RELEASE);
      }
      __atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
      continue; // as any other thread of the node
    }
    // Another thread of the node prepares it (copying may take a while).
    if (++spins < 1000)
      KMP_CPU_PAUSE();
    else
      sched_yield();
  }
}

// ---------------------------------------------------------------------------
// Graves: the addresses of dropped copies, reserved and inaccessible, with
// what the fault path says about them.  The oldest is freed when all are in
// use.

kmp_ro_grave *__kmp_ro_graves = NULL;
static int ro_next_grave = 0;

// The copy's mapping leaves __kmp_ro_copies (a fault there now finds its
// grave, or nothing).
static void ro_unlist(kmp_ro_replica *r) {
  __kmp_acquire_bootstrap_lock(&__kmp_ro_copies_lock);
  __kmp_ro_copies.remove(&r->where);
  __kmp_release_bootstrap_lock(&__kmp_ro_copies_lock);
}

static void ro_bury(kmp_ro_item *it, kmp_ro_replica *r, int node) {
  if (!__kmp_ro_graves)
    __kmp_ro_graves = (kmp_ro_grave *)__kmp_pt_private_alloc(
        ro_round_page(sizeof(kmp_ro_grave) * KMP_RO_GRAVES));
  if (!__kmp_ro_graves) {
    ro_unlist(r);
    __kmp_pt_private_free(r->dirty, r->map_bytes);
    return;
  }
  kmp_ro_grave *g = &__kmp_ro_graves[ro_next_grave];
  ro_next_grave = (ro_next_grave + 1) % KMP_RO_GRAVES;
  if (g->end) { // the oldest: freed once no fault path looks at it
    __atomic_store_n(&g->end, (uintptr_t)0, __ATOMIC_RELEASE);
    __kmp_ro_table.retire();
    __kmp_pt_private_free((void *)g->map_start, g->map_bytes);
  }
  __kmp_pt_private_retire(r->dirty, r->map_bytes);
  g->map_start = (uintptr_t)r->dirty;
  g->map_bytes = r->map_bytes;
  g->node = node;
  __kmp_ro_describe(it, &g->desc);
  g->start = (uintptr_t)r->map;
  __atomic_store_n(&g->end, (uintptr_t)r->map + (it->mend - it->mbase),
                   __ATOMIC_RELEASE);
  // The grave first: a fault there meanwhile finds one or the other.
  ro_unlist(r);
}

void __kmp_ro_free_replicas(kmp_ro_item *it) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && !__kmp_ro_in_use(it));
  for (int n = 0; n < KMP_RO_MAX_NODES; n++) {
    kmp_ro_replica *r = &it->rep[n];
    if (r->map)
      ro_bury(it, r, n);
    r->map = NULL;
    r->dirty = NULL;
    r->map_bytes = 0;
    r->ready = 0;
    r->usable = 0;
    r->busy = 0;
    r->closed = KMP_RO_COPY_OPEN;
    r->edges_written = 0;
  }
}

void __kmp_ro_replicas_atfork_child(kmp_ro_item *it) {
  for (int n = 0; n < KMP_RO_MAX_NODES; n++) {
    it->rep[n].busy = 0;
    it->rep[n].ready = 0;
  }
}

// The child's memory is its own: the code of the region it was forked in
// may write the replica it read (its copy of the item).  The mapping is not
// freed (that code may still use it) and no longer the engine's.
void __kmp_ro_replicas_disown(kmp_ro_item *it) {
  for (int n = 0; n < KMP_RO_MAX_NODES; n++) {
    kmp_ro_replica *r = &it->rep[n];
    if (r->map) {
      __kmp_pt_mprotect(r->map, it->mend - it->mbase, PROT_READ | PROT_WRITE);
      ro_unlist(r);
    }
    r->map = NULL;
    r->dirty = NULL;
    r->map_bytes = 0;
    r->ready = 0;
    r->usable = 0;
    r->busy = 0;
    r->closed = KMP_RO_COPY_OPEN;
  }
}

#endif // KMP_PAGETRAP_SUPPORTED
