package webui

import (
	"fmt"
	"runtime/debug"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// figureSources maps metric names to the Figures field they fill.
var figureSources = map[string]func(f *Figures) *float64{
	"weir_rpc_open_connections":             func(f *Figures) *float64 { return &f.Conns },
	"weir_rpc_calls_in_flight":              func(f *Figures) *float64 { return &f.InFlight },
	"weir_rpc_calls_outstanding":            func(f *Figures) *float64 { return &f.Outstanding },
	"weir_rpc_response_queue_length":        func(f *Figures) *float64 { return &f.WriteQueue },
	"weir_process_resident_memory_bytes":    func(f *Figures) *float64 { return &f.RSSBytes },
	"weir_process_cpu_seconds_total":        func(f *Figures) *float64 { return &f.CPUSeconds },
	"go_memstats_heap_alloc_bytes":          func(f *Figures) *float64 { return &f.HeapBytes },
	"go_goroutines":                         func(f *Figures) *float64 { return &f.Goroutines },
	"weir_storage_memtable_bytes":           func(f *Figures) *float64 { return &f.Store.MemtableBytes },
	"weir_storage_memtables":                func(f *Figures) *float64 { return &f.Store.Memtables },
	"weir_storage_read_amplification":       func(f *Figures) *float64 { return &f.Store.ReadAmp },
	"weir_storage_l0_files":                 func(f *Figures) *float64 { return &f.Store.L0Files },
	"weir_storage_sstables":                 func(f *Figures) *float64 { return &f.Store.SSTables },
	"weir_storage_disk_bytes":               func(f *Figures) *float64 { return &f.Store.DiskBytes },
	"weir_storage_flushes_total":            func(f *Figures) *float64 { return &f.Store.Flushes },
	"weir_storage_compactions_total":        func(f *Figures) *float64 { return &f.Store.Compactions },
	"weir_storage_compactions_in_progress":  func(f *Figures) *float64 { return &f.Store.CompactionsInProgress },
	"weir_storage_compaction_debt_bytes":    func(f *Figures) *float64 { return &f.Store.CompactionDebtBytes },
	"weir_storage_block_cache_bytes":        func(f *Figures) *float64 { return &f.Store.BlockCacheBytes },
	"weir_storage_block_cache_hits_total":   func(f *Figures) *float64 { return &f.Store.BlockCacheHits },
	"weir_storage_block_cache_misses_total": func(f *Figures) *float64 { return &f.Store.BlockCacheMisses },
}

// FiguresFrom reads a server's figures from a Gather of its registry.
// Missing metrics read as zero.
func FiguresFrom(families []*dto.MetricFamily) Figures {
	f := Figures{Calls: map[string]float64{}}
	for _, fam := range families {
		name := fam.GetName()
		switch name {
		case "weir_rpc_calls_total":
			for _, m := range fam.GetMetric() {
				if label(m, "service") == "ClientService" {
					f.Calls[label(m, "method")] += m.GetCounter().GetValue()
				}
			}
			continue
		case "weir_storage_wal_fsync_duration_seconds":
			if ms := fam.GetMetric(); len(ms) > 0 {
				f.Store.WALFsyncs = float64(ms[0].GetHistogram().GetSampleCount())
				f.Store.WALFsyncSeconds = ms[0].GetHistogram().GetSampleSum()
			}
			continue
		}
		field, ok := figureSources[name]
		if !ok || len(fam.GetMetric()) == 0 {
			continue
		}
		m := fam.GetMetric()[0]
		switch {
		case m.Counter != nil:
			*field(&f) = m.GetCounter().GetValue()
		case m.Gauge != nil:
			*field(&f) = m.GetGauge().GetValue()
		}
	}
	return f
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// buildVersion names the binary: the main module's version, or the VCS
// revision it was built from (a "+dirty" suffix for local changes).
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v == "" || v == "(devel)" {
			return "git " + rev + dirty
		}
		return fmt.Sprintf("%s (git %s%s)", v, rev, dirty)
	}
	if v == "" {
		return "(devel)"
	}
	return strings.TrimSpace(v)
}
