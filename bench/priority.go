package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/client"
)

// PriorityStudyConfig is one `weir bench priority-study`: how much a
// latency-sensitive HIGH tenant suffers when a LOW tenant's scans saturate
// the region server. Tenant H reads single rows (YCSB workload C) from a
// few threads; tenant L scans 100 rows from many. Three phases per round:
// H alone; H with L, no priorities (both MEDIUM); H with L, H at PRIORITY
// HIGH and L at LOW (last, so that it never runs on colder caches than the
// phase it is compared with). The goal is H's p99 with L ≤ 1.2 × its p99
// alone.
type PriorityStudyConfig struct {
	// Master is the bootstrap address.
	Master string
	// Duration of each phase's measured run; Warmup runs before it.
	Duration, Warmup time.Duration
	// ThreadsHigh and ThreadsLow are the tenants' client threads
	// (defaults 1 and 32).
	ThreadsHigh, ThreadsLow int
	// ScanLength is the rows per scan of L (default 100).
	ScanLength int
	// RecordCount is loaded once if the table is missing (default 100000).
	RecordCount int64
	// Table (default usertable).
	Table string
	// ServerPID, if set, is the region server's process: its CPU time per
	// operation is reported (from /proc/<pid>/stat).
	ServerPID int
	// Rounds repeats the three phases, to show how much of a difference
	// is drift of the machine (default 1).
	Rounds int
	// LowAlone adds two phases of L alone, without priorities and at
	// PRIORITY LOW, to show that LOW work alone still gets the whole
	// server (work conservation).
	LowAlone bool
	// Command, if set, runs each tenant's YCSB client as its own process,
	// Command followed by `bench run -json ...` (the weir binary), so that
	// H's client is not scheduled by the same Go runtime as L's 32
	// threads; the clients' own CPU use is then reported. Empty: both
	// clients run in this process.
	Command []string
	// NiceLow, with Command, starts L's client under `nice -n NiceLow`: a
	// stand-in for a load generator on another machine, which competes
	// for the server's cores hardly at all. 0: not niced.
	NiceLow int
	// IdleLow, with Command, also starts L's client in the SCHED_IDLE
	// policy (`chrt --idle 0`): a nice-19 process still keeps a core it
	// was given for its slice when H's client or the server wakes on it
	// (the kernel's run-to-parity), a SCHED_IDLE one gives it up at
	// once, as a client on another machine would never take it.
	IdleLow bool
	// Log receives progress lines (may be nil).
	Log io.Writer
}

// The phases the goal compares.
const (
	phaseHighAlone = "HIGH alone"
	phaseBothPrio  = "HIGH + LOW scans, priorities"
)

// PriorityRow is one phase's result; latencies in milliseconds.
type PriorityRow struct {
	Phase string
	// ThruHigh and ThruLow are the tenants' operations per second; P50H
	// and P99High are H's latency percentiles.
	ThruHigh, ThruLow float64
	P50H, P99High     float64
	ErrorsH, ErrorsL  int64
	// CPUPerOpUs is the server's CPU time per operation (H's gets plus L's
	// scans), 0 when unknown.
	CPUPerOpUs float64
	// ServerCores, ClientHCores and ClientLCores are the CPU the server
	// and the two clients used, in cores (CPU time over the phase's wall
	// time); 0 when unknown (the clients' only with Command).
	ServerCores, ClientHCores, ClientLCores float64
}

const (
	prioUserHigh = "prio_high"
	prioUserLow  = "prio_low"
)

