/*
 * kmp_nexttouch_mm.cpp -- affinity-on-next-touch and readonly(list): the
 * program's own changes to mappings that hold armed pages or cached items.
 *
 * An armed page belongs to the engine until it is touched: it is PROT_NONE,
 * and the fault path opens it -- together with the untouched units that
 * follow it, in one batch.  When the program changes such a page itself
 * (mprotect to make a guard page, mmap MAP_FIXED over it, munmap, mremap,
 * madvise that discards its content), the page is the program's from then
 * on: libomp wraps these calls of the C library, and before the call the
 * armed units of the range are disarmed where they are (pages_disarmed),
 * so that no batch opens them afterwards and the call finds the protection
 * the program gave.  While nothing is armed a wrapper costs one load.
 *
 * Readonly list items cached there that no region uses are dropped first
 * too, so that the next region reads the content the call leaves (the
 * replicas would be stale: madvise(MADV_DONTNEED) zeroes the pages without a
 * write fault, mprotect lets the program write, munmap and mremap take the
 * pages away).  This takes the readonly engine's lock: a wrapper called in a
 * signal handler that interrupted the engine's own bookkeeping would wait
 * for it.  The engines' own calls are raw system calls and do not come here.
 *
 * Raw system calls are not seen: there the fault path still recognises a
 * new mapping by the missing mark (kmp_nexttouch_migrate.cpp), but a batch
 * may open a page that mprotect(PROT_NONE) made a guard page inside an
 * armed range (docs/NextTouch.rst, "Guarantees and limitations").
 *
 * Runs in the calling thread, also inside signal handlers (munmap, mprotect
 * and madvise are async-signal-safe): the next-touch part is lock-free, like
 * the fault path.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"

#if KMP_NEXTTOUCH_SUPPORTED
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>

// The program is about to change the mapping or the content of [p, p+len)
// (page-rounded): the armed units there are disarmed where they are, and the
// readonly items cached there that no region uses are dropped (their
// replicas would go stale; an item a running region lists stays).
static void nt_mm_take_back(const void *p, size_t len) {
  int armed = TCR_4(__kmp_nexttouch_armed), ro = TCR_4(__kmp_ro_live);
  if ((!armed && !ro) || !len)
    return;
  uintptr_t pg = (uintptr_t)__kmp_nt_page;
  uintptr_t a = (uintptr_t)p & ~(pg - 1), e = (uintptr_t)p + len;
  if (e < a || e > UINTPTR_MAX - pg)
    return; // wraps: the call fails anyway
  e = (e + pg - 1) & ~(pg - 1);
  if (ro)
    __kmp_ro_yield_range(a, e);
  if (!armed)
    return;
  // As on the fault path: inside the table, no signal handler while this
  // thread holds claims.
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGILL);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGTRAP);
  int blocked = 0;
  kmp_uint64 pages = 0;
  __atomic_fetch_add(&__kmp_nt_handlers_active, 1, __ATOMIC_SEQ_CST);
  int hwm = __atomic_load_n(&__kmp_nt_table_hwm, __ATOMIC_ACQUIRE);
  for (int i = 0; i < hwm; i++) {
    kmp_nt_segment *s = __atomic_load_n(&__kmp_nt_table[i], __ATOMIC_ACQUIRE);
    if (!s || s->end <= a || s->base >= e ||
        !__atomic_load_n(&s->armed_units, __ATOMIC_ACQUIRE))
      continue;
    uintptr_t lo = a > s->base ? a : s->base, hi = e < s->end ? e : s->end;
    uintptr_t usz = (uintptr_t)1 << s->shift;
    if (!blocked) {
      pthread_sigmask(SIG_BLOCK, &all, &old);
      blocked = 1;
    }
    // A THP unit that the range cuts is disarmed whole.
    pages += __kmp_nt_disarm_units(s, (lo - s->base) >> s->shift,
                                   (hi - s->base + usz - 1) >> s->shift);
  }
  __atomic_fetch_sub(&__kmp_nt_handlers_active, 1, __ATOMIC_SEQ_CST);
  if (blocked)
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (pages)
    KMP_NT_ADD(pages_disarmed, pages);
}

// Does this advice discard or replace the content of the range?
static int nt_mm_advice_discards(int advice) {
  switch (advice) {
  case MADV_DONTNEED:
#ifdef MADV_FREE
  case MADV_FREE:
#endif
  case MADV_REMOVE:
    return 1;
  default:
    return 0;
  }
}

#define KMP_NT_MM_NEXT(ret, name, params)                                      \
  static void *volatile next;                                                  \
  typedef ret(*fn_t) params;                                                   \
  fn_t f = (fn_t)__kmp_nt_next(&next, #name);                                  \
  if (!f) {                                                                    \
    errno = ENOSYS;                                                            \
    return static_cast<ret>(-1);                                               \
  }

extern "C" int mprotect(void *p, size_t len, int prot) {
  KMP_NT_MM_NEXT(int, mprotect, (void *, size_t, int))
  nt_mm_take_back(p, len);
  return f(p, len, prot);
}

extern "C" int munmap(void *p, size_t len) {
  KMP_NT_MM_NEXT(int, munmap, (void *, size_t))
  nt_mm_take_back(p, len);
  return f(p, len);
}

extern "C" int madvise(void *p, size_t len, int advice) {
  KMP_NT_MM_NEXT(int, madvise, (void *, size_t, int))
  if (nt_mm_advice_discards(advice))
    nt_mm_take_back(p, len);
  return f(p, len, advice);
}

extern "C" void *mmap(void *p, size_t len, int prot, int flags, int fd,
                      off_t off) {
  static void *volatile next;
  typedef void *(*fn_t)(void *, size_t, int, int, int, off_t);
  fn_t f = (fn_t)__kmp_nt_next(&next, "mmap");
  if (!f) {
    errno = ENOSYS;
    return MAP_FAILED;
  }
  if (flags & MAP_FIXED)
    nt_mm_take_back(p, len);
  return f(p, len, prot, flags, fd, off);
}

extern "C" void *mmap64(void *p, size_t len, int prot, int flags, int fd,
                        off64_t off) {
  static void *volatile next;
  typedef void *(*fn_t)(void *, size_t, int, int, int, off64_t);
  fn_t f = (fn_t)__kmp_nt_next(&next, "mmap64");
  if (!f) {
    errno = ENOSYS;
    return MAP_FAILED;
  }
  if (flags & MAP_FIXED)
    nt_mm_take_back(p, len);
  return f(p, len, prot, flags, fd, off);
}

extern "C" void *mremap(void *old, size_t old_len, size_t len, int flags, ...) {
  static void *volatile next;
  typedef void *(*fn_t)(void *, size_t, size_t, int, ...);
  fn_t f = (fn_t)__kmp_nt_next(&next, "mremap");
  if (!f) {
    errno = ENOSYS;
    return MAP_FAILED;
  }
  void *to = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    to = va_arg(ap, void *);
    va_end(ap);
    nt_mm_take_back(to, len);
  }
  nt_mm_take_back(old, old_len);
  return (flags & MREMAP_FIXED) ? f(old, old_len, len, flags, to)
                                : f(old, old_len, len, flags);
}

#endif // KMP_NEXTTOUCH_SUPPORTED
