/*
 * kmp_readonly_region.cpp -- readonly(list): region start and end, and the
 * lists remembered across regions.
 *
 * A region start finds each list item in the item cache
 * (kmp_readonly_items.cpp) against /proc/self/maps, closes what was
 * written since, reserves the budget, and asks the kernel's written bits
 * what changed unseen: work that grows with the items.  A list remembered
 * (up to KMP_RO_LISTS of them, by their pointers and lengths) is served as
 * it was when the same list starts a region again and nothing changed since:
 * the epoch (__kmp_ro_epoch: no chunk opened or marked, no item stale or
 * dropped), the fork count, and one PAGEMAP_SCAN that finds every item's pages
 * still registered with the written bits (not unmapped or mapped anew, also
 * by the C library's own munmap) and none written.  Only lists whose items
 * are quiet are remembered: pages all protected and tracked by the written
 * bits (Linux 6.7 on), no edges, no stack, KMP_READONLY_WRITES=fatal.  Then
 * the start is the list compared, a few loads and one system call, and
 * each thread copies its node's pointers, made once per node.
 *
 * Does not run in a signal handler.  Locks: __kmp_ro_lock for the item
 * table and the remembered lists.  See docs/Design.rst, "Region start".
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_readonly.h"

#include <string.h>
#if KMP_PAGETRAP_SUPPORTED
#include <pthread.h>
#include <stdlib.h>
#endif

// A region's list item, as the thread that starts it found it.
struct kmp_ro_entry {
  kmp_ro_item *item; // NULL: not handled, read from the original
  void *orig; // the item's address as given
  uintptr_t tbase; // the original's address of its first byte (orig, or
                   // what orig shows if it is in a replica)
  int replicate; // threads of other nodes get replicas
};
// One thread's answer to __kmpc_readonly_ptrs for one region.  It is the
// region instance's, not the thread's: the compiler keeps there the region's
// copies of the list's pointer variables, which the region's tasks read by
// address, also in the join barrier after the thread left the region's code,
// and which a nested or recursive instance on the same thread must not
// overwrite.  Freed when the region ends.
struct kmp_ro_ptrs {
  kmp_ro_ptrs *next;
  void *p[1];
};
struct kmp_ro_list;
// Node slots: the OS node + 1 (0: the thread's node is not known).
#define KMP_RO_NODE_SLOTS (KMP_RO_MAX_NODES + 1)
struct kmp_readonly_region {
  int n;
  kmp_uint64 act; // this activation, for the replicas' preparation
  kmp_uint64 forks; // __kmp_ro_forks when it started (a parent's region in a
                    // child)
  kmp_ro_entry *e; // its entries (a remembered list's if `list`)
  kmp_ro_list *list; // the remembered list it uses, or NULL
  int reused; // the list served as it was: no item entered
  kmp_ro_ptrs *ptrs; // the threads' answers, pushed by __kmpc_readonly_ptrs
  // Per node slot: every item's pointer for the node's threads (the list's,
  // or this region's own: own[x]), and whether the reuse was counted.
  void **volatile node[KMP_RO_NODE_SLOTS];
  unsigned char own[KMP_RO_NODE_SLOTS];
  volatile unsigned char counted[KMP_RO_NODE_SLOTS];
};

// A region's handle, its entries not yet made.
static kmp_readonly_region *ro_new_region(int n) {
  kmp_readonly_region *h =
      (kmp_readonly_region *)__kmp_allocate(sizeof(kmp_readonly_region));
  h->n = n;
  return h;
}

// Its own entries, every item read from the original until the start
// finds out more.
static kmp_readonly_region *ro_entries(kmp_readonly_region *h,
                                       void *const *ptrs) {
  h->e = (kmp_ro_entry *)__kmp_allocate(sizeof(kmp_ro_entry) *
                                        (h->n > 0 ? h->n : 1));
  for (int i = 0; i < h->n; i++)
    h->e[i].orig = ptrs[i];
  return h;
}

static void ro_free(kmp_readonly_region *h) {
  for (kmp_ro_ptrs *p = h->ptrs, *next; p; p = next) {
    next = p->next;
    __kmp_free(p);
  }
  for (int x = 0; x < KMP_RO_NODE_SLOTS; x++)
    if (h->own[x])
      __kmp_free(h->node[x]);
  if (!h->reused && h->e)
    __kmp_free(h->e);
  __kmp_free(h);
}

// This thread's answer: a copy of its node's pointers.
static void **ro_answer(kmp_readonly_region *h, void *const *p) {
  kmp_ro_ptrs *mine = (kmp_ro_ptrs *)__kmp_allocate(
      sizeof(kmp_ro_ptrs) + sizeof(void *) * (h->n > 0 ? h->n : 0));
  if (h->n > 0)
    memcpy(mine->p, p, sizeof(void *) * h->n);
  kmp_ro_ptrs *head = __atomic_load_n(&h->ptrs, __ATOMIC_RELAXED);
  do
    mine->next = head;
  while (!__atomic_compare_exchange_n(&h->ptrs, &head, mine, /*weak=*/true,
                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  return mine->p;
}

