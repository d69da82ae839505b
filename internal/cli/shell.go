package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/weirdb/weir/shell"
)

// runShell runs `weir shell [--master host:port] [--user NAME] [-e 'cmds'] [FILE]`.
func runShell(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	master := fs.String("master", "127.0.0.1:16000", "master address (host:port, comma separated for several)")
	user := fs.String("user", os.Getenv("USER"), "user name the server sees")
	exec := fs.String("e", "", "run these commands (separated by ; or newlines) and exit")
	history := fs.String("history", "", "interactive history file (default ~/.weir_history)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: weir shell [--master host:port] [--user NAME] [-e 'cmd; cmd'] [FILE]")
		fmt.Fprintln(stderr, "Without -e or FILE, commands are read from the terminal (interactive) or from stdin.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 || (fs.NArg() == 1 && *exec != "") {
		fmt.Fprintln(stderr, "weir shell: give -e or one FILE, not both")
		return 2
	}
	cfg := shell.Config{Master: *master, User: *user, Stdout: stdout, Stderr: stderr, HistoryFile: *history, Version: Version}
	script := *exec
	if fs.NArg() == 1 {
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(stderr, "weir shell: %v\n", err)
			return 1
		}
		if len(b) == 0 {
			return 0
		}
		script = string(b)
	} else if script == "" {
		cfg.Interactive = isTerminal(os.Stdin) && stdout == os.Stdout
	}
	// Interactive: Ctrl-C cancels the running command only (the shell
	// handles it); otherwise it stops the shell.
	sigs := []os.Signal{syscall.SIGTERM}
	if !cfg.Interactive {
		sigs = append(sigs, os.Interrupt)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	return shell.Run(ctx, cfg, script)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
