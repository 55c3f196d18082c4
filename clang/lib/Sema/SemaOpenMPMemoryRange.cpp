//===--- SemaOpenMPMemoryRange.cpp - Lists of memory ranges ---------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Semantic analysis of lists of memory ranges and of the affinity-on-next-touch
// extension '#pragma omp nexttouch(list)'. A list item is one of
//
//   ptr : len    ptr an object pointer (or an array, which decays), len an
//                integer: 'len' elements of '*ptr' ('len' bytes for 'void *')
//   a[lb : len]  a one-dimensional array section
//   arr          a variable of complete array type (the whole array)
//
// The checks are shared by every construct that takes such a list.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaOpenMP.h"

using namespace clang;

bool SemaOpenMP::checkOpenMPMemoryRangeItem(Expr *&Item, Expr *&Length,
                                            StringRef Construct) {
  ASTContext &Ctx = getASTContext();
  Sema &S = SemaRef;
  // Checked again when the template is instantiated.
  if (Item->isTypeDependent() || (Length && Length->isTypeDependent()))
    return true;

  SourceLocation ELoc = Item->getExprLoc();
  if (Length) {
    // 'ptr : len'.
    ExprResult Ptr = S.DefaultFunctionArrayLvalueConversion(Item);
    if (Ptr.isInvalid())
      return false;
    QualType PtrTy = Ptr.get()->getType();
    if (!PtrTy->isPointerType()) {
      S.Diag(ELoc, diag::err_omp_memory_range_not_pointer)
          << PtrTy << Construct << Item->getSourceRange();
      return false;
    }
    QualType Pointee = PtrTy->getPointeeType();
    // isCompleteType, not Type::isIncompleteType: a class template
    // specialization that nothing required complete yet is instantiated here
    // (as 'sizeof(*ptr)' would), not reported as incomplete.
    if (Pointee->isFunctionType() ||
        (!Pointee->isVoidType() && !S.isCompleteType(ELoc, Pointee))) {
      S.Diag(ELoc, diag::err_omp_memory_range_bad_pointee)
          << (Pointee->isFunctionType() ? 0 : 1) << PtrTy << Construct
          << Item->getSourceRange();
      return false;
    }

    SourceLocation LLoc = Length->getExprLoc();
    ExprResult Len = S.DefaultLvalueConversion(Length);
    if (Len.isInvalid())
      return false;
    QualType LenTy = Len.get()->getType();
    if (!LenTy->isIntegralOrUnscopedEnumerationType()) {
      S.Diag(LLoc, diag::err_omp_memory_range_length_not_integer)
          << LenTy << Construct << Length->getSourceRange();
      return false;
    }
    if (!Len.get()->isValueDependent()) {
      if (std::optional<llvm::APSInt> Value =
              Len.get()->getIntegerConstantExpr(Ctx)) {
        if (Value->isNegative()) {
          S.Diag(LLoc, diag::err_omp_memory_range_length_negative)
              << toString(*Value, 10) << Construct << Length->getSourceRange();
          return false;
        }
        if (Value->isZero())
          S.Diag(LLoc, diag::warn_omp_memory_range_zero_length)
              << Construct << Length->getSourceRange();
      }
    }
    Item = Ptr.get();
    Length = Len.get();
    return true;
  }

  Expr *Stripped = Item->IgnoreParenImpCasts();
  if (auto *Section = dyn_cast<ArraySectionExpr>(Stripped)) {
    // The lower bound, the length and their signs were checked when the
    // section was built; what is left is its shape.
    if (isa<ArraySectionExpr>(Section->getBase()->IgnoreParenImpCasts())) {
      S.Diag(ELoc, diag::err_omp_memory_range_section_dims)
          << Construct << Item->getSourceRange();
      return false;
    }
    if (Section->getColonLocFirst().isInvalid()) {
      S.Diag(ELoc, diag::err_omp_memory_range_expected)
          << Construct << Item->getSourceRange();
      return false;
    }
    if (const Expr *SecLen = Section->getLength();
        SecLen && !SecLen->isValueDependent())
      if (std::optional<llvm::APSInt> Value =
              SecLen->getIntegerConstantExpr(Ctx);
          Value && Value->isZero())
        S.Diag(SecLen->getExprLoc(), diag::warn_omp_memory_range_zero_length)
            << Construct << SecLen->getSourceRange();
    return true;
  }

  QualType Ty = Item->getType();
  if (Ty->isArrayType() && Item->isGLValue()) {
    if (Ty->isIncompleteArrayType()) {
      S.Diag(ELoc, diag::err_omp_memory_range_incomplete_array)
          << Ty << Construct << Item->getSourceRange();
      return false;
    }
    return true;
  }

  S.Diag(ELoc, diag::err_omp_memory_range_expected)
      << Construct << Item->getSourceRange();
  return false;
}

OMPClause *SemaOpenMP::ActOnOpenMPNextTouchClause(ArrayRef<Expr *> Items,
                                                  ArrayRef<Expr *> Lengths,
                                                  SourceLocation StartLoc,
                                                  SourceLocation LParenLoc,
                                                  SourceLocation EndLoc) {
  assert(Items.size() == Lengths.size() && "one length per list item");
  StringRef Name = getOpenMPDirectiveName(llvm::omp::OMPD_nexttouch);
  SmallVector<Expr *, 4> CheckedItems;
  SmallVector<Expr *, 4> CheckedLengths;
  for (auto [Item, Length] : llvm::zip(Items, Lengths)) {
    Expr *I = Item;
    Expr *L = Length;
    if (!checkOpenMPMemoryRangeItem(I, L, Name))
      continue;
    CheckedItems.push_back(I);
    CheckedLengths.push_back(L);
  }
  return OMPNextTouchClause::Create(getASTContext(), StartLoc, LParenLoc,
                                    EndLoc, CheckedItems, CheckedLengths);
}

StmtResult
SemaOpenMP::ActOnOpenMPNextTouchDirective(ArrayRef<OMPClause *> Clauses,
                                          SourceLocation StartLoc,
                                          SourceLocation EndLoc) {
  if (!OMPExecutableDirective::getSingleClause<OMPNextTouchClause>(Clauses)) {
    Diag(StartLoc, diag::err_omp_nexttouch_missing_list);
    return StmtError();
  }
  // The ranges are host memory; a target region runs elsewhere.
  if (isInOpenMPTargetExecutionDirective()) {
    Diag(StartLoc, diag::err_omp_nexttouch_in_target);
    return StmtError();
  }
  return OMPNextTouchDirective::Create(getASTContext(), StartLoc, EndLoc,
                                       Clauses);
}
