//===--- CGOpenMPReadonly.cpp - Emit the 'readonly' clause ----------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of the extension clause 'readonly(list)' of parallel
// constructs:
//
//   encountering thread, after the clauses' pre-init statements:
//     kmp_memory_range_t items[N] = {{base, count, elem_size}, ...};
//     const char *names[N] = {"spelling", ...};
//     data[0] = __kmpc_readonly_begin(loc, gtid, N, items, names);
//     data[1 + i] = items[i].base;
//     fork (the outlined function captures 'data')
//     __kmpc_readonly_end(loc, gtid, data[0]);
//
//   outlined function, before the region's code:
//     void **ptrs = __kmpc_readonly_ptrs(loc, gtid, data[0]);
//     for each item i whose base is a variable v (or a member 'this->m'):
//       delta = ptrs[i] - data[1 + i]  (0, or the offset of this thread's
//                                       node replica; page-aligned)
//       an array v:   v designates  (char *)&v + delta
//       a pointer v:  ptrs[i] = (char *)v + delta; v designates ptrs[i]
//
// 'data' is the implicit variable 'void *[N + 1]' that Sema declared in the
// clause's pre-init statement (SemaOpenMPReadonly.cpp). The region captures
// each base variable, also a global or a static one, and stands for
// 'this->m' with a reference to the member that the pre-init statement
// declares and the region captures (an OMPCapturedExprDecl, as for
// 'private(this->m)'); the designated address of each of these variables is
// registered in an OMPPrivateScope that lives while the region's code is
// emitted, so EmitDeclRefLValue finds it in LocalDeclMap as it finds a
// private copy. A member 's.m' of a variable is kept in
// CodeGenFunction::OMPReadonlyMemberAddrs, which EmitMemberExpr looks up: a
// member is not a declaration, so it cannot be an entry of the scope, and
// Sema has no reference to stand for it ('this->m' has one because upstream
// builds it for 'private(this->m)'; a hook for 's.m' in SemaExprMember.cpp
// would change how every member access in an OpenMP region is built). The
// map belongs to the outlined function's CodeGenFunction, like LocalDeclMap:
// it is state of the region's code generation.
// 'ptrs' belongs to the region instance and the thread: it stays valid until
// __kmpc_readonly_end, after the join, so the region's tasks (some run in
// the join barrier, after the outlined function returned) read the copy of
// a pointer there, and a nested or recursive instance of the construct on
// the same thread has its own.
//
// So inside the region, in the constructs emitted inline in it and in the
// regions nested in it (a task captures the redirected variable), every
// reference to such a variable reads the replica of the executing thread's
// node, and what the region passes to a function is the replica's address.
// Not redirected: list items whose base is not a variable (Sema warns), a
// member 's.m' in a nested outlined region, and a pointer read from memory.
// A pointer variable of a list item behaves as firstprivate in the region.
//
//===----------------------------------------------------------------------===//

#include "CGOpenMPReadonly.h"
#include "CGOpenMPMemoryRange.h"
#include "CodeGenFunction.h"
#include "CodeGenModule.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/OpenMPMemoryRange.h"
#include "clang/AST/OpenMPReadonly.h"
#include "clang/AST/StmtOpenMP.h"
#include "llvm/Frontend/OpenMP/OMPIRBuilder.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace CodeGen;

void CodeGenFunction::setOMPReadonlyMemberAddr(const VarDecl *VD,
                                               const FieldDecl *FD,
                                               Address Addr) {
  OMPReadonlyMemberAddrs.insert_or_assign(
      {VD->getCanonicalDecl(), FD->getCanonicalDecl()}, Addr);
}

Address CodeGenFunction::getOMPReadonlyMemberAddr(const VarDecl *VD,
                                                  const FieldDecl *FD) const {
  if (OMPReadonlyMemberAddrs.empty())
    return Address::invalid();
  auto It = OMPReadonlyMemberAddrs.find(
      {VD->getCanonicalDecl(), FD->getCanonicalDecl()});
  return It == OMPReadonlyMemberAddrs.end() ? Address::invalid() : It->second;
}

llvm::Value *CGOpenMPRuntime::emitReadonlyBeginCall(CodeGenFunction &CGF,
                                                    SourceLocation Loc,
                                                    unsigned NumItems,
                                                    llvm::Value *Items,
                                                    llvm::Value *Names) {
  // The location is emitted also without debug information (as for the
  // 'error' directive): the runtime's message on a write names it.
  llvm::Value *Args[] = {
      emitUpdateLocation(CGF, Loc, /*Flags=*/0, /*EmitLoc=*/true),
      getThreadID(CGF, Loc), llvm::ConstantInt::get(CGM.Int32Ty, NumItems),
      Items, Names};
  return CGF.EmitRuntimeCall(
      OMPBuilder.getOrCreateRuntimeFunction(
          CGM.getModule(), llvm::omp::OMPRTL___kmpc_readonly_begin),
      Args, "omp.readonly.handle");
}

