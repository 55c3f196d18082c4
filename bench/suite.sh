#!/usr/bin/env bash
# The benchmark suite in one command (make bench-suite; docs/Benchmarks.rst):
# distribution, placement accuracy, Jacobi/CG against the alternatives (the
# move_pages oracle among them) with the OMP_PROC_BIND x OMP_PLACES sweep,
# readonly, the cost curves and the C library wrappers' cost, against one copy of
# libomp, with every family's guest parts in two guests (2 nodes/2 vCPUs,
# then 4 nodes/4 vCPUs); then each family's native part and report, the
# summary of the targets (met or missed) and the results of
# docs/Benchmarks.rst.
#
#   bench/suite.sh           reduced sizes (below), about 11 minutes
#   FULL=1 bench/suite.sh    every family at its own defaults (about 40 min)
#
#   SUITE_FAMILIES="dist:dist sol:solvers"   only these families (default all)
#   SUITE_DIR=dir SUITE_PAGE=0   logs and reports in dir, and neither
#                bench/results/ nor the page written (bench/kernels.sh)
#   NUMA_VM_KERNEL_VERSION=6.12  the guests' kernel (tools/numa-vm --kernel)
#
# Raw logs and every report: build/bench/suite/. The summary is printed; if
# every run passed, the files the page shows (CSVs, plots, the summary) are
# written afresh to bench/results/, and the page's results section is
# generated from the run.
# Exits non-zero if a run fails (its verification, a guest); a missed
# target only shows in the summary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${SUITE_DIR:-$top/build/bench/suite}
full=${FULL:-0}
families=${SUITE_FAMILIES:-dist:dist acc:accuracy sol:solvers ro:readonly cur:curves wrap:wrappers}
T0=$(date +%s)
step() { echo "== bench-suite [$(($(date +%s) - T0)) s]: $*" >&2; }

# The reduced sizes keep each figure's meaning: the same variants, patterns
# and bindings, every run verified, ratios within one guest. The solvers keep
# their full problem sizes (nexttouch's start-up and arming cost about the
# same at any size: on smaller arrays they would be most of what is
# measured) with fewer iterations; CG needs at least one whole solve (about
# 35 iterations at 30 000 rows). readonly makes 8 repetitions of small
# processes: one process's steady iteration in the guest varies by about
# ±30 % from process to process, whatever its placement. The RFC's 512 MiB
# configuration runs ours and the oracle; its reference (a minute) is FULL's.
dist_env=(BENCH_MIB=128 BENCH_PAIRS=16 BENCH_REF_MIB=32 BENCH_REPS=3 BENCH_HOST_MIB=64
          BENCH_SEED_PAIRS=2 BENCH_SEED_REPS=0)
acc_env=(MIB=64 WINDOWS=default)
sol_env=(REPS=5 JACOBI_ARGS="1022 20" CG_ARGS="100000 40" AUTONUMA_SECONDS=8
         REPS_4N=2 JACOBI_4N_ARGS="1022 10"
         AUTONUMA_REPS=1 JACOBI_SWEEP_ARGS="510 10" CG_SWEEP_ARGS="10000 40")
ro_env=(N=2048 ITERS=8 REPS=8 NODES="2 4" RC_REGIONS=10 RC_BLOCKS=6)
cur_env=(SIZES="16 32 64 128" REF_SIZES="16 32 64" REPS=2 RANGES="1 10 100 1000 10000 100000"
         GUEST_RANGES="1 10 100 1000" THREADS="1 2 4 8" RC_REGIONS=10 RC_BLOCKS=6)
wrap_env=()
if [ "$full" = 1 ]; then dist_env=() acc_env=() sol_env=() ro_env=() cur_env=(); fi

# family NAME COMMAND DIR: one driver's step with its environment.
family() {
  local -n e=${1}_env
  env "${e[@]}" bash "$top/bench/$2.sh" "$3" "$dir"
}

rm -rf "$dir"
. "$top/bench/lib.sh"
need_packages
setup_dir "$dir"
echo "suite=$([ "$full" = 1 ] && echo full || echo reduced)" >>"$dir/config.txt"

step "1/4 building the benchmarks and writing their guest parts"
for f in $families; do
  family "${f%%:*}" "${f#*:}" parts
done

step "2/4 the guests (2 nodes/2 vCPUs, then 4 nodes/4 vCPUs); emulated, a few minutes"
status=0
guests || status=1

step "3/4 native parts and the reports of each family"
for f in $families; do
  family "${f%%:*}" "${f#*:}" report >"$dir/logs/report-${f#*:}.log" 2>&1 || {
    status=1
    echo "bench-suite: ${f#*:} failed; see $dir/logs/report-${f#*:}.log" >&2
  }
done
echo "total wall time: $(($(date +%s) - T0)) s" >>"$dir/logs/times.txt"

step "4/4 summary; bench/results/ and docs/Benchmarks.rst"
$PY "$REPORT" summary "$dir"
if [ "${SUITE_PAGE:-1}" = 0 ]; then
  exit $status
elif [ $status = 0 ]; then
  $PY "$REPORT" page "$dir" || status=1
else
  echo "bench-suite: FAILED (see above); bench/results/ and the page left as they were"
fi
exit $status
