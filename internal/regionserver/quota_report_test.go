package regionserver

import (
	"testing"
	"time"

	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
)

// TestQuotaGateSplit: the static split follows the registrations (CLUSTER
// limits by live servers; MACHINE limits by the instances on this host
// unless per-host budgets are off), the master's shares override it, and
// stale shares fall back to it.
func TestQuotaGateSplit(t *testing.T) {
	var st quota.Settings
	for _, c := range []quota.Change{
		{User: "c", Limit: "300req/sec", Scope: "CLUSTER"},
		{User: "m", Limit: "100req/sec"},
	} {
		var err error
		if st, err = st.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	servers := []meta.ServerInfo{{HostID: "h1", Port: 1}, {HostID: "h1", Port: 2}, {HostID: "h2", Port: 3}, {HostID: "h1", Port: 4}}
	factors := func(g *quotaGate) (c, m float64) {
		for _, u := range g.checker.Load().Usage(time.Now()) {
			switch u.Subject.User {
			case "c":
				c = u.Factor
			case "m":
				m = u.Factor
			}
		}
		return c, m
	}
	for _, tc := range []struct {
		perHost bool
		m       float64
	}{{true, 1.0 / 3}, {false, 1}} {
		g, err := newQuotaGate(nil, quota.Config{}, "h1", tc.perHost, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.apply(meta.QuotaState{Settings: st, RPCThrottle: true}); err != nil {
			t.Fatal(err)
		}
		if err := g.setPeers(servers); err != nil {
			t.Fatal(err)
		}
		if c, m := factors(g); c != 0.25 || m != tc.m {
			t.Errorf("perHost=%v: factors %v, %v; want 1/4 and %v", tc.perHost, c, m, tc.m)
		}
		now := time.Now()
		key := quota.ShareKey{Subject: quota.UserSubject("c"), Type: quota.RequestNumber}
		if err := g.setShares(map[quota.ShareKey]float64{key: 0.9}, now); err != nil {
			t.Fatal(err)
		}
		if c, _ := factors(g); c != 0.9 {
			t.Errorf("master's share: factor %v, want 0.9", c)
		}
		// A mode switch (a new checker) keeps the split.
		if err := g.setMode(quota.ModeReject); err != nil {
			t.Fatal(err)
		}
		if c, m := factors(g); c != 0.9 || m != tc.m {
			t.Errorf("after a mode switch: factors %v, %v", c, m)
		}
		if g.expireShares(now.Add(quotaShareTTL / 2)) {
			t.Error("shares expired before their TTL")
		}
		if !g.expireShares(now.Add(quotaShareTTL + time.Millisecond)) {
			t.Error("shares did not expire after their TTL")
		}
		if c, _ := factors(g); c != 0.25 {
			t.Errorf("after the master went quiet: factor %v, want the static 1/4", c)
		}
	}
}

// TestHeldBack: what makes a server report itself held back by a shared
// limit, so that it asks the master for more than its share.
func TestHeldBack(t *testing.T) {
	const period = 200 * time.Millisecond
	for _, tc := range []struct {
		name string
		u    quota.Usage
		pc   prevCounts
		want bool
	}{
		{"idle", quota.Usage{}, prevCounts{}, false},
		{"rejected one", quota.Usage{Rejected: 4}, prevCounts{rejected: 3}, true},
		{"old rejections only", quota.Usage{Rejected: 3}, prevCounts{rejected: 3}, false},
		{"blocked most of the period", quota.Usage{Wait: time.Second + 190*time.Millisecond}, prevCounts{wait: time.Second}, true},
		{"blocked half the period", quota.Usage{Wait: period / 2}, prevCounts{}, true},
		{"a light tenant's momentary wait", quota.Usage{Wait: time.Second + 40*time.Millisecond}, prevCounts{wait: time.Second}, false},
		{"queued at one sample", quota.Usage{Queued: 1}, prevCounts{}, false},
		{"queued at both samples (one long wait)", quota.Usage{Queued: 1}, prevCounts{queued: true}, true},
	} {
		if got := heldBack(&tc.u, &tc.pc, period); got != tc.want {
			t.Errorf("%s: heldBack = %v, want %v", tc.name, got, tc.want)
		}
	}
}
