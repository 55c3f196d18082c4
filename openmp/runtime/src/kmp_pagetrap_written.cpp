/*
 * kmp_pagetrap_written.cpp -- the page-trap layer: the kernel's written
 * bits.  From Linux 6.7, memory registered with a userfaultfd in
 * asynchronous write-protect mode (UFFD_FEATURE_WP_ASYNC) has a bit per page
 * that the first write after protection clears in the kernel, without a
 * fault to user space and whoever writes: the program, the kernel's copy for
 * a system call, io_uring, another process through /proc/<pid>/mem or
 * ptrace.  PAGEMAP_SCAN on /proc/self/pagemap lists the pages written since
 * and protects them again in the same call.  Nothing is made inaccessible:
 * a write costs one minor fault per page and protection, and no signal.
 *
 * An engine tracks ranges here (__kmp_pt_written_track), asks what was
 * written in them since it last asked (__kmp_pt_written_scan), or whether
 * ranges are still all tracked and unwritten (__kmp_pt_written_quiet, which
 * resets nothing).  The
 * descriptors are opened at the first use, after a probe that tracks,
 * writes and scans a page of its own; a kernel without the features (before
 * 6.7), a process that may not use userfaultfd (seccomp; no
 * UFFD_USER_MODE_ONLY before 5.11 and vm.unprivileged_userfaultfd=0), or a
 * pagemap without PAGEMAP_SCAN make it unavailable.  A fork() child is
 * tracked by nothing: the parent's registrations are not inherited (no
 * UFFD_FEATURE_EVENT_FORK), and both descriptors name the parent's memory;
 * the child closes them, and __kmp_pt_written_epoch tells the engines that
 * what they tracked before is no longer.
 *
 * Only __kmp_pt_written_untrack runs in a signal handler (one raw system
 * call: the mapping wrappers' hooks call it); the rest does not, and its
 * caller serialises (the engine's lock).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"

#if KMP_PAGETRAP_SUPPORTED
#include "kmp_debug.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

// What C libraries' and older kernels' headers may lack (Linux 5.11, 6.6,
// 6.7: the values are the kernel's ABI).
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#define KMP_UFFD_FEATURE_WP_UNPOPULATED (1ULL << 13)
#define KMP_UFFD_FEATURE_WP_ASYNC (1ULL << 15)
struct kmp_pm_page_region {
  kmp_uint64 start, end, categories;
};
struct kmp_pm_scan_arg {
  kmp_uint64 size, flags, start, end, walk_end, vec, vec_len, max_pages,
      category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define KMP_PAGEMAP_SCAN _IOWR('f', 16, struct kmp_pm_scan_arg)
#define KMP_PM_SCAN_WP_MATCHING (1ULL << 0)
#define KMP_PAGE_IS_WPALLOWED (1ULL << 0)
#define KMP_PAGE_IS_WRITTEN (1ULL << 1)

kmp_uint64 __kmp_pt_written_epoch = 1;
static int pt_wr_state = 0; // 0: not probed; 1: usable; -1: not
static int pt_wr_uffd = -1, pt_wr_pagemap = -1;

int __kmp_pt_written_track(uintptr_t s, uintptr_t e, uintptr_t ps,
                           uintptr_t pe) {
  KMP_DEBUG_ASSERT(s < e && !(s & (__kmp_pt_page - 1)) &&
                   !(e & (__kmp_pt_page - 1)));
  KMP_DEBUG_ASSERT(s <= ps && pe <= e);
  if (pt_wr_state <= 0)
    return ENOSYS;
  struct uffdio_register reg;
  memset(&reg, 0, sizeof reg);
  reg.range.start = s;
  reg.range.len = e - s;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(pt_wr_uffd, UFFDIO_REGISTER, &reg) != 0)
    return errno; // EBUSY: another userfaultfd has it; ENOMEM: out of VMAs
  // Protecting a page resets its bit: not the pages tracked already, whose
  // bits may hold a write not yet scanned.
  struct uffdio_writeprotect wp;
  memset(&wp, 0, sizeof wp);
  wp.range.start = ps;
  wp.range.len = pe > ps ? pe - ps : 0;
  wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
  if (pe > ps && ioctl(pt_wr_uffd, UFFDIO_WRITEPROTECT, &wp) != 0) {
    int err = errno;
    __kmp_pt_written_untrack(s, e);
    return err;
  }
  KA_TRACE(20, ("__kmp_pt_written_track: [%p, %p)\n", (void *)s, (void *)e));
  return 0;
}

void __kmp_pt_written_untrack(uintptr_t s, uintptr_t e) {
  int fd = __atomic_load_n(&pt_wr_uffd, __ATOMIC_ACQUIRE);
  if (fd < 0 || s >= e)
    return;
  struct uffdio_range r;
  r.start = s;
  r.len = e - s;
  // Fails only where the program unmapped the memory or mapped another
  // kind there: nothing of ours is left to undo.
  (void)syscall(SYS_ioctl, fd, (unsigned long)UFFDIO_UNREGISTER, &r);
}

// One PAGEMAP_SCAN of [s, e) into vec[0, len): the pages whose categories,
// `inverted` ones flipped, include `mask`, with the categories `ret`; the
// number of runs listed, or -1.  *walk_end: where it stopped.
static long pt_scan(uintptr_t s, uintptr_t e, kmp_uint64 flags,
                    kmp_uint64 inverted, kmp_uint64 mask, kmp_uint64 ret,
                    kmp_pm_page_region *vec, size_t len, uintptr_t *walk_end) {
  kmp_pm_scan_arg a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.flags = flags;
  a.start = s;
  a.end = e;
  a.vec = (uintptr_t)vec;
  a.vec_len = len;
  a.max_pages = len == 1 ? 1 : 0; // one page says enough
  a.category_inverted = inverted;
  a.category_mask = mask;
  a.return_mask = ret;
  long n = ioctl(pt_wr_pagemap, KMP_PAGEMAP_SCAN, &a);
  *walk_end = (uintptr_t)a.walk_end;
  return n;
}

int __kmp_pt_written_scan(uintptr_t s, uintptr_t e,
                          void (*f)(void *arg, uintptr_t s, uintptr_t e),
                          void *arg) {
  if (pt_wr_state <= 0)
    return -1;
  enum { RUNS = 64 };
  kmp_pm_page_region vec[RUNS];
  while (s < e) {
    // Pages in memory not registered with our userfaultfd are skipped.
    uintptr_t walk_end;
    long n = pt_scan(s, e, KMP_PM_SCAN_WP_MATCHING, 0, KMP_PAGE_IS_WRITTEN,
                     KMP_PAGE_IS_WRITTEN, vec, RUNS, &walk_end);
    if (n < 0)
      return -1;
    for (long i = 0; i < n; i++)
      f(arg, (uintptr_t)vec[i].start, (uintptr_t)vec[i].end);
    KMP_DEBUG_ASSERT(walk_end > s || n == RUNS);
    if (walk_end <= s)
      return -1;
    s = walk_end;
  }
  return 0;
}

// Does a PAGEMAP_SCAN of [s, e) with these categories list any page?  -1
// if the scan failed.
static int pt_written_any(uintptr_t s, uintptr_t e, kmp_uint64 inverted,
                          kmp_uint64 mask) {
  kmp_pm_page_region vec[1];
  uintptr_t walk_end;
  long k = pt_scan(s, e, 0, inverted, mask, mask, vec, 1, &walk_end);
  return k < 0 ? -1 : k > 0;
}

// The ranges in one scan of their span: the registered pages listed, split
// where their written bit differs; each range must lie in them, unwritten.
static int pt_written_quiet_span(const kmp_pt_range *r, int n) {
  enum { RUNS = 256 };
  kmp_pm_page_region vec[RUNS];
  uintptr_t s = r[0].start, e = r[n - 1].end, cur = r[0].start;
  int i = 0;
  while (s < e && i < n) {
    uintptr_t walk_end;
    long k = pt_scan(s, e, 0, 0, KMP_PAGE_IS_WPALLOWED,
                     KMP_PAGE_IS_WPALLOWED | KMP_PAGE_IS_WRITTEN, vec, RUNS,
                     &walk_end);
    if (k < 0)
      return 0;
    for (long j = 0; j < k; j++) {
      uintptr_t vs = (uintptr_t)vec[j].start, ve = (uintptr_t)vec[j].end;
      while (i < n) {
        if (cur >= r[i].end) {
          if (++i < n)
            cur = r[i].start;
          continue;
        }
        if (ve <= cur)
          break; // the run lies before what is asked
        if (vs > cur || (vec[j].categories & KMP_PAGE_IS_WRITTEN))
          return 0; // not registered (unmapped, replaced), or written
        cur = ve < r[i].end ? ve : r[i].end;
      }
    }
    if (walk_end <= s)
      return 0;
    s = walk_end;
  }
  while (i < n && cur >= r[i].end)
    if (++i < n)
      cur = r[i].start;
  return i == n;
}

int __kmp_pt_written_quiet(const kmp_pt_range *r, int n) {
  if (pt_wr_state <= 0 || n <= 0)
    return 0;
  KMP_DEBUG_ASSERT(r[0].start < r[0].end);
  // Few ranges: three cheap calls each.  The kernel walks only the page
  // tables of the ranges (the span may hold much else), and with the scan
  // the written bits' own fast loop.
  if (n > 64)
    return pt_written_quiet_span(r, n);
  for (int i = 0; i < n; i++) {
    uintptr_t s = r[i].start, e = r[i].end;
    // All mapped (msync fails over a hole); all registered (mappings that
    // are not are listed by their kind, without a walk of those that are);
    // none written (a page not registered would count as written too).
    if (syscall(SYS_msync, s, e - s, MS_ASYNC) != 0 ||
        pt_written_any(s, e, KMP_PAGE_IS_WPALLOWED, KMP_PAGE_IS_WPALLOWED) ||
        pt_written_any(s, e, 0, KMP_PAGE_IS_WRITTEN))
      return 0;
  }
  return 1;
}

static void pt_written_close() {
  if (pt_wr_uffd >= 0)
    close(pt_wr_uffd);
  if (pt_wr_pagemap >= 0)
    close(pt_wr_pagemap);
  pt_wr_uffd = pt_wr_pagemap = -1;
}

static void pt_written_count(void *arg, uintptr_t s, uintptr_t e) {
  *(size_t *)arg += e - s;
}

// Track a page of our own, write it, and find it written: every step the
// engines rely on, on this kernel and in this process.
static int pt_written_probe() {
  int fd = (int)syscall(SYS_userfaultfd,
                        O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
  if (fd < 0)
    return 0;
  struct uffdio_api api;
  memset(&api, 0, sizeof api);
  api.api = UFFD_API;
  api.features = KMP_UFFD_FEATURE_WP_ASYNC | KMP_UFFD_FEATURE_WP_UNPOPULATED;
  if (ioctl(fd, UFFDIO_API, &api) != 0) {
    close(fd);
    return 0;
  }
  pt_wr_uffd = fd;
  pt_wr_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pt_wr_pagemap < 0)
    return 0;
  char *p = (char *)__kmp_pt_private_alloc(__kmp_pt_page);
  if (!p)
    return 0;
  uintptr_t s = (uintptr_t)p, e = s + __kmp_pt_page;
  size_t before = 0, after = 0;
  pt_wr_state = 1;
  int ok = __kmp_pt_written_track(s, e, s, e) == 0 &&
           __kmp_pt_written_scan(s, e, pt_written_count, &before) == 0;
  if (ok) {
    *(volatile char *)p = 1;
    ok = __kmp_pt_written_scan(s, e, pt_written_count, &after) == 0 &&
         before == 0 && after == (size_t)__kmp_pt_page;
  }
  __kmp_pt_written_untrack(s, e);
  pt_wr_state = 0;
  __kmp_pt_private_free(p, __kmp_pt_page);
  return ok;
}

int __kmp_pt_written_available() {
  if (pt_wr_state == 0) {
    pt_wr_state = pt_written_probe() ? 1 : -1;
    if (pt_wr_state < 0)
      pt_written_close();
    KA_TRACE(10, ("__kmp_pt_written_available: %s\n",
                  pt_wr_state > 0 ? "yes" : "no"));
  }
  return pt_wr_state > 0;
}

void __kmp_pt_written_atfork_child() {
  pt_written_close();
  pt_wr_state = 0;
  __kmp_pt_written_epoch++;
}

#endif // KMP_PAGETRAP_SUPPORTED
