package quota

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
)

// ToProto converts q to the hbase:quota row value. Priority and Weight,
// which HBase's Quotas message has no field for, ride as Weir extension
// fields (ext.go) that HBase's parser ignores.
func (q Quota) ToProto() *hbasepb.Quotas {
	out := &hbasepb.Quotas{}
	if q.Priority != PriorityMedium || q.Weight != 0 {
		var s Sched
		if q.Priority != PriorityMedium {
			p := q.Priority
			s.Priority = &p
		}
		s.Weight = q.Weight
		SetSchedExt(out, s)
	}
	if q.BypassGlobals {
		b := true
		out.BypassGlobals = &b
	}
	if q.Space != nil {
		out.Space = q.Space.ToProto()
	}
	if len(q.Throttles) == 0 {
		return out
	}
	th := &hbasepb.Throttle{}
	for _, t := range slices.Sorted(maps.Keys(q.Throttles)) {
		*throttleField(th, t) = timedQuotaToProto(q.Throttles[t])
	}
	out.Throttle = th
	return out
}

// QuotaFromProto converts an hbase:quota row value for subject s, validating
// it.
func QuotaFromProto(s Subject, p *hbasepb.Quotas) (Quota, error) {
	q := Quota{BypassGlobals: p.GetBypassGlobals()}
	sched, err := SchedExt(p)
	if err != nil {
		return Quota{}, fmt.Errorf("quota: %s: %w", s, err)
	}
	if sched.Priority != nil {
		q.Priority = *sched.Priority
	}
	q.Weight = sched.Weight
	if sp := p.GetSpace(); sp != nil && !sp.GetRemove() {
		q.Space = SpaceQuotaFromProto(sp)
	}
	if th := p.GetThrottle(); th != nil {
		for t := RequestNumber; t <= RequestHandlerUsageMs; t++ {
			pq := *throttleField(th, t)
			if pq == nil {
				continue
			}
			tq, err := timedQuotaFromProto(t, pq)
			if err != nil {
				return Quota{}, fmt.Errorf("quota: %s: %s: %w", s, t, err)
			}
			if q.Throttles == nil {
				q.Throttles = make(map[ThrottleType]TimedQuota)
			}
			q.Throttles[t] = tq
		}
	}
	if err := validateQuota(s, q); err != nil {
		return Quota{}, err
	}
	return q, nil
}

// ToProto converts every subject's quota.
func (st Settings) ToProto() map[Subject]*hbasepb.Quotas {
	out := make(map[Subject]*hbasepb.Quotas, len(st.m))
	for s, q := range st.m {
		out[s] = q.ToProto()
	}
	return out
}

// SettingsFromProto builds Settings from hbase:quota row values.
func SettingsFromProto(rows map[Subject]*hbasepb.Quotas) (Settings, error) {
	st := Settings{m: make(map[Subject]Quota, len(rows))}
	for s, p := range rows {
		q, err := QuotaFromProto(s, p)
		if err != nil {
			return Settings{}, err
		}
		if !q.empty() {
			st.m[s] = q
		}
	}
	return st, nil
}

// ThrottleRequestToProto is the wire form of setting (tq non-nil) or
// removing (tq nil) one throttle, as in SetQuotaRequest.throttle.
func ThrottleRequestToProto(t ThrottleType, tq *TimedQuota) *hbasepb.ThrottleRequest {
	pt := hbasepb.ThrottleType(t)
	r := &hbasepb.ThrottleRequest{Type: &pt}
	if tq != nil {
		r.TimedQuota = timedQuotaToProto(*tq)
	}
	return r
}

func throttleField(th *hbasepb.Throttle, t ThrottleType) **hbasepb.TimedQuota {
	switch t {
	case RequestNumber:
		return &th.ReqNum
	case RequestSize:
		return &th.ReqSize
	case WriteNumber:
		return &th.WriteNum
	case WriteSize:
		return &th.WriteSize
	case ReadNumber:
		return &th.ReadNum
	case ReadSize:
		return &th.ReadSize
	case RequestCapacityUnit:
		return &th.ReqCapacityUnit
	case WriteCapacityUnit:
		return &th.WriteCapacityUnit
	case ReadCapacityUnit:
		return &th.ReadCapacityUnit
	case AtomicReadSize:
		return &th.AtomicReadSize
	case AtomicRequestNumber:
		return &th.AtomicReqNum
	case AtomicWriteSize:
		return &th.AtomicWriteSize
	case RequestHandlerUsageMs:
		return &th.ReqHandlerUsageMs
	}
	panic(fmt.Sprintf("quota: bad throttle type %d", t))
}

var protoTimeUnits = []struct {
	u hbasepb.TimeUnit
	d time.Duration
}{
	{hbasepb.TimeUnit_NANOSECONDS, time.Nanosecond},
	{hbasepb.TimeUnit_MICROSECONDS, time.Microsecond},
	{hbasepb.TimeUnit_MILLISECONDS, time.Millisecond},
	{hbasepb.TimeUnit_SECONDS, time.Second},
	{hbasepb.TimeUnit_MINUTES, time.Minute},
	{hbasepb.TimeUnit_HOURS, time.Hour},
	{hbasepb.TimeUnit_DAYS, 24 * time.Hour},
}

func timedQuotaToProto(tq TimedQuota) *hbasepb.TimedQuota {
	tu := hbasepb.TimeUnit_SECONDS
	for _, pu := range protoTimeUnits {
		if pu.d == tq.Limit.Per {
			tu = pu.u
		}
	}
	limit := uint64(tq.Limit.Amount)
	scope := hbasepb.QuotaScope_MACHINE
	if tq.Scope == ScopeCluster {
		scope = hbasepb.QuotaScope_CLUSTER
	}
	return &hbasepb.TimedQuota{TimeUnit: &tu, SoftLimit: &limit, Scope: &scope}
}

func timedQuotaFromProto(t ThrottleType, p *hbasepb.TimedQuota) (TimedQuota, error) {
	var tq TimedQuota
	for _, pu := range protoTimeUnits {
		if pu.u == p.GetTimeUnit() {
			tq.Limit.Per = pu.d
		}
	}
	if p.TimeUnit == nil || tq.Limit.Per == 0 {
		return tq, fmt.Errorf("bad time unit %v", p.GetTimeUnit())
	}
	if p.GetSoftLimit() == 0 || p.GetSoftLimit() > 1<<62 {
		return tq, fmt.Errorf("soft limit %d out of range", p.GetSoftLimit())
	}
	tq.Limit.Amount = int64(p.GetSoftLimit())
	tq.Limit.Unit = t.Unit()
	if p.GetScope() == hbasepb.QuotaScope_CLUSTER {
		tq.Scope = ScopeCluster
	}
	return tq, nil
}
