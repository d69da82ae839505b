package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/client"
)

// ColocationConfig is one `weir bench colocation-study`: the experiment of
// "Apache HBase: RegionServers co-location" (Berland, 2022) on one host.
// For each instance count a fresh cluster is started as real processes
// (an etcd, a master and one process per region server instance, all on
// this host), a table pre-split into Regions regions is loaded, and YCSB
// workloads A and F run in turn; each region server process's CPU time,
// peak RSS and disk I/O are read from /proc around every phase.
type ColocationConfig struct {
	// Command starts weir: Command[0] is the program and the rest come
	// before the subcommand. Default: this executable.
	Command []string
	// Env is added to the children's environment.
	Env []string
	// Instances are the region server counts to compare. Default 1, 2, 3.
	Instances []int
	// RecordCount rows are loaded per configuration. Default 100,000.
	RecordCount int64
	// OperationCount bounds each workload's operations; 0 runs each for
	// Duration. Default 0.
	OperationCount int64
	// Duration caps each workload's run (whole seconds). Default 30 s.
	Duration time.Duration
	// Threads are the client threads. Default 16.
	Threads int
	// Regions is the table's pre-split region count; the master spreads
	// them over the instances. Default 12 (even over 1, 2, 3 and 4).
	Regions int
	// OutDir receives results.md, results.json, the charts and logs/.
	// Default "colocation-study".
	OutDir string
	// DataDir holds the clusters' data, removed at the end. Default: a
	// new temporary directory.
	DataDir string
	// ServerConf are configuration settings, key=value as `weir
	// regionserver -D` takes them, given to every region server process:
	// the study's second part tunes the region servers (handlers, memory
	// for caches). Default none.
	ServerConf []string
	// PortBase, when positive, fixes the ports: etcd PortBase and +1,
	// master +2 (HTTP +3), region server i +10+i (HTTP +40+i). Default 0:
	// free ports.
	PortBase int
	// Log receives progress lines (may be nil).
	Log io.Writer
}

func (c *ColocationConfig) defaults() error {
	if len(c.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench: finding the weir binary: %w", err)
		}
		c.Command = []string{exe}
	}
	if len(c.Instances) == 0 {
		c.Instances = []int{1, 2, 3}
	}
	for _, n := range c.Instances {
		if n < 1 || n > 30 {
			return fmt.Errorf("bench: %d region server instances: want 1 to 30", n)
		}
	}
	if c.RecordCount <= 0 {
		c.RecordCount = 100000
	}
	if c.Duration <= 0 {
		c.Duration = 30 * time.Second
	}
	if c.Threads <= 0 {
		c.Threads = 16
	}
	if c.Regions <= 0 {
		c.Regions = 12
	}
	if c.OutDir == "" {
		c.OutDir = "colocation-study"
	}
	if c.PortBase < 0 || c.PortBase > 65535-40-30 {
		return fmt.Errorf("bench: port base %d out of range", c.PortBase)
	}
	for _, kv := range c.ServerConf {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("bench: region server setting %q: want key=value", kv)
		}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

// ColocationWorkloads are the workloads run after the load, as in the
// seed: YCSB's workloada and workloadf (the files in workloads/).
var ColocationWorkloads = []struct {
	Name  string
	Props Props
}{
	{"A", Props{"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0",
		"insertproportion": "0", "readmodifywriteproportion": "0", "requestdistribution": "zipfian", "readallfields": "true"}},
	{"F", Props{"readproportion": "0.5", "updateproportion": "0", "scanproportion": "0",
		"insertproportion": "0", "readmodifywriteproportion": "0.5", "requestdistribution": "zipfian", "readallfields": "true"}},
}

