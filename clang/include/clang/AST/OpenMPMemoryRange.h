//===--- OpenMPMemoryRange.h - Lists of memory ranges -----------*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lists of memory ranges, the argument of the extension directive
// '#pragma omp nexttouch(list)' (and meant for any later clause that takes
// such a list). A list item is written as one of
//
//   ptr : len    'len' elements of '*ptr' ('len' bytes for 'void *')
//   a[lb : len]  a one-dimensional OpenMP array section
//   arr          an lvalue of complete array type (the whole object)
//
// In the AST every item is an expression: an OpenMP ArraySectionExpr, or the
// array lvalue. Sema desugars 'ptr : len' to the section 'ptr[:len]' whose
// base is 'ptr' converted to a pointer rvalue (so 'void *' is allowed there,
// unlike in a written section, and an array operand decays: no bound check).
// The clause keeps, for each item, the location of the ':' of 'ptr : len'
// (invalid for the other forms): that is how the printer gives back the
// spelling, template instantiation checks the item as 'ptr : len' again, and
// code generation takes the pointer, not the array it may have decayed
// from.
//
//===----------------------------------------------------------------------===//

#ifndef LLVM_CLANG_AST_OPENMPMEMORYRANGE_H
#define LLVM_CLANG_AST_OPENMPMEMORYRANGE_H

#include "clang/Basic/LLVM.h"
#include "clang/Basic/SourceLocation.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace clang {
class ArraySectionExpr;
class ASTContext;
class Expr;
struct PrintingPolicy;
class VarDecl;

/// Builds the array section 'Ptr[:Length]' that the list item 'Ptr : Length'
/// stands for. \p Ptr is a pointer rvalue and \p Length an integer rvalue
/// (either may be type-dependent); \p ColonLoc is the location of ':'.
ArraySectionExpr *buildOpenMPPointerLengthRange(const ASTContext &C, Expr *Ptr,
                                                SourceLocation ColonLoc,
                                                Expr *Length);

/// Prints the list item \p E as written: 'ptr : len' if \p ColonLoc (the
/// location the clause keeps for it) is valid, else a section or an array.
void printOpenMPMemoryRange(llvm::raw_ostream &OS, const Expr *E,
                            SourceLocation ColonLoc,
                            const PrintingPolicy &Policy);

/// Prints the list items \p Items, separated by ", ", each with its
/// location in \p ColonLocs as printOpenMPMemoryRange does.
void printOpenMPMemoryRangeList(llvm::raw_ostream &OS,
                                ArrayRef<const Expr *> Items,
                                ArrayRef<SourceLocation> ColonLocs,
                                const PrintingPolicy &Policy);

/// Why a list item has no base variable (see getOpenMPMemoryRangeBaseVar).
enum class OpenMPMemoryRangeBase {
  Variable,     ///< 'p : len', 'p[lb : len]', 'a[lb : len]', 'a', 'a : len'
  NotVariable,  ///< 's.p : len', '*pp : len', 'f() : len', 'p + 1 : len', ...
  Reference,    ///< the variable is a reference
  ThreadPrivate ///< the variable is threadprivate
};

/// The variable of pointer or array type that the list item \p E is taken
/// from ('p' of 'p : len', 'a' of 'a[lb : len]'), or null; \p Why (if
/// non-null) is set to the reason.
const VarDecl *
getOpenMPMemoryRangeBaseVar(const Expr *E,
                            OpenMPMemoryRangeBase *Why = nullptr);

} // namespace clang

#endif // LLVM_CLANG_AST_OPENMPMEMORYRANGE_H
