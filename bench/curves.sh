#!/usr/bin/env bash
# Cost curves (docs/Benchmarks.rst, "Cost curves"): how the costs grow.
#
#   size     the distribution benchmark (bench/nexttouch_dist.c: ours with
#            the default settings and the move_pages oracle, in pairs of
#            alternating order; bench/reference_nexttouch.c, the user-level
#            scheme of 2008, at each of REF_SIZES) at each of SIZES MiB,
#            REPS times, one 2-node guest, 2 threads (emulated);
#   ranges   bench/arm_ranges.c: N disjoint one-page ranges requested (one
#            directive call with N ranges, and N API calls), armed at one
#            fork and touched, for each N of RANGES, REPS times: natively
#            (KMP_NEXTTOUCH_FORCE=1, real microseconds; vm.max_map_count
#            raised for the run where the largest N needs it and this user
#            may) and, for each N of GUEST_RANGES, in the 2-node guest;
#   threads  bench/region_cost.c: the per-region cost of readonly with
#            RC_ITEMS cached, unchanged items against the number of threads:
#            natively (THREADS; the host has 2 cores: more threads share
#            them) and in the 2- and 4-node guests (1 .. nodes threads);
#   items    the same against the number of cached, unchanged items
#            (RC_ITEM_COUNTS, of 1 page each), natively with 2 threads.
#
#   bench/curves.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   SIZES="16 32 64 128 256 512" REF_SIZES=$SIZES REPS=3
#   RANGES="1 10 100 1000 10000 100000"
#   GUEST_RANGES="1 10 100 1000 10000" THREADS="1 2 4 8" RC_ITEMS=16
#   RC_REGIONS=20 RC_BLOCKS=8 RC_ITEM_COUNTS="16 256 1000 10000"
#             (defaults)
#   HOST=0    no native part
#
# The largest size is what a guest node holds (1 GiB per node: the array
# starts on node 0). Results (report): $DIR/curves/curves-{size,ranges,
# threads}.csv, curves-summary.txt (printed: one line per curve, how it
# grows) and curves.png.
FAMILY=curves
. "$(dirname "$0")/lib.sh"
sizes=${SIZES:-16 32 64 128 256 512}
ref_sizes=${REF_SIZES:-$sizes}
reps=${REPS:-3}
ranges=${RANGES:-1 10 100 1000 10000 100000}
guest_ranges=${GUEST_RANGES:-1 10 100 1000 10000}
threads=${THREADS:-1 2 4 8}
rc_items=${RC_ITEMS:-16}
rc_regions=${RC_REGIONS:-20}
rc_blocks=${RC_BLOCKS:-8}
rc_item_counts=${RC_ITEM_COUNTS:-16 256 1000 10000}
host=${HOST:-1}

build() {
  compile nexttouch_dist "$TOP/bench/nexttouch_dist.c"
  compile reference_nexttouch "$TOP/bench/reference_nexttouch.c"
  compile arm_ranges "$TOP/bench/arm_ranges.c"
  compile region_cost "$TOP/bench/region_cost.c"
}

# region_cost THREADS REGIONS: one run, between markers.
region() {
  echo "echo RC_BEGIN; $DIR/bin/region_cost $1 $rc_items $2 $rc_blocks; echo RC_EXIT rc=\$?"
}

parts() {
  local m n
  param "sizes ${sizes// /,} MiB (reference ${ref_sizes// /,}), $reps repetitions;" \
    "ranges ${ranges// /,} (guest" \
    "${guest_ranges// /,}); per-region cost" \
    "with $rc_items items, $rc_blocks blocks of $rc_regions regions (native: 10 times)," \
    "threads ${threads// /,} native$([ "$host" = 1 ] || echo " (not run)"), 1..nodes in the guests"
  {
    echo "export OMP_NUM_THREADS=2 $OMP_SPREAD BENCH_WHERE=guest-tcg"
    for m in $sizes; do
      echo "echo CURVE_SIZE mib=$m"
      echo "$DIR/bin/nexttouch_dist $m $reps ours-default,oracle || echo CURVE_FAIL size=$m"
      case " $ref_sizes " in
      *" $m "*) echo "$DIR/bin/reference_nexttouch $m $reps || echo CURVE_FAIL reference=$m" ;;
      esac
    done
    echo "echo CURVE_RANGES; $DIR/bin/arm_ranges $(echo $guest_ranges | tr ' ' ,) $reps ||" \
      "echo CURVE_FAIL ranges"
    region 1,2 "$rc_regions"
  } | part curves-2n 2
  { echo "export OMP_NUM_THREADS=4 $OMP_SPREAD BENCH_WHERE=guest-tcg"
    region 1,2,4 "$rc_regions"; } | part curves-4n 4
}

native() {
  local log=$DIR/logs/curves-host.log
  say "native on this host: ranges ${ranges// /,}, per-region cost against threads ${threads// /,} and items ${rc_item_counts// /,}"
  {
    echo "CURVE_HOST load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /) cpus=$(nproc)"
    OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores BENCH_WHERE=host \
      KMP_NEXTTOUCH_FORCE=1 AR_RAISE_MAP_COUNT=1 "$DIR/bin/arm_ranges" "$(echo $ranges | tr ' ' ,)" "$reps" ||
      echo "CURVE_FAIL ranges"
    KMP_READONLY_FORCE=true BENCH_WHERE=host OMP_PROC_BIND=false \
      sh -c "$(region "$(echo $threads | tr ' ' ,)" $((10 * rc_regions)))"
    echo "echo RC_BEGIN; $DIR/bin/region_cost 2 $(echo $rc_item_counts | tr ' ' ,)" \
      "$rc_regions $rc_blocks 1; echo RC_EXIT rc=\$?" |
      KMP_READONLY_FORCE=true BENCH_WHERE=host-items OMP_PROC_BIND=false sh
  } >"$log" 2>&1
}

report() {
  rm -f "$DIR/logs/curves-host.log"
  if [ "$host" = 1 ]; then native; fi
  $PY "$REPORT" curves "$DIR"
}

driver_main "$@"
