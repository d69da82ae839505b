package hbaserpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

// respondHandler wraps echoHandler the way the region server's quota gate
// answers a LOW read: it runs the call on another goroutine, which sends
// the response itself (Call.Respond), and returns a decoy the client must
// never see. Odd rows also set WriteAlone.
type respondHandler struct {
	echo     echoHandler
	released sync.WaitGroup // the decoy's and the sent response's buffers
}

type countRelease struct{ wg *sync.WaitGroup }

func (r countRelease) Release() { r.wg.Done() }

func (h *respondHandler) Serve(ctx context.Context, c *Call) (Response, error) {
	if c.Method == "Panic" {
		if !c.Respond(Response{Msg: &hbasepb.GetResponse{}}, nil) {
			return Response{}, errors.New("Respond refused a call from a connection")
		}
		panic("after the response was sent")
	}
	var sent bool
	// Both releases are counted before anything is sent: once the client
	// has its answer the test may Wait, and an Add from zero racing that
	// Wait is a misuse of the WaitGroup (the race detector reports it).
	h.released.Add(2) // the sent response's buffers and the decoy's
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := h.echo.Serve(ctx, c)
		if c.ID%2 == 1 {
			c.WriteAlone = true
		}
		resp.Release = countRelease{&h.released}
		sent = c.Respond(resp, err)
	}()
	<-done
	if !sent {
		h.released.Done() // no decoy
		return Response{}, errors.New("Respond sent nothing")
	}
	if c.Respond(Response{}, errors.New("second answer")) {
		h.released.Done() // no decoy
		return Response{}, errors.New("Respond answered a call twice")
	}
	return Response{Msg: &hbasepb.GetResponse{}, Release: countRelease{&h.released}}, errors.New("decoy: must not be sent")
}

// TestRespond checks that a response sent by the handler through
// Call.Respond (with and without WriteAlone) reaches the client exactly
// once, in place of what Serve returns, and that both responses' buffers
// are released.
func TestRespond(t *testing.T) {
	h := &respondHandler{}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{User: "bob"})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			row := fmt.Sprint("row-", i)
			in := []cell.Cell{{Row: []byte(row), Family: []byte("f"), Value: []byte("v")}}
			resp, cells, err := doGet(context.Background(), c, row, in)
			if err != nil {
				t.Errorf("%s: %v", row, err)
				return
			}
			if got := resp.GetResult().GetCell(); len(got) != 1 || string(got[0].Row) != row || string(got[0].Value) != "bob" {
				t.Errorf("%s: response %v", row, resp)
			}
			if len(cells) != 1 || string(cells[0].Row) != row {
				t.Errorf("%s: cells %v", row, cells)
			}
		})
	}
	wg.Wait()
	// A handler that panics after it answered: the answer stands, the
	// panic's error is not sent as a second response.
	if _, err := c.Call(context.Background(), "Panic", getReq("p"), nil, &hbasepb.GetResponse{}); err != nil {
		t.Fatalf("call answered before its handler panicked: %v", err)
	}
	if _, _, err := doGet(context.Background(), c, "after", nil); err != nil {
		t.Fatalf("connection after a panic: %v", err)
	}
	h.released.Wait()
}

// TestRespondWithoutConn: a Call made by hand has no connection to answer
// on; Respond says so and sends nothing.
func TestRespondWithoutConn(t *testing.T) {
	c := &Call{ID: 1, Method: "Get"}
	if c.Respond(Response{}, nil) {
		t.Fatal("Respond on a Call without a connection reported it sent")
	}
}
