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
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
# shellcheck disable=SC2086
ycsb_server "$B" "$D" 26000 ${SERVER_FLAGS:-}
P=$weir_pid
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads 16 --master $M >/dev/null 2>&1
"$B" shell --master $M -e "flush 'usertable'" >/dev/null
sleep 3
mb() { curl -s http://127.0.0.1:26030/metrics | awk '/^weir_storage_(compacted|flushed)_bytes_total/{printf "%s %.0f ", $1, $2/1e6}'; }
m0=$(mb); c0=$(cpu_ticks $P); t0=$(date +%s.%N)
"$B" shell --master $M -e "major_compact 'usertable'" >/dev/null
wait_compaction "$B" $M 600 || echo "$0: the major compaction did not end within 600 s" >&2
t1=$(date +%s.%N); c1=$(cpu_ticks $P); m1=$(mb)
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
