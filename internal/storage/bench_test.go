package storage

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/cpumeter"
)

// BenchmarkCommit measures one-key batch commits of 1 KiB values on a real
// directory: SyncWAL with one writer (one fsync per commit) and with 32
// concurrent writers (group commit shares fsyncs), and AsyncWAL, with the
// process CPU and the WAL fsyncs per commit.
func BenchmarkCommit(b *testing.B) {
	value := make([]byte, 1<<10)
	for i := range value {
		value[i] = byte(i)
	}
	open := func(b *testing.B) *Engine {
		opts := testOptions(vfs.Default, b.TempDir())
		opts.MemTableSize = 64 << 20
		return openEngine(b, opts)
	}
	commitOne := func(b *testing.B, e *Engine, key []byte, d Durability) {
		batch := e.NewBatch()
		if err := batch.Set(key, value); err != nil {
			b.Fatal(err)
		}
		if err := batch.Commit(d); err != nil {
			b.Fatal(err)
		}
		_ = batch.Close()
	}
	for _, tc := range []struct {
		name    string
		d       Durability
		writers int
	}{
		{"SyncWAL/writers=1", SyncWAL, 1},
		{"SyncWAL/writers=16", SyncWAL, 16},
		{"SyncWAL/writers=32", SyncWAL, 32},
		{"AsyncWAL/writers=1", AsyncWAL, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := open(b)
			fsyncs := e.Metrics().WALFsync.Count
			b.SetBytes(int64(len(value)))
			b.ReportAllocs()
			stop := cpumeter.Start(b)
			if tc.writers == 1 {
				key := make([]byte, 0, 16)
				i := 0
				for b.Loop() {
					key = fmt.Appendf(key[:0], "k%012d", i)
					commitOne(b, e, key, tc.d)
					i++
				}
			} else {
				// RunParallel starts parallelism × GOMAXPROCS goroutines.
				procs := runtime.GOMAXPROCS(0)
				b.SetParallelism((tc.writers + procs - 1) / procs)
				var next atomic.Int64
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					key := make([]byte, 0, 16)
					for pb.Next() {
						key = fmt.Appendf(key[:0], "k%012d", next.Add(1))
						commitOne(b, e, key, tc.d)
					}
				})
			}
			stop()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(e.Metrics().WALFsync.Count-fsyncs)/float64(b.N), "fsyncs/op")
		})
	}
}
