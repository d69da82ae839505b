package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	threads := fs.Int("threads", 0, "worker threads (threadcount; default 1)")
	target := fs.Float64("target", 0, "target throughput in ops/s over all threads (0: as fast as possible)")
	status := fs.Bool("s", false, "print a status line to stderr every 10 s")
	db := fs.String("db", "", "binding: hbase (default) or null")
	master := fs.String("master", "127.0.0.1:16000", "master address (host:port, comma separated for several)")
	user := fs.String("user", os.Getenv("USER"), "user name (tenant) the server sees")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of YCSB's text format")
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
	set := func(k, v string) error { return props.Set(k, v) }
	if *threads != 0 {
		_ = set("threadcount", strconv.Itoa(*threads))
	}
	if *target != 0 {
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
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
