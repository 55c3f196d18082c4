//===--- ParseOpenMPMemoryRange.cpp - Lists of memory ranges --------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parsing of lists of memory ranges, as in the affinity-on-next-touch
// extension '#pragma omp nexttouch(list)':
//
//   memory-range-list:
//     memory-range
//     memory-range-list ',' memory-range
//   memory-range:
//     assignment-expression ':' assignment-expression     (ptr : len)
//     array-section                                        (a[lb : len])
//     assignment-expression                                (an array)
//
//===----------------------------------------------------------------------===//

#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Parse/Parser.h"
#include "clang/Parse/RAIIObjectsForParser.h"
#include "clang/Sema/Scope.h"
#include "clang/Sema/SemaOpenMP.h"

using namespace clang;

OMPClause *Parser::ParseOpenMPMemoryRangeListClause(OpenMPDirectiveKind DKind,
                                                    OpenMPClauseKind Kind,
                                                    bool ParseOnly) {
  // The implicit clause of '#pragma omp nexttouch' starts at its '('; an
  // explicit clause (such as a future 'readonly(list)') at its name.
  SourceLocation Loc = Tok.getLocation();
  if (Tok.isNot(tok::l_paren))
    ConsumeToken();
  BalancedDelimiterTracker T(*this, tok::l_paren, tok::annot_pragma_openmp_end);
  if (T.expectAndConsume(diag::err_expected_lparen_after,
                         getOpenMPClauseName(Kind).data()))
    return nullptr;
  SourceLocation LOpen = T.getOpenLocation();

  SmallVector<Expr *, 4> Items;
  SmallVector<Expr *, 4> Lengths;
  if (Tok.is(tok::r_paren))
    Diag(Tok, diag::err_omp_nexttouch_missing_list);
  while (Tok.isNot(tok::r_paren) && Tok.isNot(tok::annot_pragma_openmp_end)) {
    ParseScope OMPListScope(this, Scope::OpenMPDirectiveScope);
    ColonProtectionRAIIObject ColonRAII(*this, /*Value=*/true);
    ExprResult Item =
        Actions.CorrectDelayedTyposInExpr(ParseAssignmentExpression());
    ExprResult Length;
    bool HasLength = false;
    if (Tok.is(tok::colon)) {
      ConsumeToken();
      HasLength = true;
      ColonRAII.restore();
      Length = Actions.CorrectDelayedTyposInExpr(ParseAssignmentExpression());
    }
    if (Item.isUsable() && (!HasLength || Length.isUsable())) {
      Items.push_back(Item.get());
      Lengths.push_back(HasLength ? Length.get() : nullptr);
    } else {
      SkipUntil(tok::comma, tok::r_paren, tok::annot_pragma_openmp_end,
                StopBeforeMatch);
    }
    if (Tok.is(tok::comma)) {
      ConsumeToken();
      if (Tok.is(tok::r_paren))
        Diag(Tok, diag::err_expected_expression);
    } else if (Tok.isNot(tok::r_paren) &&
               Tok.isNot(tok::annot_pragma_openmp_end)) {
      Diag(Tok, diag::err_omp_expected_punc)
          << getOpenMPDirectiveName(DKind) << /*directive=*/1;
      SkipUntil(tok::comma, tok::r_paren, tok::annot_pragma_openmp_end,
                StopBeforeMatch);
      if (Tok.is(tok::comma))
        ConsumeToken();
    }
  }
  SourceLocation RLoc = Tok.getLocation();
  if (!T.consumeClose())
    RLoc = T.getCloseLocation();

  if (ParseOnly)
    return nullptr;
  // An empty list (after a diagnostic) still makes a clause, so that the
  // directive is not diagnosed a second time for having no list.
  return Actions.OpenMP().ActOnOpenMPNextTouchClause(Items, Lengths, Loc,
                                                     LOpen, RLoc);
}
