//===--- CGOpenMPMemoryRange.cpp - Emit lists of memory ranges ------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code generation of lists of memory ranges: each list item, an OpenMP array
// section ('ptr : len' is the section 'ptr[:len]') or an array, becomes the
// runtime's kmp_memory_range_t { void *base; size_t count; size_t elem_size; },
// the one range descriptor of '#pragma omp nexttouch' and 'readonly'.
//
// This does not reuse getPointerAndSize (CGOpenMPRuntime.cpp), which computes
// the {address, size in bytes} of 'affinity' and 'depend' items, because:
// - it evaluates a section's base and lower bound twice (EmitLValue for the
//   first address, EmitArraySectionExpr for the last one); here every
//   expression of an item is evaluated exactly once, as documented;
// - it returns a size in bytes, the difference of two addresses, which wraps
//   for a negative or huge length (and truncates a length wider than
//   intptr_t); the runtime's ABI here takes count and elem_size apart and
//   multiplies them itself, so that such lengths are reported, and a length
//   wider than size_t is saturated to SIZE_MAX, never truncated;
// - it cannot size a section whose base points to void: 'vp : n' is
//   'vp[:n]', n bytes;
// - it is a static function of CGOpenMPRuntime.cpp, for the kmp_depend_info
//   and kmp_task_affinity_info layouts.
//
//===----------------------------------------------------------------------===//

#include "CGOpenMPMemoryRange.h"
#include "CodeGenFunction.h"
#include "CodeGenModule.h"
#include "clang/AST/Expr.h"
#include "clang/AST/OpenMPMemoryRange.h"

using namespace clang;
using namespace CodeGen;

/// A length or lower bound \p E as a size_t count.
static llvm::Value *emitCount(CodeGenFunction &CGF, const Expr *E) {
  llvm::Value *V = CGF.EmitScalarExpr(E);
  unsigned Bits = V->getType()->getIntegerBitWidth();
  unsigned SizeBits = CGF.SizeTy->getIntegerBitWidth();
  if (Bits <= SizeBits)
    // Sign-extend signed lengths: a negative one becomes a count the runtime
    // rejects, not a small positive one.
    return CGF.Builder.CreateIntCast(
        V, CGF.SizeTy, E->getType()->isSignedIntegerType(), "omp.range.count");
  // Wider than size_t (__int128, _BitInt): a value that does not fit, or a
  // negative one (huge as unsigned), saturates to SIZE_MAX, which the runtime
  // reports as an overflow, instead of being truncated to a small count.
  CGBuilderTy &B = CGF.Builder;
  llvm::Value *Max = llvm::ConstantInt::get(
      V->getType(), llvm::APInt::getMaxValue(SizeBits).zext(Bits));
  llvm::Value *Fits = B.CreateICmpULE(V, Max, "omp.range.fits");
  return B.CreateSelect(Fits, B.CreateTrunc(V, CGF.SizeTy),
                        llvm::ConstantInt::getAllOnesValue(CGF.SizeTy),
                        "omp.range.count");
}

static llvm::Value *emitElemSize(CodeGenFunction &CGF, QualType Ty) {
  // 'vp : n' counts bytes.
  if (Ty->isVoidType())
    return llvm::ConstantInt::get(CGF.SizeTy, 1);
  return CGF.Builder.CreateIntCast(CGF.getTypeSize(Ty), CGF.SizeTy,
                                   /*isSigned=*/false);
}

OpenMPMemoryRange CodeGen::emitOpenMPMemoryRange(CodeGenFunction &CGF,
                                                 const Expr *Item,
                                                 SourceLocation ColonLoc) {
  CGBuilderTy &B = CGF.Builder;
  if (const auto *Section =
          dyn_cast<ArraySectionExpr>(Item->IgnoreParenImpCasts())) {
    // Sema converted the base to a pointer. A written section of an array
    // uses the array itself, whose bound 'a[lb:]' needs; 'ptr : len' is
    // about the pointer, also when 'ptr' is an array that decayed.
    const Expr *BaseExpr = Section->getBase()->IgnoreParenImpCasts();
    if (ColonLoc.isValid())
      BaseExpr = Section->getBase();
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
    llvm::Value *Base = Ptr;
    llvm::Value *Lower = nullptr;
    if (const Expr *LB = Section->getLowerBound()) {
      Lower = emitCount(CGF, LB);
      llvm::Value *Offset = B.CreateMul(Lower, ElemSize, "omp.range.offset");
      Base = B.CreateGEP(CGF.Int8Ty, Ptr, Offset, "omp.range.base");
    }
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
      Count = Lower ? B.CreateSub(NumElts, Lower, "omp.range.count") : NumElts;
    }
    return {Base, Count, ElemSize};
  }

  // An lvalue of array type: the whole object.
  LValue LV = CGF.EmitLValue(Item);
  return {LV.emitRawPointer(CGF), llvm::ConstantInt::get(CGF.SizeTy, 1),
          emitElemSize(CGF, Item->getType())};
}

llvm::StructType *CodeGen::getOpenMPMemoryRangeType(CodeGenModule &CGM) {
  // One named type per context, found by its name as OpenMPIRBuilder finds
  // the types of OMPKinds.def (initializeTypes), which cannot hold it: a new
  // OpenMPIRBuilder member would change the layout that Debian's prebuilt
  // LLVM libraries were compiled against.
  // A type of the program's may have the name already ('struct
  // kmp_memory_range' of another layout): then the literal structure.
  static constexpr llvm::StringLiteral Name("struct.kmp_memory_range");
  llvm::LLVMContext &Ctx = CGM.getLLVMContext();
  llvm::Type *Fields[] = {CGM.VoidPtrTy, CGM.SizeTy, CGM.SizeTy};
  llvm::StructType *Literal =
      llvm::StructType::get(Ctx, llvm::ArrayRef<llvm::Type *>(Fields));
  if (llvm::StructType *Ty = llvm::StructType::getTypeByName(Ctx, Name))
    return Ty->isLayoutIdentical(Literal) ? Ty : Literal;
  return llvm::StructType::create(Ctx, Fields, Name);
}

llvm::Value *
CodeGen::emitOpenMPMemoryRangeArray(CodeGenFunction &CGF,
                                    ArrayRef<const Expr *> Items,
                                    ArrayRef<SourceLocation> ColonLocs,
                                    SmallVectorImpl<OpenMPMemoryRange> *Out) {
  assert(Items.size() == ColonLocs.size() && "one location per list item");
  SmallVector<OpenMPMemoryRange, 4> Ranges;
  for (auto [Item, ColonLoc] : llvm::zip(Items, ColonLocs))
    Ranges.push_back(emitOpenMPMemoryRange(CGF, Item, ColonLoc));

  CGBuilderTy &B = CGF.Builder;
  llvm::StructType *RangeTy = getOpenMPMemoryRangeType(CGF.CGM);
  llvm::ArrayType *ArrayTy = llvm::ArrayType::get(RangeTy, Ranges.size());
  Address Array =
      CGF.CreateTempAlloca(ArrayTy, CGF.getPointerAlign(), "omp.ranges");
  for (auto [I, R] : llvm::enumerate(Ranges)) {
    Address Elt = B.CreateConstArrayGEP(Array, I);
    B.CreateStore(R.Base, B.CreateStructGEP(Elt, 0));
    B.CreateStore(R.Count, B.CreateStructGEP(Elt, 1));
    B.CreateStore(R.ElemSize, B.CreateStructGEP(Elt, 2));
  }
  if (Out)
    Out->append(Ranges.begin(), Ranges.end());
  return B.CreateConstArrayGEP(Array, 0).emitRawPointer(CGF);
}
