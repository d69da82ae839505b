package hbaserpc

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/proto"
)

// releaseCounter counts Response.Release calls.
type releaseCounter struct{ n atomic.Int32 }

func (r *releaseCounter) Release() { r.n.Add(1) }

// TestResponseCellBlock checks a response whose cellblock the handler
// encoded itself: the client decodes the same cells as from
// Response.Cells, the handler gets its buffers back once per call, and a
// response with both kinds of cells, or a cellblock on a connection
// without a codec, is refused.
func TestResponseCellBlock(t *testing.T) {
	want := []cell.Cell{
		{Row: []byte("r1"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 7, Type: cell.TypePut, Value: []byte("v")},
		{Row: []byte("r1"), Family: []byte("f"), Qualifier: []byte("q2"), Timestamp: 1, Type: cell.TypeDeleteColumn},
	}
	block, err := AppendCellBlock(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	var rel releaseCounter
	var both atomic.Bool
	h := HandlerFunc(func(ctx context.Context, c *Call) (Response, error) {
		resp := Response{Msg: &hbasepb.ScanResponse{CellsPerResult: []uint32{2}}, CellBlock: block, Release: &rel}
		if both.Load() {
			resp.Cells = want
		}
		return resp, nil
	})
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})
	var resp hbasepb.ScanResponse
	cells, err := c.Call(context.Background(), "Scan", &hbasepb.ScanRequest{}, nil, &resp)
	if err != nil {
		t.Fatal(err)
	}
	cellsEqual(t, cells, want)
	if got := resp.GetCellsPerResult(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("cells per result %v", got)
	}
	waitReleases(t, &rel, 1)

	both.Store(true)
	if _, err := c.Call(context.Background(), "Scan", &hbasepb.ScanRequest{}, nil, &resp); err == nil {
		t.Fatal("a response with both cells and a cellblock was sent")
	}
	both.Store(false)
	nc := dialT(t, s.addr, DialOptions{DisableCellBlocks: true})
	if _, err := nc.Call(context.Background(), "Scan", &hbasepb.ScanRequest{}, nil, &resp); err == nil {
		t.Fatal("a cellblock was sent on a connection without a codec")
	}
	waitReleases(t, &rel, 3)
}

// waitReleases waits for the server to have released n responses: it
// does so once the writer has taken the frame, which can be after the
// client has read it.
func waitReleases(t *testing.T, rel *releaseCounter, n int32) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); rel.n.Load() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := rel.n.Load(); got != n {
		t.Fatalf("Release called %d times, want %d", got, n)
	}
}

// TestResponseHeadAndTail checks that a response's head and its encoded
// cellblock, sent one after the other, are the frame appendResponseFrame
// makes from the cells.
func TestResponseHeadAndTail(t *testing.T) {
	cells := []cell.Cell{{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 3, Type: cell.TypePut, Value: []byte("v")}}
	block, err := AppendCellBlock(nil, cells)
	if err != nil {
		t.Fatal(err)
	}
	msg := &hbasepb.ScanResponse{CellsPerResult: []uint32{1}, MoreResults: proto.Bool(true)}
	want, err := appendResponseFrame([]byte("x"), 9, msg, cells)
	if err != nil {
		t.Fatal(err)
	}
	head, tail, err := appendResponse([]byte("x"), 9, &Response{Msg: msg, CellBlock: block})
	if err != nil {
		t.Fatal(err)
	}
	if got := append(head, tail...); !bytes.Equal(got, want) {
		t.Fatalf("head+tail %x\nwant      %x", got, want)
	}
}
