package quota

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkCheck: a quota check with 10,000 users configured (each with a
// user and a user+table quota), a table, namespace and region-server
// quota. Must stay ≤ 300 ns/op and 0 allocs/op.
func BenchmarkCheck(b *testing.B) {
	const users = 10000
	st := Settings{m: make(map[Subject]Quota, 2*users+3)}
	big := map[ThrottleType]TimedQuota{
		RequestNumber: {Limit: Limit{1 << 40, UnitRequests, time.Second}},
		ReadSize:      {Limit: Limit{1 << 50, UnitBytes, time.Second}},
	}
	for i := 0; i < users; i++ {
		u := fmt.Sprintf("user%05d", i)
		st.m[UserSubject(u)] = Quota{Throttles: big}
		st.m[Subject{User: u, Namespace: "ns", Table: fmt.Sprintf("t%d", i%10)}] = Quota{Throttles: big}
	}
	st.m[TableSubject("ns", "t1")] = Quota{Throttles: big}
	st.m[NamespaceSubject("ns")] = Quota{Throttles: big}
	st.m[RegionServerSubject()] = Quota{Throttles: big}
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]Request, 1024)
	for i := range reqs {
		reqs[i] = Request{User: fmt.Sprintf("user%05d", i*7%users), Namespace: "ns", Table: "t1", Kind: KindRead, EstBytes: 100}
	}
	for _, bc := range []struct {
		name   string
		par    bool
		charge bool
	}{{"check", false, false}, {"check+charge", false, true}, {"parallel", true, false}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			if bc.par {
				b.RunParallel(func(pb *testing.PB) {
					i := 0
					for pb.Next() {
						i++
						if _, err := c.Check(epoch.Add(time.Duration(i)), reqs[i%len(reqs)]); err != nil {
							b.Fatal(err)
						}
					}
				})
				return
			}
			i := 0
			for b.Loop() {
				i++
				g, err := c.Check(epoch.Add(time.Duration(i)), reqs[i%len(reqs)])
				if err != nil {
					b.Fatal(err)
				}
				if bc.charge {
					g.Charge(200)
				}
			}
		})
	}
}
