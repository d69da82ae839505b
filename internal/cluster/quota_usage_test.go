package cluster

import (
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/quota"
)

// usageRow finds user's REQUEST_NUMBER row in rows.
func usageRow(rows []quota.Usage, user string) (quota.Usage, bool) {
	for _, r := range rows {
		if r.Subject == quota.UserSubject(user) && !r.Default && r.Type == quota.RequestNumber {
			return r, true
		}
	}
	return quota.Usage{}, false
}

// quotaSeries returns the weir_quota_* samples of a subject label, by
// metric name and type label.
func quotaSeries(t *testing.T, addr, subject string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	must(t, err)
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["subject"] != subject {
				continue
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out[name+"/"+labels["type"]+"/"+labels["scope"]] = v
		}
	}
	return out
}

// TestQuotaUsage: a tenant throttled to 50 req/s shows its rate, limit,
// queue and admissions on the region server (QuotaUsage, weir_quota_*
// metrics) and in the master's cluster-wide view (ListQuotaUsage); removing
// the quota removes its series.
func TestQuotaUsage(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "qu", families("f")))
	must(t, cl.put(ctx, "qu", "r", kv("f", "q", "v")))
	must(t, cl.setQuota(ctx, throttleReq("t", quota.RequestNumber, 50)))
	time.Sleep(200 * time.Millisecond)
	var tg []*userGetter
	for i := 0; i < 4; i++ {
		tg = append(tg, newUserGetter(t, ctx, cl, "t", "qu", "r"))
	}
	rs := c.RegionServers[0]
	var (
		rate   float64
		failed int64
	)
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		rate, failed = loadRate(ctx, tg, 1500*time.Millisecond, 1000*time.Millisecond)
	}()
	time.Sleep(2 * time.Second) // sample while the load runs
	during := rs.QuotaUsage()
	<-loaded
	row, ok := usageRow(during, "t")
	if !ok {
		t.Fatalf("no usage row for user t in %+v", during)
	}
	t.Logf("client rate %.1f/s (%d failed); server row: rate %.1f/s limit %.1f/s admitted %d queued %d wait %v",
		rate, failed, row.Rate, row.Limit, row.Admitted, row.Queued, row.Wait)
	if row.Limit != 50 || row.Quota.Limit.Amount != 50 || row.Factor != 1 {
		t.Errorf("row limit %v (factor %v, set %v), want 50/s", row.Limit, row.Factor, row.Quota.Limit)
	}
	if row.Rate < 40 || row.Rate > 60 {
		t.Errorf("row rate %.1f/s, want about 50", row.Rate)
	}
	if row.Admitted < 50 || row.Wait <= 0 {
		t.Errorf("row admitted %d, wait %v: want > 50 and > 0 under load", row.Admitted, row.Wait)
	}

	series := quotaSeries(t, rs.InfoAddr(), "user=t")
	if v := series["weir_quota_limit/REQUEST_NUMBER/machine"]; v != 50 {
		t.Errorf("weir_quota_limit = %v, want 50 (series %v)", v, series)
	}
	if v := series["weir_quota_admitted_total/REQUEST_NUMBER/machine"]; v < 50 {
		t.Errorf("weir_quota_admitted_total = %v, want > 50", v)
	}
	if v := series["weir_quota_wait_seconds_total/REQUEST_NUMBER/machine"]; v <= 0 {
		t.Errorf("weir_quota_wait_seconds_total = %v, want > 0", v)
	}

	// The master's view: the same subject, reported within ~200 ms.
	var view *hbasepb.ListQuotaUsageResponse
	waitFor(t, 2*time.Second, "user t in the master's usage view", func() bool {
		view = &hbasepb.ListQuotaUsageResponse{}
		must(t, cl.masterCall(ctx, "ListQuotaUsage", &hbasepb.ListQuotaUsageRequest{}, view))
		for _, r := range view.GetRow() {
			if r.GetSubject().GetUser() == "t" && r.GetThrottleType() == uint32(quota.RequestNumber) {
				return r.GetLimit() == "50req/sec" && r.GetAdmitted() >= row.Admitted && r.GetServers() == 1
			}
		}
		return false
	})
	if view.GetServers() != 1 {
		t.Errorf("master view covers %d servers, want 1", view.GetServers())
	}

	// Removing the quota drops its row and its series.
	must(t, cl.setQuota(ctx, &hbasepb.SetQuotaRequest{UserName: ptr("t"), RemoveAll: ptr(true)}))
	waitFor(t, 2*time.Second, "user t's usage row gone", func() bool {
		_, ok := usageRow(rs.QuotaUsage(), "t")
		return !ok
	})
	if s := quotaSeries(t, rs.InfoAddr(), "user=t"); len(s) != 0 {
		t.Errorf("series of a removed quota remain: %v", s)
	}
}

func ptr[T any](v T) *T { return &v }
