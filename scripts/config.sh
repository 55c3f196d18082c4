# Shared settings of the build scripts (sourced).
NT_TOP=${NT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
NT_BUILD=${NT_BUILD:-$NT_TOP/build}
NT_SRC=$NT_BUILD/src/llvm-project
# The source tarball, ccache and the guest kernel are cached across clones
# in /var/cache/nexttouch; a user who cannot write there (no root) gets
# ~/.cache/nexttouch, and still reads the source tarball from
# /var/cache/nexttouch if it is there.
NT_SYSTEM_CACHE=/var/cache/nexttouch
if [ -z "${NT_CACHE:-}" ]; then
  NT_CACHE=$NT_SYSTEM_CACHE
  if ! { [ -d $NT_CACHE ] && [ -w $NT_CACHE ]; } &&
     ! { [ ! -e $NT_CACHE ] && [ -w "$(dirname $NT_CACHE)" ]; }; then
    NT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/nexttouch
  fi
fi
# The LLVM release we build on: Debian 12's llvm-toolchain-22 (bookworm-security
# ships its binaries; its orig tarball is in the main archive's pool).
NT_LLVM_VERSION=22.1.8
NT_LLVM_MAJOR=22
NT_DEB_VERSION=1:22.1.8-1~deb12u1
NT_ORIG=llvm-toolchain-22_22.1.8.orig.tar.xz
NT_ORIG_URL=http://deb.debian.org/debian/pool/main/l/llvm-toolchain-22/$NT_ORIG
NT_ORIG_SHA256=b49b9277aef97616320b2da259e1f8174c65b0ce2fbe2e8629644a97693402fe
# What we build from: clang, openmp, and LLVM's OpenMP frontend (OMP.td,
# OMPKinds.def, OMPIRBuilder) plus its one user in libLLVMipo (OpenMPOpt).
NT_UNPACK="clang openmp cmake llvm/include/llvm/Frontend llvm/lib/Frontend/OpenMP llvm/lib/Transforms/IPO/OpenMPOpt.cpp"
# Directories of this repository that hold new files at llvm-project paths.
NT_OVERLAY_DIRS="clang llvm openmp"
