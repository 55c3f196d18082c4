//===--- SemaOpenMPNextTouch.cpp - '#pragma omp nexttouch' ----------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Semantic analysis of the affinity-on-next-touch extension
// '#pragma omp nexttouch(list)'. Its list items are checked as they are
// parsed (or instantiated) by SemaOpenMP::ActOnOpenMPMemoryRange, see
// SemaOpenMPMemoryRange.cpp.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaOpenMP.h"

using namespace clang;

OMPClause *SemaOpenMP::ActOnOpenMPNextTouchClause(
    ArrayRef<Expr *> Items, ArrayRef<SourceLocation> ColonLocs,
    SourceLocation StartLoc, SourceLocation LParenLoc, SourceLocation EndLoc) {
  return OMPNextTouchClause::Create(getASTContext(), StartLoc, LParenLoc,
                                    EndLoc, Items, ColonLocs);
}

StmtResult
SemaOpenMP::ActOnOpenMPNextTouchDirective(ArrayRef<OMPClause *> Clauses,
                                          SourceLocation StartLoc,
                                          SourceLocation EndLoc) {
  if (!OMPExecutableDirective::getSingleClause<OMPNextTouchClause>(Clauses)) {
    Diag(StartLoc, diag::err_omp_memory_range_list_empty)
        << getOpenMPMemoryRangeListName(llvm::omp::OMPC_nexttouch);
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
