# Shared settings of the build scripts (sourced).
NT_TOP=${NT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
NT_BUILD=${NT_BUILD:-$NT_TOP/build}
NT_SRC=$NT_BUILD/src/llvm-project
NT_CACHE=${NT_CACHE:-/var/cache/nexttouch}
NT_DEB_VERSION=1:19.1.7-3~deb12u1
NT_ORIG=llvm-toolchain-19_19.1.7.orig.tar.xz
NT_ORIG_SHA256=ae498f3bc58ae2d9f64ef5f0c035c4240152bf015a5b7738b15c22e93bdc97ce
# What we build from: clang, openmp, and LLVM's OpenMP frontend (OMP.td,
# OMPKinds.def, OMPIRBuilder) plus its one user in libLLVMipo (OpenMPOpt).
NT_UNPACK="clang openmp cmake llvm/include/llvm/Frontend llvm/lib/Frontend/OpenMP llvm/lib/Transforms/IPO/OpenMPOpt.cpp"
# Directories of this repository that hold new files at llvm-project paths.
NT_OVERLAY_DIRS="clang llvm openmp"
