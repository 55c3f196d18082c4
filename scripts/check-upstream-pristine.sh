#!/usr/bin/env bash
# check-upstream-pristine.sh: upstream's own suites, ours against pristine.
#
# Runs openmp/runtime/test against our libomp (as make check-upstream does)
# and against a libomp built from the pristine release (the first commit of
# build/src/llvm-project, the orig tarball unchanged), configured alike, its
# tests compiled by Debian's clang of the same release.  Then runs clang/test/OpenMP with our clang; if any of those
# fail, or with PRISTINE_CLANG=1, it also builds a pristine clang (overlay of
# the pristine OMP.td, then clang; most of an hour with a cold ccache) and
# runs the same suite with it.  Prints each suite's failures, and fails if we
# fail a test that pristine passes.  Build directories: build/pristine/.
set -uo pipefail
. "$(dirname "$0")/config.sh"
top=$NT_TOP
b=$NT_BUILD
p=$b/pristine
llvm=/usr/lib/llvm-$NT_LLVM_MAJOR
lit=$llvm/bin/lit
jobs=${JOBS:-$(nproc)}
die() { echo "check-upstream-pristine: $*" >&2; exit 2; }

[ -d "$NT_SRC/.git" ] || die "no source tree in $NT_SRC (make source)"
[ -f "$b/openmp/build.ninja" ] || die "our libomp is not built (make)"
base=$(git -C "$NT_SRC" rev-list --max-parents=0 HEAD) || die "no base commit"
git -C "$NT_SRC" log -1 --format=%s "$base" | grep -q pristine ||
  die "$base is not the pristine release"

# The pristine tree: what the base commit holds, extracted once.
if [ "$(cat "$p/src.commit" 2>/dev/null)" != "$base" ]; then
  rm -rf "$p/src" && mkdir -p "$p/src"
  git -C "$NT_SRC" archive "$base" | tar -x -C "$p/src" || die "git archive failed"
  echo "$base" >"$p/src.commit"
fi

# "suite log": the failed tests of a lit log, sorted.
failures() {
  awk '/^(Failed|Unresolved|Timed Out|Unexpectedly Passed) Tests/ {l = 1; next}
       l && /^  .* :: / {sub(/^  [^:]* :: /, ""); print; next} {l = 0}' "$2" |
    sort -u >"$p/$1.failed"
}
# "name dir": run lit on dir, keep the log and the list of failures.
run() {
  echo "== $1: $2"
  "$lit" -s -j"$jobs" "$2" >"$p/$1.log" 2>&1
  grep -E '^ *(Passed|Failed|Unsupported|Unresolved|Timed Out|Expectedly Failed) *:' "$p/$1.log" |
    sed 's/^/   /'
  failures "$1" "$p/$1.log"
}
# "ours pristine": tests that fail ours and not pristine; 1 if any.
compare() {
  echo "== $1 failures: $(wc -l <"$p/$1.failed"); $2: $(wc -l <"$p/$2.failed")"
  sed 's/^/   both: /' <(comm -12 "$p/$1.failed" "$p/$2.failed")
  sed 's/^/   only pristine: /' <(comm -13 "$p/$1.failed" "$p/$2.failed")
  if [ -n "$(comm -23 "$p/$1.failed" "$p/$2.failed")" ]; then
    sed 's/^/   ONLY OURS: /' <(comm -23 "$p/$1.failed" "$p/$2.failed")
    return 1
  fi
}

rc=0
mkdir -p "$p"

# libomp: ours is what make check-upstream runs (build/openmp, tests
# compiled by our clang); pristine is the Makefile's target libomp on the
# pristine openmp/, tests compiled by Debian's clang.
d=$p/openmp
make -C "$top" --no-print-directory libomp SRC="$p/src" OMP_BUILD="$d" \
  CLANG="$llvm/bin/clang" >"$d.build.log" 2>&1 ||
  { tail -30 "$d.build.log"; die "build $d"; }
run libomp-ours "$b/openmp/runtime/test"
run libomp-pristine "$d/runtime/test"
compare libomp-ours libomp-pristine || rc=1

# clang/test/OpenMP with our clang; a pristine clang only when needed.
run clang-ours "$b/clang/test/OpenMP"
if [ -s "$p/clang-ours.failed" ] || [ "${PRISTINE_CLANG:-0}" = 1 ]; then
  c=$p/clang
  make -C "$top" --no-print-directory clang SRC="$p/src" CLANG_BUILD="$c" \
    OVERLAY_BUILD="$p/llvm-overlay" >"$c.build.log" 2>&1 ||
    { tail -30 "$c.build.log"; die "build $c"; }
  run clang-pristine "$c/test/OpenMP"
  compare clang-ours clang-pristine || rc=1
else
  echo "== clang-ours failures: 0 (no pristine clang needed; PRISTINE_CLANG=1 builds one)"
fi
exit $rc
