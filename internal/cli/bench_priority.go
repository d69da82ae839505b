package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/weirdb/weir/bench"
)

const priorityUsage = `usage: weir bench priority-study [flags]

Measures PRIORITY on a saturated region server: tenant prio_high reads
single rows from a few threads while tenant prio_low scans from many.
Three phases per round: prio_high alone; both without priorities; both,
prio_high at PRIORITY HIGH and prio_low at LOW. Prints prio_high's p50/p99
and its p99 against the round's alone phase (the goal is at most 1.2x), prio_low's
scans/s and, with --server-pid, the server's CPU time per operation.
Loads --recordcount records into usertable if it is missing.

--separate-clients runs each tenant's client as its own weir process
(weir bench run -json) and reports the CPU each used; --nice-low N then
starts prio_low's client under nice -n N, a stand-in for a load generator
on another machine when the clients share the server's cores, and
--idle-low also runs it in the SCHED_IDLE policy (chrt --idle 0), so that
it never keeps a core that H's client or the server wakes up on.
--low-alone adds two phases of prio_low alone (without priorities, and at
PRIORITY LOW) to show that LOW work alone gets the whole server.

The region server decides how much LOW work runs while HIGH work is
active: by default LOW keeps using the cores HIGH leaves idle
(work-conserving); started with -D weir.regionserver.low.busy.limit=0 it
holds LOW back entirely while HIGH is active (strict priority).
`

// runPriorityStudy runs `weir bench priority-study`.
func runPriorityStudy(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir bench priority-study", flag.ContinueOnError)
	fs.SetOutput(stderr)
	master := fs.String("master", "127.0.0.1:16000", "master address")
	duration := fs.Duration("duration", 20*time.Second, "measured time per phase")
	warmup := fs.Duration("warmup", 2*time.Second, "warm-up per phase")
	high := fs.Int("threads-high", 1, "prio_high's client threads")
	low := fs.Int("threads-low", 32, "prio_low's client threads")
	scanLen := fs.Int("scan-length", 100, "rows per prio_low scan")
	records := fs.Int64("recordcount", 100000, "records to load if the table is missing")
	pid := fs.Int("server-pid", 0, "region server process id, for its CPU time per operation")
	rounds := fs.Int("rounds", 1, "repeat the three phases this many times")
	separate := fs.Bool("separate-clients", false, "run each tenant's client as its own weir process")
	niceLow := fs.Int("nice-low", 0, "with --separate-clients: run prio_low's client under nice -n N (1-19)")
	idleLow := fs.Bool("idle-low", false, "with --separate-clients: run prio_low's client in the SCHED_IDLE policy (chrt --idle 0)")
	lowAlone := fs.Bool("low-alone", false, "add phases of prio_low alone, without and with priorities")
	fs.Usage = func() { fmt.Fprint(stderr, priorityUsage+"\nflags:\n"); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *duration < time.Second || *high < 1 || *low < 1 || *scanLen < 1 || *records < 1 || *rounds < 1 {
		fmt.Fprintln(stderr, "weir bench priority-study: --duration must be at least 1s; threads, scan length, record count and rounds positive; no arguments")
		return 2
	}
	if *niceLow < 0 || *niceLow > 19 || (*niceLow != 0 && !*separate) {
		fmt.Fprintln(stderr, "weir bench priority-study: --nice-low must be 0-19 and needs --separate-clients")
		return 2
	}
	if *idleLow && !*separate {
		fmt.Fprintln(stderr, "weir bench priority-study: --idle-low needs --separate-clients")
		return 2
	}
	cfg := bench.PriorityStudyConfig{Master: *master, Duration: *duration, Warmup: *warmup, ThreadsHigh: *high,
		ThreadsLow: *low, ScanLength: *scanLen, RecordCount: *records, ServerPID: *pid, Rounds: *rounds,
		LowAlone: *lowAlone, NiceLow: *niceLow, IdleLow: *idleLow, Log: stderr}
	if *separate {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "weir bench priority-study: --separate-clients: finding this binary: %v\n", err)
			return 1
		}
		cfg.Command = []string{exe}
	}
	if *warmup <= 0 {
		cfg.Warmup = -1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rows, err := bench.RunPriorityStudy(ctx, cfg)
	if len(rows) > 0 {
		bench.WritePriorityStudy(stdout, cfg, rows)
	}
	if err != nil {
		fmt.Fprintf(stderr, "weir bench priority-study: %v\n", err)
		return 1
	}
	return 0
}
