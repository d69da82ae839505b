package quota

import (
	"math"
	"time"
)

// RateLimiter is a token bucket with HBase's AverageIntervalRateLimiter
// semantics: tokens refill continuously at Limit per Per (refill = limit ×
// elapsed / unit), the capacity is one unit's worth (Limit), and consumption
// may drive the balance negative (debt, HBASE-27704) which later refills
// repay. The clock is passed in on every call, so tests control time.
//
// A RateLimiter is a plain value with no lock and no allocation; it is not
// safe for concurrent use (Checker guards its limiters with a mutex).
// Tokens are kept as float64 so that fractional refills (1 MiB/s over 1 ns)
// accumulate exactly enough; a limiter starts full.
type RateLimiter struct {
	avail float64 // may be negative (debt); never above limit
	last  int64   // clock reading (ns) of the last refill; 0 before first use
	rate  float64 // tokens per nanosecond: limit / unit
	limit float64 // tokens per unit, > 0
	// taken counts the tokens consumed since the limiter was made, net of
	// refunds: usage reporting differences it into a rate.
	taken float64
	unit  time.Duration // > 0
}

// NewRateLimiter returns a full limiter of limit tokens per unit.
func NewRateLimiter(limit float64, unit time.Duration) RateLimiter {
	return RateLimiter{limit: limit, unit: unit, rate: limit / float64(unit), avail: limit}
}

// Limit returns the limit and its time unit.
func (r *RateLimiter) Limit() (float64, time.Duration) { return r.limit, r.unit }

// The exported methods take a time.Time and read it as Unix nanoseconds;
// Checker uses the ...Ns forms with readings of its own monotonic clock
// (nanoseconds since it was built). A limiter must stick to one of the two.
func clockNs(now time.Time) int64 { return now.UnixNano() }

// refillNs adds the tokens earned since the last refill, capped at the
// limit. A clock that goes backwards adds nothing.
func (r *RateLimiter) refillNs(now int64) {
	if r.last == 0 {
		r.last = now
		return
	}
	e := now - r.last
	if e <= 0 {
		return
	}
	r.last = now
	if r.avail >= r.limit {
		return
	}
	if r.avail += r.rate * float64(e); r.avail > r.limit {
		r.avail = r.limit
	}
}

// Available returns the balance at now (negative while in debt).
func (r *RateLimiter) Available(now time.Time) float64 {
	r.refillNs(clockNs(now))
	return r.avail
}

// checkNs reports whether n tokens may be taken at now and, if not, how long
// until they may. A request larger than the capacity only needs a full
// bucket (HBase clamps estimates to the limit, HBASE-28672), so it passes
// eventually and then leaves the bucket in debt. A tolerance of 1e-9 token
// per token absorbs float rounding, so waiting exactly the hinted time
// always succeeds.
func (r *RateLimiter) checkNs(now int64, n int64) (bool, time.Duration) {
	if r.admitsNs(now, n) {
		return true, 0
	}
	return false, r.waitFor(r.need(n))
}

// admitsNs is checkNs without the wait. (Checker's loop over a request's
// limiters spells it out, to inline it.)
func (r *RateLimiter) admitsNs(now int64, n int64) bool {
	r.refillNs(now)
	// The common case needs neither the clamp nor the tolerance.
	return r.avail >= float64(n) || r.admitsNear(n)
}

// admitsNear is admitsNs's test for a balance short of n: n clamped to the
// limit, less the rounding tolerance.
func (r *RateLimiter) admitsNear(n int64) bool {
	need := r.need(n)
	return r.avail >= need-1e-9*max(need, 1)
}

// need is what taking n tokens requires of the balance: n, clamped to the
// limit.
func (r *RateLimiter) need(n int64) float64 { return min(float64(n), r.limit) }

// waitFor is the time until the balance reaches need at the refill rate,
// rounded up to the nanosecond.
func (r *RateLimiter) waitFor(need float64) time.Duration {
	w := math.Ceil((need - r.avail) / r.rate)
	if w >= math.MaxInt64 || math.IsNaN(w) {
		return math.MaxInt64
	}
	return time.Duration(w)
}

// TryConsume takes n tokens if they are available at now. Otherwise it takes
// nothing and returns the true time until they will be (the wait hint). n
// above the limit needs only a full bucket and then goes into debt.
func (r *RateLimiter) TryConsume(now time.Time, n int64) (ok bool, wait time.Duration) {
	if ok, wait = r.checkNs(clockNs(now), n); ok {
		r.adjust(float64(n))
	}
	return ok, wait
}

// Consume takes n tokens unconditionally (n < 0 gives tokens back, never
// above the limit). This is how actual cost is charged after the fact: the
// balance may go negative and future refills repay it.
func (r *RateLimiter) Consume(now time.Time, n int64) {
	r.refillNs(clockNs(now))
	r.adjust(float64(n))
}

// adjust takes n tokens without refilling (used under a lock where time is
// not at hand: charging a grant).
func (r *RateLimiter) adjust(n float64) {
	r.taken += n
	if r.avail -= n; r.avail > r.limit {
		r.avail = r.limit
	}
}

// Update changes the limit as HBase's RateLimiter.update does: the balance
// is kept, plus the difference when the limit grows, and capped at the new
// limit. HBase compares raw limits whatever their time unit; when the unit
// changes Weir instead keeps the balance as the same fraction of the
// capacity, so "10req/sec" → "600req/min" does not hand out a burst.
func (r *RateLimiter) Update(now time.Time, limit float64, unit time.Duration) {
	r.updateNs(clockNs(now), limit, unit)
}

// rescaleNs changes the limit when this server's share of a shared limit
// moves (quota.Split). Unlike Update it never adds tokens: the balance is
// only capped at the new capacity, so shares that move every report cannot
// hand out bursts.
func (r *RateLimiter) rescaleNs(now int64, limit float64) {
	r.refillNs(now)
	r.limit, r.rate = limit, limit/float64(r.unit)
	r.avail = math.Min(r.avail, limit)
}

func (r *RateLimiter) updateNs(now int64, limit float64, unit time.Duration) {
	r.refillNs(now)
	switch {
	case unit != r.unit:
		r.avail = r.avail / r.limit * limit
	case limit > r.limit:
		r.avail += limit - r.limit
	}
	r.limit, r.unit, r.rate = limit, unit, limit/float64(unit)
	r.avail = math.Min(r.avail, limit)
}
