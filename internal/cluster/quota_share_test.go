package cluster

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
)

// scopedThrottle is throttleReq with a scope.
func scopedThrottle(user string, t quota.ThrottleType, limit uint64, scope hbasepb.QuotaScope) *hbasepb.SetQuotaRequest {
	req := throttleReq(user, t, limit)
	req.Throttle.TimedQuota.Scope = scope.Enum()
	return req
}

// spreadTable creates table with one region per split point plus one, waits
// until all are assigned, and returns a row of a region on each server
// that holds one.
func spreadTable(t *testing.T, ctx context.Context, cl *testClient, table string, splits ...string) map[string]string {
	t.Helper()
	var keys [][]byte
	for _, s := range splits {
		keys = append(keys, []byte(s))
	}
	must(t, cl.createTable(ctx, table, families("f"), keys...))
	must(t, cl.waitAssigned(ctx, table, len(splits)+1))
	locs, err := cl.regions(ctx, table)
	must(t, err)
	rows := map[string]string{}
	for _, l := range locs {
		row := string(l.Region.StartKey) // a region's start key is in it
		if row == "" {
			row = "0" // before every split point
		}
		if _, ok := rows[l.Server]; !ok {
			rows[l.Server] = row
			must(t, cl.put(ctx, table, row, kv("f", "q", "v")))
		}
	}
	return rows
}

