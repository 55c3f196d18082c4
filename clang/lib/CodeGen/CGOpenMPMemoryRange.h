//===--- CGOpenMPMemoryRange.h - Emit lists of memory ranges ----*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of lists of memory ranges (see clang/AST/OpenMPMemoryRange.h)
// as the runtime's arrays of ranges.
//
//===----------------------------------------------------------------------===//

#ifndef LLVM_CLANG_LIB_CODEGEN_CGOPENMPMEMORYRANGE_H
#define LLVM_CLANG_LIB_CODEGEN_CGOPENMPMEMORYRANGE_H

#include "clang/Basic/LLVM.h"
#include "clang/Basic/SourceLocation.h"

namespace llvm {
class StructType;
class Value;
} // namespace llvm

namespace clang {
class Expr;

namespace CodeGen {
class CodeGenFunction;
class CodeGenModule;

/// One list item as the runtime sees it: \a Count elements of \a ElemSize
/// bytes from \a Base.
struct OpenMPMemoryRange {
  llvm::Value *Base;
  llvm::Value *Count;
  llvm::Value *ElemSize;
};

/// Evaluates the list item \p Item (an array section or an array; written
/// 'ptr : len' if \p ColonLoc, the location its clause keeps, is valid),
/// each of its expressions exactly once, as emitOpenMPMemoryRangeArray
/// describes.
OpenMPMemoryRange emitOpenMPMemoryRange(CodeGenFunction &CGF, const Expr *Item,
                                        SourceLocation ColonLoc);

/// The runtime's descriptor of one list item, created once per LLVM context
/// (or the literal structure if the program has a type of that name):
///
///   struct kmp_memory_range { void *base; size_t count; size_t elem_size; };
llvm::StructType *getOpenMPMemoryRangeType(CodeGenModule &CGM);

/// Evaluates the list items \p Items (array sections and arrays, with the
/// locations \p ColonLocs their clause keeps), each exactly once and in
/// order, into a stack array of kmp_memory_range, one
/// per item, and returns a pointer to its first element; the ranges are also
/// appended to \p Out if it is non-null. A signed length is sign-extended,
/// and a length wider than size_t that does not fit becomes SIZE_MAX, so
/// that the runtime, which multiplies count by elem_size, reports such
/// lengths instead of seeing a small, wrapped range.
llvm::Value *
emitOpenMPMemoryRangeArray(CodeGenFunction &CGF, ArrayRef<const Expr *> Items,
                           ArrayRef<SourceLocation> ColonLocs,
                           SmallVectorImpl<OpenMPMemoryRange> *Out = nullptr);

} // namespace CodeGen
} // namespace clang

#endif // LLVM_CLANG_LIB_CODEGEN_CGOPENMPMEMORYRANGE_H
