package storage

// Metrics is a point-in-time snapshot of the engine, free of Pebble types so
// the region server can export it without knowing Pebble.
type Metrics struct {
	MemTableSize     uint64
	MemTableCount    int64
	FlushCount       int64
	CompactionCount  int64
	CompactionDebt   uint64
	ReadAmp          int
	L0Files          int64
	TableFiles       int64
	DiskUsage        uint64
	BlockCacheSize   int64
	BlockCacheHits   int64
	BlockCacheMisses int64
	WALBytesIn       uint64
	WALBytesWritten  uint64
}

// Metrics returns the engine's current metrics.
// A closed engine reports zeros.
func (e *Engine) Metrics() Metrics {
	if e.enter() != nil {
		return Metrics{}
	}
	defer e.exit()
	m := e.db.Metrics()
	var files int64
	for _, l := range m.Levels {
		files += l.TablesCount
	}
	return Metrics{
		MemTableSize:     m.MemTable.Size,
		MemTableCount:    m.MemTable.Count,
		FlushCount:       m.Flush.Count,
		CompactionCount:  m.Compact.Count,
		CompactionDebt:   m.Compact.EstimatedDebt,
		ReadAmp:          m.ReadAmp(),
		L0Files:          m.Levels[0].TablesCount,
		TableFiles:       files,
		DiskUsage:        m.DiskSpaceUsage(),
		BlockCacheSize:   m.BlockCache.Size,
		BlockCacheHits:   m.BlockCache.Hits,
		BlockCacheMisses: m.BlockCache.Misses,
		WALBytesIn:       m.WAL.BytesIn,
		WALBytesWritten:  m.WAL.BytesWritten,
	}
}