llvm::Value *CGOpenMPRuntime::emitReadonlyPtrsCall(CodeGenFunction &CGF,
                                                   SourceLocation Loc,
                                                   llvm::Value *Handle) {
  llvm::Value *Args[] = {emitUpdateLocation(CGF, Loc), getThreadID(CGF, Loc),
                         Handle};
  return CGF.EmitRuntimeCall(
      OMPBuilder.getOrCreateRuntimeFunction(
          CGM.getModule(), llvm::omp::OMPRTL___kmpc_readonly_ptrs),
      Args, "omp.readonly.ptrs");
}

void CGOpenMPRuntime::emitReadonlyEndCall(CodeGenFunction &CGF,
                                          SourceLocation Loc,
                                          llvm::Value *Handle) {
  llvm::Value *Args[] = {emitUpdateLocation(CGF, Loc), getThreadID(CGF, Loc),
                         Handle};
  CGF.EmitRuntimeCall(
      OMPBuilder.getOrCreateRuntimeFunction(
          CGM.getModule(), llvm::omp::OMPRTL___kmpc_readonly_end),
      Args);
}

OMPReadonlyRegion::OMPReadonlyRegion(CodeGenFunction &CGF,
                                     const OMPExecutableDirective &S,
                                     const RegionCodeGenTy &CodeGen)
    : Loc(S.getBeginLoc()), CodeGen(CodeGen), Wrapper{this},
      WrappedCodeGen(Wrapper) {
  const LangOptions &LO = CGF.getLangOpts();
  // Replicas are host memory: a device or SIMD-only compilation ignores the
  // clause.
  if (LO.OpenMPIsTargetDevice || LO.OpenMPSimd)
    return;
  const auto *C = S.getSingleClause<OMPReadonlyClause>();
  if (C && !C->varlist_empty() && C->getRegionDataDecl())
    Clause = C;
}

void OMPReadonlyRegion::WrapperTy::operator()(CodeGenFunction &CGF,
                                              PrePostActionTy &Action) const {
  Action.Enter(CGF);
  // The bases designate this thread's memory while the region's code is
  // emitted, the way private copies do.
  CodeGenFunction::OMPPrivateScope Scope(CGF);
  Region->emitRedirects(CGF, Scope);
  (void)Scope.Privatize();
  Region->CodeGen(CGF);
}

void OMPReadonlyRegion::emitBegin(CodeGenFunction &CGF) {
  if (!Clause || !CGF.HaveInsertPoint())
    return;
  CodeGenModule &CGM = CGF.CGM;
  CGOpenMPRuntime &RT = CGM.getOpenMPRuntime();
  CGBuilderTy &B = CGF.Builder;
  unsigned N = Clause->varlist_size();

  SmallVector<OpenMPMemoryRange, 4> Ranges;
  llvm::Value *Items = emitOpenMPMemoryRangeArray(
      CGF, llvm::ArrayRef(Clause->varlist_begin(), Clause->varlist_end()),
      Clause->getItemColonLocs(), &Ranges);
  Address Names =
      CGF.CreateTempAlloca(llvm::ArrayType::get(CGF.VoidPtrTy, N),
                           CGF.getPointerAlign(), "omp.readonly.names");
  Address Data = CGF.GetAddrOfLocalVar(Clause->getRegionDataDecl());
  PrintingPolicy Policy(CGM.getContext().getPrintingPolicy());
  for (auto [I, Item] : llvm::enumerate(Clause->varlist())) {
    // The item as written, for the runtime's messages.
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    printOpenMPMemoryRange(OS, Item, Clause->getItemColonLocs()[I], Policy);
    OS.flush();
    B.CreateStore(CGM.GetAddrOfConstantCString(Name).getPointer(),
                  B.CreateConstArrayGEP(Names, I));
    // The address the threads' offsets are computed from.
    B.CreateStore(Ranges[I].Base, B.CreateConstArrayGEP(Data, I + 1));
  }
  Handle = RT.emitReadonlyBeginCall(
      CGF, Loc, N, Items, B.CreateConstArrayGEP(Names, 0).emitRawPointer(CGF));
  B.CreateStore(Handle, B.CreateConstArrayGEP(Data, 0));
}

void OMPReadonlyRegion::emitEnd(CodeGenFunction &CGF) {
  if (!Handle || !CGF.HaveInsertPoint())
    return;
  CGF.CGM.getOpenMPRuntime().emitReadonlyEndCall(CGF, Loc, Handle);
}

/// The capture of the member 'this->FD' that the pre-init statement of \p C
/// declares (SemaOpenMPReadonly.cpp), or null.
static const VarDecl *getThisMemberCapture(const OMPReadonlyClause *C,
                                           const FieldDecl *FD) {
  const auto *DS = cast_or_null<DeclStmt>(C->getPreInitStmt());
  if (!DS)
    return nullptr;
  for (const Decl *D : DS->decls()) {
    const auto *CED = dyn_cast<OMPCapturedExprDecl>(D);
    const auto *ME = CED && CED->getInit()
                         ? dyn_cast<MemberExpr>(CED->getInit()->IgnoreParens())
                         : nullptr;
    if (ME && ME->getMemberDecl()->getCanonicalDecl() == FD)
      return CED;
  }
  return nullptr;
}

