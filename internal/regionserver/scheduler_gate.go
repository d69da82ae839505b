package regionserver

import (
	"context"

	"github.com/weirdb/weir/internal/quota"
)

// DefaultHandlerCount is hbase.regionserver.handler.count's default, the
// number of data calls a region server executes at once. HBase's default
// is 30, sized for handlers that block on HDFS; Weir's calls block only on
// the WAL's fsync (writes) and otherwise hold a CPU. 30 keeps group commit
// batching fsyncs under write load (fewer slots would cap concurrent
// writes); operators after latency isolation of CPU-bound reads lower it
// towards the core count (docs/performance.md measures both).
const DefaultHandlerCount = 30

// acquireSlot takes one of the server's execution slots for a data call
// of user, after its quota admission (a call waiting for its tokens holds
// no slot). While slots are free it returns at once (work-conserving);
// when all are busy the call queues and is admitted by the user's
// PRIORITY, then by weighted fair share across users (quota.Scheduler),
// as the grant says (no second lookup of the user's settings). It returns
// the slot to release when the handler is done (the zero Slot when slots
// are unbounded), or ctx's error.
func (g *quotaGate) acquireSlot(ctx context.Context, user string, grant *quota.Grant) (quota.Slot, error) {
	if g.slots == nil {
		return quota.Slot{}, nil
	}
	p, w := grant.Tenant()
	return g.slots.AcquireSlot(ctx, user, p, w)
}

// DefaultHighPriorityHandlers is weir.regionserver.high.priority.handler.count's
// default: execution slots beyond hbase.regionserver.handler.count that
// only PRIORITY HIGH calls may take (as HBase keeps priority handlers for
// meta and admin calls apart), so that a HIGH call need not wait for a
// running LOW call to finish.
const DefaultHighPriorityHandlers = 4

// newSlots returns the scheduler for n execution slots plus high reserved
// for HIGH calls (nil, no bound, for n < 0).
func newSlots(n, high int) *quota.Scheduler {
	if n < 0 {
		return nil
	}
	return &quota.Scheduler{Slots: n, HighReserve: high}
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
