package regionserver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
)

// blockingHandler records the users of the calls it serves, in order, and
// holds each until released.
type blockingHandler struct {
	mu      sync.Mutex
	order   []string
	started chan struct{}
	release chan struct{}
}

func (h *blockingHandler) Serve(_ context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	h.mu.Lock()
	h.order = append(h.order, c.User)
	h.mu.Unlock()
	h.started <- struct{}{}
	<-h.release
	return hbaserpc.Response{Msg: &hbasepb.GetResponse{}}, nil
}

func getCall(t *testing.T, user string) *hbaserpc.Call {
	t.Helper()
	name, _ := meta.RegionName(meta.TableName{Namespace: "default", Qualifier: "t"}, nil, 1)
	p, err := proto.Marshal(&hbasepb.GetRequest{
		Region: &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: name},
		Get:    &hbasepb.Get{Row: []byte("r")}})
	if err != nil {
		t.Fatal(err)
	}
	return &hbaserpc.Call{Method: "Get", Param: p, User: user}
}

// TestGateSchedulesByPriorityAndWeight: with one execution slot held, the
// calls queued behind it run in the order their users' PRIORITY and WEIGHT
// give (deterministic: each call is queued before the next is sent, and
// the slot is released one call at a time).
func TestGateSchedulesByPriorityAndWeight(t *testing.T) {
	h := &blockingHandler{started: make(chan struct{}, 64), release: make(chan struct{})}
	g, err := newQuotaGate(h, quota.Config{}, "", true, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	g.slots = newSlots(1, 0, 0)
	applyTenants(t, g, quota.Change{User: "etl", Priority: "LOW"}, quota.Change{User: "web", Priority: "HIGH"},
		quota.Change{User: "a", Weight: 3}, quota.Change{User: "b", Weight: 1})
	var wg sync.WaitGroup
	serve := server(t, g, &wg)
	serve("hold") // takes the only slot
	<-h.started
	queued := func(n int) {
		for g.slots.Waiting() != n {
			runtime.Gosched()
		}
	}
	users := []string{"etl", "a", "b", "a", "b", "a", "b", "a", "b", "web"}
	for i, u := range users {
		serve(u)
		queued(i + 1)
	}
	for range users {
		h.release <- struct{}{} // finish the running call; the next starts
		<-h.started
	}
	h.release <- struct{}{}
	wg.Wait()
	got := fmt.Sprint(h.order[1:])
	// web (HIGH) first; then the MEDIUM users a (weight 3) and b (weight
	// 1) by virtual finish tag, a's 1/3, 2/3, 1, 4/3 and b's 1, 2, 3, 4
	// (the tie at 1 goes to b, queued first): a gets 3 slots to b's 1 while
	// both are backlogged; etl (LOW) last.
	if want := "[web a a b a a b b b etl]"; got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
	if g.slots.InUse() != 0 {
		t.Fatalf("%d slots in use after every call ended", g.slots.InUse())
	}
}

// TestGateWorkConserving: below the handler count nobody queues, whatever
// the priority.
func TestGateWorkConserving(t *testing.T) {
	h := &blockingHandler{started: make(chan struct{}, 8), release: make(chan struct{})}
	g, err := newQuotaGate(h, quota.Config{}, "", true, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	g.slots = newSlots(3, 0, 0)
	st, err := (quota.Settings{}).Apply(quota.Change{User: "etl", Priority: "LOW"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.apply(meta.QuotaState{Settings: st, RPCThrottle: true}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Serve(context.Background(), getCall(t, "etl")); err != nil {
				t.Error(err)
			}
		}()
	}
	for range 3 {
		<-h.started // all three run at once
	}
	if w := g.slots.Waiting(); w != 0 {
		t.Fatalf("%d calls waiting with free slots", w)
	}
	close(h.release)
	wg.Wait()
}

// yieldingHandler is blockingHandler whose LOW calls (etl's) pass their
// safe point first, as a scan does between rows, and whose HIGH calls
// (web's) are held on their own channel.
type yieldingHandler struct {
	blockingHandler
	web chan struct{}
}

func (h *yieldingHandler) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	if c.User == "web" {
		h.started <- struct{}{}
		<-h.web
		return hbaserpc.Response{Msg: &hbasepb.GetResponse{}}, nil
	}
	if c.User == "etl" {
		y := region.YielderFrom(ctx)
		if y == nil {
			return hbaserpc.Response{}, fmt.Errorf("LOW call served without a yielder")
		}
		y.Yield(ctx)
	}
	return h.blockingHandler.Serve(ctx, c)
}

// TestGateBoundsLowWhileHighRuns: while a HIGH call runs, LOW calls hold
// at most the bound of slots though more are free; when it ends, they all
// run (work-conserving).
func TestGateBoundsLowWhileHighRuns(t *testing.T) {
	if got, want := newSlots(30, 4, 0).LowBusyLimit, max(runtime.GOMAXPROCS(0)-1, 1); got != want {
		t.Fatalf("default LOW bound %d, want GOMAXPROCS-1 = %d", got, want)
	}
	if s := newSlots(30, 4, 3); s.LowBusyLimit != 3 || s.LowWaitsWhileBusy {
		t.Fatalf("LOW bound 3: got %d, waits %v", s.LowBusyLimit, s.LowWaitsWhileBusy)
	}
	if s := newSlots(30, 4, -1); !s.LowWaitsWhileBusy || !s.LowBounded() {
		t.Fatalf("LOW bound none: waits %v, bounded %v", s.LowWaitsWhileBusy, s.LowBounded())
	}
	h, g := lowHighGate(t, &quota.Scheduler{Slots: 4, LowBusyLimit: 1})
	var wg sync.WaitGroup
	serve := server(t, g, &wg)
	serve("web")
	<-h.started
	for range 3 {
		serve("etl")
	}
	<-h.started // one LOW runs
	for g.slots.Waiting() != 2 {
		runtime.Gosched()
	}
	if g.slots.InUse() != 2 || g.slots.LowInUse() != 1 {
		t.Fatalf("HIGH running: %d in use, %d LOW; want 2, 1 (two LOW queued with two slots free)", g.slots.InUse(), g.slots.LowInUse())
	}
	close(h.web) // web ends
	for range 2 {
		<-h.started
	}
	if g.slots.LowInUse() != 3 || g.slots.Waiting() != 0 {
		t.Fatalf("HIGH ended: %d LOW in use, %d waiting; want 3, 0", g.slots.LowInUse(), g.slots.Waiting())
	}
	close(h.release)
	wg.Wait()
}

// TestGateStrictLowWaitsWhileHighRuns: with weir.regionserver.low.busy.limit
// 0 (newSlots' low < 0), no LOW call runs while a HIGH call does, though
// slots are free; once HIGH has been gone for the linger, they all run.
func TestGateStrictLowWaitsWhileHighRuns(t *testing.T) {
	h, g := lowHighGate(t, newSlots(4, 0, -1))
	var wg sync.WaitGroup
	serve := server(t, g, &wg)
	serve("web")
	<-h.started
	for range 2 {
		serve("etl")
	}
	for deadline := time.Now().Add(5 * time.Second); g.slots.Waiting()+g.slots.LowInUse() != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the two LOW calls neither queued nor ran: %d waiting, %d LOW in use", g.slots.Waiting(), g.slots.LowInUse())
		}
		runtime.Gosched()
	}
	if g.slots.InUse() != 1 || g.slots.LowInUse() != 0 {
		t.Fatalf("HIGH running: %d in use, %d LOW; want 1, 0", g.slots.InUse(), g.slots.LowInUse())
	}
	close(h.web)
	for range 2 {
		<-h.started // after the linger, without any other call
	}
	if g.slots.LowInUse() != 2 || g.slots.Waiting() != 0 {
		t.Fatalf("HIGH gone: %d LOW in use, %d waiting; want 2, 0", g.slots.LowInUse(), g.slots.Waiting())
	}
	close(h.release)
	wg.Wait()
}

