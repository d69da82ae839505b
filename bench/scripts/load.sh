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
rm -rf "$D"
"$B" standalone --data "$D" --port 36000 --regionserver-port 36020 --etcd-port 36379 --info-port 36010 \
	--regionserver-info-port 36030 -D hbase.wal.hsync=false >"$D.log" 2>&1 &
P=$!
trap 'kill $P 2>/dev/null; wait $P 2>/dev/null || true' EXIT
sleep 6
"$B" shell --master 127.0.0.1:36000 -e "create 'usertable', 'family', SPLITS => ['user1','user2','user3','user4','user5','user6','user7','user8','user9']" >/dev/null
cpu() { awk '{print $14+$15}' "/proc/$P/stat"; }
s0=$(cpu)
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master 127.0.0.1:36000 --json >"$D.json" 2>/dev/null
s1=$(cpu); sleep 12; s2=$(cpu)
python3 - "$D.json" "$s0" "$s1" "$s2" "$T" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s0, s1, s2 = map(float, sys.argv[2:5]); ops = r['operations']
print('%s load: %.0f ops/s server %.1f us/op, with the 12 s after %.1f us/op, p99 %s' % (sys.argv[5], r['throughput_ops_sec'],
      (s1 - s0) * 1e4 / ops, (s2 - s0) * 1e4 / ops, [o['p99_us'] for o in r['ops']]))
PY
curl -s http://127.0.0.1:36030/metrics | grep -E "^weir_gc_passes" | tr '\n' ' '; echo
