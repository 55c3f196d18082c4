/*
 * kmp_nexttouch.h -- affinity-on-next-touch engine: declarations shared by
 * the runtime's hooks (fork/join, settings) and the compiler entry point.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef KMP_NEXTTOUCH_H
#define KMP_NEXTTOUCH_H

#include "kmp.h"
#include "kmp_str.h"

#ifdef __cplusplus
extern "C" {
#endif

// One range of a next-touch request, as the compiler passes it: `count`
// elements of `elem_size` bytes from `base`.  `count` may be a huge value
// computed from a negative length: the runtime detects the overflow.
typedef struct kmp_nexttouch_range {
  void *base; // address of the first element
  size_t count; // number of elements
  size_t elem_size; // bytes per element (1 for void *)
} kmp_nexttouch_range_t;

// Compiler entry point (#pragma omp nexttouch(list)).  Records the ranges; they
// are armed at the next fork of a team of more than one thread.  Returns 0 or
// the errno-style code of the first range that failed; each bad range is also
// reported once as a warning naming loc->psource.
KMP_EXPORT kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 nranges,
                                      const kmp_nexttouch_range_t *ranges);

// Set while requests wait to be armed / while ranges are armed.  The runtime's
// fork and join paths test them before calling into the engine, so a program
// that never asks for next-touch pays one load per fork and per join.
extern volatile int __kmp_nexttouch_pending;
extern volatile int __kmp_nexttouch_armed;

// Hooks: called by the primary thread of `team` in __kmp_internal_fork (before
// the workers are released) and in __kmp_internal_join (after the join
// barrier).
void __kmp_nexttouch_fork(ident_t *loc, int gtid, kmp_team_t *team);
void __kmp_nexttouch_join(ident_t *loc, int gtid, kmp_team_t *team);

// KMP_NEXTTOUCH* settings, parsed and printed through kmp_settings.cpp's table
// (OMP_DISPLAY_ENV=verbose shows them).
void __kmp_nexttouch_stg_parse(char const *name, char const *value, void *data);
void __kmp_nexttouch_stg_print(kmp_str_buf_t *buffer, char const *name,
                               void *data);

#ifdef __cplusplus
}
#endif

#endif // KMP_NEXTTOUCH_H
