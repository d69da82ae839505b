package regionserver

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/weirdb/weir/internal/hbasepb"
)

// counterValue is weir_compactions_total{kind,outcome} of c.
func counterValue(t *testing.T, c *compactor, kind, outcome string) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.metrics.done.WithLabelValues(kind, outcome).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// testCompactor has no store: tests set its pass, span and compactSpan.
func testCompactor(threads int) *compactor {
	c := newCompactor(slog.New(slog.DiscardHandler), newCompactionMetrics(prometheus.NewRegistry()), threads, nil, nil)
	c.span = func(*hosted) ([]byte, []byte) { return []byte("a"), []byte("b") }
	return c
}

// waitCompacted waits until no compaction of regions waits or runs.
func waitCompacted(t *testing.T, c *compactor, regions ...*hosted) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		idle := true
		for _, h := range regions {
			idle = idle && c.state(h) == hbasepb.GetRegionInfoResponse_NONE
		}
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("compactions did not finish")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCompactorQueue: requests for a region waiting merge into one job (a
// major one takes a minor along), the state reports what waits, runs and
// waits for its range compaction, and forgetting a region drops its job
// and stops its running one.
func TestCompactorQueue(t *testing.T) {
	c := testCompactor(1)
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
	jobs := c.next(ctx)
	if len(jobs) != 1 || jobs[0].h != a || !jobs[0].major {
		t.Fatalf("first work %+v, want a's job, major", jobs)
	}
	j := jobs[0]
	// a runs its major compaction; a minor one asked meanwhile waits, and
	// does not start while a's job runs.
	c.request(a, false)
	state(a, hbasepb.GetRegionInfoResponse_MAJOR_AND_MINOR)
	if jobs := c.next(ctx); len(jobs) != 1 || jobs[0].h != b {
		t.Fatalf("second work %+v, want b's job (a's is busy)", jobs)
	}
	c.forget(a)
	if j.ctx.Err() == nil {
		t.Fatal("forgetting a running region did not stop its job")
	}
	c.mu.Lock()
	c.mu.running = c.mu.running[1:]
	c.mu.Unlock()
	state(a, hbasepb.GetRegionInfoResponse_NONE)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c.request(a, true)
	if jobs := c.next(cctx); jobs != nil {
		t.Fatal("next returned work after its context ended")
	}
}

// TestCompactorPassesFirst: with a table's regions asked to major-compact
// at once, every garbage pass ends before the first range compaction
// starts (the regions share the LSM), passes run up to threads at a time,
// adjacent regions' spans are compacted as one, and every job ends done
// with its state back to NONE.
func TestCompactorPassesFirst(t *testing.T) {
	c := testCompactor(2)
	var (
		mu                sync.Mutex
		order             []string
		inPass, maxInPass int
	)
	c.pass = func(ctx context.Context, h *hosted) (bool, error) {
		mu.Lock()
		inPass++
		maxInPass = max(maxInPass, inPass)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inPass--
		order = append(order, "pass")
		mu.Unlock()
		return false, nil
	}
	c.compactSpan = func(ctx context.Context, lower, upper []byte) error {
		mu.Lock()
		order = append(order, "compact "+string(lower)+"-"+string(upper))
		mu.Unlock()
		return nil
	}
	// Two runs of adjacent regions, a-d and e-h (no region d-e), asked
	// for out of order.
	spans := map[*hosted][2]string{}
	var regions []*hosted
	for _, lo := range "cabefg" {
		h := &hosted{}
		spans[h] = [2]string{string(lo), string(lo + 1)}
		regions = append(regions, h)
	}
	c.span = func(h *hosted) ([]byte, []byte) { return []byte(spans[h][0]), []byte(spans[h][1]) }
	for _, h := range regions {
		c.request(h, true)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	waitCompacted(t, c, regions...)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"compact a-d", "compact e-h"}
	if len(order) != len(regions)+len(want) {
		t.Fatalf("steps %v, want %d passes, then %v", order, len(regions), want)
	}
	for i, o := range order {
		if i < len(regions) && o != "pass" || i >= len(regions) && o != want[i-len(regions)] {
			t.Fatalf("steps %v, want %d passes, then %v", order, len(regions), want)
		}
	}
	if maxInPass != 2 {
		t.Errorf("at most %d passes at once, want 2 (the threads)", maxInPass)
	}
	if got := counterValue(t, c, "major", "done"); got != float64(len(regions)) {
		t.Errorf("weir_compactions_total{major,done} = %v, want %d", got, len(regions))
	}
}

// TestCompactorForgetPassed: a region closing while its job waits for its
// range compaction drops the job, which counts as stopped.
func TestCompactorForgetPassed(t *testing.T) {
	c := testCompactor(1)
	a, b := &hosted{}, &hosted{}
	c.request(a, true)
	c.request(b, true)
	ctx := context.Background()
	jobs := c.next(ctx)
	c.pass = func(context.Context, *hosted) (bool, error) { return false, nil }
	c.runPass(jobs[0]) // a's pass: a now waits for b's pass
	if got := c.state(a); got != hbasepb.GetRegionInfoResponse_MAJOR {
		t.Fatalf("a's state after its pass = %v, want MAJOR", got)
	}
	c.forget(a)
	if got := c.state(a); got != hbasepb.GetRegionInfoResponse_NONE {
		t.Fatalf("a's state once forgotten = %v, want NONE", got)
	}
	if jobs[0].ctx.Err() == nil {
		t.Error("forgetting a passed job did not cancel it")
	}
	if got := counterValue(t, c, "major", "stopped"); got != 1 {
		t.Errorf("weir_compactions_total{major,stopped} = %v, want 1", got)
	}
	if jobs := c.next(ctx); len(jobs) != 1 || jobs[0].h != b {
		t.Fatalf("next work %+v, want b's pass", jobs)
	}
}

// TestAutoPassStop: a compaction asked for a region stops the automatic
// pass under way there, and only there.
func TestAutoPassStop(t *testing.T) {
	var a autoPass
	h, other := &hosted{}, &hosted{}
	a.stop(h) // none under way: nothing to stop
	ctx := a.start(context.Background(), h)
	a.stop(other)
	if ctx.Err() != nil {
		t.Fatal("a compaction of another region stopped the pass")
	}
	a.stop(h)
	if ctx.Err() == nil {
		t.Fatal("a compaction of the pass's region did not stop it")
	}
	a.end()
	ctx = a.start(context.Background(), other)
	a.stop(h)
	if ctx.Err() != nil {
		t.Fatal("a pass that ended was stopped again through its region")
	}
	a.end()
}

// TestCompactorReplacedNeedsNoRange: a job whose pass replaced its
// region's keys with one file ends without a range compaction; its
// neighbour's range is compacted alone.
func TestCompactorReplacedNeedsNoRange(t *testing.T) {
	c := testCompactor(1)
	a, b := &hosted{}, &hosted{}
	spans := map[*hosted]string{a: "a", b: "b"}
	c.span = func(h *hosted) ([]byte, []byte) { return []byte(spans[h]), []byte{spans[h][0] + 1} }
	var mu sync.Mutex
	var order []string
	c.pass = func(ctx context.Context, h *hosted) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "pass "+spans[h])
		return h == a, nil
	}
	c.compactSpan = func(ctx context.Context, lower, upper []byte) error {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "compact "+string(lower)+"-"+string(upper))
		return nil
	}
	c.request(a, true)
	c.request(b, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitCompacted(t, c, a, b)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"pass a", "pass b", "compact b-c"}; !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}
	if got := counterValue(t, c, "major", "done"); got != 2 {
		t.Errorf("weir_compactions_total{major,done} = %v, want 2", got)
	}
}
