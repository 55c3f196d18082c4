#!/usr/bin/env bash
# install.sh PREFIX: install the built toolchain (make toolchain) into
# $DESTDIR$PREFIX as a relocatable tree (make install, make dist).
#
#   bin/clang, clang++ -> clang-<major>   our clang: a script that runs
#                                         libexec/clang-<major> (CMake's
#                                         install, stripped) with the C
#                                         library it was linked with
#   lib/glibc/                            that C library and its loader
#                                         (clang runs on glibc 2.31 and later)
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

# clang on older C libraries.  Debian 12's LLVM libraries, hence our clang,
# need glibc 2.36; the clusters people have run 2.31 (Debian 11, Ubuntu
# 20.04) to 2.34 (RHEL 9).  Rebuilding LLVM against an old sysroot would
# mean building all of LLVM; instead the tree carries the C library clang
# was linked with (lib/glibc) and runs clang with it: bin/clang-<major> is
# a script that starts the real binary (libexec/) through that C library's
# dynamic loader with --library-path, so only clang's own processes use it
# -- the programs it runs (the system's linker, as) and the programs it
# builds use the system's, and compile against the system's headers.
# -no-canonical-prefixes makes clang take its own path from argv[0] (the
# script, given by --argv0) rather than from /proc/self/exe (the loader):
# it finds its resource directory and configuration files next to bin/,
# and runs its cc1 jobs through the script too.  A -cc1 job's arguments
# are passed as they are (clang looks for -cc1 first).
mkdir -p "$dest/libexec" "$dest/lib/glibc"
mv "$dest/bin/$real" "$dest/libexec/$real"
for lib in $(env -u LD_LIBRARY_PATH ldd "$dest/libexec/$real" |
             awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
  case $(basename "$lib") in
    ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*)
      cp -L "$lib" "$dest/lib/glibc/$(basename "$lib")" ;;
  esac
done
loader=$(cd "$dest/lib/glibc" && ls ld-linux* 2>/dev/null | head -n1)
[ -n "$loader" ] || { echo "install: no dynamic loader for clang" >&2; exit 1; }
glibc=$(ldd --version | awk 'NR == 1 {print $NF}')
cat > "$dest/bin/$real" <<EOF
#!/bin/sh
# $real with the C library it was linked with (glibc $glibc, in ../lib/glibc),
# so that it runs on older ones; what it runs and builds uses the system's.
here=\$(dirname "\$(readlink -f "\$0")")
case \$1 in
  -cc1*) ;;
  *) set -- -no-canonical-prefixes "\$@" ;;
esac
exec "\$here/../lib/glibc/$loader" --library-path "\$here/../lib/glibc:\$here/../lib/deps" \\
  --argv0 "\$here/\$(basename "\$0")" "\$here/../libexec/$real" "\$@"
EOF
chmod +x "$dest/bin/$real"

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
