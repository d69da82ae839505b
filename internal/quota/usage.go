package quota

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// limiterUse is a subject limiter's accounting of waits and rejections.
// It is touched only on the throttled path (a refused check), never on an
// admitted request's path, so plain atomics cost the hot path nothing.
type limiterUse struct {
	queued   atomic.Int64  // requests held now, waiting for this limiter's tokens
	rejected atomic.Uint64 // requests refused by this limiter (RpcThrottlingException)
	waitNs   atomic.Int64  // total time requests waited on this limiter
}

// Usage is one row of live usage: one limited throttle type of one
// subject on this server. Admitted, Rejected, Queued and Wait count
// requests of the subject's limiter as a whole, so they repeat on each of
// its types' rows.
type Usage struct {
	Subject Subject
	// Default marks a user's default quota (hbase.quota.default.user.*).
	Default bool
	Type    ThrottleType
	// Quota is the throttle as set; Factor is this server's fraction of it
	// (1 for an unshared MACHINE limit).
	Quota  TimedQuota
	Factor float64
	// Limit is this server's limit in Type's unit per second.
	Limit float64
	// Available is the tokens in the bucket now (negative in debt).
	Available float64
	// Consumed is the units taken since the limiter was made (net of
	// refunds); Rate is its recent rate per second (filled by UsageRates).
	Consumed float64
	Rate     float64
	// Admitted and Rejected count requests since the limiter was made;
	// Queued is how many are held now waiting for its tokens (a tenant's
	// requests queued behind one that waits on it included); Wait is the
	// total time requests slept for its tokens (a tenant's queue sleeps
	// one request at a time, so this is about the time the tenant was
	// held back, not the sum of every request's latency).
	Admitted, Rejected uint64
	Queued             int64
	Wait               time.Duration

	lim *subjectLimiter // the row's limiter (ID)
}

// Key identifies the row's limiter and type across snapshots.
func (u *Usage) Key() UsageKey { return UsageKey{u.Subject, u.Default, u.Type} }

// UsageID identifies the row's limiter and type like Key, but cheaply (a
// pointer, no strings to hash): samplers keep per-row state under it. A
// limiter made anew (a mode switch) gets a new ID.
type UsageID struct {
	lim *subjectLimiter
	t   ThrottleType
}

// ID returns the row's UsageID.
func (u *Usage) ID() UsageID { return UsageID{u.lim, u.Type} }

// UsageKey identifies one usage row.
type UsageKey struct {
	Subject Subject
	Default bool
	Type    ThrottleType
}

// appendUsageLocked appends l's rows. The caller holds tokMu.
func (l *subjectLimiter) appendUsageLocked(out []Usage, now int64) []Usage {
	for t := RequestNumber; t <= RequestHandlerUsageMs; t++ {
		if l.tok.set&(1<<t) == 0 {
			continue
		}
		rl := l.rlOf(t)
		rl.refillNs(now)
		limit, per := rl.Limit()
		out = append(out, Usage{
			Subject:   l.subject,
			Default:   l.isDefault,
			Type:      t,
			Quota:     l.tok.tq[t],
			Factor:    l.tok.factor[t],
			Limit:     limit / per.Seconds(),
			Available: rl.avail,
			Consumed:  rl.taken,
			Admitted:  l.tok.admitted,
			Rejected:  l.use.rejected.Load(),
			Queued:    l.use.queued.Load(),
			Wait:      time.Duration(l.use.waitNs.Load()),
			lim:       l,
		})
	}
	return out
}

// Usage returns a row per limited type of every subject limiter, including
// the default user quotas in use, in no particular order (SortUsage sorts
// them). It takes the token lock briefly once per limiter; it is meant for
// a reporter's tick, not the request path.
func (c *Checker) Usage(now time.Time) []Usage {
	st := c.state.Load()
	clock := c.clock(now)
	c.defaults.RLock()
	nDefaults := len(c.defaults.m)
	c.defaults.RUnlock()
	out := make([]Usage, 0, len(st.all)+nDefaults) // most limiters limit one type
	for _, l := range st.all {
		c.tokMu.Lock() // per limiter: requests wait for one limiter, not all
		out = l.appendUsageLocked(out, clock)
		c.tokMu.Unlock()
	}
	c.defaults.RLock()
	defaults := make([]*subjectLimiter, 0, len(c.defaults.m))
	for _, l := range c.defaults.m {
		defaults = append(defaults, l)
	}
	c.defaults.RUnlock()
	for _, l := range defaults {
		c.tokMu.Lock()
		out = l.appendUsageLocked(out, clock)
		c.tokMu.Unlock()
	}
	return out
}

