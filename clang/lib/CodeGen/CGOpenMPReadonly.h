//===--- CGOpenMPReadonly.h - Emit the 'readonly' clause --------*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of the extension clause 'readonly(list)' of parallel
// constructs. See CGOpenMPReadonly.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LLVM_CLANG_LIB_CODEGEN_CGOPENMPREADONLY_H
#define LLVM_CLANG_LIB_CODEGEN_CGOPENMPREADONLY_H

#include "CGOpenMPRuntime.h"
#include "CGValue.h"
#include "CodeGenFunction.h"
#include <optional>

namespace clang {
class MemberExpr;
class OMPExecutableDirective;
class OMPReadonlyClause;

namespace CodeGen {

/// The 'readonly' clause of one parallel construct, for
/// emitCommonOMPParallelDirective:
///
///   OMPReadonlyRegion Readonly(S, CodeGen);
///   outline the region with Readonly.getCodeGen();
///   ... the clauses' pre-init statements ...
///   Readonly.emitBegin(CGF);
///   the fork
///   Readonly.emitEnd(CGF);
///
/// Without the clause (or in SIMD-only and device compilations) it emits
/// nothing and getCodeGen() is the construct's own.
class OMPReadonlyRegion {
  /// Calls emitRedirects, then the construct's code generation.
  struct WrapperTy {
    const OMPReadonlyRegion *Region;
    void operator()(CodeGenFunction &CGF, PrePostActionTy &Action) const;
  };

  const OMPReadonlyClause *Clause = nullptr;
  SourceLocation Loc;
  const RegionCodeGenTy &CodeGen;
  WrapperTy Wrapper;
  RegionCodeGenTy WrappedCodeGen;
  llvm::Value *Handle = nullptr;

  /// In the outlined function: asks the runtime where this thread reads each
  /// list item and makes the items' base variables designate that memory
  /// while \p Scope lives (a member 's.m' for the rest of the function).
  void emitRedirects(CodeGenFunction &CGF,
                     CodeGenFunction::OMPPrivateScope &Scope) const;

public:
  OMPReadonlyRegion(CodeGenFunction &CGF, const OMPExecutableDirective &S,
                    const RegionCodeGenTy &CodeGen);
  OMPReadonlyRegion(const OMPReadonlyRegion &) = delete;
  OMPReadonlyRegion &operator=(const OMPReadonlyRegion &) = delete;

  /// The code generation of the outlined region.
  const RegionCodeGenTy &getCodeGen() const {
    return Clause ? WrappedCodeGen : CodeGen;
  }
  /// Before the fork: evaluates the list, calls __kmpc_readonly_begin and
  /// stores the handle and the items' addresses into the region's data.
  void emitBegin(CodeGenFunction &CGF);
  /// After the join: calls __kmpc_readonly_end.
  void emitEnd(CodeGenFunction &CGF);
};

/// In the outlined function of a parallel construct with the clause
/// 'readonly(list)': if \p E is a member of a variable that a list item of
/// the clause is taken from ('s.a', 's.p : n'), what it designates there (its
/// replica, or the thread's copy of the pointer); otherwise std::nullopt.
/// Called by EmitMemberExpr; cheap when no such region is being emitted.
std::optional<LValue> emitOpenMPReadonlyMemberLValue(CodeGenFunction &CGF,
                                                     const MemberExpr *E);

} // namespace CodeGen
} // namespace clang

#endif // LLVM_CLANG_LIB_CODEGEN_CGOPENMPREADONLY_H
