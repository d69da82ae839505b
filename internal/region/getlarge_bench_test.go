package region

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
)

// BenchmarkGetLarge times point Gets of random rows in a store of YCSB's
// size, the shape of a region server under YCSB workload C: 100,000 rows of
// 10 cells × 100 random (incompressible) bytes, ~110 MB, so a Get reads a
// different SST file from the last one as often as the files are many.
//
//   - compacted: flushed and compacted to the bottom level, memtable empty;
//   - memtable: as compacted, then 30,000 rows updated and left in the
//     memtable (~45 MB of its 64 MB: a server between flushes of an
//     update-heavy load), so every Get also searches a large skiplist.
//   - hotversions: as memtable, and 64 hot rows given 400 single-field
//     updates each (~40 versions per column in the memtable, the rows a
//     zipfian YCSB A leaves behind for C); the Gets read only those rows,
//     so each skips its columns' older versions.
//   - hotversions/rowcache: as hotversions, through a row cache
//     (RowCache), which serves the hot rows after their first read.
//
// Each Get is checked for its 10 cells. Building the store takes ~10 s.
func BenchmarkGetLarge(b *testing.B) {
	const rows, updates = 100_000, 30_000
	for _, tc := range []struct {
		name     string
		updates  int
		hot      int
		rowCache bool
	}{{"compacted", 0, 0, false}, {"memtable", updates, 0, false}, {"hotversions", updates, 64, false},
		{"hotversions/rowcache", updates, 64, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var opts Options
			if tc.rowCache {
				opts.RowCache = NewRowCache(64 << 20)
			}
			r := largeBenchRegion(b, rows, tc.updates, opts)
			keys := make([][]byte, 4096)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range keys {
				keys[i] = []byte(benchKey("user", rng.IntN(rows)))
			}
			if tc.hot > 0 {
				addVersions(b, r, rows, tc.hot, 400)
				for i := range keys {
					keys[i] = []byte(benchKey("user", i%tc.hot))
				}
			}
			ctx := context.Background()
			var buf GetBuffer
			// In cache: the blocks of the rows read are in the block cache.
			for _, k := range keys {
				if _, err := r.GetInto(ctx, Get{Row: k}, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			stop := cpumeter.Start(b)
			i := 0
			for b.Loop() {
				res, err := timedGet(ctx, r, keys[i%len(keys)], &buf)
				if err != nil || len(res.Cells) != 10 {
					b.Fatalf("get: %d cells, %v", len(res.Cells), err)
				}
				i++
			}
			stop()
		})
	}
}

// largeBenchRegion loads rows random-valued 10-cell rows in batches,
// flushes and compacts them, then rewrites updates random rows, which stay
// in the memtable.
func largeBenchRegion(b *testing.B, rows, updates int, opts Options) *Region {
	b.Helper()
	ctx := context.Background()
	r := benchRegionOpts(b, AsyncWAL, opts)
	rng := rand.New(rand.NewPCG(3, 4))
	values := make([]byte, 1<<20)
	for i := range values {
		values[i] = byte(rng.Uint32())
	}
	row := func(n int) Mutation {
		m := Mutation{Type: MutationPut, Row: []byte(benchKey("user", n)), Cells: make([]cell.Cell, 10)}
		for f := range m.Cells {
			off := rng.IntN(len(values) - 100)
			m.Cells[f] = cell.Cell{Family: benchFamily, Qualifier: benchQualifiers[f], Timestamp: cell.LatestTimestamp, Value: values[off : off+100]}
		}
		return m
	}
	batch := make([]Mutation, 0, 100)
	write := func(n int) {
		batch = append(batch, row(n))
		if len(batch) == cap(batch) {
			if err := r.Mutate(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for i := 0; i < rows; i++ {
		write(i)
	}
	if err := r.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := r.Compact(ctx, false); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < updates; i++ {
		write(rng.IntN(rows))
	}
	if len(batch) > 0 {
		if err := r.Mutate(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	// Time the Gets only once no flush or compaction runs: those reshape
	// the store, which also empties the iterator pool.
	m := r.engine.Metrics()
	for deadline := time.Now().Add(time.Minute); m.FlushesInProgress+m.CompactionsInProgress > 0; m = r.engine.Metrics() {
		if time.Now().After(deadline) {
			b.Fatal("flushes and compactions still running after a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Logf("store: %d table files, read amp %d, %d MB on disk, memtable %d MB",
		m.TableFiles, m.ReadAmp, m.DiskUsage>>20, m.MemTableSize>>20)
	return r
}

// addVersions writes perRow single-field updates to each of the first hot
// rows (of rows), as YCSB's updates do, leaving them in the memtable.
func addVersions(b *testing.B, r *Region, rows, hot, perRow int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	value := make([]byte, 100)
	for range perRow {
		batch := make([]Mutation, 0, hot)
		for n := range min(hot, rows) {
			f := rng.IntN(len(benchQualifiers))
			batch = append(batch, Mutation{Type: MutationPut, Row: []byte(benchKey("user", n)),
				Cells: []cell.Cell{{Family: benchFamily, Qualifier: benchQualifiers[f], Timestamp: cell.LatestTimestamp, Value: value}}})
		}
		if err := r.Mutate(context.Background(), batch...); err != nil {
			b.Fatal(err)
		}
	}
}

// timedGet is the timed loop's Get, a function of its own so that
// instruction counters (valgrind --toggle-collect) can count the timed Gets
// alone, without the warm-up's.
//
//go:noinline
func timedGet(ctx context.Context, r *Region, row []byte, buf *GetBuffer) (Result, error) {
	return r.GetInto(ctx, Get{Row: row}, buf)
}
