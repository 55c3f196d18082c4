/*
 * kmp_nexttouch_disarm.cpp -- affinity-on-next-touch: ending arming
 * (KMP_NEXTTOUCH_LIFETIME at a join, kmp_nexttouch_disarm, another engine
 * taking the range, shutdown, the program's own mapping changes) and freeing
 * the segments nothing is armed in.
 *
 * Never runs in a signal handler, except __kmp_nt_disarm_units and
 * __kmp_nt_mapping_change (lock-free, async-signal-safe: the wrappers of
 * kmp_pagetrap_mm.cpp call them in the program's threads).  The rest runs
 * under __kmp_nt_lock, on the primary thread of a joining team or in the
 * calling thread of the API, and frees a segment only once no fault path is
 * inside the table.
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
#include <pthread.h>
#endif

#if KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// Ending arming

// Claim what is still armed in [lo, hi) of seg so that no fault migrates it
// meanwhile, give it its protection back where it is, and release it.
// Returns the pages disarmed.
kmp_uint64 __kmp_nt_disarm_units(kmp_nt_segment *seg, size_t lo, size_t hi) {
  kmp_uint64 left = 0;
  for (size_t u = lo; u < hi;) {
    unsigned char s = __atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE);
    if (!(s & KMP_NT_ARMED) ||
        !__atomic_compare_exchange_n(&seg->state[u], &s, KMP_NT_CLAIMED, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      u++;
      continue;
    }
    size_t e = u + 1;
    for (; e < hi; e++) {
      unsigned char t = __atomic_load_n(&seg->state[e], __ATOMIC_ACQUIRE);
      if (!(t & KMP_NT_ARMED) || !__atomic_compare_exchange_n(
                                     &seg->state[e], &t, KMP_NT_CLAIMED, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        break;
    }
    left += e - u;
    __kmp_nt_restore(seg, u, e - u, 0);
    __kmp_nt_done(seg, u, e - u);
    u = e;
  }
  return left * __kmp_nt_unit_pages(seg);
}

// The segments that have nothing armed left (touched or disarmed) are
// freed, so the index does not grow in long runs.  Nothing to do unless a
// segment was emptied since the last sweep (__kmp_nt_emptied).
void __kmp_nt_sweep() {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  static kmp_uint64 seen = 0;
  kmp_uint64 emptied = __atomic_load_n(&__kmp_nt_emptied, __ATOMIC_ACQUIRE);
  if (emptied == seen && __kmp_nt_table.size())
    return;
  seen = emptied;
  int remaining = 0;
  __kmp_nt_table.update(
      [&](kmp_nt_segment *s) {
        int keep = __atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE) != 0;
        remaining += keep;
        return keep;
      },
      [](kmp_nt_segment *s) { __kmp_nt_free_segment(s); });
  KA_TRACE(20, ("__kmp_nt_sweep: %d segments left\n", remaining));
  if (!remaining)
    __kmp_pt_set_watched(__kmp_nt_engine_id, 0);
}

// The pages are counted in pages_disarmed or pages_expired.
void __kmp_nt_disarm_range(uintptr_t start, uintptr_t end, int expired) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock) && start <= end);
  kmp_uint64 t0 = __kmp_pt_now_ns(), pages = 0;
  int all = start == 0 && end == 0;
  if (expired) { // anything to do?  Most joins have nothing.
    int any = 0;
    for (int i = 0; i < __kmp_nt_table.size() && !any; i++)
      any = __kmp_nt_forks - __kmp_nt_table.at(i)->armed_at >=
            (kmp_uint64)__kmp_nexttouch_lifetime;
    if (!any)
      return __kmp_nt_sweep();
  }
  // Units are claimed only while every asynchronous signal is blocked: a
  // handler that touches them (a write() of the pages) would wait for this
  // frame, which it interrupted, for ever.
  sigset_t sigs;
  __kmp_pt_block_async(&sigs);
  int nvmas;
  kmp_pt_vma *vmas = __kmp_nt_check_armed(&nvmas, 0);
  if (vmas)
    __kmp_pt_free_maps(vmas);
  int i0 =
      all || expired
          ? 0
          : kmp_pt_index<kmp_nt_segment>::lower(__kmp_nt_table.get(), start);
  for (int i = i0; i < __kmp_nt_table.size(); i++) {
    kmp_nt_segment *s = __kmp_nt_table.at(i);
    if (!all && !expired && s->base >= end)
      break;
    if (expired) {
      if (__kmp_nt_forks - s->armed_at < (kmp_uint64)__kmp_nexttouch_lifetime)
        continue;
    } else if (!all && (s->end <= start || s->base >= end)) {
      continue;
    }
    uintptr_t a = all || expired || start < s->base ? s->base : start;
    uintptr_t b = all || expired || end > s->end ? s->end : end;
    size_t lo = (a - s->base) >> s->shift;
    size_t hi = (b - s->base + ((uintptr_t)1 << s->shift) - 1) >> s->shift;
    pages += __kmp_nt_disarm_units(s, lo, hi);
  }
  __kmp_pt_real_sigmask(SIG_SETMASK, &sigs, NULL);
  KA_TRACE(10, ("__kmp_nt_disarm_range: [%p, %p)%s: %llu pages\n",
                (void *)start, (void *)end, expired ? " (expired)" : "",
                (unsigned long long)pages));
  if (expired)
    KMP_NT_ADD(pages_expired, pages);
  else
    KMP_NT_ADD(pages_disarmed, pages);
  __kmp_nt_sweep();
  KMP_NT_ADD(disarm_ns, __kmp_pt_now_ns() - t0);
}

// The program is about to change the mapping or the content of [a, e): the
// armed units there are disarmed where they are, so that no batch opens
// them afterwards and the call finds the protection the program gave.  A THP
// unit that the range cuts is disarmed whole.  Lock-free, like the fault
// path; runs in the program's thread, also inside its signal handlers.
void __kmp_nt_mapping_change(uintptr_t a, uintptr_t e) {
  if (!__kmp_nt_armed())
    return;
  kmp_uint64 pages = 0;
  __kmp_nt_each_armed(a, e, [&](kmp_nt_segment *s, uintptr_t lo, uintptr_t hi) {
    uintptr_t usz = (uintptr_t)1 << s->shift;
    pages += __kmp_nt_disarm_units(s, (lo - s->base) >> s->shift,
                                   (hi - s->base + usz - 1) >> s->shift);
  });
  if (pages)
    KMP_NT_ADD(pages_disarmed, pages);
}

#endif // KMP_PAGETRAP_SUPPORTED
