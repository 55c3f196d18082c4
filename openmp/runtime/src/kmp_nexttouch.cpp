/*
 * kmp_nexttouch.cpp -- affinity-on-next-touch at user level: requests, the
 * user API and the compiler entry point, the settings, start-up.
 *
 * A request names byte ranges.  They wait in a pending list until the next
 * fork of a team of more than one thread; kmp_nexttouch_arm.cpp then "arms"
 * them: the pages are made inaccessible and described in a segment table
 * that the SIGSEGV handler (kmp_nexttouch_fault.cpp) reads without locks.
 * The first access to an armed page by a thread of a running team migrates
 * it to that thread's NUMA node (kmp_nexttouch_migrate.cpp).  Pages stay
 * armed across regions until they are touched, disarmed (kmp_nexttouch_disarm,
 * KMP_NEXTTOUCH_LIFETIME) or the runtime shuts down.
 *
 * None of this file runs in a signal handler.  See docs/NextTouch.rst.
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
#include "kmp_str.h"

#include <errno.h>
#include <string.h>
#if KMP_NEXTTOUCH_SUPPORTED
#include <unistd.h>
#endif

// Settings (kmp_settings.cpp parses and prints them).
int __kmp_nexttouch = TRUE; // KMP_NEXTTOUCH
int __kmp_nexttouch_force = FALSE; // KMP_NEXTTOUCH_FORCE
int __kmp_nexttouch_window = 0; // KMP_NEXTTOUCH_WINDOW: 0 adaptive, N pages
int __kmp_nexttouch_max_window = KMP_NEXTTOUCH_MAX_WINDOW; // ..._MAX_WINDOW
int __kmp_nexttouch_thp = TRUE; // KMP_NEXTTOUCH_THP
int __kmp_nexttouch_mechanism = kmp_nexttouch_mechanism_auto;
int __kmp_nexttouch_lifetime = 0; // KMP_NEXTTOUCH_LIFETIME: 0 unlimited
int __kmp_nexttouch_report = FALSE; // KMP_NEXTTOUCH_COUNTERS

volatile int __kmp_nexttouch_pending = 0;
volatile int __kmp_nexttouch_armed = 0;

kmp_bootstrap_lock_t __kmp_nt_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(__kmp_nt_lock);
int __kmp_nt_initialized = 0;
int __kmp_nt_active = 0;
int __kmp_nt_mech = kmp_nt_mech_none;
int __kmp_nt_num_nodes = 1;
long __kmp_nt_page = 4096;
unsigned __kmp_nt_page_shift = 12;
unsigned __kmp_nt_thp_shift = 21;

const char *__kmp_nt_mech_name(int m) {
  return m == kmp_nt_mech_move_pages ? "move_pages"
         : m == kmp_nt_mech_mbind    ? "mbind"
                                     : "none";
}

#if KMP_NEXTTOUCH_SUPPORTED

// The size of a PMD-mapped transparent huge page: the kernel says it; else a
// page table page's worth of base pages.
static unsigned nt_thp_shift(unsigned page_shift) {
  unsigned long bytes = 0;
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
  if (f) {
    if (fscanf(f, "%lu", &bytes) != 1)
      bytes = 0;
    fclose(f);
  }
  if (!bytes || (bytes & (bytes - 1)))
    bytes = ((unsigned long)1 << page_shift) / sizeof(void *)
            << page_shift;
  unsigned s = page_shift;
  while (((unsigned long)1 << s) < bytes)
    s++;
  return s;
}

static void nt_initialize_locked() {
  __kmp_nt_page = sysconf(_SC_PAGESIZE);
  __kmp_nt_page_shift = 0;
  while ((1L << __kmp_nt_page_shift) < __kmp_nt_page)
    __kmp_nt_page_shift++;
  __kmp_nt_thp_shift = nt_thp_shift(__kmp_nt_page_shift);
  // The readonly engine (kmp_readonly*.cpp) needs the topology too.
  if (__kmp_nexttouch || __kmp_readonly) {
    const char *why = NULL;
    __kmp_nt_num_nodes = __kmp_nt_topology(&why);
    if (why && !__kmp_nexttouch_force && !__kmp_readonly_force)
      KMP_WARNING(NextTouchNoTopology, why);
  }
  if (__kmp_nexttouch) {
    if (__kmp_nt_num_nodes > 1)
      __kmp_nt_mech = __kmp_nt_probe_mechanism();
    if (__kmp_nexttouch_mechanism == kmp_nexttouch_mechanism_move_pages)
      __kmp_nt_mech = kmp_nt_mech_move_pages;
    else if (__kmp_nexttouch_mechanism == kmp_nexttouch_mechanism_mbind)
      __kmp_nt_mech = kmp_nt_mech_mbind;
    if (__kmp_nexttouch_force && __kmp_nt_mech == kmp_nt_mech_none)
      __kmp_nt_mech = kmp_nt_mech_move_pages; // nothing moves on one node
    __kmp_nt_active = __kmp_nexttouch_force ||
                      (__kmp_nt_num_nodes > 1 && __kmp_nt_mech != kmp_nt_mech_none);
    if (__kmp_nt_active)
      __kmp_nt_probe_mark();
  }
  KMP_MB();
  __kmp_nt_initialized = 1;
}

#endif // KMP_NEXTTOUCH_SUPPORTED

void __kmp_nt_initialize() {
  if (!TCR_4(__kmp_init_serial))
    __kmp_serial_initialize();
  if (TCR_4(__kmp_nt_initialized))
    return;
#if KMP_NEXTTOUCH_SUPPORTED
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  if (!__kmp_nt_initialized)
    nt_initialize_locked();
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
#else
  __kmp_nt_initialized = 1;
#endif
}

#if KMP_NEXTTOUCH_SUPPORTED

// ---------------------------------------------------------------------------
// Requests

kmp_nt_range *__kmp_nt_pending = NULL;
int __kmp_nt_npending = 0;
static int nt_cap_pending = 0;
kmp_nt_range *__kmp_nt_items = NULL;
int __kmp_nt_nitems = 0;

// Remember an item for the batch limit; past KMP_NT_MAX_ITEMS the items of
// the next arming get no partition hints (their batches stop at segment
// ends only).
static void nt_add_item(uintptr_t start, uintptr_t end) {
  if (!__kmp_nt_items)
    __kmp_nt_items = (kmp_nt_range *)__kmp_allocate(sizeof(kmp_nt_range) *
                                                    KMP_NT_MAX_ITEMS);
  for (int i = __kmp_nt_nitems - 1; i >= 0 && i >= __kmp_nt_nitems - 8; i--)
    if (__kmp_nt_items[i].start == start && __kmp_nt_items[i].end == end)
      return; // asked again
  if (__kmp_nt_nitems < KMP_NT_MAX_ITEMS)
    __kmp_nt_items[__kmp_nt_nitems++] = {start, end};
}

static int nt_add_pending(uintptr_t start, uintptr_t end) {
  // Keep the list sorted and disjoint: merge what overlaps or touches.
  int i = 0;
  while (i < __kmp_nt_npending && __kmp_nt_pending[i].end < start)
    i++;
  int j = i;
  while (j < __kmp_nt_npending && __kmp_nt_pending[j].start <= end) {
    if (__kmp_nt_pending[j].start < start)
      start = __kmp_nt_pending[j].start;
    if (__kmp_nt_pending[j].end > end)
      end = __kmp_nt_pending[j].end;
    j++;
  }
  // Replace [i, j) by one range.
  if (i == j) {
    if (__kmp_nt_npending == nt_cap_pending) {
      int cap = nt_cap_pending ? 2 * nt_cap_pending : 16;
      kmp_nt_range *n = (kmp_nt_range *)__kmp_allocate(sizeof(*n) * cap);
      if (__kmp_nt_pending) {
        memcpy(n, __kmp_nt_pending, sizeof(*n) * __kmp_nt_npending);
        __kmp_free(__kmp_nt_pending);
      }
      __kmp_nt_pending = n;
      nt_cap_pending = cap;
    }
    memmove(&__kmp_nt_pending[i + 1], &__kmp_nt_pending[i],
            sizeof(kmp_nt_range) * (__kmp_nt_npending - i));
    __kmp_nt_npending++;
  } else if (j > i + 1) {
    memmove(&__kmp_nt_pending[i + 1], &__kmp_nt_pending[j],
            sizeof(kmp_nt_range) * (__kmp_nt_npending - j));
    __kmp_nt_npending -= j - i - 1;
  }
  __kmp_nt_pending[i].start = start;
  __kmp_nt_pending[i].end = end;
  TCW_4(__kmp_nexttouch_pending, 1);
  return 0;
}

// Drop [start, end) from the pending list.
void __kmp_nt_remove_pending(uintptr_t start, uintptr_t end) {
  int k = 0;
  for (int i = 0; i < __kmp_nt_npending; i++) {
    kmp_nt_range r = __kmp_nt_pending[i];
    if (r.end <= start || r.start >= end) {
      __kmp_nt_pending[k++] = r;
      continue;
    }
    if (r.start < start && r.end > end) { // a hole in the middle
      kmp_nt_range hi = {end, r.end};
      __kmp_nt_pending[k].start = r.start;
      __kmp_nt_pending[k++].end = start;
      __kmp_nt_npending = k + (__kmp_nt_npending - i - 1);
      memmove(&__kmp_nt_pending[k], &__kmp_nt_pending[i + 1],
              sizeof(kmp_nt_range) * (__kmp_nt_npending - k));
      nt_add_pending(hi.start, hi.end);
      return;
    }
    if (r.start < start)
      __kmp_nt_pending[k++] = {r.start, start};
    else if (r.end > end)
      __kmp_nt_pending[k++] = {end, r.end};
  }
  __kmp_nt_npending = k;
  if (!k)
    TCW_4(__kmp_nexttouch_pending, 0);
}

// First checks, valid whether or not the engine is active: -1 for a no-op
// (zero length), 0 with the page-aligned range in *pstart/*pend, or an error.
static int nt_check_args(void *ptr, size_t len, uintptr_t *pstart,
                         uintptr_t *pend) {
  if (len == 0)
    return -1;
  if (ptr == NULL)
    return EINVAL;
  uintptr_t p = (uintptr_t)ptr, pg = (uintptr_t)__kmp_nt_page;
  if (len > (size_t)PTRDIFF_MAX || p > UINTPTR_MAX - len ||
      p + len > UINTPTR_MAX - pg)
    return EOVERFLOW;
  *pstart = p & ~(pg - 1);
  *pend = (p + len + pg - 1) & ~(pg - 1);
  return 0;
}

// Requests several ranges; codes[i] holds a code found by the caller (or 0)
// and receives each one's result.  Returns the first error.
static int nt_request(int n, void *const *ptrs, const size_t *lens,
                      int *codes) {
  __kmp_nt_initialize();
  int first = 0;
  kmp_nt_vma *vmas = NULL;
  int nvmas = -1;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  for (int i = 0; i < n; i++) {
    uintptr_t start, end;
    int rc = codes[i];
    if (rc == 0) {
      rc = nt_check_args(ptrs[i], lens[i], &start, &end);
      if (rc < 0) {
        codes[i] = 0; // zero length: no-op
        continue;
      }
    }
    if (rc == 0)
      rc = __kmp_ro_yield_range(start, end); // readonly items there: dropped
    // The range is checked whether or not requests are recorded here: a
    // program gets the same code on one node as on many.
    if (rc == 0) {
      if (nvmas < 0)
        nvmas = __kmp_nt_read_maps(&vmas, 0);
      rc = nvmas < 0 ? ENOMEM : __kmp_nt_check_range(vmas, nvmas, start, end);
    }
    if (rc == 0 && !__kmp_nt_active) {
      KMP_NT_ADD(noop_requests, 1);
      codes[i] = 0;
      continue;
    }
    if (rc == 0)
      rc = nt_add_pending(start, end);
    if (rc == 0)
      nt_add_item((uintptr_t)ptrs[i], (uintptr_t)ptrs[i] + lens[i]);
    if (rc == 0)
      KMP_NT_ADD(requests, 1);
    else
      KMP_NT_ADD(bad_requests, 1);
    codes[i] = rc;
    if (rc && !first)
      first = rc;
  }
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  if (vmas)
    __kmp_free(vmas);
  return first;
}

#endif // KMP_NEXTTOUCH_SUPPORTED

extern "C" int kmp_nexttouch(void *ptr, size_t len) {
#if KMP_NEXTTOUCH_SUPPORTED
  int code = 0;
  return nt_request(1, &ptr, &len, &code);
#else
  return len ? ENOSYS : 0;
#endif
}

// ---------------------------------------------------------------------------
// The compiler's entry point

static kmp_i18n_id_t nt_reason(int e) {
  switch (e) {
  case EINVAL:
    return kmp_i18n_str_NextTouchEINVAL;
  case EOVERFLOW:
    return kmp_i18n_str_NextTouchEOVERFLOW;
  case EFAULT:
    return kmp_i18n_str_NextTouchEFAULT;
  case EACCES:
    return kmp_i18n_str_NextTouchEACCES;
  case EBUSY:
    return kmp_i18n_str_NextTouchEBUSY;
  default:
    return kmp_i18n_str_NextTouchENOMEM;
  }
}

void __kmp_nt_describe_item(kmp_str_buf_t *where, kmp_str_buf_t *what,
                            ident_t *loc, const char *name, const void *base,
                            size_t count, size_t elem_size) {
  kmp_str_loc_t l = __kmp_str_loc_init(loc ? loc->psource : NULL, false);
  __kmp_str_buf_init(where);
  __kmp_str_buf_init(what);
  __kmp_str_buf_print(where, "%s:%d:%d (%s)", l.file ? l.file : "unknown",
                      l.line, l.col, l.func ? l.func : "?");
  if (name)
    __kmp_str_buf_print(what, "'%s', ", name);
  __kmp_str_buf_print(what,
                      "base %p, %" KMP_UINT64_SPEC " elements of %" KMP_UINT64_SPEC
                      " bytes",
                      base, (kmp_uint64)count, (kmp_uint64)elem_size);
  __kmp_str_loc_free(&l);
}

// One warning per bad range (KMP_WARNINGS=off silences them), at most 20.
static void nt_warn(ident_t *loc, int idx, const kmp_nexttouch_range_t *r,
                    int code) {
  static int warnings = 0;
  if (__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED) >= 20)
    return;
  kmp_str_buf_t where, what;
  __kmp_nt_describe_item(&where, &what, loc, NULL, r->base, r->count,
                         r->elem_size);
  KMP_WARNING(NextTouchRangeIgnored, where.str, idx, what.str,
              __kmp_i18n_catgets(nt_reason(code)));
  __kmp_str_buf_free(&where);
  __kmp_str_buf_free(&what);
}

kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid, kmp_int32 nranges,
                           const kmp_nexttouch_range_t *ranges) {
  (void)gtid;
  if (nranges <= 0)
    return nranges == 0 ? 0 : EINVAL;
  if (!ranges)
    return EINVAL;
#if KMP_NEXTTOUCH_SUPPORTED
  enum { CHUNK = 32 };
  int first = 0;
  for (int b = 0; b < nranges; b += CHUNK) {
    int n = nranges - b < CHUNK ? nranges - b : CHUNK;
    void *ptrs[CHUNK];
    size_t lens[CHUNK];
    int codes[CHUNK];
    for (int i = 0; i < n; i++) {
      const kmp_nexttouch_range_t *r = &ranges[b + i];
      size_t bytes = 0;
      codes[i] = 0;
      if (r->count && !r->elem_size)
        codes[i] = EINVAL;
      else if (__builtin_mul_overflow(r->count, r->elem_size, &bytes))
        codes[i] = EOVERFLOW;
      ptrs[i] = r->base;
      lens[i] = bytes;
    }
    nt_request(n, ptrs, lens, codes);
    for (int i = 0; i < n; i++)
      if (codes[i]) {
        nt_warn(loc, b + i, &ranges[b + i], codes[i]);
        if (!first)
          first = codes[i];
      }
  }
  return first;
#else
  return 0;
#endif
}
