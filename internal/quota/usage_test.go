package quota

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"
)

func findUsage(t *testing.T, rows []Usage, s Subject, tt ThrottleType) Usage {
	t.Helper()
	for _, r := range rows {
		if r.Subject == s && r.Type == tt && !r.Default {
			return r
		}
	}
	t.Fatalf("no usage row for %s %s in %+v", s, tt, rows)
	return Usage{}
}

// TestUsageCounts: admissions, consumption, refunds, rejections, waits and
// queue depth are counted on the limiter that caused them.
func TestUsageCounts(t *testing.T) {
	st := mustSettings(t, "USER => 'u', LIMIT => '10req/sec'", "TABLE => 'ns:t', LIMIT => '1000req/sec'",
		"USER => 'v', LIMIT => '5req/sec'")
	c, err := NewChecker(Config{Mode: ModeReject}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdmitter(c, func() time.Time { return epoch }, nil)
	req := Request{User: "u", Namespace: "ns", Table: "t", Kind: KindRead}
	for i := 0; i < 12; i++ {
		_, err := a.Admit(context.Background(), req)
		if i < 10 && err != nil || i >= 10 && !errors.Is(err, ErrThrottled) {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	rows := c.Usage(epoch)
	u := findUsage(t, rows, UserSubject("u"), RequestNumber)
	if u.Admitted != 10 || u.Rejected != 2 || u.Consumed != 10 || u.Limit != 10 || u.Available != 0 {
		t.Errorf("user row %+v: want 10 admitted, 2 rejected, 10 consumed of 10/s", u)
	}
	// The table limiter admitted the same 10; the 2 refused by the user
	// limiter never reached it.
	tb := findUsage(t, rows, TableSubject("ns", "t"), RequestNumber)
	if tb.Admitted != 10 || tb.Rejected != 0 || tb.Consumed != 10 {
		t.Errorf("table row %+v: want 10 admitted, 0 rejected", tb)
	}
	// A refusal by a later limiter refunds the earlier ones: v's requests
	// pass v's limiter, then the table's is made to refuse.
	c2, err := NewChecker(Config{}, mustSettings(t, "USER => 'v', LIMIT => '100req/sec'", "TABLE => 'ns:t', LIMIT => '1req/sec'"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	vreq := Request{User: "v", Namespace: "ns", Table: "t", Kind: KindRead}
	if _, err := c2.Check(epoch, vreq); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Check(epoch, vreq); !errors.Is(err, ErrThrottled) {
		t.Fatalf("second check: %v, want throttled by the table", err)
	}
	if v := findUsage(t, c2.Usage(epoch), UserSubject("v"), RequestNumber); v.Admitted != 1 || v.Consumed != 1 {
		t.Errorf("user v row %+v: the refunded request must not count", v)
	}
}

// TestUsageQueueAndWait: in queue mode a tenant's held requests show as
// queued on the limiter they wait for, and their wait is summed.
func TestUsageQueueAndWait(t *testing.T) {
	c, err := NewChecker(Config{}, mustSettings(t, "USER => 'u', LIMIT => '10req/sec'"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{now: epoch}
	sleeping := make(chan struct{})
	release := make(chan struct{})
	a := NewAdmitter(c, clk.Now, func(ctx context.Context, d time.Duration) error {
		sleeping <- struct{}{}
		<-release
		return clk.Sleep(ctx, d)
	})
	req := Request{User: "u", Kind: KindRead}
	for i := 0; i < 10; i++ {
		if _, err := a.Admit(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 3)
	go func() { _, err := a.Admit(context.Background(), req); done <- err }()
	<-sleeping // the head waits for a token
	for i := 0; i < 2; i++ {
		go func() { _, err := a.Admit(context.Background(), req); done <- err }()
	}
	waitUntil(t, func() bool { return findUsage(t, a.Usage(clk.Now()), UserSubject("u"), RequestNumber).Queued == 3 })
	release <- struct{}{}
	for n := 0; n < 3; {
		select {
		case <-sleeping:
			release <- struct{}{}
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	u := findUsage(t, a.Usage(clk.Now()), UserSubject("u"), RequestNumber)
	if u.Queued != 0 || u.Admitted != 13 || u.Wait != 300*time.Millisecond {
		t.Errorf("after the queue drained: %+v, want 0 queued, 13 admitted, 300ms waited", u)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestUsageRates(t *testing.T) {
	var r UsageRates
	rows := []Usage{{Subject: UserSubject("u"), Type: RequestNumber}}
	now := epoch
	r.Observe(rows, now)
	if rows[0].Rate != 0 {
		t.Fatalf("first sample rate %v, want 0", rows[0].Rate)
	}
	// 100 units per second, sampled every 200 ms: the average converges.
	for i := 0; i < 25; i++ {
		now = now.Add(200 * time.Millisecond)
		rows[0].Consumed += 20
		r.Observe(rows, now)
	}
	if math.Abs(rows[0].Rate-100) > 1 {
		t.Errorf("rate after 5 s at 100/s: %v", rows[0].Rate)
	}
	// A row that disappears is forgotten; when it returns it starts over.
	r.Observe(nil, now.Add(time.Second))
	rows[0].Consumed = 5
	r.Observe(rows, now.Add(2*time.Second))
	if rows[0].Rate != 0 {
		t.Errorf("returning row rate %v, want 0", rows[0].Rate)
	}
}

// TestSetSplit: shares scale shared limits without adding tokens, and the
// static fractions apply where the master gave none.
func TestSetSplit(t *testing.T) {
	st := mustSettings(t, "USER => 'c', LIMIT => '300req/sec', SCOPE => CLUSTER", "USER => 'm', LIMIT => '100req/sec'")
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	limits := func() (float64, float64) {
		rows := c.Usage(epoch)
		return findUsage(t, rows, UserSubject("c"), RequestNumber).Limit, findUsage(t, rows, UserSubject("m"), RequestNumber).Limit
	}
	if cl, ml := limits(); cl != 300 || ml != 100 {
		t.Fatalf("no split: %v, %v; want 300, 100", cl, ml)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.SetSplit(Split{Cluster: 1.0 / 3, Machine: 0.5}, epoch))
	if cl, ml := limits(); math.Abs(cl-100) > 1e-9 || ml != 50 {
		t.Fatalf("static split: %v, %v; want 100, 50", cl, ml)
	}
	// Spend c's 100 tokens, then grow its share: no tokens appear.
	for i := 0; i < 100; i++ {
		if _, err := c.Check(epoch, Request{User: "c"}); err != nil {
			t.Fatal(err)
		}
	}
	must(c.SetSplit(Split{Cluster: 1.0 / 3, Machine: 0.5, Shares: map[ShareKey]float64{{UserSubject("c"), RequestNumber}: 0.9}}, epoch))
	if cl, _ := limits(); math.Abs(cl-270) > 1e-9 {
		t.Fatalf("share 0.9 of 300: limit %v", cl)
	}
	if _, err := c.Check(epoch, Request{User: "c"}); !errors.Is(err, ErrThrottled) {
		t.Fatalf("a grown share handed out tokens: %v", err)
	}
	// ...and they refill at the new rate: 27 in 100 ms.
	later := epoch.Add(100 * time.Millisecond)
	for i := 0; i < 27; i++ {
		if _, err := c.Check(later, Request{User: "c"}); err != nil {
			t.Fatalf("request %d at the new rate: %v", i, err)
		}
	}
	// Settings updates keep the split.
	must(c.Update(mustSettings(t, "USER => 'c', LIMIT => '600req/sec', SCOPE => CLUSTER", "USER => 'm', LIMIT => '100req/sec'"), later))
	if cl, ml := limits(); math.Abs(cl-540) > 1e-9 || ml != 50 {
		t.Fatalf("after update: %v, %v; want 540, 50", cl, ml)
	}
	for _, bad := range []Split{{Cluster: 0, Machine: 1}, {Cluster: 1, Machine: 2},
		{Cluster: 1, Machine: 1, Shares: map[ShareKey]float64{{UserSubject("c"), RequestNumber}: -0.1}}} {
		if err := c.SetSplit(bad, later); err == nil {
			t.Errorf("SetSplit(%+v) accepted", bad)
		}
	}
}

func TestAllocate(t *testing.T) {
	const floor = 300 * FloorFraction / 3
	for _, tc := range []struct {
		name    string
		demands []Demand
		want    []float64
	}{
		{"idle: equal", []Demand{{}, {}, {}}, []float64{100, 100, 100}},
		{"skew: the held-back server gets the rest", []Demand{{Want: 150, Limited: true}, {}, {}},
			[]float64{300 - 2*floor, floor, floor}},
		{"light user keeps its want", []Demand{{Want: 150, Limited: true}, {Want: 24}, {}},
			[]float64{300 - 2*floor - 24, 24 + floor, floor}},
		{"oversubscribed: max-min fair", []Demand{{Want: 400, Limited: true}, {Want: 200, Limited: true}, {}},
			[]float64{(300-3*floor)/2 + floor, (300-3*floor)/2 + floor, floor}},
		{"oversubscribed: a small want is met", []Demand{{Want: 400, Limited: true}, {Want: 50, Limited: true}, {Want: 10}},
			[]float64{300 - 3*floor - 60 + floor, 50 + floor, 10 + floor}},
		{"nobody held back: headroom by want", []Demand{{Want: 30}, {Want: 10}, {}},
			[]float64{30 + (300-3*floor-40)*0.75 + floor, 10 + (300-3*floor-40)*0.25 + floor, floor}},
	} {
		got := Allocate(300, tc.demands)
		sum := 0.0
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
				break
			}
		}
		if math.Abs(sum-300) > 1e-9 {
			t.Errorf("%s: allocations sum to %v, want 300", tc.name, sum)
		}
	}
}

// BenchmarkUsageSample: one reporter sample (Usage, then UsageRates) with
// 10,000 users configured, each with a user and a user+table quota.
func BenchmarkUsageSample(b *testing.B) {
	const users = 10000
	st := Settings{m: make(map[Subject]Quota, 2*users)}
	q := Quota{Throttles: map[ThrottleType]TimedQuota{RequestNumber: {Limit: Limit{1000, UnitRequests, time.Second}}}}
	for i := 0; i < users; i++ {
		u := "user" + strconv.Itoa(i)
		st.m[UserSubject(u)] = q
		st.m[Subject{User: u, Namespace: "ns", Table: "t"}] = q
	}
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		b.Fatal(err)
	}
	a := NewAdmitter(c, nil, nil)
	var r UsageRates
	now := epoch
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(200 * time.Millisecond)
		rows := a.Usage(now)
		r.Observe(rows, now)
	}
}
