#!/usr/bin/env bash
# libomp-only.sh PREFIX: the runtime half alone -- libomp with its libgomp
# and libiomp5 aliases, omp.h, omp_lib.mod/omp_lib.h -- for users of any
# compiler, on any Linux distribution: no dpkg, no apt, no root, no clang.
#
# Needs CMake 3.20 or newer, Python 3, a C and a C++ compiler, and git or
# patch; uses ninja if it is there (else make), hwloc's headers if the
# compiler finds them (the topology; without them libomp reads the
# kernel's), gfortran if it is there (the Fortran module).  Says in plain
# words what is missing.  The source: the release's tarball (fetched once,
# checked against its SHA-256; NT_ORIG_FILE=path uses a copy you have), of
# which only openmp/ and cmake/ are unpacked, with the openmp/ part of our
# patch series and our new files.  The build is in build/libomp-only.
#
#   LIBOMP_CC, LIBOMP_CXX   the compilers (default: $CC/$CXX, else gcc/g++,
#                           else cc/c++)
#   FC                      the Fortran compiler (default gfortran)
#   JOBS                    parallel jobs
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
[ $# = 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
prefix=$1
case $prefix in /*) ;; *) prefix=$PWD/$prefix ;; esac
work=$NT_BUILD/libomp-only
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}

# --- What is needed, in words anyone can act on.
missing=()
have() { command -v "$1" >/dev/null 2>&1; }
cc=${LIBOMP_CC:-${CC:-}}
cxx=${LIBOMP_CXX:-${CXX:-}}
[ -n "$cc" ] || { have gcc && cc=gcc; } || { have cc && cc=cc; } || true
[ -n "$cxx" ] || { have g++ && cxx=g++; } || { have c++ && cxx=c++; } || true
[ -n "$cc" ] && have "$cc" ||
  missing+=("a C compiler (gcc, or clang; set LIBOMP_CC to choose one)")
[ -n "$cxx" ] && have "$cxx" ||
  missing+=("a C++ compiler (g++ 8 or later, or clang++; set LIBOMP_CXX)")
if ! have python3; then
  missing+=("Python 3 (the 'python3' package of your distribution)")
fi
if have cmake; then
  cmv=$(cmake --version | awk 'NR == 1 {print $3}')
  if [ "$(printf '%s\n' 3.20.0 "$cmv" | sort -V | head -n1)" != 3.20.0 ]; then
    missing+=("CMake 3.20 or newer (this one is $cmv): RHEL/Rocky/Alma 9 and Ubuntu 22.04 ship one; without root: python3 -m pip install --user cmake")
  fi
else
  missing+=("CMake 3.20 or newer: your distribution's 'cmake' package, or without root: python3 -m pip install --user cmake")
fi
have git || have patch ||
  missing+=("git or patch, to apply our patches (either package)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "libomp-only: missing:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi

# --- The source: the tarball, checked; openmp/ and cmake/ unpacked.
orig=${NT_ORIG_FILE:-}
series=$(grep -v '^\s*\(#\|$\)' "$top/patches/series")
stamp=$( (echo "$NT_ORIG_SHA256"; cd "$top/patches" && cat $series;
          cd "$top" && find openmp -type f | sort | xargs cat) | python3 -c \
        'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')
src=$work/src
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]; then
  mkdir -p "$work" "$NT_CACHE" 2>/dev/null || true
  NT_ORIG_FILE=$orig NT_CACHE=$NT_CACHE NT_SYSTEM_CACHE=$NT_SYSTEM_CACHE \
  NT_ORIG=$NT_ORIG NT_ORIG_URL=$NT_ORIG_URL NT_ORIG_SHA256=$NT_ORIG_SHA256 \
  SRC=$src.tmp python3 - <<'EOF'
import hashlib, os, shutil, sys, tarfile, urllib.request
e = os.environ
want = e["NT_ORIG_SHA256"]

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()

cands = [e["NT_ORIG_FILE"]] if e["NT_ORIG_FILE"] else [
    os.path.join(d, e["NT_ORIG"]) for d in (e["NT_CACHE"], e["NT_SYSTEM_CACHE"])]
orig = next((c for c in cands if os.path.isfile(c) and sha(c) == want), None)
if orig is None:
    if e["NT_ORIG_FILE"]:
        sys.exit("libomp-only: %s is not the release's tarball (SHA-256 %s expected)"
                 % (e["NT_ORIG_FILE"], want))
    orig = os.path.join(e["NT_CACHE"], e["NT_ORIG"])
    print("libomp-only: fetching %s" % e["NT_ORIG_URL"], file=sys.stderr)
    try:
        os.makedirs(e["NT_CACHE"], exist_ok=True)
        with urllib.request.urlopen(e["NT_ORIG_URL"], timeout=60) as r, \
                open(orig + ".tmp", "wb") as f:
            shutil.copyfileobj(r, f)
    except OSError as x:
        sys.exit("libomp-only: cannot fetch %s (%s); download it elsewhere and "
                 "pass NT_ORIG_FILE=path" % (e["NT_ORIG_URL"], x))
    if sha(orig + ".tmp") != want:
        os.unlink(orig + ".tmp")
        sys.exit("libomp-only: %s does not have the expected SHA-256" % e["NT_ORIG_URL"])
    os.replace(orig + ".tmp", orig)
shutil.rmtree(e["SRC"], ignore_errors=True)
with tarfile.open(orig, "r:xz") as t:
    top = None
    def wanted(m):
        global top
        parts = m.name.split("/", 2)
        top = top or parts[0]
        return len(parts) > 1 and parts[1] in ("openmp", "cmake")
    members = [m for m in t if wanted(m)]
    for m in members:
        m.name = m.name.split("/", 1)[1]
    t.extractall(e["SRC"], members=members)
EOF
  # The openmp/ and cmake/ parts of the series (the rest is clang's and
  # LLVM's), then our new files.
  for p in $series; do
    python3 - "$top/patches/$p" > "$work/part.patch" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.split(r"(?m)^(?=diff --git )", text)
for b in blocks[1:]:
    path = b.split("\n", 1)[0].split(" b/", 1)[-1]
    if path.startswith(("openmp/", "cmake/")):
        sys.stdout.write(b)
EOF
    [ -s "$work/part.patch" ] || continue
    if have git; then
      git -C "$src.tmp" apply --whitespace=nowarn "$work/part.patch"
    else
      patch -d "$src.tmp" -p1 -s --batch < "$work/part.patch"
    fi || { echo "libomp-only: $p does not apply to $NT_LLVM_VERSION" >&2; exit 1; }
  done
  rm -f "$work/part.patch"
  (cd "$top" && find openmp -type f) | while read -r f; do
    mkdir -p "$src.tmp/$(dirname "$f")"
    cp -p "$top/$f" "$src.tmp/$f"
  done
  rm -rf "$src"
  mv "$src.tmp" "$src"
  echo "$stamp" > "$src/.stamp"
fi

# --- Configure, build, install.
gen=(-G "Unix Makefiles")
have ninja && gen=(-G Ninja)
hwloc=OFF
if echo '#include <hwloc.h>' | "$cc" -E -x c - >/dev/null 2>&1; then
  hwloc=ON
else
  echo "libomp-only: note: no hwloc headers (hwloc-devel, libhwloc-dev): libomp reads the topology from the kernel" >&2
fi
fc=${FC:-gfortran}
fortran=()
if have "$fc"; then
  fortran=(-DLIBOMP_FORTRAN_MODULES=OFF -DLIBOMP_FORTRAN_MODULES_COMPILER="$(command -v "$fc")")
else
  echo "libomp-only: note: no Fortran compiler ($fc): no omp_lib.mod" >&2
fi
bld=$work/build
if [ ! -f "$bld/CMakeCache.txt" ] || ! grep -q "^CMAKE_C_COMPILER:.*=$(command -v "$cc")\$" "$bld/CMakeCache.txt"; then
  rm -rf "$bld"
fi
cmake "${gen[@]}" -S "$src/openmp" -B "$bld" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DLIBOMP_USE_HWLOC=$hwloc \
  -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_OMPD_SUPPORT=OFF \
  -DOPENMP_ENABLE_OMPT_TOOLS=OFF -DOPENMP_ENABLE_TESTING=OFF "${fortran[@]}" \
  > "$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
targets=(omp)
[ ${#fortran[@]} -gt 0 ] && targets+=(libomp-mod)
cmake --build "$bld" -j "$jobs" --target "${targets[@]}" > "$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log" >&2; exit 1; }
DESTDIR=${DESTDIR:-} cmake --install "$bld" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; exit 1; }
echo "libomp-only: ${DESTDIR:-}$prefix: lib/libomp.so (+ libgomp.so, libiomp5.so), include/omp.h$([ ${#fortran[@]} -gt 0 ] && echo ', include/omp_lib.mod') (hwloc: $hwloc)"
