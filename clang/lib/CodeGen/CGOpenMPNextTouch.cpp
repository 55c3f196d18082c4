//===--- CGOpenMPNextTouch.cpp - Emit '#pragma omp nexttouch' -------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of the affinity-on-next-touch extension
// '#pragma omp nexttouch(list)': one call
//
//   kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid, kmp_int32 n,
//                              const kmp_nexttouch_range_t *ranges);
//
// with an array of n { void *base; size_t count; size_t elem_size; } built on
// the stack. Every list item's expressions are evaluated exactly once, in
// order; the runtime multiplies count by elem_size itself, so that a length
// that does not fit size_t (a negative one, say) is reported there rather
// than wrapped here.
//
//===----------------------------------------------------------------------===//

#include "CGOpenMPRuntime.h"
#include "CodeGenFunction.h"
#include "CodeGenModule.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"
#include "llvm/Frontend/OpenMP/OMPIRBuilder.h"

using namespace clang;
using namespace CodeGen;

namespace {
struct NextTouchRange {
  llvm::Value *Base;
  llvm::Value *Count;
  llvm::Value *ElemSize;
};
} // namespace

static llvm::Value *emitCount(CodeGenFunction &CGF, const Expr *E) {
  llvm::Value *V = CGF.EmitScalarExpr(E);
  unsigned Bits = V->getType()->getIntegerBitWidth();
  unsigned SizeBits = CGF.SizeTy->getIntegerBitWidth();
  if (Bits <= SizeBits)
    // Sign-extend signed lengths: a negative one becomes a count the runtime
    // rejects, not a small positive one.
    return CGF.Builder.CreateIntCast(V, CGF.SizeTy,
                                     E->getType()->isSignedIntegerType(),
                                     "nt.count");
  // Wider than size_t (__int128, _BitInt): a value that does not fit, or a
  // negative one (huge as unsigned), saturates to SIZE_MAX, which the runtime
  // reports as an overflow, instead of being truncated to a small count.
  CGBuilderTy &B = CGF.Builder;
  llvm::Value *Max = llvm::ConstantInt::get(
      V->getType(), llvm::APInt::getMaxValue(SizeBits).zext(Bits));
  llvm::Value *Fits = B.CreateICmpULE(V, Max, "nt.fits");
  return B.CreateSelect(Fits, B.CreateTrunc(V, CGF.SizeTy),
                        llvm::ConstantInt::getAllOnesValue(CGF.SizeTy),
                        "nt.count");
}

static llvm::Value *emitElemSize(CodeGenFunction &CGF, QualType Ty) {
  if (Ty->isVoidType())
    return llvm::ConstantInt::get(CGF.SizeTy, 1);
  return CGF.Builder.CreateIntCast(CGF.getTypeSize(Ty), CGF.SizeTy,
                                   /*isSigned=*/false);
}

