package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/weirdb/weir/bench"
)

// listFlag collects a repeatable flag's values in order.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const benchUsage = `usage: weir bench load|run -P WORKLOADFILE [-p key=value]... [flags]
       weir bench throttle-study [flags]   (weir bench throttle-study -h)
       weir bench priority-study [flags]   (weir bench priority-study -h)
       weir bench colocation-study [flags] (weir bench colocation-study -h)

Runs YCSB's CoreWorkload against Weir (or any HBase 2.6 cluster) and prints
YCSB's report format. Property files are YCSB's (workloads/workloada ...
workloadf); -p overrides them, later ones winning.

load inserts recordcount records (or insertcount from insertstart). If the
table (-p table=..., default usertable) is missing, load creates it with the
family -p columnfamily=... (default "family"), pre-split into -p splits=N
regions (default 10) at quantiles of the keys it is about to insert, so
the hashed key space is spread evenly. run fails at once if the table is
missing.

-db null runs the driver against a binding that does nothing, to measure
the driver itself.
`

// runBench runs `weir bench load|run`.
func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "throttle-study" {
		return runThrottleStudy(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "priority-study" {
		return runPriorityStudy(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "colocation-study" {
		return runColocationStudy(args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "load" && args[0] != "run") {
		fmt.Fprint(stderr, benchUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return 0
		}
		return 2
	}
	phase := args[0]
	fs := flag.NewFlagSet("weir bench "+phase, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files, overrides listFlag
	fs.Var(&files, "P", "workload property file (repeatable)")
	fs.Var(&overrides, "p", "property override key=value (repeatable)")
	threads := fs.Int("threads", 1, "worker threads (threadcount)")
	target := fs.Float64("target", 0, "target throughput in ops/s over all threads (0: as fast as possible)")
	status := fs.Bool("s", false, "print a status line to stderr every status.interval seconds (default 10)")
	db := fs.String("db", "", "binding: hbase (default) or null")
	master := fs.String("master", "127.0.0.1:16000", "master address (host:port, comma separated for several)")
	user := fs.String("user", os.Getenv("USER"), "user name (tenant) the server sees")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of YCSB's text format")
	cpuProfile := fs.String("cpuprofile", "", "write the driver's own CPU profile (Go pprof format) to this file")
	fs.Usage = func() { fmt.Fprint(stderr, benchUsage+"\nflags:\n"); fs.PrintDefaults() }
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weir bench %s: unexpected argument %q\n", phase, fs.Arg(0))
		return 2
	}
	props := bench.Props{}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "weir bench %s: %v\n", phase, err)
		return 1
	}
	for _, f := range files {
		if err := props.LoadFile(f); err != nil {
			return fail(err)
		}
	}
	// Flags first, -p last: an explicit -p wins, as in YCSB.
	// A flag given, even as 0, sets its property, so that -threads 0 is
	// refused by the workload's check rather than taken as no flag.
	given := givenFlags(fs)
	set := func(k, v string) error { return props.Set(k, v) }
	if given["threads"] {
		_ = set("threadcount", strconv.Itoa(*threads))
	}
	if given["target"] {
		_ = set("target", strconv.FormatFloat(*target, 'f', -1, 64))
	}
	if *db != "" {
		_ = set("db", *db)
	}
	for _, o := range overrides {
		if err := props.SetOverride(o); err != nil {
			return fail(err)
		}
	}
	cfg := bench.Config{Phase: phase, Props: props, Master: *master, User: *user, Status: stderr}
	if *status {
		cfg.StatusInterval = 10 * time.Second
	}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		cfg.Progress = stderr
	}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return fail(err)
		}
		defer stopProfile()
	}
	// YCSB's exportfile: the report goes to that file instead of stdout.
	// It is opened before the run, so that a bad path fails before any
	// load, and emptied only when the report is there to replace it.
	out := stdout
	var export *os.File
	if path, ok := props["exportfile"]; ok {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
		if err != nil {
			return fail(fmt.Errorf("exportfile: %w", err))
		}
		defer f.Close()
		export, out = f, f
	}
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	if export != nil {
		if err := export.Truncate(0); err != nil {
			return fail(fmt.Errorf("exportfile: %w", err))
		}
	}
	if *asJSON {
		err = rep.WriteJSON(out)
	} else {
		err = rep.WriteText(out)
	}
	if export != nil && err == nil {
		err = export.Close()
	}
	if err != nil {
		return fail(err)
	}
	if rep.Interrupted {
		fmt.Fprintf(stderr, "weir bench %s: interrupted; the report covers the operations done so far\n", phase)
		return 130
	}
	return 0
}

const studyUsage = `usage: weir bench throttle-study [--master host:port] [--levels none,2500,2000,...]
       [--auto-levels] [--duration 20s] [--threads 8] [--variant read|scan|both]
       [--recordcount N] [--out DIR]

