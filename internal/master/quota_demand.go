package master

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
)

// quotaReportFresh is how old a region server's last report may be and
// still count: older ones are ignored (that server is assumed to have
// fallen back to its static split, and keeps its static share).
const quotaReportFresh = time.Second

func init() {
	masterMethods["ListQuotaUsage"] = listQuotaUsage
}

// rowKey identifies a usage row across servers.
type rowKey struct {
	user, namespace, table, regionServer string
	isDefault                            bool
	throttleType                         uint32
}

func keyOf(r *hbasepb.QuotaUsageRow) rowKey {
	s := r.GetSubject()
	return rowKey{s.GetUser(), s.GetNamespace(), s.GetTable(), s.GetRegionServer(), s.GetDefaultQuota(), r.GetThrottleType()}
}

// serverReport is what a region server last reported: its latest full
// report updated by the partial ones since.
type serverReport struct {
	at           time.Time
	hostID       string
	live, onHost int
	rows         map[rowKey]*hbasepb.QuotaUsageRow
}

// quotaDemand is the master's cluster-wide view of quota usage, built from
// the region servers' reports, and the Doorman-like share allocator of
// shared limits (CLUSTER scope, and MACHINE scope shared by a host's
// instances).
type quotaDemand struct {
	now func() time.Time

	mu      sync.Mutex
	reports map[string]*serverReport // by server address
}

func newQuotaDemand(now func() time.Time) *quotaDemand {
	if now == nil {
		now = time.Now
	}
	return &quotaDemand{now: now, reports: make(map[string]*serverReport)}
}

// quotaService is WeirQuotaService.
type quotaService struct{ m *Master }

func (s quotaService) Serve(_ context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	if c.Method != "ReportQuotaUsage" {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "%s.%s does not exist", quota.ReportServiceName, c.Method)
	}
	if !s.m.active.Load() {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.PleaseHold, false, "this master is a backup")
	}
	req, err := decode(c.Param, &hbasepb.ReportQuotaUsageRequest{})
	if err != nil {
		return hbaserpc.Response{}, err
	}
	if req.GetServer() == "" {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "ReportQuotaUsage: no server named")
	}
	return hbaserpc.Response{Msg: s.m.quotaDemand.report(req)}, nil
}

// report records req and answers the reporter's shares of its shared
// limits.
func (d *quotaDemand) report(req *hbasepb.ReportQuotaUsageRequest) *hbasepb.ReportQuotaUsageResponse {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.reports[req.GetServer()]
	if r == nil || req.GetFull() {
		r = &serverReport{rows: make(map[rowKey]*hbasepb.QuotaUsageRow, len(req.GetRow()))}
		d.reports[req.GetServer()] = r
	}
	r.at, r.hostID = now, req.GetHostId()
	r.live, r.onHost = max(int(req.GetLiveServers()), 1), max(int(req.GetHostInstances()), 1)
	for _, row := range req.GetRow() {
		r.rows[keyOf(row)] = row
	}
	d.dropStaleLocked(now)
	resp := &hbasepb.ReportQuotaUsageResponse{}
	for _, row := range req.GetRow() {
		if !row.GetShared() {
			continue
		}
		f, ok := d.shareLocked(req.GetServer(), r, keyOf(row), row, now)
		if !ok {
			continue
		}
		resp.Share = append(resp.Share, &hbasepb.QuotaShare{Subject: row.GetSubject(), ThrottleType: row.ThrottleType,
			Fraction: proto.Float64(f)})
	}
	return resp
}

// dropStaleLocked forgets servers that stopped reporting long ago (a
// restarted server reports under a new address or the same one).
func (d *quotaDemand) dropStaleLocked(now time.Time) {
	for addr, r := range d.reports {
		if now.Sub(r.at) > 10*quotaReportFresh {
			delete(d.reports, addr)
		}
	}
}

// shareLocked is server self's fraction of shared limit k: the pool is
// every fresh reporter (CLUSTER scope) or those on self's host (MACHINE
// scope); live servers that have not reported keep their static share
// (1/live) outside the pool.
func (d *quotaDemand) shareLocked(self string, r *serverReport, k rowKey, row *hbasepb.QuotaUsageRow, now time.Time) (float64, bool) {
	cluster := row.GetClusterScope()
	static := r.live
	if !cluster {
		static = r.onHost
	}
	var members []string
	for addr, o := range d.reports {
		if now.Sub(o.at) > quotaReportFresh || (!cluster && o.hostID != r.hostID) {
			continue
		}
		members = append(members, addr)
	}
	if len(members) == 0 {
		return 0, false
	}
	slices.Sort(members)
	pool := 1.0
	if absent := static - len(members); absent > 0 {
		pool -= float64(absent) / float64(static)
	}
	demands := make([]quota.Demand, len(members))
	me := -1
	for i, addr := range members {
		if addr == self {
			me = i
		}
		if o := d.reports[addr].rows[k]; o != nil && o.GetShared() {
			demands[i] = quota.Demand{Want: finite(o.GetWant()), Limited: o.GetLimited()}
		}
	}
	if me < 0 {
		return 0, false
	}
	limit := finite(row.GetLimitPerSec())
	if limit <= 0 {
		return 0, false
	}
	alloc := quota.Allocate(limit*pool, demands)
	return min(alloc[me]/limit, 1), true
}

// view merges the fresh reports into one row per subject and type.
func (d *quotaDemand) view() *hbasepb.ListQuotaUsageResponse {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	merged := map[rowKey]*hbasepb.QuotaUsageRow{}
	servers := 0
	for _, r := range d.reports {
		if now.Sub(r.at) > quotaReportFresh {
			continue
		}
		servers++
		for k, row := range r.rows {
			m := merged[k]
			if m == nil {
				m = &hbasepb.QuotaUsageRow{Subject: row.GetSubject(), ThrottleType: row.ThrottleType,
					ClusterScope: row.ClusterScope, Limit: row.Limit, LimitPerSec: row.LimitPerSec,
					LocalLimitPerSec: proto.Float64(0), Rate: proto.Float64(0), Queued: proto.Int64(0),
					Admitted: proto.Uint64(0), Rejected: proto.Uint64(0), WaitSeconds: proto.Float64(0),
					Servers: proto.Uint32(0)}
				merged[k] = m
			}
			*m.LocalLimitPerSec += row.GetLocalLimitPerSec()
			*m.Rate += row.GetRate()
			*m.Queued += row.GetQueued()
			*m.Admitted += row.GetAdmitted()
			*m.Rejected += row.GetRejected()
			*m.WaitSeconds += row.GetWaitSeconds()
			*m.Servers++
		}
	}
	out := &hbasepb.ListQuotaUsageResponse{Servers: proto.Uint32(uint32(servers))}
	keys := make([]rowKey, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.table, b.table),
			cmp.Compare(a.regionServer, b.regionServer), cmp.Compare(b2i(a.isDefault), b2i(b.isDefault)),
			cmp.Compare(a.throttleType, b.throttleType))
	})
	for _, k := range keys {
		out.Row = append(out.Row, merged[k])
	}
	return out
}

// finite maps a reported rate that is negative, NaN or infinite (a broken
// reporter) to 0, so it cannot poison the allocation.
func finite(v float64) float64 {
	if !(v >= 0) || math.IsInf(v, 1) {
		return 0
	}
	return v
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func listQuotaUsage(_ context.Context, m *Master, p []byte) (proto.Message, error) {
	if _, err := decode(p, &hbasepb.ListQuotaUsageRequest{}); err != nil {
		return nil, err
	}
	return m.quotaDemand.view(), nil
}