// ServerStats is one region server process over one phase. CPU and disk
// figures are the phase's deltas; PeakRSS is the resident set's
// high-water mark during the phase (reset at its start through
// /proc/<pid>/clear_refs).
type ServerStats struct {
	Instance   int     `json:"instance"`
	PID        int     `json:"pid"`
	Regions    int     `json:"regions"`
	CPUSec     float64 `json:"cpu_sec"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	ReadBytes  int64   `json:"disk_read_bytes"`
	WriteBytes int64   `json:"disk_write_bytes"`
}

// ColocationRow is one phase (load, A or F) of one configuration.
type ColocationRow struct {
	Instances  int     `json:"instances"`
	Workload   string  `json:"workload"`
	RunTimeSec float64 `json:"runtime_sec"`
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_sec"`
	// P99Ms is the p99 latency of the phase's main operation (INSERT,
	// READ/UPDATE's worst for A, READ-MODIFY-WRITE for F).
	P99Ms float64 `json:"p99_ms"`
	// Errors counts failed operations.
	Errors int64 `json:"errors,omitempty"`
	// ServerCPUSec sums the region servers' CPU; CPUPerOpUs divides it by
	// Operations.
	ServerCPUSec float64       `json:"server_cpu_sec"`
	CPUPerOpUs   float64       `json:"server_cpu_per_op_us"`
	Servers      []ServerStats `json:"servers"`
}

// ColocationResult is the whole study.
type ColocationResult struct {
	Started        string          `json:"started"`
	RecordCount    int64           `json:"recordcount"`
	OperationCount int64           `json:"operationcount,omitempty"`
	DurationSec    float64         `json:"max_duration_sec"`
	Threads        int             `json:"threads"`
	Regions        int             `json:"regions"`
	ServerConf     []string        `json:"server_conf,omitempty"`
	Rows           []ColocationRow `json:"rows"`
	Interrupted    bool            `json:"interrupted,omitempty"`
}

