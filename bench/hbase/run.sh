#!/usr/bin/env bash
# Side by side: the same `weir bench` workloads against Apache HBase 2.6.4
# (standalone, from Maven Central jars) and then against `weir standalone`,
# on this machine, in one invocation. Not part of CI.
#
#   bench/hbase/run.sh [--records N] [--duration SECS] [--threads N]
#                      [--study-duration SECS] [--study-threads N]
#                      [--levels none,2000,1000,500] [--out DIR]
#                      [--heap 4g] [--port-base 28000] [--only hbase|weir]
#                      [--driver-procs 1] [--durability SYNC_WAL]
#                      [--wal-hsync false] [--e-reload true]
#                      [--server-cpus LIST] [--driver-cpus LIST]
#
# For each server in turn: start it on 127.0.0.1 with quotas enabled, load
# --records rows (1 KB each, usertable pre-split into 10 regions), flush and
# major-compact, run workloads A, C and F for --duration seconds each
# with --threads client threads; then, as YCSB's wiki ("Core Workloads",
# "Running the workloads") recommends for workload E, which inserts records,
# drop the table, reload it with workload E's parameters, flush and
# major-compact again and run E; then `weir bench throttle-study` at
# --levels, and stop it. --e-reload false runs E in sequence after C,
# against the table A updated, with no reload (the order of sessions
# 1-11). Server CPU per operation is the server process's utime+stime
# from /proc/<pid>/stat across each phase, divided by the phase's
# operations. Writes DIR/<server>/*.json, DIR/<server>/throttle/,
# and DIR/comparison.md with the ratio table (also printed).
#
# The driver runs with GOMAXPROCS=--driver-procs (default 1; 0 leaves Go's
# default of one per core), against both servers alike: on a small host
# that it shares with the server, its goroutine wake-ups cost less on one
# processor than spread over two (about 15% less driver CPU per operation
# on a 2-core box, see docs/performance.md), which leaves that CPU to the
# server.
#
# --server-cpus and --driver-cpus pin the server and the driver to CPUs
# (taskset lists, e.g. 1 and 0; default: unpinned). Benchmarks give the
# load generator machines of its own; on a small host, pinning the two to
# different cores is the nearest thing: neither steals the other's CPU,
# so the ops/s ratio follows the servers' own CPU per operation rather
# than the driver's share of the box. Both servers get the same CPUs, and
# the JVM and Go size themselves to them (Java's availableProcessors and
# Go's GOMAXPROCS follow the affinity mask).
#
# --durability sets YCSB's `durability` property (the HBase binding's
# Durability of every Put) for the load and the workloads, on both servers
# alike: USE_DEFAULT (the default: the table's, SYNC_WAL), SKIP_WAL,
# ASYNC_WAL, SYNC_WAL or FSYNC_WAL. --wal-hsync sets hbase.wal.hsync on
# both servers alike (default false, HBase's default; Weir's own default is
# true): with false, SYNC_WAL acknowledges once the WAL record is written
# out (hflush: HBase standalone to the local filesystem, Weir to the OS),
# with true once the WAL is synced (hsync; Weir waits for its fdatasync),
# as FSYNC_WAL always does.
#
# Needs Java 17, Maven (Maven Central reachable, or the jars in ~/.m2), Go,
# python3. Run from anywhere; it builds bin/weir in the repository.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../scripts/lib.sh
. "$repo/bench/scripts/lib.sh"

records=200000
duration=45
threads=16
study_duration=15
study_threads=8
levels=none,2000,1000,500
out=$repo/bench-hbase-results
heap=4g
port_base=28000
only=
driver_procs=1
durability=USE_DEFAULT
wal_hsync=false
e_reload=true
server_cpus=
driver_cpus=

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case $1 in
	--records) records=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--study-duration) study_duration=$2; shift 2 ;;
	--study-threads) study_threads=$2; shift 2 ;;
	--levels) levels=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--heap) heap=$2; shift 2 ;;
	--port-base) port_base=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--driver-procs) driver_procs=$2; shift 2 ;;
	--durability) durability=$2; shift 2 ;;
	--wal-hsync) wal_hsync=$2; shift 2 ;;
	--e-reload) e_reload=$2; shift 2 ;;
	--server-cpus) server_cpus=$2; shift 2 ;;
	--driver-cpus) driver_cpus=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; usage ;;
	esac
done
for n in "$records" "$duration" "$threads" "$study_duration" "$study_threads" "$port_base" "$driver_procs"; do
	case $n in '' | *[!0-9]*) echo "run.sh: $n is not a positive integer" >&2; exit 2 ;; esac
