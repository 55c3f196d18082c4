#!/usr/bin/env bash
# Next-touch at the scale of programs with many allocations
# (docs/Benchmarks.rst, "Many ranges"): bench/arm_ranges.c with RANGES
# ranges of PAGES pages each (LO-HI: sizes drawn at random between the two,
# the same in every run), about a million pages, requested by one directive
# call and by one API call per range, armed at one fork and touched by a
# static loop, REPS times, in one 2-node guest with GUEST_MEM MiB per node
# (the pages and the program must fit), vm.max_map_count raised for the run
# in the guest (each armed range and each gap is a mapping).
#
#   bench/scale.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   RANGES=100000 PAGES=1-19 REPS=1 GUEST_MEM=3072    (defaults)
#
# Results (report): $DIR/scale/scale.txt (printed): per way of requesting,
# the pages armed and placed on their toucher's node (target >= 99 %), the
# request per range and the arming against one mprotect per range (both
# emulated).  Fails if a run fails its check.
FAMILY=scale
GUEST_MEM=${GUEST_MEM:-3072}
export GUEST_MEM
. "$(dirname "$0")/lib.sh"
ranges=${RANGES:-100000}
pages=${PAGES:-1-19}
reps=${REPS:-1}

build() { compile arm_ranges "$TOP/bench/arm_ranges.c"; }

parts() {
  param "$ranges ranges of $pages pages, $reps repetitions, $GUEST_MEM MiB per node"
  {
    echo "export OMP_NUM_THREADS=2 $OMP_SPREAD BENCH_WHERE=guest-tcg AR_RAISE_MAP_COUNT=1"
    echo "$DIR/bin/arm_ranges $ranges $reps $pages || echo SCALE_FAIL rc=\$?"
  } | part scale-2n 2
}

report() { $PY "$REPORT" scale "$DIR"; }

driver_main "$@"
