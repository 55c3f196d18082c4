/*
 * kmp_readonly_fault.cpp -- readonly(list): write faults on list items.
 *
 * RUNS IN THE SIGSEGV HANDLER (the page-trap layer's handler asks
 * __kmp_ro_fault first): async-signal-safe code only -- no locks, no
 * allocation, no stdio, no libomp data structures.  It reads the item table
 * and the items (private mappings), writes with write(2), and ends the
 * process with abort().  The messages' text comes from libomp's catalog,
 * prepared at the first region start (kmp_readonly.cpp).
 *
 * A write fault on the protected pages of a cached item is
 *  - between regions (no region lists the item): a serial write.  Its chunk
 *    is opened (made writable, each replica marked to copy it again) and
 *    the write goes on; so is a write at any time to bytes of those pages
 *    that are not the item's (a block of its own from malloc: the header
 *    and the rest of the block);
 *  - in a region that lists the item: the program broke its promise.
 *    KMP_READONLY_WRITES=fatal (the default) prints one message naming the
 *    list item and the construct and aborts; =warn prints it once per item
 *    as a warning, leaves the item writable from then on and lets the write
 *    go on.  A write through a replica aborts whatever the setting;
 *  - any access to a copy that is closed or out of date (a pointer kept
 *    from a region and used after it), or to the address of a dropped copy
 *    (its grave): a message naming the item, and abort.
 * Anything else is not ours: the layer asks the next engine, or chains to
 * the program's handler, or the process dies by SIGSEGV.
 *
 * The kernel's own writes (read(2) into an item) do not fault: the layer's
 * I/O wrappers ask __kmp_ro_io_write first, which opens the chunks there
 * between regions and refuses the call in a region that lists the item.
 * Writes the kernel makes whatever the protection (through /proc/<pid>/mem:
 * __kmp_ro_forced_write) or through the file behind a private mapping
 * (__kmp_ro_file_write) mark the items they change stale instead: the next
 * region start drops them and copies them afresh.  These run in the
 * calling thread, also inside signal handlers, and are async-signal-safe
 * like the rest of this file.
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
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

kmp_pt_index<kmp_ro_item> __kmp_ro_table;
kmp_pt_index<kmp_ro_copy> __kmp_ro_copies;
kmp_bootstrap_lock_t __kmp_ro_copies_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(__kmp_ro_copies_lock);
volatile int __kmp_ro_node_hwm = 0;
const char *__kmp_ro_msg_fatal = NULL;
const char *__kmp_ro_msg_warn = NULL;
const char *__kmp_ro_msg_stale = NULL;
const char *__kmp_ro_msg_dropped = NULL;

// Initial-exec TLS: one %fs-relative access, never __tls_get_addr.
#define RO_TLS __thread __attribute__((tls_model("initial-exec")))
// The last page this thread faulted on, and the generation then: a second
// fault on it without a protection change in between is not ours.
static RO_TLS uintptr_t ro_tls_last_page;
static RO_TLS kmp_uint64 ro_tls_last_gen;

// ---------------------------------------------------------------------------
// Text without stdio

struct ro_buf {
  char *p;
  size_t n, cap;
};

static void ro_put(ro_buf *b, const char *s, size_t len) {
  for (size_t i = 0; i < len && b->n + 1 < b->cap; i++)
    b->p[b->n++] = s[i];
  b->p[b->n] = 0;
}
static void ro_puts(ro_buf *b, const char *s) {
  size_t len = 0;
  while (s[len])
    len++;
  ro_put(b, s, len);
}
static void ro_putu(ro_buf *b, kmp_uint64 v, unsigned base) {
  char t[24];
  int i = sizeof t;
  do {
    t[--i] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (base == 16)
    ro_puts(b, "0x");
  ro_put(b, t + i, sizeof t - i);
}

// ident_t's psource ";file;func;line;col;;" as "file:line:col (func)".
static void ro_putloc(ro_buf *b, const char *ps) {
  const char *f[4] = {NULL, NULL, NULL, NULL};
  size_t len[4] = {0, 0, 0, 0};
  if (ps && *ps == ';') {
    const char *s = ps + 1;
    for (int i = 0; i < 4 && *s; i++) {
      f[i] = s;
      while (*s && *s != ';')
        s++;
      len[i] = s - f[i];
      if (*s)
        s++;
    }
  }
  if (!f[0] || !len[0] || (len[0] == 7 && f[0][0] == 'u' && f[0][1] == 'n')) {
    ro_puts(b, "unknown"); // no debug information: ";unknown;unknown;0;0;;"
    return;
  }
  ro_put(b, f[0], len[0]);
  for (int i = 2; i < 4; i++) {
    ro_puts(b, ":");
    ro_put(b, f[i] ? f[i] : "0", f[i] ? len[i] : 1);
  }
  ro_puts(b, " (");
  ro_put(b, f[1] ? f[1] : "?", f[1] ? len[1] : 1);
  ro_puts(b, ")");
}

// The template with "%N$s" replaced by args[N-1] ("%%" is "%").
static void ro_subst(ro_buf *out, const char *t, const char *const *args,
                     int nargs) {
  while (*t) {
    if (t[0] == '%' && t[1] == '%') {
      ro_put(out, "%", 1);
      t += 2;
    } else if (t[0] == '%' && t[1] >= '1' && t[1] <= '9' && t[2] == '$' &&
               t[3] == 's') {
      int k = t[1] - '1';
      ro_puts(out, k < nargs ? args[k] : "?");
      t += 4;
    } else {
      ro_put(out, t++, 1);
    }
  }
}

static void ro_write_all(const char *s, size_t n) {
  while (n) {
    ssize_t w = write(2, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= (size_t)w;
  }
}

// ---------------------------------------------------------------------------
// Opening chunks

// Copy r of it becomes inaccessible, all of it.  A call over the whole copy
// splits no mapping (the copy is one already), so it cannot run out of VMAs.
// Should it fail all the same, the copy's pages are replaced by
// inaccessible ones, and every chunk and edge is copied again before its
// next use: a pointer kept into it is never served stale bytes.
static void ro_close_copy(kmp_ro_item *it, kmp_ro_replica *r) {
  size_t bytes = it->mend - it->mbase;
  if (__kmp_pt_mprotect(r->map, bytes, PROT_NONE) != 0) {
    void *m =
        mmap(r->map, bytes, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    KMP_DEBUG_ASSERT(m == (void *)r->map);
    (void)m;
    for (size_t c = 0; c < it->nchunks; c++)
      __atomic_store_n(&r->dirty[c], 1, __ATOMIC_RELEASE);
    __atomic_store_n(&r->edges_written, 1, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&r->closed, KMP_RO_COPY_CLOSED, __ATOMIC_RELEASE);
}

// The chunks [lo, hi) are written: each replica copies them again before its
// next use, and, between regions (a region reads its replicas), makes them
// inaccessible meanwhile, so that a pointer into them kept from a region is
// not served stale data (the whole copy if that fails).
void __kmp_ro_mark_dirty(kmp_ro_item *it, size_t lo, size_t hi) {
  __kmp_ro_changed();
  int nodes = __atomic_load_n(&__kmp_ro_node_hwm, __ATOMIC_ACQUIRE);
  int hide = !__kmp_ro_in_use(it);
  uintptr_t s0, e0, s1, e1;
  __kmp_ro_chunk_range(it, lo, &s0, &e0);
  __kmp_ro_chunk_range(it, hi - 1, &s1, &e1);
  for (int n = 0; n < nodes; n++) {
    // Sequentially consistent, as the chunk's claim before it: a copy made
    // meanwhile (ro_make) is either seen here or sees the claim.
    char *m = __atomic_load_n(&it->rep[n].map, __ATOMIC_SEQ_CST);
    if (!m)
      continue;
    for (size_t c = lo; c < hi; c++)
      it->rep[n].dirty[c] = 1;
    if (hide &&
        __kmp_pt_mprotect(m + (s0 - it->mbase), e1 - s0, PROT_NONE) != 0)
      ro_close_copy(it, &it->rep[n]);
  }
}

void __kmp_ro_close_replicas(kmp_ro_item *it) {
  int nodes = __atomic_load_n(&__kmp_ro_node_hwm, __ATOMIC_ACQUIRE);
  for (int n = 0; n < nodes; n++) {
    kmp_ro_replica *r = &it->rep[n];
    if (r->map && r->closed != KMP_RO_COPY_CLOSED)
      ro_close_copy(it, r);
  }
}

// Between regions only the edges may change unseen: the original's other
// pages are protected, and a write there hides the chunks it opens in every
// copy (__kmp_ro_mark_dirty).  So the rest of a copy stays readable, and the
// next region start reopens two pages, not the copy: an mprotect of a whole
// copy changes every page table entry of it and flushes every CPU's TLB, at
// every region.  A small copy is closed whole, as cheap as one of its pages.
void __kmp_ro_close_between(kmp_ro_item *it) {
  int edges = __kmp_ro_has_edges(it);
  if (__kmp_ro_small_with_edges(it)) {
    __kmp_ro_close_replicas(it);
    return;
  }
  int nodes = __atomic_load_n(&__kmp_ro_node_hwm, __ATOMIC_ACQUIRE);
  for (int n = 0; n < nodes; n++) {
    kmp_ro_replica *r = &it->rep[n];
    int closed = __atomic_load_n(&r->closed, __ATOMIC_ACQUIRE);
    if (!r->map || closed == KMP_RO_COPY_CLOSED)
      continue;
    // Chunks written while a region used the item were not hidden (in a
    // region, bytes of its pages that are not the item's, or
    // KMP_READONLY_WRITES=warn; a serial write as a region started), in this
    // copy or in one that this region did not prepare: all of it.
    int written = 0;
    for (size_t c = 0; c < it->nchunks && !written; c++)
      written = __atomic_load_n(&r->dirty[c], __ATOMIC_ACQUIRE);
    if (written) {
      ro_close_copy(it, r);
      continue;
    }
    if (!edges || closed != KMP_RO_COPY_OPEN)
      continue;
    if (__kmp_ro_protect_edges(it, r->map, PROT_NONE) != 0) {
      ro_close_copy(it, r);
      continue;
    }
    // Unless the copy was closed whole meanwhile (ro_mark_stale takes no
    // lock): then it stays so.
    __atomic_compare_exchange_n(&r->closed, &closed, KMP_RO_COPY_EDGES, false,
                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
}

// Open the chunks [c, e) this thread has claimed (KMP_RO_OPENING).
static int ro_open_claimed(kmp_ro_item *it, size_t c, size_t e) {
  uintptr_t s0, e0, s1, e1;
  __kmp_ro_chunk_range(it, c, &s0, &e0);
  __kmp_ro_chunk_range(it, e - 1, &s1, &e1);
  __kmp_ro_mark_dirty(it, c, e);
  __atomic_store_n(&it->written, 1, __ATOMIC_RELEASE);
  int rc = 0;
  if (__kmp_pt_mprotect((void *)s0, e1 - s0, it->prot) != 0) {
    // Out of VMAs (vm.max_map_count): one call over the whole item merges
    // them again.  Or the C library unmapped part of it (realloc() shrinking
    // a block in place): around the holes.  Every chunk is then open.
    rc = -1;
    if (__kmp_pt_mprotect((void *)it->pbase, it->pend - it->pbase, it->prot))
      __kmp_pt_mprotect_mapped(it->pbase, it->pend, it->prot);
    __kmp_ro_mark_dirty(it, 0, it->nchunks);
    for (size_t k = 0; k < it->nchunks; k++)
      if (k < c || k >= e)
        __atomic_store_n(&it->chunks[k], KMP_RO_OPEN, __ATOMIC_RELEASE);
  }
  for (size_t k = c; k < e; k++)
    __atomic_store_n(&it->chunks[k], KMP_RO_OPEN, __ATOMIC_RELEASE);
  return rc;
}

int __kmp_ro_open_chunks(kmp_ro_item *it, size_t lo, size_t hi) {
  int rc = 0;
  for (size_t c = lo; c < hi;) {
    unsigned char s = __atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE);
    if (s == KMP_RO_OPENING) { // another thread opens it: wait
      sched_yield();
      continue;
    }
    if (s != KMP_RO_CLOSED ||
        !__atomic_compare_exchange_n(&it->chunks[c], &s, KMP_RO_OPENING, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
      c++;
      continue;
    }
    // A run of closed chunks, opened with one mprotect.
    size_t e = c + 1;
    for (; e < hi; e++) {
      unsigned char t = KMP_RO_CLOSED;
      if (!__atomic_compare_exchange_n(&it->chunks[e], &t, KMP_RO_OPENING,
                                       false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_ACQUIRE))
        break;
    }
    if (ro_open_claimed(it, c, e))
      rc = -1;
    c = e;
  }
  return rc;
}

// ---------------------------------------------------------------------------
// A write in a region

void __kmp_ro_describe(const kmp_ro_item *it, kmp_ro_desc *d) {
  d->psource = it->psource;
  const char *name = it->name;
  size_t k = 0;
  for (; name && name[k] && k + 1 < sizeof d->name; k++)
    d->name[k] = name[k];
  d->name[k] = 0;
  d->index = it->index;
  d->base = it->base;
  d->end = it->end;
}

// The message tmpl about an access at addr to the item d (its replica on
// node `node` if node >= 0).
static void ro_say(const char *tmpl, const kmp_ro_desc *d, uintptr_t addr,
                   int node) {
  char loc[512], item[768], where[128], tid[24], out[2048];
  ro_buf bl = {loc, 0, sizeof loc}, bi = {item, 0, sizeof item},
         bw = {where, 0, sizeof where}, bt = {tid, 0, sizeof tid},
         bo = {out, 0, sizeof out};
  ro_putloc(&bl, d->psource);
  ro_putu(&bi, (kmp_uint64)d->index, 10);
  if (d->name[0]) {
    ro_puts(&bi, " '");
    ro_puts(&bi, d->name);
    ro_puts(&bi, "'");
  }
  ro_puts(&bi, " (");
  ro_putu(&bi, d->base, 16);
  ro_puts(&bi, ", ");
  ro_putu(&bi, d->end - d->base, 10);
  ro_puts(&bi, " bytes)");
  ro_putu(&bw, addr, 16);
  if (node >= 0) {
    ro_puts(&bw, " in its replica on node ");
    ro_putu(&bw, (kmp_uint64)node, 10);
  }
  ro_putu(&bt, (kmp_uint64)syscall(SYS_gettid), 10);
  const char *args[4] = {loc, item, where, tid};
  ro_subst(&bo,
           tmpl ? tmpl
                : "OMP: Error: readonly at %1$s: list item %2$s was "
                  "accessed (address %3$s, OS thread %4$s)\n",
           args, 4);
  ro_write_all(out, bo.n);
}

static void ro_say_item(const char *tmpl, const kmp_ro_item *it, uintptr_t addr,
                        int node) {
  kmp_ro_desc d;
  __kmp_ro_describe(it, &d);
  ro_say(tmpl, &d, addr, node);
}

static void ro_trap(kmp_ro_item *it, uintptr_t addr, int node) {
  KMP_RO_ADD(readonly_write_traps, 1);
  if (node >= 0 || __kmp_readonly_writes != kmp_readonly_writes_warn) {
    ro_say_item(__kmp_ro_msg_fatal, it, addr, node);
    abort(); // SIGABRT: the core shows the write in this thread's stack
  }
  if (!__atomic_exchange_n(&it->warned, 1, __ATOMIC_ACQ_REL) &&
      __kmp_generate_warnings != kmp_warnings_off)
    ro_say_item(__kmp_ro_msg_warn, it, addr, -1);
  // The item is writable from now on: no region protects it again.
  __atomic_fetch_or(&it->kind, KMP_RO_DEMOTED, __ATOMIC_ACQ_REL);
  for (size_t c = 0; c < it->nchunks; c++)
    while (__atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE) != KMP_RO_OPEN)
      __kmp_ro_open_chunks(it, c, c + 1);
}

// Open chunk c of it for a write between regions, or for a write to bytes
// of its pages that are not the item's (`other`: at any time): 1 if it is
// open, 0 if a region uses the item (the chunk stays closed).
static int ro_open_between(kmp_ro_item *it, size_t c, int other,
                           int serial = 1) {
  for (;;) {
    unsigned char s = __atomic_load_n(&it->chunks[c], __ATOMIC_ACQUIRE);
    if (s == KMP_RO_OPEN)
      return 1; // opened meanwhile
    if (s == KMP_RO_OPENING) {
      sched_yield();
      continue;
    }
    if (!__atomic_compare_exchange_n(&it->chunks[c], &s, KMP_RO_OPENING, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
      continue;
    // A region start raises users before it closes chunks: either it sees
    // this claim and waits for it, or we see the region.  One that serves a
    // remembered list marks it in use, then looks at the epoch: bumped
    // first here.
    __kmp_ro_changed();
    if (!other && __kmp_ro_in_use(it)) {
      __atomic_store_n(&it->chunks[c], KMP_RO_CLOSED, __ATOMIC_RELEASE);
      return 0;
    }
    ro_open_claimed(it, c, c + 1);
    if (serial)
      KMP_RO_ADD(readonly_serial_writes, 1);
    return 1;
  }
}

// A write fault on a protected page of `it` at addr: 1 handled, 0 not ours.
static int ro_original(kmp_ro_item *it, uintptr_t addr) {
  if (__atomic_load_n(&it->kind, __ATOMIC_ACQUIRE) & KMP_RO_IMMUTABLE) {
    // Read-only memory of the program: a write is wrong anyway.  In a region
    // we say which item it was; otherwise the program gets its SIGSEGV.
    if (!__kmp_ro_in_use(it))
      return 0;
    ro_trap(it, addr, -1);
    return 1;
  }
  // The allocator's bytes or the rest of a malloc block it fills are not
  // promised read-only.
  int other = addr < it->base || addr >= it->end;
  if (!ro_open_between(it, (addr - it->pbase) / __kmp_ro_chunk_bytes(), other))
    ro_trap(it, addr, -1); // returns in warn mode: the item is open then
  return 1; // the access is retried
}

// The engine protects with PROT_READ: a fault of its own is a write to a
// page that can be read.  A read fault, or a page that cannot be read (the
// program's own PROT_NONE guard where an item was unmapped), is not ours.
static int ro_write_to_readable(uintptr_t page, void *uc) {
  return __kmp_pt_fault_is_write(uc) != 0 && __kmp_pt_readable(page);
}

int __kmp_ro_fault(uintptr_t addr, void *uc) {
  if (!__kmp_ro_live())
    return 0;
  kmp_uint64 gen = __kmp_ro_table.generation();
  uintptr_t page = addr & ~((uintptr_t)__kmp_pt_page - 1);
  if (ro_tls_last_page == page && ro_tls_last_gen == gen)
    return 0; // the same fault again: not (or no longer) ours
  __kmp_ro_table.enter();
  int done = 0;
  __kmp_ro_each_near(addr, addr + 1, [&](kmp_ro_item *it) {
    if (done || addr < it->pbase || addr >= it->pend)
      return;
    ro_tls_last_page = page;
    ro_tls_last_gen = gen;
    done = ro_write_to_readable(page, uc) && ro_original(it, addr) ? 1 : -1;
  });
  // A replica's mapping holds the address: its item is live (a copy leaves
  // __kmp_ro_copies before its item is freed).
  __kmp_ro_copies.enter();
  kmp_ro_copy *where =
      done ? NULL
           : kmp_pt_index<kmp_ro_copy>::find(__kmp_ro_copies.get(), addr);
  if (where) {
    kmp_ro_item *it = where->item;
    int n = where->node;
    {
      char *m = __atomic_load_n(&it->rep[n].map, __ATOMIC_ACQUIRE);
      if (m && addr >= (uintptr_t)m &&
          addr < (uintptr_t)m + (it->mend - it->mbase)) {
        // A pointer into the copy, kept from a region and used after it
        // where the copy is closed or out of date.
        uintptr_t orig = it->mbase + (addr - (uintptr_t)m);
        int whole = orig >= it->pbase && orig < it->pend;
        // Without a region that uses the item, any fault there (a write to
        // an open, current copy too) is a use after the region.
        int closed = __atomic_load_n(&it->rep[n].closed, __ATOMIC_ACQUIRE);
        if (closed == KMP_RO_COPY_CLOSED ||
            (closed == KMP_RO_COPY_EDGES && !whole) || !__kmp_ro_in_use(it)) {
          ro_say_item(__kmp_ro_msg_stale, it, addr, n);
          abort();
        }
        if (!ro_write_to_readable(page, uc))
          done = -1;
        else
          ro_trap(it, addr, n); // does not return
      }
    }
  }
  // A pointer into a copy that was dropped since.
  kmp_ro_grave *graves = __atomic_load_n(&__kmp_ro_graves, __ATOMIC_ACQUIRE);
  for (int i = 0; graves && !done && i < KMP_RO_GRAVES; i++) {
    kmp_ro_grave *g = &graves[i];
    uintptr_t end = __atomic_load_n(&g->end, __ATOMIC_ACQUIRE);
    if (end && addr >= g->start && addr < end) {
      ro_say(__kmp_ro_msg_dropped, &g->desc, addr, g->node);
      abort();
    }
  }
  __kmp_ro_copies.leave();
  __kmp_ro_table.leave();
  return done > 0;
}

// ---------------------------------------------------------------------------
// A system call about to write into memory (the I/O wrappers)

int __kmp_ro_io_write(uintptr_t a, uintptr_t e) {
  if (e <= a)
    return 0;
  int rc = 0;
  __kmp_ro_table.enter();
  __kmp_ro_each_near(a, e, [&](kmp_ro_item *it) {
    if (rc || it->pend <= a || it->pbase >= e || it->pbase == it->pend)
      return; // the kernel can write the pages that are not protected
    int kind = __atomic_load_n(&it->kind, __ATOMIC_ACQUIRE);
    if (kind & KMP_RO_IMMUTABLE)
      return; // the program's read-only memory: its own EFAULT
    uintptr_t lo = a > it->pbase ? a : it->pbase;
    uintptr_t hi = e < it->pend ? e : it->pend;
    size_t c0 = (lo - it->pbase) / __kmp_ro_chunk_bytes();
    size_t c1 = (hi - 1 - it->pbase) / __kmp_ro_chunk_bytes() + 1;
    for (size_t c = c0; c < c1 && !rc; c++) {
      // Only the bytes of chunk c that the call writes: the item's?
      uintptr_t cs, ce;
      __kmp_ro_chunk_range(it, c, &cs, &ce);
      int other =
          (hi < ce ? hi : ce) <= it->base || (lo > cs ? lo : cs) >= it->end;
      if (!ro_open_between(it, c, other))
        rc = EFAULT; // a region lists it: nothing may be written
    }
  });
  __kmp_ro_table.leave();
  return rc;
}

// Mark the cached items near [a, e) (__kmp_ro_each_near; all: 0,
// UINTPTR_MAX) that `pick` selects stale: their next region start drops
// them and copies them afresh.
template <typename Pick>
static void ro_mark_stale(uintptr_t a, uintptr_t e, Pick pick) {
  __kmp_ro_table.enter();
  __kmp_ro_each_near(a, e, [&](kmp_ro_item *it) {
    if (!pick(it))
      return;
    __atomic_fetch_or(&it->kind, KMP_RO_STALE, __ATOMIC_ACQ_REL);
    __kmp_ro_changed();
    // Its copies are out of date from now on: closed, unless a region
    // reads them now.
    if (!__kmp_ro_in_use(it))
      __kmp_ro_close_replicas(it);
  });
  __kmp_ro_table.leave();
}

// The program changes the mapping or the content of [a, e) (mprotect,
// munmap, mmap MAP_FIXED, mremap, a discarding madvise): the closed chunks
// of the items there are opened first, as for a system call that writes
// there, so that the call finds the protection the program gave them and
// no later drop restores one on memory that is no longer theirs; the items
// are stale from then on (dropped and copied afresh at their next region
// start).  Lock-free: the wrappers call it in the program's signal handlers
// and allocator callbacks, also while this thread holds __kmp_ro_lock.
void __kmp_ro_mapping_change(uintptr_t a, uintptr_t e) {
  if (e <= a)
    return;
  __kmp_ro_table.enter();
  __kmp_ro_each_near(a, e, [&](kmp_ro_item *it) {
    if (it->pend <= a || it->pbase >= e || it->pbase == it->pend)
      return;
    if (__atomic_load_n(&it->kind, __ATOMIC_ACQUIRE) & KMP_RO_IMMUTABLE)
      return; // never protected by the engine
    uintptr_t lo = a > it->pbase ? a : it->pbase;
    uintptr_t hi = e < it->pend ? e : it->pend;
    size_t c0 = (lo - it->pbase) / __kmp_ro_chunk_bytes();
    size_t c1 = (hi - 1 - it->pbase) / __kmp_ro_chunk_bytes() + 1;
    for (size_t c = c0; c < c1; c++)
      ro_open_between(it, c, 0, 0); // a region that lists it keeps it closed
  });
  __kmp_ro_table.leave();
  ro_mark_stale(a, e, [=](const kmp_ro_item *it) {
    return it->mbase < e && it->mend > a;
  });
  // The kernel's written bits stop tracking [a, e) (every item with a page
  // there is stale now): a registered part would be a VMA of its own, and
  // mremap() moves one VMA only.  Not beyond: a page there may be another
  // item's edge.  The drop untracks the rest.
  __kmp_ro_table.enter();
  __kmp_ro_each_near(a, e, [&](kmp_ro_item *it) {
    if (it->mend <= a || it->mbase >= e || !__kmp_ro_tracked(it))
      return;
    __kmp_pt_written_untrack(a > it->mbase ? a : it->mbase,
                             e < it->mend ? e : it->mend);
  });
  __kmp_ro_table.leave();
}

int __kmp_ro_forced_write(uintptr_t a, uintptr_t e) {
  if (e <= a)
    return 0;
  ro_mark_stale(a, e, [=](const kmp_ro_item *it) {
    int kind = __atomic_load_n(&it->kind, __ATOMIC_ACQUIRE);
    return it->base < e && it->end > a &&
           ((kind & KMP_RO_IMMUTABLE) || it->pbase == it->pend);
  });
  return __kmp_ro_io_write(a, e);
}

void __kmp_ro_file_write(kmp_uint64 ino) {
  ro_mark_stale(0, UINTPTR_MAX, [=](const kmp_ro_item *it) {
    return (ino ? it->inode == ino : it->inode != 0) &&
           !(__atomic_load_n(&it->kind, __ATOMIC_ACQUIRE) & KMP_RO_SHARED);
  });
}

#endif // KMP_PAGETRAP_SUPPORTED
