package quota

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
)

// admitted counts how many of n reads of user u pass at one instant.
func admitted(t *testing.T, c *Checker, now time.Time, user string, n int) (int, *ThrottledError) {
	t.Helper()
	ok := 0
	var last *ThrottledError
	for range n {
		_, err := c.Check(now, Request{User: user, Table: "t", Kind: KindRead})
		if err == nil {
			ok++
			continue
		}
		if !errors.As(err, &last) {
			t.Fatal(err)
		}
	}
	return ok, last
}

// TestExceedThrottle: with soft limits on, a user passes its own limit
// while the region-server quota has room, and the server's limit still
// binds; with them off (or without a region-server quota) the user's limit
// is hard. Injected clock: every Check runs at one instant, so the counts
// are the buckets' capacities.
func TestExceedThrottle(t *testing.T) {
	now := time.Unix(1000, 0)
	st := mustSettings(t,
		"USER => 'u', LIMIT => '10req/sec'",
		"REGIONSERVER => 'all', LIMIT => '100req/sec'")
	c, err := NewChecker(Config{}, st, now)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := admitted(t, c, now, "u", 50); n != 10 {
		t.Fatalf("soft limits off: %d of 50 admitted, want u's limit 10", n)
	}
	c.SetExceedThrottle(true)
	now = now.Add(time.Second) // both buckets full again: u 10, the server 100
	n, te := admitted(t, c, now, "u", 150)
	if n != 100 {
		t.Fatalf("soft limits on: %d of 150 admitted, want the server's 100", n)
	}
	if te == nil || te.Type != RequestNumber || te.Wait <= 0 || te.Wait > 10*time.Millisecond {
		t.Fatalf("throttle past the server's limit: %+v, want REQUEST_NUMBER with the server's wait (10 ms for one request)", te)
	}
	// u's own limiter took every request into debt (90 over 10), so with
	// soft limits off again u waits for it to be repaid: 9 s.
	c.SetExceedThrottle(false)
	now = now.Add(5 * time.Second)
	if n, _ := admitted(t, c, now, "u", 5); n != 0 {
		t.Fatalf("after exceeding and turning soft limits off: %d admitted, want 0 until u's debt is repaid", n)
	}
	now = now.Add(5 * time.Second)
	if n, _ := admitted(t, c, now, "u", 50); n != 10 {
		t.Fatalf("after u's debt is repaid: %d admitted, want 10", n)
	}

	// Without a region-server quota soft limits change nothing.
	c2, err := NewChecker(Config{}, mustSettings(t, "USER => 'u', LIMIT => '10req/sec'"), now)
	if err != nil {
		t.Fatal(err)
	}
	c2.SetExceedThrottle(true)
	if n, _ := admitted(t, c2, now, "u", 50); n != 10 {
		t.Fatalf("no region server quota: %d admitted, want u's hard limit 10", n)
	}
}

func TestCheckExceedThrottle(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string // "" for allowed
	}{
		{nil, "set region server quota"},
		{[]string{"USER => 'u', LIMIT => '10req/sec'"}, "set region server quota"},
		{[]string{"REGIONSERVER => 'all', LIMIT => '100req/sec'"}, ""},
		{[]string{"REGIONSERVER => 'all', THROTTLE_TYPE => READ, LIMIT => '100req/sec'"}, "one write"},
		{[]string{"REGIONSERVER => 'all', THROTTLE_TYPE => WRITE, LIMIT => '100req/sec'"}, "one read"},
		{[]string{"REGIONSERVER => 'all', THROTTLE_TYPE => WRITE, LIMIT => '1M/sec'",
			"REGIONSERVER => 'all', THROTTLE_TYPE => READ, LIMIT => '100req/sec'"}, ""},
		{[]string{"REGIONSERVER => 'all', LIMIT => '100req/min'"}, "seconds time unit"},
	} {
		err := mustSettings(t, tc.lines...).CheckExceedThrottle()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want allowed", tc.lines, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrExceedNeedsRegionServerQuota)):
			t.Errorf("%v: %v, want an error naming %q", tc.lines, err, tc.want)
		}
	}
}

// TestSchedExtRoundTrip: PRIORITY and WEIGHT survive the hbase:quota value
// and a SetQuotaRequest as extension fields, next to HBase's own fields,
// and bad values are refused.
func TestSchedExtRoundTrip(t *testing.T) {
	st := mustSettings(t, "USER => 'etl', LIMIT => '10req/sec', PRIORITY => LOW, WEIGHT => 7")
	q, _ := st.Get(UserSubject("etl"))
	back, err := QuotaFromProto(UserSubject("etl"), q.ToProto())
	if err != nil {
		t.Fatal(err)
	}
	if back.Priority != PriorityLow || back.Weight != 7 || back.Throttles[RequestNumber].Limit.Amount != 10 {
		t.Fatalf("round trip: %+v", back)
	}
	req := &hbasepb.SetQuotaRequest{UserName: new("etl")}
	high := PriorityHigh
	SetSchedExt(req, Sched{Priority: &high, Weight: 3})
	SetSchedExt(req, Sched{Priority: &high, Weight: 4}) // replaces, not appends
	got, err := SchedExt(req)
	if err != nil || got.Priority == nil || *got.Priority != PriorityHigh || got.Weight != 4 {
		t.Fatalf("SchedExt = %+v, %v", got, err)
	}
	if req.GetUserName() != "etl" {
		t.Fatalf("user name lost: %v", req)
	}
	// Out of range values are refused with the field named.
	SetSchedExt(req, Sched{Weight: MaxWeight + 1})
	if _, err := SchedExt(req); err == nil || !strings.Contains(err.Error(), "WEIGHT") {
		t.Fatalf("weight out of range: %v", err)
	}
	// A priority on a table is refused when read back.
	p := &hbasepb.Quotas{}
	SetSchedExt(p, Sched{Priority: &high})
	if _, err := QuotaFromProto(TableSubject("default", "t"), p); err == nil || !strings.Contains(err.Error(), "USER alone") {
		t.Fatalf("priority on a table: %v", err)
	}
}

func FuzzSchedExt(f *testing.F) {
	f.Add([]byte{0xc8, 0x3e, 0x01})
	f.Add([]byte{0xd0, 0x3e, 0x05, 0x08, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		m := &hbasepb.Quotas{}
		m.ProtoReflect().SetUnknown(b)
		s, err := SchedExt(m)
		if err != nil {
			return
		}
		// Whatever parses must survive re-encoding.
		m2 := &hbasepb.Quotas{}
		SetSchedExt(m2, s)
		s2, err := SchedExt(m2)
		if err != nil || s2.Weight != s.Weight || (s.Priority == nil) != (s2.Priority == nil) ||
			(s.Priority != nil && *s.Priority != *s2.Priority) {
			t.Fatalf("re-encoding %+v gave %+v, %v", s, s2, err)
		}
	})
}
