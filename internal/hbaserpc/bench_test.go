package hbaserpc

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/hbasepb"
)

// BenchmarkRPCRoundTrip measures one Get-shaped call over loopback TCP
// whose response carries a 1 KiB-value cell in a cellblock.
func BenchmarkRPCRoundTrip(b *testing.B) {
	value := bytes.Repeat([]byte{0xAB}, 1024)
	h := HandlerFunc(func(ctx context.Context, c *Call) (Response, error) {
		var req hbasepb.GetRequest
		if err := proto.Unmarshal(c.Param, &req); err != nil {
			return Response{}, err
		}
		cells := []cell.Cell{{Row: req.GetGet().GetRow(), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: cell.TypePut, Value: value}}
		return Response{
			Msg:   &hbasepb.GetResponse{Result: &hbasepb.Result{AssociatedCellCount: proto.Int32(1)}},
			Cells: cells,
		}, nil
	})
	s := startServer(b, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(b, s.addr, DialOptions{})
	req := getReq("row-0000001")
	call := func(b *testing.B) {
		var resp hbasepb.GetResponse
		cells, err := c.Call(context.Background(), "Get", req, nil, &resp)
		if err != nil || len(cells) != 1 || len(cells[0].Value) != 1024 {
			b.Fatalf("%v %v", cells, err)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(1024)
		stop := cpumeter.Start(b)
		for b.Loop() {
			call(b)
		}
		stop()
	})
	b.Run("concurrent32", func(b *testing.B) { benchConcurrent(b, 32, 1024, call) })
}

// benchConcurrent runs call from callers goroutines at once.
func benchConcurrent(b *testing.B, callers int, bytes int64, call func(*testing.B)) {
	b.ReportAllocs()
	b.SetBytes(bytes)
	b.SetParallelism(max(1, callers/runtime.GOMAXPROCS(0)))
	stop := cpumeter.Start(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call(b)
		}
	})
	stop()
}

// BenchmarkRPCScan100 measures one scan-shaped call over loopback TCP: a
// response of 100 rows of 10 cells × 100 B (YCSB's rows), the cells sent
// as Response.Cells (encoded by the RPC layer) or as a cellblock the
// handler encoded (Response.CellBlock, as the region server's scans do),
// and decoded by the client. Server and client CPU together, per call.
func BenchmarkRPCScan100(b *testing.B) {
	value := bytes.Repeat([]byte{0xAB}, 100)
	var cells []cell.Cell
	cpr := make([]uint32, 100)
	for r := range 100 {
		row := []byte(fmt.Sprintf("user%019d", r))
		for f := range 10 {
			cells = append(cells, cell.Cell{Row: row, Family: []byte("family"), Qualifier: []byte(fmt.Sprintf("field%d", f)),
				Timestamp: 1, Type: cell.TypePut, Value: value})
		}
		cpr[r] = 10
	}
	block, err := AppendCellBlock(nil, cells)
	if err != nil {
		b.Fatal(err)
	}
	for _, encoded := range []bool{false, true} {
		name := "cells"
		if encoded {
			name = "cellblock"
		}
		h := HandlerFunc(func(ctx context.Context, c *Call) (Response, error) {
			resp := Response{Msg: &hbasepb.ScanResponse{CellsPerResult: cpr, MoreResults: proto.Bool(false)}}
			if encoded {
				resp.CellBlock = block
			} else {
				resp.Cells = cells
			}
			return resp, nil
		})
		s := startServer(b, ServerConfig{Services: map[string]Handler{testService: h}})
		c := dialT(b, s.addr, DialOptions{})
		call := func(b *testing.B) {
			var resp hbasepb.ScanResponse
			got, err := c.Call(context.Background(), "Scan", &hbasepb.ScanRequest{}, nil, &resp)
			if err != nil || len(got) != len(cells) {
				b.Fatalf("%d cells, %v", len(got), err)
			}
		}
		b.Run(name+"/concurrent16", func(b *testing.B) { benchConcurrent(b, 16, int64(len(block)), call) })
	}
}