// RunColocation runs the study and writes its results into cfg.OutDir,
// also the configurations completed so far when ctx is cancelled. Every
// process it starts is stopped before it returns.
func RunColocation(ctx context.Context, cfg ColocationConfig) (*ColocationResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if _, err := readProc(os.Getpid()); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.OutDir, "logs"), 0o755); err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "weir-colocation-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		cfg.DataDir = d
	}
	res := &ColocationResult{Started: time.Now().UTC().Format("2006-01-02 15:04 UTC"), RecordCount: cfg.RecordCount,
		OperationCount: cfg.OperationCount, DurationSec: math.Ceil(cfg.Duration.Seconds()), Threads: cfg.Threads, Regions: cfg.Regions, ServerConf: cfg.ServerConf}
	var runErr error
	for _, n := range cfg.Instances {
		rows, err := cfg.runConfiguration(ctx, n)
		res.Rows = append(res.Rows, rows...)
		if err != nil {
			runErr = fmt.Errorf("%d region server(s): %w", n, err)
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	return res, finishStudy(ctx, runErr, &res.Interrupted, func() error { return WriteColocation(cfg.OutDir, res) })
}

// runConfiguration starts a cluster with n region server processes, runs
// the load and the workloads, and stops the cluster.
func (c *ColocationConfig) runConfiguration(ctx context.Context, n int) (rows []ColocationRow, err error) {
	fmt.Fprintf(c.Log, "colocation-study: %d region server(s): starting\n", n)
	cl, err := startProcCluster(ctx, c, n)
	if cl != nil {
		defer func() {
			if cerr := cl.stop(); cerr != nil && err == nil {
				err = cerr
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	base := Props{"workload": "site.ycsb.workloads.CoreWorkload", "table": "usertable",
		"recordcount": strconv.FormatInt(c.RecordCount, 10), "threadcount": strconv.Itoa(c.Threads),
		"splits": strconv.Itoa(c.Regions)}
	phases := []struct {
		name, phase string
		props       Props
	}{{"load", "load", nil}}
	for _, w := range ColocationWorkloads {
		phases = append(phases, struct {
			name, phase string
			props       Props
		}{w.Name, "run", w.Props})
	}
	for _, ph := range phases {
		p := Props{}
		for k, v := range base {
			p[k] = v
		}
		for k, v := range ph.props {
			p[k] = v
		}
		if ph.phase == "run" {
			p["operationcount"] = strconv.FormatInt(c.OperationCount, 10)
			p["maxexecutiontime"] = strconv.FormatInt(max(1, int64(math.Ceil(c.Duration.Seconds()))), 10)
		}
		row, err := cl.measure(ctx, ph.name, ph.phase, p)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", ph.name, err)
		}
		rows = append(rows, row)
		fmt.Fprintf(c.Log, "colocation-study: %d region server(s): %s: %.0f ops/s, %.1f µs server CPU per op\n",
			n, ph.name, row.Throughput, row.CPUPerOpUs)
		if ctx.Err() != nil {
			return rows, nil
		}
		if ph.phase == "load" {
			// The load's memtables are flushed between the phases, not
			// charged to the first workload's CPU and disk writes.
			if err := cl.flush(ctx); err != nil {
				return rows, fmt.Errorf("flushing after the load: %w", err)
			}
		}
	}
	return rows, nil
}

// flush flushes usertable on every region server.
func (cl *procCluster) flush(ctx context.Context) error {
	return cl.withAdmin(ctx, func(a *client.Admin) error { return a.Flush(ctx, "usertable") })
}

// withAdmin runs fn with an admin client of the cluster.
func (cl *procCluster) withAdmin(ctx context.Context, fn func(*client.Admin) error) error {
	conn, err := client.Connect(ctx, cl.master, client.WithRetries(3))
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn.Admin())
}

// measure runs one phase and reads the region servers' counters around it.
func (cl *procCluster) measure(ctx context.Context, name, phase string, p Props) (ColocationRow, error) {
	row := ColocationRow{Instances: len(cl.servers), Workload: name}
	before := make([]procSample, len(cl.servers))
	for i, s := range cl.servers {
		// The phase's own peak, not the load's repeated: the high-water
		// mark restarts from the current RSS. Where the kernel refuses,
		// the peak stays the process's since it started.
		_ = resetPeakRSS(s.pid())
		var err error
		if before[i], err = readProc(s.pid()); err != nil {
			return row, err
		}
	}
	rep, err := Run(ctx, Config{Phase: phase, Props: p, Master: cl.master, User: "colocation"})
	if err != nil {
		return row, err
	}
	regions, err := cl.regionsPerServer(ctx)
	if err != nil {
		return row, err
	}
	for i, s := range cl.servers {
		after, err := readProc(s.pid())
		if err != nil {
			return row, fmt.Errorf("region server %d (pid %d): %w", i, s.pid(), err)
		}
		st := ServerStats{Instance: i, PID: s.pid(), Regions: regions[i],
			CPUSec:  float64(after.CPUTicks-before[i].CPUTicks) / clockTicks,
			PeakRSS: after.PeakRSS, ReadBytes: after.ReadBytes - before[i].ReadBytes,
			WriteBytes: after.WriteBytes - before[i].WriteBytes}
		row.Servers = append(row.Servers, st)
		row.ServerCPUSec += st.CPUSec
	}
	row.RunTimeSec = float64(rep.RunTimeMs) / 1000
	row.Operations, row.Throughput = rep.Operations, rep.Throughput
	if row.Operations > 0 {
		row.CPUPerOpUs = row.ServerCPUSec * 1e6 / float64(row.Operations)
	}
	main := map[string]bool{"INSERT": true, "READ": name == "A", "UPDATE": name == "A", "READ-MODIFY-WRITE": true}
	for _, o := range rep.Ops {
		row.Errors += o.Returns["ERROR"]
		if main[o.Name] {
			row.P99Ms = math.Max(row.P99Ms, float64(o.P99Us)/1000)
		}
	}
	return row, nil
}

// regionsPerServer counts usertable's regions on each region server.
func (cl *procCluster) regionsPerServer(ctx context.Context) ([]int, error) {
	var regions []client.RegionInfo
	err := cl.withAdmin(ctx, func(a *client.Admin) (err error) {
		regions, err = a.Regions(ctx, "usertable")
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]int, len(cl.servers))
	for _, r := range regions {
		for i, s := range cl.servers {
			if r.Server == s.addr {
				out[i]++
			}
		}
	}
	return out, nil
}
