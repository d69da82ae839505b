package region

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/storage"
)

// benchRegion opens a region on a real directory (fsync costs are real).
func benchRegion(b *testing.B, durability Durability) *Region {
	return benchRegionOpts(b, durability, Options{})
}

func benchRegionOpts(b *testing.B, durability Durability, opts Options) *Region {
	b.Helper()
	e, err := storage.Open(storage.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	r, err := Open(e, Info{TableID: 1}, TableDescriptor{Name: "usertable", Durability: durability,
		Families: []FamilyDescriptor{{Name: []byte("family")}}}, opts)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

var (
	benchValue = func() []byte {
		v := make([]byte, 100)
		for i := range v {
			v[i] = byte('a' + i%26)
		}
		return v
	}()
	benchQualifiers = func() [][]byte {
		q := make([][]byte, 10)
		for i := range q {
			q[i] = []byte(fmt.Sprintf("field%d", i))
		}
		return q
	}()
	benchFamily = []byte("family")
)

// row10x100 is a YCSB-like row: 10 cells of 100 bytes (1 KB). It builds
// only what a decoded request would hold, so the benchmark times the
// region, not fmt.
func row10x100(key string) Mutation {
	m := Mutation{Type: MutationPut, Row: []byte(key), Cells: make([]cell.Cell, 10)}
	for f := range m.Cells {
		m.Cells[f] = cell.Cell{Family: benchFamily, Qualifier: benchQualifiers[f], Timestamp: cell.LatestTimestamp, Value: benchValue}
	}
	return m
}

// benchKey formats YCSB-style keys without fmt.
func benchKey(prefix string, n int) string {
	b := []byte(prefix + "000000000000")
	for i := len(b) - 1; n > 0 && i >= len(prefix); i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// loadedBenchRegion returns a region holding rows YCSB-like rows, flushed;
// with compact, also compacted, so that no background compaction runs inside
// the timed loop (its CPU would be charged to the reads) and the data sits in
// one level, as a steady-state store's does.
func loadedBenchRegion(b *testing.B, rows int, compact bool) *Region {
	b.Helper()
	ctx := context.Background()
	r := benchRegion(b, AsyncWAL)
	for i := 0; i < rows; i++ {
		if err := r.Mutate(ctx, row10x100(fmt.Sprintf("user%08d", i))); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if compact {
		if err := r.Compact(ctx, false); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

func BenchmarkGet(b *testing.B) {
	benchGet(b, func(r *Region, g Get) (Result, error) { return r.Get(context.Background(), g) })
}

// BenchmarkGetInto is BenchmarkGet reading into one reused GetBuffer.
func BenchmarkGetInto(b *testing.B) {
	var buf GetBuffer
	benchGet(b, func(r *Region, g Get) (Result, error) { return r.GetInto(context.Background(), g, &buf) })
}

// benchGet times point gets of 10-cell rows, in cache, through get.
func benchGet(b *testing.B, get func(*Region, Get) (Result, error)) {
	const rows = 10000
	r := loadedBenchRegion(b, rows, true)
	// Warm the block cache.
	for i := 0; i < rows; i++ {
		if _, err := get(r, Get{Row: []byte(fmt.Sprintf("user%08d", i))}); err != nil {
			b.Fatal(err)
		}
	}
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("user%08d", (i*7919)%rows))
	}
	b.ReportAllocs()
	stop := cpumeter.Start(b)
	i := 0
	for b.Loop() {
		res, err := get(r, Get{Row: keys[i%len(keys)]})
		if err != nil || len(res.Cells) != 10 {
			b.Fatalf("get: %d cells, %v", len(res.Cells), err)
		}
		i++
	}
	stop()
}

func BenchmarkPut(b *testing.B) {
	for _, tc := range []struct {
		name       string
		durability Durability
		writers    int
	}{
		{"SYNC_WAL/writers=1", SyncWAL, 1},
		{"SYNC_WAL/writers=32", SyncWAL, 32},
		{"ASYNC_WAL/writers=1", AsyncWAL, 1},
		{"ASYNC_WAL/writers=32", AsyncWAL, 32},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			r := benchRegion(b, tc.durability)
			var n atomic.Int64
			b.ReportAllocs()
			b.SetBytes(1000)
			b.SetParallelism((tc.writers + 1) / 2) // GOMAXPROCS=2 here: 2×16 = 32 goroutines
			stop := cpumeter.Start(b)
			defer stop()
			if tc.writers == 1 {
				for b.Loop() {
					if err := r.Mutate(ctx, row10x100(benchKey("user", int(n.Add(1))))); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := r.Mutate(ctx, row10x100(benchKey("user", int(n.Add(1))))); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkBulkLoad writes rows in batches of 100, ASYNC_WAL: the loading
// path of a YCSB load phase with client-side buffering.
func BenchmarkBulkLoad(b *testing.B) {
	ctx := context.Background()
	r := benchRegion(b, AsyncWAL)
	b.ReportAllocs()
	b.SetBytes(1000 * 100)
	n := 0
	batch := make([]Mutation, 100)
	stop := cpumeter.Start(b)
	defer stop()
	for b.Loop() {
		for j := range batch {
			batch[j] = row10x100(benchKey("user", n))
			n++
		}
		if err := r.Mutate(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkScan100(b *testing.B) {
	ctx := context.Background()
	const rows = 10000
	r := loadedBenchRegion(b, rows, false)
	benchScans(ctx, b, r, rows)
}

func BenchmarkIncrement(b *testing.B) {
	ctx := context.Background()
	r := benchRegion(b, AsyncWAL)
	b.ReportAllocs()
	stop := cpumeter.Start(b)
	defer stop()
	i := 0
	for b.Loop() {
		if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte(fmt.Sprintf("ctr%03d", i%100)),
			Columns: []ColumnDelta{{Family: []byte("family"), Qualifier: []byte("n"), Delta: 1}}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkGetFloor is the Pebble work under BenchmarkGet alone: a bounded
// iterator, SeekPrefixGE and ten Nexts reading each value, no decoding and
// no result. It shows how much of a Get's CPU the region itself adds.
func BenchmarkGetFloor(b *testing.B) {
	const rows = 10000
	r := loadedBenchRegion(b, rows, true)
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = storage.AppendRowPrefix(nil, 1, []byte(fmt.Sprintf("user%08d", (i*7919)%rows)))
	}
	for _, tc := range []struct {
		name    string
		newIter func(storage.IterOptions) (*storage.Iterator, error)
	}{
		// A new iterator per read, as Gets made them before the pool.
		{"new-iter", r.engine.NewIter},
		// A pooled iterator, as Get takes now.
		{"pooled", r.engine.NewPooledIter},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var upper []byte
			stop := cpumeter.Start(b)
			i := 0
			for b.Loop() {
				k := keys[i%len(keys)]
				upper = storage.RowUpperBound(upper[:0], k)
				it, err := tc.newIter(storage.IterOptions{Lower: k, Upper: upper})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for ok := it.SeekPrefixGE(k); ok; ok = it.Next() {
					if _, err := it.Value(); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if err := it.Close(); err != nil || n != 10 {
					b.Fatalf("%d keys, %v", n, err)
				}
				i++
			}
			stop()
		})
	}
}

// BenchmarkUpdateCachedRow is YCSB's update (one field of a 10-field row)
// on rows a Get has cached, ASYNC_WAL: what a Put pays to write its cell
// into the cached row (RowCache.endWrite), against dropping it (no cache).
// The Gets that fill the cache are outside the timed loop.
func BenchmarkUpdateCachedRow(b *testing.B) {
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprintf("rowcache=%v", cached), func(b *testing.B) {
			ctx := context.Background()
			var opts Options
			var c *RowCache
			if cached {
				c = NewRowCache(64 << 20)
				opts.RowCache = c
			}
			r := benchRegionOpts(b, AsyncWAL, opts)
			const rows = 1000
			for i := range rows {
				if err := r.Mutate(ctx, row10x100(benchKey("user", i))); err != nil {
					b.Fatal(err)
				}
				if _, err := r.Get(ctx, Get{Row: []byte(benchKey("user", i))}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m := Mutation{Type: MutationPut, Row: []byte(benchKey("user", i%rows)), Cells: []cell.Cell{{
					Family: benchFamily, Qualifier: benchQualifiers[i%10], Timestamp: cell.LatestTimestamp, Value: benchValue}}}
				if err := r.Mutate(ctx, m); err != nil {
					b.Fatal(err)
				}
				i++
			}
			if cached && c.Stats().Patches == 0 {
				b.Fatal("no update patched its cached row")
			}
		})
	}
}
