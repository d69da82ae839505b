package quota

import (
	"errors"
	"fmt"
	"time"
)

// Exceed-throttle soft limits (enable_exceed_throttle_quota), as HBase's
// ExceedOperationQuota: while the switch is on and a REGIONSERVER quota is
// set, the region-server limiter decides alone. A request it admits is
// charged to every other limiter too, even past their limits (their debt
// is repaid by later refills), so a tenant may use capacity that others
// leave idle but never more than the server's own limit. A request the
// region-server limiter refuses is throttled with its wait hint. Without a
// REGIONSERVER quota (or for a GLOBAL_BYPASS user, who meets no
// region-server limiter) every limit stays hard.

// SetExceedThrottle turns soft limits on or off. Limiter balances are kept.
func (c *Checker) SetExceedThrottle(on bool) { c.exceed.Store(on) }

// ExceedThrottle reports whether soft limits are on.
func (c *Checker) ExceedThrottle() bool { return c.exceed.Load() }

// checkSoftLocked is Check for soft limits: r.lims ends with the
// region-server limiter, which alone may refuse. The caller holds tokMu.
func (c *Checker) checkSoftLocked(r *resolved, ns int64, a *amounts, mask uint16) error {
	n := int(r.n)
	rs := r.lims[n-1]
	if t, wait := rs.checkLocked(ns, a, mask); t != 0 {
		return &ThrottledError{Type: t, Wait: wait}
	}
	for _, l := range r.lims[:n] {
		// Over its own limit, a limiter takes the tokens anyway, into debt,
		// but does not count the request as admitted.
		if t, _ := l.checkLocked(ns, a, mask); t == 0 {
			l.tok.admitted++
		}
		l.adjustLocked(a, mask)
	}
	return nil
}

// ErrExceedNeedsRegionServerQuota is returned by CheckExceedThrottle.
var ErrExceedNeedsRegionServerQuota = errors.New("quota: cannot enable exceed throttle quota")

// CheckExceedThrottle reports whether st allows turning soft limits on,
// with HBase's rules (QuotaUtil.checkRSQuotaToEnableExceedThrottle): a
// REGIONSERVER quota with at least one read and one write throttle (a
// REQUEST_* one counts as both), all per second, since debt taken against
// a per-minute or per-hour server limit would block later requests for
// that long.
func (st Settings) CheckExceedThrottle() error {
	q, ok := st.Get(RegionServerSubject())
	if !ok || len(q.Throttles) == 0 {
		return fmt.Errorf("%w: please set region server quota before enable exceed throttle quota", ErrExceedNeedsRegionServerQuota)
	}
	var read, write bool
	for t, tq := range q.Throttles {
		switch t {
		case RequestNumber, RequestSize, RequestCapacityUnit:
			read, write = true, true
		case ReadNumber, ReadSize, ReadCapacityUnit:
			read = true
		case WriteNumber, WriteSize, WriteCapacityUnit:
			write = true
		default:
			continue
		}
		if tq.Limit.Per != time.Second {
			return fmt.Errorf("%w: all region server quota must be in seconds time unit if enable exceed throttle quota", ErrExceedNeedsRegionServerQuota)
		}
	}
	if !read {
		return fmt.Errorf("%w: please set at least one read region server quota before enable exceed throttle quota", ErrExceedNeedsRegionServerQuota)
	}
	if !write {
		return fmt.Errorf("%w: please set at least one write region server quota before enable exceed throttle quota", ErrExceedNeedsRegionServerQuota)
	}
	return nil
}
