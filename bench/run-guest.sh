#!/usr/bin/env bash
# Build bench/nexttouch_512mb.c against the project's libomp and run it in a
# 2-node, 2-vCPU numa-vm guest (vCPUs <= free host cores: TCG timings are only
# comparable within one run; see ../../shared/notes/environment.md).
#
#   bench/run-guest.sh [MiB] [variants]      default: 512 aen
#   LIBOMP_DIR=... overrides the libomp build directory (default
#   build/openmp-dev/runtime/src, else build/openmp/runtime/src).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/config.sh"
mib=${1:-512}
variants=${2:-aen}
libdir=${LIBOMP_DIR:-}
if [ -z "$libdir" ]; then
  for d in "$top/build/openmp-dev/runtime/src" "$top/build/openmp/runtime/src"; do
    [ -f "$d/libomp.so" ] && { libdir=$d; break; }
  done
fi
[ -n "$libdir" ] || { echo "run-guest: no libomp build found" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang-"$NT_LLVM_MAJOR" -O2 -fopenmp -I"$libdir" -L"$libdir" -Wl,-rpath,"$libdir" \
  "$top/bench/nexttouch_512mb.c" -lnuma -o "$out/nexttouch_bench"
# The array starts on node 0: give each node room for all of it.
mem=$(( mib + 512 ))
exec "$top/tools/numa-vm/numa-vm" --nodes 2 --cpus 2 --mem "$mem" \
  --numa-balancing 0 --timeout 1800 -- \
  env OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=cores \
  "$out/nexttouch_bench" "$mib" "$variants"