/// The range of one list item: 'ptr : len', 'a[lb : len]' or an array.
static NextTouchRange emitRange(CodeGenFunction &CGF, const Expr *Item,
                                const Expr *Length) {
  CGBuilderTy &B = CGF.Builder;
  if (Length) {
    // Sema converted the item to a pointer rvalue.
    llvm::Value *Base = CGF.EmitScalarExpr(Item);
    llvm::Value *Count = emitCount(CGF, Length);
    return {Base, Count,
            emitElemSize(CGF, Item->getType()->getPointeeType())};
  }

  if (const auto *Section =
          dyn_cast<ArraySectionExpr>(Item->IgnoreParenImpCasts())) {
    const Expr *BaseExpr = Section->getBase()->IgnoreParenImpCasts();
    QualType BaseTy = BaseExpr->getType();
    llvm::Value *Ptr;
    QualType ElemTy;
    if (const ArrayType *AT = CGF.getContext().getAsArrayType(BaseTy)) {
      Ptr = CGF.EmitLValue(BaseExpr).emitRawPointer(CGF);
      ElemTy = AT->getElementType();
    } else {
      Ptr = CGF.EmitScalarExpr(Section->getBase());
      ElemTy = BaseTy->getPointeeType();
    }
    llvm::Value *ElemSize = emitElemSize(CGF, ElemTy);
    llvm::Value *Lower = llvm::ConstantInt::get(CGF.SizeTy, 0);
    if (const Expr *LB = Section->getLowerBound())
      Lower = emitCount(CGF, LB);
    llvm::Value *Count;
    if (const Expr *Len = Section->getLength()) {
      Count = emitCount(CGF, Len);
    } else {
      // 'a[lb:]': up to the end of the array (Sema requires an array here).
      const ArrayType *AT = CGF.getContext().getAsArrayType(BaseTy);
      assert(AT && "section without length on a pointer");
      llvm::Value *NumElts;
      if (const auto *CAT = dyn_cast<ConstantArrayType>(AT))
        NumElts = llvm::ConstantInt::get(CGF.SizeTy, CAT->getZExtSize());
      else
        // The outermost bound only: getVLASize would multiply in the bounds
        // of inner VLA dimensions ('int m[n][k]' has n elements here, not
        // n * k).
        NumElts = B.CreateIntCast(
            CGF.getVLAElements1D(cast<VariableArrayType>(AT)).NumElts,
            CGF.SizeTy, /*isSigned=*/false);
      Count = B.CreateSub(NumElts, Lower, "nt.count");
    }
    llvm::Value *Offset = B.CreateMul(Lower, ElemSize, "nt.offset");
    llvm::Value *Base = B.CreateGEP(CGF.Int8Ty, Ptr, Offset, "nt.base");
    return {Base, Count, ElemSize};
  }

  // A variable of array type: the whole object.
  LValue LV = CGF.EmitLValue(Item);
  return {LV.emitRawPointer(CGF), llvm::ConstantInt::get(CGF.SizeTy, 1),
          emitElemSize(CGF, Item->getType())};
}

void CGOpenMPRuntime::emitNextTouchCall(CodeGenFunction &CGF,
                                        const OMPNextTouchClause &C,
                                        SourceLocation Loc) {
  if (!CGF.HaveInsertPoint() || C.varlist_empty())
    return;
  // Next-touch is about host memory: a device compilation ignores it.
  if (CGM.getLangOpts().OpenMPIsTargetDevice)
    return;

  SmallVector<NextTouchRange, 4> Ranges;
  for (auto [Item, Length] : llvm::zip(C.varlists(), C.getLengths()))
    Ranges.push_back(emitRange(CGF, Item, Length));

  // struct kmp_nexttouch_range { void *base; size_t count; size_t elem_size; }
  CGBuilderTy &B = CGF.Builder;
  llvm::StructType *RangeTy =
      llvm::StructType::get(CGM.VoidPtrTy, CGM.SizeTy, CGM.SizeTy);
  llvm::ArrayType *ArrayTy = llvm::ArrayType::get(RangeTy, Ranges.size());
  Address Array = CGF.CreateTempAlloca(ArrayTy, CGM.getPointerAlign(),
                                       "nt.ranges");
  for (auto [I, R] : llvm::enumerate(Ranges)) {
    Address Elt = B.CreateConstArrayGEP(Array, I);
    Elt = Elt.withElementType(RangeTy);
    B.CreateStore(R.Base, B.CreateStructGEP(Elt, 0));
    B.CreateStore(R.Count, B.CreateStructGEP(Elt, 1));
    B.CreateStore(R.ElemSize, B.CreateStructGEP(Elt, 2));
  }

  llvm::Value *Args[] = {
      emitUpdateLocation(CGF, Loc), getThreadID(CGF, Loc),
      llvm::ConstantInt::get(CGM.Int32Ty, Ranges.size()),
      B.CreateConstArrayGEP(Array, 0).emitRawPointer(CGF)};
  CGF.EmitRuntimeCall(OMPBuilder.getOrCreateRuntimeFunction(
                          CGM.getModule(), llvm::omp::OMPRTL___kmpc_nexttouch),
                      Args);
}

void CGOpenMPSIMDRuntime::emitNextTouchCall(CodeGenFunction &CGF,
                                            const OMPNextTouchClause &C,
                                            SourceLocation Loc) {}

void CodeGenFunction::EmitOMPNextTouchDirective(
    const OMPNextTouchDirective &S) {
  if (const auto *C = S.getSingleClause<OMPNextTouchClause>())
    CGM.getOpenMPRuntime().emitNextTouchCall(*this, *C, S.getBeginLoc());
}
