/*
 * kmp_nexttouch_request.cpp -- affinity-on-next-touch: the requests waiting
 * to be armed, and which ranges may be requested.
 *
 * A request names byte ranges; they wait in a list, sorted and merged where
 * they overlap or meet when arming needs them, until the next fork of a team
 * of more than one thread arms the whole pages inside them
 * (kmp_nexttouch_arm.cpp).  A request is checked against a copy of the
 * process's mappings, read again only when a mapping changed.  The
 * functions of this file own the list (__kmp_nt_requests) and the copy;
 * they run under __kmp_nt_lock, never in a signal handler.
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
#include <sys/syscall.h>
#include <unistd.h>

kmp_nt_requests __kmp_nt_requests;
static kmp_nt_requests &nt_req = __kmp_nt_requests;

// Room for one more of `*n` entries in *a (capacity *cap).
static void nt_grow(kmp_pt_range **a, size_t n, size_t *cap) {
  if (n < *cap)
    return;
  size_t c = *cap ? 2 * *cap : 64;
  kmp_pt_range *p = (kmp_pt_range *)__kmp_allocate(sizeof(*p) * c);
  if (*a) {
    memcpy(p, *a, sizeof(*p) * n);
    __kmp_free(*a);
  }
  *a = p;
  *cap = c;
}

static int nt_cmp_range(const void *a, const void *b) {
  const kmp_pt_range *x = (const kmp_pt_range *)a, *y = (const kmp_pt_range *)b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

// The items sorted and without repeats (the first nt_items_sorted are).
static size_t nt_items_sorted;
static void nt_sort_items() {
  if (!nt_req.nitems)
    return;
  qsort(nt_req.items, nt_req.nitems, sizeof(kmp_pt_range), nt_cmp_range);
  size_t k = 0;
  for (size_t i = 1; i < nt_req.nitems; i++)
    if (nt_req.items[i].start != nt_req.items[k].start ||
        nt_req.items[i].end != nt_req.items[k].end)
      nt_req.items[++k] = nt_req.items[i];
  nt_req.nitems = nt_items_sorted = k + 1;
}

// Remember an item for the batch limit.
static void nt_add_item(uintptr_t start, uintptr_t end) {
  for (size_t i = nt_req.nitems; i > 0 && i + 8 > nt_req.nitems; i--)
    if (nt_req.items[i - 1].start == start && nt_req.items[i - 1].end == end)
      return; // asked again
  nt_grow(&nt_req.items, nt_req.nitems, &nt_req.items_cap);
  nt_req.items[nt_req.nitems++] = {start, end};
  if (nt_req.nitems - nt_items_sorted > 1024 &&
      nt_req.nitems - nt_items_sorted > nt_items_sorted)
    nt_sort_items();
}

// Appended; sorted and merged when arming needs them, and whenever the
// unsorted tail is as long as the sorted head (a program that asks for the
// same ranges again and again without a parallel region keeps a list as
// long as what it asked for).
static void nt_add_range(uintptr_t start, uintptr_t end) {
  KMP_DEBUG_ASSERT(start < end);
  if (nt_req.nranges) {
    kmp_pt_range *last = &nt_req.ranges[nt_req.nranges - 1];
    if (last->start <= start && end <= last->end)
      return;
    if (last->start <= start && start <= last->end) { // extends the last
      last->end = end;
      return;
    }
  }
  int in_order =
      nt_req.sorted == nt_req.nranges &&
      (!nt_req.nranges || start > nt_req.ranges[nt_req.nranges - 1].end);
  nt_grow(&nt_req.ranges, nt_req.nranges, &nt_req.cap);
  nt_req.ranges[nt_req.nranges++] = {start, end};
  if (in_order)
    nt_req.sorted = nt_req.nranges;
  else if (nt_req.nranges - nt_req.sorted > 1024 &&
           nt_req.nranges - nt_req.sorted > nt_req.sorted)
    __kmp_nt_request_sort();
  TCW_4(nt_req.any, 1);
}

// Are the ranges [0, n) sorted and disjoint, not even meeting?  For
// KMP_DEBUG_ASSERT.
[[maybe_unused]] static bool nt_ranges_ordered(size_t n) {
  for (size_t i = 1; i < n; i++)
    if (nt_req.ranges[i - 1].end >= nt_req.ranges[i].start)
      return false;
  return true;
}

void __kmp_nt_request_sort() {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  KMP_DEBUG_ASSERT(nt_ranges_ordered(nt_req.sorted));
  if (nt_req.sorted < nt_req.nranges) {
    nt_req.nranges = __kmp_pt_ranges_merge(nt_req.ranges, nt_req.nranges);
    nt_req.sorted = nt_req.nranges;
  }
  KMP_DEBUG_ASSERT(nt_ranges_ordered(nt_req.nranges));
  nt_sort_items();
}

void __kmp_nt_request_remove(uintptr_t start, uintptr_t end) {
  if (!nt_req.nranges)
    return;
  __kmp_nt_request_sort();
  // A range holds [start, end) in its middle at most once: one more.
  nt_grow(&nt_req.ranges, nt_req.nranges, &nt_req.cap);
  size_t k = 0;
  for (size_t i = 0; i < nt_req.nranges; i++) {
    kmp_pt_range r = nt_req.ranges[i];
    if (r.end <= start || r.start >= end) {
      nt_req.ranges[k++] = r;
    } else if (r.start < start && r.end > end) { // a hole in the middle
      memmove(&nt_req.ranges[i + 2], &nt_req.ranges[i + 1],
              sizeof(kmp_pt_range) * (nt_req.nranges - i - 1));
      nt_req.ranges[k++] = {r.start, start};
      nt_req.ranges[k++] = {end, r.end};
      i++;
      nt_req.nranges++;
    } else if (r.start < start) {
      nt_req.ranges[k++] = {r.start, start};
    } else if (r.end > end) {
      nt_req.ranges[k++] = {end, r.end};
    }
  }
  nt_req.nranges = nt_req.sorted = k;
  KMP_DEBUG_ASSERT(nt_ranges_ordered(k));
  KA_TRACE(20, ("__kmp_nt_request_remove: [%p, %p), %llu ranges left\n",
                (void *)start, (void *)end, (unsigned long long)k));
  if (!k) {
    nt_req.nitems = nt_items_sorted = 0;
    TCW_4(nt_req.any, 0);
  }
}

void __kmp_nt_request_add(uintptr_t start, uintptr_t end) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock));
  nt_add_range(start, end);
  nt_add_item(start, end);
}

kmp_uint64 __kmp_nt_request_clear() {
  __kmp_nt_request_sort();
  kmp_uint64 pages = 0;
  for (size_t i = 0; i < nt_req.nranges; i++) {
    uintptr_t ps, pe;
    if (__kmp_nt_inner_pages(nt_req.ranges[i].start, nt_req.ranges[i].end, &ps,
                             &pe))
      pages += (pe - ps) >> __kmp_pt_page_shift;
  }
  nt_req.nranges = nt_req.sorted = 0;
  nt_req.nitems = nt_items_sorted = 0;
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
    kmp_nt_segment *in =
        kmp_pt_index<kmp_nt_segment>::find(__kmp_nt_table.get(), a);
    if (!in || !(in->prot & PROT_WRITE))
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

// The copy of the process's mappings that requests are checked against,
// with the runtime's own mappings (sorted, merged), under __kmp_nt_lock.
// It holds while __kmp_pt_maps_gen stays at `gen`.  A request found in it
// is also asked of the kernel (msync): the C library's own munmap (free()
// of a large block) is not seen.
static struct {
  kmp_pt_vma *v;
  int n;
  kmp_pt_range *priv;
  int npriv;
  kmp_uint64 gen;
  kmp_uint64 serial; // copies read so far
} nt_maps;
// The calling thread's stack, guard included, as found in copy `serial`.
static __thread kmp_uint64 nt_tls_stack_serial;
static __thread kmp_pt_range nt_tls_stack;

void __kmp_nt_check_reset() {
  if (nt_maps.v)
    __kmp_pt_free_maps(nt_maps.v);
  if (nt_maps.priv)
    KMP_INTERNAL_FREE(nt_maps.priv);
  nt_maps.v = NULL;
  nt_maps.priv = NULL;
  nt_maps.n = -1;
}

// Read the copy again; 0, or ENOMEM.
static int nt_maps_read() {
  __kmp_nt_check_reset();
  TCW_4(__kmp_pt_maps_watched, 1);
  nt_maps.gen = __atomic_load_n(&__kmp_pt_maps_gen, __ATOMIC_ACQUIRE);
  nt_maps.serial++;
  nt_maps.n = __kmp_pt_read_maps(&nt_maps.v, 0);
  if (nt_maps.n < 0) {
    nt_maps.v = NULL;
    return ENOMEM;
  }
  kmp_pt_range *p = NULL;
  int n = __kmp_pt_private_ranges(__kmp_nt_engine_id, &p);
  int cap = n + 1, k;
  for (;;) {
    p = (kmp_pt_range *)KMP_INTERNAL_REALLOC(p, sizeof(*p) * cap);
    if (!p)
      KMP_FATAL(MemoryAllocFailed);
    k = __kmp_nt_segment_ranges(p + n, cap - n);
    if (n + k <= cap)
      break;
    cap = n + k;
  }
  n += k;
  nt_maps.priv = p;
  nt_maps.npriv = (int)__kmp_pt_ranges_merge(p, n);
  KA_TRACE(20, ("nt_maps_read: %d VMAs, %d private ranges, generation %llu\n",
                nt_maps.n, nt_maps.npriv, (unsigned long long)nt_maps.gen));
  return 0;
}

// The check against the copy.
static int nt_check_in(uintptr_t start, uintptr_t end) {
  const kmp_pt_vma *v = nt_maps.v;
  int n = nt_maps.n;
  if (nt_tls_stack_serial != nt_maps.serial) {
    __kmp_pt_my_stack(&nt_tls_stack.start, &nt_tls_stack.end, v, n);
    nt_tls_stack_serial = nt_maps.serial;
  }
  if (start < nt_tls_stack.end && end > nt_tls_stack.start)
    return EINVAL;
  uintptr_t at = start;
  for (int i = __kmp_pt_first_after(v, n, start); i < n && at < end; i++) {
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
  if (at < end)
    return EFAULT;
  // The runtime's own memory is not the program's: a range over it (a hole
  // the program unmapped, which the runtime's next mapping filled) is
  // refused as unmapped memory.
  int p = __kmp_pt_first_after(nt_maps.priv, nt_maps.npriv, start);
  if (p < nt_maps.npriv && nt_maps.priv[p].start < end)
    return EFAULT;
  return 0;
}

int __kmp_nt_check_range(uintptr_t start, uintptr_t end) {
  KMP_DEBUG_ASSERT(__kmp_pt_held(&__kmp_nt_lock) && start < end);
  int fresh = 0;
  if (!nt_maps.v ||
      nt_maps.gen != __atomic_load_n(&__kmp_pt_maps_gen, __ATOMIC_ACQUIRE)) {
    if (nt_maps_read())
      return ENOMEM;
    fresh = 1;
  }
  for (;;) {
    int rc = nt_check_in(start, end);
    if (rc == 0 && !fresh) {
      // Still mapped?  msync(MS_ASYNC) fails with ENOMEM over a hole and
      // does nothing else since Linux 2.6.19.
      uintptr_t pg = (uintptr_t)__kmp_pt_page;
      uintptr_t a = start & ~(pg - 1), e = (end + pg - 1) & ~(pg - 1);
      if (syscall(SYS_msync, a, e - a, MS_ASYNC) != 0)
        rc = EFAULT;
    }
    if (rc == 0 || fresh)
      return rc;
    // Not as the copy says: read it again and ask once more.
    if (nt_maps_read())
      return ENOMEM;
    fresh = 1;
  }
}

#endif // KMP_PAGETRAP_SUPPORTED
