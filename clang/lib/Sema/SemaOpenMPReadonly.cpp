//===--- SemaOpenMPReadonly.cpp - The 'readonly' clause -------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Semantic analysis of the extension clause 'readonly(list)' of 'parallel'
// and of the constructs that begin with 'parallel' (OMP.td says which). Its
// list items are checked as they are parsed (or instantiated) by
// SemaOpenMP::ActOnOpenMPMemoryRange, see SemaOpenMPMemoryRange.cpp. Here:
//
// - the clause is host-only, like '#pragma omp nexttouch';
// - each list item whose base is a variable ('p : len', 'a[lb : len]', 'a')
//   or a member of a variable or of 'this' ('s.a', 'this->p : len', see
//   clang/AST/OpenMPReadonly.h) is read, inside the region, from the replica
//   of the executing thread's node: code generation redirects that variable
//   or member, so it may be the base of one list item only, and a variable
//   may not also be privatized by the construct ('private', 'firstprivate',
//   'lastprivate', 'reduction', 'linear'), since the region would then not
//   read the listed memory through it ('copyin' takes threadprivate
//   variables, which are not redirected);
// - the region, and the regions nested in it, capture each such variable,
//   also a global or static one (SemaOpenMP::isOpenMPCapturedDecl asks the
//   DSA stack, where the clause records its bases), so that code generation
//   can make the captured variable designate the replica the way it makes a
//   variable designate its private copy; 'this->m' stands, in those regions,
//   for a reference to the member that the clause's pre-init statement
//   declares (an OMPCapturedExprDecl, as for 'private(this->m)'; see the
//   OpenMP hook in SemaExprMember.cpp);
// - a list item of another form is write-protected but read from the
//   original, which a warning says;
// - the clause's pre-init statement declares the region's data, an implicit
//   'void *[N + 1]' of the encountering thread, then the references to the
//   members 'this->m', all of which the parallel region captures
//   (SemaOpenMP::ActOnOpenMPRegionEnd captures the pre-init declarations of
//   the clauses of a capturing construct);
// - an address derived from a redirected variable ('&a[i]', 'a + i', 'a')
//   that the region stores where it outlives the region (a variable declared
//   outside it and not privatized, or a member of one) draws a warning: in
//   the region it may point into the thread's node's replica, which the
//   runtime makes inaccessible where the program writes the item after the
//   region.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclOpenMP.h"
#include "clang/AST/ExprOpenMP.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/OpenMPMemoryRange.h"
#include "clang/AST/OpenMPReadonly.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaOpenMP.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

