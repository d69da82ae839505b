package hbaserpc

import (
	"context"
	"testing"
	"time"
)

// TestStats holds three calls inside the handler on one connection and
// checks the server's load figures, then that they fall back once the
// calls end.
func TestStats(t *testing.T) {
	h := &echoHandler{started: make(chan struct{}, 3)}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	if st := s.Stats(); st != (Stats{}) {
		t.Fatalf("idle server: %+v, want zeros", st)
	}
	c := dialT(t, s.addr, DialOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := c.Call(ctx, "Block", getReq("x"), nil, nil)
			errs <- err
		}()
	}
	for range 3 {
		<-h.started
	}
	st := s.Stats()
	if st.Conns != 1 || st.Accepted != 1 || st.Serving != 3 || st.Outstanding != 3 {
		t.Errorf("3 blocked calls: %+v, want Conns=1 Accepted=1 Serving=3 Outstanding=3", st)
	}
	cancel()
	for range 3 {
		<-errs
	}
	// Cancelling a call abandons it client-side only; close the
	// connection to end the handlers.
	_ = c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st = s.Stats()
		if st.Conns == 0 && st.Serving == 0 && st.Outstanding == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the connection closed: %+v, want no conns and no calls", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st.Accepted != 1 {
		t.Errorf("Accepted = %d, want 1", st.Accepted)
	}
}
