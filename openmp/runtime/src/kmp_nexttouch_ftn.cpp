/*
 * kmp_nexttouch_ftn.cpp -- affinity-on-next-touch: the entry points behind
 * the Fortran interfaces of omp_lib (omp_lib.F90, omp_lib.h).
 *
 * In Fortran, kmp_nexttouch and kmp_nexttouch_disarm (and readonly's
 * kmp_readonly_release, kmp_readonly_ftn.cpp) are generic subroutines with
 * an optional stat argument:
 *
 *   call kmp_nexttouch(a [, stat])           ! a: any type, any rank
 *   call kmp_nexttouch(ptr, len [, stat])    ! type(c_ptr), c_size_t bytes
 *
 * The array form is a bind(c) interface with an assumed-type, assumed-rank
 * dummy (type(*), dimension(..)), so the compiler passes a C descriptor
 * (Fortran 2018, 18.5.3) and the array is never copied: the range is the
 * bytes from its lowest to its highest element, strides included
 * (__kmp_pt_cfi_range).  The pointer form takes a byte range as the C
 * functions do.  Both call the C API and store its result in *stat if stat
 * is present (not NULL).  Not in a signal handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"

extern "C" void kmp_nexttouch_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = __kmp_pt_cfi_range(desc, &ptr, &len);
  __kmp_pt_set_stat(stat, rc ? rc : kmp_nexttouch(ptr, len));
}

extern "C" void kmp_nexttouch_bytes(void *ptr, size_t len, int *stat) {
  __kmp_pt_set_stat(stat, kmp_nexttouch(ptr, len));
}

// An empty array is a no-op, as a zero length with a pointer is in C (NULL,
// 0 -- every range -- exists only in the pointer form).
extern "C" void kmp_nexttouch_disarm_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = __kmp_pt_cfi_range(desc, &ptr, &len);
  __kmp_pt_set_stat(stat, rc || !len ? rc : kmp_nexttouch_disarm(ptr, len));
}

extern "C" void kmp_nexttouch_disarm_bytes(void *ptr, size_t len, int *stat) {
  __kmp_pt_set_stat(stat, kmp_nexttouch_disarm(ptr, len));
}
