/*
 * kmp_nexttouch.cpp -- affinity-on-next-touch at user level: the settings,
 * start-up, the user API (kmp_nexttouch, kmp_nexttouch_disarm), the
 * compiler entry point (__kmpc_nexttouch), the engine's counters
 * (__kmp_nt_cnt, described to the layer), and the hooks the engine
 * registers with the page-trap layer (kmp_pagetrap.h).
 *
 * A request names byte ranges.  They wait (kmp_nexttouch_request.cpp) until
 * the next fork of a team of more than one thread; kmp_nexttouch_arm.cpp
 * then "arms" them: the pages are made inaccessible and described in a
 * segment table that the fault path (kmp_nexttouch_fault.cpp) reads without
 * locks.  The first access to an armed page by a thread of a running team
 * migrates it to that thread's NUMA node (kmp_nexttouch_migrate.cpp).  Pages
 * stay armed across regions until they are touched, disarmed
 * (kmp_nexttouch_disarm.cpp, KMP_NEXTTOUCH_LIFETIME) or the runtime shuts
 * down.
 *
 * None of this file runs in a signal handler.  See docs/NextTouch.rst (the
 * user guide) and docs/Design.rst.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"

#include <errno.h>
#include <string.h>

// Settings (kmp_settings.cpp parses and prints them).
int __kmp_nexttouch = TRUE; // KMP_NEXTTOUCH
int __kmp_nexttouch_force = FALSE; // KMP_NEXTTOUCH_FORCE
int __kmp_nexttouch_window = 0; // KMP_NEXTTOUCH_WINDOW: 0 adaptive, N pages
int __kmp_nexttouch_max_window = KMP_NEXTTOUCH_MAX_WINDOW; // ..._MAX_WINDOW
int __kmp_nexttouch_thp = TRUE; // KMP_NEXTTOUCH_THP
int __kmp_nexttouch_mechanism = kmp_nexttouch_mechanism_auto;
int __kmp_nexttouch_lifetime = 0; // KMP_NEXTTOUCH_LIFETIME: 0 unlimited

kmp_bootstrap_lock_t __kmp_nt_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(__kmp_nt_lock);
int __kmp_nt_initialized = 0;
int __kmp_nt_active = 0;
int __kmp_nt_mech = kmp_pt_mech_none;

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The hooks the engine registers

// Another engine takes [start, end): the requests there are dropped and
// what is armed there is disarmed where it is.
static int nt_yield(uintptr_t start, uintptr_t end) {
  if (!TCR_4(__kmp_nt_initialized) ||
      (!TCR_4(__kmp_nt_requests.any) && !__kmp_nt_armed()))
    return 0;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  __kmp_nt_request_remove(start, end);
  if (__kmp_nt_armed())
    __kmp_nt_disarm_range(start, end, 0);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  return 0;
}

// The arenas (segments, their items and states), the index, the move_pages
// lists.
static int nt_private_ranges(kmp_pt_range *out, int max) {
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  int k = __kmp_nt_segment_ranges(out, max);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  return k;
}

// KMP_NEXTTOUCH_MECHANISM is the layer's choice of what moves pages.
static_assert((int)kmp_nexttouch_mechanism_auto == kmp_pt_mech_none &&
                  (int)kmp_nexttouch_mechanism_move_pages ==
                      kmp_pt_mech_move_pages &&
                  (int)kmp_nexttouch_mechanism_mbind == kmp_pt_mech_mbind,
              "kmp_nexttouch_mechanism_t and kmp_pt_mech_t disagree");

kmp_nt_counters __kmp_nt_cnt;

#define NT_COUNTER(f) KMP_PT_COUNTER(kmp_nt_counters, f),
static const kmp_pt_counter nt_counter_list[] = {
    KMP_NT_FOREACH_COUNTER(NT_COUNTER)
        KMP_PT_COUNTER_ARRAY(kmp_nt_counters, migrated_to_node, "migrated_to")};
#undef NT_COUNTER
static const kmp_pt_counter_set nt_counters = {
    &__kmp_nt_cnt, nt_counter_list,
    (int)(sizeof nt_counter_list / sizeof nt_counter_list[0])};

static const kmp_pt_engine nt_engine = {
    &__kmp_nexttouch,      &__kmp_nexttouch_force,  &__kmp_nexttouch_mechanism,
    __kmp_nt_fault,        __kmp_nt_buffer,
    /*forced_write=*/NULL,
    /*file_write=*/NULL,   __kmp_nt_mapping_change, nt_yield,
    nt_private_ranges,     __kmp_nt_atfork,         __kmp_nt_cleanup,
    &nt_counters,
};

// ---------------------------------------------------------------------------
// Start-up

// At start-up: does the kernel report MPOL_LOCAL back (Linux 5.14 on; before
// it reported the preferred policy of an empty node set)?  A policy belongs
// to the mapping: its page is never touched.
static void nt_probe_mark() {
  uintptr_t p = (uintptr_t)__kmp_pt_private_alloc(__kmp_pt_page);
  if (!p)
    return;
  __kmp_nt_mark = !__kmp_nt_marked(p) &&
                  __kmp_nt_set_mark(p, __kmp_pt_page, 1) && __kmp_nt_marked(p);
  __kmp_pt_private_free((void *)p, __kmp_pt_page);
}

