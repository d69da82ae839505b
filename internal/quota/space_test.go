package quota

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

func TestParseSpaceLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{in: "64K", want: 64 << 10},
		{in: "1g", want: 1 << 30},
		{in: "10M", want: 10 << 20},
		{in: "2T", want: 2 << 40},
		{in: "1P", want: 1 << 50},
		{in: "1000", want: 1000},
		{in: "1000B", want: 1000},
		{in: " 5k ", want: 5 << 10},
		{in: "0", err: "greater than 0"},
		{in: "0G", err: "greater than 0"},
		{in: "-5G", err: "want a size"},
		{in: "1.5G", err: `unknown unit ".5G"`},
		{in: "10GB", err: `unknown unit "GB"`},
		{in: "10X", err: `unknown unit "X"`},
		{in: "G", err: "want a size"},
		{in: "", err: "want a size"},
		{in: "9999999P", err: "too large"},
		{in: "99999999999999999999", err: "too large"},
	} {
		got, err := ParseSpaceLimit(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrBadSpaceLimit) {
				t.Errorf("ParseSpaceLimit(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSpaceLimit(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if back, err := ParseSpaceLimit(FormatSpaceLimit(got)); err != nil || back != got {
			t.Errorf("FormatSpaceLimit(%d) = %q does not parse back: %d, %v", got, FormatSpaceLimit(got), back, err)
		}
	}
}

func FuzzParseSpaceLimit(f *testing.F) {
	for _, s := range []string{"64K", "1G", "0", "1.5G", "-1", "99999999999P", "10b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSpaceLimit(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSpaceLimit(%q) = %d, a non-positive limit", s, n)
		}
		if back, err := ParseSpaceLimit(FormatSpaceLimit(n)); err != nil || back != n {
			t.Fatalf("round trip of %d through %q: %d, %v", n, FormatSpaceLimit(n), back, err)
		}
	})
}

