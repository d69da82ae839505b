#!/bin/bash
# Where the box's idle time goes while a YCSB workload runs against Weir:
# records the kernel's scheduler events (perf sched_switch and
# sched_wakeup, all CPUs) for SAMPLE whole seconds (default 1) in the middle of
# a run, and prints how much of the CPUs' idle time passed while a weir
# thread (server or driver) was runnable and waiting on another CPU's run
# queue, each process's time waiting to run, and the server's own time per
# call (weir_rpc_duration_seconds) next to the round trip the driver sees
# (threads ÷ ops/s). docs/performance.md, "The idle fifth on the run
# queues" (session 27).
#
#   bench/scripts/runqueue.sh [BINARY] [WORKLOAD...]
#
# Starts BINARY (default bin/weir) as lib.sh's ycsb_server on ports
# 36000+ with data in /tmp/runqueue, loads RECORDS rows (default 300000),
# flushes and major-compacts, then for each WORKLOAD (default "c e") runs
# DURATION seconds (default 10) with 16 threads, the driver at
# GOMAXPROCS=1 as the side-by-side runs it. Needs perf and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/bin/weir}
shift || true
R=${RECORDS:-300000}; DUR=${DURATION:-10}; S=${SAMPLE:-1}; D=/tmp/runqueue
threads=16
workloads=("$@")
[ $# -gt 0 ] || workloads=(c e)
for tool in perf python3 curl; do
	command -v "$tool" >/dev/null || { echo "$0: needs $tool" >&2; exit 2; }
done
[ "$DUR" -ge $((S + 2)) ] || { echo "$0: DURATION ($DUR) must be at least SAMPLE ($S) + 2 seconds" >&2; exit 2; }
# shellcheck source=lib.sh
. "$root/bench/scripts/lib.sh"
base=36000
M=127.0.0.1:$base
ycsb_server "$B" "$D" $base
P=$weir_pid
GOMAXPROCS=1 "$B" bench load -P "$root/workloads/workloada" -p recordcount="$R" -threads $threads --master $M >/dev/null 2>&1
"$B" shell --master $M -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
wait_compaction "$B" $M 600 || echo "$0: the major compaction did not end within 600 s" >&2
# rpc_seconds: the sum and count of the server's call durations, all
# methods, from the region server's web UI (weir_start: base + 30).
rpc_seconds() {
	curl -s http://127.0.0.1:$((base + 30))/metrics |
		awk '/^weir_rpc_duration_seconds_sum\{/ {s += $2} /^weir_rpc_duration_seconds_count\{/ {n += $2} END {print s, n}'
}
for w in "${workloads[@]}"; do
	r0=$(rpc_seconds)
	GOMAXPROCS=1 "$B" bench run -P "$root/workloads/workload$w" -p recordcount="$R" -p operationcount=0 \
		-p maxexecutiontime="$DUR" -threads "$threads" --master $M --json >"$D-$w.json" 2>/dev/null &
	drv=$!
	sleep $((DUR / 2 - S / 2))
	perf record -q -e sched:sched_switch -e sched:sched_wakeup -a -o "$D-$w.perf" -- sleep "$S" >/dev/null 2>&1
	wait $drv
	r1=$(rpc_seconds)
	perf script -i "$D-$w.perf" -F cpu,time,event,trace 2>/dev/null >"$D-$w.sched"
	python3 - "$D-$w.sched" "$D-$w.json" "$P" "$r0" "$r1" "$w" "$threads" <<'PY'
import json, os, re, sys
path, res, srv, r0, r1, w, threads = sys.argv[1:]
srv_tids = set(os.listdir(f'/proc/{srv}/task'))
# Per CPU: idle intervals; per thread: intervals runnable but not running
# (from its wakeup, or its preemption, to its next switch-in).
idle_since, idle = {}, {}
waiting, waits = {}, []
first = last = None
for line in open(path):
    m = re.match(r'\s*\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)', line)
    if not m:
        continue
    cpu, t, ev, tr = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
    first = t if first is None else first
    last = t
    idle.setdefault(cpu, [])
    if ev == 'sched:sched_wakeup':
        k = re.search(r'comm=(\S+) pid=(\d+)', tr)
        if k.group(1) == 'weir':
            waiting[k.group(2)] = t
    elif ev == 'sched:sched_switch':
        k = re.search(r'prev_comm=(\S+) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(\S+) next_pid=(\d+)', tr)
        pc, pp, ps, nc, np = k.groups()
        if pc == 'weir' and ps.startswith('R'):
            waiting[pp] = t  # preempted: runnable again at once
        if nc.startswith('swapper'):
            idle_since[cpu] = t
        elif cpu in idle_since:
            idle[cpu].append((idle_since.pop(cpu), t))
        if np in waiting:
            waits.append((waiting.pop(np), t, cpu, np in srv_tids))
for cpu, t0 in idle_since.items():
    idle[cpu].append((t0, last))
span = last - first
ncpu = len(idle)
idle_total = sum(b - a for iv in idle.values() for a, b in iv)
# The idle time of each CPU during which some weir thread waited on
# another CPU's run queue (each instant counted once per idle CPU).
def covered(ivs, spans):
    spans = sorted(spans)
    merged = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    tot = 0
    for a, b in ivs:
        for x, y in merged:
            if y > a and x < b:
                tot += min(b, y) - max(a, x)
    return tot
stuck = 0
for cpu, ivs in idle.items():
    stuck += covered(ivs, [(a, b) for a, b, c, _ in waits if c != cpu])
srv_wait = sum(b - a for a, b, _, s in waits if s)
drv_wait = sum(b - a for a, b, _, s in waits if not s)
r = json.load(open(res))
ops = r['throughput_ops_sec']
(s0, n0), (s1, n1) = map(float, r0.split()), map(float, r1.split())
print(f"{w}: {ops:.0f} ops/s; round trip {int(threads) / ops * 1e6:.0f} us, in the server's handler {(s1 - s0) / (n1 - n0) * 1e6:.1f} us per call")
print(f"{w}: over {span:.2f} s, {ncpu} CPUs idle {idle_total / span / ncpu * 100:.1f}% of the time; "
      f"{stuck / idle_total * 100:.0f}% of that idle time a weir thread waited on another CPU's run queue")
print(f"{w}: waiting to run, per second: server threads {srv_wait / span * 1e3:.0f} ms, driver threads {drv_wait / span * 1e3:.0f} ms")
PY
done