// threeServers starts a 3-server cluster with table spread over all three
// (see spreadTable).
func threeServers(t *testing.T, cfg Config, table string) (*Cluster, context.Context, *testClient, map[string]string) {
	c := startCluster(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cl := newClient(t, c.MasterAddr())
	rows := spreadTable(t, ctx, cl, table, "b", "c", "d", "e", "f")
	if len(rows) != 3 {
		t.Fatalf("regions on %d servers, want 3", len(rows))
	}
	return c, ctx, cl, rows
}

// getters opens n Get callers of user on row (which must be on server).
func getters(t *testing.T, ctx context.Context, cl *testClient, user, table, row string, n int) []*userGetter {
	var out []*userGetter
	for i := 0; i < n; i++ {
		out = append(out, newUserGetter(t, ctx, cl, user, table, row))
	}
	return out
}

// saturated returns a warm-up for loadRateWhen that lasts until user's
// limiter on rs holds requests and has spent its bucket (a token bucket
// saves up to a second of its limit while callers start, which would count
// as excess in a short window), at most 10 s, and until cond holds on the
// row as well.
func saturated(t *testing.T, rs *regionserver.RegionServer, user string, cond func(quota.Usage) bool) func() {
	return bucketSpent(t, rs, "user "+user, func(u quota.Usage) bool {
		return u.Subject == quota.UserSubject(user) && !u.Default && u.Type == quota.RequestNumber && u.Queued > 0 && cond(u)
	})
}

// bucketSpent returns a warm-up for loadRateWhen that lasts until a
// limiter row on rs that match accepts has spent its bucket, at most 10 s.
func bucketSpent(t *testing.T, rs *regionserver.RegionServer, what string, match func(quota.Usage) bool) func() {
	return func() {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for _, row := range rs.QuotaUsage() {
				if match(row) && row.Available < 0.05*row.Limit {
					time.Sleep(300 * time.Millisecond) // a little longer: the sample is up to 200 ms old
					return
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("%s never spent its limiter's bucket on %s: is the machine overloaded?", what, rs.Addr())
	}
}

func anyRow(quota.Usage) bool { return true }

// TestQuotaClusterScopeSkew: a CLUSTER-scope limit of 150 req/s on 3
// region servers, with all of the user's traffic on one server, is met
// within ±5% because the master hands that server the share it asks for
// (HBase's static split would give it 50 req/s). With the master gone
// the servers fall back to the static split within about a second.
func TestQuotaClusterScopeSkew(t *testing.T) {
	c, ctx, cl, rows := threeServers(t, Config{RegionServers: 3}, "qs")
	const limit = 150
	must(t, cl.setQuota(ctx, scopedThrottle("c", quota.RequestNumber, limit, hbasepb.QuotaScope_CLUSTER)))
	hot := c.RegionServers[0].Addr()
	g := getters(t, ctx, cl, "c", "qs", rows[hot], 8)

	hotRS := c.RegionServers[0]
	rate, failed := loadRateWhen(ctx, g, saturated(t, hotRS, "c", func(u quota.Usage) bool { return u.Factor > 0.9 }), 2*time.Second)
	t.Logf("skewed CLUSTER limit %d req/s on 3 servers: %.1f req/s (error %+.1f%%), %d failed", limit, rate,
		(rate-limit)/limit*100, failed)
	if rate < 0.95*limit || rate > 1.05*limit || failed != 0 {
		t.Errorf("skewed CLUSTER limit: %.1f req/s with %d failures, want %d±5%% and none", rate, failed, limit)
	}
	row, ok := usageRow(c.RegionServers[0].QuotaUsage(), "c")
	if !ok || row.Factor < 0.9 {
		t.Errorf("hot server's share of the limit: %+v, want > 0.9", row)
	}

	// Zipf-like skew: a light, steady 15 req/s of the user on a second
	// server keeps what it uses, the hot one gets the rest, the total
	// stays at the limit.
	warm := c.RegionServers[1].Addr()
	light := getters(t, ctx, cl, "c", "qs", rows[warm], 1)[0]
	var lightDone atomic.Int64
	stopLight := make(chan struct{})
	lightStopped := make(chan struct{})
	go func() {
		defer close(lightStopped)
		tick := time.NewTicker(time.Second / 15)
		defer tick.Stop()
		for {
			select {
			case <-stopLight:
				return
			case <-tick.C:
				if light.get(ctx) == nil {
					lightDone.Add(1)
				}
			}
		}
	}()
	time.Sleep(time.Second) // the light server's demand reaches the master
	before, t0 := lightDone.Load(), time.Now()
	hotRate, _ := loadRateWhen(ctx, g, saturated(t, hotRS, "c", anyRow), 2*time.Second)
	lightRate := float64(lightDone.Load()-before) / time.Since(t0).Seconds()
	close(stopLight)
	<-lightStopped
	total := hotRate + lightRate
	t.Logf("skew 90/10: hot %.1f + light %.1f = %.1f req/s (error %+.1f%%)", hotRate, lightRate, total, (total-limit)/limit*100)
	if total < 0.95*limit || total > 1.05*limit || lightRate < 12 {
		t.Errorf("skew 90/10: %.1f + %.1f req/s, want %d±5%% in all and the light server's 15", hotRate, lightRate, limit)
	}

	// The master goes away: after ~1 s the servers use the static split,
	// 1/3 of the limit each, which is what HBase gives the hot server.
	c.Master.Close()
	c.Master = nil
	rate, failed = loadRateWhen(ctx, g, saturated(t, hotRS, "c", func(u quota.Usage) bool { return u.Factor == 1.0/3 }), 2*time.Second)
	static := float64(limit) / 3
	t.Logf("master gone, static split: %.1f req/s (static share %.0f), %d failed", rate, static, failed)
	if rate < 0.9*static || rate > 1.1*static {
		t.Errorf("static fallback: %.1f req/s, want %.0f±10%%", rate, static)
	}
	if row, _ := usageRow(c.RegionServers[0].QuotaUsage(), "c"); row.Factor != 1.0/3 {
		t.Errorf("fallback factor %v, want 1/3", row.Factor)
	}
}

// TestQuotaPerHostBudget: with hosts h1 (two instances) and h2 (one), a
// MACHINE limit of 100 req/s is shared by h1's instances, by demand: one
// busy instance gets nearly all of it, two busy ones together get 100, not
// 200; h2's instance has its own 100.
func TestQuotaPerHostBudget(t *testing.T) {
	c, ctx, cl, rows := threeServers(t, Config{RegionServers: 3, HostIDs: []string{"h1", "h1", "h2"}}, "qh")
	const limit = 100
	must(t, cl.setQuota(ctx, throttleReq("m", quota.RequestNumber, limit)))
	a, b, h2 := c.RegionServers[0].Addr(), c.RegionServers[1].Addr(), c.RegionServers[2].Addr()

	ga := getters(t, ctx, cl, "m", "qh", rows[a], 4)
	rate, _ := loadRateWhen(ctx, ga, saturated(t, c.RegionServers[0], "m", func(u quota.Usage) bool { return u.Factor > 0.9 }), 2*time.Second)
	t.Logf("one busy instance of h1: %.1f req/s (limit %d per host)", rate, limit)
	if rate < 0.95*limit || rate > 1.05*limit {
		t.Errorf("one busy instance of h1: %.1f req/s, want %d±5%%", rate, limit)
	}

	gb := getters(t, ctx, cl, "m", "qh", rows[b], 4)
	gh := getters(t, ctx, cl, "m", "qh", rows[h2], 4)
	// Measure once every limiter is saturated at its new share: h1's two
	// instances at about half the host's budget each, h2's at all of its
	// own (a fresh bucket starts full, and shares follow demand reports).
	half := func(u quota.Usage) bool { return u.Factor > 0.4 && u.Factor < 0.6 }
	warm := func() {
		saturated(t, c.RegionServers[0], "m", half)()
		saturated(t, c.RegionServers[1], "m", half)()
		saturated(t, c.RegionServers[2], "m", func(u quota.Usage) bool { return u.Factor > 0.9 })()
	}
	rates, _ := loadRatesWhen(ctx, [][]*userGetter{append(ga, gb...), gh}, warm, 2*time.Second)
	rh1, rh2 := rates[0], rates[1]
	t.Logf("both instances of h1: %.1f req/s together; h2: %.1f req/s", rh1, rh2)
	for i, rs := range c.RegionServers {
		row, _ := usageRow(rs.QuotaUsage(), "m")
		t.Logf("server %d (%s): factor %.3f, limit %.1f/s, rate %.1f/s, queued %d", i, rs.Addr(), row.Factor, row.Limit, row.Rate, row.Queued)
	}
	if rh1 < 0.95*limit || rh1 > 1.05*limit {
		t.Errorf("h1's two busy instances: %.1f req/s together, want %d±5%% (not %d)", rh1, limit, 2*limit)
	}
	if rh2 < 0.95*limit || rh2 > 1.05*limit {
		t.Errorf("h2: %.1f req/s, want its own %d±5%%", rh2, limit)
	}
}
