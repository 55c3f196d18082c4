/*
 * kmp_pagetrap_ftn.cpp -- the page-trap layer: the Fortran side's array
 * descriptors.  The engines' entry points behind omp_lib's interfaces
 * (kmp_nexttouch_ftn.cpp, kmp_readonly_ftn.cpp) take an array as a bind(c)
 * assumed-type, assumed-rank dummy (type(*), dimension(..)): the compiler
 * passes a C descriptor (Fortran 2018, 18.5.3) and the array is never
 * copied.  Here: the bytes from its lowest to its highest element, strides
 * included.
 *
 * Not in a signal handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"

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
} kmp_pt_cfi_dim_t;
typedef struct {
  void *base_addr;
  size_t elem_len;
  int version;
  signed char rank;
  unsigned char type_attribute[3];
  kmp_pt_cfi_dim_t dim[15]; // CFI_MAX_RANK
} kmp_pt_cfi_desc_t;
static_assert(offsetof(kmp_pt_cfi_desc_t, dim) == 24, "CFI_cdesc_t layout");

int __kmp_pt_cfi_range(const void *desc, void **ptr, size_t *len) {
  const kmp_pt_cfi_desc_t *d = (const kmp_pt_cfi_desc_t *)desc;
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