void __kmp_nt_initialize() {
  __kmp_pt_initialize();
  if (TCR_4(__kmp_nt_initialized))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  if (!__kmp_nt_initialized) {
    __kmp_nt_mech = __kmp_pt_mech;
    __kmp_nt_active = __kmp_nexttouch && __kmp_pt_moves;
    if (__kmp_nt_active) {
      nt_probe_mark();
      __kmp_nt_move_lists_init();
    }
    KMP_MB();
    __kmp_nt_initialized = 1;
  }
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
}

int __kmp_nt_engine_id = KMP_PT_NO_ENGINE;

// While libomp initialises, before the engine's lock is ever taken: fork(2)
// takes the locks of the registered engines.  After readonly: a thread in a
// request may wait for readonly's lock while it holds next-touch's (the
// layer takes the locks of the last registered first).
void __kmp_nexttouch_register() {
  __kmp_nt_engine_id = __kmp_pt_register(&nt_engine);
}

// ---------------------------------------------------------------------------
// Requests

// Requests several ranges; codes[i] holds a code found by the caller (or 0)
// and receives each one's result.  Returns the first error.
static int nt_request(int n, void *const *ptrs, const size_t *lens,
                      int *codes) {
  __kmp_nt_initialize();
  int first = 0;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  for (int i = 0; i < n; i++) {
    uintptr_t start, end;
    int rc = codes[i];
    if (rc == 0) {
      rc = __kmp_pt_check_args(ptrs[i], lens[i], &start, &end);
      if (rc < 0) {
        codes[i] = 0; // zero length: no-op
        continue;
      }
    }
    if (rc == 0) // readonly items there: dropped, or EBUSY
      rc = __kmp_pt_yield(__kmp_nt_engine_id, start, end);
    // The range is checked whether or not requests are recorded here: a
    // program gets the same code on one node as on many.
    if (rc == 0)
      rc = __kmp_nt_check_range(start, end);
    if (rc == 0 && !__kmp_nt_active) {
      KMP_NT_ADD(noop_requests, 1);
      codes[i] = 0;
      continue;
    }
    if (rc == 0) {
      __kmp_nt_request_add((uintptr_t)ptrs[i], (uintptr_t)ptrs[i] + lens[i]);
      KMP_NT_ADD(requests, 1);
    } else {
      KMP_NT_ADD(bad_requests, 1);
    }
    KA_TRACE(20, ("nt_request: [%p, +%llu): %d\n", ptrs[i],
                  (unsigned long long)lens[i], rc));
    codes[i] = rc;
    if (rc && !first)
      first = rc;
  }
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  return first;
}

#else

void __kmp_nexttouch_register() {}

#endif // KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The user API (omp.h)

extern "C" int kmp_nexttouch(void *ptr, size_t len) {
#if KMP_PAGETRAP_SUPPORTED
  int code = 0;
  return nt_request(1, &ptr, &len, &code);
#else
  return len ? ENOSYS : 0;
#endif
}

extern "C" int kmp_nexttouch_disarm(void *ptr, size_t len) {
#if KMP_PAGETRAP_SUPPORTED
  uintptr_t start = 0, end = 0;
  if (ptr || len) {
    int rc = __kmp_pt_check_args(ptr, len, &start, &end);
    if (rc)
      return rc < 0 ? 0 : rc;
  }
  if (!TCR_4(__kmp_nt_initialized))
    return 0;
  __kmp_acquire_bootstrap_lock(&__kmp_nt_lock);
  KA_TRACE(10,
           ("kmp_nexttouch_disarm: [%p, %p)\n", (void *)start, (void *)end));
  if (start == end)
    __kmp_nt_request_clear();
  else
    __kmp_nt_request_remove(start, end);
  if (__kmp_nt_armed())
    __kmp_nt_disarm_range(start, end, 0);
  __kmp_release_bootstrap_lock(&__kmp_nt_lock);
  return 0;
#else
  (void)ptr;
  (void)len;
  return 0;
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

kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid, kmp_int32 nranges,
                           const kmp_memory_range_t *ranges) {
  (void)gtid;
  if (nranges <= 0)
    return nranges == 0 ? 0 : EINVAL;
  if (!ranges)
    return EINVAL;
#if KMP_PAGETRAP_SUPPORTED
  static volatile int warnings = 0;
  enum { CHUNK = 32 };
  int first = 0;
  for (int b = 0; b < nranges; b += CHUNK) {
    int n = nranges - b < CHUNK ? nranges - b : CHUNK;
    void *ptrs[CHUNK];
    size_t lens[CHUNK];
    int codes[CHUNK];
    for (int i = 0; i < n; i++) {
      const kmp_memory_range_t *r = &ranges[b + i];
      codes[i] = __kmp_pt_item_bytes(r->count, r->elem_size, &lens[i]);
      ptrs[i] = r->base;
    }
    nt_request(n, ptrs, lens, codes);
    for (int i = 0; i < n; i++)
      if (codes[i]) {
        const kmp_memory_range_t *r = &ranges[b + i];
        __kmp_pt_warn_item(&warnings, kmp_i18n_msg_NextTouchRangeIgnored, loc,
                           b + i, NULL, r->base, r->count, r->elem_size,
                           nt_reason(codes[i]));
        if (!first)
          first = codes[i];
      }
  }
  return first;
#else
  return 0;
#endif
}
