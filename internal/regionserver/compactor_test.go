package regionserver

import (
	"context"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbasepb"
)

// TestCompactorQueue: requests for a region waiting merge into one job (a
// major one takes a minor along), the state reports what waits and runs,
// and forgetting a region drops its job and stops its running one.
func TestCompactorQueue(t *testing.T) {
	c := newCompactor(slog.New(slog.DiscardHandler), newCompactionMetrics(prometheus.NewRegistry()))
	a, b := &hosted{}, &hosted{}
	state := func(h *hosted, want hbasepb.GetRegionInfoResponse_CompactionState) {
		t.Helper()
		if got := c.state(h); got != want {
			t.Fatalf("state = %v, want %v", got, want)
		}
	}
	state(a, hbasepb.GetRegionInfoResponse_NONE)
	c.request(a, false)
	state(a, hbasepb.GetRegionInfoResponse_MINOR)
	c.request(b, true)
	c.request(a, true)
	state(a, hbasepb.GetRegionInfoResponse_MAJOR)
	state(b, hbasepb.GetRegionInfoResponse_MAJOR)

	ctx := context.Background()
	j, jctx := c.next(ctx)
	if j.h != a || !j.major {
		t.Fatalf("first job %+v, want a's, major", j)
	}
	// a runs its major compaction; a minor one asked meanwhile waits.
	c.request(a, false)
	state(a, hbasepb.GetRegionInfoResponse_MAJOR_AND_MINOR)
	c.forget(a)
	if jctx.Err() == nil {
		t.Fatal("forgetting a running region did not stop its job")
	}
	c.mu.Lock()
	c.mu.running = nil
	c.mu.Unlock()
	state(a, hbasepb.GetRegionInfoResponse_NONE)

	if j, _ := c.next(ctx); j.h != b {
		t.Fatalf("next job is not b's")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c.request(a, true)
	if j, _ := c.next(cctx); j != nil {
		t.Fatal("next returned a job after its context ended")
	}
}
