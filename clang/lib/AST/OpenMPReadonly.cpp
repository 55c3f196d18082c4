//===--- OpenMPReadonly.cpp - The 'readonly' clause -----------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements OMPReadonlyClause, the AST node of the extension clause
// 'readonly(list)' of parallel constructs.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/Stmt.h"

using namespace clang;

OMPReadonlyClause *OMPReadonlyClause::Create(const ASTContext &C,
                                             SourceLocation StartLoc,
                                             SourceLocation LParenLoc,
                                             SourceLocation EndLoc,
                                             ArrayRef<Expr *> VL,
                                             Stmt *PreInit) {
  void *Mem = C.Allocate(totalSizeToAlloc<Expr *>(VL.size()));
  auto *Clause =
      new (Mem) OMPReadonlyClause(StartLoc, LParenLoc, EndLoc, VL.size());
  Clause->setVarRefs(VL);
  // Captured by the parallel region (the only one that reads it).
  Clause->setPreInitStmt(PreInit, llvm::omp::OMPD_parallel);
  return Clause;
}

OMPReadonlyClause *OMPReadonlyClause::CreateEmpty(const ASTContext &C,
                                                  unsigned N) {
  void *Mem = C.Allocate(totalSizeToAlloc<Expr *>(N));
  return new (Mem) OMPReadonlyClause(N);
}

VarDecl *OMPReadonlyClause::getRegionDataDecl() const {
  const auto *DS = cast_or_null<DeclStmt>(getPreInitStmt());
  if (!DS || !DS->isSingleDecl())
    return nullptr;
  return dyn_cast<VarDecl>(const_cast<Decl *>(DS->getSingleDecl()));
}
