#!/usr/bin/env bash
# patches.sh regen | check | prefixes [options]
#
#   regen  write patches/ (numbered patches + series) from the commits of
#          build/src/llvm-project on top of its pristine release commit.
#   check  verify that patches/ and the tree agree (same commits, same diffs),
#          that the tree has no uncommitted changes to upstream files, and
#          that the series applies to a pristine checkout of the release.
#   prefixes every prefix of the series compiles the files its last patch
#          touches (scripts/patch-prefixes.py; options: --jobs N, --from K,
#          --to K, --keep).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
tree=$NT_SRC
[ -d "$tree/.git" ] || { echo "patches: no tree at $tree (run make source)" >&2; exit 1; }
base=$(git -C "$tree" rev-list --max-parents=0 HEAD)

format() {  # format DIR: the tree's commits as patch files in DIR
  git -C "$tree" format-patch -q --zero-commit --no-signature --no-numbered \
    --no-stat --full-index -o "$1" "$base..HEAD"
  (cd "$1" && ls *.patch 2>/dev/null || true) > "$1/series"
}

dirty() {
  git -C "$tree" status --porcelain --untracked-files=no
}

case "${1:-}" in
regen)
  if [ -n "$(dirty)" ]; then
    echo "patches: uncommitted changes in $tree; commit them first:" >&2
    dirty >&2
    exit 1
  fi
  tmp=$(mktemp -d)
  format "$tmp"
  rm -f "$top"/patches/*.patch
  cp "$tmp"/*.patch "$top/patches/" 2>/dev/null || true
  { echo "# Applied in order to pristine llvm-project $NT_LLVM_VERSION by scripts/setup-source.sh."
    echo "# Regenerate with 'make patches' from build/src/llvm-project's commits."
    cat "$tmp/series"; } > "$top/patches/series"
  rm -rf "$tmp"
  echo "patches: $(grep -vc '^#' "$top/patches/series") patches written to patches/"
  ;;
check)
  rc=0
  if [ -n "$(dirty)" ]; then
    echo "patches: DRIFT: uncommitted changes to upstream files in $tree:" >&2
    dirty >&2
    rc=1
  fi
  tmp=$(mktemp -d)
  format "$tmp"
  want=$(grep -v '^\s*\(#\|$\)' "$top/patches/series" || true)
  if [ "$want" != "$(cat "$tmp/series")" ]; then
    echo "patches: DRIFT: patches/series differs from the tree's commits" >&2
    diff <(echo "$want") "$tmp/series" >&2 || true
    rc=1
  else
    for p in $want; do
      if ! cmp -s "$top/patches/$p" "$tmp/$p"; then
        echo "patches: DRIFT: patches/$p differs from the tree's commit" >&2
        rc=1
      fi
    done
  fi
  rm -rf "$tmp"
  # The series applies to the pristine release (a throw-away worktree of the base).
  wt=$(mktemp -d)
  git -C "$tree" worktree add -q --detach "$wt/t" "$base"
  for p in $want; do
    if ! git -C "$wt/t" apply --index "$top/patches/$p"; then
      echo "patches: ERROR: patches/$p does not apply to pristine $NT_LLVM_VERSION + its predecessors" >&2
      rc=1
      break
    fi
  done
  git -C "$tree" worktree remove --force "$wt/t"
  rm -rf "$wt"
  [ $rc = 0 ] && echo "patches: OK, $(echo "$want" | grep -c . || true) patches, no drift"
  exit $rc
  ;;
prefixes)
  shift
  exec python3 "$top/scripts/patch-prefixes.py" "$@"
  ;;
*)
  echo "usage: $0 regen|check|prefixes [options]" >&2
  exit 2
  ;;
esac
