//===--- ParseOpenMPMemoryRange.cpp - Lists of memory ranges --------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parsing of clauses whose argument is a list of memory ranges, such as the
// implicit clause of the extension directive '#pragma omp nexttouch(list)':
//
//   memory-range-list:
//     memory-range
//     memory-range-list ',' memory-range
//   memory-range:
//     assignment-expression ':' assignment-expression     (ptr : len)
//     array-section                                        (a[lb : len])
//     assignment-expression                                (an array)
//
// Each item goes to Sema as it is parsed (SemaOpenMP::ActOnOpenMPMemoryRange),
// the list to the clause's semantic action
// (SemaOpenMP::ActOnOpenMPMemoryRangeListClause).
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
  // An implicit clause (the list of '#pragma omp nexttouch') starts at its
  // '('; an explicit one at its name.
  SourceLocation Loc = Tok.getLocation();
  if (Tok.isNot(tok::l_paren))
    ConsumeToken();
  BalancedDelimiterTracker T(*this, tok::l_paren, tok::annot_pragma_openmp_end);
  if (T.expectAndConsume(diag::err_expected_lparen_after,
                         getOpenMPClauseName(Kind).data()))
    return nullptr;
  SourceLocation LOpen = T.getOpenLocation();

  SmallVector<Expr *, 4> Items;
  SmallVector<SourceLocation, 4> ColonLocs;
  if (Tok.is(tok::r_paren))
    Diag(Tok, diag::err_omp_memory_range_list_empty)
        << SemaOpenMP::getOpenMPMemoryRangeListName(Kind);
  while (Tok.isNot(tok::r_paren) && Tok.isNot(tok::annot_pragma_openmp_end)) {
    ParseScope OMPListScope(this, Scope::OpenMPDirectiveScope);
    ColonProtectionRAIIObject ColonRAII(*this, /*Value=*/true);
    ExprResult Item = ParseAssignmentExpression();
    ExprResult Length;
    SourceLocation ColonLoc;
    if (Tok.is(tok::colon)) {
      ColonLoc = ConsumeToken();
      ColonRAII.restore();
      Length = ParseAssignmentExpression();
    }
    if (Item.isUsable() && (ColonLoc.isInvalid() || Length.isUsable())) {
      // An invalid item has been diagnosed; the others are still checked.
      if (!ParseOnly) {
        ExprResult Range = Actions.OpenMP().ActOnOpenMPMemoryRange(
            Kind, Item.get(), ColonLoc, Length.get());
        if (Range.isUsable()) {
          Items.push_back(Range.get());
          ColonLocs.push_back(ColonLoc);
        }
      }
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
  // construct is not diagnosed a second time for having no list.
  return Actions.OpenMP().ActOnOpenMPMemoryRangeListClause(
      Kind, Items, ColonLocs, Loc, LOpen, RLoc);
}
