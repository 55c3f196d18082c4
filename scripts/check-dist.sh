#!/usr/bin/env bash
# check-dist.sh TARBALL: use the tarball of 'make dist' as a user would, on
# a clean Debian 12 without the checkout or its build dependencies.
#
# A minimal Debian 12 root made by debootstrap (build/dist/debian-root, kept
# across runs) with only gcc and gfortran added (a C toolchain: binutils,
# libc6-dev and GCC's crt files, which any clang needs to link); /proc,
# /sys and /dev/shm mounted for the run.  In it, as user nobody, in a fresh directory:
# unpack the tarball, compile with its clang a '#pragma omp nexttouch'
# program and a 'readonly(list)' program and run them, check with ldd that
# they and clang use the tarball's libraries; then gcc and gfortran
# programs (openmp/runtime/test/nexttouch/gcc_api.c, fortran_api.f90)
# against the tarball's omp.h, omp_lib.mod and libomp; then move the tree
# and compile again (relocatable).  Needs root (debootstrap, chroot, mount).
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
root=$NT_BUILD/dist/debian-root
mirror=${NT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ ! -f "$root/.nexttouch-ready" ]; then
  echo "check-dist: debootstrap bookworm (minbase + gcc, gfortran) into $root" >&2
  rm -rf "$root"
  debootstrap --variant=minbase --include=gcc,gfortran bookworm "$root" "$mirror" \
    > "$root.log" 2>&1 || { tail -20 "$root.log"; exit 1; }
  touch "$root/.nexttouch-ready"
fi

mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount "$m" || true; done
}
trap cleanup EXIT
mkdir -p "$root/dev/shm"
for fs in proc:proc sys:sysfs dev/shm:tmpfs; do
  if ! mountpoint -q "$root/${fs%:*}"; then
    mount -t "${fs#*:}" "${fs#*:}" "$root/${fs%:*}"
    mounted+=("$root/${fs%:*}")
  fi
done

# A fresh directory, owned by nobody; the tarball and the test programs.
work=/home/check-dist
rm -rf "$root$work"
mkdir -p "$root$work"
cp "$tarball" "$top/tools/check-dist/nexttouch.c" "$top/tools/check-dist/readonly.c" \
  "$top/openmp/runtime/test/nexttouch/gcc_api.c" \
  "$top/openmp/runtime/test/nexttouch/nexttouch_test.h" \
  "$top/openmp/runtime/test/nexttouch/fortran_api.f90" "$root$work/"
chown -R 65534:65534 "$root$work"

cat > "$root$work/run.sh" <<'EOF'
set -eu
cd /home/check-dist
step() { echo "== check-dist: $*"; }
fail() { echo "check-dist: FAIL: $*"; exit 1; }
step "unpack $(basename "$1") in $PWD"
tar -xzf "$1"
P=$PWD/$(tar -tzf "$1" | head -1 | cut -d/ -f1)
triple=$("$P/bin/clang" -print-target-triple)
step "the system has no clang, no libomp, no hwloc"
for f in /usr/bin/clang /usr/lib/x86_64-linux-gnu/libomp.so.5 \
         /usr/lib/x86_64-linux-gnu/libhwloc.so.15; do
  [ ! -e "$f" ] || fail "$f exists"
done
step "ldd clang: every library found, the tarball's"
ldd "$P/bin/clang" | tee ldd.txt
! grep -q "not found" ldd.txt || fail "clang: a library is missing"
grep -q "libz3.so.4 => $P/" ldd.txt || fail "clang: libz3 is not the tarball's"
check_ldd() {
  ldd "$1" | tee ldd.txt
  grep -q "libomp.so => $P/" ldd.txt || fail "$1: libomp is not the tarball's"
  ! grep -q "libgomp.so.1" ldd.txt || fail "$1: uses gcc's libgomp"
  grep -q "libhwloc.so.15 => $P/" ldd.txt || fail "$1: hwloc"
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
step "move the tree: its clang still compiles and finds its libomp"
mv "$P" "$P.moved"
P=$P.moved
"$P/bin/clang" -fopenmp -O2 nexttouch.c -o nexttouch2
check_ldd ./nexttouch2
KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 ./nexttouch2
echo "check-dist: PASS"
EOF
chroot --userspec=65534:65534 "$root" env -i HOME=$work PATH=/usr/bin:/bin \
  sh $work/run.sh "$work/$(basename "$tarball")"
