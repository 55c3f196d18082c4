/*
 * kmp_nexttouch_guard.cpp -- affinity-on-next-touch: nothing is armed while
 * a thread of the process blocks SIGSEGV.
 *
 * The kernel cannot deliver a fault's SIGSEGV to a thread that blocks it: it
 * kills the process when such a thread touches an armed page, without
 * running any handler.  The sigmask wrappers of the page-trap layer keep
 * SIGSEGV deliverable for calls they see; a mask set by a raw system call is
 * only seen here, in each thread's /proc status (__kmp_pt_segv_blocker).
 *
 * Runs under __kmp_nt_lock on the primary thread of a forking or joining
 * team; never in a signal handler.
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

// At every fork that would arm and at joins while pages are armed
// (__kmp_nt_segv_guard_join), the engine looks for a thread that blocks
// SIGSEGV; while one exists nothing is armed: the pending requests are
// dropped (fail_arm) and what is armed is disarmed in place
// (pages_disarmed), with a warning naming the thread.  Returns 1 then.
int __kmp_nt_segv_guard() {
  char name[32];
  int tid = __kmp_pt_segv_blocker(name, sizeof name);
  if (!tid)
    return 0;
  kmp_uint64 pending = __kmp_nt_request_clear();
  KMP_NT_ADD(fail_arm, pending);
  kmp_uint64 before = __kmp_nt_cnt.pages_disarmed;
  if (__kmp_nt_armed())
    __kmp_nt_disarm_range(0, 0, 0);
  kmp_uint64 pages = pending + (__kmp_nt_cnt.pages_disarmed - before);
  // One warning per thread (the last few remembered), at most 16.
  static int warned[4], nwarned = 0, warnings = 0;
  for (int i = 0; i < 4; i++)
    if (warned[i] == tid)
      return 1;
  warned[nwarned++ % 4] = tid;
  if (warnings++ < 16) {
    char num[32];
    KMP_SNPRINTF(num, sizeof num, "%" KMP_UINT64_SPEC, pages);
    KMP_WARNING(NextTouchSegvBlocked, tid, name[0] ? name : "?", num);
  }
  return 1;
}

// At a join the check costs a read of every thread's status (10-20 us each
// natively, far more in an emulator or with many threads), which would
// dominate short regions while pages stay armed.  So it runs at the first
// join after each arming (the region that armed may have blocked SIGSEGV in
// a thread), then at most every KMP_NT_SEGV_RECHECK_NS, and never more often
// than keeps it under 1 % of the time: the next check waits 100 times what
// the last one took (a check that waited for a thread glibc blocked for a
// moment included), at most KMP_NT_SEGV_RECHECK_MAX_NS.
#define KMP_NT_SEGV_RECHECK_NS 10000000ULL
#define KMP_NT_SEGV_RECHECK_MAX_NS 1000000000ULL
#define KMP_NT_SEGV_RECHECK_SHARE 100
static kmp_uint64 nt_arm_epoch = 1, nt_segv_epoch = 0, nt_segv_ns = 0,
                  nt_segv_wait_ns = KMP_NT_SEGV_RECHECK_NS;

int __kmp_nt_segv_guard_join() {
  kmp_uint64 now = __kmp_pt_now_ns();
  if (nt_segv_epoch == nt_arm_epoch && now - nt_segv_ns < nt_segv_wait_ns)
    return 0;
  nt_segv_epoch = nt_arm_epoch;
  int rc = __kmp_nt_segv_guard();
  nt_segv_ns = __kmp_pt_now_ns();
  kmp_uint64 took = (nt_segv_ns - now) * KMP_NT_SEGV_RECHECK_SHARE;
  if (took < KMP_NT_SEGV_RECHECK_NS)
    took = KMP_NT_SEGV_RECHECK_NS;
  if (took > KMP_NT_SEGV_RECHECK_MAX_NS)
    took = KMP_NT_SEGV_RECHECK_MAX_NS;
  nt_segv_wait_ns = took;
  return rc;
}

void __kmp_nt_segv_guard_armed() { nt_arm_epoch++; }

#endif // KMP_PAGETRAP_SUPPORTED
