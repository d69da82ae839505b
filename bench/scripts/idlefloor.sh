#!/bin/bash
# How much SCHED_IDLE background work that is not Weir's costs a one-thread
# reader's latency on this machine: the floor under the priority study's
# HIGH p99 ratio (docs/performance.md, "What idle work alone costs HIGH on
# this box").
#
#   bench/scripts/idlefloor.sh [BINARY] [ROUNDS]
#
# Starts BINARY (default bin/weir) standalone on ports 36000+ with data in
# /tmp/idlefloor, loads 20,000 rows, then per round runs 10 s of workload C
# from one thread alone, next to a SCHED_IDLE busy loop, next to two, and
# next to `dd` streaming memory in 16 MiB and in 128 KiB blocks. Prints
# ops/s, p50 and p99 (µs) of each run. Needs chrt (util-linux).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}; N=${2:-2}; D=/tmp/idlefloor
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
bg=()
trap 'kill "${bg[@]}" 2>/dev/null || true; weir_stop' EXIT
weir_start "$B" "$D" 36000
"$B" shell --master 127.0.0.1:36000 -e "create 'usertable', 'family'" >/dev/null
"$B" bench load -P "$root/workloads/workloadc" -p recordcount=20000 -threads 8 --master 127.0.0.1:36000 >/dev/null 2>&1
run() {
	"$B" bench run -P "$root/workloads/workloadc" -p recordcount=20000 -p operationcount=0 -p maxexecutiontime=10 \
		-threads 1 --master 127.0.0.1:36000 2>&1 |
		awk -F', ' '/Throughput/ {o=$3} /READ\], 50th/ {a=$3} /READ\], 99th/ {b=$3} END {printf "%.0f ops/s p50 %s p99 %s\n", o, a, b}'
}
with() { # with LABEL N CMD...: run next to N copies of CMD in SCHED_IDLE
	local label=$1 n=$2; shift 2
	bg=()
	for _ in $(seq "$n"); do chrt --idle 0 "$@" >/dev/null 2>&1 & bg+=($!); done
	printf '%-28s ' "$label"; run
	kill "${bg[@]}"; wait "${bg[@]}" 2>/dev/null || true; bg=()
}
run >/dev/null # warm-up
for r in $(seq "$N"); do
	printf '%-28s ' "round $r: alone"; run
	with "one busy loop" 1 sh -c 'while :; do :; done'
	with "two busy loops" 2 sh -c 'while :; do :; done'
	with "dd 16 MiB blocks" 1 dd if=/dev/zero of=/dev/null bs=16M count=100000000
	with "dd 128 KiB blocks" 1 dd if=/dev/zero of=/dev/null bs=128k count=100000000
done
