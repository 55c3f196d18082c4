#!/usr/bin/env bash
# The benchmark suite in one command (make bench-suite; docs/Benchmarks.rst,
# "The suite in one command"): the four benchmarks of issue 11 in a reduced
# configuration, two guest boots in all, then a one-screen summary with the
# targets met or missed.
#
#   1. distribution (bench/run-bench.sh): native fault-path cost per page on
#      this host; in the guest, pairs of ours/oracle back to back in
#      alternating order (the ours/oracle figure: median, quartiles,
#      bootstrap CI) and every variant with the user-level reference;
#   2. placement accuracy (bench/apps/accuracy.sh), default window;
#   3. Jacobi and CG against no placement, numactl --interleave, ideal
#      initialisation and AutoNUMA, and the OMP_PROC_BIND x OMP_PLACES sweep
#      (bench/apps/solvers.sh);
#   4. readonly replicas, dense Jacobi (bench/apps/readonly.sh).
#
# Each script runs unchanged, with smaller sizes and fewer repetitions (below),
# against one copy of libomp. Their guests are merged by bench/suite-vm: every
# script runs once to record what it would run in its guests (nothing is
# run), then one 2-node/2-vCPU and one 4-node/4-vCPU guest run all of it,
# then every script runs again and gets its guests' output from the boots
# (and runs its native part and its report). AutoNUMA gets numa_balancing 1
# for its part of the 2-node boot only.
#
#   bench/suite.sh              reduced configuration (about 10 minutes)
#   FULL=1 bench/suite.sh       every script at its own defaults, one boot per
#                               part as in make bench, bench-accuracy,
#                               bench-solvers, bench-readonly (about 40 min),
#                               then the same summary
#   SUITE_OUT=dir               results (default bench/results/suite; with
#                               FULL=1 the scripts' own places)
#   SUITE_QEMU_NICE=N           run the guests with nice -n N
#   LIBOMP_DIR=dir              the libomp to copy (default the toolchain's)
#
# Writes SUITE_OUT/{dist,accuracy,solvers,readonly}/ (CSVs, tables, logs,
# plots), SUITE_OUT/summary.txt (also printed) and SUITE_OUT/times.txt. Exits
# non-zero if a benchmark fails (a run's verification, a guest); a missed
# target only shows in the summary.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
full=${FULL:-0}
work=$top/build/bench-suite
py=/usr/bin/python3
T0=$(date +%s)
elapsed() { local t; t=$(date +%s); echo $((t - T0)); }
step() { echo "== bench-suite [$(elapsed) s]: $*" >&2; }

[ -x "$top/build/bin/clang" ] || { echo "suite.sh: no build/bin/clang: run make first" >&2; exit 2; }
need=()
$py -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
command -v numactl >/dev/null || need+=(numactl)
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]} (Debian)"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${need[@]}" || exit 2
fi

mkdir -p "$work"
# One libomp for every part: a copy that a rebuild during the run leaves alone.
src_lib=$(readlink -f "${LIBOMP_DIR:+$LIBOMP_DIR/libomp.so}")
[ -n "$src_lib" ] || src_lib=$(readlink -f "$top/build/openmp/runtime/src/libomp.so")
mkdir -p "$work/lib"
cp "$src_lib" "$work/lib/libomp.so" || { echo "suite.sh: cannot copy $src_lib" >&2; exit 2; }
export LIBOMP_DIR=$work/lib

status=0
if [ "$full" = 1 ]; then
  out=${SUITE_OUT:-$top/bench/results/suite-full}
  mkdir -p "$out"
  step "FULL=1: every benchmark at its own defaults (about 40 minutes)"
  bash "$top/bench/run-bench.sh" || status=1
  bash "$top/bench/apps/accuracy.sh" || status=1
  bash "$top/bench/apps/solvers.sh" || status=1
  bash "$top/bench/apps/readonly.sh" || status=1
  echo "total wall time: $(elapsed) s (FULL=1)" >"$out/times.txt"
  $py "$top/bench/suite_summary.py" --times "$out/times.txt" \
    --dist "$top/bench/results/nexttouch_dist.csv" \
    --accuracy "$top/build/bench-apps/accuracy-table.txt" \
    --solvers "$top/bench/apps/results/solvers" \
    --readonly "$top/build/bench-apps/readonly/readonly-table.txt" |
    tee "$out/summary.txt"
  exit $status
