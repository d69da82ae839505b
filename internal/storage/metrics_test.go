package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestMetricsSnapshot checks the figures the region server exports: the
// WAL fsync histogram counts synced commits and stays cumulative, and
// flush and compaction bytes grow with the work done.
func TestMetricsSnapshot(t *testing.T) {
	opts := testOptions(vfs.NewMem(), "/db")
	opts.DisableAutomaticCompactions = true
	e := openEngine(t, opts)
	if m := e.Metrics(); m.FlushedBytes != 0 || m.CompactedBytes != 0 {
		t.Fatalf("fresh engine: flushed %d, compacted %d bytes; want 0", m.FlushedBytes, m.CompactedBytes)
	}
	const syncs = 5
	for i := range syncs {
		commit(t, e, FsyncWAL, cellKV(fmt.Sprintf("row%d", i), "q", 1, "v"))
	}
	// Pebble's WAL writer records an fsync's latency just after waking the
	// committers it synced: the last one may lag the commit.
	m := e.Metrics()
	for deadline := time.Now().Add(5 * time.Second); m.WALFsync.Count < syncs && time.Now().Before(deadline); m = e.Metrics() {
		time.Sleep(time.Millisecond)
	}
	if m.WALFsync.Count < syncs {
		t.Errorf("WALFsync.Count = %d after %d synced commits", m.WALFsync.Count, syncs)
	}
	if len(m.WALFsync.Buckets) < 10 || len(m.WALFsync.Buckets) > 40 {
		t.Errorf("%d fsync buckets; want Pebble's 100 coarsened to 10..40", len(m.WALFsync.Buckets))
	}
	for i, b := range m.WALFsync.Buckets {
		if b.Count > m.WALFsync.Count {
			t.Errorf("bucket %v counts %d > total %d", b.UpperBound, b.Count, m.WALFsync.Count)
		}
		if i > 0 {
			prev := m.WALFsync.Buckets[i-1]
			if b.UpperBound < prev.UpperBound*3/2 || b.Count < prev.Count {
				t.Errorf("bucket %d (%v: %d) does not follow %v: %d", i, b.UpperBound, b.Count, prev.UpperBound, prev.Count)
			}
		}
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	commit(t, e, SyncWAL, cellKV("row0", "q", 1, "w")) // the same key: a merge, not a move
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := e.Compact(context.Background(), AppendTablePrefix(nil, 1), TableUpperBound(1)); err != nil {
		t.Fatal(err)
	}
	m = e.Metrics()
	if m.FlushCount < 2 || m.FlushedBytes == 0 || m.CompactionCount == 0 || m.CompactedBytes == 0 {
		t.Errorf("after 2 flushes and a compaction: %d flushes of %d bytes, %d compactions of %d bytes",
			m.FlushCount, m.FlushedBytes, m.CompactionCount, m.CompactedBytes)
	}
}
