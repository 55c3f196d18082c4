#!/usr/bin/env bash
# run-lit.sh [lit options and test paths]: run Debian's lit and end with one
# plain summary line, "lit: N passed, N failed, N skipped", that CI reads.
set -uo pipefail
. "$(dirname "$0")/config.sh"
export NT_LLVM_MAJOR
lit=/usr/lib/llvm-$NT_LLVM_MAJOR/bin/lit
log=$(mktemp)
"$lit" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | awk '{s+=$1} END {print s+0}'; }
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Skipped) ))
# How many of the passed tests ran in the NUMA guest (their RUN lines use
# %numa-vm): the placement tests only mean something there.
guest=0
passed_tests() {  # "PASS: suite :: T (i of n)" (-v) or the "Passed Tests" list (-s)
  awk '/^PASS: / { sub(/ \([0-9]+ of [0-9]+\)$/, ""); sub(/^PASS: [^:]* :: /, ""); print; next }
       /^Passed Tests/ { inlist = 1; next }
       inlist && /^  [^ ].* :: / { sub(/^  [^:]* :: /, ""); print; next }
       inlist { inlist = 0 }' "$log" | sort -u
}
for t in $(passed_tests); do
  for f in "$(dirname "$0")/../openmp/runtime/test/$t" "$(dirname "$0")/../clang/test/$t"; do
    [ -f "$f" ] && grep -q '%numa-vm' "$f" && guest=$((guest + 1))
  done
done
rm -f "$log"
echo "run-lit: $guest of the passed tests ran in the NUMA guest"
echo "lit: $passed passed, $failed failed, $skipped skipped"
if [ "$rc" = 0 ] && [ "$passed" = 0 ]; then
  echo "run-lit: no test ran" >&2
  exit 1
fi
exit "$rc"
