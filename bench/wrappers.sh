#!/usr/bin/env bash
# The C library wrappers' cost per call (docs/Benchmarks.rst, "The C library
# wrappers"): bench/wrapper_cost.c linked against our libomp and against
# Debian's stock libomp of the same release (libomp-22-dev), run natively in
# alternation ROUNDS times on CPU 0 (taskset: a process's figures otherwise
# differ by up to a third with the CPU it lands on); each figure is the best
# per-call time over all runs. Targets: write and read idle (no engine
# used) at most 1.02 times the stock libomp's, in use (pages armed, an item
# cached) at most 1.2 times.
#
#   bench/wrappers.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   CALLS=200000 REPS=7 ROUNDS=5 (defaults)
#
# No guest part: the wrappers' cost is the host's. Results (report):
# $DIR/wrappers/wrappers.csv (call, state, ours_ns, stock_ns, ratio) and
# wrappers-summary.txt (printed).
FAMILY=wrappers
. "$(dirname "$0")/lib.sh"
calls=${CALLS:-200000}
reps=${REPS:-7}
rounds=${ROUNDS:-5}
# Debian's libomp of the release our clang is (libomp-N-dev, installed by
# scripts/install-deps.sh).
stock_dir=/usr/lib/llvm-$("$CLANG" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)/lib

build() {
  [ -e "$stock_dir/libomp.so" ] || die "no stock libomp in $stock_dir"
  compile wrapper_cost-ours "$TOP/bench/wrapper_cost.c" -ldl
  # The same source against Debian's libomp: its own object, linked with
  # that library first (RPATH to it).
  "$CLANG" -fopenmp -O2 -fno-rtlib-add-rpath "$TOP/bench/wrapper_cost.c" \
    -L"$stock_dir" -Wl,-rpath,"$stock_dir" -ldl -o "$DIR/bin/wrapper_cost-stock" ||
    die "building the stock variant failed"
  ldd "$DIR/bin/wrapper_cost-stock" | grep -q "$stock_dir/libomp.so\|x86_64-linux-gnu/libomp.so.5" ||
    die "wrapper_cost-stock does not use $stock_dir/libomp.so"
}

parts() {
  param "$calls calls, best of $reps runs, $rounds rounds of ours and stock in alternation (native only)"
}

native() {
  local log=$DIR/logs/wrappers-host.log r
  : >"$log"
  for r in $(seq "$rounds"); do
    for v in ours stock; do
      echo "WRAP_RUN $v" >>"$log"
      taskset -c 0 env KMP_BLOCKTIME=0 OMP_NUM_THREADS=2 KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 \
        "$DIR/bin/wrapper_cost-$v" "$calls" "$reps" >>"$log" 2>&1
    done
  done
}

report() {
  native
  $PY "$REPORT" wrappers "$DIR"
}

driver_main "$@"
