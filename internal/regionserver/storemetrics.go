package regionserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/storage"
)

// storeMetric is one figure of storage.Metrics exported as a gauge or a
// counter.
type storeMetric struct {
	desc  *prometheus.Desc
	typ   prometheus.ValueType
	value func(m *storage.Metrics) float64
}

// storeCollector exports the store's Pebble figures. It takes one
// storage.Engine.Metrics snapshot per scrape, so all figures of a scrape
// are consistent and Pebble is asked once.
type storeCollector struct {
	metrics func() storage.Metrics
	figures []storeMetric
	fsync   *prometheus.Desc
}

func newStoreCollector(metrics func() storage.Metrics) *storeCollector {
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	f := func(name string, typ prometheus.ValueType, help string, v func(m *storage.Metrics) float64) storeMetric {
		return storeMetric{desc: prometheus.NewDesc(name, help, nil, nil), typ: typ, value: v}
	}
	return &storeCollector{
		metrics: metrics,
		fsync: prometheus.NewDesc("weir_storage_wal_fsync_duration_seconds",
			"Latency of the WAL's fdatasyncs (FSYNC_WAL commits, the background sync, WAL rotations; a SYNC_WAL commit writes to the OS without one).", nil, nil),
		figures: []storeMetric{
			f("weir_storage_memtable_bytes", g, "Bytes allocated to the store's memtables (mutable and queued for flush).",
				func(m *storage.Metrics) float64 { return float64(m.MemTableSize) }),
			f("weir_storage_memtables", g, "Memtables, the mutable one and those queued for flush.",
				func(m *storage.Metrics) float64 { return float64(m.MemTableCount) }),
			f("weir_storage_flushes_total", c, "Memtable flushes since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.FlushCount) }),
			f("weir_storage_flushes_in_progress", g, "Memtable flushes running now.",
				func(m *storage.Metrics) float64 { return float64(m.FlushesInProgress) }),
			f("weir_storage_flushed_bytes_total", c, "SST bytes written by flushes since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.FlushedBytes) }),
			f("weir_storage_compactions_total", c, "Compactions since the store opened (moves included).",
				func(m *storage.Metrics) float64 { return float64(m.CompactionCount) }),
			f("weir_storage_compactions_in_progress", g, "Compactions running now.",
				func(m *storage.Metrics) float64 { return float64(m.CompactionsInProgress) }),
			f("weir_storage_compaction_in_progress_bytes", g, "Bytes the running compactions have written so far.",
				func(m *storage.Metrics) float64 { return float64(m.CompactionBytesInProgress) }),
			f("weir_storage_compacted_bytes_total", c, "SST bytes written by compactions since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.CompactedBytes) }),
			f("weir_storage_compaction_seconds_total", c, "Time spent in compactions since the store opened.",
				func(m *storage.Metrics) float64 { return m.CompactionDuration.Seconds() }),
			f("weir_storage_compaction_debt_bytes", g, "Pebble's estimate of the bytes to compact for the LSM to be in shape.",
				func(m *storage.Metrics) float64 { return float64(m.CompactionDebt) }),
			f("weir_storage_read_amplification", g, "The store's read amplification (sublevels a read may search).",
				func(m *storage.Metrics) float64 { return float64(m.ReadAmp) }),
			f("weir_storage_l0_files", g, "SST files in level 0.",
				func(m *storage.Metrics) float64 { return float64(m.L0Files) }),
			f("weir_storage_sstables", g, "SST files in all levels.",
				func(m *storage.Metrics) float64 { return float64(m.TableFiles) }),
			f("weir_storage_disk_bytes", g, "Bytes the store occupies on disk (SSTs, WAL, manifest).",
				func(m *storage.Metrics) float64 { return float64(m.DiskUsage) }),
			f("weir_storage_block_cache_bytes", g, "Bytes in the block cache.",
				func(m *storage.Metrics) float64 { return float64(m.BlockCacheSize) }),
			f("weir_storage_block_cache_hits_total", c, "Block cache hits since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.BlockCacheHits) }),
			f("weir_storage_block_cache_misses_total", c, "Block cache misses since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.BlockCacheMisses) }),
			f("weir_storage_block_cache_hit_ratio", g, "Block cache hits / lookups since the store opened (0 before any lookup).",
				func(m *storage.Metrics) float64 { return hitRatio(m.BlockCacheHits, m.BlockCacheMisses) }),
			f("weir_storage_wal_bytes_in_total", c, "Logical bytes written to the WAL since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.WALBytesIn) }),
			f("weir_storage_wal_bytes_written_total", c, "Physical bytes written to the WAL since the store opened.",
				func(m *storage.Metrics) float64 { return float64(m.WALBytesWritten) }),
		},
	}
}

func hitRatio(hits, misses int64) float64 {
	if hits+misses == 0 {
		return 0
	}
	return float64(hits) / float64(hits+misses)
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range c.figures {
		ch <- f.desc
	}
	ch <- c.fsync
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.metrics()
	for _, f := range c.figures {
		ch <- prometheus.MustNewConstMetric(f.desc, f.typ, f.value(&m))
	}
	h := m.WALFsync
	buckets := make(map[float64]uint64, len(h.Buckets))
	for _, b := range h.Buckets {
		buckets[b.UpperBound.Seconds()] = b.Count
	}
	ch <- prometheus.MustNewConstHistogram(c.fsync, h.Count, h.Sum.Seconds(), buckets)
}
