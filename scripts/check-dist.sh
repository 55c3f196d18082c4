#!/usr/bin/env bash
# check-dist.sh TARBALL: use the tarball of 'make dist' as a user would, on
# clean Debian 11 (glibc 2.31, GCC 10) and Debian 12 (glibc 2.36, GCC 12)
# systems without the checkout or its build dependencies.
#
# Minimal roots made by debootstrap (build/dist/root-<suite>, kept across
# runs) with a user's toolchain: gcc, g++, gfortran, make, CMake,
# pkg-config, Python 3 and patch; /proc, /sys and /dev/shm mounted for the
# run.  In each, as user nobody, in a fresh directory: unpack the tarball;
# compile with its clang a '#pragma omp nexttouch' and a 'readonly(list)'
# program and run them (results and counters checked), check with ldd that
# they use the tarball's libraries; gcc and gfortran programs
# (openmp/runtime/test/nexttouch/gcc_api.c, fortran_api.f90) against the
# tarball's omp.h, omp_lib.mod and libomp; examples/ built with
# find_package(NextTouch) (the tarball's clang, gcc, gfortran) and through
# pkg-config; then move the tree and compile again (relocatable).  In the
# Debian 11 root also the runtime alone from the checkout's files
# (scripts/libomp-only.sh, that root's gcc, CMake from pip as a user
# without root gets it: Debian 11's is 3.18).  Needs root (debootstrap,
# chroot, mount) and the network (the roots, pip).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
[ $# = 1 ] && [ -f "$1" ] || { echo "usage: $0 TARBALL" >&2; exit 2; }
tarball=$(realpath "$1")
if [ "$(id -u)" != 0 ]; then
  echo "check-dist: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi
bash "$top/scripts/install-deps.sh" --only debootstrap
mirror=${NT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suites=${NT_CHECK_DIST_SUITES:-bullseye bookworm}
pkgs=gcc,g++,gfortran,make,cmake,pkg-config,python3,python3-pip,patch,ca-certificates

mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount "$m" || true; done
}
trap cleanup EXIT

# The checkout's files, for libomp-only (what a user who cloned it has).
snapshot=$NT_BUILD/dist/checkout.tar
(cd "$top" && git ls-files -co --exclude-standard | grep -v '^build/' |
   tar -cf "$snapshot" -T -)
orig=$NT_CACHE/$NT_ORIG
[ -f "$orig" ] || orig=$NT_SYSTEM_CACHE/$NT_ORIG

cat > "$NT_BUILD/dist/run.sh" <<'EOF'
set -eu
cd /home/check-dist
suite=$2
step() { echo "== check-dist ($suite): $*"; }
fail() { echo "check-dist ($suite): FAIL: $*"; exit 1; }
step "unpack $(basename "$1") in $PWD"
tar -xzf "$1"
P=$PWD/$(tar -tzf "$1" | head -1 | cut -d/ -f1)
step "the system: $(ldd --version | head -1); no clang, no libomp, no hwloc"
for f in /usr/bin/clang /usr/lib/x86_64-linux-gnu/libomp.so.5 \
         /usr/lib/x86_64-linux-gnu/libhwloc.so.15; do
  [ ! -e "$f" ] || fail "$f exists"
done
step "clang runs (with the tree's C library) and finds its resource directory"
"$P/bin/clang" --version | head -1
[ "$("$P/bin/clang" -print-resource-dir)" = "$P/lib/clang/$("$P/bin/clang" -dumpversion | cut -d. -f1)" ] ||
  fail "resource directory: $("$P/bin/clang" -print-resource-dir)"
check_ldd() {
  ldd "$1" | tee ldd.txt
  grep -q "libomp.so => $P/" ldd.txt || fail "$1: libomp is not the tarball's"
  ! grep -q "libgomp.so.1" ldd.txt || fail "$1: uses gcc's libgomp"
  grep -q "libhwloc.so.15 => $P/" ldd.txt || fail "$1: hwloc"
  ! grep -q "not found" ldd.txt || fail "$1: a library is missing"
}
step "clang -fopenmp nexttouch.c (#pragma omp nexttouch), no LD_LIBRARY_PATH"
"$P/bin/clang" -fopenmp -O2 nexttouch.c -o nexttouch
check_ldd ./nexttouch
KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 ./nexttouch
step "OMP_DISPLAY_ENV=verbose: the next-touch settings of our libomp"
OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 ./nexttouch 2>&1 >/dev/null |
  grep "KMP_NEXTTOUCH='TRUE'" || fail "no KMP_NEXTTOUCH in OMP_DISPLAY_ENV"
step "clang -fopenmp readonly.c (readonly(list))"
"$P/bin/clang" -fopenmp -O2 readonly.c -o readonly
check_ldd ./readonly
KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 ./readonly
step "gcc -fopenmp gcc_api.c with the tarball's omp.h and libomp"
gcc -fopenmp -O2 -I "$P/include" gcc_api.c -o gcc_api -L "$P/lib" -Wl,-rpath,"$P/lib"
check_ldd ./gcc_api
KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 ./gcc_api
step "gfortran -fopenmp fortran_api.f90 with the tarball's omp_lib module"
gfortran -fopenmp -O2 -I "$P/include" fortran_api.f90 -o fortran_api \
  -L "$P/lib" -Wl,-rpath,"$P/lib"
check_ldd ./fortran_api
KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 ./fortran_api
run_ok() { # name, command...: the example prints "name: OK"
  n=$1; shift
  env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 "$@" | tee out.txt
  grep -q "^$n: OK" out.txt || fail "$*"
}
step "CMake $(cmake --version | awk 'NR == 1 {print $3}'): find_package(NextTouch), the tarball's clang"
cmake -S examples -B ex-clang -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_C_COMPILER="$P/bin/clang" -DCMAKE_Fortran_COMPILER=gfortran >/dev/null
cmake --build ex-clang >/dev/null
for e in stream_triad:"16 2" jacobi:"128 10" cg:"32 100" readonly_table:"2 100000 2" fortran_api:"256 3"; do
  check_ldd "ex-clang/${e%%:*}/${e%%:*}" >/dev/null
  run_ok "${e%%:*}" "ex-clang/${e%%:*}/${e%%:*}" ${e#*:}
done
step "CMake with gcc: stream_triad, readonly_table (the clause guarded away)"
for e in stream_triad readonly_table; do
  cmake -S "examples/$e" -B "ex-gcc-$e" -DCMAKE_PREFIX_PATH="$P" \
    -DCMAKE_C_COMPILER=gcc >/dev/null
  cmake --build "ex-gcc-$e" >/dev/null
  check_ldd "ex-gcc-$e/$e" >/dev/null
done
run_ok stream_triad ex-gcc-stream_triad/stream_triad 16 2
run_ok readonly_table ex-gcc-readonly_table/readonly_table 2 100000 2
step "pkg-config: jacobi with gcc and make"
printf 'jacobi: examples/jacobi/jacobi.c\n\tgcc -O2 $(shell pkg-config --cflags nexttouch) $< -o $@ $(shell pkg-config --libs nexttouch) -lm\n' > Makefile
PKG_CONFIG_PATH=$P/lib/pkgconfig make -s jacobi
check_ldd ./jacobi >/dev/null
run_ok jacobi ./jacobi 128 10
step "move the tree: its clang still compiles and finds its libomp"
mv "$P" "$P.moved"
P=$P.moved
"$P/bin/clang" -fopenmp -O2 nexttouch.c -o nexttouch2
check_ldd ./nexttouch2
KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 ./nexttouch2
if [ -d checkout ]; then
  step "libomp-only from the checkout, with $(gcc --version | head -1)"
  export PATH=$HOME/.local/bin:$PATH
  if ! command -v cmake >/dev/null || [ "$(cmake --version | awk 'NR == 1 {print $3}' | cut -d. -f1-2 | tr . ' ' | awk '{print ($1 > 3 || $2 >= 20)}')" != 1 ]; then
    out=$(bash checkout/scripts/libomp-only.sh "$HOME/lo" 2>&1) && fail "libomp-only with an old CMake"
    echo "$out"
    grep -q "CMake 3.20 or newer" <<<"$out" || fail "libomp-only does not name CMake"
    python3 -m pip install --user --quiet cmake
  fi
  NT_ORIG_FILE=$PWD/orig.tar.xz NT_BUILD=$PWD/lo-build JOBS=2 \
    bash checkout/scripts/libomp-only.sh "$HOME/lo"
  gcc -fopenmp -O2 -I "$HOME/lo/include" gcc_api.c -o gcc_api_lo \
    -L "$HOME/lo/lib" -Wl,-rpath,"$HOME/lo/lib"
  grep -q "libomp.so => $HOME/lo/" <<<"$(ldd ./gcc_api_lo)" || fail "libomp-only's libomp"
  KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 ./gcc_api_lo
fi
echo "check-dist ($suite): PASS"
EOF

for suite in $suites; do
  root=$NT_BUILD/dist/root-$suite
  if [ ! -f "$root/.nexttouch-ready" ]; then
    echo "check-dist: debootstrap $suite (minbase + $pkgs) into $root" >&2
    rm -rf "$root"
    debootstrap --variant=minbase --include=$pkgs "$suite" "$root" "$mirror" \
      > "$root.log" 2>&1 || { tail -20 "$root.log"; exit 1; }
    touch "$root/.nexttouch-ready"
  fi
  mkdir -p "$root/dev/shm"
  for fs in proc:proc sys:sysfs dev/shm:tmpfs; do
    if ! mountpoint -q "$root/${fs%:*}"; then
      mount -t "${fs#*:}" "${fs#*:}" "$root/${fs%:*}"
      mounted+=("$root/${fs%:*}")
    fi
  done
  # The network as the build machine has it: its resolver, and the
  # certificate authorities it trusts (a site's proxy may sign for others).
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || true
  # A fresh directory, owned by nobody; the tarball and the test programs.
  work=/home/check-dist
  rm -rf "$root$work"
  mkdir -p "$root$work"
  cp "$tarball" "$top/tools/check-dist/nexttouch.c" "$top/tools/check-dist/readonly.c" \
    "$top/openmp/runtime/test/nexttouch/gcc_api.c" \
    "$top/openmp/runtime/test/nexttouch/nexttouch_test.h" \
    "$top/openmp/runtime/test/nexttouch/fortran_api.f90" \
    "$NT_BUILD/dist/run.sh" "$root$work/"
  cp -r "$top/examples" "$root$work/"
  if [ "$suite" = bullseye ]; then
    mkdir -p "$root$work/checkout"
    tar -xf "$snapshot" -C "$root$work/checkout"
    cp "$orig" "$root$work/orig.tar.xz"
  fi
  chown -R 65534:65534 "$root$work"
  chroot --userspec=65534:65534 "$root" env -i HOME=$work PATH=/usr/bin:/bin \
    sh $work/run.sh "$work/$(basename "$tarball")" "$suite"
done
echo "check-dist: PASS ($suites)"
