#!/usr/bin/env bash
# patch-prefixes-clang.sh: every prefix of the self-contained series
# (scripts/series.py: patches/ with the new files each patch first needs)
# that ends with a patch to clang/ or llvm/ builds and links clang, and
# passes the clang tests it adds (make check-patch-prefixes).
#
# For each such prefix k, the first k patches of the series are applied with
# `git am` to a worktree of the pristine release commit of
# build/src/llvm-project, so that the prefix holds exactly the files it
# adds; the Makefile's own targets build LLVM's OpenMP frontend
# (llvm-overlay) and clang from it; a prefix that changes libclang
# (clang-c/, tools/libclang/) also builds libclang.  The prefix passes when
# they link, the new clang compiles an OpenMP translation unit to an object
# file, and the tests of clang/test/ that patches/files assigns to patch k
# pass (lit, against that clang).
#
# The build directories are incremental from one prefix to the next and are
# kept in build/prefixes/; a prefix that passed is not built again while it
# and the patches before it are unchanged, so an interrupted run resumes
# where it stopped.  A run from nothing rebuilds clang about four times over
# (the prefixes that change OMP.td, StmtNodes.td, OpenMPClause.h or the
# diagnostics).  A prefix only has to build, link and pass a few tests, so
# clang is built at -O0, which takes about half the time of the release
# build's -O3, with a compiler cache of its own (build/prefixes/ccache), so
# that these objects do not push the main build's out of the shared cache.
#
#   scripts/patch-prefixes-clang.sh [--from K] [--to K]
#
# Environment: JOBS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
from=1 to=1000
while [ $# -gt 0 ]; do
  case $1 in
  --from) from=$2; shift 2 ;;
  --to) to=$2; shift 2 ;;
  *) echo "usage: $0 [--from K] [--to K]" >&2; exit 2 ;;
  esac
done
tree=$NT_SRC
base=$(git -C "$tree" rev-list --max-parents=0 HEAD)

w=$NT_BUILD/prefixes
wt=$w/src/llvm-project
state=$w/passed
mkdir -p "$w"
touch "$state"
rm -rf "$w/series"
python3 "$top/scripts/series.py" build "$w/series" >/dev/null
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$w/series/series")
if [ ! -e "$wt/.git" ]; then
  git -C "$tree" worktree prune
  git -C "$tree" worktree add -q --detach "$wt" "$base"
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true

# The identity of prefix k: the patch-ids of its patches.
prefix_id() {
  local i
  for ((i = 0; i < $1; i++)); do
    git patch-id --stable <"$w/series/${series[$i]}" | awk '{print $1}'
  done | sha1sum | awk '{print $1}'
}

smoke=$w/smoke.c
cat >"$smoke" <<'EOF'
double a[1024];
int main(void) {
#pragma omp parallel for
  for (int i = 0; i < 1024; i++)
    a[i] = i;
  return a[7] != 7;
}
EOF

# -O0, and NDEBUG as in the release build (Debian's LLVM has no assertions).
export CCACHE_DIR=$w/ccache
flags='"-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"'

fail=0 n=0 skipped=0
head=$base
for i in "${!series[@]}"; do
  p=${series[$i]}
  k=$((i + 1))
  # The commit of prefix k in the worktree: reuse it while its patch is the
  # same, else apply the rest of the series from here.
  next=$(git -C "$wt" rev-list --reverse "$head..HEAD" 2>/dev/null | head -1)
  if [ -n "$next" ] &&
     [ "$(git -C "$wt" show "$next" | git patch-id --stable | awk '{print $1}')" = \
       "$(git patch-id --stable <"$w/series/$p" | awk '{print $1}')" ]; then
    head=$next
  else
    git -C "$wt" reset -q --hard "$head"
    git -C "$wt" clean -fdqx
    git -C "$wt" -c user.name=prefix -c user.email=prefix@localhost \
      -c core.whitespace=-blank-at-eol am -q --keep-non-patch "$w/series/$p"
    head=$(git -C "$wt" rev-parse HEAD)
  fi
  # Only patches that change what clang is built from (not its docs).
  grep '^diff --git a/\(clang\|llvm\)/' "$w/series/$p" |
    grep -vq '^diff --git a/clang/docs/' || continue
  id=$(prefix_id $k)
  if [ $k -lt $from ] || [ $k -gt $to ] || grep -qx "$id" "$state"; then
    skipped=$((skipped + 1))
    continue
  fi
  n=$((n + 1))
  t0=$(date +%s)
  # The worktree at prefix k, whatever the build directories last saw.
  git -C "$wt" reset -q --hard "$head"
  git -C "$wt" clean -fdqx
  log=$w/build-$k.log
  targets=clang
  grep -q '^diff --git a/clang/\(include/clang-c\|tools/libclang\)/' \
    "$w/series/$p" && targets="clang libclang"
  # The clang tests this patch adds (lit --filter).
  tests=$(sed -n "s#^$(printf %04d "$k") clang/test/OpenMP/\([^ ]*\)\$#\1#p" \
    "$top/patches/files" | sed 's/[.+]/\\&/g' | paste -sd'|' -)
  if make -C "$top" --no-print-directory clang SRC="$wt" \
       CLANG_BUILD="$w/clang" OVERLAY_BUILD="$w/llvm-overlay" \
       CLANG_CMAKE_FLAGS="$flags" >"$log" 2>&1 &&
     ninja -C "$w/clang" -j"${JOBS:-$(nproc)}" $targets >>"$log" 2>&1 &&
     "$w/clang/bin/clang" -fopenmp -c "$smoke" -o "$w/smoke.o" >>"$log" 2>&1 &&
     { [ -z "$tests" ] ||
       bash "$top/scripts/run-lit.sh" -j"${JOBS:-$(nproc)}" \
         "$w/clang/test/OpenMP" --filter "OpenMP/($tests)\$" >>"$log" 2>&1; }; then
    echo "$id" >>"$state"
    echo "ok    $k $p: $targets, $(echo "$tests" | tr '|' '\n' | grep -c .) tests ($(($(date +%s) - t0)) s)"
  else
    echo "FAIL  $k $p (log: $log)"
    tail -20 "$log"
    fail=1
    break
  fi
done
echo "patch-prefixes-clang: $n prefixes built and linked clang, $skipped passed before or left out (--from, --to)$([ $fail = 0 ] || echo ', with a failure')"
exit $fail
