#!/usr/bin/env bash
# Prepare the patched llvm-project tree in build/src/llvm-project.
#
# 1. Fetch the orig tarball of Debian's llvm-toolchain-$NT_LLVM_MAJOR (the
#    release of Debian's clang/llvm binaries we build against) into a cache
#    and check its SHA-256.
# 2. Unpack only the directories we build from.
# 3. Make the tree a git repository: first commit = the pristine release, then
#    `git am` every patch of patches/series, stopping loudly on the first
#    patch that does not apply.
# 4. Symlink the project's new files (clang/, openmp/, llvm/ of this
#    repository) into the tree at their llvm-project paths.
#
# Re-running is cheap: when the tree's commits already match patches/ (the
# change and the message), only the overlay links are refreshed; when they
# differ, the tree keeps the commits it shares with the start of the series
# and the rest is re-applied (files the series does not touch keep their
# timestamps, so the next build stays incremental).  Commits that neither
# patches/ nor the last run of this script gave are a developer's work: the
# script stops rather than drop them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"

tree="$NT_SRC"
mkdir -p "$NT_CACHE"

# The orig tarball: in our cache, or read from the system's (no root).
orig="$NT_CACHE/$NT_ORIG"
fetch() {
  local c
  for c in "$NT_CACHE" "$NT_SYSTEM_CACHE"; do
    if [ -f "$c/$NT_ORIG" ] &&
       echo "$NT_ORIG_SHA256  $c/$NT_ORIG" | sha256sum -c --status; then
      orig="$c/$NT_ORIG"
      return
    fi
  done
  # apt-get source cannot fetch it (bookworm-security has the binaries, not
  # the source package), so the orig tarball comes from the main archive's
  # pool by URL (no root needed), checked against the known SHA-256.
  echo "setup-source: fetching $NT_ORIG_URL" >&2
  curl -fsSL --retry 3 -o "$orig.tmp" "$NT_ORIG_URL"
  if ! echo "$NT_ORIG_SHA256  $orig.tmp" | sha256sum -c --status; then
    echo "setup-source: ERROR: $NT_ORIG_URL does not have the expected SHA-256" >&2
    echo "  expected $NT_ORIG_SHA256" >&2
    rm -f "$orig.tmp"
    exit 1
  fi
  mv "$orig.tmp" "$orig"
}

series_patches() {
  grep -v '^\s*\(#\|$\)' "$top/patches/series" | sed "s|^|$top/patches/|"
}

# The identities of the series' patches and of the tree's commits, one per
# line, in order: the patch-id (the change) and a hash of the message, as
# one word, so that a patch whose message alone changed is applied again.
series_ids() {
  local p m
  m=$(mktemp)
  for p in $(series_patches); do
    echo "$(git patch-id --stable <"$p" | awk '{print $1}')-$(
      { git mailinfo -b "$m" /dev/null <"$p" | sed -n 's/^Subject: //p'; echo
        cat "$m"; } | git stripspace | sha1sum | awk '{print $1}')"
  done
  rm -f "$m"
}
tree_ids() {
  local base c
  base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
  for c in $(git -C "$tree" rev-list --reverse "$base..HEAD"); do
    echo "$(git -C "$tree" show "$c" | git patch-id --stable | awk '{print $1}')-$(
      git -C "$tree" log -1 --format=%B "$c" | git stripspace | sha1sum | awk '{print $1}')"
  done
}

# apply_series [K]: git am the series' patches after the first K.
apply_series() {
  local p
  git -C "$tree" -c user.name=nexttouch -c user.email=nexttouch@localhost \
    am --abort >/dev/null 2>&1 || true
  for p in $(series_patches | tail -n +$((${1:-0} + 1))); do
    if ! git -C "$tree" -c user.name=nexttouch -c user.email=nexttouch@localhost \
         -c core.whitespace=-blank-at-eol am --keep-non-patch --committer-date-is-author-date -q "$p"; then
      git -C "$tree" am --abort >/dev/null 2>&1 || true
      echo "setup-source: ERROR: patch does not apply to $NT_LLVM_VERSION: $p" >&2
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

# The identities of the commits this script applied (or found equal to
# patches/) last: a commit among them that patches/ no longer has is stale,
# not a developer's work.
applied=$tree/.git/nexttouch-applied

if [ -d "$tree/.git" ]; then
  want=$(series_ids)
  have=$(tree_ids)
  if [ "$want" = "$have" ]; then
    echo "$have" >"$applied"
    link_overlay
    exit 0
  fi
  if [ -z "$want" ] || [ "${have#"$want"$'\n'}" != "$have" ]; then
    # The tree is ahead of patches/: work in progress of a developer.
    echo "setup-source: note: $tree has commits that are not in patches/" >&2
    echo "  (run 'make patches' to write them out)" >&2
    link_overlay
    exit 0
  fi
  # A commit that is in neither patches/ nor what this script last applied
  # is a developer's work, not to be dropped.
  for id in $have; do
    if ! grep -qx "$id" <<<"$want" && ! grep -qx "$id" "$applied" 2>/dev/null; then
      echo "setup-source: ERROR: $tree has commits that are not in patches/, and" >&2
      echo "  patches/ has changes that are not in the tree. Write the tree's work" >&2
      echo "  out (make patches) or drop it, then run this again." >&2
      exit 1
    fi
  done
  if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
    echo "setup-source: ERROR: $tree has uncommitted changes; patches/ changed" >&2
    echo "  under it. Commit them and run 'make patches', or discard them." >&2
    exit 1
  fi
  # Keep the commits the tree shares with the start of the series (files
  # they alone change keep their mtimes: builds stay incremental), and
  # re-apply the rest.
  keep=$(paste -d' ' <(echo "$want") <(echo "$have") | awk '$1 != $2 { exit } { n++ } END { print n + 0 }')
  base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
  if [ "$keep" -gt 0 ]; then
    base=$(git -C "$tree" rev-list --reverse "$base..HEAD" | sed -n "${keep}p")
  fi
  echo "setup-source: re-applying patches/ after the first $keep" >&2
  git -C "$tree" checkout -q -B upstream "$base"
  git -C "$tree" reset -q --hard "$base"
else
  keep=0
  echo "setup-source: unpacking llvm-project $NT_LLVM_VERSION into $tree" >&2
  rm -rf "$tree.tmp"
  mkdir -p "$tree.tmp"
  tar -xJf "$orig" -C "$tree.tmp" --strip-components=1 \
    $(for d in $NT_UNPACK; do echo "${NT_ORIG%.orig.tar.xz}/$d"; done)
  git -C "$tree.tmp" init -q -b upstream
  git -C "$tree.tmp" -c core.autocrlf=false add -A
  git -C "$tree.tmp" -c user.name=nexttouch -c user.email=nexttouch@localhost \
    commit -q -m "llvm-project $NT_LLVM_VERSION, pristine (Debian llvm-toolchain-$NT_LLVM_MAJOR orig tarball)" \
    --date="2026-01-01T00:00:00Z"
  mv "$tree.tmp" "$tree"
fi
apply_series "$keep"
tree_ids >"$applied"
link_overlay
echo "setup-source: $(series_patches | wc -l) patches applied" >&2
