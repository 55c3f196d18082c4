/*
 * kmp_readonly_ftn.cpp -- readonly(list): the entry points behind the
 * Fortran interface of kmp_readonly_release in omp_lib (omp_lib.F90,
 * omp_lib.h), a generic subroutine with an optional stat argument:
 *
 *   call kmp_readonly_release(a [, stat])          ! any type, any rank
 *   call kmp_readonly_release(ptr, len [, stat])   ! type(c_ptr), bytes
 *
 * as kmp_nexttouch_ftn.cpp says for kmp_nexttouch.  Not in a signal
 * handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_readonly.h"

extern "C" void kmp_readonly_release_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = __kmp_pt_cfi_range(desc, &ptr, &len);
  __kmp_pt_set_stat(stat, rc || !len ? rc : kmp_readonly_release(ptr, len));
}

extern "C" void kmp_readonly_release_bytes(const void *ptr, size_t len,
                                           int *stat) {
  __kmp_pt_set_stat(stat, kmp_readonly_release(ptr, len));
}