func TestApplySpace(t *testing.T) {
	// A throttle on the table must survive space changes.
	base, err := Settings{}.Apply(Change{Table: "t1", Limit: "10req/sec"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := base.ApplySpace(SpaceChange{Table: "t1", Limit: "1G", Policy: "no_inserts"})
	if err != nil {
		t.Fatal(err)
	}
	st, err = st.ApplySpace(SpaceChange{Namespace: "ns1", Limit: "64K", Policy: "DISABLE"})
	if err != nil {
		t.Fatal(err)
	}
	want := "TABLE => 'default:t1', REQUEST_NUMBER => 10req/sec, SPACE => 1G NO_INSERTS\n" +
		"NAMESPACE => 'ns1', SPACE => 64K DISABLE\n"
	if got := st.String(); got != want {
		t.Fatalf("settings:\n%s\nwant:\n%s", got, want)
	}
	// The stored form round-trips through HBase's Quotas message.
	q, _ := st.Get(TableSubject("default", "t1"))
	b, err := proto.Marshal(q.ToProto())
	if err != nil {
		t.Fatal(err)
	}
	var pq hbasepb.Quotas
	if err := proto.Unmarshal(b, &pq); err != nil {
		t.Fatal(err)
	}
	if pq.GetSpace().GetSoftLimit() != 1<<30 || pq.GetSpace().GetViolationPolicy() != hbasepb.SpaceViolationPolicy_NO_INSERTS {
		t.Fatalf("proto space = %v", pq.GetSpace())
	}
	back, err := QuotaFromProto(TableSubject("default", "t1"), &pq)
	if err != nil || back.Space == nil || *back.Space != *q.Space || len(back.Throttles) != 1 {
		t.Fatalf("QuotaFromProto = %+v, %v", back, err)
	}

	removed, err := st.ApplySpace(SpaceChange{Table: "t1", Limit: "NONE"})
	if err != nil {
		t.Fatal(err)
	}
	removed, err = removed.ApplySpace(SpaceChange{Namespace: "ns1", Remove: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := removed.String(), "TABLE => 'default:t1', REQUEST_NUMBER => 10req/sec\n"; got != want {
		t.Fatalf("after removal:\n%s\nwant:\n%s", got, want)
	}

	for _, tc := range []struct {
		c   SpaceChange
		err string
	}{
		{SpaceChange{User: "u", Limit: "1G", Policy: "NO_INSERTS"}, "not to a USER"},
		{SpaceChange{User: "u", Table: "t", Limit: "1G", Policy: "NO_INSERTS"}, "not to a USER"},
		{SpaceChange{Limit: "1G", Policy: "NO_INSERTS"}, "exactly one of TABLE or NAMESPACE"},
		{SpaceChange{Table: "t", Namespace: "n", Limit: "1G", Policy: "NO_INSERTS"}, "exactly one of TABLE or NAMESPACE"},
		{SpaceChange{Table: "t", Limit: "1G", Policy: "NO_READS"}, `unknown POLICY "NO_READS"`},
		{SpaceChange{Table: "t", Limit: "1G"}, "needs a POLICY"},
		{SpaceChange{Table: "t", Policy: "NO_WRITES"}, "needs a LIMIT"},
		{SpaceChange{Table: "t", Limit: "1.5G", Policy: "NO_WRITES"}, "bad space LIMIT"},
		{SpaceChange{Table: "t", Limit: "10GB", Policy: "NO_WRITES"}, "bad space LIMIT"},
		{SpaceChange{Table: "t", Limit: "0", Policy: "NO_WRITES"}, "greater than 0"},
		{SpaceChange{Table: "t", Limit: "NONE", Policy: "NO_WRITES"}, "POLICY cannot be combined"},
		{SpaceChange{Table: "a:b:c", Limit: "1G", Policy: "NO_WRITES"}, "not a table name"},
	} {
		got, err := st.ApplySpace(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ApplySpace(%+v) error %v; want one containing %q", tc.c, err, tc.err)
		}
		if got.String() != st.String() {
			t.Errorf("ApplySpace(%+v) changed the settings on error", tc.c)
		}
	}

	// Space on a user subject is refused however it arrives.
	if _, err := (Settings{}).With(UserSubject("u"), Quota{Space: &SpaceQuota{Limit: 1, Policy: SpaceNoWrites}}); err == nil {
		t.Error("With accepted a space quota on a user")
	}
	if _, err := QuotaFromProto(TableSubject("default", "t"), &hbasepb.Quotas{Space: &hbasepb.SpaceQuota{
		SoftLimit: proto.Uint64(1 << 63), ViolationPolicy: hbasepb.SpaceViolationPolicy_NO_WRITES.Enum()}}); err == nil {
		t.Error("QuotaFromProto accepted a limit beyond int64")
	}
}

func TestComputeSpaceSnapshots(t *testing.T) {
	st := Settings{}
	for _, c := range []SpaceChange{
		{Table: "small", Limit: "100", Policy: "NO_INSERTS"},
		{Table: "big", Limit: "1K", Policy: "NO_WRITES"},
		{Table: "ns:own", Limit: "1K", Policy: "NO_WRITES"},
		{Table: "ns:ownover", Limit: "10", Policy: "NO_WRITES_COMPACTIONS"},
		{Namespace: "ns", Limit: "500", Policy: "DISABLE"},
		{Namespace: "empty", Limit: "1", Policy: "NO_INSERTS"},
	} {
		var err error
		if st, err = st.ApplySpace(c); err != nil {
			t.Fatal(err)
		}
	}
	usage := map[string]int64{
		"default:small": 101, // over by one byte: in violation
		"default:big":   1024,
		"default:free":  1 << 40, // no quota
		"ns:own":        300,     // own quota fine, namespace over: namespace wins
		"ns:ownover":    11,      // own quota violated: it wins
		"ns:plain":      200,
	}
	got := ComputeSpaceSnapshots(st, usage)
	want := SpaceSnapshots{
		Tables: map[string]SpaceSnapshot{
			"default:small": {Usage: 101, Limit: 100, Policy: SpaceNoInserts, InViolation: true},
			"default:big":   {Usage: 1024, Limit: 1024, Policy: SpaceNoWrites},
			"ns:own":        {Usage: 511, Limit: 500, Policy: SpaceDisable, InViolation: true},
			"ns:ownover":    {Usage: 11, Limit: 10, Policy: SpaceNoWritesCompactions, InViolation: true},
			"ns:plain":      {Usage: 511, Limit: 500, Policy: SpaceDisable, InViolation: true},
		},
		Namespaces: map[string]SpaceSnapshot{
			"ns":    {Usage: 511, Limit: 500, Policy: SpaceDisable, InViolation: true},
			"empty": {Usage: 0, Limit: 1, Policy: SpaceNoInserts},
		},
	}
	check := func(kind string, got, want map[string]SpaceSnapshot) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s snapshots: got %v, want %v", kind, got, want)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s %s: got %+v, want %+v", kind, k, got[k], w)
			}
		}
	}
	check("table", got.Tables, want.Tables)
	check("namespace", got.Namespaces, want.Namespaces)

	// Below the namespace limit, a table with its own quota shows its own
	// snapshot and the others the namespace's.
	usage["ns:own"], usage["ns:ownover"], usage["ns:plain"] = 100, 5, 100
	got = ComputeSpaceSnapshots(st, usage)
	if s := got.Tables["ns:own"]; s != (SpaceSnapshot{Usage: 100, Limit: 1024, Policy: SpaceNoWrites}) {
		t.Errorf("ns:own below both limits: %+v", s)
	}
	if s := got.Tables["ns:plain"]; s != (SpaceSnapshot{Usage: 205, Limit: 500, Policy: SpaceDisable}) {
		t.Errorf("ns:plain below the namespace limit: %+v", s)
	}

	// Snapshots cross the wire as HBase's: no policy unless in violation.
	for _, s := range []SpaceSnapshot{want.Tables["default:small"], {Usage: 5, Limit: 10}} {
		if back := SpaceSnapshotFromProto(s.ToProto()); back != s {
			t.Errorf("snapshot round trip: %+v became %+v", s, back)
		}
	}
}

