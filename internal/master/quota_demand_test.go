package master

import (
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/quota"
)

// usageRow is a report row of user u's REQUEST_NUMBER limit of 300/s.
func usageRow(u string, cluster, shared bool, want float64, limited bool, admitted uint64) *hbasepb.QuotaUsageRow {
	return &hbasepb.QuotaUsageRow{Subject: quota.SubjectToPB(quota.UserSubject(u), false),
		ThrottleType: proto.Uint32(uint32(quota.RequestNumber)), ClusterScope: proto.Bool(cluster),
		Limit: proto.String("300req/sec"), LimitPerSec: proto.Float64(300), LocalLimitPerSec: proto.Float64(100),
		Rate: proto.Float64(want / 1.2), Admitted: proto.Uint64(admitted), Queued: proto.Int64(1),
		Shared: proto.Bool(shared), Want: proto.Float64(want), Limited: proto.Bool(limited)}
}

func reportReq(server, host string, live, onHost uint32, full bool, rows ...*hbasepb.QuotaUsageRow) *hbasepb.ReportQuotaUsageRequest {
	return &hbasepb.ReportQuotaUsageRequest{Server: proto.String(server), HostId: proto.String(host),
		LiveServers: proto.Uint32(live), HostInstances: proto.Uint32(onHost), Full: proto.Bool(full), Row: rows}
}

func onlyShare(t *testing.T, resp *hbasepb.ReportQuotaUsageResponse) float64 {
	t.Helper()
	if len(resp.GetShare()) != 1 {
		t.Fatalf("shares %v, want one", resp.GetShare())
	}
	return resp.GetShare()[0].GetFraction()
}

func TestQuotaDemandShares(t *testing.T) {
	now := time.Unix(1000, 0)
	d := newQuotaDemand(func() time.Time { return now })
	// s1 is held back, s2 and s3 idle: s1 gets all but the floors.
	d.report(reportReq("s2", "h1", 3, 2, true, usageRow("c", true, true, 0, false, 0)))
	d.report(reportReq("s3", "h2", 3, 1, true, usageRow("c", true, true, 0, false, 0)))
	f := onlyShare(t, d.report(reportReq("s1", "h1", 3, 2, true, usageRow("c", true, true, 150, true, 10))))
	if want := 1 - 2*quota.FloorFraction/3; math.Abs(f-want) > 1e-9 {
		t.Errorf("held-back server's share %v, want %v", f, want)
	}
	// A live server that stopped reporting keeps its static third out of
	// the pool.
	now = now.Add(1500 * time.Millisecond)
	d.report(reportReq("s2", "h1", 3, 2, true, usageRow("c", true, true, 0, false, 0)))
	f = onlyShare(t, d.report(reportReq("s1", "h1", 3, 2, true, usageRow("c", true, true, 150, true, 20))))
	if want := 2.0/3 - quota.FloorFraction*2.0/3/2; math.Abs(f-want) > 1e-9 {
		t.Errorf("share with s3 silent: %v, want %v", f, want)
	}
	// MACHINE scope is shared within the host only: s1 and s2 on h1.
	resp := d.report(reportReq("s1", "h1", 3, 2, false, usageRow("m", false, true, 150, true, 5)))
	if f := onlyShare(t, resp); math.Abs(f-(1-quota.FloorFraction/2)) > 1e-9 {
		t.Errorf("per-host share %v, want all but s2's floor", f)
	}
	// A broken reporter's wants count as none.
	bad := usageRow("c", true, true, math.NaN(), true, 0)
	d.report(reportReq("s2", "h1", 3, 2, false, bad))
	f = onlyShare(t, d.report(reportReq("s1", "h1", 3, 2, false, usageRow("c", true, true, math.Inf(1), true, 20))))
	if math.IsNaN(f) || f < 0 || f > 1 {
		t.Errorf("share with broken wants: %v", f)
	}
	// Unshared rows get no share; the view sums rows over fresh servers.
	if resp := d.report(reportReq("s2", "h1", 3, 2, false, usageRow("u", false, false, 10, false, 7))); len(resp.GetShare()) != 0 {
		t.Errorf("unshared row got shares %v", resp.GetShare())
	}
	view := d.view()
	if view.GetServers() != 2 {
		t.Errorf("view covers %d servers, want 2 (s3 is stale)", view.GetServers())
	}
	var c, u *hbasepb.QuotaUsageRow
	for _, r := range view.GetRow() {
		switch r.GetSubject().GetUser() {
		case "c":
			c = r
		case "u":
			u = r
		}
	}
	if c == nil || c.GetServers() != 2 || c.GetAdmitted() != 20 || c.GetLocalLimitPerSec() != 200 || c.GetQueued() != 2 {
		t.Errorf("cluster row of c: %v", c)
	}
	// s2's partial report kept its earlier row of c and added u.
	if u == nil || u.GetServers() != 1 || u.GetAdmitted() != 7 {
		t.Errorf("row of u: %v", u)
	}
	// A full report replaces the server's rows.
	d.report(reportReq("s2", "h1", 3, 2, true))
	for _, r := range d.view().GetRow() {
		if r.GetSubject().GetUser() == "u" {
			t.Errorf("row of u survived s2's full report without it")
		}
	}
}
