package regionserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
)

// nopHandler answers every call with an empty GetResponse.
type nopHandler struct{}

func (nopHandler) Serve(context.Context, *hbaserpc.Call) (hbaserpc.Response, error) {
	return hbaserpc.Response{Msg: &hbasepb.GetResponse{Result: &hbasepb.Result{}}}, nil
}

// BenchmarkQuotaGate is the quota gate's work per Get as the region server
// does it (quotaGate.Serve around a handler that does nothing): the call's
// table from its region name, the admission (queue mode, four limiters:
// user, table, namespace, region server, with 10,000 users configured),
// the execution slot and the charge of the response's bytes. "unmarshal"
// is the GetRequest decoding alone, which the gate does for the handler
// (it reuses the message): the gate's own cost is the difference. Run with
// -cpu 1,2.
func BenchmarkQuotaGate(b *testing.B) {
	const users = 10000
	g, param := newTestGate(b, users)
	callUsers := make([]string, 1024)
	for i := range callUsers {
		callUsers[i] = fmt.Sprintf("user%05d", i*7%users)
	}
	ctx := context.Background()
	b.Run("gate", func(b *testing.B) {
		cpumeter.Parallel(b, func(i int) {
			c := hbaserpc.Call{Method: "Get", Param: param, User: callUsers[i%len(callUsers)]}
			if _, err := g.Serve(ctx, &c); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("unmarshal", func(b *testing.B) {
		cpumeter.Parallel(b, func(int) {
			if err := proto.Unmarshal(param, &hbasepb.GetRequest{}); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// newTestGate returns a quota gate around nopHandler, in queue mode with
// the server's default slots, with users users configured (each with a
// user and a user+table quota) and a table, namespace and region-server
// quota on ns:t1, so that a Get meets four limiters; and the parameter of
// a Get from ns:t1.
func newTestGate(tb testing.TB, users int) (*quotaGate, []byte) {
	tb.Helper()
	big := quota.Quota{Throttles: map[quota.ThrottleType]quota.TimedQuota{
		quota.RequestNumber: {Limit: quota.Limit{Amount: 1 << 40, Unit: quota.UnitRequests, Per: time.Second}},
		quota.ReadSize:      {Limit: quota.Limit{Amount: 1 << 50, Unit: quota.UnitBytes, Per: time.Second}},
	}}.ToProto()
	rows := make(map[quota.Subject]*hbasepb.Quotas, 2*users+3)
	for i := 0; i < users; i++ {
		u := fmt.Sprintf("user%05d", i)
		rows[quota.UserSubject(u)] = big
		rows[quota.Subject{User: u, Namespace: "ns", Table: fmt.Sprintf("t%d", i%10)}] = big
	}
	rows[quota.TableSubject("ns", "t1")] = big
	rows[quota.NamespaceSubject("ns")] = big
	rows[quota.RegionServerSubject()] = big
	st, err := quota.SettingsFromProto(rows)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := newQuotaGate(nopHandler{}, quota.Config{}, "", true, func(string, ...any) {})
	if err != nil {
		tb.Fatal(err)
	}
	g.slots = newSlots(DefaultHandlerCount, DefaultHighPriorityHandlers, 0)
	if err := g.apply(meta.QuotaState{Settings: st, RPCThrottle: true}); err != nil {
		tb.Fatal(err)
	}
	name, _ := meta.RegionName(meta.TableName{Namespace: "ns", Qualifier: "t1"}, []byte("row0"), 1)
	param, err := proto.Marshal(&hbasepb.GetRequest{
		Region: &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: name},
		Get:    &hbasepb.Get{Row: []byte("row1")}})
	if err != nil {
		tb.Fatal(err)
	}
	return g, param
}

// TestQuotaGateAllocations: a Get through the gate (admission, execution
// slot, charge) allocates nothing beyond the request's decoding (which the
// handler reuses) and the handler's own allocations.
func TestQuotaGateAllocations(t *testing.T) {
	g, param := newTestGate(t, 10)
	ctx := context.Background()
	c := hbaserpc.Call{Method: "Get", Param: param, User: "user00001"}
	serve := func() {
		c.Msg = nil
		if _, err := g.Serve(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	gate := testing.AllocsPerRun(200, serve)
	decode := testing.AllocsPerRun(200, func() {
		if _, ok := g.request(&c); !ok {
			t.Fatal("request not throttled")
		}
	})
	g.throttle.Store(false) // the handler alone
	handler := testing.AllocsPerRun(200, serve)
	if gate > decode+handler {
		t.Errorf("a Get through the gate allocates %v times, its decoding %v and the handler %v", gate, decode, handler)
	}
}
