#!/bin/bash
# Compares two builds of weir on this box with interleaved runs, so that the
# box's drift (±10% between runs minutes apart on the shared 2-core VM)
# falls on both alike: starts BINARY_A and BINARY_B as two `weir
# standalone`s side by side (lib.sh's ycsb_start: usertable pre-split in
# 10, hbase.wal.hsync=false), loads RECORDS rows (default 300000) into each
# and major-compacts them, then ROUNDS times (default 6) runs each workload
# of WORKLOADS (default "a c e f") for DURATION seconds (default 10) against
# one server and then the other, the order swapped every round. Prints
# each run and, per workload, each side's median ops/s, server and driver
# CPU per operation (/proc) and p99, and the median of the rounds' B÷A
# ratios.
#
#   bench/scripts/ab.sh BINARY_A BINARY_B [TAG]
#
# Ports 36000+ (A) and 37000+ (B), data in /tmp/ab-TAG-{a,b}; extra server
# flags for both in SERVER_FLAGS, for one side only in FLAGS_A / FLAGS_B
# (to compare settings with one binary).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BINARY_A BINARY_B [TAG]" >&2; exit 2; }
BA=$1; BB=$2; T=${3:-run}
R=${RECORDS:-300000}; DUR=${DURATION:-10}; N=${ROUNDS:-6}; D=/tmp/ab-$T
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"

# stop_all: both servers, and the one weir_start was starting if it
# exited the script first.
pids=()
stop_all() {
	for p in "${pids[@]}" ${weir_pid:-}; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}" ${weir_pid:-}; do wait "$p" 2>/dev/null || true; done
	[ -n "${KEEP_DATA:-}" ] || rm -rf "$D-a" "$D-b"
}
trap stop_all EXIT

declare -A bin pid master
# shellcheck disable=SC2086
ycsb_start "$BA" "$D-a" 36000 ${SERVER_FLAGS:-} ${FLAGS_A:-}
bin[a]=$BA; pid[a]=$weir_pid; master[a]=$weir_master; pids+=("$weir_pid")
# shellcheck disable=SC2086
ycsb_start "$BB" "$D-b" 37000 ${SERVER_FLAGS:-} ${FLAGS_B:-}
bin[b]=$BB; pid[b]=$weir_pid; master[b]=$weir_master; pids+=("$weir_pid")

out=$D.runs
: >"$out"
# run SIDE PHASE ROUND weir-bench-args...: one phase against SIDE's server,
# appended to $out as "phase side round ops/s server-us driver-us p99-ms".
run() {
	local side=$1 phase=$2 round=$3
	shift 3
	local s0 s1
	s0=$(cpu_ticks "${pid[$side]}")
	GOMAXPROCS=1 /usr/bin/time -f "%U %S" -o "$D.time" "${bin[$side]}" bench "$@" -threads 16 \
		--master "${master[$side]}" --json >"$D.json" 2>/dev/null
	s1=$(cpu_ticks "${pid[$side]}")
	python3 - "$D.json" "$D.time" "$s0" "$s1" "$phase" "$side" "$round" <<'PY' | tee -a "$out"
import json, sys
r = json.load(open(sys.argv[1])); u, s = map(float, open(sys.argv[2]).read().split()[-2:])
ops = r['operations']; s0, s1 = float(sys.argv[3]), float(sys.argv[4])
p99 = max(o['p99_us'] for o in r['ops']) / 1e3
print('%s %s %s %.0f %.1f %.1f %.2f' % (sys.argv[5], sys.argv[6], sys.argv[7], r['throughput_ops_sec'],
      (s1 - s0) * 1e4 / ops, (u + s) * 1e6 / ops, p99))
PY
}

for side in a b; do
	run "$side" load 0 load -P "$root/workloads/workloada" -p recordcount="$R"
	"${bin[$side]}" shell --master "${master[$side]}" -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
	wait_compaction "${bin[$side]}" "${master[$side]}" 600 || echo "$0: $side's major compaction did not end within 600 s" >&2
done
sleep 10
for round in $(seq 1 "$N"); do
	order="a b"
	[ $((round % 2)) -eq 0 ] && order="b a"
	for W in ${WORKLOADS:-a c e f}; do
		for side in $order; do
			run "$side" "$W" "$round" run -P "$root/workloads/workload$W" -p recordcount="$R" \
				-p operationcount=0 -p maxexecutiontime="$DUR"
		done
	done
done

python3 - "$out" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
phases = list(dict.fromkeys(r[0] for r in rows))
print('\n%-6s %-28s %-28s %s' % ('phase', 'A ops/s srv/drv us p99 ms', 'B ops/s srv/drv us p99 ms', 'B/A ops/s, srv us (median of rounds)'))
for ph in phases:
    side = {s: [r for r in rows if r[0] == ph and r[1] == s] for s in 'ab'}
    med = {s: [st.median(float(r[i]) for r in side[s]) for i in (3, 4, 5, 6)] for s in 'ab'}
    by = {s: {r[2]: r for r in side[s]} for s in 'ab'}
    pairs = [(by['a'][k], by['b'][k]) for k in by['a'] if k in by['b']]
    ro = st.median(float(b[3]) / float(a[3]) for a, b in pairs)
    rc = st.median(float(b[4]) / float(a[4]) for a, b in pairs)
    f = lambda m: '%7.0f %5.1f/%5.1f %6.2f' % tuple(m)
    print('%-6s %-28s %-28s %.3f, %.3f (%d pairs)' % (ph, f(med['a']), f(med['b']), ro, rc, len(pairs)))
PY
