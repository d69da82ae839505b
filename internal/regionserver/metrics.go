package regionserver

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/weirdb/weir/internal/rpcmetrics"
	"github.com/weirdb/weir/internal/storage"
)

// rsMetrics are one region server's Prometheus metrics, in a registry of
// its own (no globals: several instances share a process).
type rsMetrics struct {
	reg *prometheus.Registry
	rpc *rpcmetrics.RPC
}

func newMetrics(rs *RegionServer) *rsMetrics {
	m := &rsMetrics{reg: prometheus.NewRegistry()}
	m.rpc = rpcmetrics.New(m.reg)
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	store := func(f func(m storage.Metrics) float64) func() float64 {
		return func() float64 { return f(rs.engine.Metrics()) }
	}
	m.reg.MustRegister(
		gauge("weir_regionserver_regions", "Regions open on this region server.",
			func() float64 { return float64(len(rs.regions.all())) }),
		gauge("weir_storage_memtable_bytes", "Bytes in the store's memtables.",
			store(func(s storage.Metrics) float64 { return float64(s.MemTableSize) })),
		gauge("weir_storage_read_amplification", "The store's read amplification (sublevels to search).",
			store(func(s storage.Metrics) float64 { return float64(s.ReadAmp) })),
		gauge("weir_storage_l0_files", "SST files in level 0.",
			store(func(s storage.Metrics) float64 { return float64(s.L0Files) })),
		gauge("weir_storage_disk_bytes", "Bytes the store occupies on disk.",
			store(func(s storage.Metrics) float64 { return float64(s.DiskUsage) })),
		gauge("weir_storage_flushes", "Memtable flushes since the store opened.",
			store(func(s storage.Metrics) float64 { return float64(s.FlushCount) })),
		gauge("weir_storage_compactions", "Compactions since the store opened.",
			store(func(s storage.Metrics) float64 { return float64(s.CompactionCount) })),
		gauge("weir_storage_block_cache_hits", "Block cache hits since the store opened.",
			store(func(s storage.Metrics) float64 { return float64(s.BlockCacheHits) })),
		gauge("weir_storage_block_cache_misses", "Block cache misses since the store opened.",
			store(func(s storage.Metrics) float64 { return float64(s.BlockCacheMisses) })),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "weir"}),
	)
	return m
}

// serveHTTP serves /metrics on the info port until Close.
func (rs *RegionServer) serveHTTP() error {
	if rs.cfg.InfoPort < 0 {
		return nil
	}
	h, err := rpcmetrics.ListenHTTP(rs.cfg.Bind, rs.cfg.InfoPort, rs.metrics.reg)
	if err != nil {
		return err
	}
	rs.http, rs.infoAddr = h, h.Addr()
	rs.serveMoves(h)
	rs.group.Go(func(context.Context) {
		if err := h.Serve(); err != nil {
			rs.log.Error("regionserver: HTTP server stopped", "err", err)
		}
	})
	return nil
}
