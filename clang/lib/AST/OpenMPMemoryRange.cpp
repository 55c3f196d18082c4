//===--- OpenMPMemoryRange.cpp - Lists of memory ranges -------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the AST side of lists of memory ranges: the array
// section that stands for a list item 'ptr : len', the printing of list
// items as written, and the variable a list item is taken from. See
// clang/AST/OpenMPMemoryRange.h.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/OpenMPMemoryRange.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

ArraySectionExpr *clang::buildOpenMPPointerLengthRange(const ASTContext &C,
                                                       Expr *Ptr,
                                                       SourceLocation ColonLoc,
                                                       Expr *Length) {
  assert(Ptr && Length && "'ptr : len' needs both");
  // Typed like the sections Sema builds for 'ptr[:len]'. There are no
  // brackets: the section ends where its length ends, which is what
  // getOpenMPPointerLengthRange looks for.
  QualType Ty = Ptr->isTypeDependent() || Length->isTypeDependent()
                    ? C.DependentTy
                    : C.ArraySectionTy;
  return new (C)
      ArraySectionExpr(Ptr, /*LowerBound=*/nullptr, Length,
                       /*Stride=*/nullptr, Ty, VK_LValue, OK_Ordinary, ColonLoc,
                       /*ColonLocSecond=*/SourceLocation(),
                       /*RBracketLoc=*/Length->getEndLoc());
}

const ArraySectionExpr *clang::getOpenMPPointerLengthRange(const Expr *E) {
  // A written section 'a[:len]' ends at its ']', after the end of 'len'.
  const auto *Section = dyn_cast<ArraySectionExpr>(E);
  if (!Section || !Section->isOMPArraySection() || Section->getLowerBound() ||
      !Section->getLength() ||
      Section->getRBracketLoc() != Section->getLength()->getEndLoc())
    return nullptr;
  return Section;
}

void clang::printOpenMPMemoryRange(raw_ostream &OS, const Expr *E,
                                   const PrintingPolicy &Policy) {
  if (const ArraySectionExpr *Range = getOpenMPPointerLengthRange(E)) {
    Range->getBase()->printPretty(OS, nullptr, Policy, 0);
    OS << " : ";
    Range->getLength()->printPretty(OS, nullptr, Policy, 0);
    return;
  }
  E->printPretty(OS, nullptr, Policy, 0);
}

const VarDecl *clang::getOpenMPMemoryRangeBaseVar(const Expr *E,
                                                  OpenMPMemoryRangeBase *Why) {
  OpenMPMemoryRangeBase Dummy;
  if (!Why)
    Why = &Dummy;
  *Why = OpenMPMemoryRangeBase::NotVariable;
  const Expr *Base = E->IgnoreParenImpCasts();
  if (const auto *Section = dyn_cast<ArraySectionExpr>(Base))
    Base = Section->getBase()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE)
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
  if (!VD)
    return nullptr;
  QualType Ty = VD->getType();
  if (Ty->isReferenceType()) {
    *Why = OpenMPMemoryRangeBase::Reference;
    return nullptr;
  }
  if (!Ty->isPointerType() && !Ty->isArrayType())
    return nullptr;
  // Each thread has its own copy (threadprivate, or thread_local).
  if (VD->hasAttr<OMPThreadPrivateDeclAttr>() ||
      VD->getTLSKind() != VarDecl::TLS_None) {
    *Why = OpenMPMemoryRangeBase::ThreadPrivate;
    return nullptr;
  }
  *Why = OpenMPMemoryRangeBase::Variable;
  return VD;
}
