package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/bench"
)

const colocationUsage = `usage: weir bench colocation-study [--instances 1,2,3] [--recordcount N]
       [--operations 1000000] [--duration 5m] [--threads 16] [--regions 12]
       [-D key=value ...] [--out DIR] [--port-base PORT]

The experiment of "Apache HBase: RegionServers co-location" on this host:
for each count of region server instances, a fresh cluster is started as
separate processes of this binary (weir etcd, weir master, and one
weir regionserver --instances 1 --first-instance i per instance), the
table is pre-split into --regions regions and loaded with --recordcount
rows, then YCSB workloads A and F run --operations operations each, as
the study ran them, so that the runtime is the measure; --duration caps
each run. Given --duration without --operations, each workload runs for
--duration instead. Each region server process's CPU seconds, peak RSS
and disk read/write bytes are read from /proc/<pid> around every phase.
-D settings (as weir regionserver takes them) go to every region server,
as the study's second part tuned its region servers' handlers and memory.
Writes results.md, results.json, throughput and CPU-per-operation charts
(PNG and SVG) and the processes' logs (logs/) into --out. Linux only.
`

// runColocationStudy runs `weir bench colocation-study`.
func runColocationStudy(args []string, stdout, stderr io.Writer) int {
	cfg, code := parseColocation(args, stderr)
	if code >= 0 {
		return code
	}
	if cfg.DataDir != "" {
		// A given directory is the caller's; the study's own data goes
		// in a fresh subdirectory so nothing of theirs is touched.
		d, err := os.MkdirTemp(cfg.DataDir, "colocation-")
		if err != nil {
			fmt.Fprintf(stderr, "weir bench colocation-study: --data: %v\n", err)
			return 2
		}
		defer os.RemoveAll(d)
		cfg.DataDir = d
	}
	return runStudyCommand("colocation-study", cfg.OutDir, stdout, stderr, func(ctx context.Context) (bool, error) {
		res, err := bench.RunColocation(ctx, cfg)
		return res != nil && len(res.Rows) > 0, err
	})
}

// parseColocation reads the study's flags into its configuration; a code
// of 0 or more is the exit status to return instead (help, bad flags).
func parseColocation(args []string, stderr io.Writer) (bench.ColocationConfig, int) {
	var none bench.ColocationConfig
	fs := flag.NewFlagSet("weir bench colocation-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	instances := fs.String("instances", "1,2,3", "region server instance counts to compare")
	records := fs.Int64("recordcount", 100000, "records loaded per configuration")
	duration := fs.Duration("duration", 5*time.Minute, "cap on each workload's run (whole seconds); alone, the time each workload runs")
	ops := fs.Int64("operations", 1000000, "operations per workload (0: run for --duration)")
	threads := fs.Int("threads", 16, "client threads")
	regions := fs.Int("regions", 12, "regions the table is pre-split into")
	out := fs.String("out", "colocation-study", "output directory")
	data := fs.String("data", "", "where the clusters' data goes: a new subdirectory of it, removed at the end (default: the system temporary directory)")
	conf := registerConf(fs)
	portBase := fs.Int("port-base", 0, "fixed ports from here (etcd +0/+1, master +2/+3, region server i +10+i, HTTP +40+i); 0: free ports")
	fs.Usage = func() { fmt.Fprint(stderr, colocationUsage+"\nflags:\n"); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return none, 0
		}
		return none, 2
	}
	usage := func(format string, a ...any) (bench.ColocationConfig, int) {
		fmt.Fprintf(stderr, "weir bench colocation-study: "+format+"\n", a...)
		return none, 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	var counts []int
	for _, f := range strings.Split(*instances, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 30 {
			return usage("--instances: %q is not a count from 1 to 30", f)
		}
		counts = append(counts, n)
	}
	if given := givenFlags(fs); given["duration"] && !given["operations"] {
		*ops = 0 // a time-bound run, as before --operations was the default
	}
	if *duration < time.Second || *threads < 1 || *records < 1 || *regions < 1 || *ops < 0 {
		return usage("--duration must be at least 1s; --threads, --recordcount and --regions positive; --operations not negative")
	}
	if *portBase < 0 || *portBase > 65000 {
		return usage("--port-base %d: want 0 (free ports) or a port up to 65000", *portBase)
	}
	// The region servers would refuse a bad setting one by one, after
	// the first cluster started: check them all now.
	if _, err := conf.parse(); err != nil {
		return usage("%v", err)
	}
	return bench.ColocationConfig{Instances: counts, RecordCount: *records, OperationCount: *ops, Duration: *duration,
		Threads: *threads, Regions: *regions, ServerConf: conf.pairs(), OutDir: *out, DataDir: *data, PortBase: *portBase, Log: stderr}, -1
}
