/*
 * kmp_pagetrap.cpp -- the page-trap layer: start-up (page sizes, topology,
 * the mechanism that moves pages), the engines' registration and the
 * dispatch of their hooks (yield, private mappings, fork(2), shutdown), the
 * checks of the program's arguments and the warnings about list items, the
 * pools of memory the fault path reads.
 *
 * None of this file runs in a signal handler.  See kmp_pagetrap.h for the
 * layer's files and docs/Design.rst for the design.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"
#include "kmp_str.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if KMP_PAGETRAP_SUPPORTED
#include <unistd.h>
#endif

kmp_bootstrap_lock_t __kmp_pt_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(__kmp_pt_lock);
int __kmp_pt_initialized = 0;
int __kmp_pt_num_nodes = 1;
int __kmp_pt_mech = kmp_pt_mech_none;
int __kmp_pt_moves = 0;
int __kmp_pt_forced = 0;
long __kmp_pt_page = 4096;
unsigned __kmp_pt_page_shift = 12;
unsigned __kmp_pt_thp_shift = 21;

const char *__kmp_pt_mech_name(int m) {
  return m == kmp_pt_mech_move_pages ? "move_pages"
         : m == kmp_pt_mech_mbind    ? "mbind"
                                     : "none";
}

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The engines

const kmp_pt_engine *volatile __kmp_pt_engines[KMP_PT_MAX_ENGINES];
volatile int __kmp_pt_watch = 0;
volatile int __kmp_pt_file_engines = 0;
volatile int __kmp_pt_file_watch = 0;
volatile kmp_uint64 __kmp_pt_maps_gen = 0;
volatile int __kmp_pt_maps_watched = 0;

// Single-threaded: libomp's initialisation holds __kmp_initz_lock.
int __kmp_pt_register(const kmp_pt_engine *e) {
  KMP_DEBUG_ASSERT(e);
  int id = 0;
  while (id < KMP_PT_MAX_ENGINES && __kmp_pt_engines[id] &&
         __kmp_pt_engines[id] != e)
    id++;
  KMP_DEBUG_ASSERT(id < KMP_PT_MAX_ENGINES);
  if (id == KMP_PT_MAX_ENGINES)
    return KMP_PT_NO_ENGINE;
  if (e->forced_write || e->file_write)
    __atomic_fetch_or(&__kmp_pt_file_engines, 1 << id, __ATOMIC_ACQ_REL);
  __atomic_store_n(&__kmp_pt_engines[id], e, __ATOMIC_RELEASE);
  KA_TRACE(10, ("__kmp_pt_register: engine %d\n", id));
  return id;
}

static const kmp_pt_engine *pt_engine(int id) {
  return __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
}

static int pt_engine_enabled(const kmp_pt_engine *e) {
  return e && e->enabled && TCR_4(*e->enabled);
}

static int pt_any_enabled() {
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++)
    if (pt_engine_enabled(pt_engine(id)))
      return 1;
  return 0;
}

// The engines register while libomp reads its settings: until then, any
// engine may come.
int __kmp_pt_enabled() { return !TCR_4(__kmp_init_serial) || pt_any_enabled(); }

// ---------------------------------------------------------------------------
// Start-up

// The size of a PMD-mapped transparent huge page: the kernel says it; else a
// page table page's worth of base pages.
static unsigned pt_thp_shift(unsigned page_shift) {
  char buf[32];
  unsigned long bytes = 0;
  if (__kmp_pt_read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
                         buf, sizeof buf) > 0)
    bytes = strtoul(buf, NULL, 10);
  if (!bytes || (bytes & (bytes - 1)))
    bytes = ((unsigned long)1 << page_shift) / sizeof(void *) << page_shift;
  unsigned s = page_shift;
  while (((unsigned long)1 << s) < bytes)
    s++;
  return s;
}

static void pt_initialize_locked() {
  __kmp_pt_page = sysconf(_SC_PAGESIZE);
  __kmp_pt_page_shift = 0;
  while ((1L << __kmp_pt_page_shift) < __kmp_pt_page)
    __kmp_pt_page_shift++;
  __kmp_pt_thp_shift = pt_thp_shift(__kmp_pt_page_shift);
  int any = 0, forced = 0;
  const kmp_pt_engine *mover = NULL; // the engine that moves pages
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *e = pt_engine(id);
    if (!pt_engine_enabled(e))
      continue;
    any = 1;
    forced |= e->forced && *e->forced;
    if (e->mechanism && !mover)
      mover = e;
  }
  if (any) {
    const char *why = NULL;
    __kmp_pt_num_nodes = __kmp_pt_topology(&why);
    if (why && !forced)
      KMP_WARNING(PageTrapNoTopology, why);
  }
  // What moves pages (what the engine asks for, else asked of the kernel),
  // and whether pages are to be moved at all.
  if (mover) {
    __kmp_pt_forced = mover->forced && *mover->forced;
    // The probe moves a page, so it is skipped when the engine was told.
    if (*mover->mechanism != kmp_pt_mech_none)
      __kmp_pt_mech = *mover->mechanism;
    else if (__kmp_pt_num_nodes > 1)
      __kmp_pt_mech = __kmp_pt_probe_mechanism();
    if (__kmp_pt_forced && __kmp_pt_mech == kmp_pt_mech_none)
      __kmp_pt_mech = kmp_pt_mech_move_pages; // nothing moves on one node
    __kmp_pt_moves = __kmp_pt_forced || (__kmp_pt_num_nodes > 1 &&
                                         __kmp_pt_mech != kmp_pt_mech_none);
  }
}

#endif // KMP_PAGETRAP_SUPPORTED

void __kmp_pt_initialize() {
  if (!TCR_4(__kmp_init_serial))
    __kmp_serial_initialize();
  if (TCR_4(__kmp_pt_initialized))
    return;
#if KMP_PAGETRAP_SUPPORTED
  if (pt_any_enabled())
    __kmp_pt_load_topology();
  __kmp_acquire_bootstrap_lock(&__kmp_pt_lock);
  if (!__kmp_pt_initialized) {
    pt_initialize_locked();
    KMP_MB();
    __kmp_pt_initialized = 1;
  }
  __kmp_release_bootstrap_lock(&__kmp_pt_lock);
#else
  __kmp_pt_initialized = 1;
#endif
}

static int pt_cmp_start(const void *a, const void *b) {
  uintptr_t x = ((const kmp_pt_range *)a)->start,
            y = ((const kmp_pt_range *)b)->start;
  return x < y ? -1 : x > y;
}

size_t __kmp_pt_ranges_merge(kmp_pt_range *r, size_t n) {
  if (!n)
    return 0;
  qsort(r, n, sizeof(*r), pt_cmp_start);
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    if (r[i].start <= r[k].end) {
      if (r[i].end > r[k].end)
        r[k].end = r[i].end;
    } else {
      r[++k] = r[i];
    }
  }
  return k + 1;
}

// ---------------------------------------------------------------------------
// Arguments and warnings

int __kmp_pt_check_args(const void *ptr, size_t len, uintptr_t *start,
                        uintptr_t *end) {
  if (len == 0)
    return -1;
  if (ptr == NULL)
    return EINVAL;
  uintptr_t p = (uintptr_t)ptr, pg = (uintptr_t)__kmp_pt_page;
  if (len > (size_t)PTRDIFF_MAX || p > UINTPTR_MAX - len ||
      p + len > UINTPTR_MAX - pg)
    return EOVERFLOW;
  *start = p & ~(pg - 1);
  *end = (p + len + pg - 1) & ~(pg - 1);
  return 0;
}

int __kmp_pt_item_bytes(size_t count, size_t elem_size, size_t *bytes) {
  *bytes = 0;
  if (count && !elem_size)
    return EINVAL;
  if (__builtin_mul_overflow(count, elem_size, bytes))
    return EOVERFLOW;
  return 0;
}

void __kmp_pt_warn_item(volatile int *count, kmp_i18n_id_t msg, ident_t *loc,
                        int idx, const char *name, const void *base,
                        size_t count_elems, size_t elem_size,
                        kmp_i18n_id_t reason) {
  if (__atomic_fetch_add(count, 1, __ATOMIC_RELAXED) >= 20)
    return; // KMP_WARNINGS=off silences all of them
  kmp_str_loc_t l = __kmp_str_loc_init(loc ? loc->psource : NULL, false);
  kmp_str_buf_t where, what;
  __kmp_str_buf_init(&where);
  __kmp_str_buf_init(&what);
  __kmp_str_buf_print(&where, "%s:%d:%d (%s)", l.file ? l.file : "unknown",
                      l.line, l.col, l.func ? l.func : "?");
  if (name)
    __kmp_str_buf_print(&what, "'%s', ", name);
  __kmp_str_buf_print(&what,
                      "base %p, %" KMP_UINT64_SPEC
                      " elements of %" KMP_UINT64_SPEC " bytes",
                      base, (kmp_uint64)count_elems, (kmp_uint64)elem_size);
  __kmp_msg(kmp_ms_warning,
            __kmp_msg_format(msg, where.str, idx, what.str,
                             __kmp_i18n_catgets(reason)),
            __kmp_msg_null);
  __kmp_str_buf_free(&where);
  __kmp_str_buf_free(&what);
  __kmp_str_loc_free(&l);
}

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The engines' hooks

int __kmp_pt_yield(int self, uintptr_t a, uintptr_t e) {
  int rc = 0;
  for (int id = 0; id < KMP_PT_MAX_ENGINES && !rc; id++) {
    const kmp_pt_engine *en = pt_engine(id);
    if (id != self && en && en->yield)
      rc = en->yield(a, e);
  }
  return rc;
}

int __kmp_pt_private_ranges(int self, kmp_pt_range **out) {
  // Room for a guess, then for what the engines said they have (their
  // tables may grow between the two calls: asked again until it fits).
  int max = 64;
  for (;;) {
    kmp_pt_range *r = (kmp_pt_range *)KMP_INTERNAL_MALLOC(sizeof(*r) * max);
    if (!r)
      KMP_FATAL(MemoryAllocFailed);
    int k = 0;
    if (__kmp_pt_private_table(&r[k].start, &r[k].end))
      k++;
    for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
      const kmp_pt_engine *en = pt_engine(id);
      if (id != self && en && en->private_ranges)
        k += en->private_ranges(r + (k < max ? k : max), k < max ? max - k : 0);
    }
    if (k <= max) {
      *out = r;
      return k;
    }
    KMP_INTERNAL_FREE(r);
    max = 2 * k;
  }
}

// ---------------------------------------------------------------------------
// Pools (not in a signal handler: under the owner's lock)

#define PT_ARENA_BYTES ((size_t)1 << 20)
#define PT_ALIGN(x) (((x) + 15) & ~(size_t)15)

void *kmp_pt_pool::alloc(size_t bytes, kmp_pt_arena **owner) {
  size_t hdr = PT_ALIGN(sizeof(kmp_pt_arena));
  bytes = PT_ALIGN(bytes);
  kmp_pt_arena *a = arenas;
  if (!a || a->map_bytes - a->used < bytes) {
    size_t pg = (size_t)__kmp_pt_page;
    size_t mb = hdr + bytes > PT_ARENA_BYTES ? hdr + bytes : PT_ARENA_BYTES;
    mb = (mb + pg - 1) & ~(pg - 1);
    a = (kmp_pt_arena *)__kmp_pt_private_alloc(mb);
    if (!a)
      return NULL;
    a->next = arenas;
    a->map_bytes = mb;
    a->used = hdr;
    a->live = 0;
    arenas = a;
  }
  char *p = (char *)a + a->used;
  a->used += bytes;
  a->live++;
  memset(p, 0, bytes); // an arena's memory is used again
  *owner = a;
  return p;
}

void kmp_pt_pool::free(kmp_pt_arena *a) {
  KMP_DEBUG_ASSERT(a && a->live > 0);
  if (--a->live)
    return;
  if (a == arenas && a->map_bytes == PT_ARENA_BYTES) {
    a->used = PT_ALIGN(sizeof(kmp_pt_arena));
    return;
  }
  kmp_pt_arena **pp = &arenas;
  while (*pp != a)
    pp = &(*pp)->next;
  *pp = a->next;
  __kmp_pt_private_free(a, a->map_bytes);
}

void kmp_pt_pool::release() {
  kmp_pt_arena *a = arenas;
  if (a && !a->live) {
    arenas = a->next;
    __kmp_pt_private_free(a, a->map_bytes);
  }
}

int kmp_pt_pool::ranges(kmp_pt_range *out, int max) const {
  int k = 0;
  for (const kmp_pt_arena *a = arenas; a; a = a->next, k++)
    if (k < max)
      out[k] = {(uintptr_t)a, (uintptr_t)a + a->map_bytes};
  return k;
}

#endif // KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The runtime's hooks: fork(2) and shutdown

// fork(2), from libomp's own pthread_atfork handlers (z_Linux_util.cpp), which
// are registered at libomp's initialisation, before anything can take the
// engines' locks.  The locks are taken in the order libomp's code takes
// them: libomp's (__kmp_initz_lock, __kmp_forkjoin_lock; shutdown holds them
// when it disarms), then the engines' from the last registered to the first
// (libomp registers them so that an engine whose thread may wait for another
// engine's lock while it holds its own registers after that one), then the
// layer's.  The child has one thread: nobody else is in the
// locks or the tables.
void __kmp_pagetrap_atfork(int phase) {
#if KMP_PAGETRAP_SUPPORTED
  if (phase == 0) {
    for (int id = KMP_PT_MAX_ENGINES - 1; id >= 0; id--)
      if (pt_engine(id) && pt_engine(id)->atfork)
        pt_engine(id)->atfork(0);
    __kmp_acquire_bootstrap_lock(&__kmp_pt_lock);
    return;
  }
  if (phase == 1) {
    __kmp_release_bootstrap_lock(&__kmp_pt_lock);
  } else {
    __kmp_init_bootstrap_lock(&__kmp_pt_lock);
    __kmp_pt_written_atfork_child();
  }
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++)
    if (pt_engine(id) && pt_engine(id)->atfork)
      pt_engine(id)->atfork(phase);
#else
  (void)phase;
#endif
}

// Called first in __kmp_cleanup: the program is done with its regions, so
// the engines give back what they hold, and the counters are reported.
void __kmp_pagetrap_cleanup(void) {
  if (!TCR_4(__kmp_pt_initialized))
    return;
#if KMP_PAGETRAP_SUPPORTED
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++)
    if (pt_engine(id) && pt_engine(id)->cleanup)
      pt_engine(id)->cleanup();
#endif
  __kmp_pt_report();
}
