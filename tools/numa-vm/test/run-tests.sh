#!/usr/bin/env bash
# Host-side tests of numa-vm itself: output and exit-status forwarding,
# signals, timeout, usage errors, env, --file, --nodes/--cpus/--numa-balancing,
# --kernel.
# Boots 5 guests, one at a time (about 45 s).  Usage: run-tests.sh [numa-vm]
set -u
here=$(cd "$(dirname "$0")" && pwd)
nv=${1:-$here/../numa-vm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() {  # check NAME CONDITION-RESULT(0/1) DETAILS
  if [ "$2" = 0 ]; then
    echo "PASS: $1"; pass=$((pass + 1))
  else
    echo "FAIL: $1: $3"; fail=$((fail + 1))
  fi
}

# 1. stdout and stderr merged, exact bytes (no CR added, no trailing newline
#    added), exit status forwarded.
"$nv" -- sh -c 'echo out; echo err >&2; printf "cr\r\nno-newline"; exit 3' \
  > "$tmp/out1" 2> "$tmp/err1"
rc=$?
printf 'out\nerr\ncr\r\nno-newline' > "$tmp/want1"
check "exit status 3 forwarded" $([ $rc = 3 ]; echo $?) "got $rc"
check "output bytes exact" $(cmp -s "$tmp/out1" "$tmp/want1"; echo $?) \
  "$(od -c "$tmp/out1" | head -5)"
check "nothing on stderr" $([ ! -s "$tmp/err1" ]; echo $?) "$(cat "$tmp/err1")"

# 2. Killed by a signal: 128+signo, like a shell.
"$nv" -- sh -c 'kill -TERM $$' > "$tmp/out2" 2>&1
rc=$?
check "SIGTERM gives 143" $([ $rc = 143 ]; echo $?) "got $rc: $(cat "$tmp/out2")"

# 3. Timeout: QEMU killed, exit 124, a message on stderr; output so far kept.
#    (--keep names the run's directory, which QEMU's command line contains.)
qemu_left() {  # qemu_left STDERR-FILE: is a QEMU of that run still running?
  local dir
  dir=$(sed -n 's/^numa-vm: kept //p' "$1")
  [ -n "$dir" ] || return 1
  pgrep -f "$dir/initramfs" > /dev/null && return 0
  rm -rf "$dir"
  return 1
}
start=$(date +%s)
"$nv" --keep --timeout 20 -- sh -c 'echo started; sleep 600' \
  > "$tmp/out3" 2> "$tmp/err3"
rc=$?
took=$(( $(date +%s) - start ))
check "timeout gives 124" $([ $rc = 124 ]; echo $?) "got $rc"
check "timeout message" $(grep -q 'timeout after 20 s' "$tmp/err3"; echo $?) \
  "$(cat "$tmp/err3")"
check "output before timeout kept" $(grep -qx started "$tmp/out3"; echo $?) \
  "$(cat "$tmp/out3")"
check "timeout after >= 20 s" $([ $took -ge 19 ]; echo $?) "took $took s"
check "no QEMU left after timeout" $(! qemu_left "$tmp/err3"; echo $?) "still running"

# 3b. numa-vm itself terminated: QEMU killed, exit 128+15.
"$nv" --keep -- sleep 600 > /dev/null 2> "$tmp/err3b" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM to numa-vm gives 143" $([ $rc = 143 ]; echo $?) "got $rc"
check "no QEMU left after SIGTERM" $(! qemu_left "$tmp/err3b"; echo $?) "still running"

# 4. env, --file, topology and numa_balancing as requested.
echo "data-file-contents" > "$tmp/data.txt"
"$nv" --nodes 3 --cpus 5 --mem 256 --numa-balancing 1 --file "$tmp/data.txt" -- \
  env FOO=bar sh -c 'echo "FOO=$FOO"; cat '"$tmp/data.txt"'
    cat /sys/devices/system/node/online /sys/devices/system/node/node*/cpulist
    cat /proc/sys/kernel/numa_balancing' > "$tmp/out4" 2>&1
rc=$?
printf 'FOO=bar\ndata-file-contents\n0-2\n0\n1-2\n3-4\n1\n' > "$tmp/want4"
check "env/--file/topology run exits 0" $([ $rc = 0 ]; echo $?) "got $rc"
check "env/--file/topology output" $(cmp -s "$tmp/out4" "$tmp/want4"; echo $?) \
  "$(diff "$tmp/want4" "$tmp/out4")"

# 5. Usage errors: 125 without booting.
"$nv" --nodes 2 --cpus 1 -- true 2> "$tmp/err5"
rc=$?
check "--cpus < --nodes gives 125" $([ $rc = 125 ]; echo $?) "got $rc"
"$nv" --nodes 2 --memless 2 -- true 2> "$tmp/err5b"
rc=$?
check "--memless >= --nodes gives 125" $([ $rc = 125 ]; echo $?) "got $rc"
"$nv" -- no-such-command-xyz 2> "$tmp/err6"
rc=$?
check "missing command gives 125" $([ $rc = 125 ]; echo $?) "got $rc"
check "missing command message" $(grep -q 'command not found' "$tmp/err6"; echo $?) \
  "$(cat "$tmp/err6")"
"$nv" --kernel 4.19 -- true 2> "$tmp/err7"
rc=$?
check "--kernel 4.19 gives 125" $([ $rc = 125 ]; echo $?) "got $rc"
check "--kernel message" $(grep -q "'4.19' is not one of 5.10, 6.1, 6.12" "$tmp/err7"; echo $?) \
  "$(cat "$tmp/err7")"

echo "numa-vm tests: $pass passed, $fail failed"
[ $fail = 0 ]
