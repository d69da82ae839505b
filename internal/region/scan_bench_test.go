package region

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/storage"
)

// BenchmarkScanFloor is the Pebble work under BenchmarkScan100 alone: an
// iterator over the region, one SeekGE and a Next per cell of 100 rows,
// reading each value, no decoding and no result. It shows how much of a
// scan's CPU the region itself adds.
func BenchmarkScanFloor(b *testing.B) {
	const rows = 10000
	r := loadedBenchRegion(b, rows, false)
	stop := cpumeter.Start(b)
	defer stop()
	i := 0
	for b.Loop() {
		start := storage.AppendRowPrefix(nil, 1, []byte(fmt.Sprintf("user%08d", (i*7919)%(rows-100))))
		it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
		if err != nil {
			b.Fatal(err)
		}
		var prev []byte
		n := 0
		for ok := it.SeekGE(start); ok; ok = it.Next() {
			k := it.Key()
			p := k[:storage.RowPrefixLen(k)]
			if !bytes.Equal(p, prev) {
				if n == 100 {
					break
				}
				n++
				prev = append(prev[:0], p...)
			}
			if _, err := it.Value(); err != nil {
				b.Fatal(err)
			}
		}
		if err := it.Close(); err != nil || n != 100 {
			b.Fatalf("%d rows, %v", n, err)
		}
		i++
	}
}

// BenchmarkScan100Versions is BenchmarkScan100 over rows each of whose
// cells was written twice (the family keeps one version), flushed: what a
// scan meets after updates and before a major compaction drops the old
// versions, as YCSB's workload E after A does.
func BenchmarkScan100Versions(b *testing.B) {
	ctx := context.Background()
	const rows = 10000
	r := benchRegion(b, AsyncWAL)
	for range 2 {
		for i := range rows {
			if err := r.Mutate(ctx, row10x100(fmt.Sprintf("user%08d", i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := r.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	benchScans(ctx, b, r, rows)
}

// benchScans times 100-row scans of 10-cell rows at spread start rows.
func benchScans(ctx context.Context, b *testing.B, r *Region, rows int) {
	b.ReportAllocs()
	stop := cpumeter.Start(b)
	defer stop()
	i := 0
	for b.Loop() {
		s, err := r.NewScanner(Scan{StartRow: []byte(fmt.Sprintf("user%08d", (i*7919)%(rows-100))), Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		res, _, err := s.Next(ctx, 100, 0)
		s.Close()
		if err != nil || len(res) != 100 || len(res[0].Cells) != 10 {
			b.Fatalf("scan: %d rows, %v", len(res), err)
		}
		i++
	}
}

// BenchmarkScan100KV is BenchmarkScan100 through NextKV, the region
// server's path: the rows encoded as a KeyValue cellblock into a reused
// buffer, no cells.
func BenchmarkScan100KV(b *testing.B) { benchScanKV(b, false) }

// BenchmarkScan100KVImages is BenchmarkScan100KV after a major
// compaction: each row is one row image (rowimage.go), copied whole into
// the cellblock.
func BenchmarkScan100KVImages(b *testing.B) { benchScanKV(b, true) }

// BenchmarkScan100KVImagesFamily is BenchmarkScan100KVImages with the
// table's family named in the scan, as YCSB's HBase binding asks for it.
func BenchmarkScan100KVImagesFamily(b *testing.B) {
	ctx := context.Background()
	const rows = 10000
	r := loadedBenchRegion(b, rows, false)
	if err := r.Compact(ctx, true); err != nil {
		b.Fatal(err)
	}
	benchScansKV(ctx, b, r, rows, []Columns{{Family: r.Descriptor().Families[0].Name}})
}

func benchScanKV(b *testing.B, major bool) {
	ctx := context.Background()
	const rows = 10000
	r := loadedBenchRegion(b, rows, false)
	if major {
		if err := r.Compact(ctx, true); err != nil {
			b.Fatal(err)
		}
	}
	benchScansKV(ctx, b, r, rows, nil)
}

// benchScansKV times 100-row scans of 10-cell rows at spread start rows,
// encoded into a reused cellblock, of cols (nil: all).
func benchScansKV(ctx context.Context, b *testing.B, r *Region, rows int, cols []Columns) {
	b.ReportAllocs()
	stop := cpumeter.Start(b)
	defer stop()
	var kv KVBatch
	i := 0
	for b.Loop() {
		s, err := r.NewScanner(Scan{StartRow: []byte(fmt.Sprintf("user%08d", (i*7919)%(rows-100))), Limit: 100, Columns: cols})
		if err != nil {
			b.Fatal(err)
		}
		kv.Reset()
		_, err = s.NextKV(ctx, 100, 0, &kv)
		s.Close()
		if err != nil || kv.Len() != 100 || kv.CellsPerResult[0] != 10 {
			b.Fatalf("scan: %d rows, %v", kv.Len(), err)
		}
		i++
	}
}

// BenchmarkScan100KVUpdated is BenchmarkScan100KV after a major
// compaction and then 30,000 updates of one field each, zipfian over the
// rows (YCSB's A before its E): rows whose image has puts written after
// it, hot ones with long runs of versions. keys: without row images.
func BenchmarkScan100KVUpdated(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts Options
	}{{"images", Options{}}, {"keys", Options{NoRowImages: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			const rows = 10000
			r := benchRegionOpts(b, AsyncWAL, tc.opts)
			for i := range rows {
				if err := r.Mutate(ctx, row10x100(fmt.Sprintf("user%08d", i))); err != nil {
					b.Fatal(err)
				}
			}
			if err := r.Compact(ctx, true); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewSource(1))
			z := rand.NewZipf(rng, 1.1, 1, rows-1)
			for range 30000 {
				row := fmt.Sprintf("user%08d", (z.Uint64()*7919)%rows)
				f := rng.Intn(len(benchQualifiers))
				m := Mutation{Type: MutationPut, Row: []byte(row), Cells: []cell.Cell{{Family: benchFamily,
					Qualifier: benchQualifiers[f], Timestamp: cell.LatestTimestamp, Value: benchValue}}}
				if err := r.Mutate(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			benchScansKV(ctx, b, r, rows, nil)
		})
	}
}
