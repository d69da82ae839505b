package storage

import (
	"time"
)

// Metrics is a point-in-time snapshot of the engine, free of Pebble types so
// the region server can export it without knowing Pebble.
type Metrics struct {
	MemTableSize              uint64
	MemTableCount             int64
	FlushCount                int64
	FlushesInProgress         int64
	FlushedBytes              uint64 // table bytes written by flushes since open
	CompactionCount           int64
	CompactionsInProgress     int64
	CompactionBytesInProgress int64
	CompactedBytes            uint64 // table bytes written by compactions since open
	CompactionDuration        time.Duration
	CompactionDebt            uint64
	ReadAmp                   int
	L0Files                   int64
	TableFiles                int64
	DiskUsage                 uint64
	BlockCacheSize            int64
	BlockCacheHits            int64
	BlockCacheMisses          int64
	WALBytesIn                uint64
	WALBytesWritten           uint64
	// WALFsync is the latency distribution of the WAL's fdatasyncs since
	// open (FsyncWAL commits, background syncs, WAL rotations; a SyncWAL
	// commit writes to the OS without one).
	WALFsync Histogram
}

// Histogram is a cumulative latency histogram: Buckets[i].Count counts the
// observations at or below Buckets[i].UpperBound.
type Histogram struct {
	Count   uint64
	Sum     time.Duration
	Buckets []Bucket
}

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	UpperBound time.Duration
	Count      uint64
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
	var flushed, compacted uint64
	for _, l := range m.Levels {
		files += l.TablesCount
		flushed += l.TableBytesFlushed
		compacted += l.TableBytesCompacted
	}
	out := Metrics{
		MemTableSize:              m.MemTable.Size,
		MemTableCount:             m.MemTable.Count,
		FlushCount:                m.Flush.Count,
		FlushesInProgress:         m.Flush.NumInProgress,
		FlushedBytes:              flushed,
		CompactionCount:           m.Compact.Count,
		CompactionsInProgress:     m.Compact.NumInProgress,
		CompactionBytesInProgress: m.Compact.InProgressBytes,
		CompactedBytes:            compacted,
		CompactionDuration:        m.Compact.Duration,
		CompactionDebt:            m.Compact.EstimatedDebt,
		ReadAmp:                   m.ReadAmp(),
		L0Files:                   m.Levels[0].TablesCount,
		TableFiles:                files,
		DiskUsage:                 m.DiskSpaceUsage(),
		BlockCacheSize:            m.BlockCache.Size,
		BlockCacheHits:            m.BlockCache.Hits,
		BlockCacheMisses:          m.BlockCache.Misses,
		WALBytesIn:                m.WAL.BytesIn,
		WALBytesWritten:           m.WAL.BytesWritten,
	}
	out.WALFsync = e.wal.syncs.snapshot()
	return out
}
