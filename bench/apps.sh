#!/usr/bin/env bash
# The application benchmarks (make bench-apps; docs/Benchmarks.rst): STREAM,
# Jacobi, NAS-CG-shaped CG, a LULESH-shaped mesh proxy, the batch-window
# kernel and a block-structured mesh of 3,072 allocations (bench/apps/),
# each initialised by one thread, with one '#pragma omp nexttouch' before
# the computation and without it (--baseline), both in the same guest; the
# block mesh with its variants instead (nexttouch, the move_pages oracle,
# the user-level reference of 2008, none), twice each in alternating order;
# one guest per node count, one thread per vCPU.
#
#   bench/apps.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   NODES="2 4" PROGS="stream jacobi cg mesh batchwin blocks"    (defaults)
#   THP=madvise     the guest's THP mode (madvise: 4 KiB pages, so that
#                   faults/page shows the batch window)
#
# Results (report): $DIR/apps/apps-table.txt (printed): per program, node
# count and variant the pages handled, the split over the nodes, the pages
# on their thread's node, faults per page and time / baseline in the same
# guest (emulated: TCG has no NUMA latency, so it shows only the cost).
# Fails if a program fails its verification or does not report.
FAMILY=apps
. "$(dirname "$0")/lib.sh"
nodes_list=${NODES:-2 4}
progs=${PROGS:-stream jacobi cg mesh batchwin blocks}

build() {
  local p
  for p in $progs; do compile "$p" "$TOP/bench/apps/$p.c"; done
}

parts() {
  local nodes p v
  param "programs: $progs"
  for nodes in $nodes_list; do
    for p in $progs; do
      {
        echo "export OMP_NUM_THREADS=$nodes $OMP_SPREAD"
        # (A subshell: the variants are chosen here, not skipped with
        # `continue`, which would not reach the loop over the programs.)
        if [ "$p" = blocks ]; then
          for v in nexttouch oracle reference none oracle nexttouch none reference; do
            echo "$DIR/bin/blocks --variant=$v; echo NT_EXIT prog=blocks variant=$v rc=\$?"
          done
        else
          for v in nexttouch baseline; do
            [ "$p" = batchwin ] && [ $v = baseline ] && continue
            echo "$DIR/bin/$p $([ $v = baseline ] && echo --baseline); echo NT_EXIT prog=$p variant=$v rc=\$?"
          done
        fi
      } | part "apps-$p-${nodes}n" "$nodes"
    done
  done
}

report() { $PY "$REPORT" apps "$DIR"; }

driver_main "$@"