done
case $only in '' | hbase | weir) ;; *) echo "run.sh: --only $only: want hbase or weir" >&2; exit 2 ;; esac
case $wal_hsync in true | false) ;; *) echo "run.sh: --wal-hsync $wal_hsync: want true or false" >&2; exit 2 ;; esac
case $e_reload in true | false) ;; *) echo "run.sh: --e-reload $e_reload: want true or false" >&2; exit 2 ;; esac
case $durability in USE_DEFAULT | SKIP_WAL | ASYNC_WAL | SYNC_WAL | FSYNC_WAL) ;;
*) echo "run.sh: --durability $durability: want USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL" >&2; exit 2 ;;
esac
for l in "$server_cpus" "$driver_cpus"; do
	case $l in *[!0-9,-]*) echo "run.sh: CPU list $l: want a taskset list such as 0 or 0-1,3" >&2; exit 2 ;; esac
done
# Command prefixes that pin the server and the driver (taskset execs the
# command, so a server's $! is its own pid).
pin_server=() pin_driver=()
[ -z "$server_cpus" ] || pin_server=(taskset -c "$server_cpus")
[ -z "$driver_cpus" ] || pin_driver=(taskset -c "$driver_cpus")
for tool in java mvn go python3 $([ -z "$server_cpus$driver_cpus" ] || echo taskset); do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is not installed" >&2; exit 1; }
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/weir-bench-hbase.XXXXXX)
weir=$repo/bin/weir
clk=$(getconf CLK_TCK)
server_pid=

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

stop_server() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid"
		for _ in $(seq 1 60); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
		kill -0 "$server_pid" 2>/dev/null && kill -9 "$server_pid"
		wait "$server_pid" 2>/dev/null || true
	fi
	server_pid=
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_idle: major_compact returns at once and compacts in the
# background; wait until the server uses under 10% of a core over 5 s
# (at least 10 s, at most 180 s) so that workload A does not run against a
# compaction.
wait_idle() {
	local prev now
	sleep 5
	prev=$(cpu_ticks "$server_pid")
	for _ in $(seq 1 35); do
		sleep 5
		now=$(cpu_ticks "$server_pid")
		if [ $((now - prev)) -lt $((clk / 2)) ]; then return 0; fi
		prev=$now
	done
	log "the server is still busy 180 s after major_compact; running the workloads anyway"
}

# phase NAME MASTER DIR -- weir bench args...: runs one `weir bench`
# phase with --json and writes DIR/NAME.json with the server's CPU seconds
# added as server_cpu_sec.
phase() {
	local name=$1 master=$2 dir=$3
	shift 4
	local before after
	before=$(cpu_ticks "$server_pid")
	GOMAXPROCS=$driver_procs "${pin_driver[@]}" "$weir" bench "$@" --master "$master" --user bench --json >"$dir/$name.raw.json"
	after=$(cpu_ticks "$server_pid")
	python3 - "$dir/$name.raw.json" "$dir/$name.json" "$before" "$after" "$clk" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["server_cpu_sec"] = (int(sys.argv[4]) - int(sys.argv[3])) / int(sys.argv[5])
json.dump(r, open(sys.argv[2], "w"), indent=2)
EOF
	rm "$dir/$name.raw.json"
	log "$name: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%.0f ops/s, server %.1f CPU-s" % (r["throughput_ops_sec"], r["server_cpu_sec"]))' "$dir/$name.json")"
}

# compact MASTER: flush and major-compact usertable, then wait for the
# server to go idle.
compact() {
	log "flush and major compaction"
	"$weir" shell --master "$1" -e "flush 'usertable'; major_compact 'usertable'" >/dev/null
	# Both servers queue the compaction and return; compaction_state says
	# when the regions are done, wait_idle when the rest has settled.
	local t0=$SECONDS st=0
	wait_compaction "$weir" "$1" 360 || st=$?
	case $st in
	0) log "compaction done after about $((SECONDS - t0)) s" ;;
	1) log "compaction_state failed; waiting for the server to go idle instead" ;;
	*) log "compaction_state still not NONE after 360 s; waiting for the server to go idle" ;;
	esac
	wait_idle
}

# run_workload MASTER DIR W: workload W for --duration seconds.
run_workload() {
	phase "workload$3" "$1" "$2" -- run -P "$repo/workloads/workload$3" -p recordcount="$records" \
		-p durability="$durability" -p operationcount=0 -p maxexecutiontime="$duration" -threads "$threads"
}

# workloads MASTER DIR: load, flush + major compaction, A, C, F, a reload
# for E (unless --e-reload false), E and the throttle study against the
# server at MASTER.
workloads() {
	local master=$1 dir=$2
	phase load "$master" "$dir" -- load -P "$repo/workloads/workloada" -p recordcount="$records" -p durability="$durability" -threads "$threads"
	compact "$master"
	if [ "$e_reload" = true ]; then
		for w in a c f; do run_workload "$master" "$dir" "$w"; done
		log "dropping usertable to reload it for workload E"
		"$weir" shell --master "$master" -e "disable 'usertable'; drop 'usertable'" >/dev/null
		phase reload "$master" "$dir" -- load -P "$repo/workloads/workloade" -p recordcount="$records" -p durability="$durability" -threads "$threads"
		compact "$master"
		run_workload "$master" "$dir" e
	else
		for w in a c e f; do run_workload "$master" "$dir" "$w"; done
	fi
	peak_rss "$dir"
	local before after
	before=$(cpu_ticks "$server_pid")
	GOMAXPROCS=$driver_procs "${pin_driver[@]}" "$weir" bench throttle-study --master "$master" --levels "$levels" --duration "${study_duration}s" \
		--threads "$study_threads" --recordcount "$records" --out "$dir/throttle" >/dev/null 2>"$dir/throttle.log"
	after=$(cpu_ticks "$server_pid")
	echo "{\"server_cpu_sec\": $(python3 -c "print(($after - $before) / $clk)")}" >"$dir/throttle/cpu.json"
	log "throttle study done"
}

