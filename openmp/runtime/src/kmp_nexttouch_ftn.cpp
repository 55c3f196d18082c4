/*
 * kmp_nexttouch_ftn.cpp -- affinity-on-next-touch and readonly: the entry
 * points behind the Fortran interfaces of omp_lib (omp_lib.F90, omp_lib.h).
 *
 * In Fortran, kmp_nexttouch, kmp_nexttouch_disarm and kmp_readonly_release
 * are generic subroutines with an optional stat argument:
 *
 *   call kmp_nexttouch(a [, stat])           ! a: any type, any rank
 *   call kmp_nexttouch(ptr, len [, stat])    ! type(c_ptr), c_size_t bytes
 *
 * The array form is a bind(c) interface with an assumed-type, assumed-rank
 * dummy (type(*), dimension(..)), so the compiler passes a C descriptor
 * (Fortran 2018, 18.5.3) and the array is never copied: the range is the
 * bytes from its lowest to its highest element, strides included.  The
 * pointer form takes a byte range as the C functions do.  Both call the C
 * API and store its result in *stat if stat is present (not NULL).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

// The members of CFI_cdesc_t that a byte range needs.  The standard fixes
// their names, not their layout; GCC's ISO_Fortran_binding.h (gfortran 9
// and later) and LLVM Flang's agree on this one: base_addr, elem_len,
// version, rank, two bytes for the type and attribute (in an order they
// differ on, unused here), then the dimensions from offset 24.
typedef struct {
  ptrdiff_t lower_bound;
  ptrdiff_t extent;
  ptrdiff_t sm; // byte stride
} nt_cfi_dim_t;
typedef struct {
  void *base_addr;
  size_t elem_len;
  int version;
  signed char rank;
  unsigned char type_attribute[3];
  nt_cfi_dim_t dim[15]; // CFI_MAX_RANK
} nt_cfi_desc_t;
static_assert(offsetof(nt_cfi_desc_t, dim) == 24, "CFI_cdesc_t layout");

// The byte range [*ptr, *ptr + *len) covering every element of the array
// that desc describes: 0, or EINVAL (a bad descriptor, an assumed-size
// array but from gfortran 11 and older), EOVERFLOW.
static int nt_cfi_range(const void *desc, void **ptr, size_t *len) {
  const nt_cfi_desc_t *d = (const nt_cfi_desc_t *)desc;
  *ptr = NULL;
  *len = 0;
  if (!d || d->rank < 0 || d->rank > 15)
    return EINVAL;
  // Offsets of the lowest and the highest element from base_addr.
  ptrdiff_t lo = 0, hi = 0;
  for (int i = 0; i < d->rank; i++) {
    ptrdiff_t extent = d->dim[i].extent, span;
    // 0: empty; -1: the last extent of an assumed-size array, or, in the
    // descriptors of gfortran 11 and older (version 0), of an empty array:
    // there both are empty.
    if (extent <= 0)
      return extent == 0 || d->version == 0 ? 0 : EINVAL;
    if (__builtin_mul_overflow(extent - 1, d->dim[i].sm, &span))
      return EOVERFLOW;
    ptrdiff_t *end = span > 0 ? &hi : &lo;
    if (__builtin_add_overflow(*end, span, end))
      return EOVERFLOW;
  }
  size_t bytes = (size_t)hi - (size_t)lo; // hi >= 0 >= lo
  if (__builtin_add_overflow(bytes, d->elem_len, &bytes))
    return EOVERFLOW;
  if (!d->base_addr)
    return bytes ? EINVAL : 0;
  *ptr = (char *)d->base_addr + lo;
  *len = bytes;
  return 0;
}

static void nt_set_stat(int *stat, int rc) {
  if (stat)
    *stat = rc;
}

extern "C" void kmp_nexttouch_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = nt_cfi_range(desc, &ptr, &len);
  nt_set_stat(stat, rc ? rc : kmp_nexttouch(ptr, len));
}

extern "C" void kmp_nexttouch_bytes(void *ptr, size_t len, int *stat) {
  nt_set_stat(stat, kmp_nexttouch(ptr, len));
}

// An empty array is a no-op, as a zero length with a pointer is in C (NULL,
// 0 -- every range -- exists only in the pointer form).
extern "C" void kmp_nexttouch_disarm_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = nt_cfi_range(desc, &ptr, &len);
  nt_set_stat(stat, rc || !len ? rc : kmp_nexttouch_disarm(ptr, len));
}

extern "C" void kmp_nexttouch_disarm_bytes(void *ptr, size_t len, int *stat) {
  nt_set_stat(stat, kmp_nexttouch_disarm(ptr, len));
}

extern "C" void kmp_readonly_release_cfi(const void *desc, int *stat) {
  void *ptr;
  size_t len;
  int rc = nt_cfi_range(desc, &ptr, &len);
  nt_set_stat(stat, rc || !len ? rc : kmp_readonly_release(ptr, len));
}

extern "C" void kmp_readonly_release_bytes(const void *ptr, size_t len,
                                           int *stat) {
  nt_set_stat(stat, kmp_readonly_release(ptr, len));
}
