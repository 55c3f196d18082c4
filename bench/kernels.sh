#!/usr/bin/env bash
# The suite's headline figures per guest kernel (make bench-kernels;
# docs/Benchmarks.rst, "Kernels"): for each kernel of KERNELS, bench/suite.sh
# with the families that give them (distribution, with pairs of the two
# next-touch mechanisms; Jacobi/CG against the oracle; readonly), at the
# suite's reduced sizes, in guests that boot that kernel (tools/numa-vm
# --kernel); then one table, a column per kernel (bench/report_kernels.py).
#
#   bench/kernels.sh           KERNELS="5.10 6.1 6.12" (default), about 8
#                              minutes per kernel
#   PAGE=1 bench/kernels.sh    also bench/results/kernels.csv and the page's
#                              generated "Kernels" table (only if every run
#                              passed)
#
# Runs: build/bench/kernels/<kernel>/ (logs, reports, summary.txt).
# Exits non-zero if a run fails (a verification, a guest).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=$top/build/bench/kernels
kernels=${KERNELS:-5.10 6.1 6.12}
rm -rf "$root"
mkdir -p "$root"
status=0
for k in $kernels; do
  echo "== bench-kernels: Linux $k" >&2
  NUMA_VM_KERNEL_VERSION=$k SUITE_DIR=$root/$k SUITE_PAGE=0 \
    SUITE_FAMILIES="dist:dist sol:solvers ro:readonly" PARTS=main \
    BENCH_SEED=0 BENCH_HOST=0 HOST=0 BENCH_MECH_PAIRS=${MECH_PAIRS:-8} \
    bash "$top/bench/suite.sh" >"$root/$k.log" 2>&1 || {
    status=1
    echo "bench-kernels: Linux $k failed; see $root/$k.log" >&2
  }
done
python3 "$top/bench/report_kernels.py" "$root" $([ "${PAGE:-0}" = 1 ] && [ $status = 0 ] && echo --page)
exit $status
