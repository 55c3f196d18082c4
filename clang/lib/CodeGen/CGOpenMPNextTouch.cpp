//===--- CGOpenMPNextTouch.cpp - Emit '#pragma omp nexttouch' -------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of the affinity-on-next-touch extension
// '#pragma omp nexttouch(list)': one call
//
//   kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid, kmp_int32 n,
//                              const kmp_memory_range_t *ranges);
//
// with the n ranges of the list built on the stack by
// emitOpenMPMemoryRangeArray (CGOpenMPMemoryRange.cpp).
//
//===----------------------------------------------------------------------===//

#include "CGOpenMPMemoryRange.h"
#include "CGOpenMPRuntime.h"
#include "CodeGenFunction.h"
#include "CodeGenModule.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"
#include "llvm/Frontend/OpenMP/OMPIRBuilder.h"

using namespace clang;
using namespace CodeGen;

void CGOpenMPRuntime::emitNextTouchCall(CodeGenFunction &CGF,
                                        const OMPNextTouchClause &C,
                                        SourceLocation Loc) {
  if (!CGF.HaveInsertPoint() || C.varlist_empty())
    return;
  // Next-touch is about host memory: a device compilation ignores it.
  if (CGM.getLangOpts().OpenMPIsTargetDevice)
    return;

  llvm::Value *Ranges = emitOpenMPMemoryRangeArray(
      CGF, llvm::ArrayRef(C.varlist_begin(), C.varlist_end()),
      C.getItemColonLocs());
  llvm::Value *Args[] = {emitUpdateLocation(CGF, Loc), getThreadID(CGF, Loc),
                         llvm::ConstantInt::get(CGM.Int32Ty, C.varlist_size()),
                         Ranges};
  CGF.EmitRuntimeCall(OMPBuilder.getOrCreateRuntimeFunction(
                          CGM.getModule(), llvm::omp::OMPRTL___kmpc_nexttouch),
                      Args);
}

void CGOpenMPSIMDRuntime::emitNextTouchCall(CodeGenFunction &CGF,
                                            const OMPNextTouchClause &C,
                                            SourceLocation Loc) {}

void CodeGenFunction::EmitOMPNextTouchDirective(
    const OMPNextTouchDirective &S) {
  if (const auto *C = S.getSingleClause<OMPNextTouchClause>())
    CGM.getOpenMPRuntime().emitNextTouchCall(*this, *C, S.getBeginLoc());
}
