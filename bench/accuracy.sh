#!/usr/bin/env bash
# Placement accuracy per access pattern (make bench-accuracy;
# docs/Benchmarks.rst): bench/apps/accuracy.c requests a fresh 64 MiB array
# per pattern with one '#pragma omp nexttouch', touches it with one parallel
# loop (block, cyclic 1/2/3/64/100 pages, dynamic 1 page, irregular) and
# counts the pages on their first toucher's node. One guest per node count,
# each window (default: adaptive; exact: KMP_NEXTTOUCH_WINDOW=1) in the same
# boot, one thread per vCPU.
#
#   bench/accuracy.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   NODES="2 4" MIB=64 WINDOWS="default exact"    (defaults)
#   PATTERNS=block,cyclic1   some patterns only
#   MAP=128                  NT_ACC_MAP lines for the first MAP pages (0: none)
#   THP=madvise              the guest's THP mode (the array is
#                            MADV_NOHUGEPAGE anyway)
#
# Results (report): $DIR/accuracy/accuracy.csv and accuracy-table.txt
# (printed). Fails if a guest or a pattern's data check fails; a missed
# target only shows in the table.
FAMILY=accuracy
. "$(dirname "$0")/lib.sh"
nodes_list=${NODES:-2 4}
mib=${MIB:-64}
windows=${WINDOWS:-default exact}
map=${MAP:-128}
patterns=${PATTERNS:-}

build() { compile accuracy "$TOP/bench/apps/accuracy.c"; }

parts() {
  local args="--mib $mib --map $map${patterns:+ --patterns $patterns}" n w
  param "$mib MiB per pattern, windows: $windows"
  for w in $windows; do
    case $w in default | exact) ;; *) die "unknown window '$w'" ;; esac
  done
  for n in $nodes_list; do
    {
      echo "export OMP_NUM_THREADS=$n $OMP_SPREAD"
      for w in $windows; do
        case $w in
        default) echo "$DIR/bin/accuracy $args; echo NT_EXIT window=default rc=\$?" ;;
        exact) echo "KMP_NEXTTOUCH_WINDOW=1 $DIR/bin/accuracy $args; echo NT_EXIT window=exact rc=\$?" ;;
        esac
      done
    } | part "accuracy-${n}n" "$n"
  done
}

report() { $PY "$REPORT" accuracy "$DIR"; }

driver_main "$@"