func (c *PriorityStudyConfig) defaults() {
	if c.Duration <= 0 {
		c.Duration = 20 * time.Second
	}
	if c.Warmup == 0 {
		c.Warmup = 2 * time.Second
	}
	if c.ThreadsHigh <= 0 {
		c.ThreadsHigh = 1
	}
	if c.ThreadsLow <= 0 {
		c.ThreadsLow = 32
	}
	if c.ScanLength <= 0 {
		c.ScanLength = 100
	}
	if c.RecordCount <= 0 {
		c.RecordCount = 100000
	}
	if c.Table == "" {
		c.Table = "usertable"
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Rounds <= 0 {
		c.Rounds = 1
	}
}

func (c *PriorityStudyConfig) props(role string, d time.Duration) Props {
	s := StudyConfig{Table: c.Table, RecordCount: c.RecordCount, Threads: c.ThreadsHigh}
	variant := "read"
	if role == "T" {
		s.Threads, variant = c.ThreadsLow, "scan"
	}
	p := s.props("run", role, variant, d)
	if role == "T" {
		p["minscanlength"], p["maxscanlength"] = strconv.Itoa(c.ScanLength), strconv.Itoa(c.ScanLength)
	}
	return p
}

// RunPriorityStudy runs the phases and returns their rows; both
// tenants' quota settings are removed at the end.
func RunPriorityStudy(ctx context.Context, cfg PriorityStudyConfig) ([]PriorityRow, error) {
	cfg.defaults()
	conn, err := connectAdmin(ctx, cfg.Master)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	admin := conn.Admin()
	clear := func(ctx context.Context) error {
		return errors.Join(admin.SetQuota(ctx, client.QuotaSettings{User: prioUserHigh, RemoveAll: true}),
			admin.SetQuota(ctx, client.QuotaSettings{User: prioUserLow, RemoveAll: true}))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := clear(rctx); err != nil {
			fmt.Fprintf(cfg.Log, "priority-study: removing the tenants' settings: %v\n", err)
		}
	}()
	exists, err := admin.TableExists(ctx, cfg.Table)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster: %w", err)
	}
	if !exists {
		fmt.Fprintf(cfg.Log, "priority-study: loading %d records into %s\n", cfg.RecordCount, cfg.Table)
		s := StudyConfig{Table: cfg.Table, RecordCount: cfg.RecordCount, Threads: 8}
		if _, err := Run(ctx, Config{Phase: "load", Props: s.props("load", "", "", 0), Master: cfg.Master, User: prioUserLow}); err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
	}
	prio := func(ctx context.Context) error {
		return errors.Join(admin.SetQuota(ctx, client.QuotaSettings{User: prioUserHigh, Priority: client.PriorityHigh}),
			admin.SetQuota(ctx, client.QuotaSettings{User: prioUserLow, Priority: client.PriorityLow}))
	}
	type phase struct {
		name      string
		settings  func(context.Context) error
		low, high bool
	}
	var phases []phase
	if cfg.LowAlone {
		phases = append(phases, phase{"LOW alone, no priorities", clear, true, false},
			phase{"LOW alone, priorities", prio, true, false})
	}
	// Each round measures H alone again: on a shared machine H's own tail
	// drifts by several times within minutes, so each ratio is taken
	// against the alone phase just before it.
	for range cfg.Rounds {
		phases = append(phases, phase{phaseHighAlone, prio, false, true},
			phase{"HIGH + LOW scans, no priorities", clear, true, true},
			phase{phaseBothPrio, prio, true, true})
	}
	// The first phase with L otherwise runs on cold caches: read the table
	// once first (L's scans for a while, nothing measured).
	if err := clear(ctx); err != nil {
		return nil, err
	}
	if cfg.Warmup > 0 {
		fmt.Fprintf(cfg.Log, "priority-study: warming the caches with %v of scans\n", 3*cfg.Warmup)
		if _, err := Run(ctx, Config{Phase: "run", Props: cfg.props("T", 3*cfg.Warmup), Master: cfg.Master, User: prioUserLow}); err != nil {
			return nil, fmt.Errorf("warming the caches: %w", err)
		}
	}
	var rows []PriorityRow
	for _, ph := range phases {
		if err := ph.settings(ctx); err != nil {
			return rows, fmt.Errorf("%s: setting priorities: %w", ph.name, err)
		}
		time.Sleep(200 * time.Millisecond) // enforced within 1 s, measured < 1 ms
		if cfg.Warmup > 0 {
			if _, err := cfg.runPhase(ctx, ph.high, ph.low, cfg.Warmup); err != nil {
				return rows, err
			}
		}
		cpu0 := procCPU(cfg.ServerPID)
		res, err := cfg.runPhase(ctx, ph.high, ph.low, cfg.Duration)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", ph.name, err)
		}
		cpu1 := procCPU(cfg.ServerPID)
		row := PriorityRow{Phase: ph.name}
		var ops float64
		if res.h.rep != nil {
			repH := res.h.rep
			row.ThruHigh, _, row.P99High, row.ErrorsH = summarize(repH)
			if len(repH.Ops) > 0 {
				row.P50H = float64(repH.Ops[0].P50Us) / 1000
			}
			ops += row.ThruHigh * float64(repH.RunTimeMs) / 1000
			row.ClientHCores = res.h.cores()
		}
		if res.l.rep != nil {
			row.ThruLow, _, _, row.ErrorsL = summarize(res.l.rep)
			ops += row.ThruLow * float64(res.l.rep.RunTimeMs) / 1000
			row.ClientLCores = res.l.cores()
		}
		if cpu0 >= 0 && cpu1 >= 0 && ops > 0 {
			row.CPUPerOpUs = (cpu1 - cpu0).Seconds() * 1e6 / ops
			row.ServerCores = (cpu1 - cpu0).Seconds() / res.wall.Seconds()
		}
		fmt.Fprintf(cfg.Log, "priority-study: %s: H %.0f ops/s p99 %.2f ms; L %.0f scans/s\n", ph.name, row.ThruHigh, row.P99High, row.ThruLow)
		rows = append(rows, row)
	}
	return rows, nil
}

