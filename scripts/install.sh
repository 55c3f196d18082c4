#!/usr/bin/env bash
# install.sh PREFIX: install the built toolchain (make toolchain) into
# $DESTDIR$PREFIX as a relocatable tree (make install, make dist).
#
#   bin/clang, clang++ -> clang-<major>   our clang (CMake's install, stripped),
#   bin/clang.cfg, clang++.cfg            -frtlib-add-rpath: programs get an
#                                         RPATH to lib/<triple>, our libomp
#   lib/clang/<major>/include/            resource headers with our omp.h
#   lib/<triple>/libomp.so                libomp (+ libgomp.so, libiomp5.so);
#                                         with NT_LIBOMP_COMPAT, the one built
#                                         against NT_SYSROOT (glibc 2.31)
#   lib/libomp.so, libgomp.so, ...        links to it, for gcc/gfortran users
#   include/omp.h, omp_lib.mod, ...       libomp's headers and Fortran module
#   lib/deps/                             the shared libraries clang and libomp
#                                         need beyond the C library (libz3,
#                                         libhwloc, libstdc++, ...), Debian 12's
#   lib/cmake/NextTouch/                  find_package(NextTouch): imported
#                                         targets NextTouch::omp, ::OpenMP_C,
#                                         ::OpenMP_CXX, ::OpenMP_Fortran
#   lib/pkgconfig/nexttouch.pc            pkg-config --cflags --libs nexttouch
#   share/doc/nexttouch/                  README, user guide, licence
#
# Every RPATH is relative ($ORIGIN), so the tree works wherever it is copied
# or unpacked, with no LD_LIBRARY_PATH.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
[ $# = 1 ] || { echo "usage: $0 PREFIX (DESTDIR in the environment)" >&2; exit 2; }
prefix=$1
dest="${DESTDIR:-}$prefix"
clang_build=$NT_BUILD/clang
omp_build=$NT_BUILD/openmp
clang="$clang_build/bin/clang"
[ -x "$clang" ] && [ -f "$omp_build/runtime/src/libomp.so" ] ||
  { echo "install: build first (make toolchain)" >&2; exit 1; }
command -v patchelf >/dev/null ||
  { bash "$top/scripts/install-deps.sh" --only patchelf; }
triple=$("$clang" -print-target-triple)
resource=$(realpath --relative-to="$clang_build" "$("$clang" -print-resource-dir)")

# clang and its resource headers: CMake's install (components of the clang
# build); the driver's aliases as links, not copies.
cmake --install "$clang_build" --component clang --prefix "$prefix" --strip >/dev/null
cmake --install "$clang_build" --component clang-resource-headers --prefix "$prefix" >/dev/null
real=$(readlink "$dest/bin/clang")
for d in clang++ clang-cl clang-cpp; do
  ln -sfn "$real" "$dest/bin/$d"
done
for d in clang clang++; do
  echo "-frtlib-add-rpath" > "$dest/bin/$d.cfg"
done

# libomp, omp.h and the Fortran module: CMake's install of the libomp build.
# Its alias links would go to the prefix the build was configured with
# (LIBOMP_INSTALL_ALIASES ignores --prefix): turned off, made here.
if ! grep -q '^LIBOMP_INSTALL_ALIASES:BOOL=OFF' "$omp_build/CMakeCache.txt"; then
  cmake -DLIBOMP_INSTALL_ALIASES=OFF "$omp_build" >/dev/null
fi
cmake --install "$omp_build" --prefix "$prefix" >/dev/null
mkdir -p "$dest/lib/$triple"
mv -f "$dest/lib/libomp.so" "$dest/lib/$triple/libomp.so"
for l in libomp libgomp libiomp5; do
  [ $l = libomp ] || ln -sfn libomp.so "$dest/lib/$triple/$l.so"
  ln -sfn "$triple/libomp.so" "$dest/lib/$l.so"
done
for h in omp.h ompx.h omp-tools.h ompt.h; do
  if [ -f "$dest/include/$h" ]; then cp -p "$dest/include/$h" "$dest/$resource/include/"; fi
done

# The shared libraries clang and libomp need, except the C library's own:
# copied into lib/deps, each with RPATH $ORIGIN.  libomp is found as
# lib/<triple>/libomp.so (clang's RPATH) or lib/libomp.so (gcc users').
mkdir -p "$dest/lib/deps"
bundle() {
  local lib name
  env -u LD_LIBRARY_PATH ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
  while read -r lib; do
    name=$(basename "$lib")
    case $name in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*) ;;
      *) if [ ! -f "$dest/lib/deps/$name" ]; then
           cp -L "$lib" "$dest/lib/deps/$name"
           chmod u+w "$dest/lib/deps/$name"
           patchelf --set-rpath '$ORIGIN' "$dest/lib/deps/$name"
         fi ;;
    esac
  done
}
# The libraries of a libomp built against another C library's sysroot
# (make libomp-compat): its NEEDED entries, recursively, from the sysroot.
bundle_sysroot() {
  local lib name f
  for name in $(objdump -p "$1" | awk '$1 == "NEEDED" {print $2}'); do
    case $name in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*) continue ;;
    esac
    [ -f "$dest/lib/deps/$name" ] && continue
    f=""
    for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do
      [ -e "$NT_SYSROOT/$d/$name" ] && f=$NT_SYSROOT/$d/$name && break
    done
    [ -n "$f" ] || { echo "install: $name (needed by $1) is not in $NT_SYSROOT" >&2; exit 1; }
    cp -L "$f" "$dest/lib/deps/$name"
    chmod u+w "$dest/lib/deps/$name"
    patchelf --set-rpath '$ORIGIN' "$dest/lib/deps/$name"
    bundle_sysroot "$dest/lib/deps/$name"
  done
}
bundle "$dest/bin/$real"
# NT_LIBOMP_COMPAT: the directory of a libomp.so built against NT_SYSROOT
# (make install and make dist: glibc 2.31's): the tree's libomp, so that the
# runtime half runs on that C library and later.
if [ -n "${NT_LIBOMP_COMPAT:-}" ]; then
  cp -L "$NT_LIBOMP_COMPAT/libomp.so" "$dest/lib/$triple/libomp.so"
  bundle_sysroot "$dest/lib/$triple/libomp.so"
