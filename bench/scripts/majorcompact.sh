#!/bin/bash
# Measures a table's major compaction on a fresh `weir standalone`: the
# wall time from `major_compact` until `compaction_state` says NONE, the
# server's CPU-seconds over it from /proc, and the MB its store flushed
# and compacted (weir_storage_{flushed,compacted}_bytes_total).
#
#   bench/scripts/majorcompact.sh [BINARY] [TAG]
#
# BINARY defaults to bin/weir; RECORDS rows (default 200000) loaded with 16
# threads into usertable pre-split in 10, then flushed; ports 26000+, data
# in /tmp/majorcompact-TAG. Extra server flags go in SERVER_FLAGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}; T=${2:-run}; R=${RECORDS:-200000}; D=/tmp/majorcompact-$T
M=127.0.0.1:26000
rm -rf "$D"
# shellcheck disable=SC2086
"$B" standalone --data "$D" --port 26000 --regionserver-port 26020 --etcd-port 26379 --info-port 26010 \
	--regionserver-info-port 26030 -D hbase.wal.hsync=false ${SERVER_FLAGS:-} >"$D.log" 2>&1 &
P=$!
trap 'kill $P 2>/dev/null; wait $P 2>/dev/null || true' EXIT
sleep 6
"$B" shell --master $M -e "create 'usertable', 'family', SPLITS => ['user1','user2','user3','user4','user5','user6','user7','user8','user9']" >/dev/null
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master $M >/dev/null 2>&1
"$B" shell --master $M -e "flush 'usertable'" >/dev/null
sleep 3
mb() { curl -s http://127.0.0.1:26030/metrics | awk '/^weir_storage_(compacted|flushed)_bytes_total/{printf "%s %.0f ", $1, $2/1e6}'; }
cpu() { awk '{print $14+$15}' "/proc/$P/stat"; }
m0=$(mb); c0=$(cpu); t0=$(date +%s.%N)
"$B" shell --master $M -e "major_compact 'usertable'" >/dev/null
for _ in $(seq 1200); do
	[ "$("$B" shell --master $M -e "compaction_state 'usertable'" | head -1)" = NONE ] && break
	sleep 0.5
done
t1=$(date +%s.%N); c1=$(cpu); m1=$(mb)
python3 - "$T" "$t0" "$t1" "$c0" "$c1" "$m0" "$m1" <<'PY'
import sys
tag, t0, t1, c0, c1 = sys.argv[1], *map(float, sys.argv[2:6])
def mb(s):
    f = s.split()
    return {k.split('_')[2]: float(v) for k, v in zip(f[::2], f[1::2])}
a, b = mb(sys.argv[6]), mb(sys.argv[7])
print('%s major compaction: %.1f s, %.0f CPU-s, %.0f MB flushed, %.0f MB compacted' % (tag, t1 - t0, (c1 - c0) / 100,
      b['flushed'] - a['flushed'], b['compacted'] - a['compacted']))
PY
