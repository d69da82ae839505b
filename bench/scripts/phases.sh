#!/bin/bash
# Measures YCSB phases on a fresh `weir standalone`, with the server's CPU
# per operation from /proc (what docs/performance.md reports next to ops/s).
#
#   bench/scripts/phases.sh [BINARY] [TAG]
#
# Starts BINARY (default bin/weir) on ports 36000+ with data in
# /tmp/phases-TAG, creates usertable pre-split in 10, loads RECORDS rows
# (default 200000) with 16 threads, flushes and major-compacts (and waits for
# the compaction to end), then runs
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
rm -rf "$D"
# shellcheck disable=SC2086
"$B" standalone --data "$D" --port 36000 --regionserver-port 36020 --etcd-port 36379 --info-port 36010 \
	--regionserver-info-port 36030 --pprof 127.0.0.1:36099 -D hbase.wal.hsync=false ${SERVER_FLAGS:-} >"$D.log" 2>&1 &
P=$!
trap 'kill $P 2>/dev/null; wait $P 2>/dev/null || true' EXIT
sleep 6
"$B" shell --master 127.0.0.1:36000 -e "create 'usertable', 'family', SPLITS => ['user1','user2','user3','user4','user5','user6','user7','user8','user9']" >/dev/null
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master 127.0.0.1:36000 >/dev/null 2>&1
"$B" shell --master 127.0.0.1:36000 -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
# major_compact returns once the compaction is queued, as HBase's does.
for _ in $(seq 1 300); do
	[ "$("$B" shell --master 127.0.0.1:36000 -e "compaction_state 'usertable'" | head -1)" = NONE ] && break
	sleep 2
done
sleep 25
cpu() { awk '{print $14+$15}' "/proc/$P/stat"; }
for W in ${WORKLOADS:-a e f}; do
	limit=(-p operationcount=0 -p maxexecutiontime="$DUR")
	if [ "$W" = a ] && [ -n "${A_OPS:-}" ]; then
		limit=(-p operationcount="$A_OPS" -p maxexecutiontime=600)
	fi
	s0=$(cpu)
	GOMAXPROCS=1 /usr/bin/time -f "%U %S" -o "$D-$W.time" "$B" bench run -P "$root/workloads/workload$W" \
		-p recordcount="$R" "${limit[@]}" -threads 16 --master 127.0.0.1:36000 \
		--json >"$D-$W.json" 2>/dev/null &
	sleep 5
	curl -s -o "$D-$W.prof" "http://127.0.0.1:36099/debug/pprof/profile?seconds=15"
	wait $!
	s1=$(cpu)
	python3 - "$D-$W.json" "$D-$W.time" "$s0" "$s1" "$T $W" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); u, s = map(float, open(sys.argv[2]).read().split()[-2:])
ops = r['operations']; s0, s1 = float(sys.argv[3]), float(sys.argv[4])
print('%s: %.0f ops/s server %.1f us/op driver %.1f us/op p99 %s load %s' % (sys.argv[5], r['throughput_ops_sec'],
      (s1 - s0) * 1e4 / ops, (u + s) * 1e6 / ops, [o['p99_us'] for o in r['ops']], open('/proc/loadavg').read().split()[0]))
PY
done
curl -s http://127.0.0.1:36030/metrics | grep -E "^weir_(gc|rowcache)" >"$D.gc" || true
