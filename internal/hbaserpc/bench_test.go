package hbaserpc

import (
	"bytes"
	"context"
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
	b.Run("concurrent32", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(1024)
		b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
		stop := cpumeter.Start(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				call(b)
			}
		})
		stop()
	})
}