func TestCheckSpaceMutation(t *testing.T) {
	muts := []SpaceMutation{SpacePut, SpaceDelete, SpaceIncrement, SpaceAppend}
	for _, tc := range []struct {
		p       SpacePolicy
		allowed []bool // by muts
		compact bool
	}{
		{0, []bool{true, true, true, true}, true},
		{SpaceNoInserts, []bool{false, true, false, false}, true},
		{SpaceNoWrites, []bool{false, false, false, false}, true},
		{SpaceNoWritesCompactions, []bool{false, false, false, false}, false},
		{SpaceDisable, []bool{false, false, false, false}, true},
	} {
		for i, m := range muts {
			err := CheckSpaceMutation(tc.p, m)
			if (err == nil) != tc.allowed[i] {
				t.Errorf("policy %v, %s: err %v, want allowed=%v", tc.p, spaceMutationNames[m], err, tc.allowed[i])
			}
			if err != nil && !errors.Is(err, ErrSpaceViolation) {
				t.Errorf("policy %v: %v is not ErrSpaceViolation", tc.p, err)
			}
		}
		if SpaceCompactionsAllowed(tc.p) != tc.compact {
			t.Errorf("policy %v: compactions allowed = %v", tc.p, !tc.compact)
		}
	}
	// HBase's exact texts: the Java client reads the policy from them.
	for _, tc := range []struct {
		p    SpacePolicy
		m    SpaceMutation
		want string
	}{
		{SpaceNoInserts, SpacePut, "NO_INSERTS Puts are disallowed due to a space quota."},
		{SpaceNoInserts, SpaceAppend, "NO_INSERTS Appends are disallowed due to a space quota."},
		{SpaceNoWrites, SpaceDelete, "NO_WRITES Deletes are disallowed due to a space quota."},
		{SpaceNoWritesCompactions, SpaceIncrement, "NO_WRITES_COMPACTIONS Increments are disallowed due to a space quota."},
		{SpaceDisable, SpacePut, "DISABLE This table is disabled due to violating a space quota."},
	} {
		if err := CheckSpaceMutation(tc.p, tc.m); err == nil || err.Error() != tc.want {
			t.Errorf("CheckSpaceMutation(%v, %v) = %v; want %q", tc.p, tc.m, err, tc.want)
		}
	}
}