// SortUsage sorts rows by subject, default flag and type.
func SortUsage(rows []Usage) {
	slices.SortFunc(rows, func(a, b Usage) int {
		if c := cmp.Compare(a.Subject.User, b.Subject.User); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Subject.Namespace, b.Subject.Namespace); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Subject.Table, b.Subject.Table); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Subject.RegionServer, b.Subject.RegionServer); c != 0 {
			return c
		}
		if a.Default != b.Default {
			if a.Default {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Type, b.Type)
	})
}

// blamed returns the limiter a throttling error came from, or nil.
func blamed(err error) *subjectLimiter {
	var te *ThrottledError
	if errors.As(err, &te) {
		return te.lim
	}
	return nil
}

// noteRejected counts a rejection against the limiter that refused.
func noteRejected(err error) {
	if l := blamed(err); l != nil {
		l.use.rejected.Add(1)
	}
}

// noteWaiting marks a request as held on l (d > 0 when the wait ends:
// -1 queued and d added to the total wait).
func noteWaiting(l *subjectLimiter, start bool, d time.Duration) {
	if l == nil {
		return
	}
	if start {
		l.use.queued.Add(1)
		return
	}
	l.use.queued.Add(-1)
	l.use.waitNs.Add(int64(d))
}

// Usage is the Checker's usage with the Admitter's queues added: requests
// waiting in a tenant's lane behind a head that waits on a limiter count as
// queued on that limiter too.
func (a *Admitter) Usage(now time.Time) []Usage {
	rows := a.checker.Usage(now)
	behind := map[*subjectLimiter]int64{}
	a.mu.Lock()
	for _, l := range a.mu.lanes {
		if l.blocker != nil && l.refs > 1 {
			behind[l.blocker] += int64(l.refs - 1)
		}
	}
	a.mu.Unlock()
	if len(behind) == 0 {
		return rows
	}
	st := a.checker.state.Load()
	for i := range rows {
		if rows[i].Default {
			continue
		}
		if l := st.all[rows[i].Subject]; l != nil {
			rows[i].Queued += behind[l]
		}
	}
	return rows
}

// setBlocker records which limiter a lane's head waits on (nil: none).
func (a *Admitter) setBlocker(t *laneTicket, l *subjectLimiter) {
	a.mu.Lock()
	t.l.blocker = l
	a.mu.Unlock()
}

// UsageRates turns successive usage snapshots into recent rates: an
// exponentially weighted moving average of the consumption with time
// constant Tau (default 1 s), so a rate follows a change within a few
// Tau and does not jump with each sample. Not safe for concurrent use.
type UsageRates struct {
	Tau  time.Duration
	prev map[UsageID]rateState
}

type rateState struct {
	consumed float64
	at       time.Time
	rate     float64
}

// Observe fills rows[i].Rate from the consumption since the previous
// Observe. A row seen for the first time gets rate 0; rows no longer
// present are forgotten.
func (r *UsageRates) Observe(rows []Usage, now time.Time) {
	tau := r.Tau
	if tau <= 0 {
		tau = time.Second
	}
	next := make(map[UsageID]rateState, len(rows))
	for i := range rows {
		k := rows[i].ID()
		s := rateState{consumed: rows[i].Consumed, at: now}
		if p, ok := r.prev[k]; ok {
			s.rate = p.rate
			if dt := now.Sub(p.at); dt > 0 {
				inst := (rows[i].Consumed - p.consumed) / dt.Seconds()
				if inst < 0 {
					inst = 0 // a refund larger than the period's intake
				}
				alpha := 1 - math.Exp(-float64(dt)/float64(tau))
				s.rate += alpha * (inst - s.rate)
			}
		}
		rows[i].Rate = s.rate
		next[k] = s
	}
	r.prev = next
}
