# Shared by the benchmark drivers (bench/*.sh); sourced, not run.
#
# A driver is one benchmark family. It defines
#   build           compile its programs into $DIR/bin with build/bin/clang
#   parts           write the scripts it runs in guests: $DIR/parts/NAME.sh,
#                   listed in $DIR/parts/<N>n.list in the order they run
#   report          run its native part (if any), then bench/report.py on
#                   the logs; exit status non-zero if a run failed
# and ends with `driver_main "$@"`, which gives it these commands:
#   DRIVER.sh            build, parts, one guest per node count, report
#                        ($DIR = build/bench/<family>, made afresh)
#   DRIVER.sh parts DIR  build and parts into DIR (bench/suite.sh)
#   DRIVER.sh report DIR report from DIR's logs (bench/suite.sh)
#
# $DIR holds: config.txt (the machine, the libomp, each family's
# parameters), bin/ and lib/ (the programs and one copy of libomp, which a
# rebuild during the run leaves alone), parts/, logs/ (tools/guest-run's:
# NAME.log, NAME.rc, times.txt, boot-<N>n.log; native runs' logs too) and
# one directory per family for its report (CSVs, tables, plots).
#
# Every driver's guests (tools/guest-run): GUEST_MEM=1024 MiB per node,
# THP=madvise (transparent_hugepage=), GUEST_PLAIN=1 boots them without
# norandmaps and tsc=reliable (what these take out of the emulated times).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLANG=${CC_NT:-$TOP/build/bin/clang}
PY=/usr/bin/python3   # Debian's (its matplotlib), not a python3 earlier in PATH
REPORT=$TOP/bench/report.py
GUEST_RUN=$TOP/tools/guest-run
OMP_SPREAD="OMP_PROC_BIND=spread OMP_PLACES=cores"

say() { echo "== ${FAMILY:-bench}: $*" >&2; }
die() { echo "${FAMILY:-bench}: $*" >&2; exit 2; }

# Debian packages the drivers need: matplotlib for the plots, numactl for
# the solvers' interleave variant.
need_packages() {
  local need=()
  $PY -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
  command -v numactl >/dev/null || need+=(numactl)
  [ ${#need[@]} -eq 0 ] && return
  say "installing ${need[*]} (Debian)"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${need[@]}"
}

# setup_dir DIR: the run's directory, its copy of libomp (LIBOMP_DIR or the
# toolchain's) and config.txt; kept if bench/suite.sh made it already.
setup_dir() {
  DIR=$1
  [ -x "$CLANG" ] || die "no $CLANG: run make first"
  [ -f "$DIR/config.txt" ] && return
  mkdir -p "$DIR"/{bin,lib,parts,logs}
  local src
  src=$(readlink -f "${LIBOMP_DIR:-$TOP/build/openmp/runtime/src}/libomp.so")
  cp "$src" "$DIR/lib/libomp.so" || die "cannot copy $src"
  local dirty=clean
  git -C "$TOP" status --porcelain -- openmp clang llvm patches bench 2>/dev/null |
    grep -q . && dirty=modified
  {
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo -) worktree=$dirty"
    echo "libomp=$src sha1=$(sha1sum "$DIR/lib/libomp.so" | cut -c1-12)" \
         "built=$(date -u -r "$src" +%Y-%m-%dT%H:%MZ)"
    echo "compiler=$("$CLANG" --version | head -1)"
    echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "host=$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB," \
         "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l) NUMA node(s), kernel $(uname -r)," \
         "THP $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)"
    echo "host_load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -1)"
    echo "guest=N nodes x ${GUEST_MEM:-1024} MiB, N vCPUs (one per node), QEMU/TCG," \
         "transparent_hugepage=${THP:-madvise}, numa_balancing 0 (1 for AutoNUMA only)," \
         "$([ "${GUEST_PLAIN:-0}" = 1 ] && echo "address-space randomisation, HPET clock (GUEST_PLAIN=1)" ||
            echo "norandmaps, tsc=reliable")"
  } >"$DIR/config.txt"
}

# compile OUT SRC [FLAGS...]: one program against the run's libomp.
compile() {
  local out=$1 src=$2
  shift 2
  "$CLANG" -fopenmp -O2 -Wall -Wextra "$@" "$src" -L"$DIR/lib" -Wl,-rpath,"$DIR/lib" \
    -lnuma -lm -o "$DIR/bin/$out" || die "building $src failed"
  local libs
  libs=$(ldd "$DIR/bin/$out")
  [[ $libs == *"=> $DIR/lib/libomp.so "* ]] || die "$out does not use $DIR/lib/libomp.so"
}

# param NAME=VALUE...: the family's parameters, for the report and the page.
param() { echo "${FAMILY}_params=$*" >>"$DIR/config.txt"; }

# part NAME NODES: a guest part; its script is the standard input.
part() {
  cat >"$DIR/parts/$1.sh"
  [ -f "$DIR/parts/$2n.list" ] || echo "$2" >>"$DIR/parts/boots"
  echo "$DIR/parts/$1.sh" >>"$DIR/parts/$2n.list"
}

# guests: one guest per node count that has parts, in the order of their
# first part; returns 1 if a part or a guest failed.
guests() {
  local rc=0 n
  [ -f "$DIR/parts/boots" ] || return 0
  for n in $(cat "$DIR/parts/boots"); do
    local files=(--file "$DIR/bin" --file "$DIR/lib")
    [ -f "$DIR/parts/files" ] && while read -r f; do files+=(--file "$f"); done <"$DIR/parts/files"
    "$GUEST_RUN" --nodes "$n" --mem "${GUEST_MEM:-1024}" --thp "${THP:-madvise}" \
      $([ "${GUEST_PLAIN:-0}" = 1 ] && echo --plain) \
      "${files[@]}" --out "$DIR/logs" $(cat "$DIR/parts/${n}n.list") || rc=1
  done
  return $rc
}

driver_main() {
  case ${1:-run} in
  run)
    need_packages
    local d=$TOP/build/bench/$FAMILY
    rm -rf "$d"
    setup_dir "$d"
    build
    parts
    local rc=0
    guests || rc=1
    report || rc=1
    [ $rc = 0 ] && say "all runs verified; results in $DIR/$FAMILY" ||
      say "FAILED (see above)"
    return $rc
    ;;
  parts) setup_dir "$2" && build && parts ;;
  report) setup_dir "$2" && report ;;
  *) die "usage: $0 [run | parts DIR | report DIR]" ;;
  esac
}