void OMPReadonlyRegion::emitRedirects(
    CodeGenFunction &CGF, CodeGenFunction::OMPPrivateScope &Scope) const {
  const VarDecl *DataVD = Clause->getRegionDataDecl();
  // The region captures its data (SemaOpenMP::ActOnOpenMPRegionEnd).
  if (!CGF.HaveInsertPoint() || !CGF.CapturedStmtInfo ||
      !CGF.CapturedStmtInfo->lookup(DataVD))
    return;
  CodeGenModule &CGM = CGF.CGM;
  ASTContext &Ctx = CGM.getContext();
  CGOpenMPRuntime &RT = CGM.getOpenMPRuntime();
  CGBuilderTy &B = CGF.Builder;
  unsigned N = Clause->varlist_size();

  DeclRefExpr DataRef(Ctx, const_cast<VarDecl *>(DataVD),
                      /*RefersToEnclosingVariableOrCapture=*/true,
                      DataVD->getType(), VK_LValue, Loc);
  Address Data = CGF.EmitLValue(&DataRef).getAddress();
  // This thread's pointers for this instance of the region; a pointer
  // variable's copy is kept there (see the top of the file).
  Address Ptrs(
      RT.emitReadonlyPtrsCall(
          CGF, Loc,
          B.CreateLoad(B.CreateConstArrayGEP(Data, 0), "omp.readonly.handle")),
      llvm::ArrayType::get(CGF.VoidPtrTy, N), CGF.getPointerAlign());
  for (auto [I, Item] : llvm::enumerate(Clause->varlist())) {
    OpenMPReadonlyBase Base = getOpenMPReadonlyBase(Item);
    if (!Base.isValid())
      continue;
    // The variable that is redirected: the base variable, or the capture of
    // 'this->m'; for 's.m', the variable 's'. A variable the region does not
    // capture is one it does not use, except a global 's', which the region
    // reads directly.
    const VarDecl *VD =
        Base.This ? getThisMemberCapture(Clause, Base.Field) : Base.Var;
    if (!VD)
      continue;
    bool Captured = CGF.CapturedStmtInfo->lookup(VD);
    if (!Captured && (VD->hasLocalStorage() || !Base.Field || Base.This))
      continue;
    DeclRefExpr Ref(Ctx, const_cast<VarDecl *>(VD),
                    /*RefersToEnclosingVariableOrCapture=*/Captured,
                    VD->getType().getNonReferenceType(), VK_LValue, Loc);
    LValue LV = CGF.EmitLValue(&Ref);
    bool Member = Base.Field && !Base.This;
    if (Member)
      LV = CGF.EmitLValueForField(LV, Base.Field);
    StringRef Name = Base.Field ? Base.Field->getName() : Base.Var->getName();
    QualType Ty = Base.Field ? Base.Field->getType() : Base.Var->getType();
    llvm::Value *Orig =
        B.CreateLoad(B.CreateConstArrayGEP(Data, I + 1), "omp.readonly.orig");
    Address Slot = B.CreateConstArrayGEP(Ptrs, I);
    llvm::Value *Mine = B.CreateLoad(Slot, "omp.readonly.ptr");
    llvm::Value *Delta =
        B.CreateSub(B.CreatePtrToInt(Mine, CGF.IntPtrTy),
                    B.CreatePtrToInt(Orig, CGF.IntPtrTy), "omp.readonly.delta");
    Address Redirected = Address::invalid();
    if (Base.isArray()) {
      Address A = LV.getAddress();
      // Not inbounds: the replica is another object.
      llvm::Value *P = B.CreateGEP(CGF.Int8Ty, A.emitRawPointer(CGF), Delta,
                                   Name + ".readonly");
      Redirected = Address(P, A.getElementType(), A.getAlignment());
    } else {
      llvm::Value *P = CGF.EmitLoadOfScalar(LV, Loc);
      llvm::Value *Mapped =
          B.CreateGEP(CGF.Int8Ty, P, Delta, Name + ".readonly");
      Redirected = Slot.withElementType(CGF.ConvertTypeForMem(Ty));
      CGF.EmitStoreOfScalar(Mapped, CGF.MakeAddrLValue(Redirected, Ty),
                            /*isInit=*/true);
    }
    if (Member)
      CGF.setOMPReadonlyMemberAddr(VD, Base.Field, Redirected);
    else
      Scope.addPrivate(VD, Redirected);
  }
}

std::optional<LValue>
CodeGen::emitOpenMPReadonlyMemberLValue(CodeGenFunction &CGF,
                                        const MemberExpr *E) {
  // The form getOpenMPReadonlyBase accepts: 's.m' ('this->m' is a reference
  // to its capture in the region, see emitRedirects).
  const auto *FD = dyn_cast<FieldDecl>(E->getMemberDecl());
  const auto *DRE = dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParens());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!FD || !VD || E->isArrow())
    return std::nullopt;
  Address A = CGF.getOMPReadonlyMemberAddr(VD, FD);
  if (!A.isValid())
    return std::nullopt;
  return CGF.MakeAddrLValue(A, E->getType(), AlignmentSource::Decl);
}
