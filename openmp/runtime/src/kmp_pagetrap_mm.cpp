/*
 * kmp_pagetrap_mm.cpp -- the page-trap layer: the program's own changes to
 * mappings that hold pages an engine protects.
 *
 * A page an engine protects (armed for next-touch, write-protected as a
 * cached readonly item) is the engine's until it gives it back.  When the
 * program changes such a page itself (mprotect to make a guard page, mmap
 * MAP_FIXED over it, munmap, mremap, madvise that discards its content), the
 * page is the program's from then on: libomp wraps these calls of the C
 * library, and before the call each engine that watches gives the range up
 * (kmp_pt_engine::mapping_change): next-touch disarms its armed units there
 * where they are, so that no batch opens them afterwards and the call finds
 * the protection the program gave; readonly opens its protected pages
 * there (unless a running region lists the item) and marks the items stale,
 * so that the next region that lists one drops it and reads the content
 * the call leaves (madvise(MADV_DONTNEED) zeroes pages without a write fault,
 * mprotect lets the program write, munmap and mremap take the pages away).
 * The engines' own calls are raw system calls and do not come here.  While
 * no engine watches, a wrapper costs a load; a call that may replace
 * mappings (mprotect, munmap, mmap with MAP_FIXED, mremap) also loads
 * __kmp_pt_maps_watched and, while an engine keeps a copy of the maps,
 * bumps their generation (__kmp_pt_maps_gen).
 *
 * Raw system calls are not seen: there the next-touch fault path still
 * recognises a new mapping by the missing mark (kmp_nexttouch_migrate.cpp),
 * but a batch may open a page that mprotect(PROT_NONE) made a guard page
 * inside an armed range (docs/NextTouch.rst, "Guarantees and limitations").
 *
 * Runs in the calling thread, also inside signal handlers (munmap, mprotect
 * and madvise are async-signal-safe) and inside a malloc replacement called
 * while libomp holds an engine's lock: lock-free, the engines' hooks too.
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
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>

// The program is about to change the mapping or the content of [p, p+len)
// (page-rounded): the engines that watch give it up.
static void pt_mm_take_back(const void *p, size_t len) {
  if (!TCR_4(__kmp_pt_watch) || !len)
    return;
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  uintptr_t a = (uintptr_t)p & ~(pg - 1), e = (uintptr_t)p + len;
  if (e < a || e > UINTPTR_MAX - pg)
    return; // wraps: the call fails anyway
  e = (e + pg - 1) & ~(pg - 1);
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *en =
        __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
    if (en && en->mapping_change && __kmp_pt_watched(id))
      en->mapping_change(a, e);
  }
}

// Does this advice discard or replace the content of the range?
static int pt_mm_advice_discards(int advice) {
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

// After a call that may have changed a mapping under a copy of the
// process's mappings (__kmp_pt_maps_gen): `call` is made as a tail call
// while nobody keeps one.
#define KMP_PT_MM_CALL(ret, call)                                              \
  if (!__atomic_load_n(&__kmp_pt_maps_watched, __ATOMIC_ACQUIRE))              \
    return call;                                                               \
  ret r = call;                                                                \
  __kmp_pt_maps_changed();                                                     \
  return r;

#define KMP_PT_MM_NEXT(ret, name, params)                                      \
  typedef ret(*fn_t) params;                                                   \
  KMP_PT_NEXT(fn_t, #name, static_cast<ret>(-1))

extern "C" int mprotect(void *p, size_t len, int prot) {
  KMP_PT_MM_NEXT(int, mprotect, (void *, size_t, int))
  pt_mm_take_back(p, len);
  KMP_PT_MM_CALL(int, f(p, len, prot))
}

extern "C" int munmap(void *p, size_t len) {
  KMP_PT_MM_NEXT(int, munmap, (void *, size_t))
  pt_mm_take_back(p, len);
  KMP_PT_MM_CALL(int, f(p, len))
}

extern "C" int madvise(void *p, size_t len, int advice) {
  KMP_PT_MM_NEXT(int, madvise, (void *, size_t, int))
  if (pt_mm_advice_discards(advice))
    pt_mm_take_back(p, len);
  return f(p, len, advice);
}

// mmap and mmap64: over a range only with MAP_FIXED.
#define KMP_PT_MMAP(name, off_type)                                            \
  extern "C" void *name(void *p, size_t len, int prot, int flags, int fd,      \
                        off_type off) {                                        \
    typedef void *(*fn_t)(void *, size_t, int, int, int, off_type);            \
    KMP_PT_NEXT(fn_t, #name, MAP_FAILED)                                       \
    if (!(flags & MAP_FIXED))                                                  \
      return f(p, len, prot, flags, fd, off);                                  \
    pt_mm_take_back(p, len);                                                   \
    KMP_PT_MM_CALL(void *, f(p, len, prot, flags, fd, off))                    \
  }
KMP_PT_MMAP(mmap, off_t)
KMP_PT_MMAP(mmap64, off64_t)

extern "C" void *mremap(void *old, size_t old_len, size_t len, int flags, ...) {
  typedef void *(*fn_t)(void *, size_t, size_t, int, ...);
  KMP_PT_NEXT(fn_t, "mremap", MAP_FAILED)
  void *to = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    to = va_arg(ap, void *);
    va_end(ap);
    pt_mm_take_back(to, len);
  }
  pt_mm_take_back(old, old_len);
  KMP_PT_MM_CALL(void *, (flags & MREMAP_FIXED)
                             ? f(old, old_len, len, flags, to)
                             : f(old, old_len, len, flags))
}

#endif // KMP_PAGETRAP_SUPPORTED