else
  bundle "$dest/lib/$triple/libomp.so"
fi
patchelf --set-rpath '$ORIGIN/../lib/deps' "$dest/bin/$real"
patchelf --set-rpath '$ORIGIN/../deps:$ORIGIN/deps' "$dest/lib/$triple/libomp.so"

# The CMake package (lib/cmake/NextTouch: find_package(NextTouch)) and the
# pkg-config file (lib/pkgconfig/nexttouch.pc): tools/cmake-package, CMake's
# configure_package_config_file and write_basic_package_version_file, both
# relocatable.
api=$(awk '$1 == "#define" && $2 == "KMP_NEXTTOUCH_API" {print $3}' "$dest/include/omp.h")
[ -n "$api" ] || { echo "install: no KMP_NEXTTOUCH_API in omp.h" >&2; exit 1; }
cmake -S "$top/tools/cmake-package" -B "$NT_BUILD/cmake-package" \
  -DNEXTTOUCH_VERSION="$NT_LLVM_VERSION" -DNEXTTOUCH_TRIPLE="$triple" \
  -DNEXTTOUCH_API="$api" >/dev/null
cmake --install "$NT_BUILD/cmake-package" --prefix "$prefix" >/dev/null

mkdir -p "$dest/share/doc/nexttouch"
cp -p "$top/README.md" "$top/docs/NextTouch.rst" "$top/docs/Design.rst" \
  "$dest/share/doc/nexttouch/"
cp -p "$NT_SRC/openmp/LICENSE.TXT" "$dest/share/doc/nexttouch/LICENSE.TXT"
echo "install: $dest ($("$dest/bin/clang" --version | head -1))"
