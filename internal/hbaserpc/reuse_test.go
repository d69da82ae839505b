package hbaserpc

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"
)

// goroutineID parses the current goroutine's number from its stack header
// ("goroutine 42 [running]:"); tests only.
func goroutineID() string {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

type goroutineRecorder struct {
	echoHandler
	mu  sync.Mutex
	ids map[string]int
}

func (h *goroutineRecorder) Serve(ctx context.Context, c *Call) (Response, error) {
	h.mu.Lock()
	h.ids[goroutineID()]++
	h.mu.Unlock()
	return h.echoHandler.Serve(ctx, c)
}

// Sequential calls on one connection reuse the call goroutine (and its
// grown stack) instead of starting one per call.
func TestCallGoroutinesReused(t *testing.T) {
	h := &goroutineRecorder{ids: map[string]int{}}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})
	const calls = 50
	for i := 0; i < calls; i++ {
		if _, _, err := doGet(context.Background(), c, "r", nil); err != nil {
			t.Fatal(err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// Usually one; a call may arrive before the previous call's goroutine
	// is back waiting, which starts another.
	if len(h.ids) > calls/5 {
		t.Errorf("%d calls ran on %d goroutines, want them reused", calls, len(h.ids))
	}
}