# peak_rss DIR: the server's peak resident memory so far into DIR/memory.json.
peak_rss() {
	echo "{\"peak_rss_kb\": $(awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status")}" >"$1/memory.json"
}

# The servers' ports, from --port-base: the default lies below Linux's
# ephemeral range (32768-60999), from which the driver's and the servers'
# own outgoing connections take their local ports; at 38000 one of them
# once held Weir's region server port when Weir started.
ports() {
	hb_master=$port_base hb_rs=$((port_base + 20)) hb_zk=$((port_base + 81))
	w_master=$((port_base + 100)) w_info=$((port_base + 110)) w_rs=$((port_base + 120))
	w_rsinfo=$((port_base + 130)) w_etcd=$((port_base + 200))
}
ports

run_hbase() {
	local dir=$out/hbase data=$work/hbase
	mkdir -p "$dir" "$data/conf"
	log "resolving HBase 2.6.4 from Maven Central"
	mvn -q -B -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt" >&2
	cat >"$data/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$data/root</value></property>
  <property><name>hbase.tmp.dir</name><value>$data/tmp</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$data/zk</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$hb_zk</value></property>
  <property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.port</name><value>$hb_master</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.port</name><value>$hb_rs</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.quota.enabled</name><value>true</value></property>
  <property><name>hbase.wal.hsync</name><value>$wal_hsync</value></property>
</configuration>
EOF
	cat >"$data/conf/log4j.properties" <<'EOF'
log4j.rootLogger=WARN, console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
EOF
	# The JVM flags HBase's bin/hbase adds on JDK 17.
	local jopts=(-Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -Djava.net.preferIPv4Stack=true
		-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
		--add-modules jdk.unsupported --add-opens java.base/java.nio=ALL-UNNAMED
		--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
		--add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED
		--add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED
		--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/sun.net.dns=ALL-UNNAMED
		--add-exports java.base/sun.net.util=ALL-UNNAMED)
	log "starting HBase 2.6.4 standalone on 127.0.0.1:$hb_master (data $data)"
	"${pin_server[@]}" java "${jopts[@]}" -cp "$data/conf:$(cat "$work/classpath.txt")" \
		org.apache.hadoop.hbase.master.HMaster start >"$dir/server.log" 2>&1 &
	server_pid=$!
	wait_ready "$weir" "127.0.0.1:$hb_master" "$server_pid" "$dir/server.log"
	log "HBase is up (pid $server_pid)"
	workloads "127.0.0.1:$hb_master" "$dir"
	stop_server
}

run_weir() {
	local dir=$out/weir
	mkdir -p "$dir"
	log "starting weir standalone on 127.0.0.1:$w_master"
	"${pin_server[@]}" "$weir" standalone --data "$work/weir" --port "$w_master" --info-port "$w_info" \
		--regionserver-port "$w_rs" --regionserver-info-port "$w_rsinfo" --etcd-port "$w_etcd" \
		--quota-enabled=true -D hbase.wal.hsync="$wal_hsync" >"$dir/server.log" 2>&1 &
	server_pid=$!
	wait_ready "$weir" "127.0.0.1:$w_master" "$server_pid" "$dir/server.log"
	log "Weir is up (pid $server_pid)"
	workloads "127.0.0.1:$w_master" "$dir"
	stop_server
}

log "building bin/weir"
(cd "$repo" && go build -o bin/weir ./cmd/weir)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
[ "$only" = weir ] || run_hbase
[ "$only" = hbase ] || run_weir

python3 "$here/compare.py" --out "$out" --started "$started" --wal-hsync "$wal_hsync" \
	--server-cpus "$server_cpus" --driver-cpus "$driver_cpus" \
	--command "bench/hbase/run.sh --records $records --duration $duration --threads $threads --study-duration $study_duration --study-threads $study_threads --levels $levels$([ "$durability" = USE_DEFAULT ] || echo " --durability $durability")$([ "$wal_hsync" = false ] || echo " --wal-hsync $wal_hsync")$([ -z "$server_cpus" ] || echo " --server-cpus $server_cpus")$([ -z "$driver_cpus" ] || echo " --driver-cpus $driver_cpus")" \
	| tee "$out/comparison.md"
