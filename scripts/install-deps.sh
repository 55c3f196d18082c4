#!/usr/bin/env bash
# Install the Debian packages the build and the tests need (idempotent; only
# calls apt-get when something is missing).  Without root it installs
# nothing: it names the missing packages and the apt-get line to run.
#
#   install-deps.sh                   what 'make' needs (the list below)
#   install-deps.sh --only P...       just these packages (e.g. make check-dist)
set -euo pipefail
. "$(dirname "$0")/config.sh"
v=$NT_LLVM_MAJOR
pkgs=(
  # Debian's LLVM (the same release as our source): compiler, static
  # component libraries and CMake package, lit/FileCheck/not/count, lld.
  clang-$v llvm-$v-dev llvm-$v-tools lld-$v libpolly-$v-dev
  # Build tools.
  cmake ninja-build ccache python3 git xz-utils curl
  # libomp's Fortran module (omp_lib.mod) and the gcc/gfortran tests:
  # Debian's gcc and gfortran, whose programs run on our libomp.
  gcc gfortran
  # make install / make dist: RPATHs of the relocatable tree; make
  # check-examples builds an example through its pkg-config file.
  patchelf pkgconf
  # What a standalone clang configure asks for (see LLVMConfig.cmake).
  libzstd-dev libedit-dev libxml2-dev libffi-dev libz3-dev libcurl4-openssl-dev
  # libomp's topology/migration back ends.
  libnuma-dev libhwloc-dev hwloc numactl
  # The NUMA test guest (tools/numa-vm).
  qemu-system-x86 busybox-static cpio
  # Hybrid MPI + OpenMP in the guest (guest_mpi.c): Debian's Open MPI.
  openmpi-bin libopenmpi-dev
  # make check-sanitizers: ASan/TSan runtimes (linked into our clang's
  # resource directory) and LLVM's Archer (libarcher.so, in libomp-N-dev).
  libclang-rt-$v-dev libomp-$v-dev
  # make check-patches: the series' lines in LLVM's format (git clang-format).
  clang-format-$v
)
if [ "${1:-}" = --only ]; then
  shift
  pkgs=("$@")
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: these Debian packages are missing: ${missing[*]}" >&2
  echo "  Install them as root (or ask your administrator to), then run make again:" >&2
  echo "    apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