OMPClause *SemaOpenMP::ActOnOpenMPReadonlyClause(
    ArrayRef<Expr *> Items, ArrayRef<SourceLocation> ColonLocs,
    SourceLocation StartLoc, SourceLocation LParenLoc, SourceLocation EndLoc) {
  ASTContext &Ctx = getASTContext();
  // The listed memory is host memory; a target region runs elsewhere.
  if (isInOpenMPTargetExecutionDirective()) {
    Diag(StartLoc, diag::err_omp_readonly_in_target);
    return nullptr;
  }

  bool Dependent = SemaRef.CurContext->isDependentContext();
  SmallVector<std::pair<OpenMPReadonlyBase, const Expr *>, 8> Bases;
  for (const Expr *Item : Items) {
    if (Item->isTypeDependent())
      continue;
    OpenMPMemoryRangeBase Why;
    OpenMPReadonlyBase Base = getOpenMPReadonlyBase(Item, &Why);
    if (!Base.isValid()) {
      // Said once, when the template is instantiated.
      if (!Dependent)
        Diag(Item->getExprLoc(), diag::warn_omp_readonly_not_redirected)
            << (Why == OpenMPMemoryRangeBase::Reference       ? 1
                : Why == OpenMPMemoryRangeBase::ThreadPrivate ? 2
                                                              : 0)
            << Item->getSourceRange();
      continue;
    }
    const auto *It =
        llvm::find_if(Bases, [&](const auto &B) { return B.first == Base; });
    if (It == Bases.end()) {
      Bases.emplace_back(Base, Item);
      continue;
    }
    // Said once, when the template is instantiated.
    if (!Dependent) {
      const NamedDecl *Name =
          Base.Field ? static_cast<const NamedDecl *>(Base.Field) : Base.Var;
      Diag(Item->getExprLoc(), diag::err_omp_readonly_same_base)
          << Name << Item->getSourceRange();
      Diag(It->second->getExprLoc(), diag::note_omp_readonly_item)
          << It->second->getSourceRange();
    }
  }

  // SIMD-only and device compilations ignore the clause (the memory is the
  // host's, read by host threads).
  const LangOptions &LO = getLangOpts();
  if (Items.empty() || LO.OpenMPSimd || LO.OpenMPIsTargetDevice)
    return OMPReadonlyClause::Create(Ctx, StartLoc, LParenLoc, EndLoc, Items,
                                     ColonLocs, /*PreInit=*/nullptr);

  // The region's data: the runtime's handle, then the address of each item.
  SmallVector<Decl *, 4> PreInitDecls;
  if (!Dependent) {
    QualType Ty = Ctx.getConstantArrayType(
        Ctx.VoidPtrTy,
        llvm::APInt(Ctx.getTypeSize(Ctx.getSizeType()), Items.size() + 1),
        /*SizeExpr=*/nullptr, ArraySizeModifier::Normal,
        /*IndexTypeQuals=*/0);
    auto *VD =
        VarDecl::Create(Ctx, SemaRef.CurContext, StartLoc, StartLoc,
                        &Ctx.Idents.get(".omp.readonly.data"), Ty,
                        Ctx.getTrivialTypeSourceInfo(Ty, StartLoc), SC_None);
    VD->setImplicit();
    PreInitDecls.push_back(VD);
  }

  // The region and the regions nested in it capture the bases (see the top
  // of the file). A member 's.m' of a variable is redirected by code
  // generation alone.
  for (const auto &[Base, Item] : Bases) {
    if (!Base.This) {
      if (!Base.Field)
        addOpenMPReadonlyBase(Base.Var, const_cast<VarDecl *>(Base.Var));
      continue;
    }
    // 'this->m' (or 'm' in a member function): a reference to the member,
    // bound before the fork. Built once the template is instantiated, like
    // the references of 'private(this->m)'.
    if (Dependent)
      continue;
    const Expr *E = Item->IgnoreParenImpCasts();
    if (const auto *Section = dyn_cast<ArraySectionExpr>(E))
      E = Section->getBase()->IgnoreParenImpCasts();
    auto *ME = const_cast<MemberExpr *>(cast<MemberExpr>(E));
    auto *CED = OMPCapturedExprDecl::Create(
        Ctx, SemaRef.CurContext, Base.Field->getIdentifier(),
        Ctx.getLValueReferenceType(ME->getType()), ME->getBeginLoc());
    SemaRef.CurContext->addHiddenDecl(CED);
    {
      Sema::TentativeAnalysisScope Trap(SemaRef);
      SemaRef.AddInitializerToDecl(CED, ME, /*DirectInit=*/false);
    }
    if (CED->isInvalidDecl())
      continue;
    PreInitDecls.push_back(CED);
    addOpenMPReadonlyBase(Base.Field, CED);
  }

  Stmt *PreInit = nullptr;
  if (!PreInitDecls.empty())
    PreInit = new (Ctx) DeclStmt(
        DeclGroupRef::Create(Ctx, PreInitDecls.data(), PreInitDecls.size()),
        StartLoc, EndLoc);
  return OMPReadonlyClause::Create(Ctx, StartLoc, LParenLoc, EndLoc, Items,
                                   ColonLocs, PreInit);
}

bool SemaOpenMP::checkOpenMPReadonlyClause(ArrayRef<OMPClause *> Clauses) {
  // Checked once, when the template is instantiated.
  if (SemaRef.CurContext->isDependentContext())
    return false;
  llvm::SmallDenseMap<const VarDecl *, const Expr *, 8> Bases;
  for (const OMPClause *C : Clauses)
    if (const auto *RO = dyn_cast_or_null<OMPReadonlyClause>(C))
      for (const Expr *Item : RO->varlist())
        if (OpenMPReadonlyBase B = getOpenMPReadonlyBase(Item);
            B.Var && !B.Field)
          Bases.try_emplace(B.Var, Item);
  if (Bases.empty())
    return false;

  bool Error = false;
  for (const OMPClause *C : Clauses) {
    if (!C)
      continue;
    switch (C->getClauseKind()) {
    case llvm::omp::OMPC_private:
    case llvm::omp::OMPC_firstprivate:
    case llvm::omp::OMPC_lastprivate:
    case llvm::omp::OMPC_reduction:
    case llvm::omp::OMPC_linear:
      break;
    default:
      continue;
    }
    for (const Stmt *Child : C->children()) {
      const auto *E = dyn_cast_or_null<Expr>(Child);
      const auto *DRE =
          E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
      const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      if (!VD)
        continue;
      auto It = Bases.find(VD->getCanonicalDecl());
      if (It == Bases.end())
        continue;
      Diag(E->getExprLoc(), diag::err_omp_readonly_conflict)
          << VD << getOpenMPClauseName(C->getClauseKind())
          << E->getSourceRange();
      Diag(It->second->getExprLoc(), diag::note_omp_readonly_item)
          << It->second->getSourceRange();
      Error = true;
    }
  }
  return Error;
}