fi

out=${SUITE_OUT:-$top/bench/results/suite}
mkdir -p "$out"/{dist,accuracy,solvers,readonly}
vm=$work/vm
rm -rf "$vm" "$work/record"
mkdir -p "$vm" "$work/record"
export NUMA_VM=$top/bench/suite-vm SUITE_VM_DIR=$vm

# The reduced configuration. Paths that end up in a guest's command are the
# same in both passes (accuracy's and readonly's OUT hold their binaries).
dist_env=(BENCH_MIB=128 BENCH_PAIRS=24 BENCH_REF_MIB=64 BENCH_REPS=3 BENCH_HOST_MIB=64)
acc_env=(MIB=64 WINDOWS=default OUT=$work/accuracy)
# CG needs at least one whole solve (about 35 iterations at 30 000 rows).
sol_env=(REPS=2 JACOBI_ARGS="510 40" CG_ARGS="30000 40" AUTONUMA_SECONDS=8
         AUTONUMA_REPS=1 JACOBI_SWEEP_ARGS="510 10" CG_SWEEP_ARGS="10000 40")
ro_env=(N=2048 ITERS=6 REPS=2 NODES="2 4" OUT=$work/readonly)

parts() { # pass: record or replay; the scripts in the order their guest parts run
  local pass=$1 rec=$work/record rc=0
  local d_out=$rec/dist s_out=$rec/solvers host=0
  [ "$pass" = replay ] && d_out=$out/dist s_out=$out/solvers host=1
  SUITE_PART=distribution env "${dist_env[@]}" BENCH_OUT="$d_out" BENCH_HOST=$host \
    bash "$top/bench/run-bench.sh" || rc=1
  SUITE_PART=accuracy env "${acc_env[@]}" bash "$top/bench/apps/accuracy.sh" || rc=1
  SUITE_PART=solvers env "${sol_env[@]}" OUT="$s_out" PLOTS="$s_out" \
    bash "$top/bench/apps/solvers.sh" || rc=1
  SUITE_PART=readonly env "${ro_env[@]}" HOST=$host bash "$top/bench/apps/readonly.sh" ||
    rc=1
  return $rc
}

step "1/4 building the benchmarks and noting what each runs in its guests"
# The scripts' reports fail here (there is no guest output yet): ignore.
SUITE_VM_MODE=record parts record >"$work/record.log" 2>&1
if ! [ -s "$vm/requests.jsonl" ]; then
  echo "suite.sh: no guest requests recorded; see $work/record.log" >&2
  exit 2
fi
step "    $(wc -l <"$vm/requests.jsonl") guest parts"

step "2/4 the guests (2 nodes/2 vCPUs, then 4 nodes/4 vCPUs); emulated, a few minutes"
"$NUMA_VM" boot || status=1

step "3/4 native parts and the reports of each benchmark"
SUITE_VM_MODE=replay parts replay >"$work/replay.log" 2>&1 || {
  status=1
  echo "suite.sh: a benchmark failed; see $work/replay.log" >&2
  grep -iE 'fail|error' "$work/replay.log" | head -20 >&2
}
cp "$work/accuracy/accuracy-table.txt" "$out/accuracy/" 2>/dev/null
cp "$work"/accuracy/logs/accuracy-*n.log "$out/accuracy/" 2>/dev/null
cp "$work"/readonly/readonly{.csv,-table.txt} "$out/readonly/" 2>/dev/null
cp "$work"/readonly/logs/readonly-*.log "$out/readonly/" 2>/dev/null
cp "$work/replay.log" "$out/suite-run.log"
{
  echo "started $(date -u -d @"$T0" +%Y-%m-%dT%H:%M:%SZ), host load at start recorded in each CSV"
  cat "$vm/times.txt"
  echo "total wall time: $(elapsed) s"
} >"$out/times.txt"

step "4/4 summary"
$py "$top/bench/suite_summary.py" --times "$out/times.txt" \
  --dist "$out/dist/nexttouch_dist.csv" --accuracy "$out/accuracy/accuracy-table.txt" \
  --solvers "$out/solvers" --readonly "$out/readonly/readonly-table.txt" |
  tee "$out/summary.txt"
[ $status = 0 ] || echo "bench-suite: FAILED (see above)"
exit $status
