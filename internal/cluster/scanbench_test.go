package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/weirdb/weir/client"
)

// BenchmarkRPCScanE is YCSB workload E's scan through the Go client as
// `weir bench` makes it: a random start row, a length uniform in 1..100,
// limit and caching both that length, the Results lent (ScanFunc), on
// the 10,000-row table flushed to an SSTable. One operation is one scan;
// cpu-ns/op is the client's and the server's CPU together (one process),
// rows/op the rows read. Run with:
//
//	go test -run '^$' -bench 'BenchmarkRPCScanE' -benchtime 5000x ./internal/cluster/
func BenchmarkRPCScanE(b *testing.B) {
	env := benchStart(b)
	env.benchLoad(b)
	ctx := context.Background()
	conn, err := client.Connect(ctx, env.c.MasterAddr())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	if err := conn.Admin().Flush(ctx, benchTable); err != nil {
		b.Fatal(err)
	}
	tbl := conn.Table(benchTable)
	const maxScan = 100
	p, _ := benchParallelism(16)
	var next atomic.Uint64
	var rows atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(p)
	b.ResetTimer()
	m := benchStartMeter(b)
	b.RunParallel(func(pb *testing.PB) {
		id := next.Add(1)
		rng := rand.New(rand.NewPCG(id, 3))
		var n int64
		for pb.Next() {
			start := rng.IntN(benchRows)
			want := 1 + rng.IntN(maxScan)
			s := client.NewScan().WithStartRow(benchRowKey(start), true).SetLimit(want).SetCaching(want)
			got := 0
			err := tbl.ScanFunc(ctx, s, func(r *client.Result) error {
				if len(r.Cells) != benchCellsPerRow {
					return fmt.Errorf("row %q: %d cells; want %d", r.Row, len(r.Cells), benchCellsPerRow)
				}
				got++
				return nil
			})
			if err == nil && got != min(want, benchRows-start) {
				err = fmt.Errorf("scan of %d rows from row %d: %d rows", want, start, got)
			}
			if err != nil {
				b.Error(err)
				return
			}
			n += int64(got)
		}
		rows.Add(n)
	})
	m.benchReport(b)
	b.ReportMetric(float64(rows.Load())/float64(b.N), "rows/op")
}
