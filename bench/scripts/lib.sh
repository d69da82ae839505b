# Shell functions the benchmark scripts share: starting a standalone Weir
# on a block of ports, the YCSB table, waiting for a major compaction, and
# a process's CPU time. Source it: . "$root/bench/scripts/lib.sh"
# (bench/hbase/run.sh uses it for both servers).

# cpu_ticks PID: the process's user+system CPU time in clock ticks
# (/proc/PID/stat).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# wait_ready BINARY MASTER PID LOG: until the master behind MASTER takes
# DDL (HBase's answers "list" before it does): a probe table is created
# and dropped. Exits the script if PID ends first or 180 s pass.
wait_ready() {
	local bin=$1 master=$2 pid=$3 logfile=$4
	for _ in $(seq 1 180); do
		kill -0 "$pid" 2>/dev/null || { echo "$0: the server exited while starting; see $logfile" >&2; exit 1; }
		if "$bin" shell --master "$master" \
			-e "create 'weir_bench_probe', 'f'; disable 'weir_bench_probe'; drop 'weir_bench_probe'" >/dev/null 2>&1; then
			return 0
		fi
		sleep 1
	done
	echo "$0: the server did not answer on $master within 180 s; see $logfile" >&2
	exit 1
}

# weir_start BINARY DATA PORT_BASE [SERVER FLAGS...]: starts `weir
# standalone` with its data in DATA (emptied first) and its log in
# DATA.log, the master on PORT_BASE, the region server on +20, etcd on
# +379, the web UIs on +10 and +30 and pprof on +99, and waits until it
# takes DDL. Sets weir_pid and weir_master; weir_stop ends it and removes
# DATA, unless KEEP_DATA is set (a 1,000,000-row table is 2 GB, and a
# dozen runs filled the box's disk).
weir_start() {
	local bin=$1 data=$2 base=$3
	shift 3
	rm -rf "$data"
	weir_data=$data
	"$bin" standalone --data "$data" --port "$base" --regionserver-port $((base + 20)) \
		--etcd-port $((base + 379)) --info-port $((base + 10)) --regionserver-info-port $((base + 30)) \
		--pprof 127.0.0.1:$((base + 99)) "$@" >"$data.log" 2>&1 &
	weir_pid=$!
	weir_master=127.0.0.1:$base
	wait_ready "$bin" "$weir_master" "$weir_pid" "$data.log"
}

# weir_stop: ends the server weir_start started and removes its data
# unless KEEP_DATA is set (for an EXIT trap).
weir_stop() {
	[ -n "${weir_pid:-}" ] || return 0
	kill "$weir_pid" 2>/dev/null || true
	wait "$weir_pid" 2>/dev/null || true
	weir_pid=
	[ -n "${KEEP_DATA:-}" ] || [ -z "${weir_data:-}" ] || rm -rf "$weir_data"
}

# create_usertable BINARY MASTER: YCSB's table with its one family,
# pre-split into 10 regions at user1..user9, as the side-by-side creates
# it for both servers.
create_usertable() {
	"$1" shell --master "$2" -e "create 'usertable', 'family', SPLITS => ['user1','user2','user3','user4','user5','user6','user7','user8','user9']" >/dev/null
}

# ycsb_start BINARY DATA PORT_BASE [SERVER FLAGS...]: weir_start with the
# WAL at HBase's default level (hbase.wal.hsync=false, as the side-by-side
# runs both servers), and usertable created. The caller stops the server.
ycsb_start() {
	weir_start "$1" "$2" "$3" -D hbase.wal.hsync=false "${@:4}"
	create_usertable "$1" "$weir_master"
}

# ycsb_server BINARY DATA PORT_BASE [SERVER FLAGS...]: how the one-server
# YCSB scripts start: ycsb_start with an EXIT trap that stops the server.
ycsb_server() {
	trap weir_stop EXIT
	ycsb_start "$@"
}

# wait_compaction BINARY MASTER SECONDS: polls compaction_state
# 'usertable' twice a second until it says NONE (major_compact only
# queues the compaction, on both servers). Returns 1 if compaction_state
# fails, 2 if SECONDS pass first.
wait_compaction() {
	local bin=$1 master=$2 state
	for _ in $(seq 1 $(($3 * 2))); do
		state=$("$bin" shell --master "$master" -e "compaction_state 'usertable'" 2>&1) || return 1
		[ "$(echo "$state" | head -1)" = NONE ] && return 0
		sleep 0.5
	done
	return 2
}
