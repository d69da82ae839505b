package hbaserpc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
)

// CallTimeout fails a call the server does not answer in time, tells the
// server the timeout, and leaves the connection usable; a ctx deadline
// sooner than the timeout wins; calls answered in time are unaffected.
func TestCallTimeout(t *testing.T) {
	h := &echoHandler{started: make(chan struct{}, 4)}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})

	// "Sleep" answers after 400ms whatever its deadline, so the client's
	// timeout, not the server's answer, ends the call.
	start := time.Now()
	_, err := c.CallTimeout(context.Background(), 100*time.Millisecond, "Sleep", getReq("x"), nil, nil)
	if !errors.Is(err, ErrCallTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want ErrCallTimeout", err)
	}
	if took := time.Since(start); took < 100*time.Millisecond || took > 350*time.Millisecond {
		t.Fatalf("timed out after %v; want about 100ms", took)
	}

	// The server sees the timeout as the call's deadline.
	if _, err := c.CallTimeout(context.Background(), time.Minute, "Deadline", getReq("x"), nil, &hbasepb.GetResponse{}); err != nil {
		t.Fatal(err)
	}
	// A sooner ctx deadline is the one that ends the call.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.CallTimeout(ctx, time.Hour, "Sleep", getReq("x"), nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCallTimeout) {
		t.Fatalf("got %v; want the ctx's DeadlineExceeded", err)
	}

	// Many calls with timeouts, answered in time, concurrently: each gets
	// its own answer (result channels are recycled).
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				row := string(rune('a'+i)) + string(rune('a'+j%26))
				var resp hbasepb.GetResponse
				if _, err := c.CallTimeout(context.Background(), 10*time.Second, "Get", getReq(row), nil, &resp); err != nil {
					t.Error(err)
					return
				}
				if got := string(resp.GetResult().GetCell()[0].GetRow()); got != row {
					t.Errorf("answer for row %q; want %q", got, row)
					return
				}
			}
		})
	}
	wg.Wait()
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

// A call with a later timeout does not delay the expiry of an earlier one
// registered after it.
func TestCallTimeoutEarlierAfterLater(t *testing.T) {
	h := &echoHandler{started: make(chan struct{}, 4)}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := make(chan error, 1)
	go func() {
		_, err := c.CallTimeout(ctx, time.Hour, "Block", getReq("x"), nil, nil)
		long <- err
	}()
	<-h.started
	start := time.Now()
	if _, err := c.CallTimeout(context.Background(), 50*time.Millisecond, "Sleep", getReq("y"), nil, nil); !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("got %v; want ErrCallTimeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("timed out after %v; want about 50ms", took)
	}
	cancel()
	if err := <-long; !errors.Is(err, context.Canceled) {
		t.Fatalf("long call: %v", err)
	}
}
