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

// noRelease is the release of a call that took no slot.
func noRelease() {}

// acquireSlot takes one of the server's execution slots for a data call
// of user, after its quota admission (a call waiting for its tokens holds
// no slot). While slots are free it returns at once (work-conserving);
// when all are busy the call queues and is admitted by the user's
// PRIORITY, then by weighted fair share across users (quota.Scheduler).
// While HIGH or MEDIUM work is active, LOW calls hold at most
// lowBusyLimit() slots. It returns the context to serve the call with (a
// LOW call's carries its slot as the scan's region.Yielder, so that a long
// scan gives way between rows), the release to call when the handler is
// done, the user's priority (as the grant says: no second lookup of the
// user's settings), or ctx's error.
func (g *quotaGate) acquireSlot(ctx context.Context, user string, grant *quota.Grant) (context.Context, func(), quota.Priority, error) {
	p, w := grant.Tenant()
	if g.slots == nil {
		return ctx, noRelease, p, nil
	}
	sl, err := g.slots.AcquireSlot(ctx, user, p, w)
	if err != nil {
		return ctx, nil, p, err
	}
	if p <= quota.PriorityLow && g.slots.LowBusyLimit > 0 {
		ctx = region.WithYielder(ctx, sl)
	}
	return ctx, sl.Release, p, nil
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
// calls, and the niced threads LOW reads run on (none for n < 0).
func (g *quotaGate) setSlots(n, high int) {
	g.slots = newSlots(n, high)
	if n >= 0 {
		g.lowPool = newLowPool(max(n, 1))
	}
}

// serveSlotted runs the handler for a call that holds its slot: a LOW
// read that starts while higher work is active on a niced thread of
// lowPool, anything else here (so LOW alone runs at full weight: the
// pool's threads would lose the CPU to any other process, its own
// clients' included).
func (g *quotaGate) serveSlotted(ctx context.Context, c *hbaserpc.Call, req quota.Request, p quota.Priority) (resp hbaserpc.Response, err error) {
	if g.lowPool == nil || p > quota.PriorityLow || (req.Kind != quota.KindRead && req.Kind != quota.KindScan) || !g.slots.Busy() {
		return g.next.Serve(ctx, c)
	}
	g.lowPool.run(func() { resp, err = g.next.Serve(ctx, c) })
	return resp, err
}

// newSlots returns the scheduler for n execution slots plus high reserved
// for HIGH calls (nil, no bound, for n < 0).
func newSlots(n, high int) *quota.Scheduler {
	if n < 0 {
		return nil
	}
	return &quota.Scheduler{Slots: n, HighReserve: high, LowBusyLimit: lowBusyLimit(), BusyLinger: lowBusyLinger}
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
