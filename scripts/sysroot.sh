#!/usr/bin/env bash
# sysroot.sh: Debian 11's C library and the libraries libomp links, as a
# sysroot to build libomp against glibc 2.31 (make libomp-compat), and to
# run programs on that C library (its loader with --library-path).
#
# Made from Debian 11 (bullseye) packages, without root: a private apt state
# ($NT_CACHE/apt-bullseye: its own sources list for bullseye and
# bullseye-security, signed by Debian's archive keyring, its own package
# lists, no installed packages: the machine's own versions are not
# candidates; the machine's apt configuration is not touched), apt-get download
# (apt checks the archive's signatures), dpkg -x into the sysroot.  Prints
# the sysroot's path; kept until the package list below changes.
#
#   scripts/sysroot.sh        -> $NT_CACHE/sysroot-bullseye
set -euo pipefail
. "$(dirname "$0")/config.sh"
release=bullseye
# The C library and its headers, GCC's start files and C++ headers (libomp
# is C++, linked without libstdc++), and libomp's topology and migration
# libraries with what they link.
pkgs=(libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev
      libgcc-s1 libgcc-10-dev libatomic1 libstdc++-10-dev libstdc++6
      libhwloc15 libhwloc-dev libnuma1 libnuma-dev libudev1 libltdl7)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
state=$NT_CACHE/apt-$release
root=$NT_CACHE/sysroot-$release
stamp="$release: ${pkgs[*]}"
if [ -f "$root/.nexttouch-sysroot" ] && [ "$(cat "$root/.nexttouch-sysroot")" = "$stamp" ]; then
  echo "$root"
  exit 0
fi
[ -f $keyring ] || { echo "sysroot: $keyring is missing (debian-archive-keyring)" >&2; exit 1; }
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/sources.list.d"
{
  echo "deb [signed-by=$keyring] http://deb.debian.org/debian $release main"
  echo "deb [signed-by=$keyring] http://deb.debian.org/debian-security $release-security main"
} >"$state/sources.list"
opts=(-o "Dir::Etc::SourceList=$state/sources.list"
      -o "Dir::Etc::SourceParts=$state/sources.list.d"
      -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
      -o Dir::State::status=/dev/null -o Acquire::Languages=none)
[ "$(id -u)" = 0 ] && opts+=(-o APT::Sandbox::User=root)
echo "sysroot: Debian 11 packages into $root" >&2
apt-get "${opts[@]}" update -q >"$state/update.log" 2>&1 ||
  { tail -20 "$state/update.log" >&2; exit 1; }
debs=$(mktemp -d "$NT_CACHE/sysroot-debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get "${opts[@]}" download -q "${pkgs[@]}") >"$state/download.log" 2>&1 ||
  { tail -20 "$state/download.log" >&2; exit 1; }
rm -rf "$root.tmp"
mkdir -p "$root.tmp"
for d in "$debs"/*.deb; do
  dpkg -x "$d" "$root.tmp"
done
# Absolute links (usr/lib/.../libm.so -> /lib/.../libm.so.6) would lead to
# the machine's own libraries: made relative, inside the sysroot.
find "$root.tmp" -type l -lname '/*' | while read -r l; do
  ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$root.tmp$(readlink "$l")")" "$l"
done
# Debian 11 is not merged-/usr: the loader's path in programs is
# /lib64/ld-linux-x86-64.so.2, which the libc6 package provides as a link.
[ -e "$root.tmp/lib64/ld-linux-x86-64.so.2" ] ||
  { echo "sysroot: no lib64/ld-linux-x86-64.so.2 in the packages" >&2; exit 1; }
echo "$stamp" >"$root.tmp/.nexttouch-sysroot"
rm -rf "$root"
mv "$root.tmp" "$root"
echo "$root"
