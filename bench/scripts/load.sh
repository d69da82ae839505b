#!/bin/bash
# Measures a YCSB load on a fresh `weir standalone`: ops/s and the server's
# CPU per inserted row from /proc, during the load and with the 12 s after
# it (the background work a load leaves: flushes, compactions, garbage
# passes).
#
#   bench/scripts/load.sh [BINARY] [TAG]
#
# BINARY defaults to bin/weir; RECORDS rows (default 200000), 16 threads,
# usertable pre-split in 10, ports 36000+, data in /tmp/load-TAG.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}; T=${2:-run}; R=${RECORDS:-200000}; D=/tmp/load-$T
M=127.0.0.1:36000
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
# shellcheck disable=SC2086
ycsb_server "$B" "$D" 36000 ${EXTRA:-}
P=$weir_pid
s0=$(cpu_ticks $P)
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master $M --json >"$D.json" 2>/dev/null
s1=$(cpu_ticks $P); sleep 12; s2=$(cpu_ticks $P)
python3 - "$D.json" "$s0" "$s1" "$s2" "$T" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s0, s1, s2 = map(float, sys.argv[2:5]); ops = r['operations']
print('%s load: %.0f ops/s server %.1f us/op, with the 12 s after %.1f us/op, p99 %s' % (sys.argv[5], r['throughput_ops_sec'],
      (s1 - s0) * 1e4 / ops, (s2 - s0) * 1e4 / ops, [o['p99_us'] for o in r['ops']]))
PY
{ curl -s http://127.0.0.1:36030/metrics | grep -E "^weir_(gc_(passes|cells)|storage_(compacted|flushed)_bytes_total|storage_compactions_total)" || true; } | tr "\n" " "; echo
