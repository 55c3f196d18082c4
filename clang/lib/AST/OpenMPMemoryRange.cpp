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
  // brackets: the section ends where its length ends.
  QualType Ty = Ptr->isTypeDependent() || Length->isTypeDependent()
                    ? C.DependentTy
                    : C.ArraySectionTy;
  return new (C)
      ArraySectionExpr(Ptr, /*LowerBound=*/nullptr, Length,
                       /*Stride=*/nullptr, Ty, VK_LValue, OK_Ordinary, ColonLoc,
                       /*ColonLocSecond=*/SourceLocation(),
                       /*RBracketLoc=*/Length->getEndLoc());
}

void clang::printOpenMPMemoryRange(raw_ostream &OS, const Expr *E,
                                   SourceLocation ColonLoc,
                                   const PrintingPolicy &Policy) {
  if (ColonLoc.isValid()) {
    const auto *Range = cast<ArraySectionExpr>(E);
    Range->getBase()->printPretty(OS, nullptr, Policy, 0);
    OS << " : ";
    Range->getLength()->printPretty(OS, nullptr, Policy, 0);
    return;
  }
  E->printPretty(OS, nullptr, Policy, 0);
}

void clang::printOpenMPMemoryRangeList(raw_ostream &OS,
                                       ArrayRef<const Expr *> Items,
                                       ArrayRef<SourceLocation> ColonLocs,
                                       const PrintingPolicy &Policy) {
  assert(Items.size() == ColonLocs.size() && "one location per list item");
  llvm::interleaveComma(llvm::zip(Items, ColonLocs), OS, [&](auto Item) {
    printOpenMPMemoryRange(OS, std::get<0>(Item), std::get<1>(Item), Policy);
  });
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
