#!/usr/bin/env bash
# run-lit.sh [lit options and test paths]: run Debian's lit and end with one
# plain summary line, "lit: N passed, N failed, N skipped", that CI reads.
set -uo pipefail
lit=/usr/lib/llvm-19/build/utils/lit/lit.py
log=$(mktemp)
python3 "$lit" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | awk '{s+=$1} END {print s+0}'; }
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Skipped) ))
rm -f "$log"
echo "lit: $passed passed, $failed failed, $skipped skipped"
if [ "$rc" = 0 ] && [ "$passed" = 0 ]; then
  echo "run-lit: no test ran" >&2
  exit 1
fi
exit "$rc"
