/*
 * kmp_nexttouch_request.cpp -- affinity-on-next-touch: the requests waiting
 * to be armed, and which ranges may be requested.
 *
 * A request names byte ranges; they wait in a sorted list, merged where they
 * overlap or meet, until the next fork of a team of more than one thread
 * arms the whole pages inside them (kmp_nexttouch_arm.cpp).  The functions of
 * this file own that list
 * (__kmp_nt_requests); they run under __kmp_nt_lock, never in a signal
 * handler.
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
#include <string.h>
#include <sys/mman.h>

kmp_nt_requests __kmp_nt_requests;
static kmp_nt_requests &nt_req = __kmp_nt_requests;

// Remember an item for the batch limit; past KMP_NT_MAX_ITEMS the items of
// the next arming get no partition hints (their batches stop at segment
// ends only).
static void nt_add_item(uintptr_t start, uintptr_t end) {
  if (!nt_req.items) {
    // Not cleared: a program with few items never faults in the rest.
    nt_req.items = (kmp_pt_range *)KMP_INTERNAL_MALLOC(sizeof(kmp_pt_range) *
                                                       KMP_NT_MAX_ITEMS);
    if (!nt_req.items)
      KMP_FATAL(MemoryAllocFailed);
  }
  for (int i = nt_req.nitems - 1; i >= 0 && i >= nt_req.nitems - 8; i--)
    if (nt_req.items[i].start == start && nt_req.items[i].end == end)
      return; // asked again
  if (nt_req.nitems < KMP_NT_MAX_ITEMS)
    nt_req.items[nt_req.nitems++] = {start, end};
}

static void nt_add_range(uintptr_t start, uintptr_t end) {
  // Keep the list sorted and disjoint: merge what overlaps or touches.
  int i = 0;
  while (i < nt_req.nranges && nt_req.ranges[i].end < start)
    i++;
  int j = i;
  while (j < nt_req.nranges && nt_req.ranges[j].start <= end) {
    if (nt_req.ranges[j].start < start)
      start = nt_req.ranges[j].start;
    if (nt_req.ranges[j].end > end)
      end = nt_req.ranges[j].end;
    j++;
  }
  // Replace [i, j) by one range.
  if (i == j) {
    if (nt_req.nranges == nt_req.cap) {
      int cap = nt_req.cap ? 2 * nt_req.cap : 16;
      kmp_pt_range *n = (kmp_pt_range *)__kmp_allocate(sizeof(*n) * cap);
      if (nt_req.ranges) {
        memcpy(n, nt_req.ranges, sizeof(*n) * nt_req.nranges);
        __kmp_free(nt_req.ranges);
      }
      nt_req.ranges = n;
      nt_req.cap = cap;
    }
    memmove(&nt_req.ranges[i + 1], &nt_req.ranges[i],
            sizeof(kmp_pt_range) * (nt_req.nranges - i));
    nt_req.nranges++;
  } else if (j > i + 1) {
    memmove(&nt_req.ranges[i + 1], &nt_req.ranges[j],
            sizeof(kmp_pt_range) * (nt_req.nranges - j));
    nt_req.nranges -= j - i - 1;
  }
  nt_req.ranges[i].start = start;
  nt_req.ranges[i].end = end;
  TCW_4(nt_req.any, 1);
}

void __kmp_nt_request_remove(uintptr_t start, uintptr_t end) {
  int k = 0;
  for (int i = 0; i < nt_req.nranges; i++) {
    kmp_pt_range r = nt_req.ranges[i];
    if (r.end <= start || r.start >= end) {
      nt_req.ranges[k++] = r;
      continue;
    }
    if (r.start < start && r.end > end) { // a hole in the middle
      kmp_pt_range hi = {end, r.end};
      nt_req.ranges[k].start = r.start;
      nt_req.ranges[k++].end = start;
      nt_req.nranges = k + (nt_req.nranges - i - 1);
      memmove(&nt_req.ranges[k], &nt_req.ranges[i + 1],
              sizeof(kmp_pt_range) * (nt_req.nranges - k));
      nt_add_range(hi.start, hi.end);
      return;
    }
    if (r.start < start)
      nt_req.ranges[k++] = {r.start, start};
    else if (r.end > end)
      nt_req.ranges[k++] = {end, r.end};
  }
  nt_req.nranges = k;
  if (!k) {
    nt_req.nitems = 0;
    TCW_4(nt_req.any, 0);
  }
}

void __kmp_nt_request_add(uintptr_t start, uintptr_t end) {
  nt_add_range(start, end);
  nt_add_item(start, end);
}

kmp_uint64 __kmp_nt_request_clear() {
  kmp_uint64 pages = 0;
  for (int i = 0; i < nt_req.nranges; i++) {
    uintptr_t ps, pe;
    if (__kmp_nt_inner_pages(nt_req.ranges[i].start, nt_req.ranges[i].end, &ps,
                             &pe))
      pages += (pe - ps) >> __kmp_pt_page_shift;
  }
  nt_req.nranges = 0;
  nt_req.nitems = 0;
  TCW_4(nt_req.any, 0);
  return pages;
}

// ---------------------------------------------------------------------------
// Which ranges may be requested

// Is [a, b) armed memory of the engine's (under __kmp_nt_lock)?  Armed (or
// claimed) units are PROT_NONE until the pages are touched; other PROT_NONE
// memory in a segment's extent (moved there by mremap, or mapped there by
// the program) is not read-write data.  A unit done since the VMAs were read
// (a fault in a running region) is read-write again by now.
static int nt_armed(uintptr_t a, uintptr_t b) {
  while (a < b) {
    kmp_nt_segment *in = NULL;
    for (int i = 0; i < __kmp_nt_table.hwm && !in; i++) {
      kmp_nt_segment *s = __kmp_nt_table.slot[i];
      if (s && s->base <= a && a < s->end && s->prot & PROT_WRITE)
        in = s;
    }
    if (!in)
      return 0;
    uintptr_t e = b < in->end ? b : in->end;
    for (size_t u = (a - in->base) >> in->shift;
         in->base + (u << in->shift) < e; u++)
      if (__atomic_load_n(&in->state[u], __ATOMIC_ACQUIRE) == KMP_NT_DONE &&
          !__kmp_pt_readable(in->base + (u << in->shift)))
        return 0;
    a = e;
  }
  return 1;
}

int __kmp_nt_check_range(const kmp_pt_vma *v, int n, uintptr_t start,
                         uintptr_t end, const kmp_pt_range *my_stack) {
  if (start < my_stack->end && end > my_stack->start)
    return EINVAL;
  uintptr_t at = start;
  for (int i = 0; i < n && at < end; i++) {
    if (v[i].end <= at)
      continue;
    if (v[i].start > at)
      return EFAULT;
    uintptr_t e = v[i].end < end ? v[i].end : end;
    int prot = v[i].prot;
    if (prot == PROT_NONE && nt_armed(at, e))
      prot = PROT_READ | PROT_WRITE; // still armed by an earlier request
    if ((prot & (PROT_READ | PROT_WRITE)) != (PROT_READ | PROT_WRITE) ||
        (prot & PROT_EXEC))
      return EACCES;
    if (v[i].stack)
      return EINVAL;
    at = v[i].end;
  }
  return at < end ? EFAULT : 0;
}

#endif // KMP_PAGETRAP_SUPPORTED
