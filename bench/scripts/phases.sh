#!/bin/bash
# Measures YCSB phases on a fresh `weir standalone`, with the server's CPU
# per operation from /proc (what docs/performance.md reports next to ops/s).
#
#   bench/scripts/phases.sh [BINARY] [TAG]
#
# Starts BINARY (default bin/weir) on ports 36000+ with data in
# /tmp/phases-TAG, creates usertable pre-split in 10, loads RECORDS rows
# (default 200000) with 16 threads, flushes and major-compacts (and waits for
# the compaction to end; not with NO_MAJOR set, which reads the LSM the load
# left), then runs
# each workload of WORKLOADS (default "a e f") for DURATION seconds (default
# 25) with 16 threads and prints ops/s, server and driver CPU per op and
# p99s. A CPU profile of the server is taken for 15 s of each phase
# (/tmp/phases-TAG-W.prof). The server's weir_gc_* metrics end up in
# /tmp/phases-TAG.gc. Extra server flags go in SERVER_FLAGS. With A_OPS set,
# A runs that many operations instead of DURATION seconds, so that the
# phases after it start from the same table however fast the box is.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}; T=${2:-run}
R=${RECORDS:-200000}; DUR=${DURATION:-25}; D=/tmp/phases-$T
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
M=127.0.0.1:36000
# shellcheck disable=SC2086
ycsb_server "$B" "$D" 36000 ${SERVER_FLAGS:-}
P=$weir_pid
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master $M >/dev/null 2>&1
if [ -z "${NO_MAJOR:-}" ]; then
	"$B" shell --master $M -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
	wait_compaction "$B" $M 600 || echo "$0: the major compaction did not end within 600 s" >&2
fi
sleep 25
for W in ${WORKLOADS:-a e f}; do
	limit=(-p operationcount=0 -p maxexecutiontime="$DUR")
	if [ "$W" = a ] && [ -n "${A_OPS:-}" ]; then
		limit=(-p operationcount="$A_OPS" -p maxexecutiontime=600)
	fi
	s0=$(cpu_ticks $P)
	GOMAXPROCS=1 /usr/bin/time -f "%U %S" -o "$D-$W.time" "$B" bench run -P "$root/workloads/workload$W" \
		-p recordcount="$R" "${limit[@]}" -threads 16 --master $M \
		--json >"$D-$W.json" 2>/dev/null &
	sleep 5
	curl -s -o "$D-$W.prof" "http://127.0.0.1:36099/debug/pprof/profile?seconds=15"
	wait $!
	s1=$(cpu_ticks $P)
	python3 - "$D-$W.json" "$D-$W.time" "$s0" "$s1" "$T $W" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); u, s = map(float, open(sys.argv[2]).read().split()[-2:])
ops = r['operations']; s0, s1 = float(sys.argv[3]), float(sys.argv[4])
print('%s: %.0f ops/s server %.1f us/op driver %.1f us/op p99 %s load %s' % (sys.argv[5], r['throughput_ops_sec'],
      (s1 - s0) * 1e4 / ops, (u + s) * 1e6 / ops, [o['p99_us'] for o in r['ops']], open('/proc/loadavg').read().split()[0]))
PY
done
curl -s http://127.0.0.1:36030/metrics | grep -E "^weir_(gc|rowcache)" >"$D.gc" || true
