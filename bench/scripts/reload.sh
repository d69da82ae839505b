#!/bin/bash
# Measures the side-by-side's reload on Weir alone: on a fresh `weir
# standalone`, loads RECORDS rows (default 1000000), major-compacts, runs
# each workload of WORKLOADS (default "a c f") for DURATION seconds
# (default 60), drops and recreates usertable and loads it again with
# workload E's parameters, as bench/hbase/run.sh does; prints ops/s and
# the server's CPU per insert of the load and of the reload, and takes a
# 25 s CPU profile 8 s into each (/tmp/reload-TAG-{load,reload}.prof);
# after each, the garbage passes' and the store's flush and compaction
# counters so far.
#
#   bench/scripts/reload.sh [BINARY] [TAG]
#
# Ports 36000+, data in /tmp/reload-TAG; extra server flags in EXTRA.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}; T=${2:-run}; R=${RECORDS:-1000000}; DUR=${DURATION:-60}; D=/tmp/reload-$T
M=127.0.0.1:36000
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
# shellcheck disable=SC2086
ycsb_server "$B" "$D" 36000 ${EXTRA:-}
P=$weir_pid

# insert_phase NAME WORKLOAD: a load of R rows with a profile 8 s in.
insert_phase() {
	local s0 s1 prof
	s0=$(cpu_ticks $P)
	(sleep 8; curl -s -o "$D-$1.prof" "http://127.0.0.1:36099/debug/pprof/profile?seconds=25") &
	prof=$!
	GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workload$2" -p recordcount="$R" -threads 16 --master $M --json >"$D-$1.json" 2>/dev/null
	s1=$(cpu_ticks $P)
	python3 - "$D-$1.json" "$s0" "$s1" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s0, s1 = map(float, sys.argv[2:4])
print('%s: %.0f ops/s server %.1f us/op' % (sys.argv[4], r['throughput_ops_sec'], (s1 - s0) * 1e4 / r['operations']))
PY
	wait "$prof" # only the profile: a bare wait would wait for the server too
	{ curl -s http://127.0.0.1:36030/metrics | grep -E "^weir_(gc_(passes|cells_scanned)|storage_(compacted|flushed)_bytes_total|storage_compactions_total)" || true; } | tr "\n" " "; echo
}

insert_phase load a
"$B" shell --master $M -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
wait_compaction "$B" $M 600 || echo "$0: the major compaction did not end within 600 s" >&2
for W in ${WORKLOADS:-a c f}; do
	GOMAXPROCS=1 "$B" bench run -P "$root/workloads/workload$W" -p recordcount="$R" -p operationcount=0 \
		-p maxexecutiontime="$DUR" -threads 16 --master $M >/dev/null 2>&1
done
"$B" shell --master $M -e "disable 'usertable'; drop 'usertable'" >/dev/null
create_usertable "$B" $M
insert_phase reload e