#if KMP_PAGETRAP_SUPPORTED

static volatile kmp_uint64 ro_acts = 0; // activations so far
volatile kmp_uint64 __kmp_ro_epoch = 1;
volatile kmp_uint32 __kmp_ro_lists_active = 0;

// ---------------------------------------------------------------------------
// Remembered lists

#define KMP_RO_LISTS 16 // bits of kmp_ro_item::lists
struct kmp_ro_list {
  int n; // 0: a free slot
  kmp_uint64 hash; // of loc, the pointers and the lengths
  const ident_t *loc;
  void **ptrs; // the list as given: n pointers, n lengths, n entries,
  size_t *lens; // one allocation
  kmp_ro_entry *e;
  kmp_pt_range *pages; // its items' pages, sorted and merged
  int npages;
  kmp_uint64 epoch; // __kmp_ro_epoch when it was made
  kmp_uint64 wepoch; // __kmp_pt_written_epoch then
  kmp_uint64 forks; // __kmp_ro_forks then
  int active; // regions running with it
  kmp_uint64 last_act; // the activation that used it last (LRU)
  // Per node slot, published once made complete: every item's pointer for
  // the node's threads, and how many of them are replicas.
  void **volatile node[KMP_RO_NODE_SLOTS];
  int replicas[KMP_RO_NODE_SLOTS];
};
// Under __kmp_ro_lock, but node[] (published by the regions' threads).
static kmp_ro_list ro_lists[KMP_RO_LISTS];

// A few of its pointers and lengths, to tell lists apart before they are
// compared whole.
static kmp_uint64 ro_list_hash(const ident_t *loc, int n, void *const *ptrs,
                               const size_t *lens) {
  kmp_uint64 h = 14695981039346656037ULL ^ (kmp_uint64)(uintptr_t)loc;
  int picks[3] = {0, n / 2, n - 1};
  for (int k = 0; k < 3; k++) {
    h = (h ^ (kmp_uint64)(uintptr_t)ptrs[picks[k]]) * 1099511628211ULL;
    h = (h ^ (kmp_uint64)lens[picks[k]]) * 1099511628211ULL;
  }
  return h ^ (kmp_uint64)n;
}

// The slot that remembers this list, or -1.
static int ro_list_find(kmp_uint64 hash, const ident_t *loc, int n,
                        void *const *ptrs, const size_t *lens) {
  for (int b = 0; b < KMP_RO_LISTS; b++) {
    kmp_ro_list *L = &ro_lists[b];
    if (L->n == n && L->hash == hash && L->loc == loc &&
        memcmp(L->ptrs, ptrs, sizeof(void *) * n) == 0 &&
        memcmp(L->lens, lens, sizeof(size_t) * n) == 0)
      return b;
  }
  return -1;
}

