package quota

import (
	"fmt"
	"math"
	"time"
)

// ShareKey names one shared limit: a subject's throttle of one type. A
// limit is shared when it is CLUSTER scope (by every region server) or
// MACHINE scope on a host with several region server instances (by those
// instances, when per-host budgets are on).
type ShareKey struct {
	Subject Subject
	Type    ThrottleType
}

func (k ShareKey) String() string { return k.Subject.String() + " " + k.Type.String() }

// Split says which fraction of each shared limit this server enforces.
// The static fractions are what a server can work out alone (HBase's
// static split); Shares are the master's demand-based fractions, which
// override them while the master is reachable.
type Split struct {
	// Cluster is the fraction of a CLUSTER-scope limit: 1 / live region
	// servers. Must be in (0, 1].
	Cluster float64
	// Machine is the fraction of a MACHINE-scope limit: 1, or 1 / live
	// instances on this host when the host's instances share one budget.
	// Must be in (0, 1].
	Machine float64
	// Shares maps a shared limit to this server's fraction of it, in
	// [0, 1]. The map must not be changed after SetSplit.
	Shares map[ShareKey]float64
}

// Validate checks the fractions.
func (sp *Split) Validate() error {
	if !(sp.Cluster > 0 && sp.Cluster <= 1) {
		return fmt.Errorf("quota: split: Cluster fraction %v not in (0, 1]", sp.Cluster)
	}
	if !(sp.Machine > 0 && sp.Machine <= 1) {
		return fmt.Errorf("quota: split: Machine fraction %v not in (0, 1]", sp.Machine)
	}
	for k, f := range sp.Shares {
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("quota: split: share of %s is %v, not in [0, 1]", k, f)
		}
	}
	return nil
}

// minFactor keeps a limiter's rate positive: a share of 0 (an idle server)
// still refills slowly, so RateLimiter never divides by a zero rate.
const minFactor = 1e-6

func (sp *Split) factor(s Subject, t ThrottleType, sc Scope) float64 {
	if f, ok := sp.Shares[ShareKey{s, t}]; ok {
		return math.Max(f, minFactor)
	}
	if sc == ScopeCluster {
		return sp.Cluster
	}
	return sp.Machine
}

// Shared reports whether a throttle of this scope is shared under sp: every
// CLUSTER-scope one, and MACHINE-scope ones when the host has several
// instances sharing its budget.
func (sp *Split) Shared(sc Scope) bool { return sc == ScopeCluster || sp.Machine < 1 }

// SetSplit makes the Checker enforce sp's fractions of shared limits (and
// of those set later). A limiter whose fraction moves keeps its balance,
// capped at the new capacity: no tokens are added, so shares that move on
// every report hand out no bursts. Default user quotas are not shared.
func (c *Checker) SetSplit(sp Split, now time.Time) error {
	if err := sp.Validate(); err != nil {
		return err
	}
	c.updateMu.Lock()
	defer c.updateMu.Unlock()
	c.split.Store(&sp)
	clock := c.clock(now)
	for s, l := range c.state.Load().all {
		c.tokMu.Lock() // per limiter: requests wait for one limiter, not all
		l.rescaleLocked(clock, c, &sp, s)
		c.tokMu.Unlock()
	}
	return nil
}

// rescaleLocked applies new factors to the limited types whose factor
// changed. The caller holds tokMu.
func (l *subjectLimiter) rescaleLocked(now int64, c *Checker, sp *Split, s Subject) {
	for t := RequestNumber; t <= RequestHandlerUsageMs; t++ {
		if l.tok.set&(1<<t) == 0 {
			continue
		}
		tq := l.tok.tq[t]
		if f := c.factor(sp, s, t, tq.Scope); f != l.tok.factor[t] {
			l.tok.factor[t] = f
			l.rlOf(t).rescaleNs(now, float64(tq.Limit.Amount)*f)
		}
	}
}
