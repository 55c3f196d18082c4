//===--- OpenMPReadonly.h - The 'readonly' clause ---------------*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a list item of the extension clause 'readonly(list)' is taken from:
// the thing whose references code generation redirects to the executing
// thread's replica inside the region (see CGOpenMPReadonly.cpp). Shared by
// Sema (which checks and warns) and CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef LLVM_CLANG_AST_OPENMPREADONLY_H
#define LLVM_CLANG_AST_OPENMPREADONLY_H

#include "clang/AST/OpenMPMemoryRange.h"

namespace clang {
class FieldDecl;

/// The base of a list item: a variable of pointer or array type ('p : len',
/// 'a[lb : n]', 'a'), or a member of pointer or array type of a variable of
/// class type ('s.a', 's.p : len') or of 'this' ('this->a', 'a' in a member
/// function), taken without a conversion to a base class.
struct OpenMPReadonlyBase {
  const VarDecl *Var = nullptr;     ///< the variable, or the object 's'
  const FieldDecl *Field = nullptr; ///< the member, or null
  bool This = false;                ///< a member of 'this'

  bool isValid() const { return Var || This; }
  /// The type of what is redirected: the variable's or the member's.
  bool isArray() const;
  bool operator==(const OpenMPReadonlyBase &O) const {
    return Var == O.Var && Field == O.Field && This == O.This;
  }
};

/// The base of the list item \p E, with canonical declarations, or an
/// invalid one; \p Why (if non-null) is set to the reason.
OpenMPReadonlyBase getOpenMPReadonlyBase(const Expr *E,
                                         OpenMPMemoryRangeBase *Why = nullptr);

} // namespace clang

#endif // LLVM_CLANG_AST_OPENMPREADONLY_H
