#!/usr/bin/env bash
# readonly(list) after Lankes et al., ROSS'12 (make bench-readonly;
# docs/Benchmarks.rst): the dense Jacobi solver bench/apps/jacobi_dense.c in
# five variants (seq: serial init; nexttouch; oracle: batched move_pages of
# every page to its reader's node; readonly: node-local replicas of A and b;
# ideal: parallel init), every variant once per repetition, REPS
# repetitions, in one guest per node count, one thread per vCPU; and
# readonly and ideal natively on the host (one node, KMP_READONLY_FORCE=true:
# what making a replica and a region with readonly items cost in real time).
# Then, in each guest and natively, bench/region_cost.c: the cost per region
# of ITEMS cached, unchanged items (RC_REGIONS regions per block, RC_BLOCKS
# blocks, readonly and plain alternating).
#
#   bench/readonly.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   NODES="4 2" REPS=3 N=8192 ITERS=10    (defaults; N rows of A: 8192 is
#                                          512 MiB, half a guest node)
#   BUDGET=3G      KMP_READONLY_BUDGET (the default, a quarter of the guest's
#                  memory, does not hold 3 replicas of a 512 MiB matrix)
#   HOST=0         no native run
#   CLAUSE=0       the readonly variant through the kmp_readonly_* API
#                  instead of the readonly(list) clause
#   ITEMS="1 16 256" RC_REGIONS=20 RC_BLOCKS=8     (defaults; native: 10 times
#                  the regions)
#
# Results (report): $DIR/readonly/readonly.csv (one row per process) and
# readonly-table.txt (medians per node count and variant, ratios to ideal in
# the same boot; printed). Fails if a run fails its verification, does not
# report, or the variants' solutions differ.
FAMILY=readonly
. "$(dirname "$0")/lib.sh"
nodes_list=${NODES:-4 2}
reps=${REPS:-3}
n=${N:-8192}
iters=${ITERS:-10}
budget=${BUDGET:-3G}
host=${HOST:-1}
items=${ITEMS:-1 16 256}
rc_regions=${RC_REGIONS:-20}
rc_blocks=${RC_BLOCKS:-8}

# A clang without the clause would ignore it with -Wextra-tokens: an error.
build() {
  local flags=()
  [ "${CLAUSE:-1}" = 1 ] && flags=(-DUSE_READONLY_CLAUSE -Werror=extra-tokens)
  compile jacobi_dense "$TOP/bench/apps/jacobi_dense.c" "${flags[@]}"
  compile region_cost "$TOP/bench/region_cost.c"
}

# region_cost THREADS REGIONS: the per-region cost of cached items.
region_cost() {
  echo "echo RC_BEGIN; $DIR/bin/region_cost $1 $(echo $items | tr ' ' ,) $2 $rc_blocks;" \
    "echo RC_EXIT rc=\$?"
}

# runs THREADS VARIANTS...: every variant once, REPS times over, in the
# given order in odd repetitions and in reverse in even ones.
runs() {
  local threads=$1 r v fwd rev=""
  shift
  fwd="$*"
  for v in "$@"; do rev="$v $rev"; done
  echo "export OMP_NUM_THREADS=$threads $OMP_SPREAD KMP_READONLY_BUDGET=$budget"
  for r in $(seq 1 "$reps"); do
    local order=$fwd
    [ $((r % 2)) = 0 ] && order=$rev
    for v in $order; do
      echo "echo RO_RUN variant=$v rep=$r"
      echo "$DIR/bin/jacobi_dense --variant $v $n $iters"
      echo "echo RO_EXIT variant=$v rep=$r rc=\$?"
    done
  done
}

parts() {
  local nodes
  param "n=$n ($((n * n * 8 >> 20)) MiB), $iters iterations, $reps repetitions," \
    "budget $budget, clause=${CLAUSE:-1}$([ "$host" = 1 ] && echo ", native too");" \
    "per-region cost: items ${items// /,}, $rc_blocks blocks of $rc_regions regions" \
    "(native $((10 * rc_regions)))"
  for nodes in $nodes_list; do
    { echo "echo RO_BENCH where=guest nodes=$nodes cpus=$nodes"
      runs "$nodes" seq nexttouch oracle readonly ideal
      echo "export BENCH_WHERE=guest"
      region_cost "$nodes" "$rc_regions"; } | part "readonly-${nodes}n" "$nodes"
  done
}

native() {
  say "host (1 node, KMP_READONLY_FORCE=true)"
  {
    echo "RO_BENCH where=host nodes=1 cpus=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)" \
      "kernel=$(uname -r)"
    KMP_READONLY_FORCE=true sh -c "$(runs 2 readonly ideal)"
    KMP_READONLY_FORCE=true BENCH_WHERE=host sh -c "$(region_cost 2 $((10 * rc_regions)))"
  } >"$DIR/logs/readonly-host.log" 2>&1
}

report() {
  rm -f "$DIR/logs/readonly-host.log"
  if [ "$host" = 1 ]; then native; fi
  $PY "$REPORT" readonly "$DIR"
}

driver_main "$@"