The request-throttling study of the HBase blog post "The HBase Request
Throttling Feature": users U and T run YCSB concurrently on their own
connections while T is throttled (request number per second) at each level
in turn; U is never throttled. Variant read: both read (workload C);
variant scan: U reads, T scans 100 rows. The table is loaded once
(recordcount records) if missing. Each level: set T's quota, wait 1 s, warm
up, then measure for --duration. By default T is measured unthrottled
first and then throttled at the seed's 2500/2000/1500/1000/500 req/s scaled
to that rate (the seed's T did 3,644 ops/s unthrottled: 69%, 55%, 41%, 27%
and 14% of it), for each variant; --levels gives fixed levels instead.
After the levels U runs once alone: the most its threads do by themselves,
which tells whether a total that falls as T is throttled is the server's
limit or U's own.
Writes results.md, results.json and
throughput/latency charts (PNG and SVG) into --out; T's quota is removed at
the end, also on Ctrl-C.
`

// runThrottleStudy runs `weir bench throttle-study`.
func runThrottleStudy(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir bench throttle-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	master := fs.String("master", "127.0.0.1:16000", "master address (host:port, comma separated for several)")
	levels := fs.String("levels", "", "T's throttles in req/s, none for no quota, e.g. none,2500,2000 (default: the seed's scaled to T's unthrottled rate)")
	auto := fs.Bool("auto-levels", false, "the seed's levels scaled to T's unthrottled rate (the default without --levels)")
	duration := fs.Duration("duration", 20*time.Second, "measured time per level (whole seconds)")
	warmup := fs.Duration("warmup", time.Second, "warm-up per level before measuring (0: none)")
	threads := fs.Int("threads", 8, "worker threads per user")
	variant := fs.String("variant", "read", "read (read+read), scan (read+scan) or both")
	records := fs.Int64("recordcount", 100000, "records to load if the table is missing")
	out := fs.String("out", "throttle-study", "output directory")
	fs.Usage = func() { fmt.Fprint(stderr, studyUsage+"\nflags:\n"); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "weir bench throttle-study: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	cfg := bench.StudyConfig{Master: *master, AutoLevels: *auto, Duration: *duration, Threads: *threads,
		RecordCount: *records, OutDir: *out, Log: stderr}
	if *auto && *levels != "" {
		return usage("--auto-levels and --levels %q: give one", *levels)
	}
	if *levels != "" {
		l, err := bench.ParseLevels(*levels)
		if err != nil {
			return usage("%v", err)
		}
		cfg.Levels = l
	}
	switch *variant {
	case "read", "scan":
		cfg.Variants = []string{*variant}
	case "both":
		cfg.Variants = []string{"read", "scan"}
	default:
		return usage("--variant %q: want read, scan or both", *variant)
	}
	if *duration < time.Second || *threads < 1 || *records < 1 {
		return usage("--duration must be at least 1s, --threads and --recordcount positive")
	}
	cfg.Warmup = *warmup
	if *warmup <= 0 {
		cfg.Warmup = -1
	}
	return runStudyCommand("throttle-study", cfg.OutDir, stdout, stderr, func(ctx context.Context) (bool, error) {
		res, err := bench.RunStudy(ctx, cfg)
		return res != nil && len(res.Rows) > 0, err
	})
}

// runStudyCommand runs a study until it ends or SIGINT/SIGTERM, prints
// the results.md it wrote into outDir (also the partial one of an
// interrupted study) and returns the exit status.
func runStudyCommand(name, outDir string, stdout, stderr io.Writer, run func(context.Context) (wrote bool, err error)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wrote, err := run(ctx)
	if wrote {
		if md, rerr := os.ReadFile(filepath.Join(outDir, "results.md")); rerr == nil {
			_, _ = stdout.Write(md)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "weir bench %s: %v\n", name, err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	return 0
}
