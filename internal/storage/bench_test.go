package storage

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/cpumeter"
)

// BenchmarkCommit measures one-key batch commits of 1 KiB values on a real
// directory: FsyncWAL with one writer (one fsync per commit) and with 16
// and 32 concurrent writers (group commit shares fsyncs), SyncWAL (written
// to the OS, no fsync) with 1 and 16, and AsyncWAL, with the process CPU
// and the WAL fsyncs per commit.
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
		{"FsyncWAL/writers=1", FsyncWAL, 1},
		{"FsyncWAL/writers=16", FsyncWAL, 16},
		{"FsyncWAL/writers=32", FsyncWAL, 32},
		{"SyncWAL/writers=1", SyncWAL, 1},
		{"SyncWAL/writers=16", SyncWAL, 16},
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

// BenchmarkLoadLSM measures what a YCSB load costs the LSM: b.N rows of 10
// cells × 100 bytes under hashed row keys (YCSB's insert order), committed
// one row per batch without a WAL sync (the WAL is BenchmarkCommit's), then
// a flush and every compaction it triggers. It reports the process CPU and
// the bytes flushed and compacted per row, with the engine's defaults and
// with Pebble's default LSM shape for comparison (docs/performance.md,
// "Write path, round 4"). Run it with -benchtime 200000x: the LSM's shape
// only shows at a few hundred MB.
func BenchmarkLoadLSM(b *testing.B) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
	}{
		{"shape=weir", func(*Options) {}},
		{"shape=pebble", func(o *Options) {
			o.L0CompactionThreshold, o.LBaseMaxBytes, o.L0TargetFileSize = 4, 64<<20, 2<<20
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opts := DefaultOptions(b.TempDir())
			opts.CacheSize = 64 << 20
			tc.edit(&opts)
			e := openEngine(b, opts)
			value := make([]byte, 100)
			var key []byte
			row := make([]byte, 0, 32)
			quals := make([][]byte, 10)
			for f := range quals {
				quals[f] = fmt.Appendf(nil, "field%d", f)
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			stop := cpumeter.Start(b)
			i := uint64(0)
			for b.Loop() {
				row = fmt.Appendf(row[:0], "user%d", fnv64(i))
				batch := e.NewBatch()
				for f := range 10 {
					for j := range value { // YCSB's values: random printable bytes
						value[j] = byte(' ' + rnd.IntN(95))
					}
					key = AppendCellKey(key[:0], 1, row, []byte("family"), quals[f], 1, 4)
					if err := batch.Set(key, value); err != nil {
						b.Fatal(err)
					}
				}
				if err := batch.Commit(AsyncWAL); err != nil {
					b.Fatal(err)
				}
				_ = batch.Close()
				i++
			}
			if err := e.Flush(); err != nil {
				b.Fatal(err)
			}
			waitCompactions(b, e)
			stop()
			m := e.Metrics()
			b.ReportMetric(float64(m.FlushedBytes)/float64(b.N), "flushed-B/op")
			b.ReportMetric(float64(m.CompactedBytes)/float64(b.N), "compacted-B/op")
		})
	}
}

// fnv64 is YCSB's FNV-1a 64 hash of an insert number (its hashed order).
func fnv64(v uint64) uint64 {
	h := uint64(0xCBF29CE484222325)
	for range 8 {
		h ^= v & 0xff
		h *= 1099511628211
		v >>= 8
	}
	return h
}

// waitCompactions waits until no flush or compaction has run for 200 ms.
func waitCompactions(b *testing.B, e *Engine) {
	quiet := 0
	for quiet < 4 {
		time.Sleep(50 * time.Millisecond)
		m := e.Metrics()
		if m.FlushesInProgress == 0 && m.CompactionsInProgress == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
}
