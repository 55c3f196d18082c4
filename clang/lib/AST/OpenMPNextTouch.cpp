//===--- OpenMPNextTouch.cpp - '#pragma omp nexttouch' AST nodes ---------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements OMPNextTouchClause and OMPNextTouchDirective, the AST
// nodes of the affinity-on-next-touch extension '#pragma omp nexttouch(list)'.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"

using namespace clang;

OMPNextTouchClause *
OMPNextTouchClause::Create(const ASTContext &C, SourceLocation StartLoc,
                           SourceLocation LParenLoc, SourceLocation EndLoc,
                           ArrayRef<Expr *> VL,
                           ArrayRef<SourceLocation> ColonLocs) {
  void *Mem = C.Allocate(
      totalSizeToAlloc<Expr *, SourceLocation>(VL.size(), VL.size()));
  auto *Clause =
      new (Mem) OMPNextTouchClause(StartLoc, LParenLoc, EndLoc, VL.size());
  Clause->setVarRefs(VL);
  Clause->setItemColonLocs(ColonLocs);
  return Clause;
}

OMPNextTouchClause *OMPNextTouchClause::CreateEmpty(const ASTContext &C,
                                                    unsigned N) {
  void *Mem = C.Allocate(totalSizeToAlloc<Expr *, SourceLocation>(N, N));
  return new (Mem) OMPNextTouchClause(N);
}

OMPNextTouchDirective *
OMPNextTouchDirective::Create(const ASTContext &C, SourceLocation StartLoc,
                              SourceLocation EndLoc,
                              ArrayRef<OMPClause *> Clauses) {
  return createDirective<OMPNextTouchDirective>(
      C, Clauses, /*AssociatedStmt=*/nullptr, /*NumChildren=*/0, StartLoc,
      EndLoc);
}

OMPNextTouchDirective *OMPNextTouchDirective::CreateEmpty(const ASTContext &C,
                                                          unsigned NumClauses,
                                                          EmptyShell) {
  return createEmptyDirective<OMPNextTouchDirective>(C, NumClauses);
}