// May a list of it be served as it was while nothing changes?  Its pages
// are all protected and tracked, its chunks are opened only by faults or
// system calls that say so (__kmp_ro_changed), and nothing is done for it
// at a region's end.
static int ro_quiet(const kmp_ro_item *it) {
  int kind = __atomic_load_n(&it->kind, __ATOMIC_ACQUIRE);
  return !(kind & (KMP_RO_IMMUTABLE | KMP_RO_NOKEEP | KMP_RO_SHARED |
                   KMP_RO_DEMOTED | KMP_RO_STALE | KMP_RO_UNPROTECTED)) &&
         !__kmp_ro_has_edges(it) && __kmp_ro_tracked(it);
}

static void ro_list_leave(int b) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && ro_lists[b].active > 0);
  if (--ro_lists[b].active == 0)
    __atomic_fetch_and(&__kmp_ro_lists_active, ~(1u << b), __ATOMIC_SEQ_CST);
}

// Forget slot b (not in use): its items leave it.
static void ro_list_forget(int b) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock) && !ro_lists[b].active);
  kmp_ro_list *L = &ro_lists[b];
  if (!L->n)
    return;
  for (int i = 0; i < __kmp_ro_table.size(); i++)
    __atomic_fetch_and(&__kmp_ro_table.at(i)->lists, ~(1u << b),
                       __ATOMIC_ACQ_REL);
  for (int x = 0; x < KMP_RO_NODE_SLOTS; x++)
    if (L->node[x])
      __kmp_free(L->node[x]);
  __kmp_free(L->ptrs);
  __kmp_free(L->pages);
  memset(L, 0, sizeof *L);
}

// At the end of a region start (under __kmp_ro_lock): remember its list if
// every item of it is quiet, and mark it in use by h.
static void ro_list_remember(kmp_readonly_region *h, const ident_t *loc,
                             void *const *ptrs, const size_t *lens,
                             const int *codes) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock));
  int n = h->n;
  if (n <= 0 || __kmp_readonly_writes != kmp_readonly_writes_fatal)
    return;
  // The epoch before the items' state: a change after this is seen at the
  // next start, one before it in the state.
  kmp_uint64 epoch = __atomic_load_n(&__kmp_ro_epoch, __ATOMIC_SEQ_CST);
  for (int i = 0; i < n; i++)
    if (codes[i] || !lens[i] || !h->e[i].item || !ro_quiet(h->e[i].item))
      return;
  kmp_uint64 hash = ro_list_hash(loc, n, ptrs, lens);
  int b = ro_list_find(hash, loc, n, ptrs, lens);
  // Else a free slot, else the least recently used one not in use (a free
  // slot's last_act is 0).
  if (b < 0)
    for (int k = 0; k < KMP_RO_LISTS; k++)
      if (!ro_lists[k].active &&
          (b < 0 || ro_lists[k].last_act < ro_lists[b].last_act))
        b = k;
  if (b < 0 || ro_lists[b].active)
    return; // every slot is in use, or this list is (by another region)
  ro_list_forget(b);
  kmp_ro_list *L = &ro_lists[b];
  size_t bytes = (sizeof(void *) + sizeof(size_t) + sizeof(kmp_ro_entry)) * n;
  L->ptrs = (void **)__kmp_allocate(bytes);
  L->lens = (size_t *)(L->ptrs + n);
  L->e = (kmp_ro_entry *)(L->lens + n);
  memcpy(L->ptrs, ptrs, sizeof(void *) * n);
  memcpy(L->lens, lens, sizeof(size_t) * n);
  memcpy(L->e, h->e, sizeof(kmp_ro_entry) * n);
  L->pages = (kmp_pt_range *)__kmp_allocate(sizeof(kmp_pt_range) * n);
  for (int i = 0; i < n; i++) {
    kmp_ro_item *it = h->e[i].item;
    L->pages[i] = {it->mbase, it->mend};
    __atomic_fetch_or(&it->lists, 1u << b, __ATOMIC_ACQ_REL);
  }
  L->npages = (int)__kmp_pt_ranges_merge(L->pages, n);
  L->n = n;
  L->hash = hash;
  L->loc = loc;
  L->epoch = epoch;
  L->wepoch = __kmp_pt_written_epoch;
  L->forks = __kmp_ro_forks;
  L->last_act = h->act;
  L->active = 1;
  __atomic_fetch_or(&__kmp_ro_lists_active, 1u << b, __ATOMIC_SEQ_CST);
  h->list = L;
  KA_TRACE(20, ("ro_list_remember: slot %d, %d items, epoch %llu\n", b, n,
                (unsigned long long)epoch));
}

