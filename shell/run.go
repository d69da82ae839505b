package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/peterh/liner"

	"github.com/weirdb/weir/client"
)

// Config configures Run.
type Config struct {
	// Master is the bootstrap address, host:port (several may be given,
	// comma separated). Default 127.0.0.1:16000.
	Master string
	// User is the user the server sees. Default $USER, else "weir".
	User string
	// Stdin is read for commands in non-interactive mode without a
	// script. Default os.Stdin. Interactive mode always reads the
	// terminal on os.Stdin.
	Stdin io.Reader
	// Stdout receives command output; Stderr error lines. Default
	// os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Interactive runs the line editor with history and completion.
	Interactive bool
	// HistoryFile keeps the interactive history. Default ~/.weir_history.
	HistoryFile string
	// Logger receives the client's logs. Default: discard.
	Logger *slog.Logger
	// Version is printed by the version command.
	Version string
	// Now is the clock of the "Took" lines (tests fix it). Default
	// time.Now.
	Now func() time.Time
	// Location is the time zone of cell timestamps. Default UTC.
	Location *time.Location
	// ConnectTimeout bounds connecting to the cluster. Default 5 s.
	ConnectTimeout time.Duration
}

// EnsureDefaults fills unset fields.
func (c *Config) EnsureDefaults() {
	if c.Master == "" {
		c.Master = "127.0.0.1:16000"
	}
	if c.User == "" {
		c.User = os.Getenv("USER")
		if c.User == "" {
			c.User = "weir"
		}
	}
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.HistoryFile == "" {
		if home, err := os.UserHomeDir(); err == nil {
			c.HistoryFile = filepath.Join(home, ".weir_history")
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Location == nil {
		c.Location = time.UTC
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 5 * time.Second
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	for _, a := range strings.Split(c.Master, ",") {
		if _, _, err := net.SplitHostPort(strings.TrimSpace(a)); err != nil {
			return fmt.Errorf("shell: bad master address %q: want host:port", a)
		}
	}
	if c.ConnectTimeout < 0 {
		return fmt.Errorf("shell: negative connect timeout %v", c.ConnectTimeout)
	}
	return nil
}

// session is one shell run: its configuration and its connection, made on
// the first command that needs the server.
type session struct {
	cfg  Config
	out  io.Writer
	conn *client.Conn

	mu       sync.Mutex // guards the completion cache
	tables   []string
	tablesAt time.Time
}

func (s *session) connect(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	conn, err := client.Connect(cctx, s.cfg.Master, client.WithUser(s.cfg.User), client.WithLogger(s.cfg.Logger))
	if err != nil {
		return errorf("cannot connect to the Weir master at %s: %v", s.cfg.Master, err)
	}
	s.conn = conn
	return nil
}

func (s *session) close() {
	if s.conn != nil {
		s.conn.Close()
	}
}

// Run runs the shell and returns its exit status. With a script it runs
// the script's commands; otherwise, interactive, it reads commands from
// the terminal; otherwise from cfg.Stdin. Non-interactive runs stop at the
// first failing command and return 1.
func Run(ctx context.Context, cfg Config, script string) int {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(cfg.Stderr, "ERROR: %v\n", err)
		return 2
	}
	s := &session{cfg: cfg, out: cfg.Stdout}
	defer s.close()
	if script == "" && cfg.Interactive {
		return s.interactive(ctx)
	}
	if script == "" {
		b, err := io.ReadAll(cfg.Stdin)
		if err != nil {
			fmt.Fprintf(cfg.Stderr, "ERROR: reading commands: %v\n", err)
			return 1
		}
		script = string(b)
	}
	return s.runScript(ctx, script)
}

// runScript runs the commands of a non-interactive script, statement by
// statement (a statement continues over lines while it is incomplete).
func (s *session) runScript(ctx context.Context, script string) int {
	lines := strings.SplitAfter(script, "\n")
	multi := strings.Count(strings.TrimRight(script, "\n"), "\n") > 0
	buf, start := "", 1
	for i, line := range lines {
		if buf == "" {
			start = i + 1
		}
		buf += line
		cmds, err := Parse(buf)
		var se *SyntaxError
		if errors.As(err, &se) && se.Incomplete && i < len(lines)-1 {
			continue
		}
		stmt := buf
		buf = ""
		if err == nil {
			err = checkAll(cmds)
		}
		if err != nil {
			s.printErr(locate(err, stmt, start, multi))
			return 1
		}
		for _, c := range cmds {
			if err := s.run(ctx, c); err != nil {
				if err == errExit {
					return 0
				}
				s.printErr(err)
				return 1
			}
		}
	}
	return 0
}

// checkAll checks every command of a statement before any runs.
func checkAll(cmds []Command) error {
	for _, c := range cmds {
		if err := Check(c); err != nil {
			return err
		}
	}
	return nil
}

// locate prefixes a parse or check error with its column (and line, in
// a script of several lines).
func locate(err error, stmt string, firstLine int, multi bool) error {
	var col int
	var msg string
	var se *SyntaxError
	var ce *CheckError
	switch {
	case errors.As(err, &se):
		col, msg = se.Col, se.Msg
	case errors.As(err, &ce):
		col, msg = ce.Col, ce.Msg
	default:
		return err
	}
	line, c := errLocation(stmt, col)
	if multi {
		return errorf("line %d, column %d: %s", firstLine+line-1, c, msg)
	}
	if line > 1 {
		return errorf("line %d, column %d: %s", line, c, msg)
	}
	return errorf("column %d: %s", c, msg)
}

func (s *session) printErr(err error) {
	fmt.Fprintf(s.cfg.Stderr, "ERROR: %v\n", err)
}

// run connects if c needs the server, then executes c.
func (s *session) run(ctx context.Context, c Command) error {
	spec := Lookup(c.Name)
	if !localCommands[c.Name] && spec != nil && !unsupportedGroups[spec.Group] && !unsupportedCommands[c.Name] {
		if err := s.connect(ctx); err != nil {
			return err
		}
	}
	return s.execute(ctx, c)
}

// ---- interactive mode

func prompt(n, depth int, cont bool) string {
	if cont {
		return fmt.Sprintf("weir(main):%03d:%d* ", n, depth)
	}
	return fmt.Sprintf("weir(main):%03d:%d> ", n, depth)
}

func (s *session) interactive(ctx context.Context) int {
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		return s.complete(ctx, line, pos)
	})
	if f, err := os.Open(s.cfg.HistoryFile); err == nil {
		_, _ = ln.ReadHistory(f)
		f.Close()
	}
	saveHistory := func() {
		if s.cfg.HistoryFile == "" {
			return
		}
		if f, err := os.OpenFile(s.cfg.HistoryFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
			_, _ = ln.WriteHistory(f)
			f.Close()
		}
	}
	defer saveHistory()
	fmt.Fprintf(s.out, "Weir shell %s (HBase shell compatible); master %s\n", s.cfg.Version, s.cfg.Master)
	fmt.Fprintln(s.out, `Use "help" to get list of supported commands.`)
	fmt.Fprintln(s.out, `Use "exit" to quit this interactive shell.`)
	n := 1
	var parts []string
	for {
		line, err := ln.Prompt(prompt(n, 0, len(parts) > 0))
		if errors.Is(err, liner.ErrPromptAborted) {
			parts = nil
			continue
		}
		if err != nil { // io.EOF (Ctrl-D) or a terminal error
			fmt.Fprintln(s.out)
			return 0
		}
		n++
		parts = append(parts, line)
		stmt := strings.Join(parts, "\n")
		cmds, perr := Parse(stmt)
		var se *SyntaxError
		if errors.As(perr, &se) && se.Incomplete {
			continue
		}
		parts = nil
		if strings.TrimSpace(stmt) != "" {
			ln.AppendHistory(strings.ReplaceAll(stmt, "\n", " "))
		}
		if perr == nil {
			perr = checkAll(cmds)
		}
		if perr != nil {
			s.printErr(locate(perr, stmt, 1, false))
			continue
		}
		for _, c := range cmds {
			err := s.runInterruptible(ctx, c)
			if err == errExit {
				return 0
			}
			if err != nil {
				s.printErr(err)
				break
			}
		}
	}
}