namespace {
// Finds the assignments of a region's body that store an address derived
// from a redirected variable of the 'readonly' clause where it outlives the
// region.
class ReadonlyEscapeFinder : public RecursiveASTVisitor<ReadonlyEscapeFinder> {
public:
  ReadonlyEscapeFinder(Sema &S,
                       const llvm::SmallPtrSetImpl<const VarDecl *> &Bases,
                       const llvm::SmallPtrSetImpl<const VarDecl *> &Private)
      : S(S), Bases(Bases), Private(Private) {}

  bool VisitDeclStmt(DeclStmt *DS) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        Local.insert(VD->getCanonicalDecl());
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() != BO_Assign || !BO->getType()->isPointerType())
      return true;
    const VarDecl *To = storage(BO->getLHS());
    const VarDecl *From = base(BO->getRHS());
    if (!To || !From || Local.count(To) || Private.count(To) || Bases.count(To))
      return true;
    S.Diag(BO->getOperatorLoc(), diag::warn_omp_readonly_address_escapes)
        << From << To << BO->getSourceRange();
    return true;
  }

private:
  // The variable whose storage an lvalue is in: 'v', 'v.m', 'v[i]'.
  static const VarDecl *storage(const Expr *E) {
    for (;;) {
      E = E->IgnoreParenImpCasts();
      if (const auto *ME = dyn_cast<MemberExpr>(E)) {
        if (ME->isArrow())
          return nullptr;
        E = ME->getBase();
      } else if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
        // An element of an array (not of what a pointer points to).
        E = ASE->getBase()->IgnoreParenImpCasts();
        if (!E->getType()->isArrayType())
          return nullptr;
      } else {
        break;
      }
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return VD ? VD->getCanonicalDecl() : nullptr;
  }

  // The redirected variable an address is derived from: 'a', '&a[i]',
  // '&a[i].m', 'a + i', or null.
  const VarDecl *base(const Expr *E) const {
    E = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_AddrOf)
        return nullptr;
      E = UO->getSubExpr();
      for (;;) {
        E = E->IgnoreParenImpCasts();
        if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
          E = ASE->getBase();
        else if (const auto *ME = dyn_cast<MemberExpr>(E))
          E = ME->getBase();
        else
          break;
      }
    } else if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (!BO->isAdditiveOp())
        return nullptr;
      return base(BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                           : BO->getRHS());
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return VD && Bases.count(VD->getCanonicalDecl()) ? VD->getCanonicalDecl()
                                                     : nullptr;
  }

  Sema &S;
  const llvm::SmallPtrSetImpl<const VarDecl *> &Bases;
  const llvm::SmallPtrSetImpl<const VarDecl *> &Private;
  llvm::SmallPtrSet<const VarDecl *, 8> Local;
};
} // namespace

void SemaOpenMP::checkOpenMPReadonlyEscapes(ArrayRef<OMPClause *> Clauses,
                                            Stmt *Body) {
  // SIMD-only and device compilations read the originals (see above).
  const LangOptions &LO = getLangOpts();
  if (!Body || SemaRef.CurContext->isDependentContext() || LO.OpenMPSimd ||
      LO.OpenMPIsTargetDevice)
    return;
  llvm::SmallPtrSet<const VarDecl *, 8> Bases, Private;
  for (const OMPClause *C : Clauses) {
    if (const auto *RO = dyn_cast_or_null<OMPReadonlyClause>(C)) {
      for (const Expr *Item : RO->varlist())
        if (OpenMPReadonlyBase B = getOpenMPReadonlyBase(Item);
            B.Var && !B.Field)
          Bases.insert(B.Var->getCanonicalDecl());
      continue;
    }
    // A privatized variable dies with the region ('lastprivate' and
    // 'reduction' copy out).
    if (!C || (C->getClauseKind() != llvm::omp::OMPC_private &&
               C->getClauseKind() != llvm::omp::OMPC_firstprivate))
      continue;
    for (const Stmt *Child : C->children()) {
      const auto *E = dyn_cast_or_null<Expr>(Child);
      const auto *DRE =
          E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
      if (const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr)
        Private.insert(VD->getCanonicalDecl());
    }
  }
  if (Bases.empty())
    return;
  ReadonlyEscapeFinder(SemaRef, Bases, Private).TraverseStmt(Body);
}
