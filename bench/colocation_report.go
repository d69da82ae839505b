package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

const mib = 1 << 20

// WriteColocation writes results.md, results.json and the charts
// (throughput and server CPU per operation against the instance count, PNG
// and SVG) into dir.
func WriteColocation(dir string, res *ColocationResult) error {
	var md strings.Builder
	run := fmt.Sprintf("for %gs each", res.DurationSec)
	if res.OperationCount > 0 {
		run = fmt.Sprintf("for %d operations each (at most %gs)", res.OperationCount, res.DurationSec)
	}
	fmt.Fprintf(&md, "# Region server co-location study\n\nStarted %s. For each count of region server instances on this host: a fresh cluster of separate processes (etcd, master, one process per region server), table usertable pre-split into %d regions, %d records loaded (1 KB each) and flushed, then YCSB workloads A (50/50 read/update) and F (read-modify-write) %s, zipfian, %d client threads. Each region server's CPU time, peak RSS (within the phase) and disk I/O come from /proc/<pid>.\n",
		res.Started, res.Regions, res.RecordCount, run, res.Threads)
	if len(res.ServerConf) > 0 {
		fmt.Fprintf(&md, "\nEvery region server ran with `-D %s`.\n", strings.Join(res.ServerConf, " -D "))
	}
	if res.Interrupted {
		md.WriteString("\n**Interrupted**: the tables cover the phases completed.\n")
	}
	md.WriteString("\n| Region servers | Workload | Runtime (s) | Operations | Throughput (ops/s) | p99 (ms) | Server CPU (s) | Server CPU per op (µs) | Peak RSS, sum (MiB) | Disk read (MiB) | Disk write (MiB) |\n")
	md.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Rows {
		var rss, rd, wr int64
		for _, s := range r.Servers {
			rss, rd, wr = rss+s.PeakRSS, rd+s.ReadBytes, wr+s.WriteBytes
		}
		errs := ""
		if r.Errors > 0 {
			errs = fmt.Sprintf(" (%d failed)", r.Errors)
		}
		fmt.Fprintf(&md, "| %d | %s | %.1f | %d%s | %.0f | %.2f | %.1f | %.0f | %.0f | %.1f | %.1f |\n", r.Instances, r.Workload,
			r.RunTimeSec, r.Operations, errs, r.Throughput, r.P99Ms, r.ServerCPUSec, r.CPUPerOpUs,
			float64(rss)/mib, float64(rd)/mib, float64(wr)/mib)
	}
	md.WriteString("\np99 is of INSERT (load), the worse of READ and UPDATE (A) and READ-MODIFY-WRITE (F). Server CPU is the region server processes' utime+stime over the phase (the master and etcd are not counted); disk bytes are /proc/<pid>/io's read_bytes and write_bytes (page-cache hits are not reads).\n")
	md.WriteString("\n## Per region server process\n\n| Region servers | Workload | Instance | PID | Regions | CPU (s) | Peak RSS (MiB) | Disk read (MiB) | Disk write (MiB) |\n")
	md.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Rows {
		for _, s := range r.Servers {
			fmt.Fprintf(&md, "| %d | %s | %d | %d | %d | %.1f | %.0f | %.1f | %.1f |\n", r.Instances, r.Workload, s.Instance,
				s.PID, s.Regions, s.CPUSec, float64(s.PeakRSS)/mib, float64(s.ReadBytes)/mib, float64(s.WriteBytes)/mib)
		}
	}
	md.WriteString("\n![throughput](throughput.png) ![server CPU per operation](cpu-per-op.png)\n")
	if err := writeResults(dir, md.String(), res); err != nil {
		return err
	}
	return writeColocationCharts(dir, res.Rows)
}

// writeColocationCharts draws one line per workload against the instance
// count: throughput, and region server CPU per operation.
func writeColocationCharts(dir string, rows []ColocationRow) error {
	var workloads []string
	seen := map[string]bool{}
	var counts []int
	seenN := map[int]bool{}
	for _, r := range rows {
		if !seen[r.Workload] {
			seen[r.Workload] = true
			workloads = append(workloads, r.Workload)
		}
		if !seenN[r.Instances] {
			seenN[r.Instances] = true
			counts = append(counts, r.Instances)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.Sort(counts)
	ticks := make([]plot.Tick, len(counts))
	for i, n := range counts {
		ticks[i] = plot.Tick{Value: float64(n), Label: strconv.Itoa(n)}
	}
	series := func(f func(ColocationRow) float64) []any {
		var out []any
		for _, w := range workloads {
			var xy plotter.XYs
			for _, r := range rows {
				if r.Workload == w {
					xy = append(xy, plotter.XY{X: float64(r.Instances), Y: f(r)})
				}
			}
			label := "workload " + w
			if w == "load" {
				label = "load"
			}
			out = append(out, label, xy)
		}
		return out
	}
	charts := []struct {
		file, title, ylabel string
		f                   func(ColocationRow) float64
	}{
		{"throughput", "throughput", "throughput (ops/s)", func(r ColocationRow) float64 { return r.Throughput }},
		{"cpu-per-op", "region server CPU per operation", "CPU per operation (µs)", func(r ColocationRow) float64 { return r.CPUPerOpUs }},
	}
	for _, c := range charts {
		p := plot.New()
		p.Title.Text = "Co-location study: " + c.title
		p.X.Label.Text = "region server instances on the host"
		p.Y.Label.Text = c.ylabel
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = float64(counts[0])-0.3, float64(counts[len(counts)-1])+0.3
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		if err := plotutil.AddLinePoints(p, series(c.f)...); err != nil {
			return err
		}
		p.Y.Max *= 1.3 // headroom for the legend
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, c.file+"."+ext)
			if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
	}
	return nil
}
