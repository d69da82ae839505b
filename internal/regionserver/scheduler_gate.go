package regionserver

import (
	"context"
	"runtime"
	"time"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
)

// DefaultHandlerCount is hbase.regionserver.handler.count's default, the
// number of data calls a region server executes at once. HBase's default
// is 30, sized for handlers that block on HDFS; Weir's calls block only on
// the WAL's fsync (writes) and otherwise hold a CPU. 30 keeps group commit
// batching fsyncs under write load (fewer slots would cap concurrent
// writes); operators after latency isolation of CPU-bound reads lower it
// towards the core count (docs/performance.md measures both).
const DefaultHandlerCount = 30

// serveAdmitted runs a data call that passed its quota admission: it takes
// one of the server's execution slots (a call waiting for its tokens holds
// none), runs the handler and charges the actual cost. While slots are free
// a call gets one at once (work-conserving); when all are busy it queues
// and is admitted by its user's PRIORITY, then by weighted fair share
// across users (quota.Scheduler). The priority and weight are the grant's
// (no second lookup of the user's settings).
//
// A HIGH or MEDIUM call keeps its slot on this stack (Scheduler.AcquireInto):
// it allocates nothing here. A LOW call takes the path of serveLow.
func (g *quotaGate) serveAdmitted(ctx context.Context, c *hbaserpc.Call, req *quota.Request, grant *quota.Grant) (hbaserpc.Response, error) {
	p, w := grant.Tenant()
	if g.slots == nil {
		return g.serveCharged(ctx, c, req, grant)
	}
	if p <= quota.PriorityLow {
		return g.serveLow(ctx, c, req, grant, w)
	}
	var sl quota.Slot
	if err := g.slots.AcquireInto(ctx, &sl, req.User, p, w); err != nil {
		return hbaserpc.Response{}, err
	}
	defer sl.Release() // also when the handler panics
	// A HIGH call's response is written at once, not after yielding the
	// processor to batch it with others: the yield put the goroutine
	// behind the LOW calls woken as the HIGH call left its slot.
	c.WriteAlone = p == quota.PriorityHigh
	return g.serveCharged(ctx, c, req, grant)
}

// serveLow is serveAdmitted for a LOW call. While HIGH or MEDIUM work is
// active, LOW calls hold at most lowBusyLimit() slots, a scan gives way
// between rows (its slot, carried in ctx, is its region.Yielder), and a
// read that starts then runs on a niced thread of lowPool; LOW alone runs
// here at full weight (the pool's threads would lose the CPU to any other
// process, its own clients' included).
func (g *quotaGate) serveLow(ctx context.Context, c *hbaserpc.Call, req *quota.Request, grant *quota.Grant, w int) (resp hbaserpc.Response, err error) {
	sl := new(quota.Slot)
	if err := g.slots.AcquireInto(ctx, sl, req.User, quota.PriorityLow, w); err != nil {
		return hbaserpc.Response{}, err
	}
	defer sl.Release()
	if g.slots.LowBounded() {
		ctx = region.WithYielder(ctx, sl)
	}
	if g.lowPool == nil || (req.Kind != quota.KindRead && req.Kind != quota.KindScan) || !g.slots.Busy() {
		return g.serveCharged(ctx, c, req, grant)
	}
	// Copies, so that only this path's closure moves them to the heap,
	// not the caller's variables on every call.
	lreq, lgrant := *req, *grant
	sent := false
	g.lowPool.run(func() {
		resp, err = g.serveCharged(ctx, c, &lreq, &lgrant)
		// Encode and write the response here too, so that all of the
		// call's CPU runs niced (at nice 0 on the connection's goroutine
		// it competed with HIGH work), and without yielding first: on a
		// goroutine locked to its thread a yield hands the processor to
		// another thread and back.
		c.WriteAlone = true
		sent = c.Respond(resp, err)
	})
	if sent {
		return hbaserpc.Response{}, nil
	}
	return resp, err
}

// lowBusyLinger is how long LOW stays bounded after the last HIGH or
// MEDIUM call ended: longer than a closed-loop client's think time between
// calls (a fraction of a millisecond to a few), short enough that LOW alone
// gets the whole server back at once.
const lowBusyLinger = 50 * time.Millisecond

// lowBusyLimit is how many slots LOW calls may hold while higher work is
// active: one fewer than the processors Go runs on (at least one), so
// that a processor is free to read, run and answer a HIGH call at once
// instead of after a running scan's time slice.
func lowBusyLimit() int { return max(runtime.GOMAXPROCS(0)-1, 1) }

// DefaultHighPriorityHandlers is weir.regionserver.high.priority.handler.count's
// default: execution slots beyond hbase.regionserver.handler.count that
// only PRIORITY HIGH calls may take (as HBase keeps priority handlers for
// meta and admin calls apart), so that a HIGH call need not wait for a
// running LOW call to finish.
const DefaultHighPriorityHandlers = 4

// setSlots installs the scheduler of n slots plus high reserved for HIGH
// calls, LOW bounded to low slots while higher work is active (0: the
// default, negative: none), and the niced threads LOW reads run on (none
// for n < 0).
func (g *quotaGate) setSlots(n, high, low int) {
	g.slots = newSlots(n, high, low)
	if n >= 0 {
		g.lowPool = newLowPool(max(n, 1))
	}
}

// newSlots returns the scheduler for n execution slots plus high reserved
// for HIGH calls and LOW's bound low (Config.LowBusyLimit), or nil (no
// bound) for n < 0.
func newSlots(n, high, low int) *quota.Scheduler {
	if n < 0 {
		return nil
	}
	s := &quota.Scheduler{Slots: n, HighReserve: high, LowBusyLimit: low, BusyLinger: lowBusyLinger}
	switch {
	case low == 0:
		s.LowBusyLimit = lowBusyLimit()
	case low < 0:
		s.LowBusyLimit, s.LowWaitsWhileBusy = 0, true
	}
	return s
}

// QuotaTenant returns the scheduling class and weight the server applies
// to user's calls (tests and debugging); ok is false when quotas are off.
func (rs *RegionServer) QuotaTenant(user string) (p quota.Priority, weight int, ok bool) {
	if rs.quota == nil {
		return quota.PriorityMedium, 1, false
	}
	p, weight = rs.quota.checker.Load().Tenant(user)
	return p, weight, true
}