// Is L as it was made?
static int ro_list_current(const kmp_ro_list *L) {
  return L->epoch == __atomic_load_n(&__kmp_ro_epoch, __ATOMIC_SEQ_CST) &&
         L->wepoch == __kmp_pt_written_epoch && L->forks == __kmp_ro_forks;
}

// A region start with a remembered list, nothing changed since it was
// made: h uses it as it was.  0 if not (the start finds its items).
static int ro_list_begin(kmp_readonly_region *h, const ident_t *loc,
                         void *const *ptrs, const size_t *lens,
                         const int *codes) {
  int n = h->n;
  if (__kmp_readonly_writes != kmp_readonly_writes_fatal)
    return 0;
  // A list remembered has no error and no empty item: the same lengths
  // say that the lengths are fine, not that the caller found none wrong.
  if (__kmp_ro_first_code(codes, n))
    return 0;
  kmp_uint64 hash = ro_list_hash(loc, n, ptrs, lens);
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  int b = ro_list_find(hash, loc, n, ptrs, lens);
  kmp_ro_list *L = b < 0 ? NULL : &ro_lists[b];
  if (!L || !ro_list_current(L)) {
    __kmp_release_bootstrap_lock(&__kmp_ro_lock);
    return 0;
  }
  // In use first, then the epoch again: a thread that opens a chunk of one
  // of its items bumps the epoch first, then looks whether a region uses
  // the item (__kmp_ro_in_use): one of the two sees the other.
  if (L->active++ == 0)
    __atomic_fetch_or(&__kmp_ro_lists_active, 1u << b, __ATOMIC_SEQ_CST);
  L->last_act = h->act;
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  if (!ro_list_current(L) || !__kmp_pt_written_quiet(L->pages, L->npages)) {
    __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
    ro_list_leave(b);
    __kmp_release_bootstrap_lock(&__kmp_ro_lock);
    return 0;
  }
  h->list = L;
  h->e = L->e;
  h->reused = 1;
  KMP_RO_ADD(readonly_items, n);
  KMP_RO_ADD(readonly_regions, 1);
  KMP_RO_ADD(readonly_lists_reused, 1);
  KA_TRACE(10, ("ro_list_begin: slot %d as it was, %d items, activation "
                "%llu\n",
                b, n, (unsigned long long)h->act));
  return 1;
}

void __kmp_ro_lists_idle() {
  for (int b = 0; b < KMP_RO_LISTS; b++)
    ro_lists[b].active = 0;
  __kmp_ro_lists_active = 0;
}

void __kmp_ro_lists_touch() {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_ro_lock));
  for (int b = 0; b < KMP_RO_LISTS; b++) {
    kmp_ro_list *L = &ro_lists[b];
    if (!L->n || !ro_list_current(L))
      continue; // its items may be gone
    for (int i = 0; i < L->n; i++)
      if (L->e[i].item->last_use < L->last_act)
        L->e[i].item->last_use = L->last_act;
  }
}

// ---------------------------------------------------------------------------
// Region start

