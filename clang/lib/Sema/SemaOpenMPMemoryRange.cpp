//===--- SemaOpenMPMemoryRange.cpp - Lists of memory ranges ---------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Semantic analysis of lists of memory ranges, the argument of the extension
// directive '#pragma omp nexttouch(list)' and of the clause 'readonly(list)'
// of parallel constructs. A list item is one of
//
//   ptr : len    ptr an object pointer (or an array, which decays), len an
//                integer: 'len' elements of '*ptr' ('len' bytes for 'void *')
//   a[lb : len]  a one-dimensional array section
//   arr          an lvalue of complete array type (the whole array)
//
// 'ptr : len' is desugared to the array section 'ptr[:len]', so that a list
// is a plain list of expressions (see clang/AST/OpenMPMemoryRange.h).
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/OpenMPMemoryRange.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaOpenMP.h"

using namespace clang;

/// Warns about a length that is the constant 0.
static void checkZeroLength(Sema &S, const Expr *Length, StringRef Construct) {
  if (Length->isValueDependent())
    return;
  if (std::optional<llvm::APSInt> Value =
          Length->getIntegerConstantExpr(S.getASTContext());
      Value && Value->isZero())
    S.Diag(Length->getExprLoc(), diag::warn_omp_memory_range_zero_length)
        << Construct << Length->getSourceRange();
}

/// Checks 'Ptr : Length' and builds the section it stands for.
static ExprResult buildPointerLengthRange(Sema &S, Expr *Ptr,
                                          SourceLocation ColonLoc, Expr *Length,
                                          StringRef Construct) {
  ASTContext &Ctx = S.getASTContext();
  // Checked again when the template is instantiated.
  if (Ptr->isTypeDependent() || Length->isTypeDependent())
    return buildOpenMPPointerLengthRange(Ctx, Ptr, ColonLoc, Length);

  SourceLocation ELoc = Ptr->getExprLoc();
  ExprResult PtrRes = S.DefaultFunctionArrayLvalueConversion(Ptr);
  if (PtrRes.isInvalid())
    return ExprError();
  QualType PtrTy = PtrRes.get()->getType();
  if (!PtrTy->isPointerType()) {
    S.Diag(ELoc, diag::err_omp_memory_range_not_pointer)
        << PtrTy << Construct << Ptr->getSourceRange();
    return ExprError();
  }
  QualType Pointee = PtrTy->getPointeeType();
  // isCompleteType, not Type::isIncompleteType: a class template
  // specialization that nothing required complete yet is instantiated here
  // (as 'sizeof(*ptr)' would), not reported as incomplete.
  if (Pointee->isFunctionType() ||
      (!Pointee->isVoidType() && !S.isCompleteType(ELoc, Pointee))) {
    S.Diag(ELoc, diag::err_omp_memory_range_bad_pointee)
        << (Pointee->isFunctionType() ? 0 : 1) << PtrTy << Construct
        << Ptr->getSourceRange();
    return ExprError();
  }

  SourceLocation LLoc = Length->getExprLoc();
  ExprResult LenRes = S.DefaultLvalueConversion(Length);
  if (LenRes.isInvalid())
    return ExprError();
  QualType LenTy = LenRes.get()->getType();
  if (!LenTy->isIntegralOrUnscopedEnumerationType()) {
    S.Diag(LLoc, diag::err_omp_memory_range_length_not_integer)
        << LenTy << Construct << Length->getSourceRange();
    return ExprError();
  }
  if (!LenRes.get()->isValueDependent()) {
    if (std::optional<llvm::APSInt> Value =
            LenRes.get()->getIntegerConstantExpr(Ctx);
        Value && Value->isNegative()) {
      S.Diag(LLoc, diag::err_omp_memory_range_length_negative)
          << toString(*Value, 10) << Construct << Length->getSourceRange();
      return ExprError();
    }
  }
  checkZeroLength(S, LenRes.get(), Construct);
  return buildOpenMPPointerLengthRange(Ctx, PtrRes.get(), ColonLoc,
                                       LenRes.get());
}

std::string SemaOpenMP::getOpenMPMemoryRangeListName(OpenMPClauseKind CKind) {
  if (CKind == llvm::omp::OMPC_nexttouch)
    return "'#pragma omp nexttouch'";
  return ("'" + getOpenMPClauseName(CKind) + "' clause").str();
}

ExprResult SemaOpenMP::ActOnOpenMPMemoryRange(OpenMPClauseKind CKind,
                                              Expr *Item,
                                              SourceLocation ColonLoc,
                                              Expr *Length) {
  Sema &S = SemaRef;
  std::string Construct = getOpenMPMemoryRangeListName(CKind);
  if (Length)
    return buildPointerLengthRange(S, Item, ColonLoc, Length, Construct);

  // Checked again when the template is instantiated.
  if (Item->isTypeDependent())
    return Item;

  SourceLocation ELoc = Item->getExprLoc();
  if (auto *Section = dyn_cast<ArraySectionExpr>(Item->IgnoreParenImpCasts())) {
    // The lower bound, the length and their signs were checked when the
    // section was built; what is left is its shape.
    if (isa<ArraySectionExpr>(Section->getBase()->IgnoreParenImpCasts())) {
      S.Diag(ELoc, diag::err_omp_memory_range_section_dims)
          << Construct << Item->getSourceRange();
      return ExprError();
    }
    if (Section->getColonLocFirst().isInvalid()) {
      S.Diag(ELoc, diag::err_omp_memory_range_expected)
          << Construct << Item->getSourceRange();
      return ExprError();
    }
    if (const Expr *SecLen = Section->getLength())
      checkZeroLength(S, SecLen, Construct);
    return Item;
  }

  QualType Ty = Item->getType();
  if (Ty->isArrayType() && Item->isGLValue()) {
    if (Ty->isIncompleteArrayType()) {
      S.Diag(ELoc, diag::err_omp_memory_range_incomplete_array)
          << Ty << Construct << Item->getSourceRange();
      return ExprError();
    }
    return Item;
  }

  S.Diag(ELoc, diag::err_omp_memory_range_expected)
      << Construct << Item->getSourceRange();
  return ExprError();
}
