package regionserver

import (
	"context"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
)

// threadNice is the calling thread's nice value (the raw syscall returns
// 20 - nice).
func threadNice(t *testing.T) int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	v, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - v
}

// niceHandler records the nice value and scheduling policy of the thread
// each call ran on.
type niceHandler struct {
	t      *testing.T
	mu     sync.Mutex
	nice   map[string]int
	policy map[string]int
}

func (h *niceHandler) Serve(_ context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	runtime.LockOSThread() // read the nice of the thread the call runs on
	tid := syscall.Gettid()
	v, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	pol, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	runtime.UnlockOSThread()
	if err != nil {
		return hbaserpc.Response{}, err
	}
	if errno != 0 {
		return hbaserpc.Response{}, errno
	}
	h.mu.Lock()
	h.nice[c.User] = 20 - v
	h.policy[c.User] = int(pol)
	h.mu.Unlock()
	return hbaserpc.Response{Msg: &hbasepb.GetResponse{}}, nil
}

// TestGateLowReadsNicedWhileHighActive: a LOW read that starts while
// HIGH work runs runs on a thread at nice lowNice; one that starts while
// no higher work is active, and any HIGH call, runs at the server's own
// nice (work-conserving: LOW alone is not slowed by other processes).
func TestGateLowReadsNicedWhileHighActive(t *testing.T) {
	base := threadNice(t)
	if base >= lowNice {
		t.Skipf("the test runs at nice %d already", base)
	}
	h := &niceHandler{t: t, nice: map[string]int{}, policy: map[string]int{}}
	g, err := newQuotaGate(h, quota.Config{}, "", true, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	g.setSlots(4, 1, 0)
	defer g.lowPool.close()
	applyTenants(t, g, quota.Change{User: "etl", Priority: "LOW"}, quota.Change{User: "web", Priority: "HIGH"})
	serve := func(user string) *hbaserpc.Call {
		t.Helper()
		c := getCall(t, user)
		if _, err := g.Serve(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if serve("etl").WriteAlone {
		t.Fatal("a LOW call on the caller's thread skips the response batching")
	}
	if !serve("web").WriteAlone {
		t.Fatal("a HIGH call's response is not marked WriteAlone")
	}
	if h.nice["etl"] != base || h.nice["web"] != base {
		t.Fatalf("idle server: LOW ran at nice %d, HIGH at %d; want %d", h.nice["etl"], h.nice["web"], base)
	}
	if h.policy["etl"] != 0 || h.policy["web"] != 0 {
		t.Fatalf("idle server: LOW ran in policy %d, HIGH in %d; want SCHED_OTHER", h.policy["etl"], h.policy["web"])
	}
	// A HIGH call in flight: hold a HIGH slot directly.
	sl, err := g.slots.AcquireSlot(context.Background(), "web", quota.PriorityHigh, 1)
	if err != nil {
		t.Fatal(err)
	}
	serve("etl")
	if h.nice["etl"] != lowNice || h.policy["etl"] != schedIdle {
		t.Fatalf("LOW with HIGH in flight ran at nice %d, policy %d; want %d, SCHED_IDLE", h.nice["etl"], h.policy["etl"], lowNice)
	}
	sl.Release()
	if threadNice(t) != base {
		t.Fatalf("the test's thread changed nice")
	}
}

// TestLowPoolPanicAndClose: a panic on a worker reaches the caller; after
// close, work runs on the caller's goroutine.
func TestLowPoolPanicAndClose(t *testing.T) {
	p := newLowPool(2)
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("the worker's panic did not reach the caller")
			}
		}()
		p.run(func() { panic("boom") })
	}()
	ran := 0
	for range 5 {
		p.run(func() { ran++ })
	}
	p.close()
	p.close() // twice is fine
	p.run(func() { ran++ })
	if ran != 6 {
		t.Fatalf("ran %d of 6", ran)
	}
}