// The stacks of the threads the runtime knows, on which a region may list
// items: the calling thread's (guard included), its workers' (known
// exactly) and its other root threads' (asked of the C library; the initial
// thread's is the [stack] VMA, which the maps v mark).  *out is allocated
// with __kmp_allocate; returns their number.
// Under __kmp_forkjoin_lock (no thread is reaped meanwhile), taken before
// __kmp_ro_lock as at shutdown, where __kmp_cleanup drops the items with it
// held.
static int ro_thread_stacks(kmp_pt_range **out, const kmp_pt_vma *v, int nv) {
  *out = NULL;
  if (!TCR_4(__kmp_init_serial))
    return 0;
  int k = 0;
  __kmp_acquire_bootstrap_lock(&__kmp_forkjoin_lock);
  int cap = __kmp_threads ? __kmp_threads_capacity : 0;
  kmp_pt_range *r =
      (kmp_pt_range *)__kmp_allocate(sizeof(kmp_pt_range) * (cap + 1));
  __kmp_pt_my_stack(&r[k].start, &r[k].end, v, nv);
  k++;
  for (int i = 0; i < cap; i++) {
    kmp_info_t *th = __kmp_threads[i];
    if (!th)
      continue;
    kmp_desc_base_t *ds = &th->th.th_info.ds;
    uintptr_t top = (uintptr_t)TCR_PTR(ds->ds_stackbase);
    size_t size = (size_t)TCR_PTR(ds->ds_stacksize);
    if (!TCR_4(ds->ds_stackgrow) && size && top > size) {
      r[k++] = {top - size, top};
      continue;
    }
    // A root thread, whose stack the runtime only estimates from inside.
    int main_stack = 0;
    for (int j = 0; j < nv && !main_stack; j++)
      main_stack = v[j].stack && v[j].start < top && top <= v[j].end;
    if (main_stack || !top)
      continue;
    pthread_attr_t attr;
    void *addr;
    size_t sz;
    if (pthread_getattr_np(ds->ds_thread, &attr) != 0)
      continue;
    if (pthread_attr_getstack(&attr, &addr, &sz) == 0 && sz)
      r[k++] = {(uintptr_t)addr, (uintptr_t)addr + sz};
    pthread_attr_destroy(&attr);
  }
  __kmp_release_bootstrap_lock(&__kmp_forkjoin_lock);
  *out = r;
  return k;
}

// The maps read again (under __kmp_ro_lock) because the engine dropped
// items since *v was read; *drops: the drops they include.
static int ro_read_maps_again(kmp_pt_vma **v, kmp_uint64 *drops) {
  if (*v)
    __kmp_pt_free_maps(*v);
  *v = NULL;
  *drops = __atomic_load_n(&__kmp_ro_drops, __ATOMIC_ACQUIRE);
  return __kmp_pt_read_maps(v, 0);
}

