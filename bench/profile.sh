#!/usr/bin/env bash
# Where the engine's time goes, next to the oracle (docs/Benchmarks.rst,
# "Where the time goes"): one 2-node guest, the same array and settings as
# bench/run-bench.sh, with variants that isolate one factor each:
#
#   ours-default          the adaptive window (1, 2, 4 ... 512 pages)
#   ours-window512        a fixed 512-page batch from the first fault (no ramp)
#   ours-window64         a fixed 64-page batch
#   ours-default+mp       KMP_NEXTTOUCH_MECHANISM=move_pages: on this kernel
#                         the engine opens the batch, then move_pages (the
#                         oracle's call) instead of mbind + policy restore
#   ours-thp              2 MiB pages: one migration call per 2 MiB
#   oracle, oracle512, oracle64   move_pages with 1024, 512, 64 pages per call
#   oracle-prot512        oracle512 plus the protection changes of next-touch
#                         without the faults: PROT_NONE first, each batch
#                         opened with mprotect before its move_pages
#   none                  the floor
#
# Writes bench/results/profile.csv, profile-phases.csv, profile-summary.txt.
#   BENCH_MIB=256 BENCH_REPS=3 bench/profile.sh        (defaults)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mib=${BENCH_MIB:-256}
reps=${BENCH_REPS:-3}
out=${BENCH_OUT:-$top/bench/results}
bin=$top/build/bench
mkdir -p "$bin" "$out"
"$top/build/bin/clang" -fopenmp -O2 -Wall "$top/bench/nexttouch_dist.c" -lnuma -o "$bin/nexttouch_dist"
variants=ours-default,ours-window512,ours-window64,ours-thp,oracle,oracle512,oracle64,oracle-prot512,none
cmd=""
for r in $(seq 1 "$reps"); do
  cmd+="BENCH_REP_OFFSET=$((r - 1)) $bin/nexttouch_dist $mib 1 $variants; "
  cmd+="BENCH_REP_OFFSET=$((r - 1)) KMP_NEXTTOUCH_MECHANISM=move_pages $bin/nexttouch_dist $mib 1 ours-default | sed 's/ours-default/ours-default+mp/'; "
done
libomp=$top/build/openmp/runtime/src/libomp.so
libomp_id="libomp.so sha1 $(sha1sum "$libomp" | cut -c1-12) built $(date -u -r "$libomp" +%Y-%m-%dT%H:%MZ)"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
echo "== profile: one 2-node guest, ${mib} MiB, $reps repetitions of $variants,ours-default+mp"
"$top/tools/numa-vm/numa-vm" --nodes 2 --cpus 2 --mem 1024 --numa-balancing 0 \
  --kernel-arg transparent_hugepage=madvise --timeout 3600 --file "$bin/nexttouch_dist" -- \
  env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores BENCH_WHERE=guest-tcg sh -c "$cmd" \
  | tee "$raw" | { grep --line-buffered '^csv,[^w]' || true; }
{
  echo "# bench/profile.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$top" describe --always --dirty)," \
       "$libomp_id at the start," \
       "host load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# guest-tcg: numa-vm 2 nodes x 1024 MiB, 2 vCPUs, THP madvise, numa_balancing 0, ${mib} MiB, 2 threads spread/cores; EMULATED times"
  grep -m1 '^csv,where' "$raw" | cut -d, -f2-
  grep '^csv,' "$raw" | grep -v '^csv,where' | cut -d, -f2-
} > "$out/profile.csv"
grep '^prof,' "$raw" | cut -d, -f2- > "$out/profile-phases.csv"
/usr/bin/python3 "$top/bench/report.py" "$out/profile.csv" | tee "$out/profile-summary.txt"
