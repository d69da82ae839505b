package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
)

// TestQuotaPriorityReachesRegionServer: PRIORITY and WEIGHT set through the
// Go client reach the region server (client → master → etcd → watch), and
// REMOVE_ALL clears them.
func TestQuotaPriorityReachesRegionServer(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	conn, err := client.Connect(ctx, c.MasterAddr())
	must(t, err)
	defer conn.Close()
	must(t, conn.Admin().SetQuota(ctx, client.QuotaSettings{User: "etl", Priority: client.PriorityLow, Weight: 3}))
	waitFor(t, time.Second, "etl LOW weight 3 on the region server", func() bool {
		p, w, ok := c.RegionServers[0].QuotaTenant("etl")
		return ok && p == quota.PriorityLow && w == 3
	})
	// A throttle set later keeps the priority.
	must(t, conn.Admin().SetQuota(ctx, client.QuotaSettings{User: "etl",
		Throttle: &client.Throttle{Type: client.ReadNumber, Limit: 100, Per: time.Second}}))
	must(t, conn.Admin().SetQuota(ctx, client.QuotaSettings{User: "etl", Priority: client.PriorityHigh}))
	waitFor(t, time.Second, "etl HIGH weight 3", func() bool {
		p, w, _ := c.RegionServers[0].QuotaTenant("etl")
		return p == quota.PriorityHigh && w == 3
	})
	must(t, conn.Admin().SetQuota(ctx, client.QuotaSettings{User: "etl", RemoveAll: true}))
	waitFor(t, time.Second, "etl back to MEDIUM weight 1", func() bool {
		p, w, _ := c.RegionServers[0].QuotaTenant("etl")
		return p == quota.PriorityMedium && w == 1
	})
	// Bad values are refused by the client before sending, and by the
	// master when they arrive anyway.
	if err := conn.Admin().SetQuota(ctx, client.QuotaSettings{User: "etl", Weight: -1}); err == nil {
		t.Fatal("weight -1 accepted")
	}
	cl := newClient(t, c.MasterAddr())
	req := &hbasepb.SetQuotaRequest{Namespace: proto.String("default")}
	p := quota.PriorityHigh
	quota.SetSchedExt(req, quota.Sched{Priority: &p})
	err = cl.setQuota(ctx, req)
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	if !strings.Contains(err.Error(), "USER alone") {
		t.Fatalf("priority on a table: %v", err)
	}
}

// TestQuotaExceedThrottle: enable_exceed_throttle_quota needs a region
// server quota; with one, a user limited to 20 req/s runs at the server's
// 200 req/s while nobody else uses it, instead of its own 20.
func TestQuotaExceedThrottle(t *testing.T) {
	c := startCluster(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "qx", families("f")))
	must(t, cl.put(ctx, "qx", "r", kv("f", "q", "v")))
	exceed := func(on bool) error {
		return cl.masterCall(ctx, "SwitchExceedThrottleQuota",
			&hbasepb.SwitchExceedThrottleQuotaRequest{ExceedThrottleQuotaEnabled: proto.Bool(on)},
			&hbasepb.SwitchExceedThrottleQuotaResponse{})
	}
	err := exceed(true)
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	if !strings.Contains(err.Error(), "region server quota") {
		t.Fatalf("enabling without a region server quota: %v", err)
	}
	must(t, cl.setQuota(ctx, throttleReq("u", quota.RequestNumber, 20)))
	rs := throttleReq("", quota.RequestNumber, 200)
	rs.UserName, rs.RegionServer = nil, proto.String("all")
	must(t, cl.setQuota(ctx, rs))
	time.Sleep(100 * time.Millisecond)

	// Many callers, so that the client keeps up with 200 req/s even when a
	// loaded machine stretches round trips to ~100 ms.
	var ug []*userGetter
	for range 32 {
		ug = append(ug, newUserGetter(t, ctx, cl, "u", "qx", "r"))
	}
	hard, failed := loadRate(ctx, ug, 500*time.Millisecond, 1500*time.Millisecond)
	t.Logf("soft limits off: user u %.1f req/s (own limit 20), %d failed", hard, failed)
	if hard < 19 || hard > 21 || failed != 0 {
		t.Errorf("soft limits off: %.1f req/s, %d failed; want 20±5%% and none", hard, failed)
	}
	must(t, exceed(true))
	waitFor(t, 2*time.Second, "soft limits on the region server", func() bool {
		r, _ := loadRate(ctx, ug, 0, 200*time.Millisecond)
		return r > 100
	})
	// Measure once the region server's bucket is drained: it filled while
	// u ran at its own 20 req/s, and 32 callers on a loaded machine
	// outpace 200 req/s by little, so the drain takes a while.
	drained := bucketSpent(t, c.RegionServers[0], "the region server quota", func(u quota.Usage) bool {
		return u.Subject == quota.RegionServerSubject() && u.Type == quota.RequestNumber
	})
	soft, failed := loadRateWhen(ctx, ug, drained, 1500*time.Millisecond)
	t.Logf("soft limits on: user u %.1f req/s (region server limit 200), %d failed", soft, failed)
	if soft < 190 || soft > 210 || failed != 0 {
		t.Errorf("soft limits on: %.1f req/s, %d failed; want the server's 200±5%% and none", soft, failed)
	}
	must(t, exceed(false))
}

// TestQuotaDefaultUser: hbase.quota.default.user.machine.read.num limits a
// user with no quota settings; a user with settings of its own is not
// limited by it.
func TestQuotaDefaultUser(t *testing.T) {
	c := startCluster(t, Config{QuotaDefaultUser: map[quota.ThrottleType]quota.Limit{
		quota.ReadNumber: {Amount: 40, Unit: quota.UnitRequests, Per: time.Second}}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "qd", families("f")))
	must(t, cl.put(ctx, "qd", "r", kv("f", "q", "v")))
	// "own" has settings (a priority only), so no default quota.
	own := &hbasepb.SetQuotaRequest{UserName: proto.String("own")}
	quota.SetSchedExt(own, quota.Sched{Weight: 2})
	must(t, cl.setQuota(ctx, own))
	waitFor(t, time.Second, "own's settings on the region server", func() bool {
		_, w, _ := c.RegionServers[0].QuotaTenant("own")
		return w == 2
	})
	var dg, og []*userGetter
	for range 16 {
		dg = append(dg, newUserGetter(t, ctx, cl, "nobody", "qd", "r"))
		og = append(og, newUserGetter(t, ctx, cl, "own", "qd", "r"))
	}
	d, dFailed := loadRate(ctx, dg, 500*time.Millisecond, 1500*time.Millisecond)
	o, oFailed := loadRate(ctx, og, 0, time.Second)
	t.Logf("default user quota 40 req/s: user without settings %.1f req/s (%d failed), user with settings %.0f req/s (%d failed)",
		d, dFailed, o, oFailed)
	if d < 38 || d > 42 || dFailed != 0 {
		t.Errorf("user without settings: %.1f req/s, %d failed; want 40±5%% and none", d, dFailed)
	}
	if o < 200 || oFailed != 0 {
		t.Errorf("user with settings: %.0f req/s, %d failed; want unthrottled (> 200)", o, oFailed)
	}
}