kmp_readonly_region *__kmp_ro_begin(ident_t *loc, int n, void *const *ptrs,
                                    const size_t *lens,
                                    const char *const *names, int *codes) {
  kmp_readonly_region *h = ro_new_region(n);
  h->act = __atomic_add_fetch(&ro_acts, 1, __ATOMIC_ACQ_REL);
  h->forks = __kmp_ro_forks;
  if (!__kmp_readonly || n <= 0)
    return ro_entries(h, ptrs); // every item read from the original
  __kmp_ro_initialize();
  // The same list as a region before, nothing changed since: as it was.
  if (ro_list_begin(h, loc, ptrs, lens, codes))
    return h;
  int any = 0;
  for (int i = 0; i < n; i++) {
    uintptr_t s, e;
    if (codes[i] || !lens[i])
      continue; // an error found by the caller, or nothing to do
    int rc = __kmp_pt_check_args(ptrs[i], lens[i], &s, &e);
    if (rc > 0)
      codes[i] = rc;
    else
      any = 1;
  }
  ro_entries(h, ptrs);
  if (!any)
    return h;
  // Before __kmp_ro_lock: what another engine holds there is given up (a
  // next-touch request is dropped, armed pages stay where they are), and
  // the handler is first.
  for (int i = 0; i < n; i++)
    if (!codes[i] && lens[i]) {
      uintptr_t pg = (uintptr_t)__kmp_pt_page, p = (uintptr_t)ptrs[i];
      __kmp_pt_yield(__kmp_ro_engine_id, p & ~(pg - 1),
                     (p + lens[i] + pg - 1) & ~(pg - 1));
    }
  __kmp_pt_install_handler();
  __kmp_pt_set_watched(__kmp_ro_engine_id, 1); // before anything is protected

  // The maps, read before the lock (it is held for as short as possible);
  // again under it if items were dropped since (their pages changed).
  kmp_pt_vma *v = NULL;
  kmp_uint64 drops = __atomic_load_n(&__kmp_ro_drops, __ATOMIC_ACQUIRE);
  int nv = __kmp_pt_read_maps(&v, 0);
  kmp_pt_range *stacks = NULL;
  int nstacks = nv < 0 ? 0 : ro_thread_stacks(&stacks, v, nv);
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  if (nv >= 0 && __atomic_load_n(&__kmp_ro_drops, __ATOMIC_ACQUIRE) != drops)
    nv = ro_read_maps_again(&v, &drops);
  if (nv >= 0)
    __kmp_ro_drop_gone(v, nv);
  int handled = 0;
  for (int i = 0; i < n; i++) {
    if (codes[i] || !lens[i])
      continue;
    uintptr_t s = (uintptr_t)ptrs[i], e = s + lens[i];
    kmp_ro_item *it = NULL;
    // A drop (of an item evicted for an earlier item of this list, of one
    // the program changed) makes the maps out of date for its pages, which
    // may be this item's.
    for (int tries = 0; tries < 4 && !it; tries++) {
      if (nv >= 0 &&
          __atomic_load_n(&__kmp_ro_drops, __ATOMIC_ACQUIRE) != drops)
        nv = ro_read_maps_again(&v, &drops);
      if (nv < 0) {
        codes[i] = ENOMEM;
        break;
      }
      codes[i] = 0;
      it = __kmp_ro_enter(&s, &e, v, nv, stacks, nstacks, &codes[i]);
      if (!it && codes[i] != EAGAIN)
        break;
    }
    if (!it)
      continue;
    h->e[i].item = it;
    h->e[i].tbase = s;
    if (s == it->base && e == it->end) { // not a part of a larger item
      it->psource = loc ? loc->psource : NULL;
      it->name = names ? names[i] : NULL;
      it->index = i;
    }
    it->last_use = h->act;
    handled++;
    KMP_RO_ADD(readonly_items, 1);
    // Who reads the original: everybody, or the home node's threads.
    if (__kmp_readonly_writes == kmp_readonly_writes_warn ||
        (it->kind & KMP_RO_DEMOTED))
      continue; // writes may happen: nobody may read a copy
    if (it->kind & KMP_RO_SHARED)
      KMP_RO_ADD(readonly_fallback_unreplicable, 1);
    else if (__kmp_ro_small_with_edges(it) && !__kmp_readonly_force)
      KMP_RO_ADD(readonly_fallback_unreplicable, 1);
    else if (__kmp_pt_num_nodes <= 1 && !__kmp_readonly_force)
      KMP_RO_ADD(readonly_fallback_one_node, 1);
    else if (!__kmp_ro_reserve(it, v, nv))
      KMP_RO_ADD(readonly_fallback_budget, 1);
    else
      h->e[i].replicate = 1;
  }
  // What was written unseen since the last region start (the kernel's
  // written bits), in one call over the span of the tracked items.
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < n; i++) {
    kmp_ro_item *it = h->e[i].item;
    if (it && __kmp_ro_tracked(it)) {
      lo = it->mbase < lo ? it->mbase : lo;
      hi = it->mend > hi ? it->mend : hi;
    }
  }
  if (lo < hi)
    __kmp_ro_scan_written(lo, hi);
  if (handled)
    KMP_RO_ADD(readonly_regions, 1);
  KA_TRACE(10, ("ro_begin: %d of %d items, activation %llu\n", handled, n,
                (unsigned long long)h->act));
  ro_list_remember(h, loc, ptrs, lens, codes);
  // Protection changed: a fault seen before is worth a second look.
  __kmp_ro_table.bump();
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  if (v)
    __kmp_pt_free_maps(v);
  if (stacks)
    __kmp_free(stacks);
  return h;
}