// runInterruptible runs c with Ctrl-C cancelling it.
func (s *session) runInterruptible(ctx context.Context, c Command) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	return s.run(ctx, c)
}

var firstArgRE = regexp.MustCompile(`^([a-z_]+)(?:\s+|\s*\(\s*)(['"])([^'"]*)$`)

// complete completes command names at the start of a statement and table
// names inside the first quoted argument of a command that takes a table.
func (s *session) complete(ctx context.Context, line string, pos int) (head string, completions []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	before, tail := line[:pos], line[pos:]
	seg := before[strings.LastIndexByte(before, ';')+1:]
	trimmed := strings.TrimLeft(seg, " \t")
	if isWord(trimmed) {
		for _, sp := range Commands() {
			if strings.HasPrefix(sp.Name, trimmed) {
				completions = append(completions, sp.Name)
			}
		}
		return before[:len(before)-len(trimmed)], completions, tail
	}
	m := firstArgRE.FindStringSubmatch(trimmed)
	if m == nil {
		return before, nil, tail
	}
	sp := Lookup(m[1])
	if sp == nil || len(sp.Args) == 0 || !strings.HasPrefix(sp.Args[0].Name, "table") {
		return before, nil, tail
	}
	for _, t := range s.tableNames(ctx) {
		if strings.HasPrefix(t, m[3]) {
			completions = append(completions, t+m[2])
		}
	}
	return before[:len(before)-len(m[3])], completions, tail
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// tableNames returns the table names, cached for a few seconds.
func (s *session) tableNames(ctx context.Context) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables != nil && time.Since(s.tablesAt) < 5*time.Second {
		return s.tables
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.connect(ctx); err != nil {
		return nil
	}
	names, err := s.conn.Admin().ListTables(ctx, "")
	if err != nil {
		return nil
	}
	slices.Sort(names)
	s.tables, s.tablesAt = names, time.Now()
	return names
}