// lowHighGate returns a gate with slots over a yieldingHandler, user etl
// at PRIORITY LOW and web at HIGH.
func lowHighGate(t *testing.T, slots *quota.Scheduler) (*yieldingHandler, *quotaGate) {
	t.Helper()
	h := &yieldingHandler{blockingHandler{started: make(chan struct{}, 8), release: make(chan struct{})}, make(chan struct{})}
	g, err := newQuotaGate(h, quota.Config{}, "", true, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	g.slots = slots
	applyTenants(t, g, quota.Change{User: "etl", Priority: "LOW"}, quota.Change{User: "web", Priority: "HIGH"})
	return h, g
}

// applyTenants installs the quota settings changes give.
func applyTenants(t *testing.T, g *quotaGate, changes ...quota.Change) {
	t.Helper()
	st := quota.Settings{}
	var err error
	for _, c := range changes {
		if st, err = st.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.apply(meta.QuotaState{Settings: st, RPCThrottle: true}); err != nil {
		t.Fatal(err)
	}
}

// server returns a function that serves a Get of user through g on its
// own goroutine, counted in wg.
func server(t *testing.T, g *quotaGate, wg *sync.WaitGroup) func(user string) {
	return func(user string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Serve(context.Background(), getCall(t, user)); err != nil {
				t.Error(err)
			}
		}()
	}
}
