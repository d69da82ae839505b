// Package cli maps weir's subcommands onto the packages that implement them.
// It parses flags, builds each component's Config and calls its Run; it holds
// no server logic of its own.
package cli

import (
	"fmt"
	"io"
	"runtime"
	"sort"
)

// Version is the Weir release, overridden at link time with
// -ldflags "-X github.com/weirdb/weir/internal/cli.Version=...".
var Version = "0.1.0-dev"

// command is one subcommand of the weir binary.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
	// pending names the issue that brings the command; a pending command
	// says so and fails instead of pretending to work.
	pending string
}

func commands() map[string]command {
	return map[string]command{
		"version":      {summary: "print the Weir version", run: runVersion},
		"help":         {summary: "show this help", run: nil},
		"standalone":   {summary: "run etcd, a master and region servers in one process", run: runStandalone},
		"master":       {summary: "run a master (distributed mode; --etcd URLS)", run: runMaster},
		"regionserver": {summary: "run region servers (distributed mode; --etcd URLS)", run: runRegionServer},
		"etcd":         {summary: "run a single-member etcd for a distributed cluster", run: runEtcd},
		"shell":        {summary: "HBase-syntax shell (--master host:port, -e CMDS, FILE)", run: runShell},
		"bench":        {summary: "YCSB-compatible benchmark (load|run -P workloads/workloada)", run: runBench},
	}
}

// Main runs the subcommand named by args[0] and returns the process exit
// status.
func Main(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "weir: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	if c.pending != "" {
		fmt.Fprintf(stderr, "weir %s: not available in this build yet; it arrives with the issue %q\n", args[0], c.pending)
		return 1
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: weir <command> [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		suffix := ""
		if cmds[n].pending != "" {
			suffix = " (not yet available)"
		}
		fmt.Fprintf(w, "  %-14s %s%s\n", n, cmds[n].summary, suffix)
	}
}

func runVersion(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "weir %s (%s %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