// tenantRun is one tenant's client run in a phase.
type tenantRun struct {
	rep *Report
	// cpu is the client process's CPU time (0: unknown, in-process).
	cpu time.Duration
}

// cores is the client's CPU use over its run, in cores.
func (t tenantRun) cores() float64 {
	if t.cpu <= 0 || t.rep == nil || t.rep.RunTimeMs <= 0 {
		return 0
	}
	return t.cpu.Seconds() * 1000 / float64(t.rep.RunTimeMs)
}

type phaseResult struct {
	h, l tenantRun
	wall time.Duration
}

// runPhase runs H when high is set and L when low is set, concurrently,
// for d.
func (c *PriorityStudyConfig) runPhase(ctx context.Context, high, low bool, d time.Duration) (phaseResult, error) {
	var res phaseResult
	var wg sync.WaitGroup
	var errH, errL error
	start := time.Now()
	if low {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.l, errL = c.runTenant(ctx, "T", prioUserLow, d, true)
		}()
	}
	if high {
		res.h, errH = c.runTenant(ctx, "U", prioUserHigh, d, false)
	}
	wg.Wait()
	res.wall = time.Since(start)
	return res, errors.Join(errH, errL)
}

// runTenant runs one tenant's YCSB client for d: in this process, or as
// a child process (`weir bench run -json`) when c.Command is set, L's
// (low) under NiceLow and IdleLow.
func (c *PriorityStudyConfig) runTenant(ctx context.Context, role, user string, d time.Duration, low bool) (tenantRun, error) {
	props := c.props(role, d)
	if len(c.Command) == 0 {
		rep, err := Run(ctx, Config{Phase: "run", Props: props, Master: c.Master, User: user})
		return tenantRun{rep: rep}, err
	}
	argv := append(append([]string(nil), c.Command...), "bench", "run", "-json", "-user", user, "-master", c.Master)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		argv = append(argv, "-p", k+"="+props[k])
	}
	if low && c.NiceLow != 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(c.NiceLow)}, argv...)
	}
	if low && c.IdleLow {
		argv = append([]string{"chrt", "--idle", "0"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return tenantRun{}, fmt.Errorf("%s's client (%s): %w: %s", user, strings.Join(argv[:min(len(argv), 4)], " "), err, strings.TrimSpace(errOut.String()))
	}
	rep := &Report{}
	if err := json.Unmarshal(out.Bytes(), rep); err != nil {
		return tenantRun{}, fmt.Errorf("%s's client: reading its report: %w", user, err)
	}
	return tenantRun{rep: rep, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// procCPU is the user+system CPU time of process pid from /proc, or -1.
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return -1
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 (1-based), in clock ticks (100 per second on Linux).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+st) * 10 * time.Millisecond
}

// WritePriorityStudy prints the rows as a markdown table, with the p99
// ratio against the latest HIGH alone row before it.
func WritePriorityStudy(w io.Writer, cfg PriorityStudyConfig, rows []PriorityRow) {
	cfg.defaults()
	clients := "both clients in the study's process"
	if len(cfg.Command) > 0 {
		clients = "each client its own process"
		if cfg.NiceLow != 0 {
			clients += fmt.Sprintf(", L's under nice -n %d", cfg.NiceLow)
		}
		if cfg.IdleLow {
			clients += ", L's in SCHED_IDLE"
		}
	}
	fmt.Fprintf(w, "H: %d thread(s) of single-row reads as %s (PRIORITY HIGH); L: %d threads of %d-row scans as %s (PRIORITY LOW); %v per phase; %s\n\n",
		cfg.ThreadsHigh, prioUserHigh, cfg.ThreadsLow, cfg.ScanLength, prioUserLow, cfg.Duration, clients)
	fmt.Fprintln(w, "| phase | H ops/s | H p50 ms | H p99 ms | H p99 / alone | L scans/s | server CPU µs/op | cores: server / H client / L client | errors H/L |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var alone float64 // H's p99 in the latest alone phase
	for _, r := range rows {
		if r.ThruHigh > 0 && r.ThruLow == 0 {
			alone = r.P99High
		}
		ratio := "-"
		if alone > 0 && r.ThruHigh > 0 {
			ratio = fmt.Sprintf("%.2f×", r.P99High/alone)
		}
		cpu := "-"
		if r.CPUPerOpUs > 0 {
			cpu = fmt.Sprintf("%.0f", r.CPUPerOpUs)
		}
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.2f | %s | %.0f | %s | %s / %s / %s | %d/%d |\n",
			r.Phase, r.ThruHigh, r.P50H, r.P99High, ratio, r.ThruLow, cpu,
			coresCell(r.ServerCores), coresCell(r.ClientHCores), coresCell(r.ClientLCores), r.ErrorsH, r.ErrorsL)
	}
	if s, ok := SummarizePriorityRounds(rows); ok {
		fmt.Fprintf(w, "\nOver %d rounds: H p99 alone %.2f ms, with the scans and priorities %.2f ms (medians): %.2f×; per-round ratios %s (median %.2f×).\n",
			s.Rounds, s.AloneP99, s.PrioP99, s.PrioP99/s.AloneP99, ratioList(s.Ratios), s.MedianRatio)
	}
}

// PrioritySummary pools the rounds of a priority study: H's p99 alone and
// with the scans at PRIORITY, each the median over the rounds, and the
// rounds' own ratios. One round's alone phase drifts with the machine (H's
// p99 alone moved by 2× between rounds on a shared box), so the goal is
// judged on the medians.
type PrioritySummary struct {
	Rounds            int
	AloneP99, PrioP99 float64
	Ratios            []float64
	MedianRatio       float64
}

// SummarizePriorityRounds pairs every "HIGH + LOW scans, priorities" row
// with the "HIGH alone" row before it; ok is false with fewer than two
// such rounds.
func SummarizePriorityRounds(rows []PriorityRow) (PrioritySummary, bool) {
	var alone, prio, ratios []float64
	last := 0.0
	for _, r := range rows {
		switch r.Phase {
		case phaseHighAlone:
			last = r.P99High
		case phaseBothPrio:
			if last > 0 && r.P99High > 0 {
				alone, prio = append(alone, last), append(prio, r.P99High)
				ratios = append(ratios, r.P99High/last)
			}
		}
	}
	if len(ratios) < 2 {
		return PrioritySummary{}, false
	}
	return PrioritySummary{Rounds: len(ratios), AloneP99: median(alone), PrioP99: median(prio),
		Ratios: ratios, MedianRatio: median(ratios)}, true
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ratioList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f×", x)
	}
	return strings.Join(parts, " / ")
}

func coresCell(c float64) string {
	if c <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", c)
}
