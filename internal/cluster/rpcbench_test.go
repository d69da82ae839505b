package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// The RPC benchmarks drive a one-process cluster (embedded etcd, master,
// one region server) through the real HBase protocol on loopback, as a
// client would: protobuf requests, KeyValueCodec cellblocks.
//
// Besides ns/op they report:
//   - cpu-ns/op: process CPU time (getrusage user+sys) over the timed loop
//     divided by b.N. Client and server share the process, so this is the
//     whole cost of an operation on both sides, including etcd's idle work.
//   - ops/s: wall-clock throughput of the timed loop.
//
// Run with:
//
//	go test -run '^$' -bench 'BenchmarkRPC' -benchtime 3s ./internal/cluster/

// BenchmarkRPCGet reads one random whole row (10 cells of 100 B) of a
// 10,000-row YCSB-like table per operation.
func BenchmarkRPCGet(b *testing.B) {
	env := benchStart(b)
	env.benchLoad(b)
	keys := make([][]byte, benchRows)
	for i := range keys {
		keys[i] = benchRowKey(i)
	}
	check := func(cells []cell.Cell, err error, row []byte) error {
		if err != nil {
			return fmt.Errorf("Get %q: %w", row, err)
		}
		if len(cells) != benchCellsPerRow {
			return fmt.Errorf("Get %q: %d cells; want %d", row, len(cells), benchCellsPerRow)
		}
		for i := range cells {
			if len(cells[i].Value) != benchValueSize {
				return fmt.Errorf("Get %q: cell %d has a %d-byte value; want %d", row, i, len(cells[i].Value), benchValueSize)
			}
		}
		return nil
	}

	b.Run("conns=1/callers=1", func(b *testing.B) {
		cc := benchDial(b, env.rsAddr, "ClientService")
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 1))
		b.ReportAllocs()
		b.SetBytes(benchCellsPerRow * benchValueSize)
		m := benchStartMeter(b)
		for b.Loop() {
			row := keys[rng.IntN(benchRows)]
			cells, err := env.benchGet(ctx, cc, row)
			if err := check(cells, err, row); err != nil {
				b.Fatal(err)
			}
		}
		m.benchReport(b)
	})
	for _, conns := range []int{1, 16} {
		b.Run(fmt.Sprintf("conns=%d/callers=%d", conns, benchCallers), func(b *testing.B) {
			ccs := make([]*hbaserpc.ClientConn, conns)
			for i := range ccs {
				ccs[i] = benchDial(b, env.rsAddr, "ClientService")
			}
			p, actual := benchParallelism(benchCallers)
			if actual != benchCallers {
				b.Logf("GOMAXPROCS does not divide %d: running %d callers", benchCallers, actual)
			}
			var next atomic.Uint64
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(benchCellsPerRow * benchValueSize)
			b.SetParallelism(p)
			b.ResetTimer()
			m := benchStartMeter(b)
			b.RunParallel(func(pb *testing.PB) {
				id := next.Add(1)
				cc := ccs[int(id)%conns]
				rng := rand.New(rand.NewPCG(id, 2))
				for pb.Next() {
					row := keys[rng.IntN(benchRows)]
					cells, err := env.benchGet(ctx, cc, row)
					if err := check(cells, err, row); err != nil {
						b.Error(err)
						return
					}
				}
			})
			m.benchReport(b)
		})
	}
}

// BenchmarkRPCPut writes one new whole row (10 cells of 100 B) per
// operation with a single Mutate at the default durability (SYNC_WAL).
func BenchmarkRPCPut(b *testing.B) {
	env := benchStart(b)
	var rowSeq atomic.Int64 // unique rows across sub-benchmarks and runs
	cells := benchRowCells(0)

	b.Run("conns=1/callers=1", func(b *testing.B) {
		cc := benchDial(b, env.rsAddr, "ClientService")
		ctx := context.Background()
		b.ReportAllocs()
		b.SetBytes(benchCellsPerRow * benchValueSize)
		m := benchStartMeter(b)
		for b.Loop() {
			if err := env.benchPut(ctx, cc, benchRowKey(int(rowSeq.Add(1))), cells); err != nil {
				b.Fatal(err)
			}
		}
		m.benchReport(b)
	})
	for _, conns := range []int{1, 16} {
		b.Run(fmt.Sprintf("conns=%d/callers=%d", conns, benchCallers), func(b *testing.B) {
			ccs := make([]*hbaserpc.ClientConn, conns)
			for i := range ccs {
				ccs[i] = benchDial(b, env.rsAddr, "ClientService")
			}
			p, _ := benchParallelism(benchCallers)
			var next atomic.Uint64
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(benchCellsPerRow * benchValueSize)
			b.SetParallelism(p)
			b.ResetTimer()
			m := benchStartMeter(b)
			b.RunParallel(func(pb *testing.PB) {
				cc := ccs[int(next.Add(1))%conns]
				for pb.Next() {
					if err := env.benchPut(ctx, cc, benchRowKey(int(rowSeq.Add(1))), cells); err != nil {
						b.Error(err)
						return
					}
				}
			})
			m.benchReport(b)
		})
	}
}
