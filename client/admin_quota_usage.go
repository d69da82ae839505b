package client

import (
	"context"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
)

// QuotaUsage is one row of the cluster-wide live quota usage
// (list_quota_usage): one throttle type of one subject, summed over the
// region servers that reported in the last second.
type QuotaUsage struct {
	// Owner names the subject as list_quotas does ("USER => 'u'",
	// "USER => 'u', TABLE => 'ns:t'", "REGIONSERVER => 'all'"...).
	Owner                                string
	User, Namespace, Table, RegionServer string
	// Default marks a user's default quota (hbase.quota.default.user.*).
	Default bool
	Type    ThrottleType
	Scope   QuotaScope
	// Limit is the limit as set ("300req/sec"); LimitPerSec the same per
	// second; EnforcedPerSec is the sum of the servers' own limits (for a
	// CLUSTER limit about LimitPerSec, for a MACHINE limit about
	// LimitPerSec times the servers or hosts).
	Limit                       string
	LimitPerSec, EnforcedPerSec float64
	// Rate is the recent consumption per second in the type's unit
	// (requests, bytes, capacity units or ms), summed over the servers.
	Rate float64
	// Queued is the requests held now waiting for tokens; Admitted and
	// Rejected count requests since each server's limiter was made; Wait
	// is the total time the subject's requests slept for tokens (one at a
	// time per tenant queue: about the time the subject was held back).
	Queued             int64
	Admitted, Rejected uint64
	Wait               time.Duration
	// Servers is how many region servers reported the row.
	Servers int
}

// ListQuotaUsage returns the master's cluster-wide view of live quota
// usage, built from the region servers' reports (every ~200 ms), sorted by
// subject and type. It is a Weir extension (MasterService.ListQuotaUsage).
func (a *Admin) ListQuotaUsage(ctx context.Context) ([]QuotaUsage, error) {
	var resp hbasepb.ListQuotaUsageResponse
	if err := a.master(ctx, "ListQuotaUsage", &hbasepb.ListQuotaUsageRequest{}, &resp); err != nil {
		return nil, err
	}
	out := make([]QuotaUsage, 0, len(resp.GetRow()))
	for _, r := range resp.GetRow() {
		s := r.GetSubject()
		u := QuotaUsage{
			User: s.GetUser(), Namespace: s.GetNamespace(), Table: s.GetTable(), RegionServer: s.GetRegionServer(),
			Default: s.GetDefaultQuota(), Type: ThrottleType(r.GetThrottleType()), Scope: ScopeMachine,
			Limit: r.GetLimit(), LimitPerSec: r.GetLimitPerSec(), EnforcedPerSec: r.GetLocalLimitPerSec(),
			Rate: r.GetRate(), Queued: r.GetQueued(), Admitted: r.GetAdmitted(), Rejected: r.GetRejected(),
			Wait: time.Duration(r.GetWaitSeconds() * float64(time.Second)), Servers: int(r.GetServers()),
		}
		if r.GetClusterScope() {
			u.Scope = ScopeCluster
		}
		u.Owner = quotaOwner(u.User, u.Namespace, u.Table, u.RegionServer)
		out = append(out, u)
	}
	return out, nil
}

// quotaOwner names a subject as list_quotas' OWNER column does (the client
// may not depend on internal/quota, whose Subject.String prints the same).
func quotaOwner(user, namespace, table, regionServer string) string {
	var parts []string
	if user != "" {
		parts = append(parts, "USER => '"+user+"'")
	}
	if table != "" {
		parts = append(parts, "TABLE => '"+namespace+":"+table+"'")
	} else if namespace != "" {
		parts = append(parts, "NAMESPACE => '"+namespace+"'")
	}
	if regionServer != "" {
		parts = append(parts, "REGIONSERVER => '"+regionServer+"'")
	}
	return strings.Join(parts, ", ")
}