// ---------------------------------------------------------------------------
// The threads' pointers

// The calling thread's node for the activation ro_tls_act, found once per
// region (kmp_readonly_ptr asks it for every item, kmp_readonly_ptrs once).
#define RO_TLS __thread __attribute__((tls_model("initial-exec")))
static RO_TLS kmp_uint64 ro_tls_act;
static RO_TLS int ro_tls_node;
static inline int ro_my_node(kmp_uint64 act) {
  if (ro_tls_act != act) {
    ro_tls_node = __kmp_ro_thread_node();
    ro_tls_act = act;
  }
  return ro_tls_node;
}

// The pointer to entry e for the threads of node (-1: not known); *partial
// set if a replica it should have could not be made, *replicas counts those
// it got.
static void *ro_entry_ptr(kmp_readonly_region *h, const kmp_ro_entry *e,
                          int node, int *partial, int *replicas) {
  if (!e->item || !e->replicate || node < 0 ||
      (node == e->item->home && !__kmp_readonly_force))
    return e->orig;
  char *m = __kmp_ro_replica(e->item, node, h->act);
  if (!m) {
    *partial = 1;
    return e->orig;
  }
  ++*replicas;
  return m + (e->tbase - e->item->mbase);
}

// Every item's pointer for the calling thread's node: the remembered
// list's if it has them and nothing changed, else made here (each
// replica prepared once per node and activation) and, if complete, kept
// for the list.
static void **ro_node_ptrs(kmp_readonly_region *h) {
  int node = ro_my_node(h->act), x = node + 1;
  void **a = __atomic_load_n(&h->node[x], __ATOMIC_ACQUIRE);
  if (a)
    return a;
  kmp_ro_list *L = h->list;
  if (L && h->reused) {
    a = __atomic_load_n(&L->node[x], __ATOMIC_ACQUIRE);
    if (a) {
      if (!__atomic_exchange_n(&h->counted[x], 1, __ATOMIC_ACQ_REL))
        KMP_RO_ADD(readonly_replicas_reused,
                   __atomic_load_n(&L->replicas[x], __ATOMIC_RELAXED));
      void **none = NULL;
      __atomic_compare_exchange_n(&h->node[x], &none, a, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      return a;
    }
  }
  int partial = 0, replicas = 0;
  a = (void **)__kmp_allocate(sizeof(void *) * (h->n > 0 ? h->n : 1));
  for (int i = 0; i < h->n; i++)
    a[i] = ro_entry_ptr(h, &h->e[i], node, &partial, &replicas);
  void **none = NULL;
  if (!__atomic_compare_exchange_n(&h->node[x], &none, a, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    __kmp_free(a); // another thread of the node made them meanwhile
    return none;
  }
  // Complete and current: the list keeps a copy for the regions after.
  if (L && !partial && ro_list_current(L) &&
      !__atomic_load_n(&L->node[x], __ATOMIC_ACQUIRE)) {
    void **k = (void **)__kmp_allocate(sizeof(void *) * (h->n > 0 ? h->n : 1));
    memcpy(k, a, sizeof(void *) * h->n);
    __atomic_store_n(&L->replicas[x], replicas, __ATOMIC_RELAXED);
    none = NULL;
    if (!__atomic_compare_exchange_n(&L->node[x], &none, k, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      __kmp_free(k);
  }
  h->own[x] = 1;
  return a;
}

void **__kmp_ro_ptrs(kmp_readonly_region *h) {
  return ro_answer(h, ro_node_ptrs(h));
}

void *const *__kmp_ro_node_ptrs(kmp_readonly_region *h) {
  return h ? ro_node_ptrs(h) : NULL;
}

void *__kmp_ro_ptr(kmp_readonly_region *h, int i) {
  if (!h || i < 0 || i >= h->n)
    return NULL;
  if (ro_tls_act == h->act) { // this thread's node is known: its pointers?
    void **a = __atomic_load_n(&h->node[ro_tls_node + 1], __ATOMIC_ACQUIRE);
    if (a)
      return a[i];
  }
  return ro_node_ptrs(h)[i];
}

// ---------------------------------------------------------------------------
// Region end

// The last region that used it has ended (under __kmp_ro_lock).
static void ro_idle(kmp_ro_item *it) {
  // Its copies' bytes on pages shared with other data, or on pages it
  // could not protect, may change unseen; those of an item the kernel
  // changed while the region read it are out of date already.
  if (it->kind & (KMP_RO_UNPROTECTED | KMP_RO_STALE))
    __kmp_ro_close_replicas(it);
  else
    __kmp_ro_close_between(it);
  if (it->kind & KMP_RO_NOKEEP)
    __kmp_ro_open_chunks(it, 0, it->nchunks);
}

void __kmp_ro_end(kmp_readonly_region *h) {
  // A region of the parent process ends in a child: it holds nothing here.
  int any = h->reused;
  for (int i = 0; i < h->n && !any; i++)
    any = h->e[i].item != NULL;
  if (any && h->forks == __kmp_ro_forks) {
    __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
    KA_TRACE(10, ("ro_end: %d items, activation %llu%s\n", h->n,
                  (unsigned long long)h->act, h->reused ? ", as it was" : ""));
    kmp_ro_list *L = h->list;
    // The items of a list served as it was need nothing at its end (not
    // even a look) unless something changed meanwhile.
    int changed = L && !ro_list_current(L);
    if (L)
      ro_list_leave((int)(L - ro_lists));
    for (int i = 0; i < h->n && (!h->reused || changed); i++) {
      kmp_ro_item *it = h->e[i].item;
      if (!it)
        continue;
      if (!h->reused) {
        KMP_DEBUG_ASSERT(it->users > 0);
        __atomic_sub_fetch(&it->users, 1, __ATOMIC_SEQ_CST);
      }
      if (!__kmp_ro_in_use(it))
        ro_idle(it);
    }
    __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  }
  ro_free(h);
}

#else // !KMP_PAGETRAP_SUPPORTED

kmp_readonly_region *__kmp_ro_begin(ident_t *loc, int n, void *const *ptrs,
                                    const size_t *lens,
                                    const char *const *names, int *codes) {
  return ro_entries(ro_new_region(n), ptrs);
}

static void **ro_node_ptrs(kmp_readonly_region *h) {
  void **a = __atomic_load_n(&h->node[0], __ATOMIC_ACQUIRE);
  if (a)
    return a;
  a = (void **)__kmp_allocate(sizeof(void *) * (h->n > 0 ? h->n : 1));
  for (int i = 0; i < h->n; i++)
    a[i] = h->e[i].orig;
  void **none = NULL;
  if (!__atomic_compare_exchange_n(&h->node[0], &none, a, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    __kmp_free(a);
    return none;
  }
  h->own[0] = 1;
  return a;
}

void **__kmp_ro_ptrs(kmp_readonly_region *h) {
  return ro_answer(h, ro_node_ptrs(h));
}

void *const *__kmp_ro_node_ptrs(kmp_readonly_region *h) {
  return h ? ro_node_ptrs(h) : NULL;
}

void *__kmp_ro_ptr(kmp_readonly_region *h, int i) {
  return h && i >= 0 && i < h->n ? ro_node_ptrs(h)[i] : NULL;
}

void __kmp_ro_end(kmp_readonly_region *h) { ro_free(h); }

#endif // KMP_PAGETRAP_SUPPORTED
