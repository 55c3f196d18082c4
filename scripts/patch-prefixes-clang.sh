#!/usr/bin/env bash
# patch-prefixes-clang.sh: every prefix of patches/series that ends with a
# patch to clang/ or llvm/ builds and links clang (make check-patch-prefixes).
#
# For each such prefix k, a worktree of the pristine release commit of
# build/src/llvm-project holds the first k patches, the repository's new
# headers and the new source files that the prefix's CMakeLists.txt files
# list are linked in (as setup-source.sh links all of them), and the Makefile's own
# targets build LLVM's OpenMP frontend (llvm-overlay) and clang from it; a
# prefix that changes libclang (clang-c/, tools/libclang/) also builds
# libclang.  The prefix passes when they link and the new clang compiles an
# OpenMP translation unit to an object file.
#
# The build directories are incremental from one prefix to the next and are
# kept in build/prefixes/ (laid out like build/, so that ccache's keys match
# those of the main build); a prefix that passed is not built again while
# it and the patches before it are unchanged, so an interrupted run resumes
# where it stopped.  A run from nothing rebuilds clang about three times over
# (the prefixes that change OMP.td, StmtNodes.td, OpenMPClause.h or the
# diagnostics): about three hours on 2 cores.
#
#   scripts/patch-prefixes-clang.sh [--from K]
#
# Environment: JOBS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
from=1
[ "${1:-}" = --from ] && from=$2
tree=$NT_SRC
base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$top/patches/series")

w=$NT_BUILD/prefixes
wt=$w/src/llvm-project
state=$w/passed
mkdir -p "$w"
touch "$state"
if [ ! -e "$wt/.git" ]; then
  git -C "$tree" worktree prune
  git -C "$tree" worktree add -q --detach "$wt" "$base"
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true

# The new files at prefix k: headers always; a source file only once the
# CMakeLists.txt of its directory lists it (LLVM's build refuses a directory
# with a source file that its target does not list).  Tests are not linked.
link_overlay() {
  (cd "$top" && git ls-files -co --exclude-standard -- clang llvm) |
    while read -r rel; do
      [ -f "$top/$rel" ] || continue
      case $rel in
      */test/*) continue ;;
      *.c | *.cpp)
        if ! grep -qw "$(basename "$rel")" "$wt/$(dirname "$rel")/CMakeLists.txt" 2>/dev/null; then
          rm -f "$wt/$rel"
          continue
        fi ;;
      esac
      mkdir -p "$(dirname "$wt/$rel")"
      [ -e "$wt/$rel" ] || ln -s "$top/$rel" "$wt/$rel"
    done
}

# The identity of prefix k: the patch-ids of its patches.
prefix_id() {
  local i
  for ((i = 0; i < $1; i++)); do
    git patch-id --stable <"$top/patches/${series[$i]}" | awk '{print $1}'
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
       "$(git patch-id --stable <"$top/patches/$p" | awk '{print $1}')" ]; then
    head=$next
  else
    git -C "$wt" reset -q --hard "$head"
    git -C "$wt" -c user.name=prefix -c user.email=prefix@localhost \
      -c core.whitespace=-blank-at-eol am -q --keep-non-patch "$top/patches/$p"
    head=$(git -C "$wt" rev-parse HEAD)
  fi
  # Only patches that change what clang is built from (not its docs).
  grep '^diff --git a/\(clang\|llvm\)/' "$top/patches/$p" |
    grep -vq '^diff --git a/clang/docs/' || continue
  id=$(prefix_id $k)
  if [ $k -lt $from ] || grep -qx "$id" "$state"; then
    skipped=$((skipped + 1))
    continue
  fi
  n=$((n + 1))
  t0=$(date +%s)
  # The worktree at prefix k, whatever the build directories last saw.
  git -C "$wt" reset -q --hard "$head"
  link_overlay
  log=$w/build-$k.log
  targets=clang
  grep -q '^diff --git a/clang/\(include/clang-c\|tools/libclang\)/' \
    "$top/patches/$p" && targets="clang libclang"
  if make -C "$top" --no-print-directory clang SRC="$wt" \
       CLANG_BUILD="$w/clang" OVERLAY_BUILD="$w/llvm-overlay" >"$log" 2>&1 &&
     ninja -C "$w/clang" -j"${JOBS:-$(nproc)}" $targets >>"$log" 2>&1 &&
     "$w/clang/bin/clang" -fopenmp -c "$smoke" -o "$w/smoke.o" >>"$log" 2>&1; then
    echo "$id" >>"$state"
    echo "ok    $k $p: $targets ($(($(date +%s) - t0)) s)"
  else
    echo "FAIL  $k $p (log: $log)"
    tail -20 "$log"
    fail=1
    break
  fi
done
echo "patch-prefixes-clang: $n prefixes built and linked clang, $skipped passed before$([ $fail = 0 ] || echo ', with a failure')"
exit $fail
