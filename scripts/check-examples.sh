#!/usr/bin/env bash
# check-examples.sh PREFIX: build examples/ against the installed tree in
# PREFIX as a user would (find_package(NextTouch) with the tree's clang and
# gfortran; one example with gcc; one through pkg-config), run each on the
# build machine with placement forced on its one node, then in the 2-node
# NUMA guest, where each must place its data (make check-examples, part of
# make check).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
[ $# = 1 ] && [ -x "$1/bin/clang" ] || { echo "usage: $0 PREFIX (an installed tree)" >&2; exit 2; }
prefix=$(realpath "$1")
bld=$NT_BUILD/examples/build
jobs=${JOBS:-2}
fail=0
say() { echo "== check-examples: $*"; }
bad() { echo "check-examples: FAIL: $*"; fail=1; }

say "configure and build examples/ with $prefix/bin/clang"
rm -rf "$bld" "$bld-gcc" "$bld-pc"
mkdir -p "$(dirname "$bld")"
fc=()
command -v gfortran >/dev/null && fc=(-DCMAKE_Fortran_COMPILER=gfortran)
cmake -S "$top/examples" -B "$bld" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$prefix/bin/clang" \
  "${fc[@]}" > "$bld.log" 2>&1 || { cat "$bld.log"; exit 1; }
cmake --build "$bld" -j"$jobs" >> "$bld.log" 2>&1 || { cat "$bld.log"; exit 1; }

say "stream_triad on its own with gcc (NextTouch::OpenMP_C, libgomp is libomp)"
cmake -S "$top/examples/stream_triad" -B "$bld-gcc" -DCMAKE_C_COMPILER=gcc \
  -DCMAKE_PREFIX_PATH="$prefix" > "$bld-gcc.log" 2>&1 &&
  cmake --build "$bld-gcc" >> "$bld-gcc.log" 2>&1 || { cat "$bld-gcc.log"; exit 1; }
# ldd's output read whole first: with pipefail, a grep -q that stops at its
# match may leave ldd writing into a closed pipe (SIGPIPE fails the pipeline).
libs=$(ldd "$bld-gcc/stream_triad")
grep -q "libomp.so => $prefix/" <<<"$libs" ||
  bad "gcc's stream_triad does not load the tree's libomp"
! grep -q libgomp.so.1 <<<"$libs" ||
  bad "gcc's stream_triad loads gcc's libgomp"

say "jacobi through pkg-config with gcc"
mkdir -p "$bld-pc"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -s -C "$bld-pc" -f - jacobi \
  SRC="$top/examples/jacobi/jacobi.c" <<'MK' || bad "pkg-config build"
jacobi: $(SRC)
	gcc -O2 $(shell pkg-config --cflags nexttouch) $< -o $@ \
	  $(shell pkg-config --libs nexttouch) -lm
MK
grep -q "libomp.so => $prefix/" <<<"$(ldd "$bld-pc/jacobi")" ||
  bad "the pkg-config jacobi does not load the tree's libomp"

# name args: each prints "name: OK" and a placement line.
examples=(
  "stream_triad/stream_triad 16 3"
  "jacobi/jacobi 256 20"
  "cg/cg 64 300"
  "readonly_table/readonly_table 4 200000 3"
)
[ -x "$bld/fortran_api/fortran_api" ] && examples+=("fortran_api/fortran_api 512 5")

say "natively, placement forced on the one node"
for ex in "${examples[@]}" "$bld-gcc/stream_triad 16 3" "$bld-pc/jacobi 256 20"; do
  set -- $ex
  case $1 in /*) bin=$1 ;; *) bin=$bld/$1 ;; esac
  shift
  out=$(env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 \
    "$bin" "$@" 2>&1) || true
  echo "$out"
  grep -q "^$(basename "$bin"): OK" <<<"$out" || bad "$bin natively"
done
if [ -x "$bld/mpi_hybrid/mpi_hybrid" ] && command -v mpirun >/dev/null; then
  root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  out=$(mpirun "${root[@]}" --oversubscribe -np 2 -x OMP_NUM_THREADS=1 \
    -x KMP_NEXTTOUCH_FORCE=1 "$bld/mpi_hybrid/mpi_hybrid" 8 3 2>&1) || true
  echo "$out"
  grep -q "^mpi_hybrid: OK" <<<"$out" || bad "mpi_hybrid natively"
else
  say "no MPI: mpi_hybrid not built"
fi

say "in the 2-node guest: each example places its data"
script=
for ex in "${examples[@]}"; do
  script+="env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores $bld/$ex; "
done
out=$("$top/tools/numa-vm/numa-vm" --nodes 2 --cpus 2 --timeout 600 \
  --file "$bld" -- sh -c "$script" 2>&1) || true
echo "$out"
for ex in "${examples[@]}"; do
  name=$(basename "${ex%% *}")
  grep -q "^$name: OK" <<<"$out" || bad "$name in the guest"
done
# The share of pages on their thread's node, where the example prints it.
while read -r name pct; do
  awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' || bad "$name placed $pct% in the guest"
done < <(sed -n 's/^\([a-z_]*\): .* \([0-9.]*\)% of .*pages placed.*/\1 \2/p' <<<"$out")
[ "$(grep -c '% of .*pages placed' <<<"$out")" -ge 3 ] || bad "placement lines missing"
grep -Eq "^readonly_table: [1-9][0-9]* replicas made" <<<"$out" ||
  bad "readonly_table made no replica in the guest"
if [ -x "$bld/fortran_api/fortran_api" ]; then
  grep -Eq "^fortran_api: .* [1-9][0-9]* pages moved" <<<"$out" ||
    bad "fortran_api moved no page in the guest"
fi
# mpi_hybrid: 2 ranks x 2 threads in a 4-node guest with Debian's Open MPI
# (tools/numa-vm/mpirun-guest; mpirun, orted and Open MPI's and PMIx's
# plugins copied in, as for guest_mpi.c).  32 MB per rank: the guest's THP
# is 'always', and the 2 MB unit where a rank's two threads meet goes to one
# of them (at most 1 in 16 of the pages here).
if [ -x "$bld/mpi_hybrid/mpi_hybrid" ] && command -v ompi_info >/dev/null &&
   command -v orted >/dev/null; then
  say "mpi_hybrid in a 4-node guest: 2 ranks x 2 threads"
  files=(--file "$(command -v mpirun)" --file "$(command -v orted)"
         --file "$top/tools/numa-vm/mpirun-guest" --file "$bld/mpi_hybrid")
  for n in pkglibdir pkgdatadir sysconfdir; do
    files+=(--file "$(ompi_info --path $n | cut -d: -f2- | tr -d ' ')")
  done
  pmix=$(ldd "$(ompi_info --path pkglibdir | cut -d: -f2- | tr -d ' ')/mca_pmix_ext3x.so" 2>/dev/null |
         awk '/libpmix.so/ && $2 == "=>" {print $3}')
  [ -n "$pmix" ] && [ -d "$(dirname "$(realpath "$pmix")")/pmix" ] &&
    files+=(--file "$(dirname "$(realpath "$pmix")")/pmix")
  out=$("$top/tools/numa-vm/numa-vm" --nodes 4 --cpus 4 --timeout 600 "${files[@]}" \
    -- "$top/tools/numa-vm/mpirun-guest" "$bld/mpi_hybrid/mpi_hybrid" 32 3 2>&1) || true
  echo "$out"
  grep -q "^mpi_hybrid: OK" <<<"$out" || bad "mpi_hybrid in the guest"
  pct=$(sed -n 's/^mpi_hybrid: .* \([0-9.]*\)% of pages placed.*/\1/p' <<<"$out")
  [ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' ||
    bad "mpi_hybrid placed ${pct:-?}% in the guest"
fi
[ $fail = 0 ] && echo "check-examples: PASS"
exit $fail
