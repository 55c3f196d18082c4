#!/usr/bin/env bash
# Prepare the patched llvm-project tree in build/src/llvm-project.
#
# 1. Fetch Debian's source package llvm-toolchain-19 (the version of Debian's
#    clang-19/llvm-19 binaries) into a cache, check the orig tarball's SHA-256.
# 2. Unpack only the directories we build from.
# 3. Make the tree a git repository: first commit = pristine 19.1.7, then
#    `git am` every patch of patches/series, stopping loudly on the first
#    patch that does not apply.
# 4. Symlink the project's new files (clang/, openmp/, llvm/ of this
#    repository) into the tree at their llvm-project paths.
#
# Re-running is cheap: when the tree's commits already match patches/, only
# the overlay links are refreshed; when they differ, the tree is reset to the
# pristine commit and the series is re-applied (files the series does not
# touch keep their timestamps, so the next build stays incremental).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"

tree="$NT_SRC"
mkdir -p "$NT_CACHE"

fetch() {
  local orig="$NT_CACHE/$NT_ORIG"
  if [ -f "$orig" ] && echo "$NT_ORIG_SHA256  $orig" | sha256sum -c --status; then
    return
  fi
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
     ! grep -qs '^deb-src' /etc/apt/sources.list; then
    echo "setup-source: adding a deb-src entry for Debian's main archive" >&2
    cat > /etc/apt/sources.list.d/nexttouch-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -q
  fi
  (cd "$NT_CACHE" && apt-get source --download-only "llvm-toolchain-19=$NT_DEB_VERSION")
  if ! echo "$NT_ORIG_SHA256  $orig" | sha256sum -c --status; then
    echo "setup-source: ERROR: $orig does not have the expected SHA-256" >&2
    echo "  expected $NT_ORIG_SHA256" >&2
    exit 1
  fi
}

series_patches() {
  grep -v '^\s*\(#\|$\)' "$top/patches/series" | sed "s|^|$top/patches/|"
}

# The series as applied to the tree, one line per commit, compared by patch-id.
tree_matches_series() {
  [ -d "$tree/.git" ] || return 1
  local base want have
  base=$(git -C "$tree" rev-list --max-parents=0 HEAD) || return 1
  want=$(series_patches | xargs -r cat | git patch-id --stable | awk '{print $1}')
  have=$(git -C "$tree" log -p --reverse --format='commit %H' "$base..HEAD" |
         git patch-id --stable | awk '{print $1}')
  [ "$want" = "$have" ]
}

apply_series() {
  local p
  git -C "$tree" -c user.name=nexttouch -c user.email=nexttouch@localhost \
    am --abort >/dev/null 2>&1 || true
  for p in $(series_patches); do
    if ! git -C "$tree" -c user.name=nexttouch -c user.email=nexttouch@localhost \
         -c core.whitespace=-blank-at-eol am --committer-date-is-author-date -q "$p"; then
      git -C "$tree" am --abort >/dev/null 2>&1 || true
      echo "setup-source: ERROR: patch does not apply to 19.1.7: $p" >&2
      exit 1
    fi
  done
}

link_overlay() {
  local f rel
  : > "$tree/.git/info/exclude"
  (cd "$top" && git ls-files -co --exclude-standard -- $NT_OVERLAY_DIRS) | while read -r rel; do
    [ -f "$top/$rel" ] || continue
    mkdir -p "$(dirname "$tree/$rel")"
    if [ -e "$tree/$rel" ] && [ ! -L "$tree/$rel" ]; then
      echo "setup-source: ERROR: overlay file $rel would replace an upstream file;" >&2
      echo "  change upstream files through patches/ instead" >&2
      exit 1
    fi
    ln -sfn "$top/$rel" "$tree/$rel"
    echo "/$rel" >> "$tree/.git/info/exclude"
  done
  # Drop links whose overlay file is gone.
  find "$tree" -xtype l -lname "$top/*" -delete
}

fetch

if [ -d "$tree/.git" ] && tree_matches_series; then
  link_overlay
  exit 0
fi

if [ -d "$tree/.git" ]; then
  if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
    echo "setup-source: ERROR: $tree has uncommitted changes and its commits differ" >&2
    echo "  from patches/. Commit them and run 'make patches', or discard them." >&2
    exit 1
  fi
  echo "setup-source: re-applying patches/ to the pristine tree" >&2
  base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
  git -C "$tree" checkout -q -B upstream "$base"
  git -C "$tree" reset -q --hard "$base"
else
  echo "setup-source: unpacking llvm-project 19.1.7 into $tree" >&2
  rm -rf "$tree.tmp"
  mkdir -p "$tree.tmp"
  tar -xJf "$NT_CACHE/$NT_ORIG" -C "$tree.tmp" --strip-components=1 \
    $(for d in $NT_UNPACK; do echo "llvm-toolchain-19_19.1.7/$d"; done)
  git -C "$tree.tmp" init -q -b upstream
  git -C "$tree.tmp" -c core.autocrlf=false add -A
  git -C "$tree.tmp" -c user.name=nexttouch -c user.email=nexttouch@localhost \
    commit -q -m "llvm-project 19.1.7, pristine (Debian llvm-toolchain-19 orig tarball)" \
    --date="2025-01-14T00:00:00Z"
  mv "$tree.tmp" "$tree"
fi
apply_series
link_overlay
echo "setup-source: $(series_patches | wc -l) patches applied" >&2
