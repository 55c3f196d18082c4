//===--- OpenMPReadonly.cpp - The 'readonly' clause -----------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements OMPReadonlyClause, the AST node of the extension clause
// 'readonly(list)' of parallel constructs, and what its list items are taken
// from (clang/AST/OpenMPReadonly.h).
//
//===----------------------------------------------------------------------===//

#include "clang/AST/OpenMPReadonly.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclOpenMP.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ExprOpenMP.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/Stmt.h"

using namespace clang;

OMPReadonlyClause *
OMPReadonlyClause::Create(const ASTContext &C, SourceLocation StartLoc,
                          SourceLocation LParenLoc, SourceLocation EndLoc,
                          ArrayRef<Expr *> VL,
                          ArrayRef<SourceLocation> ColonLocs, Stmt *PreInit) {
  void *Mem = C.Allocate(
      totalSizeToAlloc<Expr *, SourceLocation>(VL.size(), VL.size()));
  auto *Clause =
      new (Mem) OMPReadonlyClause(StartLoc, LParenLoc, EndLoc, VL.size());
  Clause->setVarRefs(VL);
  Clause->setItemColonLocs(ColonLocs);
  // Captured by the parallel region (the only one that reads it).
  Clause->setPreInitStmt(PreInit, llvm::omp::OMPD_parallel);
  return Clause;
}

OMPReadonlyClause *OMPReadonlyClause::CreateEmpty(const ASTContext &C,
                                                  unsigned N) {
  void *Mem = C.Allocate(totalSizeToAlloc<Expr *, SourceLocation>(N, N));
  return new (Mem) OMPReadonlyClause(N);
}

VarDecl *OMPReadonlyClause::getRegionDataDecl() const {
  // The first declaration of the pre-init statement; the references to the
  // members 'this->m' follow.
  const auto *DS = cast_or_null<DeclStmt>(getPreInitStmt());
  if (!DS || DS->decl_begin() == DS->decl_end())
    return nullptr;
  auto *VD = dyn_cast<VarDecl>(const_cast<Decl *>(*DS->decl_begin()));
  return VD && !isa<OMPCapturedExprDecl>(VD) ? VD : nullptr;
}

bool OpenMPReadonlyBase::isArray() const {
  return Field ? Field->getType()->isArrayType()
               : Var && Var->getType()->isArrayType();
}

OpenMPReadonlyBase clang::getOpenMPReadonlyBase(const Expr *E,
                                                OpenMPMemoryRangeBase *Why) {
  OpenMPMemoryRangeBase Dummy;
  if (!Why)
    Why = &Dummy;
  OpenMPReadonlyBase B;
  if (const VarDecl *VD = getOpenMPMemoryRangeBaseVar(E, Why)) {
    B.Var = VD->getCanonicalDecl();
    return B;
  }
  if (*Why != OpenMPMemoryRangeBase::NotVariable)
    return B;
  // A member: 's.a', 'this->a'.
  const Expr *Base = E->IgnoreParenImpCasts();
  if (const auto *Section = dyn_cast<ArraySectionExpr>(Base))
    Base = Section->getBase()->IgnoreParenImpCasts();
  const auto *ME = dyn_cast<MemberExpr>(Base);
  if (!ME)
    return B;
  const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!FD || FD->isBitField() ||
      (!FD->getType()->isPointerType() && !FD->getType()->isArrayType()))
    return B;
  // No conversion to a base class between the object and the member.
  const Expr *Obj = ME->getBase()->IgnoreParens();
  if (isa<CXXThisExpr>(Obj) && ME->isArrow()) {
    B.This = true;
  } else if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj);
             DRE && !ME->isArrow()) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || !VD->getType()->isRecordType())
      return B;
    if (VD->hasAttr<OMPThreadPrivateDeclAttr>() ||
        VD->getTLSKind() != VarDecl::TLS_None) {
      *Why = OpenMPMemoryRangeBase::ThreadPrivate;
      return B;
    }
    B.Var = VD->getCanonicalDecl();
  } else {
    return B;
  }
  B.Field = FD->getCanonicalDecl();
  *Why = OpenMPMemoryRangeBase::Variable;
  return B;
}
