package quota

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func mustSettings(t testing.TB, lines ...string) Settings {
	t.Helper()
	var st Settings
	for _, l := range lines {
		c, err := parseChange(l)
		if err != nil {
			t.Fatal(err)
		}
		if st, err = st.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func TestParseLimitMalformed(t *testing.T) {
	for _, tc := range []struct{ in, part string }{
		{"10reqs/sec", `"reqs"`},
		{"-5req/sec", `"-5"`},
		{"0req/sec", `"0"`},
		{"10X/sec", `"X"`},
		{"1.5req/sec", `"1.5"`},
		{"+5req/sec", `"+5"`},
		{"10req/fortnight", `"fortnight"`},
		{"10req", `"/<time unit>"`},
		{"", "empty"},
		{"99999999999999999999req/sec", "too large"},
	} {
		_, err := ParseLimit(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.part) {
			t.Errorf("ParseLimit(%q) = %v, want an error naming %s", tc.in, err, tc.part)
		}
	}
}

func TestParseLimitRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limit
		str  string
	}{
		{"10req/sec", Limit{10, UnitRequests, time.Second}, "10req/sec"},
		{"10REQ/SEC", Limit{10, UnitRequests, time.Second}, "10req/sec"},
		{"5K/min", Limit{5 << 10, UnitBytes, time.Minute}, "5K/min"},
		{"1024k/hour", Limit{1 << 20, UnitBytes, time.Hour}, "1M/hour"},
		{"3cu/day", Limit{3, UnitCapacityUnits, 24 * time.Hour}, "3CU/day"},
		{"7b/sec", Limit{7, UnitBytes, time.Second}, "7B/sec"},
		{"2p/sec", Limit{2 << 50, UnitBytes, time.Second}, "2P/sec"},
	} {
		got, err := ParseLimit(tc.in)
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("ParseLimit(%q) = %+v, %v (%s); want %+v (%s)", tc.in, got, err, got, tc.want, tc.str)
		}
	}
}

