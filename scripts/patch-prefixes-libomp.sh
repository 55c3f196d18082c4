#!/usr/bin/env bash
# patch-prefixes-libomp.sh: every prefix of the self-contained series
# (scripts/series.py: patches/ with the new files each patch first needs)
# that changes libomp builds and links it, and every prefix that adds
# runtime tests passes them (make check-patch-prefixes).
#
# For each such prefix k, the first k patches of the series are applied with
# `git am` to a throw-away worktree of the pristine release commit of
# build/src/llvm-project (so the prefix holds exactly the new files it
# adds), and openmp/ is configured and built (target omp) in a throw-away
# build directory with the host compiler and ccache, as 'make libomp' does.
# The prefix passes when libomp.so links and exports every kmp_* and
# __kmpc_* function that the prefix's dllexports lists, and, if the prefix
# adds tests of openmp/runtime/test/nexttouch, when they pass against that
# libomp on the host (lit, with the final compiler and omp.h: the clang
# patches' own tests run at their prefixes in patch-prefixes-clang.sh; the
# guest tests are not run here).  The Fortran module is not built (its
# patch adds its interfaces; 'make check' compiles them).
#
#   scripts/patch-prefixes-libomp.sh [--keep]
#
# Environment: CC/CXX (default clang-22/clang++-22), JOBS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
keep=0
[ "${1:-}" = --keep ] && keep=1
tree=$NT_SRC
base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
cc=${CC:-clang-$NT_LLVM_MAJOR}
cxx=${CXX:-clang++-$NT_LLVM_MAJOR}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/nt-prefix-libomp.XXXXXX")
python3 "$top/scripts/series.py" build "$work/series" >/dev/null
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$work/series/series")
wt=$work/src
cleanup() {
  git -C "$tree" worktree remove --force "$wt" >/dev/null 2>&1 || true
  [ $keep = 1 ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
git -C "$tree" worktree add -q --detach "$wt" "$base"
export CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1

fail=0 n=0
for i in "${!series[@]}"; do
  p=${series[$i]}
  k=$((i + 1))
  git -C "$wt" -c user.name=prefix -c user.email=prefix@localhost \
    -c core.whitespace=-blank-at-eol am -q --keep-non-patch "$work/series/$p"
  # The runtime tests this patch adds (lit --filter).
  tests=$(sed -n "s#^$(printf %04d "$k") openmp/runtime/test/nexttouch/\([^ ]*\.\(c\|cpp\|f90\)\)\$#\1#p" \
    "$top/patches/files" | sed 's/[.+]/\\&/g' | paste -sd'|' -)
  # Only patches that change what libomp is built from (not its docs or
  # tests), or that add tests.
  grep '^diff --git a/openmp/' "$work/series/$p" |
    grep -v '^diff --git a/openmp/\(docs\|runtime/test\)/' | grep -q . ||
    [ -n "$tests" ] || continue
  n=$((n + 1))
  b=$work/build-$k
  t0=$(date +%s)
  if ! cmake -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      -S "$wt/openmp" -B "$b" -DLIBOMP_USE_HWLOC=ON \
      -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_OMPD_SUPPORT=OFF \
      -DOPENMP_ENABLE_OMPT_TOOLS=OFF -DLIBOMP_INSTALL_ALIASES=OFF \
      >"$b.log" 2>&1 ||
     ! ninja -C "$b" -j"$jobs" omp >>"$b.log" 2>&1; then
    echo "FAIL  $k $p: libomp does not build (log: $b.log)"
    tail -20 "$b.log"
    fail=1
    keep=1
    continue
  fi
  nm -D --defined-only "$b/runtime/src/libomp.so" | awk '{print $3}' |
    sed 's/@.*//' | sort -u >"$b.syms"
  # The functions of ours that the prefix's dllexports names.
  missing=$(sed -n 's/^[[:space:]]*\(__kmpc_\(nexttouch\|readonly\)[a-z_]*\|kmp_\(nexttouch\|readonly\|get_nexttouch\|reset_nexttouch\)[a-z_]*\)[[:space:]].*/\1/p' \
      "$wt/openmp/runtime/src/dllexports" | sort -u |
    while read -r sym; do
      grep -qx "$sym" "$b.syms" || echo "$sym"
    done)
  if [ -n "$missing" ]; then
    echo "FAIL  $k $p: libomp.so does not export: $missing"
    fail=1
    continue
  fi
  if [ -n "$tests" ]; then
    if ! NEXTTOUCH_LIBOMP=$b/runtime/src NEXTTOUCH_LIBOMP_DEBUG=0 \
        bash "$top/scripts/run-lit.sh" \
        -j"$jobs" "$NT_BUILD/openmp/runtime/test/nexttouch" \
        --filter "nexttouch/($tests)\$" >"$b.lit" 2>&1; then
      echo "FAIL  $k $p: its tests fail against its libomp: $(tail -1 "$b.lit") (log: $b.lit)"
      grep '^FAIL:' "$b.lit" | head -20
      fail=1
      keep=1
      continue
    fi
    echo "ok    $k $p ($(($(date +%s) - t0)) s; its tests: $(tail -1 "$b.lit"))"
    rm -rf "$b"
    continue
  fi
  echo "ok    $k $p ($(($(date +%s) - t0)) s)"
  rm -rf "$b"
done
echo "patch-prefixes-libomp: $n prefixes built and linked libomp$([ $fail = 0 ] || echo ', with failures')"
exit $fail
