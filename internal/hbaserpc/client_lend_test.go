package hbaserpc

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/weirdb/weir/internal/cell"
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