func TestFormatWaitAndMessage(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{time.Nanosecond, "1ms"},
		{1200 * time.Millisecond, "1sec, 200ms"},
		{time.Minute, "1min, 0ms"},
		{2*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond, "2hrs, 3mins, 4sec, 5ms"},
		{time.Hour + time.Second, "1hr, 1sec, 0ms"},
	} {
		if got := FormatWait(tc.d); got != tc.want {
			t.Errorf("FormatWait(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	for _, typ := range AllThrottleTypes() {
		e := &ThrottledError{Type: typ, Wait: 1200 * time.Millisecond}
		got, ok := ParseThrottledMessage("org.apache.hadoop.hbase.quotas.RpcThrottlingException: " + e.Error())
		if !ok || *got != *e {
			t.Errorf("%s: %q parsed back as %+v, %v", typ, e.Error(), got, ok)
		}
		if !errors.Is(e, ErrThrottled) {
			t.Errorf("%s: not ErrThrottled", typ)
		}
	}
	e := &ThrottledError{Type: RequestNumber, Wait: 1200 * time.Millisecond}
	if got, want := e.Error(), "number of requests exceeded - wait 1sec, 200ms"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProtoRoundTrip(t *testing.T) {
	st := mustSettings(t,
		"USER => 'u1', LIMIT => '10req/sec'",
		"USER => 'u1', THROTTLE_TYPE => READ, LIMIT => '5M/min', SCOPE => CLUSTER",
		"USER => 'u1', GLOBAL_BYPASS => true",
		"TABLE => 'ns:t', THROTTLE_TYPE => REQUEST_HANDLER_USAGE_MS, LIMIT => '100ms/sec'",
		"REGIONSERVER => 'all', THROTTLE_TYPE => WRITE, LIMIT => '2CU/day'",
	)
	for _, typ := range AllThrottleTypes() {
		st = mustApply(t, st, Change{User: "all13", ThrottleType: typ.String(), Limit: "1" + map[Unit]string{
			UnitRequests: "req", UnitBytes: "K", UnitCapacityUnits: "CU", UnitMillis: "ms"}[typ.Unit()] + "/hour"})
	}
	back, err := SettingsFromProto(st.ToProto())
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != st.String() {
		t.Fatalf("round trip:\n%s\nwant\n%s", back, st)
	}
	if q, _ := back.Get(UserSubject("all13")); len(q.Throttles) != 13 {
		t.Fatalf("all13 has %d throttles", len(q.Throttles))
	}
}

func mustApply(t testing.TB, st Settings, c Change) Settings {
	t.Helper()
	next, err := st.Apply(c)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func TestSettingsValidate(t *testing.T) {
	bad := []struct {
		s    Subject
		q    Quota
		part string
	}{
		{RegionServerSubject(), Quota{Throttles: map[ThrottleType]TimedQuota{RequestNumber: {Limit{1, UnitRequests, time.Second}, ScopeCluster}}}, "CLUSTER"},
		{Subject{Namespace: "ns", Table: "t", RegionServer: "all"}, Quota{}, "invalid subject"},
		{UserSubject("u"), Quota{Throttles: map[ThrottleType]TimedQuota{ReadSize: {Limit: Limit{1, UnitRequests, time.Second}}}}, "READ_SIZE needs a limit in bytes"},
		{UserSubject("u"), Quota{Throttles: map[ThrottleType]TimedQuota{ReadSize: {Limit: Limit{0, UnitBytes, time.Second}}}}, "greater than 0"},
		{TableSubject("ns", "t"), Quota{BypassGlobals: true}, "GLOBAL_BYPASS"},
	}
	for _, tc := range bad {
		if _, err := (Settings{}).With(tc.s, tc.q); err == nil || !strings.Contains(err.Error(), tc.part) {
			t.Errorf("With(%+v) = %v, want error naming %q", tc.s, err, tc.part)
		}
	}
}

func TestCheckRefundsAndCharges(t *testing.T) {
	st := mustSettings(t,
		"USER => 'u', LIMIT => '10req/sec'",
		"TABLE => 't', LIMIT => '3req/sec'",
		"USER => 'u', THROTTLE_TYPE => READ, LIMIT => '10K/sec'",
	)
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{User: "u", Table: "t", Kind: KindRead, EstBytes: 100}
	for i := 0; i < 3; i++ {
		if _, err := c.Check(epoch, req); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.Check(epoch, req)
	var te *ThrottledError
	if !errors.As(err, &te) || te.Type != RequestNumber || te.Wait != time.Second/3+1 {
		t.Fatalf("4th check: %v", err)
	}
	// The user limiter was refunded: 7 left, not 6.
	ul := c.state.Load().users["u"].global
	if got := ul.rlOf(RequestNumber).avail; got != 7 {
		t.Fatalf("user balance %v, want 7", got)
	}
	// Charge after the fact: the read took 20 KiB, not 100 bytes.
	other := Request{User: "u", Table: "other", Kind: KindScan, EstBytes: 100}
	g, err := c.Check(epoch, other)
	if err != nil {
		t.Fatal(err)
	}
	g.Charge(20 << 10)
	if got := ul.rlOf(ReadSize).avail; got != 10<<10-3*100-20<<10 {
		t.Fatalf("read size balance %v", got)
	}
	_, err = c.Check(epoch.Add(time.Second), other)
	if !errors.As(err, &te) || te.Type != ReadSize {
		t.Fatalf("in debt: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "read size limit exceeded - wait ") {
		t.Fatalf("message %q", err)
	}
}

func TestCheckerUpdateKeepsBalance(t *testing.T) {
	st := mustSettings(t, "USER => 'u', LIMIT => '10req/sec'")
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := c.Check(epoch, Request{User: "u"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Update(mustApply(t, st, Change{User: "u", Limit: "12req/sec"}), epoch); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.Check(epoch, Request{User: "u"}); err != nil {
			t.Fatalf("after raising the limit: %v", err)
		}
	}
	if _, err := c.Check(epoch, Request{User: "u"}); err == nil {
		t.Fatal("want throttled: the update must not refill the bucket")
	}
}

// fakeClock is an injected clock whose sleep advances time.
type fakeClock struct{ now time.Time }

func (f *fakeClock) Now() time.Time { return f.now }
func (f *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	f.now = f.now.Add(d)
	return nil
}

// simulate runs one tenant issuing requests back to back in queue mode for
// d of simulated time after the initial burst has drained, and returns the
// units admitted per second.
func simulate(t *testing.T, st Settings, req Request, actual int64, d time.Duration, unit func(Request, int64) int64) float64 {
	t.Helper()
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{now: epoch}
	a := NewAdmitter(c, clk.Now, clk.Sleep)
	ctx := context.Background()
	var start time.Time
	var total int64
	for {
		before := clk.now
		g, err := a.Admit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		g.Charge(actual)
		if start.IsZero() && clk.now != before {
			start = before // first wait: the burst is spent; measure from here
		}
		if !start.IsZero() {
			if clk.now.Sub(start) > d {
				break
			}
			total += unit(req, actual)
		}
	}
	return float64(total) / d.Seconds()
}

func TestSimulatedRequestRate(t *testing.T) {
	for _, n := range []int{7, 100, 1000} {
		st := mustSettings(t, fmt.Sprintf("USER => 'u', LIMIT => '%dreq/sec'", n))
		rate := simulate(t, st, Request{User: "u", Kind: KindRead}, 0, 3*time.Second,
			func(Request, int64) int64 { return 1 })
		if rate < 0.95*float64(n) || rate > 1.05*float64(n) {
			t.Errorf("%d req/sec: got %.2f req/sec", n, rate)
		}
		t.Logf("%d req/sec limit: %.2f req/sec over 3 simulated seconds", n, rate)
	}
}

func TestSimulatedReadSizeWithDebt(t *testing.T) {
	// 100-row scans of 1 KiB rows estimate one 1 KiB block and charge 100
	// KiB after the fact.
	const limit = 1 << 20
	st := mustSettings(t, "USER => 'u', THROTTLE_TYPE => READ, LIMIT => '1M/sec'")
	rate := simulate(t, st, Request{User: "u", Kind: KindScan, EstBytes: 1 << 10}, 100<<10, 3*time.Second,
		func(_ Request, actual int64) int64 { return actual })
	if rate < 0.95*limit || rate > 1.05*limit {
		t.Errorf("READ_SIZE 1M/sec: got %.0f B/sec", rate)
	}
	t.Logf("READ_SIZE 1M/sec with debt: %.0f B/sec (%.2f%% of the limit)", rate, 100*rate/limit)
	// The same in CU: one READ_CAPACITY_UNIT limit fits gets and scans.
	st = mustSettings(t, "USER => 'u', THROTTLE_TYPE => READ, LIMIT => '500CU/sec'")
	rate = simulate(t, st, Request{User: "u", Kind: KindScan, EstBytes: 1 << 10}, 100<<10, 3*time.Second,
		func(_ Request, actual int64) int64 { return ceilDiv(actual, 1024) })
	if rate < 0.95*500 || rate > 1.05*500 {
		t.Errorf("READ_CAPACITY_UNIT 500CU/sec: got %.1f CU/sec", rate)
	}
}

func TestAdmitterRejectAndMaxWait(t *testing.T) {
	st := mustSettings(t, "USER => 'u', LIMIT => '1req/min'")
	clk := &fakeClock{now: epoch}
	c, err := NewChecker(Config{Mode: ModeReject}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdmitter(c, clk.Now, clk.Sleep)
	ctx := context.Background()
	if _, err := a.Admit(ctx, Request{User: "u"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Admit(ctx, Request{User: "u"}); !errors.Is(err, ErrThrottled) || clk.now != epoch {
		t.Fatalf("reject mode: %v after %v", err, clk.now.Sub(epoch))
	}
	// Queue mode: a wait of 1 minute is past MaxWait (5s): reject at once,
	// with the hint, without waiting.
	c, _ = NewChecker(Config{}, st, epoch)
	a = NewAdmitter(c, clk.Now, clk.Sleep)
	a.Admit(ctx, Request{User: "u"})
	_, err = a.Admit(ctx, Request{User: "u"})
	var te *ThrottledError
	if !errors.As(err, &te) || te.Wait != time.Minute || clk.now != epoch {
		t.Fatalf("queue mode past MaxWait: %v after %v", err, clk.now.Sub(epoch))
	}
	if err.Error() != "number of requests exceeded - wait 1min, 0ms" {
		t.Fatalf("message %q", err)
	}
}

// TestAdmitterPerTenantFIFO: a tenant's queued requests do not block
// another tenant, and leave in arrival order.
func TestAdmitterPerTenantFIFO(t *testing.T) {
	st := mustSettings(t, "USER => 'slow', LIMIT => '1req/sec'", "USER => 'fast', LIMIT => '1000req/sec'")
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	var mu = make(chan struct{}, 1)
	now := epoch
	nowFn := func() time.Time { mu <- struct{}{}; defer func() { <-mu }(); return now }
	wake := make(chan struct{})
	sleeping := make(chan struct{}, 10)
	sleepFn := func(ctx context.Context, d time.Duration) error {
		sleeping <- struct{}{}
		<-wake
		mu <- struct{}{}
		now = now.Add(d)
		<-mu
		return nil
	}
	a := NewAdmitter(c, nowFn, sleepFn)
	ctx := context.Background()
	if _, err := a.Admit(ctx, Request{User: "slow"}); err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 2; i++ {
			i := i
			go func() { a.Admit(ctx, Request{User: "slow"}); order <- i }()
			if i == 1 {
				<-sleeping // request 1 is the head, waiting for its token
			}
		}
	}()
	<-done
	// The slow tenant's backlog does not hold up another tenant.
	for i := 0; i < 100; i++ {
		if _, err := a.Admit(ctx, Request{User: "fast"}); err != nil {
			t.Fatal(err)
		}
	}
	close(wake)
	if a, b := <-order, <-order; a != 1 || b != 2 {
		t.Fatalf("order %d, %d", a, b)
	}
}

// TestClusterScopeSplitsAcrossServers: a CLUSTER-scope user limit is
// divided among the live region servers (HBase's static split); a MACHINE
// limit is not.
func TestClusterScopeSplitsAcrossServers(t *testing.T) {
	for _, tc := range []struct {
		scope string
		want  int
	}{{"CLUSTER", 25}, {"MACHINE", 100}} {
		st := mustSettings(t, "USER => 'u', LIMIT => '100req/sec', SCOPE => "+tc.scope)
		c, err := NewChecker(Config{NumServers: 4}, st, epoch)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for ; n < 200; n++ {
			if _, err := c.Check(epoch, Request{User: "u"}); err != nil {
				break
			}
		}
		if n != tc.want {
			t.Errorf("%s: %d requests admitted at once on one of 4 servers, want %d", tc.scope, n, tc.want)
		}
	}
}

// TestCUDivisor checks the shift form of ceil(b / unit) against the
// division, for power-of-two and other units.
func TestCUDivisor(t *testing.T) {
	for _, unit := range []int64{1, 2, 1000, 1024, 4096, 3 << 20} {
		d := newCUDivisor(unit)
		for _, b := range []int64{-5, 0, 1, unit - 1, unit, unit + 1, 7*unit + 3, 1 << 40} {
			if got, want := d.units(b), ceilDiv(b, unit); got != want {
				t.Errorf("unit %d: units(%d) = %d, want %d", unit, b, got, want)
			}
		}
	}
}

// TestCheckAndChargeDoNotAllocate: the admitted path (Check, Charge and
// Admit in both modes) allocates nothing once a (user, table) was seen.
func TestCheckAndChargeDoNotAllocate(t *testing.T) {
	big := map[ThrottleType]TimedQuota{
		RequestNumber: {Limit: Limit{1 << 40, UnitRequests, time.Second}},
		ReadSize:      {Limit: Limit{1 << 50, UnitBytes, time.Second}},
	}
	st := Settings{m: map[Subject]Quota{
		UserSubject("u"):             {Throttles: big},
		TableSubject("ns", "t"):      {Throttles: big},
		NamespaceSubject("ns"):       {Throttles: big},
		RegionServerSubject():        {Throttles: big},
		{User: "v", Namespace: "ns"}: {Throttles: big},
	}}
	for _, mode := range []Mode{ModeQueue, ModeReject} {
		c, err := NewChecker(Config{Mode: mode}, st, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		a := NewAdmitter(c, nil, nil)
		ctx := context.Background()
		for _, req := range []Request{
			{User: "u", Namespace: "ns", Table: "t", Kind: KindRead, EstBytes: 100},
			{User: "v", Namespace: "ns", Table: "t", Kind: KindAtomic, EstBytes: 100},
		} {
			op := func() {
				g, err := a.Admit(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				g.Charge(300)
				if g, err = c.Check(time.Now(), req); err != nil {
					t.Fatal(err)
				}
				g.Charge(50)
			}
			op() // resolves the (user, table) once
			if n := testing.AllocsPerRun(100, op); n != 0 {
				t.Errorf("%v %s: %v allocations per admitted call, want 0", mode, req.User, n)
			}
		}
	}
}
