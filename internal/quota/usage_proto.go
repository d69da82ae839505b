package quota

import (
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// ReportServiceName is the master's Weir-only RPC service that region
// servers report quota usage to (ReportQuotaUsage).
const ReportServiceName = "WeirQuotaService"

// SubjectToPB encodes a usage row's subject for WeirQuotaService.
func SubjectToPB(s Subject, isDefault bool) *hbasepb.QuotaSubject {
	p := &hbasepb.QuotaSubject{}
	set := func(dst **string, v string) {
		if v != "" {
			*dst = proto.String(v)
		}
	}
	set(&p.User, s.User)
	set(&p.Namespace, s.Namespace)
	set(&p.Table, s.Table)
	set(&p.RegionServer, s.RegionServer)
	if isDefault {
		p.DefaultQuota = proto.Bool(true)
	}
	return p
}

// SubjectFromPB decodes SubjectToPB's message.
func SubjectFromPB(p *hbasepb.QuotaSubject) (Subject, bool) {
	return Subject{User: p.GetUser(), Namespace: p.GetNamespace(), Table: p.GetTable(), RegionServer: p.GetRegionServer()},
		p.GetDefaultQuota()
}

// PerSecond is the limit as a rate per second.
func (l Limit) PerSecond() float64 { return float64(l.Amount) / l.Per.Seconds() }

// ToPB encodes the row for a report (Shared, Want and Limited are the
// reporter's to set).
func (u *Usage) ToPB() *hbasepb.QuotaUsageRow {
	return &hbasepb.QuotaUsageRow{
		Subject:          SubjectToPB(u.Subject, u.Default),
		ThrottleType:     proto.Uint32(uint32(u.Type)),
		ClusterScope:     proto.Bool(u.Quota.Scope == ScopeCluster),
		Limit:            proto.String(u.Quota.Limit.String()),
		LimitPerSec:      proto.Float64(u.Quota.Limit.PerSecond()),
		LocalLimitPerSec: proto.Float64(u.Limit),
		Rate:             proto.Float64(u.Rate),
		Queued:           proto.Int64(u.Queued),
		Admitted:         proto.Uint64(u.Admitted),
		Rejected:         proto.Uint64(u.Rejected),
		WaitSeconds:      proto.Float64(u.Wait.Seconds()),
	}
}
