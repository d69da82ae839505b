package quota

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cpumeter"
)

// benchUsers is the number of tenants configured in the overhead
// benchmarks (issue 5: ≤ 300 ns and no allocation with 10,000 tenants).
const benchUsers = 10000

// benchChecker returns a Checker with benchUsers users configured (each
// with a user and a user+table quota), a table, namespace and
// region-server quota, so that a request meets four limiters, and 1024
// requests spread over the users.
func benchChecker(b *testing.B, cfg Config, start time.Time) (*Checker, []Request) {
	b.Helper()
	st := Settings{m: make(map[Subject]Quota, 2*benchUsers+3)}
	big := map[ThrottleType]TimedQuota{
		RequestNumber: {Limit: Limit{1 << 40, UnitRequests, time.Second}},
		ReadSize:      {Limit: Limit{1 << 50, UnitBytes, time.Second}},
	}
	for i := 0; i < benchUsers; i++ {
		u := fmt.Sprintf("user%05d", i)
		st.m[UserSubject(u)] = Quota{Throttles: big}
		st.m[Subject{User: u, Namespace: "ns", Table: fmt.Sprintf("t%d", i%10)}] = Quota{Throttles: big}
	}
	st.m[TableSubject("ns", "t1")] = Quota{Throttles: big}
	st.m[NamespaceSubject("ns")] = Quota{Throttles: big}
	st.m[RegionServerSubject()] = Quota{Throttles: big}
	c, err := NewChecker(cfg, st, start)
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]Request, 1024)
	for i := range reqs {
		reqs[i] = Request{User: fmt.Sprintf("user%05d", i*7%benchUsers), Namespace: "ns", Table: "t1", Kind: KindRead, EstBytes: 100}
	}
	return c, reqs
}

// BenchmarkCheck: Checker.Check alone (the limiter lookup by HBase
// precedence, the cost estimate and the all-or-nothing charge of four
// limiters), with a fake clock, and with the charge of the actual bytes.
// Run with -cpu 1,2: the goroutines share the table, namespace and
// region-server limiters.
func BenchmarkCheck(b *testing.B) {
	c, reqs := benchChecker(b, Config{}, epoch)
	for _, charge := range []bool{false, true} {
		name := "check"
		if charge {
			name = "check+charge"
		}
		b.Run(name, func(b *testing.B) {
			cpumeter.Parallel(b, func(i int) {
				g, err := c.Check(epoch.Add(time.Duration(i)), reqs[i%len(reqs)])
				if err != nil {
					b.Fatal(err)
				}
				if charge {
					g.Charge(200)
				}
			})
		})
	}
}

// BenchmarkAdmit is the whole quota work the region server does per data
// call (internal/regionserver quotaGate.Serve and acquireSlot): Admitter.Admit
// with the real clock (the tenant's FIFO in queue mode, the check of four
// limiters), the tenant's scheduling class, and the charge of the actual
// bytes after the handler ran. Run with -cpu 1,2: the parallel goroutines
// share the table, namespace and region-server limiters.
func BenchmarkAdmit(b *testing.B) {
	for _, mode := range []Mode{ModeQueue, ModeReject} {
		b.Run(mode.String(), func(b *testing.B) {
			c, reqs := benchChecker(b, Config{Mode: mode}, time.Now()) // as the region server does
			a := NewAdmitter(c, nil, nil)
			ctx := context.Background()
			cpumeter.Parallel(b, func(i int) {
				req := reqs[i%len(reqs)]
				g, err := a.Admit(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if p, w := g.Tenant(); p != PriorityMedium || w != 1 {
					b.Fatalf("tenant %v %d", p, w)
				}
				g.Charge(200)
			})
		})
	}
}
