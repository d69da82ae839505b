package hbaserpc

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/hbasepb"
)

// TestRespBufClasses checks that a buffer taken for n bytes holds them,
// and that a buffer given back is only handed out for sizes it holds.
func TestRespBufClasses(t *testing.T) {
	for _, n := range []int{respPoolMin, respPoolMin + 1, 1279, 1280, 1281, 100 << 10, 160<<10 + 7, maxTrustedResponseAlloc - 1, maxTrustedResponseAlloc} {
		box := getRespBuf(n)
		if c := cap(*box); c < n {
			t.Errorf("getRespBuf(%d): capacity %d", n, c)
		}
		putRespBuf(box)
		if i := sort.SearchInts(respClassSizes, n); respClassSizes[i] > n+n/4+1 {
			t.Errorf("%d bytes round up to the class of %d bytes, more than a quarter more", n, respClassSizes[i])
		}
	}
	odd := make([]byte, 1300) // between the classes 1280 and 1536
	putRespBuf(&odd)
	for range 100 { // a pool may drop what it holds; it must never hand out too little
		if box := getRespBuf(1300); cap(*box) < 1300 {
			t.Fatalf("getRespBuf(1300) returned capacity %d", cap(*box))
		}
	}
	putRespBuf(&[]byte{}) // too small to keep: ignored
	Frame{}.Release()     // the zero Frame: nothing to give back
}

// TestCallLent runs lending calls of several response sizes, reusing one
// cell slice and giving each frame back, and checks each response's cells
// before the next call reuses the buffers.
func TestCallLent(t *testing.T) {
	var want [][]cell.Cell
	for _, n := range []int{1, 3, 40, 200} {
		var cells []cell.Cell
		for i := range n {
			cells = append(cells, cell.Cell{Row: fmt.Appendf(nil, "row%04d", i), Family: []byte("f"), Qualifier: []byte("q"),
				Timestamp: int64(n), Type: cell.TypePut, Value: bytes.Repeat([]byte{byte(n + i)}, 300)})
		}
		want = append(want, cells)
	}
	var calls atomic.Int64 // the test's calls are sequential: call i answers want[i%len(want)]
	h := HandlerFunc(func(ctx context.Context, c *Call) (Response, error) {
		cells := want[int(calls.Add(1)-1)%len(want)]
		return Response{Msg: &hbasepb.GetResponse{Result: &hbasepb.Result{AssociatedCellCount: ptr(int32(len(cells)))}}, Cells: cells}, nil
	})
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})
	var buf []cell.Cell
	for round := range 3 {
		for i := range want {
			var resp hbasepb.GetResponse
			cells, frame, err := c.CallLent(context.Background(), 0, "Get", getReq("r"), nil, &resp, buf)
			if err != nil {
				t.Fatal(err)
			}
			if round > 0 && cap(buf) >= len(want[i]) && &cells[0] != &buf[:1][0] {
				t.Errorf("round %d, %d cells: the cell slice was not reused", round, len(want[i]))
			}
			cellsEqual(t, cells, want[i])
			if cap(cells) > cap(buf) {
				buf = cells[:0]
			}
			frame.Release()
		}
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkLent measures scan-shaped calls over loopback TCP with
// responses of 1 row (a YCSB read's size) and 100 rows (a workload-E
// scan) of 10 cells × 100 B in a cellblock, 16 callers, the client
// calling Call (a new frame and cell slice per response) or CallLent
// (each caller reuses its cell slice and gives the frame back). Server
// and client CPU together, per call.
func BenchmarkLent(b *testing.B) {
	for _, rows := range []int{1, 100} {
		value := bytes.Repeat([]byte{0xAB}, 100)
		var cells []cell.Cell
		cpr := make([]uint32, rows)
		for r := range rows {
			row := fmt.Appendf(nil, "user%019d", r)
			for f := range 10 {
				cells = append(cells, cell.Cell{Row: row, Family: []byte("family"), Qualifier: fmt.Appendf(nil, "field%d", f),
					Timestamp: 1, Type: cell.TypePut, Value: value})
			}
			cpr[r] = 10
		}
		block, err := AppendCellBlock(nil, cells)
		if err != nil {
			b.Fatal(err)
		}
		h := HandlerFunc(func(ctx context.Context, c *Call) (Response, error) {
			return Response{Msg: &hbasepb.ScanResponse{CellsPerResult: cpr, MoreResults: proto.Bool(false)}, CellBlock: block}, nil
		})
		s := startServer(b, ServerConfig{Services: map[string]Handler{testService: h}})
		c := dialT(b, s.addr, DialOptions{})
		for _, lent := range []bool{false, true} {
			name := fmt.Sprintf("rows=%d/call", rows)
			if lent {
				name = fmt.Sprintf("rows=%d/lent", rows)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(block)))
				b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
				stop := cpumeter.Start(b)
				b.RunParallel(func(pb *testing.PB) {
					var buf []cell.Cell
					for pb.Next() {
						var resp hbasepb.ScanResponse
						var got []cell.Cell
						var frame Frame
						var err error
						if lent {
							got, frame, err = c.CallLent(context.Background(), 0, "Scan", &hbasepb.ScanRequest{}, nil, &resp, buf)
							buf = got[:0]
						} else {
							got, err = c.Call(context.Background(), "Scan", &hbasepb.ScanRequest{}, nil, &resp)
						}
						if err != nil || len(got) != len(cells) || len(resp.CellsPerResult) != rows {
							b.Fatalf("%d cells, %v", len(got), err)
						}
						frame.Release()
					}
				})
				stop()
			})
		}
	}
}
